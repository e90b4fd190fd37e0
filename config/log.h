/*
 * config/log.h - the diagnostic log sink of costa-shim.
 *
 * Diagnostics (not the per-call trace) go through these macros.  Each
 * message is one line "costa-shim[<rank>]: <level>: <text>\n" written with a
 * single write() so ranks do not interleave mid-line.  The rank is "-" until
 * cs_log_set_rank() is called.  Level and trace file come from the
 * configuration, which is why the sink lives in config/: config/env.c
 * pushes them here when it parses (cs_cfg_get), and this file knows
 * nothing else of the configuration, so the dependency runs one way
 * (env.c -> log.c).  The macros check the level before formatting.
 */
#ifndef CS_CONFIG_LOG_H
#define CS_CONFIG_LOG_H

#include <stdatomic.h>
#include <stddef.h>

typedef enum {
    CS_LOG_ERROR = 0,
    CS_LOG_WARN = 1,
    CS_LOG_INFO = 2,
    CS_LOG_DEBUG = 3
} cs_log_level_t;

/* Current threshold: messages above it are dropped.  Default CS_LOG_WARN.
 * Atomic: one thread may set it while others log.  Read it with
 * cs_log_level(). */
extern atomic_int cs_log_threshold;

/* The current threshold.  Local, thread-safe. */
static inline int cs_log_level(void)
{
    return atomic_load_explicit(&cs_log_threshold, memory_order_relaxed);
}

/* Set the threshold (from COSTA_SHIM_LOG_LEVEL), clamped to
 * CS_LOG_ERROR .. CS_LOG_DEBUG.  Local, thread-safe. */
void cs_log_set_level(int level);

/*
 * Set the template of the trace file (COSTA_SHIM_LOG_FILE: "stderr",
 * "stdout" or a path template, see cs_log_trace_fd).  The string is kept,
 * not copied: it must live as long as the process (the parsed
 * configuration's does).  Until it is set, trace lines go to stderr.
 * Called by config/env.c when it parses the process's configuration,
 * before anything traces.  Local, thread-safe.
 */
void cs_log_set_trace_file(const char *tmpl);

/* Record this process's rank in MPI_COMM_WORLD for the prefix.  Local. */
void cs_log_set_rank(int rank);

/* Rank recorded by cs_log_set_rank(), or -1. */
int cs_log_rank(void);

/*
 * Format and write one message line to stderr.  Local, thread-safe (one
 * write per line).  Use the macros below instead.
 */
void cs_log_write(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * A notice: what the user asked for with another variable (the banner of
 * COSTA_SHIM_BANNER, what COSTA_SHIM_RELABEL did), written whatever the
 * threshold as one line "costa-shim[<rank>]: <text>\n" (no level word) to
 * stderr, up to 4096 bytes.  Local, thread-safe (one write per line).
 */
void cs_log_notice(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Write a preformatted line (no prefix added, newline appended if missing)
 * to file descriptor fd with one write(). */
void cs_log_line(int fd, const char *line);

/* Write len bytes of preformatted text (several lines, e.g. the report's
 * text on rank 0's stderr) to fd as they are, resuming after short
 * writes.  Local. */
void cs_log_text(int fd, const char *text, size_t len);

/*
 * File descriptor for per-call trace lines: 2 for "stderr" (default), 1 for
 * "stdout", else the template of cs_log_set_trace_file() with %r (rank),
 * %p (pid), %h (host), %j (job id from SLURM_JOB_ID/PBS_JOBID/JOB_ID, else
 * "nojob") expanded, opened once (append, create) on first use.  Falls back
 * to 2 with one warning if the file cannot be opened.  Thread-safe.
 */
int cs_log_trace_fd(void);

#define cs_log_error(...) cs_log_write(CS_LOG_ERROR, __VA_ARGS__)
#define cs_log_warn(...)                                                      \
    do {                                                                      \
        if (cs_log_level() >= CS_LOG_WARN)                                    \
            cs_log_write(CS_LOG_WARN, __VA_ARGS__);                           \
    } while (0)
#define cs_log_info(...)                                                      \
    do {                                                                      \
        if (cs_log_level() >= CS_LOG_INFO)                                    \
            cs_log_write(CS_LOG_INFO, __VA_ARGS__);                           \
    } while (0)
#define cs_log_debug(...)                                                     \
    do {                                                                      \
        if (cs_log_level() >= CS_LOG_DEBUG)                                   \
            cs_log_write(CS_LOG_DEBUG, __VA_ARGS__);                          \
    } while (0)

#endif /* CS_CONFIG_LOG_H */
