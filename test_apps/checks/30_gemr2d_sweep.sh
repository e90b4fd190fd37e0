#!/usr/bin/env bash
# 30_gemr2d_sweep.sh - randomized p?gemr2d sweep natively and under the shim.
#
# Why: the shim must be bit-identical to ScaLAPACK for every valid input.
# For P = 1..6 ranks gemr2d_sweep runs the same seeded configs natively
# (yield preload when P > 2: the machine has 2 cores) and under the shim
# (LD_PRELOAD=$CS_SHIM:yield, COSTA_SHIM_FALLBACK=never, MIN_ELEMS=0).
# Both runs must self-check OK, their per-config digests must be identical,
# and the shim's stats report must show that its engine served every call.
# On 2 and 4 ranks the shim runs once more with COSTA_SHIM_WORKSPACE=2k, so
# that most calls are cut into panels (engine/panels.c): the same digests,
# and the plan lines (COSTA_SHIM_VERBOSE=2) must show cut plans.
# CS_CHECK_FULL=1 runs 4x the configs.  Env: BUILD_DIR MPIEXEC CS_SHIM
# CS_OUT CS_TOP PYTHON.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${MPIEXEC:?}" "${CS_SHIM:?}" "${CS_OUT:?}" "${CS_TOP:?}"
PYTHON="${PYTHON:-python3}"

bin="$BUILD_DIR/t/scalapack/gemr2d_sweep"
yield="$BUILD_DIR/t/lib/yield_preload.so"
stats_py="$CS_TOP/test_apps/lib/check_stats.py"
seed="${CS_SWEEP_SEED:-20240611}"
# configs per process count (more at small P, where a config is cheap)
declare -A count=([1]=600 [2]=500 [3]=400 [4]=300 [5]=250 [6]=250)
mult=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && mult=4
launch_timeout=$((240 * mult))

cs_need_files "$bin" "$yield"
out="$CS_OUT"
cs_fresh_dir "$out"
status=0

# run_sweep TAG P PRELOAD [env...]: one launch; 0 iff exit 0 and sentinel
run_sweep() {
    local tag=$1 p=$2 pre=$3
    shift 3
    local d="$out/$tag.$p"
    mkdir -p "$d"
    local genv=()
    [ -n "$pre" ] && genv=(-genv LD_PRELOAD "$pre")
    local t0=$SECONDS rc=0
    env "$@" timeout -k 10 "$launch_timeout" \
        "$MPIEXEC" "${genv[@]}" -n "$p" "$bin" --seed "$((seed + p))" \
        --count "$((count[$p] * mult))" --digest "$d/dig" \
        > "$d/stdout" 2> "$d/stderr" || rc=$?
    echo "  $tag P=$p: rc=$rc, $((SECONDS - t0)) s"
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$d/stdout")" != "cs_test: OK" ]; then
        echo "FAIL: $tag run with P=$p (rc=$rc); stderr tail:"
        tail -n 20 "$d/stderr" | sed 's/^/    /'
        return 1
    fi
    return 0
}

total=0
echo "native runs (seed base $seed):"
for p in 1 2 3 4 5 6; do
    pre=""
    [ "$p" -gt 2 ] && pre="$yield"
    run_sweep native "$p" "$pre" || status=1
    n=$((count[$p] * mult))
    total=$((total + n))
done
echo "native: $total configs in all"

if [ ! -e "$CS_SHIM" ]; then
    echo "FAIL: shim $CS_SHIM not found: shim half not run"
    exit 1
fi

echo "shim runs:"
for p in 1 2 3 4 5 6; do
    sd="$out/stats.$p"
    rm -rf "$sd"
    mkdir -p "$sd"
    if ! run_sweep shim "$p" "$CS_PRELOAD:$yield" \
            COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
            COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$sd"; then
        status=1
        continue
    fi
    # digests: identical per config and rank (and some written: two
    # empty sets would be equal)
    if [ -z "$(cat "$out/native.$p"/dig.* 2> /dev/null)" ] ||
       ! cmp -s <(cat "$out/native.$p"/dig.* | sort) \
                <(cat "$out/shim.$p"/dig.* | sort); then
        echo "FAIL: P=$p digests differ between native and shim, or none; first:"
        diff <(cat "$out/native.$p"/dig.* | sort) \
             <(cat "$out/shim.$p"/dig.* | sort) | head -n 10 | sed 's/^/    /'
        status=1
    fi
    if ! cmp -s <(grep '^calls' "$out/native.$p/stdout") \
                <(grep '^calls' "$out/shim.$p/stdout"); then
        echo "FAIL: P=$p call counts differ between native and shim"
        status=1
    fi
    calls=$(cs_sum_field calls "$out/shim.$p/stdout")
    nowork=$(cs_sum_field calls_no_work "$out/shim.$p/stdout")
    echo "  P=$p: $calls p?gemr2d calls in all ranks, $nowork with M or N = 0"
    rc=0
    "$PYTHON" "$stats_py" "$sd" --routine-regex '^C?p[sdczi]gemr2d_?$' \
        --expect-engine-calls "$((calls - nowork))" \
        --expect-none-calls "$nowork" --no-fallback > "$out/stats.$p.txt" \
        2>&1 || rc=$?
    sed 's/^/    /' "$out/stats.$p.txt"
    [ "$rc" -eq 0 ] || status=1
done
echo "shim runs with a 2k workspace bound:"
for p in 2 4; do
    if ! run_sweep shim_cut "$p" "$CS_PRELOAD:$yield" \
            COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
            COSTA_SHIM_WORKSPACE=2k COSTA_SHIM_VERBOSE=2 \
            COSTA_SHIM_LOG_FILE="$out/shim_cut.$p/trace.%r"; then
        status=1
        continue
    fi
    if ! cmp -s <(cat "$out/native.$p"/dig.* | sort) \
                <(cat "$out/shim_cut.$p"/dig.* | sort); then
        echo "FAIL: P=$p digests differ between native and the cut shim"
        status=1
    fi
    cut=$(cat "$out/shim_cut.$p"/trace.* | grep -cE ' panels:([2-9]|[1-9][0-9]+) ' || true)
    plans=$(cat "$out/shim_cut.$p"/trace.* | grep -c '^COSTA_SHIM_PLAN' || true)
    echo "  P=$p: $cut of $plans plans cut into panels"
    # (0 of 0: no plan lines, the trace is missing: that is no pass)
    if [ "$cut" -lt $((plans / 4)) ] || [ "$cut" -eq 0 ]; then
        echo "FAIL: P=$p: only $cut of $plans plans were cut"
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "30_gemr2d_sweep: OK"
exit "$status"
