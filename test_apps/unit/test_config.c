/*
 * test_apps/unit/test_config.c - unit test of config/: every default, good
 * and bad values of every variable, unknown names, config-file precedence,
 * the dump, and the log sink (line format, threshold, trace file).
 *
 * No MPI.  Uses a private temporary directory (under $TMPDIR or /tmp) and
 * removes it at the end.  Prints "cs_test: OK" last on success.
 */
#include "config/config.h"
#include "config/log.h"

#include "cs_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ENV 16
#define N_ROWS_MAX 64

static char tmpdir[512];
static char capture_path[600];
static int saved_stderr = -1;

/* Parse a NULL-terminated list of "NAME=value" strings. */
static void parse(cs_config_t *cfg, ...)
{
    char *env[MAX_ENV + 1];
    const char *s;
    va_list ap;
    int n = 0;

    va_start(ap, cfg);
    while ((s = va_arg(ap, const char *)) != NULL) {
        CS_TEST_ASSERT(n < MAX_ENV);
        env[n++] = (char *)s;
    }
    va_end(ap);
    env[n] = NULL;
    cs_cfg_parse(env, cfg);
}

/* Parse exactly one entry. */
static void parse1(cs_config_t *cfg, const char *entry)
{
    parse(cfg, entry, (const char *)NULL);
}

/* Number of warnings containing every one of the NULL-terminated words. */
static int count_warnings(const cs_config_t *cfg, ...)
{
    const char *w;
    int i, n = 0, all;
    va_list ap;

    for (i = 0; i < cfg->n_warnings; i++) {
        all = 1;
        va_start(ap, cfg);
        while ((w = va_arg(ap, const char *)) != NULL)
            if (strstr(cfg->warnings[i], w) == NULL)
                all = 0;
        va_end(ap);
        n += all;
    }
    return n;
}

static void print_warnings(const cs_config_t *cfg)
{
    int i;

    for (i = 0; i < cfg->n_warnings; i++)
        fprintf(stderr, "  warning[%d]: %s\n", i, cfg->warnings[i]);
}

/* The configuration fields (everything before the bookkeeping). */
static int same_values(const cs_config_t *a, const cs_config_t *b)
{
    return memcmp(a, b, offsetof(cs_config_t, n_warnings)) == 0;
}

/* Read all of fd (a regular file) from offset 0 into buf. */
static size_t slurp_fd(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;

    CS_TEST_ASSERT(lseek(fd, 0, SEEK_SET) == 0);
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    return n;
}

static void slurp_path(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);

    CS_TEST_ASSERT(fd >= 0);
    slurp_fd(fd, buf, cap);
    close(fd);
}

/* Redirect fd 2 into a fresh capture file. */
static void capture_begin(void)
{
    int fd = open(capture_path, O_RDWR | O_CREAT | O_TRUNC, 0600);

    CS_TEST_ASSERT(fd >= 0);
    fflush(stderr);
    saved_stderr = dup(2);
    CS_TEST_ASSERT(saved_stderr >= 0);
    CS_TEST_ASSERT(dup2(fd, 2) == 2);
    close(fd);
}

/* Restore fd 2 and return what was written to it. */
static void capture_end(char *buf, size_t cap)
{
    slurp_fd(2, buf, cap);
    CS_TEST_ASSERT(dup2(saved_stderr, 2) == 2);
    close(saved_stderr);
    saved_stderr = -1;
}

/* Dump cfg into a file and return the text. */
static void dump_text(const cs_config_t *cfg, char *buf, size_t cap)
{
    char path[700];
    int fd;

    snprintf(path, sizeof(path), "%s/dump", tmpdir);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CS_TEST_ASSERT(fd >= 0);
    cs_cfg_dump(cfg, fd);
    slurp_fd(fd, buf, cap);
    close(fd);
    unlink(path);
}

static int count_lines(const char *s)
{
    int n = 0;

    for (; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

/* ------------------------------------------------------------------ */

static void test_table(void)
{
    const char *name, *def, *syntax, *help;
    int i, n = cs_cfg_table_size();

    CS_TEST_EQ(n, 29);
    for (i = 0; i < n; i++) {
        CS_TEST_EQ(cs_cfg_table_row(i, &name, &def, &syntax, &help), 0);
        CS_TEST_ASSERT(name != NULL && def != NULL);
        CS_TEST_ASSERT(syntax != NULL && help != NULL);
        CS_TEST_ASSERT(strncmp(name, "COSTA_SHIM_", 11) == 0);
        CS_TEST_ASSERT(strlen(syntax) > 0 && strlen(help) > 0);
    }
    CS_TEST_EQ(cs_cfg_table_row(-1, &name, &def, &syntax, &help), -1);
    CS_TEST_EQ(cs_cfg_table_row(n, &name, &def, &syntax, &help), -1);
}

static void test_defaults(void)
{
    cs_config_t c;

    parse(&c, "PATH=/bin", "HOME=/root", "COSTA_SHIMMER=1", "NOEQUALS",
          (const char *)NULL);
    if (c.n_warnings != 0)
        print_warnings(&c);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.disable, 0);
    CS_TEST_EQ(c.routines_all, 1);
    CS_TEST_EQ(c.n_include, 0);
    CS_TEST_EQ(c.n_exclude, 0);
    CS_TEST_EQ(c.min_elems, 0);
    CS_TEST_EQ(c.fallback, CS_CFG_FALLBACK_AUTO);
    CS_TEST_EQ(c.threads, 0);
    CS_TEST_EQ(c.overlap, 1);
    CS_TEST_EQ(c.max_memory, CS_CFG_SIZE_WORD); /* auto */
    CS_TEST_EQ(c.workspace, CS_CFG_SIZE_WORD);  /* auto */
    CS_TEST_EQ(c.relabel_cost_rank, 1);
    CS_TEST_EQ(c.relabel_cost_node, 3);
    CS_TEST_EQ(c.test_fault, CS_CFG_FAULT_OFF);
    CS_TEST_EQ(c.test_fault_rank, 0);
    CS_TEST_EQ(c.shm, CS_CFG_SHM_AUTO);
    CS_TEST_EQ(c.shm_min, 64 * 1024);
    CS_TEST_EQ(c.relabel, CS_CFG_RELABEL_OFF);
    CS_TEST_ASSERT(strcmp(c.relabel_plan, "costa_shim.relabel.plan") == 0);
    CS_TEST_EQ(c.verify, 0);
    CS_TEST_EQ(c.verbose, 0);
    CS_TEST_EQ(c.log_level, CS_LOG_WARN);
    CS_TEST_ASSERT(strcmp(c.log_file, "stderr") == 0);
    CS_TEST_EQ(c.log_ranks_set, 0);
    CS_TEST_EQ(c.log_ranks_all, 0);
    CS_TEST_EQ(c.n_log_ranks, 1);
    CS_TEST_EQ(c.log_ranks[0].first, 0);
    CS_TEST_EQ(c.log_ranks[0].last, 0);
    CS_TEST_EQ(c.banner, 0);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_OFF);
    CS_TEST_ASSERT(strcmp(c.stats_dir, ".") == 0);
    CS_TEST_EQ(c.stats_format,
               CS_CFG_FORMAT_TXT | CS_CFG_FORMAT_CSV | CS_CFG_FORMAT_JSON);
    CS_TEST_EQ(c.dump_config, 0);
    CS_TEST_ASSERT(strcmp(c.config_file, "") == 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 1), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pdgemr2d"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "PZTRANC_"), 1);

    /* NULL environment: same defaults. */
    {
        cs_config_t d;

        cs_cfg_parse(NULL, &d);
        CS_TEST_EQ(d.n_warnings, 0);
        CS_TEST_ASSERT(same_values(&c, &d));
    }
}

