/*
 * engine/matmul/pieces.c - the multiplication whose slabs are assembled
 * from the pieces their owners hold (matmul.h, pieces).
 *
 * RATIONALE: when both operands have their inner dimension along the same
 * grid dimension, cut alike, and their other dimension along the other
 * grid dimension (A^T B: k along the process rows, m and n along the
 * process columns; A B^T the transpose), each line of the grid across the
 * inner dimension (a process row for A^T B) holds a run of the inner
 * indices whole: the product of that run is a 1 x Q problem of its own,
 * and the sum over the lines is C.  The split is 1 x 1 x P (the local
 * product keeps the whole m x n, the floor's shape): each line's run is
 * cut into one range per member, and member q's slab of its range K_q is
 * made of one piece per member w of the line: its rows K_q of the columns
 * (rows) w holds.  Nothing crosses lines before the sum.  On 1 x P
 * (P x 1) the line is the whole grid.  The owner packs each piece into
 * one contiguous message (see pack()); the own piece is copied.  The
 * slab's columns (rows) are in owner order (by the rank that holds that
 * coordinate in the grid's first line, the same in every line), and so
 * are C's partial rows and columns; the exchange that writes C maps them
 * back.  The inner range is cut into chunks: the pieces of chunk c + 1
 * are in flight while chunk c is multiplied (in steps, testing the
 * messages between them: MPI moves large messages only when called).
 * Then the partial products of all P processes are summed by a
 * reduce-scatter over column pieces of C (as in mm.c) and written into C
 * with alpha and beta.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "engine/matmul/matmul_int.h"

enum { CS_MM_TAG_PIECE = 27923, CS_MM_TAG_PSUM = 27924 };

/* Steps one chunk's local product is cut into along the inner dimension,
 * testing the messages in flight between them. */
#define CS_MM_PIECE_STEPS 4

/* One operand: its inner dimension along its rows (krows), this line's
 * run of it from local index koff; its other dimension from global index
 * doff, this rank's run of it from local index lo; leading dimension ld;
 * each coordinate's count of the other dimension (cnt) and its place in
 * owner order (st), indexed by the coordinate's representative (the rank
 * holding it in the grid's first line); ext the other dimension's extent. */
typedef struct {
    int krows;
    int64_t koff, doff, lo, ld, ext;
    int64_t *cnt, *st;
} side_t;

struct cs_eng_mm_pieces {
    cs_eng_mm_op_t op;
    int me, np;
    int line;  /* this rank's line (its process row when krows) */
    int nq;    /* members of this rank's line */
    int rep;   /* this rank's representative */
    int *qi;   /* [representative]: its member index; -1 for other ranks */
    int *peer; /* [representative]: the member of this line there */
    int64_t kg, kgmax; /* inner indices of this line, of the largest */
    side_t s[2];       /* A, B */
    int nside;         /* operands moved: 1 when B is A (op.uplo) */
    int nchunk;
    int64_t kcmax;
    int64_t p0, p1;         /* this rank's columns of C (owner order) */
    int64_t off_slab[2][2]; /* [parity][A or B], elements */
    int64_t off_send[2][2]; /* this rank's pieces for the others, packed */
    /* the others' pieces as they arrive, where a piece is not one block
     * of the slab (the inner dimension along the columns): unpacked into
     * the slab once in; -1: straight into the slab */
    int64_t off_stage[2][2];
    int64_t off_c, off_r, elems;
    cs_eng_plan_t *out;
};

static int64_t part(int64_t n, int parts, int i)
{
    return n * i / parts;
}

static int krows_of(const cs_eng_mm_op_t *op, int b)
{
    return b ? op->transb == 'N' : op->transa != 'N';
}

/* An operand fits: column-major, its other dimension block-cyclic, its
 * inner one too or on one process (then any). */
static int side_fits(const cs_eng_mm_op_t *op, int b, const cs_eng_layout_t *l)
{
    int krows = krows_of(op, b);
    const cs_eng_dist_t *kd = krows ? &l->rows : &l->cols;
    const cs_eng_dist_t *od = krows ? &l->cols : &l->rows;
    return l->order == CS_ENG_COLMAJOR && od->kind == CS_ENG_DIST_CYCLIC &&
           (kd->kind == CS_ENG_DIST_CYCLIC || kd->nprocs == 1);
}

