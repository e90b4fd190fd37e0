/*
 * relabel/kron_inside.c - the exact assignment of a node's positions to
 * its processes (the two-level start's second level, kron_nodes.c), one
 * connected part of their volumes at a time.
 *
 * RATIONALE: a node of s processes plays s positions; the exact
 * assignment on the s x s volumes costs O(s^3), and many of those
 * volumes are zero (a node's positions were chosen for their data, but
 * a process holds data for a few of them).  A best assignment keeps the
 * most bytes on nonzero pairs, and the pairs split into connected
 * components (processes and positions linked by nonzero volumes) that do
 * not interact: the best assignment is the best one of each component
 * (square, padded with zeros), the processes and positions left over
 * paired as cs_rl_fill_free pairs them (they keep nothing either way).  At
 * P = 65,536 with 64 ranks per node (1,024 nodes of 64) the second level
 * took 28-36 ms with one assignment per node, about 9 ms so.
 *
 * Pure C, no MPI, no global state, deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/kron_int.h"

void cs_rl_inside_free(cs_rl_inside_t *w)
{
    free(w->loc);
    free(w->ea);
    free(w->eb);
    free(w->ew);
    free(w->eo);
    free(w->ints);
    free(w->vol);
    memset(w, 0, sizeof(*w));
}

cs_rl_status_t cs_rl_inside_init(cs_rl_inside_t *w, int P, int smax)
{
    size_t s = (size_t)smax;
    memset(w, 0, sizeof(*w));
    w->smax = smax;
    w->loc = malloc((size_t)P * sizeof(*w->loc));
    w->ea = malloc(s * s * sizeof(*w->ea));
    w->eb = malloc(s * s * sizeof(*w->eb));
    w->ew = malloc(s * s * sizeof(*w->ew));
    w->eo = malloc(s * s * sizeof(*w->eo));
    w->ints = malloc((12 * s + 2) * sizeof(*w->ints));
    w->vol = malloc(s * s * sizeof(*w->vol));
    if (!w->loc || !w->ea || !w->eb || !w->ew || !w->eo || !w->ints ||
        !w->vol) {
        cs_rl_inside_free(w);
        return CS_RL_ERR_NOMEM;
    }
    for (int j = 0; j < P; j++) {
        w->loc[j] = -1;
    }
    return CS_RL_OK;
}

/* Union-find over the node's processes (0..s-1) and positions (s..2s-1);
 * the smaller root is kept, so a component's root is its first member
 * and is a process whenever the component has one. */
static int root(int *up, int a)
{
    while (up[a] != a) {
        up[a] = up[up[a]];
        a = up[a];
    }
    return a;
}

static void join(int *up, int a, int b)
{
    a = root(up, a);
    b = root(up, b);
    if (a < b) {
        up[b] = a;
    } else if (b < a) {
        up[a] = b;
    }
}

/* The nonzero volumes of the node's processes to its positions, into
 * ea/eb/ew; returns their count.  A process's row is walked entry by
 * entry (products of its factor rows) unless it has more than s; then
 * its s positions are looked up, with R's entries of the positions kept
 * while the processes share a grid row (a node of consecutive ranks in
 * a row-major grid: one row for all). */
static int64_t node_edges(const cs_rl_kx_t *kx, const int *procs,
                          const int *pos, int s, cs_rl_inside_t *w)
{
    const cs_rl_fac_t *r = &kx->r, *c = &kx->c;
    int64_t ne = 0, *rrow = w->vol; /* s entries; vol is free until the
                                     * components are solved */
    int *vcol = w->ints, rx = -1;   /* s entries, free until then too */
    for (int b = 0; b < s; b++) {
        vcol[b] = kx->bv[pos[b]];
    }
    for (int a = 0; a < s; a++) {
        int k = procs[a], x = kx->ax[k], y = kx->ay[k];
        if (x < 0) {
            continue;
        }
        int64_t nr = r->rfirst[x + 1] - r->rfirst[x];
        int64_t nc = c->rfirst[y + 1] - c->rfirst[y];
        if (nr * nc > s) {
            if (x != rx) {
                for (int b = 0; b < s; b++) {
                    int u = kx->bu[pos[b]];
                    rrow[b] = u < 0 ? 0 : cs_rl_fac_at(r, x, u);
                }
                rx = x;
            }
            for (int b = 0; b < s; b++) {
                int64_t e = rrow[b] ? rrow[b] * cs_rl_fac_at(c, y, vcol[b])
                                    : 0;
                if (e > 0) {
                    w->ea[ne] = a;
                    w->eb[ne] = b;
                    w->ew[ne++] = e * kx->scale;
                }
            }
            continue;
        }
        for (int64_t e = r->rfirst[x]; e < r->rfirst[x + 1]; e++) {
            for (int64_t f = c->rfirst[y]; f < c->rfirst[y + 1]; f++) {
                int j = kx->cellq[(int64_t)r->rb[e] * c->nb + c->rb[f]];
                int b = j >= 0 ? w->loc[j] : -1;
                if (b >= 0) {
                    w->ea[ne] = a;
                    w->eb[ne] = b;
                    w->ew[ne++] = r->rw[e] * c->rw[f] * kx->scale;
                }
            }
        }
    }
    return ne;
}

