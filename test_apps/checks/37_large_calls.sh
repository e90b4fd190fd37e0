#!/usr/bin/env bash
# test_apps/checks/37_large_calls.sh - the engine's paths that only large
# calls take, checked bit for bit against native ScaLAPACK: packages cut
# into messages, sent straight from A and received straight into B
# (engine/messages.c, from 256 KiB pieces on; the sweeps' matrices are too
# small for them), streaming stores (targets from 32 MiB per rank), the
# fused AVX transposes with arithmetic, OpenMP-sized blocks.  Runs the
# benchmark programs once per case (2 ranks, shim with
# COSTA_SHIM_FALLBACK=never): each compares the shim's result with
# native's (memcmp) and native's with the exact values, and exits 1 on any
# difference.  Their timings are printed but not judged here (that is
# `make bench`).
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
cs_fresh_dir "$CS_OUT"
fails=0
# gemr2d b: 36 -> 128 on 1x2 (pieces are whole local columns on both
# sides), c: 1x2 -> 2x1 (received straight into B), i: 1000x1000;
# tran a: pdtran (streaming transposes), b: a=2 b=3 (fused AVX kernel),
# g: pdgeadd N and T with beta 1.  The transposes run a second time with
# COSTA_SHIM_SHM=eager, with f (pdtrmr2d 4000x4000, 36 -> 128): the
# shared send buffer is made at the first call and the receiver reads each
# package from it (engine/shm.c).
for run in "bench_gemr2d bci" "bench_tran abg" "bench_tran abfg eager"; do
    set -- $run
    shm=${3:-auto}
    bin=$BUILD_DIR/t/bench/$1
    cs_need_files "$bin"
    rc=0
    OMP_NUM_THREADS=1 timeout -k 10 300 "$MPIEXEC" -genv LD_PRELOAD "$CS_PRELOAD" \
        -genv COSTA_SHIM_FALLBACK never -genv COSTA_SHIM_SHM "$shm" \
        -genv COSTA_SHIM_LOG_LEVEL info -n 2 "$bin" --cases "$2" --reps 1 \
        > "$CS_OUT/$1.$shm.out" 2> "$CS_OUT/$1.$shm.err" || rc=$?
    rows=$(grep -c ' ok$' "$CS_OUT/$1.$shm.out")
    if [ "$shm" = eager ] &&
       ! grep -q 'shared send buffer grown' "$CS_OUT/$1.$shm.err"; then
        rc=99 # the shared buffer was not made
    fi
    want=${#2}
    [ "$1" = bench_tran ] && want=$((want + 1)) # g is g1 and g2
    if [ "$rc" -ne 0 ] || [ "$rows" -ne "$want" ]; then
        cs_report FAIL "$1 --cases $2 (shm $shm): rc=$rc, $rows of $want cases ok"
        tail -n 12 "$CS_OUT/$1.$shm.out" "$CS_OUT/$1.$shm.err" |
            sed 's/^/      | /'
    else
        cs_report ok "$1 --cases $2 (shm $shm): $rows cases equal to native"
    fi
done
[ "$fails" -eq 0 ]
