#!/usr/bin/env bash
# test_apps/checks/55_bench_floor_count.sh - the element counts behind the
# floor that `make bench` judges its 50 % target on (what a rank receives
# from and sends to others, cs_bench_cross_elems in test_apps/lib/
# cs_bench.c), against a reference counted through local indices,
# ScaLAPACK's INDXG2P and Cblacs_pnum (test_apps/scalapack/
# bench_floor_count.c): 300 random layouts on 2 ranks (the benchmarks'
# count) and on 3 and 4 (other grid shapes; yield preload).  No timing.
# Environment (run_checks.sh): BUILD_DIR, MPIEXEC, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${MPIEXEC:?}" "${CS_OUT:?}"
bin=$BUILD_DIR/t/scalapack/bench_floor_count
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$bin" "$yield"
cs_fresh_dir "$CS_OUT"
fails=0
for np in 2 3 4; do
    pre=()
    [ "$np" -gt 2 ] && pre=(-genv LD_PRELOAD "$yield")
    rc=0
    timeout -k 10 120 "$MPIEXEC" "${pre[@]}" -n "$np" "$bin" "$((550 + np))" \
        300 > "$CS_OUT/np$np.out" 2>&1 || rc=$?
    cat "$CS_OUT/np$np.out"
    if [ "$rc" = 0 ] && [ "$(tail -n 1 "$CS_OUT/np$np.out")" = \
        "bench_floor_count: OK (300 cases, $np ranks)" ]; then
        cs_report ok "$np ranks: counts match the reference"
    else
        cs_report FAIL "$np ranks: exit $rc"
    fi
done
[ "$fails" -eq 0 ]
