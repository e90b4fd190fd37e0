/*
 * test_apps/unit/test_engine_layout.c - unit tests of the engine's layout,
 * overlay and plan computations (no MPI calls, no communication).
 *
 * 1. cs_eng_dist_local_size() for random block-cyclic distributions (random
 *    n, nb, first incl. first > nb and first >= n, src, nprocs incl. 1) and
 *    random explicit ones, against a brute-force element walk; argument
 *    checks of cs_eng_dist_cyclic().
 * 2. cs_eng_overlay_build() (engine_int.h) on raw and normalized random
 *    distribution pairs against brute force: segments tile the range, lie
 *    in one A block and one B block, cut exactly at block boundaries, carry
 *    the right owners and local offsets; groups partition the segments,
 *    sorted, with correct totals and positions; by_pb and the pa/pb group
 *    lookups; runs of each side tile their group, are contiguous in local
 *    memory on their side (and maximal), with and without keep_index
 *    (then also consecutive in the index), and start at the right index.
 * 3. cs_eng_plan_create() for every rank of P simulated ranks on random
 *    layout pairs: sent/recv/self bytes and per-peer package sizes against
 *    a brute-force element count, sum(sent) == sum(recv), and the sender's
 *    and receiver's package contents (combos, offsets) agree; plus
 *    BAD_DESC cases; cs_eng_volume_matrix() against the same count.
 * Deterministic (fixed seed; argv[1] overrides the case count scale).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cs_plan_match.h"
#include "cs_test.h"
#include "engine/engine_int.h"

enum { MAXB = 24, MAXP = 8 };

/* ------------------------------------------------------------ random */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
    return cs_test_rnd(&rng_state);
}

/* uniform in [lo, hi] */
static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

