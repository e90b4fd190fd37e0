#!/usr/bin/env bash
# test_apps/checks/62_relabel_subgrid.sh - process relabeling of grids and
# calls without MPI_COMM_WORLD rank 0 (docs/relabel.md, scope world).
# relabel_sub on 4 ranks copies a 600 x 600 matrix K times from a 1x3 grid
# A on world ranks 1 2 3 to a 1x3 grid B on ranks 3 1 2 (a pure process
# permutation, same blocks); rank 0 is in neither grid and makes none of
# those calls.  Three variants: grids made with Cblacs_gridmap over the
# world system context (rank 0 takes part in the creation), over the system
# context of a communicator without rank 0 (rank 0 never calls the shim),
# and the latter after a 2x2 R -> 2x2 C copy over all ranks.  Each:
#   * off, report and apply give the native digests of B (and A, W1);
#   * report: the plan has scope world, complete 1, lists the subgrids and
#     relabels B to 1 2 3 (with the world pair: 2x2 C to 0 1 2 3 too),
#     bytes_app = the bytes the report says were sent > 0, bytes_plan 0;
#   * apply: 0 bytes sent (the plan's prediction), B created 1 2 3, one
#     log line per changed grid, no warning;
#   * off: no relabel line or warning, B's map and bytes unchanged.
# Then: a plan of the gridmap variant used for the sub-communicator one is
# ignored with exactly one warning, found on rank 1 and printed by rank 0,
# no grid changed; with MPI_Init hidden from the shim (noinit_preload) the
# plan falls back to rank 0's view: scope rank0, only the world grids, and
# apply relabels only those.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/relabel_sub
yield=$BUILD_DIR/t/lib/yield_preload.so
noinit=$BUILD_DIR/t/lib/noinit_preload.so
cs_need_files "$app" "$yield" "$noinit" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
cd "$CS_OUT" || exit 1
export OMP_NUM_THREADS=1
unset LD_PRELOAD COSTA_SHIM_RELABEL COSTA_SHIM_RELABEL_PLAN COSTA_SHIM_STATS
fails=0

# same_dig REF NAME: the digests of run NAME equal those of run REF
same_dig() {
    if cmp -s <(grep 'digest ' "$1/out") <(grep 'digest ' "$2/out"); then
        cs_report ok "$2: digests identical to the native run"
    else
        cs_report FAIL "$2: digests differ from the native run"
    fi
}

shim_env=(COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=.
          COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0)
base=(--n 600 --a 50x50 --b 50x50 --calls 4)

# variant NAME NGRIDS 'GRID LINE'... -- APP ARGS: the four runs and checks
variant() {
    local v=$1 ng=$2
    shift 2
    local want=()
    while [ "$1" != -- ]; do want+=("$1"); shift; done
    shift
    local args=("${base[@]}" "$@") plan=$CS_OUT/plan_$v.txt
    cs_run_in "native_$v" 4 "$yield" -- "$app" "${args[@]}" || return
    for mode in off report apply; do
        cs_run_in "${mode}_$v" 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
            COSTA_SHIM_RELABEL=$mode COSTA_SHIM_RELABEL_PLAN="$plan" -- \
            "$app" "${args[@]}" || return
        same_dig "native_$v" "${mode}_$v"
    done

    local sent b_app b_plan ok=1 line
    sent=$(cs_engine_bytes_sent "report_$v")
    b_app=$(sed -n 's/^bytes_app //p' "$plan")
    b_plan=$(sed -n 's/^bytes_plan //p' "$plan")
    grep -qx 'scope world' "$plan" && grep -qx 'complete 1' "$plan" &&
        grep -qx "grids $ng" "$plan" && [ "$b_plan" = 0 ] &&
        [ -n "$b_app" ] && [ "$b_app" = "$sent" ] && [ "$sent" -gt 0 ] &&
        [ "$(tail -n 1 "$plan")" = end ] || ok=0
    for line in "${want[@]}"; do
        grep -qE "^grid [0-9]+ $line\$" "$plan" || ok=0
    done
    if [ "$ok" = 1 ]; then
        cs_report ok "report_$v: scope world, subgrids listed, B relabeled, bytes $sent -> 0"
    else
        cs_report FAIL "report_$v: unexpected plan (report sent $sent):"
        sed 's/^/      | /' "$plan" | head -n 25
    fi

    local a_sent n w msg
    a_sent=$(cs_engine_bytes_sent "apply_$v")
    n=$(grep -c 'grid #[0-9]* (1x3, order M) created with the planned' \
        "apply_$v/err")
    w=$(grep -c 'warning' "apply_$v/err")
    if [ "$a_sent" = "$b_plan" ] && [ "$n" -eq 1 ] && [ "$w" -eq 0 ] &&
            [ "$(grep '^mapB' "apply_$v/out")" = "mapB 1 2 3" ]; then
        msg="B created 1 2 3, bytes sent $a_sent (planned $b_plan, off:"
        msg+=" $(cs_engine_bytes_sent "off_$v")), one log line, no warning"
        cs_report ok "apply_$v: $msg"
    else
        msg="sent $a_sent (planned $b_plan), $n log lines, $w warnings,"
        msg+=" $(grep '^mapB' "apply_$v/out"):"
        cs_report FAIL "apply_$v: $msg"
        grep -e 'relabel:' -e warning "apply_$v/err" | sed 's/^/      | /' |
            head -n 10
    fi

    if ! grep -q -e "relabel:" -e warning "off_$v/err" &&
            [ "$(grep '^mapB' "off_$v/out")" = "mapB 3 1 2" ] &&
            [ "$(cs_engine_bytes_sent "off_$v")" = "$sent" ]; then
        cs_report ok "off_$v: no relabel output, map and bytes unchanged"
    else
        cs_report FAIL "off_$v: output, other map or other bytes"
    fi
}

