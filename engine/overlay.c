/*
 * engine/overlay.c - the grid overlay along one dimension.
 *
 * The union of A's and B's block boundaries inside the operated range cuts
 * it into segments; each segment lies in one A block and one B block, so it
 * has one A owner coordinate pa and one B owner coordinate pb.  Segments
 * with the same (pa, pb) form a group: the rows (or columns) that coordinate
 * pa sends to coordinate pb.  A package between two ranks is the product of
 * one row group and one column group per pair of grid cells.
 *
 * Runs merge consecutive segments of a group that are contiguous in local
 * memory, separately for the A side, the B side and both, so copies stay
 * long even where the other layout's blocks are small.
 *
 * No MPI.  Everything computed here is the same on every rank except the
 * local offsets, which only matter on the owners.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

void cs_eng_overlay_free(cs_eng_overlay_t *ov)
{
    free(ov->seg);
    free(ov->group);
    free(ov->by_pb);
    for (int s = 0; s < CS_ENG_NSIDES; s++) {
        free(ov->runs[s]);
    }
    memset(ov, 0, sizeof(*ov));
}

/* Sort keys: qsort has no context argument, so sort small key records. */
typedef struct {
    int k1, k2;
    int64_t idx;
} key_t_;

static int key_cmp(const void *x, const void *y)
{
    const key_t_ *a = x, *b = y;
    if (a->k1 != b->k1) {
        return a->k1 < b->k1 ? -1 : 1;
    }
    if (a->k2 != b->k2) {
        return a->k2 < b->k2 ? -1 : 1;
    }
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

static int64_t count_segments(const cs_eng_dist_t *da, int64_t oa,
                              const cs_eng_dist_t *db, int64_t ob,
                              int64_t len)
{
    if (len <= 0) {
        return 0;
    }
    /* boundaries strictly inside the range, counted on both sides; shared
     * boundaries are counted twice, so this is an upper bound */
    int64_t na = cs_eng_dist_block_of(da, oa + len - 1) -
                 cs_eng_dist_block_of(da, oa);
    int64_t nb = cs_eng_dist_block_of(db, ob + len - 1) -
                 cs_eng_dist_block_of(db, ob);
    return na + nb + 1;
}

/* prev: the group's segment before s (the run r ends with it). */
static int runs_mergeable(const cs_eng_run_t *r, const cs_eng_seg_t *prev,
                          const cs_eng_seg_t *s, int side, int keep_index)
{
    int next_index = r->start + r->len == s->start;
    if (side == CS_ENG_SIDE_CUT) {
        return next_index && prev->kb == s->kb;
    }
    if (keep_index && !next_index) {
        return 0;
    }
    int a_ok = r->offa + r->len == s->offa;
    int b_ok = r->offb + r->len == s->offb;
    if (side == CS_ENG_SIDE_A) {
        return a_ok;
    }
    if (side == CS_ENG_SIDE_B) {
        return b_ok;
    }
    return a_ok && b_ok;
}

cs_status_t cs_eng_overlay_build(const cs_eng_dist_t *da, int64_t oa,
                                 const cs_eng_dist_t *db, int64_t ob,
                                 int64_t len, int keep_index,
                                 cs_eng_overlay_t *ov_p)
{
    cs_eng_overlay_t ov;
    memset(&ov, 0, sizeof(ov));
    int64_t cap = count_segments(da, oa, db, ob, len);
    key_t_ *keys = NULL;
    if (cap == 0) {
        *ov_p = ov;
        return CS_OK;
    }
    ov.seg = malloc((size_t)cap * sizeof(*ov.seg));
    keys = malloc((size_t)cap * sizeof(*keys));
    if (!ov.seg || !keys) {
        goto err_nomem;
    }

    /* walk both block sequences at once */
    int64_t ka = cs_eng_dist_block_of(da, oa);
    int64_t kb = cs_eng_dist_block_of(db, ob);
    int64_t enda = cs_eng_dist_block_end(da, ka) - oa;
    int64_t endb = cs_eng_dist_block_end(db, kb) - ob;
    for (int64_t x = 0; x < len;) {
        int64_t e = cs_eng_min64(cs_eng_min64(enda, endb), len);
        cs_eng_seg_t *s = &ov.seg[ov.nseg++];
        s->start = x;
        s->len = e - x;
        s->pa = cs_eng_dist_proc(da, ka);
        s->pb = cs_eng_dist_proc(db, kb);
        s->offa = cs_eng_dist_loff(da, ka) + oa + x -
                  cs_eng_dist_block_start(da, ka);
        s->offb = cs_eng_dist_loff(db, kb) + ob + x -
                  cs_eng_dist_block_start(db, kb);
        s->kb = kb;
        x = e;
        if (x == enda && x < len) {
            ka++;
            enda = cs_eng_dist_block_end(da, ka) - oa;
        }
        if (x == endb && x < len) {
            kb++;
            endb = cs_eng_dist_block_end(db, kb) - ob;
        }
    }

    /* group by (pa, pb), segments in index order inside a group */
    for (int64_t i = 0; i < ov.nseg; i++) {
        keys[i] = (key_t_){ov.seg[i].pa, ov.seg[i].pb, i};
    }
    qsort(keys, (size_t)ov.nseg, sizeof(*keys), key_cmp);
    int64_t ngroup = 0;
    for (int64_t i = 0; i < ov.nseg; i++) {
        if (i == 0 || keys[i].k1 != keys[i - 1].k1 ||
            keys[i].k2 != keys[i - 1].k2) {
            ngroup++;
        }
    }
    ov.group = calloc((size_t)ngroup, sizeof(*ov.group));
    ov.by_pb = malloc((size_t)ngroup * sizeof(*ov.by_pb));
    for (int s = 0; s < CS_ENG_NSIDES; s++) {
        ov.runs[s] = malloc((size_t)ov.nseg * sizeof(*ov.runs[s]));
        if (!ov.runs[s]) {
            goto err_nomem;
        }
    }
    if (!ov.group || !ov.by_pb) {
        goto err_nomem;
    }
    ov.ngroup = 0;
    for (int64_t i = 0; i < ov.nseg; i++) {
        cs_eng_seg_t *s = &ov.seg[keys[i].idx];
        if (i == 0 || keys[i].k1 != keys[i - 1].k1 ||
            keys[i].k2 != keys[i - 1].k2) {
            cs_eng_group_t *g = &ov.group[ov.ngroup++];
            g->pa = s->pa;
            g->pb = s->pb;
            for (int side = 0; side < CS_ENG_NSIDES; side++) {
                g->run_first[side] = ov.nrun[side];
            }
        }
        cs_eng_group_t *g = &ov.group[ov.ngroup - 1];
        s->pos = g->total;
        g->total += s->len;
        for (int side = 0; side < CS_ENG_NSIDES; side++) {
            cs_eng_run_t *r = g->run_count[side] > 0
                                  ? &ov.runs[side][ov.nrun[side] - 1]
                                  : NULL;
            if (r && runs_mergeable(r, &ov.seg[keys[i - 1].idx], s, side,
                                    keep_index)) {
                r->len += s->len;
            } else {
                r = &ov.runs[side][ov.nrun[side]++];
                *r = (cs_eng_run_t){s->pos, s->len, s->offa, s->offb,
                                    s->start};
                g->run_count[side]++;
            }
        }
    }

    /* groups ordered by (pb, pa) for the receiving side */
    for (int64_t g = 0; g < ov.ngroup; g++) {
        keys[g] = (key_t_){ov.group[g].pb, ov.group[g].pa, g};
    }
    qsort(keys, (size_t)ov.ngroup, sizeof(*keys), key_cmp);
    for (int64_t g = 0; g < ov.ngroup; g++) {
        ov.by_pb[g] = keys[g].idx;
    }
    free(keys);
    *ov_p = ov;
    return CS_OK;

err_nomem:
    free(keys);
    cs_eng_overlay_free(&ov);
    return CS_ERR_NOMEM;
}

cs_status_t cs_eng_overlay_restrict(cs_eng_overlay_t *ov,
                                    const unsigned char *keep_pa,
                                    const unsigned char *keep_pb)
{
    int64_t ngroup = 0, nrun[CS_ENG_NSIDES] = {0, 0, 0, 0}, nseg = 0;
    for (int64_t g = 0; g < ov->ngroup; g++) {
        const cs_eng_group_t *gr = &ov->group[g];
        if (keep_pa[gr->pa] || keep_pb[gr->pb]) {
            ngroup++;
            for (int side = 0; side < CS_ENG_NSIDES; side++) {
                nrun[side] += gr->run_count[side];
            }
        }
    }
    for (int64_t i = 0; i < ov->nseg; i++) {
        nseg += keep_pa[ov->seg[i].pa] || keep_pb[ov->seg[i].pb];
    }
    /* +1: malloc(0) may return NULL */
    cs_eng_overlay_t k;
    memset(&k, 0, sizeof(k));
    int64_t *map = malloc(((size_t)ov->ngroup + 1) * sizeof(*map));
    k.group = malloc(((size_t)ngroup + 1) * sizeof(*k.group));
    k.by_pb = malloc(((size_t)ngroup + 1) * sizeof(*k.by_pb));
    int ok = map && k.group && k.by_pb;
    for (int side = 0; side < CS_ENG_NSIDES; side++) {
        k.runs[side] = malloc(((size_t)nrun[side] + 1) * sizeof(*k.runs[0]));
        ok = ok && k.runs[side];
    }
    if (!ok) {
        free(map);
        cs_eng_overlay_free(&k);
        return CS_ERR_NOMEM;
    }
    for (int64_t g = 0; g < ov->ngroup; g++) {
        const cs_eng_group_t *gr = &ov->group[g];
        map[g] = -1;
        if (!keep_pa[gr->pa] && !keep_pb[gr->pb]) {
            continue;
        }
        cs_eng_group_t *ng = &k.group[k.ngroup];
        *ng = *gr;
        for (int side = 0; side < CS_ENG_NSIDES; side++) {
            ng->run_first[side] = k.nrun[side];
            memcpy(k.runs[side] + k.nrun[side],
                   ov->runs[side] + gr->run_first[side],
                   (size_t)gr->run_count[side] * sizeof(*k.runs[0]));
            k.nrun[side] += gr->run_count[side];
        }
        map[g] = k.ngroup++;
    }
    /* (pb, pa) order of the groups kept: a subsequence of the old one */
    int64_t nby = 0;
    for (int64_t i = 0; i < ov->ngroup; i++) {
        int64_t g = map[ov->by_pb[i]];
        if (g >= 0) {
            k.by_pb[nby++] = g;
        }
    }
    free(map);
    k.nseg = nseg;
    cs_eng_overlay_free(ov);
    *ov = k;
    return CS_OK;
}

void cs_eng_overlay_groups_pa(const cs_eng_overlay_t *ov, int pa,
                              int64_t *first_p, int64_t *count_p)
{
    int64_t lo = 0, hi = ov->ngroup;
    while (lo < hi) { /* first group with group.pa >= pa */
        int64_t mid = lo + (hi - lo) / 2;
        if (ov->group[mid].pa < pa) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int64_t end = lo;
    while (end < ov->ngroup && ov->group[end].pa == pa) {
        end++;
    }
    *first_p = lo;
    *count_p = end - lo;
}

void cs_eng_overlay_groups_pb(const cs_eng_overlay_t *ov, int pb,
                              int64_t *first_p, int64_t *count_p)
{
    int64_t lo = 0, hi = ov->ngroup;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ov->group[ov->by_pb[mid]].pb < pb) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int64_t end = lo;
    while (end < ov->ngroup && ov->group[ov->by_pb[end]].pb == pb) {
        end++;
    }
    *first_p = lo;
    *count_p = end - lo;
}
