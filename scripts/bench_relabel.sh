#!/usr/bin/env bash
# scripts/bench_relabel.sh - process relabeling benchmark (for `make bench`,
# which builds everything first): runs the planning tool
# test_apps/unit/relabel_plan on a 65536 x 65536 double matrix moved
# between block-cyclic layouts with P = 1024 (32 x 32 grids) and P = 4096
# (64 x 64 grids), 64 x 64 blocks in row order to 128 x 128 blocks in
# column order, and prints the time of the volume matrix, the greedy
# solver, the swap improvement and the exact solver (forced with --exact
# at P = 4096, above the threshold of cs_rl_solve) with the crossing
# volumes; a copy goes to bench_out/bench_relabel.txt.  Extra arguments go
# to every run of the tool (e.g. --budget 0.5).  No MPI, one core.
# Environment (from make): BUILD_DIR (relative to the top or absolute).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build/release}
case "$BUILD_DIR" in
    /*) bdir=$BUILD_DIR ;;
    *) bdir=$top/$BUILD_DIR ;;
esac
bin=$bdir/t/unit/relabel_plan
if [ ! -x "$bin" ]; then
    echo "bench_relabel.sh: $bin not found; run 'make bench' (it builds" \
         "first)" >&2
    exit 1
fi

outdir=$top/bench_out
out=$outdir/bench_relabel.txt
mkdir -p "$outdir"
{
    echo "# $(date -u '+%Y-%m-%dT%H:%M:%SZ') $(hostname)" \
         "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
    echo "# git" \
         "$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo none)"
    for grids in "32x32 --" "64x64 --exact"; do
        g=${grids%% *}
        extra=${grids#* }
        [ "$extra" = "--" ] && extra=
        args=(--m 65536 --n 65536 --a "$g:64x64:R" --b "$g:128x128:C")
        [ -n "$extra" ] && args+=("$extra")
        echo
        echo "# relabel_plan ${args[*]} $*"
        "$bin" "${args[@]}" "$@"
    done
} | tee "$out"
echo "(saved to ${out#"$top"/})"
