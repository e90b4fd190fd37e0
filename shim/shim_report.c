/*
 * shim/shim_report.c - the end-of-run report (interface.md section 4).
 *
 * Runs once per process, from the MPI_COMM_SELF delete callback inside
 * MPI_Finalize, where MPI is still fully usable.  Collective mode: every
 * rank of MPI_COMM_WORLD sends its totals (MPI_Gather) and its statistics
 * rows (MPI_Gatherv) to rank 0, which merges rows of the same key and
 * writes the text report (also to its stderr), the CSV and the JSON file.
 * The shape and caller tables are merged by key on the way to rank 0 (one
 * MPI_Reduce each with a merging operator), so no rank ever holds more
 * than two tables of each kind.
 * Local mode (COSTA_SHIM_STATS=local, or the report was registered lazily
 * so not every rank takes part): no communication at all, every rank writes
 * its own CSV file, shape rows included.
 *
 * Invariants: at most CS_SHIM_STATS_MAX_ROWS rows per rank and in each
 * merged table, CS_SHIM_STATS_MAX_SHAPES shapes and
 * CS_SHIM_STATS_MAX_CALLERS callers per table (overflow marks the report
 * partial, it never grows); all ranks run the same binary, so rows and
 * tables travel as bytes; every file is first written as <name>.partial
 * and renamed when complete; an I/O error costs one warning naming the
 * file, never the job.  No exit(), no abort().
 */
#include "shim/shim.h"
#include "shim/shim_stats.h"
#include "config/config.h"
#include "config/log.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <mpi.h>

#define CS_REP_MAX_ROWS CS_SHIM_STATS_MAX_ROWS
#define CS_REP_CMD_LEN 4096
#define CS_REP_NAME_LEN 256
#define CS_REP_PATH_LEN (CS_CFG_PATH_LEN + 2 * CS_REP_NAME_LEN + 64)
#define CS_REP_RULE_WIDTH 72
#define CS_REP_MAX_K 100000
#define CS_REP_TOP_SHAPES 20  /* shapes in the text; files have all */
#define CS_REP_TOP_CALLERS 10

/* One rank's totals as they travel to rank 0 (as bytes). */
typedef struct {
    double app_time;
    double t_shim;
    double t_wait;      /* of t_shim: waiting for the other ranks */
    int64_t calls;
    int64_t fallbacks;
    int32_t nrows;
    int32_t partial;
    int32_t node_leader;
    int32_t pad;
    int64_t verify_calls;
    double verify_maxdiff;
    int64_t mem_peak;   /* the most the shim held (cs_shim_mem_peak) */
} cs_rep_rank_t;

/* A row of "Per routine and path": reasons folded in, plus the spread of
 * its per-rank time over the ranks that have it (for the COV). */
typedef struct {
    cs_shim_row_t row;
    double s1;          /* sum over ranks of the rank's t_sum */
    double s2;          /* sum of squares */
    int n;              /* ranks with the row */
    int last_rank;      /* rank whose t_sum is being summed in cur */
    double cur;
} cs_rep_trow_t;

typedef struct {
    const cs_config_t *cfg;
    int collective;     /* 1: rank 0 writing for all ranks */
    int nprocs;         /* size of MPI_COMM_WORLD */
    int nranks;         /* entries of ranks[] (nprocs, or 1 when local) */
    int rank0;          /* rank number of ranks[0] */
    int nnodes;
    int threads;
    int partial;
    char command[CS_REP_CMD_LEN];
    char exe[CS_REP_NAME_LEN];
    char jobid[CS_REP_NAME_LEN];
    char mpi[CS_REP_NAME_LEN];
    char start[40];
    char stop[40];
    const cs_rep_rank_t *ranks;
    const int *first;   /* rows of entry r: all[first[r] .. first[r + 1]) */
    const cs_shim_row_t *all;
    int nmerged;
    cs_shim_row_t merged[CS_REP_MAX_ROWS];
    int ntext;
    cs_rep_trow_t text[CS_REP_MAX_ROWS];
    int nreason;
    cs_shim_row_t reasons[CS_REP_MAX_ROWS];
    cs_shim_shape_tab_t *shapes;   /* merged, or this rank's (local) */
    cs_shim_caller_tab_t *callers; /* merged; NULL in local mode */
    int64_t verify_calls;          /* summed over ranks */
    double verify_maxdiff;
    int64_t mem_peak;              /* the largest over ranks */
} cs_rep_t;

/* Written once per process; static keeps the finalizer off the heap for
 * everything but the gathered rows. */
static cs_rep_t cs_rep;
static cs_shim_row_t cs_rep_mine[CS_REP_MAX_ROWS];
static cs_shim_shape_tab_t cs_rep_shapes_mine, cs_rep_shapes_all;
static cs_shim_caller_tab_t cs_rep_callers_mine, cs_rep_callers_all;

/* ------------------------------------------------------------ columns */

/* The counter and timer columns of a row, generated from the X-macro lists
 * so the CSV, JSON and the trace cannot drift apart. */
typedef struct {
    const char *name;
    size_t off;
    int is_int;
} cs_rep_col_t;

static const cs_rep_col_t cs_rep_cols[] = {
#define CS_SHIM_COUNTER(field, name)                                          \
    {name, offsetof(cs_shim_row_t, field), 1},
    CS_SHIM_COUNTERS
#undef CS_SHIM_COUNTER
#define CS_SHIM_TIMER(field, name) {name, offsetof(cs_shim_row_t, field), 0},
    CS_SHIM_TIMERS
#undef CS_SHIM_TIMER
};

#define CS_REP_NCOLS ((int)(sizeof(cs_rep_cols) / sizeof(cs_rep_cols[0])))

/*
 * Output order of the columns (interface.md): calls first, then the
 * timers, then the other counters.  Returns the pass in which column c is
 * printed.
 */
static int cs_rep_col_pass(const cs_rep_col_t *c)
{
    if (c->off == offsetof(cs_shim_row_t, calls)) {
        return 0;
    }
    return c->is_int ? 2 : 1;
}

/* Print the value of column c of row r; JSON has no inf/nan. */
static void cs_rep_col_print(FILE *f, const cs_shim_row_t *r,
                             const cs_rep_col_t *c, int json)
{
    const char *p = (const char *)r + c->off;
    if (c->is_int) {
        int64_t v;
        memcpy(&v, p, sizeof(v));
        fprintf(f, "%" PRId64, v);
    } else {
        double v;
        memcpy(&v, p, sizeof(v));
        if (json && !isfinite(v)) {
            fputs("null", f);
        } else {
            fprintf(f, "%.9g", v);
        }
    }
}

/* ------------------------------------------------------------ rows */

static int cs_rep_key_cmp(const cs_shim_row_t *a, const cs_shim_row_t *b,
                          int with_path, int with_reason)
{
    if (a->routine != b->routine) {
        return a->routine < b->routine ? -1 : 1;
    }
    if (a->spelling != b->spelling) {
        return a->spelling < b->spelling ? -1 : 1;
    }
    if (with_path && a->path != b->path) {
        return a->path < b->path ? -1 : 1;
    }
    if (with_reason && a->reason != b->reason) {
        return a->reason < b->reason ? -1 : 1;
    }
    return 0;
}

