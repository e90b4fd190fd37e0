/*
 * test_apps/scalapack/gemm_sweep.c - randomized sweep of p{s,d,c,z}gemm_
 * checked against an error bound, in one MPI launch.
 *
 * Why: under costa-shim's engine path (COSTA_SHIM_GEMM=on|force) p?gemm
 * sums in another order than PBLAS, so results are not bit-identical to
 * ScaLAPACK and the digest comparison of the other sweeps cannot be used.
 * The promise is an elementwise bound instead:
 *   |C - C_exact| <= g(K) * eps * (|alpha| |op(A)| |op(B)| + |beta| |C0|)
 * with g(K) = 2 (K + 2) and eps the type's machine epsilon (FLT_EPSILON or
 * DBL_EPSILON); for the complex types |x| is |Re x| + |Im x|, on both
 * sides.  PBLAS itself meets it, so the sweep passes natively and under
 * the shim, and each run checks itself; no comparison between runs.
 *
 * Every config draws (from --seed and its index, identically on all
 * ranks) a type, TRANSA and TRANSB from N/T/C (any case; for the real
 * types C means T), M, N, K from 0 to 70, alpha and beta (0, 1, -1 or
 * general, complex ones with both parts non-zero), a grid (1x1 .. 1xP,
 * Px1, 2x2, ...; gridinit R/C, gridmap in random order, grids on
 * sub-communicators, possibly over a subset of the ranks: the others do
 * not call), and for each of A, B, C: DTYPE 1 or 2 (first blocks IMB/INB
 * other than MB/NB), block sizes 1..9 (sometimes larger than the
 * matrix), sources, offsets IA/JA > 1, LLD padding.  Rarely (always with
 * --replicated) some RSRC/CSRC of a call with M, N, K > 0 and alpha != 0
 * are -1 (operand replicated over process rows / columns).  --aligned:
 * sub(A)^T sub(B) (sub(A) sub(B)^T) with B's rows (columns) distributed
 * as A's from the same offset, always on P x 1 (1 x Q): the inner
 * indices of both lie on the same processes in the same order; the
 * engine's direct path on P x 1 (1 x Q: no operand moved), its pieces
 * path with lines on P x Q; no replicated operand.
 *
 * Values: every rank generates the global A, B and C0 from the config
 * index (no gathering) and fills its local arrays; sub(C) holds NaN, Inf
 * and sNaN in most beta = 0 configs (must be overwritten, as PBLAS does);
 * C outside sub(C), LLD padding and guard zones around each array hold
 * sentinels.  After the call each member of the grid checks its own local
 * elements: sub(C) within the bound of a reference computed in long
 * double (d, z) or double (s, c); everything else in C bit-unchanged; A
 * and B bit-unchanged; guard zones intact.
 *
 *   gemm_sweep --seed S --count N [--start K] [--types sdcz] [--replicated]
 *              [--aligned] [--inject c|o|a|b|g] [--verbose]
 *
 * --sym: p{s,d,c,z}syrk_ and p{c,z}herk_ instead (the same operand
 * twice: C := alpha op(A) op(A)^T (^H) + beta C on the triangle UPLO of
 * sub(C), N x N; TRANS N/T (syrk; C also for the real types) or N/C
 * (herk, whose alpha and beta are real); the other triangle and, for
 * herk, the imaginary parts of the diagonal checked exactly (unchanged,
 * zero).  No B: --inject b is --inject a.  The calls the engine path
 * declines, those with fewer inner indices than processes, are counted
 * apart (calls_declined).
 *
 * --inject: self-test of the checks: after the first call where rank 0
 * can, set one element of its sub(C) to twice the bound off (c), or
 * change one bit of an element of C outside sub(C) or of its padding (o),
 * of A (a), of B (b), or of a guard byte after C (g); the run must then
 * end in "cs_test: FAILED".
 *
 * Output: from rank 0, per rank r of the world, the calls r made (only
 * members of a config's grid call, M or N = 0 ones included; the shim's
 * report sums the same over ranks): "calls <r> <count>",
 * "calls_no_work <r> <count>" (M or N = 0, or K = 0 or alpha = 0 with
 * beta = 1: PBLAS's quick return, path none),
 * "calls_local <r> <count>" (the other calls with K = 0 or alpha = 0:
 * PBLAS only scales sub(C); fallback native_faster), "calls_replicated <r> <count>"
 * (the others with an operand's RSRC or CSRC = -1: fallback unsupported),
 * "calls_declined <r> <count>" (--sym: the others with K below P Q:
 * fallback unsupported);
 * on stderr the largest error / bound ratio seen; then "cs_test: OK" when
 * every rank passed.
 */
#include <mpi.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_sweep.h"

/* PBLAS p?gemm_: Fortran interface (two hidden CHARACTER lengths, which
 * PBLAS's C code ignores and a Fortran caller passes); complex values are
 * (re, im) pairs of the real type. */
#define GEMM_PROTO(name, T)                                                   \
    void name(const char *, const char *, const int *, const int *,          \
              const int *, const T *, const T *, const int *, const int *,    \
              const int *, const T *, const int *, const int *, const int *,  \
              const T *, T *, const int *, const int *, const int *, size_t,  \
              size_t)
GEMM_PROTO(psgemm_, float);
GEMM_PROTO(pdgemm_, double);
GEMM_PROTO(pcgemm_, float);
GEMM_PROTO(pzgemm_, double);

/* p?syrk_, p?herk_ (herk: alpha and beta real) */
#define SYRK_PROTO(name, T, S)                                                \
    void name(const char *, const char *, const int *, const int *,          \
              const S *, const T *, const int *, const int *, const int *,    \
              const S *, T *, const int *, const int *, const int *, size_t,  \
              size_t)
