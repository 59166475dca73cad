#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench_report.py [BENCH_DIR]: turn the raw outputs tools/testing/make-bench.sh
# left in BENCH_DIR/raw/<column>/<rep>/ into BENCH_DIR/bench.md (a markdown
# table, also printed), BENCH_DIR/bench.png (gnuplot) and
# BENCH_DIR/summary.json (the medians, for scripts).  Standard library
# only: it runs wherever 'make bench' runs.
#
# A repetition counts only if make-bench.sh marked it PASS after checking the
# guests' verdicts; anything missing or malformed stops the report rather
# than shrinking a median behind the reader's back.

import json
import os
import statistics
import subprocess
import sys

MIB = 1 << 20
GIB = 1 << 30

# fio jobs, as tests/bench.sh names them: label, fio direction, main metric
# (bw, iops, or lat: completion latency percentiles in µs).
FIO_JOBS = [
    ("seq-write", "seq write 1 MiB, QD 8", "write", "bw"),
    ("seq-read", "seq read 1 MiB, QD 8", "read", "bw"),
    ("rand-read", "rand read 4 KiB, QD 16", "read", "iops"),
    ("rand-write", "rand write 4 KiB, QD 16", "write", "iops"),
    ("qd1-read", "rand read 4 KiB, QD 1", "read", "lat"),
    ("qd1-write", "rand write 4 KiB, QD 1", "write", "lat"),
]
SEQ_JOBS = ("seq-write", "seq-read")

# summary.json: metric name -> row key.  The sequential loads'
# CPU cost is one figure per VM: both loads' CPU time over both loads'
# bytes.
SUMMARY = {
    "seq_write_mibs": ("seq-write", "main"),
    "seq_read_mibs": ("seq-read", "main"),
    "rand_read_iops": ("rand-read", "main"),
    "rand_write_iops": ("rand-write", "main"),
    "qd1_read_p50_us": ("qd1-read", "p50"),
    "qd1_read_p99_us": ("qd1-read", "p99"),
    "qd1_write_p50_us": ("qd1-write", "p50"),
    "qd1_write_p99_us": ("qd1-write", "p99"),
    "cpu_s_per_gib_client": ("seq", "cpu-client"),
    "cpu_s_per_gib_server": ("seq", "cpu-server"),
    "meta_ops_s": ("meta", "main"),
    "rxe_write_bw_mibs": ("ib_write_bw", "main"),
    "rxe_read_bw_mibs": ("ib_read_bw", "main"),
    "rxe_send_lat_us": ("ib_send_lat", "main"),
}

# perftest programs: label and what their result line holds.
PERFTESTS = [
    ("ib_write_bw", "rxe RDMA Write (ib_write_bw)", "bw"),
    ("ib_read_bw", "rxe RDMA Read (ib_read_bw)", "bw"),
    # perftest's latency tests report half the ping-pong round trip.
    ("ib_send_lat", "rxe Send latency, one way (ib_send_lat)", "lat"),
]

# Known columns first, in this order; any other column a future make-bench.sh
# adds is reported after them without a change here.
COLUMN_ORDER = ["rdma-intree", "rdma-ours-client", "rdma-ours-client-staged",
                "rdma-ours-server", "rdma-ours", "rdma-ours-staged",
                "rdma-ours-ack0", "rdma-ours-server-unpaced",
                "rdma-ours-unpaced",
                "rdma-ours-inline4k",
                "rdma-intree-jumbo",
                "rdma-ours-jumbo", "tcp", "rxe"]
RATIOS = [("client ours/intree", "rdma-ours-client", "rdma-intree"),
          ("client ours staged/intree", "rdma-ours-client-staged",
           "rdma-intree"),
          ("client staged/unstaged", "rdma-ours-client-staged",
           "rdma-ours-client"),
          ("server ours/intree", "rdma-ours-server", "rdma-intree"),
          ("both ours/intree", "rdma-ours", "rdma-intree"),
          ("both ours staged/intree", "rdma-ours-staged", "rdma-intree"),
          ("both ours staged/unstaged", "rdma-ours-staged", "rdma-ours"),
          ("both ours, rdma_cm ACK timeout/intree", "rdma-ours-ack0",
           "rdma-intree"),
          ("ACK timeout 268 ms/rdma_cm's, ours both", "rdma-ours",
           "rdma-ours-ack0"),
          ("server paced/unpaced Reads", "rdma-ours-server",
           "rdma-ours-server-unpaced"),
          ("both ours paced/unpaced Reads", "rdma-ours", "rdma-ours-unpaced"),
          ("both ours 4 KiB inline/intree", "rdma-ours-inline4k", "rdma-intree"),
          ("8 KiB inline/4 KiB, ours both", "rdma-ours", "rdma-ours-inline4k"),
          ("MTU 9000 both ours/intree", "rdma-ours-jumbo", "rdma-intree-jumbo"),
          ("tcp/intree", "tcp", "rdma-intree")]


