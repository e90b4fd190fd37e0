#!/usr/bin/env bash
# test_apps/checks/44_gemm.sh - p?gemm (psgemm_, pdgemm_, pcgemm_, pzgemm_)
# and p?syrk, p?herk (gemm_sweep --sym) natively and under the shim, on
# 1..4 ranks, checked against the error bound of the engine path
# (gemm_sweep).
#
# The shim's engine sums in another order than PBLAS, so the results are
# not compared between runs: each run checks itself (gemm_sweep: sub(C)
# within 2 (K + 2) eps (|alpha| |op(A)| |op(B)| + |beta| |C0|) of a
# long double / double reference, everything else of C, A and B bit for
# bit, guard zones).  For every rank count the same configs run natively
# and with LD_PRELOAD=$CS_PRELOAD COSTA_SHIM_GEMM=force
# COSTA_SHIM_MIN_ELEMS=0 COSTA_SHIM_STATS=summary; both must print
# "cs_test: OK", their "calls" lines must agree, and the shim's JSON
# report must account for every p?gemm call (check_stats.py): engine =
# calls - no_work - local - replicated, none = no_work (M or N = 0),
# fallback native_faster = local (K = 0 or alpha = 0: PBLAS only scales
# sub(C)), fallback unsupported = replicated (an RSRC or CSRC of -1),
# nothing else on a fallback or passthrough path.  One more set of
# configs has a replicated operand in every call it can (--replicated),
# one runs with COSTA_SHIM_GEMM unset (default off: every call
# passthrough, reason gemm_off, none on the engine), two with
# COSTA_SHIM_TEST_GEMM_CHUNK=512 (the inner dimension in many chunks,
# the local products accumulating over them), three with --aligned (inner
# dimensions distributed alike: the engine's direct path on P x 1 and
# 1 x Q grids, A and B not moved; its pieces path by grid lines on
# 2 x 2), and one runs on 2
# emulated nodes of 2 ranks (test_apps/lib/mpiexec_nodes.sh).  The --sym
# runs call p?syrk and p?herk instead: one triangle of sub(C) within the
# bound, the other bit-unchanged, p?herk's diagonal real; the calls with
# K below P Q fall back (unsupported, counted by the sweep as
# calls_declined).  Runs with
# more ranks than cores use yield_preload.so (after the shim).  Before
# all that, gemm_sweep --inject must fail each of its checks once (a
# sweep whose checks cannot fail proves nothing).  Last, two bench_gemm
# runs under COSTA_SHIM_GEMM=on check the measured choice: a product on
# the direct path runs on the engine from its first call, and the same
# p?syrk on a 1 x 2 and then a 2 x 1 grid counts as two shapes.
#
# CS_GEMM_EXPECT_ENGINE=0 (default 1): the shim does not take p?gemm over
# yet; the report assertions are skipped (the runs and their own checks
# still count).  Default: 2670 configs, natively about 20 s on 2 cores
# (each run is cheap: p?gemm of at most 70 x 70 x 70); CS_CHECK_FULL=1
# runs four times as many.
# Environment (run_checks.sh): CS_MPI, CS_SHIM, CS_PRELOAD, MPIEXEC,
# BUILD_DIR, PYTHON, CS_OUT, CS_TOP, CS_CHECK_FULL.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
CS_PRELOAD=${CS_PRELOAD:-$CS_SHIM}
app=$BUILD_DIR/t/scalapack/gemm_sweep
yield=$BUILD_DIR/t/lib/yield_preload.so
bench=$BUILD_DIR/t/bench/bench_gemm
cs_need_files "$app" "$yield" "$bench" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)
mult=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && mult=4
expect_engine=${CS_GEMM_EXPECT_ENGINE:-1}
stats_py=$here/../lib/check_stats.py
# p?gemm in every spelling the report may use (ROUTINE_RE: the --sym runs')
gemm_re='^p[sdcz]gemm_?$'
sym_re='^p[sdcz](syrk|herk)_?$'
fails=0
total_cfg=0

# the checks can fail: one deliberate corruption of each kind
for w in c o a b g c-sym o-sym; do
    d=$CS_OUT/inject-$w
    mkdir -p "$d"
    rc=0
    sym=()
    [ "${w#*-}" = sym ] && sym=(--sym)
    timeout -k 10 120 "$MPIEXEC" -n 2 "$app" --seed 4400 --count 10 \
        --inject "${w%-sym}" "${sym[@]}" > "$d/out" 2> "$d/err" || rc=$?
    if [ "$rc" -ne 0 ] && grep -q '^cs_test: FAILED' "$d/out" &&
       grep -q 'FAIL: cfg' "$d/err"; then
        cs_report ok "--inject $w: caught ($(grep -m1 'FAIL: cfg' "$d/err" | cut -c1-90))"
    else
        cs_report FAIL "--inject $w: not caught (exit $rc, $(tail -n 1 "$d/out"))"
    fi
