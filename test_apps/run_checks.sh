#!/usr/bin/env bash
# test_apps/run_checks.sh - runs every check script of test_apps/checks/ in
# name order and prints one PASS/FAIL line each, then "N passed, N failed".
# Each check script exits 0 on success; its output goes to
# test_apps/out/<name>.log and is printed when it fails.
# Environment: CS_MPI (flavour: mpich, openmpi), CS_SHIM (the library),
# MPIEXEC (the launcher the checks use), CS_MPIEXEC_REAL (the flavour's own
# mpiexec), BUILD_DIR, PYTHON (all set by make check-one), CS_CHECK_FULL=1
# for the long variants, CS_CHECK_ONLY="pattern..." to run the checks whose
# names contain one of the patterns; CS_SAN (the sanitizers the library was
# built with) and CS_SAN_RT (the ASan runtime, when address is one) for
# make check SAN=....  Outputs go to test_apps/out/<flavour>[-san]/.
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
out="$top/test_apps/out/$CS_MPI${CS_SAN:+-san}"
. "$here/lib/checks_lib.sh"
# CS_PRELOAD is what the checks put in LD_PRELOAD to load the shim: under
# SAN (make check SAN=...) the ASan runtime CS_SAN_RT first, as ASan needs
# to be the first object of a process it watches.
export CS_PRELOAD="${CS_SAN_RT:+$CS_SAN_RT:}$CS_SHIM"
if [ -n "${CS_SAN:-}" ]; then
    cs_san_env
fi
if [ "$CS_MPI" = openmpi ]; then
    cs_openmpi_env
fi
checks=()
for t in "$here"/checks/*.sh; do
    checks+=("$(basename "$t" .sh)=$t")
done
cs_run_all "$CS_MPI" "$out" "${CS_CHECK_ONLY:-}" "${checks[@]}"
