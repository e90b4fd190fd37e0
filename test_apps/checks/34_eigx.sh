#!/usr/bin/env bash
# test_apps/checks/34_eigx.sh - pdsyevx_ / pzheevx_ (which call p?trmr2d_
# and p?gemr2d_ internally, through p?syntrd / p?hentrd and p?lamr1d) give
# byte-identical output natively and under the shim.
#
# eigx runs on 2 ranks (1x2 grid) and on 4 ranks (2x2 grid, with
# yield_preload.so when the machine has fewer cores).  The shim runs with
# its default settings plus COSTA_SHIM_STATS=summary; its JSON report must
# show engine rows with calls > 0 for pdtrmr2d and pztrmr2d (any spelling)
# and no row on the fallback or passthrough path (check_stats.py).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_TOP.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/eigx
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$app" "$yield"
cs_fresh_dir "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)

stats_py=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/test_apps/lib/check_stats.py

# check_stats DIR: engine calls of pdtrmr2d and of pztrmr2d (any spelling),
# no fallback or passthrough row for any routine
check_stats() {
    "$PYTHON" "$stats_py" "$1" --routine-regex '^C?pdtrmr2d_?$' \
        --min-engine-calls 1 --no-fallback &&
    "$PYTHON" "$stats_py" "$1" --routine-regex '^C?pztrmr2d_?$' \
        --min-engine-calls 1 --no-fallback
}

fails=0
for np in 2 4; do
    dir=$CS_OUT/np$np
    mkdir -p "$dir/stats"
    pre=""
    [ "$np" -gt "$ncores" ] && pre=$yield
    rcn=0 rcs=0
    timeout 300 "$MPIEXEC" -n "$np" env ${pre:+LD_PRELOAD=$pre} "$app" \
        > "$dir/native.out" 2> "$dir/native.err" || rcn=$?
    timeout 300 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD${pre:+:$pre}" \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$dir/stats" "$app" \
        > "$dir/shim.out" 2> "$dir/shim.err" || rcs=$?
    bad=()
    [ "$rcn" -eq 0 ] && grep -q '^cs_test: OK' "$dir/native.out" ||
        bad+=("native run failed (exit $rcn)")
    [ "$rcs" -eq 0 ] && grep -q '^cs_test: OK' "$dir/shim.out" ||
        bad+=("shim run failed (exit $rcs)")
    cmp -s "$dir/native.out" "$dir/shim.out" || bad+=("outputs differ")
    check_stats "$dir/stats" > "$dir/stats.txt" 2>&1 || bad+=("shim statistics")
    if [ "${#bad[@]}" -eq 0 ]; then
        echo "ok    np=$np: eigenvalues and eigenvector digests identical," \
             "p?trmr2d on the engine path"
    else
        fails=$((fails + 1))
        echo "FAIL  np=$np: $(IFS=,; echo "${bad[*]}")"
        grep -v '^  meta:' "$dir/stats.txt" | sed 's/^/      /'
        diff "$dir/native.out" "$dir/shim.out" | head -n 8 | sed 's/^/      /'
        grep -v '^ *$' "$dir/shim.err" | head -n 8 | sed 's/^/      shim stderr: /'
    fi
done
exit $((fails > 0))
