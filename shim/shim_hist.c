/*
 * shim/shim_hist.c - the log-binned histogram of call times
 * (shim_hist_int.h).  No MPI, no state.
 */
#include <math.h>

#include "shim/shim_hist_int.h"

/* The bounds of bin k: lo(0) = 0, hi(last) = +inf, and
 * hi(k) = lo(k + 1).  (static: the unit test includes this file.) */
static double cs_shim_hist_lo(int k)
{
    if (k <= 0) {
        return 0.0;
    }
    return CS_SHIM_HIST_T0 *
           exp2((double)(k - 1) / CS_SHIM_HIST_PER_OCTAVE);
}

static double cs_shim_hist_hi(int k)
{
    return k >= CS_SHIM_HIST_BINS - 1 ? INFINITY : cs_shim_hist_lo(k + 1);
}

/* The bin of a time t in seconds (negative and NaN: bin 0). */
static int cs_shim_hist_bin(double t)
{
    if (!(t >= CS_SHIM_HIST_T0)) { /* NaN too */
        return 0;
    }
    double x = CS_SHIM_HIST_PER_OCTAVE * log2(t / CS_SHIM_HIST_T0);
    int k = x >= CS_SHIM_HIST_BINS ? CS_SHIM_HIST_BINS - 1 : 1 + (int)x;
    if (k > CS_SHIM_HIST_BINS - 1) {
        k = CS_SHIM_HIST_BINS - 1;
    }
    /* log2 may round across a bound: the bounds decide, as the quantile
     * reads them */
    while (k > 1 && t < cs_shim_hist_lo(k)) {
        k--;
    }
    while (k < CS_SHIM_HIST_BINS - 1 && t >= cs_shim_hist_hi(k)) {
        k++;
    }
    return k;
}

static uint32_t sat_add(uint32_t a, uint32_t b)
{
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

void cs_shim_hist_add(cs_shim_hist_t *h, double t)
{
    int k = cs_shim_hist_bin(t);
    h->n[k] = sat_add(h->n[k], 1);
}

void cs_shim_hist_merge(cs_shim_hist_t *dst, const cs_shim_hist_t *src)
{
    for (int k = 0; k < CS_SHIM_HIST_BINS; k++) {
        dst->n[k] = sat_add(dst->n[k], src->n[k]);
    }
}

/* Number of times counted (the sum of the bins). */
static uint64_t cs_shim_hist_count(const cs_shim_hist_t *h)
{
    uint64_t c = 0;
    for (int k = 0; k < CS_SHIM_HIST_BINS; k++) {
        c += h->n[k];
    }
    return c;
}

double cs_shim_hist_quantile(const cs_shim_hist_t *h, double q, double t_min,
                             double t_max)
{
    uint64_t count = cs_shim_hist_count(h);
    if (count == 0) {
        return 0.0;
    }
    /* the ceil(q * count)-th smallest, at least the first */
    uint64_t want = (uint64_t)ceil(q * (double)count);
    want = want < 1 ? 1 : want > count ? count : want;
    uint64_t seen = 0;
    int k = 0;
    for (; k < CS_SHIM_HIST_BINS - 1; k++) {
        seen += h->n[k];
        if (seen >= want) {
            break;
        }
    }
    double lo = fmax(cs_shim_hist_lo(k), t_min);
    double hi = fmin(cs_shim_hist_hi(k), t_max);
    if (!(lo <= hi)) { /* t_min, t_max outside the bin: trust the bin */
        lo = cs_shim_hist_lo(k);
        hi = k == CS_SHIM_HIST_BINS - 1 ? lo : cs_shim_hist_hi(k);
    }
    return lo > 0.0 ? sqrt(lo * hi) : 0.5 * hi;
}