done

# run_pair LABEL NP COUNT SEED MODE [gemm_sweep args]: MODE force or off
# (COSTA_SHIM_GEMM unset) for the shim's run; LAUNCH (default $MPIEXEC)
# may name another launcher, SHIM_ENV holds more NAME=VALUE words for the
# shim's run
run_pair() {
    local label=$1 np=$2 count=$3 seed=$4 mode=$5
    shift 5
    local dir=$CS_OUT/$label launch=${LAUNCH:-$MPIEXEC}
    mkdir -p "$dir/stats"
    local pre="" what="[$label] np=$np seed=$seed count=$count gemm=$mode${*:+ $*}"
    [ "$np" -gt "$ncores" ] && pre=$yield
    local gemm=()
    [ "$mode" = force ] && gemm=(COSTA_SHIM_GEMM=force)
    local extra
    read -r -a extra <<< "${SHIM_ENV:-}"
    local t0=$SECONDS rcn=0 rcs=0
    timeout -k 10 300 "$launch" -n "$np" env ${pre:+LD_PRELOAD=$pre} \
        "$app" --seed "$seed" --count "$count" "$@" \
        > "$dir/native.out" 2> "$dir/native.err" || rcn=$?
    local t1=$SECONDS
    timeout -k 10 300 "$launch" -n "$np" env -u COSTA_SHIM_GEMM \
        LD_PRELOAD="$CS_PRELOAD${pre:+:$pre}" "${gemm[@]}" "${extra[@]}" \
        COSTA_SHIM_MIN_ELEMS=0 \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$dir/stats" \
        "$app" --seed "$seed" --count "$count" "$@" \
        > "$dir/shim.out" 2> "$dir/shim.err" || rcs=$?
    local t2=$SECONDS
    total_cfg=$((total_cfg + count))
    local bad=()
    if [ "$rcn" -ne 0 ] || [ "$(tail -n 1 "$dir/native.out")" != "cs_test: OK" ]; then
        bad+=("native run failed (exit $rcn)")
    fi
    if [ "$rcs" -ne 0 ] || [ "$(tail -n 1 "$dir/shim.out")" != "cs_test: OK" ]; then
        bad+=("shim run failed (exit $rcs)")
    fi
    grep '^calls' "$dir/native.out" > "$dir/native.calls" || true
    grep '^calls' "$dir/shim.out" > "$dir/shim.calls" || true
    if [ ! -s "$dir/native.calls" ] ||
       ! cmp -s "$dir/native.calls" "$dir/shim.calls"; then
        bad+=("calls lines differ")
    fi
    local calls nowork local_ repl declined
    calls=$(cs_sum_field calls "$dir/native.out")
    declined=$(cs_sum_field calls_declined "$dir/native.out")
    nowork=$(cs_sum_field calls_no_work "$dir/native.out")
    local_=$(cs_sum_field calls_local "$dir/native.out")
    repl=$(cs_sum_field calls_replicated "$dir/native.out")
    local expect=()
    if [ "$mode" = force ]; then
        expect=(--expect-engine-calls "$((calls - nowork - local_ - repl - declined))"
                --expect-none-calls "$nowork" --no-fallback
                --expect-fallback "native_faster=$local_,unsupported=$((repl + declined))")
    else
        expect=(--expect-engine-calls 0 --expect-none-calls 0 --no-fallback
                --expect-passthrough "gemm_off=$calls")
    fi
    [ "$expect_engine" = 1 ] || expect=()
    if ! "$PYTHON" "$stats_py" "$dir/stats" \
            --routine-regex "${ROUTINE_RE:-$gemm_re}" \
            "${expect[@]}" > "$dir/stats.txt" 2>&1; then
        bad+=("shim statistics (calls $calls: no_work $nowork, local $local_, replicated $repl, declined $declined)")
    fi
    local worst
    worst=$(sed -n 's/.*largest error \/ bound \([^,]*\),.*/\1/p' "$dir/shim.err")
    if [ "${#bad[@]}" -eq 0 ]; then
        echo "ok    $what: $calls calls, error/bound <= ${worst:-?} (native $((t1 - t0))s, shim $((t2 - t1))s)"
    else
        fails=$((fails + 1))
        echo "FAIL  $what: $(IFS=,; echo "${bad[*]}") (native $((t1 - t0))s, shim $((t2 - t1))s)"
        grep -v '^  meta:' "$dir/stats.txt" | head -n 30 | sed 's/^/      /'
        for s in native shim; do
            # the sweep's own lines and messages, not the shim's summary
            grep -E 'FAIL|failing|gemm_sweep|costa_shim\[|rror|bort' \
                "$dir/$s.err" | grep -v '^@' | head -n 8 |
                sed "s/^/      $s stderr: /"
        done
    fi
}

