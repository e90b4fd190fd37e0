/*
 * engine/plan.c - from two layouts and an operation to the list of packages
 * this rank sends and receives and the blocks it copies locally: the plan
 * of one exchange (cs_eng_exch_t), which exchange.c executes and panels.c
 * makes one of per panel.  This file owns the plan's memory, the request
 * arrays its execution fills included.
 *
 * A package from rank s to rank d holds, for every grid cell (ra, ca) of A
 * owned by s and every cell (rb, cb) of B owned by d, the product of the row
 * group (ra -> rb) and the column group (ca -> cb), stored column-major in
 * A's orientation.  Those blocks are ordered by (row group, column group),
 * groups by (pa, pb), which both ranks know from global information, so
 * sender and receiver agree on every byte position without talking.
 * Cost: O(overlay segments) time, O(P) to read the grid tables; the plan
 * keeps O(segments of its own groups + blocks of its packages + peers).
 *
 * No MPI calls.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

typedef struct {
    int peer;
    int64_t rg, cg;
    int64_t elems; /* that travel (block_elems) */
} tuple_t;

typedef struct {
    tuple_t *v;
    int64_t n, cap;
} tuple_vec_t;

static int tuple_push(tuple_vec_t *tv, int peer, int64_t rg, int64_t cg,
                      int64_t elems)
{
    if (tv->n == tv->cap) {
        int64_t cap = tv->cap ? 2 * tv->cap : 64;
        tuple_t *v = realloc(tv->v, (size_t)cap * sizeof(*v));
        if (!v) {
            return -1;
        }
        tv->v = v;
        tv->cap = cap;
    }
    tv->v[tv->n++] = (tuple_t){peer, rg, cg, elems};
    return 0;
}

static int tuple_cmp(const void *x, const void *y)
{
    const tuple_t *a = x, *b = y;
    if (a->peer != b->peer) {
        return a->peer < b->peer ? -1 : 1;
    }
    if (a->rg != b->rg) {
        return a->rg < b->rg ? -1 : 1;
    }
    return a->cg < b->cg ? -1 : (a->cg > b->cg);
}

static int layout_ok(const cs_eng_layout_t *l)
{
    return l->nprow >= 1 && l->npcol >= 1 && l->grid &&
           l->rows.nprocs == l->nprow && l->cols.nprocs == l->npcol &&
           cs_eng_dist_check(&l->rows) == CS_OK &&
           cs_eng_dist_check(&l->cols) == CS_OK &&
           (l->order == CS_ENG_COLMAJOR || l->order == CS_ENG_ROWMAJOR);
}

/* Elements of the (rg, cg) block that travel (trapezoid.c). */
static int64_t block_elems(const cs_eng_exch_t *plan, int64_t rg, int64_t cg)
{
    return cs_eng_block_elems(&plan->rows, &plan->cols, plan->compact,
                              &plan->xf, &plan->rows.group[rg],
                              &plan->cols.group[cg]);
}

/* Turn sorted tuples into peers and combos with byte offsets. */
static cs_status_t tuples_to_peers(const cs_eng_exch_t *plan,
                                   const tuple_vec_t *tv, int *npeer_p,
                                   cs_eng_peer_t **peer_p,
                                   cs_eng_combo_t **combo_p,
                                   int64_t *bytes_p)
{
    int npeer = 0;
    for (int64_t i = 0; i < tv->n; i++) {
        if (i == 0 || tv->v[i].peer != tv->v[i - 1].peer) {
            npeer++;
        }
    }
    cs_eng_peer_t *peer = calloc((size_t)npeer + 1, sizeof(*peer));
    cs_eng_combo_t *combo = malloc(((size_t)tv->n + 1) * sizeof(*combo));
    if (!peer || !combo) {
        free(peer);
        free(combo);
        return CS_ERR_NOMEM;
    }
    int64_t total = 0;
    int p = -1;
    for (int64_t i = 0; i < tv->n; i++) {
        const tuple_t *t = &tv->v[i];
        if (i == 0 || t->peer != tv->v[i - 1].peer) {
            p++;
            peer[p].peer = t->peer;
            peer[p].first = i;
            peer[p].buf_off = total;
        }
        int64_t bytes = t->elems * (int64_t)plan->op.esize;
        combo[i] =
            (cs_eng_combo_t){t->rg, t->cg, peer[p].bytes, 0, 0, bytes};
        peer[p].bytes += bytes;
        peer[p].count++;
        total += bytes;
    }
    *npeer_p = npeer;
    *peer_p = peer;
    *combo_p = combo;
    *bytes_p = total;
    return CS_OK;
}

