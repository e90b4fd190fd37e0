/*
 * test_apps/unit/test_relabel_nodes.c - unit tests of relabeling on
 * machines of several nodes and of sparse volume matrices
 * (relabel/relabel_nodes.h, engine cs_eng_volume_each); no MPI calls.
 *
 * 1. Sparse matrices: repeated pairs are added up, zeros dropped, entries
 *    sorted; from a dense matrix and back.
 * 2. The split of a relabeling (kept, inside a node, across nodes) against
 *    a direct count; kept + in_node + across = total; cost.
 * 3. Small random cases (P <= 7, random node maps and weights, sparse and
 *    dense matrices, ties): the exact node-aware solver's cost equals the
 *    brute-force minimum over all P! permutations; the two-level heuristic
 *    and the plain solvers return permutations never worse than the
 *    identity (the heuristic: in weighted cost; plain: in kept bytes), and
 *    cs_rl_solve_sparse keeps as much as the exact plain optimum up to
 *    CS_RL_EXACT_MAX_P.
 * 4. Larger cases with node-to-node traffic (P 8-2048, 4-64 processes
 *    per node, each process sending mostly to the positions of another
 *    node): the two-level heuristic is never worse than the identity nor
 *    the plain relabeling in weighted cost, and sends fewer bytes across
 *    nodes than the identity.
 * 5. A case where plain relabeling (the identity, uniquely) leaves 28
 *    bytes across nodes: the exact node-aware optimum leaves 11, the
 *    two-level heuristic fewer than 28.
 * 6. cs_eng_volume_each() adds up to cs_eng_volume_matrix() on random
 *    block-cyclic layout pairs.
 * 7. A node-aware plan (relabel.h) of case 5 as two grids: the planned
 *    map of the target leaves 11 bytes across nodes (28 with the
 *    application's); its file (version 3, nodes/net_app/net_plan lines)
 *    parses back to the same maps; the node lines are refused in a
 *    version 2 file and optional in version 3.
 * Deterministic (fixed seed; argv[1] scales the number of cases).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"
#include "engine/engine.h"
#include "relabel/relabel_nodes.h"

static uint64_t rng_state = 0x243F6A8885A308D3ULL;

static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

/* Cost of perm on a dense matrix, counted directly. */
static int64_t cost_dense(int P, const int64_t *vol, const int *node,
                          int64_t wr, int64_t wn, const int *perm)
{
    int64_t c = 0;
    for (int i = 0; i < P; i++) {
        for (int j = 0; j < P; j++) {
            int k = perm ? perm[j] : j;
            int64_t w = k == i ? 0 : node[k] == node[i] ? wr : wn;
            c += w * vol[(int64_t)i * P + j];
        }
    }
    return c;
}

static int64_t kept_dense(int P, const int64_t *vol, const int *perm)
{
    int64_t k = 0;
    for (int j = 0; j < P; j++) {
        k += vol[(int64_t)(perm ? perm[j] : j) * P + j];
    }
    return k;
}

/* Brute force over all permutations (Heap's algorithm): the least cost. */
static int64_t best_cost(int P, const int64_t *vol, const int *node,
                         int64_t wr, int64_t wn)
{
    int p[8], c[8] = {0};
    for (int i = 0; i < P; i++) {
        p[i] = i;
    }
    int64_t best = cost_dense(P, vol, node, wr, wn, p);
    int i = 0;
    while (i < P) {
        if (c[i] < i) {
            int j = i % 2 ? c[i] : 0, t = p[j];
            p[j] = p[i];
            p[i] = t;
            int64_t x = cost_dense(P, vol, node, wr, wn, p);
            best = x < best ? x : best;
            c[i]++;
            i = 0;
        } else {
            c[i++] = 0;
        }
    }
    return best;
}

static void random_case(int P, int64_t *vol, int *node, int *nnodes_p)
{
    int kind = (int)rr(0, 3);
    for (int64_t e = 0; e < (int64_t)P * P; e++) {
        vol[e] = kind == 0   ? rr(0, 100)
                 : kind == 1 ? (rr(0, 2) ? 0 : rr(1, 4) * 10)
                 : kind == 2 ? rr(0, 1)
                             : (rr(0, 3) ? 0 : rr(1, 1000000));
    }
    int nn = (int)rr(1, P);
    for (int i = 0; i < P; i++) {
        node[i] = (int)rr(0, nn - 1);
    }
    /* nodes numbered without gaps */
    int map[8], n = 0;
    for (int k = 0; k < 8; k++) {
        map[k] = -1;
    }
    for (int i = 0; i < P; i++) {
        if (map[node[i]] < 0) {
            map[node[i]] = n++;
        }
        node[i] = map[node[i]];
    }
    *nnodes_p = n;
}

