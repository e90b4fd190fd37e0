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
cs_app_main slepc petsc_slepc_scalapack
