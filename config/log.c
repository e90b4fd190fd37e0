/*
 * config/log.c - the diagnostic log sink: level threshold, rank prefix,
 * one-write() line output and the per-call trace file descriptor.
 *
 * Every line leaves in one write()/writev() call (retried on EINTR and
 * partial writes) so lines of different ranks and threads do not interleave
 * mid-line.  Must not call MPI, allocate, or print from a constructor; the
 * trace file is opened lazily on the first cs_log_trace_fd().  errno is
 * preserved across the logging calls.  Calls nothing of the configuration:
 * config/env.c pushes the level and the trace file's template here.
 */
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Longest diagnostic line; longer messages end in "...".  Notices (a
 * grid map, a plan file's path) may be longer. */
#define CS_LOG_LINE_LEN 1024
#define CS_LOG_NOTICE_LEN 4096

/* Longest expanded trace file name: a template's 1024 bytes
 * (CS_CFG_PATH_LEN) and room for what %r %p %h %j expand to; a longer
 * name is refused with a warning (cs_expand). */
#define CS_LOG_PATH_LEN 1536

atomic_int cs_log_threshold = CS_LOG_WARN;

/* COSTA_SHIM_LOG_FILE, pushed by config/env.c; NULL: stderr. */
static _Atomic(const char *) cs_trace_template;

/* Set once by the shim after MPI_Init, read by every thread afterwards. */
static int cs_log_my_rank = -1;

/* Trace descriptor: -1 until resolved, then fixed for the process. */
static pthread_mutex_t cs_trace_lock = PTHREAD_MUTEX_INITIALIZER;
static int cs_trace_fd = -1;

static const char *const cs_level_words[] = {
    [CS_LOG_ERROR] = "error",
    [CS_LOG_WARN] = "warning",
    [CS_LOG_INFO] = "info",
    [CS_LOG_DEBUG] = "debug",
};

void cs_log_set_level(int level)
{
    if (level < CS_LOG_ERROR)
        level = CS_LOG_ERROR;
    if (level > CS_LOG_DEBUG)
        level = CS_LOG_DEBUG;
    atomic_store_explicit(&cs_log_threshold, level, memory_order_relaxed);
}

void cs_log_set_trace_file(const char *tmpl)
{
    atomic_store_explicit(&cs_trace_template, tmpl, memory_order_release);
}

void cs_log_set_rank(int rank)
{
    __atomic_store_n(&cs_log_my_rank, rank, __ATOMIC_RELAXED);
}

int cs_log_rank(void)
{
    return __atomic_load_n(&cs_log_my_rank, __ATOMIC_RELAXED);
}

/* writev() the whole of iov[0..cnt), resuming after EINTR and short
 * writes; gives up silently on other errors (nowhere left to report). */
static void cs_writev_all(int fd, struct iovec *iov, int cnt)
{
    ssize_t w;

    for (;;) {
        while (cnt > 0 && iov->iov_len == 0) {
            iov++;
            cnt--;
        }
        if (cnt == 0)
            return;
        w = writev(fd, iov, cnt);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        while (cnt > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
}

/* Format "costa-shim[<rank>]: [<word>: ]<text>\n" into at most cap bytes
 * (longer text ends in "...") and write it to fd 2 in one call. */
static void cs_log_vwrite(const char *word, size_t cap, const char *fmt,
                          va_list ap)
{
    char buf[CS_LOG_NOTICE_LEN];
    struct iovec iov;
    int saved_errno = errno, rank = cs_log_rank(), n, m;
    char who[16] = "-";

    if (cap > sizeof(buf))
        cap = sizeof(buf);
    if (rank >= 0)
        snprintf(who, sizeof(who), "%d", rank);
    n = snprintf(buf, cap, "costa-shim[%s]: %s%s", who, word ? word : "",
                 word ? ": " : "");
    /* Keep one byte for the newline. */
    m = vsnprintf(buf + n, cap - (size_t)n - 1, fmt, ap);
    if (m < 0)
        m = 0;
    if ((size_t)(n + m) >= cap - 1) {
        n = (int)cap - 2;
        memcpy(buf + n - 3, "...", 3);
    } else {
        n += m;
    }
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n++] = '\n';
    iov.iov_base = buf;
    iov.iov_len = (size_t)n;
    cs_writev_all(2, &iov, 1);
    errno = saved_errno;
}

void cs_log_write(int level, const char *fmt, ...)
{
    va_list ap;

    if (level > cs_log_level())
        return;
    if (level < CS_LOG_ERROR)
        level = CS_LOG_ERROR;
    if (level > CS_LOG_DEBUG)
        level = CS_LOG_DEBUG;
    va_start(ap, fmt);
    cs_log_vwrite(cs_level_words[level], CS_LOG_LINE_LEN, fmt, ap);
    va_end(ap);
}

void cs_log_notice(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cs_log_vwrite(NULL, CS_LOG_NOTICE_LEN, fmt, ap);
    va_end(ap);
}

void cs_log_text(int fd, const char *text, size_t len)
{
    struct iovec iov;
    int saved_errno = errno;

    iov.iov_base = (void *)text;
    iov.iov_len = len;
    cs_writev_all(fd, &iov, 1);
    errno = saved_errno;
}

void cs_log_line(int fd, const char *line)
{
    struct iovec iov[2];
    size_t len = strlen(line);
    int saved_errno = errno;

    iov[0].iov_base = (void *)line;
    iov[0].iov_len = len;
    iov[1].iov_base = (void *)"\n";
    iov[1].iov_len = len > 0 && line[len - 1] == '\n' ? 0 : 1;
    cs_writev_all(fd, iov, 2);
    errno = saved_errno;
}

/* Append s to out[*n..cap) with '/' made '_' (a host or job id must not
 * add directories); -1 when it does not fit. */
static int cs_put(char *out, size_t cap, size_t *n, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*n + 1 >= cap)
            return -1;
        out[(*n)++] = *s == '/' ? '_' : *s;
    }
    return 0;
}

