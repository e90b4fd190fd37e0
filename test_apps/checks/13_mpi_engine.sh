#!/usr/bin/env bash
# test_apps/checks/13_mpi_engine.sh - runs the end-to-end engine test
# (test_apps/mpi/test_engine.c: random layout pairs, plan + execute with
# threads/overlap/message-splitting variants, element-by-element and
# statistics checks) with 1, 2, 3, 4 and 5 ranks, a different seed per
# rank count.  Each launch must exit 0 and print the sentinel
# "cs_test: OK" last.  The machine has 2 cores: for P > 2 the yield
# preload ($BUILD_DIR/t/lib/yield_preload.so) is used when it exists, and
# fewer cases run without it (MPICH busy-polls).  CS_CHECK_FULL=1 runs 10x
# the cases and adds a valgrind run with P = 2 when valgrind is installed.
# Environment (from run_checks.sh): BUILD_DIR, MPIEXEC, CS_OUT.
set -u
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${MPIEXEC:?}" "${CS_OUT:?}"
bin="$BUILD_DIR/t/mpi/test_engine"
yield="$BUILD_DIR/t/lib/yield_preload.so"
cs_need_files "$bin"
mult=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && mult=10
out="$CS_OUT"
cs_fresh_dir "$out"
status=0

# run TAG P CASES [wrapper...]: one launch; 0 iff exit 0 and sentinel last
run() {
    local tag=$1 p=$2 cases=$3
    shift 3
    local genv=()
    if [ "$p" -gt 2 ] && [ -e "$yield" ]; then
        genv=(-genv LD_PRELOAD "$yield")
    fi
    local t0=$SECONDS rc=0
    timeout -k 10 600 "$MPIEXEC" "${genv[@]}" -n "$p" "$@" "$bin" \
        "$cases" "$p" > "$out/$tag.stdout" 2> "$out/$tag.stderr" || rc=$?
    echo "  $tag: P=$p cases=$cases rc=$rc $((SECONDS - t0)) s:" \
        "$(grep -m 1 '^test_engine:' "$out/$tag.stdout")"
    if [ "$rc" -ne 0 ] ||
        [ "$(tail -n 1 "$out/$tag.stdout")" != "cs_test: OK" ]; then
        echo "FAIL: $tag (P=$p, rc=$rc); stderr tail:"
        grep -v -e hwloc -e 'HWLOC_CPUID' -e SHM_HUGETLB "$out/$tag.stderr" |
            tail -n 30 | sed 's/^/    /'
        status=1
    fi
}

for p in 1 2 3 4 5; do
    if [ "$p" -le 2 ]; then
        cases=400
    elif [ -e "$yield" ]; then
        cases=200
    else
        cases=60
    fi
    run "p$p" "$p" $((cases * mult))
done
if [ "${CS_CHECK_FULL:-0}" = 1 ] && command -v valgrind > /dev/null; then
    run "valgrind.p2" 2 300 valgrind --error-exitcode=1 -q \
        --suppressions="$(dirname "$0")/../lib/valgrind_mpich.supp"
fi
exit "$status"