SYRK_PROTO(pssyrk_, float, float);
SYRK_PROTO(pdsyrk_, double, double);
SYRK_PROTO(pcsyrk_, float, float);
SYRK_PROTO(pzsyrk_, double, double);
SYRK_PROTO(pcherk_, float, float);
SYRK_PROTO(pzherk_, double, double);

/* descriptor indices: DTYPE 2 (11 entries) and DTYPE 1 (9 entries) */
enum { D2_DTYPE, D2_CTXT, D2_M, D2_N, D2_IMB, D2_INB, D2_MB, D2_NB, D2_RSRC,
       D2_CSRC, D2_LLD };
enum { D1_DTYPE, D1_CTXT, D1_M, D1_N, D1_MB, D1_NB, D1_RSRC, D1_CSRC,
       D1_LLD };

/* ---- globals (g_rank, g_np, g_sysctx, g_fail: cs_sweep.h) ---- */
/* calls this rank made, and the classes the shim reports apart */
static long g_calls, g_calls_nowork, g_calls_local, g_calls_repl,
    g_calls_declined;
static int g_verbose, g_replicated, g_aligned, g_sym;
static char g_inject;      /* --inject: what to corrupt, 0 for nothing */
static int g_injected;     /* the corruption has been made */
static double g_worst;     /* largest |error| / bound seen on this rank */

/* =================================================================== */
/* element values                                                       */
/* =================================================================== */
static size_t elsize(char t)
{
    return t == 's' ? 4 : t == 'd' || t == 'c' ? 8 : 16;
}
static int is_cplx(char t) { return t == 'c' || t == 'z'; }
static int is_single(char t) { return t == 's' || t == 'c'; }
static int nparts(char t) { return is_cplx(t) ? 2 : 1; }

/* stateless hash of the coordinates of one element part */
static uint64_t elem_hash(int which, int gi, int gj, int k, int part)
{
    rng_t h = {0x9e3779b97f4a7c15ull * (uint64_t)(which + 1)};
    h.s ^= rng_next(&h) ^ (uint64_t)(uint32_t)gi;
    h.s ^= rng_next(&h) ^ ((uint64_t)(uint32_t)gj << 20);
    h.s ^= rng_next(&h) ^ ((uint64_t)(uint32_t)k << 8) ^ (uint64_t)part;
    return rng_next(&h);
}

/* matrices: which */
enum { W_A, W_B, W_C, W_SENT };

/* The value of part `part` of global element (gi, gj) of matrix which in
 * config k, as the local array stores it: uniform in [-1, 1), rounded to
 * float for the single types; one in 64 is an exact zero. */
static double gen_value(char t, int which, int gi, int gj, int k, int part)
{
    uint64_t h = elem_hash(which, gi, gj, k, part);
    double d = (h & 63) == 0 ? 0.0 : (double)(h >> 11) * 0x1p-52 - 1.0;
    return is_single(t) ? (double)(float)d : d;
}

static void put_part(char t, unsigned char *dst, int part, double v)
{
    if (is_single(t)) {
        float f = (float)v;
        memcpy(dst + 4 * part, &f, 4);
    } else {
        memcpy(dst + 8 * part, &v, 8);
    }
}

/* one part as bits: NaN/Inf fill (nonfinite) or a sentinel (never read) */
static void put_bits(char t, unsigned char *dst, int part, uint64_t h,
                     int nonfinite)
{
    uint64_t b64, sgn = (h >> 10) & 1;
    uint32_t b32;
    int x = (int)((h >> 11) % 8);
    if (nonfinite && x == 0) { /* Inf */
        b64 = 0x7ff0000000000000ull;
        b32 = 0x7f800000u;
    } else if (nonfinite && x < 3) { /* signalling NaN with a payload */
        b64 = 0x7ff0000000000000ull | (((h >> 20) & 0xfffffull) | 1);
        b32 = 0x7f800000u | (((uint32_t)(h >> 20) & 0x3ffffu) | 1u);
    } else if (nonfinite) { /* quiet NaN with a payload */
        b64 = 0x7ff8000000000000ull | ((h >> 20) & 0xfffffull);
        b32 = 0x7fc00000u | (uint32_t)((h >> 20) & 0x3ffff);
    } else if (x & 1) { /* sentinel: NaN pattern */
        b64 = 0x7ff5a5a5a5a5a5a5ull ^ ((h >> 20) & 0xffff);
        b32 = 0x7f85a5a5u ^ (uint32_t)((h >> 20) & 0xff);
    } else { /* sentinel: a huge number */
        double d = 1.25e300;
        float f = -1.5e30f;
        memcpy(&b64, &d, 8);
        memcpy(&b32, &f, 4);
        b64 ^= (h >> 20) & 0xff;
        b32 ^= (uint32_t)((h >> 20) & 0xff);
    }
    b64 |= sgn << 63;
    b32 |= (uint32_t)sgn << 31;
    if (is_single(t))
        memcpy(dst + 4 * part, &b32, 4);
    else
        memcpy(dst + 8 * part, &b64, 8);
}

static long double get_part(char t, const unsigned char *e, int part)
{
    if (is_single(t)) {
        float f;
        memcpy(&f, e + 4 * part, 4);
        return f;
    }
    double d;
    memcpy(&d, e + 8 * part, 8);
    return d;
}

/* =================================================================== */
/* distributed matrices                                                 */
/* =================================================================== */
typedef struct {
    int M, N, IMB, INB, MB, NB, RSRC, CSRC, I, J, dtype;
    int pad[MAXP];    /* LLD padding per world rank */
    int desc[11];
    int locr, locc, lld;
    int *rmap, *cmap; /* local -> global row / column */
    size_t nel;
    unsigned char *buf, *save;
} mat_t;

