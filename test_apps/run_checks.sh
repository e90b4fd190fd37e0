#!/usr/bin/env bash
# test_apps/run_checks.sh - runs every check script of test_apps/checks/ in
# name order and prints one PASS/FAIL line each, then "N passed, N failed".
# Each check script exits 0 on success; its output goes to
# test_apps/out/<name>.log and is printed when it fails.
# Environment: MPIEXEC, BUILD_DIR, PYTHON (set by make), CS_CHECK_FULL=1 for
# the long variants, CS_CHECK_ONLY=pattern to run a subset.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export CS_TOP="$top"
export MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
export BUILD_DIR="$top/${BUILD_DIR:-build/release}"
export PYTHON="${PYTHON:-python3}"
export CS_SHIM="$top/libcosta_shim.so"
out="$top/test_apps/out"
mkdir -p "$out"
pass=0; fail=0; failed=()
for t in "$here"/checks/*.sh; do
    name=$(basename "$t" .sh)
    if [ -n "${CS_CHECK_ONLY:-}" ] && [[ "$name" != *${CS_CHECK_ONLY}* ]]; then
        continue
    fi
    start=$(date +%s)
    if CS_OUT="$out/$name" bash "$t" > "$out/$name.log" 2>&1; then
        pass=$((pass + 1))
        printf 'PASS  %-40s %4ss\n' "$name" "$(( $(date +%s) - start ))"
    else
        fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-40s %4ss\n' "$name" "$(( $(date +%s) - start ))"
        tail -n 40 "$out/$name.log" | sed 's/^/    | /'
    fi
done
echo
[ "$fail" -eq 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
