/*
 * engine/kernels/cpu.c - what this CPU offers the kernels, detected once.
 *
 * RATIONALE: the kernels ask on every block whether they may use AVX;
 * detecting it lazily in a plain static, as each kernel file did, let the
 * first threads to come write it while others read it (a data race, if a
 * harmless one in practice).  pthread_once runs the detection once and
 * makes its result visible to every thread that returns from it.
 * No MPI, no allocation.
 */
#include <pthread.h>

#include "engine/kernels/kernels.h"

static pthread_once_t cs_eng_cpu_once = PTHREAD_ONCE_INIT;
static int cs_eng_cpu_has_avx; /* written once, under cs_eng_cpu_once */

static void cpu_detect(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init(); /* safe from any context, constructors too */
    cs_eng_cpu_has_avx = __builtin_cpu_supports("avx") ? 1 : 0;
#endif
}

int cs_eng_cpu_avx(void)
{
    (void)pthread_once(&cs_eng_cpu_once, cpu_detect);
    return cs_eng_cpu_has_avx;
}
