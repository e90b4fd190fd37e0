/*
 * test_apps/lib/cs_digest.h - FNV-1a 64 digests and hex dumps of results
 * (header only).  The digests are compared across runs (natively vs. under
 * the shim), so the function must not change.
 */
#ifndef CS_DIGEST_H
#define CS_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CS_FNV_INIT 0xcbf29ce484222325ull /* FNV-1a 64 offset basis */

/* FNV-1a 64 of n bytes at p, continuing from h */
static inline uint64_t cs_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* n bytes as one little-endian hex word (2n digits + NUL into out) */
static inline void cs_hexbytes(char *out, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[n - 1 - i]);
    if (n == 0)
        out[0] = 0;
}

#endif /* CS_DIGEST_H */
