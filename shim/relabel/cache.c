/*
 * shim/relabel/cache.c - the cache of call shapes with what relabeling
 * would save on each, and the position volumes of grid pairs the plan is
 * computed from (shim/relabel/relabel_int.h, docs/relabel.md).
 *
 * Every rank computes the per-call numbers itself from the global layouts
 * (shape.c; no communication, deterministic, so every rank gets the same
 * numbers).  Only the keeper of a call (the lowest world rank of its
 * global context) keeps the position volumes of its grid pair; the other
 * ranks keep only the cache of (shape -> numbers).  Memory is bounded by
 * the constants in relabel_int.h and claimed under COSTA_SHIM_MAX_MEMORY:
 * a new shape's computation for its duration, the position volumes while
 * they are kept.
 *
 * The cache and the pairs are one registry, guarded by
 * cs_rl_observe_lock.  RATIONALE: a new shape is computed outside the
 * lock (at P = 65,536 it takes tens of milliseconds), so calls of other
 * threads go on meanwhile; two threads that compute the same shape at
 * once get the same numbers, and the first to insert them wins.
 * No MPI calls (observe.c turns a call's communicator into a key).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "relabel/relabel.h"
#include "shim/relabel/relabel_int.h"
#include "shim/relabel/shape_int.h"
#include "shim/shim.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/shim_memory_int.h"

static pthread_mutex_t cs_rl_observe_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------ state */

typedef struct {
    int used;
    int id;             /* shape number for the log */
    uint64_t last_use;
    cs_shim_relabel_key_t key;
    int64_t cross, best; /* -1: not computable (no way covers it) */
    int64_t net, net_plain, net_node; /* across nodes, -1: one node */
    int pa, pb;         /* positions of A's and B's grids */
    int64_t *posmat;    /* keeper: pa x pb bytes, position to position */
    int64_t *term;      /* keeper, without posmat: the shape's factors as
                         * a plan term (nterm words, calls 0) */
    int64_t nterm;
    int64_t calls;      /* calls not yet added to the pair */
} shape_t;

static shape_t cs_shapes[CS_SHIM_RELABEL_SHAPES];
static int cs_shape_ids;
static uint64_t cs_use_clock;

/* Position volumes of the calls from grid (sa, oa) to grid (sb, ob) this
 * process kept (their plan numbers ga, gb stay -1 here). */
static cs_rl_pair_t cs_pairs[CS_SHIM_RELABEL_PAIRS];
static int64_t *cs_pair_fw[CS_SHIM_RELABEL_PAIRS]; /* a factored pair's
                                                    * terms (its fw) */
static int cs_npairs;
static int64_t cs_kept_bytes;   /* bytes of posmat and pair matrices, all
                                 * claimed under the memory cap */

/* totals over the calls this process kept */
static int64_t cs_calls_seen;
static int64_t cs_cross_total;  /* with the application's maps */
static int cs_incomplete;       /* some call could not enter the plan */
static int cs_saturated;

/* a shape was skipped for memory: warned once per process */
static atomic_int cs_rl_warned;

/* ------------------------------------------------------------ memory */

/* What the claim of a new shape's computation asked for, when refused. */
typedef struct {
    int64_t refused;
    int fault;          /* refused by COSTA_SHIM_TEST_FAULT */
} claim_ctx_t;

/* cs_shim_rl_claim_fn over the shim's memory cap; COSTA_SHIM_TEST_FAULT
 * relabel refuses every claim on the rank it names. */
static int claim_cap(void *ctx, int64_t bytes)
{
    claim_ctx_t *c = ctx;
    if (bytes <= 0) {
        cs_shim_mem_unclaim(-bytes);
        return 0;
    }
    c->fault = cs_shim_fault(CS_CFG_FAULT_RELABEL);
    if (c->fault || cs_shim_mem_claim_spare(bytes) != 0) {
        c->refused = bytes;
        return 1;
    }
    return 0;
}

/* Claim bytes the registry keeps (position volumes): 0 claimed, else
 * nothing claimed.  Under cs_rl_observe_lock. */
static int keep_claim(int64_t bytes)
{
    if (cs_kept_bytes + bytes > CS_SHIM_RELABEL_MAX_BYTES ||
        cs_shim_mem_claim_spare(bytes) != 0) {
        return 1;
    }
    cs_kept_bytes += bytes;
    return 0;
}

static void keep_unclaim(int64_t bytes)
{
    cs_kept_bytes -= bytes;
    cs_shim_mem_unclaim(bytes);
}

/* ------------------------------------------------------------ pairs */

/* The pair of key k's grids kept as a matrix (terms 0) or as factored
 * terms (1), made when new; NULL when it cannot be kept. */
