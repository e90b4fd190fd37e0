/*
 * test_apps/scalapack/tran_sweep.c - randomized differential sweep of the
 * transpose family in one MPI launch: p{s,d}tran_, p{c,z}tranu_,
 * p{c,z}tranc_, p{s,d,c,z}geadd_ (TRANS N/T/C), p{s,d,c,z}tradd_ (UPLO U/L x
 * TRANS N/T/C) and p{s,d,c,z,i}trmr2d_ / Cp{s,d,c,z,i}trmr2d.
 *
 * Why: costa-shim takes these routines over and must be bit-identical to
 * ScaLAPACK.  Every config draws (from --seed and its index, identically on
 * all ranks) a routine, a grid (gridinit R/C, gridmap in random order, grids
 * on sub-communicators, 1xP, Px1, 2x2, ... possibly over a subset of the
 * ranks), DTYPE 1 or DTYPE 2 descriptors (IMB != MB), block sizes from 1 to
 * larger than the matrix, sources, offsets, LLD padding, M > N, M < N,
 * M or N = 0, and one of the alpha/beta cases of PBLAS (0/0, 0/1, 0/2, 1/0,
 * 1/1, 2/3, -0.5/0.25, 2/1, 1/-2, 0/-0.0, complex with both parts non-zero).
 *
 * Values: "exact" configs (about 3/4) use non-zero multiples of 0.5 below 64
 * so every formula is exact; when beta = 0, sub(C) holds NaN / Inf payloads
 * that must be overwritten.  "hard" configs use random doubles (with a few
 * +-0, NaN, Inf) where rounding matters: their sub(C) is compared only
 * natively vs under the shim through the digest lines.
 *
 * Each rank checks its local arrays after every call, bit for bit: A is
 * unchanged; C outside sub(C) and the LLD padding are unchanged; for p?tradd
 * the elements of sub(C) outside the trapezoid (i <= j for 'U', i >= j for
 * 'L', relative to sub(C)) are unchanged (hard configs: except the -0 -> +0
 * and sNaN -> qNaN that PBLAS's "C += 0" on the diagonal 32x32 blocks
 * causes); in exact configs sub(C) equals a local reference computed with
 * the PBLAS formulas.  p?trmr2d: A and B on different grids with CTXT -1
 * outside, gcontext covering both; sub(B) follows the trapezoid rule of
 * scalapack-semantics.md 2.7 (UPLO/DIAG upper/lower case and odd letters).
 *
 *   tran_sweep --seed S --count N [--start K] [--types sdczi] [--only tgar]
 *              [--replicated] [--digest FILE] [--classify] [--hard]
 *              [--verbose]
 *
 * --only: t = p?tran*, g = p?geadd, a = p?tradd, r = p?trmr2d.
 * --replicated: a separate set of PBLAS configs in which RSRC and/or CSRC of
 * A and/or C is -1 (matrix replicated over process rows/columns); p?trmr2d
 * (which rejects -1) is not drawn then.
 * --classify: rank 0 prints to stderr, for the hard configs, how many
 * elements of sub(C) match the candidate rounding formulas (diagnostic);
 * --hard makes every PBLAS config a hard one (same draws otherwise).
 *
 * Output: "cfg <k> rank <r> digest <hex64>" per config and rank (to
 * FILE.<rank> with --digest, else stdout), then from rank 0 "calls <rank>
 * <count>" per rank (intercepted-routine calls made, M or N = 0 included),
 * "calls_mn0 <rank> <count>" and "cs_test: OK" when every rank passed.
 */
#include <mpi.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_sweep.h"

/* PBLAS: Fortran interfaces; CHARACTER arguments carry hidden lengths.
 * p?tran* are declared in cs_blacs.h. */
#define GEADD_PROTO(name, T)                                                  \
    void name(char *, int *, int *, T *, T *, int *, int *, int *, T *, T *,  \
              int *, int *, int *, size_t)
GEADD_PROTO(psgeadd_, float);
GEADD_PROTO(pdgeadd_, double);
GEADD_PROTO(pcgeadd_, float);
GEADD_PROTO(pzgeadd_, double);
#define TRADD_PROTO(name, T)                                                  \
    void name(char *, char *, int *, int *, T *, T *, int *, int *, int *,    \
              T *, T *, int *, int *, int *, size_t, size_t)
TRADD_PROTO(pstradd_, float);
TRADD_PROTO(pdtradd_, double);
TRADD_PROTO(pctradd_, float);
TRADD_PROTO(pztradd_, double);
/* REDIST: the Fortran entry is C code; a Fortran caller passes the hidden
 * lengths anyway, so do we. */
#define TRMRF_PROTO(name, T)                                                  \
    void name(char *, char *, int *, int *, T *, int *, int *, int *, T *,    \
              int *, int *, int *, int *, size_t, size_t)
TRMRF_PROTO(pstrmr2d_, float);
TRMRF_PROTO(pdtrmr2d_, double);
TRMRF_PROTO(pctrmr2d_, float);
TRMRF_PROTO(pztrmr2d_, double);
TRMRF_PROTO(pitrmr2d_, int);
#define TRMRC_PROTO(name, T)                                                  \
    void name(char *, char *, int, int, T *, int, int, int *, T *, int, int,  \
              int *, int)
TRMRC_PROTO(Cpstrmr2d, float);
TRMRC_PROTO(Cpdtrmr2d, double);
TRMRC_PROTO(Cpctrmr2d, float);
TRMRC_PROTO(Cpztrmr2d, double);
TRMRC_PROTO(Cpitrmr2d, int);

/* 11-entry descriptor (DTYPE 2) and 9-entry descriptor (DTYPE 1) indices */
enum { D2_DTYPE, D2_CTXT, D2_M, D2_N, D2_IMB, D2_INB, D2_MB, D2_NB, D2_RSRC,
       D2_CSRC, D2_LLD };
enum { D1_DTYPE, D1_CTXT, D1_M, D1_N, D1_MB, D1_NB, D1_RSRC, D1_CSRC,
       D1_LLD };

/* stateless hash of a few integers (element values) */
static uint64_t mix(uint64_t h, uint64_t v)
{
    rng_t t = {h ^ (v * 0xd6e8feb86659fd93ull)};
    return rng_next(&t);
}

/* ---- globals (g_rank, g_np, g_sysctx, g_fail: cs_sweep.h) ---- */
static long g_calls, g_calls_mn0;   /* intercepted-routine calls made */
/* calls the shim is documented to hand to PBLAS (reason unsupported):
 * complex p?tran, p?tranu, p?tranc and p?geadd with beta = 1 and alpha
 * not 0, and real ones with beta = 1 and alpha not 0, 1 or -1, whose rounding
 * (and sign of zeros) depends on PBLAS's internal buffering (?AXPY, which
 * may fuse, or its own loop);
 * complex scalings PBLAS does with ?SCAL (alpha = 0 with beta not 0 or 1,
 * and p?tradd's); replicated C (RSRC or CSRC = -1) where PBLAS sums its
 * copies (pblas_sums) with alpha not 0 and, for p?tran* and p?geadd, not 1,
 * for p?tradd complex. */
static long g_calls_unsup;
/* calls that need no work (M or N = 0, PBLAS's alpha = 0 with beta = 1):
 * the shim counts them as path none */
static long g_calls_nowork;
static int g_verbose, g_replicated, g_classify, g_hard;
/* --nonfinite: hard values include NaN and Inf.  Off by default: when both
 * operands of an addition or product are NaN, IEEE 754 leaves the result's
 * payload to the implementation, and compilers reorder commutative
 * operands, so NaN payloads after arithmetic are not part of the shim's
 * bit-identity promise.  NaN/Inf in C for beta = 0 (overwritten) and in
 * plain copies are always tested (VK_NANFILL). */
