/*
 * engine/matmul/mm.c - the plan and the execution of one multiplication
 * (matmul.h).
 *
 * Process (i, j, l) of the pm x pn x pk grid is rank i + pm (j + pn l).
 * Slabs are stored as the application stores its operand (sub(A) for
 * TRANSA = 'N', its transpose otherwise: the exchanges stay plain copies
 * and the local ?gemm applies op()), column-major and contiguous.  The
 * copies of a slab split it along its stored columns, so that each piece
 * is one contiguous run and the copies are completed in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "engine/matmul/matmul.h"
#include "engine/matmul/matmul_int.h"

/* Tags of the copies and of the reduce-scatter; the exchanges use their
 * own (exchange.c). */
enum { CS_MM_TAG_COPY = 27921, CS_MM_TAG_REDUCE = 27922 };

/* Messages are sent in runs of at most this many bytes (int counts). */
#define CS_MM_RUN ((int64_t)1 << 30)

/* One stored slab: rows x cols, its columns split into ncopy pieces, the
 * piece of copy w starting at column start[w]. */
typedef struct {
    int64_t rows, cols;
    int ncopy;
    int64_t *start; /* ncopy + 1 */
    int *peer;      /* ncopy: the rank holding copy w */
    int mine;       /* this rank's copy */
} slab_t;

/* One chunk of the inner dimension: this rank's slabs of A and B in it
 * and the two exchanges that fill them. */
typedef struct {
    int64_t kl; /* this rank's part of the chunk */
    slab_t a, b;
    cs_eng_plan_t *pa, *pb; /* NULL for the operand read in place */
    cs_eng_batch_t *batch;  /* pa and pb as one exchange, or NULL */
    int64_t ioff;           /* in place: the chunk's first element there */
} chunk_t;

struct cs_eng_mm {
    cs_eng_mm_op_t op;
    cs_eng_mm_split_t s;
    int me, i, j, l;
    int64_t mi, nj; /* this rank's rows and columns of C */
    int nchunk;     /* chunks of the inner dimension */
    chunk_t *chunk;
    slab_t c;           /* C_ij's column pieces over the pk slabs */
    int krows;          /* in place: the inner dimension along its rows */
    int64_t koff;       /* ... starting at this global index */
    int64_t ild;        /* ... and its leading dimension */
    cs_eng_dist_t odist; /* outer: its rows (columns) of C, as it cuts them */
    int64_t ofirst;      /* ... and this rank's first at this local index */
    cs_eng_plan_t *out; /* C's pieces into C */
    int64_t off_b, off_c, off_r; /* in the buffer: B, C_ij, the ring */
    int64_t off_x;               /* ... and the batches' packages */
    int64_t bytes;
    cs_eng_mm_pieces_t *pc; /* op.pieces: that multiplication instead */
};

static int64_t part(int64_t n, int parts, int i)
{
    return n * i / parts;
}

static int rank_of(const cs_eng_mm_split_t *s, int i, int j, int l)
{
    return i + s->pm * (j + s->pn * l);
}

/* ------------------------------------------------------------ layouts */

/*
 * The distribution of one dimension of extent n split into nparts (the
 * slabs, coordinate v), each split again into ncopy pieces (coordinate
 * v * ncopy + w).  ncopy = 1: one block per part.  Empty pieces are left
 * out; loff places a piece inside its part's local storage.  Arrays are
 * allocated here (freed by dist_free).
 */
static cs_status_t dist_split(int64_t n, int nparts, int ncopy,
                              cs_eng_dist_t *d)
{
    int64_t nb = (int64_t)nparts * ncopy;
    int64_t *splits = malloc((size_t)(nb + 1) * sizeof(*splits));
    int64_t *loff = malloc((size_t)nb * sizeof(*loff));
    int *proc = malloc((size_t)nb * sizeof(*proc));
    if (!splits || !loff || !proc) {
        free(splits);
        free(loff);
        free(proc);
        return CS_ERR_NOMEM;
    }
    int64_t k = 0;
    splits[0] = 0;
    for (int v = 0; v < nparts; v++) {
        int64_t s0 = part(n, nparts, v), s1 = part(n, nparts, v + 1);
        for (int w = 0; w < ncopy; w++) {
            int64_t p0 = s0 + part(s1 - s0, ncopy, w);
            int64_t p1 = s0 + part(s1 - s0, ncopy, w + 1);
            if (p1 > p0) {
                splits[k + 1] = p1;
                loff[k] = p0 - s0;
                proc[k] = v * ncopy + w;
                k++;
            }
        }
    }
    *d = (cs_eng_dist_t){.kind = CS_ENG_DIST_EXPLICIT,
                         .n = n,
                         .nprocs = nparts * ncopy,
                         .nblk = k,
                         .splits = splits,
                         .proc = proc,
                         .loff = loff};
    return CS_OK;
}

static void dist_free(cs_eng_dist_t *d)
{
    free((void *)d->splits);
    free((void *)d->proc);
    free((void *)d->loff);
}

/*
 * The layout of a stored slab matrix (rows x cols): its rows split into nu
 * parts (coordinate u), its columns into nv parts of ncopy pieces
 * (coordinate v, copy w); the rank of (u, v, w) is rank(u, v, w).  grid
 * holds nu * nv * ncopy ints; ld is this rank's stored rows.
 */
typedef int (*rank_fn)(const cs_eng_mm_split_t *s, int u, int v, int w);

