/*
 * test_apps/unit/test_choice.c - unit tests of cs_eng_choice_t (the
 * engine's choice between two ways of running a plan, engine/choice.c),
 * with made-up call times, no MPI:
 * 1. call 0 runs the default way; the trial then gives each mode
 *    CS_ENG_CHOICE_TRIALS calls, alternating 0 1 1 0 ...;
 * 2. the mode with the lower median wins, the default on a tie, for both
 *    defaults; single outliers (one very slow or very fast call) do not
 *    decide;
 * 3. the choice holds for CS_ENG_CHOICE_RETRY calls, then a new trial
 *    runs and may change it;
 * 4. random medians: the choice is always the mode with the lower lower
 *    median of its own trial.
 * Deterministic (fixed seed; argv[1] scales the random cases).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cs_test.h"
#include "engine/engine_int.h"

/* Runs calls, the time of each from fn(mode, call index, ctx); returns
 * the modes run in order into modes (when non-NULL). */
typedef double (*time_fn)(int mode, int64_t call, void *ctx);

static void run(cs_eng_choice_t *c, int dflt, int64_t calls, time_fn fn,
                void *ctx, int *modes)
{
    for (int64_t k = 0; k < calls; k++) {
        int m = cs_eng_choice_next(c, dflt);
        CS_TEST_ASSERT(m == 0 || m == 1);
        if (modes) {
            modes[k] = m;
        }
        cs_eng_choice_record(c, m, fn(m, k, ctx), dflt);
    }
}

/* mode 0 takes t[0], mode 1 t[1] */
static double fixed(int mode, int64_t call, void *ctx)
{
    (void)call;
    return ((const double *)ctx)[mode];
}

/* like fixed, but the first call of each mode in each trial is an
 * outlier the other way round */
typedef struct {
    double t[2], odd[2];
    int seen[2];
    int64_t last_trial;
    const cs_eng_choice_t *c;
} outlier_t;

static double outlier(int mode, int64_t call, void *ctx)
{
    (void)call;
    outlier_t *o = ctx;
    if (o->c->trials != o->last_trial) {
        o->last_trial = o->c->trials;
        o->seen[0] = o->seen[1] = 0;
    }
    return o->seen[mode]++ == 0 ? o->odd[mode] : o->t[mode];
}

static void order_and_default(void)
{
    enum { T = CS_ENG_CHOICE_TRIALS, N = 1 + 2 * T + 5 };
    for (int dflt = 0; dflt <= 1; dflt++) {
        cs_eng_choice_t c = {0};
        double t[2] = {2.0, 1.0}; /* mode 1 faster */
        int modes[N];
        run(&c, dflt, N, fixed, t, modes);
        CS_TEST_EQ(modes[0], dflt);
        int count[2] = {0, 0};
        for (int i = 0; i < 2 * T; i++) {
            static const int abba[4] = {0, 1, 1, 0};
            CS_TEST_EQ(modes[1 + i], abba[i % 4]);
            count[modes[1 + i]]++;
        }
        CS_TEST_EQ(count[0], T);
        CS_TEST_EQ(count[1], T);
        for (int i = 1 + 2 * T; i < N; i++) {
            CS_TEST_EQ(modes[i], 1);
        }
        CS_TEST_EQ(c.trials, 1);
    }
}

static void winner(void)
{
    enum { T = CS_ENG_CHOICE_TRIALS };
    for (int dflt = 0; dflt <= 1; dflt++) {
        for (int fast = 0; fast <= 2; fast++) { /* 2: a tie */
            cs_eng_choice_t c = {0};
            double t[2] = {1.0, 1.0};
            if (fast < 2) {
                t[!fast] = 1.5;
            }
            run(&c, dflt, 1 + 2 * T, fixed, t, NULL);
            int want = fast < 2 ? fast : dflt;
            CS_TEST_CHECK(cs_eng_choice_next(&c, dflt) == want,
                          "dflt %d fast %d: chose %d", dflt, fast,
                          cs_eng_choice_next(&c, dflt));
        }
        /* the slower mode's single fastest call, and the faster mode's
         * single slowest one, do not turn the choice */
        cs_eng_choice_t c = {0};
        outlier_t o = {.t = {1.0, 2.0}, .odd = {100.0, 0.01}, .c = &c};
        run(&c, dflt, 1 + 2 * T, outlier, &o, NULL);
        CS_TEST_EQ(cs_eng_choice_next(&c, dflt), 0);
    }
}

