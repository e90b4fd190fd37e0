/*
 * engine/kernels.c - the copy kernels of pack, unpack and local copies.
 *
 * Bit-exact byte copies; no arithmetic, so NaN payloads survive.  The common
 * case (both sides column-major) is one memcpy per column, or one memcpy for
 * the whole block when both sides are dense.  Other stride combinations
 * (row-major local storage) go through a tiled element loop.
 * Serial: callers parallelise over blocks or columns.
 */
#include <string.h>

#include "engine/engine_int.h"

enum { TILE = 32 };

/* Tiled element copy.  Always inlined and called with a literal esize, so
 * each call site gets a fixed-size load/store instead of a memcpy call. */
static inline __attribute__((always_inline)) void
tiled(size_t esize, int64_t rows, int64_t cols, const char *s, int64_t srs,
      int64_t scs, char *d, int64_t drs, int64_t dcs)
{
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {
        int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
        for (int64_t r0 = 0; r0 < rows; r0 += TILE) {
            int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
            for (int64_t c = c0; c < c1; c++) {
                for (int64_t r = r0; r < r1; r++) {
                    memcpy(d + (size_t)(r * drs + c * dcs) * esize,
                           s + (size_t)(r * srs + c * scs) * esize, esize);
                }
            }
        }
    }
}

static void copy_tiled(size_t esize, int64_t rows, int64_t cols,
                       const char *s, int64_t srs, int64_t scs, char *d,
                       int64_t drs, int64_t dcs)
{
    switch (esize) {
    case 4:
        tiled(4, rows, cols, s, srs, scs, d, drs, dcs);
        break;
    case 8:
        tiled(8, rows, cols, s, srs, scs, d, drs, dcs);
        break;
    case 16:
        tiled(16, rows, cols, s, srs, scs, d, drs, dcs);
        break;
    default:
        tiled(esize, rows, cols, s, srs, scs, d, drs, dcs);
    }
}

void cs_eng_copy2d(size_t esize, int64_t rows, int64_t cols, const void *src,
                   int64_t srs, int64_t scs, void *dst, int64_t drs,
                   int64_t dcs)
{
    const char *s = src;
    char *d = dst;
    if (rows <= 0 || cols <= 0) {
        return;
    }
    if (srs == 1 && drs == 1) {
        size_t colbytes = (size_t)rows * esize;
        if ((scs == rows && dcs == rows) || cols == 1) {
            memcpy(d, s, colbytes * (size_t)cols);
            return;
        }
        for (int64_t c = 0; c < cols; c++) {
            memcpy(d + (size_t)(c * dcs) * esize,
                   s + (size_t)(c * scs) * esize, colbytes);
        }
        return;
    }
    if (scs == 1 && dcs == 1) {
        size_t rowbytes = (size_t)cols * esize;
        for (int64_t r = 0; r < rows; r++) {
            memcpy(d + (size_t)(r * drs) * esize,
                   s + (size_t)(r * srs) * esize, rowbytes);
        }
        return;
    }
    copy_tiled(esize, rows, cols, s, srs, scs, d, drs, dcs);
}