static cs_status_t slab_layout(int64_t rows, int64_t cols, int nu, int nv,
                               int ncopy, rank_fn rank,
                               const cs_eng_mm_split_t *s, int64_t ld,
                               int *grid, cs_eng_layout_t *l)
{
    cs_status_t st = dist_split(rows, nu, 1, &l->rows);
    if (st != CS_OK) {
        return st;
    }
    st = dist_split(cols, nv, ncopy, &l->cols);
    if (st != CS_OK) {
        dist_free(&l->rows);
        return st;
    }
    int npcol = nv * ncopy;
    for (int u = 0; u < nu; u++) {
        for (int c = 0; c < npcol; c++) {
            grid[u * npcol + c] = rank(s, u, c / ncopy, c % ncopy);
        }
    }
    l->nprow = nu;
    l->npcol = npcol;
    l->grid = grid;
    l->ld = ld > 0 ? ld : 1;
    l->order = CS_ENG_COLMAJOR;
    return CS_OK;
}

/* Ranks of the slabs: A stored m x k (u = i, v = l, copy j) or k x m
 * (u = l, v = i); B stored k x n (u = l, v = j, copy i) or n x k (u = j,
 * v = l); C's pieces m x n (u = i, v = j, piece l). */
static int rank_a_n(const cs_eng_mm_split_t *s, int u, int v, int w)
{
    return rank_of(s, u, w, v);
}
static int rank_a_t(const cs_eng_mm_split_t *s, int u, int v, int w)
{
    return rank_of(s, v, w, u);
}
static int rank_b_n(const cs_eng_mm_split_t *s, int u, int v, int w)
{
    return rank_of(s, w, v, u);
}
static int rank_b_t(const cs_eng_mm_split_t *s, int u, int v, int w)
{
    return rank_of(s, w, u, v);
}
static int rank_c(const cs_eng_mm_split_t *s, int u, int v, int w)
{
    return rank_of(s, u, v, w);
}

/* This rank's slab: rows x cols stored, columns split into ncopy pieces
 * held by peer(w). */
static cs_status_t slab_init(slab_t *sl, int64_t rows, int64_t cols, int ncopy,
                             int mine)
{
    sl->rows = rows;
    sl->cols = cols;
    sl->ncopy = ncopy;
    sl->mine = mine;
    sl->start = malloc((size_t)(ncopy + 1) * sizeof(*sl->start));
    sl->peer = malloc((size_t)ncopy * sizeof(*sl->peer));
    if (!sl->start || !sl->peer) {
        return CS_ERR_NOMEM;
    }
    for (int w = 0; w <= ncopy; w++) {
        sl->start[w] = part(cols, ncopy, w);
    }
    return CS_OK;
}

/* ------------------------------------------------------------ in place */

/* The in-place operand's layout (matmul.h, inplace). */
static const cs_eng_layout_t *inplace_layout(const cs_eng_mm_op_t *op,
                                             const cs_eng_layout_t *la,
                                             const cs_eng_layout_t *lb)
{
    return op->inplace == 'A' ? la : lb;
}

/* Whether the in-place operand's inner dimension runs along its rows. */
static int inplace_krows(const cs_eng_mm_op_t *op)
{
    return op->inplace == 'A' ? op->transa != 'N' : op->transb == 'N';
}

/* Whether lx can be read in place for op (matmul.h, inplace). */
static int inplace_fits(const cs_eng_mm_op_t *op, const cs_eng_layout_t *lx)
{
    int krows = inplace_krows(op);
    const cs_eng_dist_t *kd = krows ? &lx->rows : &lx->cols;
    const cs_eng_dist_t *od = krows ? &lx->cols : &lx->rows;
    return !op->direct && lx->order == CS_ENG_COLMAJOR &&
           kd->kind == CS_ENG_DIST_CYCLIC && od->nprocs == 1 &&
           (krows ? lx->npcol : lx->nprow) == 1;
}

/* outer (matmul.h): whether the in-place operand's outer dimension runs
 * along its rows (A stored m x k, B stored n x k). */
static int outer_rows(const cs_eng_mm_op_t *op)
{
    return op->inplace == 'A' ? op->transa == 'N' : op->transb != 'N';
}

/* Whether lx can be read in place along its outer dimension for op. */
static int outer_fits(const cs_eng_mm_op_t *op, const cs_eng_layout_t *lx)
{
    int orows = outer_rows(op);
    const cs_eng_dist_t *od = orows ? &lx->rows : &lx->cols;
    const cs_eng_dist_t *kd = orows ? &lx->cols : &lx->rows;
    return !op->direct && !op->uplo && lx->order == CS_ENG_COLMAJOR &&
           od->kind == CS_ENG_DIST_CYCLIC && kd->nprocs == 1 &&
           (orows ? lx->npcol : lx->nprow) == 1;
}

/* ------------------------------------------------------------ create */

/* One exchange: source layout src, target layout dst, plain copy of the
 * rows x cols matrix at (i0, j0) of the source to (i1, j1). */
static cs_status_t plan_copy(const cs_eng_layout_t *src,
                             const cs_eng_layout_t *dst, int64_t rows,
                             int64_t cols, int64_t i0, int64_t j0, int64_t i1,
                             int64_t j1, const cs_eng_mm_op_t *op, int axpby,
                             int me, int64_t ws_max, cs_eng_plan_t **plan_p)
{
    cs_eng_op_t o = {.m = rows,
                     .n = cols,
                     .ia = i0,
                     .ja = j0,
                     .ib = i1,
                     .jb = j1,
                     .esize = op->esize,
                     .type = axpby ? op->type : CS_ENG_T_RAW,
                     .axpby = axpby};
    if (axpby) {
        memcpy(o.alpha, op->alpha, sizeof(o.alpha));
        memcpy(o.beta, op->beta, sizeof(o.beta));
        o.mask = cs_eng_mm_mask(op); /* C out: the whole sub(C) at (0, 0) */
    }
    return cs_eng_plan_create_bounded(src, dst, &o, me, ws_max, plan_p);
}

