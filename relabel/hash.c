/*
 * relabel/hash.c - cs_rl_hash_ints(), the FNV-1a hash that names grid
 * maps in the shim's relabeling cache and tables in its plan cache.
 *
 * Pure C, no state.  RATIONALE: the ints are hashed byte by byte in a
 * fixed order rather than as memory, so every rank of a run (and every
 * run) gets the same value for the same ints.
 */
#include "relabel/relabel.h"

#include <stdint.h>

uint64_t cs_rl_hash_ints(uint64_t seed, const int *v, int64_t n)
{
    uint64_t h = seed ^ 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)v[i];
        for (int b = 0; b < 4; b++) {
            h ^= (x >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ULL;
        }
    }
    return h;
}
