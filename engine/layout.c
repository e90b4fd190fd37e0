/*
 * engine/layout.c - one-dimensional distributions: which block holds an
 * index, where blocks start, who owns them and where they sit locally.
 *
 * No MPI, no allocation.  Block-cyclic distributions are evaluated from
 * their parameters (never expanded into arrays), so the cost of a plan grows
 * with the blocks inside the operated range, not with the whole matrix.
 */
#include "engine/engine_int.h"

const char *cs_status_str(cs_status_t status)
{
    static const char *const str[] = {
        [0] = "ok",
        [1] = "out of memory",
        [2] = "unsupported input",
        [3] = "invalid layout",
        [4] = "MPI error",
        [5] = "limit exceeded",
    };
    int i = -(int)status;
    return (i >= 0 && i < (int)(sizeof(str) / sizeof(str[0]))) ? str[i]
                                                               : "unknown";
}

cs_status_t cs_eng_dist_cyclic(int64_t n, int64_t nb, int64_t first, int src,
                               int nprocs, cs_eng_dist_t *dist_p)
{
    if (n < 0 || nb < 1 || first < 1 || nprocs < 1 || src < 0 ||
        src >= nprocs) {
        return CS_ERR_BAD_DESC;
    }
    cs_eng_dist_t d = {.kind = CS_ENG_DIST_CYCLIC,
                       .n = n,
                       .nprocs = nprocs,
                       .nb = nb,
                       .first = first,
                       .src = src};
    *dist_p = d;
    return CS_OK;
}

cs_status_t cs_eng_dist_check(const cs_eng_dist_t *d)
{
    if (d->n < 0 || d->nprocs < 1) {
        return CS_ERR_BAD_DESC;
    }
    if (d->kind == CS_ENG_DIST_CYCLIC) {
        if (d->nb < 1 || d->first < 1 || d->src < 0 || d->src >= d->nprocs) {
            return CS_ERR_BAD_DESC;
        }
        return CS_OK;
    }
    if (d->kind != CS_ENG_DIST_EXPLICIT || d->nblk < 0 || !d->splits ||
        !d->proc || !d->loff || d->splits[0] != 0 ||
        d->splits[d->nblk] != d->n) {
        return CS_ERR_BAD_DESC;
    }
    for (int64_t k = 0; k < d->nblk; k++) {
        if (d->splits[k + 1] <= d->splits[k] || d->proc[k] < 0 ||
            d->proc[k] >= d->nprocs) {
            return CS_ERR_BAD_DESC;
        }
    }
    return CS_OK;
}

void cs_eng_dist_normalize(const cs_eng_dist_t *in, cs_eng_dist_t *out_p)
{
    *out_p = *in;
    if (in->kind == CS_ENG_DIST_CYCLIC) {
        if (in->nprocs == 1 || in->first >= in->n) {
            /* RATIONALE: one coordinate (or one block) means local index ==
             * global index, whatever the block size; a single block keeps
             * the overlay and the copies as coarse as possible. */
            int64_t b = cs_eng_max64(in->n, 1);
            out_p->nb = b;
            out_p->first = b;
        }
    }
}

static int64_t dist_nblocks(const cs_eng_dist_t *d)
{
    if (d->kind == CS_ENG_DIST_EXPLICIT) {
        return d->nblk;
    }
    if (d->n == 0) {
        return 0;
    }
    if (d->n <= d->first) {
        return 1;
    }
    return 1 + (d->n - d->first + d->nb - 1) / d->nb;
}

int64_t cs_eng_dist_block_of(const cs_eng_dist_t *d, int64_t x)
{
    if (d->kind == CS_ENG_DIST_CYCLIC) {
        return x < d->first ? 0 : 1 + (x - d->first) / d->nb;
    }
    /* last k with splits[k] <= x */
    int64_t lo = 0, hi = d->nblk - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (d->splits[mid] <= x) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

int64_t cs_eng_dist_block_start(const cs_eng_dist_t *d, int64_t k)
{
    if (d->kind == CS_ENG_DIST_EXPLICIT) {
        return d->splits[k];
    }
    return k == 0 ? 0 : d->first + (k - 1) * d->nb;
}

int64_t cs_eng_dist_block_end(const cs_eng_dist_t *d, int64_t k)
{
    if (d->kind == CS_ENG_DIST_EXPLICIT) {
        return d->splits[k + 1];
    }
    return cs_eng_min64(d->first + k * d->nb, d->n);
}

int cs_eng_dist_proc(const cs_eng_dist_t *d, int64_t k)
{
    if (d->kind == CS_ENG_DIST_EXPLICIT) {
        return d->proc[k];
    }
    return (int)((d->src + k) % d->nprocs);
}

int64_t cs_eng_dist_loff(const cs_eng_dist_t *d, int64_t k)
{
    if (d->kind == CS_ENG_DIST_EXPLICIT) {
        return d->loff[k];
    }
    /* Blocks k - P, k - 2P, ... >= 0 precede k on its owner; all hold nb
     * elements except block 0, which holds `first`. */
    int64_t before = k / d->nprocs;
    int64_t off = before * d->nb;
    if (before > 0 && k % d->nprocs == 0) {
        off -= d->nb - d->first;
    }
    return off;
}

int64_t cs_eng_dist_local_size(const cs_eng_dist_t *din, int p)
{
    cs_eng_dist_t d;
    cs_eng_dist_normalize(din, &d);
    int64_t nblk = dist_nblocks(&d);
    if (d.kind == CS_ENG_DIST_EXPLICIT) {
        int64_t s = 0;
        for (int64_t k = 0; k < nblk; k++) {
            if (d.proc[k] == p) {
                s += d.splits[k + 1] - d.splits[k];
            }
        }
        return s;
    }
    int64_t k0 = ((int64_t)p - d.src + d.nprocs) % d.nprocs;
    if (k0 >= nblk) {
        return 0;
    }
    int64_t last = k0 + ((nblk - 1 - k0) / d.nprocs) * d.nprocs;
    return cs_eng_dist_loff(&d, last) + cs_eng_dist_block_end(&d, last) -
           cs_eng_dist_block_start(&d, last);
}
