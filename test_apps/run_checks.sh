#!/usr/bin/env bash
# test_apps/run_checks.sh - runs every check script of test_apps/checks/ in
# name order and prints one PASS/FAIL line each, then "N passed, N failed".
# Each check script exits 0 on success; its output goes to
# test_apps/out/<name>.log and is printed when it fails.
# Environment: CS_MPI (flavour: mpich, openmpi), CS_SHIM (the library),
# MPIEXEC (the launcher the checks use), CS_MPIEXEC_REAL (the flavour's own
# mpiexec), BUILD_DIR, PYTHON (all set by make check-one), CS_CHECK_FULL=1
# for the long variants, CS_CHECK_ONLY=pattern to run a subset.  Outputs go
# to test_apps/out/<flavour>/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export CS_TOP="$top"
export CS_MPI="${CS_MPI:-mpich}"
export MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
export CS_MPIEXEC_REAL="${CS_MPIEXEC_REAL:-$MPIEXEC}"
export BUILD_DIR="$top/${BUILD_DIR:-build/$CS_MPI-release}"
export PYTHON="${PYTHON:-python3}"
export CS_SHIM="${CS_SHIM:-$top/libcosta_shim.so}"
out="$top/test_apps/out/$CS_MPI"
. "$here/lib/checks_lib.sh"
if [ "$CS_MPI" = openmpi ]; then
    cs_openmpi_env
fi
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
        printf 'PASS  %-46s %4ss\n' "$CS_MPI/$name" "$(( $(date +%s) - start ))"
    else
        fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-46s %4ss\n' "$CS_MPI/$name" "$(( $(date +%s) - start ))"
        tail -n 40 "$out/$name.log" | sed 's/^/    | /'
    fi
done
echo
[ "$fail" -eq 0 ] || echo "failed: ${failed[*]}"
echo "$CS_MPI: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
