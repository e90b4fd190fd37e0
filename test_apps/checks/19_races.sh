#!/usr/bin/env bash
# test_apps/checks/19_races.sh - the library's process-wide state is safe
# under threads: test_races (test_apps/race/test_races.c, built with
# ThreadSanitizer) sets the log threshold, switches interception, resolves
# real routines and records grids on some threads while others read them,
# then checks that the grid registry's clock only moves forward and that a
# copy of a grid outlives the registry.  Fails on any ThreadSanitizer
# report (exit 66) or a failed assertion.  On main a17f5ef the threshold,
# the switch, the real library's path and the clock were plain variables
# (races), and the registry handed out pointers into its array.
# Then test_relabel_races (test_apps/race/test_relabel_races.c): four
# threads meet the same new relabeling shape at once (computed outside
# the cache's lock); same numbers, one cache entry, memory given back.
# It fails without the cache's second lookup (4 entries) or lock
# (ThreadSanitizer, exit 66).
# UCX_MEM_MMAP_HOOK_MODE=none: MPICH's UCX hooks madvise(), which crashes
# ThreadSanitizer's thread start (the test makes no MPI call).
# Environment (run_checks.sh): BUILD_DIR, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${CS_OUT:?}"
cs_fresh_dir "$CS_OUT"
for name in test_races test_relabel_races; do
    app=$BUILD_DIR/t/race/$name
    cs_need_files "$app"
    rc=0
    out=$(UCX_MEM_MMAP_HOOK_MODE=none \
          TSAN_OPTIONS="halt_on_error=0 exitcode=66" \
          timeout -k 5 300 "$app" 2>&1) || rc=$?
    cs_expect_ok "$name" "$rc" "$out"
done