/* Global indices owned by process myp (first block ib, then b; src -1:
 * replicated).  Returns the count; map may be NULL. */
static int own_map(int n, int ib, int b, int src, int nprocs, int myp,
                   int *map)
{
    int cnt = 0;
    for (int g = 0; g < n; g++) {
        int owner = myp;
        if (src >= 0 && nprocs > 1) {
            int blk = g < ib ? 0 : 1 + (g - ib) / b;
            owner = (src + blk) % nprocs;
        }
        if (owner == myp) {
            if (map)
                map[cnt] = g;
            cnt++;
        }
    }
    return cnt;
}

/* block sizes 1..9, sometimes one block for the whole dimension */
static int pick_nb(rng_t *r, int dim)
{
    if (chance(r, 10))
        return (dim > 0 ? dim : 1) + rrange(r, 0, 3);
    return rrange(r, 1, 9);
}

/* Draw the layout of an m x n submatrix (rows x cols) on grid g. */
static void draw_mat(rng_t *r, mat_t *a, int m, int n, const grid_t *g)
{
    memset(a, 0, sizeof *a);
    a->I = chance(r, 30) ? 1 : (chance(r, 85) ? rrange(r, 2, 6) : rrange(r, 7, 15));
    a->J = chance(r, 30) ? 1 : (chance(r, 85) ? rrange(r, 2, 6) : rrange(r, 7, 15));
    a->M = a->I - 1 + m + (chance(r, 50) ? 0 : rrange(r, 1, 5));
    a->N = a->J - 1 + n + (chance(r, 50) ? 0 : rrange(r, 1, 5));
    a->MB = pick_nb(r, a->M);
    a->NB = pick_nb(r, a->N);
    a->RSRC = rnd(r, g->P);
    a->CSRC = rnd(r, g->Q);
    a->IMB = a->MB;
    a->INB = a->NB;
    a->dtype = chance(r, 35) ? 2 : 1;
    if (a->dtype == 2) {
        a->IMB = rrange(r, 1, 9);
        a->INB = rrange(r, 1, 9);
    }
    for (int p = 0; p < MAXP; p++)
        a->pad[p] = chance(r, 30) ? rrange(r, 1, 3) : 0;
}

/*
 * Descriptor, local array and contents of a on grid g.  Every element
 * first gets a sentinel; members' elements of the global matrix then get
 * values: A and B everywhere (only the submatrix is read, the rest must
 * stay as it is), C inside sub(C) (rows I.., cols J.., sm x sn), NaN and
 * Inf there when nonfinite.
 */
static void setup_local(mat_t *a, const grid_t *g, int which, char t, int k,
                        int sm, int sn, int nonfinite, char uplo)
{
    size_t es = elsize(t);
    int *d = a->desc;
    if (a->dtype == 2) {
        int v[11] = {2, g->ctxt, a->M, a->N, a->IMB, a->INB, a->MB, a->NB,
                     a->RSRC, a->CSRC, 0};
        memcpy(d, v, sizeof v);
    } else {
        int v[9] = {1, g->ctxt, a->M, a->N, a->MB, a->NB, a->RSRC, a->CSRC,
                    0};
        memcpy(d, v, sizeof v);
    }
    if (g->myrow < 0)
        return;
    a->locr = own_map(a->M, a->IMB, a->MB, a->RSRC, g->P, g->myrow, NULL);
    a->locc = own_map(a->N, a->INB, a->NB, a->CSRC, g->Q, g->mycol, NULL);
    a->rmap = xmalloc(sizeof(int) * (size_t)(a->locr + 1));
    a->cmap = xmalloc(sizeof(int) * (size_t)(a->locc + 1));
    own_map(a->M, a->IMB, a->MB, a->RSRC, g->P, g->myrow, a->rmap);
    own_map(a->N, a->INB, a->NB, a->CSRC, g->Q, g->mycol, a->cmap);
    a->lld = a->locr + a->pad[g_rank];
    if (a->lld < 1)
        a->lld = 1;
    d[a->dtype == 2 ? D2_LLD : D1_LLD] = a->lld;
    a->nel = (size_t)a->lld * (size_t)a->locc;
    if (!a->nel)
        return;
    a->buf = guarded_alloc(a->nel * es);
    for (size_t e = 0; e < a->nel; e++)
        for (int p = 0; p < nparts(t); p++)
            put_bits(t, a->buf + e * es, p,
                     elem_hash(W_SENT, (int)e, g_rank, k, p), 0);
    for (int lj = 0; lj < a->locc; lj++) {
        int gj = a->cmap[lj], sj = gj - (a->J - 1);
        for (int li = 0; li < a->locr; li++) {
            int gi = a->rmap[li], si = gi - (a->I - 1);
            unsigned char *e = a->buf + ((size_t)lj * a->lld + li) * es;
            int in_sub = si >= 0 && si < sm && sj >= 0 && sj < sn;
            /* PBLAS's p?syrk passes the other triangle of its diagonal
             * blocks through arithmetic (a signalling NaN comes back
             * quiet): finite values there */
            char u = (char)toupper((unsigned char)uplo);
            int other = in_sub && ((u == 'U' && si > sj) ||
                                   (u == 'L' && si < sj));
            for (int p = 0; p < nparts(t); p++) {
                if (which != W_C)
                    put_part(t, e, p, gen_value(t, which, gi, gj, k, p));
                else if (in_sub && nonfinite && !other)
                    put_bits(t, e, p, elem_hash(W_C, gi, gj, k, p), 1);
                else if (in_sub)
                    put_part(t, e, p, gen_value(t, W_C, gi, gj, k, p));
            }
        }
    }
    a->save = xmalloc(a->nel * es);
    memcpy(a->save, a->buf, a->nel * es);
}