static int cs_rep_qsort_cmp(const void *a, const void *b)
{
    return cs_rep_key_cmp(a, b, 1, 1);
}

static int cs_rep_trow_cmp(const void *a, const void *b)
{
    const cs_rep_trow_t *x = a, *y = b;
    return cs_rep_key_cmp(&x->row, &y->row, 1, 0);
}

/*
 * Add src to the table rows[0..*n) under its key (path and reason taken
 * into account as asked; the others are zeroed in a new entry).  Returns
 * the index, or -1 when the table is full.
 */
static int cs_rep_table_add(cs_shim_row_t *rows, int *n,
                            const cs_shim_row_t *src, int with_path,
                            int with_reason)
{
    int i;
    for (i = 0; i < *n; i++) {
        if (cs_rep_key_cmp(&rows[i], src, with_path, with_reason) == 0) {
            break;
        }
    }
    if (i == *n) {
        if (i == CS_REP_MAX_ROWS) {
            return -1;
        }
        memset(&rows[i], 0, sizeof(rows[i]));
        rows[i].routine = src->routine;
        rows[i].spelling = src->spelling;
        rows[i].path = with_path ? src->path : 0;
        rows[i].reason = with_reason ? src->reason : CS_SHIM_REASON_NONE;
        (*n)++;
    }
    cs_shim_row_merge(&rows[i], src);
    return i;
}

static void cs_rep_trow_flush(cs_rep_trow_t *t)
{
    if (t->last_rank >= 0) {
        t->s1 += t->cur;
        t->s2 += t->cur * t->cur;
        t->n++;
    }
    t->cur = 0.0;
}

/*
 * Build the merged tables from all gathered rows: merged (full key),
 * text (routine as called and path) and reasons (routine as called and
 * reason, fallback-type rows only).
 */
static void cs_rep_merge(cs_rep_t *rep)
{
    for (int r = 0; r < rep->nranks; r++) {
        for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
            const cs_shim_row_t *row = &rep->all[j];
            if (cs_rep_table_add(rep->merged, &rep->nmerged, row, 1, 1) < 0) {
                rep->partial = 1;
            }
            if (row->reason != CS_SHIM_REASON_NONE &&
                cs_rep_table_add(rep->reasons, &rep->nreason, row, 0, 1) <
                    0) {
                rep->partial = 1;
            }
            int t;
            for (t = 0; t < rep->ntext; t++) {
                if (cs_rep_key_cmp(&rep->text[t].row, row, 1, 0) == 0) {
                    break;
                }
            }
            if (t == rep->ntext) {
                if (t == CS_REP_MAX_ROWS) {
                    rep->partial = 1;
                    continue;
                }
                cs_rep_trow_t *nt = &rep->text[t];
                memset(nt, 0, sizeof(*nt));
                nt->row.routine = row->routine;
                nt->row.spelling = row->spelling;
                nt->row.path = row->path;
                nt->last_rank = -1;
                rep->ntext++;
            }
            cs_rep_trow_t *tr = &rep->text[t];
            if (tr->last_rank != r) {
                cs_rep_trow_flush(tr);
                tr->last_rank = r;
            }
            tr->cur += row->t_sum;
            cs_shim_row_merge(&tr->row, row);
        }
    }
    for (int t = 0; t < rep->ntext; t++) {
        cs_rep_trow_flush(&rep->text[t]);
    }
    qsort(rep->merged, (size_t)rep->nmerged, sizeof(rep->merged[0]),
          cs_rep_qsort_cmp);
    qsort(rep->reasons, (size_t)rep->nreason, sizeof(rep->reasons[0]),
          cs_rep_qsort_cmp);
    qsort(rep->text, (size_t)rep->ntext, sizeof(rep->text[0]),
          cs_rep_trow_cmp);
}

/* ------------------------------------------------------------ shapes */

/* Longest time first; ties by id, so equal runs print alike. */
static int cs_rep_shape_cmp(const void *a, const void *b)
{
    const cs_shim_shape_t *x = a, *y = b;
    if (x->row.t_sum != y->row.t_sum) {
        return x->row.t_sum > y->row.t_sum ? -1 : 1;
    }
    if (x->id != y->id) {
        return x->id < y->id ? -1 : 1;
    }
    return 0;
}

static int cs_rep_caller_cmp(const void *a, const void *b)
{
    const cs_shim_caller_t *x = a, *y = b;
    if (x->t_sum != y->t_sum) {
        return x->t_sum > y->t_sum ? -1 : 1;
    }
    int c = strcmp(x->caller, y->caller);
    if (c != 0) {
        return c;
    }
    return x->routine != y->routine ? (x->routine < y->routine ? -1 : 1)
                                    : x->spelling - y->spelling;
}

static void cs_rep_sort_tables(cs_rep_t *rep)
{
    if (rep->shapes) {
        qsort(rep->shapes->e, (size_t)rep->shapes->n,
              sizeof(rep->shapes->e[0]), cs_rep_shape_cmp);
        rep->partial |= rep->shapes->dropped > 0;
    }
    if (rep->callers) {
        qsort(rep->callers->e, (size_t)rep->callers->n,
              sizeof(rep->callers->e[0]), cs_rep_caller_cmp);
        rep->partial |= rep->callers->dropped > 0;
    }
}

/* MPI_Reduce operators: merge whole tables by key. */
static void cs_rep_shape_op(void *in, void *inout, int *len,
                            MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) {
        cs_shim_shape_tab_merge((cs_shim_shape_tab_t *)inout + i,
                                (const cs_shim_shape_tab_t *)in + i);
    }
}

static void cs_rep_caller_op(void *in, void *inout, int *len,
                             MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) {
        cs_shim_caller_tab_merge((cs_shim_caller_tab_t *)inout + i,
                                 (const cs_shim_caller_tab_t *)in + i);
    }
}

/*
 * One table of `size` bytes from every rank, merged by fn, into all on
 * rank 0.  RATIONALE: a reduction (a tree in MPICH and Open MPI) merges on
 * the way, so no rank ever holds more than two tables, whatever the
 * number of ranks; a gather would need one table per rank on rank 0.
 * Collective over comm.
 */
static void cs_rep_reduce_tab(const void *mine, void *all, size_t size,
                              MPI_User_function *fn, MPI_Comm comm)
{
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous((int)size, MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(fn, 1, &op);
    MPI_Reduce(mine, all, 1, type, op, 0, comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}

/* ------------------------------------------------------------ metadata */

/* Length of the valid UTF-8 sequence at s, 0 if invalid (RFC 3629). */
static int cs_rep_utf8_len(const unsigned char *s)
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
static void cs_rep_name_clean(char *dst, size_t len, const char *src)
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
static void cs_rep_printable(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 1 : cs_rep_utf8_len(p);
        if (n == 0 || *p < 0x20 || *p == 0x7f) {
            *p = '?';
            n = 1;
        }
        p += n;
    }
}

/* Command line from /proc/self/cmdline, arguments joined by spaces. */
static void cs_rep_read_command(char *buf, size_t len)
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
    cs_rep_printable(buf);
    if (n == 0) {
        snprintf(buf, len, "?");
    }
}

