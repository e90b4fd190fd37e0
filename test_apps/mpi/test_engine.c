/*
 * test_apps/mpi/test_engine.c - end-to-end test of the redistribution
 * engine (cs_eng_plan_create + cs_eng_plan_execute) on 1..N MPI ranks.
 *
 * Every case (same seed on every rank) draws two random layouts A and B:
 * block-cyclic rows/columns (random nb, first incl. first > nb and
 * first >= n, src, nprocs), explicit random splits and owners, and general
 * layouts (one coordinate per block, the grid as the owner table); grids
 * map cells to ranks in random order, some ranks own no cell, some several;
 * per-rank random column/row-major storage with padded ld, explicit local
 * offsets in non-natural order (reversed, shuffled, with gaps), garbage
 * offsets for blocks a rank does not own.  Then a random sub-matrix
 * (m, n incl. 0, offsets) of esize 1, 3, 4, 8, 12 or 16 bytes is copied
 * (every fourth case only its upper or lower trapezoid) with threads 1/2,
 * overlap on/off and message limits 0 (default), 7, 64 and random, reusing
 * and recreating plans, a third of the plans cut into panels by a random
 * workspace bound (cs_eng_plan_create_bounded).  Checks, element by
 * element, on every rank: B inside the sub-matrix (trapezoid) holds the
 * right A element, everything else of local B (padding, other elements) is
 * unchanged, local A is unchanged; cs_eng_stats_t (bytes, message
 * counts, threads) equals a brute-force count (message counts of uncut
 * plans only; bytes sent inside a random grouping of the ranks, in the odd
 * variants) and its phase times are set, not negative and within the
 * call's wall time; no panel of a
 * cut plan needs more workspace than the bound unless it is one column or
 * row wide.  Each case also runs a batch (cs_eng_batch_execute) of its
 * copy and a second one on the same layouts (another sub-matrix, offsets
 * and mask) into a second target: both targets exact, A unchanged, and one
 * message per pair of ranks (cut only as the engine cuts messages).  Rank
 * 0 prints "cs_test: OK" if no rank failed.
 *
 * Usage: test_engine [cases [seed]]   (default 300 cases, seed 1)
 * Local arrays are allocated to their exact size so that valgrind sees any
 * access outside them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cs_test.h"
#include "engine/engine.h"
#include "engine/engine_int.h" /* block numbering, for expect_msgs */

enum { MAXB = 16, MAXR = 8, MAXC = 4 };

/* ------------------------------------------------------------ random */

static uint64_t rng_state;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
    return mix64(rng_state += 0x9E3779B97F4A7C15ULL);
}

