#!/usr/bin/env python3
"""scripts/bench_report.py - one table from the benchmark CSV files.

`make bench` (scripts/bench.sh) runs bench_gemr2d and bench_tran with
--csv and then this script, which
  * prints one table of every case: native and shim medians, shim/native,
    the fraction of the floor reached (what stays on a rank read and
    written at memcpy speed, what crosses ranks passed through MPI once)
    and of the copy floor (everything at memcpy speed), the first call
    against the median, and the copy-floor fraction of the previous
    release (baseline);
  * prints the tails of the same calls: per case and path the median, the
    90th percentile, the slowest call and slowest / median (issue 34);
  * checks the performance targets of the project and says which are met;
  * writes docs/performance.md (the table, the targets, how it was
    measured) and docs/performance.svg (time against matrix order,
    native and shim, for pdgemr2d 36->128 and pdtran blocks 128);
  * with --csv-gemm (bench_gemm's rows, their own columns): a separate
    table of p?gemm against the compute floor, outside the targets.

Usage: bench_report.py [--csv FILE]... [--csv-gemm FILE]...
                       [--baseline CSV] [--md FILE] [--svg FILE]
                       [--meta TEXT]

The baseline is a CSV of the same format measured with the previous
release's libcosta_shim.so and the same benchmark programs.  Releases are
compared by two ratios measured within each run, so that machine and day
matter less than for absolute times: the fraction of the copy floor
(memcpy) and shim/native (the same ScaLAPACK in both runs).  A case is
slower only when both got worse by more than 10 %: a case that only moves
memory locally follows the run's memcpy bandwidth, which varies by 25 %
between runs, while its shim/native stays put.
Exit status 0 (a missed target is reported, not an error); 2 on bad input.
"""
import argparse
import csv
import math
import os
import sys

FLOOR_TARGET = 0.7        # fraction of the floor on 4000x4000 cases
FLOOR_TARGET_8000 = 0.6   # ... on 8000x8000 cases
SMALL_TARGET = 0.5        # shim/native on the 200x200 cases
FIRST_TARGET = 2.0        # first call / steady state (4000x4000), and
                          # not slower than native's first call
TAIL_TARGET = 2.0         # slowest shim call / its median (4000x4000)
NOISE = 1.10              # tolerance against the previous release

# The scaling runs of make bench: (CSV name, what was run).
SCALE_RUNS = [
    ("bench_scale_r1t2", "1 rank x 2 threads"),
    ("bench_scale_r2t2", "2 ranks x 2 threads"),
    ("bench_scale_r4t1", "4 ranks x 1 thread"),
]

# The size chart: (title, bench, [(case, order)...]).
SERIES = [
    ("pdgemr2d 36->128", "bench_gemr2d",
     [("e", 200), ("i", 1000), ("b", 4000), ("j", 8000)]),
    ("pdtran blk 128 (200: blk 32)", "bench_tran",
     [("e", 200), ("i", 1000), ("a", 4000), ("j", 8000)]),
]


def read_rows(paths, notes=None):
    """Rows of the CSV files; lines starting with '#' are notes (appended
    to `notes` if given)."""
    rows = []
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            lines = []
            for line in f:
                if line.startswith("#"):
                    if notes is not None:
                        notes.append(line[1:].strip())
                else:
                    lines.append(line)
            for r in csv.DictReader(lines):
                try:
                    for k in ("native_ms", "shim_ms", "floor_ms",
                              "native_first_ms", "shim_first_ms"):
                        r[k] = float(r[k])
                    r["size"] = int(r["size"])
                    # newer than the baseline file: may be missing
                    for k in ("mpi_floor_ms", "native_mem_mb", "shim_mem_mb",
                              "shim_held_mb") + PHASES + FIRST_PHASES + \
                            TAILS:
                        r[k] = float(r[k]) if r.get(k) else None
                    r["ok"] = int(r["ok"])
                except (KeyError, ValueError) as e:
                    sys.exit(f"bench_report.py: {path}: bad row ({e})")
                rows.append(r)
    return rows


