#!/usr/bin/env bash
# scripts/bench.sh - run by `make bench` (which has built everything): runs
# the pdgemr2d_ benchmark (test_apps/bench/bench_gemr2d.c) on 2 ranks with
# OMP_NUM_THREADS=1 and libcosta_shim.so preloaded, so native ScaLAPACK and
# the shim are timed in the same process, and prints the table; a copy goes
# to bench_out/bench_gemr2d.txt.  Extra arguments go to the benchmark
# (e.g. scripts/bench.sh --cases ab --reps 5).
# Environment (from make): MPIEXEC, BUILD_DIR (relative to the top), PYTHON.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
BUILD_DIR=${BUILD_DIR:-build/release}
case "$BUILD_DIR" in /*) bdir=$BUILD_DIR ;; *) bdir=$top/$BUILD_DIR ;; esac
bin=$bdir/t/bench/bench_gemr2d
shim=$top/libcosta_shim.so

for f in "$bin" "$shim"; do
    if [ ! -e "$f" ]; then
        echo "bench.sh: $f not found; run 'make bench' (it builds first)" >&2
        exit 1
    fi
done

outdir=$top/bench_out
out=$outdir/bench_gemr2d.txt
mkdir -p "$outdir"
{
    echo "# $(date -u '+%Y-%m-%dT%H:%M:%SZ') $(hostname)" \
         "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(nproc) cores"
    echo "# git $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo none)" \
         "| LD_PRELOAD=$shim OMP_NUM_THREADS=1 $MPIEXEC -n 2 $bin $*"
    OMP_NUM_THREADS=1 LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
        "$MPIEXEC" -n 2 "$bin" "$@"
} | tee "$out"
echo "(saved to ${out#"$top"/})"
