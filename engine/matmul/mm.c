/*
 * engine/matmul/mm.c - the plan and the execution of one multiplication
 * (matmul.h).
 *
 * Process (i, j, l) of the pm x pn x pk grid is rank i + pm (j + pn l),
 * or, with an operand read in place, the rank at its place in that
 * operand's grid (inplace_map).
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
    /* in place (op.inplace): the operand's grid gives the ranks */
    int *map;            /* rank of process i + pm (j + pn l); NULL: that */
    int krows;           /* the inner dimension along its rows */
    int64_t koff;        /* ... starting at this global index */
    int64_t ild;         /* ... and its leading dimension */
    cs_eng_dist_t odist; /* its rows (columns) of C, as it cuts them */
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

static int rank_of(const cs_eng_mm_t *mm, int i, int j, int l)
{
    int x = i + mm->s.pm * (j + mm->s.pn * l);
    return mm->map ? mm->map[x] : x;
}

/* ------------------------------------------------------------ layouts */

static void dist_free(cs_eng_dist_t *d)
{
    free((void *)d->splits);
    free((void *)d->proc);
    free((void *)d->loff);
}

/*
 * base (explicit: even parts or a cs_eng_mm_cut) with each part's local
 * run split again into ncopy pieces (part v, piece w: coordinate
 * v * ncopy + w), as dist_split splits its parts.  loff counts from the
 * start of the part, or of the piece when piece_rel.
 */
static cs_status_t dist_pieces(const cs_eng_dist_t *base, int ncopy,
                               int piece_rel, cs_eng_dist_t *d)
{
    int nparts = base->nprocs;
    int64_t *cnt = calloc((size_t)nparts, sizeof(*cnt));
    /* each of the nparts (ncopy - 1) inner piece ends cuts one block */
    int64_t most = base->nblk + (int64_t)nparts * ncopy;
    int64_t *splits = malloc((size_t)(most + 1) * sizeof(*splits));
    int64_t *loff = malloc((size_t)most * sizeof(*loff));
    int *proc = malloc((size_t)most * sizeof(*proc));
    if (!cnt || !splits || !loff || !proc) {
        free(cnt);
        free(splits);
        free(loff);
        free(proc);
        return CS_ERR_NOMEM;
    }
    for (int64_t b = 0; b < base->nblk; b++) {
        int v = base->proc[b];
        int64_t e = base->loff[b] + base->splits[b + 1] - base->splits[b];
        cnt[v] = e > cnt[v] ? e : cnt[v];
    }
    int64_t k = 0;
    splits[0] = 0;
    for (int64_t b = 0; b < base->nblk; b++) {
        int v = base->proc[b];
        int64_t x = base->splits[b], lo = base->loff[b];
        for (int w = 0; w < ncopy && x < base->splits[b + 1]; w++) {
            int64_t p0 = part(cnt[v], ncopy, w);
            int64_t p1 = part(cnt[v], ncopy, w + 1);
            int64_t take = cs_eng_min64(p1, lo + base->splits[b + 1] - x) - lo;
            if (take <= 0) {
                continue; /* a piece before this block, or empty */
            }
            splits[k + 1] = x + take;
            loff[k] = piece_rel ? lo - p0 : lo;
            proc[k] = v * ncopy + w;
            k++;
            x += take;
            lo += take;
        }
    }
    free(cnt);
    *d = (cs_eng_dist_t){.kind = CS_ENG_DIST_EXPLICIT,
                         .n = base->n,
                         .nprocs = nparts * ncopy,
                         .nblk = k,
                         .splits = splits,
                         .proc = proc,
                         .loff = loff};
    return CS_OK;
}

/*
 * The distribution of one dimension of extent n split into nparts (the
 * slabs, coordinate v), each split again into ncopy pieces (coordinate
 * v * ncopy + w).  ncopy = 1: one block per part.  Empty pieces are left
 * out; loff places a piece inside its part's local storage (piece_rel:
 * dist_pieces).  Arrays are allocated here (freed by dist_free).
 */
static cs_status_t dist_split(int64_t n, int nparts, int ncopy, int piece_rel,
                              cs_eng_dist_t *d)
{
    int64_t *splits = malloc((size_t)(nparts + 1) * sizeof(*splits));
    int64_t *loff = calloc((size_t)nparts, sizeof(*loff));
    int *proc = malloc((size_t)nparts * sizeof(*proc));
    cs_status_t st = splits && loff && proc ? CS_OK : CS_ERR_NOMEM;
    if (st == CS_OK) {
        for (int v = 0; v < nparts; v++) {
            splits[v] = part(n, nparts, v);
            proc[v] = v;
        }
        splits[nparts] = n;
        cs_eng_dist_t base = {.kind = CS_ENG_DIST_EXPLICIT,
                              .n = n,
                              .nprocs = nparts,
                              .nblk = nparts,
                              .splits = splits,
                              .proc = proc,
                              .loff = loff};
        st = dist_pieces(&base, ncopy, piece_rel, d);
    }
    free(splits);
    free(loff);
    free(proc);
    return st;
}