/* Field of a bool variable by name. */
static int bool_field(const cs_config_t *c, const char *name)
{
    if (strcmp(name, "COSTA_SHIM_DISABLE") == 0)
        return c->disable;
    if (strcmp(name, "COSTA_SHIM_OVERLAP") == 0)
        return c->overlap;
    if (strcmp(name, "COSTA_SHIM_VERIFY") == 0)
        return c->verify;
    if (strcmp(name, "COSTA_SHIM_BANNER") == 0)
        return c->banner;
    if (strcmp(name, "COSTA_SHIM_DUMP_CONFIG") == 0)
        return c->dump_config;
    CS_TEST_ASSERT(0);
    return -1;
}

static void test_bools(void)
{
    static const char *const names[] = {
        "COSTA_SHIM_DISABLE", "COSTA_SHIM_OVERLAP", "COSTA_SHIM_VERIFY",
        "COSTA_SHIM_BANNER", "COSTA_SHIM_DUMP_CONFIG"};
    static const struct {
        const char *s;
        int v;
    } spell[] = {{"1", 1},     {"0", 0},     {"on", 1},     {"off", 0},
                 {"yes", 1},   {"no", 0},    {"true", 1},   {"false", 0},
                 {"ON", 1},    {"Off", 0},   {"YES", 1},    {"No", 0},
                 {"TRUE", 1},  {"False", 0}, {"tRuE", 1},   {" on ", 1},
                 {"oFF", 0}};
    char entry[128];
    cs_config_t c;
    size_t i, j;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        for (j = 0; j < sizeof(spell) / sizeof(spell[0]); j++) {
            snprintf(entry, sizeof(entry), "%s=%s", names[i], spell[j].s);
            parse1(&c, entry);
            CS_TEST_CHECK(c.n_warnings == 0 &&
                              bool_field(&c, names[i]) == spell[j].v,
                          "%s", entry);
        }
    }
}

static void test_numbers(void)
{
    static const struct {
        const char *entry;
        int64_t v;
    } elems[] = {{"COSTA_SHIM_MIN_ELEMS=0", 0},
                 {"COSTA_SHIM_MIN_ELEMS=123", 123},
                 {"COSTA_SHIM_MIN_ELEMS=4k", 4096},
                 {"COSTA_SHIM_MIN_ELEMS=4K", 4096},
                 {"COSTA_SHIM_MIN_ELEMS=2M", 2 << 20},
                 {"COSTA_SHIM_MIN_ELEMS=7m", 7 << 20},
                 {"COSTA_SHIM_MIN_ELEMS=3G", (int64_t)3 << 30},
                 {"COSTA_SHIM_MIN_ELEMS= 10 ", 10},
                 {"COSTA_SHIM_MIN_ELEMS=9223372036854775807", INT64_MAX}},
      mem[] = {{"COSTA_SHIM_MAX_MEMORY=inf", -1},
               {"COSTA_SHIM_MAX_MEMORY=auto", CS_CFG_SIZE_WORD},
               {"COSTA_SHIM_MAX_MEMORY=AUTO", CS_CFG_SIZE_WORD},
               {"COSTA_SHIM_MAX_MEMORY=INF", -1},
               {"COSTA_SHIM_MAX_MEMORY=0", 0},
               {"COSTA_SHIM_MAX_MEMORY=1000", 1000},
               {"COSTA_SHIM_MAX_MEMORY=4k", 4096},
               {"COSTA_SHIM_MAX_MEMORY=2M", 2 << 20},
               {"COSTA_SHIM_MAX_MEMORY=3G", (int64_t)3 << 30},
               {"COSTA_SHIM_MAX_MEMORY=1T", (int64_t)1 << 40},
               {"COSTA_SHIM_MAX_MEMORY=4GB", (int64_t)4 << 30},
               {"COSTA_SHIM_MAX_MEMORY=4GiB", (int64_t)4 << 30},
               {"COSTA_SHIM_MAX_MEMORY=512kB", 512 << 10},
               {"COSTA_SHIM_MAX_MEMORY=100B", 100},
               {"COSTA_SHIM_WORKSPACE=auto", CS_CFG_SIZE_WORD},
               {"COSTA_SHIM_WORKSPACE=inf", -1},
               {"COSTA_SHIM_WORKSPACE=1", 1},
               {"COSTA_SHIM_WORKSPACE=64MiB", (int64_t)64 << 20}},
      ints[] = {{"COSTA_SHIM_THREADS=default", 0},
                {"COSTA_SHIM_THREADS=DEFAULT", 0},
                {"COSTA_SHIM_THREADS=0", 0},
                {"COSTA_SHIM_THREADS=1", 1},
                {"COSTA_SHIM_THREADS=8", 8},
                {"COSTA_SHIM_THREADS=65536", 65536},
                {"COSTA_SHIM_VERBOSE=0", 0},
                {"COSTA_SHIM_VERBOSE=1", 1},
                {"COSTA_SHIM_VERBOSE=2", 2}};
    cs_config_t c;
    size_t i;

    for (i = 0; i < sizeof(elems) / sizeof(elems[0]); i++) {
        parse1(&c, elems[i].entry);
        CS_TEST_CHECK(c.n_warnings == 0 && c.min_elems == elems[i].v, "%s",
                      elems[i].entry);
    }
    for (i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
        parse1(&c, mem[i].entry);
        CS_TEST_CHECK(c.n_warnings == 0 &&
                          (strstr(mem[i].entry, "WORKSPACE") ? c.workspace
                                                             : c.max_memory) ==
                              mem[i].v,
                      "%s", mem[i].entry);
    }
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        parse1(&c, ints[i].entry);
        CS_TEST_CHECK(c.n_warnings == 0 &&
                          (strstr(ints[i].entry, "THREADS") ? c.threads
                                                            : c.verbose) ==
                              ints[i].v,
                      "%s", ints[i].entry);
    }
}

