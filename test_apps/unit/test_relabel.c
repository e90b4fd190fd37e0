/*
 * test_apps/unit/test_relabel.c - unit tests of process relabeling
 * (relabel/) and of the volume matrix it consumes (no MPI calls).
 *
 * 1. Small matrices, P <= 8, many random families (uniform, few distinct
 *    values i.e. ties, sparse with zeros, all zero, huge entries): the
 *    exact solver's kept volume equals the brute-force maximum over all
 *    P! permutations; the greedy equals a sort-everything reference
 *    greedy; greedy, greedy + swaps and cs_rl_solve() return
 *    permutations, never beat the optimum, keep at least half of it, and
 *    swaps and cs_rl_solve() never do worse than their start / identity.
 * 2. Medium matrices (P up to 160): the same checks, with the exact
 *    optimum from an independent reference (the textbook O(P^3) Hungarian
 *    algorithm with potentials).
 * 3. Known cases: a permuted diagonal (exact and greedy find crossing 0
 *    and the permutation), the tight factor-2 greedy case, identity kept
 *    when it is optimal, P = 1, argument and overflow errors.
 * 4. cs_eng_volume_matrix() on random pairs of block-cyclic layouts (grid
 *    orders, rank maps, first blocks, sources, sub-matrix offsets, element
 *    sizes) against a brute-force element walk; and a layout that differs
 *    from its target only by a rank permutation relabels to crossing 0.
 * 5. The FNV-1a hashes (relabel/hash.c): cs_rl_hash_ints() keeps the
 *    values it had before both widths shared one step, cs_rl_hash_str32()
 *    gives the shape id docs/report-format.md shows.
 * Deterministic (fixed seed; argv[1] scales the number of cases).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"
#include "engine/engine.h"
#include "relabel/relabel.h"

/* ------------------------------------------------------------ random */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

/* uniform in [lo, hi] */
static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

