/*
 * test_apps/bench/replay_call.c - rerun one logged call.
 *
 * `scripts/costa_shim_report.py replay LOG [--seq N]` turns one
 * COSTA_SHIM_VERBOSE=1 trace line into a command line for this program:
 *
 *   mpiexec.mpich -n 2 replay_call --routine pdgemr2d_ --m 200 --n 200
 *       --ia 1 --ja 1 --desca 1,0,200,200,36,36,0,0,200 --ib 1 --jb 1
 *       --descb 1,0,200,200,128,128,0,0,200 --ictxt 0 --grida 1x2R
 *       --gridb 1x2R
 *
 * It rebuilds the call with the logged shapes and calls the logged routine
 * --reps times, natively or under the shim (LD_PRELOAD); the routine is
 * called through its Fortran spelling p?xxx_ (with hidden string lengths),
 * or through the C entry Cp?xxx when the logged name starts with C.
 *
 * A plain ScaLAPACK program (never linked with the shim).
 *
 * Grids.  --grida/--gridb are the trace's "PxQ" plus R (row-major ranks),
 * C (column-major) or M (some other map, not logged: row-major is used and
 * a note says so).  Each grid is made of MPI_COMM_WORLD ranks 0..P*Q-1 in
 * that order; A's and B's grids may share processes.  When the logged
 * descriptors name the same context and the grids are equal, A and B share
 * one context.  p?gemr2d/p?trmr2d get a global context of all processes in
 * a 1 x nprocs grid (the logged ictxt is a handle of the logged run: only
 * read).  The PBLAS routines (p?tran*, p?geadd, p?tradd) need A and C on
 * one context: A's grid (gridB is only checked to have the same shape);
 * processes outside it skip the call.  A grid that is not given (the call
 * was not on the engine path) becomes the factorisation Pr x Pc of the
 * number of processes (Pr <= Pc, RSRC < Pr, CSRC < Pc) whose row 0 has
 * the logged LLD rows, else the squarest one; a note says so.
 *
 * Descriptors.  The logged M_, N_, MB, NB, RSRC, CSRC (and IMB, INB of
 * DTYPE 2, 11 integers) are kept; CTXT is the new grid's (-1 on processes
 * outside it) and LLD = max(1, local rows).  A redistribution with m or n
 * = 0 logs no descriptors: small ones are made up (ScaLAPACK reads
 * nothing then).
 *
 * Data.  A(i,j) and B(i,j) come from generating functions of the global
 * indices (small dyadic values, unique for indices < 2^20 in double, 2^9
 * in single precision, so alpha/beta sums of integers stay exact); B is
 * reset to its initial values before every call, outside the timing.
 *
 * Output (rank 0, stdout, one line):
 *   replay <routine> m <m> n <n> gridA <g> gridB <g> np <P> reps <N>
 *       median_ms <x> min_ms <x> max_ms <x> digest <16 hex> sum <x>
 * times: each call timed between barriers, max over ranks; median, min
 * and max over the repetitions.  digest: FNV-1a 64 of every rank's local
 * B (C) after a call, the ranks' digests hashed in rank order: bitwise
 * equal results give equal digests, so a native and a shim run can be
 * compared.  sum: sum of |B| (|re| + |im|) over all ranks.  The digest is
 * taken after every repetition and must not change (else exit 1).  Notes
 * go to stderr, prefixed "replay_call: note:".
 *
 * Options: the trace keys, as costa_shim_report.py prints them:
 *   --routine NAME  --uplo C --diag C --trans C --m N --n N --alpha X
 *   --ia N --ja N --desca LIST --beta X --ib N --jb N --ic N --jc N
 *   --descb LIST --descc LIST --ictxt N --grida G --gridb G
 * (alpha/beta of complex routines as "re,im"; --ib/--jb and --ic/--jc,
 * --descb and --descc are synonyms), plus
 *   --reps N   calls to time (default 5)
 *   --dirty M  before each call (untimed) every process writes M MiB of
 *              a buffer of its own: the caches and TLB an application's
 *              work between two calls leaves behind (default 0: calls back
 *              to back, everything hot)
 *   --help
 * Unknown options are errors.  Exit status: 0; 1 on a failed run; 2 on
 * bad usage (too few processes for the grids included).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* BLACS / ScaLAPACK entry points (declared here: no ScaLAPACK C header).
 * Fortran CHARACTER arguments carry hidden size_t lengths at the end;
 * matrices and scalars are void * as their type follows the routine. */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow,
                     int *mycol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);

typedef void gemr2d_f(const int *m, const int *n, const void *a,
                      const int *ia, const int *ja, const int *desca,
                      void *b, const int *ib, const int *jb,
                      const int *descb, const int *ictxt);