static void test_enums(void)
{
    cs_config_t c;

    parse(&c, "COSTA_SHIM_FALLBACK=Never", "COSTA_SHIM_RELABEL=Report",
          "COSTA_SHIM_STATS=Summary", "COSTA_SHIM_LOG_LEVEL=Error",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.fallback, CS_CFG_FALLBACK_NEVER);
    CS_TEST_EQ(c.relabel, CS_CFG_RELABEL_REPORT);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_SUMMARY);
    CS_TEST_EQ(c.log_level, CS_LOG_ERROR);
    parse(&c, "COSTA_SHIM_FALLBACK=ALWAYS", "COSTA_SHIM_RELABEL=APPLY",
          "COSTA_SHIM_STATS=FULL", "COSTA_SHIM_LOG_LEVEL=INFO",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.fallback, CS_CFG_FALLBACK_ALWAYS);
    CS_TEST_EQ(c.relabel, CS_CFG_RELABEL_APPLY);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_FULL);
    CS_TEST_EQ(c.log_level, CS_LOG_INFO);
    parse(&c, "COSTA_SHIM_FALLBACK=auto", "COSTA_SHIM_RELABEL=off",
          "COSTA_SHIM_STATS=lOcAl", "COSTA_SHIM_LOG_LEVEL=debug",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.fallback, CS_CFG_FALLBACK_AUTO);
    CS_TEST_EQ(c.relabel, CS_CFG_RELABEL_OFF);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_LOCAL);
    CS_TEST_EQ(c.log_level, CS_LOG_DEBUG);
    parse(&c, "COSTA_SHIM_STATS=off", "COSTA_SHIM_LOG_LEVEL=Warn",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_OFF);
    CS_TEST_EQ(c.log_level, CS_LOG_WARN);
}

static void test_paths_formats(void)
{
    cs_config_t c;

    parse(&c, "COSTA_SHIM_RELABEL_PLAN=/tmp/my plan.txt",
          "COSTA_SHIM_STATS_DIR=out/dir", "COSTA_SHIM_LOG_FILE=stdout",
          "COSTA_SHIM_STATS_FORMAT=json", (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_ASSERT(strcmp(c.relabel_plan, "/tmp/my plan.txt") == 0);
    CS_TEST_ASSERT(strcmp(c.stats_dir, "out/dir") == 0);
    CS_TEST_ASSERT(strcmp(c.log_file, "stdout") == 0);
    CS_TEST_EQ(c.stats_format, CS_CFG_FORMAT_JSON);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 3), 0);

    /* Empty path = the default, no warning. */
    parse(&c, "COSTA_SHIM_STATS_DIR=", "COSTA_SHIM_RELABEL_PLAN=",
          "COSTA_SHIM_LOG_FILE=", "COSTA_SHIM_CONFIG=", (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_ASSERT(strcmp(c.stats_dir, ".") == 0);
    CS_TEST_ASSERT(strcmp(c.relabel_plan, "costa_shim.relabel.plan") == 0);
    CS_TEST_ASSERT(strcmp(c.log_file, "stderr") == 0);
    CS_TEST_ASSERT(strcmp(c.config_file, "") == 0);

    parse(&c, "COSTA_SHIM_STATS_FORMAT=CSV,txt", (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.stats_format, CS_CFG_FORMAT_CSV | CS_CFG_FORMAT_TXT);
    parse(&c, "COSTA_SHIM_STATS_FORMAT= txt , json,json ",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.stats_format, CS_CFG_FORMAT_TXT | CS_CFG_FORMAT_JSON);

    /* Templates: %r makes every rank log by default; %% is literal. */
    parse1(&c, "COSTA_SHIM_LOG_FILE=trace.%r.%p.%h.%j.%%.log");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_ASSERT(strcmp(c.log_file, "trace.%r.%p.%h.%j.%%.log") == 0);
    CS_TEST_EQ(c.log_ranks_set, 0);
    CS_TEST_EQ(c.log_ranks_all, 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 123), 1);
    parse1(&c, "COSTA_SHIM_LOG_FILE=trace.%p.log");
    CS_TEST_EQ(c.log_ranks_all, 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 1), 0);
    parse1(&c, "COSTA_SHIM_LOG_FILE=trace.%%r.log");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.log_ranks_all, 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 1), 0);
}

