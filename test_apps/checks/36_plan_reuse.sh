#!/usr/bin/env bash
# test_apps/checks/36_plan_reuse.sh - repeated calls reuse the shim's plan
# (shim/shim_plan_cache.c): results stay exact with fresh arrays and values
# every round and after grids are freed and recreated with other shapes
# (recycled BLACS handles); every call is on the engine; each rank builds
# one plan per layout (COSTA_SHIM_VERBOSE=2 plan lines), not one per call.
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
    env LD_PRELOAD="$CS_SHIM" COSTA_SHIM_FALLBACK=never \
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
    # two layouts, six calls each -> two plans per rank
    for t in "$out"/trace.*; do
        built=$(grep -c '^COSTA_SHIM_PLAN' "$t" || true)
        made=$(grep -c '^COSTA_SHIM r:' "$t" || true)
        echo "$(basename "$t"): $made calls, $built plans built"
        [ "$made" = 12 ] && [ "$built" = 2 ] ||
            { echo "FAIL: expected 12 calls and 2 plans built"; exit 1; }
    done
done