static void test_sparse(void)
{
    cs_rl_sparse_t v;
    CS_TEST_EQ(cs_rl_sparse_init(&v, 4), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_add(&v, 3, 1, 5), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_add(&v, 0, 2, 7), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_add(&v, 3, 1, 6), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_add(&v, 1, 1, 0), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_add(&v, 4, 1, 1), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_sparse_add(&v, 1, 1, -1), CS_RL_ERR_INVALID);
    CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
    CS_TEST_EQ(v.nnz, 2);
    CS_TEST_ASSERT(v.src[0] == 0 && v.dst[0] == 2 && v.bytes[0] == 7);
    CS_TEST_ASSERT(v.src[1] == 3 && v.dst[1] == 1 && v.bytes[1] == 11);
    cs_rl_sparse_free(&v);
    int64_t d[9] = {1, 0, 2, 0, 0, 0, 3, 4, 0};
    CS_TEST_EQ(cs_rl_sparse_from_dense(3, d, &v), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
    CS_TEST_EQ(v.nnz, 4);
    CS_TEST_ASSERT(v.src[3] == 2 && v.dst[3] == 1 && v.bytes[3] == 4);
    cs_rl_sparse_free(&v);
}

static void test_small(int scale)
{
    int64_t vol[64];
    int node[8], pn[8], pt[8], ps[8], pe[8];
    for (int c = 0; c < 300 * scale; c++) {
        int P = (int)rr(1, 7), nn = 1;
        random_case(P, vol, node, &nn);
        int64_t wr = rr(0, 3), wn = wr + rr(0, 5);
        cs_rl_sparse_t v;
        CS_TEST_EQ(cs_rl_sparse_from_dense(P, vol, &v), CS_RL_OK);
        CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
        cs_rl_machine_t m = {P, nn, node, wr, wn};
        /* the split against a direct count */
        cs_rl_split_t s;
        CS_TEST_EQ(cs_rl_split(&v, &m, NULL, &s), CS_RL_OK);
        int64_t total = 0;
        for (int e = 0; e < P * P; e++) {
            total += vol[e];
        }
        CS_TEST_EQ(s.kept + s.in_node + s.across, total);
        CS_TEST_EQ(s.kept, kept_dense(P, vol, NULL));
        CS_TEST_EQ(s.cost, cost_dense(P, vol, node, wr, wn, NULL));
        /* exact node-aware = brute force */
        int method = -1;
        CS_TEST_EQ(cs_rl_solve_nodes(&v, &m, 1, pn, &method), CS_RL_OK);
        CS_TEST_ASSERT(cs_rl_perm_check(P, pn));
        int64_t best = best_cost(P, vol, node, wr, wn);
        int64_t got = cost_dense(P, vol, node, wr, wn, pn);
        CS_TEST_CHECK(got == best, "case %d P %d: node-aware cost %lld, "
                      "optimum %lld", c, P, (long long)got, (long long)best);
        CS_TEST_ASSERT(method == CS_RL_NODES_EXACT ||
                       method == CS_RL_NODES_IDENTITY);
        /* two-level: a permutation, never worse than the identity */
        CS_TEST_EQ(cs_rl_solve_nodes(&v, &m, 0, pt, &method), CS_RL_OK);
        CS_TEST_ASSERT(cs_rl_perm_check(P, pt));
        CS_TEST_ASSERT(cost_dense(P, vol, node, wr, wn, pt) <= s.cost);
        CS_TEST_ASSERT(method == CS_RL_NODES_TWO_LEVEL ||
                       method == CS_RL_NODES_IDENTITY);
        /* plain on the entries: the exact optimum of kept bytes */
        CS_TEST_EQ(cs_rl_solve_sparse(&v, ps), CS_RL_OK);
        CS_TEST_EQ(cs_rl_solve_exact(P, vol, pe), CS_RL_OK);
        CS_TEST_EQ(kept_dense(P, vol, ps), kept_dense(P, vol, pe));
        cs_rl_sparse_free(&v);
    }
}

/* A matrix with node structure: processes send mostly to positions of
 * one node, whose processes are scattered over other nodes. */
static void test_large(int scale)
{
    for (int c = 0; c < 4 * scale; c++) {
        int rpn = 1 << (int)rr(2, 6), nn = (int)rr(2, 32);
        int P = rpn * nn;
        int *node = malloc((size_t)P * sizeof(*node));
        int *p1 = malloc((size_t)P * sizeof(*p1));
        int *p2 = malloc((size_t)P * sizeof(*p2));
        CS_TEST_ASSERT(node && p1 && p2);
        for (int i = 0; i < P; i++) {
            node[i] = i / rpn;
        }
        cs_rl_sparse_t v;
        CS_TEST_EQ(cs_rl_sparse_init(&v, P), CS_RL_OK);
        int shift = (int)rr(1, nn - 1);
        for (int i = 0; i < P; i++) {
            /* most to the next nodes' positions, a little to itself */
            for (int t = 0; t < 4; t++) {
                int j = (int)((i + shift * rpn + rr(0, rpn - 1)) % P);
                CS_TEST_EQ(cs_rl_sparse_add(&v, i, j, rr(50, 100)),
                           CS_RL_OK);
            }
            CS_TEST_EQ(cs_rl_sparse_add(&v, i, i, rr(0, 60)), CS_RL_OK);
        }
        CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
        cs_rl_machine_t m = {P, nn, node, 1, 8};
        cs_rl_split_t id, s1, s2;
        CS_TEST_EQ(cs_rl_split(&v, &m, NULL, &id), CS_RL_OK);
        CS_TEST_EQ(cs_rl_solve_nodes(&v, &m, 0, p1, NULL), CS_RL_OK);
        CS_TEST_ASSERT(cs_rl_perm_check(P, p1));
        CS_TEST_EQ(cs_rl_split(&v, &m, p1, &s1), CS_RL_OK);
        CS_TEST_EQ(cs_rl_solve_sparse(&v, p2), CS_RL_OK);
        CS_TEST_EQ(cs_rl_split(&v, &m, p2, &s2), CS_RL_OK);
        CS_TEST_ASSERT(s1.cost <= id.cost && s1.cost <= s2.cost);
        /* the traffic is node to node: the node-aware relabeling takes
         * part of it off the network */
        CS_TEST_CHECK(s1.across < id.across,
                      "case %d P %d: across nodes identity %lld plain %lld "
                      "node-aware %lld",
                      c, P, (long long)id.across, (long long)s2.across,
                      (long long)s1.across);
        cs_rl_sparse_free(&v);
        free(node);
        free(p1);
        free(p2);
    }
}

/* Plain relabeling keeps as much as it can and leaves the rest across
 * nodes; weighing nodes moves it inside them. */
static void test_constructed(void)
{
    /* 4 processes, nodes {0, 1} and {2, 3} (found by a search over small
     * matrices: the plain optimum is the identity, unique, and leaves 28
     * bytes across nodes; weighing a byte across nodes 10 times one inside
     * leaves 11) */
    enum { P = 4 };
    static const int64_t vol[P * P] = {8, 0, 0,  10, /* process 0 */
                                       0, 8, 0,  5,  /* 1 */
                                       0, 8, 10, 0,  /* 2 */
                                       0, 5, 0,  3}; /* 3 */
    int node[P] = {0, 0, 1, 1}, pp[P], pn[P], pt[P];
    cs_rl_sparse_t v;
    CS_TEST_EQ(cs_rl_sparse_from_dense(P, vol, &v), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
    cs_rl_machine_t m = {P, 2, node, 1, 10};
    cs_rl_split_t sp, sn, st, id;
    CS_TEST_EQ(cs_rl_solve_sparse(&v, pp), CS_RL_OK);
    CS_TEST_EQ(cs_rl_solve_nodes(&v, &m, 1, pn, NULL), CS_RL_OK);
    CS_TEST_EQ(cs_rl_solve_nodes(&v, &m, 0, pt, NULL), CS_RL_OK);
    CS_TEST_EQ(cs_rl_split(&v, &m, NULL, &id), CS_RL_OK);
    CS_TEST_EQ(cs_rl_split(&v, &m, pp, &sp), CS_RL_OK);
    CS_TEST_EQ(cs_rl_split(&v, &m, pn, &sn), CS_RL_OK);
    CS_TEST_EQ(cs_rl_split(&v, &m, pt, &st), CS_RL_OK);
    /* the identity keeps the most (29) and is plain's choice */
    CS_TEST_EQ(sp.kept, 29);
    CS_TEST_EQ(sp.across, 28);
    CS_TEST_EQ(sn.across, 11);
    CS_TEST_CHECK(st.across < sp.across,
                  "across nodes: plain %lld, exact %lld, two-level %lld",
                  (long long)sp.across, (long long)sn.across,
                  (long long)st.across);
    CS_TEST_ASSERT(sn.cost <= st.cost && st.cost < sp.cost);
    cs_rl_sparse_free(&v);
}

/* Parse plan text; returns the status, *pl filled on success. */
static cs_rl_status_t parse_text(const char *text, cs_rl_plan_file_t *pl,
                                 char *why, size_t len)
{
    FILE *f = tmpfile();
    CS_TEST_ASSERT(f != NULL);
    fputs(text, f);
    rewind(f);
    why[0] = '\0';
    cs_rl_status_t st = cs_rl_plan_parse(f, 16, pl, why, len);
    fclose(f);
    return st;
}

/* text with the first occurrence of from replaced by to (caller frees) */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CS_TEST_ASSERT(at != NULL);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    CS_TEST_ASSERT(out != NULL);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to,
             at + strlen(from));
    return out;
}

