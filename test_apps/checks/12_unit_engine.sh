#!/usr/bin/env bash
# test_apps/checks/12_unit_engine.sh - runs the engine unit test
# (test_apps/unit/test_engine_layout.c: cs_eng_dist_local_size, the
# per-dimension overlay and per-rank plan volumes of random layouts against
# brute force, no MPI communication): passes only if it exits 0 and its
# last output line is the sentinel "cs_test: OK".  CS_CHECK_FULL=1 runs
# 10 times as many cases.  Environment (from run_checks.sh): BUILD_DIR,
# CS_OUT.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${CS_OUT:?}"
bin="$BUILD_DIR/t/unit/test_engine_layout"
cs_need_files "$bin"
scale=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && scale=10
mkdir -p "$CS_OUT"
rc=0
timeout -k 10 300 "$bin" "$scale" > "$CS_OUT/stdout" 2> "$CS_OUT/stderr" \
    || rc=$?
cat "$CS_OUT/stderr" "$CS_OUT/stdout"
if [ "$rc" -ne 0 ]; then
    echo "test_engine_layout exited with status $rc"
    exit 1
fi
if [ "$(tail -n 1 "$CS_OUT/stdout")" != "cs_test: OK" ]; then
    echo "test_engine_layout did not end with 'cs_test: OK'"
    exit 1
fi
