#!/usr/bin/env bash
# test_apps/apps/nwchem/check.sh - NWChem (Debian's nwchem-mpich, MPICH)
# gives the same results under the shim as without it.
#
# water.nw (B3LYP/6-31G* of 6 waters, ScaLAPACK's PDSYEVX for every
# diagonalisation, which calls pdtrmr2d_ and pdgemr2d_; static load
# balancing so that native runs repeat to the last digit) on 2 ranks
# natively and under libcosta_shim.so: exit 0 both times; the whole output,
# with only the lines of mask.sed (clock, times, disk- and address-
# dependent sizes) masked, identical: every energy, SCF iteration, orbital
# energy and the dipole; the total DFT energy also compared on its own; the
# report shows the calls on the engine and no fallback.  Then NWChem under
# the Open MPI build runs as natively, with one warning naming
# libcosta_shim.so.
# Environment: see test_apps/apps/run_apps.sh; CS_OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/apps_lib.sh"
. "$here/app.sh"

# The total energy on its own as well.
cs_app_extra() {
    local n=$1 s=$2 case=$3
    grep 'Total DFT energy' "$n/stdout.txt" > "$n/energy.cmp"
    grep 'Total DFT energy' "$s/stdout.txt" > "$s/energy.cmp"
    cs_app_same "$case total DFT energy" "$n/energy.cmp" "$s/energy.cmp"
    sed 's/^/      /' "$n/energy.cmp"
}

cs_app_main nwchem water
