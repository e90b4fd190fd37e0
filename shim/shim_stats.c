/*
 * shim/shim_stats.c - the statistics registry (one of the project's named
 * registries): rows per (routine as called, path, reason), call shapes and
 * callers.  Fixed size: a run with more distinct keys than a table holds
 * keeps counting in its totals and in the tables that still have room,
 * counts the calls it could not place as dropped and marks the report
 * partial instead of growing.  No MPI here.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relabel/relabel.h"
#include "shim/shim.h"
#include "shim/shim_call_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_stats_int.h"
#include "shim/shim_trace_int.h"

static pthread_mutex_t cs_shim_stats_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_shim_row_t cs_shim_stats_rows[CS_SHIM_STATS_MAX_ROWS];
static int cs_shim_stats_nrows;
static cs_shim_totals_t cs_shim_stats_totals;
static cs_shim_shape_tab_t cs_shim_stats_shape_tab;
static cs_shim_caller_tab_t cs_shim_stats_caller_tab;

void cs_shim_stats_mark_start(void)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    if (cs_shim_stats_totals.t_start == 0.0) {
        cs_shim_stats_totals.t_start = cs_shim_now();
    }
    pthread_mutex_unlock(&cs_shim_stats_lock);
}

void cs_shim_row_merge(cs_shim_row_t *dst, const cs_shim_row_t *src)
{
    if (dst->calls == 0 || src->t_min < dst->t_min) {
        dst->t_min = src->t_min;
    }
    if (src->t_max > dst->t_max) {
        dst->t_max = src->t_max;
    }
    dst->t_sum += src->t_sum;
    dst->t_sumsq += src->t_sumsq;
    dst->t_wait += src->t_wait;
    dst->t_pack += src->t_pack;
    dst->t_local += src->t_local;
    dst->t_unpack += src->t_unpack;
    dst->t_xfer += src->t_xfer;
    dst->t_mm_in += src->t_mm_in;
    dst->t_mul += src->t_mul;
    dst->t_reduce += src->t_reduce;
    dst->t_mm_out += src->t_mm_out;
#define CS_SHIM_COUNTER(f, s) dst->f += src->f;
    CS_SHIM_COUNTERS
#undef CS_SHIM_COUNTER
}

/* The row of one call. */
static cs_shim_row_t row_of(const cs_shim_record_t *rec)
{
    cs_shim_row_t one = {.routine = rec->routine,
                         .spelling = rec->spelling,
                         .path = rec->path,
                         .reason = rec->reason,
                         .calls = 1,
                         .bytes_sent = rec->vol.bytes_sent,
                         .bytes_recv = rec->vol.bytes_recv,
                         .bytes_self = rec->vol.bytes_self,
                         .bytes_node = rec->vol.bytes_sent_near,
                         .bytes_net = rec->vol.bytes_sent -
                                      rec->vol.bytes_sent_near,
                         .msgs_sent = rec->vol.msgs_sent,
                         .msgs_recv = rec->vol.msgs_recv,
                         .t_sum = rec->t,
                         .t_min = rec->t,
                         .t_max = rec->t,
                         .t_sumsq = rec->t * rec->t,
                         .t_wait = rec->t_wait,
                         .t_pack = rec->vol.t_pack,
                         .t_local = rec->vol.t_local,
                         .t_unpack = rec->vol.t_unpack,
                         .t_xfer = rec->vol.t_transfer,
                         .flops = (int64_t)rec->mm.flops,
                         .bytes_pblas = rec->mm.bytes_pblas,
                         .t_mm_in = rec->mm.t_in,
                         .t_mul = rec->mm.t_mul,
                         .t_reduce = rec->mm.t_reduce,
                         .t_mm_out = rec->mm.t_out};
    return one;
}