/* A's exchange of a chunk (op cut to it, as chunk_plans says). */
static cs_status_t chunk_plan_a(cs_eng_mm_t *mm, chunk_t *ch,
                                const cs_eng_mm_op_t *op,
                                const cs_eng_layout_t *la, int64_t ws_max,
                                int *grid)
{
    const cs_eng_mm_split_t *s = &mm->s;
    int ta = op->transa != 'N';
    cs_eng_layout_t l;
    cs_status_t st = ta ? slab_layout(op->k, op->m, s->pk, s->pm, s->pn,
                                      rank_a_t, s, ch->a.rows, grid, &l)
                        : slab_layout(op->m, op->k, s->pm, s->pk, s->pn,
                                      rank_a_n, s, ch->a.rows, grid, &l);
    if (st != CS_OK) {
        return st;
    }
    st = plan_copy(la, &l, ta ? op->k : op->m, ta ? op->m : op->k, op->ia,
                   op->ja, 0, 0, op, 0, mm->me, ws_max, &ch->pa);
    dist_free(&l.rows);
    dist_free(&l.cols);
    return st;
}

/* The two exchanges of chunk c: op with the inner dimension cut to the
 * chunk (its offsets moved along k), A's and B's slabs as in
 * cs_eng_mm_create; one with an operand read in place along its outer
 * dimension (outer). */
static cs_status_t chunk_plans(cs_eng_mm_t *mm, int c,
                               const cs_eng_layout_t *la,
                               const cs_eng_layout_t *lb, int64_t ws_max,
                               int *grid)
{
    const cs_eng_mm_split_t *s = &mm->s;
    chunk_t *ch = &mm->chunk[c];
    cs_eng_mm_op_t op = mm->op;
    int64_t k0 = part(mm->op.k, mm->nchunk, c);
    int ta = op.transa != 'N', tb = op.transb != 'N';
    op.k = part(mm->op.k, mm->nchunk, c + 1) - k0;
    op.ia += ta ? k0 : 0;
    op.ja += ta ? 0 : k0;
    op.ib += tb ? 0 : k0;
    op.jb += tb ? k0 : 0;
    cs_eng_layout_t l;
    cs_status_t st = CS_OK;
    /* A: stored m x k (copies along k) or k x m (copies along m); not
     * when read in place (outer) */
    if (op.inplace != 'A') {
        st = chunk_plan_a(mm, ch, &op, la, ws_max, grid);
    }
    if (st != CS_OK || op.inplace == 'B') {
        return st;
    }
    st = tb ? slab_layout(op.n, op.k, s->pn, s->pk, s->pm, rank_b_t, s,
                          ch->b.rows, grid, &l)
            : slab_layout(op.k, op.n, s->pk, s->pn, s->pm, rank_b_n, s,
                          ch->b.rows, grid, &l);
    if (st != CS_OK) {
        return st;
    }
    st = plan_copy(lb, &l, tb ? op.n : op.k, tb ? op.k : op.n, op.ib, op.jb, 0,
                   0, &op, 0, mm->me, ws_max, &ch->pb);
    dist_free(&l.rows);
    dist_free(&l.cols);
    return st;
}

/* The one exchange of chunk c when an operand is read in place: the other
 * operand into slabs cut along the inner dimension as the in-place one
 * cuts it (grid: the ranks themselves). */
static cs_status_t chunk_plan_inplace(cs_eng_mm_t *mm, int c,
                                      const cs_eng_layout_t *la,
                                      const cs_eng_layout_t *lb, int64_t ws_max,
                                      int *grid)
{
    cs_eng_mm_op_t op = mm->op;
    chunk_t *ch = &mm->chunk[c];
    int np = mm->s.pk, for_a = op.inplace == 'B';
    int64_t k0 = part(op.k, mm->nchunk, c), k1 = part(op.k, mm->nchunk, c + 1);
    int64_t kl, lfirst;
    cs_eng_dist_t kd, whole;
    cs_status_t st =
        cs_eng_mm_cut(inplace_layout(&op, la, lb), mm->krows, mm->koff, k0, k1,
                      mm->me, np, &kd, NULL, &kl, &lfirst);
    if (st != CS_OK) {
        return st;
    }
    int64_t ext = for_a ? op.m : op.n;
    st = dist_split(ext, 1, 1, &whole);
    if (st != CS_OK) {
        cs_eng_mm_dist_free(&kd);
        return st;
    }
    /* the other operand stored with its inner dimension along its rows:
     * A transposed, B not */
    int krows = for_a ? op.transa != 'N' : op.transb == 'N';
    for (int r = 0; r < np; r++) {
        grid[r] = r;
    }
    const slab_t *sl = for_a ? &ch->a : &ch->b;
    cs_eng_layout_t l = {.rows = krows ? kd : whole,
                         .cols = krows ? whole : kd,
                         .nprow = krows ? np : 1,
                         .npcol = krows ? 1 : np,
                         .grid = grid,
                         .ld = cs_eng_max64(sl->rows, 1),
                         .order = CS_ENG_COLMAJOR};
    int64_t i0 = for_a ? op.ia : op.ib, j0 = for_a ? op.ja : op.jb;
    i0 += krows ? k0 : 0;
    j0 += krows ? 0 : k0;
    st = plan_copy(for_a ? la : lb, &l, krows ? k1 - k0 : ext,
                   krows ? ext : k1 - k0, i0, j0, 0, 0, &op, 0, mm->me, ws_max,
                   for_a ? &ch->pa : &ch->pb);
    cs_eng_mm_dist_free(&kd);
    dist_free(&whole);
    return st;
}