static int g_nonfinite;

/* =================================================================== */
/* element values                                                       */
/* =================================================================== */
static size_t elsize(char t)
{
    return t == 's' || t == 'i' ? 4 : t == 'd' || t == 'c' ? 8 : 16;
}
static int is_cplx(char t) { return t == 'c' || t == 'z'; }
static int is_single(char t) { return t == 's' || t == 'c'; }
static int nparts(char t) { return is_cplx(t) ? 2 : 1; }

/* value kinds */
enum { VK_EXACT, VK_HARD, VK_NANFILL, VK_QNANFILL, VK_SENT };

static void put_part(char t, unsigned char *dst, int part, uint64_t bits64,
                     uint32_t bits32)
{
    if (is_single(t))
        memcpy(dst + 4 * part, &bits32, 4);
    else
        memcpy(dst + 8 * part, &bits64, 8);
}

/* one part of an element, from hash h */
static void gen_part(char t, unsigned char *dst, int part, uint64_t h, int vk)
{
    uint64_t b64 = 0;
    uint32_t b32 = 0;
    int sel = (int)(h & 1023);
    int sgn = (int)((h >> 10) & 1);
    if (vk == VK_EXACT) {
        int v = (int)((h >> 11) % 127) - 63;
        if (v >= 0)
            v++;
        double d = 0.5 * v;
        float f = (float)d;
        memcpy(&b64, &d, 8);
        memcpy(&b32, &f, 4);
    } else if (vk == VK_HARD) {
        if (sel < 12) { /* +-0 */
            b64 = (uint64_t)sgn << 63;
            b32 = (uint32_t)sgn << 31;
        } else if (g_nonfinite && sel < 16) { /* quiet NaN with payload */
            b64 = 0x7ff8000000000000ull | ((h >> 20) & 0xffffffffull) |
                  ((uint64_t)sgn << 63);
            b32 = 0x7fc00000u | (uint32_t)((h >> 20) & 0x3fffff) |
                  ((uint32_t)sgn << 31);
        } else if (g_nonfinite && sel < 18) { /* signalling NaN */
            b64 = 0x7ff0000000000000ull | (((h >> 20) & 0xffffffull) | 1) |
                  ((uint64_t)sgn << 63);
            b32 = 0x7f800000u | (((uint32_t)(h >> 20) & 0x3fffffu) | 1u) |
                  ((uint32_t)sgn << 31);
        } else if (g_nonfinite && sel < 20) { /* Inf */
            b64 = 0x7ff0000000000000ull | ((uint64_t)sgn << 63);
            b32 = 0x7f800000u | ((uint32_t)sgn << 31);
        } else {
            uint64_t mant = (h >> 12) & ((1ull << 52) - 1);
            uint64_t ex = (uint64_t)(1023 - 12 + (int)((h >> 3) % 25));
            b64 = ((uint64_t)sgn << 63) | (ex << 52) | mant;
            double d;
            memcpy(&d, &b64, 8);
            float f = (float)d;
            memcpy(&b32, &f, 4);
        }
    } else if (vk == VK_NANFILL || vk == VK_QNANFILL) {
        int x = (int)((h >> 11) % 8);
        if (x == 0) { /* Inf */
            b64 = 0x7ff0000000000000ull | ((uint64_t)sgn << 63);
            b32 = 0x7f800000u | ((uint32_t)sgn << 31);
        } else if (x < 3 && vk == VK_NANFILL) { /* sNaN */
            b64 = 0x7ff0000000000000ull | (((h >> 20) & 0xfffffull) | 1) |
                  ((uint64_t)sgn << 63);
            b32 = 0x7f800000u | (((uint32_t)(h >> 20) & 0x3ffffu) | 1u) |
                  ((uint32_t)sgn << 31);
        } else { /* qNaN */
            b64 = 0x7ff8000000000000ull | ((h >> 20) & 0xfffffull) |
                  ((uint64_t)sgn << 63);
            b32 = 0x7fc00000u | (uint32_t)((h >> 20) & 0x3ffff) |
                  ((uint32_t)sgn << 31);
        }
    } else { /* sentinel: big numbers and sNaN patterns, never read */
        if (sel & 1) {
            b64 = 0x7ff5a5a5a5a5a5a5ull ^ ((h >> 20) & 0xffff);
            b32 = 0x7f85a5a5u ^ (uint32_t)((h >> 20) & 0xff);
        } else {
            double d = 1.25e300;
            float f = -1.5e30f;
            memcpy(&b64, &d, 8);
            memcpy(&b32, &f, 4);
            b64 ^= (h >> 20) & 0xff;
            b32 ^= (uint32_t)((h >> 20) & 0xff);
        }
    }
    put_part(t, dst, part, b64, b32);
}

/* A whole element.  which: 0 = A, 1 = C (or B), 2 = sentinel stream */
static void gen_elem(char t, unsigned char *dst, int which, int gi, int gj,
                     int k, int vk)
{
    uint64_t h = mix(mix(mix(mix(0x5eed5eedull, (uint64_t)which),
                             (uint64_t)gi), (uint64_t)gj), (uint64_t)k);
    if (t == 'i') {
        int32_t iv = (int32_t)(h & 0x7fffffff) - 0x40000000;
        if (vk == VK_SENT)
            iv = 2000000001 - (int32_t)(h & 0xff);
        memcpy(dst, &iv, 4);
        return;
    }
    for (int p = 0; p < nparts(t); p++)
        gen_part(t, dst, p, mix(h, (uint64_t)p + 77), vk);
}

/* numeric access to one part */
static double get_d(char t, const unsigned char *e, int part)
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
    int junk, dummy;  /* trmr2d non-members: garbage desc / dummy array */
    int desc[11];
    int locr, locc, lld;
    int *rmap, *cmap; /* local -> global row / column */
    size_t nel;
    unsigned char *buf, *save;
} mat_t;

/* Global indices owned by process myp (first block ib, then b; src -1 =
 * replicated).  Returns the count; map may be NULL. */
