/*
 * shim/relabel/gather.c - the relabeling plan's problem at
 * MPI_Finalize: the grids and pair volumes rank 0 plans from, its own
 * (scope rank0) or gathered from every rank (scope world; two gathers:
 * sizes, then the accepted words).  What rank 0 accepts is bounded by
 * CS_SHIM_RELABEL_MAX_BYTES, however many ranks send (relabel_int.h).
 * No state of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "relabel/relabel.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/relabel/relabel_int.h"

#include <mpi.h>

/* Scope rank0: rank 0's own grids (those it took part in creating) and
 * pairs (the calls it kept: those whose context contains it).  Local. */
static int problem_local(const cs_shim_relabel_seen_t *seen,
                         cs_rl_problem_t *pb)
{
    int ng = cs_shim_grids_count();
    pb->nworld = cs_shim_relabel_world_size();
    pb->g = calloc((size_t)(ng > 0 ? ng : 1), sizeof(cs_rl_grid_t));
    pb->pr = calloc((size_t)(seen->npairs > 0 ? seen->npairs : 1),
                    sizeof(cs_rl_pair_t));
    if (!pb->g || !pb->pr) {
        return -1;
    }
    for (int i = 0; i < ng; i++) {
        cs_shim_grid_t r;
        if (cs_shim_grids_get(i, &r) != 0) {
            return -1;
        }
        cs_rl_status_t st = cs_rl_problem_add_grid(pb, r.stamp, r.owner, r.p,
                                                   r.q, r.order, r.map, NULL);
        cs_shim_grid_free(&r);
        if (st != CS_RL_OK) {
            return -1;
        }
    }
    for (int k = 0; k < seen->npairs; k++) {
        pb->pr[k] = seen->pairs[k];
    }
    pb->npairs = seen->npairs;
    pb->calls_seen = seen->calls_seen;
    pb->cross_total = seen->cross_total;
    pb->incomplete = seen->incomplete || cs_shim_grids_created() != ng;
    pb->saturated = seen->saturated;
    return 0;
}

/* The words this process sends rank 0 (scope world): the grids it owns,
 *   stamp p q order map[p*q]
 * then the pairs it kept,
 *   sa oa sb ob pa pb calls nfw v[pa*pb]     (nfw 0: dense)
 *   sa oa sb ob pa pb calls nfw fw[nfw]      (factored terms)
 * all int64_t.  Header fields, gathered first: */
enum { H_CALLS, H_CROSS, H_FLAGS, H_WGRIDS, H_WPAIRS, H_N };
enum { PAIR_HEAD = 8 };
enum { FL_INCOMPLETE = 1, FL_SATURATED = 2 };

static void grids_free(cs_shim_grid_t *gs, int n)
{
    for (int i = 0; gs && i < n; i++) {
        cs_shim_grid_free(&gs[i]);
    }
    free(gs);
}

/* Copies of the recorded grids this process owns and is a member of, in
 * *gs_p (free them with grids_free); their number, or -1 (nothing to
 * free) when memory ran out. */
static int own_grids(int me, cs_shim_grid_t **gs_p)
{
    int ng = cs_shim_grids_count(), n = 0;
    cs_shim_grid_t *gs = calloc((size_t)(ng > 0 ? ng : 1), sizeof(*gs));
    *gs_p = NULL;
    if (!gs) {
        return -1;
    }
    for (int i = 0; i < ng; i++) {
        if (cs_shim_grids_get(i, &gs[n]) != 0) {
            grids_free(gs, n);
            return -1;
        }
        if (gs[n].member && gs[n].owner == me) {
            n++;
        } else {
            cs_shim_grid_free(&gs[n]);
        }
    }
    *gs_p = gs;
    return n;
}

static int64_t *pack(const cs_shim_relabel_seen_t *seen, int me,
                     int64_t *wg_p, int64_t *wp_p)
{
    int64_t wg = 0, wp = 0;
    cs_shim_grid_t *gs;
    int ng = own_grids(me, &gs);
    if (ng < 0) {
        *wg_p = *wp_p = 0;
        return NULL;
    }
    for (int i = 0; i < ng; i++) {
        wg += 4 + (int64_t)gs[i].p * gs[i].q;
    }
    for (int k = 0; k < seen->npairs; k++) {
        const cs_rl_pair_t *p = &seen->pairs[k];
        wp += PAIR_HEAD + (p->v ? (int64_t)p->pa * p->pb : p->nfw);
    }
    int64_t *b = malloc((size_t)(wg + wp > 0 ? wg + wp : 1) *
                        sizeof(int64_t));
    if (!b) {
        grids_free(gs, ng);
        *wg_p = *wp_p = 0;
        return NULL;
    }
    int64_t o = 0;
    for (int i = 0; i < ng; i++) {
        const cs_shim_grid_t *r = &gs[i];
        b[o++] = r->stamp;
        b[o++] = r->p;
        b[o++] = r->q;
        b[o++] = r->order;
        for (int j = 0; j < r->p * r->q; j++) {
            b[o++] = r->map[j];
        }
    }
    grids_free(gs, ng);
    for (int k = 0; k < seen->npairs; k++) {
        const cs_rl_pair_t *p = &seen->pairs[k];
        int64_t n = p->v ? (int64_t)p->pa * p->pb : p->nfw;
        int64_t h[PAIR_HEAD] = {p->sa, p->oa, p->sb,    p->ob,
                                p->pa, p->pb, p->calls, p->v ? 0 : p->nfw};
        memcpy(b + o, h, sizeof(h));
        o += PAIR_HEAD;
        memcpy(b + o, p->v ? p->v : p->fw, (size_t)n * sizeof(int64_t));
        o += n;
    }
    *wg_p = wg;
    *wp_p = wp;
    return b;
}

