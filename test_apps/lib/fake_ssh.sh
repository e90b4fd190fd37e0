#!/usr/bin/env bash
# test_apps/lib/fake_ssh.sh - what Open MPI's launcher takes for ssh when
# mpiexec_nodes.sh emulates several nodes on this machine: drops ssh's
# options and the host name and runs the remote command here.
while [[ "${1:-}" == -* ]]; do
    shift
done
shift # the host
exec bash -c "$*"
