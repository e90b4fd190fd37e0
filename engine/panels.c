/*
 * engine/panels.c - bounding a call's workspace by cutting it into panels.
 *
 * An operation whose send and receive buffers would exceed the bound on
 * some rank runs as a sequence of panels: consecutive ranges of whole
 * target columns (or rows, when the target has more rows than columns),
 * each an operation of its own with its own plan, executed one after the
 * other through the same workspace.  Every element is computed as in the
 * uncut operation (the mask's diagonal offset and p?tradd's halo are
 * shifted to the panel), so results are the same bit for bit.
 *
 * RATIONALE: cutting the operation rather than its packages keeps every
 * path of the exchange (pieces sent from A or received into B, the shared
 * send buffer, trapezoids) as it is; a panel is one more exchange, whose
 * packing, transfer and unpacking overlap as in any call.
 *
 * The panels of a call are plans of one exchange each (plan.c), executed
 * in turn (exchange.c); nothing there knows of panels.
 *
 * Every rank must cut alike, without communicating: the cut is computed
 * from global information only (the layouts' distributions and grids, op
 * and the bound), never from this rank's storage.  What a rank could need
 * is bounded by the bytes it sends plus the bytes it receives
 * (busiest_bytes): elements that stay on it need no buffer, and pieces
 * sent from A or received into B need none either, so the bound may cut
 * where buffers would have fitted, never the other way.
 */
#include <stdlib.h>

#include "engine/engine_int.h"

/* Sum of the group totals of overlay ov per A coordinate (by_a) and per
 * B coordinate (by_b), arrays of na and nb zeroed by the caller. */
static void coord_totals(const cs_eng_overlay_t *ov, int64_t *by_a, int na,
                         int64_t *by_b, int nb)
{
    for (int64_t g = 0; g < ov->ngroup; g++) {
        const cs_eng_group_t *gr = &ov->group[g];
        if (gr->pa >= 0 && gr->pa < na) {
            by_a[gr->pa] += gr->total;
        }
        if (gr->pb >= 0 && gr->pb < nb) {
            by_b[gr->pb] += gr->total;
        }
    }
}

/* Elements of overlay ov going from A coordinate pa to B coordinate pb
 * (groups are sorted by (pa, pb), one per pair). */
