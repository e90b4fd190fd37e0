/*
 * test_apps/unit/bench_kernels.c - the engine's transform kernels in
 * isolation, against a plain memcpy of the same bytes (issue: the transpose
 * kernel must run near memory bandwidth).  Not a test: `make bench` runs
 * it and prints GB/s (bytes read + written per second) for each kernel.
 * Usage: bench_kernels [n] [reps] [cpu]
 * With a third argument `cpu`, times are the thread's CPU time instead of
 * wall-clock time (less disturbed by other processes on a busy machine;
 * still disturbed by their memory traffic).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_int.h"

static clockid_t cs_bench_clock = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec ts;
    clock_gettime(cs_bench_clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    const char *name;
    int type;
    size_t es;
    int trans, axpby;
    double alpha, beta;
    int stream; /* non-temporal stores (the engine's choice for targets
                 * above CS_ENG_STREAM_MIN_BYTES) */
    int conj;   /* conjugated (p?tranc) */
} kcase_t;

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atol(argv[1]) : 4000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (argc > 3 && strcmp(argv[3], "cpu") == 0) {
        cs_bench_clock = CLOCK_THREAD_CPUTIME_ID;
    }
    size_t maxbytes = (size_t)n * (size_t)n * 16;
    char *src = malloc(maxbytes), *dst = malloc(maxbytes);
    if (!src || !dst) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    memset(src, 1, maxbytes);
    memset(dst, 0, maxbytes);
    static const kcase_t cases[] = {
        {"copy d (memcpy path)", CS_ENG_T_D, 8, 0, 0, 1, 0, 0, 0},
        {"copy d (streaming)", CS_ENG_T_D, 8, 0, 0, 1, 0, 1, 0},
        {"transpose d", CS_ENG_T_D, 8, 1, 0, 1, 0, 0, 0},
        {"transpose d (streaming)", CS_ENG_T_D, 8, 1, 0, 1, 0, 1, 0},
        {"transpose z (streaming)", CS_ENG_T_Z, 16, 1, 0, 1, 0, 1, 0},
        {"transpose d a=2 b=3", CS_ENG_T_D, 8, 1, 1, 2, 3, 0, 0},
        {"transpose s", CS_ENG_T_S, 4, 1, 0, 1, 0, 0, 0},
        {"transpose s (streaming)", CS_ENG_T_S, 4, 1, 0, 1, 0, 1, 0},
        {"transpose s a=2 b=3", CS_ENG_T_S, 4, 1, 1, 2, 3, 0, 0},
        {"transpose z", CS_ENG_T_Z, 16, 1, 0, 1, 0, 0, 0},
        {"transpose z a=2 b=3", CS_ENG_T_Z, 16, 1, 1, 2, 3, 0, 0},
        {"transpose c a=2 b=3", CS_ENG_T_C, 8, 1, 1, 2, 3, 0, 0},
        {"transpose z a=2 b=0", CS_ENG_T_Z, 16, 1, 1, 2, 0, 0, 0},
        {"conj transpose z (streaming)", CS_ENG_T_Z, 16, 1, 0, 1, 0, 1, 1},
        {"conj transpose c (streaming)", CS_ENG_T_C, 8, 1, 0, 1, 0, 1, 1},
        {"scale d a=2 b=3 (no transpose)", CS_ENG_T_D, 8, 0, 1, 2, 3, 0, 0},
    };
    printf("kernel bandwidth, %lldx%lld elements, best of %d "
           "(GB/s = bytes read + written / s)\n",
           (long long)n, (long long)n, reps);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        memcpy(dst, src, (size_t)n * (size_t)n * 8);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    double ref = 2.0 * (double)(n * n * 8) / best * 1e-9;
    printf("%-32s %8.2f GB/s\n", "memcpy (8-byte elements)", ref);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const kcase_t *c = &cases[k];
        cs_eng_op_t op = {.m = n, .n = n, .esize = c->es, .type = c->type,
                          .trans = c->trans, .axpby = c->axpby,
                          .conj = c->conj,
                          .alpha = {c->alpha, 0}, .beta = {c->beta, 0}};
        cs_eng_xform_t x;
        cs_eng_xform_init(&op, &x);
        x.stream = c->stream;
        best = 1e30;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            /* target (i, j) from source (j, i) when transposing */
            cs_eng_xform2d(&x, n, n, src, c->trans ? n : 1, c->trans ? 1 : n,
                           dst, 1, n, 0, 0);
            double t = now() - t0;
            best = t < best ? t : best;
        }
        double bytes = (double)(n * n) * (double)c->es *
                       (c->axpby && c->beta != 0 ? 3.0 : 2.0);
        printf("%-32s %8.2f GB/s  (%.0f%% of memcpy)\n", c->name,
               bytes / best * 1e-9, 100.0 * bytes / best * 1e-9 / ref);
    }
    free(src);
    free(dst);
    return 0;
}
