/*
 * shim/gemm/buffer.c - the buffer of p?gemm's engine path, kept between
 * calls (gemm_int.h).
 *
 * RATIONALE: the slabs of a large product are hundreds of megabytes; a
 * buffer allocated per call faults in every page again (measured on the
 * 2-core machine, 300 x 300 x 200000 on 1 x 2: 2.8 s for a first call
 * against 1.0 s when the pages were there; fresh pages are expensive in a
 * virtual machine).  So each thread keeps its buffer, claimed under
 * COSTA_SHIM_MAX_MEMORY for as long as it is kept; a call that needs
 * more gives it back first, and a call that does not fit under the cap
 * goes to the real routine.
 */
#include <stdlib.h>

#include "engine/engine.h"
#include "shim/gemm/gemm_int.h"
#include "shim/shim_memory_int.h"

static __thread void *cs_gemm_buf;
static __thread int64_t cs_gemm_buf_bytes; /* claimed */
static __thread size_t cs_gemm_buf_len;    /* mapped */

void *cs_shim_gemm_buffer(int64_t bytes, int *over_cap)
{
    *over_cap = 0;
    if (cs_gemm_buf && cs_gemm_buf_bytes >= bytes) {
        return cs_gemm_buf;
    }
    cs_shim_gemm_buffer_release();
    if (cs_shim_mem_claim(bytes) != 0) {
        *over_cap = 1;
        return NULL;
    }
    /* huge pages: a first call faults in one page per 2 MiB (engine/
     * workspace.c); the claim covers the whole mapping */
    size_t len = 0;
    cs_gemm_buf = cs_eng_map_huge((size_t)bytes + 1, &len);
    if (cs_gemm_buf && (int64_t)len > bytes &&
        cs_shim_mem_claim((int64_t)len - bytes) != 0) {
        cs_eng_unmap_huge(cs_gemm_buf, len);
        cs_gemm_buf = NULL;
        *over_cap = 1;
    }
    if (!cs_gemm_buf) {
        cs_shim_mem_unclaim(bytes);
        return NULL;
    }
    cs_gemm_buf_bytes = (int64_t)len;
    cs_gemm_buf_len = len;
    return cs_gemm_buf;
}

void cs_shim_gemm_buffer_release(void)
{
    if (cs_gemm_buf) {
        cs_eng_unmap_huge(cs_gemm_buf, cs_gemm_buf_len);
        cs_shim_mem_unclaim(cs_gemm_buf_bytes);
    }
    cs_gemm_buf = NULL;
    cs_gemm_buf_bytes = 0;
    cs_gemm_buf_len = 0;
}