static void shuffle_i64(int64_t *v, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = rr(0, i), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ------------------------------------------------------------ dists */

/* A distribution plus its brute-force per-index description. */
typedef struct {
    cs_eng_dist_t d;
    int64_t splits[MAXB + 1];
    int proc[MAXB];
    int64_t loff[MAXB];
    int64_t n;
    int *coord;   /* owner coordinate of index x */
    int64_t *blk; /* block of x (raw) */
    int64_t *nblk_; /* block of x after normalization */
    int64_t *loc; /* local offset of x on its owner */
} tdist_t;

static void tdist_free(tdist_t *t)
{
    free(t->coord);
    free(t->blk);
    free(t->nblk_);
    free(t->loc);
    memset(t, 0, sizeof(*t));
}

/* Brute force: walk the elements block by block. */
static void tdist_brute(tdist_t *t)
{
    int64_t n = t->n;
    size_t sz = (size_t)(n > 0 ? n : 1);
    t->coord = malloc(sz * sizeof(int));
    t->blk = malloc(sz * sizeof(int64_t));
    t->nblk_ = malloc(sz * sizeof(int64_t));
    t->loc = malloc(sz * sizeof(int64_t));
    CS_TEST_ASSERT(t->coord && t->blk && t->nblk_ && t->loc);
    const cs_eng_dist_t *d = &t->d;
    if (d->kind == CS_ENG_DIST_CYCLIC) {
        int64_t cnt[MAXP] = {0};
        int64_t x = 0;
        for (int64_t k = 0; x < n; k++) {
            int64_t len = k == 0 ? d->first : d->nb;
            int64_t end = x + len < n ? x + len : n;
            int c = (int)((d->src + k) % d->nprocs);
            for (int64_t y = x; y < end; y++) {
                t->coord[y] = c;
                t->blk[y] = k;
                t->loc[y] = cnt[c] + (y - x);
            }
            cnt[c] += end - x;
            x = end;
        }
        int single = d->nprocs == 1 || d->first >= n;
        for (int64_t y = 0; y < n; y++) {
            t->nblk_[y] = single ? 0 : t->blk[y];
        }
    } else {
        for (int64_t k = 0; k < d->nblk; k++) {
            for (int64_t y = d->splits[k]; y < d->splits[k + 1]; y++) {
                t->coord[y] = d->proc[k];
                t->blk[y] = k;
                t->nblk_[y] = k;
                t->loc[y] = d->loff[k] + (y - d->splits[k]);
            }
        }
    }
}

/* Random distribution of extent n over at most maxp coordinates.
 * kind_sel: -1 any, else CS_ENG_DIST_* (2: general, one coordinate per
 * block in random order). */
static void tdist_gen(tdist_t *t, int64_t n, int maxp, int kind_sel)
{
    memset(t, 0, sizeof(*t));
    t->n = n;
    int kind = kind_sel >= 0 ? kind_sel : (int)rr(0, 2);
    if (kind == 2 && n > MAXP) {
        kind = 1; /* general needs nblk <= MAXP coordinates */
    }
    if (kind == CS_ENG_DIST_CYCLIC) {
        int np = (int)rr(1, maxp);
        int64_t nb = rnd() % 8 == 0 ? rr(1, 60) : rr(1, 9);
        int64_t first;
        switch (rr(0, 5)) {
        case 0:
        case 1:
            first = nb;
            break;
        case 2:
        case 3:
            first = rr(1, nb);
            break;
        case 4:
            first = rr(nb + 1, 2 * nb + 3); /* first > nb */
            break;
        default:
            first = rr(n > 1 ? n : 1, n + 3); /* first >= n */
            break;
        }
        int src = (int)rr(0, np - 1);
        CS_TEST_EQ(cs_eng_dist_cyclic(n, nb, first, src, np, &t->d), CS_OK);
        CS_TEST_EQ(cs_eng_dist_check(&t->d), CS_OK);
    } else {
        int64_t maxblk = kind == 2 ? MAXP : MAXB;
        int64_t nblk = n == 0 ? 0 : rr(1, n < maxblk ? n : maxblk);
        /* nblk - 1 distinct cuts in [1, n - 1] */
        int64_t *cuts = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
        CS_TEST_ASSERT(cuts);
        for (int64_t i = 0; i + 1 < n; i++) {
            cuts[i] = i + 1;
        }
        for (int64_t i = 0; i < nblk - 1; i++) { /* partial shuffle */
            int64_t j = rr(i, n - 2), tmp = cuts[i];
            cuts[i] = cuts[j];
            cuts[j] = tmp;
        }
        t->splits[0] = 0;
        for (int64_t i = 0; i < nblk - 1; i++) {
            t->splits[i + 1] = cuts[i];
        }
        free(cuts);
        /* sort the cuts */
        for (int64_t i = 1; i < nblk; i++) {
            for (int64_t j = i; j > 1 && t->splits[j] < t->splits[j - 1];
                 j--) {
                int64_t tmp = t->splits[j];
                t->splits[j] = t->splits[j - 1];
                t->splits[j - 1] = tmp;
            }
        }
        t->splits[nblk] = n;
        int np;
        if (kind == 2) {
            np = nblk > 0 ? (int)nblk : 1;
            int64_t perm[MAXB];
            for (int64_t k = 0; k < nblk; k++) {
                perm[k] = k;
            }
            shuffle_i64(perm, nblk);
            for (int64_t k = 0; k < nblk; k++) {
                t->proc[k] = (int)perm[k];
            }
        } else {
            np = (int)rr(1, maxp);
            for (int64_t k = 0; k < nblk; k++) {
                t->proc[k] = (int)rr(0, np - 1);
            }
        }
        /* local offsets: per coordinate, its blocks in random order (or
         * reversed, or natural) with random gaps */
        int order_mode = (int)rr(0, 2);
        for (int c = 0; c < np; c++) {
            int64_t mine[MAXB], nm = 0;
            for (int64_t k = 0; k < nblk; k++) {
                if (t->proc[k] == c) {
                    mine[nm++] = k;
                }
            }
            if (order_mode == 1) {
                for (int64_t i = 0; i < nm / 2; i++) {
                    int64_t tmp = mine[i];
                    mine[i] = mine[nm - 1 - i];
                    mine[nm - 1 - i] = tmp;
                }
            } else if (order_mode == 2) {
                shuffle_i64(mine, nm);
            }
            int64_t off = rr(0, 2);
            for (int64_t i = 0; i < nm; i++) {
                int64_t k = mine[i];
                t->loff[k] = off;
                off += t->splits[k + 1] - t->splits[k] + (rr(0, 3) == 0);
            }
        }
        cs_eng_dist_t d = {.kind = CS_ENG_DIST_EXPLICIT,
                           .n = n,
                           .nprocs = np,
                           .nblk = nblk,
                           .splits = t->splits,
                           .proc = t->proc,
                           .loff = t->loff};
        t->d = d;
        CS_TEST_EQ(cs_eng_dist_check(&t->d), CS_OK);
    }
    tdist_brute(t);
}

static int64_t brute_local_size(const tdist_t *t, int p)
{
    int64_t s = 0;
    for (int64_t x = 0; x < t->n; x++) {
        s += t->coord[x] == p;
    }
    return s;
}

/* ------------------------------------------------------------ part 1 */

static int64_t test_local_size(int ncases)
{
    int64_t checks = 0;
    for (int c = 0; c < ncases; c++) {
        int64_t n = rnd() % 10 == 0 ? rr(0, 2) : rr(0, 200);
        tdist_t t;
        tdist_gen(&t, n, MAXP, c % 3 == 2 ? 1 : (int)(c % 2));
        int64_t total = 0;
        for (int p = 0; p < t.d.nprocs; p++) {
            int64_t got = cs_eng_dist_local_size(&t.d, p);
            int64_t want = brute_local_size(&t, p);
            CS_TEST_CHECK(got == want,
                          "case %d kind %d n %" PRId64 " nb %" PRId64
                          " first %" PRId64 " src %d np %d p %d: got %" PRId64
                          " want %" PRId64,
                          c, t.d.kind, n, t.d.nb, t.d.first, t.d.src,
                          t.d.nprocs, p, got, want);
            total += got;
            checks++;
        }
        CS_TEST_CHECK(total == n, "case %d: sizes sum to %" PRId64, c, total);
        /* normalization keeps owner and local offset of every index */
        cs_eng_dist_t nd;
        cs_eng_dist_normalize(&t.d, &nd);
        CS_TEST_EQ(cs_eng_dist_check(&nd), CS_OK);
        for (int64_t x = 0; x < n; x++) {
            int64_t k = cs_eng_dist_block_of(&nd, x);
            CS_TEST_CHECK(cs_eng_dist_block_start(&nd, k) <= x &&
                              x < cs_eng_dist_block_end(&nd, k),
                          "case %d x %" PRId64 ": block bounds", c, x);
            CS_TEST_CHECK(cs_eng_dist_proc(&nd, k) == t.coord[x] &&
                              cs_eng_dist_loff(&nd, k) + x -
                                      cs_eng_dist_block_start(&nd, k) ==
                                  t.loc[x],
                          "case %d x %" PRId64 ": owner/offset", c, x);
        }
        tdist_free(&t);
    }
    /* argument checks */
    cs_eng_dist_t d;
    CS_TEST_EQ(cs_eng_dist_cyclic(-1, 4, 4, 0, 1, &d), CS_ERR_BAD_DESC);
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 0, 4, 0, 1, &d), CS_ERR_BAD_DESC);
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 4, 0, 0, 1, &d), CS_ERR_BAD_DESC);
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 4, 4, 0, 0, &d), CS_ERR_BAD_DESC);
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 4, 4, 2, 2, &d), CS_ERR_BAD_DESC);
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 4, 4, -1, 2, &d), CS_ERR_BAD_DESC);
    CS_TEST_EQ(cs_eng_dist_cyclic(0, 4, 4, 1, 2, &d), CS_OK);
    CS_TEST_EQ(cs_eng_dist_local_size(&d, 0), 0);
    CS_TEST_EQ(cs_eng_dist_local_size(&d, 1), 0);
    return checks;
}