static void test_routines(void)
{
    cs_config_t c;

    parse1(&c, "COSTA_SHIM_ROUTINES=pdgemr2d,pzgemr2d");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.routines_all, 0);
    CS_TEST_EQ(c.n_include, 2);
    CS_TEST_EQ(c.n_exclude, 0);
    CS_TEST_ASSERT(strcmp(c.include[0], "pdgemr2d") == 0);
    CS_TEST_ASSERT(strcmp(c.include[1], "pzgemr2d") == 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pdgemr2d"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pzgemr2d"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "PDGEMR2D_"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "Cpzgemr2d"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pztranc"), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "psgemr2d"), 0);

    parse1(&c, "COSTA_SHIM_ROUTINES=all,-pztranc");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.routines_all, 1);
    CS_TEST_EQ(c.n_include, 0);
    CS_TEST_EQ(c.n_exclude, 1);
    CS_TEST_ASSERT(strcmp(c.exclude[0], "pztranc") == 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pztranc"), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pztranc_"), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "PZTRANC"), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "Cpztranc"), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pdgemr2d"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pdtran_"), 1);

    /* Every spelling stores the base name; duplicates collapse. */
    parse1(&c, "COSTA_SHIM_ROUTINES=PDGEMR2D_, Cpdtran ,pzgemr2d__,"
               "pdgemr2d,-PZTRANU_");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.routines_all, 0);
    CS_TEST_EQ(c.n_include, 3);
    CS_TEST_ASSERT(strcmp(c.include[0], "pdgemr2d") == 0);
    CS_TEST_ASSERT(strcmp(c.include[1], "pdtran") == 0);
    CS_TEST_ASSERT(strcmp(c.include[2], "pzgemr2d") == 0);
    CS_TEST_EQ(c.n_exclude, 1);
    CS_TEST_ASSERT(strcmp(c.exclude[0], "pztranu") == 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pdtran"), 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pztranu"), 0);

    /* Only excludes: everything else. */
    parse1(&c, "COSTA_SHIM_ROUTINES=-pztranc");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.routines_all, 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pztranc"), 0);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "pcgemr2d"), 1);

    parse1(&c, "COSTA_SHIM_ROUTINES=ALL");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.routines_all, 1);
    CS_TEST_EQ(cs_cfg_routine_enabled(&c, "anything"), 1);
}

static void test_ranks(void)
{
    cs_config_t c;

    parse1(&c, "COSTA_SHIM_LOG_RANKS=0,4-7");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.log_ranks_set, 1);
    CS_TEST_EQ(c.log_ranks_all, 0);
    CS_TEST_EQ(c.n_log_ranks, 2);
    CS_TEST_EQ(c.log_ranks[1].first, 4);
    CS_TEST_EQ(c.log_ranks[1].last, 7);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 1), 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 3), 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 4), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 6), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 7), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 8), 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, -1), 0);

    parse1(&c, "COSTA_SHIM_LOG_RANKS=all");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.log_ranks_all, 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 1000), 1);

    parse1(&c, "COSTA_SHIM_LOG_RANKS= 3 , 5-5 ");
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.n_log_ranks, 2);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 3), 1);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 5), 1);

    /* A given list wins over the %r default. */
    parse(&c, "COSTA_SHIM_LOG_RANKS=2", "COSTA_SHIM_LOG_FILE=t.%r",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.log_ranks_all, 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 0), 0);
    CS_TEST_EQ(cs_cfg_rank_logs(&c, 2), 1);
}

/* ------------------------------------------------------- bad values */

