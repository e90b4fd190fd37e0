#!/usr/bin/env bash
# test_apps/checks/33_tran_sweep.sh - differential sweep of the transpose
# family (p?tran/p?tranu/p?tranc, p?geadd, p?tradd, p?trmr2d_ and
# Cp?trmr2d) natively and under the shim, on 1..6 ranks.
#
# For every rank count the same tran_sweep configs run twice: natively and
# with LD_PRELOAD=$CS_SHIM COSTA_SHIM_MIN_ELEMS=0 COSTA_SHIM_STATS=summary.  Each run must pass its own self-checks
# ("cs_test: OK": exact results, nothing outside sub(C) / the trapezoid
# touched, A unchanged); the per-config, per-rank digest lines and the
# "calls" lines of both runs must be identical; and the shim's JSON report
# must account for every call: check_stats.py --routine-regex (these
# routines) --expect-engine-calls (sum of the program's "calls" lines
# minus its "calls_unsupported" and "calls_no_work" lines: M or N = 0, or
# alpha = 0 with beta = 1), --expect-none-calls (the "calls_no_work") and
# --expect-fallback unsupported=(sum of "calls_unsupported"), no other
# fallback.  The documented fallbacks (docs/design.md) are mainly
# p?tran*/p?geadd with beta = 1 and alpha not 0 (complex) or not 0, 1 or
# -1 (real), where PBLAS's rounding depends on its internal buffering;
# exact counts catch any silent fallback, as
# COSTA_SHIM_FALLBACK=never would.  A second, separate set of configs (tran_sweep
# --replicated: RSRC and/or CSRC = -1) is run the same way and reported
# under its own name.  Three more pairs run with COSTA_SHIM_WORKSPACE=2k,
# which cuts most calls into panels (one of p?tradd alone, hard values).  Runs with more ranks than cores use
# yield_preload.so (after the shim).
#
# Default: 890 configs + 160 replicated ones (natively about 1 min on 2
# cores; the shim half should not take much longer);
# CS_CHECK_FULL=1 runs four times as many.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT,
# CS_TOP, CS_CHECK_FULL.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/tran_sweep
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$app" "$yield"
cs_fresh_dir "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)
mult=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && mult=4

stats_py=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/test_apps/lib/check_stats.py
# the routines of this sweep, in every spelling the report may use
routine_re='^(C?p[sdczi]trmr2d_?|p[sd]tran_|p[cz]tran[uc]_|p[sdcz]geadd_|p[sdcz]tradd_)$'

fails=0
total_cfg=0
# run_pair LABEL NP COUNT SEED [extra tran_sweep args]
run_pair() {
    local label=$1 np=$2 count=$3 seed=$4
    shift 4
    local dir=$CS_OUT/$label
    mkdir -p "$dir/stats"
    local pre="" what="[$label] np=$np seed=$seed count=$count $*"
    [ "$np" -gt "$ncores" ] && pre=$yield
    local t0=$SECONDS rcn=0 rcs=0
    timeout -k 10 420 "$MPIEXEC" -n "$np" env ${pre:+LD_PRELOAD=$pre} \
        "$app" --seed "$seed" --count "$count" --digest "$dir/native.dig" "$@" \
        > "$dir/native.out" 2> "$dir/native.err" || rcn=$?
    local t1=$SECONDS
    timeout -k 10 420 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD${pre:+:$pre}" \
        COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$dir/stats" \
        "$app" --seed "$seed" --count "$count" --digest "$dir/shim.dig" "$@" \
        > "$dir/shim.out" 2> "$dir/shim.err" || rcs=$?
    local t2=$SECONDS
    total_cfg=$((total_cfg + count))
    local bad=()
    if [ "$rcn" -ne 0 ] || ! grep -q '^cs_test: OK' "$dir/native.out"; then
        bad+=("native run failed (exit $rcn)")
    fi
    if [ "$rcs" -ne 0 ] || ! grep -q '^cs_test: OK' "$dir/shim.out"; then
        bad+=("shim run failed (exit $rcs)")
    fi
    cat "$dir"/native.dig.* 2>/dev/null | sort > "$dir/native.digests"
    cat "$dir"/shim.dig.* 2>/dev/null | sort > "$dir/shim.digests"
    if [ ! -s "$dir/native.digests" ] ||
       ! cmp -s "$dir/native.digests" "$dir/shim.digests"; then
        local nd
        nd=$(diff "$dir/native.digests" "$dir/shim.digests" | grep -c '^[<>]')
        bad+=("digests differ ($nd lines)")
    fi
    grep '^calls' "$dir/native.out" > "$dir/native.calls" || true
    grep '^calls' "$dir/shim.out" > "$dir/shim.calls" || true
    if [ ! -s "$dir/native.calls" ] ||
       ! cmp -s "$dir/native.calls" "$dir/shim.calls"; then
        bad+=("calls lines differ")
    fi
    local calls unsup nowork
    calls=$(cs_sum_field calls "$dir/native.out")
    unsup=$(cs_sum_field calls_unsupported "$dir/native.out")
    nowork=$(cs_sum_field calls_no_work "$dir/native.out")
    if ! "$PYTHON" "$stats_py" "$dir/stats" --routine-regex "$routine_re" \
            --expect-engine-calls "$((calls - unsup - nowork))" \
            --expect-none-calls "$nowork" --no-fallback \
            --expect-fallback "unsupported=$unsup" \
            > "$dir/stats.txt" 2>&1; then
        bad+=("shim statistics (expected $calls engine calls)")
    fi
    if [ "${#bad[@]}" -eq 0 ]; then
        echo "ok    $what (native $((t1 - t0))s, shim $((t2 - t1))s)"
    else
        fails=$((fails + 1))
        echo "FAIL  $what: $(IFS=,; echo "${bad[*]}") (native $((t1 - t0))s, shim $((t2 - t1))s)"
        grep -v '^  meta:' "$dir/stats.txt" | head -n 30 | sed 's/^/      /'
        diff "$dir/native.digests" "$dir/shim.digests" | grep '^[<>]' |
            head -n 6 | sed 's/^/      digest /'
        for s in native shim; do
            grep -v '^classify' "$dir/$s.err" | grep -v '^ *$' | head -n 8 |
                sed "s/^/      $s stderr: /"
        done
    fi
}