/* Whether op->pieces (matmul.h) fits the layouts: both inner dimensions
 * along the same grid dimension of the same grid. */
static int pieces_fit(const cs_eng_mm_op_t *op, const cs_eng_layout_t *la,
                      const cs_eng_layout_t *lb)
{
    if (!op->pieces || op->direct || op->inplace || !side_fits(op, 0, la) ||
        !side_fits(op, 1, lb) || krows_of(op, 0) != krows_of(op, 1) ||
        la->nprow != lb->nprow || la->npcol != lb->npcol) {
        return 0;
    }
    for (int i = 0; i < la->nprow * la->npcol; i++) {
        if (la->grid[i] != lb->grid[i]) {
            return 0;
        }
    }
    return 1;
}

/* The representative of coordinate c along the lines (columns when
 * krows): the rank holding it in the grid's first line. */
static int rep_of(const cs_eng_layout_t *l, int krows, int c)
{
    return krows ? l->grid[c] : l->grid[(int64_t)c * l->npcol];
}

/* The rank holding coordinate c along the lines in line `line`. */
static int rank_at(const cs_eng_layout_t *l, int krows, int line, int c)
{
    return krows ? l->grid[(int64_t)line * l->npcol + c]
                 : l->grid[(int64_t)c * l->npcol + line];
}

/* This rank's line and member index; the members, the representatives. */
static cs_status_t lines_init(cs_eng_mm_pieces_t *g, const cs_eng_layout_t *l)
{
    int krows = g->s[0].krows, line = -1, c = -1;
    for (int i = 0; i < l->nprow * l->npcol; i++) {
        if (l->grid[i] == g->me) {
            line = krows ? i / l->npcol : i % l->npcol;
            c = krows ? i % l->npcol : i / l->npcol;
        }
    }
    g->nq = krows ? l->npcol : l->nprow;
    g->qi = malloc((size_t)g->np * sizeof(*g->qi));
    g->peer = malloc((size_t)g->np * sizeof(*g->peer));
    if (!g->qi || !g->peer) {
        return CS_ERR_NOMEM;
    }
    if (line < 0) {
        return CS_ERR_UNSUPPORTED; /* not in the grid */
    }
    for (int r = 0; r < g->np; r++) {
        g->qi[r] = g->peer[r] = -1;
    }
    for (int q = 0; q < g->nq; q++) {
        int w = rep_of(l, krows, q), x = rank_at(l, krows, line, q);
        if (w < 0 || w >= g->np || x < 0 || x >= g->np) {
            return CS_ERR_UNSUPPORTED;
        }
        g->qi[w] = q;
        g->peer[w] = x;
    }
    g->rep = rep_of(l, krows, c);
    g->line = line;
    return CS_OK;
}

/* The other dimension of one operand: counts per coordinate, this rank's
 * run (its representative's: the same coordinate). */
static cs_status_t side_init(side_t *s, const cs_eng_mm_op_t *op, int b,
                             const cs_eng_layout_t *l, int rep, int np)
{
    s->krows = krows_of(op, b);
    s->ld = l->ld;
    int64_t r0 = b ? op->ib : op->ia, c0 = b ? op->jb : op->ja;
    s->doff = s->krows ? c0 : r0;
    s->ext = b ? op->n : op->m;
    s->cnt = calloc((size_t)np, sizeof(*s->cnt));
    s->st = calloc((size_t)np + 1, sizeof(*s->st));
    if (!s->cnt || !s->st) {
        return CS_ERR_NOMEM;
    }
    int64_t mine;
    cs_status_t st = cs_eng_mm_cut(l, !s->krows, s->doff, 0, s->ext, rep, np,
                                   NULL, s->cnt, &mine, &s->lo);
    for (int r = 0; st == CS_OK && r < np; r++) {
        s->st[r + 1] = s->st[r] + s->cnt[r];
    }
    return st;
}

/* The inner dimension: cut alike in A and B (the same line holds each
 * inner index, in the same order), this line's run in both, the largest
 * line's count. */