static int64_t pair_total(const cs_eng_overlay_t *ov, int pa, int pb)
{
    /* one binary search on (pa, pb): a grid row may have as many groups
     * as the other grid has rows, and this runs for every rank */
    int64_t lo = 0, hi = ov->ngroup;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const cs_eng_group_t *g = &ov->group[mid];
        if (g->pa < pa || (g->pa == pa && g->pb < pb)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < ov->ngroup && ov->group[lo].pa == pa &&
                   ov->group[lo].pb == pb
               ? ov->group[lo].total
               : 0;
}

/* Largest rank number of a grid, -1 when it has none. */
static int grid_max_rank(const cs_eng_layout_t *l)
{
    int mx = -1;
    for (int i = 0; i < l->nprow * l->npcol; i++) {
        mx = l->grid[i] > mx ? l->grid[i] : mx;
    }
    return mx;
}

/*
 * *bytes_p = the most any rank sends plus receives in op (elements of the
 * whole rectangle, so a masked operation is overestimated): for each rank,
 * what it owns of sub(A) and of sub(B), less twice what stays on it, which
 * is counted only for a rank with one cell in each grid (a product of one
 * row pair and one column pair; a rank with several cells keeps nothing in
 * this bound).  Global information only; O(groups + grid cells + P log
 * groups) time, O(P + grid coordinates) memory.  Local.
 */
static cs_status_t busiest_bytes(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_op_t *op, int64_t *bytes_p)
{
    cs_eng_overlay_t ro, co;
    cs_status_t st = cs_eng_op_overlays(a, b, op, &ro, &co);
    if (st != CS_OK) {
        return st;
    }
    int tr = op->trans;
    /* A's coordinates along the target's rows and columns */
    int nar = tr ? a->npcol : a->nprow, nac = tr ? a->nprow : a->npcol;
    int np = grid_max_rank(a) > grid_max_rank(b) ? grid_max_rank(a) + 1
                                                 : grid_max_rank(b) + 1;
    size_t nt = (size_t)nar + (size_t)nac + (size_t)b->nprow +
                (size_t)b->npcol;
    int64_t *tot = calloc(nt + 2 * (size_t)np + 1, sizeof(*tot));
    int *cell = malloc((4 * (size_t)np + 1) * sizeof(*cell));
    if (!tot || !cell) {
        free(tot);
        free(cell);
        cs_eng_overlay_free(&ro);
        cs_eng_overlay_free(&co);
        return CS_ERR_NOMEM;
    }
    int64_t *ra = tot, *ca = ra + nar, *rb = ca + nac, *cb = rb + b->nprow;
    int64_t *own = cb + b->npcol; /* per rank: owned in A plus in B */
    int64_t *ncell = own + np;    /* per rank: cells in A * 65536 + in B */
    int *cella = cell, *cellb = cell + 2 * (size_t)np;
    coord_totals(&ro, ra, nar, rb, b->nprow);
    coord_totals(&co, ca, nac, cb, b->npcol);
    for (int pr = 0; pr < a->nprow; pr++) {
        for (int pc = 0; pc < a->npcol; pc++) {
            int r = a->grid[pr * a->npcol + pc];
            if (r < 0) {
                continue;
            }
            int x = tr ? pc : pr, y = tr ? pr : pc;
            own[r] += ra[x] * ca[y];
            ncell[r] += 65536;
            cella[2 * r] = x;
            cella[2 * r + 1] = y;
        }
    }
    for (int pr = 0; pr < b->nprow; pr++) {
        for (int pc = 0; pc < b->npcol; pc++) {
            int r = b->grid[pr * b->npcol + pc];
            if (r < 0) {
                continue;
            }
            own[r] += rb[pr] * cb[pc];
            ncell[r] += 1;
            cellb[2 * r] = pr;
            cellb[2 * r + 1] = pc;
        }
    }
    int64_t most = 0;
    for (int r = 0; r < np; r++) {
        int64_t moved = own[r];
        if (ncell[r] == 65536 + 1) {
            moved -= 2 * pair_total(&ro, cella[2 * r], cellb[2 * r]) *
                     pair_total(&co, cella[2 * r + 1], cellb[2 * r + 1]);
        }
        most = moved > most ? moved : most;
    }
    free(tot);
    free(cell);
    cs_eng_overlay_free(&ro);
    cs_eng_overlay_free(&co);
    *bytes_p = most * (int64_t)op->esize;
    return CS_OK;
}

/* An upper bound of the elements any one coordinate of d owns in [lo, lo
 * + len): for block-cyclic, its share of the blocks the range touches,
 * each at most the larger block; explicit, counted.  O(1) or O(blocks +
 * coordinates). */
static int64_t coord_max(const cs_eng_dist_t *d0, int64_t lo, int64_t len)
{
    cs_eng_dist_t d;
    cs_eng_dist_normalize(d0, &d);
    if (len <= 0) {
        return 0;
    }
    int64_t k0 = cs_eng_dist_block_of(&d, lo);
    int64_t k1 = cs_eng_dist_block_of(&d, lo + len - 1);
    if (d.kind == CS_ENG_DIST_CYCLIC) {
        int64_t per = (k1 - k0 + d.nprocs) / d.nprocs;
        int64_t big = d.first > d.nb ? d.first : d.nb;
        return per * big < len ? per * big : len;
    }
    int64_t *cnt = calloc((size_t)d.nprocs, sizeof(*cnt)), most = len;
    if (cnt) {
        most = 0;
        for (int64_t k = k0; k <= k1; k++) {
            int64_t s = cs_eng_dist_block_start(&d, k);
            int64_t e = cs_eng_dist_block_end(&d, k);
            s = s > lo ? s : lo;
            e = e < lo + len ? e : lo + len;
            int64_t *c = &cnt[cs_eng_dist_proc(&d, k)];
            *c += e - s;
            most = *c > most ? *c : most;
        }
        free(cnt);
    }
    return most;
}

/* 1 when no rank has more than one cell of l's grid. */
static int one_cell_each(const cs_eng_layout_t *l)
{
    int n = grid_max_rank(l) + 1;
    unsigned char *seen = calloc((size_t)n / 8 + 1, 1);
    int ok = seen != NULL;
    for (int i = 0; ok && i < l->nprow * l->npcol; i++) {
        int r = l->grid[i];
        if (r >= 0) {
            ok = !(seen[r / 8] & (1u << (r % 8)));
            seen[r / 8] |= (unsigned char)(1u << (r % 8));
        }
    }
    free(seen);
    return ok;
}

/*
 * A quick upper bound of busiest_bytes(), without the overlays or
 * anything per rank: the largest cell of A plus the largest of B, valid
 * when every rank has at most one cell in each grid; -1 otherwise.
 * RATIONALE: busiest_bytes() is O(P) and at P = 65536 took 10-30 ms of a
 * first call whose plan takes 1 ms; almost every call is far below the
 * bound, which this settles in O(coordinates).
 */
static int64_t quick_bytes(const cs_eng_layout_t *a, const cs_eng_layout_t *b,
                           const cs_eng_op_t *op)
{
    if (!one_cell_each(a) || !one_cell_each(b)) {
        return -1;
    }
    int tr = op->trans;
    int64_t ar = coord_max(tr ? &a->cols : &a->rows, tr ? op->ja : op->ia,
                           op->m);
    int64_t ac = coord_max(tr ? &a->rows : &a->cols, tr ? op->ia : op->ja,
                           op->n);
    int64_t br = coord_max(&b->rows, op->ib, op->m);
    int64_t bc = coord_max(&b->cols, op->jb, op->n);
    return (ar * ac + br * bc) * (int64_t)op->esize;
}

/* The operation of panel [lo, hi) of op's columns (cols = 1) or rows. */
static cs_eng_op_t panel_op(const cs_eng_op_t *op, int cols, int64_t lo,
                            int64_t hi)
{
    cs_eng_op_t p = *op;
    if (cols) {
        p.n = hi - lo;
        p.jb += lo;
        *(op->trans ? &p.ia : &p.ja) += lo;
        p.mask_k += lo; /* i - j against k, with j = lo + j' */
    } else {
        p.m = hi - lo;
        p.ib += lo;
        *(op->trans ? &p.ja : &p.ia) += lo;
        p.mask_k -= lo;
    }
    return p;
}

/* Cut points of op (ncut + 1 of them, from 0 to the extent) so that no
 * panel's busiest rank moves more than ws: first evenly by the whole
 * call's need, then halving any panel still above it.  *cut_p is malloc'd.
 * The same on every rank. */
static cs_status_t cut(const cs_eng_layout_t *a, const cs_eng_layout_t *b,
                       const cs_eng_op_t *op, int cols, int64_t need,
                       int64_t ws, int64_t **cut_p, int *ncut_p)
{
    int64_t ext = cols ? op->n : op->m;
    int64_t k = (need + ws - 1) / ws;
    k = k < ext ? k : ext;
    k = k < CS_ENG_PANELS_MAX ? k : CS_ENG_PANELS_MAX;
    int64_t *c = malloc(((size_t)CS_ENG_PANELS_MAX + 1) * sizeof(*c));
    if (!c) {
        return CS_ERR_NOMEM;
    }
    int n = (int)k;
    for (int i = 0; i <= n; i++) {
        c[i] = ext * i / n;
    }
    for (int i = 0; i < n;) {
        cs_eng_op_t p = panel_op(op, cols, c[i], c[i + 1]);
        int64_t pn = 0;
        cs_status_t st = busiest_bytes(a, b, &p, &pn);
        if (st != CS_OK) {
            free(c);
            return st;
        }
        if (pn <= ws || c[i + 1] - c[i] < 2 || n == CS_ENG_PANELS_MAX) {
            i++;
            continue;
        }
        for (int j = n; j > i; j--) {
            c[j + 1] = c[j];
        }
        c[i + 1] = c[i] + (c[i + 2] - c[i]) / 2;
        n++;
    }
    *cut_p = c;
    *ncut_p = n;
    return CS_OK;
}

/*
 * RATIONALE: the default bound is small, because every byte of a new
 * workspace is a page the first call of a shape faults in, and on a
 * virtual machine a fresh page costs far more than the copy into it (up
 * to 1.7 ms per MiB here: a 70 MiB workspace made pdtran_ 4000 x 4000's
 * first call 133 ms against 10 ms later on), while panels cost no steady
 * time.  Measured (2026-12-03, bench_tran / bench_gemr2d, 2 runs each,
 * 2 ranks unless said; bound 8 MiB against the former default, the
 * larger of 64 MiB and an eighth of the busiest rank's bytes): first
 * calls pdtran 4000 a 26-30 ms (was 17-136), h 11-36 (142-238), 4096 k
 * 21-28 (91-120), pdgemr2d 1 x 2 -> 2 x 1 77 (179-232); steady state
 * a 8.0-9.6 (9.0-9.4), h 10.3-10.5 (8.2-8.4), k 12.4-13.4 (12.2-12.3),
 * 8000 j 48 (51), gemr2d c 7.6-8.3 (6.8-7.2); with the shared send
 * buffer a 8.4-9.1 (10.0-11.7); on 4 ranks a 13.7-14.9 (20.6-23.7), h
 * 14.0-14.4 (19.4-21.4); held memory 14 MiB instead of 70-104.  With many
 * ranks the panel's buffers are shared among more peers, so the bound
 * grows with the grid (512 KiB per process keeps a message to each peer
 * at least 256 KiB each way) up to the former 64 MiB.
 */
int64_t cs_eng_ws_auto(const cs_eng_layout_t *a, const cs_eng_layout_t *b)
{
    int64_t pa = (int64_t)a->nprow * a->npcol;
    int64_t pb = (int64_t)b->nprow * b->npcol;
    int64_t ws = (pa > pb ? pa : pb) * CS_ENG_WS_AUTO_PER_RANK;
    return ws < CS_ENG_WS_AUTO_MIN   ? CS_ENG_WS_AUTO_MIN
           : ws > CS_ENG_WS_AUTO_MAX ? CS_ENG_WS_AUTO_MAX
                                     : ws;
}

cs_status_t cs_eng_panels_create(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_op_t *op, int me,
                                 int64_t ws_max, cs_eng_panels_t **p_p)
{
    *p_p = NULL;
    if (ws_max == 0 || !cs_eng_op_ok(a, b, op) || op->m == 0 || op->n == 0) {
        return CS_OK;
    }
    cs_eng_xform_t xf;
    cs_eng_xform_init(op, &xf);
    if (xf.mode == CS_XM_ZERO || xf.mode == CS_XM_BSCALE ||
        xf.mode == CS_XM_NOP) {
        return CS_OK; /* nothing sent */
    }
    int64_t ws = ws_max > 0 ? ws_max : cs_eng_ws_auto(a, b);
    int64_t quick = quick_bytes(a, b, op);
    if (quick >= 0 && quick <= ws) {
        return CS_OK;
    }
    int64_t need = 0;
    cs_status_t st = busiest_bytes(a, b, op, &need);
    if (st != CS_OK || need <= ws) {
        return st;
    }
    int cols = op->n >= op->m;
    int64_t *c = NULL;
    int n = 0;
    st = cut(a, b, op, cols, need, ws, &c, &n);
    if (st != CS_OK) {
        return st;
    }
    cs_eng_panels_t *p = calloc(1, sizeof(*p));
    cs_eng_exch_t **panel = calloc((size_t)n, sizeof(*panel));
    if (!p || !panel) {
        free(p);
        free(panel);
        free(c);
        return CS_ERR_NOMEM;
    }
    p->panel = panel;
    p->n = n;
    int64_t target = 0, sent = 0;
    for (int i = 0; i < n && st == CS_OK; i++) {
        cs_eng_op_t po = panel_op(op, cols, c[i], c[i + 1]);
        st = cs_eng_exch_create(a, b, &po, me, &panel[i]);
        if (st == CS_OK) {
            cs_eng_xform_t *x = &panel[i]->xf;
            x->halo_mn = xf.halo_mn;
            x->halo_i0 = cols ? 0 : c[i];
            x->halo_j0 = cols ? c[i] : 0;
            target += panel[i]->self_bytes + panel[i]->recv_bytes;
            sent += panel[i]->send_bytes;
        }
    }
    free(c);
    if (st != CS_OK) {
        cs_eng_panels_destroy(p);
        return st;
    }
    /* non-temporal stores as the whole call would choose them (plan.c):
     * what matters is what the call writes in all */
    for (int i = 0; i < n; i++) {
        panel[i]->xf.stream = target >= CS_ENG_STREAM_MIN_BYTES;
        panel[i]->pack_xf.stream = sent >= CS_ENG_STREAM_MIN_BYTES;
    }
    *p_p = p;
    return CS_OK;
}

void cs_eng_panels_destroy(cs_eng_panels_t *p)
{
    if (!p) {
        return;
    }
    for (int i = 0; i < p->n; i++) {
        cs_eng_exch_destroy(p->panel[i]);
    }
    free(p->panel);
    free(p);
}

int64_t cs_eng_panels_workspace_bytes(const cs_eng_panels_t *p)
{
    int64_t most = 0;
    for (int i = 0; i < p->n; i++) {
        most = cs_eng_max64(most, cs_eng_exch_workspace_bytes(p->panel[i]));
    }
    return most;
}

int64_t cs_eng_panels_heap_bytes(const cs_eng_panels_t *p)
{
    int64_t bytes = (int64_t)sizeof(*p) + p->n * (int64_t)sizeof(*p->panel);
    for (int i = 0; i < p->n; i++) {
        bytes += cs_eng_exch_heap_bytes(p->panel[i]);
    }
    return bytes;
}

void cs_eng_panels_volume(const cs_eng_panels_t *p, int64_t *sent_p,
                          int64_t *recv_p, int64_t *self_p)
{
    *sent_p = *recv_p = *self_p = 0;
    for (int i = 0; i < p->n; i++) {
        *sent_p += p->panel[i]->send_bytes;
        *recv_p += p->panel[i]->recv_bytes;
        *self_p += p->panel[i]->self_bytes;
    }
}

void cs_eng_panels_summary_add(const cs_eng_panels_t *p,
                               cs_eng_summary_t *sum_p)
{
    for (int i = 0; i < p->n; i++) {
        cs_eng_exch_summary_add(p->panel[i], sum_p);
    }
}

int64_t cs_eng_panels_requests_need(const cs_eng_panels_t *p,
                                    const cs_eng_exec_opts_t *opts)
{
    int64_t bytes = 0;
    for (int i = 0; i < p->n; i++) {
        bytes += cs_eng_exch_requests_need(p->panel[i], opts);
    }
    return bytes;
}

int64_t cs_eng_panels_shm_bytes(const cs_eng_panels_t *p, int64_t min_bytes)
{
    int64_t most = 0;
    for (int i = 0; i < p->n; i++) {
        most = cs_eng_max64(most,
                            cs_eng_exch_shm_bytes(p->panel[i], min_bytes));
    }
    return most;
}

cs_status_t cs_eng_panels_reserve(cs_eng_panels_t *p,
                                  const cs_eng_exec_opts_t *opts)
{
    /* the largest panel's buffers first, so that the workspace is grown
     * once */
    int64_t ws = cs_eng_panels_workspace_bytes(p);
    if (ws > 0 && !cs_eng_workspace_get((size_t)ws)) {
        return CS_ERR_NOMEM;
    }
    for (int i = 0; i < p->n; i++) {
        cs_status_t st = cs_eng_exch_reserve(p->panel[i], opts);
        if (st != CS_OK) {
            return st;
        }
    }
    p->reserved = 1;
    p->chunk = cs_eng_exch_chunk(opts);
    return CS_OK;
}

cs_status_t cs_eng_panels_execute(cs_eng_panels_t *p, const void *a_base,
                                  void *b_base, MPI_Comm comm,
                                  const cs_eng_exec_opts_t *opts,
                                  cs_eng_stats_t *stats_p)
{
    if (!p->reserved || p->chunk != cs_eng_exch_chunk(opts)) {
        cs_status_t st = cs_eng_panels_reserve(p, opts);
        if (st != CS_OK) {
            return st;
        }
    }
    cs_eng_stats_t sum = {0};
    for (int i = 0; i < p->n; i++) {
        cs_eng_stats_t v = {0};
        cs_status_t st = cs_eng_exch_execute(p->panel[i], a_base, b_base,
                                             comm, opts, &v);
        if (st != CS_OK) {
            /* cannot happen: every panel was reserved above */
            cs_eng_fatal("panel %d of %d could not be executed (%s)", i,
                         p->n, cs_status_str(st));
        }
        sum.bytes_sent += v.bytes_sent;
        sum.bytes_recv += v.bytes_recv;
        sum.bytes_self += v.bytes_self;
        sum.bytes_sent_near += v.bytes_sent_near;
        sum.msgs_sent += v.msgs_sent;
        sum.msgs_recv += v.msgs_recv;
        sum.threads = v.threads;
        sum.t_pack += v.t_pack;
        sum.t_local += v.t_local;
        sum.t_unpack += v.t_unpack;
        sum.t_transfer += v.t_transfer;
    }
    if (stats_p) {
        *stats_p = sum;
    }
    return CS_OK;
}
