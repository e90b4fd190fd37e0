#!/usr/bin/env bash
# test_apps/checks/16_relabel_model.sh - the machine model
# (scripts/costa-shim-model, test_apps/unit/relabel_model.c), no MPI:
#   1. on random small layout pairs the identity's bytes leaving their
#      rank (in node + across) equal the crossing volume that relabel_plan
#      computes from the dense matrix, and with equal weights the plain
#      and node-aware relabelings cost what relabel_plan's exact optimum
#      crosses;
#   2. node-aware never costs more than plain or the identity;
#   3. P = 65,536 (256 x 256 grids, nodes of 64) completes, with a peak
#      resident size below 256 MB (bounded memory: the matrix is never
#      P x P; its time is in make bench, not here);
#   4. both tools on the volume's factors (issue 33's case, 400,000 x
#      400,000 from 64 x 64 blocks in row order to 100 x 100 in column
#      order): at P = 65,536 within 30 s of CPU and 100 MB, at P =
#      1,048,576 (1024 x 1024 grids) within 30 s and 1 GB; the plain
#      relabeling saves bytes and the node-aware one costs no more than
#      the plain one nor the identity (targets, 1 s at P = 65,536: see
#      docs/relabel.md; loose bounds here, the machine is shared).
# Environment (run_checks.sh): BUILD_DIR, CS_OUT.
set -uo pipefail
. "$(dirname "$0")/../lib/checks_lib.sh"
: "${BUILD_DIR:?}" "${CS_OUT:?}"
model=$BUILD_DIR/t/unit/relabel_model
plan=$BUILD_DIR/t/unit/relabel_plan
cs_need_files "$model" "$plan"
cs_fresh_dir "$CS_OUT"
fails=0

# field NAME WORD FILE: the number after WORD on the line starting NAME
field() {
    awk -v n="$1" -v w="$2" '$1 == n { for (i = 2; i < NF; i++)
        if ($i == w) { print $(i + 1); exit } }' "$3"
}

RANDOM=1601
for c in $(seq 1 24); do
    p1=$((RANDOM % 4 + 1)) q1=$((RANDOM % 4 + 1))
    p2=$((RANDOM % 4 + 1)) q2=$((RANDOM % 4 + 1))
    # the same number of ranks in both grids, as relabeling needs
    [ $((p1 * q1)) -eq $((p2 * q2)) ] || { p2=$q1 q2=$p1; }
    a="${p1}x${q1}:$((RANDOM % 40 + 1))x$((RANDOM % 40 + 1))"
    b="${p2}x${q2}:$((RANDOM % 40 + 1))x$((RANDOM % 40 + 1))"
    [ $((RANDOM % 2)) = 1 ] && b="$b:C"
    m=$((RANDOM % 300 + 1)) n=$((RANDOM % 300 + 1))
    rpn=$((RANDOM % 3 + 1))
    o=$CS_OUT/c$c
    "$plan" --m "$m" --n "$n" --a "$a" --b "$b" > "$o.plan" 2>&1
    "$model" --m "$m" --n "$n" --a "$a" --b "$b" --rpn "$rpn" \
        --weights 1,1 > "$o.model1" 2>&1
    "$model" --m "$m" --n "$n" --a "$a" --b "$b" --rpn "$rpn" \
        --weights 1,7 > "$o.model7" 2>&1
    idc=$(awk '$1 == "identity" { print $3 }' "$o.plan")
    exc=$(awk '$1 == "exact" { print $3 }' "$o.plan")
    in1=$(field identity node "$o.model1") ac1=$(field identity across "$o.model1")
    cp=$(field plain cost "$o.model1") cn=$(field node-aware cost "$o.model1")
    ci7=$(field identity cost "$o.model7") cp7=$(field plain cost "$o.model7")
    cn7=$(field node-aware cost "$o.model7")
    what="$m x $n $a -> $b, $rpn per node"
    if [ -n "$idc" ] && [ "$((in1 + ac1))" = "$idc" ] && [ "$cp" = "$exc" ] &&
       [ "$cn" = "$exc" ] && [ "$cn7" -le "$cp7" ] && [ "$cn7" -le "$ci7" ]; then
        :
    else
        cs_report FAIL "$what: identity crossing $idc vs $in1 + $ac1, exact $exc vs plain $cp node-aware $cn, weights 1,7: identity $ci7 plain $cp7 node-aware $cn7"
    fi
done
[ "$fails" = 0 ] && cs_report ok "24 random layout pairs: the model's split matches relabel_plan's crossing volumes, node-aware never costs more"

# P = 65536
rc=0
/usr/bin/time -f "%M" -o "$CS_OUT/big.kb" "$model" --m 65536 --n 65536 \
    --a 256x256:64x64 --b 256x256:128x128:C --rpn 64 > "$CS_OUT/big.out" \
    2>&1 || rc=$?
kb=$(tail -n 1 "$CS_OUT/big.kb")
if [ "$rc" = 0 ] && grep -q '^node-aware method' "$CS_OUT/big.out" &&
   [ "${kb:-999999999}" -lt 262144 ]; then
    cs_report ok "P = 65536: peak resident size $kb kB"
else
    cs_report FAIL "P = 65536: exit $rc, peak $kb kB"
    tail -n 5 "$CS_OUT/big.out" | sed 's/^/      | /'
fi
# the tools on the factors: CPU seconds (user + system: the wall clock of
# a shared machine says little) and peak resident size
for g in 256x256:100 1024x1024:1024; do
    grid=${g%%:*} maxmb=${g##*:}
    args=(--m 400000 --n 400000 --a "$grid:64x64" --b "$grid:100x100:C")
    for tool in plan model; do
        extra=()
        [ "$tool" = model ] && extra=(--rpn 64)
        o=$CS_OUT/f_${tool}_$grid
        rc=0
        /usr/bin/time -f "%U %S %M" -o "$o.t" \
            "$BUILD_DIR/t/unit/relabel_$tool" "${args[@]}" "${extra[@]}" \
            > "$o.out" 2>&1 || rc=$?
        read -r us ss kb < <(tail -n 1 "$o.t")
        cpu=$(awk -v u="$us" -v s="$ss" 'BEGIN { print u + s }')
        if [ "$tool" = plan ]; then
            ok=$(awk '$1 == "chosen" && $2 == "kron" && $3 != "identity," {
                     print 1 }' "$o.out")
        else
            ok=$(awk -v c1="$(field identity cost "$o.out")" \
                     -v c2="$(field plain cost "$o.out")" \
                     -v c3="$(field node-aware cost "$o.out")" \
                     'BEGIN { if (c3 != "" && c3 + 0 <= c2 + 0 &&
                                  c2 + 0 < c1 + 0) print 1 }')
        fi
        if [ "$rc" = 0 ] && [ "${ok:-0}" = 1 ] &&
           awk -v c="$cpu" 'BEGIN { exit !(c < 30) }' &&
           [ "${kb:-999999999}" -lt $((maxmb * 1024)) ]; then
            cs_report ok "relabel_$tool $grid on the factors: cpu $cpu s,\
 peak $kb kB"
        else
            cs_report FAIL "relabel_$tool $grid on the factors: exit $rc,\
 cpu $cpu s, peak $kb kB (at most 30 s, $maxmb MB), result ok: ${ok:-0}"
            tail -n 5 "$o.out" | sed 's/^/      | /'
        fi
    done
done
exit $((fails > 0))