static cs_status_t inner_init(cs_eng_mm_pieces_t *g, const cs_eng_layout_t *la,
                              const cs_eng_layout_t *lb)
{
    const cs_eng_mm_op_t *op = &g->op;
    int krows = g->s[0].krows;
    /* this line as cs_eng_mm_cut names it: by the rank where it crosses
     * the grid's first line the other way */
    int kr = krows ? la->grid[(int64_t)g->line * la->npcol] : la->grid[g->line];
    cs_eng_dist_t d[2] = {{0}, {0}};
    int64_t *cnt = calloc((size_t)g->np, sizeof(*cnt));
    cs_status_t st = cnt ? CS_OK : CS_ERR_NOMEM;
    for (int b = 0; st == CS_OK && b < 2; b++) {
        int64_t r0 = b ? op->ib : op->ia, c0 = b ? op->jb : op->ja;
        st = cs_eng_mm_cut(b ? lb : la, krows, krows ? r0 : c0, 0, op->k, kr,
                           g->np, &d[b], cnt, &g->kg, &g->s[b].koff);
    }
    if (st == CS_OK && (krows ? la->nprow : la->npcol) > 1) {
        /* each inner index on the same line in A and B (one line
         * holds them all otherwise) */
        int same = d[0].nblk == d[1].nblk;
        for (int64_t i = 0; same && i < d[0].nblk; i++) {
            same = d[0].splits[i] == d[1].splits[i] &&
                   d[0].proc[i] == d[1].proc[i];
        }
        st = same ? CS_OK : CS_ERR_UNSUPPORTED;
    }
    g->kgmax = 0;
    for (int r = 0; st == CS_OK && r < g->np; r++) {
        g->kgmax = cs_eng_max64(g->kgmax, cnt[r]);
    }
    if (st == CS_OK && g->kg == 0) {
        g->s[0].koff = g->s[1].koff = 0; /* nothing read */
    }
    free(cnt);
    cs_eng_mm_dist_free(&d[0]);
    cs_eng_mm_dist_free(&d[1]);
    return st;
}

/* C's piece as a layout: rows all here in owner order, columns in owner
 * order cut into the ranks' pieces; written into C by one exchange. */
static cs_status_t out_plan(cs_eng_mm_pieces_t *g, const cs_eng_layout_t *la,
                            const cs_eng_layout_t *lb,
                            const cs_eng_layout_t *lc, int64_t ws_max)
{
    const cs_eng_mm_op_t *op = &g->op;
    int64_t mine, first;
    cs_eng_dist_t dr, dc;
    cs_status_t st = cs_eng_mm_cut(la, !g->s[0].krows, g->s[0].doff, 0, op->m,
                                   g->me, g->np, &dr, NULL, &mine, &first);
    if (st != CS_OK) {
        return st;
    }
    st = cs_eng_mm_cut(lb, !g->s[1].krows, g->s[1].doff, 0, op->n, g->me, g->np,
                       &dc, NULL, &mine, &first);
    if (st != CS_OK) {
        cs_eng_mm_dist_free(&dr);
        return st;
    }
    int *pr = (int *)dr.proc;
    int64_t *lr = (int64_t *)dr.loff;
    for (int64_t b = 0; b < dr.nblk; b++) {
        lr[b] += g->s[0].st[pr[b]];
        pr[b] = 0;
    }
    dr.nprocs = 1;
    /* the columns: each block at its owner-order place, cut where the
     * ranks' pieces end (at most np - 1 more blocks) */
    int64_t nb = dc.nblk + g->np;
    int64_t *splits = malloc((size_t)(nb + 1) * sizeof(*splits));
    int64_t *loff = malloc((size_t)nb * sizeof(*loff));
    int *proc = malloc((size_t)nb * sizeof(*proc));
    int *grid = malloc((size_t)g->np * sizeof(*grid));
    if (!splits || !loff || !proc || !grid) {
        st = CS_ERR_NOMEM;
    }
    int64_t k = 0;
    for (int64_t b = 0; st == CS_OK && b < dc.nblk; b++) {
        int64_t x0 = dc.splits[b], x1 = dc.splits[b + 1];
        int64_t pos = g->s[1].st[dc.proc[b]] + dc.loff[b];
        while (x0 < x1) {
            /* the piece holding place pos */
            int w = (int)((pos * g->np + g->np - 1) / cs_eng_max64(op->n, 1));
            while (w > 0 && part(op->n, g->np, w) > pos) {
                w--;
            }
            while (part(op->n, g->np, w + 1) <= pos) {
                w++;
            }
            int64_t len =
                cs_eng_min64(x1 - x0, part(op->n, g->np, w + 1) - pos);
            if (k == nb) {
                st = CS_ERR_NOMEM; /* cannot happen: at most np cuts */
                break;
            }
            splits[k] = x0;
            proc[k] = w;
            loff[k] = pos - part(op->n, g->np, w);
            k++;
            x0 += len;
            pos += len;
        }
    }
    if (st == CS_OK) {
        splits[k] = op->n;
        for (int r = 0; r < g->np; r++) {
            grid[r] = r;
        }
        cs_eng_dist_t cols = {.kind = CS_ENG_DIST_EXPLICIT,
                              .n = op->n,
                              .nprocs = g->np,
                              .nblk = k,
                              .splits = splits,
                              .proc = proc,
                              .loff = loff};
        cs_eng_layout_t l = {.rows = dr,
                             .cols = cols,
                             .nprow = 1,
                             .npcol = g->np,
                             .grid = grid,
                             .ld = cs_eng_max64(op->m, 1),
                             .order = CS_ENG_COLMAJOR};
        cs_eng_op_t o = {.m = op->m,
                         .n = op->n,
                         .ib = op->ic,
                         .jb = op->jc,
                         .esize = op->esize,
                         .type = op->type,
                         .axpby = 1,
                         .mask = cs_eng_mm_mask(op)};
        memcpy(o.alpha, op->alpha, sizeof(o.alpha));
        memcpy(o.beta, op->beta, sizeof(o.beta));
        st = cs_eng_plan_create_bounded(&l, lc, &o, g->me, ws_max, &g->out);
    }
    free(splits);
    free(loff);
    free(proc);
    free(grid);
    cs_eng_mm_dist_free(&dr);
    cs_eng_mm_dist_free(&dc);
    return st;
}