/* ------------------------------------------------------------ part 2 */

static int64_t test_overlay_one(const tdist_t *ta, int64_t oa,
                                const tdist_t *tb, int64_t ob, int64_t len,
                                int normalized, int keep, int c)
{
    cs_eng_dist_t da = ta->d, db = tb->d;
    if (normalized) {
        cs_eng_dist_normalize(&ta->d, &da);
        cs_eng_dist_normalize(&tb->d, &db);
    }
    const int64_t *blka = normalized ? ta->nblk_ : ta->blk;
    const int64_t *blkb = normalized ? tb->nblk_ : tb->blk;
    cs_eng_overlay_t ov;
    CS_TEST_EQ(cs_eng_overlay_build(&da, oa, &db, ob, len, keep, &ov),
               CS_OK);
    int fails0 = cs_test_failures;
    if (len == 0) {
        CS_TEST_CHECK(ov.nseg == 0 && ov.ngroup == 0, "case %d: empty", c);
        cs_eng_overlay_free(&ov);
        return 1;
    }
    /* segments */
    int64_t nbound = 0;
    for (int64_t x = 1; x < len; x++) {
        nbound += blka[oa + x] != blka[oa + x - 1] ||
                  blkb[ob + x] != blkb[ob + x - 1];
    }
    CS_TEST_CHECK(ov.nseg == nbound + 1,
                  "case %d: %" PRId64 " segments, want %" PRId64, c, ov.nseg,
                  nbound + 1);
    int64_t next = 0;
    for (int64_t s = 0; s < ov.nseg; s++) {
        const cs_eng_seg_t *g = &ov.seg[s];
        CS_TEST_CHECK(g->start == next && g->len > 0 &&
                          g->start + g->len <= len,
                      "case %d seg %" PRId64 ": start %" PRId64
                      " len %" PRId64 " want start %" PRId64,
                      c, s, g->start, g->len, next);
        if (g->start != next || g->len <= 0 || g->start + g->len > len) {
            break;
        }
        for (int64_t x = g->start; x < g->start + g->len; x++) {
            int64_t xa = oa + x, xb = ob + x;
            CS_TEST_CHECK(blka[xa] == blka[oa + g->start] &&
                              blkb[xb] == blkb[ob + g->start],
                          "case %d seg %" PRId64 ": spans blocks", c, s);
            CS_TEST_CHECK(ta->coord[xa] == g->pa && tb->coord[xb] == g->pb,
                          "case %d seg %" PRId64 " x %" PRId64
                          ": owners (%d, %d) want (%d, %d)",
                          c, s, x, g->pa, g->pb, ta->coord[xa],
                          tb->coord[xb]);
            CS_TEST_CHECK(ta->loc[xa] == g->offa + (x - g->start) &&
                              tb->loc[xb] == g->offb + (x - g->start),
                          "case %d seg %" PRId64 " x %" PRId64
                          ": offsets %" PRId64 "/%" PRId64
                          " want %" PRId64 "/%" PRId64,
                          c, s, x, g->offa + (x - g->start),
                          g->offb + (x - g->start), ta->loc[xa],
                          tb->loc[xb]);
        }
        next = g->start + g->len;
    }
    CS_TEST_CHECK(next == len, "case %d: segments cover %" PRId64, c, next);
    if (cs_test_failures != fails0) {
        cs_eng_overlay_free(&ov);
        return 1;
    }
    /* groups: sorted, one per distinct (pa, pb), totals and positions */
    int64_t ndistinct = 0;
    for (int64_t g = 0; g < ov.ngroup; g++) {
        const cs_eng_group_t *gr = &ov.group[g];
        if (g > 0) {
            const cs_eng_group_t *pr = &ov.group[g - 1];
            CS_TEST_CHECK(pr->pa < gr->pa ||
                              (pr->pa == gr->pa && pr->pb < gr->pb),
                          "case %d: groups not sorted at %" PRId64, c, g);
        }
        int64_t tot = 0;
        for (int64_t s = 0; s < ov.nseg; s++) {
            const cs_eng_seg_t *sg = &ov.seg[s];
            if (sg->pa == gr->pa && sg->pb == gr->pb) {
                CS_TEST_CHECK(sg->pos == tot,
                              "case %d seg %" PRId64 ": pos %" PRId64
                              " want %" PRId64,
                              c, s, sg->pos, tot);
                tot += sg->len;
            }
        }
        CS_TEST_CHECK(tot == gr->total && tot > 0,
                      "case %d group %" PRId64 ": total %" PRId64
                      " want %" PRId64,
                      c, g, gr->total, tot);
    }
    for (int64_t s = 0; s < ov.nseg; s++) { /* distinct pairs */
        int seen = 0;
        for (int64_t t = 0; t < s; t++) {
            seen |= ov.seg[t].pa == ov.seg[s].pa &&
                    ov.seg[t].pb == ov.seg[s].pb;
        }
        ndistinct += !seen;
    }
    CS_TEST_CHECK(ov.ngroup == ndistinct,
                  "case %d: %" PRId64 " groups want %" PRId64, c, ov.ngroup,
                  ndistinct);
    /* by_pb: a permutation sorted by (pb, pa) */
    char *hit = calloc((size_t)ov.ngroup + 1, 1);
    CS_TEST_ASSERT(hit);
    for (int64_t i = 0; i < ov.ngroup; i++) {
        int64_t g = ov.by_pb[i];
        CS_TEST_ASSERT(g >= 0 && g < ov.ngroup && !hit[g]);
        hit[g] = 1;
        if (i > 0) {
            const cs_eng_group_t *p = &ov.group[ov.by_pb[i - 1]];
            const cs_eng_group_t *q = &ov.group[g];
            CS_TEST_CHECK(p->pb < q->pb || (p->pb == q->pb && p->pa < q->pa),
                          "case %d: by_pb not sorted at %" PRId64, c, i);
        }
    }
    free(hit);
    /* group lookups */
    for (int p = 0; p <= da.nprocs || p <= db.nprocs; p++) {
        int64_t f, n;
        cs_eng_overlay_groups_pa(&ov, p, &f, &n);
        int64_t want = 0;
        for (int64_t g = 0; g < ov.ngroup; g++) {
            want += ov.group[g].pa == p;
        }
        CS_TEST_CHECK(n == want, "case %d: groups_pa(%d) count", c, p);
        for (int64_t g = f; g < f + n; g++) {
            CS_TEST_CHECK(ov.group[g].pa == p, "case %d: groups_pa(%d)", c,
                          p);
        }
        cs_eng_overlay_groups_pb(&ov, p, &f, &n);
        want = 0;
        for (int64_t g = 0; g < ov.ngroup; g++) {
            want += ov.group[g].pb == p;
        }
        CS_TEST_CHECK(n == want, "case %d: groups_pb(%d) count", c, p);
        for (int64_t i = f; i < f + n; i++) {
            CS_TEST_CHECK(ov.group[ov.by_pb[i]].pb == p,
                          "case %d: groups_pb(%d)", c, p);
        }
    }
    /* runs */
    int64_t *xs = malloc((size_t)len * sizeof(int64_t));
    CS_TEST_ASSERT(xs);
    for (int side = 0; side < 3; side++) {
        int64_t nruns = 0;
        for (int64_t g = 0; g < ov.ngroup; g++) {
            const cs_eng_group_t *gr = &ov.group[g];
            /* group position -> index */
            int64_t np = 0;
            for (int64_t s = 0; s < ov.nseg; s++) {
                const cs_eng_seg_t *sg = &ov.seg[s];
                if (sg->pa == gr->pa && sg->pb == gr->pb) {
                    for (int64_t x = sg->start; x < sg->start + sg->len;
                         x++) {
                        xs[np++] = x;
                    }
                }
            }
            CS_TEST_ASSERT(np == gr->total);
            CS_TEST_CHECK(gr->run_first[side] == nruns &&
                              gr->run_count[side] >= 1,
                          "case %d side %d group %" PRId64 ": run range", c,
                          side, g);
            int64_t pos = 0;
            for (int64_t r = gr->run_first[side];
                 r < gr->run_first[side] + gr->run_count[side] &&
                 r < ov.nrun[side];
                 r++) {
                const cs_eng_run_t *ru = &ov.runs[side][r];
                CS_TEST_CHECK(ru->pos == pos && ru->len > 0 &&
                                  ru->pos + ru->len <= gr->total,
                              "case %d side %d run %" PRId64 ": pos %" PRId64
                              " len %" PRId64 " want pos %" PRId64,
                              c, side, r, ru->pos, ru->len, pos);
                if (ru->pos != pos || ru->len <= 0 ||
                    ru->pos + ru->len > gr->total) {
                    break;
                }
                CS_TEST_CHECK(ru->start == xs[ru->pos],
                              "case %d side %d run %" PRId64
                              ": start %" PRId64 " want %" PRId64,
                              c, side, r, ru->start, xs[ru->pos]);
                if (keep) { /* consecutive in the operation's index */
                    CS_TEST_CHECK(xs[ru->pos + ru->len - 1] ==
                                      ru->start + ru->len - 1,
                                  "case %d side %d run %" PRId64
                                  ": index gap with keep_index",
                                  c, side, r);
                }
                for (int64_t t = ru->pos; t < ru->pos + ru->len; t++) {
                    int64_t x = xs[t];
                    if (side != CS_ENG_SIDE_B) {
                        CS_TEST_CHECK(ta->loc[oa + x] ==
                                          ru->offa + (t - ru->pos),
                                      "case %d side %d run %" PRId64
                                      ": A offset at %" PRId64,
                                      c, side, r, t);
                    }
                    if (side != CS_ENG_SIDE_A) {
                        CS_TEST_CHECK(tb->loc[ob + x] ==
                                          ru->offb + (t - ru->pos),
                                      "case %d side %d run %" PRId64
                                      ": B offset at %" PRId64,
                                      c, side, r, t);
                    }
                }
                /* maximal: the next run of the group does not continue
                 * this one on its side */
                if (r + 1 < gr->run_first[side] + gr->run_count[side]) {
                    const cs_eng_run_t *nx = &ov.runs[side][r + 1];
                    int ca = ru->offa + ru->len == nx->offa;
                    int cb = ru->offb + ru->len == nx->offb;
                    int merge = side == CS_ENG_SIDE_A   ? ca
                                : side == CS_ENG_SIDE_B ? cb
                                                        : ca && cb;
                    if (keep && ru->start + ru->len != nx->start) {
                        merge = 0;
                    }
                    CS_TEST_CHECK(!merge,
                                  "case %d side %d run %" PRId64
                                  ": not maximal",
                                  c, side, r);
                }
                pos += ru->len;
            }
            CS_TEST_CHECK(pos == gr->total,
                          "case %d side %d group %" PRId64
                          ": runs cover %" PRId64 " of %" PRId64,
                          c, side, g, pos, gr->total);
            nruns += gr->run_count[side];
        }
        CS_TEST_CHECK(nruns == ov.nrun[side], "case %d side %d: run count",
                      c, side);
    }
    free(xs);
    cs_eng_overlay_free(&ov);
    return 1;
}

