/*
 * shim/shim_digest_int.h - the digests a call's ranks compare
 * (shim_digest.c).
 */
#ifndef CS_SHIM_SHIM_DIGEST_INT_H
#define CS_SHIM_SHIM_DIGEST_INT_H

#include <stdint.h>

/* Two independent 64-bit digests of n ints (FNV-1a and a multiply-rotate
 * hash), the same on every rank for the same ints; both 0 under
 * COSTA_SHIM_TEST_FAULT=digest.  Local. */
void cs_shim_digest(const int *v, int64_t n, uint64_t d_p[2]);

#endif /* CS_SHIM_SHIM_DIGEST_INT_H */
