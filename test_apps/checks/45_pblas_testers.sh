#!/usr/bin/env bash
# test_apps/checks/45_pblas_testers.sh - ScaLAPACK's own testers (Debian's
# scalapack-mpi-test, one build per MPI flavour) natively and under the
# shim with COSTA_SHIM_GEMM=force: every test they make must pass.
#
# ScaLAPACK checks its results with its own residual tests, a judge of
# the engine's p?gemm that owes nothing to this project.  Run from a
# folder holding its input (trimmed copies in data/scalapack_testers/):
#   * the level-3 PBLAS testers ?pb3tst, P?GEMM, P?SYRK and P?HERK only
#     (error exits included, TRANS N/T/C, K = 0, first blocks, RSRC or
#     CSRC = -1), on 2 and 4 ranks (p?syrk and p?herk must also reach the
#     engine at least once);
#   * the LU testers x?lu (s, d, c, z), the symmetric eigensolver testers
#     x?sep (d, z; s, c too with CS_CHECK_FULL=1) and the SVD testers
#     x?svd (s, d), which call p?gemm inside ScaLAPACK, on 2 ranks (2 and
#     4 with CS_CHECK_FULL=1).
# The grids of the inputs are those of 2 ranks; for 4, input() rewrites
# them.  Each tester runs natively and with LD_PRELOAD=$CS_PRELOAD
# COSTA_SHIM_GEMM=force COSTA_SHIM_MIN_ELEMS=0 COSTA_SHIM_STATS=summary;
# both must exit 0 with every test passed (tester_result.py reads their
# summaries), and the shim's report must show at least one p?gemm call
# on the engine path (check_stats.py --min-engine-calls 1).
# CS_GEMM_EXPECT_ENGINE=0 (default 1): the shim does not take p?gemm
# over yet; that last assertion is skipped.  Where this flavour has no
# testers installed the check says so and passes (skips).  Default:
# natively about 20 s on 2 cores.
# Environment (run_checks.sh): CS_MPI, CS_SHIM, CS_PRELOAD, MPIEXEC,
# BUILD_DIR, PYTHON, CS_OUT, CS_CHECK_FULL; CS_SCALAPACK_TESTERS: the
# folder of the testers (default /usr/lib/<arch>/scalapack/<flavour>-tests).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
CS_PRELOAD=${CS_PRELOAD:-$CS_SHIM}
flavour=${CS_MPI:-mpich}
data=$here/data/scalapack_testers
tdir=${CS_SCALAPACK_TESTERS:-}
if [ -z "$tdir" ]; then
    for d in /usr/lib/*/scalapack/"$flavour"-tests; do
        [ -d "$d" ] && tdir=$d
    done
fi
if [ -z "$tdir" ] || [ ! -x "$tdir/xdlu" ] || [ ! -x "$tdir/PBLAS/dpb3tst" ]; then
    echo "skip: no ScaLAPACK testers for $flavour here (Debian package" \
         "scalapack-mpi-test; scripts/install-deps.sh installs it where apt has it)"
    exit 0
fi
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$yield" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)
full=${CS_CHECK_FULL:-0}
expect_engine=${CS_GEMM_EXPECT_ENGINE:-1}
result_py=$here/../lib/tester_result.py
stats_py=$here/../lib/check_stats.py
fails=0
echo "testers: $tdir"

# input DAT NP DIR: data/scalapack_testers/DAT into DIR, its process
# grids made for NP ranks (2: as written; 4: PBLAS and LU get their list
# of grids replaced, SEP and SVD every P doubled: 1x2 -> 2x2, 2x1 -> 4x1)
input() {
    local dat=$1 np=$2 dir=$3
    local f=$dir/$dat
    mkdir -p "$dir"
    cp "$data/$dat" "$f"
    [ "$np" = 2 ] && return 0
    local grids="" ps="" qs=""
    case "$dat" in
        P?BLAS3TST.dat) grids=4 ps="1 2 1 4" qs="2 2 4 1" ;;
        LU.dat) grids=3 ps="2 1 4" qs="2 4 1" ;;
    esac
    awk -v g="$grids" -v p="$ps" -v q="$qs" '
        g != "" && /number of process grids/ {
            print g "\t\tnumber of process grids (ordered pairs of P & Q)"; next }
        g != "" && /values of P[ \t]*$/ { print p "\t\tvalues of P"; next }
        g != "" && /values of Q[ \t]*$/ { print q "\t\tvalues of Q"; next }
        g == "" && /values of P \(NPROW\)/ {
            s = ""
            for (i = 1; i <= NF && $i ~ /^[0-9]+$/; i++)
                s = s (i > 1 ? " " : "") 2 * $i
            print s "\t\t\tvalues of P (NPROW)"; next }
        { print }' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
}

# run_tester KIND BIN DAT NP: BIN (in the testers' folder) with input DAT
# on NP ranks, natively and under the shim; KIND for tester_result.py
run_tester() {
    local kind=$1 bin=$2 dat=$3 np=$4
    local name dir pre="" mode rc t0 bad=() got=() res
    name=$(basename "$bin").np$np
    dir=$CS_OUT/$name
    [ "$np" -gt "$ncores" ] && pre=$yield
    for mode in native shim; do
        input "$dat" "$np" "$dir/$mode"
        local vars=(${pre:+LD_PRELOAD=$pre})
        if [ "$mode" = shim ]; then
            mkdir -p "$dir/shim/stats"
            vars=(LD_PRELOAD="$CS_PRELOAD${pre:+:$pre}" COSTA_SHIM_GEMM=force
                  COSTA_SHIM_MIN_ELEMS=0 COSTA_SHIM_STATS=summary
                  COSTA_SHIM_STATS_DIR=stats)
        fi
        rc=0
        t0=$SECONDS
        (cd "$dir/$mode" && timeout -k 10 300 "$MPIEXEC" -n "$np" \
            env "${vars[@]}" "$tdir/$bin" > out 2> err) || rc=$?
        if [ "$rc" -ne 0 ]; then
            bad+=("$mode run exited $rc")
        elif ! res=$("$PYTHON" "$result_py" "$kind" "$dir/$mode/out"); then
            bad+=("$mode: $(echo "$res" | head -n 3 | tr '\n' ' ')")
        else
            got+=("$mode ${res#*: } in $((SECONDS - t0))s")
        fi
    done
    local expect=()
    [ "$expect_engine" = 1 ] && expect=(--min-engine-calls 1)
    if ! "$PYTHON" "$stats_py" "$dir/shim/stats" \
            --routine-regex '^p[sdcz]gemm_?$' "${expect[@]}" \
            > "$dir/stats.txt" 2>&1; then
        bad+=("shim statistics: $(grep -m1 'FAIL' "$dir/stats.txt")")
    fi
    local eng eng_sym=""
    eng=$(sed -n 's/.*engine calls matching .*: \([0-9]*\),.*/\1/p' "$dir/stats.txt")
    if [ "$kind" = pblas ]; then
        # the testers' P?SYRK and P?HERK, on grids 1 x 2 and 2 x 1
        if ! "$PYTHON" "$stats_py" "$dir/shim/stats" \
                --routine-regex '^p[sdcz](syrk|herk)_?$' "${expect[@]}" \
                > "$dir/stats_sym.txt" 2>&1; then
            bad+=("shim statistics (syrk, herk): $(grep -m1 'FAIL' "$dir/stats_sym.txt")")
        fi
        eng_sym=$(sed -n 's/.*engine calls matching .*: \([0-9]*\),.*/\1/p' "$dir/stats_sym.txt")
        eng_sym=", ${eng_sym:-?} p?syrk/p?herk"
    fi
    if [ "${#bad[@]}" -eq 0 ]; then
        cs_report ok "$name: ${got[0]}, ${got[1]}; ${eng:-?} p?gemm$eng_sym engine calls"
    else
        cs_report FAIL "$name: $(IFS=';'; echo "${bad[*]}")"
        for mode in native shim; do
            grep -i -E 'fail|error|abort|illegal' "$dir/$mode/out" \
                "$dir/$mode/err" 2> /dev/null | grep -v '^@' | head -n 5 |
                sed "s/^/      $mode: /"
        done
    fi
}

for np in 2 4; do
    for t in s d c z; do
        T=$(echo "$t" | tr sdcz SDCZ)
        run_tester pblas "PBLAS/${t}pb3tst" "P${T}BLAS3TST.dat" "$np"
    done
done
nps=2 seps="d z"
[ "$full" = 1 ] && nps="2 4" seps="s d c z"
for np in $nps; do
    for t in s d c z; do
        run_tester lu "x${t}lu" LU.dat "$np"
    done
    for t in $seps; do
        run_tester sep "x${t}sep" SEP.dat "$np"
    done
    for t in s d; do
        run_tester svd "x${t}svd" SVD.dat "$np"
    done
done

[ "$expect_engine" = 1 ] ||
    echo "note: CS_GEMM_EXPECT_ENGINE=$expect_engine: engine calls not required"
if [ "$fails" -ne 0 ]; then
    echo "$fails tester run(s) failed"
    exit 1
fi
echo "every tester passed natively and under the shim"