/*
 * Zero copy: the byte offset of the package of peer pe inside the local
 * array of A (side A, sending) or B (side B, receiving) when the package is
 * exactly one contiguous range there, in the same order; -1 otherwise.  A
 * package is stored column-major in A's orientation (see exchange.c), so it
 * is one range when it is a single block whose columns are whole columns
 * of the array (or a single column).  Receiving directly is only possible
 * when unpacking would be a plain copy in the same orientation.
 */
static int64_t zero_copy_offset(const cs_eng_exch_t *plan,
                                const cs_eng_peer_t *pe,
                                const cs_eng_combo_t *combos, int side)
{
    if (pe->count != 1 || plan->compact) {
        return -1;
    }
    const cs_eng_group_t *rg = &plan->rows.group[combos[pe->first].rg];
    const cs_eng_group_t *cg = &plan->cols.group[combos[pe->first].cg];
    if (rg->run_count[side] != 1 || cg->run_count[side] != 1) {
        return -1;
    }
    const cs_eng_run_t *r = plan->rows.runs[side] + rg->run_first[side];
    const cs_eng_run_t *c = plan->cols.runs[side] + cg->run_first[side];
    int tr = side == CS_ENG_SIDE_A && plan->op.trans;
    /* the array's rows and columns of the package, local offsets */
    int64_t rows = tr ? c->len : r->len, cols = tr ? r->len : c->len;
    int64_t roff = side == CS_ENG_SIDE_A ? (tr ? c->offa : r->offa) : r->offb;
    int64_t coff = side == CS_ENG_SIDE_A ? (tr ? r->offa : c->offa) : c->offb;
    int order = side == CS_ENG_SIDE_A ? plan->a_order : plan->b_order;
    int64_t ld = side == CS_ENG_SIDE_A ? plan->a_ld : plan->b_ld;
    if (order != CS_ENG_COLMAJOR || (cols != 1 && rows != ld)) {
        return -1;
    }
    if (side == CS_ENG_SIDE_B &&
        (!cs_eng_xform_plain(&plan->xf) || plan->op.trans)) {
        return -1;
    }
    return (roff + coff * ld) * (int64_t)plan->op.esize;
}

int cs_eng_a_owner(const cs_eng_layout_t *a, int trans,
                   const cs_eng_group_t *rg, const cs_eng_group_t *cg)
{
    return trans ? a->grid[cg->pa * a->npcol + rg->pa]
                 : a->grid[rg->pa * a->npcol + cg->pa];
}

static cs_status_t collect(cs_eng_exch_t *plan, const cs_eng_layout_t *a,
                           const cs_eng_layout_t *b, int me,
                           tuple_vec_t *send, tuple_vec_t *recv,
                           tuple_vec_t *local)
{
    const cs_eng_overlay_t *ro = &plan->rows, *co = &plan->cols;
    int64_t rf, rc, cf, cc;
    for (int pr = 0; pr < a->nprow; pr++) {
        for (int pc = 0; pc < a->npcol; pc++) {
            if (a->grid[pr * a->npcol + pc] != me) {
                continue;
            }
            /* the target-row overlay pairs with A's rows, or its columns */
            int tr = plan->op.trans ? pc : pr, tc = plan->op.trans ? pr : pc;
            cs_eng_overlay_groups_pa(ro, tr, &rf, &rc);
            cs_eng_overlay_groups_pa(co, tc, &cf, &cc);
            for (int64_t rg = rf; rg < rf + rc; rg++) {
                for (int64_t cg = cf; cg < cf + cc; cg++) {
                    int dst = b->grid[ro->group[rg].pb * b->npcol +
                                      co->group[cg].pb];
                    if (dst < 0) {
                        return CS_ERR_BAD_DESC;
                    }
                    tuple_vec_t *tv = dst == me ? local : send;
                    int64_t n = block_elems(plan, rg, cg);
                    if (n == 0) {
                        continue; /* outside the trapezoid */
                    }
                    if (tuple_push(tv, dst, rg, cg, n)) {
                        return CS_ERR_NOMEM;
                    }
                }
            }
        }
    }
    for (int pr = 0; pr < b->nprow; pr++) {
        for (int pc = 0; pc < b->npcol; pc++) {
            if (b->grid[pr * b->npcol + pc] != me) {
                continue;
            }
            cs_eng_overlay_groups_pb(ro, pr, &rf, &rc);
            cs_eng_overlay_groups_pb(co, pc, &cf, &cc);
            for (int64_t i = rf; i < rf + rc; i++) {
                for (int64_t j = cf; j < cf + cc; j++) {
                    int64_t rg = ro->by_pb[i], cg = co->by_pb[j];
                    int src = cs_eng_a_owner(a, plan->op.trans,
                                             &ro->group[rg], &co->group[cg]);
                    if (src < 0) {
                        return CS_ERR_BAD_DESC;
                    }
                    if (src == me) {
                        continue;
                    }
                    int64_t n = block_elems(plan, rg, cg);
                    if (n > 0 && tuple_push(recv, src, rg, cg, n)) {
                        return CS_ERR_NOMEM;
                    }
                }
            }
        }
    }
    return CS_OK;
}