static void cs_rep_read_exe(char *buf, size_t len)
{
    char path[CS_REP_PATH_LEN];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    path[n] = '\0';
    const char *base = strrchr(path, '/');
    cs_rep_name_clean(buf, len, base ? base + 1 : path);
}

static void cs_rep_read_jobid(char *buf, size_t len)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID",
                                       "JOB_ID"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0] != '\0') {
            cs_rep_name_clean(buf, len, v);
            return;
        }
    }
    snprintf(buf, len, "nojob");
}

/* First line of MPI_Get_library_version, blanks squeezed, plus the
 * thread level. */
static void cs_rep_mpi_version(char *buf, size_t len)
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

static void cs_rep_wall_str(time_t t, char *buf, size_t len)
{
    struct tm tm;
    if (!localtime_r(&t, &tm) ||
        strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0) {
        snprintf(buf, len, "?");
    }
}

static int cs_rep_threads(const cs_config_t *cfg)
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
static void cs_rep_meta(cs_rep_t *rep)
{
    double tmax = 0.0;
    for (int r = 0; r < rep->nranks; r++) {
        if (rep->ranks[r].app_time > tmax) {
            tmax = rep->ranks[r].app_time;
        }
    }
    time_t stop = time(NULL);
    cs_rep_wall_str(stop - (time_t)llround(tmax), rep->start,
                    sizeof(rep->start));
    cs_rep_wall_str(stop, rep->stop, sizeof(rep->stop));
    cs_rep_read_command(rep->command, sizeof(rep->command));
    cs_rep_read_exe(rep->exe, sizeof(rep->exe));
    cs_rep_read_jobid(rep->jobid, sizeof(rep->jobid));
    cs_rep_mpi_version(rep->mpi, sizeof(rep->mpi));
    rep->threads = cs_rep_threads(rep->cfg);
}

/* ------------------------------------------------------------ text */

static void cs_rep_rule(FILE *f, const char *title)
{
    int n = fprintf(f, "@--- %s ", title);
    for (; n < CS_REP_RULE_WIDTH; n++) {
        fputc('-', f);
    }
    fputc('\n', f);
}

static void cs_rep_settings(FILE *f)
{
    char var[CS_CFG_PATH_LEN + CS_REP_NAME_LEN];
    int any = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "COSTA_SHIM_", 11) == 0) {
            snprintf(var, sizeof(var), "%s", *e);
            cs_rep_printable(var);
            fprintf(f, "%s%s", any ? " " : "", var);
            any = 1;
        }
    }
    fputs(any ? " (all others default)\n" : "(all defaults)\n", f);
}

static void cs_rep_gb(char *buf, size_t len, const cs_shim_row_t *r)
{
    if (r->path != CS_SHIM_PATH_ENGINE) {
        snprintf(buf, len, "n/a");
    } else {
        snprintf(buf, len, "%.3f", (double)r->bytes_sent / 1e9);
    }
}

static double cs_rep_mean_ms(const cs_shim_row_t *r)
{
    return r->calls > 0 ? 1e3 * r->t_sum / (double)r->calls : 0.0;
}

static void cs_rep_text_header(FILE *f, const cs_rep_t *rep)
{
    const char *real = cs_shim_real_library();
    fputs("@ costa_shim report\n", f);
    fprintf(f, "@ Command        : %s\n", rep->command);
    fprintf(f, "@ Version        : costa_shim %s\n", CS_SHIM_VERSION);
    fprintf(f, "@ Real library   : %s\n",
            real && real[0] ? real : "(not resolved)");
    fprintf(f, "@ MPI            : %s\n", rep->mpi);
    fprintf(f, "@ Ranks          : %d on %d node%s, %d thread%s/rank\n",
            rep->nprocs, rep->nnodes, rep->nnodes == 1 ? "" : "s",
            rep->threads, rep->threads == 1 ? "" : "s");
    fprintf(f, "@ Start / stop   : %s / %s\n", rep->start, rep->stop);
    int64_t cap = cs_shim_mem_cap();
    char capbuf[64] = "none";
    if (cap >= 0) {
        snprintf(capbuf, sizeof(capbuf), "%.1f MB", (double)cap / 1e6);
    }
    fprintf(f, "@ Memory         : the shim held at most %.1f MB per rank "
               "(cap %s)\n",
            (double)rep->mem_peak / 1e6, capbuf);
    fputs("@ Settings       : ", f);
    cs_rep_settings(f);
    if (rep->cfg->verify) {
        fprintf(f,
                "@ Verify         : %" PRId64 " calls checked, max "
                "difference %.1e\n",
                rep->verify_calls, rep->verify_maxdiff);
    }
    if (rep->partial) {
        fputs("@ Partial        : yes (a statistics table was full", f);
        if (rep->shapes && rep->shapes->dropped > 0) {
            fprintf(f, "; %" PRId64 " calls not in the shape table",
                    rep->shapes->dropped);
        }
        if (rep->callers && rep->callers->dropped > 0) {
            fprintf(f, "; %" PRId64 " calls not in the caller table",
                    rep->callers->dropped);
        }
        fputs("; the totals count every call)\n", f);
    }
}

static void cs_rep_text_time(FILE *f, const cs_rep_t *rep)
{
    cs_rep_rank_t all = {0};
    cs_rep_rule(f, "Time in intercepted routines (seconds)");
    fprintf(f, "%4s %10s %10s %10s %6s %9s %10s\n", "Rank", "AppTime",
            "ShimTime", "Wait", "Shim%", "Calls", "Fallbacks");
    for (int r = 0; r < rep->nranks; r++) {
        const cs_rep_rank_t *k = &rep->ranks[r];
        fprintf(f,
                "%4d %10.3f %10.4f %10.4f %6.2f %9" PRId64 " %10" PRId64
                "\n",
                rep->rank0 + r, k->app_time, k->t_shim, k->t_wait,
                k->app_time > 0.0 ? 100.0 * k->t_shim / k->app_time : 0.0,
                k->calls, k->fallbacks);
        all.app_time += k->app_time;
        all.t_shim += k->t_shim;
        all.t_wait += k->t_wait;
        all.calls += k->calls;
        all.fallbacks += k->fallbacks;
    }
    fprintf(f,
            "%4s %10.3f %10.4f %10.4f %6.2f %9" PRId64 " %10" PRId64 "\n",
            "*", all.app_time, all.t_shim, all.t_wait,
            all.app_time > 0.0 ? 100.0 * all.t_shim / all.app_time : 0.0,
            all.calls, all.fallbacks);
}

/*
 * COV as in mpiP: the coefficient of variation, over the ranks that have
 * the row, of each rank's total time in it (load imbalance), not of the
 * single call times.
 */
