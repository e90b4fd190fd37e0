#!/usr/bin/env bash
# test_apps/checks/14_unit_relabel.sh - runs the relabeling unit test
# (test_apps/unit/test_relabel.c: exact solver against brute force and a
# reference Hungarian, greedy bounds, known cases, volume matrix against an
# element count): passes only if it exits 0 and its last output line is
# the sentinel "cs_test: OK".  With CS_CHECK_FULL=1 it runs 20 times as
# many random cases.
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT, CS_CHECK_FULL.
set -u
bin="$BUILD_DIR/t/unit/test_relabel"
if [ ! -x "$bin" ]; then
    echo "missing $bin (make test_apps)"
    exit 1
fi
mkdir -p "${CS_OUT:?}"
scale=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && scale=20
out=$(cd "$CS_OUT" && "$bin" "$scale" 2>&1)
rc=$?
printf '%s\n' "$out"
last=$(printf '%s\n' "$out" | tail -n 1)
if [ "$rc" -ne 0 ]; then
    echo "test_relabel exited with status $rc"
    exit 1
fi
if [ "$last" != "cs_test: OK" ]; then
    echo "test_relabel did not end with 'cs_test: OK'"
    exit 1
fi