/* One component: its processes mem[0..na), its positions (as s + b)
 * mem[na..na + nb), its edges eo[0..ne).  The best assignment of the
 * padded square, its nonzero pairs into lp (lp[b] = a). */
static cs_rl_status_t component(cs_rl_inside_t *w, int s, const int *mem,
                                int na, int nb, const int64_t *eo,
                                int64_t ne, int *slot, int *sol, int *lp)
{
    int k = na > nb ? na : nb;
    for (int i = 0; i < na + nb; i++) {
        slot[mem[i]] = i < na ? i : i - na;
    }
    memset(w->vol, 0, (size_t)k * (size_t)k * sizeof(*w->vol));
    for (int64_t e = 0; e < ne; e++) {
        int64_t x = eo[e];
        w->vol[(int64_t)slot[w->ea[x]] * k + slot[s + w->eb[x]]] = w->ew[x];
    }
    cs_rl_status_t st = cs_rl_solve_exact(k, w->vol, sol);
    for (int q = 0; st == CS_RL_OK && q < nb; q++) {
        int i = sol[q];
        if (i < na && w->vol[(int64_t)i * k + q] > 0) {
            lp[mem[na + q] - s] = mem[i];
        }
    }
    return st;
}

cs_rl_status_t cs_rl_kx_inside(const cs_rl_kx_t *kx, const int *procs,
                               const int *pos, int s, cs_rl_inside_t *w,
                               int *lp, int64_t *got_p)
{
    /* ints: up 2s, first 2s + 1, efirst 2s + 1, mem 2s, slot 2s, sol s,
     * used s (cs_rl_inside_init's 12 s + 2) */
    int *up = w->ints, *first = up + 2 * s, *efirst = first + 2 * s + 1;
    int *mem = efirst + 2 * s + 1, *slot = mem + 2 * s, *sol = slot + 2 * s;
    unsigned char *used = (unsigned char *)(sol + s);
    for (int b = 0; b < s; b++) {
        w->loc[pos[b]] = b;
    }
    int64_t ne = node_edges(kx, procs, pos, s, w);
    for (int b = 0; b < s; b++) {
        w->loc[pos[b]] = -1;
    }
    for (int q = 0; q < 2 * s; q++) {
        up[q] = q;
    }
    for (int64_t e = 0; e < ne; e++) {
        join(up, w->ea[e], s + w->eb[e]);
    }
    for (int q = 0; q < 2 * s; q++) {
        up[q] = root(up, q);
    }
    /* members and edges bucketed by root (counting sorts: each bucket in
     * increasing order) */
    memset(first, 0, ((size_t)4 * s + 2) * sizeof(*first));
    for (int q = 0; q < 2 * s; q++) {
        first[up[q] + 1]++;
    }
    for (int64_t e = 0; e < ne; e++) {
        efirst[up[w->ea[e]] + 1]++;
    }
    for (int q = 0; q < 2 * s; q++) {
        first[q + 1] += first[q];
        efirst[q + 1] += efirst[q];
    }
    for (int q = 0; q < 2 * s; q++) {
        mem[first[up[q]]++] = q;
    }
    for (int64_t e = 0; e < ne; e++) {
        w->eo[efirst[up[w->ea[e]]]++] = e;
    }
    /* first[q] and efirst[q] are now the ends of bucket q */
    for (int b = 0; b < s; b++) {
        lp[b] = -1;
        used[b] = 0;
    }
    cs_rl_status_t st = CS_RL_OK;
    for (int a = 0; a < s && st == CS_RL_OK; a++) {
        int m0 = a > 0 ? first[a - 1] : 0, e0 = a > 0 ? efirst[a - 1] : 0;
        if (up[a] != a || efirst[a] == e0) {
            continue; /* not a root, or a process without volumes */
        }
        int na = 0;
        while (mem[m0 + na] < s) {
            na++;
        }
        st = component(w, s, mem + m0, na, first[a] - m0 - na, w->eo + e0,
                       efirst[a] - e0, slot, sol, lp);
    }
    if (st != CS_RL_OK) {
        return st;
    }
    int64_t got = 0;
    for (int64_t e = 0; e < ne; e++) {
        got += lp[w->eb[e]] == w->ea[e] ? w->ew[e] : 0;
    }
    for (int b = 0; b < s; b++) {
        if (lp[b] >= 0) {
            used[lp[b]] = 1;
        }
    }
    cs_rl_fill_free(s, lp, used); /* the rest keep nothing either way */
    *got_p = got;
    return CS_RL_OK;
}