static void cs_rep_text_routines(FILE *f, const cs_rep_t *rep)
{
    cs_rep_rule(f, "Per routine and path (all ranks)");
    fprintf(f, "%-11s %-11s %9s %10s %10s %9s %9s %6s %9s %6s\n",
            "Routine", "Path", "Calls", "Time(s)", "Wait(s)", "Mean(ms)",
            "Max(ms)", "COV", "Sent(GB)", "Self%");
    for (int t = 0; t < rep->ntext; t++) {
        const cs_rep_trow_t *tr = &rep->text[t];
        const cs_shim_row_t *r = &tr->row;
        char name[32], gb[32], self[32];
        cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
        cs_rep_gb(gb, sizeof(gb), r);
        int64_t moved = r->bytes_sent + r->bytes_self;
        if (r->path != CS_SHIM_PATH_ENGINE || moved <= 0) {
            snprintf(self, sizeof(self), "n/a");
        } else {
            snprintf(self, sizeof(self), "%.1f",
                     100.0 * (double)r->bytes_self / (double)moved);
        }
        double cov = 0.0;
        if (tr->n > 1 && tr->s1 > 0.0) {
            double mean = tr->s1 / tr->n;
            double var = tr->s2 / tr->n - mean * mean;
            cov = var > 0.0 ? sqrt(var) / mean : 0.0;
        }
        fprintf(f,
                "%-11s %-11s %9" PRId64 " %10.4f %10.4f %9.3f %9.3f %6.2f "
                "%9s %6s\n",
                name, cs_shim_path_str(r->path), r->calls, r->t_sum,
                r->t_wait, cs_rep_mean_ms(r), 1e3 * r->t_max, cov, gb, self);
    }
}

static void cs_rep_text_reasons(FILE *f, const cs_rep_t *rep)
{
    cs_rep_rule(f, "Fallback reasons");
    if (rep->nreason == 0) {
        fputs("(none)\n", f);
        return;
    }
    fprintf(f, "%-11s %-14s %9s\n", "Routine", "Reason", "Calls");
    for (int i = 0; i < rep->nreason; i++) {
        const cs_shim_row_t *r = &rep->reasons[i];
        char name[32];
        cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
        fprintf(f, "%-11s %-14s %9" PRId64 "\n", name,
                cs_shim_reason_str(r->reason), r->calls);
    }
}

/* "64x64/2x2R"; "-" for block sizes that were not read. */
static void cs_rep_blk(char *buf, size_t len, int32_t mb, int32_t nb,
                       const char *grid)
{
    if (mb == -1 || nb == -1) {
        snprintf(buf, len, "-/%s", grid);
    } else {
        snprintf(buf, len, "%" PRId32 "x%" PRId32 "/%s", mb, nb, grid);
    }
}

/* Share of the crossing bytes an optimal relabeling would save. */
static void cs_rep_relabel_pct(char *buf, size_t len,
                               const cs_shim_shape_t *s)
{
    if (s->relabel_cross > 0) {
        snprintf(buf, len, "%.1f%%",
                 100.0 * (double)(s->relabel_cross - s->relabel_best) /
                     (double)s->relabel_cross);
    } else if (s->relabel_cross == 0) {
        snprintf(buf, len, "0.0%%");
    } else {
        snprintf(buf, len, "n/a");
    }
}

static const char *cs_rep_shape_path(const cs_shim_shape_t *s)
{
    return s->mixed ? "mixed" : cs_shim_path_str(s->row.path);
}

static const char *cs_rep_shape_reason(const cs_shim_shape_t *s)
{
    return s->mixed ? "" : cs_shim_reason_str(s->row.reason);
}

/* GB/s as costa_shim_report.py computes it: bytes moved (sent + copied
 * locally) per second of call time, both summed over ranks. */
static void cs_rep_gbs(char *buf, size_t len, const cs_shim_row_t *r)
{
    int64_t moved = r->bytes_sent + r->bytes_self;
    if (moved <= 0 || r->t_sum <= 0.0) {
        snprintf(buf, len, "n/a");
    } else {
        snprintf(buf, len, "%.2f", (double)moved / r->t_sum / 1e9);
    }
}

static void cs_rep_text_shapes(FILE *f, const cs_rep_t *rep)
{
    const cs_shim_shape_tab_t *t = rep->shapes;
    cs_rep_rule(f, "Top call shapes by time");
    if (!t || t->n == 0) {
        fputs("(none)\n", f);
        return;
    }
    fprintf(f, "%10s  %-11s %-11s %-15s %-15s %9s %10s %10s %7s %7s\n",
            "Id", "Routine", "m x n", "A blk/grid", "B blk/grid", "Calls",
            "Time(s)", "Wait(s)", "GB/s", "Relabel");
    int top = t->n < CS_REP_TOP_SHAPES ? t->n : CS_REP_TOP_SHAPES;
    for (int i = 0; i < top; i++) {
        const cs_shim_shape_t *s = &t->e[i];
        char name[32], mn[32], a[64], b[64], gbs[32], rl[32];
        cs_shim_called_name(s->row.routine, s->row.spelling, name,
                            sizeof(name));
        snprintf(mn, sizeof(mn), "%" PRId32 "x%" PRId32, s->m, s->n);
        cs_rep_blk(a, sizeof(a), s->mb_a, s->nb_a, s->grid_a);
        cs_rep_blk(b, sizeof(b), s->mb_b, s->nb_b, s->grid_b);
        cs_rep_gbs(gbs, sizeof(gbs), &s->row);
        cs_rep_relabel_pct(rl, sizeof(rl), s);
        fprintf(f,
                "%10" PRIu32 "  %-11s %-11s %-15s %-15s %9" PRId64
                " %10.4f %10.4f %7s %7s\n",
                s->id, name, mn, a, b, s->row.calls, s->row.t_sum,
                s->row.t_wait, gbs, rl);
    }
    if (t->n > top) {
        fprintf(f, "(%d more shapes in the CSV and JSON files)\n",
                t->n - top);
    }
    if (t->dropped > 0) {
        fprintf(f, "(%" PRId64 " calls not counted here: the table was "
                   "full)\n",
                t->dropped);
    }
}

static void cs_rep_text_callers(FILE *f, const cs_rep_t *rep)
{
    const cs_shim_caller_tab_t *t = rep->callers;
    cs_rep_rule(f, "Callers (top 10)");
    if (!t || t->n == 0) {
        fputs("(none)\n", f);
        return;
    }
    fprintf(f, "%-30s %-11s %9s %10s\n", "Caller", "Routine", "Calls",
            "Time(s)");
    int top = t->n < CS_REP_TOP_CALLERS ? t->n : CS_REP_TOP_CALLERS;
    for (int i = 0; i < top; i++) {
        const cs_shim_caller_t *c = &t->e[i];
        char name[32];
        cs_shim_called_name(c->routine, c->spelling, name, sizeof(name));
        fprintf(f, "%-30s %-11s %9" PRId64 " %10.4f\n", c->caller, name,
                c->calls, c->t_sum);
    }
    if (t->n > top) {
        fprintf(f, "(%d more in the JSON file)\n", t->n - top);
    }
    if (t->dropped > 0) {
        fprintf(f, "(%" PRId64 " calls not counted here: the table was "
                   "full)\n",
                t->dropped);
    }
}

