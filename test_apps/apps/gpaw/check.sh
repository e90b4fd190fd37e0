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
cs_app_main gpaw lcao_benzene_gamma
