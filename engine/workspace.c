/*
 * engine/workspace.c - the persistent send/receive buffer.
 *
 * RATIONALE: a fresh malloc of tens of megabytes per call is an mmap whose
 * pages fault in on first touch, which costs as much as the copy itself.
 * The buffer is grown on demand, never zero-filled, and kept until
 * cs_eng_workspace_release() (called at finalize).  This is one of the
 * project's named caches.  Not thread-safe: the engine is entered by one
 * thread at a time (the shim serialises calls).
 */
#include <stdlib.h>

#include "engine/engine_int.h"

static void *cs_eng_ws_buf;
static size_t cs_eng_ws_size;

void *cs_eng_workspace_get(size_t bytes)
{
    if (bytes <= cs_eng_ws_size) {
        return cs_eng_ws_buf;
    }
    free(cs_eng_ws_buf);
    cs_eng_ws_buf = NULL;
    cs_eng_ws_size = 0;
    /* a little headroom so slowly growing calls do not realloc each time */
    size_t want = bytes + bytes / 8;
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
    free(cs_eng_ws_buf);
    cs_eng_ws_buf = NULL;
    cs_eng_ws_size = 0;
}

size_t cs_eng_workspace_size(void)
{
    return cs_eng_ws_size;
}
