/*
 * test_apps/unit/relabel_model.c - command-line model (not a test): what a
 * redistribution between two block-cyclic layouts moves on a machine of
 * nodes, what plain and node-aware relabeling would save, and a predicted
 * time per call, for P up to CS_TOOL_MAX_P (2^20) without MPI
 * (scripts/costa-shim-model wraps it).
 *
 *   relabel_model --m M --n N --a PxQ:MBxNB[:R|C] --b PxQ:MBxNB[:R|C]
 *                 --rpn K [--trans] [--esize BYTES]
 *                 [--bw-copy GB/s] [--bw-rank GB/s] [--bw-node GB/s]
 *                 [--lat-rank US] [--lat-node US] [--weights WR,WN]
 *                 [--sparse|--kron]
 *
 * Ranks are numbered in each grid's order (R row-major, C column-major);
 * K consecutive ranks share a node.  Up to CS_RL_EXACT_MAX_P (or with
 * --sparse) the volume matrix is built entry by entry (cs_eng_volume_each:
 * O(row groups x column groups)), never as P x P, and solved by
 * cs_rl_solve_sparse and cs_rl_solve_nodes (exact there).  Above (or with
 * --kron) only its row and column factors are built
 * (cs_eng_volume_factors) and the Kronecker solvers of
 * relabel/relabel_kron.h relabel on them: O(P + blocks) memory, no
 * per-entry work.
 *
 * The model.  Per rank: what stays on it is copied at bw-copy (bytes per
 * second, read and write of one copy), what it exchanges with ranks of
 * its node at bw-rank (each way), what leaves the node shares the node's
 * link at bw-node (each way, all ranks of the node together); each
 * message costs its latency.  A call takes
 *     max over ranks of  max(copy + in-node, the node's network time)
 *                        + latencies,
 * i.e. the engine overlaps its network transfers with local work, and a
 * rank's copies and shared-memory transfers add up.  Defaults: 10, 5 and
 * 12.5 GB/s, 1 and 2 us (a node with a 100 Gb/s link); the relabeling's
 * weights default to 1 for a byte inside a node and K * bw-rank / bw-node
 * (at least 1) for one across: what a byte costs when the node's ranks
 * share its link.
 *
 * Output: the volume summary (bytes kept, inside nodes, across nodes,
 * entries, the busiest rank), then for the identity, the plain relabeling
 * and the node-aware one their split, the solver's time and the
 * predicted time per call.
 * Exit status 0, 1 on a solver error, 2 on bad arguments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_tool_args.h" /* layouts, options, timing */

typedef struct {
    double bw_copy, bw_rank, bw_node; /* bytes per second */
    double lat_rank, lat_node;        /* seconds */
} model_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: relabel_model --m M --n N --a PxQ:MBxNB[:R|C] "
            "--b PxQ:MBxNB[:R|C] --rpn K\n"
            "                     [--trans] [--esize BYTES] [--bw-copy "
            "GB/s] [--bw-rank GB/s]\n"
            "                     [--bw-node GB/s] [--lat-rank US] "
            "[--lat-node US] [--weights WR,WN]\n"
            "                     [--sparse|--kron]\n"
            "  M x N matrix (sub(A) N x M with --trans) of BYTES-byte "
            "elements moved from\n"
            "  layout A to B on P ranks (the larger grid, at most %d), K "
            "consecutive\n"
            "  ranks per node; above P = %d (or with --kron) on the "
            "volume's factors.\n",
            CS_TOOL_MAX_P, CS_RL_EXACT_MAX_P);
}

/* cs_eng_volume_each's callback: one entry of the matrix */
static int add_cb(void *ctx, int src, int dst, int64_t bytes)
{
    return cs_rl_sparse_add(ctx, src, dst, bytes) != CS_RL_OK;
}

/* Predicted seconds of a call from what each rank keeps, sends and
 * receives (flow[P]) on machine m. */
static double predict_flows(const cs_rl_flow_t *fl, const cs_rl_machine_t *m,
                            const model_t *md)
{
    int P = m->P, nn = m->nnodes;
    double *nd = calloc((size_t)nn * 2, sizeof(*nd)); /* per node */
    if (!nd) {
        return -1.0;
    }
    /* nd[2n]: sent across, +1 received */
    for (int i = 0; i < P; i++) {
        nd[2 * m->node[i]] += (double)fl[i].sent_net;
        nd[2 * m->node[i] + 1] += (double)fl[i].recv_net;
    }
    double worst = 0.0;
    for (int i = 0; i < P; i++) {
        const cs_rl_flow_t *x = &fl[i];
        const double *y = nd + 2 * m->node[i];
        double snode = (double)x->sent_node, rnode = (double)x->recv_node;
        double local = (double)x->kept / md->bw_copy +
                       (snode > rnode ? snode : rnode) / md->bw_rank;
        double net = (y[0] > y[1] ? y[0] : y[1]) / md->bw_node;
        double t = (local > net ? local : net) +
                   (double)x->msgs_node * md->lat_rank +
                   (double)x->msgs_net * md->lat_node;
        worst = t > worst ? t : worst;
    }
    free(nd);
    return worst;
}