/* Inner range [k0, k1) of this line's run (local) of the member at
 * representative w, chunk c. */
static void chunk_range(const cs_eng_mm_pieces_t *g, int w, int c, int64_t *k0,
                        int64_t *k1)
{
    int q = g->qi[w];
    int64_t w0 = part(g->kg, g->nq, q), w1 = part(g->kg, g->nq, q + 1);
    *k0 = w0 + part(w1 - w0, g->nchunk, c);
    *k1 = w0 + part(w1 - w0, g->nchunk, c + 1);
}

cs_status_t cs_eng_mm_pieces_create(const cs_eng_layout_t *la,
                                    const cs_eng_layout_t *lb,
                                    const cs_eng_layout_t *lc,
                                    const cs_eng_mm_op_t *op, int me,
                                    int nranks, int64_t ws_max,
                                    cs_eng_mm_pieces_t **g_p)
{
    *g_p = NULL;
    if (!pieces_fit(op, la, lb)) {
        return CS_ERR_UNSUPPORTED;
    }
    cs_eng_mm_pieces_t *g = calloc(1, sizeof(*g));
    if (!g) {
        return CS_ERR_NOMEM;
    }
    g->op = *op;
    g->me = me;
    g->np = nranks;
    g->s[0].krows = krows_of(op, 0);
    cs_status_t st = lines_init(g, la);
    if (st == CS_OK) {
        st = side_init(&g->s[0], op, 0, la, g->rep, nranks);
    }
    if (st == CS_OK) {
        st = side_init(&g->s[1], op, 1, lb, g->rep, nranks);
    }
    if (st == CS_OK) {
        st = inner_init(g, la, lb);
    }
    if (st != CS_OK) {
        cs_eng_mm_pieces_destroy(g);
        return st;
    }
    /* chunks: one parity's slabs (of the largest range) and packed
     * pieces (at most as much again) within chunk_bytes / 2, element
     * counts within int (MPI counts of the pieces) */
    int64_t cb = op->chunk_bytes > 0 ? op->chunk_bytes : CS_ENG_MM_CHUNK_BYTES;
    int64_t kw = (g->kgmax + g->nq - 1) / cs_eng_max64(g->nq, 1);
    double slabs = (double)(op->m + op->n) * (double)kw;
    double nc =
        2.0 * slabs * (double)op->esize / (double)(cb / 2 > 0 ? cb / 2 : 1);
    double ni = slabs / (double)(INT32_MAX / 2);
    nc = nc > ni ? nc : ni;
    int64_t n = nc < 1.0 ? 1 : (int64_t)nc + 1;
    n = n < g->kgmax / cs_eng_max64(g->nq, 1) ? n : g->kgmax / g->nq;
    g->nchunk = (int)(n < 1 ? 1 : n > 65536 ? 65536 : n);
    g->kcmax = (kw + g->nchunk - 1) / g->nchunk;
    if (g->s[0].ld > INT32_MAX || g->s[1].ld > INT32_MAX ||
        (double)g->kcmax * (double)(op->m + op->n) > (double)INT32_MAX) {
        st = st == CS_OK ? CS_ERR_UNSUPPORTED : st;
    }
    g->p0 = part(op->n, nranks, me);
    g->p1 = part(op->n, nranks, me + 1);
    /* p?syrk, p?herk: B is A, so its slabs are A's: only A travels */
    g->nside = op->uplo ? 1 : 2;
    int64_t at = 0;
    for (int par = 0; par < 2; par++) {
        g->off_slab[par][0] = at;
        at += g->kcmax * op->m;
        g->off_slab[par][1] = g->nside == 1 ? g->off_slab[par][0] : at;
        at += g->nside == 1 ? 0 : g->kcmax * op->n;
        for (int b = 0; b < g->nside; b++) {
            /* at most kcmax inner indices for each other member */
            g->off_send[par][b] = at;
            at += (int64_t)(g->nq - 1) * g->kcmax * g->s[b].cnt[g->rep];
            g->off_stage[par][b] = g->s[b].krows ? -1 : at;
            at += g->s[b].krows
                      ? 0
                      : g->kcmax * (g->s[b].ext - g->s[b].cnt[g->rep]);
        }
    }
    g->off_c = at;
    at += op->m * op->n;
    g->off_r = at;
    g->elems = at + cs_eng_mm_reduce_ring(op->chunk_bytes, op->esize,
                                          (g->p1 - g->p0) * op->m * op->esize,
                                          nranks) /
                        op->esize;
    if (st == CS_OK) {
        st = out_plan(g, la, lb, lc, ws_max);
    }
    if (st != CS_OK) {
        cs_eng_mm_pieces_destroy(g);
        return st;
    }
    *g_p = g;
    return CS_OK;
}

