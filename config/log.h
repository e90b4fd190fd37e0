/*
 * config/log.h - the diagnostic log sink of costa-shim.
 *
 * Diagnostics (not the per-call trace) go through these macros.  Each
 * message is one line "costa-shim[<rank>]: <level>: <text>\n" written with a
 * single write() so ranks do not interleave mid-line.  The rank is "-" until
 * cs_log_set_rank() is called.  Level, destination file and rank filter come
 * from the configuration, which is why the sink lives in config/.
 * The macros check the level before formatting.
 */
#ifndef CS_CONFIG_LOG_H
#define CS_CONFIG_LOG_H

typedef enum {
    CS_LOG_ERROR = 0,
    CS_LOG_WARN = 1,
    CS_LOG_INFO = 2,
    CS_LOG_DEBUG = 3
} cs_log_level_t;

/* Current threshold: messages above it are dropped.  Default CS_LOG_WARN. */
extern int cs_log_threshold;

/* Set the threshold (from COSTA_SHIM_LOG_LEVEL).  Local. */
void cs_log_set_level(int level);

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

/* Write a preformatted line (no prefix added, newline appended if missing)
 * to file descriptor fd with one write(). */
void cs_log_line(int fd, const char *line);

/*
 * File descriptor for per-call trace lines: 2 for "stderr" (default), 1 for
 * "stdout", else the COSTA_SHIM_LOG_FILE template with %r (rank), %p (pid),
 * %h (host), %j (job id from SLURM_JOB_ID/PBS_JOBID/JOB_ID, else "nojob")
 * expanded, opened once (append, create) on first use.  Falls back to 2 with
 * one warning if the file cannot be opened.  Thread-safe.
 */
int cs_log_trace_fd(void);

#define cs_log_error(...) cs_log_write(CS_LOG_ERROR, __VA_ARGS__)
#define cs_log_warn(...)                                                      \
    do {                                                                      \
        if (cs_log_threshold >= CS_LOG_WARN)                                  \
            cs_log_write(CS_LOG_WARN, __VA_ARGS__);                           \
    } while (0)
#define cs_log_info(...)                                                      \
    do {                                                                      \
        if (cs_log_threshold >= CS_LOG_INFO)                                  \
            cs_log_write(CS_LOG_INFO, __VA_ARGS__);                           \
    } while (0)
#define cs_log_debug(...)                                                     \
    do {                                                                      \
        if (cs_log_threshold >= CS_LOG_DEBUG)                                 \
            cs_log_write(CS_LOG_DEBUG, __VA_ARGS__);                          \
    } while (0)

#endif /* CS_CONFIG_LOG_H */