static void free_local(mat_t *a)
{
    guarded_free(a->buf);
    free(a->save);
    free(a->rmap);
    free(a->cmap);
    a->buf = a->save = NULL;
    a->rmap = a->cmap = NULL;
}

/* =================================================================== */
/* configs                                                              */
/* =================================================================== */
typedef struct {
    int k;
    char t;
    char ta, tb;     /* TRANSA, TRANSB as passed (any case) */
    int opa, opb;    /* 0 N, 1 T, 2 conjugate transpose (complex only) */
    int m, n, kk;
    double al[2], be[2]; /* rounded to float for the single types */
    int nonfinite;   /* sub(C) holds NaN / Inf (beta = 0) */
    int herk;        /* --sym: p?herk (else p?syrk) */
    char uplo;       /* --sym: UPLO as passed; 0: p?gemm */
    int repl;        /* some operand has RSRC or CSRC = -1 */
    int gsub;        /* the grid is over a subset of the ranks */
    grid_t g;
    mat_t a, b, c;
} cfg_t;

static int op_of(char tr, char t)
{
    char u = (char)toupper((unsigned char)tr);
    return u == 'N' ? 0 : (u == 'C' && is_cplx(t)) ? 2 : 1;
}

/* alpha or beta: 0, 1, -1 or general (weights in percent) */
static void draw_scalar(rng_t *r, char t, int w0, int w1, int wm1,
                        double v[2])
{
    int x = rnd(r, 100);
    v[0] = v[1] = 0;
    if (x < w0)
        return;
    if (x < w0 + w1) {
        v[0] = 1;
        return;
    }
    if (x < w0 + w1 + wm1) {
        v[0] = -1;
        return;
    }
    /* k/1024 + 1/8192 in (0, 4): never 0 or 1; either sign */
    for (int p = 0; p < nparts(t); p++)
        v[p] = ((double)rrange(r, 0, 4095) / 1024.0 + 1.0 / 8192) *
               (chance(r, 50) ? -1 : 1);
    if (is_single(t)) {
        v[0] = (float)v[0];
        v[1] = (float)v[1];
    }
}

/* a dimension: mostly small, sometimes 0, up to 70 */
static int draw_dim(rng_t *r, int pct0)
{
    if (chance(r, pct0))
        return 0;
    int x = rnd(r, 100);
    if (x < 35)
        return rrange(r, 1, 8);
    if (x < 75)
        return rrange(r, 1, 32);
    return rrange(r, 33, 70);
}

static void make_grid(cfg_t *c, rng_t *r)
{
    int set[MAXP];
    for (int w = 0; w < g_np; w++)
        set[w] = w;
    int n = g_np;
    if (g_np > 1 && chance(r, 30)) {
        n = rrange(r, 1, g_np - 1);
        c->gsub = 1;
    }
    int method = pick_method(r);
    if (method != GM_INIT_R && method != GM_INIT_C)
        shuffle(r, set, g_np);
    grid_random(r, &c->g, set, n, method);
}

/* at least one of the six sources is -1 */
static void replicate_sources(cfg_t *c, rng_t *r)
{
    int *src[6] = {&c->a.RSRC, &c->a.CSRC, &c->b.RSRC,
                   &c->b.CSRC, &c->c.RSRC, &c->c.CSRC};
    int any = 0;
    for (int s = 0; s < 6; s++)
        if (chance(r, 30) && !(c->uplo && (s == 2 || s == 3))) {
            *src[s] = -1;
            any = 1;
        }
    if (!any)
        *src[c->uplo ? 4 : rnd(r, 6)] = -1;
}

/* --sym: p?herk for half the complex configs, UPLO, TRANS (N/T, or N/C for
 * herk; real syrk also C), N = M, real alpha and beta for herk; op(B) is
 * op(A)^T (^H) */
static void draw_sym(cfg_t *c, rng_t *r)
{
    c->herk = is_cplx(c->t) && chance(r, 50);
    c->uplo = "ULul"[chance(r, 85) ? rnd(r, 2) : 2 + rnd(r, 2)];
    const char *trs = c->herk ? "NCnc" : is_cplx(c->t) ? "NTnt" : "NTCntc";
    int ntr = (int)strlen(trs) / 2;
    c->ta = trs[chance(r, 85) ? rnd(r, ntr) : ntr + rnd(r, ntr)];
    c->opa = op_of(c->ta, c->t);
    c->opb = c->opa ? 0 : c->herk ? 2 : 1;
    c->tb = "NTC"[c->opb];
    c->n = c->m;
    if (c->herk) {
        c->al[1] = c->be[1] = 0;
        c->nonfinite = c->be[0] == 0 && chance(r, 75);
    }
}