class ReportError(Exception):
    pass


def read_fio(path, direction):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # fio may print notes before the JSON document in the same file.
    start = text.find("{")
    if start < 0:
        raise ReportError(f"{path}: no JSON")
    try:
        job = json.loads(text[start:])["jobs"][0]
    except (ValueError, KeyError, IndexError) as e:
        raise ReportError(f"{path}: unreadable fio output: {e}") from e
    if job.get("error"):
        raise ReportError(f"{path}: fio reported error {job['error']}")
    d = job[direction]
    if not d.get("io_bytes"):
        raise ReportError(f"{path}: no {direction} I/O was done")
    try:
        pct = d["clat_ns"]["percentile"]
        p50, p99 = pct["50.000000"], pct["99.000000"]
    except KeyError as e:
        raise ReportError(f"{path}: no completion latency percentiles") from e
    return {"bw": d["bw_bytes"] / MIB, "iops": d["iops"], "clat": p50 / 1e6,
            "p50": p50 / 1e3, "p99": p99 / 1e3}


def read_cpu(rdir, hz):
    """{load: (client_s, server_s, wire_bytes)} from the CPU marks.

    cpu.txt has one "LOAD EDGE CLIENT_TICKS SERVER_TICKS" line per mark the
    host answered; wire.LOAD has the guest's "EDGE BYTES" at the same
    marks.  A load without both edges of both is left out: its cost is
    shown as unknown, never guessed.
    """
    ticks, wire, out = {}, {}, {}
    try:
        with open(os.path.join(rdir, "cpu.txt"), encoding="utf-8") as f:
            for line in f:
                load, edge, c, s = line.split()
                ticks[(load, edge)] = (int(c), int(s))
    except FileNotFoundError:
        return out
    except ValueError as e:
        raise ReportError(f"{rdir}/cpu.txt: unreadable line: {e}") from e
    for load in {k[0] for k in ticks}:
        try:
            with open(os.path.join(rdir, f"wire.{load}"), encoding="utf-8") as f:
                for line in f:
                    edge, b = line.split()
                    wire[(load, edge)] = int(b)
        except (FileNotFoundError, ValueError):
            continue
        try:
            (c0, s0), (c1, s1) = ticks[(load, "start")], ticks[(load, "end")]
            b = wire[(load, "end")] - wire[(load, "start")]
        except KeyError:
            continue
        if min(c0, s0, c1, s1) < 0 or c1 < c0 or s1 < s0 or b <= 0:
            continue
        out[load] = ((c1 - c0) / hz, (s1 - s0) / hz, b)
    return out


def read_meta_load(path):
    with open(path, encoding="utf-8") as f:
        try:
            r = json.load(f)
            return float(r["ops_s"])
        except (ValueError, KeyError, TypeError) as e:
            raise ReportError(f"{path}: unreadable metadata result: {e}") from e


