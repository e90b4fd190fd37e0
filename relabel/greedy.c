/*
 * relabel/greedy.c - the greedy 2-approximation of the COSTA paper, the
 * pairwise-swap local improvement, and cs_rl_solve(), the driver that
 * picks exact or greedy by problem size.
 *
 * Pure C: no MPI, no environment, no logging, no global state (the only
 * system call is clock_gettime for the time budget and the reported
 * times).  Relies on cs_rl_vol_check(): P <= CS_RL_MAX_P < 2^16, so column
 * indices fit in uint16_t; entries >= 0 and their total fits in int64, so
 * sums of kept volumes (and of any two entries) never overflow.
 */
#include "relabel/relabel.h"
#include "relabel/relabel_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double rl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ greedy */

/*
 * RATIONALE: the greedy takes the entries in decreasing order, but it does
 * not need one global sort of all P^2 entries (16 bytes each to sort them
 * with their indices, and cache misses on every pass).  Each row is
 * sorted on its own, in cache, into 16-bit column indices (2 bytes per
 * nonzero; P <= CS_RL_MAX_P < 2^16), and a heap of the unmatched rows,
 * keyed by the best entry of each row whose column may still be free,
 * yields the entries in the global order (volume descending, then row,
 * then column): a row whose head column is taken advances past taken
 * columns and sinks.  That is O(nnz) memory and O(P^2 + nnz log P) time,
 * mostly sequential.
 */

/* Sort the column indices c[0, n) of one row by decreasing volume, ties
 * by increasing column (LSD radix sort on the complemented volume, one
 * byte per pass, skipping bytes equal in all entries).  Returns c or tmp,
 * whichever holds the result. */
static uint16_t *rl_row_sort(const int64_t *row, uint16_t *c, uint16_t *tmp,
                             int64_t n)
{
    if (n <= 32) {
        for (int64_t k = 1; k < n; k++) {
            uint16_t x = c[k];
            int64_t k2 = k;
            while (k2 > 0 && row[c[k2 - 1]] < row[x]) {
                c[k2] = c[k2 - 1];
                k2--;
            }
            c[k2] = x;
        }
        return c;
    }
    uint64_t lo = ~(uint64_t)0, hi = 0;
    for (int64_t k = 0; k < n; k++) {
        uint64_t key = ~(uint64_t)row[c[k]];
        lo &= key;
        hi |= key;
    }
    uint64_t varying = lo ^ hi;     /* bits not constant over the row */
    for (int b = 0; b < 8; b++) {
        int sh = 8 * b;
        if (((varying >> sh) & 0xff) == 0) {
            continue;
        }
        int64_t off[256] = {0};
        for (int64_t k = 0; k < n; k++) {
            off[((~(uint64_t)row[c[k]]) >> sh) & 0xff]++;
        }
        int64_t pos = 0;
        for (int d = 0; d < 256; d++) {
            int64_t cnt = off[d];
            off[d] = pos;
            pos += cnt;
        }
        for (int64_t k = 0; k < n; k++) {
            tmp[off[((~(uint64_t)row[c[k]]) >> sh) & 0xff]++] = c[k];
        }
        uint16_t *t = c;
        c = tmp;
        tmp = t;
    }
    return c;
}

/* Greedy on a checked matrix; perm_p gets the result. */
static int rl_greedy(int P, const int64_t *vol, int *perm_p)
{
    int64_t nnz = 0;
    int st = CS_RL_OK;
    int64_t *rowptr = malloc(((size_t)P + 1) * sizeof(int64_t));
    int64_t *ptr = malloc((size_t)P * sizeof(int64_t)); /* next entry */
    int64_t *head = malloc((size_t)P * sizeof(int64_t)); /* its volume */
    cs_rl_heap_t h = {malloc((size_t)P * sizeof(int)), 0, head};
    unsigned char *rowused = calloc((size_t)P, 1);
    int *perm = malloc((size_t)P * sizeof(int));
    uint16_t *tmp = malloc((size_t)P * sizeof(uint16_t));
    uint16_t *cols = NULL;
    if (rowptr == NULL || ptr == NULL || head == NULL || h.heap == NULL ||
        rowused == NULL || perm == NULL || tmp == NULL) {
        st = CS_RL_ERR_NOMEM;
        goto out;
    }
    rowptr[0] = 0;
    for (int i = 0; i < P; i++) {
        const int64_t *row = vol + (int64_t)i * P;
        int64_t c = 0;
        for (int j = 0; j < P; j++) {
            c += row[j] > 0;
        }
        nnz += c;
        rowptr[i + 1] = nnz;
    }
    cols = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(uint16_t));
    if (cols == NULL) {
        st = CS_RL_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < P; i++) {
        const int64_t *row = vol + (int64_t)i * P;
        uint16_t *c = cols + rowptr[i];
        int64_t n = 0;
        for (int j = 0; j < P; j++) {
            if (row[j] > 0) {
                c[n++] = (uint16_t)j;
            }
        }
        uint16_t *sorted = rl_row_sort(row, c, tmp, n);
        if (sorted != c) {
            memcpy(c, sorted, (size_t)n * sizeof(uint16_t));
        }
        ptr[i] = rowptr[i];
        if (n > 0) {
            head[i] = row[c[0]];
            h.heap[h.n++] = i;
        }
    }
    cs_rl_heap_make(&h);
    /* perm[j] == -1: position j still free */
    for (int j = 0; j < P; j++) {
        perm[j] = -1;
    }
    int matched = 0;
    while (h.n > 0 && matched < P) {
        int i = h.heap[0];
        int j = cols[ptr[i]];
        if (perm[j] < 0) {
            perm[j] = i;
            rowused[i] = 1;
            matched++;
            cs_rl_heap_pop(&h);
            continue;
        }
        int64_t k = ptr[i] + 1;
        while (k < rowptr[i + 1] && perm[cols[k]] >= 0) {
            k++;
        }
        if (k < rowptr[i + 1]) {
            ptr[i] = k;
            head[i] = vol[(int64_t)i * P + cols[k]];
            cs_rl_heap_down(&h, 0);
        } else {
            cs_rl_heap_pop(&h);
        }
    }
    cs_rl_fill_free(P, perm, rowused);
    memcpy(perm_p, perm, (size_t)P * sizeof(int));
