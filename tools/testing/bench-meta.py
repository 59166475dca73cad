#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench-meta.py DIR SECONDS: the small-file metadata load of 'make bench'
# (tools/testing/tests/bench.sh), run in a guest on an NFS mount.  Rounds
# of FILES files, each created with 1 KiB in it, then each stat()ed,
# renamed and unlinked, until SECONDS have passed; a round is never cut
# short, so every round leaves DIR as it found it.  Prints one JSON object:
# the operations done, the seconds they took, and their rate, in all and
# per kind.  Each operation is one system call and, on NFS, at least one
# RPC: what an HPC job's many small files cost.

import json
import os
import sys
import time

FILES = 100
DATA = b"m" * 1024


def create(n):
    fd = os.open(n, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, DATA)
    finally:
        os.close(fd)


STEPS = [
    ("create", create),
    ("stat", os.stat),
    ("rename", lambda n: os.rename(n, n + ".r")),
    ("unlink", lambda n: os.unlink(n + ".r")),
]


def one_round(d, r, totals):
    names = [os.path.join(d, f"f{r}-{i}") for i in range(FILES)]
    for kind, step in STEPS:
        t = time.monotonic()
        for n in names:
            step(n)
        totals[kind] += time.monotonic() - t


def main():
    if len(sys.argv) != 3:
        print("usage: bench-meta.py DIR SECONDS", file=sys.stderr)
        return 2
    d, secs = sys.argv[1], float(sys.argv[2])
    totals = {kind: 0.0 for kind, _ in STEPS}
    rounds = 0
    start = time.monotonic()
    while rounds == 0 or time.monotonic() - start < secs:
        one_round(d, rounds, totals)
        rounds += 1
    elapsed = time.monotonic() - start
    ops = len(STEPS) * FILES * rounds
    out = {"ops": ops, "seconds": round(elapsed, 3),
           "ops_s": round(ops / elapsed, 1)}
    for k, v in totals.items():
        out[f"{k}_ops_s"] = round(FILES * rounds / v, 1) if v > 0 else None
    if os.listdir(d):
        print(f"bench-meta.py: {d} is not empty after the rounds", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
