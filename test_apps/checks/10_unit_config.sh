#!/usr/bin/env bash
# test_apps/checks/10_unit_config.sh - runs the config unit test
# (test_apps/unit/test_config.c): passes only if it exits 0 and its last
# output line is the sentinel "cs_test: OK".
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
bin="$BUILD_DIR/t/unit/test_config"
cs_need_files "$bin"
mkdir -p "${CS_OUT:?}"
# Keep the test's temporary files inside this check's output folder, and
# hide any COSTA_SHIM_* setting of the caller from the test.
out=$(env $(env | sed -n 's/^\(COSTA_SHIM_[A-Za-z0-9_]*\)=.*/-u \1/p') \
      TMPDIR="$CS_OUT" "$bin" 2>&1)
cs_expect_ok test_config $? "$out"