out:
    free(cols);
    free(tmp);
    free(perm);
    free(rowused);
    free(h.heap);
    free(head);
    free(ptr);
    free(rowptr);
    return st;
}

/* ------------------------------------------------------------ improve */

/*
 * RATIONALE: a swap of positions j1 and j2 (processes a = perm[j1], b =
 * perm[j2]) gains vol[b][j1] + vol[a][j2] - vol[a][j1] - vol[b][j2],
 * which can be positive only if vol[b][j1] > 0 or vol[a][j2] > 0.  So a
 * pass walks the rows: for every process b and every position j1 with
 * vol[b][j1] > 0 it tries to move b from its position j2 to j1.  Every
 * improving pair is met from one of its sides.  The rows are read in
 * order; vol[a][j2] is a cache miss (column j2, row a = perm[j1]), so it
 * is read only when vol[b][j1] + (largest entry of column j2) beats the
 * kept volume of both positions, which after the greedy is rare.  A pass
 * costs O(P^2) sequential reads plus few random ones, with O(P) memory.
 */
static int rl_improve(int P, const int64_t *vol, int max_passes,
                      double budget_s, int *perm, int *passes_p,
                      int64_t *swaps_p)
{
    double t0 = budget_s > 0 ? rl_now() : 0.0;
    int passes = 0;
    int64_t swaps = 0;
    int64_t *kept = malloc((size_t)P * sizeof(int64_t));
    int64_t *colmax = calloc((size_t)P, sizeof(int64_t));
    int *pos = malloc((size_t)P * sizeof(int));
    if (kept == NULL || colmax == NULL || pos == NULL) {
        free(pos);
        free(colmax);
        free(kept);
        return CS_RL_ERR_NOMEM;
    }
    for (int i = 0; i < P; i++) {
        const int64_t *row = vol + (int64_t)i * P;
        for (int j = 0; j < P; j++) {
            colmax[j] = row[j] > colmax[j] ? row[j] : colmax[j];
        }
    }
    for (int j = 0; j < P; j++) {
        pos[perm[j]] = j;
        kept[j] = vol[(int64_t)perm[j] * P + j];
    }
    int timeout = 0;
    while (passes < max_passes && !timeout) {
        int64_t before = swaps;
        passes++;
        for (int b = 0; b < P; b++) {
            if (budget_s > 0 && (b & 63) == 0 && rl_now() - t0 > budget_s) {
                timeout = 1;
                break;
            }
            const int64_t *row = vol + (int64_t)b * P;
            int j2 = pos[b];
            int64_t lim = colmax[j2] - kept[j2];
            for (int j1 = 0; j1 < P; j1++) {
                int64_t nb1 = row[j1];
                /* nb1 + colmax[j2] <= kept[j1] + kept[j2]: no gain */
                if (nb1 == 0 || nb1 + lim <= kept[j1] || j1 == j2) {
                    continue;
                }
                int a = perm[j1];
                int64_t na2 = vol[(int64_t)a * P + j2];
                if (nb1 + na2 > kept[j1] + kept[j2]) {
                    perm[j1] = b;
                    perm[j2] = a;
                    pos[b] = j1;
                    pos[a] = j2;
                    kept[j1] = nb1;
                    kept[j2] = na2;
                    j2 = j1;
                    lim = colmax[j2] - kept[j2];
                    swaps++;
                }
            }
        }
        if (swaps == before) {
            break;
        }
    }
    if (passes_p != NULL) {
        *passes_p = passes;
    }
    if (swaps_p != NULL) {
        *swaps_p = swaps;
    }
    free(pos);
    free(colmax);
    free(kept);
    return CS_RL_OK;
}

/* ------------------------------------------------------------ public */

