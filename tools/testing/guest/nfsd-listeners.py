#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Set knfsd's listeners through its generic netlink family (Linux 6.10+).

Debian 12's nfs-utils has no nfsdctl, and /proc/fs/nfsd/portlist only
opens wildcard listeners.  The tests need a listener bound to one address
(its CM id is then attached to one device, and gets ADDR_CHANGE when a
bonding failover moves the address), so this sends the one request
nfsdctl's "listener +rdma:ADDR:PORT" would: NFSD_CMD_LISTENER_SET, with
every listener nfsd is to have.  It must run before nfsd has threads.

usage: nfsd-listeners.py TRANSPORT:ADDRESS:PORT ...
       (an IPv6 ADDRESS in brackets: rdma:[2001:db8::1]:20049)
Exit status 0 when nfsd accepted the list, 1 with the errno otherwise.
"""

import ipaddress
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLMSG_ERROR = 0x2
NLA_F_NESTED = 0x8000
# include/uapi/linux/nfsd_netlink.h
NFSD_CMD_LISTENER_SET = 6
NFSD_A_SERVER_SOCK_ADDR = 1
NFSD_A_SOCK_ADDR = 1
NFSD_A_SOCK_TRANSPORT_NAME = 2


def nla(kind, payload):
    """One netlink attribute, padded to 4 bytes."""
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def attrs(data):
    """(type, payload) of each attribute in data."""
    off = 0
    while off + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, off)
        if length < 4:
            break
        yield kind & ~NLA_F_NESTED, data[off + 4:off + length]
        off += (length + 3) & ~3


def request(sock, family, cmd, body, seq):
    """Send one generic netlink request; its replies' payloads, or raise."""
    payload = struct.pack("=BBH", cmd, 1, 0) + body
    sock.send(struct.pack("=IHHII", 16 + len(payload), family,
                          NLM_F_REQUEST | NLM_F_ACK, seq, 0) + payload)
    replies = []
    while True:
        data = sock.recv(65536)
        off = 0
        while off + 16 <= len(data):
            length, kind, _, rseq, _ = struct.unpack_from("=IHHII", data, off)
            if length < 16:
                raise OSError("short netlink message")
            if rseq == seq:
                if kind == NLMSG_ERROR:
                    err = struct.unpack_from("=i", data, off + 16)[0]
                    if err:
                        raise OSError(-err, os.strerror(-err))
                    return replies
                replies.append(data[off + 20:off + length])
            off += (length + 3) & ~3


def sockaddr(addr, port):
    """The struct sockaddr_in or sockaddr_in6 nfsd expects, as bytes."""
    ip = ipaddress.ip_address(addr)
    if ip.version == 4:
        return struct.pack("=H", socket.AF_INET) + struct.pack(">H", port) + \
            ip.packed + b"\0" * 8
    return struct.pack("=H", socket.AF_INET6) + struct.pack(">H", port) + \
        b"\0" * 4 + ip.packed + b"\0" * 4


def listener(spec):
    """NFSD_A_SERVER_SOCK_ADDR for TRANSPORT:ADDRESS:PORT."""
    transport, rest = spec.split(":", 1)
    addr, port = rest.rsplit(":", 1)
    addr = addr.strip("[]")
    inner = nla(NFSD_A_SOCK_ADDR, sockaddr(addr, int(port))) + \
        nla(NFSD_A_SOCK_TRANSPORT_NAME, transport.encode() + b"\0")
    return nla(NFSD_A_SERVER_SOCK_ADDR | NLA_F_NESTED, inner)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    try:
        replies = request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                          nla(CTRL_ATTR_FAMILY_NAME, b"nfsd\0"), 1)
    except OSError as e:
        print(f"nfsd-listeners: no nfsd netlink family (Linux 6.10+): {e}",
              file=sys.stderr)
        return 1
    family = None
    for reply in replies:
        for kind, val in attrs(reply):
            if kind == CTRL_ATTR_FAMILY_ID:
                family = struct.unpack("=H", val[:2])[0]
    if family is None:
        print("nfsd-listeners: no family id in the reply", file=sys.stderr)
        return 1
    body = b"".join(listener(spec) for spec in argv[1:])
    try:
        request(sock, family, NFSD_CMD_LISTENER_SET, body, 2)
    except OSError as e:
        print(f"nfsd-listeners: listener-set {' '.join(argv[1:])}: {e}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