static int64_t test_overlay(int ncases)
{
    int64_t checks = 0;
    for (int c = 0; c < ncases; c++) {
        int64_t len = rnd() % 10 == 0 ? rr(0, 1) : rr(1, 120);
        int64_t oa = rnd() % 4 == 0 ? 0 : rr(0, 30);
        int64_t ob = rnd() % 4 == 0 ? 0 : rr(0, 30);
        int64_t na = oa + len + (rnd() % 3 == 0 ? 0 : rr(0, 30));
        int64_t nb = ob + len + (rnd() % 3 == 0 ? 0 : rr(0, 30));
        tdist_t ta, tb;
        tdist_gen(&ta, na, 6, -1);
        tdist_gen(&tb, nb, 6, -1);
        for (int v = 0; v < 4; v++) { /* raw/normalized x keep_index */
            checks += test_overlay_one(&ta, oa, &tb, ob, len, v & 1, v >> 1,
                                       c);
        }
        tdist_free(&ta);
        tdist_free(&tb);
    }
    return checks;
}

/* ------------------------------------------------------------ part 3 */

typedef struct {
    tdist_t r, c;
    int grid[MAXP * MAXP];
    cs_eng_layout_t l;
} tlayout_t;

static void tlayout_gen(tlayout_t *t, int64_t m, int64_t n, int P)
{
    tdist_gen(&t->r, m, 4, -1);
    tdist_gen(&t->c, n, 4, -1);
    int nprow = t->r.d.nprocs, npcol = t->c.d.nprocs;
    int mode = (int)rr(0, 2);
    int64_t perm[MAXP * MAXP];
    for (int i = 0; i < nprow * npcol; i++) {
        perm[i] = i % P;
    }
    shuffle_i64(perm, nprow * npcol);
    int sub = (int)rr(1, P); /* mode 2: only ranks < sub own cells */
    for (int pr = 0; pr < nprow; pr++) {
        for (int pc = 0; pc < npcol; pc++) {
            int cell = pr * npcol + pc, own;
            if (mode == 0) {
                own = (int)perm[cell];
            } else if (mode == 1) {
                own = (int)rr(0, P - 1);
            } else {
                own = (int)rr(0, sub - 1);
            }
            /* a cell without data may be unowned */
            if ((brute_local_size(&t->r, pr) == 0 ||
                 brute_local_size(&t->c, pc) == 0) &&
                rnd() % 2) {
                own = -1;
            }
            t->grid[cell] = own;
        }
    }
    cs_eng_layout_t l = {.rows = t->r.d,
                         .cols = t->c.d,
                         .nprow = nprow,
                         .npcol = npcol,
                         .grid = t->grid,
                         .ld = 1,
                         .order = (int)rr(0, 1)};
    t->l = l;
}

