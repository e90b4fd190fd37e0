#!/usr/bin/env bash
# test_apps/checks/14_unit_relabel.sh - runs the relabeling unit test
# (test_apps/unit/test_relabel.c: exact solver against brute force and a
# reference Hungarian, greedy bounds, known cases, volume matrix against an
# element count): passes only if it exits 0 and its last output line is
# the sentinel "cs_test: OK"; then test_relabel_nodes (node-aware and
# sparse solvers) and test_relabel_kron (the factored volume against the
# direct count, the Kronecker solvers against the exact one) and
# test_relabel_kron_inner (their swaps against full passes, the node-aware
# pruning bound against every gain, the assignment inside a node against
# the exact solver) and test_relabel_plan_terms (plans from factored
# pairs against the same plans from matrices) alike.  With
# CS_CHECK_FULL=1 they run 20 times as many random cases.
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT, CS_CHECK_FULL.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
bin="$BUILD_DIR/t/unit/test_relabel"
cs_need_files "$bin"
mkdir -p "${CS_OUT:?}"
scale=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && scale=20
out=$(cd "$CS_OUT" && "$bin" "$scale" 2>&1)
cs_expect_ok test_relabel $? "$out"
bin2="$BUILD_DIR/t/unit/test_relabel_nodes"
cs_need_files "$bin2"
out=$(cd "$CS_OUT" && "$bin2" "$scale" 2>&1)
cs_expect_ok test_relabel_nodes $? "$out"
bin3="$BUILD_DIR/t/unit/test_relabel_kron"
cs_need_files "$bin3"
out=$(cd "$CS_OUT" && "$bin3" "$scale" 2>&1)
cs_expect_ok test_relabel_kron $? "$out"
bin4="$BUILD_DIR/t/unit/test_relabel_kron_inner"
cs_need_files "$bin4"
out=$(cd "$CS_OUT" && "$bin4" "$scale" 2>&1)
cs_expect_ok test_relabel_kron_inner $? "$out"
bin5="$BUILD_DIR/t/unit/test_relabel_plan_terms"
cs_need_files "$bin5"
out=$(cd "$CS_OUT" && "$bin5" "$scale" 2>&1)
cs_expect_ok test_relabel_plan_terms $? "$out"
