/*
 * test_apps/lib/cs_rng.h - the splitmix64 random stream of the randomized
 * sweeps (header only).
 *
 * The sequence is part of the tests' contract: a (seed, config index) pair
 * must always draw the same config, so the digests of a run can be compared
 * across builds and between native and shim runs.  Do not change it.
 */
#ifndef CS_RNG_H
#define CS_RNG_H

#include <stdint.h>

/* splitmix64 of x: the output for state x (before its increment) */
static inline uint64_t cs_splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* one stream; {seed} starts it */
typedef struct { uint64_t s; } rng_t;

static inline uint64_t rng_next(rng_t *r)
{
    uint64_t x = r->s;
    r->s += 0x9e3779b97f4a7c15ULL;
    return cs_splitmix64(x);
}

/* 0..n-1 (0 without drawing when n <= 1) */
static inline int rnd(rng_t *r, int n)
{
    return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n);
}

/* lo..hi */
static inline int rrange(rng_t *r, int lo, int hi)
{
    return lo + rnd(r, hi - lo + 1);
}

/* true with probability pct % */
static inline int chance(rng_t *r, int pct) { return rnd(r, 100) < pct; }

/* Fisher-Yates shuffle of v[0..n-1] */
static inline void shuffle(rng_t *r, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(r, i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

#endif /* CS_RNG_H */