static void draw_config(uint64_t seed, int k, const char *types, cfg_t *c,
                        rng_t *r)
{
    static const char tr_l[] = "NTCntc";
    memset(c, 0, sizeof *c);
    rng_t h = {seed};
    h.s = rng_next(&h) ^ ((uint64_t)k * 0xd1b54a32d192ed03ull);
    r->s = rng_next(&h);
    c->k = k;
    c->t = types[rnd(r, (int)strlen(types))];
    c->ta = tr_l[chance(r, 85) ? rnd(r, 3) : 3 + rnd(r, 3)];
    c->tb = tr_l[chance(r, 85) ? rnd(r, 3) : 3 + rnd(r, 3)];
    c->opa = op_of(c->ta, c->t);
    c->opb = op_of(c->tb, c->t);
    c->m = draw_dim(r, 5);
    c->n = draw_dim(r, 5);
    c->kk = draw_dim(r, 7);
    draw_scalar(r, c->t, 8, 30, 12, c->al);
    draw_scalar(r, c->t, 30, 25, 10, c->be);
    c->nonfinite = c->be[0] == 0 && c->be[1] == 0 && chance(r, 75);
    make_grid(c, r);
    if (g_aligned) {
        /* the inner dimension along the same grid dimension in both
         * operands: sub(A)^T sub(B) on P x 1, sub(A) sub(B)^T on 1 x Q,
         * either on other grids */
        char t = is_cplx(c->t) && chance(r, 50) ? 'C' : 'T';
        int tn = c->g.Q == 1 || (c->g.P > 1 && chance(r, 50));
        c->ta = tn ? t : 'N';
        c->tb = tn ? 'N' : t;
        if (c->g.P > 1 && c->g.Q > 1 && chance(r, 75)) {
            /* k well above m and n: the shape the pieces path is for */
            c->m = rrange(r, 1, 12);
            c->n = rrange(r, 1, 12);
            c->kk = rrange(r, 40, 70);
        }
        c->opa = op_of(c->ta, c->t);
        c->opb = op_of(c->tb, c->t);
    }
    if (g_sym)
        draw_sym(c, r);
    draw_mat(r, &c->a, c->opa ? c->kk : c->m, c->opa ? c->m : c->kk, &c->g);
    draw_mat(r, &c->b, c->opb ? c->n : c->kk, c->opb ? c->kk : c->n, &c->g);
    if (g_aligned && c->opa && !c->opb) {
        /* B's rows distributed as A's rows, from the same row */
        c->b.M = c->a.M;
        c->b.MB = c->a.MB;
        c->b.IMB = c->a.IMB;
        c->b.RSRC = c->a.RSRC;
        c->b.I = c->a.I;
        c->b.dtype = c->a.dtype == 2 ? 2 : c->b.dtype;
    } else if (g_aligned && !c->opa && c->opb) {
        c->b.N = c->a.N;
        c->b.NB = c->a.NB;
        c->b.INB = c->a.INB;
        c->b.CSRC = c->a.CSRC;
        c->b.J = c->a.J;
        c->b.dtype = c->a.dtype == 2 ? 2 : c->b.dtype;
    }
    draw_mat(r, &c->c, c->m, c->n, &c->g);
    /* replicated operands only where the shim's classes are unambiguous
     * (not no_work, not local): the count of each class is exact */
    int want = (chance(r, 6) || g_replicated) && !g_aligned;
    int a0 = c->al[0] == 0 && c->al[1] == 0;
    if (want && c->m > 0 && c->n > 0 && c->kk > 0 && !a0) {
        replicate_sources(c, r);
        c->repl = 1;
    }
}

static void describe(const cfg_t *c, char *s, size_t len)
{
    int o = snprintf(s, len,
                     "cfg %d: p%c%s_ uplo=%c transa=%c transb=%c m=%d n=%d "
                     "k=%d alpha=(%g,%g) beta=(%g,%g)%s | grid %s %dx%d "
                     "ldu=%d procs=", c->k, c->t,
                     !c->uplo ? "gemm" : c->herk ? "herk" : "syrk",
                     c->uplo ? c->uplo : '-', c->ta, c->tb, c->m, c->n, c->kk,
                     c->al[0], c->al[1], c->be[0], c->be[1],
                     c->nonfinite ? " C0=nan/inf" : "",
                     meth_name[c->g.method], c->g.P, c->g.Q, c->g.ldu);
    for (int p = 0; p < c->g.n && o < (int)len; p++)
        o += snprintf(s + o, len - (size_t)o, "%s%d", p ? "," : "",
                      c->g.procs[p]);
    const mat_t *ms[3] = {&c->a, &c->b, &c->c};
    for (int x = 0; x < 3 && o < (int)len; x++) {
        const mat_t *a = ms[x];
        o += snprintf(s + o, len - (size_t)o,
                      " | %c M=%d N=%d IMB=%d INB=%d MB=%d NB=%d src=%d,%d "
                      "I=%d J=%d dtype=%d", "ABC"[x], a->M, a->N, a->IMB,
                      a->INB, a->MB, a->NB, a->RSRC, a->CSRC, a->I, a->J,
                      a->dtype);
    }
}

/* =================================================================== */
/* the call                                                             */
/* =================================================================== */
/* --sym: the p?syrk_ or p?herk_ of the config */
static void call_sym(cfg_t *c)
{
    int n = c->n, kk = c->kk, ia = c->a.I, ja = c->a.J, ic = c->c.I,
        jc = c->c.J;
    float fa[2] = {(float)c->al[0], (float)c->al[1]};
    float fb[2] = {(float)c->be[0], (float)c->be[1]};
    char up[2] = {c->uplo, 0}, tr[2] = {c->ta, 0};
    const int *dA = c->a.desc, *dC = c->c.desc;
    void *a = c->a.buf, *cc = c->c.buf;
    if (c->t == 's')
        pssyrk_(up, tr, &n, &kk, fa, a, &ia, &ja, dA, fb, cc, &ic, &jc, dC, 1,
                1);
    else if (c->t == 'd')
        pdsyrk_(up, tr, &n, &kk, c->al, a, &ia, &ja, dA, c->be, cc, &ic, &jc,
                dC, 1, 1);
    else if (c->t == 'c' && c->herk)
        pcherk_(up, tr, &n, &kk, fa, a, &ia, &ja, dA, fb, cc, &ic, &jc, dC, 1,
                1);
    else if (c->t == 'c')
        pcsyrk_(up, tr, &n, &kk, fa, a, &ia, &ja, dA, fb, cc, &ic, &jc, dC, 1,
                1);
    else if (c->herk)
        pzherk_(up, tr, &n, &kk, c->al, a, &ia, &ja, dA, c->be, cc, &ic, &jc,
                dC, 1, 1);
    else
        pzsyrk_(up, tr, &n, &kk, c->al, a, &ia, &ja, dA, c->be, cc, &ic, &jc,
                dC, 1, 1);
}