static cs_rl_pair_t *pair_get(const cs_shim_relabel_key_t *k, int pa, int pb,
                              int terms)
{
    for (int i = 0; i < cs_npairs; i++) {
        cs_rl_pair_t *p = &cs_pairs[i];
        if (p->sa == k->sa && p->oa == k->oa && p->sb == k->sb &&
            p->ob == k->ob && (p->v == NULL) == terms) {
            return p->pa == pa && p->pb == pb ? p : NULL;
        }
    }
    int64_t bytes = terms ? 0 : (int64_t)pa * pb * (int64_t)sizeof(int64_t);
    if (cs_npairs == CS_SHIM_RELABEL_PAIRS || keep_claim(bytes) != 0) {
        return NULL;
    }
    int64_t *v = terms ? NULL : calloc((size_t)pa * (size_t)pb,
                                       sizeof(int64_t));
    if (!terms && !v) {
        keep_unclaim(bytes);
        return NULL;
    }
    cs_rl_pair_t *p = &cs_pairs[cs_npairs++];
    *p = (cs_rl_pair_t){.sa = (int)k->sa, .oa = (int)k->oa,
                        .sb = (int)k->sb, .ob = (int)k->ob,
                        .ga = -1, .gb = -1, .pa = pa, .pb = pb,
                        .calls = 0, .v = v};
    return p;
}

/* Append a term of calls calls (a copy of the shape's words) to factored
 * pair p: 0, or -1 when it cannot be kept. */
static int pair_add_term(cs_rl_pair_t *p, const shape_t *s)
{
    int i = (int)(p - cs_pairs);
    int64_t n = s->nterm;
    if (keep_claim(n * (int64_t)sizeof(int64_t)) != 0) {
        return -1;
    }
    int64_t *w = realloc(cs_pair_fw[i],
                         (size_t)(p->nfw + n) * sizeof(int64_t));
    if (!w) {
        keep_unclaim(n * (int64_t)sizeof(int64_t));
        return -1;
    }
    memcpy(w + p->nfw, s->term, (size_t)n * sizeof(int64_t));
    w[p->nfw] = s->calls; /* the term's first word: its calls */
    cs_pair_fw[i] = w;
    p->fw = w;
    p->nfw += n;
    p->calls += s->calls;
    return 0;
}

/* Add the shape's pending calls to its grid pair. */
static void shape_flush(shape_t *s)
{
    if ((!s->posmat && !s->term) || s->calls == 0) {
        return;
    }
    cs_rl_pair_t *p = pair_get(&s->key, s->pa, s->pb, s->posmat == NULL);
    if (!p || (s->term && pair_add_term(p, s) != 0)) {
        cs_incomplete = 1;
    } else if (s->posmat) {
        int64_t n = (int64_t)s->pa * s->pb;
        for (int64_t k = 0; k < n; k++) {
            p->v[k] = cs_rl_add_sat(p->v[k],
                                    cs_rl_mul_sat(s->calls, s->posmat[k],
                                                  &cs_saturated),
                                    &cs_saturated);
        }
        p->calls += s->calls;
    }
    s->calls = 0;
}

static void shape_free(shape_t *s)
{
    shape_flush(s);
    if (s->posmat) {
        free(s->posmat);
        keep_unclaim((int64_t)s->pa * s->pb * (int64_t)sizeof(int64_t));
    }
    if (s->term) {
        free(s->term);
        keep_unclaim(s->nterm * (int64_t)sizeof(int64_t));
    }
    memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------ shapes */
/* "grid #3 2x2/64x64": the number is the grid's creation number on this
 * process, left out when this process did not take part in creating it */
static void grid_label(char *buf, size_t len, int64_t stamp, int64_t owner,
                       const cs_eng_layout_t *l)
{
    int g = stamp >= 0 ? cs_shim_grids_index((int)stamp, (int)owner) : -1;
    if (g >= 0) {
        snprintf(buf, len, "grid #%d %dx%d/%" PRId64 "x%" PRId64, g, l->nprow,
                 l->npcol, l->rows.nb, l->cols.nb);
    } else {
        snprintf(buf, len, "%dx%d/%" PRId64 "x%" PRId64, l->nprow, l->npcol,
                 l->rows.nb, l->cols.nb);
    }
}

/* 1 if the key's call enters the plan: both grids known and different */
static int key_planned(const cs_shim_relabel_key_t *k)
{
    return k->sa >= 0 && k->sb >= 0 && (k->sa != k->sb || k->oa != k->ob);
}

static shape_t *shape_find(const cs_shim_relabel_key_t *key)
{
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (cs_shapes[i].used &&
            memcmp(&cs_shapes[i].key, key, sizeof(*key)) == 0) {
            return &cs_shapes[i];
        }
    }
    return NULL;
}