/*
 * Both slabs of a chunk in one exchange (engine/batch.c): one message per
 * pair of processes instead of two.  Not for plans cut into panels (the
 * workspace bound), which run one panel after the other.  The batch packs
 * its packages in the multiplication's buffer (off_x), at most the size
 * of the chunk's slabs out and in.
 */
static cs_status_t chunk_batch(cs_eng_mm_t *mm, chunk_t *ch)
{
    if (cs_eng_plan_panels(ch->pa) > 1 || cs_eng_plan_panels(ch->pb) > 1) {
        return CS_OK;
    }
    cs_eng_plan_t *plans[2] = {ch->pa, ch->pb};
    cs_status_t st = cs_eng_batch_create(plans, 2, &ch->batch);
    if (st == CS_OK) {
        int64_t x = cs_eng_batch_buffer_bytes(ch->batch);
        mm->bytes = mm->off_x + x > mm->bytes ? mm->off_x + x : mm->bytes;
    }
    return st;
}

/* outer: C's rows (columns) of each process, in the order and with the
 * cut of the operand read in place (odist), into C. */
static cs_status_t outer_plan_out(cs_eng_mm_t *mm, const cs_eng_layout_t *lc,
                                  int64_t ws_max, int *grid)
{
    const cs_eng_mm_op_t *op = &mm->op;
    int isa = op->inplace == 'A', np = mm->odist.nprocs;
    cs_eng_dist_t whole;
    cs_status_t st = dist_split(isa ? op->n : op->m, 1, 1, &whole);
    if (st != CS_OK) {
        return st;
    }
    for (int r = 0; r < np; r++) {
        grid[r] = r;
    }
    cs_eng_layout_t l = {.rows = isa ? mm->odist : whole,
                         .cols = isa ? whole : mm->odist,
                         .nprow = isa ? np : 1,
                         .npcol = isa ? 1 : np,
                         .grid = grid,
                         .ld = cs_eng_max64(mm->mi, 1),
                         .order = CS_ENG_COLMAJOR};
    st = plan_copy(&l, lc, op->m, op->n, 0, 0, op->ic, op->jc, op, 1, mm->me,
                   ws_max, &mm->out);
    dist_free(&whole);
    return st;
}

static cs_status_t create_plans(cs_eng_mm_t *mm, const cs_eng_layout_t *la,
                                const cs_eng_layout_t *lb,
                                const cs_eng_layout_t *lc, int64_t ws_max)
{
    const cs_eng_mm_op_t *op = &mm->op;
    const cs_eng_mm_split_t *s = &mm->s;
    int np = s->pm * s->pn * s->pk;
    int *grid = malloc((size_t)np * sizeof(*grid));
    if (!grid) {
        return CS_ERR_NOMEM;
    }
    cs_status_t st = CS_OK;
    for (int c = 0; c < mm->nchunk && st == CS_OK; c++) {
        st = op->inplace && !op->outer
                 ? chunk_plan_inplace(mm, c, la, lb, ws_max, grid)
                 : chunk_plans(mm, c, la, lb, ws_max, grid);
        if (st == CS_OK && !op->inplace) {
            st = chunk_batch(mm, &mm->chunk[c]);
        }
    }
    cs_eng_layout_t l;
    if (st == CS_OK && op->outer) {
        st = outer_plan_out(mm, lc, ws_max, grid);
    } else if (st == CS_OK) {
        /* C's pieces: each rank holds one, at the start of its storage */
        st = slab_layout(op->m, op->n, s->pm, s->pn, s->pk, rank_c, s, mm->mi,
                         grid, &l);
        if (st == CS_OK) {
            int64_t *lo = (int64_t *)l.cols.loff;
            for (int64_t b = 0; b < l.cols.nblk; b++) {
                lo[b] = 0;
            }
            st = plan_copy(&l, lc, op->m, op->n, 0, 0, op->ic, op->jc, op, 1,
                           mm->me, ws_max, &mm->out);
            dist_free(&l.rows);
            dist_free(&l.cols);
        }
    }
    free(grid);
    return st;
}

/* Chunks of the inner dimension: the slabs of the largest brick in
 * pieces of at most CS_ENG_MM_CHUNK_BYTES, each chunk at least pk deep.
 * Global (from the problem and the split only). */
static int chunks_of(const cs_eng_mm_op_t *op, cs_eng_mm_split_t s)
{
    double mi = (double)((op->m + s.pm - 1) / s.pm);
    double nj = (double)((op->n + s.pn - 1) / s.pn);
    double kl = (double)((op->k + s.pk - 1) / s.pk);
    /* outer: only the other operand travels, the in-place one is read
     * where it lies (and cutting it only adds passes over C) */
    double bytes = (op->outer ? (op->inplace == 'A' ? (double)op->n
                                                    : (double)op->m)
                              : mi + nj) *
                   kl * (double)op->esize;
    double nc = bytes / (double)(op->chunk_bytes > 0 ? op->chunk_bytes
                                                     : CS_ENG_MM_CHUNK_BYTES);
    int64_t most = op->k / s.pk;
    int64_t n = nc < 1.0 ? 1 : (int64_t)nc + 1;
    n = n < most ? n : most;
    return (int)(n < 1 ? 1 : n > 65536 ? 65536 : n);
}

/* outer: this rank's rows of A (columns of B) where they lie, which are
 * its rows (columns) of C; *other: the inner dimension's first index in
 * the operand. */