/* COSTA_SHIM_STATS=full: every rank's rows (file only, not stderr). */
static void cs_rep_text_per_rank(FILE *f, const cs_rep_t *rep)
{
    cs_rep_rule(f, "Per rank and routine");
    fprintf(f, "%4s %-11s %-11s %-14s %9s %10s %10s %9s %9s %9s\n",
            "Rank", "Routine", "Path", "Reason", "Calls", "Time(s)",
            "Wait(s)", "Mean(ms)", "Max(ms)", "Sent(GB)");
    for (int r = 0; r < rep->nranks; r++) {
        for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
            const cs_shim_row_t *w = &rep->all[j];
            char name[32], gb[32];
            const char *reason = cs_shim_reason_str(w->reason);
            cs_shim_called_name(w->routine, w->spelling, name, sizeof(name));
            cs_rep_gb(gb, sizeof(gb), w);
            fprintf(f,
                    "%4d %-11s %-11s %-14s %9" PRId64 " %10.4f %10.4f %9.3f "
                    "%9.3f %9s\n",
                    rep->rank0 + r, name, cs_shim_path_str(w->path),
                    reason[0] ? reason : "-", w->calls, w->t_sum, w->t_wait,
                    cs_rep_mean_ms(w), 1e3 * w->t_max, gb);
        }
    }
}

/* ------------------------------------------------------------ CSV */

static void cs_rep_csv_row(FILE *f, int rank, const cs_shim_row_t *r)
{
    char name[32];
    cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
    /* the nine shape columns stay empty in routine-level rows */
    fprintf(f, "%d,%s,%s,%s,,,,,,,,,", rank, name, cs_shim_path_str(r->path),
            cs_shim_reason_str(r->reason));
    for (int pass = 0; pass < 3; pass++) {
        for (int c = 0; c < CS_REP_NCOLS; c++) {
            if (cs_rep_col_pass(&cs_rep_cols[c]) == pass) {
                fputc(',', f);
                cs_rep_col_print(f, r, &cs_rep_cols[c], 0);
            }
        }
    }
    /* relabel_gain_bytes is not tracked per routine row */
    fputs(",\n", f);
}

/* A block size, empty when it was not read. */
static void cs_rep_csv_blk(FILE *f, int32_t v)
{
    fputc(',', f);
    if (v != -1) {
        fprintf(f, "%" PRId32, v);
    }
}

static void cs_rep_csv_shape(FILE *f, int rank, const cs_shim_shape_t *s)
{
    char name[32];
    cs_shim_called_name(s->row.routine, s->row.spelling, name, sizeof(name));
    fprintf(f, "%d,%s,%s,%s,%" PRIu32 ",%" PRId32 ",%" PRId32, rank, name,
            cs_rep_shape_path(s), cs_rep_shape_reason(s), s->id, s->m, s->n);
    cs_rep_csv_blk(f, s->mb_a);
    cs_rep_csv_blk(f, s->nb_a);
    fprintf(f, ",%s", s->grid_a);
    cs_rep_csv_blk(f, s->mb_b);
    cs_rep_csv_blk(f, s->nb_b);
    fprintf(f, ",%s", s->grid_b);
    for (int pass = 0; pass < 3; pass++) {
        for (int c = 0; c < CS_REP_NCOLS; c++) {
            if (cs_rep_col_pass(&cs_rep_cols[c]) == pass) {
                fputc(',', f);
                cs_rep_col_print(f, &s->row, &cs_rep_cols[c], 0);
            }
        }
    }
    fputc(',', f);
    if (s->relabel_cross >= 0) {
        fprintf(f, "%" PRId64, s->relabel_cross - s->relabel_best);
    }
    fputc('\n', f);
}

static void cs_rep_write_csv(FILE *f, const void *arg)
{
    const cs_rep_t *rep = arg;
    fputs("# costa_shim_csv_version: 1\n", f);
    fprintf(f, "# command: %s\n", rep->command);
    fprintf(f, "# nprocs: %d\n", rep->nprocs);
    fprintf(f, "# partial: %d\n", rep->partial);
    if (rep->shapes) {
        fprintf(f, "# shapes_dropped_calls: %" PRId64 "\n",
                rep->shapes->dropped);
    }
    fputs("rank,routine,path,reason,shape_id,m,n,mbA,nbA,gridA,mbB,nbB,gridB",
          f);
    for (int pass = 0; pass < 3; pass++) {
        for (int c = 0; c < CS_REP_NCOLS; c++) {
            if (cs_rep_col_pass(&cs_rep_cols[c]) == pass) {
                fprintf(f, ",%s", cs_rep_cols[c].name);
            }
        }
    }
    fputs(",relabel_gain_bytes\n", f);
    if (rep->collective) {
        for (int i = 0; i < rep->nmerged; i++) {
            cs_rep_csv_row(f, -1, &rep->merged[i]);
        }
    }
    for (int r = 0; r < rep->nranks; r++) {
        for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
            cs_rep_csv_row(f, rep->rank0 + r, &rep->all[j]);
        }
    }
    /* shape rows: merged (rank -1) or this rank's own */
    for (int i = 0; rep->shapes && i < rep->shapes->n; i++) {
        cs_rep_csv_shape(f, rep->collective ? -1 : rep->rank0,
                         &rep->shapes->e[i]);
    }
}

/* ------------------------------------------------------------ JSON */

/* A JSON string: quotes, backslashes and control characters escaped,
 * bytes that are not UTF-8 replaced by U+FFFD. */
static void cs_rep_json_str(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p++, f);
        } else if (*p == '\n') {
            fputs("\\n", f);
            p++;
        } else if (*p == '\t') {
            fputs("\\t", f);
            p++;
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p++);
        } else if (*p < 0x80) {
            fputc(*p++, f);
        } else {
            int n = cs_rep_utf8_len(p);
            if (n == 0) {
                fputs("\\ufffd", f);
                p++;
            } else {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            }
        }
    }
    fputc('"', f);
}

/* Members of a routine row, without braces. */
static void cs_rep_json_row(FILE *f, const cs_shim_row_t *r)
{
    char name[32];
    cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
    fputs("\"routine\": ", f);
    cs_rep_json_str(f, name);
    fprintf(f, ", \"path\": \"%s\", \"reason\": \"%s\"",
            cs_shim_path_str(r->path), cs_shim_reason_str(r->reason));
    for (int pass = 0; pass < 3; pass++) {
        for (int c = 0; c < CS_REP_NCOLS; c++) {
            if (cs_rep_col_pass(&cs_rep_cols[c]) == pass) {
                fprintf(f, ", \"%s\": ", cs_rep_cols[c].name);
                cs_rep_col_print(f, r, &cs_rep_cols[c], 1);
            }
        }
    }
}

/* , "key": value-or-null */
static void cs_rep_json_opt(FILE *f, const char *key, int64_t v, int known)
{
    if (known) {
        fprintf(f, ", \"%s\": %" PRId64, key, v);
    } else {
        fprintf(f, ", \"%s\": null", key);
    }
}

