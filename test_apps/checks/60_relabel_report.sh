#!/usr/bin/env bash
# test_apps/checks/60_relabel_report.sh - COSTA_SHIM_RELABEL=report
# (docs/relabel.md).
#   * permuted-layout case: relabel_demo on 4 ranks copies a matrix from a
#     2x2 row-major grid to a 2x2 column-major grid with the same blocks, so
#     relabeling the target grid keeps every byte local: the trace line
#     says relabel_gain:100.0%, the per-shape log line gain 100.0%, the
#     report's shape row relabel_best_bytes 0, and the plan written at
#     MPI_Finalize relabels grid #1 to row-major with bytes_plan 0 and
#     bytes_app equal to the bytes the report says were sent;
#   * the same through the Fortran BLACS interface (blacs_gridinit_): the
#     same plan;
#   * results (per-position digests of B) identical to the native run;
#   * a new shape's memory claim refused (COSTA_SHIM_TEST_FAULT=relabel)
#     on rank 1, then on rank 0 (the keeper): B identical to the native
#     run, one warning from that rank, the other ranks' trace lines and
#     the report's shape numbers unchanged; the plan identical (rank 1)
#     or marked incomplete (rank 0);
#   * robustness: the randomized gemr2d sweep (gridinit R/C, gridmap with
#     LDU, grids on sub-communicators, alias contexts, processes in neither
#     grid) in report mode gives the native digests and writes a plan.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
demo=$BUILD_DIR/t/scalapack/relabel_demo
sweep=$BUILD_DIR/t/scalapack/gemr2d_sweep
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$demo" "$sweep" "$yield" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
cd "$CS_OUT" || exit 1
export OMP_NUM_THREADS=1
unset LD_PRELOAD COSTA_SHIM_RELABEL COSTA_SHIM_RELABEL_PLAN COSTA_SHIM_STATS
fails=0

# json_field DIR EXPR: evaluate EXPR on the report of DIR (r = the JSON)
json_field() {
    "$PYTHON" - "$1" "$2" <<'EOF'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/costa_shim.*.json")
if len(files) != 1:
    print("no-report")
    sys.exit(0)
r = json.load(open(files[0]))
print(eval(sys.argv[2]))
EOF
}

sent_expr='sum(x["bytes_sent"] for x in r["routines"] if x["path"] == "engine")'

# shape_one_cross DIR LABEL: the run's report has one shape whose crossing
# bytes are all the engine sent and which a relabeled B would not send.
# Leaves the bytes the engine sent in $sent (the plan checks use them).
shape_one_cross() {
    local best cross
    best=$(json_field "$1" '[s.get("relabel_best_bytes") for s in r["shapes"]]')
    cross=$(json_field "$1" '[s.get("relabel_cross_bytes") for s in r["shapes"]]')
    sent=$(json_field "$1" "$sent_expr")
    if [ "$best" = "[0]" ] && [ "$cross" = "[$sent]" ] && [ "$sent" -gt 0 ]; then
        cs_report ok "$2: report shape: $sent bytes crossing, 0 relabeled"
    else
        cs_report FAIL "$2: report shape relabel_cross_bytes $cross best $best, sent $sent"
    fi
}
args=(--n 1000 --a 64x64 --b 64x64 --order C --calls 3)

# ---- native reference
cs_run_in native 4 "$yield" -- "$demo" "${args[@]}" || exit 1
grep '^digest' native/out > native.dig

# ---- permuted layout, C and Fortran interface
for v in c fortran; do
    extra=()
    [ "$v" = fortran ] && extra=(--fortran)
    if ! cs_run_in "report_$v" 4 "$CS_PRELOAD:$yield" COSTA_SHIM_RELABEL=report \
            COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_RANKS=all \
            COSTA_SHIM_LOG_LEVEL=info COSTA_SHIM_STATS=summary \
            COSTA_SHIM_STATS_DIR=. COSTA_SHIM_RELABEL_PLAN=plan.txt \
            COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 \
            -- "$demo" "${args[@]}" "${extra[@]}"; then
        continue
    fi
    d=report_$v
    if cmp -s native.dig <(grep '^digest' "$d/out"); then
        cs_report ok "$v: B identical to the native run"
    else
        cs_report FAIL "$v: B differs from the native run"
    fi
    n=$(grep -c 'COSTA_SHIM .*pdgemr2d_' "$d/err")
    g=$(grep -c 'COSTA_SHIM .*pdgemr2d_.* relabel_gain:100\.0%' "$d/err")
    if [ "$n" -eq 12 ] && [ "$g" -eq 12 ]; then
        cs_report ok "$v: 12 trace lines, all relabel_gain:100.0%"
    else
        cs_report FAIL "$v: $g of $n trace lines (12 expected) with relabel_gain:100.0%"
        grep -m 2 'COSTA_SHIM ' "$d/err" | sed 's/^/      | /'
    fi
    if grep -q 'info: relabel: shape 1 pdgemr2d 1000x1000 A grid #0 2x2/64x64 -> B grid #1 2x2/64x64: .* (gain 100\.0%)' "$d/err"; then
        cs_report ok "$v: per-shape log line with gain 100.0%"
    else
        cs_report FAIL "$v: no per-shape log line with gain 100.0%"
    fi
    shape_one_cross "$d" "$v"
    p=$d/plan.txt
    if [ -f "$p" ] && grep -qx 'grids 2' "$p" && grep -qx 'complete 1' "$p" &&
            grep -qx 'processes 4' "$p" && grep -qx 'bytes_plan 0' "$p" &&
            grep -qx "bytes_app $sent" "$p" &&
            grep -qx 'grid 0 2x2 R 0 1 2 3 -> 0 1 2 3' "$p" &&
            grep -qx 'grid 1 2x2 C 0 2 1 3 -> 0 1 2 3' "$p" &&
            [ "$(tail -n 1 "$p")" = end ]; then
        cs_report ok "$v: plan relabels grid #1 to row-major, bytes $sent -> 0"
    else
        cs_report FAIL "$v: unexpected plan:"
        sed 's/^/      | /' "$p" 2> /dev/null | head -n 20
    fi
    if grep -q "relabel: plan written to plan.txt: 2 grids, 1 relabeled" "$d/err"; then
        cs_report ok "$v: rank 0 says where the plan went"
    else
        cs_report FAIL "$v: no 'plan written' line"
    fi
