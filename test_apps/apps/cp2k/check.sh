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
# Required for each: exit 0 both times; every `ENERGY|` line identical to
# the last digit; the ATOMIC FORCES blocks identical; for the MD the
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
: "${CS_OUT:?}"
if ! command -v cp2k.psmp > /dev/null; then
    echo "FAIL: cp2k.psmp not found (scripts/install-deps.sh --apps)"
    exit 1
fi
cs_need_files "$CS_SHIM_OPENMPI" "$CS_SHIM_MPICH"
cs_fresh_dir "$CS_OUT"
fails=0

# run NAME CASE PRELOAD [VAR=value...]: CP2K on 2 ranks in CS_OUT/NAME;
# its results into NAME/results.cmp
run() {
    local name=$1 case=$2 pre=$3
    shift 3
    local d=$CS_OUT/$name rc=0
    mkdir -p "$d"
    cs_app_prepare "$d" "$case"
    mapfile -t cmd < <(cs_app_cmd "$case")
    cs_app_run "$cs_app_flavour" 2 "$d" "$pre" 600 "$@" -- "${cmd[@]}" ||
        rc=$?
    echo "  $name: exit $rc, $(cat "$d/wall_s") s"
    if [ "$rc" -ne 0 ]; then
        cs_report FAIL "$name: CP2K exited $rc"
        tail -n 8 "$d/stderr.txt" "$d/out.txt" 2> /dev/null | sed 's/^/      | /'
        return 1
    fi
    cs_app_results "$d" > "$d/results.cmp"
    grep '^ ENERGY|' "$d/out.txt" > "$d/energy.cmp"
    sed -n '/ATOMIC FORCES in/,/SUM OF ATOMIC FORCES/p' "$d/out.txt" > "$d/forces.cmp"
}

for case in $cs_app_cases; do
    echo "$case.inp: $(cs_app_about "$case")"
    run "$case.native" "$case" "" || continue
    run "$case.shim" "$case" "$CS_SHIM_OPENMPI" COSTA_SHIM_STATS=summary \
        COSTA_SHIM_STATS_DIR=stats || continue
    n=$CS_OUT/$case.native s=$CS_OUT/$case.shim
    cs_app_same "$case ENERGY| lines" "$n/energy.cmp" "$s/energy.cmp"
    cs_app_same "$case forces" "$n/forces.cmp" "$s/forces.cmp"
    cs_app_same "$case all compared results" "$n/results.cmp" "$s/results.cmp"
    for w in "$n"/*-RESTART.wfn; do
        [ -f "$w" ] || continue
        if cmp -s "$w" "$s/$(basename "$w")"; then
            cs_report ok "$case MO restart file $(basename "$w"): byte-identical"
        else
            cs_report FAIL "$case MO restart file $(basename "$w") differs"
        fi
    done
    cs_app_engine_only "$s/stats" "$case report"
done

echo "mix-up: xtb_md.inp under the MPICH build:"
if run xtb_md.mixup xtb_md "$CS_SHIM_MPICH"; then
    cs_app_same "mix-up ENERGY| lines" "$CS_OUT/xtb_md.native/energy.cmp" \
        "$CS_OUT/xtb_md.mixup/energy.cmp"
    cs_app_one_warning "$CS_OUT/xtb_md.mixup" libcosta_shim-openmpi.so
fi

echo
if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "cp2k: OK"