/* mode 1 faster before call `flip`, mode 0 from then on */
static double flip_at(int mode, int64_t call, void *ctx)
{
    int64_t flip = *(const int64_t *)ctx;
    return (call < flip) == (mode == 1) ? 1.0 : 2.0;
}

static void retry(void)
{
    enum { T = CS_ENG_CHOICE_TRIALS, R = CS_ENG_CHOICE_RETRY };
    int64_t first_end = 1 + 2 * T, flip = first_end + 10;
    cs_eng_choice_t c = {0};
    int *modes = malloc(sizeof(int) * (size_t)(first_end + R + 2 * T + 3));
    CS_TEST_ASSERT(modes);
    run(&c, 1, first_end + R + 2 * T + 3, flip_at, &flip, modes);
    /* chosen mode 1 held through the retry gap although mode 0 became
     * faster, the second trial alternated again and chose mode 0 */
    for (int64_t k = first_end; k < first_end + R; k++) {
        CS_TEST_CHECK(modes[k] == 1, "call %lld ran mode %d", (long long)k,
                      modes[k]);
    }
    CS_TEST_EQ(modes[first_end + R], 0);
    CS_TEST_EQ(modes[first_end + R + 1], 1);
    CS_TEST_EQ(c.trials, 2);
    CS_TEST_EQ(modes[first_end + R + 2 * T], 0);
    CS_TEST_EQ(cs_eng_choice_next(&c, 1), 0);
    free(modes);
}

/* random times per call around a per-mode level */
typedef struct {
    uint64_t rng;
    double level[2];
    double seen[2][CS_ENG_CHOICE_TRIALS];
    int n[2];
} noisy_t;

static double noisy(int mode, int64_t call, void *ctx)
{
    noisy_t *z = ctx;
    double t = z->level[mode] * (0.5 + (double)cs_test_rr(&z->rng, 0, 999) /
                                           1000.0);
    if (call > 0 && z->n[mode] < CS_ENG_CHOICE_TRIALS) {
        z->seen[mode][z->n[mode]++] = t;
    }
    return t;
}

static double lower_median(double *v, int n)
{
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    }
    return v[(n - 1) / 2];
}

static void random_medians(int scale)
{
    enum { T = CS_ENG_CHOICE_TRIALS };
    uint64_t rng = 20261203;
    for (int k = 0; k < 500 * scale; k++) {
        int dflt = k % 2;
        noisy_t z = {.rng = rng + (uint64_t)k,
                     .level = {1.0 + (double)cs_test_rr(&rng, 0, 99) / 100.0,
                               1.0 + (double)cs_test_rr(&rng, 0, 99) / 100.0}};
        cs_eng_choice_t c = {0};
        run(&c, dflt, 1 + 2 * T, noisy, &z, NULL);
        CS_TEST_EQ(z.n[0], T);
        CS_TEST_EQ(z.n[1], T);
        double m0 = lower_median(z.seen[0], T), m1 = lower_median(z.seen[1], T);
        int want = m0 == m1 ? dflt : m1 < m0;
        CS_TEST_CHECK(cs_eng_choice_next(&c, dflt) == want,
                      "case %d: medians %g %g, chose %d", k, m0, m1,
                      cs_eng_choice_next(&c, dflt));
    }
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    order_and_default();
    winner();
    retry();
    random_medians(scale > 0 ? scale : 1);
    return cs_test_done();
}