static cs_status_t outer_init(cs_eng_mm_t *mm, const cs_eng_layout_t *lx,
                              int64_t *other)
{
    const cs_eng_mm_op_t *op = &mm->op;
    int isa = op->inplace == 'A', orows = outer_rows(op);
    int np = mm->s.pm * mm->s.pn;
    int64_t off = orows ? (isa ? op->ia : op->ib) : (isa ? op->ja : op->jb);
    *other = orows ? (isa ? op->ja : op->jb) : (isa ? op->ia : op->ib);
    mm->krows = !orows;
    mm->ild = lx->ld;
    int64_t mine = 0;
    cs_status_t st = cs_eng_mm_cut(lx, orows, off, 0, isa ? op->m : op->n,
                                   mm->me, np, &mm->odist, NULL, &mine,
                                   &mm->ofirst);
    if (isa) {
        mm->mi = mine;
    } else {
        mm->nj = mine;
    }
    return st;
}

cs_status_t cs_eng_mm_create(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb,
                             const cs_eng_layout_t *lc,
                             const cs_eng_mm_op_t *op, cs_eng_mm_split_t s,
                             int me, int64_t ws_max, cs_eng_mm_t **mm_p)
{
    *mm_p = NULL;
    int np = s.pm * s.pn * s.pk;
    if (s.pm < 1 || s.pn < 1 || s.pk < 1 || me < 0 || me >= np ||
        op->m < s.pm || op->n < s.pn || op->k < s.pk ||
        (op->direct && (s.pm != 1 || s.pn != 1 || op->kl < 0)) ||
        (op->inplace && !op->outer &&
         ((op->inplace != 'A' && op->inplace != 'B') || s.pm != 1 ||
          s.pn != 1 || !inplace_fits(op, inplace_layout(op, la, lb)))) ||
        (op->outer &&
         ((op->inplace != 'A' && op->inplace != 'B') || s.pk != 1 ||
          (op->inplace == 'A' ? s.pn : s.pm) != 1 ||
          !outer_fits(op, inplace_layout(op, la, lb)))) ||
        (op->uplo && ((op->uplo != 'U' && op->uplo != 'L') || s.pm != 1 ||
                      s.pn != 1 || op->m != op->n))) {
        return CS_ERR_UNSUPPORTED;
    }
    cs_eng_mm_t *mm = calloc(1, sizeof(*mm));
    if (!mm) {
        return CS_ERR_NOMEM;
    }
    mm->op = *op;
    mm->s = s;
    mm->me = me;
    if (op->pieces) {
        cs_status_t st =
            cs_eng_mm_pieces_create(la, lb, lc, op, me, np, ws_max, &mm->pc);
        if (st != CS_OK) {
            free(mm);
            return st;
        }
        *mm_p = mm;
        return CS_OK;
    }
    mm->i = me % s.pm;
    mm->j = me / s.pm % s.pn;
    mm->l = me / (s.pm * s.pn);
    mm->mi = part(op->m, s.pm, mm->i + 1) - part(op->m, s.pm, mm->i);
    mm->nj = part(op->n, s.pn, mm->j + 1) - part(op->n, s.pn, mm->j);
    /* direct: no chunk, no exchange in */
    mm->nchunk = op->direct ? 0 : chunks_of(op, s);
    mm->chunk = calloc((size_t)mm->nchunk + 1, sizeof(*mm->chunk));
    cs_status_t st = mm->chunk ? CS_OK : CS_ERR_NOMEM;
    int ta = op->transa != 'N', tb = op->transb != 'N';
    int64_t kmax = 0, other = 0;
    if (op->outer) {
        st = st == CS_OK ? outer_init(mm, inplace_layout(op, la, lb), &other)
                         : st;
    } else if (op->inplace) {
        const cs_eng_layout_t *lx = inplace_layout(op, la, lb);
        int isa = op->inplace == 'A';
        mm->krows = inplace_krows(op);
        mm->koff =
            mm->krows ? (isa ? op->ia : op->ib) : (isa ? op->ja : op->jb);
        other = mm->krows ? (isa ? op->ja : op->jb) : (isa ? op->ia : op->ib);
        mm->ild = lx->ld;
    }
    for (int c = 0; c < mm->nchunk && st == CS_OK; c++) {
        chunk_t *ch = &mm->chunk[c];
        int64_t k0 = part(op->k, mm->nchunk, c);
        int64_t kc = part(op->k, mm->nchunk, c + 1) - k0;
        ch->kl = part(kc, s.pk, mm->l + 1) - part(kc, s.pk, mm->l);
        if (op->outer) {
            /* the whole chunk here, at its inner offset */
            ch->ioff = mm->krows ? other + k0 + mm->ofirst * mm->ild
                                 : mm->ofirst + (other + k0) * mm->ild;
        } else if (op->inplace) {
            int64_t lfirst = 0;
            st = cs_eng_mm_cut(inplace_layout(op, la, lb), mm->krows, mm->koff,
                               k0, k0 + kc, me, np, NULL, NULL, &ch->kl,
                               &lfirst);
            ch->ioff =
                mm->krows ? lfirst + other * mm->ild : other + lfirst * mm->ild;
        }
        kmax = ch->kl > kmax ? ch->kl : kmax;
        st = slab_init(&ch->a, ta ? ch->kl : mm->mi, ta ? mm->mi : ch->kl, s.pn,
                       mm->j);
        if (st == CS_OK) {
            st = slab_init(&ch->b, tb ? mm->nj : ch->kl, tb ? ch->kl : mm->nj,
                           s.pm, mm->i);
        }
        if (st == CS_OK) {
            for (int w = 0; w < s.pn; w++) {
                ch->a.peer[w] = rank_of(&s, mm->i, w, mm->l);
            }
            for (int w = 0; w < s.pm; w++) {
                ch->b.peer[w] = rank_of(&s, w, mm->j, mm->l);
            }
        }
    }
    if (st == CS_OK) {
        st = slab_init(&mm->c, mm->mi, mm->nj, s.pk, mm->l);
    }
    if (st != CS_OK) {
        cs_eng_mm_destroy(mm);
        return st;
    }
    for (int w = 0; w < s.pk; w++) {
        mm->c.peer[w] = rank_of(&s, mm->i, mm->j, w);
    }
    /* the buffer: A's and B's slabs of one chunk, C_ij, the ring the
     * pieces of the reduce-scatter pass through (reduce.c) */
    int64_t es = (int64_t)op->esize;
    int64_t piece = mm->c.start[mm->l + 1] - mm->c.start[mm->l];
    mm->off_b = op->inplace == 'A' ? 0 : mm->mi * kmax * es;
    mm->off_c = mm->off_b + (op->inplace == 'B' ? 0 : kmax * mm->nj * es);
    mm->off_r = mm->off_c + mm->mi * mm->nj * es;
    mm->bytes = mm->off_r + cs_eng_mm_reduce_ring(op->chunk_bytes, es,
                                                  mm->mi * piece * es, s.pk);
    mm->off_x = mm->bytes; /* create_plans adds the batches' room */
    st = create_plans(mm, la, lb, lc, ws_max);
    if (st != CS_OK) {
        cs_eng_mm_destroy(mm);
        return st;
    }
    *mm_p = mm;
    return CS_OK;
}

