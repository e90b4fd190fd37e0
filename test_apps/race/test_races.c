/*
 * test_apps/race/test_races.c - the library's process-wide state under
 * threads, built with ThreadSanitizer together with the files that keep
 * it (test_apps/tests.mk: RACE_LIB_SRCS), run by check 19_races.
 *
 * Pairs of threads do at once what an application's threads and the
 * shim's do: one sets the log threshold while the other logs
 * (config/log.c); one switches interception as costa_shim_set_enabled
 * does while the other reads the switch as the interposers do
 * (shim_process.c); several resolve real routines while another asks for
 * the real library's path (shim_real.c); one records and forgets grids
 * while another copies them (shim_grid_registry.c).  ThreadSanitizer
 * reports every unsynchronised access (exit 66).  Then, on one thread:
 * the grid registry's Lamport clock only moves forward, and a copy of a
 * grid outlives the registry's release.
 *
 * No MPI call is made; ScaLAPACK is linked so that the real routines can
 * be found.  Prints "cs_test: OK" last on success.
 */
#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"

#include "cs_test.h"

#include <pthread.h>
#include <string.h>

enum { ROUNDS = 2000, GRIDS = 64 };

static void *log_setter(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        cs_log_set_level(i % 2 ? CS_LOG_ERROR : CS_LOG_WARN);
    }
    return arg;
}

static void *log_reader(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        cs_log_info("never shown: the threshold stays below info (%d)", i);
    }
    return arg;
}

static void *enable_setter(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        cs_shim_enabled_set(i % 2);
    }
    cs_shim_enabled_set(1);
    return arg;
}

static void *enable_reader(void *arg)
{
    long off = 0;
    for (int i = 0; i < ROUNDS; i++) {
        off += !cs_shim_enabled; /* as shim_front.c reads it */
        off += !cs_shim_is_enabled();
    }
    *(long *)arg = off;
    return arg;
}

static void *real_resolver(void *arg)
{
    for (int r = 0; r < CS_SHIM_NROUTINES; r++) {
        cs_shim_real(r, 1);
        cs_shim_real(r, 0);
    }
    return arg;
}

static void *real_library_reader(void *arg)
{
    const char **lib = arg;
    for (int i = 0; i < ROUNDS && !(*lib)[0]; i++) {
        *lib = cs_shim_real_library();
    }
    return arg;
}

/* Grid i: 1 x (i % 4 + 1), world ranks 100 i + j. */
static void *grid_recorder(void *arg)
{
    int map[4], clock;
    for (int i = 0; i < GRIDS; i++) {
        int index = cs_shim_grids_number(&clock);
        cs_shim_grid_t g = {.index = index, .stamp = clock, .owner = 100 * i,
                            .member = 1, .p = 1, .q = i % 4 + 1,
                            .order = 'R', .handle = i, .app_map = map,
                            .map = map};
        for (int j = 0; j < g.q; j++) {
            map[j] = 100 * i + j;
        }
        cs_shim_grids_clock_past(clock);
        cs_shim_grids_record(&g);
        if (i % 3 == 0) {
            cs_shim_grids_forget(i);
        }
    }
    return arg;
}

static void *grid_reader(void *arg)
{
    long *bad = arg;
    for (int round = 0; round < 50; round++) {
        int n = cs_shim_grids_count();
        for (int i = 0; i < n; i++) {
            cs_shim_grid_t g;
            if (cs_shim_grids_get(i, &g) != 0) {
                (*bad)++;
                continue;
            }
            for (int j = 0; j < g.p * g.q; j++) {
                *bad += g.map[j] != 100 * i + j || g.app_map[j] != g.map[j];
            }
            cs_shim_grid_free(&g);
        }
    }
    return arg;
}

static void pair(void *(*a)(void *), void *arg_a, void *(*b)(void *),
                 void *arg_b)
{
    pthread_t ta, tb;
    CS_TEST_EQ(pthread_create(&ta, NULL, a, arg_a), 0);
    CS_TEST_EQ(pthread_create(&tb, NULL, b, arg_b), 0);
    CS_TEST_EQ(pthread_join(ta, NULL), 0);
    CS_TEST_EQ(pthread_join(tb, NULL), 0);
}

int main(void)
{
    long off = 0, bad = 0;
    const char *lib = "";

    pair(log_setter, NULL, log_reader, NULL);
    cs_log_set_level(CS_LOG_WARN);
    pair(enable_setter, NULL, enable_reader, &off);
    CS_TEST_EQ(cs_shim_is_enabled(), 1);
    pair(real_resolver, NULL, real_library_reader, (void *)&lib);
    pair(real_resolver, NULL, real_resolver, NULL);
    lib = cs_shim_real_library();
    CS_TEST_ASSERT(strstr(lib, "scalapack") != NULL);
    CS_TEST_ASSERT(cs_shim_real(CS_SHIM_R_PDGEMR2D, 1) != NULL);
    pair(grid_recorder, NULL, grid_reader, &bad);
    CS_TEST_EQ(bad, 0);
    CS_TEST_EQ(cs_shim_grids_count(), GRIDS);

    /* the clock takes the maximum: a late, smaller stamp does not move it
     * back */
    int c0, c1;
    cs_shim_grids_number(&c0);
    cs_shim_grids_clock_past(c0 + 10);
    cs_shim_grids_clock_past(c0 + 2);
    cs_shim_grids_number(&c1);
    CS_TEST_EQ(c1, c0 + 11);

    /* a copy is the caller's: it outlives the registry's release */
    cs_shim_grid_t g;
    CS_TEST_EQ(cs_shim_grids_get(GRIDS - 1, &g), 0);
    cs_shim_grids_release();
    CS_TEST_EQ(cs_shim_grids_count(), 0);
    CS_TEST_EQ(g.q, (GRIDS - 1) % 4 + 1);
    for (int j = 0; j < g.q; j++) {
        CS_TEST_EQ(g.map[j], 100 * (GRIDS - 1) + j);
    }
    cs_shim_grid_free(&g);
    CS_TEST_EQ(cs_shim_grids_get(0, &g), -1);
    CS_TEST_ASSERT(g.map == NULL);
    return cs_test_done();
}
