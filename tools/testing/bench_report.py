#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench_report.py [BENCH_DIR]: turn the raw outputs tools/testing/make-bench.sh
# left in BENCH_DIR/raw/<column>/<rep>/ into BENCH_DIR/bench.md (a markdown
# table, also printed) and BENCH_DIR/bench.png (gnuplot).  Standard library
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

# fio jobs, as tests/bench.sh names them: label, fio direction, main metric.
FIO_JOBS = [
    ("seq-write", "seq write 1 MiB, QD 8", "write", "bw"),
    ("seq-read", "seq read 1 MiB, QD 8", "read", "bw"),
    ("rand-read", "rand read 4 KiB, QD 16", "read", "iops"),
    ("rand-write", "rand write 4 KiB, QD 16", "write", "iops"),
]

# perftest programs: label and what their result line holds.
PERFTESTS = [
    ("ib_write_bw", "rxe RDMA Write (ib_write_bw)", "bw"),
    ("ib_read_bw", "rxe RDMA Read (ib_read_bw)", "bw"),
    # perftest's latency tests report half the ping-pong round trip.
    ("ib_send_lat", "rxe Send latency, one way (ib_send_lat)", "lat"),
]

# Known columns first, in this order; any other column a future make-bench.sh
# adds is reported after them without a change here.
COLUMN_ORDER = ["rdma-intree", "rdma-ours-client", "rdma-ours-server",
                "rdma-ours", "tcp", "rxe"]
RATIOS = [("client ours/intree", "rdma-ours-client", "rdma-intree"),
          ("server ours/intree", "rdma-ours-server", "rdma-intree"),
          ("both ours/intree", "rdma-ours", "rdma-intree"),
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
        clat = d["clat_ns"]["percentile"]["50.000000"]
    except KeyError as e:
        raise ReportError(f"{path}: no median completion latency") from e
    return {"bw": d["bw_bytes"] / MIB, "iops": d["iops"], "clat": clat / 1e6}


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


def load(raw):
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
                for key, _, direction, _ in FIO_JOBS:
                    r = read_fio(os.path.join(rdir, f"fio-{key}.json"), direction)
                    vals[(key, "main")] = r["bw"] if key.startswith("seq") else r["iops"]
                    vals[(key, "clat")] = r["clat"]
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
        out.append((label, "MiB/s ↑" if main == "bw" else "IOPS ↑", (key, "main"), "nfs"))
        out.append((label, "clat p50 ms ↓", (key, "clat"), "nfs"))
    for prog, label, pkind in PERFTESTS:
        sizes = {r.get((prog, "size")) for c in cols.values() for r in c["reps"]}
        sizes.discard(None)
        if len(sizes) == 1:
            label += f", {size_label(sizes.pop())}"
        out.append((label, "MiB/s ↑" if pkind == "bw" else "typical µs ↓",
                    (prog, "main"), "perftest"))
    return out


def markdown(cols, meta):
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
        f"Host: {meta.get('host_cpus', '?')} CPUs, load average "
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
    head = ["workload", "metric"] + names + [r[0] for r in ratios]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join([":---", ":---"] + ["---:"] * (len(head) - 2)) + "|")
    for label, metric, key, kind in rows(cols):
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
    return "\n".join(out)


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
        cols = load(raw)
        meta = read_meta(raw)
        md = markdown(cols, meta)
        with open(os.path.join(bench, "bench.md"), "w", encoding="utf-8") as f:
            f.write(md)
        png = plot(cols, bench, meta)
    except (ReportError, OSError) as e:
        print(f"bench_report: {e}", file=sys.stderr)
        return 1
    print(md)
    print(f"bench_report: wrote {os.path.join(bench, 'bench.md')}"
          + (f" and {png}" if png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