cs_eng_plan_t *cs_eng_mm_pieces_out(cs_eng_mm_pieces_t *g)
{
    return g->out;
}

int64_t cs_eng_mm_pieces_buffer_bytes(const cs_eng_mm_pieces_t *g)
{
    return g->elems * (int64_t)g->op.esize;
}

int64_t cs_eng_mm_pieces_heap_bytes(const cs_eng_mm_pieces_t *g)
{
    return (int64_t)sizeof(*g) + (4 * (int64_t)g->np + 2) * 8 +
           2 * (int64_t)g->np * (int64_t)sizeof(int) +
           cs_eng_plan_heap_bytes(g->out);
}

void cs_eng_mm_pieces_describe(const cs_eng_mm_pieces_t *g, char *buf,
                               size_t len)
{
    int q = g->qi[g->rep];
    snprintf(buf, len,
             "split:1x1x%d pieces lines:%dx%d brick:%lldx%lldx%lld chunks:%d",
             g->np, g->np / g->nq, g->nq, (long long)g->op.m,
             (long long)g->op.n,
             (long long)(part(g->kg, g->nq, q + 1) - part(g->kg, g->nq, q)),
             g->nchunk);
}

void cs_eng_mm_pieces_destroy(cs_eng_mm_pieces_t *g)
{
    if (!g) {
        return;
    }
    cs_eng_plan_destroy(g->out);
    free(g->qi);
    free(g->peer);
    for (int b = 0; b < 2; b++) {
        free(g->s[b].cnt);
        free(g->s[b].st);
    }
    free(g);
}

/* ------------------------------------------------------------ execute */

typedef struct {
    cs_eng_mm_pieces_t *g;
    const char *x[2]; /* A's and B's local arrays */
    char *buf;
    MPI_Request *rq[2];
    int nr[2];
    MPI_Comm comm;
    MPI_Datatype el;
    cs_eng_mm_stats_t *st;
} run_t;