static int owner_of(const tlayout_t *t, int64_t i, int64_t j)
{
    return t->grid[t->r.coord[i] * t->l.npcol + t->c.coord[j]];
}

static int64_t test_plans(int ncases)
{
    int64_t checks = 0;
    for (int c = 0; c < ncases; c++) {
        int P = (int)rr(1, 6);
        cs_eng_op_t op;
        memset(&op, 0, sizeof(op)); /* plain copy: no transform fields */
        op.m = rnd() % 12 == 0 ? 0 : rr(1, 50);
        op.n = rnd() % 12 == 0 ? 0 : rr(1, 50);
        op.ia = rr(0, 8);
        op.ja = rr(0, 8);
        op.ib = rr(0, 8);
        op.jb = rr(0, 8);
        static const size_t es[] = {1, 3, 4, 8, 12, 16};
        op.esize = es[rr(0, 5)];
        /* a third of the cases copy a trapezoid: only its elements travel
         * and count (engine/trapezoid.c) */
        if (c % 3 == 2) {
            op.mask = rnd() % 2 ? CS_ENG_MASK_LOWER : CS_ENG_MASK_UPPER;
            op.mask_k = rr(-op.n - 1, op.m + 1);
        }
        tlayout_t A, B;
        tlayout_gen(&A, op.ia + op.m + rr(0, 6), op.ja + op.n + rr(0, 6), P);
        tlayout_gen(&B, op.ib + op.m + rr(0, 6), op.jb + op.n + rr(0, 6), P);
        /* brute force */
        int64_t pair[MAXP][MAXP];
        memset(pair, 0, sizeof(pair));
        for (int64_t i = 0; i < op.m; i++) {
            for (int64_t j = 0; j < op.n; j++) {
                int s = owner_of(&A, op.ia + i, op.ja + j);
                int d = owner_of(&B, op.ib + i, op.jb + j);
                CS_TEST_ASSERT(s >= 0 && d >= 0);
                int in = op.mask == CS_ENG_MASK_LOWER   ? i >= op.mask_k + j
                         : op.mask == CS_ENG_MASK_UPPER ? i <= op.mask_k + j
                                                        : 1;
                pair[s][d] += in ? (int64_t)op.esize : 0;
            }
        }
        /* the volume matrix is the same brute-force count */
        int64_t vol[MAXP * MAXP];
        memset(vol, 0, sizeof(vol));
        CS_TEST_EQ(cs_eng_volume_matrix(&A.l, &B.l, &op, P, vol), CS_OK);
        for (int s = 0; s < P; s++) {
            for (int d = 0; d < P; d++) {
                CS_TEST_CHECK(vol[s * P + d] == pair[s][d],
                              "plan case %d: volume[%d][%d] %" PRId64
                              " want %" PRId64,
                              c, s, d, vol[s * P + d], pair[s][d]);
            }
        }
        cs_eng_plan_t *plan[MAXP];
        int64_t sum_sent = 0, sum_recv = 0;
        for (int me = 0; me < P; me++) {
            plan[me] = NULL;
            CS_TEST_EQ(cs_eng_plan_create(&A.l, &B.l, &op, me, &plan[me]),
                       CS_OK);
            int64_t sent, recv, self;
            cs_eng_plan_volume(plan[me], &sent, &recv, &self);
            int64_t ws = 0, wr = 0;
            for (int q = 0; q < P; q++) {
                if (q != me) {
                    ws += pair[me][q];
                    wr += pair[q][me];
                }
            }
            CS_TEST_CHECK(sent == ws && recv == wr && self == pair[me][me],
                          "plan case %d P %d me %d: volume %" PRId64
                          "/%" PRId64 "/%" PRId64 " want %" PRId64
                          "/%" PRId64 "/%" PRId64,
                          c, P, me, sent, recv, self, ws, wr, pair[me][me]);
            /* the workspace holds every block that is packed or
             * unpacked, and nothing sent or received directly */
            const cs_eng_exch_t *pl = plan[me]->exch; /* uncut */
            int64_t room = 0;
            for (int d = 0; d < 2; d++) {
                const cs_eng_peer_t *pp = d ? pl->recv : pl->send;
                const cs_eng_combo_t *cb = d ? pl->recv_combo : pl->send_combo;
                int np = d ? pl->nrecv : pl->nsend;
                for (int q = 0; q < np; q++) {
                    for (int64_t k = pp[q].first;
                         pp[q].zc_off < 0 && k < pp[q].first + pp[q].count;
                         k++) {
                        room += cb[k].direct ? 0 : cb[k].bytes;
                    }
                }
            }
            CS_TEST_CHECK(cs_eng_plan_workspace_bytes(plan[me]) == room &&
                              room <= sent + recv,
                          "plan case %d me %d: workspace", c, me);
            /* per-peer packages, peers ascending, none to itself */
            int64_t npeer_s = 0, npeer_r = 0;
            for (int q = 0; q < P; q++) {
                npeer_s += q != me && pair[me][q] > 0;
                npeer_r += q != me && pair[q][me] > 0;
            }
            CS_TEST_CHECK(pl->nsend == npeer_s && pl->nrecv == npeer_r,
                          "plan case %d me %d: %d/%d peers want %" PRId64
                          "/%" PRId64,
                          c, me, pl->nsend, pl->nrecv, npeer_s, npeer_r);
            for (int k = 0; k < pl->nsend; k++) {
                int q = pl->send[k].peer;
                CS_TEST_CHECK(q >= 0 && q < P && q != me &&
                                  (k == 0 || q > pl->send[k - 1].peer) &&
                                  pl->send[k].bytes == pair[me][q],
                              "plan case %d me %d: send peer %d", c, me, k);
            }
            for (int k = 0; k < pl->nrecv; k++) {
                int q = pl->recv[k].peer;
                CS_TEST_CHECK(q >= 0 && q < P && q != me &&
                                  (k == 0 || q > pl->recv[k - 1].peer) &&
                                  pl->recv[k].bytes == pair[q][me],
                              "plan case %d me %d: recv peer %d", c, me, k);
            }
            sum_sent += sent;
            sum_recv += recv;
            checks++;
        }
        CS_TEST_CHECK(sum_sent == sum_recv, "plan case %d: sum sent != recv",
                      c);
        /* sender and receiver agree on every package's layout */
        for (int s = 0; s < P; s++) {
            const cs_eng_exch_t *ps = plan[s]->exch;
            for (int k = 0; k < ps->nsend; k++) {
                const cs_eng_peer_t *pe = &ps->send[k];
                const cs_eng_exch_t *pd = plan[pe->peer]->exch;
                const cs_eng_peer_t *pr = NULL;
                for (int q = 0; q < pd->nrecv; q++) {
                    if (pd->recv[q].peer == s) {
                        pr = &pd->recv[q];
                    }
                }
                CS_TEST_CHECK(pr && pr->count == pe->count &&
                                  pr->bytes == pe->bytes,
                              "plan case %d: package %d->%d", c, s,
                              pe->peer);
                if (!pr || pr->count != pe->count) {
                    continue;
                }
                for (int64_t i = 0; i < pe->count; i++) {
                    const cs_eng_combo_t *x = &ps->send_combo[pe->first + i];
                    const cs_eng_combo_t *y = &pd->recv_combo[pr->first + i];
                    /* each plan keeps its own groups: same group, other
                     * index */
                    CS_TEST_CHECK(cs_same_package_block(ps, x, pd, y),
                                  "plan case %d: package %d->%d combo %" PRId64,
                                  c, s, pe->peer, i);
                }
            }
        }
        for (int me = 0; me < P; me++) {
            cs_eng_plan_destroy(plan[me]);
        }
        tdist_free(&A.r);
        tdist_free(&A.c);
        tdist_free(&B.r);
        tdist_free(&B.c);
    }
    return checks;
}