static void random_perm(int n, int *p)
{
    for (int i = 0; i < n; i++) {
        p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rr(0, i), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* Fill a P x P matrix from one of several families. */
enum { FAM_UNIFORM, FAM_TIES, FAM_SPARSE, FAM_ZERO, FAM_HUGE, FAM_BLOCKS,
       NFAM };

static void random_matrix(int P, int fam, int64_t *v)
{
    for (int64_t k = 0; k < (int64_t)P * P; k++) {
        switch (fam) {
        case FAM_UNIFORM:
            v[k] = rr(0, 1000000);
            break;
        case FAM_TIES:
            v[k] = rr(0, 3);
            break;
        case FAM_SPARSE:
            v[k] = rr(0, 9) < 7 ? 0 : rr(1, 50);
            break;
        case FAM_ZERO:
            v[k] = 0;
            break;
        case FAM_HUGE:
            /* large, but the total of P * P entries fits in int64 and the
             * largest stays under the exact solver's INT64_MAX / 16 */
            v[k] = rr(0, INT64_MAX / 16 / ((int64_t)P * P));
            break;
        default:
            /* few equal values per row, like a block-cyclic volume */
            v[k] = rr(0, 3) == 0 ? 4096 * rr(1, 2) : 0;
            break;
        }
    }
}

/* ------------------------------------------------------------ helpers */

static int64_t kept_of(int P, const int64_t *v, const int *perm)
{
    int64_t s = 0;
    for (int j = 0; j < P; j++) {
        s += v[(int64_t)perm[j] * P + j];
    }
    return s;
}

static int64_t total_of(int P, const int64_t *v)
{
    int64_t s = 0;
    for (int64_t k = 0; k < (int64_t)P * P; k++) {
        s += v[k];
    }
    return s;
}

/* Maximum kept volume over all permutations (Heap's algorithm). */
static int64_t brute_max_kept(int P, const int64_t *v)
{
    int perm[8], c[8];
    for (int i = 0; i < P; i++) {
        perm[i] = i;
        c[i] = 0;
    }
    int64_t best = kept_of(P, v, perm);
    int i = 1;
    while (i < P) {
        if (c[i] < i) {
            int k = (i % 2 == 0) ? 0 : c[i];
            int t = perm[k];
            perm[k] = perm[i];
            perm[i] = t;
            int64_t s = kept_of(P, v, perm);
            if (s > best) {
                best = s;
            }
            c[i]++;
            i = 1;
        } else {
            c[i] = 0;
            i++;
        }
    }
    return best;
}

/*
 * Reference: the textbook Hungarian algorithm with potentials (1-based,
 * O(P^3)) minimising -v; returns the maximum kept volume.
 */
static int64_t hungarian_max_kept(int P, const int64_t *v)
{
    int n = P;
    int64_t *u = calloc((size_t)n + 1, sizeof(int64_t));
    int64_t *w = calloc((size_t)n + 1, sizeof(int64_t));
    int64_t *minv = malloc(((size_t)n + 1) * sizeof(int64_t));
    int *p = calloc((size_t)n + 1, sizeof(int));
    int *way = calloc((size_t)n + 1, sizeof(int));
    char *used = malloc((size_t)n + 1);
    CS_TEST_ASSERT(u && w && minv && p && way && used);
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INT64_MAX;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            int64_t delta = INT64_MAX;
            for (int j = 1; j <= n; j++) {
                if (!used[j]) {
                    int64_t cur = -v[(int64_t)(i0 - 1) * P + (j - 1)] -
                                  u[i0] - w[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for (int j = 0; j <= n; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    w[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    int64_t kept = 0;
    for (int j = 1; j <= n; j++) {
        kept += v[(int64_t)(p[j] - 1) * P + (j - 1)];
    }
    free(used);
    free(way);
    free(p);
    free(minv);
    free(w);
    free(u);
    return kept;
}

/* Reference greedy: all nonzero entries sorted by (volume descending,
 * row, column), taken when row and column are free; leftovers paired with
 * themselves where both are free, then in increasing order. */
typedef struct {
    int64_t v;
    int i, j;
} entry_t;

static int entry_cmp(const void *pa, const void *pb)
{
    const entry_t *a = pa, *b = pb;
    if (a->v != b->v) {
        return a->v > b->v ? -1 : 1;
    }
    if (a->i != b->i) {
        return a->i < b->i ? -1 : 1;
    }
    return (a->j > b->j) - (a->j < b->j);
}

static void greedy_ref(int P, const int64_t *v, int *perm)
{
    entry_t *e = malloc((size_t)P * (size_t)P * sizeof(entry_t));
    char *rowused = calloc((size_t)P, 1);
    CS_TEST_ASSERT(e && rowused);
    size_t n = 0;
    for (int i = 0; i < P; i++) {
        for (int j = 0; j < P; j++) {
            if (v[(int64_t)i * P + j] > 0) {
                e[n].v = v[(int64_t)i * P + j];
                e[n].i = i;
                e[n].j = j;
                n++;
            }
        }
    }
    qsort(e, n, sizeof(entry_t), entry_cmp);
    for (int j = 0; j < P; j++) {
        perm[j] = -1;
    }
    for (size_t k = 0; k < n; k++) {
        if (!rowused[e[k].i] && perm[e[k].j] < 0) {
            rowused[e[k].i] = 1;
            perm[e[k].j] = e[k].i;
        }
    }
    for (int j = 0; j < P; j++) {
        if (perm[j] < 0 && !rowused[j]) {
            perm[j] = j;
            rowused[j] = 1;
        }
    }
    for (int j = 0, i = 0; j < P; j++) {
        if (perm[j] < 0) {
            while (rowused[i]) {
                i++;
            }
            perm[j] = i;
            rowused[i] = 1;
        }
    }
    free(rowused);
    free(e);
}

/*
 * Everything every solver must satisfy on v, given the optimum kept
 * volume opt.
 */
static void check_solvers(int P, const int64_t *v, int64_t opt)
{
    int *pe = malloc((size_t)P * sizeof(int));
    int *pg = malloc((size_t)P * sizeof(int));
    int *pi = malloc((size_t)P * sizeof(int));
    int *ps = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(pe && pg && pi && ps);
    int64_t total = total_of(P, v);
    int64_t trace = 0;
    for (int j = 0; j < P; j++) {
        trace += v[(int64_t)j * P + j];
    }

    CS_TEST_EQ(cs_rl_solve_exact(P, v, pe), CS_RL_OK);
    CS_TEST_ASSERT(cs_rl_perm_check(P, pe));
    CS_TEST_EQ(kept_of(P, v, pe), opt);
    CS_TEST_EQ(cs_rl_crossing_volume(P, v, pe), total - opt);
    CS_TEST_EQ(cs_rl_crossing_volume(P, v, NULL), total - trace);

    CS_TEST_EQ(cs_rl_solve_greedy(P, v, 0, pg), CS_RL_OK);
    CS_TEST_ASSERT(cs_rl_perm_check(P, pg));
    greedy_ref(P, v, pi);
    CS_TEST_ASSERT(memcmp(pg, pi, (size_t)P * sizeof(int)) == 0);
    int64_t kg = kept_of(P, v, pg);
    CS_TEST_ASSERT(kg <= opt);
    CS_TEST_ASSERT(2 * kg >= opt);

    memcpy(pi, pg, (size_t)P * sizeof(int));
    int passes = -1;
    int64_t swaps = -1;
    CS_TEST_EQ(cs_rl_improve(P, v, 1000, 0.0, pi, &passes, &swaps),
               CS_RL_OK);
    CS_TEST_ASSERT(cs_rl_perm_check(P, pi));
    int64_t ki = kept_of(P, v, pi);
    CS_TEST_ASSERT(ki >= kg && ki <= opt);
    CS_TEST_ASSERT(passes >= 1 && swaps >= 0);
    CS_TEST_ASSERT((swaps == 0) == (ki == kg));
    /* the improve argument of the greedy solver does the same */
    CS_TEST_EQ(cs_rl_solve_greedy(P, v, 1000, ps), CS_RL_OK);
    CS_TEST_ASSERT(memcmp(ps, pi, (size_t)P * sizeof(int)) == 0);

    cs_rl_result_t r;
    CS_TEST_EQ(cs_rl_solve(P, v, 0.0, ps, &r), CS_RL_OK);
    CS_TEST_ASSERT(cs_rl_perm_check(P, ps));
    CS_TEST_EQ(r.P, P);
    CS_TEST_EQ(r.total, total);
    CS_TEST_EQ(r.identity_volume, total - trace);
    CS_TEST_EQ(r.greedy_volume, total - kg);
    CS_TEST_EQ(r.volume, total - kept_of(P, v, ps));
    CS_TEST_ASSERT(r.volume <= r.identity_volume);
    if (P <= CS_RL_EXACT_MAX_P) {
        CS_TEST_EQ(r.exact_volume, total - opt);
        CS_TEST_EQ(r.volume, total - opt);
        CS_TEST_EQ(r.improved_volume, -1);
    }
    if (r.method == CS_RL_METHOD_IDENTITY) {
        for (int j = 0; j < P; j++) {
            CS_TEST_EQ(ps[j], j);
        }
        CS_TEST_EQ(trace, total - r.volume);
    } else {
        CS_TEST_ASSERT(r.volume < r.identity_volume);
    }
    free(ps);
    free(pi);
    free(pg);
    free(pe);
}

/* ------------------------------------------------------------ 1, 2 */

static void test_brute_force(int scale)
{
    int64_t v[64];
    int n = 0;
    for (int P = 1; P <= 8; P++) {
        int cases = (P <= 6 ? 60 : 25) * scale;
        for (int c = 0; c < cases; c++) {
            random_matrix(P, c % NFAM, v);
            check_solvers(P, v, brute_max_kept(P, v));
            n++;
        }
    }
    printf("brute force: %d matrices, P 1..8, exact == optimum\n", n);
}

static void test_reference(int scale)
{
    int n = 0;
    for (int c = 0; c < 12 * scale; c++) {
        int P = (int)rr(9, c % 4 == 0 ? 160 : 60);
        int64_t *v = malloc((size_t)P * (size_t)P * sizeof(int64_t));
        CS_TEST_ASSERT(v);
        random_matrix(P, c % NFAM, v);
        check_solvers(P, v, hungarian_max_kept(P, v));
        free(v);
        n++;
    }
    printf("reference Hungarian: %d matrices, P 9..160, equal optimum\n", n);
}

/* ------------------------------------------------------------ 3 */

static void test_known(void)
{
    /* a permuted diagonal: V[pi(j)][j] = d_j */
    for (int c = 0; c < 20; c++) {
        int P = (int)rr(2, 300);
        int64_t *v = calloc((size_t)P * (size_t)P, sizeof(int64_t));
        int *pi = malloc((size_t)P * sizeof(int));
        int *pe = malloc((size_t)P * sizeof(int));
        CS_TEST_ASSERT(v && pi && pe);
        random_perm(P, pi);
        for (int j = 0; j < P; j++) {
            v[(int64_t)pi[j] * P + j] = rr(1, 1 << 20);
        }
        CS_TEST_EQ(cs_rl_solve_exact(P, v, pe), CS_RL_OK);
        CS_TEST_EQ(cs_rl_crossing_volume(P, v, pe), 0);
        CS_TEST_ASSERT(memcmp(pe, pi, (size_t)P * sizeof(int)) == 0);
        CS_TEST_EQ(cs_rl_solve_greedy(P, v, 0, pe), CS_RL_OK);
        CS_TEST_EQ(cs_rl_crossing_volume(P, v, pe), 0);
        cs_rl_result_t r;
        CS_TEST_EQ(cs_rl_solve(P, v, 0.0, pe, &r), CS_RL_OK);
        CS_TEST_EQ(r.volume, 0);
        free(pe);
        free(pi);
        free(v);
    }

    /* greedy's tight case: it takes (0,0) = 2 first and keeps 2 of 4 */
    int64_t t2[4] = {2, 2, 2, 0};
    int p[4];
    CS_TEST_EQ(cs_rl_solve_greedy(2, t2, 0, p), CS_RL_OK);
    CS_TEST_EQ(p[0], 0);
    CS_TEST_EQ(cs_rl_crossing_volume(2, t2, p), 4);
    CS_TEST_EQ(cs_rl_solve_greedy(2, t2, 1, p), CS_RL_OK);
    CS_TEST_EQ(cs_rl_crossing_volume(2, t2, p), 2);
    CS_TEST_EQ(cs_rl_solve_exact(2, t2, p), CS_RL_OK);
    CS_TEST_EQ(cs_rl_crossing_volume(2, t2, p), 2);

    /* the identity is returned when it is optimal, even with ties */
    int64_t id[9] = {5, 5, 0, 5, 5, 0, 0, 0, 7};
    cs_rl_result_t r;
    CS_TEST_EQ(cs_rl_solve(3, id, 0.0, p, &r), CS_RL_OK);
    CS_TEST_EQ(r.method, CS_RL_METHOD_IDENTITY);
    CS_TEST_ASSERT(p[0] == 0 && p[1] == 1 && p[2] == 2);
    int64_t z[9] = {0};
    CS_TEST_EQ(cs_rl_solve(3, z, 0.0, p, &r), CS_RL_OK);
    CS_TEST_EQ(r.method, CS_RL_METHOD_IDENTITY);
    CS_TEST_EQ(r.volume, 0);
    CS_TEST_EQ(cs_rl_solve_greedy(3, z, 0, p), CS_RL_OK);
    CS_TEST_ASSERT(p[0] == 0 && p[1] == 1 && p[2] == 2);

    /* P = 1 */
    int64_t one = 42;
    CS_TEST_EQ(cs_rl_solve_exact(1, &one, p), CS_RL_OK);
    CS_TEST_EQ(p[0], 0);
    CS_TEST_EQ(cs_rl_solve(1, &one, 0.0, p, &r), CS_RL_OK);
    CS_TEST_EQ(r.volume, 0);

    /* errors; outputs untouched */
    int64_t neg[4] = {1, -1, 0, 0};
    p[0] = p[1] = -7;
    CS_TEST_EQ(cs_rl_solve_exact(0, t2, p), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_solve_exact(2, NULL, p), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_solve_exact(2, t2, NULL), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_solve_exact(2, neg, p), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_solve_greedy(2, neg, 0, p), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_solve(CS_RL_MAX_P + 1, t2, 0.0, p, &r),
               CS_RL_ERR_INVALID);
    CS_TEST_ASSERT(p[0] == -7 && p[1] == -7);
    int64_t ovf[4] = {INT64_MAX / 2, INT64_MAX / 2, INT64_MAX / 2, 0};
    CS_TEST_EQ(cs_rl_vol_check(2, ovf, NULL, NULL), CS_RL_ERR_LIMIT);
    CS_TEST_EQ(cs_rl_solve(2, ovf, 0.0, p, &r), CS_RL_ERR_LIMIT);
    CS_TEST_EQ(cs_rl_crossing_volume(2, ovf, NULL), -1);
    CS_TEST_ASSERT(p[0] == -7 && p[1] == -7);
    /* an entry too large for the exact solver: cs_rl_solve falls back */
    int64_t big[4] = {1, INT64_MAX / 4, 2, 0};
    CS_TEST_EQ(cs_rl_solve_exact(2, big, p), CS_RL_ERR_LIMIT);
    CS_TEST_EQ(cs_rl_solve(2, big, 0.0, p, &r), CS_RL_OK);
    CS_TEST_EQ(r.exact_volume, -1);
    CS_TEST_EQ(r.method, CS_RL_METHOD_GREEDY);
    CS_TEST_ASSERT(p[0] == 1 && p[1] == 0);
    CS_TEST_EQ(r.volume, 1);
    int bad[2] = {1, 1};
    CS_TEST_ASSERT(!cs_rl_perm_check(2, bad));
    CS_TEST_EQ(cs_rl_crossing_volume(2, t2, bad), -1);
    CS_TEST_EQ(cs_rl_improve(2, t2, 1, 0.0, bad, NULL, NULL),
               CS_RL_ERR_INVALID);
    CS_TEST_ASSERT(strcmp(cs_rl_status_str(CS_RL_OK), "ok") == 0);
    CS_TEST_ASSERT(cs_rl_status_str((cs_rl_status_t)-99) != NULL);
    /* the codes match the engine's of the same meaning */
    CS_TEST_EQ(CS_RL_ERR_NOMEM, CS_ERR_NOMEM);
    CS_TEST_EQ(CS_RL_ERR_INVALID, CS_ERR_BAD_DESC);
    CS_TEST_EQ(CS_RL_ERR_LIMIT, CS_ERR_LIMIT);

    /* a time budget stops the improvement but keeps a valid result */
    int P = 400;
    int64_t *v = malloc((size_t)P * (size_t)P * sizeof(int64_t));
    int *pp = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(v && pp);
    random_matrix(P, FAM_UNIFORM, v);
    for (int j = 0; j < P; j++) {
        pp[j] = j;
    }
    int passes;
    int64_t swaps;
    CS_TEST_EQ(cs_rl_improve(P, v, 1000, 1e-9, pp, &passes, &swaps),
               CS_RL_OK);
    CS_TEST_ASSERT(cs_rl_perm_check(P, pp));
    CS_TEST_EQ(passes, 1);
    CS_TEST_ASSERT(kept_of(P, v, pp) >= total_of(P, v) -
                   cs_rl_crossing_volume(P, v, NULL));
    free(pp);
    free(v);

    /* above the exact threshold: greedy + swaps, never worse than the
     * identity, and the identity itself when it is best */
    P = CS_RL_EXACT_MAX_P + 1;
    v = calloc((size_t)P * (size_t)P, sizeof(int64_t));
    pp = malloc((size_t)P * sizeof(int));
    int *pi = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(v && pp && pi);
    random_perm(P, pi);
    for (int j = 0; j < P; j++) {
        v[(int64_t)pi[j] * P + j] = rr(1, 1000);
        for (int k = 0; k < 3; k++) {
            v[rr(0, (int64_t)P * P - 1)] += rr(0, 1500);
        }
    }
    CS_TEST_EQ(cs_rl_solve(P, v, 0.0, pp, &r), CS_RL_OK);
    CS_TEST_ASSERT(cs_rl_perm_check(P, pp));
    CS_TEST_EQ(r.method, CS_RL_METHOD_GREEDY);
    CS_TEST_EQ(r.exact_volume, -1);
    CS_TEST_EQ(r.volume, r.improved_volume);
    CS_TEST_EQ(r.volume, cs_rl_crossing_volume(P, v, pp));
    CS_TEST_ASSERT(r.volume <= r.greedy_volume);
    CS_TEST_ASSERT(r.volume < r.identity_volume);
    CS_TEST_ASSERT(r.improve_passes >= 1);
    int *pe = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(pe);
    CS_TEST_EQ(cs_rl_solve_exact(P, v, pe), CS_RL_OK);
    int64_t kopt = total_of(P, v) - cs_rl_crossing_volume(P, v, pe);
    CS_TEST_ASSERT(r.volume >= total_of(P, v) - kopt);
    CS_TEST_ASSERT(2 * (r.total - r.volume) >= kopt);
    /* a dominant diagonal: the identity is optimal and returned */
    for (int j = 0; j < P; j++) {
        v[(int64_t)j * P + j] = 1000000;
    }
    CS_TEST_EQ(cs_rl_solve(P, v, 0.0, pp, &r), CS_RL_OK);
    CS_TEST_EQ(r.method, CS_RL_METHOD_IDENTITY);
    for (int j = 0; j < P; j++) {
        CS_TEST_EQ(pp[j], j);
    }
    free(pe);
    free(pi);
    free(pp);
    free(v);
    printf("known cases: permuted diagonal, factor 2, identity, errors, "
           "P > threshold\n");
}

/* ------------------------------------------------------------ 4 */

typedef struct {
    int nprow, npcol;
    int64_t mb, nb, fr, fc;
    int rsrc, csrc;
    int grid[64];
    cs_eng_layout_t lay;
} blk_layout_t;

/* A random block-cyclic layout of an M x N matrix on a grid of at most
 * nranks processes, ranks numbered in row or column order and then
 * optionally mapped through a random permutation of [0, nranks). */
static void random_layout(int64_t M, int64_t N, int nranks, blk_layout_t *l)
{
    do {
        l->nprow = (int)rr(1, 4);
        l->npcol = (int)rr(1, 4);
    } while (l->nprow * l->npcol > nranks);
    l->mb = rr(1, 7);
    l->nb = rr(1, 7);
    l->fr = rr(0, 1) ? l->mb : rr(1, l->mb);
    l->fc = rr(0, 1) ? l->nb : rr(1, l->nb);
    l->rsrc = (int)rr(0, l->nprow - 1);
    l->csrc = (int)rr(0, l->npcol - 1);
    int map[64];
    int mapped = rr(0, 2) == 0;
    random_perm(nranks, map);
    int colorder = (int)rr(0, 1);
    for (int r = 0; r < l->nprow; r++) {
        for (int c = 0; c < l->npcol; c++) {
            int rank = colorder ? c * l->nprow + r : r * l->npcol + c;
            l->grid[r * l->npcol + c] = mapped ? map[rank] : rank;
        }
    }
    memset(&l->lay, 0, sizeof(l->lay));
    CS_TEST_EQ(cs_eng_dist_cyclic(M, l->mb, l->fr, l->rsrc, l->nprow,
                                  &l->lay.rows), CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(N, l->nb, l->fc, l->csrc, l->npcol,
                                  &l->lay.cols), CS_OK);
    l->lay.nprow = l->nprow;
    l->lay.npcol = l->npcol;
    l->lay.grid = l->grid;
    l->lay.ld = 1;
    l->lay.order = CS_ENG_COLMAJOR;
}

static int coord_of(int64_t g, int64_t nb, int64_t first, int src, int np)
{
    int64_t k = g < first ? 0 : 1 + (g - first) / nb;
    return (int)((src + k) % np);
}

static int owner_of(const blk_layout_t *l, int64_t r, int64_t c)
{
    int pr = coord_of(r, l->mb, l->fr, l->rsrc, l->nprow);
    int pc = coord_of(c, l->nb, l->fc, l->csrc, l->npcol);
    return l->grid[pr * l->npcol + pc];
}

static void test_volume_matrix(int scale)
{
    int n = 0;
    for (int c = 0; c < 150 * scale; c++) {
        int nranks = (int)rr(1, 16);
        int64_t MA = rr(1, 60), NA = rr(1, 60), MB = rr(1, 60),
                NB = rr(1, 60);
        cs_eng_op_t op = {0};
        op.m = rr(0, MA < MB ? MA : MB);
        op.n = rr(0, NA < NB ? NA : NB);
        op.ia = rr(0, MA - op.m);
        op.ja = rr(0, NA - op.n);
        op.ib = rr(0, MB - op.m);
        op.jb = rr(0, NB - op.n);
        static const size_t esz[] = {1, 4, 8, 16};
        op.esize = esz[rr(0, 3)];
        blk_layout_t a, b;
        random_layout(MA, NA, nranks, &a);
        random_layout(MB, NB, nranks, &b);
        int64_t vol[256], ref[256];
        memset(vol, 0, sizeof(vol));
        memset(ref, 0, sizeof(ref));
        CS_TEST_EQ(cs_eng_volume_matrix(&a.lay, &b.lay, &op, nranks, vol),
                   CS_OK);
        for (int64_t i = 0; i < op.m; i++) {
            for (int64_t j = 0; j < op.n; j++) {
                int src = owner_of(&a, op.ia + i, op.ja + j);
                int dst = owner_of(&b, op.ib + i, op.jb + j);
                ref[src * nranks + dst] += (int64_t)op.esize;
            }
        }
        for (int k = 0; k < nranks * nranks; k++) {
            CS_TEST_CHECK(vol[k] == ref[k],
                          "case %d: vol[%d][%d] %lld, brute force %lld", c,
                          k / nranks, k % nranks, (long long)vol[k],
                          (long long)ref[k]);
        }
        CS_TEST_EQ(total_of(nranks, vol), op.m * op.n * (int64_t)op.esize);
        n++;
    }

    /* B = A up to a rank permutation: exact relabeling moves nothing */
    for (int c = 0; c < 20; c++) {
        int nranks = (int)rr(2, 16);
        int64_t M = rr(1, 80), N = rr(1, 80);
        blk_layout_t a, b;
        random_layout(M, N, nranks, &a);
        b = a;
        int map[64];
        random_perm(nranks, map);
        for (int k = 0; k < a.nprow * a.npcol; k++) {
            b.grid[k] = map[a.grid[k]];
        }
        b.lay.grid = b.grid;
        cs_eng_op_t op = {.m = M, .n = N, .esize = 8};
        int64_t vol[256] = {0};
        int perm[16];
        CS_TEST_EQ(cs_eng_volume_matrix(&a.lay, &b.lay, &op, nranks, vol),
                   CS_OK);
        CS_TEST_EQ(cs_rl_solve_exact(nranks, vol, perm), CS_RL_OK);
        CS_TEST_EQ(cs_rl_crossing_volume(nranks, vol, perm), 0);
        /* position map[r] is played by process r where r holds data */
        for (int k = 0; k < a.nprow * a.npcol; k++) {
            int r = a.grid[k];
            if (cs_eng_dist_local_size(&a.lay.rows, k / a.npcol) > 0 &&
                cs_eng_dist_local_size(&a.lay.cols, k % a.npcol) > 0) {
                CS_TEST_EQ(perm[map[r]], r);
            }
        }
    }
    printf("volume matrix: %d layout pairs equal the element count\n", n);
}

static void test_hash(void)
{
    const int v[4] = {1, 2, 3, -1};
    /* values of the 64-bit hash as main a17f5ef computed them */
    CS_TEST_ASSERT(cs_rl_hash_ints(0, v, 4) == 13824646531565323969ULL);
    CS_TEST_ASSERT(cs_rl_hash_ints(12345, v, 3) == 14994480024941292956ULL);
    CS_TEST_ASSERT(cs_rl_hash_ints(0, v, 0) == 14695981039346656037ULL);
    CS_TEST_ASSERT(cs_rl_hash_str32("") == 2166136261u);
    CS_TEST_ASSERT(cs_rl_hash_str32("pdgemr2d_ 200 200 36 36 1x2R 128 128 "
                                    "1x2R") == 3708883709u);
    printf("hash: FNV-1a 64 and 32 bits as documented\n");
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1) {
        scale = 1;
    }
    test_brute_force(scale);
    test_reference(scale);
    test_known();
    test_volume_matrix(scale);
    test_hash();
    return cs_test_done();
}
