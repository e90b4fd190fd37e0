#!/usr/bin/env bash
# test_apps/checks/35_tran_badarg.sh - invalid pdtran_ arguments behave the
# same natively and under the shim (default settings).
#
# 1. tran_badarg --case K (K = 0..13: valid call, bad IA, DESCC CTXT of a
#    second context over the same processes, NB_C = 0, LLD_C too small on
#    the last rank only, DTYPE_A = 3, M < 0, N < 0, JA < 1, RSRC_A and
#    CSRC_A outside the grid, M_C = 0, JC past N_C, MB_A = 0: the checks of
#    scalapack-semantics.md 3.4) on 2 ranks: same exit status
#    (INFO mod 256 from MPI_Abort), and the same set of "PBLAS ERROR" lines
#    (which include the "Parameter number" line of PB_Cabort) on stderr.
#    Because hydra can drop lines of a process killed by MPI_Abort
#    (scalapack-semantics.md 3.5), each side runs twice and the union of its
#    line sets is compared; on a mismatch both sides run up to three more
#    times before the case fails.  An abort case must print its
#    "Parameter number" line at least once natively.  Case 0 must give the
#    same stdout.
# 2. tran_badarg --case K (K = 14..18: the ranks pass different NB_A, IA,
#    ALPHA, M, CSRC_C): under the shim the run stops with the costa-shim
#    error naming the argument and each rank's value (natively PBLAS hangs
#    or computes wrong values: nothing to compare with).  Case 19 (M_A
#    differs, sub(A) inside both): served on the engine, the same digest of
#    C as natively.
# 3. tran_badarg_abort (the program supplies a PB_Cabort that returns) on 2
#    and 4 ranks: identical stdout and identical sorted PBLAS ERROR lines.
# Environment (run_checks.sh): CS_SHIM, MPIEXEC, BUILD_DIR, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
app=$BUILD_DIR/t/scalapack/tran_badarg
app2=$BUILD_DIR/t/scalapack/tran_badarg_abort
yield=$BUILD_DIR/t/lib/yield_preload.so
for f in "$app" "$app2" "$yield"; do
    [ -f "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
cs_fresh_dir "$CS_OUT"
ncores=$(nproc 2>/dev/null || echo 2)
np=2

# once SIDE CASE N: one run; appends its status to $CS_OUT/c$CASE.SIDE.rc
# and its PBLAS lines to $CS_OUT/c$CASE.SIDE.lines
once() {
    local side=$1 k=$2 n=$3 o=$CS_OUT/c$2.$1.$3 rc=0
    if [ "$side" = native ]; then
        timeout 120 "$MPIEXEC" -n "$np" "$app" --case "$k" \
            > "$o.out" 2> "$o.err" || rc=$?
    else
        timeout 120 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD" \
            "$app" --case "$k" > "$o.out" 2> "$o.err" || rc=$?
    fi
    echo "$rc" >> "$CS_OUT/c$k.$side.rc"
    grep -E "PBLAS ERROR|Parameter number" "$o.err" \
        >> "$CS_OUT/c$k.$side.lines" || true
}

fails=0
for k in 0 1 2 3 4 5 6 7 8 9 10 11 12 13; do
    rm -f "$CS_OUT/c$k".*
    for n in 1 2; do
        once native "$k" "$n"
        once shim "$k" "$n"
    done
    n=3
    while :; do
        sort -u "$CS_OUT/c$k.native.lines" > "$CS_OUT/c$k.native.set"
        sort -u "$CS_OUT/c$k.shim.lines" > "$CS_OUT/c$k.shim.set"
        cmp -s "$CS_OUT/c$k.native.set" "$CS_OUT/c$k.shim.set" && break
        [ "$n" -gt 5 ] && break
        once native "$k" "$n"
        once shim "$k" "$n"
        n=$((n + 1))
    done
    rcs_n=$(sort -u "$CS_OUT/c$k.native.rc" | paste -sd ' ')
    rcs_s=$(sort -u "$CS_OUT/c$k.shim.rc" | paste -sd ' ')
    bad=()
    [ "$rcs_n" = "$rcs_s" ] ||
        bad+=("exit status native {$rcs_n} shim {$rcs_s}")
    case "$rcs_n" in *' '*) bad+=("native exit status not stable") ;; esac
    if ! cmp -s "$CS_OUT/c$k.native.set" "$CS_OUT/c$k.shim.set"; then
        bad+=("PBLAS ERROR lines differ")
    fi
    if [ "$k" = 0 ]; then
        [ "$rcs_n" = 0 ] || bad+=("the valid call failed natively")
        cmp -s "$CS_OUT/c0.native.1.out" "$CS_OUT/c0.shim.1.out" ||
            bad+=("stdout differs")
    else
        grep -q 'Parameter number' "$CS_OUT/c$k.native.set" ||
            bad+=("no Parameter number line natively in $((n - 1)) runs")
    fi
    info=$(sed -n "s/.*Parameter number \([0-9]*\).*/-\1/p" \
        "$CS_OUT/c$k.native.set" | head -n 1)
    if [ "${#bad[@]}" -eq 0 ]; then
        echo "ok    tran_badarg --case $k: exit {$rcs_n}${info:+, INFO $info}," \
             "$(wc -l < "$CS_OUT/c$k.native.set") PBLAS line(s) match"
    else
        fails=$((fails + 1))
        echo "FAIL  tran_badarg --case $k: $(IFS=,; echo "${bad[*]}")"
        diff "$CS_OUT/c$k.native.set" "$CS_OUT/c$k.shim.set" | grep '^[<>]' |
            head -n 6 | sed 's/^/      /'
        grep -hv '^ *$' "$CS_OUT/c$k.shim".*.err | grep -v 'PBLAS ERROR' |
            sort -u | head -n 6 | sed 's/^/      shim stderr: /'
    fi
