/*
 * test_apps/unit/test_shim_hist.c - the report's histogram of call times
 * (shim/shim_hist.c, included here to reach its static helpers), no MPI:
 * 1. bins: bin 0 below 1 us (and negative, NaN), bin k from
 *    1 us * 2^((k-1)/4) on, hi(k) = lo(k + 1), the last bin open; every
 *    bound falls in the bin it opens, the double below it in the bin
 *    before;
 * 2. the median of random sets of times (1 to 300 times, spread over
 *    1 us .. 1000 s) against the sorted times: in the bin of the true
 *    lower median, within [t_min, t_max] and within a factor 2^(1/8) of
 *    it; the 90th percentile likewise;
 * 3. known sets: all times equal read back exactly; 6 fast, 10 at 20 ms
 *    and 2 slow calls give 20 ms within 9 %, not the mean; an empty
 *    histogram gives 0;
 * 4. merging two halves equals counting all; counts saturate at
 *    UINT32_MAX.
 * Deterministic (fixed seed; argv[1] scales the random cases).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"
#include "shim/shim_hist.c"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_bins(void)
{
    CS_TEST_EQ(cs_shim_hist_bin(0.0), 0);
    CS_TEST_EQ(cs_shim_hist_bin(-1.0), 0);
    CS_TEST_EQ(cs_shim_hist_bin(NAN), 0);
    CS_TEST_EQ(cs_shim_hist_bin(0.999e-6), 0);
    CS_TEST_EQ(cs_shim_hist_bin(1e-6), 1);
    CS_TEST_EQ(cs_shim_hist_bin(2e-6), 5);
    CS_TEST_EQ(cs_shim_hist_bin(1e300), CS_SHIM_HIST_BINS - 1);
    CS_TEST_EQ(cs_shim_hist_bin(INFINITY), CS_SHIM_HIST_BINS - 1);
    CS_TEST_ASSERT(cs_shim_hist_lo(0) == 0.0);
    CS_TEST_ASSERT(cs_shim_hist_lo(1) == 1e-6);
    CS_TEST_ASSERT(isinf(cs_shim_hist_hi(CS_SHIM_HIST_BINS - 1)));
    /* the last bin opens above 3000 s: no call of a run goes past it */
    CS_TEST_ASSERT(cs_shim_hist_lo(CS_SHIM_HIST_BINS - 1) > 3000.0);
    for (int k = 1; k < CS_SHIM_HIST_BINS; k++) {
        double lo = cs_shim_hist_lo(k);
        CS_TEST_CHECK(cs_shim_hist_hi(k - 1) == lo, "hi(%d) != lo(%d)",
                      k - 1, k);
        CS_TEST_CHECK(cs_shim_hist_bin(lo) == k, "lo(%d) in bin %d", k,
                      cs_shim_hist_bin(lo));
        CS_TEST_CHECK(cs_shim_hist_bin(nextafter(lo, 0.0)) == k - 1,
                      "below lo(%d) in bin %d", k,
                      cs_shim_hist_bin(nextafter(lo, 0.0)));
        if (k < CS_SHIM_HIST_BINS - 1) {
            double r = cs_shim_hist_hi(k) / lo;
            CS_TEST_CHECK(fabs(r - exp2(0.25)) < 1e-12,
                          "bin %d spans a factor %.17g", k, r);
        }
    }
}

/* The q-quantile of t[0..n-1] by the histogram and by sorting. */
static void check_quantile(double *t, int n, double q, const char *what)
{
    cs_shim_hist_t h;
    memset(&h, 0, sizeof(h));
    for (int i = 0; i < n; i++) {
        cs_shim_hist_add(&h, t[i]);
    }
    CS_TEST_EQ(cs_shim_hist_count(&h), n);
    qsort(t, (size_t)n, sizeof(*t), cmp_double);
    int rank = (int)ceil(q * n); /* 1-based */
    double want = t[rank < 1 ? 0 : rank - 1];
    double got = cs_shim_hist_quantile(&h, q, t[0], t[n - 1]);
    int bw = cs_shim_hist_bin(want), bg = cs_shim_hist_bin(got);
    CS_TEST_CHECK(bw == bg, "%s of %d times: %.9g in bin %d, true %.9g in "
                  "bin %d", what, n, got, bg, want, bw);
    CS_TEST_CHECK(got >= t[0] && got <= t[n - 1],
                  "%s of %d times: %.9g outside [%.9g, %.9g]", what, n, got,
                  t[0], t[n - 1]);
    if (bw > 0 && bw < CS_SHIM_HIST_BINS - 1) {
        double r = got > want ? got / want : want / got;
        CS_TEST_CHECK(r <= exp2(0.125) * (1 + 1e-12),
                      "%s of %d times: %.9g against %.9g (factor %.4f)",
                      what, n, got, want, r);
    }
}

