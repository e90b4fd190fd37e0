/*
 * shim/shim_grid_registry.c - the registry of created BLACS grids
 * (shim_grid_registry_int.h): fixed size, guarded by one mutex, no MPI.
 * The interposers of shim_grids.c number, stamp and record the grids;
 * the relabeling code and p?gemr2d read them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim_grid_registry_int.h"

static pthread_mutex_t cs_grid_lock = PTHREAD_MUTEX_INITIALIZER;

static cs_shim_grid_t cs_grids[CS_SHIM_GRIDS_MAX];
static int cs_grids_n;        /* recorded */
static int cs_grids_numbered; /* numbered (>= recorded) */
static int64_t cs_grids_positions;
static int cs_grids_clock;    /* Lamport clock: next stamp at least this */

int cs_shim_grids_number(int *clock_p)
{
    pthread_mutex_lock(&cs_grid_lock);
    int index = cs_grids_numbered++;
    *clock_p = cs_grids_clock;
    pthread_mutex_unlock(&cs_grid_lock);
    return index;
}

void cs_shim_grids_clock_past(int stamp)
{
    pthread_mutex_lock(&cs_grid_lock);
    if (stamp >= cs_grids_clock) {
        cs_grids_clock = stamp + 1;
    }
    pthread_mutex_unlock(&cs_grid_lock);
}

int cs_shim_grids_created(void)
{
    pthread_mutex_lock(&cs_grid_lock);
    int n = cs_grids_numbered;
    pthread_mutex_unlock(&cs_grid_lock);
    return n;
}

int cs_shim_grids_count(void)
{
    pthread_mutex_lock(&cs_grid_lock);
    int n = cs_grids_n;
    pthread_mutex_unlock(&cs_grid_lock);
    return n;
}

int cs_shim_grids_get(int i, cs_shim_grid_t *g_p)
{
    int rc = -1;
    memset(g_p, 0, sizeof(*g_p));
    pthread_mutex_lock(&cs_grid_lock);
    if (i >= 0 && i < cs_grids_n) {
        const cs_shim_grid_t *r = &cs_grids[i];
        size_t n = (size_t)r->p * (size_t)r->q;
        int *app_map = malloc(n * sizeof(int));
        int *map = malloc(n * sizeof(int));
        if (app_map && map) {
            *g_p = *r;
            g_p->app_map = memcpy(app_map, r->app_map, n * sizeof(int));
            g_p->map = memcpy(map, r->map, n * sizeof(int));
            rc = 0;
        } else {
            free(app_map);
            free(map);
        }
    }
    pthread_mutex_unlock(&cs_grid_lock);
    return rc;
}

void cs_shim_grid_free(cs_shim_grid_t *g)
{
    free(g->app_map);
    free(g->map);
    memset(g, 0, sizeof(*g));
}

int cs_shim_grids_stamp(int handle)
{
    int stamp = -1;
    if (handle < 0) {
        return -1;
    }
    pthread_mutex_lock(&cs_grid_lock);
    for (int i = cs_grids_n - 1; i >= 0 && stamp < 0; i--) {
        if (cs_grids[i].live && cs_grids[i].handle == handle) {
            stamp = cs_grids[i].stamp;
        }
    }
    pthread_mutex_unlock(&cs_grid_lock);
    return stamp;
}

int cs_shim_grids_index(int stamp, int owner)
{
    int index = -1;
    pthread_mutex_lock(&cs_grid_lock);
    for (int i = 0; i < cs_grids_n && index < 0; i++) {
        if (cs_grids[i].stamp == stamp && cs_grids[i].owner == owner) {
            index = cs_grids[i].index;
        }
    }
    pthread_mutex_unlock(&cs_grid_lock);
    return index;
}

void cs_shim_grids_release(void)
{
    pthread_mutex_lock(&cs_grid_lock);
    for (int i = 0; i < cs_grids_n; i++) {
        free(cs_grids[i].app_map);
        free(cs_grids[i].map);
    }
    memset(cs_grids, 0, sizeof(cs_grids));
    cs_grids_n = 0;
    cs_grids_positions = 0;
    pthread_mutex_unlock(&cs_grid_lock);
}

void cs_shim_grids_record(const cs_shim_grid_t *g)
{
    size_t n = (size_t)g->p * (size_t)g->q;
    pthread_mutex_lock(&cs_grid_lock);
    if (cs_grids_n < CS_SHIM_GRIDS_MAX &&
        cs_grids_positions + (int64_t)n <= CS_SHIM_GRIDS_MAX_POSITIONS &&
        g->index == cs_grids_n) {
        cs_shim_grid_t *r = &cs_grids[cs_grids_n];
        *r = *g;
        r->app_map = malloc(n * sizeof(int));
        r->map = malloc(n * sizeof(int));
        if (r->app_map && r->map) {
            memcpy(r->app_map, g->app_map, n * sizeof(int));
            memcpy(r->map, g->map, n * sizeof(int));
            r->live = 1;
            cs_grids_n++;
            cs_grids_positions += (int64_t)n;
        } else {
            free(r->app_map);
            free(r->map);
            memset(r, 0, sizeof(*r));
        }
    }
    pthread_mutex_unlock(&cs_grid_lock);
}

void cs_shim_grids_forget(int handle)
{
    if (handle < 0) {
        return;
    }
    pthread_mutex_lock(&cs_grid_lock);
    for (int i = 0; i < cs_grids_n; i++) {
        if (cs_grids[i].live && cs_grids[i].handle == handle) {
            cs_grids[i].live = 0;
        }
    }
    pthread_mutex_unlock(&cs_grid_lock);
}
