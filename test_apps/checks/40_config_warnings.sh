#!/usr/bin/env bash
# test_apps/checks/40_config_warnings.sh - bad COSTA_SHIM_* values in a real
# run: each gives exactly one warning naming the variable and the default
# used, an unknown COSTA_SHIM_* name gives one warning, only rank 0 prints
# them, and the run still succeeds with the defaults (issue 2, item 7f).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT.
set -euo pipefail
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
app=$BUILD_DIR/t/scalapack/gemr2d_sweep
mkdir -p "$CS_OUT"
err=$CS_OUT/stderr.txt

env LD_PRELOAD="$CS_PRELOAD" \
    COSTA_SHIM_MIN_ELEMS=lots COSTA_SHIM_FALLBACK=sometimes \
    COSTA_SHIM_VERBOSE=7 COSTA_SHIM_STATS=yes COSTA_SHIM_THREADS=-2 \
    COSTA_SHIM_OVERLAP=maybe COSTA_SHIM_MAX_MEMORY=12Q \
    COSTA_SHIM_FALBACK=never \
    "$MPIEXEC" -n 2 "$app" --seed 3 --count 5 > "$CS_OUT/stdout.txt" 2> "$err"
cat "$err"
grep -q 'cs_test: OK' "$CS_OUT/stdout.txt"

fail=0
for v in MIN_ELEMS FALLBACK VERBOSE STATS THREADS OVERLAP MAX_MEMORY; do
    n=$(grep -c "COSTA_SHIM_$v:" "$err" || true)
    if [ "$n" != 1 ]; then
        echo "FAIL: expected one warning for COSTA_SHIM_$v, got $n"
        fail=1
    elif ! grep "COSTA_SHIM_$v:" "$err" | grep -q 'default'; then
        echo "FAIL: the warning for COSTA_SHIM_$v does not name the default"
        fail=1
    fi
done
n=$(grep -c 'unknown variable COSTA_SHIM_FALBACK' "$err" || true)
[ "$n" = 1 ] || { echo "FAIL: unknown-name warning count $n"; fail=1; }
grep -q 'did you mean COSTA_SHIM_FALLBACK' "$err" ||
    { echo "FAIL: no suggestion for the misspelt name"; fail=1; }
if grep -v '^costa-shim\[0\]' "$err" | grep -q 'costa-shim'; then
    echo "FAIL: a rank other than 0 printed configuration warnings"
    fail=1
fi
# the defaults were used: no trace lines (VERBOSE default 0), no report
if grep -q '^COSTA_SHIM r:' "$err" "$CS_OUT/stdout.txt"; then
    echo "FAIL: trace lines printed although VERBOSE fell back to 0"
    fail=1
fi
exit $fail