static void call_gemm(cfg_t *c)
{
    int m = c->m, n = c->n, kk = c->kk;
    if (c->uplo) {
        call_sym(c);
        goto count;
    }
    int ia = c->a.I, ja = c->a.J, ib = c->b.I, jb = c->b.J, ic = c->c.I,
        jc = c->c.J;
    float fa[2] = {(float)c->al[0], (float)c->al[1]};
    float fb[2] = {(float)c->be[0], (float)c->be[1]};
    char ta[2] = {c->ta, 0}, tb[2] = {c->tb, 0};
    const int *dA = c->a.desc, *dB = c->b.desc, *dC = c->c.desc;
    switch (c->t) {
    case 's':
        psgemm_(ta, tb, &m, &n, &kk, fa, (float *)c->a.buf, &ia, &ja, dA,
                (float *)c->b.buf, &ib, &jb, dB, fb, (float *)c->c.buf, &ic,
                &jc, dC, 1, 1);
        break;
    case 'd':
        pdgemm_(ta, tb, &m, &n, &kk, c->al, (double *)c->a.buf, &ia, &ja, dA,
                (double *)c->b.buf, &ib, &jb, dB, c->be, (double *)c->c.buf,
                &ic, &jc, dC, 1, 1);
        break;
    case 'c':
        pcgemm_(ta, tb, &m, &n, &kk, fa, (float *)c->a.buf, &ia, &ja, dA,
                (float *)c->b.buf, &ib, &jb, dB, fb, (float *)c->c.buf, &ic,
                &jc, dC, 1, 1);
        break;
    default:
        pzgemm_(ta, tb, &m, &n, &kk, c->al, (double *)c->a.buf, &ia, &ja, dA,
                (double *)c->b.buf, &ib, &jb, dB, c->be, (double *)c->c.buf,
                &ic, &jc, dC, 1, 1);
        break;
    }
count:;
    int a0 = c->al[0] == 0 && c->al[1] == 0;
    int b1 = c->be[0] == 1 && c->be[1] == 0;
    g_calls++;
    if (m == 0 || n == 0 || ((kk == 0 || a0) && b1))
        g_calls_nowork++;
    else if (kk == 0 || a0)
        g_calls_local++;
    else if (c->repl)
        g_calls_repl++;
    else if (c->uplo && c->g.P * c->g.Q > kk)
        g_calls_declined++;
}

/* =================================================================== */
/* reference and checks                                                 */
/* =================================================================== */
typedef struct {
    long double re, im;
} cld_t;

/* op(sub(X))(i, l) of operand x (rows x cols of the op: i, l), from the
 * generator: the values the local arrays hold */
static cld_t op_elem(const cfg_t *c, const mat_t *x, int which, int op, int i,
                     int l)
{
    int gi = x->I - 1 + (op ? l : i), gj = x->J - 1 + (op ? i : l);
    cld_t v = {gen_value(c->t, which, gi, gj, c->k, 0), 0};
    if (is_cplx(c->t))
        v.im = gen_value(c->t, which, gi, gj, c->k, 1);
    if (op == 2)
        v.im = -v.im;
    return v;
}

static long double abs1(cld_t v) { return fabsl(v.re) + fabsl(v.im); }

