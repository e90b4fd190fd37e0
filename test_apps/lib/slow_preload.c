/*
 * test_apps/lib/slow_preload.c - LD_PRELOAD helper for check
 * 52_report_tails: chosen pdgemr2d_ calls made slow by a known time, so
 * that the report's median and slowest call of a shape are known.
 *
 * Put it after the shim (LD_PRELOAD=libcosta_shim.so:slow_preload.so):
 * the program's pdgemr2d_ calls still reach the shim first, and the
 * pdgemr2d_ the shim finds as the real routine (dlsym RTLD_NEXT) is this
 * one, so every call the shim forwards to ScaLAPACK
 * (COSTA_SHIM_FALLBACK=always) comes here, sleeps if its number is
 * listed, then runs ScaLAPACK's.  Engine calls never come here.
 *
 * Env: CS_SLOW_CALLS="n:ms,n:ms,..." - the n-th pdgemr2d_ of this process
 * (from 1) sleeps ms milliseconds first.  Every rank sleeps in the same
 * calls, so no rank arrives late at the next call and makes another
 * rank's next call slow.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*gemr2d_fn)(const int *, const int *, const double *,
                          const int *, const int *, const int *, double *,
                          const int *, const int *, const int *,
                          const int *);

static long calls;

/* The sleep of call number n in CS_SLOW_CALLS, ms; 0 if not listed. */
static long slow_ms(long n)
{
    const char *s = getenv("CS_SLOW_CALLS");
    while (s && *s) {
        char *end;
        long k = strtol(s, &end, 10);
        if (*end != ':')
            break;
        long ms = strtol(end + 1, &end, 10);
        if (k == n)
            return ms;
        s = *end == ',' ? end + 1 : NULL;
    }
    return 0;
}

void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia,
               const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt)
{
    static gemr2d_fn next;
    if (!next) {
        void *p = dlsym(RTLD_NEXT, "pdgemr2d_");
        if (!p) {
            fprintf(stderr, "slow_preload: no pdgemr2d_ after it\n");
            abort();
        }
        memcpy(&next, &p, sizeof(next));
    }
    long ms = slow_ms(++calls);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0) {
    }
    next(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}