typedef void gemr2d_c(int m, int n, void *a, int ia, int ja, int *desca,
                      void *b, int ib, int jb, int *descb, int gcontext);
typedef void trmr2d_f(const char *uplo, const char *diag, const int *m,
                      const int *n, const void *a, const int *ia,
                      const int *ja, const int *desca, void *b,
                      const int *ib, const int *jb, const int *descb,
                      const int *ictxt, size_t luplo, size_t ldiag);
typedef void trmr2d_c(char *uplo, char *diag, int m, int n, void *a, int ia,
                      int ja, int *desca, void *b, int ib, int jb,
                      int *descb, int gcontext);
typedef void tran_f(const int *m, const int *n, const void *alpha,
                    const void *a, const int *ia, const int *ja,
                    const int *desca, const void *beta, void *c,
                    const int *ic, const int *jc, const int *descc);
typedef void geadd_f(const char *trans, const int *m, const int *n,
                     const void *alpha, const void *a, const int *ia,
                     const int *ja, const int *desca, const void *beta,
                     void *c, const int *ic, const int *jc,
                     const int *descc, size_t ltrans);
typedef void tradd_f(const char *uplo, const char *trans, const int *m,
                     const int *n, const void *alpha, const void *a,
                     const int *ia, const int *ja, const int *desca,
                     const void *beta, void *c, const int *ic,
                     const int *jc, const int *descc, size_t luplo,
                     size_t ltrans);

gemr2d_f psgemr2d_, pdgemr2d_, pcgemr2d_, pzgemr2d_, pigemr2d_;
gemr2d_c Cpsgemr2d, Cpdgemr2d, Cpcgemr2d, Cpzgemr2d, Cpigemr2d;
trmr2d_f pstrmr2d_, pdtrmr2d_, pctrmr2d_, pztrmr2d_, pitrmr2d_;
trmr2d_c Cpstrmr2d, Cpdtrmr2d, Cpctrmr2d, Cpztrmr2d, Cpitrmr2d;
tran_f pstran_, pdtran_, pctranu_, pztranu_, pctranc_, pztranc_;
geadd_f psgeadd_, pdgeadd_, pcgeadd_, pzgeadd_;
tradd_f pstradd_, pdtradd_, pctradd_, pztradd_;

enum { FAM_GEMR2D, FAM_TRMR2D, FAM_TRAN, FAM_GEADD, FAM_TRADD };

typedef struct {
    const char *name; /* lower-case base name */
    int fam;
    char type; /* s d c z i */
    gemr2d_f *gemr2d;
    gemr2d_c *cgemr2d;
    trmr2d_f *trmr2d;
    trmr2d_c *ctrmr2d;
    tran_f *tran;
    geadd_f *geadd;
    tradd_f *tradd;
} routine_t;

