#!/usr/bin/env bash
# test_apps/checks/61_relabel_apply.sh - COSTA_SHIM_RELABEL=apply
# (docs/relabel.md).  relabel_demo on 4 ranks copies a 1000 x 1000 matrix
# from a 2x2 row-major grid with 250x250 blocks to a 2x2 column-major grid
# with 256x256 blocks (a process permutation and another block size).
#   * report run: writes the plan (grid #1 relabeled, bytes_app > bytes_plan
#     > 0; bytes_app equal to the bytes its report says were sent);
#   * apply run (C and Fortran BLACS interfaces): one log line for the grid
#     it changed, B identical position by position to the native run (the
#     program addresses processes by grid coordinates), the bytes sent from
#     its report equal the plan's predicted bytes_plan, and the grid's map
#     as the program sees it is the planned one;
#   * the plan from factored pairs (COSTA_SHIM_TEST_FAULT=relabel_dense:
#     the keeper keeps the shape's factors instead of its position matrix,
#     as for grids too large for one): complete, grid #1 relabeled, and
#     its apply run sends the bytes it predicts, B identical;
#   * the same for a grid B made with Cblacs_gridmap (processes reversed);
#   * a plan that does not match the run (one more grid, other process
#     count, missing file) is ignored with exactly one warning, no grid is
#     changed, results identical;
#   * COSTA_SHIM_RELABEL=off with a plan set: nothing printed, map unchanged.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
demo=$BUILD_DIR/t/scalapack/relabel_demo
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$demo" "$yield" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
cd "$CS_OUT" || exit 1
export OMP_NUM_THREADS=1
unset LD_PRELOAD COSTA_SHIM_RELABEL COSTA_SHIM_RELABEL_PLAN COSTA_SHIM_STATS
fails=0

# same_b NAME: B of run NAME equals the native B, position by position
same_b() {
    if cmp -s native.dig <(grep '^digest' "$1/out"); then
        cs_report ok "$1: B identical to the native run"
    else
        cs_report FAIL "$1: B differs from the native run"
    fi
}

shim_env=(COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=.
          COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0)
args=(--n 1000 --a 250x250 --b 256x256 --order C --calls 3)
plan=$CS_OUT/plan.txt

cs_run_in native 4 "$yield" -- "$demo" "${args[@]}" || exit 1
grep '^digest' native/out > native.dig
app_map=$(grep '^mapB' native/out)

# ---- report: the plan
cs_run_in report 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" COSTA_SHIM_RELABEL=report \
    COSTA_SHIM_RELABEL_PLAN="$plan" -- "$demo" "${args[@]}" || exit 1
same_b report
b_app=$(sed -n 's/^bytes_app //p' "$plan")
b_plan=$(sed -n 's/^bytes_plan //p' "$plan")
sent_report=$(cs_engine_bytes_sent report)
planned=$(sed -n 's/^grid 1 2x2 C 0 2 1 3 -> //p' "$plan")
if [ -n "$b_app" ] && [ -n "$b_plan" ] && [ "$b_app" = "$sent_report" ] &&
        [ "$b_plan" -gt 0 ] && [ "$b_plan" -lt "$b_app" ] &&
        [ -n "$planned" ] && [ "$planned" != "0 2 1 3" ]; then
    cs_report ok "report: plan relabels grid #1 to '$planned', predicted bytes $b_app -> $b_plan"
else
    cs_report FAIL "report: unexpected plan (report sent $sent_report):"
    sed 's/^/      | /' "$plan" | head -n 20
fi

# ---- apply, C and Fortran interfaces
for v in c fortran; do
    extra=()
    [ "$v" = fortran ] && extra=(--fortran)
    d=apply_$v
    cs_run_in "$d" 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" COSTA_SHIM_RELABEL=apply \
        COSTA_SHIM_RELABEL_PLAN="$plan" -- "$demo" "${args[@]}" \
        "${extra[@]}" || continue
    same_b "$d"
    sent=$(cs_engine_bytes_sent "$d")
    if [ "$sent" = "$b_plan" ]; then
        cs_report ok "$d: bytes sent $sent = the plan's prediction (report run: $sent_report)"
    else
        cs_report FAIL "$d: bytes sent $sent, the plan predicted $b_plan"
    fi
    n=$(grep -c 'relabel: grid #1 (2x2, order C) created with the planned process map' "$d/err")
    w=$(grep -c 'warning' "$d/err")
    if [ "$n" -eq 1 ] && [ "$w" -eq 0 ]; then
        cs_report ok "$d: one log line for the changed grid, no warning"
    else
        cs_report FAIL "$d: $n change lines, $w warnings:"
        sed 's/^/      | /' "$d/err" | head -n 10
    fi
    if [ "$(grep '^mapB' "$d/out")" = "mapB $planned" ]; then
        cs_report ok "$d: the program sees grid B with the planned map"
    else
        cs_report FAIL "$d: grid B map '$(grep '^mapB' "$d/out")', planned '$planned'"
    fi
done