def read_perftest(path, kind):
    """The result line under perftest's '#bytes' header: (bytes, value)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("#bytes") and i + 1 < len(lines):
            fields = lines[i + 1].split()
            try:
                size = int(fields[0])
                # bw: #bytes #iterations peak average msgrate (MB = 2^20)
                # lat: #bytes #iterations t_min t_max t_typical ...
                value = float(fields[3] if kind == "bw" else fields[4])
            except (ValueError, IndexError) as e:
                raise ReportError(f"{path}: unreadable result line") from e
            return size, value
    raise ReportError(f"{path}: no result line")


def read_rxe_retries(rdir, role):
    """rxe's completer_retry_err for ROLE over the whole boot, or None.

    Each is a requester's timeout or a gap it saw, after which it sent
    packets again: with a lossy link, the number behind a slow column.
    """
    try:
        with open(os.path.join(rdir, f"rxe-counters.{role}.txt"),
                  encoding="utf-8") as f:
            for line in f:
                k, sep, v = line.strip().partition(":")
                if sep and k == "completer_retry_err":
                    return int(v)
    except (FileNotFoundError, ValueError):
        pass
    return None


def read_rereg_failures(rdir, role):
    """REG_MRs ROLE's rxe refused as "not free" over the whole boot, or None.

    Debian 6.1's rxe runs a REG_MR again when a retransmission rewinds the
    send queue over it, and refuses it then: the in-tree client's QP stops
    until its RPC timeout (Documentation/benchmarks.rst).  One such boot
    makes a column's slow outlier.
    """
    try:
        with open(os.path.join(rdir, f"{role}.log"), encoding="utf-8",
                  errors="replace") as f:
            return sum("rxe_reg_fast_mr" in line and "not free" in line
                       for line in f)
    except FileNotFoundError:
        return None


def boot_loads(rdir):
    """The loads a boot's env file limited it to (BENCH_LOADS), or None."""
    try:
        with open(os.path.join(rdir, "env"), encoding="utf-8") as f:
            for line in f:
                k, sep, v = line.strip().partition("=")
                if sep and k == "BENCH_LOADS":
                    return set(v.strip('"').split())
    except FileNotFoundError:
        pass
    return None


def load(raw, hz=100):
    """{column: {"kind": "nfs"|"perftest", "reps": [{row_key: value}]}}"""
    if not os.path.isdir(raw):
        raise ReportError(f"{raw}: no raw results; run tools/testing/make-bench.sh")
    cols = {}
    for col in sorted(os.listdir(raw)):
        cdir = os.path.join(raw, col)
        if not os.path.isdir(cdir):
            continue
        reps = []
        kind = None
        for rep in sorted(os.listdir(cdir), key=lambda r: (len(r), r)):
            rdir = os.path.join(cdir, rep)
            if not os.path.isdir(rdir):
                continue
            if not os.path.exists(os.path.join(rdir, "PASS")):
                raise ReportError(f"{rdir}: not marked PASS by make-bench.sh; "
                                  "its numbers cannot be trusted")
            files = os.listdir(rdir)
            vals = {}
            if any(f.startswith("fio-") for f in files):
                kind = "nfs"
                loads = boot_loads(rdir)
                for key, _, direction, main in FIO_JOBS:
                    path = os.path.join(rdir, f"fio-{key}.json")
                    if loads is not None and key not in loads:
                        continue
                    # Runs from before a job existed are still reported.
                    if main == "lat" and not os.path.exists(path):
                        continue
                    r = read_fio(path, direction)
                    if main == "lat":
                        vals[(key, "main")] = r["p50"]
                        vals[(key, "p99")] = r["p99"]
                        vals[(key, "p50")] = r["p50"]
                    else:
                        vals[(key, "main")] = r[main]
                        vals[(key, "clat")] = r["clat"]
                cpu = read_cpu(rdir, hz)
                for key, (c, s, b) in cpu.items():
                    vals[(key, "cpu-client")] = c / (b / GIB)
                    vals[(key, "cpu-server")] = s / (b / GIB)
                if all(k in cpu for k in SEQ_JOBS):
                    b = sum(cpu[k][2] for k in SEQ_JOBS) / GIB
                    vals[("seq", "cpu-client")] = sum(cpu[k][0] for k in SEQ_JOBS) / b
                    vals[("seq", "cpu-server")] = sum(cpu[k][1] for k in SEQ_JOBS) / b
                for role in ("client", "server"):
                    n = read_rxe_retries(rdir, role)
                    if n is not None:
                        vals[("boot", f"retry-{role}")] = n
                n = read_rereg_failures(rdir, "client")
                if n is not None:
                    vals[("boot", "rereg-client")] = n
                if os.path.exists(os.path.join(rdir, "meta.json")):
                    vals[("meta", "main")] = read_meta_load(
                        os.path.join(rdir, "meta.json"))
            elif any(f.startswith("perftest-") for f in files):
                kind = "perftest"
                for prog, _, pkind in PERFTESTS:
                    size, v = read_perftest(
                        os.path.join(rdir, f"perftest-{prog}.txt"), pkind)
                    vals[(prog, "main")] = v
                    vals[(prog, "size")] = size
            else:
                raise ReportError(f"{rdir}: neither fio nor perftest output")
            reps.append(vals)
        if reps:
            cols[col] = {"kind": kind, "reps": reps}
    if not cols:
        raise ReportError(f"{raw}: no repetitions")
    return cols