/* Predicted seconds of a call under relabeling perm (NULL: identity) of
 * the sparse matrix v, or of the Kronecker problem kx when v is NULL. */
static double predict(const cs_rl_sparse_t *v, const cs_rl_kx_t *kx,
                      const cs_rl_machine_t *m, const int *perm,
                      const model_t *md)
{
    cs_rl_flow_t *fl = malloc((size_t)m->P * sizeof(*fl));
    double t = -1.0;
    if (fl && (v ? cs_rl_sparse_flows(v, m, perm, fl)
                 : cs_rl_kron_flows(kx, m, perm, fl)) == CS_RL_OK) {
        t = predict_flows(fl, m, md);
    }
    free(fl);
    return t;
}

static double pct(int64_t x, int64_t total)
{
    return total > 0 ? 100.0 * (double)x / (double)total : 0.0;
}

static void print_row(const char *what, const cs_rl_split_t *s,
                      int64_t total, double secs, const tm_t *tm)
{
    printf("%-11s kept %" PRId64 " (%.2f %%)  in node %" PRId64
           " (%.2f %%)  across %" PRId64 " (%.2f %%)  cost %" PRId64
           "  call %.3f ms",
           what, s->kept, pct(s->kept, total), s->in_node,
           pct(s->in_node, total), s->across, pct(s->across, total), s->cost,
           1e3 * secs);
    if (tm) {
        printf("  solver %.3f s (cpu %.3f s)", tm->wall, tm->cpu);
    }
    printf("\n");
}

static int parse_gbs(const char *s, double scale, double *out)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || !(x > 0)) {
        return -1;
    }
    *out = x * scale;
    return 0;
}

/* The volume's nonzero entries, the sparse solvers on them (small P, or
 * --sparse). */
static int run_sparse(const cs_eng_layout_t *la, const cs_eng_layout_t *lb,
                      const cs_eng_op_t *op, const cs_rl_machine_t *mach,
                      const model_t *md)
{
    int P = mach->P;
    int *pplain = malloc((size_t)P * sizeof(*pplain));
    int *pnode = malloc((size_t)P * sizeof(*pnode));
    if (!pplain || !pnode) {
        fprintf(stderr, "relabel_model: out of memory\n");
        return 1;
    }
    tm_t t_vol, t_plain, t_node;
    cs_rl_sparse_t v;
    tm_start(&t_vol);
    cs_status_t est = CS_ERR_NOMEM;
    if (cs_rl_sparse_init(&v, P) == CS_RL_OK) {
        est = cs_eng_volume_each(la, lb, op, add_cb, &v);
    }
    if (est == CS_OK && cs_rl_sparse_finish(&v) != CS_RL_OK) {
        est = CS_ERR_LIMIT;
    }
    tm_stop(&t_vol);
    if (est != CS_OK) {
        fprintf(stderr, "relabel_model: volume matrix: %s\n",
                cs_status_str(est));
        return 1;
    }
    cs_rl_split_t sid, spl, snd;
    cs_rl_split(&v, mach, NULL, &sid);
    int64_t total = sid.kept + sid.in_node + sid.across;
    /* the busiest rank: bytes it sends and receives, peers */
    int64_t *busy = calloc((size_t)P * 3, sizeof(*busy));
    int64_t most = 0, peers = 0;
    for (int64_t e = 0; busy && e < v.nnz; e++) {
        if (v.src[e] != v.dst[e]) {
            busy[3 * v.src[e]] += v.bytes[e];
            busy[3 * v.dst[e] + 1] += v.bytes[e];
            busy[3 * v.src[e] + 2]++;
        }
    }
    for (int i = 0; busy && i < P; i++) {
        int64_t x = busy[3 * i] + busy[3 * i + 1];
        most = x > most ? x : most;
        peers = busy[3 * i + 2] > peers ? busy[3 * i + 2] : peers;
    }
    free(busy);
    printf("volume: %" PRId64 " bytes in %" PRId64 " entries (built in %.3f "
           "s, cpu %.3f s); busiest rank sends + receives %" PRId64
           " bytes, at most %" PRId64 " peers\n",
           total, v.nnz, t_vol.wall, t_vol.cpu, most, peers);

    tm_start(&t_plain);
    cs_rl_status_t st = cs_rl_solve_sparse(&v, pplain);
    tm_stop(&t_plain);
    int method = -1;
    if (st == CS_RL_OK) {
        tm_start(&t_node);
        st = cs_rl_solve_nodes(&v, mach, 1, pnode, &method);
        tm_stop(&t_node);
    }
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_model: relabeling: %s\n",
                cs_rl_status_str(st));
        return 1;
    }
    cs_rl_split(&v, mach, pplain, &spl);
    cs_rl_split(&v, mach, pnode, &snd);
    static const char *const how[] = {"identity", "exact", "two-level"};
    print_row("identity", &sid, total, predict(&v, NULL, mach, NULL, md),
              NULL);
    print_row("plain", &spl, total, predict(&v, NULL, mach, pplain, md),
              &t_plain);
    print_row("node-aware", &snd, total,
              predict(&v, NULL, mach, pnode, md), &t_node);
    printf("node-aware method: %s%s\n", how[method],
           P > CS_RL_EXACT_MAX_P ? " (P above the exact solver's limit)"
                                 : "");
    cs_rl_sparse_free(&v);
    free(pplain);
    free(pnode);
    return 0;
}