# label np count seed; counts chosen for about 2-3 minutes on 2 cores
run_pair np1 1 $((300 * mult)) 3301
run_pair np2 2 $((250 * mult)) 3302
run_pair np3 3 $((120 * mult)) 3303
run_pair np4 4 $((100 * mult)) 3304
run_pair np5 5 $((60 * mult)) 3305
run_pair np6 6 $((60 * mult)) 3306
# the shared send buffer (engine/shm.c) from the first call that can use
# it, for packages from 1 KiB on (the sweep's matrices are small)
COSTA_SHIM_SHM=eager COSTA_SHIM_SHM_MIN=0 run_pair shm-np2 2 $((120 * mult)) 3502
COSTA_SHIM_SHM=eager COSTA_SHIM_SHM_MIN=0 run_pair shm-np4 4 $((50 * mult)) 3504
# panels (engine/panels.c): with a 2k workspace bound most calls are cut
# into ranges of target columns or rows, masks and p?tradd's halo shifted
# to each; the plan lines (COSTA_SHIM_VERBOSE=2) must show cut plans
for np in 2 3; do
    tr=$CS_OUT/cut-np$np.trace
    rm -f "$tr".*
    COSTA_SHIM_WORKSPACE=2k COSTA_SHIM_VERBOSE=2 COSTA_SHIM_LOG_FILE="$tr.%r" \
        run_pair cut-np$np "$np" $((100 * mult)) $((3600 + np))
    cut=$(cat "$tr".* 2>/dev/null | grep -cE ' panels:([2-9]|[1-9][0-9]+) ' || true)
    plans=$(cat "$tr".* 2>/dev/null | grep -c '^COSTA_SHIM_PLAN' || true)
    if [ "$cut" -ge $((plans / 4)) ] && [ "$cut" -gt 0 ]; then
        echo "ok    cut-np$np: $cut of $plans plans cut into panels"
    else
        fails=$((fails + 1))
        echo "FAIL  cut-np$np: only $cut of $plans plans cut into panels"
    fi
done
# p?tradd alone with random values (-0 among them), where a halo off by a
# panel's first column turns -0 into +0 where PBLAS does not
COSTA_SHIM_WORKSPACE=2k run_pair cut-tradd-np2 2 $((200 * mult)) 3612 \
    --only a --hard
main_cfg=$total_cfg
run_pair replicated-np2 2 $((100 * mult)) 3402 --replicated
run_pair replicated-np3 3 $((60 * mult)) 3403 --replicated

echo
echo "$main_cfg configs + $((total_cfg - main_cfg)) replicated configs (RSRC/CSRC = -1)"
if [ "$fails" -ne 0 ]; then
    echo "$fails run pair(s) failed"
    exit 1
fi
echo "native and shim agree on every config"