variant gridmap 2 '1x3 M 1 2 3 -> 1 2 3' '1x3 M 3 1 2 -> 1 2 3' -- \
    --sys world
variant subcomm 2 '1x3 R 1 2 3 -> 1 2 3' '1x3 M 3 1 2 -> 1 2 3' -- \
    --sys sub
variant both 4 '2x2 R 0 1 2 3 -> 0 1 2 3' '2x2 C 0 2 1 3 -> 0 1 2 3' \
    '1x3 R 1 2 3 -> 1 2 3' '1x3 M 3 1 2 -> 1 2 3' -- --sys sub --world
if [ "$(grep -c 'created with the planned' apply_both/err)" -eq 2 ]; then
    cs_report ok "apply_both: both relabeled grids logged"
else
    cs_report FAIL "apply_both: expected 2 change lines"
fi

# ---- a plan that does not match: one warning, from rank 0, found on 1
if cs_run_in mismatch 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
        COSTA_SHIM_RELABEL=apply \
        COSTA_SHIM_RELABEL_PLAN="$CS_OUT/plan_gridmap.txt" -- \
        "$app" "${base[@]}" --sys sub; then
    same_dig native_subcomm mismatch
    w=$(grep -c 'warning' mismatch/err)
    c=$(grep -c 'created with the planned' mismatch/err)
    pat='^costa-shim\[0\]: warning: relabel: .*does not match this run: '
    pat+='grid #0 \(1x3 order R, world ranks 1 2 3\) is not among the 2 '
    pat+='grids it lists.*\(found on world rank 1\)$'
    if [ "$w" -eq 1 ] && grep -qE "$pat" mismatch/err &&
            [ "$c" -eq 0 ] &&
            [ "$(grep '^mapB' mismatch/out)" = "mapB 3 1 2" ]; then
        cs_report ok "mismatch: one warning by rank 0 (found on rank 1)"
    else
        cs_report FAIL "mismatch: $w warnings, $c grids changed; stderr:"
        grep 'relabel' mismatch/err | sed 's/^/      | /' | head -n 10
    fi
fi

# ---- MPI_Init hidden from the shim: rank 0's view
rplan=$CS_OUT/plan_rank0.txt
if cs_run_in report_rank0 4 "$noinit:$CS_PRELOAD:$yield" \
        COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_RELABEL=report COSTA_SHIM_RELABEL_PLAN="$rplan" -- \
        "$app" "${base[@]}" --sys sub --world &&
        cs_run_in apply_rank0 4 "$noinit:$CS_PRELOAD:$yield" \
        COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN="$rplan" -- \
        "$app" "${base[@]}" --sys sub --world; then
    same_dig native_both report_rank0
    same_dig native_both apply_rank0
    if grep -qx 'scope rank0' "$rplan" && grep -qx 'grids 2' "$rplan" &&
            grep -qx 'grid 1 2x2 C 0 2 1 3 -> 0 1 2 3' "$rplan" &&
            grep -q "plan written to .*(rank 0's view only" \
                report_rank0/err; then
        cs_report ok "report_rank0: scope rank0, only the world grids, said so"
    else
        cs_report FAIL "report_rank0: unexpected plan or message:"
        sed 's/^/      | /' "$rplan" | head -n 20
    fi
    if [ "$(grep '^mapB' apply_rank0/out)" = "mapB 3 1 2" ] &&
            [ "$(grep '^mapW1' apply_rank0/out)" = "mapW1 0 1 2 3" ] &&
            [ "$(grep -c 'created with the planned' apply_rank0/err)" -eq 1 ] &&
            ! grep -q warning apply_rank0/err; then
        cs_report ok "apply_rank0: only the world grid W1 relabeled, no warning"
    else
        cs_report FAIL "apply_rank0: maps or messages differ:"
        grep -E '^map' apply_rank0/out | sed 's/^/      | /'
        grep relabel apply_rank0/err | sed 's/^/      | /' | head -n 5
    fi
fi

echo
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "62_relabel_subgrid: OK"
