/*
 * relabel/hash.c - the project's one FNV-1a: cs_rl_hash_ints() (64 bits)
 * names grid maps in the shim's relabeling cache and tables in its plan
 * cache; cs_rl_hash_str32() (32 bits) names the report's call shapes.
 *
 * Pure C, no state.  RATIONALE: the ints are hashed byte by byte in a
 * fixed order rather than as memory, so every rank of a run (and every
 * run) gets the same value for the same ints.  The 32-bit variant is the
 * same step with its own prime and basis, modulo 2^32.
 */
#include "relabel/relabel.h"

#include <stdint.h>

#define FNV64_BASIS 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL
#define FNV32_BASIS 2166136261u
#define FNV32_PRIME 16777619u

/* One FNV-1a step: the byte in, then the multiplication, modulo mask + 1. */
static inline uint64_t fnv1a_step(uint64_t h, unsigned byte, uint64_t prime,
                                  uint64_t mask)
{
    return ((h ^ byte) * prime) & mask;
}

uint64_t cs_rl_hash_ints(uint64_t seed, const int *v, int64_t n)
{
    uint64_t h = seed ^ FNV64_BASIS;
    for (int64_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)v[i];
        for (int b = 0; b < 4; b++) {
            h = fnv1a_step(h, (x >> (8 * b)) & 0xffu, FNV64_PRIME, UINT64_MAX);
        }
    }
    return h;
}

uint32_t cs_rl_hash_str32(const char *s)
{
    uint64_t h = FNV32_BASIS;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h = fnv1a_step(h, *p, FNV32_PRIME, UINT32_MAX);
    }
    return (uint32_t)h;
}
