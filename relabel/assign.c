/*
 * relabel/assign.c - the exact relabeling solver (linear assignment by
 * Jonker-Volgenant) and the module's small helpers: status strings, input
 * validation, permutation check, crossing volume.
 *
 * Pure C: no MPI, no environment, no logging, no global state.
 * Invariants: P is checked against CS_RL_MAX_P, so P * P fits in int64 and
 * every row offset is computed in int64; entries are >= 0 and their total
 * fits in int64 (cs_rl_vol_check).
 */
#include "relabel/relabel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

const char *cs_rl_status_str(cs_rl_status_t status)
{
    switch (status) {
    case CS_RL_OK:
        return "ok";
    case CS_RL_ERR_NOMEM:
        return "out of memory";
    case CS_RL_ERR_INVALID:
        return "invalid argument";
    case CS_RL_ERR_LIMIT:
        return "volume too large";
    }
    return "unknown status";
}

cs_rl_status_t cs_rl_vol_check(int P, const int64_t *vol,
                               int64_t *total_p, int64_t *max_p)
{
    if (P < 1 || P > CS_RL_MAX_P || vol == NULL) {
        return CS_RL_ERR_INVALID;
    }
    int64_t n = (int64_t)P * P, total = 0, vmax = 0;
    int overflow = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t x = vol[k];
        if (x < 0) {
            return CS_RL_ERR_INVALID;
        }
        if (x > vmax) {
            vmax = x;
        }
        overflow |= __builtin_add_overflow(total, x, &total);
    }
    if (overflow) {
        return CS_RL_ERR_LIMIT;
    }
    if (total_p != NULL) {
        *total_p = total;
    }
    if (max_p != NULL) {
        *max_p = vmax;
    }
    return CS_RL_OK;
}

int cs_rl_perm_check(int P, const int *perm)
{
    if (P < 1 || perm == NULL) {
        return 0;
    }
    unsigned char *seen = calloc((size_t)P, 1);
    if (seen == NULL) {
        return 0;
    }
    int ok = 1;
    for (int j = 0; j < P && ok; j++) {
        if (perm[j] < 0 || perm[j] >= P || seen[perm[j]]) {
            ok = 0;
        } else {
            seen[perm[j]] = 1;
        }
    }
    free(seen);
    return ok;
}

int64_t cs_rl_crossing_volume(int P, const int64_t *vol, const int *perm)
{
    int64_t total;
    if (cs_rl_vol_check(P, vol, &total, NULL) != CS_RL_OK) {
        return -1;
    }
    if (perm != NULL && !cs_rl_perm_check(P, perm)) {
        return -1;
    }
    int64_t kept = 0;
    for (int j = 0; j < P; j++) {
        int i = perm != NULL ? perm[j] : j;
        kept += vol[(int64_t)i * P + j];
    }
    return total - kept;
}

/* ------------------------------------------------------------ exact */

/*
 * Jonker & Volgenant, "A shortest augmenting path algorithm for dense and
 * sparse linear assignment problems", Computing 38 (1987), dense variant,
 * on cost c(i, j) = -vol[i][j]: rows are processes, columns positions.
 *
 * RATIONALE (overflow): with costs in [-C, 0], C the largest entry, the
 * column prices v start as column minima in [-C, 0] and only decrease.
 * Every assigned row i is tight (its column k minimises c(i, .) - v), so
 * v[j] <= v[k] + c(i, j) - c(i, k) <= v[k] + C for every column j: no
 * assigned column's price is more than C below an unassigned column's,
 * whose price never changes after the column reduction, and an
 * unassigned column exists while a row is free.  So v stays in [-2C, 0],
 * and the reduced costs and Dijkstra labels in [-C, 3C]; C <= INT64_MAX
 * / 16 leaves ample room.
 *
 * RATIONALE (bounded row reduction): the augmenting row reduction phase
 * may in principle ping-pong between rows for a long time on integer
 * costs with a large range (each round lowers a price by as little as 1).
 * It is only a heuristic speed-up, so each pass is capped at
 * CS_RL_ARR_STEPS_PER_ROW * P steps; rows still free then go to the
 * augmentation phase, which is exact on its own.  Each step keeps every
 * assigned row tight, so stopping between steps is safe.
 */
