/*
 * shim/report/meta.c - what the report says about the run: command
 * line, program and job id (made safe for file names), MPI library and
 * thread level, start and stop times, threads per rank; and the UTF-8
 * checks that keep every text the report copies printable.  Reads /proc
 * and the environment; the MPI queries here are allowed before MPI_Init
 * and after MPI_Finalize.  No state.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "shim/report/report_int.h"

#include <mpi.h>

/* Length of the valid UTF-8 sequence at s, 0 if invalid (RFC 3629). */
int cs_shim_rep_utf8_len(const unsigned char *s)
{
    int n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        lo = s[0] == 0xe0 ? 0xa0 : 0x80;
        hi = s[0] == 0xed ? 0x9f : 0xbf;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        lo = s[0] == 0xf0 ? 0x90 : 0x80;
        hi = s[0] == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (int i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf) {
            return 0;
        }
    }
    return n;
}

/* Keep a file-name component to [A-Za-z0-9._+-], others become '_'. */
static void cs_shim_rep_name_clean(char *dst, size_t len, const char *src)
{
    size_t i = 0;
    for (; src[i] != '\0' && i + 1 < len; i++) {
        char c = src[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                 c == '+' || c == '-';
        dst[i] = ok ? c : '_';
    }
    dst[i] = '\0';
    if (i == 0 || strcmp(dst, ".") == 0 || strcmp(dst, "..") == 0) {
        snprintf(dst, len, "unknown");
    }
}

/* Make s printable in place: control characters and bytes that are not
 * UTF-8 become '?', so every format can carry it as it is. */
void cs_shim_rep_printable(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 1 : cs_shim_rep_utf8_len(p);
        if (n == 0 || *p < 0x20 || *p == 0x7f) {
            *p = '?';
            n = 1;
        }
        p += n;
    }
}

/* Command line from /proc/self/cmdline, arguments joined by spaces. */
static void cs_shim_rep_read_command(char *buf, size_t len)
{
    size_t n = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        n = fread(buf, 1, len - 1, f);
        fclose(f);
    }
    while (n > 0 && buf[n - 1] == '\0') {
        n--;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\0') {
            buf[i] = ' ';
        }
    }
    buf[n] = '\0';
    cs_shim_rep_printable(buf);
    if (n == 0) {
        snprintf(buf, len, "?");
    }
}

static void cs_shim_rep_read_exe(char *buf, size_t len)
{
    char path[CS_SHIM_REP_PATH_LEN];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    path[n] = '\0';
    const char *base = strrchr(path, '/');
    cs_shim_rep_name_clean(buf, len, base ? base + 1 : path);
}

static void cs_shim_rep_read_jobid(char *buf, size_t len)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID",
                                       "JOB_ID"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0] != '\0') {
            cs_shim_rep_name_clean(buf, len, v);
            return;
        }
    }
    snprintf(buf, len, "nojob");
}

void cs_shim_rep_ident(cs_shim_rep_t *rep)
{
    cs_shim_rep_read_command(rep->command, sizeof(rep->command));
    cs_shim_rep_read_exe(rep->exe, sizeof(rep->exe));
    cs_shim_rep_read_jobid(rep->jobid, sizeof(rep->jobid));
}

/* First line of MPI_Get_library_version, blanks squeezed, plus the
 * thread level. */
static void cs_shim_rep_mpi_version(char *buf, size_t len)
{
    static const char *const levels[] = {"SINGLE", "FUNNELED", "SERIALIZED",
                                         "MULTIPLE"};
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0, level = MPI_THREAD_SINGLE;
    if (MPI_Get_library_version(lib, &n) != MPI_SUCCESS) {
        n = 0;
    }
    lib[n < (int)sizeof(lib) ? n : (int)sizeof(lib) - 1] = '\0';
    char line[MPI_MAX_LIBRARY_VERSION_STRING];
    size_t k = 0;
    for (const char *p = lib; *p != '\0' && *p != '\n'; p++) {
        int blank = *p == ' ' || *p == '\t' || *p == '\r';
        if (blank && (k == 0 || line[k - 1] == ' ')) {
            continue;
        }
        line[k++] = blank ? ' ' : *p;
    }
    while (k > 0 && line[k - 1] == ' ') {
        k--;
    }
    line[k] = '\0';
    MPI_Query_thread(&level);
    const char *lv = "?";
    if (level == MPI_THREAD_SINGLE) {
        lv = levels[0];
    } else if (level == MPI_THREAD_FUNNELED) {
        lv = levels[1];
    } else if (level == MPI_THREAD_SERIALIZED) {
        lv = levels[2];
    } else if (level == MPI_THREAD_MULTIPLE) {
        lv = levels[3];
    }
    snprintf(buf, len, "%.200s (thread level %s)", k ? line : "unknown MPI",
             lv);
}

static void cs_shim_rep_wall_str(time_t t, char *buf, size_t len)
{
    struct tm tm;
    if (!localtime_r(&t, &tm) ||
        strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0) {
        snprintf(buf, len, "?");
    }
}

static int cs_shim_rep_threads(const cs_config_t *cfg)
{
    if (cfg->threads > 0) {
        return cfg->threads;
    }
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Fill the metadata of rep on the writing rank; stop is now, start is
 * the earliest registration (largest application time). */
void cs_shim_rep_meta(cs_shim_rep_t *rep)
{
    double tmax = 0.0;
    for (int r = 0; r < rep->nranks; r++) {
        if (rep->ranks[r].app_time > tmax) {
            tmax = rep->ranks[r].app_time;
        }
    }
    time_t stop = time(NULL);
    cs_shim_rep_wall_str(stop - (time_t)llround(tmax), rep->start,
                         sizeof(rep->start));
    cs_shim_rep_wall_str(stop, rep->stop, sizeof(rep->stop));
    cs_shim_rep_ident(rep);
    cs_shim_rep_mpi_version(rep->mpi, sizeof(rep->mpi));
    rep->threads = cs_shim_rep_threads(rep->cfg);
}
