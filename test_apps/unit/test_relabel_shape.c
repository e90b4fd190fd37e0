/*
 * test_apps/unit/test_relabel_shape.c - one call shape's relabeling
 * numbers as the shim computes them (shim/relabel/shape.c, linked in),
 * no MPI.
 *
 * 1. Random small shapes (grids up to 6 x 6 with random rank maps,
 *    offsets, first blocks, transposes, extra ranks in the context, A's
 *    ranks among B's or not, masked copies, several nodes or one): the
 *    factored way and the dense way agree on the bytes crossing processes
 *    and nodes with the application's mapping and on the position
 *    volumes; the factored relabeling never keeps more than the exact
 *    dense one, never less than the identity; the factored way refuses
 *    what it cannot count (masked, A's ranks outside B's); the shim's
 *    choice is the dense way there, with its numbers.
 * 2. Memory: every way gives back all it claimed, and the heap it holds
 *    at once (counted by cs_heap_count.h) never exceeds its claim; a
 *    refused claim computes nothing and leaks nothing.
 * 3. The case of issue 33 (m = n = 400,000 doubles, A on a square grid
 *    with 64 x 64 blocks, B on a column-major one with 100 x 100) at P =
 *    1,024, 16,384 and 65,536, one node and 64 ranks per node, and three
 *    other shapes at 65,536 (2D -> 1 x P, blocks 32 -> 96, a transpose):
 *    the shim's way, CPU and wall seconds, claimed and peak heap bytes
 *    printed; the heap within the claim, and at 65,536 the claim under
 *    16 MiB (the target).  Time is bounded by the check
 *    (test_apps/checks/14_unit_relabel_shape.sh), loosely.  Then the
 *    plan of the 65,536 case's two grids from the keeper's factored term
 *    (its matrix refused; one node and 64 ranks per node): the term's
 *    claim holds its heap, the plan saves bytes, and takes under 10 CPU
 *    seconds.
 * 4. Apply mode at P = 65,536: a plan of issue 33's two grids read as
 *    apply.c reads it (cs_rl_plan_parse): CPU seconds and heap printed,
 *    the heap under 16 MiB.
 *
 * Usage: test_relabel_shape [scale]   the tests, "cs_test: OK" last
 *        test_relabel_shape --cost P RPN [dense|kron]
 *                                     one line of 3 on the smallest
 *                                     square grid of at least P (RPN 0:
 *                                     no nodes), the way forced if named
 *        test_relabel_shape --plan P RPN  the plan of that case's grids
 *                                     from the keeper's term
 * Deterministic (fixed seed; scale multiplies the random cases).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_heap_count.h" /* replaces malloc & co.: heap bytes counted */
#include "cs_test.h"
#include "engine/engine.h"
#include "relabel/relabel.h"
#include "relabel/relabel_kron.h"
#include "shim/relabel/shape_int.h"

static uint64_t rng_state = 0x5851F42D4C957F2DULL;

static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

/* ------------------------------------------------------------ claims */

/* The claims of one evaluation: outstanding now, the most at once, and
 * a limit (-1: none) above which a claim is refused. */
typedef struct {
    int64_t now, most, limit;
} claims_t;

static int claim_count(void *ctx, int64_t bytes)
{
    claims_t *c = ctx;
    if (bytes > 0 && c->limit >= 0 && c->now + bytes > c->limit) {
        return 1;
    }
    c->now += bytes;
    c->most = c->now > c->most ? c->now : c->most;
    return 0;
}

/* Evaluate in under a counted heap; *peak_p the heap held at most. */
static cs_status_t eval_counted(const cs_shim_rl_shape_in_t *in,
                                int64_t limit, cs_shim_rl_shape_t *out,
                                claims_t *c, int64_t *peak_p)
{
    *c = (claims_t){0, 0, limit};
    memset(out, 0, sizeof(*out));
    mem_start();
    cs_status_t st = cs_shim_rl_shape_eval(in, claim_count, c, out);
    mem_stop();
    *peak_p = mem_peak;
    CS_TEST_EQ(c->now, 0); /* everything claimed is given back */
    return st;
}