cs_rl_status_t cs_rl_solve_greedy(int P, const int64_t *vol, int improve,
                                  int *perm_p)
{
    int st = cs_rl_vol_check(P, vol, NULL, NULL);
    if (st != CS_RL_OK) {
        return st;
    }
    if (perm_p == NULL) {
        return CS_RL_ERR_INVALID;
    }
    int *perm = malloc((size_t)P * sizeof(int));
    if (perm == NULL) {
        return CS_RL_ERR_NOMEM;
    }
    st = rl_greedy(P, vol, perm);
    if (st == CS_RL_OK && improve > 0) {
        st = rl_improve(P, vol, improve, 0.0, perm, NULL, NULL);
    }
    if (st == CS_RL_OK) {
        memcpy(perm_p, perm, (size_t)P * sizeof(int));
    }
    free(perm);
    return st;
}

cs_rl_status_t cs_rl_improve(int P, const int64_t *vol, int max_passes,
                             double time_budget_s, int *perm,
                             int *passes_p, int64_t *swaps_p)
{
    int st = cs_rl_vol_check(P, vol, NULL, NULL);
    if (st != CS_RL_OK) {
        return st;
    }
    if (!cs_rl_perm_check(P, perm)) {
        return CS_RL_ERR_INVALID;
    }
    if (max_passes < 1) {
        if (passes_p != NULL) {
            *passes_p = 0;
        }
        if (swaps_p != NULL) {
            *swaps_p = 0;
        }
        return CS_RL_OK;
    }
    /* work on a copy: perm stays unchanged on error */
    int *work = malloc((size_t)P * sizeof(int));
    if (work == NULL) {
        return CS_RL_ERR_NOMEM;
    }
    memcpy(work, perm, (size_t)P * sizeof(int));
    st = rl_improve(P, vol, max_passes, time_budget_s, work, passes_p,
                    swaps_p);
    if (st == CS_RL_OK) {
        memcpy(perm, work, (size_t)P * sizeof(int));
    }
    free(work);
    return st;
}

static int64_t rl_kept(int P, const int64_t *vol, const int *perm)
{
    int64_t kept = 0;
    for (int j = 0; j < P; j++) {
        kept += vol[(int64_t)perm[j] * P + j];
    }
    return kept;
}

cs_rl_status_t cs_rl_solve(int P, const int64_t *vol, double time_budget_s,
                           int *perm_p, cs_rl_result_t *res_p)
{
    double t0 = rl_now();
    int64_t total;
    int st = cs_rl_vol_check(P, vol, &total, NULL);
    if (st != CS_RL_OK) {
        return st;
    }
    if (perm_p == NULL) {
        return CS_RL_ERR_INVALID;
    }
    cs_rl_result_t r = {.P = P, .total = total, .improved_volume = -1,
                        .exact_volume = -1};
    int *greedy = malloc((size_t)P * sizeof(int));
    int *best = malloc((size_t)P * sizeof(int));
    if (greedy == NULL || best == NULL) {
        st = CS_RL_ERR_NOMEM;
        goto out;
    }
    int64_t trace = 0;
    for (int j = 0; j < P; j++) {
        trace += vol[(int64_t)j * P + j];
    }
    r.identity_volume = total - trace;

    double t = rl_now();
    st = rl_greedy(P, vol, greedy);
    r.greedy_s = rl_now() - t;
    if (st != CS_RL_OK) {
        goto out;
    }
    r.greedy_volume = total - rl_kept(P, vol, greedy);

    int have_best = 0;
    if (P <= CS_RL_EXACT_MAX_P) {
        t = rl_now();
        st = cs_rl_solve_exact(P, vol, best);
        r.exact_s = rl_now() - t;
        if (st == CS_RL_OK) {
            r.exact_volume = total - rl_kept(P, vol, best);
            have_best = 1;
        } else if (st != CS_RL_ERR_LIMIT) {
            goto out;
        }
        st = CS_RL_OK;
    }
    if (!have_best) {
        /* improve the better start; the identity may beat the greedy */
        if (r.greedy_volume <= r.identity_volume) {
            memcpy(best, greedy, (size_t)P * sizeof(int));
        } else {
            for (int j = 0; j < P; j++) {
                best[j] = j;
            }
        }
        t = rl_now();
        st = rl_improve(P, vol, CS_RL_IMPROVE_MAX_PASSES, time_budget_s, best,
                        &r.improve_passes, &r.improve_swaps);
        r.improve_s = rl_now() - t;
        if (st != CS_RL_OK) {
            goto out;
        }
        r.improved_volume = total - rl_kept(P, vol, best);
    }
    r.volume = r.exact_volume >= 0 ? r.exact_volume : r.improved_volume;
    r.method = r.exact_volume >= 0 ? CS_RL_METHOD_EXACT : CS_RL_METHOD_GREEDY;
    if (r.identity_volume <= r.volume) {
        for (int j = 0; j < P; j++) {
            best[j] = j;
        }
        r.volume = r.identity_volume;
        r.method = CS_RL_METHOD_IDENTITY;
    }
    memcpy(perm_p, best, (size_t)P * sizeof(int));
    r.total_s = rl_now() - t0;
    if (res_p != NULL) {
        *res_p = r;
    }
out:
    free(best);
    free(greedy);
    return st;
}
