#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# profile-share.py PROFILE...: where a guest's CPU went during one fio job
# of a BENCH_PROFILE=1 run (tools/testing/tests/bench.sh writes each
# profile-<side>-<job>.txt from 'perf report --sort dso,sym').  Groups the
# samples into what can be changed here and what cannot: our modules, the
# in-tree rpcrdma, rxe, the RDMA core, SunRPC and NFS, the network stack
# and virtio, the rest of the kernel, user space, and an idle CPU.  Prints
# one Markdown table, a row per file and a column per group, in percent of
# all samples; with --json, the same as one JSON object; --self-test checks
# the grouping on a made-up report (make check runs it).  This is the
# measurement Documentation/benchmarks.rst points at when a ratio cannot
# move: the share of a guest's time our code has at all.

import json
import re
import sys

GROUPS = ["ours", "rpcrdma", "rxe", "ib core", "sunrpc+nfs", "net+virtio",
          "kernel", "user", "idle"]

# Module names as perf prints them ([name]); anything else in a bracket is
# a kernel module of its own.
DSO_GROUP = {
    "xprtrdma": "ours", "svcrdma": "ours", "nfsrdma_wire": "ours",
    "rpcrdma": "rpcrdma",
    "rdma_rxe": "rxe",
    "ib_core": "ib core", "ib_uverbs": "ib core", "rdma_cm": "ib core",
    "iw_cm": "ib core", "ib_cm": "ib core",
    "sunrpc": "sunrpc+nfs", "nfs": "sunrpc+nfs", "nfsv3": "sunrpc+nfs",
    "nfsv4": "sunrpc+nfs", "nfsd": "sunrpc+nfs", "lockd": "sunrpc+nfs",
    "auth_rpcgss": "sunrpc+nfs", "nfs_acl": "sunrpc+nfs",
    "grace": "sunrpc+nfs",
    "virtio_net": "net+virtio", "net_failover": "net+virtio",
    "failover": "net+virtio", "virtio_ring": "net+virtio",
    "virtio_pci": "net+virtio", "ip6_udp_tunnel": "net+virtio",
    "udp_tunnel": "net+virtio", "crc32_generic": "rxe",
    "crc32c_generic": "kernel",
}

# Symbols that say which group a kernel symbol belongs to, when perf put
# a module's symbols under [kernel.kallsyms].
SYM_PREFIX = [
    ("xprtrdma_", "ours"), ("svcrdma_", "ours"), ("nfsrdma_wire_", "ours"),
    ("rpcrdma_", "rpcrdma"), ("svc_rdma_", "rpcrdma"), ("frwr_", "rpcrdma"),
    ("rxe_", "rxe"),
    ("ib_", "ib core"), ("rdma_", "ib core"), ("cma_", "ib core"),
    ("svc_", "sunrpc+nfs"), ("xprt_", "sunrpc+nfs"), ("rpc_", "sunrpc+nfs"),
    ("xdr_", "sunrpc+nfs"), ("nfs", "sunrpc+nfs"),
    ("virtnet_", "net+virtio"), ("virtqueue_", "net+virtio"),
    ("vring_", "net+virtio"), ("vp_", "net+virtio"), ("udp", "net+virtio"),
    ("ip_", "net+virtio"), ("ip6_", "net+virtio"), ("__ip", "net+virtio"),
    ("skb_", "net+virtio"), ("__skb", "net+virtio"), ("net_", "net+virtio"),
    ("__netif", "net+virtio"), ("netif_", "net+virtio"),
    ("dev_", "net+virtio"), ("__dev_", "net+virtio"),
]

IDLE = {"native_safe_halt", "default_idle", "arch_cpu_idle",
        "default_idle_call", "cpuidle_idle_call", "do_idle", "mwait_idle",
        "acpi_idle_do_entry", "poll_idle"}

LINE = re.compile(r"^\s*([0-9.]+)%\s+(\S+)\s+\[(.)\]\s+(\S+)")


def group(dso, kind, sym):
    if kind != "k":
        return "user"
    if sym in IDLE:
        return "idle"
    name = dso.strip("[]")
    if name != "kernel.kallsyms":
        return DSO_GROUP.get(name, "kernel")
    for prefix, g in SYM_PREFIX:
        if sym.startswith(prefix):
            return g
    return "kernel"


def shares(path):
    out = dict.fromkeys(GROUPS, 0.0)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out[group(m.group(2), m.group(3), m.group(4))] += \
                    float(m.group(1))
    # perf's --percent-limit drops the tail: it is reported, not guessed.
    out["below limit"] = max(0.0, 100.0 - sum(out.values()))
    return out


# A made-up 'perf report --sort dso,sym' fragment and the shares it must
# give: module symbols under [kernel.kallsyms] and under their own DSO, an
# idle CPU, user space, and a tail below perf's --percent-limit.
SELF_TEST = """\
# Overhead  Shared Object      Symbol
    30.00%  [kernel.kallsyms]  [k] native_safe_halt
    20.00%  [kernel.kallsyms]  [k] rxe_requester
     5.00%  [rdma_rxe]         [k] rxe_responder
    10.00%  [kernel.kallsyms]  [k] xprtrdma_reply_handler
     2.50%  [svcrdma]          [k] svcrdma_recv_done
     8.00%  [kernel.kallsyms]  [k] virtqueue_add_sgs
     4.00%  [sunrpc]           [k] xprt_transmit
     6.00%  [kernel.kallsyms]  [k] memcpy_orig
     4.50%  fio                [.] td_io_queue
"""
SELF_WANT = {"idle": 30.0, "rxe": 25.0, "ours": 12.5, "net+virtio": 8.0,
             "sunrpc+nfs": 4.0, "kernel": 6.0, "user": 4.5,
             "below limit": 10.0, "rpcrdma": 0.0, "ib core": 0.0}


def self_test():
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write(SELF_TEST)
        f.flush()
        got = shares(f.name)
    bad = {k: (got.get(k), v) for k, v in SELF_WANT.items()
           if abs(got.get(k, -1.0) - v) > 1e-6}
    if bad:
        sys.exit(f"profile-share.py self-test: got, want: {bad}")
    print("profile-share.py self-test: ok")


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    if not files:
        sys.exit("usage: profile-share.py [--json] PROFILE...")
    rows = {p: shares(p) for p in files}
    if as_json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return
    cols = GROUPS + ["below limit"]
    print("| profile | " + " | ".join(cols) + " |")
    print("|:---|" + "---:|" * len(cols))
    for p, s in rows.items():
        print(f"| {p} | " + " | ".join(f"{s[c]:.1f}" for c in cols) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
