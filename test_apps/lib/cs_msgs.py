"""cs_msgs.py - MPI messages the engine sends for one message of n bytes.

Small messages go in pieces MPI sends eagerly (engine/engine_int.h,
cs_eng_msg_piece): MPICH 8 KiB pieces for 8-64 KiB, Open MPI 2 KiB pieces
for 2-16 KiB; others whole (below 1 GiB).  The report checks' analytic
message counts use it (flavour from CS_MPI, as run_checks.sh sets it).
"""
import os

PIECES = {"mpich": (8192, 65536), "openmpi": (2048, 16384)}


def msgs(nbytes, flavour=None):
    """MPI messages for one engine message of nbytes (0 for none)."""
    piece, most = PIECES[flavour or os.environ.get("CS_MPI", "mpich")]
    if nbytes <= 0:
        return 0
    if piece < nbytes <= most:
        return -(-nbytes // piece)
    return 1