/* Rank 0: read the words of `owner` (grids if what & 1, then pairs if
 * what & 2) into the problem.  Returns -1 on malformed input. */
static int unpack(cs_rl_problem_t *pb, int owner, const int64_t *h, int what,
                  int64_t *b)
{
    int64_t o = 0, end = 0;
    if (what & 1) {
        end = h[H_WGRIDS];
        while (o + 4 <= end) {
            int64_t p = b[o + 1], q = b[o + 2], n = p * q;
            if (p < 1 || q < 1 || n > pb->nworld || o + 4 + n > end) {
                return -1;
            }
            if (cs_rl_problem_add_grid(pb, (int)b[o], owner, (int)p, (int)q,
                                       (char)b[o + 3], NULL,
                                       b + o + 4) != CS_RL_OK) {
                return -1;
            }
            o += 4 + n;
        }
        if (o != end) {
            return -1;
        }
    }
    if (what & 2) {
        end = o + h[H_WPAIRS];
        while (o + PAIR_HEAD <= end) {
            int64_t pa = b[o + 4], pbn = b[o + 5], nfw = b[o + 7];
            int64_t n = nfw > 0 ? nfw : pa * pbn;
            if (pa < 1 || pbn < 1 || pa > pb->nworld || pbn > pb->nworld ||
                nfw < 0 || n > end - o - PAIR_HEAD) {
                return -1;
            }
            int64_t *w = b + o + PAIR_HEAD;
            pb->pr[pb->npairs++] =
                (cs_rl_pair_t){(int)b[o], (int)b[o + 1], (int)b[o + 2],
                               (int)b[o + 3], -1, -1, (int)pa, (int)pbn,
                               b[o + 6], nfw > 0 ? NULL : w,
                               nfw > 0 ? w : NULL, nfw};
            o += PAIR_HEAD + n;
        }
        if (o != end) {
            return -1;
        }
    }
    return 0;
}

/*
 * Rank 0 learns the node of every world rank (MPI's own idea of a node,
 * MPI_COMM_TYPE_SHARED; numbered in the order of their lowest rank) into
 * node, and with more than one node the problem takes it (pb->node, with
 * the weights of COSTA_SHIM_RELABEL_COST_*): the plan is then node-aware.
 * Collective over MPI_COMM_WORLD; node is rank 0's buffer of world-size
 * ints.
 */
static void world_nodes(int me, int *node, cs_rl_problem_t *pb)
{
    int lead = me, np = cs_shim_relabel_world_size();
    MPI_Comm local = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &local) == MPI_SUCCESS &&
        local != MPI_COMM_NULL) {
        MPI_Allreduce(&me, &lead, 1, MPI_INT, MPI_MIN, local);
        MPI_Comm_free(&local);
    }
    MPI_Gather(&lead, 1, MPI_INT, node, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me != 0) {
        return;
    }
    /* leaders to 0, 1, ...: a leader is the lowest rank of its node, so
     * node[l] for a leader l is set before any rank that follows it */
    int n = 0;
    for (int r = 0; r < np; r++) {
        node[r] = node[r] == r ? n++ : node[node[r]];
    }
    if (n > 1) {
        const cs_config_t *cfg = cs_cfg_get();
        pb->node = node;
        pb->nnodes = n;
        pb->w_rank = cfg->relabel_cost_rank;
        pb->w_node = cfg->relabel_cost_node > cfg->relabel_cost_rank
                         ? cfg->relabel_cost_node
                         : cfg->relabel_cost_rank;
    }
}

/* Scope world: gather every rank's grids and pairs to rank 0.  Collective
 * over MPI_COMM_WORLD; returns 0 on rank 0 with the problem filled (maybe
 * marked incomplete), -1 elsewhere or when rank 0 ran out of memory (all
 * ranks then skip the plan together). */