/* A free slot, or the least recently used one emptied. */
static shape_t *shape_slot(void)
{
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (!cs_shapes[i].used) {
            return &cs_shapes[i];
        }
    }
    shape_t *s = &cs_shapes[0];
    for (int i = 1; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (cs_shapes[i].last_use < s->last_use) {
            s = &cs_shapes[i];
        }
    }
    shape_free(s);
    return s;
}

/* The keeper's line for a new shape (COSTA_SHIM_LOG_LEVEL=info). */
static void shape_log(const shape_t *s, const cs_shim_relabel_call_t *c)
{
    const cs_shim_relabel_key_t *key = &c->key;
    char ga[96], gb[96];
    grid_label(ga, sizeof(ga), key->sa, key->oa, c->la);
    grid_label(gb, sizeof(gb), key->sb, key->ob, c->lb);
    double gain = s->cross > 0 ? 100.0 * (double)(s->cross - s->best) /
                                     (double)s->cross
                               : 0.0;
    char nodes[160] = "";
    if (s->net >= 0) {
        snprintf(nodes, sizeof(nodes),
                 "; %.3f MB cross nodes, %.3f MB relabeled, %.3f MB "
                 "relabeled node-aware",
                 1e-6 * (double)s->net, 1e-6 * (double)s->net_plain,
                 1e-6 * (double)s->net_node);
    }
    cs_log_info("relabel: shape %d %s %" PRId64 "x%" PRId64
                " A %s -> B %s: %.3f MB cross processes, %.3f MB with "
                "B's grid relabeled (gain %.1f%%)%s",
                s->id, cs_shim_routines[c->routine].lower, c->op->m,
                c->op->n, ga, gb, 1e-6 * (double)s->cross,
                1e-6 * (double)s->best, gain, nodes);
}

/*
 * Insert the numbers r computed for call c (NULL: no way covers the
 * shape; cached too, so that later calls do not try again).  Takes
 * r->posmat.  Under cs_rl_observe_lock.
 */
static shape_t *shape_new(const cs_shim_relabel_call_t *c,
                          cs_shim_rl_shape_t *r)
{
    shape_t *s = shape_slot();
    s->used = 1;
    s->id = ++cs_shape_ids;
    s->key = c->key;
    s->pa = c->la->nprow * c->la->npcol;
    s->pb = c->lb->nprow * c->lb->npcol;
    s->cross = s->best = s->net = s->net_plain = s->net_node = -1;
    if (!r) {
        return s;
    }
    s->cross = r->cross;
    s->best = r->best;
    s->net = r->net;
    s->net_plain = r->net_plain;
    s->net_node = r->net_node;
    int64_t bytes = (int64_t)s->pa * s->pb * (int64_t)sizeof(int64_t);
    if (c->keeper && key_planned(&c->key)) {
        int64_t tbytes = r->nterm * (int64_t)sizeof(int64_t);
        if (r->posmat && keep_claim(bytes) == 0) {
            s->posmat = r->posmat;
            r->posmat = NULL;
        } else if (r->term && keep_claim(tbytes) == 0) {
            s->term = r->term;
            s->nterm = r->nterm;
            r->term = NULL;
        } else {
            cs_incomplete = 1;
        }
    }
    if (c->keeper && cs_log_level() >= CS_LOG_INFO) {
        shape_log(s, c);
    }
    return s;
}

/* A call of shape s: its record, and on the keeper its count. */
static void shape_use(shape_t *s, const cs_shim_relabel_call_t *c,
                      cs_shim_record_t *rec)
{
    const cs_shim_relabel_key_t *key = &s->key;
    s->last_use = ++cs_use_clock;
    int other = key->sa != key->sb || key->oa != key->ob;
    if (s->cross < 0) {
        /* not computable here: the plan cannot account for the call */
        if (c->keeper) {
            cs_incomplete |= other && (key->sa >= 0 || key->sb >= 0);
        }
        return;
    }
    rec->relabel_cross = s->cross;
    rec->relabel_best = s->best;
    rec->relabel_net = s->net;
    rec->relabel_net_plain = s->net_plain;
    rec->relabel_net_node = s->net_node;
    if (c->keeper) {
        cs_calls_seen++;
        cs_cross_total =
            cs_rl_add_sat(cs_cross_total, s->cross, &cs_saturated);
        if (s->posmat || s->term) {
            s->calls++;
        } else if (other) {
            /* a grid the registry does not know, or no memory: the plan
             * cannot account for this call if it relabels the other
             * grid */
            cs_incomplete |= key->sa >= 0 || key->sb >= 0;
        }
    }
}