# label np count seed mode [args]
run_pair np1 1 $((600 * mult)) 4401 force
run_pair np2 2 $((600 * mult)) 4402 force
run_pair np3 3 $((400 * mult)) 4403 force
run_pair np4 4 $((400 * mult)) 4404 force
run_pair replicated-np2 2 $((200 * mult)) 4412 force --replicated
run_pair replicated-np4 4 $((120 * mult)) 4414 force --replicated
run_pair off-np2 2 $((200 * mult)) 4422 off
# sub(A)^T sub(B) on P x 1, sub(A) sub(B)^T on 1 x Q, inner dimensions
# distributed alike: the direct path (A and B not moved); on 2 x 2 the
# pieces path by grid lines
run_pair aligned-np2 2 $((200 * mult)) 4452 force --aligned
run_pair aligned-np3 3 $((150 * mult)) 4453 force --aligned
run_pair aligned-np4 4 $((150 * mult)) 4454 force --aligned
# the inner dimension in many chunks (each call's slabs of at most 512
# bytes): the local products accumulate over them
SHIM_ENV=COSTA_SHIM_TEST_GEMM_CHUNK=512 \
    run_pair chunks-np2 2 $((200 * mult)) 4442 force
SHIM_ENV=COSTA_SHIM_TEST_GEMM_CHUNK=512 \
    run_pair chunks-np4 4 $((120 * mult)) 4444 force
# p?syrk and p?herk: one triangle written
export ROUTINE_RE=$sym_re
run_pair sym-np1 1 $((200 * mult)) 4461 force --sym
run_pair sym-np2 2 $((300 * mult)) 4462 force --sym
run_pair sym-np3 3 $((200 * mult)) 4463 force --sym
run_pair sym-np4 4 $((200 * mult)) 4464 force --sym
run_pair sym-off-np2 2 $((100 * mult)) 4465 off --sym
SHIM_ENV=COSTA_SHIM_TEST_GEMM_CHUNK=512 \
    run_pair sym-chunks-np2 2 $((150 * mult)) 4466 force --sym
unset ROUTINE_RE
# 2 emulated nodes of 2 ranks: the grids span the nodes
export CS_NODES_FLAVOUR=${CS_MPI:-mpich} CS_NODES_MPIEXEC=$MPIEXEC
CS_NODE_SIZE=2 LAUNCH=$here/../lib/mpiexec_nodes.sh \
    run_pair nodes-2x2 4 $((150 * mult)) 4434 force

# on_run NAME ROUTINE N ARGS...: bench_gemm ARGS on 2 ranks under
# COSTA_SHIM_GEMM=on, no forcing: all N calls of ROUTINE on rank 0 must
# take the engine, none go to PBLAS, and the results be within 1e-10 of
# native's (bench_gemm's own check)
on_run() {
    local name=$1 routine=$2 want=$3 d=$CS_OUT/$1 rc=0 ne nf
    shift 3
    mkdir -p "$d"
    timeout -k 10 300 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" \
        COSTA_SHIM_GEMM=on COSTA_SHIM_VERBOSE=1 OMP_NUM_THREADS=1 \
        "$bench" "$@" > "$d/out" 2> "$d/err" || rc=$?
    ne=$(grep -c "r:0 .*$routine .*path:engine" "$d/err")
    nf=$(grep -c "r:0 .*$routine .*path:fallback" "$d/err")
    if [ "$rc" -ne 0 ] || [ "$ne" -ne "$want" ] || [ "$nf" -ne 0 ]; then
        echo "FAIL  [$name] bench_gemm $* under COSTA_SHIM_GEMM=on:" \
             "exit $rc, $ne of $want calls on the engine, $nf to PBLAS"
        grep "r:0 .*$routine" "$d/err" | head -n 4 | sed 's/^/      | /'
        fails=$((fails + 1))
    else
        echo "ok    [$name] bench_gemm $*: $want of $want calls on the engine"
    fi
}

if [ "$expect_engine" = 1 ]; then
    # a product on the direct path (bench_gemm x, CP2K rpa_w4's N T
    # 544 x 544 x 1216 on 1 x 2, the inner dimensions aligned) runs on the
    # engine from its first call, none sent to PBLAS to be measured
    # (shim/gemm/serve.c, expect)
    on_run direct-on pdgemm_ 3 --cases x --reps 2
    # the grid is part of a shape: the same pdsyrk_ on 1 x 2 (u: direct,
    # two engine calls) and then on 2 x 1 (v: pieces) is a new shape,
    # whose first calls take the engine as the model expects (with u's
    # record, v's first call went to PBLAS to be measured)
    on_run grid-shape pdsyrk_ 4 --cases uv --reps 1 --scale 0.3
fi

[ "$expect_engine" = 1 ] ||
    echo "note: CS_GEMM_EXPECT_ENGINE=$expect_engine: the shim's report was not checked"
echo "$total_cfg configs"
if [ "$fails" -ne 0 ]; then
    echo "$fails run(s) failed"
    exit 1
fi
echo "every run within the bound"