static void test_bad_values(void)
{
    static char long_path[CS_CFG_PATH_LEN + 20];
    static char many_routines[CS_CFG_MAX_ROUTINES * 16 + 64];
    static char many_ranks[CS_CFG_MAX_RANK_RANGES * 8 + 64];
    const struct {
        const char *name;
        const char *value;
    } bad[] = {
        {"COSTA_SHIM_DISABLE", "2"},
        {"COSTA_SHIM_DISABLE", ""},
        {"COSTA_SHIM_DISABLE", "maybe"},
        {"COSTA_SHIM_DISABLE", "onn"},
        {"COSTA_SHIM_DISABLE", "1 1"},
        {"COSTA_SHIM_ROUTINES", ""},
        {"COSTA_SHIM_ROUTINES", "pdgemr2d,,pzgemr2d"},
        {"COSTA_SHIM_ROUTINES", "xgemr2d"},
        {"COSTA_SHIM_ROUTINES", "pd-gemr2d"},
        {"COSTA_SHIM_ROUTINES", "-"},
        {"COSTA_SHIM_ROUTINES", "all,-"},
        {"COSTA_SHIM_ROUTINES", "pdgemr2d_and_a_very_long_name"},
        {"COSTA_SHIM_ROUTINES", many_routines},
        {"COSTA_SHIM_MIN_ELEMS", "abc"},
        {"COSTA_SHIM_MIN_ELEMS", "-1"},
        {"COSTA_SHIM_MIN_ELEMS", "+5"},
        {"COSTA_SHIM_MIN_ELEMS", "1.5"},
        {"COSTA_SHIM_MIN_ELEMS", "10x"},
        {"COSTA_SHIM_MIN_ELEMS", "4kk"},
        {"COSTA_SHIM_MIN_ELEMS", "0x10"},
        {"COSTA_SHIM_MIN_ELEMS", "1T"},
        {"COSTA_SHIM_MIN_ELEMS", "inf"},
        {"COSTA_SHIM_MIN_ELEMS", ""},
        {"COSTA_SHIM_MIN_ELEMS", "99999999999999999999"},
        {"COSTA_SHIM_MIN_ELEMS", "9223372036854775807k"},
        {"COSTA_SHIM_FALLBACK", "sometimes"},
        {"COSTA_SHIM_FALLBACK", "auto,never"},
        {"COSTA_SHIM_FALLBACK", ""},
        {"COSTA_SHIM_TEST_FAULT", "malloc"},
        {"COSTA_SHIM_TEST_FAULT_RANK", "-1"},
        {"COSTA_SHIM_TEST_FAULT_RANK", "one"},
        {"COSTA_SHIM_MAX_MEMORY", "automatic"},
        {"COSTA_SHIM_THREADS", "0.5"},
        {"COSTA_SHIM_THREADS", "-2"},
        {"COSTA_SHIM_THREADS", "65537"},
        {"COSTA_SHIM_THREADS", "many"},
        {"COSTA_SHIM_THREADS", ""},
        {"COSTA_SHIM_OVERLAP", "2"},
        {"COSTA_SHIM_OVERLAP", ""},
        {"COSTA_SHIM_MAX_MEMORY", "-1"},
        {"COSTA_SHIM_MAX_MEMORY", "12X"},
        {"COSTA_SHIM_MAX_MEMORY", "infinite"},
        {"COSTA_SHIM_MAX_MEMORY", "1iB"},
        {"COSTA_SHIM_MAX_MEMORY", "4GBB"},
        {"COSTA_SHIM_MAX_MEMORY", "9999999999T"},
        {"COSTA_SHIM_MAX_MEMORY", ""},
        {"COSTA_SHIM_WORKSPACE", "0"},
        {"COSTA_SHIM_WORKSPACE", "-1"},
        {"COSTA_SHIM_WORKSPACE", "some"},
        {"COSTA_SHIM_SHM", "on"},
        {"COSTA_SHIM_SHM", ""},
        {"COSTA_SHIM_GEMM", "yes"},
        {"COSTA_SHIM_GEMM", ""},
        {"COSTA_SHIM_TEST_GEMM_CHUNK", "0"},
        {"COSTA_SHIM_SHM_MIN", "-1"},
        {"COSTA_SHIM_SHM_MIN", "64q"},
        {"COSTA_SHIM_RELABEL_COST_NODE", "-1"},
        {"COSTA_SHIM_RELABEL_COST_RANK", "x"},
        {"COSTA_SHIM_RELABEL", "yes"},
        {"COSTA_SHIM_RELABEL", ""},
        {"COSTA_SHIM_RELABEL_PLAN", long_path},
        {"COSTA_SHIM_VERIFY", "yes please"},
        {"COSTA_SHIM_VERIFY", ""},
        {"COSTA_SHIM_VERBOSE", "3"},
        {"COSTA_SHIM_VERBOSE", "-1"},
        {"COSTA_SHIM_VERBOSE", "high"},
        {"COSTA_SHIM_VERBOSE", ""},
        {"COSTA_SHIM_LOG_LEVEL", "trace"},
        {"COSTA_SHIM_LOG_LEVEL", "2"},
        {"COSTA_SHIM_LOG_LEVEL", ""},
        {"COSTA_SHIM_LOG_FILE", "trace.%x.log"},
        {"COSTA_SHIM_LOG_FILE", "trace.%"},
        {"COSTA_SHIM_LOG_FILE", long_path},
        {"COSTA_SHIM_LOG_RANKS", ""},
        {"COSTA_SHIM_LOG_RANKS", "-1"},
        {"COSTA_SHIM_LOG_RANKS", "4-2"},
        {"COSTA_SHIM_LOG_RANKS", "a"},
        {"COSTA_SHIM_LOG_RANKS", "0,,1"},
        {"COSTA_SHIM_LOG_RANKS", "1-"},
        {"COSTA_SHIM_LOG_RANKS", "99999999999"},
        {"COSTA_SHIM_LOG_RANKS", many_ranks},
        {"COSTA_SHIM_BANNER", "10"},
        {"COSTA_SHIM_BANNER", ""},
        {"COSTA_SHIM_STATS", "yes"},
        {"COSTA_SHIM_STATS", ""},
        {"COSTA_SHIM_STATS_DIR", long_path},
        {"COSTA_SHIM_STATS_FORMAT", "xml"},
        {"COSTA_SHIM_STATS_FORMAT", ""},
        {"COSTA_SHIM_STATS_FORMAT", "txt,,csv"},
        {"COSTA_SHIM_STATS_FORMAT", "txt;csv"},
        {"COSTA_SHIM_DUMP_CONFIG", "please"},
        {"COSTA_SHIM_DUMP_CONFIG", ""},
        {"COSTA_SHIM_CONFIG", long_path},
    };
    const char *name, *def, *syntax, *help;
    char entry[CS_CFG_PATH_LEN + 128], echo[32];
    cs_config_t c, d;
    size_t i, n;
    int row, covered;

    memset(long_path, 'x', sizeof(long_path) - 1);
    long_path[0] = '/';
    for (i = 0, n = 0; i <= CS_CFG_MAX_ROUTINES; i++)
        n += (size_t)snprintf(many_routines + n, sizeof(many_routines) - n,
                              "%spd%zugemr2d", i ? "," : "", i);
    for (i = 0, n = 0; i <= CS_CFG_MAX_RANK_RANGES; i++)
        n += (size_t)snprintf(many_ranks + n, sizeof(many_ranks) - n, "%s%zu",
                              i ? "," : "", 2 * i);

    cs_cfg_parse(NULL, &d);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(entry, sizeof(entry), "%s=%s", bad[i].name, bad[i].value);
        parse1(&c, entry);
        /* The warning repeats the start of the value. */
        snprintf(echo, sizeof(echo), "'%.20s", bad[i].value);
        CS_TEST_CHECK(c.n_warnings == 1 &&
                          count_warnings(&c, bad[i].name, echo,
                                         "invalid value", "using default",
                                         (const char *)NULL) == 1,
                      "%s=%.40s", bad[i].name, bad[i].value);
        CS_TEST_CHECK(same_values(&c, &d), "%s=%.40s keeps the default",
                      bad[i].name, bad[i].value);
        if (c.n_warnings != 1)
            print_warnings(&c);
    }

    /* Every variable has at least one bad value above. */
    for (row = 0; row < cs_cfg_table_size(); row++) {
        cs_cfg_table_row(row, &name, &def, &syntax, &help);
        for (covered = 0, i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
            covered |= strcmp(bad[i].name, name) == 0;
        CS_TEST_CHECK(covered, "no bad value tested for %s", name);
    }

    /* The exact wording of the documented example. */
    parse1(&c, "COSTA_SHIM_MIN_ELEMS=abc");
    CS_TEST_ASSERT(strcmp(c.warnings[0],
                          "COSTA_SHIM_MIN_ELEMS: invalid value 'abc' "
                          "(expected an integer >= 0 with optional k/M/G "
                          "suffix); using default 0") == 0);

    /* A bad value next to good ones leaves the good ones applied. */
    parse(&c, "COSTA_SHIM_VERBOSE=7", "COSTA_SHIM_STATS=full",
          "COSTA_SHIM_THREADS=x", (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 2);
    CS_TEST_EQ(c.verbose, 0);
    CS_TEST_EQ(c.threads, 0);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_FULL);
    CS_TEST_EQ(count_warnings(&c, "COSTA_SHIM_THREADS", "using default "
                              "default", (const char *)NULL), 1);

    /* The first of duplicated entries wins, as with getenv(). */
    parse(&c, "COSTA_SHIM_VERBOSE=1", "COSTA_SHIM_VERBOSE=2",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    CS_TEST_EQ(c.verbose, 1);

    /* The warning list is bounded. */
    {
        char *env[CS_CFG_MAX_WARNINGS + 11];
        static char names[CS_CFG_MAX_WARNINGS + 10][40];

        for (i = 0; i < CS_CFG_MAX_WARNINGS + 10; i++) {
            snprintf(names[i], sizeof(names[i]), "COSTA_SHIM_X%zu=1", i);
            env[i] = names[i];
        }
        env[i] = NULL;
        cs_cfg_parse(env, &c);
        CS_TEST_EQ(c.n_warnings, CS_CFG_MAX_WARNINGS);
        CS_TEST_ASSERT(strstr(c.warnings[CS_CFG_MAX_WARNINGS - 1],
                              "too many") != NULL);
    }
}

static void test_unknown(void)
{
    cs_config_t c;

    parse(&c, "COSTA_SHIM_FOO=1", "PATH=/usr/bin", (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 1);
    CS_TEST_ASSERT(strcmp(c.warnings[0],
                          "unknown variable COSTA_SHIM_FOO ignored") == 0);

    parse1(&c, "COSTA_SHIM_VERBOS=1");
    CS_TEST_EQ(c.n_warnings, 1);
    CS_TEST_ASSERT(strcmp(c.warnings[0],
                          "unknown variable COSTA_SHIM_VERBOS ignored (did "
                          "you mean COSTA_SHIM_VERBOSE?)") == 0);
    CS_TEST_EQ(c.verbose, 0);

    parse1(&c, "COSTA_SHIM_LOGLEVEL=debug");
    CS_TEST_EQ(count_warnings(&c, "COSTA_SHIM_LOGLEVEL",
                              "did you mean COSTA_SHIM_LOG_LEVEL?",
                              (const char *)NULL), 1);
    parse1(&c, "costa_shim_stats=full");
    CS_TEST_EQ(count_warnings(&c, "costa_shim_stats",
                              "did you mean COSTA_SHIM_STATS?",
                              (const char *)NULL), 1);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_OFF);
    parse1(&c, "COSTA_SHIM_MAXMEM=1G");
    CS_TEST_EQ(count_warnings(&c, "did you mean COSTA_SHIM_MAX_MEMORY?",
                              (const char *)NULL), 1);
    parse1(&c, "COSTA_SHIM_THREAD=4");
    CS_TEST_EQ(count_warnings(&c, "did you mean COSTA_SHIM_THREADS?",
                              (const char *)NULL), 1);
    parse1(&c, "COSTA_SHIM_=1");
    CS_TEST_EQ(count_warnings(&c, "unknown variable COSTA_SHIM_ ignored",
                              (const char *)NULL), 1);
}

/* -------------------------------------------------------- config file */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    CS_TEST_ASSERT(f != NULL);
    fputs(text, f);
    CS_TEST_ASSERT(fclose(f) == 0);
}

