#!/usr/bin/env bash
# test_apps/checks/25_emulated_nodes.sh - the shim on several nodes, which
# one machine emulates (test_apps/lib/mpiexec_nodes.sh: MPICH's fork
# launcher with one "host" per node; Open MPI's launcher with a local
# stand-in for ssh).  MPI then splits the ranks into nodes
# (MPI_COMM_TYPE_SHARED) and sends between them through its network path.
#   1. The differential sweeps (test_apps/fuzz_run.sh: gemr2d_sweep and
#      tran_sweep natively and under the shim, compared config by config)
#      on 2 nodes x 1 rank, 3 x 1 and 2 x 2, grids spanning the nodes, with
#      the shared send buffer made at the first call that can use it
#      (COSTA_SHIM_SHM=eager, from 1 KiB): it may serve only peers on the
#      sender's node (a signal read on another node aborts the run, a
#      package read from the wrong place changes the digests).
#   2. The report counts each rank's sent bytes inside and across nodes:
#      bytes_node + bytes_net = bytes_sent, bytes_node = 0 with one rank per
#      node, bytes_net > 0 whenever there are several nodes; the report
#      tool's HTML page has the chart of them.
#   3. The relabeling checks 60, 61 and 62 on 2 nodes x 2 ranks.
# CS_CHECK_FULL=1: four times the configurations.
# Environment (run_checks.sh): CS_MPI, CS_SHIM, CS_PRELOAD, MPIEXEC,
# BUILD_DIR, CS_OUT, PYTHON, CS_CHECK_FULL.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/checks_lib.sh"
: "${CS_SHIM:?}" "${MPIEXEC:?}" "${BUILD_DIR:?}" "${CS_OUT:?}"
PYTHON=${PYTHON:-python3}
cs_fresh_dir "$CS_OUT"
mult=1
[ "${CS_CHECK_FULL:-0}" = 1 ] && mult=4
export CS_NODES_FLAVOUR=$CS_MPI CS_NODES_MPIEXEC=$MPIEXEC
nodes_mpiexec=$here/../lib/mpiexec_nodes.sh
fails=0

# nodes SIZE NP: the sweeps on NP ranks, SIZE per node
nodes() {
    local size=$1 np=$2 prog count d
    for prog in gemr2d_sweep tran_sweep; do
        [ "$prog" = gemr2d_sweep ] && count=120 || count=80
        d=$CS_OUT/$prog.$np.$size
        if ! CS_NODE_SIZE=$size MPIEXEC=$nodes_mpiexec "$here/../fuzz_run.sh" \
                --mpi "$CS_MPI" --np "$np" --prog "$prog" \
                --seed $((2500 + np * 10 + size)) --count $((count * mult)) \
                --env "COSTA_SHIM_SHM=eager COSTA_SHIM_SHM_MIN=0 COSTA_SHIM_STATS=summary COSTA_SHIM_STATS_DIR=$d.stats" \
                --out "$d"; then
            fails=$((fails + 1))
            continue
        fi
        local res
        res=$("$PYTHON" - "$d.stats" <<'PY'
import glob, json, sys
rep = json.load(open(glob.glob(sys.argv[1] + "/costa_shim.*.json")[0]))
t = {k: sum(r[k] for r in rep["routines"] if r["path"] == "engine")
     for k in ("bytes_sent", "bytes_node", "bytes_net")}
print(t["bytes_sent"], t["bytes_node"], t["bytes_net"])
PY
)
        local sent node net
        read -r sent node net <<< "$res"
        local why=""
        [ "$((node + net))" = "$sent" ] || why="node + net != sent"
        [ "$size" = 1 ] && [ "$node" != 0 ] && why="bytes inside a node with one rank per node"
        [ "$np" -gt "$size" ] && [ "${net:-0}" -le 0 ] && why="no bytes across nodes"
        # the report tool's page plots them (bars of its across-nodes
        # colour when any byte crossed nodes)
        "$PYTHON" "$here/../../scripts/costa_shim_report.py" plot \
            "$d.stats"/costa_shim.*.json --out "$d.html" > /dev/null 2>&1
        if ! grep -q 'Bytes kept, inside nodes and across nodes' "$d.html" ||
           { [ "$net" -gt 0 ] && ! grep -q 'fill="#e6550d">' "$d.html"; }; then
            why="$why no across-nodes chart in $d.html"
        fi
        if [ -z "$why" ] && [ -n "$sent" ]; then
            cs_report ok "$prog on $((np / size)) nodes x $size: same digests; sent $sent bytes, $node inside nodes, $net across"
        else
            cs_report FAIL "$prog on $np ranks, $size per node: report [$res]: $why"
        fi
    done
}

nodes 1 2
nodes 1 3
nodes 2 4

# the relabeling checks, their 4 ranks on 2 nodes of 2
for c in 60_relabel_report 61_relabel_apply 62_relabel_subgrid; do
    if CS_NODE_SIZE=2 MPIEXEC=$nodes_mpiexec CS_OUT=$CS_OUT/$c \
            bash "$here/$c.sh" > "$CS_OUT/$c.log" 2>&1; then
        cs_report ok "$c on 2 nodes x 2"
    else
        cs_report FAIL "$c on 2 nodes x 2:"
        grep FAIL "$CS_OUT/$c.log" | head -n 5 | sed 's/^/      | /'
    fi
done
exit $((fails > 0))