done

want=(
    [14]="disagree on DESCA(NB_): 3 on rank 0; 4 on rank 1"
    [15]="disagree on IA: 1 on rank 0; 2 on rank 1"
    [16]="disagree on ALPHA: 2 on rank 0; 3 on rank 1"
    [17]="disagree on M: 4 on rank 0; 3 on rank 1"
    [18]="disagree on DESCC(CSRC_): 0 on rank 0; 1 on rank 1"
)
for k in 14 15 16 17 18; do
    o=$CS_OUT/c$k.shim
    rc=0
    timeout 60 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD" "$app" \
        --case "$k" > "$o.out" 2> "$o.err" || rc=$?
    if [ "$rc" -ne 0 ] &&
       grep -qF "costa-shim[0]: error: pdtran: the processes of the grid ${want[$k]} (" "$o.err" &&
       ! grep -q returned "$o.out"; then
        echo "ok    tran_badarg --case $k: stopped (exit $rc): ...${want[$k]}"
    else
        fails=$((fails + 1))
        echo "FAIL  tran_badarg --case $k: exit $rc, want a stop naming '${want[$k]}'"
        sed 's/^/      | /' "$o.err" | head -n 4
    fi
done
o=$CS_OUT/c19
rcn=0 rcs=0
timeout 60 "$MPIEXEC" -n "$np" "$app" --case 19 > "$o.native.out" \
    2> "$o.native.err" || rcn=$?
mkdir -p "$o.stats"
timeout 60 "$MPIEXEC" -n "$np" env LD_PRELOAD="$CS_PRELOAD" \
    COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR="$o.stats" "$app" \
    --case 19 > "$o.shim.out" 2> "$o.shim.err" || rcs=$?
if [ "$rcn" -eq 0 ] && [ "$rcs" -eq 0 ] && grep -q 'sub(C) sum' "$o.shim.out" &&
   cmp -s "$o.native.out" "$o.shim.out" &&
   "${PYTHON:-python3}" "$CS_TOP/test_apps/lib/check_stats.py" "$o.stats" \
       --routine-regex '^pdtran_$' --expect-engine-calls 2 --no-fallback \
       > "$o.stats.txt" 2>&1; then
    echo "ok    tran_badarg --case 19: M_A differs, served on the engine, same C digest"
else
    fails=$((fails + 1))
    echo "FAIL  tran_badarg --case 19: exit native $rcn shim $rcs, or output or report wrong"
    tail -n 3 "$o.shim.err" "$o.stats.txt" 2> /dev/null | sed 's/^/      | /'
fi

for n2 in 2 4; do
    pre=""
    [ "$n2" -gt "$ncores" ] && pre=$yield
    o=$CS_OUT/abort.np$n2
    rcn=0 rcs=0
    timeout 120 "$MPIEXEC" -n "$n2" env ${pre:+LD_PRELOAD=$pre} "$app2" \
        > "$o.native.out" 2> "$o.native.err" || rcn=$?
    timeout 120 "$MPIEXEC" -n "$n2" env LD_PRELOAD="$CS_PRELOAD${pre:+:$pre}" \
        "$app2" > "$o.shim.out" 2> "$o.shim.err" || rcs=$?
    for s in native shim; do
        grep -E "PBLAS ERROR|Parameter number" "$o.$s.err" | sort \
            > "$o.$s.lines" || true
    done
    bad=()
    [ "$rcn" -eq 0 ] && grep -q '^cs_test: OK' "$o.native.out" ||
        bad+=("native run failed (exit $rcn)")
    [ "$rcs" -eq 0 ] && grep -q '^cs_test: OK' "$o.shim.out" ||
        bad+=("shim run failed (exit $rcs)")
    cmp -s "$o.native.out" "$o.shim.out" || bad+=("stdout differs")
    cmp -s "$o.native.lines" "$o.shim.lines" ||
        bad+=("PBLAS ERROR lines differ")
    if [ "${#bad[@]}" -eq 0 ]; then
        echo "ok    tran_badarg_abort np=$n2: own PB_Cabort returns, same" \
             "INFO, C untouched, $(wc -l < "$o.native.lines") PBLAS lines match"
    else
        fails=$((fails + 1))
        echo "FAIL  tran_badarg_abort np=$n2: $(IFS=,; echo "${bad[*]}")"
        diff "$o.native.out" "$o.shim.out" | head -n 8 | sed 's/^/      /'
        diff "$o.native.lines" "$o.shim.lines" | grep '^[<>]' | head -n 4 |
            sed 's/^/      /'
        grep -v '^ *$' "$o.shim.err" | grep -v 'PBLAS ERROR' | head -n 6 |
            sed 's/^/      shim stderr: /'
    fi
done
exit $((fails > 0))