static const char *line_of(const char *text, const char *prefix)
{
    const char *p = text;

    while (p != NULL && *p != '\0') {
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return p;
        p = strchr(p, '\n');
        p = p != NULL ? p + 1 : NULL;
    }
    return NULL;
}

static int has_line(const char *text, const char *line)
{
    const char *p = line_of(text, line);

    return p != NULL && p[strlen(line)] == '\n';
}

static void test_file(void)
{
    char path[700], envc[800], dump[8192];
    cs_config_t c;

    snprintf(path, sizeof(path), "%s/shim.conf", tmpdir);
    write_file(path, "# costa-shim settings\n"
                     "\n"
                     "COSTA_SHIM_VERBOSE 1\n"
                     "COSTA_SHIM_STATS=full   # trailing comment\n"
                     "   COSTA_SHIM_MIN_ELEMS   4k  \n"
                     "COSTA_SHIM_THREADS 4\n"
                     "COSTA_SHIM_STATS_DIR /tmp/dir#notacomment\n"
                     "COSTA_SHIM_FOO 1\n"
                     "COSTA_SHIM_FALLBACK bogus\n"
                     "NOT_OURS 1\n"
                     "COSTA_SHIM_CONFIG /other/file\n"
                     "COSTA_SHIM_MAX_MEMORY 1G\n"
                     "COSTA_SHIM_RELABEL = report\n");
    snprintf(envc, sizeof(envc), "COSTA_SHIM_CONFIG=%s", path);
    parse(&c, "COSTA_SHIM_THREADS=2", "COSTA_SHIM_MAX_MEMORY=lots", envc,
          (const char *)NULL);
    if (c.n_warnings != 5)
        print_warnings(&c);
    CS_TEST_EQ(c.n_warnings, 5);
    CS_TEST_EQ(c.verbose, 1);
    CS_TEST_EQ(c.stats, CS_CFG_STATS_FULL);
    CS_TEST_EQ(c.min_elems, 4096);
    CS_TEST_EQ(c.threads, 2);
    CS_TEST_ASSERT(strcmp(c.stats_dir, "/tmp/dir#notacomment") == 0);
    CS_TEST_EQ(c.fallback, CS_CFG_FALLBACK_AUTO);
    CS_TEST_EQ(c.max_memory, (int64_t)1 << 30);
    CS_TEST_EQ(c.relabel, CS_CFG_RELABEL_REPORT);
    CS_TEST_ASSERT(strcmp(c.config_file, path) == 0);
    CS_TEST_EQ(count_warnings(&c, "unknown variable COSTA_SHIM_FOO ignored",
                              "line 8", (const char *)NULL), 1);
    CS_TEST_EQ(count_warnings(&c, "COSTA_SHIM_FALLBACK", "'bogus'",
                              "using default auto", "line 9",
                              (const char *)NULL), 1);
    CS_TEST_EQ(count_warnings(&c, "NOT_OURS", "line 10", (const char *)NULL),
               1);
    CS_TEST_EQ(count_warnings(&c, "COSTA_SHIM_CONFIG", "line 11",
                              (const char *)NULL), 1);
    CS_TEST_EQ(count_warnings(&c, "COSTA_SHIM_MAX_MEMORY", "'lots'",
                              "using the config file value 1073741824",
                              (const char *)NULL), 1);

    dump_text(&c, dump, sizeof(dump));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_VERBOSE=1 (file)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_THREADS=2 (env)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_MAX_MEMORY=1073741824 (file)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_DISABLE=0 (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_FALLBACK=auto (default)"));
    snprintf(envc, sizeof(envc), "COSTA_SHIM_CONFIG=%s (env)", path);
    CS_TEST_ASSERT(has_line(dump, envc));

    /* A missing file: one warning, defaults. */
    parse1(&c, "COSTA_SHIM_CONFIG=/nonexistent/costa_shim.conf");
    CS_TEST_EQ(c.n_warnings, 1);
    CS_TEST_EQ(count_warnings(&c, "COSTA_SHIM_CONFIG", "cannot open",
                              "/nonexistent/costa_shim.conf",
                              (const char *)NULL), 1);
    unlink(path);
}

/* ----------------------------------------------------------------- dump */

static void test_dump(void)
{
    const char *name, *def, *syntax, *help;
    char dump[8192], prefix[64], *env[N_ROWS_MAX + 1];
    static char lines[N_ROWS_MAX][600];
    cs_config_t c, d;
    const char *p;
    int i, n;

    parse(&c, (const char *)NULL);
    dump_text(&c, dump, sizeof(dump));
    n = cs_cfg_table_size();
    CS_TEST_EQ(count_lines(dump), n);
    for (i = 0; i < n; i++) {
        cs_cfg_table_row(i, &name, &def, &syntax, &help);
        snprintf(prefix, sizeof(prefix), "%s=", name);
        p = line_of(dump, prefix);
        CS_TEST_CHECK(p != NULL, "%s missing in dump", name);
        if (p != NULL)
            CS_TEST_CHECK(strstr(p, " (default)\n") ==
                              strchr(p, '\n') - strlen(" (default)"),
                          "%s not default", name);
    }
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_ROUTINES=all (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_THREADS=default (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_OVERLAP=on (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_MAX_MEMORY=auto (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_LOG_LEVEL=warn (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_LOG_RANKS=0 (default)"));
    CS_TEST_ASSERT(
        has_line(dump, "COSTA_SHIM_STATS_FORMAT=txt,csv,json (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_CONFIG= (default)"));

    /* Round trip: the dump of a non-default configuration, fed back as an
     * environment, gives the same configuration. */
    parse(&c, "COSTA_SHIM_DISABLE=yes", "COSTA_SHIM_ROUTINES=pdgemr2d,-pztranc",
          "COSTA_SHIM_MIN_ELEMS=1M", "COSTA_SHIM_FALLBACK=never",
          "COSTA_SHIM_THREADS=3", "COSTA_SHIM_OVERLAP=off",
          "COSTA_SHIM_MAX_MEMORY=2G", "COSTA_SHIM_RELABEL=apply",
          "COSTA_SHIM_LOG_RANKS=1,3-5", "COSTA_SHIM_STATS_FORMAT=json,txt",
          "COSTA_SHIM_LOG_FILE=x.%r", "COSTA_SHIM_VERBOSE=2",
          (const char *)NULL);
    CS_TEST_EQ(c.n_warnings, 0);
    dump_text(&c, dump, sizeof(dump));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_DISABLE=1 (env)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_OVERLAP=off (env)"));
    CS_TEST_ASSERT(
        has_line(dump, "COSTA_SHIM_ROUTINES=pdgemr2d,-pztranc (env)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_LOG_RANKS=1,3-5 (env)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_STATS_FORMAT=txt,json (env)"));
    for (i = 0, p = dump; i < n; i++) {
        const char *nl = strchr(p, '\n'), *paren = nl;

        CS_TEST_ASSERT(nl != NULL);
        while (*paren != '(')
            paren--;
        snprintf(lines[i], sizeof(lines[i]), "%.*s", (int)(paren - 1 - p),
                 p);
        env[i] = lines[i];
        p = nl + 1;
    }
    env[n] = NULL;
    cs_cfg_parse(env, &d);
    if (d.n_warnings != 0)
        print_warnings(&d);
    CS_TEST_EQ(d.n_warnings, 0);
    CS_TEST_ASSERT(same_values(&c, &d));
}

/* ------------------------------------------------------------------ log */

static void test_log(void)
{
    char out[4096], path[700], big[3000];
    int fd;

    cs_log_set_level(CS_LOG_WARN);
    CS_TEST_EQ(cs_log_rank(), -1);
    capture_begin();
    errno = EBADF;
    cs_log_write(CS_LOG_WARN, "hello %d", 5);
    CS_TEST_EQ(errno, EBADF);
    cs_log_warn("macro %s", "warn");
    cs_log_info("dropped info");
    cs_log_debug("dropped debug");
    cs_log_set_rank(3);
    cs_log_error("boom\n");
    cs_log_set_level(CS_LOG_ERROR);
    cs_log_warn("dropped warn");
    cs_log_write(CS_LOG_WARN, "dropped direct");
    cs_log_error("still errors");
    cs_log_notice("notice %s", "at any level");
    cs_log_set_level(CS_LOG_DEBUG);
    cs_log_debug("dbg");
    cs_log_info("inf");
    cs_log_set_level(99);
    CS_TEST_EQ(cs_log_level(), CS_LOG_DEBUG);
    cs_log_set_level(-5);
    CS_TEST_EQ(cs_log_level(), CS_LOG_ERROR);
    cs_log_set_level(CS_LOG_WARN);
    capture_end(out, sizeof(out));
    CS_TEST_ASSERT(strcmp(out, "costa-shim[-]: warning: hello 5\n"
                               "costa-shim[-]: warning: macro warn\n"
                               "costa-shim[3]: error: boom\n"
                               "costa-shim[3]: error: still errors\n"
                               "costa-shim[3]: notice at any level\n"
                               "costa-shim[3]: debug: dbg\n"
                               "costa-shim[3]: info: inf\n") == 0);

    /* A long message is cut, still one line. */
    memset(big, 'y', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    capture_begin();
    cs_log_warn("%s", big);
    capture_end(out, sizeof(out));
    CS_TEST_EQ(count_lines(out), 1);
    CS_TEST_ASSERT(strlen(out) < 1024 && strlen(out) > 1000);
    CS_TEST_ASSERT(strcmp(out + strlen(out) - 4, "...\n") == 0);

    snprintf(path, sizeof(path), "%s/lines", tmpdir);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CS_TEST_ASSERT(fd >= 0);
    cs_log_line(fd, "abc");
    cs_log_line(fd, "def\n");
    cs_log_line(fd, "");
    slurp_fd(fd, out, sizeof(out));
    close(fd);
    unlink(path);
    CS_TEST_ASSERT(strcmp(out, "abc\ndef\n\n") == 0);

    /* Text goes out as it is, several lines at once. */
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CS_TEST_ASSERT(fd >= 0);
    cs_log_text(fd, "@ one\n@ two\nxyz", 12);
    slurp_fd(fd, out, sizeof(out));
    close(fd);
    unlink(path);
    CS_TEST_ASSERT(strcmp(out, "@ one\n@ two\n") == 0);
    cs_log_set_rank(-1);
}

/* The process-wide configuration, warnings and trace file; runs last
 * because cs_cfg_get() parses environ once. */
static void test_global(void)
{
    const cs_config_t *g;
    char out[4096], tmpl[700], path[800], dump[8192];
    int fd;

    snprintf(tmpl, sizeof(tmpl), "%s/trace.%%r.%%j.%%p.log", tmpdir);
    CS_TEST_EQ(setenv("COSTA_SHIM_LOG_FILE", tmpl, 1), 0);
    CS_TEST_EQ(setenv("COSTA_SHIM_LOG_LEVEL", "info", 1), 0);
    CS_TEST_EQ(setenv("COSTA_SHIM_BOGUS", "1", 1), 0);
    CS_TEST_EQ(setenv("SLURM_JOB_ID", "42", 1), 0);
    unsetenv("COSTA_SHIM_CONFIG");

    g = cs_cfg_get();
    CS_TEST_ASSERT(g == cs_cfg_get());
    CS_TEST_EQ(cs_log_level(), CS_LOG_INFO);
    CS_TEST_EQ(g->log_level, CS_LOG_INFO);
    CS_TEST_EQ(g->log_ranks_all, 1);
    CS_TEST_EQ(g->n_warnings, 1);

    capture_begin();
    cs_cfg_emit_warnings(1);
    cs_cfg_emit_warnings(0);
    cs_cfg_emit_warnings(0);
    capture_end(out, sizeof(out));
    CS_TEST_ASSERT(strcmp(out, "costa-shim[-]: warning: unknown variable "
                               "COSTA_SHIM_BOGUS ignored\n") == 0);

    dump_text(g, dump, sizeof(dump));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_LOG_LEVEL=info (env)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_VERBOSE=0 (default)"));
    CS_TEST_ASSERT(has_line(dump, "COSTA_SHIM_LOG_RANKS=all (default)"));

    /* The template needs the rank: stderr until it is known. */
    CS_TEST_EQ(cs_log_trace_fd(), 2);
    cs_log_set_rank(5);
    fd = cs_log_trace_fd();
    CS_TEST_ASSERT(fd > 2);
    CS_TEST_EQ(cs_log_trace_fd(), fd);
    cs_log_line(fd, "COSTA_SHIM r:5 seq:1 pdgemr2d_");
    snprintf(path, sizeof(path), "%s/trace.5.42.%ld.log", tmpdir,
             (long)getpid());
    slurp_path(path, out, sizeof(out));
    CS_TEST_ASSERT(strcmp(out, "COSTA_SHIM r:5 seq:1 pdgemr2d_\n") == 0);
    close(fd);
    unlink(path);
}

/* Drop every COSTA_SHIM_* the caller exported (cs_cfg_get() reads
 * environ). */
static void clean_environ(void)
{
    extern char **environ;
    char name[256];
    const char *eq;
    int i = 0;

    while (environ[i] != NULL) {
        eq = strchr(environ[i], '=');
        if (strncasecmp(environ[i], "COSTA_SHIM_", 11) == 0 && eq != NULL &&
            (size_t)(eq - environ[i]) < sizeof(name)) {
            snprintf(name, sizeof(name), "%.*s", (int)(eq - environ[i]),
                     environ[i]);
            unsetenv(name);
            i = 0;
            continue;
        }
        i++;
    }
}

int main(void)
{
    const char *base = getenv("TMPDIR");

    snprintf(tmpdir, sizeof(tmpdir), "%s/cs_test_config.XXXXXX",
             base != NULL && base[0] != '\0' ? base : "/tmp");
    CS_TEST_ASSERT(mkdtemp(tmpdir) != NULL);
    snprintf(capture_path, sizeof(capture_path), "%s/stderr", tmpdir);
    clean_environ();

    test_table();
    test_defaults();
    test_bools();
    test_numbers();
    test_enums();
    test_paths_formats();
    test_routines();
    test_ranks();
    test_bad_values();
    test_unknown();
    test_file();
    test_dump();
    test_log();
    test_global();

    unlink(capture_path);
    rmdir(tmpdir);
    return cs_test_done();
}