/* Totals and routine row of one call; the lock is held. */
static void row_add_locked(const cs_shim_record_t *rec)
{
    cs_shim_row_t one = row_of(rec);
    cs_shim_totals_t *tot = &cs_shim_stats_totals;
    if (tot->t_start == 0.0) {
        tot->t_start = cs_shim_now() - rec->t;
    }
    if (rec->path != CS_SHIM_PATH_NESTED) {
        tot->t_shim += rec->t;
        tot->t_wait += rec->t_wait;
        tot->calls++;
        tot->fallbacks += rec->path == CS_SHIM_PATH_FALLBACK ||
                          rec->path == CS_SHIM_PATH_PASSTHROUGH;
    }
    int i = 0;
    while (i < cs_shim_stats_nrows) {
        const cs_shim_row_t *r = &cs_shim_stats_rows[i];
        if (r->routine == one.routine && r->spelling == one.spelling &&
            r->path == one.path && r->reason == one.reason) {
            break;
        }
        i++;
    }
    if (i == cs_shim_stats_nrows) {
        if (i == CS_SHIM_STATS_MAX_ROWS) {
            tot->partial = 1;
            return;
        }
        memset(&cs_shim_stats_rows[i], 0, sizeof(cs_shim_stats_rows[i]));
        cs_shim_stats_rows[i].routine = one.routine;
        cs_shim_stats_rows[i].spelling = one.spelling;
        cs_shim_stats_rows[i].path = one.path;
        cs_shim_stats_rows[i].reason = one.reason;
        cs_shim_stats_nrows++;
    }
    cs_shim_row_merge(&cs_shim_stats_rows[i], &one);
}

void cs_shim_stats_record(const cs_shim_record_t *rec)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    row_add_locked(rec);
    pthread_mutex_unlock(&cs_shim_stats_lock);
}

/* ------------------------------------------------------------ shapes */

/* MB and NB of a descriptor (DTYPE 2 keeps them at 6 and 7); -1 when the
 * process is outside the matrix's grid (CTXT -1: the rest may be a
 * placeholder). */
static void shape_block(const cs_fint *desc, int32_t *mb_p, int32_t *nb_p)
{
    if (!desc || desc[1] < 0) {
        *mb_p = -1;
        *nb_p = -1;
        return;
    }
    int two = desc[0] == 2;
    *mb_p = desc[two ? 6 : 4];
    *nb_p = desc[two ? 7 : 5];
}

static void shape_of_call(const cs_shim_record_t *rec,
                          const cs_shim_call_t *g, const cs_shim_trace_t *tr,
                          cs_shim_shape_t *s)
{
    memset(s, 0, sizeof(*s));
    s->row = row_of(rec);
    s->m = g->m;
    s->n = g->n;
    s->mb_a = s->nb_a = s->mb_b = s->nb_b = -1;
    /* REDIST reads no descriptor when m or n is 0: neither do we */
    if (g->m != 0 && g->n != 0) {
        shape_block(g->desca, &s->mb_a, &s->nb_a);
        shape_block(g->descb, &s->mb_b, &s->nb_b);
    }
    snprintf(s->grid_a, sizeof(s->grid_a), "%s",
             tr->grid_a[0] ? tr->grid_a : "-");
    snprintf(s->grid_b, sizeof(s->grid_b), "%s",
             tr->grid_b[0] ? tr->grid_b : "-");
    s->relabel_cross = rec->relabel_cross >= 0 ? rec->relabel_cross : -1;
    s->relabel_best = rec->relabel_cross >= 0 ? rec->relabel_best : -1;
    int net = rec->relabel_cross >= 0 && rec->relabel_net >= 0;
    s->relabel_net = net ? rec->relabel_net : -1;
    s->relabel_net_plain = net ? rec->relabel_net_plain : -1;
    s->relabel_net_node = net ? rec->relabel_net_node : -1;
    cs_shim_hist_add(&s->hist, rec->t);
    s->max_call = 1; /* counted on from the shape's calls (shape_fold) */
    s->max_rank = cs_shim_world_rank();
}

