#!/usr/bin/env bash
# test_apps/checks/36_plan_reuse.sh - repeated calls reuse the shim's plan
# (shim/shim_plan_cache.c): results stay exact with fresh arrays and values
# every round and after grids are freed and recreated with other shapes
# (recycled BLACS handles); every call is on the engine; each rank builds
# one plan per layout and leading dimension (COSTA_SHIM_VERBOSE=2 plan
# lines), not one per call, and settles its table by the call's one
# agreement exactly when every rank has the table cached (the per-call
# trace's table:cached, against table:gathered): rounds 1-5
# of each layout's 6 (the table holds no leading dimensions, so rounds 3
# and 4, where the last rank's B has a larger one, skip it too, but that
# rank must build a plan for them), never in the 3-rank part that
# alternates two layouts over all ranks but the last (that rank always
# holds a table matching its row, the members never the newest: a rank
# that skipped alone would hang).  Then plan_reuse --collide on 3 ranks
# (rank 0 outside B's grid, B's CSRC alternating: from the third call on
# rank 0 proposes the other layout's table, the others this one's) with
# COSTA_SHIM_TEST_FAULT=digest, every table's digests equal on every rank:
# the results must stay exact and every table be gathered (a digest alone
# never settles a table; the tables' fields, and on so few ranks their
# positions, are compared exactly).  On main a17f5ef with its hash forced
# equal the same run aborted: "Message truncated" (rank 0 sent by the
# other layout's plan).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT, PYTHON.
set -euo pipefail
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
app=$BUILD_DIR/t/scalapack/plan_reuse
stats=${CS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/test_apps/lib/check_stats.py
rm -rf "$CS_OUT"
mkdir -p "$CS_OUT"
for np in 2 3; do
    out=$CS_OUT/np$np
    mkdir -p "$out"
    env LD_PRELOAD="$CS_PRELOAD" COSTA_SHIM_FALLBACK=never \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$out" \
        COSTA_SHIM_VERBOSE=2 COSTA_SHIM_LOG_FILE="$out/trace.%r" \
        timeout 120 "$MPIEXEC" -n "$np" "$app" > "$out/stdout.txt" \
        2> "$out/stderr.txt"
    cat "$out/stdout.txt"
    grep -q '^cs_test: OK' "$out/stdout.txt"
    calls=$(awk '$1 == "calls" { print $2 }' "$out/stdout.txt")
    "${PYTHON:-python3}" "$stats" "$out" --routine-regex '^pdgemr2d_$' \
        --expect-engine-calls "$calls" --no-fallback
    # a plan line is written when a plan is built, not when one is reused:
    # two layouts, six calls each -> two plans per rank, four on the last
    # (its leading dimension changes in rounds 3 and 4 of each layout)
    for t in "$out"/trace.*; do
        built=$(grep -c '^COSTA_SHIM_PLAN' "$t" || true)
        made=$(grep -c '^COSTA_SHIM r:' "$t" || true)
        echo "$(basename "$t"): $made calls, $built plans built"
        # with 3+ ranks, 6 more calls with two more layouts (every rank
        # builds their two plans, also the last one, which is in neither
        # grid: its plan is empty)
        calls=12 want=2
        [ "$np" -ge 3 ] && calls=18 want=4
        [ "$t" = "$out/trace.$((np - 1))" ] && want=$((want + 2))
        [ "$made" = "$calls" ] && [ "$built" = "$want" ] || {
            echo "FAIL: expected $calls calls and $want plans built"
            exit 1
        }
    done
    skipped=$(cat "$out"/trace.* | grep -c ' table:cached ' || true)
    gathered=$(cat "$out"/trace.* | grep -c ' table:gathered ' || true)
    echo "np $np: table settled from the caches $skipped times, gathered $gathered"
    [ "$skipped" = $((10 * np)) ] &&
        [ "$gathered" = $(( (calls - 10) * np )) ] ||
        { echo "FAIL: expected $((10 * np)) tables settled, the rest gathered"; exit 1; }
done

# every digest colliding: ranks that hold different tables still gather
out=$CS_OUT/collide
mkdir -p "$out"
env LD_PRELOAD="$CS_PRELOAD" COSTA_SHIM_FALLBACK=never \
    COSTA_SHIM_TEST_FAULT=digest COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_RANKS=all \
    COSTA_SHIM_LOG_FILE="$out/trace.%r" \
    timeout 120 "$MPIEXEC" -n 3 "$app" --collide > "$out/stdout.txt" \
    2> "$out/stderr.txt" ||
    { echo "FAIL: colliding digests: exit $?"; tail -n 5 "$out/stderr.txt"; exit 1; }
grep -q '^cs_test: OK' "$out/stdout.txt" ||
    { echo "FAIL: colliding digests: wrong results"; tail -n 5 "$out/stderr.txt"; exit 1; }
cached=$(cat "$out"/trace.* | grep -c ' table:cached ' || true)
gathered=$(cat "$out"/trace.* | grep -c ' table:gathered ' || true)
echo "np 3, every digest colliding, tables that differ: exact, $gathered gathered, $cached settled"
[ "$cached" = 0 ] && [ "$gathered" = 24 ] ||
    { echo "FAIL: expected all 24 tables gathered"; exit 1; }
