#!/usr/bin/env bash
# test_apps/checks/15_plan_scaling.sh - runs the plan cost test
# (test_apps/unit/test_plan_scaling.c: plans for sampled ranks of simulated
# 64- to 4096-rank grids, no MPI; checks them against a brute-force count
# and checks, by counting heap bytes, never by timing, that what a plan
# keeps stays constant under weak scaling while the global block count
# grows x64): passes only if it exits 0 and its last output line is the
# sentinel "cs_test: OK".  Takes well under a second.
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
bin="$BUILD_DIR/t/unit/test_plan_scaling"
cs_need_files "$bin"
mkdir -p "${CS_OUT:?}"
out=$(cd "$CS_OUT" && timeout -k 10 120 "$bin" 2>&1)
cs_expect_ok test_plan_scaling $? "$out"
