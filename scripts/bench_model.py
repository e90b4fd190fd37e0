#!/usr/bin/env python3
"""scripts/bench_model.py - the machine model of costa-shim-model against
make bench's measurement, on the machine the benchmark ran on.

For the benchmark cases the model can describe (plain block-cyclic layouts,
no offsets, beta = 0), runs the model (test_apps/unit/relabel_model) with
this machine's bandwidths as the benchmark measured them in the same run
(memcpy per rank, MPI between the ranks: the header lines of
bench_out/bench_gemr2d.txt and bench_tran.txt, both ranks on one node;
bench_gemr2d_nodes.txt, one rank on each of two emulated nodes, whose MPI
bandwidth is then the link of a node) and writes, case by case, the
model's predicted time next to the benchmark's own floor and the shim's
and ScaLAPACK's measured medians.

usage: bench_model.py --model BIN --out bench_out [--csv FILE]
"""
import argparse
import csv
import os
import re
import subprocess
import sys

# (bench, case) -> model arguments; ranks 0 and 1 on one node.  The cases
# left out have offsets (d), read B as well as A (tran b, g) or move a
# trapezoid (tran f), which the model does not describe.
CASES = {
    ("bench_gemr2d", "a"): "--m 4000 --n 4000 --a 1x2:128x128 --b 1x2:128x128",
    ("bench_gemr2d", "b"): "--m 4000 --n 4000 --a 1x2:36x36 --b 1x2:128x128",
    ("bench_gemr2d", "c"): "--m 4000 --n 4000 --a 1x2:64x64 --b 2x1:64x64",
    ("bench_gemr2d", "e"): "--m 200 --n 200 --a 1x2:36x36 --b 1x2:128x128",
    ("bench_gemr2d", "i"): "--m 1000 --n 1000 --a 1x2:36x36 --b 1x2:128x128",
    ("bench_gemr2d", "j"): "--m 8000 --n 8000 --a 1x2:36x36 --b 1x2:128x128",
    ("bench_tran", "a"): "--m 4000 --n 4000 --a 1x2:128x128 --b 1x2:128x128 --trans",
    ("bench_tran", "c"): "--m 2000 --n 2000 --a 1x2:128x128 --b 1x2:128x128 --trans --esize 16",
    ("bench_tran", "e"): "--m 200 --n 200 --a 1x2:32x32 --b 1x2:32x32 --trans",
    ("bench_tran", "h"): "--m 4000 --n 4000 --a 2x1:128x128 --b 2x1:128x128 --trans",
    ("bench_tran", "i"): "--m 1000 --n 1000 --a 1x2:128x128 --b 1x2:128x128 --trans",
    ("bench_tran", "j"): "--m 8000 --n 8000 --a 1x2:128x128 --b 1x2:128x128 --trans",
    ("bench_tran", "k"): "--m 4096 --n 4096 --a 1x2:128x128 --b 1x2:128x128 --trans",
    ("bench_tran", "l"): "--m 2000 --n 2000 --a 1x2:128x128 --b 1x2:128x128 --trans --esize 16",
}

BW_COPY = re.compile(r"^memcpy:.*?([0-9.]+) GB/s copied per rank")
BW_MPI = re.compile(r"^MPI:.*?([0-9.]+) GB/s received per rank")
CALL = re.compile(r"^identity .* call ([0-9.]+) ms")


def bandwidths(txt):
    """(memcpy GB/s per rank, MPI GB/s per rank) from a benchmark's header."""
    copy = mpi = None
    with open(txt) as f:
        for line in f:
            m = BW_COPY.match(line)
            copy = float(m.group(1)) if m else copy
            m = BW_MPI.match(line)
            mpi = float(m.group(1)) if m else mpi
    return copy, mpi


def predict(model, args, copy, mpi, rpn):
    """The model's predicted ms per call (identity mapping), or None; rpn
    1: the ranks on nodes of their own, MPI's bandwidth the nodes' link."""
    cmd = [model] + args.split() + [
        "--rpn", str(rpn), "--bw-copy", str(copy),
        "--bw-rank" if rpn > 1 else "--bw-node", str(mpi)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench_model.py: %s: %s" % (" ".join(cmd), e), file=sys.stderr)
        return None
    for line in out.splitlines():
        m = CALL.match(line)
        if m:
            return float(m.group(1))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="relabel_model binary")
    ap.add_argument("--out", required=True, help="bench_out directory")
    ap.add_argument("--csv", help="rows written here (default "
                    "OUT/bench_model.csv)")
    a = ap.parse_args()
    rows = []
    for bench in ("bench_gemr2d", "bench_tran", "bench_gemr2d_nodes"):
        rpn = 1 if bench.endswith("_nodes") else 2
        txt = os.path.join(a.out, bench + ".txt")
        data = os.path.join(a.out, bench + ".csv")
        if not (os.path.exists(txt) and os.path.exists(data)):
            continue
        copy, mpi = bandwidths(txt)
        if not copy or not mpi:
            print("bench_model.py: no bandwidths in " + txt, file=sys.stderr)
            return 1
        with open(data) as f:
            for r in csv.DictReader(f):
                args = CASES.get((bench.replace("_nodes", ""), r["case"]))
                if not args or r["ok"] != "1":
                    continue
                ms = predict(a.model, args, copy, mpi, rpn)
                if ms is None:
                    return 1
                rows.append({"bench": bench, "case": r["case"],
                             "description": r["description"],
                             "bw_copy_gbs": copy, "bw_mpi_gbs": mpi,
                             "model_ms": ms,
                             "floor_ms": float(r["mpi_floor_ms"]),
                             "shim_ms": float(r["shim_ms"]),
                             "native_ms": float(r["native_ms"])})
    if not rows:
        print("bench_model.py: no benchmark results in " + a.out,
              file=sys.stderr)
        return 1
    path = a.csv or os.path.join(a.out, "bench_model.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("model (costa-shim-model, this run's bandwidths) against the "
          "measured medians")
    print("%-8s %-40s %-8s %9s %9s %9s %9s %10s" % (
        "case", "description", "machine", "model_ms", "floor_ms", "shim_ms",
        "native_ms", "shim/model"))
    for r in rows:
        nodes = r["bench"].endswith("_nodes")
        print("%-8s %-40s %-8s %9.3f %9.3f %9.3f %9.3f %10.2f" % (
            r["bench"][6:].replace("_nodes", "") + " " + r["case"],
            r["description"][:40], "2 nodes" if nodes else "one node",
            r["model_ms"], r["floor_ms"], r["shim_ms"], r["native_ms"],
            r["shim_ms"] / r["model_ms"] if r["model_ms"] > 0 else 0.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
