/*
 * shim/shim_hist_int.h - a fixed log-binned histogram of call times: the
 * median (and any other quantile) of a call shape's calls for the report
 * without keeping each call's time (interface.md rule 9: bounded memory).
 *
 * Bins: bin 0 holds the times below CS_SHIM_HIST_T0 (1 us); bin k >= 1
 * the times in [T0 * 2^((k-1)/4), T0 * 2^(k/4)); the last bin everything
 * from T0 * 2^((CS_SHIM_HIST_BINS-2)/4) (about 3000 s) up.  Four bins per
 * octave: a time read back as the geometric middle of its bin is within
 * a factor 2^(1/8) (9 %) of the true one.  Counts saturate at UINT32_MAX
 * (4.3e9 calls in one bin, summed over ranks).
 *
 * A histogram is plain bytes (the shape tables travel between ranks as
 * they are); merging adds counts, so it is associative and commutative.
 * No MPI, no state, no locks: whoever shares a histogram protects it.
 */
#ifndef CS_SHIM_SHIM_HIST_INT_H
#define CS_SHIM_SHIM_HIST_INT_H

#include <stdint.h>

#define CS_SHIM_HIST_BINS 128
#define CS_SHIM_HIST_PER_OCTAVE 4
#define CS_SHIM_HIST_T0 1e-6 /* seconds: the upper bound of bin 0 */

typedef struct {
    uint32_t n[CS_SHIM_HIST_BINS];
} cs_shim_hist_t;

/* Count one time t (seconds) in h.  Local. */
void cs_shim_hist_add(cs_shim_hist_t *h, double t);

/* dst += src, bin by bin.  Local. */
void cs_shim_hist_merge(cs_shim_hist_t *dst, const cs_shim_hist_t *src);

/*
 * The q-quantile of the times counted, 0 < q <= 1: the ceil(q * count)-th
 * smallest time (q = 0.5: the lower median) read from its bin, as the
 * geometric middle of the bin's range cut to [t_min, t_max] (the smallest
 * and largest time counted, known exactly elsewhere; the middle of the
 * cut range for bin 0): within a factor 2^(1/8) of the true quantile,
 * exact when all times were equal.  0 when nothing was counted.  Local.
 */
double cs_shim_hist_quantile(const cs_shim_hist_t *h, double q, double t_min,
                             double t_max);

#endif /* CS_SHIM_SHIM_HIST_INT_H */