/*
 * RATIONALE: the overlays cover the whole operation, O(blocks per
 * dimension), but a plan lives on in the shim's plan cache; it keeps only
 * the groups whose A or B coordinate is one of this rank's, which is all
 * collect() and execution look at.  O(P) to read the grid tables.
 */
static cs_status_t keep_own_groups(cs_eng_exch_t *plan,
                                   const cs_eng_layout_t *a,
                                   const cs_eng_layout_t *b, int me)
{
    int tr = plan->op.trans;
    int nra = tr ? a->npcol : a->nprow, nca = tr ? a->nprow : a->npcol;
    unsigned char *ra = calloc((size_t)nra + (size_t)nca + (size_t)b->nprow +
                                   (size_t)b->npcol,
                               1);
    if (!ra) {
        return CS_ERR_NOMEM;
    }
    unsigned char *ca = ra + nra, *rb = ca + nca, *cb = rb + b->nprow;
    for (int pr = 0; pr < a->nprow; pr++) {
        for (int pc = 0; pc < a->npcol; pc++) {
            if (a->grid[pr * a->npcol + pc] == me) {
                ra[tr ? pc : pr] = 1;
                ca[tr ? pr : pc] = 1;
            }
        }
    }
    for (int pr = 0; pr < b->nprow; pr++) {
        for (int pc = 0; pc < b->npcol; pc++) {
            if (b->grid[pr * b->npcol + pc] == me) {
                rb[pr] = 1;
                cb[pc] = 1;
            }
        }
    }
    cs_status_t st = cs_eng_overlay_restrict(&plan->rows, ra, rb);
    if (st == CS_OK) {
        st = cs_eng_overlay_restrict(&plan->cols, ca, cb);
    }
    free(ra);
    return st;
}

static int op_ok(const cs_eng_layout_t *a, const cs_eng_layout_t *b,
                 const cs_eng_op_t *op);

cs_status_t cs_eng_op_overlays(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, cs_eng_overlay_t *rows_p,
                               cs_eng_overlay_t *cols_p)
{
    /* target rows pair with A's rows, or with A's columns when transposed */
    cs_eng_dist_t ar, ac, br, bc;
    int tr = op->trans;
    cs_eng_dist_normalize(tr ? &a->cols : &a->rows, &ar);
    cs_eng_dist_normalize(tr ? &a->rows : &a->cols, &ac);
    cs_eng_dist_normalize(&b->rows, &br);
    cs_eng_dist_normalize(&b->cols, &bc);
    int64_t ai = tr ? op->ja : op->ia;
    int64_t aj = tr ? op->ia : op->ja;
    int keep = op->mask != CS_ENG_MASK_NONE;
    cs_status_t st =
        cs_eng_overlay_build(&ar, ai, &br, op->ib, op->m, keep, rows_p);
    if (st == CS_OK) {
        st = cs_eng_overlay_build(&ac, aj, &bc, op->jb, op->n, keep, cols_p);
        if (st != CS_OK) {
            cs_eng_overlay_free(rows_p);
        }
    }
    return st;
}