# the engine's phases of a shim call (costa_shim_engine_phases), ms
PHASES = ("pack_ms", "local_ms", "unpack_ms", "xfer_ms")
# the same for the shim's first call of a case
FIRST_PHASES = tuple("first_" + k for k in PHASES)
# the 90th percentile and the slowest of the timed calls, per path
TAILS = ("native_p90_ms", "native_max_ms", "shim_p90_ms", "shim_max_ms")


def key(r):
    return (r["bench"], r["case"])


def short(bench):
    return {"bench_gemr2d": "gemr2d", "bench_tran": "tran",
            "bench_gemm": "gemm"}.get(bench, bench)


def fmt(v, nd=3):
    return "-" if v is None else f"{v:.{nd}f}"


def analyse(rows, base):
    """Per row: ratio, floor and copy-floor fractions, first/steady, and
    the previous release's copy-floor fraction and shim/native (prev,
    prev_ratio)."""
    out = []
    for r in rows:
        shim = r["shim_ms"]
        ratio = shim / r["native_ms"] if shim > 0 and r["native_ms"] > 0 \
            else None
        floor = r["mpi_floor_ms"] / shim \
            if shim > 0 and r["mpi_floor_ms"] else None
        copy = r["floor_ms"] / shim if shim > 0 else None
        first = r["shim_first_ms"] / shim if shim > 0 else None
        b = base.get(key(r))
        prev = prev_ratio = None
        if b and b["shim_ms"] > 0:
            prev = b["floor_ms"] / b["shim_ms"]
            if b["native_ms"] > 0:
                prev_ratio = b["shim_ms"] / b["native_ms"]
        out.append(dict(r, ratio=ratio, floor=floor, copy=copy, first=first,
                        prev=prev, prev_ratio=prev_ratio))
    return out


def large(a):
    """The 4000x4000 cases, and the 2000x2000 complex ones (as many
    bytes): issue 34's table."""
    return 3984 <= a["size"] <= 4096 or \
        (a["size"] == 2000 and a["description"].startswith("pz"))


def max_med(a, path):
    """Slowest call / median of a path, None without the columns."""
    mx, med = a.get(path + "_max_ms"), a[path + "_ms"]
    return mx / med if mx is not None and med > 0 else None


def target(name, rows, missed, show, word="missed"):
    """(name, met, detail) of one target: rows are the cases it applies
    to, missed(a) says whether case a misses it, show(a) what to print."""
    miss = [f"{short(a['bench'])} {a['case']} {show(a)}" for a in rows
            if missed(a)]
    detail = (f"{word}: " + ", ".join(miss) if miss else
              f"all {len(rows)} cases" if rows else "no cases")
    return (name, not miss and bool(rows), detail)


def slower(a):
    """True when case a is slower than in the previous release: its
    copy-floor fraction and its shim/native both worse by more than the
    noise (only the copy-floor fraction when either run has no native
    time).  The copy floor, because the baseline predates the floor with
    MPI."""
    worse_floor = a["copy"] * NOISE < a["prev"]
    if a["ratio"] is None or a["prev_ratio"] is None:
        return worse_floor
    return worse_floor and a["ratio"] > a["prev_ratio"] * NOISE


