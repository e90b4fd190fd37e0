/*
 * engine/messages.c - how a package is cut into MPI messages, and which of
 * them a receiver takes straight into B instead of unpacking.
 *
 * RATIONALE: a package holds whole row-group x column-group blocks in A's
 * orientation, column-major.  When a block's rows are one contiguous run
 * of the receiver's local B and span its whole local column (the block's
 * height is B's leading dimension), each run of B columns of that block is
 * one contiguous range of B: received there, it needs no unpack pass.
 * Measured on the CI machine (plain MPICH/UCX program, 32 MiB in 32 ranges
 * of 1 MiB): received into a buffer and copied out 3.4 ms, received as 32
 * messages straight into the target 1.7 ms; one message with an hindexed
 * datatype 5.8 ms (MPICH unpacks it through its own buffer), so messages,
 * not datatypes.
 *
 * Both sides must cut a package the same way, and the sender does not know
 * the receiver's leading dimension, so the cut depends only on what every
 * rank knows: the operation and the overlay's cut runs (the part of a
 * column group inside one B block, consecutive in the index: global, while
 * the other runs depend on each rank's local storage).  A package is cut
 * per cut run of each of its blocks; only plain copies (no transpose,
 * arithmetic, conjugate or mask: unpacking would compute something) are
 * cut, and only when the pieces average CS_ENG_MSG_MIN_BYTES, so that many
 * small messages never replace one large one.  The receiver takes a piece
 * straight into B when it is whole local columns of its column-major B;
 * the sender sends it straight from A when it is whole local columns of A.
 * Chunking to the message size limit happens on top, in exchange.c.  No
 * MPI.
 */
#include <stdlib.h>

#include "engine/engine_int.h"

/* Smallest average piece for which a package is cut (the per-message cost
 * of MPI is a few microseconds; 256 KiB move in about 10). */
#define CS_ENG_MSG_MIN_BYTES ((int64_t)256 << 10)

/* 1 if packages of this plan may be cut (the same answer on every rank). */
static int cuttable(const cs_eng_exch_t *plan)
{
    return !plan->op.trans && cs_eng_xform_plain(&plan->xf);
}

/* The pieces of the package of pe, in package order, into out (NULL:
 * count only); returns their number.  One piece per cut run (the part of a
 * column group inside one B block) of each block. */
static int64_t pieces(const cs_eng_exch_t *plan, const cs_eng_peer_t *pe,
                      const cs_eng_combo_t *combos, cs_eng_msg_t *out)
{
    int64_t n = 0, es = (int64_t)plan->op.esize;
    for (int64_t k = pe->first; k < pe->first + pe->count; k++) {
        const cs_eng_group_t *rg = &plan->rows.group[combos[k].rg];
        const cs_eng_group_t *cg = &plan->cols.group[combos[k].cg];
        int64_t R = rg->total;
        const cs_eng_run_t *cr = plan->cols.runs[CS_ENG_SIDE_CUT] +
                                 cg->run_first[CS_ENG_SIDE_CUT];
        for (int64_t j = 0; j < cg->run_count[CS_ENG_SIDE_CUT]; j++, n++) {
            if (out) {
                out[n] = (cs_eng_msg_t){combos[k].off + cr[j].pos * R * es,
                                        cr[j].len * R * es, -1, 0};
            }
        }
    }
    return n;
}

/* The local offset of run r on one side. */
static int64_t run_off(const cs_eng_run_t *r, int side)
{
    return side == CS_ENG_SIDE_A ? r->offa : r->offb;
}

/*
 * Mark the blocks of pe whose pieces are each one contiguous range of this
 * rank's local array on `side` (A when sending, B when receiving), and give
 * their messages the ranges' byte offsets: the block's rows are all of the
 * array's local rows, in one run, and each piece lies in one run of its
 * columns (for B always: a piece is inside one B block).
 */
