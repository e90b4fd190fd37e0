#!/usr/bin/env bash
# test_apps/checks/14_unit_relabel_shape.sh - runs the unit test of one
# call shape's relabeling numbers as the shim computes them
# (test_apps/unit/test_relabel_shape.c: the factored and the dense way
# agree on random small shapes, every way's heap stays within what it
# claims under the memory cap, and at P = 65,536 the claim is under
# 16 MiB): passes only if it exits 0 and its last output line is the
# sentinel "cs_test: OK", and every large shape took at most 2 CPU
# seconds, 8 under sanitizers (the target in the shim is 0.1 s per rank;
# the bound is loose for a shared machine; AddressSanitizer makes the
# slowest shape 3.6 times slower).  With CS_CHECK_FULL=1 it runs 20
# times as many random cases.
# Environment (from run_checks.sh): BUILD_DIR, CS_OUT, CS_CHECK_FULL,
# CS_SAN.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
bin="$BUILD_DIR/t/unit/test_relabel_shape"
cs_need_files "$bin"
mkdir -p "${CS_OUT:?}"
scale=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && scale=20
out=$(cd "$CS_OUT" && timeout -k 10 300 "$bin" "$scale" 2>&1)
cs_expect_ok test_relabel_shape $? "$out"
limit=2
[ -n "${CS_SAN:-}" ] && limit=8
slow=$(printf '%s\n' "$out" |
       awk -v limit="$limit" '/^P=/ { for (i = 1; i <= NF; i++)
                                if ($i ~ /^cpu=/) {
                                    t = substr($i, 5); sub(/s$/, "", t)
                                    if (t + 0 > limit + 0) print } }')
if [ -n "$slow" ]; then
    echo "large shapes above $limit CPU seconds:"
    printf '%s\n' "$slow"
    exit 1
fi
echo "14_unit_relabel_shape: OK"