enum { CS_RL_ARR_STEPS_PER_ROW = 8 };

typedef struct {
    int P;
    const int64_t *vol;
    int64_t *v;     /* column prices */
    int64_t *d;     /* shortest path labels */
    int *rowsol;    /* row -> column, -1 */
    int *colsol;    /* column -> row, -1 */
    int *freerow;   /* unassigned rows */
    int *collist;   /* columns in Dijkstra order */
    int *pred;      /* predecessor row of each column */
    int nfree;
} cs_rl_jv_t;

static inline int64_t jv_cost(const cs_rl_jv_t *s, int i, int j)
{
    return -s->vol[(int64_t)i * s->P + j];
}

/* Column reduction and reduction transfer: a partial assignment of
 * tight pairs and the list of free rows. */
static void jv_init(cs_rl_jv_t *s, int *imin, int *matches)
{
    int P = s->P;
    /* Column minima by rows, which reads vol contiguously; ties go to the
     * smallest row, as in the column-wise original. */
    for (int j = 0; j < P; j++) {
        s->v[j] = jv_cost(s, 0, j);
        imin[j] = 0;
    }
    for (int i = 1; i < P; i++) {
        const int64_t *row = s->vol + (int64_t)i * P;
        for (int j = 0; j < P; j++) {
            if (-row[j] < s->v[j]) {
                s->v[j] = -row[j];
                imin[j] = i;
            }
        }
    }
    memset(matches, 0, (size_t)P * sizeof(int));
    for (int i = 0; i < P; i++) {
        s->rowsol[i] = -1;
    }
    for (int j = P - 1; j >= 0; j--) {
        int i = imin[j];
        if (++matches[i] == 1) {
            s->rowsol[i] = j;
            s->colsol[j] = i;
        } else if (s->v[j] < s->v[s->rowsol[i]]) {
            int j1 = s->rowsol[i];
            s->rowsol[i] = j;
            s->colsol[j] = i;
            s->colsol[j1] = -1;
        } else {
            s->colsol[j] = -1;
        }
    }
    s->nfree = 0;
    for (int i = 0; i < P; i++) {
        if (matches[i] == 0) {
            s->freerow[s->nfree++] = i;
        } else if (matches[i] == 1) {
            int j1 = s->rowsol[i];
            int64_t min = INT64_MAX;
            for (int j = 0; j < P; j++) {
                int64_t h = jv_cost(s, i, j) - s->v[j];
                if (j != j1 && h < min) {
                    min = h;
                }
            }
            s->v[j1] -= min;
        }
    }
}

/* One pass of augmenting row reduction over the free rows. */
static void jv_arr_pass(cs_rl_jv_t *s)
{
    int P = s->P;
    int k = 0, prvnfree = s->nfree;
    int64_t steps = 0, max_steps = (int64_t)CS_RL_ARR_STEPS_PER_ROW * P;
    s->nfree = 0;
    while (k < prvnfree) {
        if (steps++ >= max_steps) {
            /* keep the unprocessed rows free (nfree <= k always holds) */
            memmove(s->freerow + s->nfree, s->freerow + k,
                    (size_t)(prvnfree - k) * sizeof(int));
            s->nfree += prvnfree - k;
            return;
        }
        int i = s->freerow[k++];
        const int64_t *row = s->vol + (int64_t)i * P;
        int64_t umin = -row[0] - s->v[0], usubmin = INT64_MAX;
        int j1 = 0, j2 = -1;
        for (int j = 1; j < P; j++) {
            int64_t h = -row[j] - s->v[j];
            if (h < usubmin) {
                if (h >= umin) {
                    usubmin = h;
                    j2 = j;
                } else {
                    usubmin = umin;
                    umin = h;
                    j2 = j1;
                    j1 = j;
                }
            }
        }
        int i0 = s->colsol[j1];
        if (umin < usubmin) {
            s->v[j1] -= usubmin - umin;
        } else if (i0 >= 0) {
            j1 = j2;
            i0 = s->colsol[j2];
        }
        s->rowsol[i] = j1;
        s->colsol[j1] = i;
        if (i0 >= 0) {
            s->rowsol[i0] = -1;
            if (umin < usubmin) {
                s->freerow[--k] = i0;
            } else {
                s->freerow[s->nfree++] = i0;
            }
        }
    }
}