#define GEMR2D(t) \
    {"p" #t "gemr2d", FAM_GEMR2D, #t[0], .gemr2d = p##t##gemr2d_, \
     .cgemr2d = Cp##t##gemr2d}
#define TRMR2D(t) \
    {"p" #t "trmr2d", FAM_TRMR2D, #t[0], .trmr2d = p##t##trmr2d_, \
     .ctrmr2d = Cp##t##trmr2d}
#define TRAN(t, name) {#name, FAM_TRAN, #t[0], .tran = name##_}
#define GEADD(t) {"p" #t "geadd", FAM_GEADD, #t[0], .geadd = p##t##geadd_}
#define TRADD(t) {"p" #t "tradd", FAM_TRADD, #t[0], .tradd = p##t##tradd_}

static const routine_t routines[] = {
    GEMR2D(s), GEMR2D(d), GEMR2D(c), GEMR2D(z), GEMR2D(i),
    TRMR2D(s), TRMR2D(d), TRMR2D(c), TRMR2D(z), TRMR2D(i),
    TRAN(s, pstran), TRAN(d, pdtran), TRAN(c, pctranu), TRAN(z, pztranu),
    TRAN(c, pctranc), TRAN(z, pztranc),
    GEADD(s), GEADD(d), GEADD(c), GEADD(z),
    TRADD(s), TRADD(d), TRADD(c), TRADD(z),
};
#define NROUTINES ((int)(sizeof routines / sizeof routines[0]))

static int g_rank, g_nprocs;

/* ------------------------------------------------------------- helpers */

static void die(const char *msg)
{
    fprintf(stderr, "replay_call[%d]: %s\n", g_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void note(const char *msg)
{
    if (g_rank == 0)
        fprintf(stderr, "replay_call: note: %s\n", msg);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of memory");
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ----------------------------------------------------- block-cyclic maps */

/* Elements of a dimension of n (first block imb, then nb) on process p of
 * np, the first block on src (src -1: replicated, all of them). */
static int64_t loc_count(int64_t n, int64_t imb, int64_t nb, int src, int np,
                         int p)
{
    if (p < 0 || n <= 0)
        return 0;
    if (src < 0 || np == 1)
        return n;
    int64_t first = imb < n ? imb : n;
    int64_t rest = n - first, nblk = (rest + nb - 1) / nb;
    int dist = (p - src + np) % np;
    int64_t count = dist == 0 ? first : 0;
    /* blocks k = 1..nblk with k % np == dist */
    int64_t k0 = dist == 0 ? np : dist;
    if (nblk >= k0) {
        int64_t cnt = (nblk - k0) / np + 1, klast = k0 + (cnt - 1) * np;
        count += cnt * nb;
        if (klast == nblk)
            count -= nb - (rest - (nblk - 1) * nb);
    }
    return count;
}

/* 0-based local index -> 0-based global index. */
static int64_t l2g(int64_t l, int64_t imb, int64_t nb, int src, int np,
                   int p)
{
    if (src < 0 || np == 1)
        return l;
    int dist = (p - src + np) % np;
    int64_t k;
    if (dist == 0) {
        if (l < imb)
            return l;
        l -= imb;
        k = (l / nb + 1) * np;
    } else {
        k = dist + l / nb * np;
    }
    return imb + (k - 1) * nb + l % nb;
}

/* --------------------------------------------------------------- grids */

typedef struct {
    int p, q;
    char order;  /* R or C: the order used */
    char logged; /* R, C, M, or 0 for none (PBLAS) */
    int given;
    int ctxt, nprow, npcol, myrow, mycol, in;
} grid_t;

static int parse_grid(const char *s, grid_t *g)
{
    char *end = NULL;
    long p = strtol(s, &end, 10);
    if (end == s || *end != 'x')
        return -1;
    const char *t = end + 1;
    long q = strtol(t, &end, 10);
    if (end == t || p < 1 || q < 1 || p > 1 << 20 || q > 1 << 20)
        return -1;
    if (*end && (end[1] || !strchr("RCM", *end)))
        return -1;
    g->p = (int)p;
    g->q = (int)q;
    g->logged = *end;
    g->order = *end == 'C' ? 'C' : 'R';
    g->given = 1;
    return 0;
}

static void grid_make(grid_t *g)
{
    char row[] = "Row", col[] = "Col";
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, g->order == 'C' ? col : row, g->p, g->q);
    g->nprow = g->npcol = g->myrow = g->mycol = -1;
    if (g_rank < g->p * g->q) {
        Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
        if (g->nprow != g->p || g->npcol != g->q || g->myrow < 0 ||
            g->mycol < 0)
            die("Cblacs_gridinit gave an unexpected grid");
        g->in = 1;
    } else {
        g->ctxt = -1;
        g->in = 0;
    }
}

static void grid_str(const grid_t *g, char *buf, size_t len)
{
    if (g->logged) /* the order used: M became R */
        snprintf(buf, len, "%dx%d%c", g->p, g->q, g->order);
    else
        snprintf(buf, len, "%dx%d", g->p, g->q);
}

/* ------------------------------------------------------------- matrices */

typedef struct {
    int desc[11];
    int nd; /* 9 or 11 */
    int given;
    char type;
    size_t esz; /* bytes per element */
    int64_t locr, locc;
    int lld;
    unsigned char *data, *init;
} mat_t;

/* Index of a descriptor entry by DTYPE. */
enum { D_DTYPE = 0, D_CTXT = 1, D_M = 2, D_N = 3 };
/* MB (then NB), RSRC (then CSRC), LLD; IMB (then INB) is 4 in DTYPE 2,
 * the same as MB in DTYPE 1 */
static int d_mb(const mat_t *x) { return x->nd == 11 ? 6 : 4; }
static int d_rsrc(const mat_t *x) { return x->nd == 11 ? 8 : 6; }
static int d_lld(const mat_t *x) { return x->nd == 11 ? 10 : 8; }
static int d_imb(const mat_t *x) { return x->nd == 11 ? 4 : d_mb(x); }

static int parse_desc(const char *s, mat_t *x)
{
    int k = 0;
    const char *p = s;
    while (*p) {
        if (k == 11)
            return -1;
        char *end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v < -(1L << 30) || v > (1L << 30) * 2 - 1)
            return -1;
        x->desc[k++] = (int)v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    if (!((k == 9 && x->desc[0] == 1) || (k == 11 && x->desc[0] == 2)))
        return -1;
    x->nd = k;
    x->given = 1;
    return 0;
}

static size_t type_size(char t)
{
    switch (t) {
    case 's': return 4;
    case 'd': return 8;
    case 'c': return 8;
    case 'z': return 16;
    default: return 4; /* i */
    }
}

/* Generating functions of component k (0 re, 1 im): A positive, B
 * negative, dyadic, unique for indices below 2^20 (double) / 2^9
 * (single) / 2^14 x 2^16 (integer). */
static double gen_val(int64_t gi, int64_t gj, int k, int is_b, int single)
{
    int64_t mod = single ? 512 : 1048576;
    double v = (double)((gi % mod) * mod + gj % mod);
    return is_b ? -v - (k ? 0.75 : 0.5) : v + (k ? 0.75 : 0.25);
}

static void put_elem(unsigned char *at, char type, int64_t gi, int64_t gj,
                     int is_b)
{
    switch (type) {
    case 's': {
        float f = (float)gen_val(gi, gj, 0, is_b, 1);
        memcpy(at, &f, 4);
        break;
    }
    case 'c': {
        float f[2] = {(float)gen_val(gi, gj, 0, is_b, 1),
                      (float)gen_val(gi, gj, 1, is_b, 1)};
        memcpy(at, f, 8);
        break;
    }
    case 'd': {
        double d = gen_val(gi, gj, 0, is_b, 0);
        memcpy(at, &d, 8);
        break;
    }
    case 'z': {
        double d[2] = {gen_val(gi, gj, 0, is_b, 0),
                       gen_val(gi, gj, 1, is_b, 0)};
        memcpy(at, d, 16);
        break;
    }
    default: {
        int v = (int)((gi % 16384) * 65536 + gj % 65536 + 1);
        v = is_b ? -v : v;
        memcpy(at, &v, 4);
    }
    }
}

static double abs_elem(const unsigned char *at, char type)
{
    switch (type) {
    case 's': {
        float f;
        memcpy(&f, at, 4);
        return f < 0 ? -(double)f : (double)f;
    }
    case 'c': {
        float f[2];
        memcpy(f, at, 8);
        return (f[0] < 0 ? -(double)f[0] : (double)f[0]) +
               (f[1] < 0 ? -(double)f[1] : (double)f[1]);
    }
    case 'd': {
        double d;
        memcpy(&d, at, 8);
        return d < 0 ? -d : d;
    }
    case 'z': {
        double d[2];
        memcpy(d, at, 16);
        return (d[0] < 0 ? -d[0] : d[0]) + (d[1] < 0 ? -d[1] : d[1]);
    }
    default: {
        int v;
        memcpy(&v, at, 4);
        return v < 0 ? -(double)v : (double)v;
    }
    }
}

/* Descriptor, local sizes and storage of x on grid g. */
static void mat_init(mat_t *x, const grid_t *g, char type, int is_b)
{
    int mb = d_mb(x), rs = d_rsrc(x), imb = d_imb(x);
    int64_t M = x->desc[D_M], N = x->desc[D_N];
    x->type = type;
    x->esz = type_size(type);
    x->locr = loc_count(M, x->desc[imb], x->desc[mb], x->desc[rs], g->p,
                        g->in ? g->myrow : -1);
    x->locc = loc_count(N, x->desc[imb + 1], x->desc[mb + 1],
                        x->desc[rs + 1], g->q, g->in ? g->mycol : -1);
    if (x->locr > INT32_MAX)
        die("local rows do not fit an int");
    x->lld = x->locr > 1 ? (int)x->locr : 1;
    x->desc[D_CTXT] = g->in ? g->ctxt : -1;
    x->desc[d_lld(x)] = x->lld;
    size_t bytes = (size_t)x->lld * (size_t)x->locc * x->esz;
    x->data = xmalloc(bytes);
    x->init = xmalloc(bytes);
    memset(x->data, 0, bytes);
    for (int64_t lj = 0; lj < x->locc; lj++) {
        int64_t gj = l2g(lj, x->desc[imb + 1], x->desc[mb + 1],
                         x->desc[rs + 1], g->q, g->mycol);
        for (int64_t li = 0; li < x->locr; li++) {
            int64_t gi = l2g(li, x->desc[imb], x->desc[mb], x->desc[rs],
                             g->p, g->myrow);
            put_elem(x->data + ((size_t)lj * (size_t)x->lld + (size_t)li) *
                                   x->esz,
                     type, gi, gj, is_b);
        }
    }
    memcpy(x->init, x->data, bytes);
}

static void mat_reset(mat_t *x)
{
    memcpy(x->data, x->init, (size_t)x->lld * (size_t)x->locc * x->esz);
}

/* FNV-1a 64 of the local elements (column by column); sum of |x|. */
static uint64_t mat_digest(const mat_t *x, double *sum)
{
    uint64_t h = 14695981039346656037ULL;
    double s = 0;
    for (int64_t lj = 0; lj < x->locc; lj++) {
        const unsigned char *col =
            x->data + (size_t)lj * (size_t)x->lld * x->esz;
        size_t bytes = (size_t)x->locr * x->esz;
        for (size_t k = 0; k < bytes; k++) {
            h ^= col[k];
            h *= 1099511628211ULL;
        }
        for (int64_t li = 0; li < x->locr; li++)
            s += abs_elem(col + (size_t)li * x->esz, x->type);
    }
    *sum = s;
    return h;
}

/* A made-up descriptor for a redistribution with m or n = 0 (nothing
 * read): the sub-matrix's rows and columns, blocks of 64, source 0. */
static void mat_default(mat_t *x, int i0, int j0, int m, int n)
{
    int M = i0 - 1 + m, N = j0 - 1 + n;
    int d[9] = {1, -1, M > 0 ? M : 0, N > 0 ? N : 0, 64, 64, 0, 0, 1};
    memcpy(x->desc, d, sizeof d);
    x->nd = 9;
}

/* The factorisation of np for a grid not logged (see the header). */
static void grid_default(grid_t *g, const mat_t *x, int np, const char *who)
{
    int mb = d_mb(x), rs = d_rsrc(x), imb = d_imb(x);
    int best = 0, best_lld = 0;
    for (int p = 1; p <= np; p++) {
        int q = np / p;
        if (np % p || p > q || x->desc[rs] >= p || x->desc[rs + 1] >= q)
            continue;
        int64_t r0 = loc_count(x->desc[D_M], x->desc[imb], x->desc[mb],
                               x->desc[rs], p, 0);
        int lld_ok = x->given && (r0 > 1 ? r0 : 1) == x->desc[d_lld(x)];
        if (!best || (lld_ok && !best_lld) || lld_ok == best_lld) {
            best = p;
            best_lld = lld_ok;
        }
    }
    if (!best) /* no factorisation fits RSRC/CSRC: 1 x np */
        best = 1;
    g->p = best;
    g->q = np / best;
    g->order = 'R';
    g->logged = 0;
    char msg[160];
    snprintf(msg, sizeof msg,
             "%s not in the trace line (call not on the engine path): "
             "using a row-major %dx%d grid", who, g->p, g->q);
    note(msg);
}

/* --------------------------------------------------------------- calls */

typedef struct {
    const routine_t *r;
    int centry;
    char name[40];
    char uplo[2], diag[2], trans[2];
    int m, n, ia, ja, ib, jb;
    double alpha[2], beta[2]; /* re, im */
    int ictxt;                /* global context of the REDIST routines */
} call_t;

/* alpha/beta in the routine's type. */
static void scalar(const call_t *c, const double v[2], unsigned char out[16])
{
    if (c->r->type == 's' || c->r->type == 'c') {
        float f[2] = {(float)v[0], (float)v[1]};
        memcpy(out, f, sizeof f);
    } else {
        memcpy(out, v, 2 * sizeof(double));
    }
}

static void do_call(const call_t *c, mat_t *a, mat_t *b)
{
    const routine_t *r = c->r;
    unsigned char al[16], be[16];
    scalar(c, c->alpha, al);
    scalar(c, c->beta, be);
    char uplo[2] = {c->uplo[0], 0}, diag[2] = {c->diag[0], 0};
    switch (r->fam) {
    case FAM_GEMR2D:
        if (c->centry)
            r->cgemr2d(c->m, c->n, a->data, c->ia, c->ja, a->desc, b->data,
                       c->ib, c->jb, b->desc, c->ictxt);
        else
            r->gemr2d(&c->m, &c->n, a->data, &c->ia, &c->ja, a->desc,
                      b->data, &c->ib, &c->jb, b->desc, &c->ictxt);
        break;
    case FAM_TRMR2D:
        if (c->centry)
            r->ctrmr2d(uplo, diag, c->m, c->n, a->data, c->ia, c->ja,
                       a->desc, b->data, c->ib, c->jb, b->desc, c->ictxt);
        else
            r->trmr2d(uplo, diag, &c->m, &c->n, a->data, &c->ia, &c->ja,
                      a->desc, b->data, &c->ib, &c->jb, b->desc, &c->ictxt,
                      1, 1);
        break;
    case FAM_TRAN:
        r->tran(&c->m, &c->n, al, a->data, &c->ia, &c->ja, a->desc, be,
                b->data, &c->ib, &c->jb, b->desc);
        break;
    case FAM_GEADD:
        r->geadd(c->trans, &c->m, &c->n, al, a->data, &c->ia, &c->ja,
                 a->desc, be, b->data, &c->ib, &c->jb, b->desc, 1);
        break;
    default:
        r->tradd(c->uplo, c->trans, &c->m, &c->n, al, a->data, &c->ia,
                 &c->ja, a->desc, be, b->data, &c->ib, &c->jb, b->desc, 1,
                 1);
    }
}

/* ------------------------------------------------------------- options */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec -n P replay_call --routine NAME --m M --n N\n"
            "         [--uplo C] [--diag C] [--trans C] [--alpha X] "
            "[--beta X]\n"
            "         --ia I --ja J [--desca LIST] --ib I --jb J | --ic I "
            "--jc J\n"
            "         [--descb LIST | --descc LIST] [--ictxt N] "
            "[--grida PxQ[RCM]]\n"
            "         [--gridb PxQ[RCM]] [--reps N] [--dirty MIB]\n"
            "The arguments `costa_shim_report.py replay LOG` prints; see "
            "the header of\ntest_apps/bench/replay_call.c.\n");
}

static int parse_int(const char *s, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < -2147483647L || v > 2147483647L)
        return -1;
    *out = (int)v;
    return 0;
}

/* "x" or "re,im" */
static int parse_scalar(const char *s, double out[2])
{
    char *end = NULL;
    out[0] = strtod(s, &end);
    out[1] = 0;
    if (end == s)
        return -1;
    if (*end == ',') {
        const char *t = end + 1;
        out[1] = strtod(t, &end);
        if (end == t)
            return -1;
    }
    return *end ? -1 : 0;
}

static int find_routine(const char *logged, call_t *c)
{
    const char *s = logged;
    c->centry = s[0] == 'C';
    if (c->centry)
        s++;
    char base[32];
    size_t n = 0;
    for (; s[n] && s[n] != '_' && n + 1 < sizeof base; n++)
        base[n] = (char)tolower((unsigned char)s[n]);
    base[n] = 0;
    for (const char *t = s + n; *t; t++)
        if (*t != '_')
            return -1;
    if (n == 0 || strlen(s) - n > 2)
        return -1;
    for (int k = 0; k < NROUTINES; k++) {
        if (strcmp(routines[k].name, base) == 0) {
            c->r = &routines[k];
            if (c->centry && routines[k].fam != FAM_GEMR2D &&
                routines[k].fam != FAM_TRMR2D)
                return -1; /* no C entry in ScaLAPACK */
            snprintf(c->name, sizeof c->name, "%s%s%s", c->centry ? "C" : "",
                     base, c->centry ? "" : "_");
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&g_rank, &g_nprocs);

    call_t c;
    memset(&c, 0, sizeof c);
    c.alpha[0] = 1;
    mat_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    grid_t ga, gb;
    memset(&ga, 0, sizeof ga);
    memset(&gb, 0, sizeof gb);
    int reps = 5, rc = 0, help = 0, logged_ictxt = 0, dirty_mib = 0;
    int have_m = 0, have_n = 0, have_ia = 0, have_ja = 0, have_ib = 0,
        have_jb = 0, have_alpha = 0, have_beta = 0;
    const char *routine = NULL, *bad = NULL;

    for (int i = 1; i < argc && !rc; i++) {
        char key[32];
        const char *o = argv[i], *v = NULL;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            help = 1;
            break;
        }
        if (strncmp(o, "--", 2) != 0) {
            bad = o;
            rc = 2;
            break;
        }
        const char *eq = strchr(o, '=');
        size_t kl = eq ? (size_t)(eq - o) : strlen(o);
        if (kl - 2 >= sizeof key) {
            bad = o;
            rc = 2;
            break;
        }
        memcpy(key, o + 2, kl - 2);
        key[kl - 2] = 0;
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        if (!v) {
            bad = o;
            rc = 2;
            break;
        }
        int e = 0;
        if (!strcmp(key, "routine")) {
            routine = v;
        } else if (!strcmp(key, "uplo") || !strcmp(key, "diag") ||
                   !strcmp(key, "trans")) {
            char *dst = key[0] == 'u' ? c.uplo : key[0] == 'd' ? c.diag
                                                                : c.trans;
            e = strlen(v) < 1;
            dst[0] = v[0];
        } else if (!strcmp(key, "m")) {
            e = parse_int(v, &c.m) || c.m < 0;
            have_m = 1;
        } else if (!strcmp(key, "n")) {
            e = parse_int(v, &c.n) || c.n < 0;
            have_n = 1;
        } else if (!strcmp(key, "ia")) {
            e = parse_int(v, &c.ia);
            have_ia = 1;
        } else if (!strcmp(key, "ja")) {
            e = parse_int(v, &c.ja);
            have_ja = 1;
        } else if (!strcmp(key, "ib") || !strcmp(key, "ic")) {
            e = parse_int(v, &c.ib);
            have_ib = 1;
        } else if (!strcmp(key, "jb") || !strcmp(key, "jc")) {
            e = parse_int(v, &c.jb);
            have_jb = 1;
        } else if (!strcmp(key, "alpha")) {
            e = parse_scalar(v, c.alpha);
            have_alpha = 1;
        } else if (!strcmp(key, "beta")) {
            e = parse_scalar(v, c.beta);
            have_beta = 1;
        } else if (!strcmp(key, "desca")) {
            e = parse_desc(v, &a);
        } else if (!strcmp(key, "descb") || !strcmp(key, "descc")) {
            e = parse_desc(v, &b);
        } else if (!strcmp(key, "ictxt")) {
            e = parse_int(v, &logged_ictxt);
        } else if (!strcmp(key, "grida")) {
            e = parse_grid(v, &ga);
        } else if (!strcmp(key, "gridb")) {
            e = parse_grid(v, &gb);
        } else if (!strcmp(key, "reps")) {
            e = parse_int(v, &reps) || reps < 1;
        } else if (!strcmp(key, "dirty")) {
            e = parse_int(v, &dirty_mib) || dirty_mib < 0;
        } else {
            e = 1;
        }
        if (e) {
            bad = o;
            rc = 2;
        }
    }
    if (help) {
        if (g_rank == 0)
            usage(stdout);
        MPI_Finalize();
        return 0;
    }
    char why[200] = "";
    if (!rc && !routine)
        snprintf(why, sizeof why, "--routine is required");
    else if (!rc && find_routine(routine, &c))
        snprintf(why, sizeof why, "unknown routine %s", routine);
    else if (!rc && !(have_m && have_n && have_ia && have_ja && have_ib &&
                      have_jb))
        snprintf(why, sizeof why, "--m --n --ia --ja --ib/ic --jb/jc are "
                                  "required");
    if (!rc && !why[0]) {
        int fam = c.r->fam, redist = fam == FAM_GEMR2D || fam == FAM_TRMR2D;
        if ((fam == FAM_TRMR2D || fam == FAM_TRADD) && !c.uplo[0])
            snprintf(why, sizeof why, "%s needs --uplo", c.name);
        else if (fam == FAM_TRMR2D && !c.diag[0])
            snprintf(why, sizeof why, "%s needs --diag", c.name);
        else if ((fam == FAM_GEADD || fam == FAM_TRADD) && !c.trans[0])
            snprintf(why, sizeof why, "%s needs --trans", c.name);
        else if (!redist && !(have_alpha && have_beta))
            snprintf(why, sizeof why, "%s needs --alpha and --beta", c.name);
        else if (redist && (c.m > 0 && c.n > 0) && !(a.given && b.given))
            snprintf(why, sizeof why, "%s needs --desca and --descb", c.name);
        else if (!redist && !(a.given && b.given))
            snprintf(why, sizeof why, "%s needs --desca and --descc", c.name);
        else if (redist && ((a.given && a.nd != 9) || (b.given && b.nd != 9)))
            snprintf(why, sizeof why,
                     "%s takes DTYPE 1 descriptors only", c.name);
        else if (c.ia < 1 || c.ja < 1 || c.ib < 1 || c.jb < 1)
            snprintf(why, sizeof why, "ia, ja, ib/ic, jb/jc must be >= 1");
    }
    if (!rc && why[0])
        rc = 2;
    if (rc) {
        if (g_rank == 0) {
            if (bad)
                fprintf(stderr, "replay_call: bad option or value: %s\n",
                        bad);
            if (why[0])
                fprintf(stderr, "replay_call: %s\n", why);
            usage(stderr);
        }
        MPI_Finalize();
        return rc;
    }

    int fam = c.r->fam, redist = fam == FAM_GEMR2D || fam == FAM_TRMR2D;
    int logged_ctxt_a = a.given ? a.desc[D_CTXT] : 0;
    int logged_ctxt_b = b.given ? b.desc[D_CTXT] : 1;
    if (!a.given)
        mat_default(&a, c.ia, c.ja, c.m, c.n);
    if (!b.given)
        mat_default(&b, c.ib, c.jb, c.m, c.n);

    /* grids */
    if (!ga.given)
        grid_default(&ga, &a, g_nprocs, "gridA");
    if (redist && !gb.given)
        grid_default(&gb, &b, g_nprocs, "gridB");
    if (!redist) {
        if (gb.given && (gb.p != ga.p || gb.q != ga.q))
            note("gridB differs from gridA: C is put on A's grid (the "
                 "PBLAS routines need one context)");
        gb = ga;
    }
    if (ga.logged == 'M' || (redist && gb.logged == 'M'))
        note("a grid is mapped (M): the map is not logged, using "
             "row-major ranks");
    int need = ga.p * ga.q > gb.p * gb.q ? ga.p * ga.q : gb.p * gb.q;
    if (need > g_nprocs) {
        if (g_rank == 0)
            fprintf(stderr, "replay_call: the grids need %d processes, got "
                    "%d\n", need, g_nprocs);
        MPI_Finalize();
        return 2;
    }
    grid_make(&ga);
    int share = !redist || (logged_ctxt_a == logged_ctxt_b &&
                            ga.p == gb.p && ga.q == gb.q &&
                            ga.order == gb.order);
    if (share) {
        int logged = gb.logged;
        gb = ga;
        gb.logged = logged;
    } else {
        grid_make(&gb);
    }
    grid_t gg;
    memset(&gg, 0, sizeof gg);
    if (redist) {
        gg.p = 1;
        gg.q = g_nprocs;
        gg.order = 'R';
        grid_make(&gg);
        c.ictxt = gg.ctxt;
        (void)logged_ictxt; /* a handle of the logged run */
    }
    mat_init(&a, &ga, c.r->type, 0);
    mat_init(&b, &gb, c.r->type, 1);
    int calls = redist || ga.in; /* PBLAS: outside A's grid, no call */

    /* the timed repetitions */
    double *times = xmalloc((size_t)reps * sizeof(double));
    size_t dirty_bytes = (size_t)dirty_mib << 20;
    unsigned char *dirty = dirty_bytes ? xmalloc(dirty_bytes) : NULL;
    uint64_t first = 0;
    double lsum = 0;
    int varies = 0;
    for (int r = 0; r < reps; r++) {
        mat_reset(&b);
        if (dirty)
            memset(dirty, r & 0xff, dirty_bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (calls)
            do_call(&c, &a, &b);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &times[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        uint64_t h = mat_digest(&b, &lsum);
        if (r == 0)
            first = h;
        else if (h != first)
            varies = 1;
    }
    int any_varies = 0;
    MPI_Allreduce(&varies, &any_varies, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    double gsum = 0;
    MPI_Allreduce(&lsum, &gsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    uint64_t *all = g_rank == 0
                        ? xmalloc((size_t)g_nprocs * sizeof(uint64_t))
                        : NULL;
    MPI_Gather(&first, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    if (g_rank == 0) {
        uint64_t h = 14695981039346656037ULL;
        for (int p = 0; p < g_nprocs; p++)
            for (int k = 0; k < 8; k++) {
                h ^= (all[p] >> (8 * k)) & 0xff;
                h *= 1099511628211ULL;
            }
        double tmin = times[0], tmax = times[0];
        for (int r = 1; r < reps; r++) {
            tmin = times[r] < tmin ? times[r] : tmin;
            tmax = times[r] > tmax ? times[r] : tmax;
        }
        char sa[32], sb[32];
        grid_str(&ga, sa, sizeof sa);
        grid_str(&gb, sb, sizeof sb);
        printf("replay %s m %d n %d gridA %s gridB %s np %d reps %d "
               "median_ms %.3f min_ms %.3f max_ms %.3f digest %016llx "
               "sum %.17g\n",
               c.name, c.m, c.n, sa, sb, g_nprocs, reps,
               median(times, reps) * 1e3, tmin * 1e3, tmax * 1e3,
               (unsigned long long)h, gsum);
        fflush(stdout);
        if (any_varies)
            fprintf(stderr, "replay_call: the result differs between "
                            "repetitions of the same call\n");
        free(all);
    }
    free(dirty);
    free(times);
    free(a.data);
    free(a.init);
    free(b.data);
    free(b.init);
    if (redist)
        Cblacs_gridexit(gg.ctxt);
    if (!share && gb.in)
        Cblacs_gridexit(gb.ctxt);
    if (ga.in)
        Cblacs_gridexit(ga.ctxt);
    Cblacs_exit(1);
    MPI_Finalize();
    return any_varies ? 1 : 0;
}