def order(cols):
    known = [c for c in COLUMN_ORDER if c in cols]
    return known + sorted(c for c in cols if c not in COLUMN_ORDER)


def stats(cols, col, key):
    if col not in cols:
        return None
    v = [r[key] for r in cols[col]["reps"] if key in r]
    if not v:
        return None
    return statistics.median(v), min(v), max(v), len(v)


def num(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def size_label(b):
    return f"{b >> 10} KiB" if b >= 1024 else f"{b} B"


def rows(cols):
    """(label, metric, key, kind) per table row, NFS first, then perftest."""
    out = []
    for key, label, _, main in FIO_JOBS:
        if main == "lat":
            out.append((label, "clat p50 µs ↓", (key, "p50"), "nfs"))
            out.append((label, "clat p99 µs ↓", (key, "p99"), "nfs"))
        else:
            out.append((label, "MiB/s ↑" if main == "bw" else "IOPS ↑",
                        (key, "main"), "nfs"))
            out.append((label, "clat p50 ms ↓", (key, "clat"), "nfs"))
        out.append((label, "client VM CPU s/GiB ↓", (key, "cpu-client"), "nfs"))
        out.append((label, "server VM CPU s/GiB ↓", (key, "cpu-server"), "nfs"))
    out.append(("seq write + read", "client VM CPU s/GiB ↓", ("seq", "cpu-client"), "nfs"))
    out.append(("seq write + read", "server VM CPU s/GiB ↓", ("seq", "cpu-server"), "nfs"))
    out.append(("small files: create, stat, rename, unlink", "ops/s ↑",
                ("meta", "main"), "nfs"))
    for role in ("client", "server"):
        out.append(("whole boot", f"RC retransmissions, {role} rxe ↓",
                    ("boot", f"retry-{role}"), "nfs"))
    out.append(("whole boot", 'REG_MRs client rxe refused, "not free" ↓',
                ("boot", "rereg-client"), "nfs"))
    for prog, label, pkind in PERFTESTS:
        sizes = {r.get((prog, "size")) for c in cols.values() for r in c["reps"]}
        sizes.discard(None)
        if len(sizes) == 1:
            label += f", {size_label(sizes.pop())}"
        out.append((label, "MiB/s ↑" if pkind == "bw" else "typical µs ↓",
                    (prog, "main"), "perftest"))
    return out


def markdown(cols, meta, reruns=()):
    names = order(cols)
    ratios = [r for r in RATIOS if r[1] in cols and r[2] in cols]
    nreps = sorted({len(c["reps"]) for c in cols.values()})
    out = ["# nfsrdma benchmark", ""]
    out.append(
        f"Run {meta.get('date', '?')}, commit {meta.get('commit', '?')}, "
        f"kernel {meta.get('kernel', '?')}; two 1-vCPU QEMU TCG guests joined "
        f"by one virtio link, soft-RoCE (rxe) on it. "
        f"fio: {meta.get('runtime', '?')} s per job after a 2 s ramp, "
        f"O_DIRECT, libaio, one {meta.get('file_mb', '?')} MiB file; "
        f"perftest bandwidth: {meta.get('pt_secs', '?')} s per test"
        + (f", with {meta['pt_bw_opts']}" if meta.get("pt_bw_opts") else "")
        + ". "
        + (f"Loads: {meta['loads']} only. "
           if meta.get("loads", "all") != "all" else "")
        + f"Host: {meta.get('host_cpus', '?')} CPUs, load average "
        f"{meta.get('host_load_start', '?')} at the start, "
        f"{meta.get('host_load_end', '?')} at the end; "
        f"{meta.get('wall_s', '?')} s wall time.")
    out.append("")
    out.append(
        f"Each cell is the median over {'/'.join(map(str, nreps))} boots of "
        "the VM pair, with the range (min–max) in brackets. Ratios are of "
        "medians: for ↑ rows above 1 is faster, for ↓ rows above 1 is slower. "
        "TCG-emulated soft-RoCE: compare numbers within this table only "
        "(Documentation/benchmarks.rst).")
    out.append("")
    out.append(
        "CPU s/GiB: the QEMU process's user and system time (under TCG, all "
        "of its guest's work, the emulated rxe included) from the start of a "
        "job to its end, per GiB the mount's RPCs carried in that time.")
    out.append("")
    head = ["workload", "metric"] + names + [r[0] for r in ratios]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join([":---", ":---"] + ["---:"] * (len(head) - 2)) + "|")
    for label, metric, key, kind in rows(cols):
        if not any(stats(cols, c, key) for c in names):
            continue
        cells = [label, metric]
        for c in names:
            s = stats(cols, c, key) if cols[c]["kind"] == kind else None
            cells.append("—" if s is None else
                         f"{num(s[0])} ({num(s[1])}–{num(s[2])})")
        for _, a, b in ratios:
            sa, sb = stats(cols, a, key), stats(cols, b, key)
            cells.append(f"{sa[0] / sb[0]:.2f}" if sa and sb and sb[0] else "—")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    if reruns:
        out.append(
            "Booted again (make-bench.sh keeps the first boot's logs under "
            "stalled/ and counts only the second): "
            + "; ".join(f"{name}: {why}" for name, why in reruns) + ".")
        out.append("")
    return "\n".join(out)