/* d's relabeling numbers := s's (take) or d's + s's (sum). */
static void relabel_fold(cs_shim_shape_t *d, const cs_shim_shape_t *s,
                         int take)
{
    d->relabel_cross = (take ? 0 : d->relabel_cross) + s->relabel_cross;
    d->relabel_best = (take ? 0 : d->relabel_best) + s->relabel_best;
    if (s->relabel_net < 0 || (!take && d->relabel_net < 0)) {
        d->relabel_net = d->relabel_net_plain = d->relabel_net_node = -1;
        return;
    }
    d->relabel_net = (take ? 0 : d->relabel_net) + s->relabel_net;
    d->relabel_net_plain =
        (take ? 0 : d->relabel_net_plain) + s->relabel_net_plain;
    d->relabel_net_node =
        (take ? 0 : d->relabel_net_node) + s->relabel_net_node;
}

/* Exact order of shape keys: routine as called, m, n, blocks (-1, not
 * read, first), grids. */
static int shape_key_cmp(const cs_shim_shape_t *a, const cs_shim_shape_t *b)
{
    const int32_t ka[] = {a->row.routine, a->row.spelling, a->m, a->n,
                          a->mb_a, a->nb_a, a->mb_b, a->nb_b};
    const int32_t kb[] = {b->row.routine, b->row.spelling, b->m, b->n,
                          b->mb_a, b->nb_a, b->mb_b, b->nb_b};
    for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++) {
        if (ka[i] != kb[i]) {
            return ka[i] < kb[i] ? -1 : 1;
        }
    }
    int c = strcmp(a->grid_a, b->grid_a);
    return c != 0 ? c : strcmp(a->grid_b, b->grid_b);
}

static int shape_qsort_cmp(const void *a, const void *b)
{
    return shape_key_cmp(a, b);
}

/* the larger relabeling numbers of two views of the same calls, compared
 * field by field so that the choice does not depend on the order */
static int relabel_larger(const cs_shim_shape_t *s, const cs_shim_shape_t *d)
{
    const int64_t vs[] = {s->relabel_cross, s->relabel_best, s->relabel_net,
                          s->relabel_net_plain, s->relabel_net_node};
    const int64_t vd[] = {d->relabel_cross, d->relabel_best, d->relabel_net,
                          d->relabel_net_plain, d->relabel_net_node};
    for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
        if (vs[i] != vd[i]) {
            return vs[i] > vd[i];
        }
    }
    return 0;
}

/* Whether the slowest call of s (its number call) beats d's: slower,
 * or as slow on a lower rank, or earlier on the same rank, so that the
 * winner does not depend on the order of the merges. */
static int slowest_beats(const cs_shim_shape_t *s, int64_t call,
                         const cs_shim_shape_t *d)
{
    if (s->row.t_max != d->row.t_max) {
        return s->row.t_max > d->row.t_max;
    }
    if (s->max_rank != d->max_rank) {
        return s->max_rank < d->max_rank;
    }
    return call < d->max_call;
}

/* d += s.  one_rank: s is the latest call of the rank whose calls d
 * holds: relabel numbers add up and s's call number counts on from d's;
 * else the same calls seen by two ranks (or other calls of another
 * rank): keep the larger relabel numbers. */
static void shape_fold(cs_shim_shape_t *d, const cs_shim_shape_t *s,
                       int one_rank)
{
    if (d->row.calls > 0 && s->row.calls > 0 &&
        (d->row.path != s->row.path || d->row.reason != s->row.reason)) {
        d->mixed = 1;
    }
    d->mixed |= s->mixed;
    if (d->row.calls == 0) {
        d->row.path = s->row.path;
        d->row.reason = s->row.reason;
    }
    if (s->relabel_cross >= 0) {
        if (d->relabel_cross < 0) {
            relabel_fold(d, s, 1);
        } else if (one_rank) {
            relabel_fold(d, s, 0);
        } else if (relabel_larger(s, d)) {
            relabel_fold(d, s, 1);
        }
    }
    int64_t call = one_rank ? d->row.calls + s->max_call : s->max_call;
    if (s->row.calls > 0 &&
        (d->row.calls == 0 || slowest_beats(s, call, d))) {
        d->max_call = call;
        d->max_rank = s->max_rank;
    }
    cs_shim_hist_merge(&d->hist, &s->hist);
    cs_shim_row_merge(&d->row, &s->row);
}

