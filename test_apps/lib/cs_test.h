/*
 * test_apps/lib/cs_test.h - the tiny assertion kit of the test programs.
 *
 * Every test binary exits non-zero on failure and prints the sentinel line
 * "cs_test: OK" last on success; the runners check both (BLIS style).
 * A failing assertion prints file, line and the expression and exits 1.
 * The count of soft checks that failed is one for the whole program
 * (defined in cs_test.c, which every test program links), so that
 * cs_test_done() in main() sees the failures of every source file.
 */
#ifndef CS_TEST_H
#define CS_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern int cs_test_failures;

#define CS_TEST_ASSERT(cond)                                                  \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__,        \
                    __LINE__, #cond);                                         \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CS_TEST_EQ(a, b)                                                      \
    do {                                                                      \
        long long cs_a_ = (long long)(a), cs_b_ = (long long)(b);             \
        if (cs_a_ != cs_b_) {                                                 \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n",       \
                    __FILE__, __LINE__, #a, cs_a_, #b, cs_b_);                \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* Soft check: count and report, keep going (for sweeps). */
#define CS_TEST_CHECK(cond, ...)                                              \
    do {                                                                      \
        if (!(cond)) {                                                        \
            cs_test_failures++;                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,  \
                    #cond);                                                   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

/* The tests' deterministic random numbers (splitmix64): the next value
 * of the generator whose state is *state, and one uniform in [lo, hi]. */
static inline uint64_t cs_test_rnd(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int64_t cs_test_rr(uint64_t *state, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(cs_test_rnd(state) % (uint64_t)(hi - lo + 1));
}

/* Shuffle v[0..n) uniformly (Fisher-Yates) with the generator *state. */
static inline void cs_test_shuffle(uint64_t *state, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)cs_test_rr(state, 0, i), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Print the sentinel and return the exit status for main(). */
static inline int cs_test_done(void)
{
    if (cs_test_failures) {
        fprintf(stderr, "cs_test: FAILED (%d checks)\n", cs_test_failures);
        return 1;
    }
    printf("cs_test: OK\n");
    fflush(stdout);
    return 0;
}

#endif /* CS_TEST_H */