static int problem_world(const cs_shim_relabel_seen_t *seen,
                         cs_rl_problem_t *pb)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int me = cs_shim_relabel_world_rank();
    int np = cs_shim_relabel_world_size(), ok = 1, what = 0;
    int64_t wg = 0, wp = 0;
    int64_t *mine = pack(seen, me, &wg, &wp);
    int64_t h[H_N] = {seen->calls_seen, seen->cross_total,
                      (seen->incomplete || !mine ||
                       cs_shim_grids_created() != cs_shim_grids_count()
                           ? FL_INCOMPLETE
                           : 0) |
                          (seen->saturated ? FL_SATURATED : 0),
                      wg, wp};
    int64_t *hs = NULL;
    int *acc = NULL, *counts = NULL, *displs = NULL, *node = NULL;
    if (me == 0) {
        hs = malloc((size_t)np * H_N * sizeof(int64_t));
        acc = malloc((size_t)np * sizeof(int));
        counts = malloc((size_t)np * sizeof(int));
        displs = malloc((size_t)np * sizeof(int));
        node = malloc((size_t)np * sizeof(int));
        ok = hs && acc && counts && displs && node;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        goto out;
    }
    MPI_Gather(h, H_N, MPI_INT64_T, hs, H_N, MPI_INT64_T, 0, comm);
    world_nodes(me, node, pb);
    if (me == 0) {
        /* accept, in rank order, the grids first (without them no pair
         * can be placed), then the pairs, within the byte budget */
        int64_t budget = CS_SHIM_RELABEL_MAX_BYTES / (int64_t)sizeof(int64_t);
        int64_t total = 0, ngrids = 0, npairs = 0;
        for (int r = 0; r < np; r++) {
            const int64_t *hr = hs + (int64_t)r * H_N;
            acc[r] = 0;
            if (total + hr[H_WGRIDS] <= budget) {
                acc[r] |= 1;
                total += hr[H_WGRIDS];
                ngrids += hr[H_WGRIDS] / 5 + 1;
            } else {
                pb->incomplete = 1;
            }
        }
        for (int r = 0; r < np; r++) {
            const int64_t *hr = hs + (int64_t)r * H_N;
            if (total + hr[H_WPAIRS] <= budget) {
                acc[r] |= 2;
                total += hr[H_WPAIRS];
                npairs += hr[H_WPAIRS] / 8 + 1;
            } else {
                pb->incomplete = 1;
            }
        }
        pb->buf = malloc((size_t)(total > 0 ? total : 1) * sizeof(int64_t));
        pb->g = calloc((size_t)ngrids, sizeof(cs_rl_grid_t));
        pb->pr = calloc((size_t)npairs, sizeof(cs_rl_pair_t));
        if (!pb->buf || !pb->g || !pb->pr) {
            for (int r = 0; r < np; r++) {
                acc[r] = 0;
            }
            pb->incomplete = 1;
        }
        int64_t o = 0;
        for (int r = 0; r < np; r++) {
            const int64_t *hr = hs + (int64_t)r * H_N;
            counts[r] = (int)((acc[r] & 1 ? hr[H_WGRIDS] : 0) +
                              (acc[r] & 2 ? hr[H_WPAIRS] : 0));
            displs[r] = (int)o;
            o += counts[r];
        }
    }
    MPI_Scatter(acc, 1, MPI_INT, &what, 1, MPI_INT, 0, comm);
    int64_t *send = mine ? mine + (what & 1 ? 0 : wg) : NULL;
    int nsend = (int)((what & 1 ? wg : 0) + (what & 2 ? wp : 0));
    MPI_Gatherv(send, nsend, MPI_INT64_T, pb->buf, counts, displs,
                MPI_INT64_T, 0, comm);
    if (me != 0) {
        ok = 0;
        goto out;
    }
    pb->world = 1;
    pb->nworld = np;
    for (int r = 0; r < np; r++) {
        const int64_t *hr = hs + (int64_t)r * H_N;
        pb->calls_seen += hr[H_CALLS];
        pb->cross_total = cs_rl_add_sat(pb->cross_total, hr[H_CROSS],
                                        &pb->saturated);
        pb->incomplete |= (hr[H_FLAGS] & FL_INCOMPLETE) != 0;
        pb->saturated |= (hr[H_FLAGS] & FL_SATURATED) != 0;
        if (acc[r] && unpack(pb, r, hr, acc[r], pb->buf + displs[r]) != 0) {
            cs_log_warn("relabel: rank %d sent a malformed plan part; its "
                        "grids and volumes are left out",
                        r);
            pb->incomplete = 1;
        }
    }
out:
    if (!pb->node) {
        free(node);
    }
    free(displs);
    free(counts);
    free(acc);
    free(hs);
    free(mine);
    return ok ? 0 : -1;
}

int cs_shim_relabel_gather(int collective, cs_rl_problem_t *pb_p)
{
    cs_shim_relabel_seen_t seen;
    memset(pb_p, 0, sizeof(*pb_p));
    cs_shim_relabel_observe_flush(&seen);
    if (collective) {
        return problem_world(&seen, pb_p);
    }
    if (cs_shim_relabel_world_rank() == 0) {
        return problem_local(&seen, pb_p);
    }
    return -1;
}