/* ------------------------------------------------------------ layouts */

/* A grid of pr x pc ranks and its block-cyclic layout of an M x N
 * matrix. */
typedef struct {
    cs_eng_layout_t l;
    int grid[64];
} lay_t;

static void lay_random(lay_t *x, int pr, int pc, const int *ranks,
                       int64_t M, int64_t N)
{
    memset(x, 0, sizeof(*x));
    for (int i = 0; i < pr * pc; i++) {
        x->grid[i] = ranks[i];
    }
    int64_t mb = rr(1, 9), nb = rr(1, 9);
    CS_TEST_EQ(cs_eng_dist_cyclic(M, mb, rr(1, mb), (int)rr(0, pr - 1), pr,
                                  &x->l.rows),
               CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(N, nb, rr(1, nb), (int)rr(0, pc - 1), pc,
                                  &x->l.cols),
               CS_OK);
    x->l.nprow = pr;
    x->l.npcol = pc;
    x->l.grid = x->grid;
    x->l.ld = 1;
}

static void shuffle(int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rr(0, i), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ------------------------------------------------------------ 1, 2 */

static void check_memory(int64_t peak, const claims_t *c, const char *what)
{
    CS_TEST_CHECK(peak <= c->most, "%s: heap %lld above the claim %lld",
                  what, (long long)peak, (long long)c->most);
}

static void one_random(int c)
{
    int qr = (int)rr(1, 6), qc = (int)rr(1, 6), pb = qr * qc;
    int np = pb + (int)rr(0, 2);
    int ranks[72], bgrid[64], agrid[64];
    for (int i = 0; i < np; i++) {
        ranks[i] = i;
    }
    shuffle(ranks, np);
    memcpy(bgrid, ranks, (size_t)pb * sizeof(int));
    /* A's grid: some of B's ranks (all, one case in two); one case in
     * eight one rank outside B's grid (the factored way refuses it) */
    int pr = (int)rr(1, pb < 6 ? pb : 6);
    int pc = (int)rr(1, pb / pr < 6 ? pb / pr : 6);
    if (rr(0, 1) && pb <= 36) {
        pr = qc;
        pc = qr;
    }
    int pa = pr * pc, outside = np > pb && rr(0, 7) == 0;
    memcpy(agrid, bgrid, (size_t)pb * sizeof(int));
    shuffle(agrid, pb);
    if (outside) {
        agrid[0] = ranks[pb];
    }
    int masked = rr(0, 5) == 0, trans = !masked && rr(0, 1);
    int64_t m = rr(0, 50), n = rr(0, 50);
    int64_t ia = rr(0, 4), ja = rr(0, 4), ib = rr(0, 4), jb = rr(0, 4);
    lay_t a, b;
    lay_random(&a, pr, pc, agrid, ia + (trans ? n : m) + rr(0, 3),
               ja + (trans ? m : n) + rr(0, 3));
    lay_random(&b, qr, qc, bgrid, ib + m + rr(0, 3), jb + n + rr(0, 3));
    cs_eng_op_t op = {.m = m, .n = n, .ia = ia, .ja = ja, .ib = ib,
                      .jb = jb, .esize = rr(0, 1) ? 8 : 16,
                      .trans = trans,
                      .mask = masked ? CS_ENG_MASK_UPPER : CS_ENG_MASK_NONE};
    int node[72];
    int nodes = (int)rr(0, 2); /* 0: not known, 1: one, 2: several */
    for (int i = 0; i < np; i++) {
        node[i] = nodes == 2 ? (int)rr(0, np < 3 ? np - 1 : 2) : 0;
    }
    cs_shim_rl_shape_in_t in = {
        .la = &a.l, .lb = &b.l, .op = &op, .np = np,
        .node = nodes ? node : NULL, .w_rank = 1, .w_node = rr(1, 30),
        .posmat_max = (int64_t)1 << 20};
    cs_shim_rl_shape_t d, k, s;
    claims_t cd, ck, cs;
    int64_t pd, pk, ps;
    in.force = CS_SHIM_RL_DENSE;
    CS_TEST_EQ(eval_counted(&in, -1, &d, &cd, &pd), CS_OK);
    check_memory(pd, &cd, "dense");
    in.force = CS_SHIM_RL_KRON;
    cs_status_t st = eval_counted(&in, -1, &k, &ck, &pk);
    check_memory(pk, &ck, "kron");
    in.force = 0;
    CS_TEST_EQ(eval_counted(&in, -1, &s, &cs, &ps), CS_OK);
    check_memory(ps, &cs, "auto");
    /* small: the shim takes the dense way, with its numbers */
    CS_TEST_EQ(s.path, CS_SHIM_RL_DENSE);
    CS_TEST_EQ(s.cross, d.cross);
    CS_TEST_EQ(s.best, d.best);
    CS_TEST_EQ(s.net_node, d.net_node);
    if (masked || outside) {
        CS_TEST_EQ(st, CS_ERR_UNSUPPORTED);
    } else {
        CS_TEST_EQ(st, CS_OK);
        CS_TEST_EQ(k.path, CS_SHIM_RL_KRON);
        CS_TEST_EQ(k.cross, d.cross);
        CS_TEST_EQ(k.net, d.net);
        CS_TEST_CHECK(k.best >= d.best && k.best <= k.cross,
                      "case %d: best %lld (dense %lld, cross %lld)", c,
                      (long long)k.best, (long long)d.best,
                      (long long)k.cross);
        CS_TEST_EQ(k.net_plain < 0, d.net_plain < 0);
        CS_TEST_EQ(k.net_node < 0, d.net_node < 0);
        CS_TEST_EQ(!k.posmat, !d.posmat);
        if (k.posmat) {
            CS_TEST_ASSERT(memcmp(k.posmat, d.posmat,
                                  (size_t)pa * (size_t)pb * 8) == 0);
        }
    }
    free(d.posmat);
    free(k.posmat);
    free(s.posmat);

    /* a refused claim: nothing computed, nothing left allocated */
    for (int way = CS_SHIM_RL_DENSE; way <= CS_SHIM_RL_KRON; way++) {
        in.force = way;
        cs_shim_rl_shape_t r;
        claims_t cr;
        int64_t pr0;
        CS_TEST_EQ(eval_counted(&in, 0, &r, &cr, &pr0),
                   way == CS_SHIM_RL_KRON && masked ? CS_ERR_UNSUPPORTED
                                                    : CS_ERR_LIMIT);
        CS_TEST_EQ(mem_live, 0);
    }
}

/* ------------------------------------------------------------ 3 */

/* One large shape: A on an ar x ac grid in row order with blocks of nba,
 * B on br x bc in column order with blocks of nbb, m = n = 400,000
 * doubles, A transposed or not; rpn ranks per node (0: not known). */
typedef struct {
    int ar, ac, br, bc;
    int64_t nba, nbb;
    int trans;
} big_t;

typedef struct {
    cs_eng_layout_t la, lb;
    int *ga, *gb, *node;
    cs_eng_op_t op;
} big_lay_t;

static void big_make(big_lay_t *x, const big_t *c, int rpn)
{
    int pa = c->ar * c->ac, pb = c->br * c->bc;
    int64_t mn = 400000;
    memset(x, 0, sizeof(*x));
    x->ga = malloc((size_t)pa * sizeof(int));
    x->gb = malloc((size_t)pb * sizeof(int));
    x->node = malloc((size_t)pb * sizeof(int));
    CS_TEST_ASSERT(x->ga && x->gb && x->node);
    for (int r = 0; r < c->ar; r++) {
        for (int q = 0; q < c->ac; q++) {
            x->ga[r * c->ac + q] = r * c->ac + q; /* Cblacs_gridinit "R" */
        }
    }
    for (int r = 0; r < c->br; r++) {
        for (int q = 0; q < c->bc; q++) {
            x->gb[r * c->bc + q] = q * c->br + r; /* "C" */
        }
    }
    for (int i = 0; i < pb; i++) {
        x->node[i] = rpn > 0 ? i / rpn : 0;
    }
    CS_TEST_EQ(cs_eng_dist_cyclic(mn, c->nba, c->nba, 0, c->ar, &x->la.rows),
               CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(mn, c->nba, c->nba, 0, c->ac, &x->la.cols),
               CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(mn, c->nbb, c->nbb, 0, c->br, &x->lb.rows),
               CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(mn, c->nbb, c->nbb, 0, c->bc, &x->lb.cols),
               CS_OK);
    x->la.nprow = c->ar;
    x->la.npcol = c->ac;
    x->lb.nprow = c->br;
    x->lb.npcol = c->bc;
    x->la.ld = x->lb.ld = 1;
    x->la.grid = x->ga;
    x->lb.grid = x->gb;
    x->op = (cs_eng_op_t){.m = mn, .n = mn, .esize = 8, .trans = c->trans};
}

static void big_free(big_lay_t *x)
{
    free(x->ga);
    free(x->gb);
    free(x->node);
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *way_name(int w)
{
    return w == CS_SHIM_RL_DENSE ? "dense" : w == CS_SHIM_RL_KRON ? "kron"
                                                                  : "none";
}

/* One cost line; returns the claim (bytes). */
static int64_t cost_line(const big_t *b, int rpn, int force)
{
    big_lay_t x;
    big_make(&x, b, rpn);
    int P = b->br * b->bc;
    cs_shim_rl_shape_in_t in = {
        .la = &x.la, .lb = &x.lb, .op = &x.op, .np = P,
        .node = rpn > 0 ? x.node : NULL, .w_rank = 1, .w_node = 26,
        .force = force};
    cs_shim_rl_shape_t s;
    claims_t c;
    int64_t peak;
    double w0 = clock_s(CLOCK_MONOTONIC);
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    cs_status_t st = eval_counted(&in, -1, &s, &c, &peak);
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    double wall = clock_s(CLOCK_MONOTONIC) - w0;
    CS_TEST_EQ(st, CS_OK);
    check_memory(peak, &c, "large shape");
    double gain = s.cross > 0 ? 100.0 * (double)(s.cross - s.best) /
                                    (double)s.cross
                              : 0.0;
    printf("P=%-6d %dx%d/%lld -> %dx%d/%lld%s rpn=%-2d way=%-5s "
           "cpu=%.3fs wall=%.3fs claimed=%.2fMB peak=%.2fMB gain=%.2f%% "
           "cross=%lld best=%lld net=%lld net_plain=%lld net_node=%lld\n",
           P, b->ar, b->ac, (long long)b->nba, b->br, b->bc,
           (long long)b->nbb, b->trans ? " T" : "", rpn, way_name(s.path),
           cpu, wall, 1e-6 * (double)c.most, 1e-6 * (double)peak, gain,
           (long long)s.cross, (long long)s.best, (long long)s.net,
           (long long)s.net_plain, (long long)s.net_node);
    fflush(stdout);
    free(s.posmat);
    big_free(&x);
    return c.most;
}

/* The case of issue 33 at three sizes, one node and 64 ranks per node,
 * then other large shapes whose memory differs (2D -> 1D, a block size
 * that triples, a transpose): claims hold the heap everywhere, and at P
 * = 65,536 stay under 16 MiB. */
/*
 * The plan at scale: the keeper's term of shape b (keep_term, its matrix
 * refused: shape.c, claimed) and rank 0's plan of the two grids from it
 * (relabel/plan_kron.c), node-aware with rpn ranks per node; prints the
 * CPU seconds of each and what the plan saves.  Returns the plan's CPU
 * seconds.
 */
static double plan_line(const big_t *b, int rpn)
{
    big_lay_t x;
    big_make(&x, b, rpn);
    int pa = b->ar * b->ac, pbn = b->br * b->bc;
    cs_shim_rl_shape_in_t in = {
        .la = &x.la, .lb = &x.lb, .op = &x.op, .np = pbn,
        .node = rpn > 0 ? x.node : NULL, .w_rank = 1, .w_node = 26,
        .posmat_max = 0, .keep_term = 1};
    cs_shim_rl_shape_t s;
    claims_t c;
    int64_t peak;
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    CS_TEST_EQ(eval_counted(&in, -1, &s, &c, &peak), CS_OK);
    double t_term = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    check_memory(peak, &c, "the keeper's term");
    CS_TEST_ASSERT(s.term != NULL && s.posmat == NULL);
    s.term[0] = 3; /* three calls, as cache.c counts them */
    cs_rl_problem_t pb = {.world = 1, .nworld = pbn};
    pb.g = calloc(2, sizeof(*pb.g));
    pb.pr = calloc(1, sizeof(*pb.pr));
    CS_TEST_ASSERT(pb.g && pb.pr);
    CS_TEST_EQ(cs_rl_problem_add_grid(&pb, 1, 0, b->ar, b->ac, 'R', x.ga,
                                      NULL),
               CS_RL_OK);
    CS_TEST_EQ(cs_rl_problem_add_grid(&pb, 2, 0, b->br, b->bc, 'C', x.gb,
                                      NULL),
               CS_RL_OK);
    pb.pr[0] = (cs_rl_pair_t){.sa = 1, .oa = 0, .sb = 2, .ob = 0,
                              .pa = pa, .pb = pbn, .calls = 3,
                              .fw = s.term, .nfw = s.nterm};
    pb.npairs = 1;
    if (rpn > 0) {
        pb.node = malloc((size_t)pbn * sizeof(int));
        CS_TEST_ASSERT(pb.node);
        memcpy(pb.node, x.node, (size_t)pbn * sizeof(int));
        pb.nnodes = (pbn + rpn - 1) / rpn;
        pb.w_rank = 1;
        pb.w_node = 26;
    }
    cs_rl_problem_order(&pb);
    CS_TEST_EQ(pb.incomplete, 0);
    cs_rl_plan_t plan;
    mem_start();
    c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    CS_TEST_EQ(cs_rl_plan_solve(&pb, &plan), CS_RL_OK);
    double t_plan = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    mem_stop();
    int sat = 0;
    int64_t tot = cs_rl_pair_total(&pb.pr[0], &sat);
    int64_t app = tot - cs_rl_pair_kept(&pb.pr[0], pb.g[0].map,
                                        pb.g[1].map, plan.pos, pbn);
    printf("plan P=%-6d rpn=%-2d term %.2f MB in cpu=%.3fs; plan cpu=%.3fs "
           "heap=%.2fMB: crossing %lld -> %lld bytes, across nodes %lld -> "
           "%lld, grids relabeled %d\n",
           pbn, rpn, 8e-6 * (double)s.nterm, t_term, t_plan,
           1e-6 * (double)mem_peak, (long long)app,
           (long long)(app - plan.saved), (long long)plan.net_app,
           (long long)plan.net_plan, plan.relabeled);
    fflush(stdout);
    CS_TEST_ASSERT(plan.saved >= 0);
    cs_rl_plan_free(&plan);
    cs_rl_problem_free(&pb);
    free(s.term);
    big_free(&x);
    return t_plan;
}

static void test_large(void)
{
    static const big_t issue[3] = {{32, 32, 32, 32, 64, 100, 0},
                                   {128, 128, 128, 128, 64, 100, 0},
                                   {256, 256, 256, 256, 64, 100, 0}};
    static const big_t other[3] = {{256, 256, 1, 65536, 64, 100, 0},
                                   {256, 256, 256, 256, 32, 96, 0},
                                   {128, 512, 256, 256, 64, 100, 1}};
    for (int k = 0; k < 3; k++) {
        for (int rpn = 0; rpn <= 64; rpn += 64) {
            int64_t claim = cost_line(&issue[k], rpn, 0);
            CS_TEST_CHECK(k < 2 || claim < ((int64_t)16 << 20),
                          "P = 65536: claim %lld bytes, target 16 MiB",
                          (long long)claim);
        }
    }
    for (int k = 0; k < 3; k++) {
        int64_t claim = cost_line(&other[k], 0, 0);
        CS_TEST_CHECK(claim < ((int64_t)16 << 20),
                      "P = 65536: claim %lld bytes, target 16 MiB",
                      (long long)claim);
    }
    for (int rpn = 0; rpn <= 64; rpn += 64) {
        double t = plan_line(&issue[2], rpn);
        CS_TEST_CHECK(t < 10.0, "P = 65536: the plan took %.1f CPU s", t);
    }
}

/* Apply mode's part at P = 65,536: the plan of issue 33's two grids
 * (B relabeled to A's map) read as apply.c reads it, once per process,
 * with cs_rl_plan_parse; its heap under 16 MiB. */
static void test_apply(void)
{
    enum { G = 256, P = G * G };
    FILE *f = tmpfile();
    CS_TEST_ASSERT(f);
    fprintf(f, "costa_shim_relabel_plan 3\ncommand issue 33\n"
               "processes %d\nscope world\ngrids 2\ncomplete 1\n"
               "bytes_app 2\nbytes_plan 1\n", P);
    for (int k = 0; k < 2; k++) {
        fprintf(f, "grid %d %dx%d %c", k, G, G, k ? 'C' : 'R');
        for (int i = 0; i < P; i++) { /* row-major positions */
            fprintf(f, " %d", k ? (i % G) * G + i / G : i);
        }
        fprintf(f, " ->");
        for (int i = 0; i < P; i++) {
            fprintf(f, " %d", i);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "end\n");
    rewind(f);
    cs_rl_plan_file_t plan;
    char why[256] = "";
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    mem_start();
    cs_rl_status_t st = cs_rl_plan_parse(f, 256, &plan, why, sizeof(why));
    mem_stop();
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    fclose(f);
    CS_TEST_EQ(st, CS_RL_OK);
    CS_TEST_EQ(plan.ngrids, 2);
    printf("P=%-6d apply: plan of 2 grids read cpu=%.3fs peak=%.2fMB "
           "kept=%.2fMB\n",
           P, cpu, 1e-6 * (double)mem_peak, 1e-6 * (double)mem_live);
    CS_TEST_CHECK(mem_peak < ((int64_t)16 << 20),
                  "apply: the plan's heap %lld bytes, target 16 MiB",
                  (long long)mem_peak);
    cs_rl_plan_file_free(&plan);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--cost") == 0) {
        int g = 1;
        while (g * g < atoi(argv[2])) {
            g++;
        }
        big_t b = {g, g, g, g, 64, 100, 0};
        int force = argc < 5 ? 0
                    : strcmp(argv[4], "dense") == 0 ? CS_SHIM_RL_DENSE
                                                    : CS_SHIM_RL_KRON;
        cost_line(&b, atoi(argv[3]), force);
        return cs_test_done();
    }
    if (argc >= 4 && strcmp(argv[1], "--plan") == 0) {
        int g = 1;
        while (g * g < atoi(argv[2])) {
            g++;
        }
        big_t b = {g, g, g, g, 64, 100, 0};
        plan_line(&b, atoi(argv[3]));
        return cs_test_done();
    }
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    scale = scale < 1 ? 1 : scale;
    if (!CS_HEAP_COUNTED) {
        printf("heap not counted under the sanitizer: peaks read 0\n");
    }
    for (int c = 0; c < 400 * scale; c++) {
        one_random(c);
    }
    test_large();
    test_apply();
    return cs_test_done();
}