int cs_eng_op_ok(const cs_eng_layout_t *a, const cs_eng_layout_t *b,
                 const cs_eng_op_t *op)
{
    return op_ok(a, b, op);
}

static int op_ok(const cs_eng_layout_t *a, const cs_eng_layout_t *b,
                 const cs_eng_op_t *op)
{
    int64_t arows = op->trans ? op->n : op->m;
    int64_t acols = op->trans ? op->m : op->n;
    int typed = op->type >= CS_ENG_T_S && op->type <= CS_ENG_T_Z;
    static const size_t tsize[] = {0, 4, 8, 8, 16};
    return layout_ok(a) && layout_ok(b) && op->m >= 0 && op->n >= 0 &&
           op->esize > 0 && op->ia >= 0 && op->ja >= 0 && op->ib >= 0 &&
           op->jb >= 0 && op->ia + arows <= a->rows.n &&
           op->ja + acols <= a->cols.n && op->ib + op->m <= b->rows.n &&
           op->jb + op->n <= b->cols.n &&
           (op->type == CS_ENG_T_RAW ||
            (typed && tsize[op->type] == op->esize)) &&
           ((!op->axpby && !op->conj && !op->add_zero) || typed) &&
           op->mask >= CS_ENG_MASK_NONE && op->mask <= CS_ENG_MASK_LOWER;
}

/* One send peer as ordered by send_order_cmp. */
typedef struct {
    int64_t bytes;
    int64_t after; /* distance after this rank, wrapping */
    int idx;
} send_key_t;

static int send_order_cmp(const void *x, const void *y)
{
    const send_key_t *a = x, *b = y;
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1;
    }
    return (a->after > b->after) - (a->after < b->after);
}

/*
 * The order in which execution packs and sends: largest packages first (so
 * the longest transfers start earliest and overlap with the packing of the
 * rest), equal ones starting after this rank and wrapping around (so that
 * not every rank sends to the same peer first).
 */
static cs_status_t order_sends(cs_eng_exch_t *plan)
{
    send_key_t *k = malloc(((size_t)plan->nsend + 1) * sizeof(*k));
    plan->send_order = malloc(((size_t)plan->nsend + 1) * sizeof(int));
    if (!k || !plan->send_order) {
        free(k);
        return CS_ERR_NOMEM;
    }
    for (int i = 0; i < plan->nsend; i++) {
        int64_t d = (int64_t)plan->send[i].peer - plan->me;
        k[i] = (send_key_t){plan->send[i].bytes,
                            d > 0 ? d : d + ((int64_t)1 << 32), i};
    }
    qsort(k, (size_t)plan->nsend, sizeof(*k), send_order_cmp);
    for (int i = 0; i < plan->nsend; i++) {
        plan->send_order[i] = k[i].idx;
    }
    free(k);
    return CS_OK;
}