/* Invalid inputs are refused with CS_ERR_BAD_DESC. */
static void test_bad(void)
{
    int64_t splits[3] = {0, 4, 10};
    int proc[2] = {0, 1};
    int64_t loff[2] = {0, 0};
    int grid1[1] = {0}, grid2[2] = {0, -1};
    cs_eng_layout_t a = {.nprow = 1, .npcol = 1, .grid = grid1, .ld = 10};
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 3, 3, 0, 1, &a.rows), CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(10, 3, 3, 0, 1, &a.cols), CS_OK);
    cs_eng_layout_t b = a;
    b.nprow = 2;
    b.grid = grid2;
    cs_eng_dist_t ex = {.kind = CS_ENG_DIST_EXPLICIT,
                        .n = 10,
                        .nprocs = 2,
                        .nblk = 2,
                        .splits = splits,
                        .proc = proc,
                        .loff = loff};
    b.rows = ex;
    cs_eng_op_t op = {.m = 10, .n = 10, .esize = 8};
    cs_eng_plan_t *p = NULL;
    /* B cell (1, 0) holds rows 4..9 but has no owner */
    CS_TEST_EQ(cs_eng_plan_create(&a, &b, &op, 0, &p), CS_ERR_BAD_DESC);
    grid2[1] = 0;
    CS_TEST_EQ(cs_eng_plan_create(&a, &b, &op, 0, &p), CS_OK);
    cs_eng_plan_destroy(p);
    p = NULL;
    cs_eng_op_t o2 = op;
    o2.ia = 1; /* past A's rows */
    CS_TEST_EQ(cs_eng_plan_create(&a, &b, &o2, 0, &p), CS_ERR_BAD_DESC);
    o2 = op;
    o2.esize = 0;
    CS_TEST_EQ(cs_eng_plan_create(&a, &b, &o2, 0, &p), CS_ERR_BAD_DESC);
    o2 = op;
    o2.m = -1;
    CS_TEST_EQ(cs_eng_plan_create(&a, &b, &o2, 0, &p), CS_ERR_BAD_DESC);
    cs_eng_layout_t b2 = b;
    b2.nprow = 1; /* rows.nprocs != nprow */
    CS_TEST_EQ(cs_eng_plan_create(&a, &b2, &op, 0, &p), CS_ERR_BAD_DESC);
    b2 = b;
    b2.order = 7;
    CS_TEST_EQ(cs_eng_plan_create(&a, &b2, &op, 0, &p), CS_ERR_BAD_DESC);
    b2 = b;
    proc[1] = 2; /* coordinate out of range */
    CS_TEST_EQ(cs_eng_plan_create(&a, &b2, &op, 0, &p), CS_ERR_BAD_DESC);
    proc[1] = 1;
    splits[1] = 0; /* empty block */
    CS_TEST_EQ(cs_eng_plan_create(&a, &b2, &op, 0, &p), CS_ERR_BAD_DESC);
    splits[1] = 4;
    splits[2] = 9; /* does not end at n */
    CS_TEST_EQ(cs_eng_plan_create(&a, &b2, &op, 0, &p), CS_ERR_BAD_DESC);
    splits[2] = 10;
    CS_TEST_ASSERT(p == NULL);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1) {
        scale = 1;
    }
    int64_t n1 = test_local_size(3000 * scale);
    int64_t n2 = test_overlay(2000 * scale);
    int64_t n3 = test_plans(1500 * scale);
    test_bad();
    printf("local_size checks %" PRId64 ", overlays %" PRId64
           ", plans %" PRId64 "\n",
           n1, n2, n3);
    return cs_test_done();
}