/*
 * Expand the COSTA_SHIM_LOG_FILE template t into out.  0 on success, -1 if
 * the result is too long, 1 if it needs the rank and none is known yet.
 */
static int cs_expand(const char *t, char *out, size_t cap)
{
    char tmp[256];
    const char *job;
    size_t n = 0;
    int rc = 0;

    for (; *t != '\0' && rc == 0; t++) {
        if (*t != '%' || t[1] == '\0') {
            if (n + 1 >= cap)
                return -1;
            out[n++] = *t;
            continue;
        }
        t++;
        switch (*t) {
        case 'r':
            if (cs_log_rank() < 0)
                return 1;
            snprintf(tmp, sizeof(tmp), "%d", cs_log_rank());
            break;
        case 'p':
            snprintf(tmp, sizeof(tmp), "%ld", (long)getpid());
            break;
        case 'h':
            if (gethostname(tmp, sizeof(tmp)) != 0)
                snprintf(tmp, sizeof(tmp), "unknownhost");
            tmp[sizeof(tmp) - 1] = '\0';
            break;
        case 'j':
            job = getenv("SLURM_JOB_ID");
            if (job == NULL || job[0] == '\0')
                job = getenv("PBS_JOBID");
            if (job == NULL || job[0] == '\0')
                job = getenv("JOB_ID");
            if (job == NULL || job[0] == '\0')
                job = "nojob";
            snprintf(tmp, sizeof(tmp), "%s", job);
            break;
        case '%':
            snprintf(tmp, sizeof(tmp), "%%");
            break;
        default:
            /* The parser rejects other escapes; keep them literally. */
            snprintf(tmp, sizeof(tmp), "%%%c", *t);
            break;
        }
        rc = cs_put(out, cap, &n, tmp);
    }
    out[n] = '\0';
    return rc;
}

/* Open an expanded trace path (NULL: expansion too long); stderr with one
 * warning when that fails. */
static int cs_trace_open_path(const char *path, const char *t)
{
    int fd;

    if (path == NULL) {
        cs_log_write(CS_LOG_WARN, "log file name from template '%s' is too "
                                  "long; trace lines go to stderr", t);
        return 2;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        cs_log_write(CS_LOG_WARN, "cannot open log file '%s': %s; trace "
                                  "lines go to stderr", path,
                     strerror(errno));
        return 2;
    }
    return fd;
}

/* Resolve cs_trace_fd; caller holds cs_trace_lock.  Leaves it at -1 while
 * the template needs a rank that is not known yet. */
static void cs_trace_open(void)
{
    const char *t =
        atomic_load_explicit(&cs_trace_template, memory_order_acquire);
    char path[CS_LOG_PATH_LEN];
    int rc, fd;

    if (t == NULL || strcmp(t, "stderr") == 0 || t[0] == '\0') {
        fd = 2;
    } else if (strcmp(t, "stdout") == 0) {
        fd = 1;
    } else {
        rc = cs_expand(t, path, sizeof(path));
        if (rc == 1)
            return;
        fd = cs_trace_open_path(rc == 0 ? path : NULL, t);
    }
    __atomic_store_n(&cs_trace_fd, fd, __ATOMIC_RELEASE);
}

int cs_log_trace_fd(void)
{
    int fd = __atomic_load_n(&cs_trace_fd, __ATOMIC_ACQUIRE);
    int saved_errno;

    if (fd >= 0)
        return fd;
    saved_errno = errno;
    pthread_mutex_lock(&cs_trace_lock);
    if (cs_trace_fd < 0)
        cs_trace_open();
    fd = cs_trace_fd;
    pthread_mutex_unlock(&cs_trace_lock);
    errno = saved_errno;
    return fd >= 0 ? fd : 2;
}