def read_reruns(bench):
    """The boots make-bench.sh ran twice: (column-rep, reason) pairs."""
    top = os.path.join(bench, "stalled")
    out = []
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return out
    for name in names:
        try:
            with open(os.path.join(top, name, "WHY"), encoding="utf-8") as f:
                why = f.read().strip()
        except OSError:
            why = "stalled"
        out.append((name, why or "stalled"))
    return out


def gp_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def plot(cols, bench, meta):
    """bench.png: 2x2 grouped bars, one bar per NFS column, min-max bars."""
    pdir = os.path.join(bench, "plot")
    os.makedirs(pdir, exist_ok=True)
    nfs = [c for c in order(cols) if cols[c]["kind"] == "nfs"]
    pt = next((c for c in order(cols) if cols[c]["kind"] == "perftest"), None)
    if not nfs:
        return None

    def ceiling(prog, scale=1.0):
        s = stats(cols, pt, (prog, "main")) if pt else None
        return s[0] * scale if s else None

    panels = [
        ("seq-bw", "Sequential 1 MiB: MiB/s (higher is better)",
         ["seq-write", "seq-read"], "main",
         # NFS WRITE payloads move by RDMA Read, READ payloads by RDMA Write.
         [("rxe RDMA Read ceiling (ib_read_bw)", ceiling("ib_read_bw")),
          ("rxe RDMA Write ceiling (ib_write_bw)", ceiling("ib_write_bw"))]),
        ("rand-iops", "Random 4 KiB: IOPS (higher is better)",
         ["rand-read", "rand-write"], "main", []),
        ("seq-lat", "Sequential 1 MiB: median completion latency, ms",
         ["seq-write", "seq-read"], "clat", []),
        ("rand-lat", "Random 4 KiB: median completion latency, ms",
         ["rand-read", "rand-write"], "clat",
         [("rxe Send latency, one way (ib_send_lat)", ceiling("ib_send_lat", 1e-3))]),
    ]
    gp = [
        "set terminal pngcairo noenhanced size 1400,1000 font 'sans,10'",
        f"set output {gp_str(os.path.join(bench, 'bench.png'))}",
        "set datafile missing '?'",
        "set style data histogram",
        "set style histogram errorbars gap 1 lw 1",
        "set style fill solid 0.75 border -1",
        "set grid ytics",
        "set key top left Left reverse horizontal maxcols 3",
        "set xtics nomirror",
        f"set multiplot layout 2,2 title {gp_str('nfsrdma bench, ' + meta.get('date', '') + ': median of ' + '/'.join(sorted({str(len(cols[c]['reps'])) for c in nfs})) + ' boots, bars show min-max; TCG soft-RoCE, compare within this run only')}",
    ]
    for name, title, jobs, metric, lines in panels:
        dat = os.path.join(pdir, name + ".dat")
        top = 0.0
        if not any(stats(cols, c, (j, metric)) for j in jobs for c in nfs):
            # A run of some loads only (BENCH_LOADS): an empty panel
            # that says so, since gnuplot refuses a plot with no points.
            gp.append(f"set title {gp_str(title)}")
            gp.append("set yrange [0:1]")
            gp.append("set xrange [0:1]")
            gp.append("set label 1 'not measured in this run' at graph 0.5,0.5 center")
            gp.append("plot 2 notitle")
            gp.append("unset label 1")
            gp.append("set autoscale x")
            continue
        with open(dat, "w", encoding="utf-8") as f:
            f.write("# workload" + "".join(f" {c}:median,min,max" for c in nfs) + "\n")
            for j in jobs:
                f.write(gp_str(j))
                for c in nfs:
                    s = stats(cols, c, (j, metric))
                    if s:
                        f.write(f" {s[0]:.6g} {s[1]:.6g} {s[2]:.6g}")
                        top = max(top, s[2])
                    else:
                        f.write(" ? ? ?")
                f.write("\n")
        ceil = []
        for i, (text, y) in enumerate(lines):
            if y is None:
                continue
            top = max(top, y)
            # A function, not a labelled arrow: the key names it and no
            # label hides the top of a bar.
            ceil.append(f"{y:.6g} with lines dt {2 + i} lw 2 lc rgb '#333333' "
                        f"title {gp_str(f'{text}: {num(y)}')}")
        # Autoscale ignores the ceiling lines; leave room for them and the key.
        gp.append(f"set yrange [0:{top * 1.35 if top > 0 else 1:.6g}]")
        gp.append(f"set title {gp_str(title)}")
        series = []
        for i, c in enumerate(nfs):
            b = 2 + 3 * i
            series.append(f"{gp_str(dat) if i == 0 else chr(39) * 2} using "
                          f"{b}:{b + 1}:{b + 2}{':xtic(1)' if i == 0 else ''} "
                          f"title {gp_str(c)}")
        series += ceil
        gp.append("plot " + ", ".join(series))
    gp.append("unset multiplot")
    script = os.path.join(pdir, "bench.gp")
    with open(script, "w", encoding="utf-8") as f:
        f.write("\n".join(gp) + "\n")
    r = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if r.returncode != 0:
        raise ReportError(f"gnuplot failed on {script}:\n{r.stderr}")
    return os.path.join(bench, "bench.png")