/* Once per process: a shape was skipped for the memory cap. */
static void warn_skipped(const cs_shim_relabel_call_t *c,
                         const claim_ctx_t *cc)
{
    int was = 0;
    if (!atomic_compare_exchange_strong(&cs_rl_warned, &was, 1)) {
        return;
    }
    cs_log_warn("relabel: %s %" PRId64 "x%" PRId64 " on %d processes not "
                "evaluated: its %.1f MB would take the shim above "
                "COSTA_SHIM_MAX_MEMORY (%.1f MB, %.1f MB held%s); its "
                "relabel numbers stay n/a here and the plan leaves such "
                "calls out (said once)",
                cs_shim_routines[c->routine].lower, c->op->m, c->op->n,
                c->np, 1e-6 * (double)cc->refused,
                1e-6 * (double)cs_shim_mem_cap(),
                1e-6 * (double)cs_shim_mem_held(),
                cc->fault ? "; refused by COSTA_SHIM_TEST_FAULT" : "");
}

void cs_shim_relabel_cache_observe(const cs_shim_relabel_call_t *c,
                                   cs_shim_record_t *rec)
{
    pthread_mutex_lock(&cs_rl_observe_lock);
    shape_t *s = shape_find(&c->key);
    if (s) {
        shape_use(s, c, rec);
    }
    int64_t room = CS_SHIM_RELABEL_MAX_BYTES - cs_kept_bytes;
    pthread_mutex_unlock(&cs_rl_observe_lock);
    if (s) {
        return;
    }

    /* a new shape: computed outside the lock, under the memory cap */
    const cs_config_t *cfg = cs_cfg_get();
    cs_shim_rl_shape_in_t in = {
        .la = c->la, .lb = c->lb, .op = c->op, .np = c->np,
        .node = c->node, .w_rank = cfg->relabel_cost_rank,
        .w_node = cfg->relabel_cost_node,
        .posmat_max = c->keeper && key_planned(&c->key) &&
                              !cs_shim_fault(CS_CFG_FAULT_RELABEL_DENSE)
                          ? room
                          : 0,
        .keep_term = c->keeper && key_planned(&c->key)};
    claim_ctx_t cc = {0};
    cs_shim_rl_shape_t r;
    cs_status_t st = cs_shim_rl_shape_eval(&in, claim_cap, &cc, &r);
    if (st != CS_OK) {
        r.posmat = NULL;
        r.term = NULL;
    }

    pthread_mutex_lock(&cs_rl_observe_lock);
    /* another thread may have inserted the same shape meanwhile: the
     * first one stays (both computed the same numbers) */
    s = shape_find(&c->key);
    if (!s && (st == CS_OK || st == CS_ERR_UNSUPPORTED)) {
        s = shape_new(c, st == CS_OK ? &r : NULL);
    }
    if (s) {
        shape_use(s, c, rec);
    } else if (c->keeper) {
        cs_incomplete = 1; /* memory: the plan misses the call */
    }
    pthread_mutex_unlock(&cs_rl_observe_lock);
    free(r.posmat);
    free(r.term);
    if (st == CS_ERR_LIMIT) {
        warn_skipped(c, &cc);
    }
}

/* ------------------------------------------------------------ finalize */

/* Flush every shape's pending calls into its pair and free the shapes. */
static void shapes_release(void)
{
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (cs_shapes[i].used) {
            shape_free(&cs_shapes[i]);
        }
    }
}

void cs_shim_relabel_observe_flush(cs_shim_relabel_seen_t *seen_p)
{
    pthread_mutex_lock(&cs_rl_observe_lock);
    shapes_release();
    seen_p->npairs = cs_npairs;
    seen_p->pairs = cs_pairs;
    seen_p->calls_seen = cs_calls_seen;
    seen_p->cross_total = cs_cross_total;
    seen_p->incomplete = cs_incomplete;
    seen_p->saturated = cs_saturated;
    pthread_mutex_unlock(&cs_rl_observe_lock);
}

void cs_shim_relabel_observe_release(void)
{
    pthread_mutex_lock(&cs_rl_observe_lock);
    shapes_release();
    for (int k = 0; k < cs_npairs; k++) {
        int64_t n = cs_pairs[k].v ? (int64_t)cs_pairs[k].pa * cs_pairs[k].pb
                                  : cs_pairs[k].nfw;
        free(cs_pairs[k].v);
        free(cs_pair_fw[k]);
        keep_unclaim(n * (int64_t)sizeof(int64_t));
    }
    memset(cs_pairs, 0, sizeof(cs_pairs));
    memset(cs_pair_fw, 0, sizeof(cs_pair_fw));
    cs_npairs = 0;
    pthread_mutex_unlock(&cs_rl_observe_lock);
}