def targets(an):
    """[(name, met, detail)] for the project's targets."""
    return [
        target("at least 70 % of the floor (what crosses ranks through "
               "MPI once) on every 4000x4000 case",
               [a for a in an if 3984 <= a["size"] <= 4096 and a["floor"]],
               lambda a: a["floor"] < FLOOR_TARGET,
               lambda a: f"{100 * a['floor']:.0f} %"),
        target("at least 60 % of the floor on every 8000x8000 case",
               [a for a in an if a["size"] == 8000 and a["floor"]],
               lambda a: a["floor"] < FLOOR_TARGET_8000,
               lambda a: f"{100 * a['floor']:.0f} %"),
        target("200x200 steady state at most half of native",
               [a for a in an if a["size"] == 200 and a["ratio"]],
               lambda a: a["ratio"] > SMALL_TARGET,
               lambda a: f"{a['ratio']:.2f}"),
        target("first call at most 2x the steady state and not slower "
               "than native's first call, on every 4000x4000 case",
               [a for a in an if a["first"] and
                3984 <= a["size"] <= 4096],
               lambda a: a["first"] > FIRST_TARGET or
               a["shim_first_ms"] > a["native_first_ms"],
               lambda a: f"{a['first']:.2f}x, {a['shim_first_ms']:.0f} vs "
                         f"{a['native_first_ms']:.0f} ms native"),
        target("slowest shim call at most 2x the median on every "
               "4000x4000 case",
               [a for a in an if large(a) and max_med(a, "shim")],
               lambda a: max_med(a, "shim") > TAIL_TARGET,
               lambda a: f"{max_med(a, 'shim'):.1f}x "
                         f"({a['shim_max_ms']:.1f} vs {a['shim_ms']:.1f} ms)"),
        target("no case slower than the previous release (fraction of "
               "the copy floor and shim/native, 10 % tolerance)",
               [a for a in an if a["prev"] and a["copy"]],
               slower,
               lambda a: f"{100 * a['copy']:.0f} % vs "
                         f"{100 * a['prev']:.0f} %"
                         + ("" if a["ratio"] is None or a["prev_ratio"] is None
                            else f", {a['ratio']:.3f} vs "
                                 f"{a['prev_ratio']:.3f} of native"),
               "slower"),
    ]