/* The volume's factors and the Kronecker solvers (large P, or --kron). */
static int run_kron(const cs_eng_layout_t *la, const cs_eng_layout_t *lb,
                    const cs_eng_op_t *op, const cs_rl_machine_t *mach,
                    const model_t *md)
{
    int P = mach->P;
    tm_t t_vol, t_plain, t_node;
    cs_eng_factors_t f;
    memset(&f, 0, sizeof(f));
    cs_rl_kx_t *kx = NULL;
    int *pplain = malloc((size_t)P * sizeof(*pplain));
    int *pnode = malloc((size_t)P * sizeof(*pnode));
    tm_start(&t_vol);
    if (!pplain || !pnode ||
        tool_kron("relabel_model", la, lb, op, P, &f, &kx) != 0) {
        cs_eng_factors_free(&f);
        return 1;
    }
    tm_stop(&t_vol);
    /* the busiest rank: bytes it sends and receives, peers */
    int64_t most = 0, peers = 0;
    for (int i = 0; i < P; i++) {
        int64_t self = cs_rl_kron_vol(kx, i, i);
        int64_t x = cs_rl_kron_row_bytes(kx, i) +
                    cs_rl_kron_col_bytes(kx, i) - 2 * self;
        int64_t q = cs_rl_kron_row_nnz(kx, i) - (self > 0);
        most = x > most ? x : most;
        peers = q > peers ? q : peers;
    }
    int64_t total = cs_rl_kron_total(kx);
    printf("volume: %" PRId64 " bytes in %" PRId64 " entries (factors "
           "built in %.3f s, cpu %.3f s); busiest rank sends + receives %"
           PRId64 " bytes, at most %" PRId64 " peers\n",
           total, cs_rl_kron_nnz(kx), t_vol.wall, t_vol.cpu, most, peers);
    cs_rl_kron_info_t ip, in;
    tm_start(&t_plain);
    cs_rl_status_t st = cs_rl_kron_solve(kx, pplain, &ip);
    tm_stop(&t_plain);
    if (st == CS_RL_OK) {
        tm_start(&t_node);
        st = cs_rl_kron_solve_nodes(kx, mach, pplain, pnode, &in);
        tm_stop(&t_node);
    }
    /* the solver's own splits of the three relabelings */
    cs_rl_split_t sid = in.split_identity, spl = in.split_plain;
    cs_rl_split_t snd = in.split;
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_model: relabeling: %s\n",
                cs_rl_status_str(st));
        return 1;
    }
    static const char *const how[] = {"identity", "product", "greedy",
                                      "two-level", "identity+swaps",
                                      "plain"};
    print_row("identity", &sid, total, predict(NULL, kx, mach, NULL, md),
              NULL);
    print_row("plain", &spl, total, predict(NULL, kx, mach, pplain, md),
              &t_plain);
    print_row("node-aware", &snd, total,
              predict(NULL, kx, mach, pnode, md), &t_node);
    printf("node-aware method: %s (factors; plain: %s; node-aware start "
           "cost %" PRId64 ", %d passes, %" PRId64 " swaps)\n",
           how[in.method], how[ip.method], in.start_cost, in.passes,
           in.swaps);
    cs_rl_kron_destroy(kx);
    cs_eng_factors_free(&f);
    free(pplain);
    free(pnode);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t m = -1, n = -1, esize = 8, rpn = 0, wr = -1, wn = -1;
    int have_a = 0, have_b = 0, trans = 0, path = 0;
    grid_arg_t ga, gb;
    model_t md = {10e9, 5e9, 12.5e9, 1e-6, 2e-6};
    for (int k = 1; k < argc; k++) {
        const char *o = argv[k];
        const char *val = k + 1 < argc ? argv[k + 1] : NULL;
        int bad = 0;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--trans")) {
            trans = 1;
            continue;
        } else if (!strcmp(o, "--sparse")) {
            path = 1;
            continue;
        } else if (!strcmp(o, "--kron")) {
            path = 2;
            continue;
        } else if (!val) {
            bad = 1;
        } else if (!strcmp(o, "--m")) {
            bad = parse_i64(val, 0, &m);
        } else if (!strcmp(o, "--n")) {
            bad = parse_i64(val, 0, &n);
        } else if (!strcmp(o, "--esize")) {
            bad = parse_i64(val, 1, &esize);
        } else if (!strcmp(o, "--rpn")) {
            bad = parse_i64(val, 1, &rpn);
        } else if (!strcmp(o, "--a")) {
            bad = parse_grid(val, CS_TOOL_MAX_P, &ga);
            have_a = !bad;
        } else if (!strcmp(o, "--b")) {
            bad = parse_grid(val, CS_TOOL_MAX_P, &gb);
            have_b = !bad;
        } else if (!strcmp(o, "--bw-copy")) {
            bad = parse_gbs(val, 1e9, &md.bw_copy);
        } else if (!strcmp(o, "--bw-rank")) {
            bad = parse_gbs(val, 1e9, &md.bw_rank);
        } else if (!strcmp(o, "--bw-node")) {
            bad = parse_gbs(val, 1e9, &md.bw_node);
        } else if (!strcmp(o, "--lat-rank")) {
            bad = parse_gbs(val, 1e-6, &md.lat_rank);
        } else if (!strcmp(o, "--lat-node")) {
            bad = parse_gbs(val, 1e-6, &md.lat_node);
        } else if (!strcmp(o, "--weights")) {
            long long a, b;
            bad = sscanf(val, "%lld,%lld", &a, &b) != 2 || a < 0 || b < a;
            wr = a;
            wn = b;
        } else {
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "relabel_model: bad or incomplete option %s%s%s\n",
                    o, val ? " " : "", val ? val : "");
            usage(stderr);
            return 2;
        }
        k++;
    }
    if (m < 0 || n < 0 || !have_a || !have_b || rpn < 1) {
        fprintf(stderr, "relabel_model: --m, --n, --a, --b and --rpn are "
                        "required\n");
        usage(stderr);
        return 2;
    }
    int pa = ga.np * ga.nq, pb = gb.np * gb.nq, P = pa > pb ? pa : pb;
    if (path == 0) {
        path = P > CS_RL_EXACT_MAX_P ? 2 : 1;
    }
    cs_eng_layout_t la, lb;
    int *grida = NULL, *gridb = NULL;
    /* with --trans sub(A) is n x m */
    if (build_layout(&ga, trans ? n : m, trans ? m : n, &la, &grida) != 0 ||
        build_layout(&gb, m, n, &lb, &gridb) != 0) {
        fprintf(stderr, "relabel_model: cannot build the layouts\n");
        return 2;
    }
    int nn = (int)((P + rpn - 1) / rpn);
    int *node = malloc((size_t)P * sizeof(*node));
    if (!node) {
        fprintf(stderr, "relabel_model: out of memory\n");
        return 1;
    }
    for (int i = 0; i < P; i++) {
        node[i] = (int)(i / rpn);
    }
    if (wr < 0) {
        double w = (double)rpn * md.bw_rank / md.bw_node;
        wr = 1;
        wn = w > 1 ? (int64_t)(w + 0.5) : 1;
    }
    cs_rl_machine_t mach = {P, nn, node, wr, wn};
    printf("relabel_model: %" PRId64 " x %" PRId64 " elements of %" PRId64
           " bytes%s, A %dx%d:%" PRId64 "x%" PRId64 ":%c -> B %dx%d:%" PRId64
           "x%" PRId64 ":%c\n",
           m, n, esize, trans ? " (transposed)" : "", ga.np, ga.nq, ga.mb,
           ga.nb, ga.colorder ? 'C' : 'R', gb.np, gb.nq, gb.mb, gb.nb,
           gb.colorder ? 'C' : 'R');
    printf("machine: P %d, %d nodes of %" PRId64 " ranks; copy %.1f, in "
           "node %.1f, across %.1f GB/s; latency %.1f / %.1f us; weights "
           "%" PRId64 ",%" PRId64 "\n",
           P, nn, rpn, md.bw_copy / 1e9, md.bw_rank / 1e9, md.bw_node / 1e9,
           md.lat_rank * 1e6, md.lat_node * 1e6, wr, wn);
    cs_eng_op_t op = {.m = m, .n = n, .esize = (size_t)esize, .trans = trans};
    int rc = path == 2 ? run_kron(&la, &lb, &op, &mach, &md)
                       : run_sparse(&la, &lb, &op, &mach, &md);
    free(node);
    free(grida);
    free(gridb);
    return rc;
}
