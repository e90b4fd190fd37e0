#!/usr/bin/env bash
# scripts/bench_relabel_model.sh - the machine model's table of
# docs/relabel.md ("Planning at scale"): scripts/costa-shim-model on
# square grids of P = 256, 4096 and 65,536 ranks, 1024 x 1024 doubles per
# rank, nodes of 64 ranks, for the layout pairs of the table, plus the
# 400,000 x 400,000 case of issue 33 (64 x 64 blocks in row order to
# 100 x 100 in column order); prints one markdown row per case: bytes
# across nodes and predicted ms per call for the application's mapping,
# the plain and the node-aware relabeling, and the tool's wall time,
# CPU time and peak resident size (GNU time).  Extra arguments go to
# every run (e.g. --sparse for the entry-by-entry path).  No MPI.
# Environment: BUILD_DIR as for costa-shim-model, TIME (default
# /usr/bin/time).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
model=$top/scripts/costa-shim-model
tbin=${TIME:-/usr/bin/time}
[ -x "$tbin" ] || { echo "bench_relabel_model.sh: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row P LABEL M A B [more tool arguments]
row() {
    local P=$1 label=$2 m=$3 a=$4 b=$5
    shift 5
    "$tbin" -f "%e %U %S %M" -o "$tmp/t" "$model" --m "$m" --n "$m" \
        --a "$a" --b "$b" --rpn 64 "$@" > "$tmp/o"
    awk -v P="$P" -v label="$label" -v t="$(tail -n 1 "$tmp/t")" '
        function cell(   s) { s = $0; sub(/.*across [0-9]+ \(/, "", s);
            sub(/\).*/, "", s); c = $0; sub(/.*call /, "", c);
            sub(/ ms.*/, "", c); return s " / " c }
        $1 == "identity" { app = cell() }
        $1 == "plain" { pl = cell() }
        $1 == "node-aware" && $2 == "kept" { nd = cell() }
        END { split(t, x, " ");
              printf "| %s | %s | %s | %s | %s | %.2f s (cpu %.2f s), " \
                     "%d MB |\n", P, label, app, pl, nd, x[1], x[2] + x[3],
                     x[4] / 1024 }' "$tmp/o"
}

echo "| P | layouts | application | plain relabeling | node-aware | tool |"
echo "|---|---|---|---|---|---|"
for g in 16 64 256; do
    P=$((g * g)) m=$((g * 1024)) s=${g}x$g
    row $P "blocks 32 -> 64" $m $s:32x32 $s:64x64 "$@"
    row $P "blocks 32 -> 96" $m $s:32x32 $s:96x96 "$@"
    row $P "blocks 48 -> 64" $m $s:48x48 $s:64x64 "$@"
    row $P "row-major -> column-major grid" $m $s:64x64 $s:64x64:C "$@"
    row $P "transpose (pdtran)" $m $s:64x64 $s:64x64 --trans "$@"
    row $P "2D -> 1 x P columns" $m $s:64x64 1x$P:64x64 "$@"
done
row 65536 "400,000: 64 -> 100, row -> column order" 400000 \
    256x256:64x64 256x256:100x100:C "$@"
