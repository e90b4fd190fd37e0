/*
 * engine/fatal.c - the engine's one way out when it cannot go on (an MPI
 * error or an inconsistency after communication has started, where no
 * fallback is possible): cs_eng_fatal() formats the message and hands it
 * to the caller's hook (cs_eng_set_fatal_hook), or, without one, logs it
 * and aborts the job.
 *
 * RATIONALE: the engine's user decides how a job ends (the shim flushes
 * what the ranks wrote first, a test may want its own message); the
 * engine only promises never to return from a fatal error.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/log.h"
#include "engine/engine_int.h"

typedef void (*cs_eng_fatal_fn)(const char *msg);

/* set by any thread, read by the one that fails: atomic */
static _Atomic(cs_eng_fatal_fn) cs_eng_fatal_hook;

void cs_eng_set_fatal_hook(void (*hook)(const char *msg))
{
    atomic_store(&cs_eng_fatal_hook, hook);
}

void cs_eng_fatal(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cs_eng_fatal_fn hook = atomic_load(&cs_eng_fatal_hook);
    if (hook) {
        hook(msg); /* must not return; if it does, abort as without it */
    } else {
        cs_log_error("%s", msg);
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort is not declared to end the process */
}