# ---- the plan from factored pairs: the keeper (rank 0) refused the
# position matrix (COSTA_SHIM_TEST_FAULT=relabel_dense), as for grids too
# large for one, and kept the shape's factors instead
fplan=$CS_OUT/plan_terms.txt
if cs_run_in report_terms 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
        COSTA_SHIM_RELABEL=report COSTA_SHIM_RELABEL_PLAN="$fplan" \
        COSTA_SHIM_TEST_FAULT=relabel_dense -- "$demo" "${args[@]}" &&
        cs_run_in apply_terms 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
            COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN="$fplan" -- \
            "$demo" "${args[@]}"; then
    fb_app=$(sed -n 's/^bytes_app //p' "$fplan")
    fb_plan=$(sed -n 's/^bytes_plan //p' "$fplan")
    fplanned=$(sed -n 's/^grid 1 2x2 C 0 2 1 3 -> //p' "$fplan")
    if grep -q '^complete 1$' "$fplan" && [ "$fb_app" = "$b_app" ] &&
            [ -n "$fb_plan" ] && [ "$fb_plan" -lt "$fb_app" ] &&
            [ "$(cs_engine_bytes_sent apply_terms)" = "$fb_plan" ] &&
            [ "$(grep '^mapB' apply_terms/out)" = "mapB $fplanned" ] &&
            cmp -s native.dig <(grep '^digest' apply_terms/out); then
        cs_report ok "factored pairs: plan complete, bytes $fb_app -> $fb_plan (from the matrix: $b_plan), applied as planned, B identical"
    else
        cs_report FAIL "factored pairs: plan or its apply run differ (apply sent $(cs_engine_bytes_sent apply_terms)):"
        sed 's/^/      | /' "$fplan" | head -n 20
    fi
fi

# ---- grid B from Cblacs_gridmap, processes reversed
rargs=(--n 1000 --a 250x250 --b 256x256 --order rev --calls 3)
rplan=$CS_OUT/plan_rev.txt
if cs_run_in native_rev 4 "$yield" -- "$demo" "${rargs[@]}" &&
        cs_run_in report_rev 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
            COSTA_SHIM_RELABEL=report COSTA_SHIM_RELABEL_PLAN="$rplan" -- \
            "$demo" "${rargs[@]}" &&
        cs_run_in apply_rev 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
            COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN="$rplan" -- \
            "$demo" "${rargs[@]}"; then
    rb_plan=$(sed -n 's/^bytes_plan //p' "$rplan")
    rplanned=$(sed -n 's/^grid 1 2x2 M 3 2 1 0 -> //p' "$rplan")
    if cmp -s <(grep '^digest' native_rev/out) \
              <(grep '^digest' apply_rev/out) &&
            [ "$(cs_engine_bytes_sent apply_rev)" = "$rb_plan" ] &&
            [ "$rb_plan" -lt "$(cs_engine_bytes_sent report_rev)" ] &&
            [ "$(grep '^mapB' apply_rev/out)" = "mapB $rplanned" ] &&
            grep -q 'grid #1 (2x2, order M) created with the planned' \
                apply_rev/err; then
        cs_report ok "gridmap: B identical, bytes $(cs_engine_bytes_sent report_rev) -> $rb_plan as planned, map '$rplanned'"
    else
        cs_report FAIL "gridmap: B, bytes or map differ from the plan:"
        sed 's/^/      | /' "$rplan" | head -n 20
    fi
fi

# ---- plans that do not match: ignored with one warning
# mismatch NAME NP PATTERN [demo args...]
mismatch() {
    local d=$1 np=$2 pat=$3
    shift 3
    cs_run_in "$d" "$np" "$CS_PRELOAD:$yield" "${shim_env[@]}" \
        COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN="$plan" -- \
        "$demo" "$@" || return
    local w c
    w=$(grep -c 'warning' "$d/err")
    c=$(grep -c 'created with the planned' "$d/err")
    if [ "$w" -eq 1 ] && grep -q "warning: relabel: .*$pat" "$d/err" &&
            [ "$c" -eq 0 ]; then
        cs_report ok "$d: one warning ($pat), no grid changed"
    else
        cs_report FAIL "$d: $w warnings, $c grids changed; stderr:"
        sed 's/^/      | /' "$d/err" | head -n 10
    fi
}
mismatch mismatch_grids 4 "does not match this run: grid #0 (1x4 order R" \
    "${args[@]}" --extra
same_b mismatch_grids
[ "$(grep '^mapB' mismatch_grids/out)" = "$app_map" ] &&
    cs_report ok "mismatch_grids: map unchanged" ||
    cs_report FAIL "mismatch_grids: map changed"
[ "$(cs_engine_bytes_sent mismatch_grids)" = "$b_app" ] &&
    cs_report ok "mismatch_grids: bytes sent as without relabeling" ||
    cs_report FAIL "mismatch_grids: bytes sent $(cs_engine_bytes_sent mismatch_grids), expected $b_app"
mismatch mismatch_procs 2 "made for 4 processes, this run has 2" \
    --n 1000 --a 250x250 --b 256x256 --calls 2
plan_keep=$plan
plan=$CS_OUT/no_such.plan
mismatch missing_plan 4 "cannot be used (cannot read it" "${args[@]}"
same_b missing_plan
plan=$plan_keep

# ---- off: inert even with a plan set
cs_run_in off 4 "$CS_PRELOAD:$yield" COSTA_SHIM_RELABEL_PLAN="$plan" -- "$demo" \
    "${args[@]}" || true
if [ ! -s off/err ] && [ "$(grep '^mapB' off/out)" = "$app_map" ]; then
    cs_report ok "off: no output, map unchanged"
else
    cs_report FAIL "off: output or changed map"
fi

echo
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "61_relabel_apply: OK"