cs_status_t cs_eng_exch_create(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, int me,
                               cs_eng_exch_t **plan_p)
{
    if (!op_ok(a, b, op)) {
        return CS_ERR_BAD_DESC;
    }
    cs_eng_exch_t *plan = calloc(1, sizeof(*plan));
    if (!plan) {
        return CS_ERR_NOMEM;
    }
    plan->op = *op;
    plan->me = me;
    cs_eng_xform_init(op, &plan->xf);
    plan->compact = cs_eng_plan_compact(op, &plan->xf);
    /* RATIONALE: with alpha = 0 PBLAS never reads A, so neither do we: B
     * plays both parts, every block is local and nothing is sent. */
    cs_eng_op_t copy = {.esize = op->esize, .type = CS_ENG_T_RAW};
    cs_eng_xform_init(&copy, &plan->pack_xf);
    if (plan->xf.mode == CS_XM_ZERO || plan->xf.mode == CS_XM_BSCALE ||
        plan->xf.mode == CS_XM_NOP) {
        plan->b_only = 1;
        a = b;
        plan->op.trans = 0;
        plan->op.ia = op->ib;
        plan->op.ja = op->jb;
    }
    plan->a_order = a->order;
    plan->b_order = b->order;
    plan->a_ld = a->ld;
    plan->b_ld = b->ld;
    if (op->m == 0 || op->n == 0 || plan->xf.mode == CS_XM_NOP) {
        *plan_p = plan;
        return CS_OK;
    }

    tuple_vec_t send = {0}, recv = {0}, local = {0};
    cs_status_t st = cs_eng_op_overlays(a, b, &plan->op, &plan->rows,
                                        &plan->cols);
    if (st == CS_OK) {
        st = keep_own_groups(plan, a, b, me);
    }
    if (st == CS_OK) {
        st = collect(plan, a, b, me, &send, &recv, &local);
    }
    if (st == CS_OK) {
        if (send.n > 1) {
            qsort(send.v, (size_t)send.n, sizeof(*send.v), tuple_cmp);
        }
        if (recv.n > 1) {
            qsort(recv.v, (size_t)recv.n, sizeof(*recv.v), tuple_cmp);
        }
        st = tuples_to_peers(plan, &send, &plan->nsend, &plan->send,
                             &plan->send_combo, &plan->send_bytes);
    }
    if (st == CS_OK) {
        st = tuples_to_peers(plan, &recv, &plan->nrecv, &plan->recv,
                             &plan->recv_combo, &plan->recv_bytes);
    }
    if (st == CS_OK) {
        st = order_sends(plan);
    }
    for (int i = 0; st == CS_OK && i < plan->nsend; i++) {
        plan->send[i].zc_off = zero_copy_offset(plan, &plan->send[i],
                                                plan->send_combo,
                                                CS_ENG_SIDE_A);
    }
    for (int i = 0; st == CS_OK && i < plan->nrecv; i++) {
        plan->recv[i].zc_off = zero_copy_offset(plan, &plan->recv[i],
                                                plan->recv_combo,
                                                CS_ENG_SIDE_B);
    }
    if (st == CS_OK) {
        st = cs_eng_exch_messages(plan);
    }
    if (st == CS_OK) {
        plan->nlocal = local.n;
        plan->local_combo =
            malloc(((size_t)local.n + 1) * sizeof(*plan->local_combo));
        if (!plan->local_combo) {
            st = CS_ERR_NOMEM;
        }
        for (int64_t i = 0; st == CS_OK && i < local.n; i++) {
            int64_t bytes = local.v[i].elems * (int64_t)op->esize;
            plan->local_combo[i] = (cs_eng_combo_t){
                local.v[i].rg, local.v[i].cg, 0, 0, 0, bytes};
            plan->self_bytes += bytes;
        }
    }
    free(send.v);
    free(recv.v);
    free(local.v);
    if (st != CS_OK) {
        cs_eng_exch_destroy(plan);
        return st;
    }
    /* Plain copies into targets much larger than the caches stream past
     * them (B, and the send buffer, are written whole before being read
     * again by anyone). */
    plan->xf.stream = plan->self_bytes + plan->recv_bytes >=
                      CS_ENG_STREAM_MIN_BYTES;
    plan->pack_xf.stream = plan->send_bytes >= CS_ENG_STREAM_MIN_BYTES;
    *plan_p = plan;
    return CS_OK;
}

static int64_t overlay_bytes(const cs_eng_overlay_t *ov)
{
    int64_t b = (ov->seg ? ov->nseg * (int64_t)sizeof(*ov->seg) : 0) +
                ov->ngroup * (int64_t)(sizeof(*ov->group) + sizeof(int64_t));
    for (int s = 0; s < CS_ENG_NSIDES; s++) {
        b += ov->nrun[s] * (int64_t)sizeof(*ov->runs[s]);
    }
    return b;
}

int64_t cs_eng_exch_heap_bytes(const cs_eng_exch_t *plan)
{
    int64_t combos = plan->nlocal, msgs = 0;
    for (int p = 0; p < plan->nsend; p++) {
        combos += plan->send[p].count;
        msgs += plan->send[p].msg_count;
    }
    for (int p = 0; p < plan->nrecv; p++) {
        combos += plan->recv[p].count;
        msgs += plan->recv[p].msg_count;
    }
    return (int64_t)sizeof(*plan) + overlay_bytes(&plan->rows) +
           overlay_bytes(&plan->cols) +
           ((int64_t)plan->nsend + plan->nrecv + 2) *
               (int64_t)(sizeof(cs_eng_peer_t) + sizeof(int)) +
           combos * (int64_t)sizeof(cs_eng_combo_t) +
           msgs * (int64_t)sizeof(cs_eng_msg_t) +
           (plan->reqs ? cs_eng_exch_requests_bytes(plan, plan->nreq_cap)
                       : 0);
}

