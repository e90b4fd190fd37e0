#!/usr/bin/env bash
# test_apps/lib/fake_ssh.sh - what Open MPI's launcher takes for ssh when
# mpiexec_nodes.sh emulates several nodes on this machine: drops ssh's
# options and the host name and runs the remote command here, with a
# temporary directory of the host's own.  RATIONALE: every daemon gets the
# same host name from gethostname(), so without it they share one session
# directory, and PMIx's shared data store of one daemon could clobber
# another's (a launch hung once in 25_emulated_nodes with "PMIX ERROR:
# ERROR in file .../dstore_base.c"); on real nodes each has its own /tmp.
while [[ "${1:-}" == -* ]]; do
    shift
done
host=${1:?fake_ssh.sh: no host}
shift
TMPDIR=${TMPDIR:-/tmp}/cs_fake_node.$host.$(id -u)
mkdir -p "$TMPDIR" || exit 1
export TMPDIR
exec bash -c "$*"
