#!/usr/bin/env bash
# test_apps/lib/mpiexec_openmpi.sh - the launcher the checks use for the
# Open MPI flavour: Open MPI's own mpiexec ($CS_OPENMPI_MPIEXEC, default
# mpiexec.openmpi), with MPICH's "-genv NAME VALUE" (what the check
# scripts write) spelled "-x NAME=VALUE".  Everything else of what the
# checks assume (running as root, more ranks than cores, yielding while
# idle, no binding) comes from OMPI_* variables that run_checks.sh exports
# for this flavour, so the flavour's real mpiexec works in checks as well.
# Only the launcher's own options are translated: words from the program
# name on reach the program unchanged.
set -euo pipefail
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        -genv)
            [ $# -ge 3 ] || { echo "mpiexec_openmpi.sh: -genv needs NAME VALUE" >&2; exit 2; }
            args+=(-x "$2=$3"); shift 3 ;;
        -n | -np | -x | -host | --host | -H | --hostfile | -wdir | --wdir)
            args+=("$1" "$2"); shift 2 ;;
        --mca | -mca)
            args+=("$1" "$2" "$3"); shift 3 ;;
        -*) args+=("$1"); shift ;;
        *) break ;;
    esac
done
exec "${CS_OPENMPI_MPIEXEC:-mpiexec.openmpi}" "${args[@]}" "$@"
