#!/usr/bin/env bash
# test_apps/apps/gpaw/check.sh - GPAW (Debian's gpaw, Python on Open MPI)
# gives the same results under the shim as without it.
#
# The inputs of app.sh on 2 ranks natively and under
# libcosta_shim-openmpi.so (with MPI and ScaLAPACK preloaded behind it, as
# a Python program needs): exit 0 both times; rank 0's RESULT lines
# (energy, eigenvalues, forces, all in %.17g) and the GPAW log without its
# clock and timing lines identical; the report shows the calls (GPAW's
# Cpdgemr2d, pdtran_ from GPAW and ELPA) on the engine and no fallback.
# Then GPAW under the MPICH build runs as natively with one warning.
# Environment: see test_apps/apps/run_apps.sh; CS_OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/apps_lib.sh"
. "$here/app.sh"
: "${CS_OUT:?}"
if ! /usr/bin/python3 -c 'import gpaw' 2> /dev/null; then
    echo "FAIL: GPAW not found (scripts/install-deps.sh --apps)"
    exit 1
fi
cs_need_files "$CS_SHIM_OPENMPI" "$CS_SHIM_MPICH"
cs_fresh_dir "$CS_OUT"
fails=0

for case in $cs_app_cases; do
    echo "$case.py: $(cs_app_about "$case")"
    cs_app_check_case "$case"
done
cs_app_check_mixup lcao_benzene_gamma

echo
if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "gpaw: OK"