/* The exchanges chunk ch runs on their own (each reserved by the
 * caller): none when batched, one when an operand is read in place. */
static int own_plans(const cs_eng_mm_t *mm, const chunk_t *ch)
{
    return ch->batch ? 0 : mm->op.inplace ? 1 : 2;
}

int cs_eng_mm_nplans(const cs_eng_mm_t *mm)
{
    if (mm->pc) {
        return 1;
    }
    int n = 1;
    for (int c = 0; c < mm->nchunk; c++) {
        n += own_plans(mm, &mm->chunk[c]);
    }
    return n;
}

cs_eng_plan_t *cs_eng_mm_plan(cs_eng_mm_t *mm, int which)
{
    if (mm->pc) {
        return which == 0 ? cs_eng_mm_pieces_out(mm->pc) : NULL;
    }
    for (int c = 0; c < mm->nchunk && which >= 0; c++) {
        chunk_t *ch = &mm->chunk[c];
        int n = own_plans(mm, ch);
        if (which < n) {
            return mm->op.inplace ? (ch->pa ? ch->pa : ch->pb)
                   : which       ? ch->pb
                                 : ch->pa;
        }
        which -= n;
    }
    return which == 0 ? mm->out : NULL;
}

int64_t cs_eng_mm_buffer_bytes(const cs_eng_mm_t *mm)
{
    if (mm->pc) {
        return cs_eng_mm_pieces_buffer_bytes(mm->pc);
    }
    return mm->bytes;
}

int64_t cs_eng_mm_heap_bytes(const cs_eng_mm_t *mm)
{
    if (mm->pc) {
        return (int64_t)sizeof(*mm) + cs_eng_mm_pieces_heap_bytes(mm->pc);
    }
    int64_t b = (int64_t)sizeof(*mm) + mm->nchunk * (int64_t)sizeof(*mm->chunk);
    for (int c = 0; c < mm->nchunk; c++) {
        const chunk_t *ch = &mm->chunk[c];
        b += (ch->pa ? cs_eng_plan_heap_bytes(ch->pa) : 0) +
             (ch->pb ? cs_eng_plan_heap_bytes(ch->pb) : 0) +
             (ch->batch ? cs_eng_batch_heap_bytes(ch->batch) : 0);
    }
    return b + cs_eng_plan_heap_bytes(mm->out);
}

void cs_eng_mm_describe(const cs_eng_mm_t *mm, char *buf, size_t len)
{
    if (mm->pc) {
        cs_eng_mm_pieces_describe(mm->pc, buf, len);
        return;
    }
    int64_t kl = 0;
    for (int c = 0; c < mm->nchunk; c++) {
        kl += mm->chunk[c].kl;
    }
    kl = mm->op.direct ? mm->op.kl : kl;
    snprintf(buf, len, "split:%dx%dx%d%s brick:%lldx%lldx%lld chunks:%d%s",
             mm->s.pm, mm->s.pn, mm->s.pk,
             mm->op.direct           ? " direct"
             : mm->op.outer && mm->op.inplace == 'A' ? " A-rows-in-place"
             : mm->op.outer          ? " B-columns-in-place"
             : mm->op.inplace == 'A' ? " A-in-place"
             : mm->op.inplace == 'B' ? " B-in-place"
                                     : "",
             (long long)mm->mi, (long long)mm->nj, (long long)kl, mm->nchunk,
             mm->nchunk > 0 && mm->chunk[0].batch ? " batched" : "");
}

static void slab_free(slab_t *sl)
{
    free(sl->start);
    free(sl->peer);
}

void cs_eng_mm_destroy(cs_eng_mm_t *mm)
{
    if (!mm) {
        return;
    }
    cs_eng_mm_pieces_destroy(mm->pc);
    for (int c = 0; mm->chunk && c < mm->nchunk; c++) {
        cs_eng_batch_destroy(mm->chunk[c].batch);
        cs_eng_plan_destroy(mm->chunk[c].pa);
        cs_eng_plan_destroy(mm->chunk[c].pb);
        slab_free(&mm->chunk[c].a);
        slab_free(&mm->chunk[c].b);
    }
    free(mm->chunk);
    cs_eng_plan_destroy(mm->out);
    slab_free(&mm->c);
    if (mm->op.outer) {
        cs_eng_mm_dist_free(&mm->odist);
    }
    free(mm);
}

