/*
 * engine/workspace.c - the persistent send/receive buffers, one per thread.
 *
 * RATIONALE: a fresh malloc of tens of megabytes per call is an mmap whose
 * pages fault in on first touch, which costs as much as the copy itself.
 * A buffer is grown on demand, never zero-filled by us, and kept until
 * cs_eng_workspace_release() (called at finalize).  This is one of the
 * project's named caches.
 *
 * Threads: every thread that executes plans gets its own buffer (a
 * pthread key, created once), so threads calling at the same time (an
 * application under MPI_THREAD_MULTIPLE, whose threads the shim also
 * gives their own plan caches) never share one; every function but
 * cs_eng_workspace_total() acts on the calling thread's buffer only, and
 * the buffer is freed when its thread ends.  The bytes of all of them are
 * counted in one atomic total.
 *
 * Buffers of CS_ENG_WS_HUGE bytes and more are mapped on a 2 MiB boundary
 * and marked MADV_HUGEPAGE: where transparent huge pages are enabled (also
 * in "madvise" mode, Debian's default), the first call then takes one
 * fault per 2 MiB instead of one per 4 KiB.  Measured on the CI machine (a
 * virtual machine, where each 4 KiB fault costs about 10 us): first call
 * of a 1000 x 1000 pdgemr2d 24.5 ms with 4 KiB pages, steady state 1 ms.
 * Where huge pages are not available, madvise fails and the mapping simply
 * stays made of small pages.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "engine/engine_int.h"

#define CS_ENG_WS_HUGE ((size_t)2 << 20)

/* One thread's buffer, made on its first use, freed by
 * cs_eng_workspace_release() or when the thread ends (the key's
 * destructor). */
typedef struct {
    void *buf;
    size_t size;
    void *map;          /* the mapping, when mapped */
    size_t maplen;
} cs_eng_ws_t;

static pthread_key_t cs_eng_ws_key;
static pthread_once_t cs_eng_ws_once = PTHREAD_ONCE_INIT;
static atomic_llong cs_eng_ws_total; /* bytes of every thread's buffer */

static void ws_free(cs_eng_ws_t *w)
{
    if (w->map) {
        munmap(w->map, w->maplen);
    } else {
        free(w->buf);
    }
    atomic_fetch_sub(&cs_eng_ws_total, (long long)w->size);
    w->buf = NULL;
    w->size = 0;
    w->map = NULL;
    w->maplen = 0;
}

static void ws_destroy(void *p)
{
    ws_free(p);
    free(p);
}

static void ws_key(void)
{
    (void)pthread_key_create(&cs_eng_ws_key, ws_destroy);
}

/* This thread's buffer record; NULL when create is 0 and it has none (or
 * there is no memory for the record). */
static cs_eng_ws_t *ws_mine(int create)
{
    pthread_once(&cs_eng_ws_once, ws_key);
    cs_eng_ws_t *w = pthread_getspecific(cs_eng_ws_key);
    if (!w && create) {
        w = calloc(1, sizeof(*w));
        if (w && pthread_setspecific(cs_eng_ws_key, w) != 0) {
            free(w);
            w = NULL;
        }
    }
    return w;
}

void *cs_eng_map_huge(size_t want, size_t *len_p)
{
    size_t len = (want + CS_ENG_WS_HUGE - 1) / CS_ENG_WS_HUGE *
                 CS_ENG_WS_HUGE;
    size_t maplen = len + CS_ENG_WS_HUGE;
    char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    /* trim to the aligned part, so that every 2 MiB of it can be huge */
    uintptr_t a = ((uintptr_t)p + CS_ENG_WS_HUGE - 1) &
                  ~(uintptr_t)(CS_ENG_WS_HUGE - 1);
    size_t head = (size_t)(a - (uintptr_t)p);
    if (head > 0) {
        munmap(p, head);
    }
    if (maplen - head > len) {
        munmap((char *)a + len, maplen - head - len);
    }
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)a, len, MADV_HUGEPAGE);
#endif
    /* RATIONALE: fault each 2 MiB in here, one store each (the kernel
     * clears the page; nothing is zero-filled by us).  Left to MPI, the
     * first receive into the buffer faults it from inside the transfer:
     * 32 MiB received into an untouched huge-page buffer took 58 ms, into
     * a touched one 2.4 ms (plain MPICH/UCX program, CI machine). */
    for (size_t o = 0; o < len; o += CS_ENG_WS_HUGE) {
        ((volatile char *)a)[o] = 0;
    }
    *len_p = len;
    return (void *)a;
}

void cs_eng_unmap_huge(void *p, size_t len)
{
    if (p) {
        munmap(p, len);
    }
}

/* want bytes on a huge-page boundary; 0 on failure. */
static int ws_map(cs_eng_ws_t *w, size_t want)
{
    size_t len = 0;
    void *a = cs_eng_map_huge(want, &len);
    if (!a) {
        return 0;
    }
    w->map = a;
    w->maplen = len;
    w->buf = a;
    w->size = len;
    atomic_fetch_add(&cs_eng_ws_total, (long long)len);
    return 1;
}

size_t cs_eng_workspace_bytes_for(size_t bytes)
{
    /* a little headroom so slowly growing calls do not realloc each time;
     * large buffers are mapped in whole huge pages (ws_map) */
    size_t want = bytes + bytes / 8;
    return want >= CS_ENG_WS_HUGE
               ? (want + CS_ENG_WS_HUGE - 1) / CS_ENG_WS_HUGE * CS_ENG_WS_HUGE
               : want;
}

void *cs_eng_workspace_get(size_t bytes)
{
    cs_eng_ws_t *w = ws_mine(1);
    if (!w) {
        return NULL;
    }
    if (bytes <= w->size) {
        return w->buf;
    }
    ws_free(w);
    /* a little headroom so slowly growing calls do not realloc each time */
    size_t want = bytes + bytes / 8;
    if (want >= CS_ENG_WS_HUGE && ws_map(w, want)) {
        return w->buf;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, want) != 0) {
        return NULL;
    }
    w->buf = p;
    w->size = want;
    atomic_fetch_add(&cs_eng_ws_total, (long long)want);
    return p;
}

void cs_eng_workspace_release(void)
{
    cs_eng_ws_t *w = ws_mine(0);
    if (w) {
        ws_free(w);
    }
}

void cs_eng_workspace_shrink(size_t keep)
{
    cs_eng_ws_t *w = ws_mine(0);
    if (w && w->size > keep) {
        ws_free(w);
    }
}

size_t cs_eng_workspace_size(void)
{
    cs_eng_ws_t *w = ws_mine(0);
    return w ? w->size : 0;
}

int64_t cs_eng_workspace_total(void)
{
    return (int64_t)atomic_load(&cs_eng_ws_total);
}