/* Shortest augmenting path (Dijkstra on reduced costs) from a free row,
 * then the price update and the augmentation along the path. */
static void jv_augment(cs_rl_jv_t *s, int f)
{
    int P = s->P;
    int64_t *v = s->v, *d = s->d;
    int *collist = s->collist, *pred = s->pred, *colsol = s->colsol;
    const int64_t *frow = s->vol + (int64_t)f * P;
    for (int j = 0; j < P; j++) {
        d[j] = -frow[j] - v[j];
        pred[j] = f;
        collist[j] = j;
    }
    /* collist[0, low): scanned; [low, up): at distance min, to scan;
     * [up, P): the rest. */
    int low = 0, up = 0, last = 0, endofpath = -1;
    int64_t min = 0;
    while (endofpath < 0) {
        if (up == low) {
            last = low - 1;
            min = d[collist[up++]];
            for (int k = up; k < P; k++) {
                int j = collist[k];
                int64_t h = d[j];
                if (h <= min) {
                    if (h < min) {
                        up = low;
                        min = h;
                    }
                    collist[k] = collist[up];
                    collist[up++] = j;
                }
            }
            for (int k = low; k < up; k++) {
                if (colsol[collist[k]] < 0) {
                    endofpath = collist[k];
                    break;
                }
            }
        }
        if (endofpath >= 0) {
            break;
        }
        int j1 = collist[low++];
        int i = colsol[j1];
        const int64_t *row = s->vol + (int64_t)i * P;
        int64_t h = -row[j1] - v[j1] - min;
        for (int k = up; k < P; k++) {
            int j = collist[k];
            int64_t v2 = -row[j] - v[j] - h;
            if (v2 < d[j]) {
                pred[j] = i;
                if (v2 == min) {
                    if (colsol[j] < 0) {
                        endofpath = j;
                        break;
                    }
                    collist[k] = collist[up];
                    collist[up++] = j;
                }
                d[j] = v2;
            }
        }
    }
    for (int k = 0; k <= last; k++) {
        int j1 = collist[k];
        v[j1] += d[j1] - min;
    }
    int i;
    do {
        i = pred[endofpath];
        colsol[endofpath] = i;
        int j1 = endofpath;
        endofpath = s->rowsol[i];
        s->rowsol[i] = j1;
    } while (i != f);
}

cs_rl_status_t cs_rl_solve_exact(int P, const int64_t *vol, int *perm_p)
{
    int64_t vmax;
    int st = cs_rl_vol_check(P, vol, NULL, &vmax);
    if (st != CS_RL_OK) {
        return st;
    }
    if (perm_p == NULL) {
        return CS_RL_ERR_INVALID;
    }
    if (vmax > INT64_MAX / 16) {
        return CS_RL_ERR_LIMIT;
    }
    if (P == 1) {
        perm_p[0] = 0;
        return CS_RL_OK;
    }
    cs_rl_jv_t s = {.P = P, .vol = vol};
    size_t n = (size_t)P;
    s.v = malloc(n * sizeof(int64_t));
    s.d = malloc(n * sizeof(int64_t));
    int *ibuf = malloc(5 * n * sizeof(int));
    if (s.v == NULL || s.d == NULL || ibuf == NULL) {
        st = CS_RL_ERR_NOMEM;
        goto out;
    }
    s.rowsol = ibuf;
    s.colsol = ibuf + n;
    s.freerow = ibuf + 2 * n;
    s.collist = ibuf + 3 * n;
    s.pred = ibuf + 4 * n;
    /* collist and pred are free until the augmentation phase */
    jv_init(&s, s.collist, s.pred);
    for (int pass = 0; pass < 2 && s.nfree > 0; pass++) {
        jv_arr_pass(&s);
    }
    for (int k = 0; k < s.nfree; k++) {
        jv_augment(&s, s.freerow[k]);
    }
    for (int j = 0; j < P; j++) {
        perm_p[j] = s.colsol[j];
    }
out:
    free(ibuf);
    free(s.d);
    free(s.v);
    return st;
}
