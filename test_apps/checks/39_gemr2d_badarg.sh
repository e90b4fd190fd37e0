#!/usr/bin/env bash
# test_apps/checks/39_gemr2d_badarg.sh - bad and inconsistent pdgemr2d_
# arguments (gemr2d_badarg, 2 ranks; its header lists the cases):
#   * cases ScaLAPACK detects itself (scalapack-semantics.md 2.6: no process
#     in A, bad RSRC, IA < 1, sub(B) outside B, LLD too small on one rank;
#     and M < 0, which this build rejects with "out of memory"): natively
#     and under the shim the same exit status and the same set of ScaLAPACK
#     message lines;
#   * cases where the ranks disagree (NB_A, DESCA's grid, MB_B = 0 on one
#     rank, CSRC_A, M): under the shim the run stops (non-zero status) with
#     the costa-shim error naming the argument, each rank's value and the
#     ranks (natively ScaLAPACK copies wrongly, divides by zero or crashes,
#     so there is nothing to compare with);
#   * the valid call and a harmless difference (M_A, sub(A) inside both):
#     natively and under the shim exit 0, the same output, sub(B) right,
#     the rest of B and the guard zones around A and B untouched, and the
#     shim's report shows the call on the engine.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT, CS_TOP,
# PYTHON.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
app=$BUILD_DIR/t/scalapack/gemr2d_badarg
cs_need_files "$app" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
fails=0

# run SIDE K: one launch into CS_OUT/K.SIDE.{out,err,rc}
run() {
    local side=$1 k=$2 o=$CS_OUT/$2.$1 rc=0 pre=()
    [ "$side" = shim ] && pre=(env LD_PRELOAD="$CS_PRELOAD"
                               COSTA_SHIM_STATS=summary
                               COSTA_SHIM_STATS_DIR="$CS_OUT/stats.$k")
    mkdir -p "$CS_OUT/stats.$k"
    timeout -k 5 60 "$MPIEXEC" -n 2 "${pre[@]}" "$app" --case "$k" \
        > "$o.out" 2> "$o.err" || rc=$?
    echo "$rc" > "$o.rc"
}

# ScaLAPACK's messages of a run, sorted and unique
mr2d_lines() {
    grep -h -E 'MR2D|mr2d' "$1" | sort -u
}

# ScaLAPACK's own checks: the same outcome.  RATIONALE: when one process
# exits, hydra kills the other and reports either status (native runs of
# case 6 gave 2 or 1): up to three tries for the two sides to agree.
for k in 1 2 3 4 5 6; do
    for try in 1 2 3; do
        run native "$k"
        run shim "$k"
        n=$(cat "$CS_OUT/$k.native.rc") s=$(cat "$CS_OUT/$k.shim.rc")
        mn=$(mr2d_lines "$CS_OUT/$k.native.err") ms=$(mr2d_lines "$CS_OUT/$k.shim.err")
        [ "$n" = "$s" ] && [ -n "$mn" ] && [ "$mn" = "$ms" ] && break
    done
    if [ "$n" = "$s" ] && [ "$n" != 0 ] && [ -n "$mn" ] && [ "$mn" = "$ms" ]; then
        cs_report ok "case $k: exit $s and '$(echo "$ms" | head -n 1)' natively and under the shim"
    else
        cs_report FAIL "case $k: native exit $n [$mn], shim exit $s [$ms]"
    fi
done

# Disagreeing ranks: the shim stops and names what differs
want=(
    [7]="A's grid disagree on DESCA(NB_): 2 on rank 0; 3 on rank 1"
    [8]="A's grid disagree on DESCA(CTXT_ (its grid's rows)): 1 on rank 0; 2 on rank 1"
    [9]="B's grid disagree on DESCB(MB_): 2 on rank 0; 0 on rank 1"
    [10]="A's grid disagree on DESCA(CSRC_): 0 on rank 0; 1 on rank 1"
    [11]="ICTXT disagree on M: 6 on rank 0; 5 on rank 1"
)
for k in 7 8 9 10 11; do
    run shim "$k"
    s=$(cat "$CS_OUT/$k.shim.rc")
    if [ "$s" != 0 ] &&
       grep -qF "costa-shim[0]: error: pdgemr2d: the processes of ${want[$k]} (" "$CS_OUT/$k.shim.err" &&
       ! grep -q 'returned' "$CS_OUT/$k.shim.out"; then
        cs_report ok "case $k: stopped (exit $s): ...${want[$k]}"
    else
        cs_report FAIL "case $k: exit $s, want a stop naming '${want[$k]}'"
        sed 's/^/      | /' "$CS_OUT/$k.shim.err" | head -n 5
    fi
done

# Valid, and a harmless difference: served, right, nothing else touched
for k in 0 12; do
    run native "$k"
    run shim "$k"
    n=$(cat "$CS_OUT/$k.native.rc") s=$(cat "$CS_OUT/$k.shim.rc")
    if [ "$n" = 0 ] && [ "$s" = 0 ] &&
       cmp -s "$CS_OUT/$k.native.out" "$CS_OUT/$k.shim.out" &&
       grep -q "right: yes, rest of B and guards untouched: yes" "$CS_OUT/$k.shim.out" &&
       "$PYTHON" "$CS_TOP/test_apps/lib/check_stats.py" "$CS_OUT/stats.$k" \
           --routine-regex '^pdgemr2d_$' --expect-engine-calls 2 --no-fallback \
           > "$CS_OUT/stats.$k.txt" 2>&1; then
        cs_report ok "case $k: served on the engine, same output, sub(B) right, rest and guards untouched"
    else
        cs_report FAIL "case $k: native exit $n, shim exit $s, or output/report wrong"
        tail -n 3 "$CS_OUT/$k.shim.err" "$CS_OUT/stats.$k.txt" 2> /dev/null | sed 's/^/      | /'
    fi
done

exit $((fails > 0))