/* Element offset in an operand's local array of inner index k0 of its
 * own run of the other dimension. */
static int64_t side_off(const side_t *s, int64_t k0)
{
    return s->krows ? (s->koff + k0) + s->lo * s->ld
                    : s->lo + (s->koff + k0) * s->ld;
}

/* Pack this rank's kc inner indices from src (its local array at the
 * first of them) into dst: kc x cnt (krows) or cnt x kc, contiguous.
 * Here, in the own copy and out of the stage, long runs are written with
 * streaming stores: the slabs and packed pieces of a chunk (16 MiB and
 * more) leave the cache before they are read, and a plain store first
 * reads each line it writes.  Measured (bench_gemm a, 2 ranks, 8
 * rounds, three alternations, 2026-12-07, medians per run): packing
 * 28-31 ms a call against 36-37 ms with memcpy, the own copy and the
 * wait for the pieces 34-48 against 50-53 ms, 84-87 % of the floor's
 * speed against 82-83 %; z (pzgemm C N) 91-94 % against 91-93 %.
 * RATIONALE: MPI moves a contiguous message between two processes of a
 * node in one copy once both have posted it; a strided one (a vector
 * datatype straight from the local array) goes through MPI's own packing,
 * step by step, only while both processes are inside MPI.  Measured (2
 * ranks, MPICH, the pieces of 300 x 300 x 200000 T N on 1 x 2 in 15
 * chunks, the products between them as here): waiting for the pieces
 * 71-75 ms with vector sends, 15-21 ms plus 15 ms of packing with
 * contiguous ones. */
static void pack(const side_t *s, const char *src, int64_t kc, int64_t cnt,
                 char *dst, int64_t es)
{
    int64_t run = s->krows ? kc : cnt, nrun = s->krows ? cnt : kc;
    cs_eng_copy2d_stream((size_t)es, run, nrun, src, 1, s->ld, dst, 1, run);
}

/* Post chunk c's pieces of A and B: this rank's to every other member of
 * its line (its rows of their ranges, packed), theirs into this rank's
 * slabs.  Members go by their representatives (w), in rank order. */
static void post(run_t *r, int c)
{
    cs_eng_mm_pieces_t *g = r->g;
    int par = c % 2, me = g->rep;
    int64_t es = (int64_t)g->op.esize, k0, k1;
    chunk_range(g, me, c, &k0, &k1);
    int64_t kc = k1 - k0;
    r->nr[par] = 0;
    for (int b = 0; b < g->nside; b++) {
        const side_t *s = &g->s[b];
        char *slab = r->buf + g->off_slab[par][b] * es;
        char *out = r->buf + g->off_send[par][b] * es;
        char *stage = s->krows ? NULL : r->buf + g->off_stage[par][b] * es;
        for (int w = 0; w < g->np; w++) {
            if (w == me || g->qi[w] < 0) {
                continue;
            }
            if (s->cnt[w] > 0 && kc > 0) {
                /* w's piece: kc x cnt[w], one block of the kc x ext slab
                 * at its column st[w]; or cnt[w] x kc, rows st[w].. of
                 * the ext x kc slab, received whole into the stage */
                int64_t n = s->cnt[w] * kc;
                char *at = s->krows ? slab + s->st[w] * kc * es : stage;
                if (MPI_Irecv(at, (int)n, r->el, g->peer[w], CS_MM_TAG_PIECE,
                              r->comm,
                              &r->rq[par][r->nr[par]++]) != MPI_SUCCESS) {
                    cs_eng_fatal("matmul: MPI Irecv failed");
                }
                if (!s->krows) {
                    stage += n * es;
                }
                r->st->bytes_copies += n * es;
            }
            int64_t w0, w1;
            chunk_range(g, w, c, &w0, &w1);
            int64_t n = s->cnt[me] * (w1 - w0);
            if (n > 0) {
                pack(s, r->x[b] + side_off(s, w0) * es, w1 - w0, s->cnt[me],
                     out, es);
                if (MPI_Isend(out, (int)n, r->el, g->peer[w], CS_MM_TAG_PIECE,
                              r->comm,
                              &r->rq[par][r->nr[par]++]) != MPI_SUCCESS) {
                    cs_eng_fatal("matmul: MPI Isend failed");
                }
                out += n * es;
                r->st->sent_copies += n * es;
            }
        }
    }
}