/*
 * The layout of a stored slab matrix (rows x cols): its rows split into nu
 * parts (coordinate u), its columns into nv parts of ncopy pieces
 * (coordinate v, copy w); the rank of (u, v, w) is rank(u, v, w).  The
 * parts are even, or those of rbase (cbase) where given (an operand read
 * in place cuts them).  grid holds nu * nv * ncopy ints; ld is this
 * rank's stored rows.  piece_rel: see dist_pieces.
 */
typedef int (*rank_fn)(const cs_eng_mm_t *mm, int u, int v, int w);

typedef struct {
    int64_t rows, cols;
    int nu, nv, ncopy;
    const cs_eng_dist_t *rbase, *cbase; /* NULL: even parts */
    int piece_rel;
} slab_shape_t;

static cs_status_t slab_layout(const slab_shape_t *sh, rank_fn rank,
                               const cs_eng_mm_t *mm, int64_t ld, int *grid,
                               cs_eng_layout_t *l)
{
    int nu = sh->nu, ncopy = sh->ncopy;
    cs_status_t st = sh->rbase ? dist_pieces(sh->rbase, 1, 0, &l->rows)
                               : dist_split(sh->rows, nu, 1, 0, &l->rows);
    if (st != CS_OK) {
        return st;
    }
    st = sh->cbase ? dist_pieces(sh->cbase, ncopy, sh->piece_rel, &l->cols)
                   : dist_split(sh->cols, sh->nv, ncopy, sh->piece_rel,
                                &l->cols);
    if (st != CS_OK) {
        dist_free(&l->rows);
        return st;
    }
    int npcol = sh->nv * ncopy;
    for (int u = 0; u < nu; u++) {
        for (int c = 0; c < npcol; c++) {
            grid[u * npcol + c] = rank(mm, u, c / ncopy, c % ncopy);
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
static int rank_a_n(const cs_eng_mm_t *mm, int u, int v, int w)
{
    return rank_of(mm, u, w, v);
}
static int rank_a_t(const cs_eng_mm_t *mm, int u, int v, int w)
{
    return rank_of(mm, v, w, u);
}
static int rank_b_n(const cs_eng_mm_t *mm, int u, int v, int w)
{
    return rank_of(mm, w, v, u);
}
static int rank_b_t(const cs_eng_mm_t *mm, int u, int v, int w)
{
    return rank_of(mm, w, u, v);
}
static int rank_c(const cs_eng_mm_t *mm, int u, int v, int w)
{
    return rank_of(mm, u, v, w);
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

/* Whether lx can be read in place for op with split s (matmul.h,
 * inplace): its outer dimension over the pm (pn) processes of one grid
 * dimension, its inner one over the pk of the other, each cyclic where
 * spread. */
static int inplace_fits(const cs_eng_mm_op_t *op, const cs_eng_layout_t *lx,
                        cs_eng_mm_split_t s)
{
    int krows = inplace_krows(op), isa = op->inplace == 'A';
    int po = isa ? s.pm : s.pn;
    const cs_eng_dist_t *kd = krows ? &lx->rows : &lx->cols;
    const cs_eng_dist_t *od = krows ? &lx->cols : &lx->rows;
    return !op->direct && !op->uplo && lx->order == CS_ENG_COLMAJOR &&
           (isa ? s.pn : s.pm) == 1 && kd->nprocs == s.pk &&
           od->nprocs == po && (krows ? lx->nprow : lx->npcol) == s.pk &&
           (krows ? lx->npcol : lx->nprow) == po &&
           (s.pk == 1 || kd->kind == CS_ENG_DIST_CYCLIC) &&
           (po == 1 || od->kind == CS_ENG_DIST_CYCLIC);
}

/* The ranks of the split's processes where the in-place operand lies:
 * process (o, l), o its outer coordinate (i for A, j for B), is the one
 * at that place of lx's grid; this rank's coordinates.  Unsupported
 * unless the grid holds each rank once. */
static cs_status_t inplace_map(cs_eng_mm_t *mm, const cs_eng_layout_t *lx)
{
    const cs_eng_mm_split_t *s = &mm->s;
    int isa = mm->op.inplace == 'A', krows = inplace_krows(&mm->op);
    int po = isa ? s->pm : s->pn, np = po * s->pk;
    mm->map = malloc((size_t)np * sizeof(*mm->map));
    char *seen = calloc((size_t)np, 1);
    cs_status_t st = mm->map && seen ? CS_OK : CS_ERR_NOMEM;
    for (int l = 0; l < s->pk && st == CS_OK; l++) {
        for (int o = 0; o < po && st == CS_OK; o++) {
            int r = lx->grid[(krows ? l : o) * lx->npcol + (krows ? o : l)];
            if (r < 0 || r >= np || seen[r]) {
                st = CS_ERR_UNSUPPORTED;
                break;
            }
            seen[r] = 1;
            mm->map[o + po * l] = r; /* rank_of: i + pm l, or j + pn l */
            if (r == mm->me) {
                mm->i = isa ? o : 0;
                mm->j = isa ? 0 : o;
                mm->l = l;
            }
        }
    }
    free(seen);
    return st;
}

/* cs_eng_mm_cut over the in-place operand's grid coordinates along that
 * dimension (0 .. ncoord - 1) instead of its ranks; coord: this rank's. */
static cs_status_t inplace_cut(const cs_eng_layout_t *lx, int along_rows,
                               int64_t off, int64_t k0, int64_t k1, int coord,
                               int ncoord, cs_eng_dist_t *d, int64_t *mine,
                               int64_t *lfirst)
{
    int *ident = malloc((size_t)ncoord * sizeof(*ident));
    if (!ident) {
        return CS_ERR_NOMEM;
    }
    for (int c = 0; c < ncoord; c++) {
        ident[c] = c;
    }
    cs_eng_layout_t v = *lx;
    v.grid = ident;
    v.nprow = along_rows ? ncoord : 1;
    v.npcol = along_rows ? 1 : ncoord;
    cs_status_t st = cs_eng_mm_cut(&v, along_rows, off, k0, k1, coord, ncoord,
                                   d, NULL, mine, lfirst);
    free(ident);
    return st;
}

/* The in-place operand's ranks (inplace_map), its leading dimension,
 * where its inner dimension starts, and this rank's outer indices: its
 * rows (columns) of C. */
static cs_status_t inplace_init(cs_eng_mm_t *mm, const cs_eng_layout_t *lx)
{
    const cs_eng_mm_op_t *op = &mm->op;
    int isa = op->inplace == 'A';
    mm->krows = inplace_krows(op);
    mm->koff = mm->krows ? (isa ? op->ia : op->ib) : (isa ? op->ja : op->jb);
    int64_t ooff =
        mm->krows ? (isa ? op->ja : op->jb) : (isa ? op->ia : op->ib);
    mm->ild = lx->ld;
    cs_status_t st = inplace_map(mm, lx);
    if (st != CS_OK) {
        return st;
    }
    int64_t mine = 0;
    st = inplace_cut(lx, !mm->krows, ooff, 0, isa ? op->m : op->n,
                     isa ? mm->i : mm->j, isa ? mm->s.pm : mm->s.pn,
                     &mm->odist, &mine, &mm->ofirst);
    if (isa) {
        mm->mi = mine;
    } else {
        mm->nj = mine;
    }
    return st;
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

/* One slab's exchange: the rows x cols matrix at (i0, j0) of src into
 * the slabs shaped sh (their rows x cols at (0, 0)), ld this rank's. */
static cs_status_t slab_plan(cs_eng_mm_t *mm, const slab_shape_t *sh,
                             rank_fn rank, const cs_eng_layout_t *src,
                             int64_t ld, int64_t i0, int64_t j0,
                             const cs_eng_mm_op_t *op, int64_t ws_max,
                             int *grid, cs_eng_plan_t **plan_p)
{
    cs_eng_layout_t l;
    cs_status_t st = slab_layout(sh, rank, mm, ld, grid, &l);
    if (st != CS_OK) {
        return st;
    }
    st = plan_copy(src, &l, sh->rows, sh->cols, i0, j0, 0, 0, op, 0, mm->me,
                   ws_max, plan_p);
    dist_free(&l.rows);
    dist_free(&l.cols);
    return st;
}

/* The exchanges of chunk c: op with the inner dimension cut to the chunk
 * (its offsets moved along k), A's and B's slabs as in cs_eng_mm_create;
 * with an operand read in place, only the other one's, its inner
 * dimension cut as the in-place one cuts it. */
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
    cs_eng_dist_t kd = {0};
    cs_status_t st = CS_OK;
    if (op.inplace) {
        int64_t kl, lfirst;
        st = inplace_cut(inplace_layout(&op, la, lb), mm->krows, mm->koff, k0,
                         k0 + op.k, mm->l, s->pk, &kd, &kl, &lfirst);
    }
    const cs_eng_dist_t *kb = op.inplace ? &kd : NULL;
    for (int x = 0; x < 2 && st == CS_OK; x++) {
        /* A stored m x k (copies along k) or k x m (copies along m); B
         * stored k x n (copies along n) or n x k (copies along k) */
        int isb = x == 1, t = isb ? tb : ta;
        if (op.inplace == (isb ? 'B' : 'A')) {
            continue;
        }
        int64_t e = isb ? op.n : op.m;
        int pe = isb ? s->pn : s->pm, pc = isb ? s->pm : s->pn;
        slab_shape_t sh =
            isb != t ? (slab_shape_t){op.k, e, s->pk, pe, pc, kb, NULL, 0}
                     : (slab_shape_t){e, op.k, pe, s->pk, pc, NULL, kb, 0};
        rank_fn rank = isb ? (t ? rank_b_t : rank_b_n)
                           : (t ? rank_a_t : rank_a_n);
        st = slab_plan(mm, &sh, rank, isb ? lb : la,
                       isb ? ch->b.rows : ch->a.rows, isb ? op.ib : op.ia,
                       isb ? op.jb : op.ja, &op, ws_max, grid,
                       isb ? &ch->pb : &ch->pa);
    }
    cs_eng_mm_dist_free(&kd);
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
        st = chunk_plans(mm, c, la, lb, ws_max, grid);
        if (st == CS_OK && !op->inplace) {
            st = chunk_batch(mm, &mm->chunk[c]);
        }
    }
    if (st == CS_OK) {
        /* C's pieces: each rank holds one, at the start of its storage;
         * rows (columns) as the operand read in place cuts them */
        slab_shape_t sh = {op->m,
                           op->n,
                           s->pm,
                           s->pn,
                           s->pk,
                           op->inplace == 'A' ? &mm->odist : NULL,
                           op->inplace == 'B' ? &mm->odist : NULL,
                           1};
        cs_eng_layout_t l;
        st = slab_layout(&sh, rank_c, mm, mm->mi, grid, &l);
        if (st == CS_OK) {
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
    /* in place: only the other operand travels (cutting the one read
     * where it lies only adds passes over C) */
    double bytes = (op->inplace == 'A'   ? nj
                    : op->inplace == 'B' ? mi
                                         : mi + nj) *
                   kl * (double)op->esize;
    double nc = bytes / (double)(op->chunk_bytes > 0 ? op->chunk_bytes
                                                     : CS_ENG_MM_CHUNK_BYTES);
    int64_t most = op->k / s.pk;
    int64_t n = nc < 1.0 ? 1 : (int64_t)nc + 1;
    n = n < most ? n : most;
    return (int)(n < 1 ? 1 : n > 65536 ? 65536 : n);
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
        (op->inplace &&
         ((op->inplace != 'A' && op->inplace != 'B') ||
          !inplace_fits(op, inplace_layout(op, la, lb), s))) ||
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
    int64_t kmax = 0;
    if (st == CS_OK && op->inplace) {
        /* its grid places the processes and cuts C's rows (columns) */
        st = inplace_init(mm, inplace_layout(op, la, lb));
    }
    for (int c = 0; c < mm->nchunk && st == CS_OK; c++) {
        chunk_t *ch = &mm->chunk[c];
        int64_t k0 = part(op->k, mm->nchunk, c);
        int64_t kc = part(op->k, mm->nchunk, c + 1) - k0;
        ch->kl = part(kc, s.pk, mm->l + 1) - part(kc, s.pk, mm->l);
        if (op->inplace) {
            /* this rank's part of the chunk where the operand lies */
            int64_t lfirst = 0;
            st = inplace_cut(inplace_layout(op, la, lb), mm->krows, mm->koff,
                             k0, k0 + kc, mm->l, s.pk, NULL, &ch->kl, &lfirst);
            ch->ioff = mm->krows ? lfirst + mm->ofirst * mm->ild
                                 : mm->ofirst + lfirst * mm->ild;
        }
        kmax = ch->kl > kmax ? ch->kl : kmax;
        if (st == CS_OK) {
            st = slab_init(&ch->a, ta ? ch->kl : mm->mi, ta ? mm->mi : ch->kl,
                           s.pn, mm->j);
        }
        if (st == CS_OK) {
            st = slab_init(&ch->b, tb ? mm->nj : ch->kl, tb ? ch->kl : mm->nj,
                           s.pm, mm->i);
        }
        if (st == CS_OK) {
            for (int w = 0; w < s.pn; w++) {
                ch->a.peer[w] = rank_of(mm, mm->i, w, mm->l);
            }
            for (int w = 0; w < s.pm; w++) {
                ch->b.peer[w] = rank_of(mm, w, mm->j, mm->l);
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
        mm->c.peer[w] = rank_of(mm, mm->i, mm->j, w);
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
    cs_eng_mm_dist_free(&mm->odist);
    free(mm->map);
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
    /* one triangle summed: the other by symmetry, once (uplo: mi = nj) */
    cs_eng_mm_mirror(&mm->op, mm->nj, cij, cs_eng_max64(mm->mi, 1));
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