/* ------------------------------------------------------------ execute */

/* Requests for nbytes in runs of CS_MM_RUN: how many. */
static int64_t runs(int64_t nbytes)
{
    return nbytes <= 0 ? 0 : (nbytes + CS_MM_RUN - 1) / CS_MM_RUN;
}

/* Post the sends (send = 1) or receives of nbytes at p to peer. */
static void post(int send, char *p, int64_t nbytes, int peer, int tag,
                 MPI_Comm comm, MPI_Request *reqs, int64_t *nr)
{
    for (int64_t off = 0; off < nbytes; off += CS_MM_RUN) {
        int len = (int)cs_eng_min64(CS_MM_RUN, nbytes - off);
        int rc = send ? MPI_Isend(p + off, len, MPI_BYTE, peer, tag, comm,
                                  &reqs[(*nr)++])
                      : MPI_Irecv(p + off, len, MPI_BYTE, peer, tag, comm,
                                  &reqs[(*nr)++]);
        if (rc != MPI_SUCCESS) {
            cs_eng_fatal("matmul: MPI %s failed (error %d)",
                         send ? "Isend" : "Irecv", rc);
        }
    }
}

/* Request slots the copies of one slab need on this rank. */
static int64_t copy_reqs(const slab_t *sl, int64_t es)
{
    int64_t n = 0, mine = sl->start[sl->mine + 1] - sl->start[sl->mine];
    for (int w = 0; w < sl->ncopy; w++) {
        if (w != sl->mine) {
            n += runs(sl->rows * mine * es) +
                 runs(sl->rows * (sl->start[w + 1] - sl->start[w]) * es);
        }
    }
    return n;
}

/* Complete a slab from its other copies: send this rank's piece to each,
 * receive theirs in place. */
static void copy_post(const slab_t *sl, char *base, int64_t es, MPI_Comm comm,
                      MPI_Request *reqs, int64_t *nr, int64_t *bytes_recv,
                      int64_t *bytes_sent)
{
    int64_t col = sl->rows * es;
    for (int w = 0; w < sl->ncopy; w++) {
        if (w == sl->mine) {
            continue;
        }
        int64_t n = (sl->start[w + 1] - sl->start[w]) * col;
        post(0, base + sl->start[w] * col, n, sl->peer[w], CS_MM_TAG_COPY, comm,
             reqs, nr);
        *bytes_recv += n;
    }
    int64_t mine = (sl->start[sl->mine + 1] - sl->start[sl->mine]) * col;
    for (int w = 0; w < sl->ncopy; w++) {
        if (w != sl->mine) {
            post(1, base + sl->start[sl->mine] * col, mine, sl->peer[w],
                 CS_MM_TAG_COPY, comm, reqs, nr);
            *bytes_sent += mine;
        }
    }
}

static void wait_all(int64_t n, MPI_Request *reqs)
{
    /* int counts: waited in runs */
    for (int64_t k = 0; k < n; k += 1 << 20) {
        int c = (int)cs_eng_min64(1 << 20, n - k);
        if (cs_eng_wait_all(c, reqs + k) != MPI_SUCCESS) {
            cs_eng_fatal("matmul: MPI_Waitall failed");
        }
    }
}

/*
 * The reduce-scatter over the pk slabs: piece w of C_ij goes to copy w;
 * this rank's piece becomes the sum over w in order of w (the same order
 * on every rank, so equal inputs give equal bits).
 */
static void reduce(cs_eng_mm_t *mm, char *cij, char *ring, MPI_Comm comm,
                   int64_t *bytes_recv, int64_t *bytes_sent)
{
    const slab_t *sl = &mm->c;
    int64_t es = (int64_t)mm->op.esize, col = sl->rows * es;
    int64_t *off = malloc((size_t)sl->ncopy * 2 * sizeof(*off));
    if (!off) {
        /* the ranks are already committed: there is no way back */
        cs_eng_fatal("matmul: out of memory for %d pieces", sl->ncopy);
    }
    int64_t *bytes = off + sl->ncopy;
    for (int w = 0; w < sl->ncopy; w++) {
        off[w] = sl->start[w] * col;
        bytes[w] = (sl->start[w + 1] - sl->start[w]) * col;
    }
    cs_eng_mm_rs_t rs = {.cij = cij,
                         .off = off,
                         .bytes = bytes,
                         .peer = sl->peer,
                         .np = sl->ncopy,
                         .me = sl->mine,
                         .type = mm->op.type,
                         .esize = es,
                         .chunk_bytes = mm->op.chunk_bytes,
                         .ring = ring,
                         .comm = comm};
    cs_eng_mm_reduce_scatter(&rs, bytes_recv, bytes_sent);
    free(off);
}

static void add_xfer(cs_eng_stats_t *t, const cs_eng_stats_t *v)
{
    t->bytes_sent += v->bytes_sent;
    t->bytes_recv += v->bytes_recv;
    t->bytes_self += v->bytes_self;
    t->bytes_sent_near += v->bytes_sent_near;
    t->msgs_sent += v->msgs_sent;
    t->msgs_recv += v->msgs_recv;
    t->threads = v->threads;
    t->t_pack += v->t_pack;
    t->t_local += v->t_local;
    t->t_unpack += v->t_unpack;
    t->t_transfer += v->t_transfer;
}