/* uniform in [lo, hi] */
static int64_t rr(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static void shuffle_int(int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rr(0, i), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ------------------------------------------------------------ layouts */

enum { K_CYCLIC = 0, K_EXPLICIT = 1, K_GENERAL = 2 };

typedef struct {
    int kind;
    cs_eng_dist_t d; /* loff filled in per rank by layout_for() */
    int64_t n;
    int64_t splits[MAXB + 1];
    int proc[MAXB];
    int64_t loff[MAXR][MAXB]; /* per rank */
    int64_t ext[MAXR];        /* local extent per rank */
    int *coord;               /* per index: owner coordinate */
    int64_t *blk;             /* per index: block (explicit) */
    int64_t *cyc;             /* per index: cyclic local offset */
} gdim_t;

typedef struct {
    gdim_t dim[2];
    int nprow, npcol;
    int grid[MAXB * MAXB];
    int order[MAXR];
    int64_t ld[MAXR];
    int64_t nelem[MAXR];
} glayout_t;

static void gdim_free(gdim_t *g)
{
    free(g->coord);
    free(g->blk);
    free(g->cyc);
}

/* Local offset of index x on rank r (r owns x's coordinate). */
static int64_t gdim_lidx(const gdim_t *g, int r, int64_t x)
{
    if (g->kind == K_CYCLIC) {
        return g->cyc[x];
    }
    int64_t k = g->blk[x];
    return g->loff[r][k] + x - g->splits[k];
}

/* Splits, owners and brute-force tables; nprocs given for cyclic and
 * explicit kinds (general: one coordinate per block). */
static void gdim_gen(gdim_t *g, int64_t n, int kind, int np, int big)
{
    memset(g, 0, sizeof(*g));
    g->n = n;
    g->kind = kind;
    size_t sz = (size_t)(n > 0 ? n : 1);
    g->coord = malloc(sz * sizeof(int));
    g->blk = malloc(sz * sizeof(int64_t));
    g->cyc = malloc(sz * sizeof(int64_t));
    CS_TEST_ASSERT(g->coord && g->blk && g->cyc);
    if (kind == K_CYCLIC) {
        int64_t nb = big ? rr(64, 400) : rnd() % 6 == 0 ? rr(1, 40) : rr(1, 8);
        int64_t first;
        switch (rr(0, 5)) {
        case 0:
        case 1:
            first = nb;
            break;
        case 2:
        case 3:
            first = rr(1, nb);
            break;
        case 4:
            first = rr(nb + 1, 2 * nb + 2);
            break;
        default:
            first = rr(n > 1 ? n : 1, n + 2);
            break;
        }
        int src = (int)rr(0, np - 1);
        CS_TEST_EQ(cs_eng_dist_cyclic(n, nb, first, src, np, &g->d), CS_OK);
        int64_t cnt[MAXR * 2] = {0};
        int64_t x = 0;
        for (int64_t k = 0; x < n; k++) {
            int64_t len = k == 0 ? first : nb;
            int64_t end = x + len < n ? x + len : n;
            int c = (int)((src + k) % np);
            for (int64_t y = x; y < end; y++) {
                g->coord[y] = c;
                g->blk[y] = k;
                g->cyc[y] = cnt[c] + (y - x);
            }
            cnt[c] += end - x;
            x = end;
        }
        return;
    }
    int64_t nblk = n == 0 ? 0 : rr(1, n < MAXB ? n : MAXB);
    if (big) {
        nblk = n < 3 ? n : rr(1, 3);
    } else if (rnd() % 5 == 0 && n > 0) {
        nblk = n < MAXB ? n : MAXB; /* many small blocks */
    }
    /* nblk - 1 distinct cuts in [1, n - 1], sorted */
    char *used = calloc((size_t)n + 1, 1);
    CS_TEST_ASSERT(used);
    for (int64_t i = 0; i < nblk - 1; i++) {
        int64_t cpos;
        do {
            cpos = rr(1, n - 1);
        } while (used[cpos]);
        used[cpos] = 1;
    }
    int64_t nk = 0;
    g->splits[nk++] = 0;
    for (int64_t x = 1; x < n; x++) {
        if (used[x]) {
            g->splits[nk++] = x;
        }
    }
    g->splits[nk] = n;
    free(used);
    CS_TEST_ASSERT(nk == nblk || n == 0);
    if (kind == K_GENERAL) {
        int perm[MAXB];
        for (int k = 0; k < nblk; k++) {
            perm[k] = k;
        }
        shuffle_int(perm, (int)nblk);
        for (int k = 0; k < nblk; k++) {
            g->proc[k] = perm[k];
        }
        np = nblk > 0 ? (int)nblk : 1;
    } else {
        for (int64_t k = 0; k < nblk; k++) {
            g->proc[k] = (int)rr(0, np - 1);
        }
    }
    for (int64_t k = 0; k < nblk; k++) {
        for (int64_t y = g->splits[k]; y < g->splits[k + 1]; y++) {
            g->coord[y] = g->proc[k];
            g->blk[y] = k;
            g->cyc[y] = -1;
        }
    }
    cs_eng_dist_t d = {.kind = CS_ENG_DIST_EXPLICIT,
                       .n = n,
                       .nprocs = np,
                       .nblk = nblk,
                       .splits = g->splits,
                       .proc = g->proc,
                       .loff = NULL};
    g->d = d;
}

/* Local storage of dimension g on rank r, which owns the coordinates with
 * mine[c] != 0: extent and (explicit) local offsets in a random order. */
static void gdim_local(gdim_t *g, int r, const char *mine)
{
    if (g->kind == K_CYCLIC) {
        int64_t e = 0;
        for (int64_t x = 0; x < g->n; x++) {
            if (mine[g->coord[x]]) {
                e++;
            }
        }
        g->ext[r] = e;
        return;
    }
    int blocks[MAXB], nm = 0;
    for (int k = 0; k < g->d.nblk; k++) {
        if (mine[g->proc[k]]) {
            blocks[nm++] = k;
        } else {
            /* never meaningful: garbage the engine must not rely on */
            g->loff[r][k] = (int64_t)(rnd() % 1000000) - 500000;
        }
    }
    int mode = (int)rr(0, 3);
    if (mode == 1) { /* reversed */
        for (int i = 0; i < nm / 2; i++) {
            int t = blocks[i];
            blocks[i] = blocks[nm - 1 - i];
            blocks[nm - 1 - i] = t;
        }
    } else if (mode >= 2) {
        shuffle_int(blocks, nm);
    }
    int gaps = rr(0, 2) == 0;
    int64_t off = gaps ? rr(0, 2) : 0;
    for (int i = 0; i < nm; i++) {
        int k = blocks[i];
        g->loff[r][k] = off;
        off += g->splits[k + 1] - g->splits[k] + (gaps ? rr(0, 2) : 0);
    }
    g->ext[r] = off + (gaps ? rr(0, 1) : 0);
}

static int coord_has_data(const gdim_t *g, int c)
{
    for (int64_t x = 0; x < g->n; x++) {
        if (g->coord[x] == c) {
            return 1;
        }
    }
    return 0;
}

static int owner(const glayout_t *L, int64_t i, int64_t j)
{
    return L->grid[L->dim[0].coord[i] * L->npcol + L->dim[1].coord[j]];
}

/*
 * MPI messages of the package from rank s to rank d, as the engine cuts
 * plain copies (engine/messages.c), from the generated layouts: one piece
 * per row group (rows with the same A and B row coordinates) and column
 * cut run (consecutive columns with the same A and B column coordinates
 * inside one block of B's column distribution, as the engine numbers them:
 * a one-process cyclic dimension is one block) going from s to d; no cut (one piece) when the
 * pieces average under 256 KiB; each piece split into chunks.
 */
/* MPI messages for a message of bytes: the engine's cut and small
 * pieces (cs_eng_msg_piece), or, when whole_msgs, without the pieces (a
 * shared-buffer signal stands for the whole message). */
static int whole_msgs;

static int64_t msgs_of(int64_t bytes, int64_t chunk)
{
    int64_t piece = whole_msgs ? chunk : cs_eng_msg_piece(bytes, chunk);
    return (bytes + piece - 1) / piece;
}

static int64_t expect_msgs(const glayout_t *A, const glayout_t *B,
                           const cs_eng_op_t *op, int s, int d, size_t es,
                           int64_t chunk)
{
    /* a representative row of each row group, by (A, B) row coordinate */
    int64_t rep[MAXR * 2][MAXR * 2], cnt[MAXR * 2][MAXR * 2];
    memset(cnt, 0, sizeof(cnt));
    for (int64_t i = 0; i < op->m; i++) {
        int ar = A->dim[0].coord[op->ia + i], br = B->dim[0].coord[op->ib + i];
        CS_TEST_ASSERT(ar < MAXR * 2 && br < MAXR * 2);
        if (cnt[ar][br]++ == 0) {
            rep[ar][br] = i;
        }
    }
    int64_t n = 0, total = 0, chunks = 0;
    cs_eng_dist_t bd; /* B's columns with the engine's block numbering */
    cs_eng_dist_normalize(&B->dim[1].d, &bd);
    for (int64_t j0 = 0; j0 < op->n;) {
        const gdim_t *ac = &A->dim[1], *bc = &B->dim[1];
        int64_t j1 = j0 + 1;
        while (j1 < op->n &&
               ac->coord[op->ja + j1] == ac->coord[op->ja + j0] &&
               bc->coord[op->jb + j1] == bc->coord[op->jb + j0] &&
               cs_eng_dist_block_of(&bd, op->jb + j1) ==
                   cs_eng_dist_block_of(&bd, op->jb + j0)) {
            j1++;
        }
        for (int ar = 0; ar < MAXR * 2; ar++) {
            for (int br = 0; br < MAXR * 2; br++) {
                if (cnt[ar][br] == 0 ||
                    owner(A, op->ia + rep[ar][br], op->ja + j0) != s ||
                    owner(B, op->ib + rep[ar][br], op->jb + j0) != d) {
                    continue;
                }
                int64_t bytes = cnt[ar][br] * (j1 - j0) * (int64_t)es;
                n++;
                total += bytes;
                chunks += msgs_of(bytes, chunk);
            }
        }
        j0 = j1;
    }
    if (n > 1 && total / n < ((int64_t)256 << 10)) {
        return msgs_of(total, chunk);
    }
    return chunks;
}

/* 1 if element (i, j) of the operation (op-relative) is copied: inside
 * the trapezoid of a masked copy (engine.h, cs_eng_mask_t), or any. */
static int in_mask(const cs_eng_op_t *op, int64_t i, int64_t j)
{
    return op->mask == CS_ENG_MASK_LOWER   ? i >= op->mask_k + j
           : op->mask == CS_ENG_MASK_UPPER ? i <= op->mask_k + j
                                           : 1;
}

static int64_t lpos(const glayout_t *L, int r, int64_t i, int64_t j)
{
    int64_t li = gdim_lidx(&L->dim[0], r, i);
    int64_t lj = gdim_lidx(&L->dim[1], r, j);
    return L->order[r] == CS_ENG_COLMAJOR ? li + lj * L->ld[r]
                                          : li * L->ld[r] + lj;
}

static void layout_gen(glayout_t *L, int64_t M, int64_t N, int P, int big)
{
    memset(L, 0, sizeof(*L));
    int kind[2];
    int64_t ext[2] = {M, N};
    for (int d = 0; d < 2; d++) {
        kind[d] = (int)rr(0, 2);
        if (kind[d] == K_GENERAL && ext[d] > 3 * MAXB) {
            kind[d] = K_EXPLICIT; /* keep general layouts' blocks long */
        }
    }
    int np[2];
    if (kind[0] == K_CYCLIC && kind[1] == K_CYCLIC) {
        np[0] = (int)rr(1, P);
        np[1] = (int)rr(1, P / np[0]);
    } else {
        for (int d = 0; d < 2; d++) {
            np[d] = kind[d] == K_CYCLIC ? (int)rr(1, P) : (int)rr(1, MAXC);
        }
    }
    for (int d = 0; d < 2; d++) {
        gdim_gen(&L->dim[d], ext[d], kind[d], np[d], big);
    }
    int nprow = L->nprow = L->dim[0].d.nprocs;
    int npcol = L->npcol = L->dim[1].d.nprocs;
    /* A rank's local array has one row offset per row index, so in a
     * cyclic dimension (fixed packing per coordinate) all cells of a rank
     * must share that coordinate. */
    int cr = kind[0] == K_CYCLIC && nprow > 1;
    int cc = kind[1] == K_CYCLIC && npcol > 1;
    int perm[MAXR];
    for (int r = 0; r < P; r++) {
        perm[r] = r;
    }
    shuffle_int(perm, P);
    if (cr && cc) {
        for (int c = 0; c < nprow * npcol; c++) {
            L->grid[c] = perm[c];
        }
    } else if (cr || cc) {
        /* ranks perm[cut[g]..cut[g+1]) serve coordinate g of the cyclic
         * dimension */
        int ng = cr ? nprow : npcol, used = (int)rr(ng, P);
        int cut[MAXR + 1];
        cut[0] = 0;
        for (int gi = 1; gi < ng; gi++) {
            cut[gi] = (int)rr(cut[gi - 1] + 1, used - (ng - gi));
        }
        cut[ng] = used;
        for (int pr = 0; pr < nprow; pr++) {
            for (int pc = 0; pc < npcol; pc++) {
                int gi = cr ? pr : pc;
                L->grid[pr * npcol + pc] =
                    perm[rr(cut[gi], cut[gi + 1] - 1)];
            }
        }
    } else {
        int mode = (int)rr(0, 2), sub = (int)rr(1, P);
        for (int c = 0; c < nprow * npcol; c++) {
            L->grid[c] = mode == 0   ? perm[c % P]
                         : mode == 1 ? (int)rr(0, P - 1)
                                     : perm[rr(0, sub - 1)];
        }
    }
    /* cells without data may be unowned */
    for (int pr = 0; pr < nprow; pr++) {
        for (int pc = 0; pc < npcol; pc++) {
            if ((!coord_has_data(&L->dim[0], pr) ||
                 !coord_has_data(&L->dim[1], pc)) &&
                rnd() % 2) {
                L->grid[pr * npcol + pc] = -1;
            }
        }
    }
    /* local storage of every rank (all ranks draw all of it: same RNG) */
    for (int r = 0; r < P; r++) {
        char mine[2][MAXB * MAXB];
        memset(mine, 0, sizeof(mine));
        for (int pr = 0; pr < nprow; pr++) {
            for (int pc = 0; pc < npcol; pc++) {
                if (L->grid[pr * npcol + pc] == r) {
                    mine[0][pr] = mine[1][pc] = 1;
                }
            }
        }
        gdim_local(&L->dim[0], r, mine[0]);
        gdim_local(&L->dim[1], r, mine[1]);
        L->order[r] = (int)rr(0, 1);
        int64_t lr = L->dim[0].ext[r], lc = L->dim[1].ext[r];
        int64_t pad = rr(0, 2) == 0 ? 0 : rr(1, 3);
        if (L->order[r] == CS_ENG_COLMAJOR) {
            L->ld[r] = (lr > 1 ? lr : 1) + pad;
            L->nelem[r] = L->ld[r] * lc;
        } else {
            L->ld[r] = (lc > 1 ? lc : 1) + pad;
            L->nelem[r] = lr * L->ld[r];
        }
    }
}

static void layout_free(glayout_t *L)
{
    gdim_free(&L->dim[0]);
    gdim_free(&L->dim[1]);
}

/* The engine's view of L on rank r. */
static cs_eng_layout_t layout_for(const glayout_t *L, int r)
{
    cs_eng_layout_t l = {.rows = L->dim[0].d,
                         .cols = L->dim[1].d,
                         .nprow = L->nprow,
                         .npcol = L->npcol,
                         .grid = L->grid,
                         .ld = L->ld[r],
                         .order = L->order[r]};
    if (L->dim[0].kind != K_CYCLIC) {
        l.rows.loff = L->dim[0].loff[r];
    }
    if (L->dim[1].kind != K_CYCLIC) {
        l.cols.loff = L->dim[1].loff[r];
    }
    return l;
}

/* Generator self-check: rank r's elements sit at distinct positions
 * inside its array. */
static void layout_selfcheck(const glayout_t *L, int r)
{
    int64_t ne = L->nelem[r];
    char *seen = calloc((size_t)(ne > 0 ? ne : 1), 1);
    CS_TEST_ASSERT(seen);
    for (int64_t i = 0; i < L->dim[0].n; i++) {
        for (int64_t j = 0; j < L->dim[1].n; j++) {
            if (owner(L, i, j) != r) {
                continue;
            }
            int64_t p = lpos(L, r, i, j);
            CS_TEST_ASSERT(p >= 0 && p < ne && !seen[p]);
            seen[p] = 1;
        }
    }
    free(seen);
}

/* ------------------------------------------------------------ values */

/* Byte b of the element encoding global A element (i, j). */
static void encode(uint64_t salt, int64_t i, int64_t j, size_t es,
                   unsigned char *dst)
{
    uint64_t h = 0;
    for (size_t b = 0; b < es; b++) {
        if (b % 8 == 0) {
            h = mix64(salt ^ ((uint64_t)i << 24) ^ ((uint64_t)j << 44) ^
                      (uint64_t)(b / 8) ^ 0x5bd1e995ULL);
        }
        dst[b] = (unsigned char)(h >> (8 * (b % 8)));
    }
}

static void fill_noise(unsigned char *p, size_t bytes, uint64_t salt)
{
    for (size_t b = 0; b < bytes; b++) {
        p[b] = (unsigned char)(mix64(salt + b) >> 17);
    }
}

/* A's owned elements encode (i, j) under salt (the rest of a keeps its
 * noise); b := b0; bx := what B must hold afterwards.  a0 := a. */
static void set_values(const glayout_t *A, const glayout_t *B,
                       const cs_eng_op_t *op, int me, uint64_t salt,
                       unsigned char *a, unsigned char *a0, unsigned char *b,
                       const unsigned char *b0, unsigned char *bx)
{
    size_t es = op->esize;
    for (int64_t i = 0; i < A->dim[0].n; i++) {
        for (int64_t j = 0; j < A->dim[1].n; j++) {
            if (owner(A, i, j) == me) {
                encode(salt, i, j, es, a + lpos(A, me, i, j) * (int64_t)es);
            }
        }
    }
    size_t abytes = (size_t)A->nelem[me] * es;
    size_t bbytes = (size_t)B->nelem[me] * es;
    if (abytes) {
        memcpy(a0, a, abytes);
    }
    if (bbytes) {
        memcpy(b, b0, bbytes);
        memcpy(bx, b0, bbytes);
    }
    for (int64_t i = 0; i < op->m; i++) {
        for (int64_t j = 0; j < op->n; j++) {
            if (owner(B, op->ib + i, op->jb + j) == me && in_mask(op, i, j)) {
                encode(salt, op->ia + i, op->ja + j, es,
                       bx + lpos(B, me, op->ib + i, op->jb + j) *
                                (int64_t)es);
            }
        }
    }
}

/* ------------------------------------------------------------ one case */

typedef struct {
    int threads, overlap;
    int64_t max_msg;
    int64_t shm_min;  /* shared send buffer from this size (0: never) */
    int fresh_plan;   /* create a new plan before this variant */
    int reserve;      /* call cs_eng_plan_reserve() first */
} variant_t;

/* A soft check that stays silent after the case's first failure. */
#define CASE_CHECK(cond, ...)                                                 \
    do {                                                                      \
        if (!quiet) {                                                         \
            CS_TEST_CHECK(cond, __VA_ARGS__);                                 \
        }                                                                     \
    } while (0)

static int64_t ncases_run, nexec_run, nbytes_checked, ncut_plans;

/* A cut plan: every panel within the bound ws, unless it is one target
 * column (or row) wide, which no cut can make smaller. */
static int panels_within(const cs_eng_plan_t *plan, int64_t ws)
{
    const cs_eng_panels_t *cut = plan->panels; /* NULL: uncut */
    for (int i = 0; cut && i < cut->n; i++) {
        const cs_eng_exch_t *p = cut->panel[i];
        int64_t w = cs_eng_exch_workspace_bytes(p);
        int line = p->op.n == 1 || p->op.m == 1;
        if (w > ws && !line) {
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ batches */

static int64_t nbatch_run;

/* Bytes op moves from rank s to rank d (s != d), brute force. */
static int64_t pair_bytes(const glayout_t *A, const glayout_t *B,
                          const cs_eng_op_t *op, int s, int d)
{
    int64_t n = 0;
    for (int64_t i = 0; i < op->m; i++) {
        for (int64_t j = 0; j < op->n; j++) {
            n += in_mask(op, i, j) &&
                 owner(A, op->ia + i, op->ja + j) == s &&
                 owner(B, op->ib + i, op->jb + j) == d;
        }
    }
    return n * (int64_t)op->esize;
}

/*
 * A batch of two plans on the case's layouts (cs_eng_batch_execute): op
 * into B and a second copy op2 (another sub-matrix, offsets and mask)
 * into a second array of B's layout.  Both targets must come out as the
 * plans alone would make them, A unchanged, and each pair of ranks must
 * exchange one message (cut only into the engine's pieces) carrying both
 * plans' packages.
 */
static void run_batch(int c, MPI_Comm comm, int me, int P,
                      const glayout_t *A, const glayout_t *B,
                      const cs_eng_layout_t *la, const cs_eng_layout_t *lb,
                      const cs_eng_op_t *op, uint64_t salt, unsigned char *a,
                      unsigned char *a0, unsigned char *b,
                      const unsigned char *b0, unsigned char *bx)
{
    cs_eng_op_t op2 = *op;
    int64_t rows = cs_eng_min64(A->dim[0].n, B->dim[0].n);
    int64_t cols = cs_eng_min64(A->dim[1].n, B->dim[1].n);
    op2.m = rr(0, rows);
    op2.n = rr(0, cols);
    op2.ia = rr(0, A->dim[0].n - op2.m);
    op2.ja = rr(0, A->dim[1].n - op2.n);
    op2.ib = rr(0, B->dim[0].n - op2.m);
    op2.jb = rr(0, B->dim[1].n - op2.n);
    op2.mask = (int)rr(0, 2);
    op2.mask_k = rr(-op2.n - 1, op2.m + 1);
    int threads = (int)rr(1, 2), overlap = (int)rr(0, 1);
    int64_t max_msg = rnd() % 2 ? 0 : rr(1, 300);
    size_t es = op->esize, bbytes = (size_t)B->nelem[me] * es;
    unsigned char *b2 = bbytes ? malloc(bbytes) : NULL;
    unsigned char *bx2 = bbytes ? malloc(bbytes) : NULL;
    CS_TEST_ASSERT(!bbytes || (b2 && bx2));
    set_values(A, B, &op2, me, salt, a, a0, b2, b0, bx2);
    set_values(A, B, op, me, salt, a, a0, b, b0, bx);
    cs_eng_plan_t *plan[2] = {NULL, NULL};
    cs_status_t s1 = cs_eng_plan_create(la, lb, op, me, &plan[0]);
    cs_status_t s2 = cs_eng_plan_create(la, lb, &op2, me, &plan[1]);
    cs_eng_batch_t *bt = NULL;
    cs_status_t s3 = s1 == CS_OK && s2 == CS_OK
                         ? cs_eng_batch_create(plan, 2, &bt)
                         : CS_ERR_UNSUPPORTED;
    CS_TEST_CHECK(s3 == CS_OK, "case %d rank %d: batch_create: %s / %s / %s",
                  c, me, cs_status_str(s1), cs_status_str(s2),
                  cs_status_str(s3));
    int bad = s3 != CS_OK, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (!anybad) {
        int64_t nbuf = cs_eng_batch_buffer_bytes(bt);
        void *buf = malloc((size_t)nbuf + 1);
        CS_TEST_ASSERT(buf);
        const void *as[2] = {a, a};
        void *bs[2] = {b, b2};
        cs_eng_exec_opts_t opts = {.threads = threads,
                                   .overlap = overlap,
                                   .max_msg_bytes = max_msg};
        cs_eng_stats_t st;
        memset(&st, 0xff, sizeof(st));
        cs_eng_batch_execute(bt, as, bs, buf, comm, &opts, &st);
        nbatch_run++;
        int64_t chunk = max_msg > 0 ? max_msg : (int64_t)1 << 30;
        int64_t sent = 0, recv = 0, ms = 0, mr = 0, nsend = 0, nrecv = 0;
        for (int q = 0; q < P; q++) {
            if (q == me) {
                continue;
            }
            int64_t to = pair_bytes(A, B, op, me, q) +
                         pair_bytes(A, B, &op2, me, q);
            int64_t from = pair_bytes(A, B, op, q, me) +
                           pair_bytes(A, B, &op2, q, me);
            sent += to;
            recv += from;
            ms += msgs_of(to, chunk);
            mr += msgs_of(from, chunk);
            nsend += to > 0;
            nrecv += from > 0;
        }
        CS_TEST_CHECK(!bbytes || (memcmp(b, bx, bbytes) == 0 &&
                                  memcmp(b2, bx2, bbytes) == 0),
                      "case %d rank %d: batch (threads %d overlap %d msg "
                      "%" PRId64 "): wrong B elements (first plan %d, "
                      "second %d)",
                      c, me, threads, overlap, max_msg,
                      memcmp(b, bx, bbytes) != 0,
                      memcmp(b2, bx2, bbytes) != 0);
        CS_TEST_CHECK(!A->nelem[me] ||
                          memcmp(a, a0, (size_t)A->nelem[me] * es) == 0,
                      "case %d rank %d: batch modified A", c, me);
        CS_TEST_CHECK(st.bytes_sent == sent && st.bytes_recv == recv &&
                          st.msgs_sent == ms && st.msgs_recv == mr,
                      "case %d rank %d: batch sent %" PRId64 " B in %" PRId64
                      " messages, received %" PRId64 " B in %" PRId64
                      "; want %" PRId64 " B in %" PRId64 " (%" PRId64
                      " peers), %" PRId64 " B in %" PRId64 " (%" PRId64
                      " peers)",
                      c, me, st.bytes_sent, st.msgs_sent, st.bytes_recv,
                      st.msgs_recv, sent, ms, nsend, recv, mr, nrecv);
        CS_TEST_CHECK(nbuf >= sent + recv,
                      "case %d rank %d: batch buffer %" PRId64
                      " B for %" PRId64 " B of packages",
                      c, me, nbuf, sent + recv);
        free(buf);
    }
    cs_eng_batch_destroy(bt);
    cs_eng_plan_destroy(plan[0]);
    cs_eng_plan_destroy(plan[1]);
    free(b2);
    free(bx2);
}

static void run_case(int c, uint64_t seed, MPI_Comm comm, int me, int P,
                     int nvariants)
{
    rng_state = mix64(seed * 1000003ULL + (uint64_t)c);
    static const size_t esizes[] = {4, 8, 16, 12, 3, 8, 4, 1};
    size_t es = esizes[rr(0, 7)];
    /* big cases: large blocks, so that threaded copies (from 512 KiB on,
     * engine/exchange.c) run; tall ones (one column) split rows over the
     * threads */
    int big = c % 29 == 13 || c % 29 == 27 || c % 29 == 20;
    cs_eng_op_t op;
    memset(&op, 0, sizeof(op)); /* a plain copy: no transform */
    if (c % 29 == 13) {
        op.m = rr(200, 300);
        op.n = rr(200, 300);
        es = 16;
    } else if (c % 29 == 20) {
        /* a trapezoid (below) with blocks of 512 KiB and more */
        op.m = rr(400, 500);
        op.n = rr(400, 500);
        es = 16;
    } else if (big) {
        op.m = rr(33000, 36000);
        op.n = 1;
        es = 16;
    } else {
        op.m = rnd() % 12 == 0 ? 0 : rr(1, 40);
        op.n = rnd() % 12 == 0 ? 0 : rr(1, 40);
    }
    op.ia = rnd() % 3 == 0 ? 0 : rr(0, 7);
    op.ja = rnd() % 3 == 0 ? 0 : rr(0, 7);
    op.ib = rnd() % 3 == 0 ? 0 : rr(0, 7);
    op.jb = rnd() % 3 == 0 ? 0 : rr(0, 7);
    op.esize = es;
    /* every fourth case a trapezoid (p?trmr2d): packages hold only the
     * trapezoid's rows of each column (engine/trapezoid.c); k from above
     * the first row to below the last, so some are empty or full */
    if (c % 4 == 3 || c % 29 == 20) {
        op.mask = rnd() % 2 ? CS_ENG_MASK_LOWER : CS_ENG_MASK_UPPER;
        op.mask_k = rr(-op.n - 1, op.m + 1);
    }
    glayout_t A, B;
    if (big) {
        /* few large blocks so that packages exceed the threshold */
        layout_gen(&A, op.ia + op.m, op.ja + op.n, P, 1);
        layout_gen(&B, op.ib + op.m, op.jb + op.n, P, 1);
    } else {
        layout_gen(&A, op.ia + op.m + rr(0, 6), op.ja + op.n + rr(0, 6), P,
                   0);
        layout_gen(&B, op.ib + op.m + rr(0, 6), op.jb + op.n + rr(0, 6), P,
                   0);
    }
    uint64_t salt = rnd();
    nvariants = big && nvariants > 2 ? 2 : nvariants;
    variant_t var[6];
    static const int64_t small_msg[] = {7, 64, 1, 13};
    for (int v = 0; v < nvariants; v++) {
        var[v].threads = v % 2 ? 2 : 1;
        var[v].overlap = (v / 2) % 2 == 0 ? (v % 2 == 0) : (v % 2 != 0);
        var[v].max_msg = v == 0 ? 0
                         : v == 1 ? small_msg[rr(0, 3)]
                         : v == 2 ? 64
                                  : rr(1, 400);
        if (big && v == 1) {
            var[v].max_msg = rr(4096, 200000);
        }
        /* the shared send buffer (made in main) switched on in half of
         * the cases for variant 0 and always for variant 2: these plain
         * copies must not use it, since their receivers may take packages
         * straight into B where no signal can stand for them (a sender
         * that did corrupted case 27 of seed 2); the transposes that do
         * use it are checked by checks 33 and 37 */
        var[v].shm_min = v == 2 || (v == 0 && rnd() % 2) ? 1 : 0;
        var[v].fresh_plan = v == 0 || rnd() % 3 == 0;
        var[v].reserve = rnd() % 2;
    }
    int pass_null_a = rnd() % 2, pass_null_b = rnd() % 2;
    /* a grouping of the ranks (as the shim passes nodes) for the odd
     * variants: the stats must count the bytes sent inside a group */
    int group[MAXR];
    for (int q = 0; q < P; q++) {
        group[q] = (int)rr(0, 2);
    }
    /* a workspace bound for a third of the plans (the same on every
     * rank), small enough to cut most of them */
    int64_t total = op.m * op.n * (int64_t)es;
    int64_t bound = rnd() % 3 == 0 && total > 0 ? rr(1, total) : 0;

    layout_selfcheck(&A, me);
    layout_selfcheck(&B, me);
    cs_eng_layout_t la = layout_for(&A, me), lb = layout_for(&B, me);

    /* local arrays: exact sizes */
    size_t abytes = (size_t)A.nelem[me] * es, bbytes = (size_t)B.nelem[me] * es;
    unsigned char *a = abytes ? malloc(abytes) : NULL;
    unsigned char *a0 = abytes ? malloc(abytes) : NULL;
    unsigned char *b = bbytes ? malloc(bbytes) : NULL;
    unsigned char *b0 = bbytes ? malloc(bbytes) : NULL;
    unsigned char *bx = bbytes ? malloc(bbytes) : NULL;
    CS_TEST_ASSERT(!abytes || (a && a0));
    CS_TEST_ASSERT(!bbytes || (b && b0 && bx));
    fill_noise(a, abytes, salt ^ ((uint64_t)me << 50) ^ 0xAAAA);
    fill_noise(b0, bbytes, salt ^ ((uint64_t)me << 50) ^ 0xBBBB);
    /* expected B and brute-force traffic */
    int64_t to[MAXR] = {0}, from[MAXR] = {0}, self = 0;
    int owns_a = 0, owns_b = 0;
    for (int64_t i = 0; i < op.m; i++) {
        for (int64_t j = 0; j < op.n; j++) {
            int s = owner(&A, op.ia + i, op.ja + j);
            int d = owner(&B, op.ib + i, op.jb + j);
            CS_TEST_ASSERT(s >= 0 && s < P && d >= 0 && d < P);
            owns_a |= s == me;
            owns_b |= d == me;
            if (!in_mask(&op, i, j)) {
                continue;
            }
            if (s == me && d == me) {
                self += (int64_t)es;
            } else if (s == me) {
                to[d] += (int64_t)es;
            } else if (d == me) {
                from[s] += (int64_t)es;
            }
        }
    }
    const void *a_arg = (!owns_a && pass_null_a) ? NULL : a;
    void *b_arg = (!owns_b && pass_null_b) ? NULL : b;

    cs_eng_plan_t *plan = NULL;
    int fails0 = cs_test_failures, quiet = 0;
    for (int v = 0; v < nvariants; v++) {
        const variant_t *vr = &var[v];
        if (vr->fresh_plan || !plan) {
            cs_eng_plan_destroy(plan);
            plan = NULL;
            cs_status_t st =
                cs_eng_plan_create_bounded(&la, &lb, &op, me, bound, &plan);
            CASE_CHECK(st == CS_OK, "case %d rank %d: plan_create: %s", c,
                          me, cs_status_str(st));
            if (st == CS_OK && cs_eng_plan_panels(plan) > 1) {
                ncut_plans++;
                CASE_CHECK(panels_within(plan, bound),
                           "case %d rank %d: a panel of %d needs more than "
                           "%" PRId64 " bytes",
                           c, me, cs_eng_plan_panels(plan), bound);
            }
            int bad = st != CS_OK, anybad = 0;
            MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
            if (anybad) {
                if (!bad) {
                    cs_eng_plan_destroy(plan);
                }
                plan = NULL;
                break;
            }
            int64_t s1, r1, l1;
            cs_eng_plan_volume(plan, &s1, &r1, &l1);
            int64_t ws = 0, wr = 0;
            for (int q = 0; q < P; q++) {
                ws += to[q];
                wr += from[q];
            }
            CASE_CHECK(s1 == ws && r1 == wr && l1 == self,
                          "case %d rank %d: volume %" PRId64 "/%" PRId64
                          "/%" PRId64 " want %" PRId64 "/%" PRId64
                          "/%" PRId64,
                          c, me, s1, r1, l1, ws, wr, self);
        }
        cs_eng_exec_opts_t opts = {.threads = vr->threads,
                                   .overlap = vr->overlap,
                                   .max_msg_bytes = vr->max_msg,
                                   .shm_min_bytes = vr->shm_min,
                                   .peer_group = v % 2 ? group : NULL};
        if (vr->reserve) {
            cs_status_t st = cs_eng_plan_reserve(plan, &opts);
            CASE_CHECK(st == CS_OK, "case %d rank %d: reserve", c, me);
            CASE_CHECK(cs_eng_workspace_size() >=
                              (size_t)cs_eng_plan_workspace_bytes(plan),
                          "case %d rank %d: workspace size", c, me);
        }
        /* fresh values per variant, so that stale workspace contents of
         * the previous execution cannot pass for received data */
        set_values(&A, &B, &op, me, salt + (uint64_t)v * 0x9E3779B9ULL, a,
                   a0, b, b0, bx);
        cs_eng_stats_t stats;
        memset(&stats, 0xff, sizeof(stats));
        double t_exec = MPI_Wtime();
        cs_status_t st =
            cs_eng_plan_execute(plan, a_arg, b_arg, comm, &opts, &stats);
        t_exec = MPI_Wtime() - t_exec;
        CASE_CHECK(st == CS_OK, "case %d rank %d v %d: execute: %s", c, me,
                      v, cs_status_str(st));
        nexec_run++;
        /* B: sub-matrix copied, the rest untouched */
        if (bbytes && memcmp(b, bx, bbytes) != 0) {
            int64_t bad = 0, first = -1;
            for (int64_t p = 0; p < B.nelem[me]; p++) {
                if (memcmp(b + p * (int64_t)es, bx + p * (int64_t)es, es)) {
                    bad++;
                    first = first < 0 ? p : first;
                }
            }
            CASE_CHECK(0,
                          "case %d rank %d v %d (threads %d overlap %d "
                          "msg %" PRId64 " es %zu m %" PRId64 " n %" PRId64
                          "): %" PRId64 " wrong B elements, first at local "
                          "%" PRId64,
                          c, me, v, vr->threads, vr->overlap, vr->max_msg,
                          es, op.m, op.n, bad, first);
        }
        CASE_CHECK(!abytes || memcmp(a, a0, abytes) == 0,
                      "case %d rank %d v %d: A modified", c, me, v);
        nbytes_checked += (int64_t)bbytes;
        /* statistics */
        int64_t chunk = vr->max_msg > 0 ? vr->max_msg : (int64_t)1 << 30;
        int64_t ws = 0, wr = 0, ms = 0, mr = 0, ms1 = 0, mr1 = 0;
        for (int q = 0; q < P; q++) {
            ws += to[q];
            wr += from[q];
        }
        /* ms, mr: in pieces; ms1, mr1: whole, as where packages go
         * through the shared send buffer (one signal each) */
        for (whole_msgs = 0; whole_msgs < 2; whole_msgs++) {
            int64_t *s_p = whole_msgs ? &ms1 : &ms;
            int64_t *r_p = whole_msgs ? &mr1 : &mr;
            for (int q = 0; q < P; q++) {
                if (op.mask != CS_ENG_MASK_NONE) {
                    /* masked copies are not cut: one message per package */
                    *s_p += msgs_of(to[q], chunk);
                    *r_p += msgs_of(from[q], chunk);
                } else if (q != me) {
                    *s_p += expect_msgs(&A, &B, &op, me, q, es, chunk);
                    *r_p += expect_msgs(&A, &B, &op, q, me, es, chunk);
                }
            }
        }
        whole_msgs = 0;
        if (vr->shm_min == 0) {
            ms1 = ms;
            mr1 = mr;
        }
        int64_t near = 0;
        for (int q = 0; v % 2 && q < P; q++) {
            near += q != me && group[q] == group[me] ? to[q] : 0;
        }
        CASE_CHECK(stats.bytes_sent_near == near,
                   "case %d rank %d v %d: bytes to this rank's group %" PRId64
                   " want %" PRId64,
                   c, me, v, stats.bytes_sent_near, near);
        CASE_CHECK(stats.bytes_sent == ws && stats.bytes_recv == wr &&
                          stats.bytes_self == self,
                      "case %d rank %d v %d: stats bytes %" PRId64 "/%" PRId64
                      "/%" PRId64 " want %" PRId64 "/%" PRId64 "/%" PRId64,
                      c, me, v, stats.bytes_sent, stats.bytes_recv,
                      stats.bytes_self, ws, wr, self);
        int cut = cs_eng_plan_panels(plan) > 1; /* cut into more messages */
        CASE_CHECK(cut || (stats.msgs_sent >= ms1 && stats.msgs_sent <= ms &&
                           stats.msgs_recv >= mr1 && stats.msgs_recv <= mr),
                      "case %d rank %d v %d: stats msgs %" PRId64 "/%" PRId64
                      " want %" PRId64 "/%" PRId64 " (%" PRId64 "/%" PRId64
                      " with the shared buffer)",
                      c, me, v, stats.msgs_sent, stats.msgs_recv, ms, mr,
                      ms1, mr1);
#ifdef _OPENMP
        int want_threads = vr->threads; /* not called in a parallel region */
#else
        int want_threads = 1; /* an engine built without OpenMP is serial */
#endif
        /* the phases: set, none negative, within the call's time */
        double phases = stats.t_pack + stats.t_local + stats.t_unpack +
                        stats.t_transfer;
        CASE_CHECK(stats.t_pack >= 0 && stats.t_local >= 0 &&
                       stats.t_unpack >= 0 && stats.t_transfer >= 0 &&
                       phases <= t_exec + 1e-6,
                   "case %d rank %d v %d: phases %g %g %g %g in %g s", c,
                   me, v, stats.t_pack, stats.t_local, stats.t_unpack,
                   stats.t_transfer, t_exec);
        CASE_CHECK(stats.threads == want_threads,
                      "case %d rank %d v %d: stats threads %d want %d", c, me,
                      v, stats.threads, want_threads);
        if (cs_test_failures != fails0) {
            /* one report per case is enough; keep executing so that the
             * other ranks' messages are matched */
            cs_test_failures = fails0 + 1;
            quiet = 1;
        }
    }
    cs_eng_plan_destroy(plan);
    /* collective: every rank, whatever failed above */
    run_batch(c, comm, me, P, &A, &B, &la, &lb, &op, salt, a, a0, b, b0, bx);
    free(a);
    free(a0);
    free(b);
    free(b0);
    free(bx);
    layout_free(&A);
    layout_free(&B);
    ncases_run++;
}

/* The default workspace bound (cs_eng_ws_auto): 512 KiB per process of
 * the larger grid, between 8 and 64 MiB; only the grid shapes matter. */
static void check_ws_auto(void)
{
    static const int g[][4] = {{1, 1, 1, 2},  {2, 1, 1, 1},   {4, 4, 2, 2},
                               {4, 8, 1, 2},  {2, 2, 6, 6},   {8, 16, 1, 1},
                               {16, 16, 4, 4}, {64, 64, 1, 2}};
    static const int64_t want_mib[] = {8, 8, 8, 16, 18, 64, 64, 64};
    for (size_t k = 0; k < sizeof(want_mib) / sizeof(want_mib[0]); k++) {
        cs_eng_layout_t a = {0}, b = {0};
        a.nprow = g[k][0];
        a.npcol = g[k][1];
        b.nprow = g[k][2];
        b.npcol = g[k][3];
        int64_t got = cs_eng_ws_auto(&a, &b);
        CS_TEST_CHECK(got == want_mib[k] << 20,
                      "default workspace bound for %dx%d and %dx%d grids: "
                      "%" PRId64 " bytes, want %" PRId64 " MiB",
                      g[k][0], g[k][1], g[k][2], g[k][3], got, want_mib[k]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_ws_auto();
    int wrank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (P > MAXR) {
        if (wrank == 0) {
            fprintf(stderr, "test_engine: at most %d ranks\n", MAXR);
        }
        MPI_Finalize();
        return 1;
    }
    int ncases = argc > 1 ? atoi(argv[1]) : 300;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    /* ranks in reverse order: the engine must use the communicator's
     * ranks, not MPI_COMM_WORLD's */
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - wrank, &comm);
    int me;
    MPI_Comm_rank(comm, &me);
    /* the shared send buffer (collective over the world), large enough
     * for the small cases' packing: it must change nothing here */
    CS_TEST_CHECK(cs_eng_shm_grow((int64_t)1 << 20, 0),
                  "shared send buffer not made");
    double t0 = MPI_Wtime();
    for (int c = 0; c < ncases; c++) {
        run_case(c, seed, comm, me, P, 4);
    }
    cs_eng_workspace_release();
    CS_TEST_CHECK(cs_eng_workspace_size() == 0, "workspace not released");
    cs_eng_shm_release();
    double t1 = MPI_Wtime();
    int fails = cs_test_failures, total = 0;
    MPI_Reduce(&fails, &total, 1, MPI_INT, MPI_SUM, 0, comm);
    int64_t bytes = 0, cuts = 0;
    MPI_Reduce(&nbytes_checked, &bytes, 1, MPI_INT64_T, MPI_SUM, 0, comm);
    MPI_Reduce(&ncut_plans, &cuts, 1, MPI_INT64_T, MPI_SUM, 0, comm);
    int rc = 0;
    if (me == 0) {
        printf("test_engine: %d ranks, %" PRId64 " cases, %" PRId64
               " executions, %" PRId64 " batches, %" PRId64
               " B bytes checked, %" PRId64 " cut plans, %.2f s\n",
               P, ncases_run, nexec_run, nbatch_run, bytes, cuts, t1 - t0);
        cs_test_failures = total;
        /* the bound must have cut plans, or the panels went untested */
        CS_TEST_CHECK(ncases_run < 50 || cuts > 0, "no plan was cut");
        rc = cs_test_done();
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
