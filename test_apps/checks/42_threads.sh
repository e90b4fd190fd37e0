#!/usr/bin/env bash
# test_apps/checks/42_threads.sh - calls from several threads at once
# (issue 17 item 4), threads_calls on 2 ranks under the shim:
#   * MPI_THREAD_MULTIPLE, 2 and 4 threads per rank, each on its own pair
#     of contexts (its own duplicate of MPI_COMM_WORLD), 100 calls each
#     (pdgemr2d_ and pdtran_ alternating, sizes and offsets varying):
#     every element of every target right and the rest untouched, exit 0,
#     and the report shows all 2 x T x 100 calls on the engine (each thread
#     has its own workspace and plan cache; the shared send buffer is not
#     used at this thread level).  (The build before this had one workspace
#     for all threads: 4 threads aborted, 2 copied the other thread's data.)
#   * MPI_THREAD_SERIALIZED, 2 threads whose calls overlap: the run stops
#     with the costa-shim error naming both routines and the thread level.
#   * the engine's default thread count (per-call trace, thr:): with
#     OMP_NUM_THREADS=4, 2 unbound ranks use min(4, cores / 2) threads each
#     and 1 rank min(4, cores); COSTA_SHIM_THREADS=3 gives 3 whatever the
#     cores.  (Before the bound, 2 ranks of 2 threads on 2 cores made
#     pdtran 9 times slower than native.)
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT, CS_TOP,
# PYTHON.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/threads_calls
cs_need_files "$app" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
export OMP_NUM_THREADS=1
fails=0

for t in 2 4; do
    d=$CS_OUT/multiple.$t
    mkdir -p "$d/stats"
    rc=0
    timeout -k 5 300 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" \
        COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$d/stats" "$app" \
        --threads "$t" --calls 100 > "$d/out" 2> "$d/err" || rc=$?
    calls=$((2 * t * 100))
    if [ "$rc" -eq 0 ] && grep -qx "threads $t calls 100 wrong 0" "$d/out" &&
       grep -qx 'cs_test: OK' "$d/out" &&
       "$PYTHON" "$CS_TOP/test_apps/lib/check_stats.py" "$d/stats" \
           --routine-regex '^(pdgemr2d_|pdtran_)$' \
           --expect-engine-calls "$calls" --no-fallback > "$d/stats.txt" 2>&1; then
        cs_report ok "MPI_THREAD_MULTIPLE, $t threads x 100 calls per rank: 0 wrong elements, $calls calls on the engine"
    else
        cs_report FAIL "MPI_THREAD_MULTIPLE, $t threads: exit $rc, $(grep threads "$d/out")"
        tail -n 5 "$d/err" "$d/stats.txt" 2> /dev/null | sed 's/^/      | /'
    fi
done

d=$CS_OUT/serialized
mkdir -p "$d"
rc=0
timeout -k 5 120 "$MPIEXEC" -n 2 env LD_PRELOAD="$CS_PRELOAD" "$app" \
    --serialized > "$d/out" 2> "$d/err" || rc=$?
# what matters, not the wording: a costa-shim error line (of any rank)
# that names both routines, in either order, and the thread level
named="no costa-shim error line naming pdtran_, pdgemr2d_ and MPI_THREAD_SERIALIZED"
awk '/^costa-shim\[[0-9]+\]: error: / && /pdtran_/ && /pdgemr2d_/ &&
     /MPI_THREAD_SERIALIZED/ { found = 1 } END { exit !found }' "$d/err" &&
    named=""
if [ "$rc" -ne 0 ] && [ -z "$named" ]; then
    cs_report ok "MPI_THREAD_SERIALIZED, overlapping calls: stopped (exit $rc) naming pdtran_, pdgemr2d_ and the level"
else
    cs_report FAIL "MPI_THREAD_SERIALIZED, overlapping calls: exit $rc (want non-zero)${named:+, $named}"
    tail -n 5 "$d/err" | sed 's/^/      | /'
fi

# default threads: OMP_NUM_THREADS capped at the rank's share of the cores
mp=$BUILD_DIR/t/scalapack/mem_peak
cores=$(getconf _NPROCESSORS_ONLN)  # nproc would follow OMP_NUM_THREADS
for spec in "2 0" "1 0" "2 3"; do
    read -r np want_cfg <<<"$spec"
    d=$CS_OUT/threads_default.$np.$want_cfg
    mkdir -p "$d"
    if [ "$want_cfg" -gt 0 ]; then
        want=$want_cfg
    else
        want=$((cores / np)); [ "$want" -lt 1 ] && want=1
        [ "$want" -gt 4 ] && want=4
    fi
    rc=0
    extra=()
    [ "$want_cfg" -gt 0 ] && extra=(COSTA_SHIM_THREADS="$want_cfg")
    timeout -k 5 120 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD" \
        OMP_NUM_THREADS=4 COSTA_SHIM_VERBOSE=1 "${extra[@]}" "$mp" \
        --n 600 --reps 1 > "$d/out" 2> "$d/err" || rc=$?
    got=$(grep -o ' thr:[0-9]*' "$d/err" | sort -u | tr -d ' ' | tr '\n' ' ')
    if [ "$rc" -eq 0 ] && [ "$got" = "thr:$want " ]; then
        cs_report ok "threads on $np rank(s), $cores cores, OMP_NUM_THREADS=4${extra:+, ${extra[*]}}: $want per call"
    else
        cs_report FAIL "threads on $np rank(s), $cores cores${extra:+, ${extra[*]}}: exit $rc, trace says '$got', want thr:$want"
        tail -n 3 "$d/err" | sed 's/^/      | /'
    fi
done

exit $((fails > 0))