/* kc x cnt from src (leading dimension ld) into columns at.. of the
 * kc x ext slab, or cnt x kc into rows at.. of ext x kc. */
static void to_slab(const side_t *s, const char *src, int64_t ld, int64_t kc,
                    int64_t cnt, int64_t at, char *slab, int64_t es)
{
    int64_t run = s->krows ? kc : cnt, nrun = s->krows ? cnt : kc;
    cs_eng_copy2d_stream((size_t)es, run, nrun, src, 1, ld,
                         slab + at * (s->krows ? kc : 1) * es, 1,
                         s->krows ? kc : s->ext);
}

/* This rank's own pieces of chunk c into its slabs. */
static void copy_own(run_t *r, int c)
{
    cs_eng_mm_pieces_t *g = r->g;
    int64_t es = (int64_t)g->op.esize, k0, k1;
    chunk_range(g, g->rep, c, &k0, &k1);
    int64_t kc = k1 - k0;
    for (int b = 0; b < g->nside; b++) {
        const side_t *s = &g->s[b];
        to_slab(s, r->x[b] + side_off(s, k0) * es, s->ld, kc,
                s->cnt[g->rep], s->st[g->rep],
                r->buf + g->off_slab[c % 2][b] * es, es);
    }
}

/* The pieces of chunk c received into the stage, into their rows of
 * the slab (the inner dimension along the columns). */
static void unstage(run_t *r, int c)
{
    cs_eng_mm_pieces_t *g = r->g;
    int64_t es = (int64_t)g->op.esize, k0, k1;
    chunk_range(g, g->rep, c, &k0, &k1);
    int64_t kc = k1 - k0;
    for (int b = 0; b < g->nside; b++) {
        const side_t *s = &g->s[b];
        if (s->krows) {
            continue;
        }
        const char *stage = r->buf + g->off_stage[c % 2][b] * es;
        char *slab = r->buf + g->off_slab[c % 2][b] * es;
        for (int w = 0; w < g->np; w++) {
            int64_t cnt = s->cnt[w];
            if (w == g->rep || g->qi[w] < 0 || cnt == 0) {
                continue;
            }
            to_slab(s, stage, cnt, kc, cnt, s->st[w], slab, es);
            stage += cnt * kc * es;
        }
    }
}

/* Let the messages in flight move. */
static void progress(run_t *r)
{
    for (int p = 0; p < 2; p++) {
        int done;
        if (r->nr[p] > 0 &&
            cs_eng_test_all(r->nr[p], r->rq[p], &done) != MPI_SUCCESS) {
            cs_eng_fatal("matmul: MPI_Testall failed");
        }
    }
}

static void wait_chunk(run_t *r, int c)
{
    int par = c % 2;
    if (r->nr[par] > 0 &&
        cs_eng_wait_all(r->nr[par], r->rq[par]) != MPI_SUCCESS) {
        cs_eng_fatal("matmul: MPI_Waitall failed");
    }
    r->nr[par] = 0;
}

/* The reduce-scatter (reduce.c): rank w's columns [part(n, P, w), ...)
 * of the partial C summed on w. */
static void reduce(run_t *r)
{
    cs_eng_mm_pieces_t *g = r->g;
    int64_t es = (int64_t)g->op.esize, m = g->op.m;
    int64_t *off = malloc((size_t)g->np * 2 * sizeof(*off));
    if (!off) {
        /* the ranks are already committed: there is no way back */
        cs_eng_fatal("matmul: out of memory for %d pieces", g->np);
    }
    int64_t *bytes = off + g->np;
    int *peer = malloc((size_t)g->np * sizeof(*peer));
    if (!peer) {
        cs_eng_fatal("matmul: out of memory for %d pieces", g->np);
    }
    for (int w = 0; w < g->np; w++) {
        peer[w] = w;
        off[w] = part(g->op.n, g->np, w) * m * es;
        bytes[w] =
            (part(g->op.n, g->np, w + 1) - part(g->op.n, g->np, w)) * m * es;
    }
    cs_eng_mm_rs_t rs = {.cij = r->buf + g->off_c * es,
                         .off = off,
                         .bytes = bytes,
                         .peer = peer,
                         .np = g->np,
                         .me = g->me,
                         .type = g->op.type,
                         .esize = es,
                         .chunk_bytes = g->op.chunk_bytes,
                         .ring = r->buf + g->off_r * es,
                         .comm = r->comm};
    cs_eng_mm_reduce_scatter(&rs, &r->st->bytes_reduce, &r->st->sent_reduce);
    free(peer);
    free(off);
}

