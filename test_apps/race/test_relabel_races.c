/*
 * test_apps/race/test_relabel_races.c - COSTA_SHIM_RELABEL's shape cache
 * under threads (shim/relabel/cache.c), built with ThreadSanitizer
 * together with the files that keep its state (test_apps/tests.mk:
 * RACE_LIB_SRCS), run by check 19_races.
 *
 * A new call shape is computed outside the cache's lock, so threads that
 * meet the same new shape at once all compute it.  Here four threads at
 * a barrier observe the same shape, twice: a small one the dense way
 * (keeper: it keeps position volumes for the plan) and a large one the
 * factored way (P = 4,096).  Every thread gets the same numbers; the
 * cache keeps one entry (one "relabel: shape" line in the log, the
 * keeper's plan counts every call once); all memory claimed under the
 * cap is given back at release.  ThreadSanitizer reports every
 * unsynchronised access (exit 66).
 *
 * No MPI call is made.  Prints "cs_test: OK" last on success.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/log.h"
#include "engine/engine.h"
#include "shim/relabel/relabel_int.h"
#include "shim/shim.h"
#include "shim/shim_memory_int.h"

#include "cs_test.h"

enum { NT = 4 };

/* A g x g grid in row order to one in column order, blocks 64 -> 100,
 * m = n = 100 g doubles, on a context of g * g ranks. */
typedef struct {
    cs_eng_layout_t la, lb;
    cs_eng_op_t op;
    int *ga, *gb;
    cs_shim_relabel_call_t call;
    pthread_barrier_t start;
    cs_shim_record_t rec[NT];
} shape_case_t;

static void case_make(shape_case_t *x, int g, int keeper)
{
    int P = g * g;
    memset(x, 0, sizeof(*x));
    x->ga = malloc((size_t)P * sizeof(int));
    x->gb = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(x->ga && x->gb);
    for (int r = 0; r < g; r++) {
        for (int c = 0; c < g; c++) {
            x->ga[r * g + c] = r * g + c;
            x->gb[r * g + c] = c * g + r;
        }
    }
    int64_t mn = 100 * (int64_t)g, nb[2] = {64, 100};
    cs_eng_layout_t *l[2] = {&x->la, &x->lb};
    for (int k = 0; k < 2; k++) {
        CS_TEST_EQ(cs_eng_dist_cyclic(mn, nb[k], nb[k], 0, g, &l[k]->rows),
                   CS_OK);
        CS_TEST_EQ(cs_eng_dist_cyclic(mn, nb[k], nb[k], 0, g, &l[k]->cols),
                   CS_OK);
        l[k]->nprow = l[k]->npcol = g;
        l[k]->ld = 1;
    }
    x->la.grid = x->ga;
    x->lb.grid = x->gb;
    x->op = (cs_eng_op_t){.m = mn, .n = mn, .esize = 8};
    cs_shim_relabel_call_t *c = &x->call;
    c->key.m = c->key.n = mn;
    c->key.np = P;
    c->key.sa = 0; /* two known grids: the call enters the plan */
    c->key.sb = 1;
    c->key.hash_a = g; /* the two cases differ */
    c->la = &x->la;
    c->lb = &x->lb;
    c->op = &x->op;
    c->np = P;
    c->routine = CS_SHIM_R_PDGEMR2D;
    c->keeper = keeper;
    CS_TEST_EQ(pthread_barrier_init(&x->start, NULL, NT), 0);
    for (int t = 0; t < NT; t++) {
        x->rec[t].relabel_cross = x->rec[t].relabel_best = -1;
        x->rec[t].relabel_net = -1;
    }
}

static void case_free(shape_case_t *x)
{
    pthread_barrier_destroy(&x->start);
    free(x->ga);
    free(x->gb);
}

typedef struct {
    shape_case_t *x;
    int t;
} arg_t;

static void *observer(void *p)
{
    arg_t *a = p;
    pthread_barrier_wait(&a->x->start);
    cs_shim_relabel_cache_observe(&a->x->call, &a->x->rec[a->t]);
    return NULL;
}

/* NT threads observe x's shape at once; all get the same numbers. */
static void observe_together(shape_case_t *x)
{
    pthread_t th[NT];
    arg_t a[NT];
    for (int t = 0; t < NT; t++) {
        a[t] = (arg_t){x, t};
        CS_TEST_EQ(pthread_create(&th[t], NULL, observer, &a[t]), 0);
    }
    for (int t = 0; t < NT; t++) {
        CS_TEST_EQ(pthread_join(th[t], NULL), 0);
    }
    CS_TEST_ASSERT(x->rec[0].relabel_cross > 0);
    CS_TEST_ASSERT(x->rec[0].relabel_best >= 0);
    for (int t = 1; t < NT; t++) {
        CS_TEST_EQ(x->rec[t].relabel_cross, x->rec[0].relabel_cross);
        CS_TEST_EQ(x->rec[t].relabel_best, x->rec[0].relabel_best);
        CS_TEST_EQ(x->rec[t].relabel_net, -1);
    }
}

/* Lines of file f that contain s; every line is copied to stderr (the
 * log and ThreadSanitizer's reports of the threads' part). */
static int count_lines(FILE *f, const char *s)
{
    char line[1024];
    int n = 0;
    rewind(f);
    while (fgets(line, sizeof(line), f)) {
        n += strstr(line, s) != NULL;
        fputs(line, stderr);
    }
    return n;
}

int main(void)
{
    cs_cfg_get(); /* parsed first: it sets the log level */
    int64_t held0 = cs_shim_mem_held();
    /* the log of the threads' part into a file: one line per shape
     * inserted */
    FILE *log = tmpfile();
    int err = dup(2);
    CS_TEST_ASSERT(log && err >= 0 && dup2(fileno(log), 2) == 2);
    cs_log_set_level(CS_LOG_INFO);

    shape_case_t small, large;
    case_make(&small, 4, 1);   /* dense way, keeper */
    case_make(&large, 64, 0);  /* factored way, P = 4096 */
    for (int round = 0; round < 2; round++) {
        observe_together(&small);
        observe_together(&large);
    }

    cs_log_set_level(CS_LOG_WARN);
    CS_TEST_ASSERT(dup2(err, 2) == 2);
    close(err);
    /* the keeper logs each shape it inserts; the other shape's process
     * is no keeper */
    int lines = count_lines(log, "relabel: shape ");
    fclose(log);
    CS_TEST_EQ(lines, 1);

    cs_shim_relabel_seen_t seen;
    cs_shim_relabel_observe_flush(&seen);
    CS_TEST_EQ(seen.calls_seen, 2 * NT);
    CS_TEST_EQ(seen.npairs, 1);
    CS_TEST_EQ(seen.pairs[0].calls, 2 * NT);
    CS_TEST_EQ(seen.incomplete, 0);
    cs_shim_relabel_observe_release();
    CS_TEST_EQ(cs_shim_mem_held(), held0);
    case_free(&small);
    case_free(&large);
    return cs_test_done();
}
