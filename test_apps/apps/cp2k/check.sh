#!/usr/bin/env bash
# test_apps/apps/cp2k/check.sh - CP2K (Debian's cp2k, Open MPI) gives the
# same results under the shim as without it.
#
# Inputs of this folder, each on 2 ranks natively and under
# libcosta_shim-openmpi.so (COSTA_SHIM_STATS=summary):
#   xtb_md.inp       xTB MD of 32 waters: pdtran_ 256x256 and pdgemr2d_
#                    (ScaLAPACK diagonalisation every SCF step)
#   dft_redist.inp   PBE energy and forces of 4 waters, diagonalised on
#                    fewer ranks than the job has: pdgemr2d_ there and back
#   rpa_h2o.inp      RI-RPA energy of one water: 6000 pdgemr2d_ 238x238
#                    across the 2 ranks (10-20 % of the native run)
# Required for each: exit 0 both times; every `ENERGY|` line (and the
# RI-RPA energy) identical to the last digit; the ATOMIC FORCES blocks identical; for the MD the
# trajectory (-pos-1.xyz) and the energies file (-1.ener without its
# timing column) identical, and the binary MO restart file (-RESTART.wfn)
# identical byte for byte; the shim's report shows the intercepted calls
# on the engine and no fallback.  Then the mix-up: xtb_md under the MPICH
# build (libcosta_shim.so) runs as natively (same ENERGY lines) with one
# warning naming libcosta_shim-openmpi.so; CP2K's Fortran MPI_INIT goes
# through the shim's PMPI_Init, the path where an MPICH build used to kill
# the job ("MPI_Comm_f2c() was called before MPI_INIT").
# Environment: see test_apps/apps/run_apps.sh; CS_OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/apps_lib.sh"
. "$here/app.sh"

# Beyond the results: the energies and forces named, and the binary MO
# restart files byte for byte.
cs_app_extra() {
    local n=$1 s=$2 case=$3 w
    grep '^ ENERGY|' "$n/out.txt" > "$n/energy.cmp"
    grep '^ ENERGY|' "$s/out.txt" > "$s/energy.cmp"
    cs_app_same "$case ENERGY| lines" "$n/energy.cmp" "$s/energy.cmp"
    sed -n '/ATOMIC FORCES in/,/SUM OF ATOMIC FORCES/p' "$n/out.txt" > "$n/forces.cmp"
    sed -n '/ATOMIC FORCES in/,/SUM OF ATOMIC FORCES/p' "$s/out.txt" > "$s/forces.cmp"
    if [ -s "$n/forces.cmp" ] || [ -s "$s/forces.cmp" ]; then
        cs_app_same "$case forces" "$n/forces.cmp" "$s/forces.cmp"
    fi
    for w in "$n"/*-RESTART.wfn; do
        [ -f "$w" ] || continue
        if cmp -s "$w" "$s/$(basename "$w")"; then
            cs_report ok "$case MO restart file $(basename "$w"): byte-identical"
        else
            cs_report FAIL "$case MO restart file $(basename "$w") differs"
        fi
    done
}

cs_app_main cp2k xtb_md