static int own_map(int n, int ib, int b, int src, int nprocs, int myp,
                   int *map)
{
    int cnt = 0;
    for (int g = 0; g < n; g++) {
        int owner;
        if (src < 0 || nprocs == 1)
            owner = myp;
        else {
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

/* Draw matrix parameters for an m x n submatrix on grid g. */
static void draw_mat(rng_t *r, mat_t *a, int m, int n, const grid_t *g,
                     int pblas)
{
    memset(a, 0, sizeof *a);
    a->I = chance(r, 35) ? 1 : (chance(r, 85) ? rrange(r, 2, 6) : rrange(r, 7, 20));
    a->J = chance(r, 35) ? 1 : (chance(r, 85) ? rrange(r, 2, 6) : rrange(r, 7, 20));
    a->M = a->I - 1 + m + (chance(r, 50) ? 0 : rrange(r, 1, 8));
    a->N = a->J - 1 + n + (chance(r, 50) ? 0 : rrange(r, 1, 8));
    if (a->M < 1)
        a->M = 1;
    if (a->N < 1)
        a->N = 1;
    a->MB = pick_block(r, a->M);
    a->NB = pick_block(r, a->N);
    a->RSRC = rnd(r, g->P);
    a->CSRC = rnd(r, g->Q);
    a->IMB = a->MB;
    a->INB = a->NB;
    if (pblas) {
        a->dtype = chance(r, 30) ? 2 : 1;
        if (a->dtype == 2) {
            a->IMB = rrange(r, 1, a->MB + 6);
            a->INB = rrange(r, 1, a->NB + 6);
            if (a->IMB == a->MB && chance(r, 80))
                a->IMB = a->MB + 1;
            if (a->INB == a->NB && chance(r, 80))
                a->INB = a->NB > 1 ? a->NB - 1 : 2;
        }
    } else {
        int x = rnd(r, 100);
        a->dtype = x < 80 ? 1 : (x < 90 ? 777 : -5);
    }
    for (int p = 0; p < MAXP; p++)
        a->pad[p] = chance(r, 25) ? rrange(r, 1, 3) : 0;
    a->junk = chance(r, 30);
    a->dummy = chance(r, 40);
}

/*
 * Allocate and fill the local array of a (grid g).  pblas: 11-entry or
 * 9-entry descriptor by dtype; LLD >= 1.  Fill: every element gets a
 * sentinel, then elements of the whole matrix get values:
 *   which 0 (A): all global elements get kind vk_in (A is read in sub(A)
 *   only, the rest must simply stay unchanged);
 *   which 1 (C/B): elements inside the submatrix (rows I.., cols J..,
 *   sm x sn) get vk_sub, the others sentinels.
 */
static void setup_local(const rng_t *r, mat_t *a, const grid_t *g, int which,
                        char t, int k, int pblas, int vk_in, int sm, int sn,
                        int vk_sub)
{
    size_t es = elsize(t);
    int member = g->myrow >= 0;
    a->buf = a->save = NULL;
    a->rmap = a->cmap = NULL;
    a->nel = 0;
    a->locr = a->locc = a->lld = 0;
    if (pblas && a->dtype == 2) {
        a->desc[D2_DTYPE] = 2;
        a->desc[D2_CTXT] = g->ctxt;
        a->desc[D2_M] = a->M;
        a->desc[D2_N] = a->N;
        a->desc[D2_IMB] = a->IMB;
        a->desc[D2_INB] = a->INB;
        a->desc[D2_MB] = a->MB;
        a->desc[D2_NB] = a->NB;
        a->desc[D2_RSRC] = a->RSRC;
        a->desc[D2_CSRC] = a->CSRC;
    } else {
        a->desc[D1_DTYPE] = a->dtype;
        a->desc[D1_CTXT] = g->ctxt;
        a->desc[D1_M] = a->M;
        a->desc[D1_N] = a->N;
        a->desc[D1_MB] = a->MB;
        a->desc[D1_NB] = a->NB;
        a->desc[D1_RSRC] = a->RSRC;
        a->desc[D1_CSRC] = a->CSRC;
    }
    int lldi = pblas && a->dtype == 2 ? D2_LLD : D1_LLD;
    if (member) {
        a->locr = own_map(a->M, a->IMB, a->MB, a->RSRC, g->P, g->myrow, NULL);
        a->locc = own_map(a->N, a->INB, a->NB, a->CSRC, g->Q, g->mycol, NULL);
        a->rmap = xmalloc(sizeof(int) * (size_t)(a->locr + 1));
        a->cmap = xmalloc(sizeof(int) * (size_t)(a->locc + 1));
        own_map(a->M, a->IMB, a->MB, a->RSRC, g->P, g->myrow, a->rmap);
        own_map(a->N, a->INB, a->NB, a->CSRC, g->Q, g->mycol, a->cmap);
        a->lld = a->locr + a->pad[g_rank];
        if (pblas && a->lld < 1)
            a->lld = 1;
        a->nel = (size_t)a->lld * (size_t)a->locc;
        a->desc[lldi] = a->lld;
    } else {
        a->desc[lldi] = 0;
        if (a->junk && !pblas) { /* never read on non-members */
            rng_t lr = {r->s ^ (0x51ed2701ull * (uint64_t)(g_rank + 1))};
            for (int e = 0; e < 9; e++)
                if (e != D1_CTXT)
                    a->desc[e] = (int)(rng_next(&lr) & 0xffff) - 30000;
        }
        if (a->dummy && !pblas)
            a->nel = 3;
    }
    if (a->nel)
        a->buf = guarded_alloc(a->nel * es);
    for (size_t e = 0; e < a->nel; e++)
        gen_elem(t, a->buf + e * es, 2, (int)e, g_rank, k, VK_SENT);
    if (member) {
        for (int lj = 0; lj < a->locc; lj++) {
            int gj = a->cmap[lj];
            for (int li = 0; li < a->locr; li++) {
                int gi = a->rmap[li];
                unsigned char *p = a->buf + ((size_t)lj * a->lld + li) * es;
                if (which == 0) {
                    gen_elem(t, p, 0, gi, gj, k, vk_in);
                } else {
                    int si = gi - (a->I - 1), sj = gj - (a->J - 1);
                    if (si >= 0 && si < sm && sj >= 0 && sj < sn)
                        gen_elem(t, p, 1, gi, gj, k, vk_sub);
                }
            }
        }
    }
    if (a->nel) {
        a->save = xmalloc(a->nel * es);
        memcpy(a->save, a->buf, a->nel * es);
    }
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
enum { F_TRAN, F_GEADD, F_TRADD, F_TRMR };
static const char *fam_name[] = {"tran", "geadd", "tradd", "trmr2d"};

/* alpha/beta cases: {ar, ai, br, bi}; the first NREAL are real */
static const double ab_cases[][4] = {
    {0, 0, 0, 0},      {0, 0, 1, 0},       {0, 0, 2, 0},
    {1, 0, 0, 0},      {1, 0, 1, 0},       {2, 0, 3, 0},
    {-0.5, 0, 0.25, 0}, {2, 0, 1, 0},      {1, 0, -2, 0},
    {0, 0, -0.0, 0},   {-1.5, 0, 0, 0},    {-1, 0, 1, 0},
    /* complex only */
    {1.5, -2, 0.5, 0.25}, {0, 1, 1, 0},    {-2, 0.5, 0, 0},
    {0, 0, 0.5, -1.5},  {0.5, 1, -1, 2},   {1, 0, 0, -1},
    {0, 0, -0.0, -0.0}, {-0.5, -0.25, 1, 0}, {0.25, 2, 1, 0},
};
#define NAB ((int)(sizeof ab_cases / sizeof ab_cases[0]))
#define NREAL 12

typedef struct {
    int k, fam;
    char t;
    int conj;        /* tranc, or TRANS 'C' on a complex type */
    char trans, uplo, diag; /* as passed (any case / odd letters) */
    int notran;      /* TRANS N (geadd/tradd); tran: 0 */
    int upper;       /* tradd / trmr2d: upper */
    int fortran;     /* trmr2d: Fortran entry */
    int m, n;
    int hard;        /* hard values */
    int abcase;      /* -1: random hard alpha/beta */
    double al[2], be[2];
    int zmode;       /* trmr2d m or n == 0: 0 valid, 1 garbage, 2 NULL */
    int gsub;        /* PBLAS grid over a subset of the ranks */
    grid_t ga, gb, gg;
    mat_t a, b;      /* b = C for the PBLAS routines */
} cfg_t;

static const char *routine_name(const cfg_t *c, char *buf, size_t len)
{
    switch (c->fam) {
    case F_TRAN:
        if (is_cplx(c->t))
            snprintf(buf, len, "p%ctran%c_", c->t, c->conj ? 'c' : 'u');
        else
            snprintf(buf, len, "p%ctran_", c->t);
        break;
    case F_GEADD: snprintf(buf, len, "p%cgeadd_", c->t); break;
    case F_TRADD: snprintf(buf, len, "p%ctradd_", c->t); break;
    default:
        snprintf(buf, len, c->fortran ? "p%ctrmr2d_" : "Cp%ctrmr2d", c->t);
        break;
    }
    return buf;
}

static void describe(const cfg_t *c, char *s, size_t len)
{
    char rn[32];
    int o = snprintf(s, len,
                     "cfg %d: %s m=%d n=%d trans=%c uplo=%c diag=%c %s "
                     "alpha=(%g,%g) beta=(%g,%g) zmode=%d",
                     c->k, routine_name(c, rn, sizeof rn), c->m, c->n,
                     c->trans ? c->trans : '-', c->uplo ? c->uplo : '-',
                     c->diag ? c->diag : '-', c->hard ? "hard" : "exact",
                     c->al[0], c->al[1], c->be[0], c->be[1], c->zmode);
    const grid_t *gs[3] = {&c->ga, &c->gb, &c->gg};
    const mat_t *ms[2] = {&c->a, &c->b};
    const char *nm[3] = {"A", c->fam == F_TRMR ? "B" : "C", "G"};
    int ng = c->fam == F_TRMR ? 3 : 1;
    for (int x = 0; x < ng && o < (int)len; x++) {
        const grid_t *g = gs[x];
        o += snprintf(s + o, len - o, " | grid%s %s %dx%d ldu=%d procs=",
                      c->fam == F_TRMR ? nm[x] : "", meth_name[g->method],
                      g->P, g->Q, g->ldu);
        for (int p = 0; p < g->n && o < (int)len; p++)
            o += snprintf(s + o, len - o, "%s%d", p ? "," : "", g->procs[p]);
    }
    for (int x = 0; x < 2 && o < (int)len; x++) {
        const mat_t *a = ms[x];
        o += snprintf(s + o, len - o,
                      " | %s M=%d N=%d IMB=%d INB=%d MB=%d NB=%d src=%d,%d "
                      "I=%d J=%d dtype=%d", nm[x], a->M, a->N, a->IMB, a->INB,
                      a->MB, a->NB, a->RSRC, a->CSRC, a->I, a->J, a->dtype);
    }
}

static double hard_scalar(rng_t *r)
{
    unsigned char e[8];
    uint64_t h = rng_next(r);
    h |= 1023; /* sel >= 20: an ordinary random number */
    gen_part('d', e, 0, h, VK_HARD);
    double d;
    memcpy(&d, e, 8);
    return d;
}

static void draw_config(uint64_t seed, int k, const char *types,
                        const char *only, cfg_t *c, rng_t *r)
{
    memset(c, 0, sizeof *c);
    rng_t h = {seed};
    h.s = rng_next(&h) ^ ((uint64_t)k * 0xd1b54a32d192ed03ull);
    r->s = rng_next(&h);
    c->k = k;

    /* family among the allowed ones */
    int fams[4], nf = 0;
    static const int weight[4] = {30, 22, 26, 22};
    static const char letter[4] = {'t', 'g', 'a', 'r'};
    int wsum = 0;
    for (int f = 0; f < 4; f++) {
        if (!strchr(only, letter[f]))
            continue;
        if (f == F_TRMR && g_replicated)
            continue;
        if (f != F_TRMR && !strpbrk(types, "sdcz"))
            continue;
        fams[nf++] = f;
        wsum += weight[f];
    }
    if (!nf)
        die("no routine family left for --types/--only/--replicated");
    int x = rnd(r, wsum);
    c->fam = fams[nf - 1];
    for (int f = 0; f < nf; f++) {
        if (x < weight[fams[f]]) {
            c->fam = fams[f];
            break;
        }
        x -= weight[fams[f]];
    }
    char tl[8];
    int nt = 0;
    for (const char *p = types; *p && nt < 8; p++)
        if (c->fam == F_TRMR || *p != 'i')
            tl[nt++] = *p;
    c->t = tl[rnd(r, nt)];

    static const char tr_l[] = "NTCntc";
    static const char up_l[] = "ULul";
    switch (c->fam) {
    case F_TRAN:
        c->conj = is_cplx(c->t) && chance(r, 50);
        break;
    case F_GEADD:
        c->trans = tr_l[chance(r, 80) ? rnd(r, 3) : 3 + rnd(r, 3)];
        c->notran = c->trans == 'N' || c->trans == 'n';
        c->conj = is_cplx(c->t) && (c->trans == 'C' || c->trans == 'c');
        break;
    case F_TRADD:
        c->trans = tr_l[chance(r, 80) ? rnd(r, 3) : 3 + rnd(r, 3)];
        c->uplo = up_l[chance(r, 80) ? rnd(r, 2) : 2 + rnd(r, 2)];
        c->notran = c->trans == 'N' || c->trans == 'n';
        c->upper = c->uplo == 'U' || c->uplo == 'u';
        c->conj = is_cplx(c->t) && (c->trans == 'C' || c->trans == 'c');
        break;
    default: {
        static const char tu[] = "UuLlxX ";
        static const char td[] = "NnUuxZ";
        c->uplo = tu[chance(r, 75) ? rnd(r, 4) : 4 + rnd(r, 3)];
        c->diag = td[chance(r, 75) ? rnd(r, 4) : 4 + rnd(r, 2)];
        c->upper = c->uplo == 'U' || c->uplo == 'u';
        c->fortran = rnd(r, 2);
        break;
    }
    }

    x = rnd(r, 100);
    if (x < 8) { /* M or N = 0 */
        int y = rnd(r, 3);
        c->m = y == 1 ? rrange(r, 1, 20) : 0;
        c->n = y == 2 ? rrange(r, 1, 20) : 0;
        c->zmode = c->fam == F_TRMR ? rnd(r, 3) : 0;
    } else if (x < 20) {
        c->m = rrange(r, 1, 150);
        c->n = rrange(r, 1, 150);
        if (c->m * c->n > 8000)
            c->n = 8000 / c->m;
    } else {
        c->m = chance(r, 8) ? 1 : rrange(r, 1, 40);
        c->n = chance(r, 8) ? 1 : rrange(r, 1, 40);
    }

    if (c->fam != F_TRMR) {
        c->hard = chance(r, 25) || g_hard;
        int nab = is_cplx(c->t) ? NAB : NREAL;
        c->abcase = rnd(r, nab);
        c->al[0] = ab_cases[c->abcase][0];
        c->al[1] = ab_cases[c->abcase][1];
        c->be[0] = ab_cases[c->abcase][2];
        c->be[1] = ab_cases[c->abcase][3];
        if (!is_cplx(c->t))
            c->al[1] = c->be[1] = 0;
        if (c->hard && chance(r, 50)) { /* random alpha/beta */
            c->abcase = -1;
            int bsel = rnd(r, 3); /* beta 0, 1 or random */
            c->al[0] = hard_scalar(r);
            c->al[1] = is_cplx(c->t) ? hard_scalar(r) : 0;
            c->be[0] = bsel == 0 ? 0 : bsel == 1 ? 1 : hard_scalar(r);
            c->be[1] = bsel == 2 && is_cplx(c->t) ? hard_scalar(r) : 0;
            if (is_single(c->t)) {
                for (int p = 0; p < 2; p++) {
                    c->al[p] = (float)c->al[p];
                    c->be[p] = (float)c->be[p];
                }
            }
        }
    }
}

/* ---- PBLAS dims of sub(A) ---- */
static void suba_dims(const cfg_t *c, int *ar, int *ac)
{
    int tr = c->fam == F_TRAN || !c->notran;
    *ar = tr ? c->n : c->m;
    *ac = tr ? c->m : c->n;
}

/* ---- calls ---- */
/* Whether PBLAS forms sub(C) through a sum with zeros (PB_CpaxpbyDN's
 * Cgsum2d, docs/design.md): its panel of A distributed, its panel of C
 * not, over more than one process.  P x Q is the grid. */
static int pblas_sums(const cfg_t *c, int P, int Q)
{
    const mat_t *a = &c->a, *x = &c->b;
    int ccol, acol; /* C's and A's panels are columns (else rows) */
    if (c->fam == F_TRADD) { /* PB_Cptradd */
        ccol = c->m >= c->n;
        acol = c->notran ? ccol : !ccol;
    } else if (c->fam != F_TRAN && c->notran) { /* PB_Cpgeadd */
        ccol = acol = !(c->m <= c->n || Q == 1 || a->CSRC < 0);
    } else { /* PB_Cptran */
        acol = c->m <= c->n || P == 1 || a->RSRC < 0;
        ccol = !acol;
    }
    int adist = acol ? a->RSRC >= 0 && P > 1 : a->CSRC >= 0 && Q > 1;
    int cdist = ccol ? x->RSRC >= 0 && P > 1 : x->CSRC >= 0 && Q > 1;
    int crepl = ccol ? x->CSRC < 0 || Q == 1 : x->RSRC < 0 || P == 1;
    return adist && !cdist && (crepl || (ccol ? P : Q) > 1);
}

static void call_pblas(cfg_t *c)
{
    int m = c->m, n = c->n, ia = c->a.I, ja = c->a.J, ic = c->b.I,
        jc = c->b.J;
    float fa[2] = {(float)c->al[0], (float)c->al[1]};
    float fb[2] = {(float)c->be[0], (float)c->be[1]};
    double da[2] = {c->al[0], c->al[1]}, db[2] = {c->be[0], c->be[1]};
    char tr[2] = {c->trans, 0}, up[2] = {c->uplo, 0};
    int *dA = c->a.desc, *dC = c->b.desc;
    void *A = c->a.buf, *C = c->b.buf;
    switch (c->fam) {
    case F_TRAN:
        switch (c->t) {
        case 's': pstran_(&m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC); break;
        case 'd': pdtran_(&m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC); break;
        case 'c':
            if (c->conj) pctranc_(&m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC);
            else pctranu_(&m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC);
            break;
        default:
            if (c->conj) pztranc_(&m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC);
            else pztranu_(&m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC);
            break;
        }
        break;
    case F_GEADD:
        switch (c->t) {
        case 's': psgeadd_(tr, &m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC, 1); break;
        case 'd': pdgeadd_(tr, &m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC, 1); break;
        case 'c': pcgeadd_(tr, &m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC, 1); break;
        default: pzgeadd_(tr, &m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC, 1); break;
        }
        break;
    default:
        switch (c->t) {
        case 's': pstradd_(up, tr, &m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC, 1, 1); break;
        case 'd': pdtradd_(up, tr, &m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC, 1, 1); break;
        case 'c': pctradd_(up, tr, &m, &n, fa, A, &ia, &ja, dA, fb, C, &ic, &jc, dC, 1, 1); break;
        default: pztradd_(up, tr, &m, &n, da, A, &ia, &ja, dA, db, C, &ic, &jc, dC, 1, 1); break;
        }
        break;
    }
    int a0 = c->al[0] == 0 && c->al[1] == 0, a1 = c->al[0] == 1 && c->al[1] == 0;
    int am1 = c->al[0] == -1 && c->al[1] == 0;
    int b0 = c->be[0] == 0 && c->be[1] == 0, b1 = c->be[0] == 1 && c->be[1] == 0;
    int conj = c->fam == F_TRAN ? c->conj : (c->trans == 'C' || c->trans == 'c');
    int tradd_scal = c->fam == F_TRADD && ((!b0 && !b1) || (!a0 && !a1 && !conj));
    int repl = c->a.RSRC < 0 || c->a.CSRC < 0 || c->b.RSRC < 0 ||
               c->b.CSRC < 0;
    if (m > 0 && n > 0 && !(a0 && b1) &&
        ((c->fam != F_TRADD && b1 && !a0 && (is_cplx(c->t) || !(a1 || am1))) ||
         (is_cplx(c->t) && ((a0 && !b0 && !b1) || tradd_scal)) ||
         (repl && !a0 && pblas_sums(c, c->ga.P, c->ga.Q) &&
          (c->fam == F_TRADD ? is_cplx(c->t) : !a1))))
        g_calls_unsup++;
    g_calls++;
    if (m == 0 || n == 0)
        g_calls_mn0++;
    if (m == 0 || n == 0 || (a0 && b1))
        g_calls_nowork++;
}

static void call_trmr(cfg_t *c, int *desca, int *descb, void *A, void *B,
                      int gctx)
{
    int m = c->m, n = c->n, ia = c->a.I, ja = c->a.J, ib = c->b.I,
        jb = c->b.J;
    char up[2] = {c->uplo, 0}, dg[2] = {c->diag, 0};
    if (c->fortran) {
        switch (c->t) {
        case 's': pstrmr2d_(up, dg, &m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx, 1, 1); break;
        case 'd': pdtrmr2d_(up, dg, &m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx, 1, 1); break;
        case 'c': pctrmr2d_(up, dg, &m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx, 1, 1); break;
        case 'z': pztrmr2d_(up, dg, &m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx, 1, 1); break;
        default: pitrmr2d_(up, dg, &m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx, 1, 1); break;
        }
    } else {
        switch (c->t) {
        case 's': Cpstrmr2d(up, dg, m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        case 'd': Cpdtrmr2d(up, dg, m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        case 'c': Cpctrmr2d(up, dg, m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        case 'z': Cpztrmr2d(up, dg, m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        default: Cpitrmr2d(up, dg, m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        }
    }
    g_calls++;
    if (m == 0 || n == 0) {
        g_calls_mn0++;
        g_calls_nowork++;
    }
}

/* =================================================================== */
/* reference formulas                                                   */
/* =================================================================== */
/*
 * Formulas of the PBLAS kernels (PTZBLAS ?mm*add / ?mmdda*, ?tzscal, and
 * OpenBLAS ?axpy/?scal as measured on Debian 12 OpenBLAS 0.3.21), with
 * x = op(a) (conjugated for tranc / TRANS 'C'), c the old value:
 *   F_INLINE:  beta=0: alpha=1 ? x : alpha*x;  beta=1: alpha=1 ? c + x :
 *              alpha*x + c;  else alpha=1 ? x + beta*c : alpha*x + beta*c
 *              (complex products (ar*xr - ai*xi, ar*xi + ai*xr));
 *   F_ZUNIT:   ?axpy with unit strides, beta = 1:
 *              ((cr + ar*xr) - ai*xi, (ci + ar*xi) + ai*xr);
 *   F_ZSTRIDE: ?axpy with a non-unit stride, beta = 1:
 *              ((cr + ar*xr) - ai*xi, (ci + ai*xr) + ar*xi);
 *   F_TRADD:   (beta=0 ? +0 : beta=1 ? c : beta*c) + (alpha=1 ? x : alpha*x).
 * alpha = 0 (never reaches these; PB_Cplascal): beta*c.
 */
enum { F_INLINE, F_ZUNIT, F_ZSTRIDE, F_TRADDF, NFORM };

#define DEF_FORMULA(NAME, T)                                                  \
    static void NAME(int form, int cplx, const double *al, const double *be,  \
                     T xr, T xi, T cr, T ci, T *orr, T *oi)                    \
    {                                                                         \
        T ar = (T)al[0], ai = (T)al[1], br = (T)be[0], bi = (T)be[1];         \
        int a0 = ar == 0 && ai == 0, a1 = ar == 1 && ai == 0;                 \
        int b0 = br == 0 && bi == 0, b1 = br == 1 && bi == 0;                 \
        T pr, pi, qr, qi;                                                     \
        if (!cplx) {                                                          \
            ai = bi = xi = ci = 0;                                            \
        }                                                                     \
        if (a0) {                                                             \
            *orr = br * cr - bi * ci;                                         \
            *oi = br * ci + bi * cr;                                          \
            if (!cplx) {                                                      \
                *orr = br * cr;                                               \
                *oi = 0;                                                      \
            }                                                                 \
            return;                                                           \
        }                                                                     \
        if (a1) {                                                             \
            pr = xr;                                                          \
            pi = xi;                                                          \
        } else if (cplx) {                                                    \
            T t1 = ar * xr, t2 = ai * xi, t3 = ar * xi, t4 = ai * xr;         \
            pr = t1 - t2;                                                     \
            pi = t3 + t4;                                                     \
        } else {                                                              \
            pr = ar * xr;                                                     \
            pi = 0;                                                           \
        }                                                                     \
        if (cplx) {                                                           \
            T t1 = br * cr, t2 = bi * ci, t3 = br * ci, t4 = bi * cr;         \
            qr = t1 - t2;                                                     \
            qi = t3 + t4;                                                     \
        } else {                                                              \
            qr = br * cr;                                                     \
            qi = 0;                                                           \
        }                                                                     \
        if (form == F_TRADDF) {                                               \
            T zr = b0 ? (T)0 : b1 ? cr : qr, zi = b0 ? (T)0 : b1 ? ci : qi;   \
            *orr = zr + pr;                                                   \
            *oi = zi + pi;                                                    \
            return;                                                           \
        }                                                                     \
        if (b0) {                                                             \
            *orr = pr;                                                        \
            *oi = pi;                                                         \
        } else if (b1) {                                                      \
            if (cplx && !a1 && form != F_INLINE) {                            \
                T u1 = ar * xr, u2 = ai * xi, u3 = ar * xi, u4 = ai * xr;     \
                T s1 = cr + u1;                                               \
                *orr = s1 - u2;                                               \
                if (form == F_ZUNIT) {                                        \
                    T s2 = ci + u3;                                           \
                    *oi = s2 + u4;                                            \
                } else {                                                      \
                    T s2 = ci + u4;                                           \
                    *oi = s2 + u3;                                            \
                }                                                             \
            } else {                                                          \
                *orr = pr + cr;                                               \
                *oi = pi + ci;                                                \
            }                                                                 \
        } else {                                                              \
            *orr = pr + qr;                                                   \
            *oi = pi + qi;                                                    \
        }                                                                     \
    }
DEF_FORMULA(formula_d, double)
DEF_FORMULA(formula_f, float)

/* Expected element (bits) of sub(C) for formula form.  ael = A element
 * (op applied by the caller only through conj), cel = old C element. */
static void expect_elem(const cfg_t *c, int form, const unsigned char *ael,
                        const unsigned char *cel, unsigned char *out)
{
    char t = c->t;
    int cp = is_cplx(t);
    size_t es = elsize(t);
    const double *al = c->al, *be = c->be;
    int a0 = al[0] == 0 && al[1] == 0, a1 = al[0] == 1 && al[1] == 0;
    int b0 = be[0] == 0 && be[1] == 0, b1 = be[0] == 1 && be[1] == 0;
    if (a0 && b0) { /* PB_Cplapad(..., BETA, BETA): the bits of beta */
        for (int p = 0; p < nparts(t); p++) {
            double d = be[p];
            float f = (float)be[p];
            uint64_t b64;
            uint32_t b32;
            memcpy(&b64, &d, 8);
            memcpy(&b32, &f, 4);
            put_part(t, out, p, b64, b32);
        }
        return;
    }
    if (a0 && b1) { /* quick return */
        memcpy(out, cel, es);
        return;
    }
    if (a1 && b0 && form != F_TRADDF) { /* ?COPY (conj: sign flip) */
        memcpy(out, ael, es);
        if (cp && c->conj)
            out[es - 1] ^= 0x80; /* sign bit of the imaginary part */
        return;
    }
    if (is_single(t)) {
        float xr = (float)get_d(t, ael, 0), xi = cp ? (float)get_d(t, ael, 1) : 0;
        float cr = (float)get_d(t, cel, 0), ci = cp ? (float)get_d(t, cel, 1) : 0;
        float orr, oi;
        if (c->conj)
            xi = -xi;
        formula_f(form, cp, al, be, xr, xi, cr, ci, &orr, &oi);
        memcpy(out, &orr, 4);
        if (cp)
            memcpy(out + 4, &oi, 4);
    } else {
        double xr = get_d(t, ael, 0), xi = cp ? get_d(t, ael, 1) : 0;
        double cr = get_d(t, cel, 0), ci = cp ? get_d(t, cel, 1) : 0;
        double orr, oi;
        if (c->conj)
            xi = -xi;
        formula_d(form, cp, al, be, xr, xi, cr, ci, &orr, &oi);
        memcpy(out, &orr, 8);
        if (cp)
            memcpy(out + 8, &oi, 8);
    }
}

/* hard-config classification counters (diagnostic, --classify) */
enum { CL_TOTAL, CL_INLINE, CL_ZUNIT_ONLY, CL_ZSTRIDE_ONLY, CL_TRADDF,
       CL_NONE, CL_NONFINITE, CL_N };
static long g_cls[4][4][3][CL_N]; /* [fam][type sdcz][op N,T,C][counter] */

static int all_finite(char t, const unsigned char *e)
{
    for (int p = 0; p < nparts(t); p++)
        if (!isfinite(get_d(t, e, p)))
            return 0;
    return 1;
}

static int tidx(char t)
{
    return t == 's' ? 0 : t == 'd' ? 1 : t == 'c' ? 2 : 3;
}

static void classify(const cfg_t *c, const unsigned char *ael,
                     const unsigned char *cel, const unsigned char *got)
{
    int op = c->conj ? 2 : (c->fam != F_TRAN && c->notran) ? 0 : 1;
    long *cl = g_cls[c->fam][tidx(c->t)][op];
    unsigned char e[16];
    size_t es = elsize(c->t);
    cl[CL_TOTAL]++;
    if (!all_finite(c->t, ael) || !all_finite(c->t, cel)) {
        cl[CL_NONFINITE]++;
        return;
    }
    if (c->fam == F_TRADD) {
        expect_elem(c, F_TRADDF, ael, cel, e);
        if (!memcmp(e, got, es)) {
            cl[CL_TRADDF]++;
            return;
        }
    }
    expect_elem(c, F_INLINE, ael, cel, e);
    if (!memcmp(e, got, es)) {
        cl[CL_INLINE]++;
        return;
    }
    expect_elem(c, F_ZUNIT, ael, cel, e);
    if (!memcmp(e, got, es)) {
        cl[CL_ZUNIT_ONLY]++;
        return;
    }
    expect_elem(c, F_ZSTRIDE, ael, cel, e);
    if (!memcmp(e, got, es)) {
        cl[CL_ZSTRIDE_ONLY]++;
        return;
    }
    cl[CL_NONE]++;
    if (g_verbose) {
        char hg[40], he[40];
        cs_hexbytes(hg, got, es);
        expect_elem(c, F_INLINE, ael, cel, e);
        cs_hexbytes(he, e, es);
        fprintf(stderr, "[rank %d] classify cfg %d: got %s inline %s\n",
                g_rank, c->k, hg, he);
    }
}

/* =================================================================== */
/* checks                                                               */
/* =================================================================== */
static long check_unchanged(const cfg_t *c, const mat_t *a, const char *nm)
{
    size_t es = elsize(c->t);
    if (a->nel && memcmp(a->buf, a->save, a->nel * es)) {
        long bad = 0;
        for (size_t e = 0; e < a->nel; e++)
            if (memcmp(a->buf + e * es, a->save + e * es, es))
                bad++;
        FAILF("cfg %d: local %s modified (%ld elements)", c->k, nm, bad);
        return bad;
    }
    return 0;
}

/* hard configs, p?tradd, sub(C) outside the trapezoid: unchanged, or the
 * "+0" effects of PBLAS (-0 -> +0, sNaN -> qNaN) */
static int plus_zero_ok(char t, const unsigned char *got,
                        const unsigned char *old)
{
    for (int p = 0; p < nparts(t); p++) {
        if (is_single(t)) {
            uint32_t g, o;
            memcpy(&g, got + 4 * p, 4);
            memcpy(&o, old + 4 * p, 4);
            if (g == o)
                continue;
            if (o == 0x80000000u && g == 0)
                continue;
            if ((o & 0x7fc00000u) == 0x7f800000u && (o & 0x3fffffu) &&
                g == (o | 0x00400000u))
                continue;
            return 0;
        } else {
            uint64_t g, o;
            memcpy(&g, got + 8 * p, 8);
            memcpy(&o, old + 8 * p, 8);
            if (g == o)
                continue;
            if (o == 0x8000000000000000ull && g == 0)
                continue;
            if ((o & 0x7ff8000000000000ull) == 0x7ff0000000000000ull &&
                (o & 0x7ffffffffffffull) && g == (o | 0x8000000000000ull))
                continue;
            return 0;
        }
    }
    return 1;
}

/* PBLAS: check local C of this process */
static long check_pblas_c(const cfg_t *c)
{
    const mat_t *b = &c->b;
    size_t es = elsize(c->t);
    unsigned char exp[16], ael[16];
    long bad = 0;
    for (int lj = 0; lj < b->locc; lj++) {
        int gj = b->cmap[lj];
        for (int li = 0; li < b->lld; li++) {
            size_t off = ((size_t)lj * b->lld + li) * es;
            const unsigned char *got = b->buf + off, *old = b->save + off;
            int gi = -1, ok;
            const char *what = "padding";
            memcpy(exp, old, es);
            ok = !memcmp(got, exp, es);
            if (li < b->locr) {
                gi = b->rmap[li];
                int si = gi - (b->I - 1), sj = gj - (b->J - 1);
                int in_sub = si >= 0 && si < c->m && sj >= 0 && sj < c->n;
                int in_tz = in_sub;
                if (in_sub && c->fam == F_TRADD)
                    in_tz = c->upper ? si <= sj : si >= sj;
                what = in_sub ? (in_tz ? "sub(C)" : "sub(C) outside the "
                                                    "trapezoid")
                              : "C outside sub(C)";
                if (in_tz) {
                    int tr = c->fam == F_TRAN || !c->notran;
                    int ai = c->a.I - 1 + (tr ? sj : si);
                    int aj = c->a.J - 1 + (tr ? si : sj);
                    gen_elem(c->t, ael, 0, ai, aj, c->k,
                             c->hard ? VK_HARD : VK_EXACT);
                    if (c->hard) {
                        if (g_classify && !(c->al[0] == 0 && c->al[1] == 0))
                            classify(c, ael, old, got);
                        ok = 1; /* compared through the digest only */
                    } else {
                        expect_elem(c, c->fam == F_TRADD ? F_TRADDF
                                                         : F_INLINE,
                                    ael, old, exp);
                        ok = !memcmp(got, exp, es);
                    }
                } else if (in_sub && c->hard) {
                    ok = plus_zero_ok(c->t, got, old);
                }
            }
            if (!ok) {
                if (bad < 5)
                    sweep_report_elem(c->k, what, li, lj, gi, gj, got,
                                      exp, es);
                bad++;
            }
        }
    }
    if (bad > 5)
        FAILF("cfg %d: %ld bad elements of C in all", c->k, bad);
    return bad;
}

/* p?trmr2d trapezoid rule (scalapack-semantics.md 2.7) */
static int trmr_in(const cfg_t *c, int i, int j)
{
    int du = c->diag == 'U' || c->diag == 'u';
    int dn = c->diag == 'N' || c->diag == 'n';
    int mn = c->m - c->n > 0 ? c->m - c->n : 0;
    int nm = c->n - c->m > 0 ? c->n - c->m : 0;
    if (c->upper)
        return i <= j + mn - (dn ? 0 : 1);
    return i >= j - nm + (du ? 1 : 0);
}

static long check_trmr_b(const cfg_t *c)
{
    const mat_t *b = &c->b;
    const grid_t *g = &c->gb;
    size_t es = elsize(c->t);
    unsigned char exp[16];
    long bad = 0;
    if (!b->nel)
        return 0;
    if (g->myrow < 0) {
        if (memcmp(b->buf, b->save, b->nel * es)) {
            FAILF("cfg %d: dummy B array of a non-member was modified", c->k);
            bad++;
        }
        return bad;
    }
    for (int lj = 0; lj < b->locc; lj++) {
        int gj = b->cmap[lj];
        for (int li = 0; li < b->lld; li++) {
            const unsigned char *got = b->buf + ((size_t)lj * b->lld + li) * es;
            int gi = -1;
            const char *what = "padding";
            memcpy(exp, b->save + ((size_t)lj * b->lld + li) * es, es);
            if (li < b->locr) {
                gi = b->rmap[li];
                int si = gi - (b->I - 1), sj = gj - (b->J - 1);
                what = "B outside sub(B)";
                if (si >= 0 && si < c->m && sj >= 0 && sj < c->n) {
                    if (trmr_in(c, si, sj)) {
                        gen_elem(c->t, exp, 0, si + c->a.I - 1,
                                 sj + c->a.J - 1, c->k, VK_HARD);
                        what = "sub(B) trapezoid";
                    } else {
                        what = "sub(B) outside the trapezoid";
                    }
                }
            }
            if (memcmp(got, exp, es)) {
                if (bad < 5)
                    sweep_report_elem(c->k, what, li, lj, gi, gj, got,
                                      exp, es);
                bad++;
            }
        }
    }
    if (bad > 5)
        FAILF("cfg %d: %ld bad elements of B in all", c->k, bad);
    return bad;
}

/* =================================================================== */
/* running one config                                                   */
/* =================================================================== */
static void make_trmr_grids(cfg_t *c, rng_t *r)
{
    int relB, gkind; /* not reported by this sweep */
    make_redist_grids(r, &c->ga, &c->gb, &c->gg, &relB, &gkind);
}

static void make_pblas_grid(cfg_t *c, rng_t *r)
{
    int set[MAXP];
    for (int w = 0; w < g_np; w++)
        set[w] = w;
    int n = g_np;
    if (g_np > 1 && chance(r, 20)) {
        n = rrange(r, 1, g_np - 1);
        c->gsub = 1;
    }
    int method = pick_method(r);
    if (method != GM_INIT_R && method != GM_INIT_C)
        shuffle(r, set, g_np);
    grid_random(r, &c->ga, set, n, method);
    grid_alias(&c->gb, &c->ga);
    grid_alias(&c->gg, &c->ga);
}

static void replicate_sources(cfg_t *c, rng_t *r)
{
    /* at least one of the four sources is -1 */
    int *src[4] = {&c->a.RSRC, &c->a.CSRC, &c->b.RSRC, &c->b.CSRC};
    int any = 0;
    for (int s = 0; s < 4; s++)
        if (chance(r, 40)) {
            *src[s] = -1;
            any = 1;
        }
    if (!any)
        *src[rnd(r, 4)] = -1;
}

static void run_config(cfg_t *c, rng_t *r, FILE *dig)
{
    char desc[4096];
    long before = g_fail;
    size_t es = elsize(c->t);
    int garbage = 0;

    if (c->fam == F_TRMR) {
        garbage = (c->m == 0 || c->n == 0) && c->zmode != 0;
        if (!garbage)
            make_trmr_grids(c, r);
        grid_t dummy;
        grid_none(&dummy);
        draw_mat(r, &c->a, c->m, c->n, garbage ? &dummy : &c->ga, 0);
        draw_mat(r, &c->b, c->m, c->n, garbage ? &dummy : &c->gb, 0);
        if (g_verbose && g_rank == 0) {
            describe(c, desc, sizeof desc);
            fprintf(stderr, "%s\n", desc);
        }
        if (garbage) {
            int ga[9], gb[9], gctx;
            sweep_garbage_args(r, ga, gb, &gctx);
            if (c->zmode == 1)
                call_trmr(c, ga, gb, NULL, NULL, gctx);
            else
                call_trmr(c, NULL, NULL, NULL, NULL, -1);
        } else {
            setup_local(r, &c->a, &c->ga, 0, c->t, c->k, 0, VK_HARD, 0, 0, 0);
            setup_local(r, &c->b, &c->gb, 1, c->t, c->k, 0, VK_HARD, c->m,
                        c->n, VK_SENT);
            call_trmr(c, c->a.desc, c->b.desc, c->a.buf, c->b.buf,
                      c->gg.ctxt);
            check_unchanged(c, &c->a, "A");
            check_trmr_b(c);
            guard_check(c->a.buf, c->a.nel * es, c->k, "A");
            guard_check(c->b.buf, c->b.nel * es, c->k, "B");
        }
    } else {
        make_pblas_grid(c, r);
        int ar, ac;
        suba_dims(c, &ar, &ac);
        draw_mat(r, &c->a, ar, ac, &c->ga, 1);
        draw_mat(r, &c->b, c->m, c->n, &c->ga, 1);
        if (g_replicated)
            replicate_sources(c, r);
        if (g_verbose && g_rank == 0) {
            describe(c, desc, sizeof desc);
            fprintf(stderr, "%s\n", desc);
        }
        int b0 = c->be[0] == 0 && c->be[1] == 0;
        int vk_sub = c->hard ? VK_HARD : VK_EXACT;
        if (!c->hard && b0)
            vk_sub = c->fam == F_TRADD ? VK_QNANFILL : VK_NANFILL;
        setup_local(r, &c->a, &c->ga, 0, c->t, c->k, 1,
                    c->hard ? VK_HARD : VK_EXACT, 0, 0, 0);
        setup_local(r, &c->b, &c->ga, 1, c->t, c->k, 1, 0, c->m, c->n,
                    vk_sub);
        if (c->ga.myrow >= 0) {
            call_pblas(c);
            check_unchanged(c, &c->a, "A");
            check_pblas_c(c);
            guard_check(c->a.buf, c->a.nel * es, c->k, "A");
            guard_check(c->b.buf, c->b.nel * es, c->k, "C");
        }
    }

    uint64_t h = sweep_digest(c->a.nel, c->a.buf, c->b.nel, c->b.buf, es);
    fprintf(dig, "cfg %d rank %d digest %016" PRIx64 "\n", c->k, g_rank, h);
    if (g_fail != before) {
        describe(c, desc, sizeof desc);
        fprintf(stderr, "[rank %d] failing config: %s\n", g_rank, desc);
    }
    free_local(&c->a);
    free_local(&c->b);
    if (!garbage) {
        grid_free(&c->gg);
        grid_free(&c->gb);
        grid_free(&c->ga);
    }
}

static void usage(void)
{
    if (g_rank == 0)
        fprintf(stderr,
                "usage: tran_sweep --seed S --count N [--start K] "
                "[--types sdczi] [--only tgar] [--replicated] "
                "[--digest FILE] [--classify] [--hard] [--nonfinite] "
                "[--verbose]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    sweep_init("tran_sweep");

    sweep_opts_t o = SWEEP_OPTS_DEFAULT;
    const char *only = "tgar";
    for (int i = 1; i < argc; i++) {
        if (sweep_common_arg(argc, argv, &i, &o))
            continue;
        if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--replicated"))
            g_replicated = 1;
        else if (!strcmp(argv[i], "--classify"))
            g_classify = 1;
        else if (!strcmp(argv[i], "--hard"))
            g_hard = 1;
        else if (!strcmp(argv[i], "--nonfinite"))
            g_nonfinite = 1;
        else
            usage();
    }
    if (!sweep_opts_ok(&o) || !only[0] || strspn(only, "tgar") != strlen(only))
        usage();
    uint64_t seed = o.seed;
    int count = o.count, start = o.start;
    const char *types = o.types;
    g_verbose = o.verbose;

    FILE *dig = sweep_open_digest(o.digest);
    sweep_blacs_init();

    double t0 = MPI_Wtime();
    static cfg_t c;
    rng_t r;
    for (int k = start; k < start + count; k++) {
        draw_config(seed, k, types, only, &c, &r);
        run_config(&c, &r, dig);
    }
    double t1 = MPI_Wtime();
    sweep_close_digest(dig);

    long mine[5] = {g_calls, g_calls_mn0, g_fail, g_calls_unsup,
                    g_calls_nowork};
    long *all = xmalloc(sizeof(long) * 5 * (size_t)g_np);
    MPI_Gather(mine, 5, MPI_LONG, all, 5, MPI_LONG, 0, MPI_COMM_WORLD);
    long cls[4 * 4 * 3 * CL_N];
    MPI_Reduce(g_cls, cls, 4 * 4 * 3 * CL_N, MPI_LONG, MPI_SUM, 0,
               MPI_COMM_WORLD);
    long tot_fail = 0;
    if (g_rank == 0) {
        for (int p = 0; p < g_np; p++) {
            printf("calls %d %ld\n", p, all[5 * p]);
            printf("calls_mn0 %d %ld\n", p, all[5 * p + 1]);
            printf("calls_unsupported %d %ld\n", p, all[5 * p + 3]);
            printf("calls_no_work %d %ld\n", p, all[5 * p + 4]);
            tot_fail += all[5 * p + 2];
        }
        fprintf(stderr, "tran_sweep: %d procs, configs %d..%d%s, %.2f s, "
                        "%ld failed checks\n",
                g_np, start, start + count - 1,
                g_replicated ? " (replicated)" : "", t1 - t0, tot_fail);
        if (g_classify) {
            static const char tn[] = "sdcz";
            static const char opn[] = "NTC";
            for (int f = 0; f < 3; f++)
                for (int ti = 0; ti < 4; ti++)
                    for (int op = 0; op < 3; op++) {
                        const long *x = cls + ((f * 4 + ti) * 3 + op) * CL_N;
                        if (!x[CL_TOTAL])
                            continue;
                        fprintf(stderr,
                                "classify %s %c op %c: elements %ld inline %ld "
                                "zaxpy-unit-only %ld zaxpy-strided-only %ld "
                                "tradd %ld none %ld nonfinite-inputs %ld\n",
                                fam_name[f], tn[ti], opn[op], x[CL_TOTAL],
                                x[CL_INLINE], x[CL_ZUNIT_ONLY],
                                x[CL_ZSTRIDE_ONLY], x[CL_TRADDF], x[CL_NONE],
                                x[CL_NONFINITE]);
                    }
        }
    }
    free(all);
    return sweep_finish(tot_fail);
}