/* Members of a shape row, without braces. */
static void cs_rep_json_shape(FILE *f, const cs_shim_shape_t *s)
{
    char name[32];
    cs_shim_called_name(s->row.routine, s->row.spelling, name, sizeof(name));
    fprintf(f, "\"shape_id\": %" PRIu32 ", \"routine\": ", s->id);
    cs_rep_json_str(f, name);
    fprintf(f, ", \"path\": \"%s\", \"reason\": \"%s\"",
            cs_rep_shape_path(s), cs_rep_shape_reason(s));
    fprintf(f, ", \"m\": %" PRId32 ", \"n\": %" PRId32, s->m, s->n);
    cs_rep_json_opt(f, "mbA", s->mb_a, s->mb_a != -1);
    cs_rep_json_opt(f, "nbA", s->nb_a, s->nb_a != -1);
    fputs(", \"gridA\": ", f);
    cs_rep_json_str(f, s->grid_a);
    cs_rep_json_opt(f, "mbB", s->mb_b, s->mb_b != -1);
    cs_rep_json_opt(f, "nbB", s->nb_b, s->nb_b != -1);
    fputs(", \"gridB\": ", f);
    cs_rep_json_str(f, s->grid_b);
    for (int pass = 0; pass < 3; pass++) {
        for (int c = 0; c < CS_REP_NCOLS; c++) {
            if (cs_rep_col_pass(&cs_rep_cols[c]) == pass) {
                fprintf(f, ", \"%s\": ", cs_rep_cols[c].name);
                cs_rep_col_print(f, &s->row, &cs_rep_cols[c], 1);
            }
        }
    }
    int rl = s->relabel_cross >= 0;
    cs_rep_json_opt(f, "relabel_cross_bytes", s->relabel_cross, rl);
    cs_rep_json_opt(f, "relabel_best_bytes", s->relabel_best, rl);
    cs_rep_json_opt(f, "relabel_gain_bytes",
                    s->relabel_cross - s->relabel_best, rl);
}

