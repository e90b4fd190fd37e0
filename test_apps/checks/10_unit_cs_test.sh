#!/usr/bin/env bash
# test_apps/checks/10_unit_cs_test.sh - the test kit counts failures once
# per program (test_apps/lib/cs_test.c), not once per source file: runs
# test_apps/unit/test_cs_test.c, a test of two files,
#   * as it is: exit 0 and the sentinel "cs_test: OK" last;
#   * with --fail, where a CS_TEST_CHECK fails in its second file
#     (test_cs_test/other.c): exit non-zero, "cs_test: FAILED (1 checks)"
#     on stderr and no sentinel.  (With the count static in cs_test.h, as
#     before, main() saw 0 failures and the program passed.)
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${CS_OUT:?}"
bin="$BUILD_DIR/t/unit/test_cs_test"
cs_need_files "$bin"
mkdir -p "$CS_OUT"
out=$("$bin" 2>&1)
cs_expect_ok test_cs_test $? "$out"
rc=0
"$bin" --fail > "$CS_OUT/fail.out" 2> "$CS_OUT/fail.err" || rc=$?
cat "$CS_OUT/fail.out" "$CS_OUT/fail.err"
if [ "$rc" -eq 0 ] || grep -q 'cs_test: OK' "$CS_OUT/fail.out" ||
   ! grep -qx 'cs_test: FAILED (1 checks)' "$CS_OUT/fail.err"; then
    echo "FAIL: test_cs_test --fail exited $rc; a failure counted in another source file must fail the program"
    exit 1
fi
echo "ok: a failure counted in the second file fails the program (exit $rc)"