/* Free the request arrays (cs_eng_exch_requests_alloc). */
static void requests_free(cs_eng_exch_t *plan)
{
    free(plan->reqs);
    free(plan->req_peer);
    free(plan->remaining);
    free(plan->test_idx);
    free(plan->statuses);
    free(plan->done_reqs);
    free(plan->sig);
    free(plan->req_head);
    free(plan->rx_signal);
    plan->reqs = NULL;
    plan->req_peer = NULL;
    plan->remaining = NULL;
    plan->test_idx = NULL;
    plan->statuses = NULL;
    plan->done_reqs = NULL;
    plan->sig = NULL;
    plan->req_head = NULL;
    plan->rx_signal = NULL;
    plan->nreq_cap = 0;
}

int64_t cs_eng_exch_requests_bytes(const cs_eng_exch_t *plan, int64_t nreq)
{
    int64_t n = nreq + 1, npeer = plan->nsend + plan->nrecv + 1;
    return n * (int64_t)(sizeof(MPI_Request) + 2 * sizeof(int) +
                         sizeof(MPI_Status) + sizeof(int64_t)) +
           (plan->nrecv + 1) * (int64_t)(sizeof(int64_t) + sizeof(int)) +
           npeer * (int64_t)(sizeof(MPI_Request) + 2 * sizeof(int64_t));
}

cs_status_t cs_eng_exch_requests_alloc(cs_eng_exch_t *plan, int64_t nreq)
{
    /* the per-peer arrays are needed even when no message travels */
    if (plan->reqs && nreq <= plan->nreq_cap) {
        return CS_OK;
    }
    requests_free(plan);
    size_t npeer = (size_t)plan->nsend + (size_t)plan->nrecv + 1;
    size_t n = (size_t)nreq + 1;
    plan->reqs = malloc(n * sizeof(*plan->reqs));
    plan->req_peer = malloc(n * sizeof(*plan->req_peer));
    plan->test_idx = malloc(n * sizeof(*plan->test_idx));
    plan->statuses = malloc(n * sizeof(*plan->statuses));
    plan->remaining =
        malloc(((size_t)plan->nrecv + 1) * sizeof(*plan->remaining));
    plan->done_reqs = malloc(npeer * sizeof(*plan->done_reqs));
    plan->sig = malloc(2 * npeer * sizeof(*plan->sig));
    plan->req_head = malloc(n * sizeof(*plan->req_head));
    plan->rx_signal =
        malloc(((size_t)plan->nrecv + 1) * sizeof(*plan->rx_signal));
    if (!plan->reqs || !plan->req_peer || !plan->remaining ||
        !plan->test_idx || !plan->statuses || !plan->done_reqs ||
        !plan->sig || !plan->req_head || !plan->rx_signal) {
        requests_free(plan);
        return CS_ERR_NOMEM;
    }
    plan->nreq_cap = nreq;
    return CS_OK;
}

void cs_eng_exch_destroy(cs_eng_exch_t *plan)
{
    if (!plan) {
        return;
    }
    cs_eng_overlay_free(&plan->rows);
    cs_eng_overlay_free(&plan->cols);
    free(plan->send);
    free(plan->send_order);
    free(plan->recv);
    free(plan->send_combo);
    free(plan->recv_combo);
    free(plan->send_msg);
    free(plan->recv_msg);
    free(plan->local_combo);
    requests_free(plan);
    free(plan);
}

void cs_eng_exch_summary_add(const cs_eng_exch_t *plan,
                             cs_eng_summary_t *d)
{
    for (int p = 0; p < plan->nsend; p++) {
        d->sblk += plan->send[p].count;
    }
    for (int p = 0; p < plan->nrecv; p++) {
        d->rblk += plan->recv[p].count;
    }
    d->send_peers = plan->nsend > d->send_peers ? plan->nsend : d->send_peers;
    d->recv_peers = plan->nrecv > d->recv_peers ? plan->nrecv : d->recv_peers;
    d->send += plan->send_bytes;
    d->recv += plan->recv_bytes;
    d->self += plan->self_bytes;
    d->lblk += plan->nlocal;
    d->rseg += plan->rows.nseg;
    d->rgrp += plan->rows.ngroup;
    d->cseg += plan->cols.nseg;
    d->cgrp += plan->cols.ngroup;
}