static void cs_rep_json_shapes(FILE *f, const cs_rep_t *rep)
{
    const cs_shim_shape_tab_t *t = rep->shapes;
    int n = t ? t->n : 0;
    fputs("  \"shapes\": [", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        cs_rep_json_shape(f, &t->e[i]);
        fputc('}', f);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void cs_rep_json_callers(FILE *f, const cs_rep_t *rep)
{
    const cs_shim_caller_tab_t *t = rep->callers;
    int n = t ? t->n : 0;
    fputs("  \"callers\": [", f);
    for (int i = 0; i < n; i++) {
        const cs_shim_caller_t *c = &t->e[i];
        char name[32];
        cs_shim_called_name(c->routine, c->spelling, name, sizeof(name));
        fputs(i ? ",\n    {\"caller\": " : "\n    {\"caller\": ", f);
        cs_rep_json_str(f, c->caller);
        fputs(", \"routine\": ", f);
        cs_rep_json_str(f, name);
        fprintf(f, ", \"calls\": %" PRId64 ", \"t_sum_s\": %.9g}", c->calls,
                c->t_sum);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void cs_rep_json_meta(FILE *f, const cs_rep_t *rep)
{
    static const char *const stats[] = {"off", "summary", "full", "local"};
    const char *real = cs_shim_real_library();
    int st = (int)rep->cfg->stats;
    fputs("  \"meta\": {\n    \"command\": ", f);
    cs_rep_json_str(f, rep->command);
    fputs(",\n    \"exe\": ", f);
    cs_rep_json_str(f, rep->exe);
    fputs(",\n    \"jobid\": ", f);
    cs_rep_json_str(f, rep->jobid);
    fputs(",\n    \"version\": ", f);
    cs_rep_json_str(f, CS_SHIM_VERSION);
    fprintf(f, ",\n    \"nprocs\": %d,\n    \"nodes\": %d", rep->nprocs,
            rep->nnodes);
    fprintf(f, ",\n    \"threads_per_rank\": %d,\n    \"mpi\": ",
            rep->threads);
    cs_rep_json_str(f, rep->mpi);
    fputs(",\n    \"real_library\": ", f);
    cs_rep_json_str(f, real ? real : "");
    fputs(",\n    \"start\": ", f);
    cs_rep_json_str(f, rep->start);
    fputs(",\n    \"stop\": ", f);
    cs_rep_json_str(f, rep->stop);
    fprintf(f, ",\n    \"stats\": \"%s\"",
            st >= 0 && st < 4 ? stats[st] : "?");
    fprintf(f, ",\n    \"partial\": %s", rep->partial ? "true" : "false");
    fprintf(f, ",\n    \"mem_peak_bytes\": %" PRId64, rep->mem_peak);
    if (cs_shim_mem_cap() >= 0) {
        fprintf(f, ",\n    \"mem_cap_bytes\": %" PRId64, cs_shim_mem_cap());
    } else {
        fputs(",\n    \"mem_cap_bytes\": null", f);
    }
    fprintf(f,
            ",\n    \"shapes_dropped_calls\": %" PRId64
            ",\n    \"callers_dropped_calls\": %" PRId64,
            rep->shapes ? rep->shapes->dropped : 0,
            rep->callers ? rep->callers->dropped : 0);
    if (rep->cfg->verify) {
        fprintf(f, ",\n    \"verify\": {\"calls\": %" PRId64 ", ",
                rep->verify_calls);
        if (isfinite(rep->verify_maxdiff)) {
            fprintf(f, "\"max_diff\": %.9g}", rep->verify_maxdiff);
        } else {
            fputs("\"max_diff\": null}", f);
        }
    } else {
        fputs(",\n    \"verify\": null", f);
    }
    fputs("\n  },\n", f);
}

static void cs_rep_json_env(FILE *f)
{
    int any = 0;
    fputs("  \"env\": {", f);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "COSTA_SHIM_", 11) != 0 || !eq) {
            continue;
        }
        char name[CS_REP_NAME_LEN];
        size_t n = (size_t)(eq - *e);
        n = n < sizeof(name) - 1 ? n : sizeof(name) - 1;
        memcpy(name, *e, n);
        name[n] = '\0';
        fputs(any ? ",\n    " : "\n    ", f);
        cs_rep_json_str(f, name);
        fputs(": ", f);
        cs_rep_json_str(f, eq + 1);
        any = 1;
    }
    fputs(any ? "\n  },\n" : "},\n", f);
}

static void cs_rep_write_json(FILE *f, const void *arg)
{
    const cs_rep_t *rep = arg;
    int full = rep->cfg->stats == CS_CFG_STATS_FULL;
    fputs("{\n  \"schema_version\": 1,\n", f);
    cs_rep_json_meta(f, rep);
    cs_rep_json_env(f);
    fputs("  \"routines\": [", f);
    for (int i = 0; i < rep->nmerged; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        cs_rep_json_row(f, &rep->merged[i]);
        fputc('}', f);
    }
    fputs(rep->nmerged ? "\n  ],\n" : "],\n", f);
    cs_rep_json_shapes(f, rep);
    cs_rep_json_callers(f, rep);
    fputs("  \"ranks\": [", f);
    for (int r = 0; r < rep->nranks; r++) {
        const cs_rep_rank_t *k = &rep->ranks[r];
        fprintf(f,
                "%s{\"rank\": %d, \"app_time_s\": %.9g, "
                "\"shim_time_s\": %.9g, \"wait_time_s\": %.9g, "
                "\"calls\": %" PRId64 ", \"fallbacks\": %" PRId64
                ", \"partial\": %s",
                r ? ",\n    " : "\n    ", rep->rank0 + r, k->app_time,
                k->t_shim, k->t_wait, k->calls, k->fallbacks,
                k->partial ? "true" : "false");
        if (full) {
            fputs(", \"routines\": [", f);
            for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
                fputs(j > rep->first[r] ? ", {" : "{", f);
                cs_rep_json_row(f, &rep->all[j]);
                fputc('}', f);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs(rep->nranks ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* ------------------------------------------------------------ files */

typedef struct {
    const char *buf;
    size_t len;
} cs_rep_blob_t;

static void cs_rep_write_blob(FILE *f, const void *arg)
{
    const cs_rep_blob_t *b = arg;
    fwrite(b->buf, 1, b->len, f);
}

/* mkdir -p; 0 on success, else one warning and -1. */
static int cs_rep_mkdir_p(const char *dir)
{
    char buf[CS_CFG_PATH_LEN];
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
        cs_log_warn("cannot create report directory %s: %s", dir,
                    strerror(ENAMETOOLONG));
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            cs_log_warn("cannot create report directory %s: %s", buf,
                        strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        cs_log_warn("cannot create report directory %s: %s", buf,
                    strerror(errno));
        return -1;
    }
    return 0;
}

/* Write path through path.partial and rename it; one warning on error. */
static void cs_rep_commit(const char *path,
                          void (*writer)(FILE *, const void *),
                          const void *arg)
{
    char tmp[CS_REP_PATH_LEN + 16];
    int n = snprintf(tmp, sizeof(tmp), "%s.partial", path);
    if (n < 0 || n >= (int)sizeof(tmp)) {
        cs_log_warn("cannot write report %s: %s", path,
                    strerror(ENAMETOOLONG));
        return;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cs_log_warn("cannot write report %s: %s", tmp, strerror(errno));
        return;
    }
    errno = 0;
    writer(f, arg);
    int err = 0;
    if (fflush(f) != 0 || ferror(f)) {
        err = errno ? errno : EIO;
    }
    if (fclose(f) != 0 && err == 0) {
        err = errno;
    }
    if (err == 0 && rename(tmp, path) != 0) {
        err = errno;
    }
    if (err != 0) {
        cs_log_warn("cannot write report %s: %s", path, strerror(err));
        unlink(tmp);
    }
}

static int cs_rep_exists(const char *path)
{
    char tmp[CS_REP_PATH_LEN + 16];
    int n = snprintf(tmp, sizeof(tmp), "%s.partial", path);
    return access(path, F_OK) == 0 ||
           (n > 0 && n < (int)sizeof(tmp) && access(tmp, F_OK) == 0);
}

/* Whole buffer to fd 2, resuming after short writes. */
static void cs_rep_to_stderr(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(2, buf, len);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return;
        }
        buf += w;
        len -= (size_t)w;
    }
}

static const char *cs_rep_dir(const cs_config_t *cfg)
{
    return cfg->stats_dir[0] ? cfg->stats_dir : ".";
}

/* Rank 0, collective mode: text to stderr and the files. */
static void cs_rep_emit_all(cs_rep_t *rep)
{
    static const char *const ext[3] = {"txt", "csv", "json"};
    static const int bit[3] = {CS_CFG_FORMAT_TXT, CS_CFG_FORMAT_CSV,
                               CS_CFG_FORMAT_JSON};
    const cs_config_t *cfg = rep->cfg;
    char *text = NULL;
    size_t tlen = 0, summary_len = 0;
    FILE *m = open_memstream(&text, &tlen);
    if (m) {
        cs_rep_text_header(m, rep);
        cs_rep_text_time(m, rep);
        cs_rep_text_routines(m, rep);
        cs_rep_text_reasons(m, rep);
        cs_rep_text_shapes(m, rep);
        cs_rep_text_callers(m, rep);
        fflush(m);
        summary_len = tlen;
        if (cfg->stats == CS_CFG_STATS_FULL) {
            cs_rep_text_per_rank(m, rep);
        }
        if (fclose(m) != 0) {
            free(text);
            text = NULL;
        }
    }
    if (!text) {
        cs_log_warn("cannot build the text report: %s", strerror(ENOMEM));
    } else {
        cs_rep_to_stderr(text, summary_len);
    }
    if (!(cfg->stats_format & (bit[0] | bit[1] | bit[2])) ||
        cs_rep_mkdir_p(cs_rep_dir(cfg)) != 0) {
        free(text);
        return;
    }
    char path[3][CS_REP_PATH_LEN];
    int k;
    for (k = 0; k < CS_REP_MAX_K; k++) {
        int taken = 0;
        for (int i = 0; i < 3; i++) {
            int n = snprintf(path[i], sizeof(path[i]),
                             "%s/costa_shim.%s.%s.%dp.%d.%s", cs_rep_dir(cfg),
                             rep->exe, rep->jobid, rep->nprocs, k, ext[i]);
            if (n < 0 || n >= (int)sizeof(path[i])) {
                cs_log_warn("cannot write report %s: %s", path[i],
                            strerror(ENAMETOOLONG));
                free(text);
                return;
            }
            taken |= cs_rep_exists(path[i]);
        }
        if (!taken) {
            break;
        }
    }
    if (k == CS_REP_MAX_K) {
        cs_log_warn("cannot write report in %s: %s", cs_rep_dir(cfg),
                    "no free report index");
        free(text);
        return;
    }
    if ((cfg->stats_format & bit[0]) && text) {
        cs_rep_blob_t b = {text, tlen};
        cs_rep_commit(path[0], cs_rep_write_blob, &b);
    }
    if (cfg->stats_format & bit[1]) {
        cs_rep_commit(path[1], cs_rep_write_csv, rep);
    }
    if (cfg->stats_format & bit[2]) {
        cs_rep_commit(path[2], cs_rep_write_json, rep);
    }
    free(text);
}

/* ------------------------------------------------------------ modes */

/* No communication: this rank's CSV only. */
static void cs_rep_local(cs_rep_t *rep, int nmine, const cs_rep_rank_t *my)
{
    int up = 0, down = 0, rank = cs_shim_world_rank();
    int first[2] = {0, nmine};
    if (cs_shim_mpi_ok()) {
        MPI_Initialized(&up);
        MPI_Finalized(&down);
    }
    rep->nprocs = 0;
    if (up && !down) {
        MPI_Comm_size(MPI_COMM_WORLD, &rep->nprocs);
        if (rank < 0) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        }
    }
    rep->collective = 0;
    rep->nranks = 1;
    rep->rank0 = rank;
    rep->ranks = my;
    rep->first = first;
    rep->all = cs_rep_mine;
    rep->partial = my->partial;
    rep->shapes = &cs_rep_shapes_mine;
    rep->callers = NULL; /* the CSV has no caller rows */
    rep->verify_calls = my->verify_calls;
    rep->verify_maxdiff = my->verify_maxdiff;
    rep->mem_peak = my->mem_peak;
    cs_rep_sort_tables(rep);
    cs_rep_read_command(rep->command, sizeof(rep->command));
    cs_rep_read_exe(rep->exe, sizeof(rep->exe));
    cs_rep_read_jobid(rep->jobid, sizeof(rep->jobid));
    if (cs_rep_mkdir_p(cs_rep_dir(rep->cfg)) != 0) {
        return;
    }
    char path[CS_REP_PATH_LEN];
    char who[32];
    if (rank >= 0) {
        snprintf(who, sizeof(who), "r%d", rank);
    } else {
        /* MPI never came up: the pid keeps the name unique */
        snprintf(who, sizeof(who), "p%ld", (long)getpid());
    }
    int n = snprintf(path, sizeof(path), "%s/costa_shim.%s.%s.%s.csv",
                     cs_rep_dir(rep->cfg), rep->exe, rep->jobid, who);
    if (n < 0 || n >= (int)sizeof(path)) {
        cs_log_warn("cannot write report %s: %s", path,
                    strerror(ENAMETOOLONG));
        return;
    }
    cs_rep_commit(path, cs_rep_write_csv, rep);
}

/*
 * Gather to rank 0 of MPI_COMM_WORLD and write there.  Rank 0 announces
 * (MPI_Bcast) whether it could allocate before each gather, so a failed
 * allocation skips the report on every rank instead of hanging.
 */
static void cs_rep_collective(cs_rep_t *rep, int nmine, cs_rep_rank_t *my)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int me = 0, np = 1, ok = 1;
    cs_rep_rank_t *ranks = NULL;
    int *counts = NULL, *first = NULL;
    cs_shim_row_t *all = NULL;
    MPI_Comm node;
    MPI_Datatype rowtype;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    my->node_leader = me == 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        int nr = 0;
        MPI_Comm_rank(node, &nr);
        my->node_leader = nr == 0;
        MPI_Comm_free(&node);
    }
    if (me == 0) {
        ranks = malloc((size_t)np * sizeof(*ranks));
        counts = malloc((size_t)np * sizeof(*counts));
        first = malloc(((size_t)np + 1) * sizeof(*first));
        ok = ranks && counts && first;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        goto err_nomem;
    }
    MPI_Gather(my, (int)sizeof(*my), MPI_BYTE, ranks, (int)sizeof(*my),
               MPI_BYTE, 0, comm);
    if (me == 0) {
        /* at most CS_SHIM_STATS_MAX_ROWS rows per rank; int counts of
         * rows (not bytes) keep the Gatherv below INT_MAX */
        int64_t tot = 0;
        for (int r = 0; r < np; r++) {
            counts[r] = ranks[r].nrows;
            first[r] = (int)(tot < INT_MAX ? tot : INT_MAX);
            tot += counts[r];
        }
        first[np] = (int)(tot < INT_MAX ? tot : INT_MAX);
        all = tot <= INT_MAX ? malloc((size_t)(tot > 0 ? tot : 1) *
                                      sizeof(*all))
                             : NULL;
        ok = all != NULL;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        goto err_nomem;
    }
    MPI_Type_contiguous((int)sizeof(cs_shim_row_t), MPI_BYTE, &rowtype);
    MPI_Type_commit(&rowtype);
    MPI_Gatherv(cs_rep_mine, nmine, rowtype, all, counts, first, rowtype, 0,
                comm);
    MPI_Type_free(&rowtype);
    cs_rep_reduce_tab(&cs_rep_shapes_mine, &cs_rep_shapes_all,
                      sizeof(cs_rep_shapes_mine), cs_rep_shape_op, comm);
    cs_rep_reduce_tab(&cs_rep_callers_mine, &cs_rep_callers_all,
                      sizeof(cs_rep_callers_mine), cs_rep_caller_op, comm);
    if (me == 0) {
        rep->collective = 1;
        rep->nprocs = np;
        rep->nranks = np;
        rep->rank0 = 0;
        rep->ranks = ranks;
        rep->first = first;
        rep->all = all;
        for (int r = 0; r < np; r++) {
            qsort(all + first[r], (size_t)counts[r], sizeof(*all),
                  cs_rep_qsort_cmp);
            rep->partial |= ranks[r].partial;
            rep->nnodes += ranks[r].node_leader;
            rep->verify_calls += ranks[r].verify_calls;
            if (ranks[r].mem_peak > rep->mem_peak) {
                rep->mem_peak = ranks[r].mem_peak;
            }
            if (ranks[r].verify_maxdiff > rep->verify_maxdiff) {
                rep->verify_maxdiff = ranks[r].verify_maxdiff;
            }
        }
        rep->shapes = &cs_rep_shapes_all;
        rep->callers = &cs_rep_callers_all;
        cs_rep_sort_tables(rep);
        cs_rep_merge(rep);
        cs_rep_meta(rep);
        cs_rep_emit_all(rep);
    }
    goto out;
err_nomem:
    if (me == 0) {
        cs_log_warn("cannot write the report: %s", strerror(ENOMEM));
    }
out:
    free(all);
    free(first);
    free(counts);
    free(ranks);
}