static cld_t cmul(cld_t x, cld_t y)
{
    cld_t z = {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
    return z;
}

/* op(sub(A)) (m x kk) and op(sub(B)) (kk x n), column-major */
typedef struct {
    cld_t *a, *b;
} ops_t;

static void ops_build(const cfg_t *c, ops_t *o)
{
    size_t na = (size_t)c->m * (size_t)c->kk, nb = (size_t)c->kk * c->n;
    o->a = xmalloc(sizeof(cld_t) * (na ? na : 1));
    o->b = xmalloc(sizeof(cld_t) * (nb ? nb : 1));
    for (int l = 0; l < c->kk; l++) {
        for (int i = 0; i < c->m; i++)
            o->a[(size_t)l * c->m + i] = op_elem(c, &c->a, W_A, c->opa, i, l);
        for (int j = 0; j < c->n; j++) {
            cld_t v = c->uplo ? op_elem(c, &c->a, W_A, c->opa, j, l)
                              : op_elem(c, &c->b, W_B, c->opb, l, j);
            if (c->uplo && c->herk) /* op(B) = op(A)^H */
                v.im = -v.im;
            o->b[(size_t)j * c->kk + l] = v;
        }
    }
}

static void ops_free(ops_t *o)
{
    free(o->a);
    free(o->b);
}

/* Whether p?herk makes the diagonal of sub(C) real: unless it returns at
 * once (K = 0 or alpha = 0 with beta = 1). */
static int real_diag(const cfg_t *c)
{
    int quick = (c->kk == 0 || c->al[0] == 0) && c->be[0] == 1;
    return c->herk && !quick;
}

/* The exact value (to the reference's precision) of element (si, sj) of
 * sub(C), whose old value is old, and the bound on its error. */
static cld_t elem_ref(const cfg_t *c, const ops_t *o, int si, int sj,
                      const unsigned char *old, long double *bound_p)
{
    cld_t s = {0, 0};
    long double sabs = 0;
    for (int l = 0; l < c->kk; l++) {
        cld_t x = o->a[(size_t)l * c->m + si], y = o->b[(size_t)sj * c->kk + l];
        cld_t p = cmul(x, y);
        s.re += p.re;
        s.im += p.im;
        sabs += abs1(x) * abs1(y);
    }
    cld_t al = {c->al[0], c->al[1]}, be = {c->be[0], c->be[1]};
    if (real_diag(c) && si == sj)
        s.im = 0; /* x conj(x) */
    cld_t ref = cmul(al, s);
    long double bound = abs1(al) * sabs;
    if (c->be[0] != 0 || c->be[1] != 0) { /* beta = 0: C0 is not read */
        cld_t c0 = {get_part(c->t, old, 0), 0};
        if (is_cplx(c->t))
            c0.im = get_part(c->t, old, 1);
        cld_t bc = cmul(be, c0);
        ref.re += bc.re;
        ref.im += bc.im;
        bound += abs1(be) * abs1(c0);
    }
    if (real_diag(c) && si == sj)
        ref.im = 0; /* p?herk leaves the diagonal real */
    long double eps = is_single(c->t) ? FLT_EPSILON : DBL_EPSILON;
    *bound_p = bound * 2.0L * (c->kk + 2) * eps;
    return ref;
}

/* Whether got, element (si, sj) of sub(C) with old value old, is within
 * the bound (a FAIL line when not); *ratio_p: |error| / bound (0 when
 * both are 0). */
static int elem_ok(const cfg_t *c, const ops_t *o, int si, int sj,
                   const unsigned char *got, const unsigned char *old,
                   int quiet, double *ratio_p)
{
    long double bound;
    cld_t ref = elem_ref(c, o, si, sj, old, &bound);
    cld_t v = {get_part(c->t, got, 0), 0};
    if (is_cplx(c->t))
        v.im = get_part(c->t, got, 1);
    long double err = fabsl(v.re - ref.re) + fabsl(v.im - ref.im);
    *ratio_p = err == 0 ? 0 : bound > 0 ? (double)(err / bound) : INFINITY;
    if (real_diag(c) && si == sj && v.im != 0) {
        if (!quiet)
            FAILF("cfg %d: sub(C)(%d,%d) = (%.9Lg, %.9Lg): the diagonal of "
                  "p?herk's C must be real", c->k, si, sj, v.re, v.im);
        return 0;
    }
    if (err <= bound) /* false for NaN */
        return 1;
    if (!quiet)
        FAILF("cfg %d: sub(C)(%d,%d) = (%.9Lg, %.9Lg), exact (%.9Lg, %.9Lg): "
              "error %.3Lg > bound %.3Lg", c->k, si, sj, v.re, v.im, ref.re,
              ref.im, err, bound);
    return 0;
}

static long check_unchanged(const cfg_t *c, const mat_t *a, const char *nm)
{
    size_t es = elsize(c->t);
    if (!a->nel || !memcmp(a->buf, a->save, a->nel * es))
        return 0;
    long bad = 0;
    for (size_t e = 0; e < a->nel; e++)
        bad += memcmp(a->buf + e * es, a->save + e * es, es) != 0;
    FAILF("cfg %d: local %s modified (%ld elements)", c->k, nm, bad);
    return bad;
}

/* Whether element (si, sj) of sub(C) is written: all of it for p?gemm,
 * the triangle UPLO for p?syrk and p?herk. */
static int in_triangle(const cfg_t *c, int si, int sj)
{
    char u = (char)toupper((unsigned char)c->uplo);
    return u == 'U' ? si <= sj : u == 'L' ? si >= sj : 1;
}

/* this rank's local C: sub(C) (its triangle) within the bound, the rest
 * unchanged */
static long check_c(const cfg_t *c, const ops_t *o)
{
    const mat_t *x = &c->c;
    size_t es = elsize(c->t);
    long bad = 0;
    for (int lj = 0; lj < x->locc; lj++) {
        int gj = x->cmap[lj], sj = gj - (x->J - 1);
        for (int li = 0; li < x->lld; li++) {
            size_t off = ((size_t)lj * x->lld + li) * es;
            const unsigned char *got = x->buf + off, *old = x->save + off;
            int gi = li < x->locr ? x->rmap[li] : -1;
            int si = gi - (x->I - 1);
            int in_sub = gi >= 0 && si >= 0 && si < c->m && sj >= 0 &&
                         sj < c->n && in_triangle(c, si, sj);
            double ratio = 0;
            int ok = in_sub ? elem_ok(c, o, si, sj, got, old, bad >= 5,
                                      &ratio)
                            : !memcmp(got, old, es);
            if (in_sub && ratio > g_worst && ok)
                g_worst = ratio;
            if (ok)
                continue;
            if (bad < 5 && !in_sub)
                sweep_report_elem(c->k, gi < 0 ? "C padding"
                                               : "C outside sub(C)",
                                  li, lj, gi, gj, got, old, es);
            bad++;
        }
    }
    if (bad > 5)
        FAILF("cfg %d: %ld bad elements of C in all", c->k, bad);
    return bad;
}

/* --inject: one deliberate corruption (rank 0, first chance) */
static void inject(cfg_t *c, const ops_t *o)
{
    size_t es = elsize(c->t);
    mat_t *x = g_inject == 'a' || (g_inject == 'b' && c->uplo) ? &c->a
               : g_inject == 'b'                             ? &c->b
                                                             : &c->c;
    if (g_rank != 0 || g_injected || !x->nel)
        return;
    if (g_inject == 'g') {
        x->buf[x->nel * es + 3] ^= 0x10;
        g_injected = 1;
        fprintf(stderr, "[rank 0] cfg %d: --inject g: changed a guard byte\n",
                c->k);
        return;
    }
    for (int lj = 0; lj < x->locc; lj++)
        for (int li = 0; li < x->lld; li++) {
            unsigned char *e = x->buf + ((size_t)lj * x->lld + li) * es;
            int gi = li < x->locr ? x->rmap[li] : -1;
            int si = gi - (x->I - 1), sj = x->cmap[lj] - (x->J - 1);
            int in_sub = gi >= 0 && si >= 0 && si < c->m && sj >= 0 &&
                         sj < c->n && in_triangle(c, si, sj);
            if (g_inject == 'c' && in_sub) {
                /* twice the bound off: the check is that tight */
                long double bound;
                size_t off = (size_t)(e - x->buf);
                cld_t ref = elem_ref(c, o, si, sj, x->save + off, &bound);
                put_part(c->t, e, 0,
                         (double)(ref.re + (bound > 0 ? 2 * bound : 1e-30L)));
                if (is_cplx(c->t))
                    put_part(c->t, e, 1, (double)ref.im);
            } else if (g_inject == 'o' && !in_sub) {
                e[0] ^= 1;
            } else if (g_inject == 'a' || g_inject == 'b') {
                e[0] ^= 1;
            } else {
                continue;
            }
            g_injected = 1;
            fprintf(stderr, "[rank 0] cfg %d: --inject %c: changed local "
                            "(%d,%d)\n", c->k, g_inject, li, lj);
            return;
        }
}

static void run_config(cfg_t *c)
{
    char desc[2048];
    long before = g_fail;
    size_t es = elsize(c->t);
    if (g_verbose && g_rank == 0) {
        describe(c, desc, sizeof desc);
        fprintf(stderr, "%s\n", desc);
    }
    setup_local(&c->a, &c->g, W_A, c->t, c->k, 0, 0, 0, 0);
    setup_local(&c->b, &c->g, W_B, c->t, c->k, 0, 0, 0, 0);
    setup_local(&c->c, &c->g, W_C, c->t, c->k, c->m, c->n, c->nonfinite,
                c->uplo);
    if (c->g.myrow >= 0) {
        call_gemm(c);
        ops_t o;
        ops_build(c, &o);
        if (g_inject)
            inject(c, &o);
        check_c(c, &o);
        ops_free(&o);
        check_unchanged(c, &c->a, "A");
        check_unchanged(c, &c->b, "B");
        guard_check(c->a.buf, c->a.nel * es, c->k, "A");
        guard_check(c->b.buf, c->b.nel * es, c->k, "B");
        guard_check(c->c.buf, c->c.nel * es, c->k, "C");
    }
    if (g_fail != before) {
        describe(c, desc, sizeof desc);
        fprintf(stderr, "[rank %d] failing config: %s\n", g_rank, desc);
    }
    free_local(&c->a);
    free_local(&c->b);
    free_local(&c->c);
    grid_free(&c->g);
}

static void usage(void)
{
    if (g_rank == 0)
        fprintf(stderr, "usage: gemm_sweep --seed S --count N [--start K] "
                        "[--types sdcz] [--replicated] [--aligned] [--sym] "
                        "[--inject c|o|a|b|g] "
                        "[--verbose]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    sweep_init("gemm_sweep");

    sweep_opts_t o = SWEEP_OPTS_DEFAULT;
    o.types = "sdcz";
    for (int i = 1; i < argc; i++) {
        if (sweep_common_arg(argc, argv, &i, &o))
            continue;
        if (!strcmp(argv[i], "--replicated"))
            g_replicated = 1;
        else if (!strcmp(argv[i], "--aligned"))
            g_aligned = 1;
        else if (!strcmp(argv[i], "--sym"))
            g_sym = 1;
        else if (!strcmp(argv[i], "--inject") && i + 1 < argc &&
                 strlen(argv[i + 1]) == 1 && strchr("coabg", argv[i + 1][0]))
            g_inject = argv[++i][0];
        else
            usage();
    }
    /* no digests: results legitimately differ in rounding between runs */
    if (!sweep_opts_ok(&o) || o.digest || strchr(o.types, 'i'))
        usage();
    g_verbose = o.verbose;
    sweep_blacs_init();

    double t0 = MPI_Wtime();
    static cfg_t c;
    rng_t r;
    for (int k = o.start; k < o.start + o.count; k++) {
        draw_config(o.seed, k, o.types, &c, &r);
        run_config(&c);
    }
    double t1 = MPI_Wtime();
    if (g_inject && g_rank == 0 && !g_injected)
        fprintf(stderr, "gemm_sweep: --inject %c found nothing to change\n",
                g_inject);

    enum { NV = 6 };
    long mine[NV] = {g_calls, g_calls_nowork, g_calls_local, g_calls_repl,
                     g_calls_declined, g_fail};
    long *all = xmalloc(sizeof(long) * NV * (size_t)g_np);
    MPI_Gather(mine, NV, MPI_LONG, all, NV, MPI_LONG, 0, MPI_COMM_WORLD);
    double worst = 0;
    MPI_Reduce(&g_worst, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    long tot_fail = 0;
    if (g_rank == 0) {
        for (int p = 0; p < g_np; p++) {
            const long *v = all + NV * p;
            printf("calls %d %ld\n", p, v[0]);
            printf("calls_no_work %d %ld\n", p, v[1]);
            printf("calls_local %d %ld\n", p, v[2]);
            printf("calls_replicated %d %ld\n", p, v[3]);
            printf("calls_declined %d %ld\n", p, v[4]);
            tot_fail += v[5];
        }
        fprintf(stderr, "gemm_sweep: %d procs, configs %d..%d%s, %.2f s, "
                        "largest error / bound %.3g, %ld failed checks\n",
                g_np, o.start, o.start + o.count - 1,
                g_replicated ? " (replicated)" : "", t1 - t0, worst,
                tot_fail);
    }
    free(all);
    return sweep_finish(tot_fail);
}
