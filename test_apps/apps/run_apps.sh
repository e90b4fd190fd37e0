#!/usr/bin/env bash
# test_apps/apps/run_apps.sh - make check-apps: real applications run
# natively and under the shim, with identical results required.  Runs
# every test_apps/apps/<app>/check.sh in name order and prints one
# PASS/FAIL line each, then "N passed, N failed"; each check's output goes
# to test_apps/out/apps/<app>.log and is printed when it fails.
# Environment (set by make check-apps): CS_SHIM_MPICH, CS_SHIM_OPENMPI (the
# two builds), CS_MPIEXEC_MPICH, CS_MPIEXEC_OPENMPI, PYTHON;
# CS_APPS_ONLY=pattern runs a subset.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export CS_TOP="$top"
export PYTHON="${PYTHON:-python3}"
export CS_SHIM_MPICH="${CS_SHIM_MPICH:-$top/libcosta_shim.so}"
export CS_SHIM_OPENMPI="${CS_SHIM_OPENMPI:-$top/libcosta_shim-openmpi.so}"
export CS_MPIEXEC_MPICH="${CS_MPIEXEC_MPICH:-mpiexec.mpich}"
export CS_MPIEXEC_OPENMPI="${CS_MPIEXEC_OPENMPI:-mpiexec.openmpi}"
. "$top/test_apps/lib/checks_lib.sh"
apps=()
for t in "$here"/*/check.sh; do
    apps+=("$(basename "$(dirname "$t")")=$t")
done
cs_run_all apps "$top/test_apps/out/apps" "${CS_APPS_ONLY:-}" "${apps[@]}"