void cs_shim_report_write(int collective)
{
    const cs_config_t *cfg = cs_cfg_get();
    if (cfg->stats == CS_CFG_STATS_OFF) {
        return;
    }
    cs_rep_t *rep = &cs_rep;
    cs_shim_totals_t tot;
    cs_rep_rank_t my;
    memset(rep, 0, sizeof(*rep));
    memset(&my, 0, sizeof(my));
    rep->cfg = cfg;
    int n = cs_shim_stats_snapshot(cs_rep_mine, CS_REP_MAX_ROWS, &tot);
    my.app_time = tot.t_start > 0.0 ? cs_shim_now() - tot.t_start : 0.0;
    my.t_shim = tot.t_shim;
    my.t_wait = tot.t_wait;
    my.calls = tot.calls;
    my.fallbacks = tot.fallbacks;
    my.nrows = n;
    my.partial = tot.partial;
    my.verify_calls = tot.verify_calls;
    my.verify_maxdiff = tot.verify_maxdiff;
    my.mem_peak = cs_shim_mem_peak();
    cs_shim_stats_shapes(&cs_rep_shapes_mine);
    cs_shim_stats_callers(&cs_rep_callers_mine);

    int up = 0, down = 0;
    if (cs_shim_mpi_ok()) {
        MPI_Initialized(&up);
        MPI_Finalized(&down);
    }
    if (!collective || cfg->stats == CS_CFG_STATS_LOCAL || !up || down) {
        qsort(cs_rep_mine, (size_t)n, sizeof(cs_rep_mine[0]),
              cs_rep_qsort_cmp);
        cs_rep_local(rep, n, &my);
    } else {
        cs_rep_collective(rep, n, &my);
    }
}