static void test_random(int scale)
{
    uint64_t seed = 34;
    double t[300];
    for (int c = 0; c < 2000 * scale; c++) {
        int n = (int)cs_test_rr(&seed, 1, 300);
        /* log-uniform over 1 us .. 1000 s, or clustered in a few bins
         * (the usual case: one shape's calls take about the same time) */
        int clustered = c % 2;
        double base = exp2((double)cs_test_rr(&seed, 0, 29));
        for (int i = 0; i < n; i++) {
            double u = (double)cs_test_rnd(&seed) / 18446744073709551616.0;
            t[i] = clustered ? 1e-6 * base * (1.0 + 0.5 * u)
                             : 1e-6 * exp2(30.0 * u);
        }
        double u[300];
        memcpy(u, t, sizeof(double) * (size_t)n);
        check_quantile(t, n, 0.5, "median");
        check_quantile(u, n, 0.9, "p90");
    }
}

static void test_known(void)
{
    cs_shim_hist_t h;
    memset(&h, 0, sizeof(h));
    CS_TEST_ASSERT(cs_shim_hist_quantile(&h, 0.5, 0.0, 0.0) == 0.0);
    for (int i = 0; i < 9; i++) {
        cs_shim_hist_add(&h, 0.0123);
    }
    double m = cs_shim_hist_quantile(&h, 0.5, 0.0123, 0.0123);
    CS_TEST_CHECK(fabs(m - 0.0123) <= 1e-15, "equal times: %.17g", m);

    /* two ranks' 9 calls: 3 fast, 5 at 20 ms, 1 at 100 ms each (as the
     * check 52_report_tails makes them, at other times): the 9th of 18
     * is 20 ms */
    memset(&h, 0, sizeof(h));
    double sum = 0.0;
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 9; i++) {
            double x = i < 3 ? 0.3e-3 : i < 8 ? 20e-3 + 1e-5 * r : 0.1;
            cs_shim_hist_add(&h, x);
            sum += x;
        }
    }
    m = cs_shim_hist_quantile(&h, 0.5, 0.3e-3, 0.1);
    CS_TEST_CHECK(fabs(m / 20e-3 - 1) < 0.09, "median %.6g, want 20 ms", m);
    CS_TEST_CHECK(fabs(sum / 18 - m) > 1e-3, "median %.6g is the mean", m);
    m = cs_shim_hist_quantile(&h, 0.9, 0.3e-3, 0.1);
    CS_TEST_CHECK(fabs(m / 0.1 - 1) < 0.09, "p90 %.6g, want 100 ms (the "
                  "17th of 18)", m);
}

static void test_merge(void)
{
    cs_shim_hist_t a, b, all;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&all, 0, sizeof(all));
    uint64_t seed = 7;
    for (int i = 0; i < 1000; i++) {
        double t = 1e-7 * exp2((double)cs_test_rr(&seed, 0, 400) / 10.0);
        cs_shim_hist_add(i % 3 ? &a : &b, t);
        cs_shim_hist_add(&all, t);
    }
    cs_shim_hist_merge(&a, &b);
    CS_TEST_ASSERT(memcmp(&a, &all, sizeof(a)) == 0);
    a.n[5] = UINT32_MAX - 1;
    b.n[5] = 5;
    cs_shim_hist_merge(&a, &b);
    CS_TEST_ASSERT(a.n[5] == UINT32_MAX);
    cs_shim_hist_add(&a, cs_shim_hist_lo(5));
    CS_TEST_ASSERT(a.n[5] == UINT32_MAX);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    test_bins();
    test_known();
    test_random(scale < 1 ? 1 : scale);
    test_merge();
    return cs_test_done();
}