static void mark_direct(const cs_eng_exch_t *plan, int side,
                        const cs_eng_peer_t *pe, cs_eng_combo_t *combos,
                        cs_eng_msg_t *msg)
{
    int a = side == CS_ENG_SIDE_A;
    int64_t ld = a ? plan->a_ld : plan->b_ld;
    if ((a ? plan->a_order : plan->b_order) != CS_ENG_COLMAJOR) {
        return;
    }
    int64_t m = 0, es = (int64_t)plan->op.esize;
    for (int64_t k = pe->first; k < pe->first + pe->count; k++) {
        const cs_eng_group_t *rg = &plan->rows.group[combos[k].rg];
        const cs_eng_group_t *cg = &plan->cols.group[combos[k].cg];
        const cs_eng_run_t *rr = plan->rows.runs[side] + rg->run_first[side];
        const cs_eng_run_t *xr = plan->cols.runs[side] + cg->run_first[side];
        const cs_eng_run_t *cr = plan->cols.runs[CS_ENG_SIDE_CUT] +
                                 cg->run_first[CS_ENG_SIDE_CUT];
        int64_t ncut = cg->run_count[CS_ENG_SIDE_CUT];
        int64_t nx = cg->run_count[side];
        int direct = rg->run_count[side] == 1 && rg->total == ld &&
                     run_off(rr, side) == 0;
        /* both run lists are in position order: walk them together */
        int64_t i = 0;
        for (int64_t j = 0; direct && j < ncut; j++) {
            while (i < nx && xr[i].pos + xr[i].len <= cr[j].pos) {
                i++;
            }
            direct = i < nx && xr[i].pos <= cr[j].pos &&
                     cr[j].pos + cr[j].len <= xr[i].pos + xr[i].len;
            if (direct) {
                msg[m + j].doff =
                    (run_off(&xr[i], side) + cr[j].pos - xr[i].pos) * ld * es;
            }
        }
        for (int64_t j = 0; !direct && j < ncut; j++) {
            msg[m + j].doff = -1;
        }
        combos[k].direct = direct;
        m += ncut;
    }
}

/* Room in the buffer for what is neither sent from A nor received into B
 * directly: offsets of the peers' parts, blocks and messages; returns the
 * bytes needed.  RATIONALE: a buffer sized for whole packages would be
 * mapped and faulted in on the first call for nothing (a 4000 x 4000
 * pdgemr2d 36 -> 128 on 1 x 2 sends and receives everything directly). */
static int64_t place(const cs_eng_exch_t *plan, int npeer,
                     cs_eng_peer_t *peer, cs_eng_combo_t *combos,
                     cs_eng_msg_t *msg)
{
    int64_t ws = 0;
    for (int p = 0; p < npeer; p++) {
        cs_eng_peer_t *pe = &peer[p];
        cs_eng_msg_t *m = msg + pe->msg_first;
        pe->buf_off = ws;
        if (pe->zc_off >= 0) {
            continue; /* sent from or received into the array whole */
        }
        int64_t used = 0;
        for (int64_t k = pe->first; k < pe->first + pe->count; k++) {
            combos[k].buf = combos[k].direct ? -1 : used;
            used += combos[k].direct ? 0 : combos[k].bytes;
        }
        if (pe->msg_count == 1) {
            m[0].buf = 0; /* not cut: nothing is direct */
        } else {
            int64_t j = 0;
            for (int64_t k = pe->first; k < pe->first + pe->count; k++) {
                const cs_eng_group_t *cg = &plan->cols.group[combos[k].cg];
                for (int64_t c = 0; c < cg->run_count[CS_ENG_SIDE_CUT];
                     c++, j++) {
                    m[j].buf = combos[k].direct
                                   ? -1
                                   : combos[k].buf + m[j].off - combos[k].off;
                }
            }
        }
        ws += used;
    }
    return ws;
}

/* The messages of every peer of one direction into *msg_p. */
static cs_status_t cut(const cs_eng_exch_t *plan, int npeer,
                       cs_eng_peer_t *peer, cs_eng_combo_t *combos,
                       int receiving, cs_eng_msg_t **msg_p, int64_t *ws_p)
{
    int ok = cuttable(plan);
    int64_t total = 0;
    for (int p = 0; p < npeer; p++) {
        int64_t n = ok ? pieces(plan, &peer[p], combos, NULL) : 1;
        if (n > 1 && peer[p].bytes / n < CS_ENG_MSG_MIN_BYTES) {
            n = 1;
        }
        peer[p].msg_first = total;
        peer[p].msg_count = n;
        total += n;
    }
    cs_eng_msg_t *msg = malloc(((size_t)total + 1) * sizeof(*msg));
    if (!msg) {
        return CS_ERR_NOMEM;
    }
    for (int p = 0; p < npeer; p++) {
        cs_eng_msg_t *m = msg + peer[p].msg_first;
        if (peer[p].msg_count == 1) {
            m[0] = (cs_eng_msg_t){0, peer[p].bytes, -1, 0};
            continue;
        }
        pieces(plan, &peer[p], combos, m);
        if (peer[p].zc_off >= 0) {
            continue; /* the whole package is one range already */
        }
        mark_direct(plan, receiving ? CS_ENG_SIDE_B : CS_ENG_SIDE_A,
                    &peer[p], combos, m);
    }
    *ws_p = place(plan, npeer, peer, combos, msg);
    *msg_p = msg;
    return CS_OK;
}

cs_status_t cs_eng_exch_messages(cs_eng_exch_t *plan)
{
    cs_status_t st = cut(plan, plan->nsend, plan->send, plan->send_combo, 0,
                         &plan->send_msg, &plan->send_ws);
    if (st == CS_OK) {
        st = cut(plan, plan->nrecv, plan->recv, plan->recv_combo, 1,
                 &plan->recv_msg, &plan->recv_ws);
    }
    return st;
}