/*
 * Add s to t under its exact key (one_rank as shape_fold's); 0 when the
 * table is full (its calls count as dropped).  RATIONALE: exact keys make
 * the merge of tables associative and commutative, so the reduction to
 * rank 0 gives the same table whatever MPI's reduction tree and number of
 * ranks; matching unknown blocks here (as the merge once did, first match
 * wins) merged the rows of ranks that each knew a different operand apart
 * or together depending on which ranks met first.  Rows of unknown blocks
 * find their shape once, on the whole table (cs_shim_shape_tab_fold).
 */
static int shape_add(cs_shim_shape_tab_t *t, const cs_shim_shape_t *s,
                     int one_rank)
{
    for (int i = 0; i < t->n; i++) {
        if (shape_key_cmp(&t->e[i], s) == 0) {
            shape_fold(&t->e[i], s, one_rank);
            return 1;
        }
    }
    if (t->n == CS_SHIM_STATS_MAX_SHAPES) {
        t->dropped += s->row.calls;
        return 0;
    }
    t->e[t->n++] = *s;
    return 1;
}

/* a known block size and one that may be unknown */
static int blk_match(int32_t known, int32_t b)
{
    return b == known || b == -1;
}

static int shape_known(const cs_shim_shape_t *s)
{
    return s->mb_a != -1 && s->nb_a != -1 && s->mb_b != -1 && s->nb_b != -1;
}

/* whether row u (some blocks unknown) may be the calls of shape k (all
 * known) */
static int shape_covers(const cs_shim_shape_t *k, const cs_shim_shape_t *u)
{
    return k->row.routine == u->row.routine &&
           k->row.spelling == u->row.spelling && k->m == u->m &&
           k->n == u->n && blk_match(k->mb_a, u->mb_a) &&
           blk_match(k->nb_a, u->nb_a) && blk_match(k->mb_b, u->mb_b) &&
           blk_match(k->nb_b, u->nb_b) && strcmp(k->grid_a, u->grid_a) == 0 &&
           strcmp(k->grid_b, u->grid_b) == 0;
}

/* Stable id of a shape: FNV-1a (32 bits) of its key's text, the same on
 * every rank and in every run (docs/report-format.md). */
static uint32_t shape_id(const cs_shim_shape_t *s)
{
    char name[32], key[160];
    cs_shim_called_name(s->row.routine, s->row.spelling, name, sizeof(name));
    snprintf(key, sizeof(key), "%s %d %d %d %d %s %d %d %s", name, s->m,
             s->n, s->mb_a, s->nb_a, s->grid_a, s->mb_b, s->nb_b, s->grid_b);
    return cs_rl_hash_str32(key);
}

static void shape_set_ids(cs_shim_shape_tab_t *t)
{
    for (int i = 0; i < t->n; i++) {
        t->e[i].id = shape_id(&t->e[i]);
    }
}

void cs_shim_shape_tab_merge(cs_shim_shape_tab_t *dst,
                             const cs_shim_shape_tab_t *src)
{
    for (int i = 0; i < src->n; i++) {
        shape_add(dst, &src->e[i], 0);
    }
    dst->dropped += src->dropped;
    shape_set_ids(dst);
}

void cs_shim_shape_tab_fold(cs_shim_shape_tab_t *t)
{
    int into[CS_SHIM_STATS_MAX_SHAPES];
    qsort(t->e, (size_t)t->n, sizeof(t->e[0]), shape_qsort_cmp);
    /* where each row of unknown blocks goes, decided before any fold: the
     * fully known rows never change their key, so the result does not
     * depend on the order of the folds */
    for (int i = 0; i < t->n; i++) {
        int hits = 0;
        into[i] = -1;
        for (int j = 0; j < t->n && !shape_known(&t->e[i]) && hits < 2;
             j++) {
            if (shape_known(&t->e[j]) && shape_covers(&t->e[j], &t->e[i])) {
                into[i] = j;
                hits++;
            }
        }
        if (hits != 1) {
            into[i] = -1;
        }
    }
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        if (into[i] >= 0) {
            shape_fold(&t->e[into[i]], &t->e[i], 0);
        }
    }
    for (int i = 0; i < t->n; i++) {
        if (into[i] < 0) {
            t->e[n++] = t->e[i];
        }
    }
    t->n = n;
    shape_set_ids(t);
}

