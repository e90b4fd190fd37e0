#!/usr/bin/env bash
# test_apps/lib/mpiexec_nodes.sh - the checks' launcher ($CS_NODES_MPIEXEC,
# default mpiexec.mpich) with the ranks spread over emulated nodes on this
# one machine: CS_NODE_SIZE ranks per node (default 2), as many nodes as
# -n needs, consecutive ranks on one node.  MPI then treats them as
# separate nodes (MPI_COMM_TYPE_SHARED splits them, traffic between them
# takes the network path), which is what the shim's node-aware parts need
# to be tested against.
#   MPICH:    mpiexec.mpich -launcher fork -hosts 127.0.0.1:K,127.0.0.2:K...
#   Open MPI: its launcher starts a daemon per "host" through
#             test_apps/lib/fake_ssh.sh (the command runs here), over the
#             TCP transport only: its shared-memory transport (vader) mixes
#             up the daemons' segments and crashes in MPI_Init.
# CS_NODES_FLAVOUR=openmpi selects the second (the checks set it from
# CS_MPI); the launcher itself is CS_NODES_MPIEXEC (mpiexec_openmpi.sh for
# Open MPI, which also translates -genv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
size=${CS_NODE_SIZE:-2}
np=1
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
        -n | -np) np=${args[i + 1]}; break ;;
    esac
done
nodes=$(((np + size - 1) / size))
hosts=""
for ((k = 0; k < nodes; k++)); do
    hosts+="${hosts:+,}127.0.0.$((k + 2)):$size"
done
if [ "${CS_NODES_FLAVOUR:-mpich}" = openmpi ]; then
    exec "${CS_NODES_MPIEXEC:-$here/mpiexec_openmpi.sh}" \
        --mca plm_rsh_agent "$here/fake_ssh.sh" --mca btl self,tcp \
        --host "$hosts" "$@"
fi
exec "${CS_NODES_MPIEXEC:-mpiexec.mpich}" -launcher fork -hosts "$hosts" "$@"
