#!/usr/bin/env bash
# test_apps/checks/12_unit_engine.sh - runs the engine unit tests, no MPI
# communication:
#   test_engine_layout  cs_eng_dist_local_size, the per-dimension overlay and
#                       per-rank plan volumes of random layouts against
#                       brute force;
#   test_kernels        the copy/transpose/transform kernels (also the
#                       streaming ones) against element references, with
#                       guard bytes around every target;
#   test_choice         the engine's timed choice between two ways of
#                       running a plan (engine/choice.c), on made-up times;
#   test_fatal          fatal errors through the hook, and logged and
#                       aborted without one (engine/fatal.c);
#   test_mm_split       the split of a multiplication over P processes
#                       (engine/matmul/split.c) against brute force.
# Each passes only if it exits 0 and its last output line is the sentinel
# "cs_test: OK".  CS_CHECK_FULL=1 runs 10 times as many cases.
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${CS_OUT:?}"
scale=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && scale=10
mkdir -p "$CS_OUT"
status=0
for name in test_engine_layout test_kernels test_choice test_fatal test_mm_split; do
    bin="$BUILD_DIR/t/unit/$name"
    cs_need_files "$bin"
    rc=0
    timeout -k 10 300 "$bin" "$scale" > "$CS_OUT/$name.stdout" \
        2> "$CS_OUT/$name.stderr" || rc=$?
    cat "$CS_OUT/$name.stderr" "$CS_OUT/$name.stdout"
    if [ "$rc" -ne 0 ]; then
        echo "$name exited with status $rc"
        status=1
    elif [ "$(tail -n 1 "$CS_OUT/$name.stdout")" != "cs_test: OK" ]; then
        echo "$name did not end with 'cs_test: OK'"
        status=1
    fi
done
exit "$status"
