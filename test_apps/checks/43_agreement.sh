#!/usr/bin/env bash
# test_apps/checks/43_agreement.sh - one rank that cannot do its part of a
# call never hangs, aborts or misleads the others: every local failure is
# agreed on before the collective that needs it (shim/shim_decide_int.h).
#
#   1. COSTA_SHIM_TEST_FAULT=<step> with _RANK=1 (and 0 for some steps):
#      that rank's allocation fails at the step: the context's private
#      communicator (blacs), the shared send buffer's window (window, with
#      COSTA_SHIM_SHM=eager and _SHM_MIN=0 so that it is made), the
#      engine's reservation (workspace), the plan (plan), p?gemr2d's table
#      (table), COSTA_SHIM_VERIFY's copy (verify).  gemr2d_sweep and
#      tran_sweep on 2 ranks: each run ends within its timeout with exit 0
#      and the native digests, and its report says what happened: blacs,
#      workspace, plan: no byte on the failing rank's engine, calls
#      fallback/memory (calls on grids without that rank may still run on
#      the engine; gemr2d_sweep's all include it); table: no p?gemr2d or
#      p?trmr2d call on the engine, tran calls still there; window and
#      verify: calls on the engine; verify: fewer calls checked than the
#      engine ran (a call whose copy failed is checked nowhere).
#      (Before, a failure here hung the job or stopped it: shim_blacs.c
#      returned before its MPI_Allgather, engine/shm.c freed the window
#      on one rank, the table's allocation and VERIFY's copy were fatal.)
#      The same for p?gemm's engine path (gemm_sweep, COSTA_SHIM_GEMM=
#      force): blacs, plan (rank 1 and 0), workspace: no byte on the
#      failing rank's engine, calls fallback/memory; digest (every
#      argument digest equal on every rank, so the identity cannot tell
#      them apart): still right, calls on the engine.
#   2. Uneven caps with the shared buffer eager: uneven_cap on 2 ranks
#      (pdtrmr2d_ 700 x 700 twice, pdtran_ 800 x 800, pdtrmr2d_ twice),
#      rank 1 under COSTA_SHIM_MAX_MEMORY=4500k (its engine calls fit: a
#      workspace of 4 MiB, two huge pages, and small plans; the 1.4 MiB
#      buffer on top would not), rank 0 without: exit 0, every element
#      right, every call on the engine, and what the shim held on rank 1
#      (the JSON's ranks[1].mem_peak_bytes) never above its cap.  (Before,
#      rank 0's wish grew the buffer on rank 1 too: it held 5.6 MB under
#      its 4.5 MB cap and sent its next calls to ScaLAPACK; a cached call
#      with nothing to reserve stopped the job: "the engine could not
#      prepare a call it had prepared before".  And the admission counted
#      a growing workspace without its huge-page rounding: 2.2 MB admitted
#      where 4 MiB were mapped.)
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT, CS_TOP,
# PYTHON.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
sca=$BUILD_DIR/t/scalapack
cs_need_files "$sca/gemr2d_sweep" "$sca/tran_sweep" "$sca/uneven_cap" \
    "$sca/gemm_sweep" \
    "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
fails=0

# each run: cs_launch2 (checks_lib.sh), 120 s at most
export CS_LAUNCH_TIMEOUT=120

# facts DIR RANK: "engine rank_bytes memory checked redist_engine" from
# the report of DIR (COSTA_SHIM_STATS=full): calls on the engine, bytes
# RANK's engine moved, calls fallback/memory, calls verified, p?gemr2d and
# p?trmr2d calls on the engine
facts() {
    "$PYTHON" - "$1" "$2" <<'EOF'
import glob, json, os, re, sys
rep = json.load(open(glob.glob(os.path.join(sys.argv[1], "stats",
                                            "costa_shim.*.json"))[0]))
rank = int(sys.argv[2])
eng = sum(r["calls"] for r in rep["routines"] if r["path"] == "engine")
mem = sum(r["calls"] for r in rep["routines"] if r["reason"] == "memory")
redist = sum(r["calls"] for r in rep["routines"] if r["path"] == "engine"
             and re.search("(ge|tr)mr2d", r["routine"]))
r1 = [k for k in rep["ranks"] if k["rank"] == rank][0]["routines"]
moved = sum(r["bytes_sent"] + r["bytes_self"] + r["bytes_recv"]
            for r in r1 if r["path"] == "engine")
ver = (rep["meta"].get("verify") or {}).get("calls", 0)
print(eng, moved, mem, ver, redist)
EOF
}

for prog in gemr2d_sweep tran_sweep; do
    cs_launch2 "$CS_OUT/$prog.native" "" -- "$sca/$prog" --seed 43 --count 40 \
        --digest dig
done