static void test_plan_file(void)
{
    enum { P = 4 };
    static int64_t vol[P * P] = {8, 0, 0,  10, 0, 8, 0,  5,
                                 0, 8, 10, 0,  0, 5, 0,  3};
    static const int ident[P] = {0, 1, 2, 3};
    cs_rl_problem_t pb = {.world = 1, .nworld = P};
    pb.g = calloc(2, sizeof(*pb.g));
    pb.pr = calloc(1, sizeof(*pb.pr));
    pb.node = malloc(P * sizeof(int));
    CS_TEST_ASSERT(pb.g && pb.pr && pb.node);
    for (int i = 0; i < P; i++) {
        pb.node[i] = i / 2;
    }
    pb.nnodes = 2;
    pb.w_rank = 1;
    pb.w_node = 10;
    /* grid A (stamp 1) and grid B (stamp 2), both 4 x 1 over ranks 0-3 */
    CS_TEST_EQ(cs_rl_problem_add_grid(&pb, 1, 0, P, 1, 'R', ident, NULL),
               CS_RL_OK);
    CS_TEST_EQ(cs_rl_problem_add_grid(&pb, 2, 0, P, 1, 'R', ident, NULL),
               CS_RL_OK);
    pb.pr[0] = (cs_rl_pair_t){.sa = 1, .oa = 0, .sb = 2, .ob = 0,
                              .pa = P, .pb = P, .calls = 1, .v = vol};
    pb.npairs = 1;
    pb.calls_seen = 1;
    pb.cross_total = 57 - 29; /* all bytes but the diagonal */
    cs_rl_problem_order(&pb);
    CS_TEST_EQ(pb.incomplete, 0);
    cs_rl_plan_t plan;
    CS_TEST_EQ(cs_rl_plan_solve(&pb, &plan), CS_RL_OK);
    CS_TEST_EQ(plan.net_app, 28);
    CS_TEST_EQ(plan.net_plan, 11);

    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    CS_TEST_ASSERT(f != NULL);
    cs_rl_plan_print(f, &pb, &plan, "./test");
    fclose(f);
    CS_TEST_ASSERT(strstr(text, "costa_shim_relabel_plan 3\n") != NULL);
    CS_TEST_ASSERT(strstr(text, "\nnodes 2\n") != NULL);
    CS_TEST_ASSERT(strstr(text, "\nnet_app 28\n") != NULL);
    CS_TEST_ASSERT(strstr(text, "\nnet_plan 11\n") != NULL);

    cs_rl_plan_file_t pl;
    char why[256];
    CS_TEST_CHECK(parse_text(text, &pl, why, sizeof(why)) == CS_RL_OK,
                  "plan rejected: %s", why);
    CS_TEST_EQ(pl.nprocs, P);
    CS_TEST_EQ(pl.ngrids, 2);
    CS_TEST_EQ(pl.world, 1);
    for (int g = 0; g < 2; g++) {
        CS_TEST_ASSERT(memcmp(pl.g[g].app, ident, sizeof(ident)) == 0);
        CS_TEST_ASSERT(memcmp(pl.g[g].planned, plan.map[g],
                              sizeof(ident)) == 0);
    }
    /* the first grid keeps its map, the target is relabeled */
    CS_TEST_ASSERT(memcmp(pl.g[0].planned, ident, sizeof(ident)) == 0);
    CS_TEST_ASSERT(memcmp(pl.g[1].planned, ident, sizeof(ident)) != 0);
    cs_rl_plan_file_free(&pl);

    /* version 2 knows no node lines */
    char *v2 = replaced(text, "costa_shim_relabel_plan 3",
                        "costa_shim_relabel_plan 2");
    CS_TEST_EQ(parse_text(v2, &pl, why, sizeof(why)), CS_RL_ERR_INVALID);
    CS_TEST_CHECK(strstr(why, "nodes") != NULL, "why: %s", why);
    /* ... and is read without them */
    char *v2a = replaced(v2, "\nnodes 2\n", "\n");
    char *v2b = replaced(v2a, "\nnet_app 28\n", "\n");
    char *v2c = replaced(v2b, "\nnet_plan 11\n", "\n");
    CS_TEST_CHECK(parse_text(v2c, &pl, why, sizeof(why)) == CS_RL_OK,
                  "version 2 plan rejected: %s", why);
    cs_rl_plan_file_free(&pl);
    /* a version 3 plan without node lines (one node) is accepted */
    char *v3 = replaced(v2c, "costa_shim_relabel_plan 2",
                        "costa_shim_relabel_plan 3");
    CS_TEST_CHECK(parse_text(v3, &pl, why, sizeof(why)) == CS_RL_OK,
                  "version 3 plan without nodes rejected: %s", why);
    cs_rl_plan_file_free(&pl);
    /* a bad node count is refused */
    char *bad = replaced(text, "\nnodes 2\n", "\nnodes two\n");
    CS_TEST_EQ(parse_text(bad, &pl, why, sizeof(why)), CS_RL_ERR_INVALID);
    free(bad);
    free(v3);
    free(v2c);
    free(v2b);
    free(v2a);
    free(v2);
    free(text);
    cs_rl_plan_free(&plan);
    cs_rl_problem_free(&pb);
}