done

# ---- the memory claim of a new shape refused (COSTA_SHIM_TEST_FAULT=relabel,
# as above COSTA_SHIM_MAX_MEMORY): on rank 1 the plan and the report stay
# those of the run above (rank 0, the keeper, computes them); on rank 0
# the plan says it is incomplete.  Either way B is the native B, and the
# rank says so once.
for fr in 1 0; do
    d=fault_$fr
    cs_run_in "$d" 4 "$CS_PRELOAD:$yield" COSTA_SHIM_RELABEL=report \
        COSTA_SHIM_VERBOSE=1 COSTA_SHIM_LOG_RANKS=all \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=. \
        COSTA_SHIM_RELABEL_PLAN=plan.txt COSTA_SHIM_FALLBACK=never \
        COSTA_SHIM_MIN_ELEMS=0 COSTA_SHIM_TEST_FAULT=relabel \
        COSTA_SHIM_TEST_FAULT_RANK=$fr -- "$demo" "${args[@]}" || continue
    if cmp -s native.dig <(grep '^digest' "$d/out"); then
        cs_report ok "fault on rank $fr: B identical to the native run"
    else
        cs_report FAIL "fault on rank $fr: B differs from the native run"
    fi
    msg='relabel: pdgemr2d 1000x1000 on 4 processes not evaluated: '
    msg+='.* COSTA_SHIM_MAX_MEMORY'
    w=$(grep -c "costa-shim\\[$fr\\]: .*$msg" "$d/err")
    wall=$(grep -c 'relabel: .* not evaluated' "$d/err")
    if [ "$w" -eq 1 ] && [ "$wall" -eq 1 ]; then
        cs_report ok "fault on rank $fr: one warning, from rank $fr"
    else
        cs_report FAIL "fault on rank $fr: $w warnings from rank $fr, $wall in all (1 expected)"
        grep -m 3 'relabel' "$d/err" | sed 's/^/      | /'
    fi
    g=$(grep -c 'COSTA_SHIM .*pdgemr2d_.* relabel_gain:100\.0%' "$d/err")
    if [ "$g" -eq 9 ]; then
        cs_report ok "fault on rank $fr: 9 of 12 trace lines with relabel_gain (not rank $fr's)"
    else
        cs_report FAIL "fault on rank $fr: $g trace lines with relabel_gain (9 expected)"
    fi
    shape_one_cross "$d" "fault on rank $fr"
    if [ "$fr" = 1 ]; then
        if cmp -s report_c/plan.txt "$d/plan.txt"; then
            cs_report ok "fault on rank 1: the same plan"
        else
            cs_report FAIL "fault on rank 1: the plan differs"
            diff report_c/plan.txt "$d/plan.txt" | head -n 10 | sed 's/^/      | /'
        fi
    elif grep -qx 'complete 0' "$d/plan.txt" 2> /dev/null &&
            grep -q 'relabel: plan written to plan.txt: .*(incomplete' "$d/err"; then
        cs_report ok "fault on rank 0: the plan says it is incomplete"
    else
        cs_report FAIL "fault on rank 0: the plan does not say it is incomplete"
        sed 's/^/      | /' "$d/plan.txt" 2> /dev/null | head -n 12
    fi
done

# ---- robustness: the sweep's grids in report mode
seed=20250101
for np in 3 4; do
    mkdir -p "sweep_native.$np" "sweep_report.$np"
    ok=1
    cs_run_in "sweep_native.$np" "$np" "$yield" -- "$sweep" --seed "$seed" \
        --count 120 --digest dig || ok=0
    cs_run_in "sweep_report.$np" "$np" "$CS_PRELOAD:$yield" COSTA_SHIM_RELABEL=report \
        COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0 -- "$sweep" \
        --seed "$seed" --count 120 --digest dig || ok=0
    [ "$ok" = 1 ] || continue
    if cmp -s <(cat "sweep_native.$np"/dig.* | sort) \
              <(cat "sweep_report.$np"/dig.* | sort); then
        cs_report ok "sweep P=$np in report mode: digests identical to native"
    else
        cs_report FAIL "sweep P=$np in report mode: digests differ"
    fi
    p=sweep_report.$np/costa_shim.relabel.plan
    if [ -f "$p" ] && [ "$(tail -n 1 "$p")" = end ] &&
            [ "$(grep -c '^grid ' "$p")" -ge 100 ]; then
        cs_report ok "sweep P=$np: plan with $(grep -c '^grid ' "$p") grids"
    else
        cs_report FAIL "sweep P=$np: no usable plan"
    fi
done

echo
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "60_relabel_report: OK"