# 1. a fault at each step
for spec in blacs:1 blacs:0 window:1 workspace:1 plan:0 table:1 table:0 \
            verify:1; do
    step=${spec%:*} rank=${spec#*:}
    for prog in gemr2d_sweep tran_sweep; do
        d=$CS_OUT/$step.$rank.$prog
        extra=()
        [ "$step" = verify ] && extra=(COSTA_SHIM_VERIFY=1)
        cs_launch2 "$d" "$CS_PRELOAD" COSTA_SHIM_TEST_FAULT="$step" \
            COSTA_SHIM_TEST_FAULT_RANK="$rank" COSTA_SHIM_SHM=eager \
            COSTA_SHIM_SHM_MIN=0 COSTA_SHIM_MIN_ELEMS=0 \
            COSTA_SHIM_STATS=full "${extra[@]}" -- \
            "$sca/$prog" --seed 43 --count 40 --digest dig
        rc=$?
        n=$CS_OUT/$prog.native
        same=0
        cmp -s "$n/dig.0" "$d/dig.0" && cmp -s "$n/dig.1" "$d/dig.1" && same=1
        read -r eng moved mem ver redist <<< "$(facts "$d" "$rank" 2>&1)"
        case $step in
            blacs) want="[ ${mem:-0} -gt 0 ] && [ ${moved:-1} = 0 ] &&
                         { [ $prog = tran_sweep ] || [ ${eng:-1} = 0 ]; }" ;;
            table) want="[ ${redist:-1} = 0 ] && [ ${mem:-0} -gt 0 ] &&
                         { [ $prog = gemr2d_sweep ] || [ ${eng:-0} -gt 0 ]; }" ;;
            workspace | plan)
                want="[ ${mem:-0} -gt 0 ] && [ ${moved:-1} = 0 ]" ;;
            window) want="[ ${eng:-0} -gt 0 ]" ;;
            verify) want="[ ${eng:-0} -gt 0 ] && [ ${ver:-0} -gt 0 ] &&
                          [ ${ver:-0} -lt \$((2 * eng)) ]" ;;
        esac
        if [ "$rc" -eq 0 ] && [ "$same" = 1 ] && eval "$want"; then
            cs_report ok "$prog, $step fails on rank $rank: exit 0, native digests, engine $eng calls, memory $mem, rank $rank engine bytes $moved, verified $ver"
        else
            cs_report FAIL "$prog, $step fails on rank $rank: exit $rc, same digests $same, engine [$eng] memory [$mem] rank-$rank bytes [$moved] verified [$ver] redist [$redist]"
            tail -n 4 "$d/err" | sed 's/^/      | /'
        fi
    done
done

# 1b. p?gemm (COSTA_SHIM_GEMM=force): a fault on rank 1 or 0 at each step
# its engine path has (the context's communicator, the plan, the
# workspace, every digest equal); every call is checked against its error
# bound by gemm_sweep itself, so no digests are compared
for spec in blacs:1 plan:1 plan:0 workspace:1 digest:1; do
    step=${spec%:*} rank=${spec#*:}
    d=$CS_OUT/gemm.$step.$rank
    cs_launch2 "$d" "$CS_PRELOAD" COSTA_SHIM_TEST_FAULT="$step" \
        COSTA_SHIM_TEST_FAULT_RANK="$rank" COSTA_SHIM_GEMM=force \
        COSTA_SHIM_STATS=full -- "$sca/gemm_sweep" --seed 43 --count 60
    rc=$?
    read -r eng moved mem ver redist <<< "$(facts "$d" "$rank" 2>&1)"
    case $step in
        digest) want="[ ${eng:-0} -gt 0 ]" ;;
        *) want="[ ${mem:-0} -gt 0 ] && [ ${moved:-1} = 0 ]" ;;
    esac
    if [ "$rc" -eq 0 ] && grep -qx 'cs_test: OK' "$d/out" && eval "$want"; then
        cs_report ok "gemm_sweep, $step fails on rank $rank: exit 0, C within its bound, engine $eng calls, memory $mem, rank $rank engine bytes $moved"
    else
        cs_report FAIL "gemm_sweep, $step fails on rank $rank: exit $rc, engine [$eng] memory [$mem] rank-$rank bytes [$moved]"
        tail -n 4 "$d/err" | sed 's/^/      | /'
    fi
done

# 2. uneven caps, the shared buffer eager
d=$CS_OUT/uneven
mkdir -p "$d/stats"
common=(COSTA_SHIM_SHM=eager COSTA_SHIM_STATS=summary
        COSTA_SHIM_STATS_DIR="$d/stats" COSTA_SHIM_LOG_LEVEL=info)
rc=0
timeout -k 5 120 "$MPIEXEC" -n 1 env LD_PRELOAD="$CS_PRELOAD" "${common[@]}" \
    "$sca/uneven_cap" --n 800 --nr 700 : -n 1 env LD_PRELOAD="$CS_PRELOAD" \
    "${common[@]}" COSTA_SHIM_MAX_MEMORY=4500k "$sca/uneven_cap" --n 800 \
    --nr 700 > "$d/out" 2> "$d/err" || rc=$?
calls=$(awk '$1 == "calls" { print $2 }' "$d/out")
held=$("$PYTHON" - "$d/stats" <<'EOF'
import glob, json, os, sys
rep = json.load(open(glob.glob(os.path.join(sys.argv[1], "*.json"))[0]))
r1 = [k for k in rep["ranks"] if k["rank"] == 1][0]
print(r1["mem_peak_bytes"], r1["mem_cap_bytes"])
EOF
)
read -r peak cap <<< "$held"
if [ "$rc" -eq 0 ] && grep -qx 'cs_test: OK' "$d/out" &&
   [ "$cap" = 4608000 ] && [ "${peak:-99999999}" -le "$cap" ] &&
   "$PYTHON" "$CS_TOP/test_apps/lib/check_stats.py" "$d/stats" \
       --expect-engine-calls "${calls:-0}" --no-fallback > "$d/stats.txt" 2>&1
then
    cs_report ok "uneven caps (rank 1 4500k), shared buffer eager: exit 0, C right, $calls calls on the engine, rank 1 held at most $peak bytes"
else
    cs_report FAIL "uneven caps (rank 1 4500k), shared buffer eager: exit $rc, rank 1 held [$held] (peak, cap)"
    tail -n 4 "$d/err" "$d/stats.txt" | sed 's/^/      | /'
fi

exit $((fails > 0))
