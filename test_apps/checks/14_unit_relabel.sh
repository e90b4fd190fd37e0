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
mkdir -p "${CS_OUT:?}"
scale=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && scale=20
for t in test_relabel test_relabel_nodes test_relabel_kron \
        test_relabel_kron_inner test_relabel_plan_terms; do
    bin="$BUILD_DIR/t/unit/$t"
    cs_need_files "$bin"
    out=$(cd "$CS_OUT" && "$bin" "$scale" 2>&1)
    cs_expect_ok "$t" $? "$out"
done
