#!/usr/bin/env bash
# test_apps/checks/70_fuzz.sh - fuzzing you can replay: many rounds of
# test_apps/fuzz_run.sh, each a sweep program run natively and under the
# shim on the same random configurations, compared configuration by
# configuration.
#
# The sweeps draw, per configuration: the routine (every p?gemr2d and
# Cp?gemr2d; p?tran*, p?geadd, p?tradd, p?trmr2d and Cp?trmr2d), the type
# (s, d, c, z, i), UPLO/DIAG and TRANS, alpha/beta among PBLAS's cases,
# grids (gridinit, gridmap in random order, sub-communicators, processes
# in neither grid), block sizes, sources (also replicated: RSRC/CSRC -1),
# offsets, LLD padding, M or N = 0; every grid is exited after its
# configuration, so BLACS hands its context numbers out again (recycled
# handles) and the shim must not take a new grid for an old one.  Every
# local array has guard zones before and after it, checked after each call
# with the rest of the array.  Each round here draws, from CS_FUZZ_SEED
# and its number: the program, the rank count (1-6), a seed and the
# shim's settings: COSTA_SHIM_THREADS 1-3, COSTA_SHIM_WORKSPACE (auto, or
# 2k/64k: calls cut into panels), COSTA_SHIM_SHM (auto, or eager from
# 1 KiB), COSTA_SHIM_OVERLAP.
#
# Then rounds of gemm_sweep under COSTA_SHIM_GEMM=force with random
# threads, workspace bound, chunk size (COSTA_SHIM_TEST_GEMM_CHUNK) and
# --aligned; each call is checked by the sweep against its error bound.
#
# make check: 16 rounds of 60 configurations (960) and 4 gemm rounds;
# CS_CHECK_FULL=1: 176 rounds (10,560) and 40 gemm rounds.  A failed round prints the command that replays it
# (REPLAY: test_apps/fuzz_run.sh ...).
# Environment (run_checks.sh): CS_MPI, CS_SHIM, CS_PRELOAD, MPIEXEC,
# BUILD_DIR, CS_OUT, CS_CHECK_FULL; CS_FUZZ_SEED (default 7001).
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
cs_fresh_dir "$CS_OUT"
run=$(cd "$(dirname "$0")/.." && pwd)/fuzz_run.sh
seed0=${CS_FUZZ_SEED:-7001}
rounds=16 count=60
[ "${CS_CHECK_FULL:-0}" = 1 ] && rounds=176
# pick WORD...: one of the words into $v.  RATIONALE: not through $(...):
# a subshell's $RANDOM does not advance the parent's sequence, which must
# be the same in every run of a seed.
RANDOM=$seed0
pick() {
    local w=("$@")
    v=${w[RANDOM % ${#w[@]}]}
}
fails=0 configs=0
for ((r = 0; r < rounds; r++)); do
    pick gemr2d_sweep gemr2d_sweep tran_sweep tran_sweep tran_sweep_r
    prog=$v args=""
    if [ "$prog" = tran_sweep_r ]; then
        prog=tran_sweep args="--replicated"
    fi
    pick 1 2 2 2 3 3 4 5 6
    np=$v
    seed=$((seed0 * 1000 + r))
    pick 1 1 2 3
    envs="COSTA_SHIM_THREADS=$v"
    pick auto auto 2k 64k
    envs+=" COSTA_SHIM_WORKSPACE=$v"
    pick auto auto eager
    [ "$v" = eager ] && envs+=" COSTA_SHIM_SHM=eager COSTA_SHIM_SHM_MIN=0"
    pick on on off
    envs+=" COSTA_SHIM_OVERLAP=$v"
    if ! "$run" --mpi "$CS_MPI" --np "$np" --prog "$prog" --seed "$seed" \
            --count "$count" ${args:+--args "$args"} --env "$envs" \
            --out "$CS_OUT/round$r"; then
        fails=$((fails + 1))
    fi
    configs=$((configs + count))
done
# p?gemm's engine path (COSTA_SHIM_GEMM=force): gemm_sweep checks each
# call itself against its error bound (no digests to compare), under
# random settings: threads, workspace bound, chunks of the inner
# dimension, aligned inner dimensions (the direct path), 1-4 ranks
sweep=$BUILD_DIR/t/scalapack/gemm_sweep
yield=$BUILD_DIR/t/lib/yield_preload.so
grounds=4
[ "${CS_CHECK_FULL:-0}" = 1 ] && grounds=40
for ((r = 0; r < grounds; r++)); do
    pick 1 2 2 3 4
    np=$v
    seed=$((seed0 * 1000 + 500 + r))
    pick 1 2
    envs=(COSTA_SHIM_GEMM=force COSTA_SHIM_THREADS=$v)
    pick auto auto 2k 64k
    envs+=(COSTA_SHIM_WORKSPACE=$v)
    pick 64M 64M 512 4k
    envs+=(COSTA_SHIM_TEST_GEMM_CHUNK=$v)
    pick "" "" --aligned
    args=$v
    pre=$CS_PRELOAD
    [ "$np" -gt 2 ] && pre=$pre:$yield
    d=$CS_OUT/gemm$r
    mkdir -p "$d"
    rc=0
    timeout -k 10 300 "$MPIEXEC" -n "$np" env LD_PRELOAD="$pre" \
        "${envs[@]}" "$sweep" --seed "$seed" --count "$count" $args \
        > "$d/out" 2> "$d/err" || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$d/out")" != "cs_test: OK" ]; then
        fails=$((fails + 1))
        echo "FAIL gemm round $r (exit $rc): REPLAY: $MPIEXEC -n $np env" \
            "LD_PRELOAD=$pre ${envs[*]} $sweep --seed $seed --count $count" \
            "$args"
        tail -n 3 "$d/err"
    fi
    configs=$((configs + count))
    rounds=$((rounds + 1))
done
echo "$rounds rounds, $configs configurations, $fails failed (seed $seed0)"
exit $((fails > 0))
