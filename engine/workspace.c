/*
 * engine/workspace.c - the persistent send/receive buffer.
 *
 * RATIONALE: a fresh malloc of tens of megabytes per call is an mmap whose
 * pages fault in on first touch, which costs as much as the copy itself.
 * The buffer is grown on demand, never zero-filled by us, and kept until
 * cs_eng_workspace_release() (called at finalize).  This is one of the
 * project's named caches.  Not thread-safe: the engine is entered by one
 * thread at a time (the shim serialises calls).
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
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "engine/engine_int.h"

#define CS_ENG_WS_HUGE ((size_t)2 << 20)

static void *cs_eng_ws_buf;
static size_t cs_eng_ws_size;
static void *cs_eng_ws_map;     /* the mapping, when mapped */
static size_t cs_eng_ws_maplen;

static void ws_free(void)
{
    if (cs_eng_ws_map) {
        munmap(cs_eng_ws_map, cs_eng_ws_maplen);
    } else {
        free(cs_eng_ws_buf);
    }
    cs_eng_ws_buf = NULL;
    cs_eng_ws_size = 0;
    cs_eng_ws_map = NULL;
    cs_eng_ws_maplen = 0;
}

/* want bytes on a huge-page boundary; 0 on failure. */
static int ws_map(size_t want)
{
    size_t len = (want + CS_ENG_WS_HUGE - 1) / CS_ENG_WS_HUGE *
                 CS_ENG_WS_HUGE;
    size_t maplen = len + CS_ENG_WS_HUGE;
    char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return 0;
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
    cs_eng_ws_map = (void *)a;
    cs_eng_ws_maplen = len;
    cs_eng_ws_buf = (void *)a;
    cs_eng_ws_size = len;
    return 1;
}

void *cs_eng_workspace_get(size_t bytes)
{
    if (bytes <= cs_eng_ws_size) {
        return cs_eng_ws_buf;
    }
    ws_free();
    /* a little headroom so slowly growing calls do not realloc each time */
    size_t want = bytes + bytes / 8;
    if (want >= CS_ENG_WS_HUGE && ws_map(want)) {
        return cs_eng_ws_buf;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, want) != 0) {
        return NULL;
    }
    cs_eng_ws_buf = p;
    cs_eng_ws_size = want;
    return p;
}

void cs_eng_workspace_release(void)
{
    ws_free();
}

void cs_eng_workspace_shrink(size_t keep)
{
    if (cs_eng_ws_size > keep) {
        ws_free();
    }
}

size_t cs_eng_workspace_size(void)
{
    return cs_eng_ws_size;
}
