#!/usr/bin/env bash
# test_apps/checks/63_relabel_nodes.sh - node-aware relabeling on emulated
# nodes (test_apps/lib/mpiexec_nodes.sh: 2 nodes of 2 ranks).  relabel_demo
# copies a 96 x 96 matrix from a 4 x 1 grid with 32 x 32 blocks to one with
# 5 x 5 blocks, a case where the relabeling that keeps the most bytes on
# their rank sends more of the rest across nodes than the application's
# mapping (found with scripts/costa-shim-model).
#   * report (default weights 1 and 3): the call shape's report gives the
#     bytes crossing nodes with the application's mapping, after the plain
#     relabeling (not fewer) and after the node-aware one (fewer); the plan
#     is node-aware (nodes 2, net_plan < net_app);
#   * report with COSTA_SHIM_RELABEL_COST_NODE=1 (the plain plan): it keeps
#     as many bytes on their rank, and crosses nodes at least as much;
#   * apply of each plan: B identical to the native run position by
#     position, and the bytes the engine sent across nodes (the report's
#     bytes_net, counted while sending) equal to the plan's net_plan:
#     fewer than without relabeling for the node-aware plan, not fewer for
#     the plain one.
# Environment (run_checks.sh): CS_MPI, CS_SHIM, CS_PRELOAD, MPIEXEC,
# BUILD_DIR, PYTHON, CS_OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
demo=$BUILD_DIR/t/scalapack/relabel_demo
yield=$BUILD_DIR/t/lib/yield_preload.so
cs_need_files "$demo" "$yield" "$CS_SHIM"
cs_fresh_dir "$CS_OUT"
cd "$CS_OUT" || exit 1
export OMP_NUM_THREADS=1 CS_NODE_SIZE=2 CS_NODES_FLAVOUR=$CS_MPI
export CS_NODES_MPIEXEC=$MPIEXEC MPIEXEC=$here/../lib/mpiexec_nodes.sh
unset LD_PRELOAD COSTA_SHIM_RELABEL COSTA_SHIM_RELABEL_PLAN COSTA_SHIM_STATS
fails=0
args=(--grid 4x1 --a 32x32 --b 5x5 --n 96 --calls 10)
shim_env=(COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=.
          COSTA_SHIM_FALLBACK=never COSTA_SHIM_MIN_ELEMS=0)

# plan FILE KEY: a number line of a plan file
plan() { sed -n "s/^$2 //p" "$1"; }

# report_py DIR CODE: python CODE with the report's JSON as rep
report_py() {
    "$PYTHON" - "$1" "$2" <<'PY'
import glob, json, os, sys
rep = json.load(open(glob.glob(os.path.join(sys.argv[1],
                                            "costa_shim.*.json"))[0]))
exec(sys.argv[2])
PY
}
sent_net='print(sum(r["bytes_net"] for r in rep["routines"] if r["path"] == "engine"))'

# same_b NAME: B of run NAME equals the native B, position by position
same_b() {
    cmp -s native.dig <(grep '^digest' "$1/out")
}

cs_run_in native 4 "$yield" -- "$demo" "${args[@]}" || exit 1
grep '^digest' native/out > native.dig
cs_run_in off 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" -- "$demo" \
    "${args[@]}" || exit 1
net_off=$(report_py off "$sent_net")

# ---- the two plans
cs_run_in rep 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
    COSTA_SHIM_RELABEL=report COSTA_SHIM_RELABEL_PLAN="$CS_OUT/node.plan" \
    -- "$demo" "${args[@]}" || exit 1
cs_run_in rep_plain 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
    COSTA_SHIM_RELABEL=report COSTA_SHIM_RELABEL_COST_NODE=1 \
    COSTA_SHIM_RELABEL_PLAN="$CS_OUT/plain.plan" -- "$demo" "${args[@]}" ||
    exit 1
shape=$(report_py rep '
s = [x for x in rep["shapes"] if x.get("relabel_net_bytes") is not None][0]
print(s["relabel_net_bytes"], s["relabel_net_plain_bytes"],
      s["relabel_net_node_bytes"])')
read -r s_app s_plain s_node <<< "$shape"
if [ -n "$s_node" ] && [ "$s_plain" -ge "$s_app" ] && [ "$s_node" -lt "$s_app" ]; then
    cs_report ok "report: bytes crossing nodes per shape: application $s_app, plain relabeling $s_plain, node-aware $s_node"
else
    cs_report FAIL "report: shape across nodes [$shape]"
fi
na=$(plan node.plan net_app) np_=$(plan node.plan net_plan)
pa=$(plan plain.plan net_app) pp=$(plan plain.plan net_plan)
if [ "$(plan node.plan nodes)" = 2 ] && [ -n "$np_" ] && [ "$np_" -lt "$na" ] &&
   [ -n "$pp" ] && [ "$pp" -ge "$pa" ] &&
   [ "$(plan node.plan bytes_plan)" = "$(plan plain.plan bytes_plan)" ]; then
    cs_report ok "plans: across nodes $na -> $np_ node-aware, $pa -> $pp plain (both keep $(plan node.plan bytes_plan) bytes crossing ranks)"
else
    cs_report FAIL "plans: node-aware $na -> $np_, plain $pa -> $pp"
fi

# ---- apply each plan: what the engine actually sent across nodes
for p in node plain; do
    cs_run_in "apply_$p" 4 "$CS_PRELOAD:$yield" "${shim_env[@]}" \
        COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN="$CS_OUT/$p.plan" \
        -- "$demo" "${args[@]}" || continue
    got=$(report_py "apply_$p" "$sent_net")
    want=$(plan "$p.plan" net_plan)
    better=0
    [ -n "$got" ] && [ "$got" -lt "$net_off" ] && better=1
    if same_b "apply_$p" && [ "$got" = "$want" ] &&
       [ "$better" = "$([ "$p" = node ] && echo 1 || echo 0)" ]; then
        cs_report ok "apply $p plan: B identical, $got bytes sent across nodes (without relabeling $net_off)"
    else
        cs_report FAIL "apply $p plan: B identical? $(same_b "apply_$p" && echo yes || echo no); across nodes $got, plan $want, without relabeling $net_off"
    fi
done
exit $((fails > 0))