cs_status_t cs_eng_mm_pieces_execute(cs_eng_mm_pieces_t *g, const void *a,
                                     const void *b, void *c, void *buf,
                                     MPI_Comm comm,
                                     const cs_eng_exec_opts_t *opts,
                                     cs_eng_gemm_fn gemm, void *gemm_ctx,
                                     cs_eng_mm_stats_t *st)
{
    memset(st, 0, sizeof(*st));
    const cs_eng_mm_op_t *op = &g->op;
    int64_t es = (int64_t)op->esize, m = op->m, n = op->n;
    run_t r = {.g = g, .x = {a, b}, .buf = buf, .comm = comm, .st = st};
    size_t nreq = 4 * (size_t)g->np;
    r.rq[0] = malloc(2 * nreq * sizeof(MPI_Request));
    if (!r.rq[0]) {
        /* the ranks are already committed: there is no way back */
        cs_eng_fatal("matmul: out of memory for %zu requests", 2 * nreq);
    }
    r.rq[1] = r.rq[0] + nreq;
    if (MPI_Type_contiguous((int)es, MPI_BYTE, &r.el) != MPI_SUCCESS ||
        MPI_Type_commit(&r.el) != MPI_SUCCESS) {
        cs_eng_fatal("matmul: MPI datatype of an element failed");
    }
    char *cp = (char *)buf + g->off_c * es;
    double t0 = MPI_Wtime();
    post(&r, 0);
    int acc = 0; /* whether cp holds a partial sum yet */
    for (int ch = 0; ch < g->nchunk; ch++) {
        if (ch + 1 < g->nchunk) {
            post(&r, ch + 1);
        }
        double u0 = MPI_Wtime();
        copy_own(&r, ch);
        wait_chunk(&r, ch);
        unstage(&r, ch);
        double u1 = MPI_Wtime();
        st->t_in += u1 - u0;
        int64_t k0, k1;
        chunk_range(g, g->rep, ch, &k0, &k1);
        int64_t kc = k1 - k0;
        const char *sa = (char *)buf + g->off_slab[ch % 2][0] * es;
        const char *sb = (char *)buf + g->off_slab[ch % 2][1] * es;
        int ka = g->s[0].krows, kb = g->s[1].krows;
        for (int s = 0; s < CS_MM_PIECE_STEPS && m > 0 && n > 0; s++) {
            int64_t s0 = part(kc, CS_MM_PIECE_STEPS, s);
            int64_t s1 = part(kc, CS_MM_PIECE_STEPS, s + 1);
            if (s1 == s0) {
                continue;
            }
            double v0 = MPI_Wtime();
            gemm(gemm_ctx, op->uplo, op->transa, op->transb, m, n, s1 - s0,
                 sa + (ka ? s0 : s0 * m) * es, ka ? kc : m,
                 sb + (kb ? s0 : s0 * n) * es, kb ? kc : n, acc, cp, m);
            acc = 1;
            st->t_mul += MPI_Wtime() - v0;
            progress(&r);
        }
        st->flops += cs_eng_mm_flops(op, m, n, kc);
    }
    if (!acc) {
        /* a line with fewer inner indices than members: nothing here */
        memset(cp, 0, (size_t)(m * n * es));
    }
    /* one triangle summed: the other by symmetry (uplo: m = n) */
    cs_eng_mm_mirror(op, n, cp, cs_eng_max64(m, 1));
    double t2 = MPI_Wtime();
    (void)t0;
    reduce(&r);
    double t3 = MPI_Wtime();
    MPI_Type_free(&r.el);
    free(r.rq[0]);
    cs_status_t rc = cs_eng_plan_execute(g->out, cp + g->p0 * m * es, c, comm,
                                         opts, &st->xfer);
    st->t_reduce = t3 - t2;
    st->t_out = MPI_Wtime() - t3;
    return rc;
}
