#!/usr/bin/env bash
# test_apps/apps/slepc/check.sh - PETSc and SLEPc (Debian, Python on Open MPI)
# give the same results under the shim as without it.
#
# petsc_slepc_scalapack.py on 2 ranks natively and under
# libcosta_shim-openmpi.so (MPI and ScaLAPACK preloaded behind it, as a
# Python program needs): exit 0 both times; rank 0's RESULT lines (norms,
# every eigenvalue and singular value in %.17g) identical; the report shows
# the calls (pdgemr2d_, pdtrmr2d_, pdtran_, made by PETSc and by
# ScaLAPACK's drivers) on the engine and no fallback.  Then the same under
# the MPICH build runs as natively with one warning.
# Environment: see test_apps/apps/run_apps.sh; CS_OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/apps_lib.sh"
. "$here/app.sh"
: "${CS_OUT:?}"
if ! env "${cs_app_env[@]}" /usr/bin/python3 -c 'import slepc4py' 2> /dev/null; then
    echo "FAIL: slepc4py not found (scripts/install-deps.sh --apps)"
    exit 1
fi
cs_need_files "$CS_SHIM_OPENMPI" "$CS_SHIM_MPICH"
cs_fresh_dir "$CS_OUT"
fails=0

for case in $cs_app_cases; do
    echo "$case.py: $(cs_app_about "$case")"
    cs_app_check_case "$case"
done
cs_app_check_mixup petsc_slepc_scalapack

echo
if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "slepc: OK"