void cs_shim_stats_shapes(cs_shim_shape_tab_t *tab_p)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    *tab_p = cs_shim_stats_shape_tab;
    pthread_mutex_unlock(&cs_shim_stats_lock);
    shape_set_ids(tab_p);
}

/* ------------------------------------------------------------ callers */

static int caller_same(const cs_shim_caller_t *a, const cs_shim_caller_t *b,
                       int by_string)
{
    return a->routine == b->routine && a->spelling == b->spelling &&
           (by_string ? strcmp(a->caller, b->caller) == 0
                      : a->addr == b->addr);
}

/* Add c to t; 0 when the table is full (its calls count as dropped). */
static int caller_add(cs_shim_caller_tab_t *t, const cs_shim_caller_t *c,
                      int by_string)
{
    for (int i = 0; i < t->n; i++) {
        if (caller_same(&t->e[i], c, by_string)) {
            t->e[i].calls += c->calls;
            t->e[i].t_sum += c->t_sum;
            return 1;
        }
    }
    if (t->n == CS_SHIM_STATS_MAX_CALLERS) {
        t->dropped += c->calls;
        return 0;
    }
    t->e[t->n++] = *c;
    return 1;
}

void cs_shim_caller_tab_merge(cs_shim_caller_tab_t *dst,
                              const cs_shim_caller_tab_t *src)
{
    for (int i = 0; i < src->n; i++) {
        caller_add(dst, &src->e[i], 1);
    }
    dst->dropped += src->dropped;
}

void cs_shim_stats_callers(cs_shim_caller_tab_t *tab_p)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    *tab_p = cs_shim_stats_caller_tab;
    pthread_mutex_unlock(&cs_shim_stats_lock);
    /* dladdr outside the lock; then fold entries whose strings agree
     * (addresses without symbol information all read "?") */
    int n = tab_p->n;
    tab_p->n = 0;
    for (int i = 0; i < n; i++) {
        cs_shim_caller_t c = tab_p->e[i];
        cs_shim_caller_str((const void *)(uintptr_t)c.addr, c.caller,
                           sizeof(c.caller));
        c.addr = 0;
        caller_add(tab_p, &c, 1);
    }
}

/* ------------------------------------------------------------ calls */

void cs_shim_stats_record_call(const cs_shim_record_t *rec,
                               const cs_shim_call_t *g,
                               const cs_shim_trace_t *tr)
{
    cs_shim_shape_t s;
    cs_shim_caller_t c;
    shape_of_call(rec, g, tr, &s);
    memset(&c, 0, sizeof(c));
    c.addr = (uint64_t)(uintptr_t)g->caller;
    c.routine = rec->routine;
    c.spelling = rec->spelling;
    c.calls = 1;
    c.t_sum = rec->t;

    pthread_mutex_lock(&cs_shim_stats_lock);
    cs_shim_totals_t *tot = &cs_shim_stats_totals;
    row_add_locked(rec);
    int placed = shape_add(&cs_shim_stats_shape_tab, &s, 1);
    placed &= caller_add(&cs_shim_stats_caller_tab, &c, 0);
    if (!placed) {
        tot->partial = 1;
    }
    if (tr->verified) {
        tot->verify_calls++;
        if (tr->maxdiff > tot->verify_maxdiff) {
            tot->verify_maxdiff = tr->maxdiff;
        }
    }
    pthread_mutex_unlock(&cs_shim_stats_lock);
}

int cs_shim_stats_snapshot(cs_shim_row_t *rows_p, int max,
                           cs_shim_totals_t *totals_p)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    int n = cs_shim_stats_nrows < max ? cs_shim_stats_nrows : max;
    memcpy(rows_p, cs_shim_stats_rows, (size_t)n * sizeof(*rows_p));
    *totals_p = cs_shim_stats_totals;
    pthread_mutex_unlock(&cs_shim_stats_lock);
    return n;
}