def table(an):
    head = ["case", "description", "native ms", "shim ms", "shim/native",
            "floor %", "copy floor %", "1st call ms", "1st/median",
            "native 1st/median", "native MiB", "shim MiB", "held MiB",
            "prev copy floor %", "check"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for a in an:
        lines.append("| " + " | ".join([
            f"{short(a['bench'])} {a['case']}", a["description"],
            fmt(a["native_ms"]), fmt(a["shim_ms"] or None),
            fmt(a["ratio"]),
            "-" if a["floor"] is None else f"{100 * a['floor']:.0f}",
            "-" if a["copy"] is None else f"{100 * a['copy']:.0f}",
            fmt(a["shim_first_ms"] or None), fmt(a["first"], 2),
            fmt(a["native_first_ms"] / a["native_ms"]
                if a["native_ms"] > 0 else None, 2),
            fmt(a["native_mem_mb"], 1), fmt(a["shim_mem_mb"], 1),
            fmt(a["shim_held_mb"], 1),
            "-" if a["prev"] is None else f"{100 * a['prev']:.0f}",
            "ok" if a["ok"] else "FAIL"]) + " |")
    return lines


def tail_table(an):
    """Per case and path: median, 90th percentile, slowest call and
    slowest / median of the timed calls; [] when no row has them."""
    rows = [a for a in an if a.get("native_max_ms") is not None]
    if not rows:
        return []
    head = ["case", "description", "reps"]
    for path in ("native", "shim"):
        head += [f"{path} ms", f"{path} p90", f"{path} max",
                 f"{path} max/median"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for a in rows:
        cells = [f"{short(a['bench'])} {a['case']}", a["description"],
                 a["reps"]]
        for path in ("native", "shim"):
            on = a[path + "_ms"] > 0
            cells += [fmt(a[path + "_ms"] if on else None),
                      fmt(a[path + "_p90_ms"] if on else None),
                      fmt(a[path + "_max_ms"] if on else None),
                      fmt(max_med(a, path), 2)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def split_table(an, total, phases, total_head, tail_head, tail):
    """Rows of an split into phases (columns), rest = total minus them,
    then tail(a)'s columns; [] when no row has all the phase columns."""
    rows = [a for a in an if a[total] > 0 and
            all(a.get(k) is not None for k in phases)]
    if not rows:
        return []
    head = ["case", "description", total_head, "pack ms", "local ms",
            "unpack ms", "xfer ms", "rest ms"] + tail_head
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for a in rows:
        rest = a[total] - sum(a[k] for k in phases)
        lines.append("| " + " | ".join(
            [f"{short(a['bench'])} {a['case']}", a["description"],
             fmt(a[total])] + [fmt(a[k]) for k in phases] +
            [fmt(rest)] + tail(a)) + " |")
    return lines


def phase_table(an):
    """Where each case's shim time goes; [] without phase columns."""
    return split_table(an, "shim_ms", PHASES, "shim ms", ["mpi floor ms"],
                       lambda a: [fmt(a["mpi_floor_ms"])])


def first_table(an):
    """What each case's first shim call paid, by phase; [] without the
    first-call phase columns."""
    return split_table(
        an, "shim_first_ms", FIRST_PHASES, "1st call ms",
        ["median ms", "1st/median", "native 1st ms"],
        lambda a: [fmt(a["shim_ms"]), fmt(a["first"], 2),
                   fmt(a["native_first_ms"])])


def svg_chart(an):
    """Log-log chart of ms against matrix order; '' if nothing to draw."""
    byk = {key(a): a for a in an}
    lines = []
    for title, bench, pts in SERIES:
        for path, col in (("native", "native_ms"), ("shim", "shim_ms")):
            xy = [(n, byk[(bench, c)][col]) for c, n in pts
                  if (bench, c) in byk and byk[(bench, c)][col] > 0]
            if len(xy) >= 2:
                lines.append((f"{title} {path}", path, xy))
    if not lines:
        return ""
    W, H, L, R, T, B = 640, 400, 70, 190, 30, 50
    xs = [x for _, _, xy in lines for x, _ in xy]
    ys = [y for _, _, xy in lines for _, y in xy]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0 = math.floor(math.log10(min(ys)))
    y1 = math.ceil(math.log10(max(ys)))
    x1 = x1 if x1 > x0 else x0 + 1
    y1 = y1 if y1 > y0 else y0 + 1

    def px(x):
        return L + (math.log10(x) - x0) / (x1 - x0) * (W - L - R)

    def py(y):
        return H - B - (math.log10(y) - y0) / (y1 - y0) * (H - T - B)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
           f'height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="18" font-size="14">Time per call against '
           f'matrix order (2 ranks, log-log)</text>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" '
                   f'y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{10.0 ** e:g} ms</text>')
    for n in sorted(set(xs)):
        x = px(n)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" '
                   f'y2="{H - B}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{H - B + 16}" '
                   f'text-anchor="middle">{n}</text>')
    out.append(f'<text x="{(L + W - R) / 2:.0f}" y="{H - 12}" '
               f'text-anchor="middle">matrix order n (n x n doubles)</text>')
    colours = ["#1f77b4", "#d62728"]
    for i, (name, path, xy) in enumerate(lines):
        c = colours[(i // 2) % len(colours)]
        dash = ' stroke-dasharray="6,4"' if path == "native" else ""
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in xy)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" '
                   f'stroke-width="2"{dash}/>')
        for x, y in xy:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" '
                       f'fill="{c}"/>')
        ly = T + 14 + 18 * i
        out.append(f'<line x1="{W - R + 10}" y1="{ly - 4}" '
                   f'x2="{W - R + 34}" y2="{ly - 4}" stroke="{c}" '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<text x="{W - R + 40}" y="{ly}" '
                   f'font-size="11">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def model_section(path):
    """performance.md's section on costa-shim-model against the run."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return []
    md = ["", "## The machine model against the measurement", "",
          "`costa-shim-model` (docs/relabel.md) with the bandwidths this "
          "run measured: *one node*: memcpy and MPI between the two ranks "
          "of the tables above; *2 nodes*: `bench_gemr2d` again with one "
          "rank on each of two emulated nodes (test_apps/lib/"
          "mpiexec_nodes.sh: MPI's network path, TCP on this machine) "
          "and the MPI bandwidth it measured as the link of a node.  "
          "The model's formula is the floor's, so *model ms* and "
          "*floor ms* agree; *shim/model* is how far the model is from "
          "the shim's measured median (scripts/bench_model.py, "
          "bench_out/bench_model.txt).", "",
          "| case | description | machine | copy GB/s | MPI GB/s | "
          "model ms | floor ms | shim ms | native ms | shim/model |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        model = float(r["model_ms"])
        shim = float(r["shim_ms"])
        machine = "2 nodes" if r["bench"].endswith("_nodes") else "one node"
        md.append("| %s %s | %s | %s | %.2f | %.2f | %.3f | %.3f | %.3f | "
                  "%.3f | %.2f |" % (
                      short(r["bench"].replace("_nodes", "")), r["case"],
                      r["description"], machine, float(r["bw_copy_gbs"]),
                      float(r["bw_mpi_gbs"]), model, float(r["floor_ms"]),
                      shim, float(r["native_ms"]),
                      shim / model if model > 0 else 0.0))
    return md


def scale_section(outdir, two):
    """The "How it scales" table: per case of the scaling runs, shim/native
    and floor % in each run, next to the standard 2-rank run (two: its
    analysed rows); [] when no scaling run is there."""
    runs = []
    for name, what in SCALE_RUNS:
        path = os.path.join(outdir, name + ".csv")
        if os.path.exists(path):
            runs.append((what, {key(a): a for a in
                                analyse(read_rows([path]), {})}))
    if not runs:
        return []
    std = {key(a): a for a in two}
    cases = [k for k in std if any(k in r for _, r in runs)]
    head = ["case", "description (2 ranks)"]
    for what in ["2 ranks x 1 thread"] + [w for w, _ in runs]:
        head += [f"{what}: shim/native", "floor %"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for k in cases:
        cells = [f"{short(k[0])} {k[1]}", std[k]["description"]]
        for r in [std] + [r for _, r in runs]:
            a = r.get(k)
            cells += [fmt(a["ratio"] if a else None),
                      "-" if not a or a["floor"] is None
                      else f"{100 * a['floor']:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def gemm_table(paths):
    """The p?gemm table from bench_gemm's CSV files (test_apps/bench/
    bench_gemm.c writes the columns); [] when there are no rows.  Its
    floor is compute (a local dgemm of each rank's share), not memory,
    so these rows stay out of the first table and the targets."""
    rows = []
    for path in paths:
        if os.path.exists(path):
            with open(path, newline="") as f:
                rows += list(csv.DictReader(f))
    if not rows:
        return []
    head = ["case", "description", "ranks", "native ms", "native p90",
            "shim ms", "shim p90", "shim/native", "floor ms",
            "native % floor", "shim % floor", "shim GF/s", "floor GF/s",
            "shim 1st ms", "native 1st ms", "max rel diff", "check"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    try:
        for r in rows:
            f = {k: float(r[k]) for k in (
                "native_ms", "native_p90_ms", "shim_ms", "shim_p90_ms",
                "floor_ms", "native_pct_floor", "shim_pct_floor",
                "shim_gflops", "floor_gflops", "shim_first_ms",
                "native_first_ms")}
            shim = f["shim_ms"] > 0
            lines.append("| " + " | ".join([
                f"gemm {r['case']}", r["description"], r["ranks"],
                fmt(f["native_ms"]), fmt(f["native_p90_ms"]),
                fmt(f["shim_ms"] if shim else None),
                fmt(f["shim_p90_ms"] if shim else None),
                fmt(f["shim_ms"] / f["native_ms"]
                    if shim and f["native_ms"] > 0 else None),
                fmt(f["floor_ms"]), f"{f['native_pct_floor']:.0f}",
                f"{f['shim_pct_floor']:.0f}" if shim else "-",
                fmt(f["shim_gflops"], 1) if shim else "-",
                fmt(f["floor_gflops"], 1),
                fmt(f["shim_first_ms"] if shim else None),
                fmt(f["native_first_ms"]), r["max_rel_diff"] or "-",
                "ok" if int(r["ok"]) else "FAIL"]) + " |")
    except (KeyError, ValueError) as e:
        sys.exit(f"bench_report.py: bench_gemm CSV: bad row ({e})")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", action="append", default=[])
    ap.add_argument("--csv-shm", help="rows measured with "
                    "COSTA_SHIM_SHM=eager (a second table, no targets)")
    ap.add_argument("--csv-gemm", action="append", default=[],
                    help="bench_gemm's rows: the p?gemm table")
    ap.add_argument("--baseline")
    ap.add_argument("--md")
    ap.add_argument("--svg")
    ap.add_argument("--meta", default="")
    ap.add_argument("--scale-dir", help="folder of the scaling runs' "
                    "CSV files (" + ", ".join(n for n, _ in SCALE_RUNS) +
                    ".csv)")
    ap.add_argument("--model", help="bench_model.py's rows: the machine "
                    "model against the measurement")
    o = ap.parse_args()
    rows = read_rows(o.csv)
    gemm_tab = gemm_table(o.csv_gemm)
    if not rows and not gemm_tab:
        sys.exit("bench_report.py: no benchmark rows (run make bench)")
    base, base_notes = {}, []
    if o.baseline and os.path.exists(o.baseline):
        base = {key(r): r for r in read_rows([o.baseline], base_notes)}
    an = analyse(rows, base)
    tab = table(an)
    tails = tail_table(an)
    tg = targets(an)
    print("\n".join(tab))
    print()
    if tails:
        print("tails (time of a call: its slowest rank):")
        print("\n".join(tails))
        print()
    sc = scale_section(o.scale_dir, an) if o.scale_dir else []
    if sc:
        print("how it scales:")
        print("\n".join(sc))
        print()
    shm_tab = []
    if o.csv_shm and os.path.exists(o.csv_shm):
        shm_rows = read_rows([o.csv_shm])
        shm_tab = table(analyse(shm_rows, {})) if shm_rows else []
    if shm_tab:
        print("with COSTA_SHIM_SHM=eager:")
        print("\n".join(shm_tab))
        print()
    if gemm_tab:
        print("p?gemm against the compute floor (bench_gemm):")
        print("\n".join(gemm_tab))
        print()
    for name, met, detail in tg:
        print(f"{'MET    ' if met else 'NOT MET'} {name}: {detail}")
    if o.svg:
        svg = svg_chart(an)
        if svg:
            with open(o.svg, "w") as f:
                f.write(svg)
    if o.md:
        md = ["# Performance", "",
              "Written by `make bench` (scripts/bench.sh, "
              "scripts/bench_report.py); do not edit by hand.", "",
              f"Measured: {o.meta}" if o.meta else "", "",
              "2 ranks, `OMP_NUM_THREADS=1`, native ScaLAPACK and the shim "
              "in the same process (the shim's `costa_shim_set_enabled` "
              "hook): per case native's calls, then the shim's, each path "
              "after its own warm-up calls, as an application calls one "
              "of them (test_apps/lib/cs_bench.c says why they no longer "
              "take turns); medians of each call's maximum over the "
              "ranks.  *floor %*: the floor divided by "
              "the shim's time; the floor: each rank reads its part of "
              "sub(A) and writes its part of the target, the elements "
              "that stay on it at the memcpy bandwidth measured in the "
              "same run with both ranks copying, those that cross ranks "
              "passing through MPI once instead, at the bandwidth of one "
              "large message each way between the two ranks measured in "
              "the same run.  *copy floor %*: the same with every "
              "element at memcpy speed, as if crossing ranks were free "
              "(the stricter measure, and the one the previous release "
              "was measured with).  "
              "*1st call*: the shim's first call of the case (plan built, "
              "buffers grown; also MPI's one-time costs such as "
              "communicator duplication and the first large message "
              "between two processes, which native's first call pays "
              "too: *native 1st/median*; on a virtual machine also the "
              "first access to each page of A, B and the buffers from "
              "each address space, see docs/design.md, First calls).  "
              "*native MiB*, *shim MiB*: the most one call of the case "
              "raised a rank's resident memory (VmHWM, reset before each "
              "call) above the size before it, for the shim with what it "
              "holds between calls (workspace, cached plans) counted in; "
              "*held MiB*: the most the shim held after a call of the "
              "case, since COSTA_SHIM_WORKSPACE (default: 512 KiB per "
              "process of the larger grid, 8 to 64 MiB) "
              "bounds one call's buffers.  "
              "*prev copy floor %*: the copy-floor "
              "fraction of the previous release, measured with its "
              "library and the same benchmark programs "
              "(`docs/performance_baseline.csv`); a case counts as "
              "slower than in that release when both its copy-floor "
              "fraction "
              "and its shim/native got worse by more than 10 % (two "
              "ratios measured within each run: the memcpy bandwidth of "
              "a shared machine varies by 25 % between runs, and a case "
              "that only moves memory locally follows it while its "
              "shim/native stays put).", ""]
        if base_notes:
            md += ["Baseline: " + " ".join(base_notes), ""]
        md += tab
        if tails:
            md += ["", "## Slowest calls", "",
                   "The same timed calls of each case (*reps*, after the "
                   "first call and the warm-up calls), per path: the "
                   "median, the 90th percentile (the ceil(0.9 reps)-th "
                   "fastest), the slowest call and slowest / median; the "
                   "time of a call is that of its slowest rank.  A slow "
                   "call now and then (issue 34: page faults, the other "
                   "process touching the same pages) shows here and not "
                   "in the medians; the target is *shim max/median* at "
                   "most 2 on every 4000 x 4000 case.  The end-of-run "
                   "report gives the same per call shape of a real "
                   "application (docs/report-format.md, *Call times of "
                   "the top shapes*).", ""]
            md += tails
        if shm_tab:
            md += ["", "## Transposes with the shared send buffer", "",
                   "The same programs, another run, with "
                   "`COSTA_SHIM_SHM=eager`: the shared send buffer "
                   "(docs/design.md) is made at the first call that can "
                   "use it, so *1st call* includes its page faults and "
                   "the median shows the steady state.  With the default "
                   "(`auto`) a program reaches that steady state once it "
                   "has moved 40 times the buffer's size through such "
                   "packages; in the table above (the default) the buffer "
                   "appears part-way through the run, and a case whose "
                   "*1st call* stands out may include its page faults.",
                   ""]
            md += shm_tab
        ph = phase_table(an)
        if ph:
            md += ["", "## Where the shim's time goes", "",
                   "The shim calls of the first table split into the "
                   "engine's phases (its `costa_shim_engine_phases` hook, "
                   "also the report's *Engine phases* section): *pack*: "
                   "packing the packages and posting the messages, "
                   "*local*: copying the blocks that stay on the rank, "
                   "*unpack*: unpacking the packages received (also those "
                   "unpacked while packing or copying), *xfer*: waiting "
                   "for messages with nothing else left to do (the part "
                   "of the transfer the copies did not hide; MPI copies a "
                   "large message between processes of a node inside the "
                   "polls of one of them, so that copy shows in *pack* or "
                   "*local*, whichever the poll interrupted).  In each call "
                   "the phases of the rank that took longest, each the "
                   "median over the timed calls (medians need not add "
                   "up); *rest*: *shim ms* minus the four: the arrival, "
                   "the decision exchange, the plan lookup and the "
                   "checks.", ""]
            md += ph
        fp = first_table(an)
        if fp:
            md += ["", "## What a first call pays", "",
                   "The first shim call of each case of the first table "
                   "(issue 18, item 2), split into the same phases on the "
                   "rank whose first call took longest.  *rest*: *1st "
                   "call* minus the four: the plan built, the workspace "
                   "reserved (its new pages faulted in, one store per "
                   "page), the shared send buffer made where it is, MPI's "
                   "one-time costs (the first reduction and message on "
                   "the shim's communicator) and the arrival.  "
                   "`COSTA_SHIM_VERBOSE=2` prints the plan's and the "
                   "reservation's times of every first call of a shape "
                   "(`COSTA_SHIM_PLAN ... plan:... reserve:...`).  A "
                   "phase well above its *median* line in the table above "
                   "is paying for pages touched for the first time from "
                   "this process (docs/design.md, First calls).", ""]
            md += fp
        sc = scale_section(o.scale_dir, an) if o.scale_dir else []
        if sc:
            md += ["", "## How it scales", "",
                   "The 4000 x 4000 and 200 x 200 cases again in three "
                   "other runs of the same programs on this machine's two "
                   "cores (scripts/bench.sh): *1 rank x 2 threads*: one "
                   "rank per core pair with `OMP_NUM_THREADS=2` (grids "
                   "1 x 1: nothing crosses ranks, the shim's copies run on "
                   "two threads, native ScaLAPACK on one); *2 ranks x 2 "
                   "threads*: `OMP_NUM_THREADS=2` with a rank per core, "
                   "twice as many threads as cores for the application "
                   "(the shim keeps its own threads to the rank's share "
                   "of the cores, one here: COSTA_SHIM_THREADS); *4 ranks "
                   "x 1 thread*: "
                   "four ranks on the two cores, grids 1 x 4 and 4 x 1 in "
                   "place of 1 x 2 and 2 x 1, with the yielding preload of "
                   "the tests for MPICH (test_apps/lib/yield_preload.c).  "
                   "Each run measures its own floor: memcpy with every rank "
                   "copying on one thread at once, and MPI between rank "
                   "pairs; a rank of two threads can therefore pass 100 %.",
                   ""]
            md += sc
        if o.model and os.path.exists(o.model):
            md += model_section(o.model)
        if gemm_tab:
            md += ["", "## Matrix multiplication (p?gemm)", "",
                   "`bench_gemm` (test_apps/bench/bench_gemm.c) with "
                   "`COSTA_SHIM_GEMM=on`: per case native, the shim and "
                   "the compute floor taking turns call by call (the "
                   "order rotating every round), after one warm-up call "
                   "each; medians and 90th percentiles of each call's "
                   "maximum over the ranks.  The floor: each rank "
                   "multiplies its share, m*n*k/P flops, with one local "
                   "`dgemm_` (`zgemm_`), the largest of m, n, k cut by P; "
                   "*% floor*: floor median / path median.  *shim 1st*: "
                   "the shim's first call of the case (a fresh shape).  "
                   "*max rel diff*: max |C_shim - C_native| / "
                   "max |C_native|, checked below 1e-10.  The 2x2 rows "
                   "come from a 4-rank run on the same two cores.  Not "
                   "part of the targets.", ""]
            md += gemm_tab
        md += ["", "## Targets", ""]
        md += [f"* {'met' if met else '**not met**'}: {name} ({detail})"
               for name, met, detail in tg]
        if o.svg:
            md += ["", "## Time against matrix order", "",
                   f"![time per call against matrix order]"
                   f"({os.path.basename(o.svg)})"]
        with open(o.md, "w") as f:
            f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