def summary(cols):
    """summary.json: {"columns": {column: {metric: median}}, "ratios": ...}"""
    out = {"columns": {}, "ranges": {}, "ratios": {}}
    for c in order(cols):
        med, rng = {}, {}
        for metric, key in SUMMARY.items():
            s = stats(cols, c, key)
            if s:
                med[metric] = round(s[0], 4)
                rng[metric] = [round(s[1], 4), round(s[2], 4), s[3]]
        out["columns"][c] = med
        out["ranges"][c] = rng
    for _, a, b in RATIOS:
        if a in cols and b in cols:
            ma, mb = out["columns"][a], out["columns"][b]
            out["ratios"][f"{a}/{b}"] = {
                m: round(ma[m] / mb[m], 4) for m in ma if m in mb and mb[m]}
    return out


def read_meta(raw):
    meta = {}
    try:
        with open(os.path.join(raw, "meta"), encoding="utf-8") as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    meta[k] = v
    except OSError:
        pass
    return meta


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    bench = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "..", "..", "results", "bench")
    raw = os.path.join(bench, "raw")
    try:
        meta = read_meta(raw)
        try:
            hz = int(meta.get("clk_tck", "100"))
        except ValueError:
            hz = 100
        cols = load(raw, hz)
        md = markdown(cols, meta, read_reruns(bench))
        with open(os.path.join(bench, "bench.md"), "w", encoding="utf-8") as f:
            f.write(md)
        with open(os.path.join(bench, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(summary(cols), f, indent=1, sort_keys=True)
            f.write("\n")
        png = plot(cols, bench, meta)
    except (ReportError, OSError) as e:
        print(f"bench_report: {e}", file=sys.stderr)
        return 1
    print(md)
    print(f"bench_report: wrote {os.path.join(bench, 'bench.md')}, "
          f"{os.path.join(bench, 'summary.json')}"
          + (f" and {png}" if png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