/* cs_eng_volume_each adds up to cs_eng_volume_matrix. */
typedef struct {
    int P;
    int64_t *vol;
} acc_t;

static int acc(void *ctx, int src, int dst, int64_t bytes)
{
    acc_t *a = ctx;
    a->vol[(int64_t)src * a->P + dst] += bytes;
    return 0;
}

static void test_volume_each(int scale)
{
    for (int c = 0; c < 50 * scale; c++) {
        int pr = (int)rr(1, 4), pc = (int)rr(1, 4), P = pr * pc;
        int grid_a[16], grid_b[16];
        for (int i = 0; i < P; i++) {
            grid_a[i] = i;
            grid_b[i] = i;
        }
        for (int i = P - 1; i > 0; i--) { /* B's ranks in random order */
            int j = (int)rr(0, i), t = grid_b[i];
            grid_b[i] = grid_b[j];
            grid_b[j] = t;
        }
        int64_t n = rr(1, 60), m = rr(1, 60);
        int64_t nb[4] = {rr(1, 9), rr(1, 9), rr(1, 9), rr(1, 9)};
        cs_eng_layout_t a = {.nprow = pr, .npcol = pc, .grid = grid_a,
                             .ld = 1},
                        b = {.nprow = pc, .npcol = pr, .grid = grid_b,
                             .ld = 1};
        CS_TEST_EQ(cs_eng_dist_cyclic(m, nb[0], nb[0], 0, pr, &a.rows),
                   CS_OK);
        CS_TEST_EQ(cs_eng_dist_cyclic(n, nb[1], nb[1], 0, pc, &a.cols),
                   CS_OK);
        CS_TEST_EQ(cs_eng_dist_cyclic(m, nb[2], nb[2], 0, pc, &b.rows),
                   CS_OK);
        CS_TEST_EQ(cs_eng_dist_cyclic(n, nb[3], nb[3], 0, pr, &b.cols),
                   CS_OK);
        cs_eng_op_t op = {.m = m, .n = n, .esize = 8};
        int64_t v1[256] = {0}, v2[256] = {0};
        acc_t x = {P, v2};
        CS_TEST_EQ(cs_eng_volume_matrix(&a, &b, &op, P, v1), CS_OK);
        CS_TEST_EQ(cs_eng_volume_each(&a, &b, &op, acc, &x), CS_OK);
        CS_TEST_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
    }
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    scale = scale < 1 ? 1 : scale;
    test_sparse();
    test_small(scale);
    test_large(scale);
    test_constructed();
    test_volume_each(scale);
    test_plan_file();
    return cs_test_done();
}
