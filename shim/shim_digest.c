/*
 * shim/shim_digest.c - two independent 64-bit digests of a row of ints,
 * the identity a call's ranks compare in their agreement
 * (shim_digest_int.h).  No MPI, no state.
 */
#include "config/config.h"
#include "relabel/relabel.h"
#include "shim/shim_digest_int.h"
#include "shim/shim_fault_int.h"

static uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

void cs_shim_digest(const int *v, int64_t n, uint64_t d_p[2])
{
    /* RATIONALE: two functions of different construction (a byte-wise
     * xor-multiply and a word-wise multiply-rotate with a final
     * avalanche), so that inputs built to collide in one do not collide
     * in the other; the length enters the second. */
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    for (int64_t i = 0; i < n; i++) {
        h += (uint64_t)(uint32_t)v[i] * 0xc2b2ae3d27d4eb4fULL;
        h = rotl(h, 31) * 0x9e3779b185ebca87ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    int collide = cs_shim_fault(CS_CFG_FAULT_DIGEST);
    d_p[0] = collide ? 0 : cs_rl_hash_ints(0, v, n);
    d_p[1] = collide ? 0 : h;
}