cs_status_t cs_eng_mm_execute(cs_eng_mm_t *mm, const void *a, const void *b,
                              void *c, void *buf, MPI_Comm comm,
                              const cs_eng_exec_opts_t *opts,
                              cs_eng_gemm_fn gemm, void *gemm_ctx,
                              cs_eng_mm_stats_t *st)
{
    if (mm->pc) {
        return cs_eng_mm_pieces_execute(mm->pc, a, b, c, buf, comm, opts, gemm,
                                        gemm_ctx, st);
    }
    memset(st, 0, sizeof(*st));
    int64_t es = (int64_t)mm->op.esize;
    char *abuf = buf, *bbuf = (char *)buf + mm->off_b;
    char *cij = (char *)buf + mm->off_c, *recv = (char *)buf + mm->off_r;
    int64_t nreq = 0;
    for (int ci = 0; ci < mm->nchunk; ci++) {
        int64_t n =
            copy_reqs(&mm->chunk[ci].a, es) + copy_reqs(&mm->chunk[ci].b, es);
        nreq = n > nreq ? n : nreq;
    }
    MPI_Request *reqs = malloc((size_t)cs_eng_max64(nreq, 1) * sizeof(*reqs));
    if (!reqs) {
        /* the ranks are already committed: there is no way back */
        cs_eng_fatal("matmul: out of memory for %lld requests",
                     (long long)nreq);
    }
    cs_status_t rc = CS_OK;
    cs_eng_stats_t v;
    int started = 0; /* C_ij holds a product (else it is summed from 0) */
    double t0 = MPI_Wtime();
    /* chunk by chunk: the slabs in, then their product added to C_ij */
    for (int ci = 0; ci < mm->nchunk; ci++) {
        chunk_t *ch = &mm->chunk[ci];
        double u0 = MPI_Wtime();
        if (ch->batch) {
            const void *src[2] = {a, b};
            void *dst[2] = {abuf, bbuf};
            memset(&v, 0, sizeof(v));
            cs_eng_batch_execute(ch->batch, src, dst,
                                 (char *)buf + mm->off_x, comm, opts, &v);
            add_xfer(&st->xfer, &v);
        }
        for (int k = 0; k < 2 && !ch->batch; k++) {
            if (!(k ? ch->pb : ch->pa)) {
                continue; /* read in place */
            }
            memset(&v, 0, sizeof(v));
            cs_status_t r =
                cs_eng_plan_execute(k ? ch->pb : ch->pa, k ? b : a,
                                    k ? bbuf : abuf, comm, opts, &v);
            rc = rc != CS_OK ? rc : r;
            add_xfer(&st->xfer, &v);
        }
        int64_t nr = 0;
        copy_post(&ch->a, abuf, es, comm, reqs, &nr, &st->bytes_copies,
                  &st->sent_copies);
        copy_post(&ch->b, bbuf, es, comm, reqs, &nr, &st->bytes_copies,
                  &st->sent_copies);
        wait_all(nr, reqs);
        double u1 = MPI_Wtime();
        if (mm->mi > 0 && mm->nj > 0 && ch->kl > 0) {
            /* an operand read in place: its chunk where it lies */
            int ia = mm->op.inplace == 'A', ib = mm->op.inplace == 'B';
            gemm(gemm_ctx, mm->op.uplo, mm->op.transa, mm->op.transb, mm->mi,
                 mm->nj, ch->kl,
                 ia ? (const char *)a + ch->ioff * es : abuf,
                 ia ? mm->ild : cs_eng_max64(ch->a.rows, 1),
                 ib ? (const char *)b + ch->ioff * es : bbuf,
                 ib ? mm->ild : cs_eng_max64(ch->b.rows, 1), started, cij,
                 cs_eng_max64(mm->mi, 1));
            started = 1;
        }
        st->flops += cs_eng_mm_flops(&mm->op, mm->mi, mm->nj, ch->kl);
        double u2 = MPI_Wtime();
        st->t_in += u1 - u0;
        st->t_mul += u2 - u1;
    }
    if (mm->op.direct && mm->mi > 0 && mm->nj > 0) {
        /* the slabs are the local arrays themselves; a rank without inner
         * indices adds zeros to the sums */
        double u1 = MPI_Wtime();
        if (mm->op.kl > 0) {
            gemm(gemm_ctx, mm->op.uplo, mm->op.transa, mm->op.transb, mm->mi,
                 mm->nj, mm->op.kl, (const char *)a + mm->op.a_off * es,
                 cs_eng_max64(mm->op.lda, 1),
                 (const char *)b + mm->op.b_off * es,
                 cs_eng_max64(mm->op.ldb, 1), 0, cij, cs_eng_max64(mm->mi, 1));
        } else {
            memset(cij, 0, (size_t)(mm->mi * mm->nj * es));
        }
        st->flops = cs_eng_mm_flops(&mm->op, mm->mi, mm->nj, mm->op.kl);
        st->t_mul = MPI_Wtime() - u1;
    }
    if (!mm->op.direct && !started) {
        /* no inner index here (a rank may own none of an in-place
         * operand's): this rank adds zeros to the sums */
        memset(cij, 0, (size_t)(mm->mi * mm->nj * es));
    }
    double t2 = MPI_Wtime();
    (void)t0;
    if (mm->s.pk > 1) {
        reduce(mm, cij, recv, comm, &st->bytes_reduce, &st->sent_reduce);
    }
    double t3 = MPI_Wtime();
    char *own = cij + mm->c.start[mm->l] * mm->mi * es;
    memset(&v, 0, sizeof(v));
    cs_status_t rc2 = cs_eng_plan_execute(mm->out, own, c, comm, opts, &v);
    add_xfer(&st->xfer, &v);
    double t4 = MPI_Wtime();
    free(reqs);
    st->t_reduce = t3 - t2;
    st->t_out = t4 - t3;
    return rc != CS_OK ? rc : rc2;
}
