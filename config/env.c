/*
 * config/env.c - parses the COSTA_SHIM_* variables of an environment and of
 * the COSTA_SHIM_CONFIG file into a cs_config_t by walking the option table
 * (config_table.c); owns the process-wide configuration; dump, routine and
 * rank filters.
 *
 * Must not print while parsing: parsing can happen before the MPI rank is
 * known (and in launchers and shells), so every problem becomes a stored
 * warning that cs_cfg_emit_warnings() prints later.  No MPI, nothing from
 * outside config/.  A value that fails to parse never changes the struct.
 */
#include "config/config.h"
#include "config/config_int.h"
#include "config/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define CS_PREFIX "COSTA_SHIM_"
#define CS_PREFIX_LEN (sizeof(CS_PREFIX) - 1)
/* Longest value (and config-file line) accepted; also the size of the
 * buffers values are formatted into. */
#define CS_VALUE_LEN 4096
/* How much of a bad value or unknown name a warning repeats. */
#define CS_ECHO_LEN 64

/* Both are int-sized, so the table can store them through an int *. */
_Static_assert(sizeof(cs_cfg_fallback_t) == sizeof(int), "enum size");
_Static_assert(sizeof(cs_cfg_relabel_t) == sizeof(int), "enum size");
_Static_assert(sizeof(cs_cfg_stats_t) == sizeof(int), "enum size");

static const char *const cs_src_names[] = {
    [CS_CFG_SRC_DEFAULT] = "default",
    [CS_CFG_SRC_FILE] = "file",
    [CS_CFG_SRC_ENV] = "env",
};

/* COSTA_SHIM_STATS_FORMAT words; index i is bit 1 << i. */
static const char *const cs_format_words[] = {"txt", "csv", "json"};

/* The process-wide configuration and where each of its values came from. */
static cs_config_t cs_g_cfg;
static cs_cfg_source_t cs_g_src[CS_CFG_N_ROWS];
static pthread_once_t cs_g_once = PTHREAD_ONCE_INIT;

/* Sources of the last cs_cfg_parse() (the caller serialises), for dumps of
 * configurations parsed by the tests. */
static cs_cfg_source_t cs_last_src[CS_CFG_N_ROWS];
static const cs_config_t *cs_last_cfg;

/* ------------------------------------------------------------ helpers */

static void cs_warn(cs_config_t *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void cs_warn(cs_config_t *cfg, const char *fmt, ...)
{
    va_list ap;

    if (cfg->n_warnings >= CS_CFG_MAX_WARNINGS)
        return;
    if (cfg->n_warnings == CS_CFG_MAX_WARNINGS - 1) {
        snprintf(cfg->warnings[cfg->n_warnings++], CS_CFG_WARNING_LEN,
                 "too many configuration warnings; the rest are dropped");
        return;
    }
    va_start(ap, fmt);
    vsnprintf(cfg->warnings[cfg->n_warnings++], CS_CFG_WARNING_LEN, fmt, ap);
    va_end(ap);
}

static void *cs_field(cs_config_t *cfg, const cs_cfg_row_t *row)
{
    return (char *)cfg + row->offset;
}

static const void *cs_cfield(const cs_config_t *cfg, const cs_cfg_row_t *row)
{
    return (const char *)cfg + row->offset;
}

/* Copy [s, s + n) without surrounding blanks into out (CS_VALUE_LEN). */
static void cs_trim_copy(const char *s, size_t n, char *out)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= CS_VALUE_LEN)
        n = CS_VALUE_LEN - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* Digits only (no sign, no blanks) into a non-negative int64_t. */
static int cs_parse_digits(const char *s, const char **end_p, int64_t *v_p)
{
    char *end;
    long long v;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    *end_p = end;
    *v_p = v;
    return 0;
}

/*
 * "<digits>[k|M|G[|T]]" (case-insensitive; powers of 1024); with is_size
 * also T and a trailing "B" or "iB" ("4GiB", "512kB", "100B").
 */
static int cs_parse_scaled(const char *s, int is_size, int64_t *v_p)
{
    const char *p;
    int64_t v, mult = 1;
    int has_unit = 0;

    if (cs_parse_digits(s, &p, &v) != 0)
        return -1;
    switch (tolower((unsigned char)*p)) {
    case 'k':
        mult = (int64_t)1 << 10;
        break;
    case 'm':
        mult = (int64_t)1 << 20;
        break;
    case 'g':
        mult = (int64_t)1 << 30;
        break;
    case 't':
        mult = is_size ? (int64_t)1 << 40 : 0;
        break;
    default:
        mult = -1;
        break;
    }
    if (mult == 0)
        return -1;
    if (mult > 0) {
        p++;
        has_unit = 1;
    } else {
        mult = 1;
    }
    if (is_size) {
        if (has_unit && (p[0] == 'i' || p[0] == 'I') &&
            (p[1] == 'b' || p[1] == 'B'))
            p += 2;
        else if (*p == 'b' || *p == 'B')
            p++;
    }
    if (*p != '\0')
        return -1;
    if (v > INT64_MAX / mult)
        return -1;
    *v_p = v * mult;
    return 0;
}

static int cs_parse_bool(const char *s, int *v_p)
{
    static const char *const yes[] = {"1", "on", "yes", "true"};
    static const char *const no[] = {"0", "off", "no", "false"};
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *v_p = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *v_p = 0;
            return 0;
        }
    }
    return -1;
}

/*
 * Routine base name: lower case, trailing underscores dropped, the C-entry
 * 'C' of "Cpdgemr2d" dropped; must then be 'p' + letters/digits.
 */
static int cs_norm_routine(const char *s, size_t n, char *out)
{
    size_t i;

    /* Zero-filled: whole names are copied into the config arrays. */
    memset(out, 0, CS_CFG_NAME_LEN);
    while (n > 0 && s[n - 1] == '_')
        n--;
    if (n >= 2 && (s[0] == 'c' || s[0] == 'C') &&
        (s[1] == 'p' || s[1] == 'P')) {
        s++;
        n--;
    }
    if (n < 2 || n >= CS_CFG_NAME_LEN || (s[0] != 'p' && s[0] != 'P'))
        return -1;
    for (i = 0; i < n; i++) {
        if (!isalnum((unsigned char)s[i]))
            return -1;
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[n] = '\0';
    return 0;
}

static int cs_name_in(char list[][CS_CFG_NAME_LEN], int n, const char *name)
{
    int i;

    for (i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* Next comma-separated token of *s_p, blanks trimmed, into tok. */
static int cs_next_token(const char **s_p, char *tok)
{
    const char *s = *s_p, *comma;
    size_t n;

    if (s == NULL)
        return 0;
    comma = strchr(s, ',');
    n = comma != NULL ? (size_t)(comma - s) : strlen(s);
    cs_trim_copy(s, n, tok);
    *s_p = comma != NULL ? comma + 1 : NULL;
    return 1;
}

/* 1 if template t contains a %r escape (%% is a literal percent). */
static int cs_template_has_rank(const char *t)
{
    for (; *t != '\0'; t++) {
        if (*t != '%')
            continue;
        t++;
        if (*t == 'r')
            return 1;
        if (*t == '\0')
            break;
    }
    return 0;
}

/* ------------------------------------------------------- value parsers */

static int cs_parse_routines(const char *s, cs_config_t *cfg)
{
    char inc[CS_CFG_MAX_ROUTINES][CS_CFG_NAME_LEN];
    char exc[CS_CFG_MAX_ROUTINES][CS_CFG_NAME_LEN];
    char tok[CS_VALUE_LEN], name[CS_CFG_NAME_LEN];
    int all = 0, n_inc = 0, n_exc = 0;

    memset(inc, 0, sizeof(inc));
    memset(exc, 0, sizeof(exc));
    while (cs_next_token(&s, tok)) {
        if (strcasecmp(tok, "all") == 0) {
            all = 1;
        } else if (tok[0] == '-') {
            if (cs_norm_routine(tok + 1, strlen(tok + 1), name) != 0)
                return -1;
            if (cs_name_in(exc, n_exc, name))
                continue;
            if (n_exc == CS_CFG_MAX_ROUTINES)
                return -1;
            memcpy(exc[n_exc++], name, sizeof(name));
        } else {
            if (cs_norm_routine(tok, strlen(tok), name) != 0)
                return -1;
            if (cs_name_in(inc, n_inc, name))
                continue;
            if (n_inc == CS_CFG_MAX_ROUTINES)
                return -1;
            memcpy(inc[n_inc++], name, sizeof(name));
        }
    }
    /* "-pztranc" alone means everything but pztranc. */
    if (n_inc == 0)
        all = 1;
    cfg->routines_all = all;
    cfg->n_include = n_inc;
    cfg->n_exclude = n_exc;
    memcpy(cfg->include, inc, sizeof(inc));
    memcpy(cfg->exclude, exc, sizeof(exc));
    return 0;
}

static int cs_parse_ranks(const char *s, cs_config_t *cfg)
{
    cs_cfg_range_t r[CS_CFG_MAX_RANK_RANGES];
    char tok[CS_VALUE_LEN];
    const char *p;
    int64_t a, b;
    int all = 0, n = 0;

    memset(r, 0, sizeof(r));
    while (cs_next_token(&s, tok)) {
        if (strcasecmp(tok, "all") == 0) {
            all = 1;
            continue;
        }
        if (cs_parse_digits(tok, &p, &a) != 0 || a > INT_MAX)
            return -1;
        b = a;
        if (*p == '-' &&
            (cs_parse_digits(p + 1, &p, &b) != 0 || b > INT_MAX || b < a))
            return -1;
        if (*p != '\0' || n == CS_CFG_MAX_RANK_RANGES)
            return -1;
        r[n].first = (int)a;
        r[n].last = (int)b;
        n++;
    }
    cfg->log_ranks_all = all;
    cfg->log_ranks_set = 1;
    cfg->n_log_ranks = all ? 0 : n;
    memcpy(cfg->log_ranks, r, sizeof(r));
    if (all)
        memset(cfg->log_ranks, 0, sizeof(r));
    return 0;
}

static int cs_parse_formats(const char *s, int *v_p)
{
    char tok[CS_VALUE_LEN];
    int v = 0, i, hit;

    while (cs_next_token(&s, tok)) {
        for (hit = 0, i = 0; i < 3; i++) {
            if (strcasecmp(tok, cs_format_words[i]) == 0) {
                v |= 1 << i;
                hit = 1;
            }
        }
        if (!hit)
            return -1;
    }
    *v_p = v;
    return 0;
}

static int cs_check_template(const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s != '%')
            continue;
        s++;
        if (*s == '\0' || strchr("rphj%", *s) == NULL)
            return -1;
    }
    return 0;
}

/* Parse raw into cfg's field for row; 0, or -1 with cfg untouched. */
static int cs_parse_value(const cs_cfg_row_t *row, const char *raw,
                          cs_config_t *cfg)
{
    char s[CS_VALUE_LEN];
    int64_t v64;
    int v, i;

    if (strlen(raw) >= CS_VALUE_LEN)
        return -1;
    if (row->type == CS_CFG_T_PATH || row->type == CS_CFG_T_TEMPLATE) {
        /* Paths keep their blanks; empty means the default. */
        if (raw[0] == '\0')
            raw = row->def;
        if (strlen(raw) >= CS_CFG_PATH_LEN)
            return -1;
        if (row->type == CS_CFG_T_TEMPLATE && cs_check_template(raw) != 0)
            return -1;
        memset(cs_field(cfg, row), 0, CS_CFG_PATH_LEN);
        memcpy(cs_field(cfg, row), raw, strlen(raw));
        return 0;
    }
    cs_trim_copy(raw, strlen(raw), s);
    if (s[0] == '\0')
        return -1;
    switch (row->type) {
    case CS_CFG_T_BOOL:
        if (cs_parse_bool(s, &v) != 0)
            return -1;
        *(int *)cs_field(cfg, row) = v;
        return 0;
    case CS_CFG_T_INT:
        if (row->words != NULL && strcasecmp(s, row->words[0]) == 0) {
            v64 = 0;
        } else {
            const char *end;
            int neg = s[0] == '-';

            if (cs_parse_digits(s + neg, &end, &v64) != 0 || *end != '\0')
                return -1;
            v64 = neg ? -v64 : v64;
            if (v64 < row->min || v64 > row->max)
                return -1;
        }
        *(int *)cs_field(cfg, row) = (int)v64;
        return 0;
    case CS_CFG_T_COUNT:
    case CS_CFG_T_SIZE:
        if (row->type == CS_CFG_T_SIZE && strcasecmp(s, "inf") == 0)
            v64 = -1;
        else if (row->type == CS_CFG_T_SIZE && row->words != NULL &&
                 strcasecmp(s, row->words[0]) == 0)
            v64 = CS_CFG_SIZE_WORD;
        else if (cs_parse_scaled(s, row->type == CS_CFG_T_SIZE, &v64) != 0 ||
                 v64 < row->min)
            return -1;
        *(int64_t *)cs_field(cfg, row) = v64;
        return 0;
    case CS_CFG_T_ENUM:
        for (i = 0; row->words[i] != NULL; i++) {
            if (strcasecmp(s, row->words[i]) == 0) {
                *(int *)cs_field(cfg, row) = i;
                return 0;
            }
        }
        return -1;
    case CS_CFG_T_ROUTINES:
        return cs_parse_routines(s, cfg);
    case CS_CFG_T_RANKS:
        return cs_parse_ranks(s, cfg);
    case CS_CFG_T_FORMATS:
        if (cs_parse_formats(s, &v) != 0)
            return -1;
        *(int *)cs_field(cfg, row) = v;
        return 0;
    case CS_CFG_T_PATH:
    case CS_CFG_T_TEMPLATE:
        break;
    }
    return -1;
}

/* ---------------------------------------------------------- formatting */

/* What a value of row must look like, for warnings. */
static void cs_expect_text(const cs_cfg_row_t *row, char *buf, size_t len)
{
    size_t n;
    int i;

    switch (row->type) {
    case CS_CFG_T_BOOL:
        snprintf(buf, len, "1/0, on/off, yes/no or true/false");
        return;
    case CS_CFG_T_INT:
        if (row->words != NULL)
            snprintf(buf, len, "'%s' (or 0) or an integer in [1, %lld]",
                     row->words[0], (long long)row->max);
        else
            snprintf(buf, len, "an integer in [%lld, %lld]",
                     (long long)row->min, (long long)row->max);
        return;
    case CS_CFG_T_COUNT:
        snprintf(buf, len,
                 "an integer >= 0 with optional k/M/G suffix");
        return;
    case CS_CFG_T_SIZE:
        snprintf(buf, len, "%s%sinf or a byte count >= %lld with optional "
                           "k/M/G/T suffix",
                 row->words ? row->words[0] : "", row->words ? ", " : "",
                 (long long)row->min);
        return;
    case CS_CFG_T_ENUM:
        n = (size_t)snprintf(buf, len, "one of");
        for (i = 0; row->words[i] != NULL && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s %s",
                                  i == 0 ? "" : ",", row->words[i]);
        return;
    case CS_CFG_T_ROUTINES:
        snprintf(buf, len, "comma-separated routine names like pdgemr2d, "
                           "'all' and '-name' excludes, at most %d each",
                 CS_CFG_MAX_ROUTINES);
        return;
    case CS_CFG_T_RANKS:
        snprintf(buf, len, "'all' or at most %d comma-separated ranks and "
                           "ranges like 0,4-7",
                 CS_CFG_MAX_RANK_RANGES);
        return;
    case CS_CFG_T_PATH:
        snprintf(buf, len, "a path of at most %d characters",
                 CS_CFG_PATH_LEN - 1);
        return;
    case CS_CFG_T_TEMPLATE:
        snprintf(buf, len, "stderr, stdout or a path template with %%r %%p "
                           "%%h %%j %%%% escapes only");
        return;
    case CS_CFG_T_FORMATS:
        snprintf(buf, len, "a comma-separated subset of txt, csv, json");
        return;
    }
    buf[0] = '\0';
}

/* The effective value of row in cfg, as the dump shows it. */
static void cs_format_value(const cs_cfg_row_t *row, const cs_config_t *cfg,
                            char *buf, size_t len)
{
    size_t n = 0;
    int i, v;
    int64_t v64;

    buf[0] = '\0';
    switch (row->type) {
    case CS_CFG_T_BOOL:
        v = *(const int *)cs_cfield(cfg, row);
        if (isalpha((unsigned char)row->def[0]))
            snprintf(buf, len, "%s", v ? "on" : "off");
        else
            snprintf(buf, len, "%d", v);
        return;
    case CS_CFG_T_INT:
        v = *(const int *)cs_cfield(cfg, row);
        if (v == 0 && row->words != NULL)
            snprintf(buf, len, "%s", row->words[0]);
        else
            snprintf(buf, len, "%d", v);
        return;
    case CS_CFG_T_COUNT:
    case CS_CFG_T_SIZE:
        v64 = *(const int64_t *)cs_cfield(cfg, row);
        if (v64 == CS_CFG_SIZE_WORD && row->words != NULL)
            snprintf(buf, len, "%s", row->words[0]);
        else if (v64 < 0)
            snprintf(buf, len, "inf");
        else
            snprintf(buf, len, "%lld", (long long)v64);
        return;
    case CS_CFG_T_ENUM:
        v = *(const int *)cs_cfield(cfg, row);
        for (i = 0; row->words[i] != NULL; i++)
            if (i == v)
                snprintf(buf, len, "%s", row->words[i]);
        return;
    case CS_CFG_T_ROUTINES:
        if (cfg->routines_all)
            n += (size_t)snprintf(buf, len, "all");
        for (i = 0; i < cfg->n_include && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
                                  cfg->include[i]);
        for (i = 0; i < cfg->n_exclude && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s-%s", n ? "," : "",
                                  cfg->exclude[i]);
        return;
    case CS_CFG_T_RANKS:
        if (cfg->log_ranks_all) {
            snprintf(buf, len, "all");
            return;
        }
        for (i = 0; i < cfg->n_log_ranks && n < len; i++) {
            const cs_cfg_range_t *r = &cfg->log_ranks[i];

            if (r->first == r->last)
                n += (size_t)snprintf(buf + n, len - n, "%s%d",
                                      i ? "," : "", r->first);
            else
                n += (size_t)snprintf(buf + n, len - n, "%s%d-%d",
                                      i ? "," : "", r->first, r->last);
        }
        return;
    case CS_CFG_T_PATH:
    case CS_CFG_T_TEMPLATE:
        snprintf(buf, len, "%s", (const char *)cs_cfield(cfg, row));
        return;
    case CS_CFG_T_FORMATS:
        v = *(const int *)cs_cfield(cfg, row);
        for (i = 0; i < 3; i++)
            if (v & (1 << i))
                n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
                                      cs_format_words[i]);
        return;
    }
}

/* ------------------------------------------------------- names, apply */

static int cs_find_row(const char *name, size_t n)
{
    int i;

    for (i = 0; i < CS_CFG_N_ROWS; i++)
        if (strlen(cs_cfg_rows[i].name) == n &&
            strncmp(cs_cfg_rows[i].name, name, n) == 0)
            return i;
    return -1;
}

/* The part after the prefix, upper case, without underscores. */
static size_t cs_squash(const char *s, size_t n, char *out, size_t cap)
{
    size_t i, k = 0;

    for (i = CS_PREFIX_LEN; i < n && k < cap; i++)
        if (s[i] != '_')
            out[k++] = (char)toupper((unsigned char)s[i]);
    return k;
}

static int cs_edit_distance(const char *a, size_t na, const char *b,
                            size_t nb)
{
    int prev[CS_ECHO_LEN + 1], cur[CS_ECHO_LEN + 1];
    size_t i, j;

    for (j = 0; j <= nb; j++)
        prev[j] = (int)j;
    for (i = 1; i <= na; i++) {
        cur[0] = (int)i;
        for (j = 1; j <= nb; j++) {
            int best = prev[j - 1] + (a[i - 1] != b[j - 1]);

            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof(prev));
    }
    return prev[nb];
}

/* The known name closest to name[0..n) (case and '_' ignored), or NULL. */
static const char *cs_suggest(const char *name, size_t n)
{
    char a[CS_ECHO_LEN], b[CS_ECHO_LEN];
    size_t na, nb;
    int i, d, best_d = 3;
    const char *best = NULL;

    na = cs_squash(name, n, a, sizeof(a));
    for (i = 0; i < CS_CFG_N_ROWS; i++) {
        const char *known = cs_cfg_rows[i].name;

        nb = cs_squash(known, strlen(known), b, sizeof(b));
        d = cs_edit_distance(a, na, b, nb);
        /* A truncation ("MAXMEM") counts as close too. */
        if (na >= 4 && na < nb && strncmp(a, b, na) == 0)
            d = 2;
        if (d < best_d) {
            best_d = d;
            best = known;
        }
    }
    return best;
}

/* COSTA_SHIM_CONFIG itself: read from the environment before the rest. */
static int cs_is_config_row(int i)
{
    return cs_cfg_rows[i].offset == offsetof(cs_config_t, config_file) &&
           cs_cfg_rows[i].type == CS_CFG_T_PATH;
}

static void cs_warn_unknown(cs_config_t *cfg, const char *name, size_t n,
                            const char *where)
{
    const char *hint = cs_suggest(name, n);
    int len = n > CS_ECHO_LEN ? CS_ECHO_LEN : (int)n;

    cs_warn(cfg, "unknown variable %.*s ignored%s%s%s%s", len, name,
            hint != NULL ? " (did you mean " : "", hint != NULL ? hint : "",
            hint != NULL ? "?)" : "", where);
}

/*
 * Apply value to row i.  On a bad value keep what is there and record one
 * warning with the value kept.  where: "" or " (config file X line N)".
 */
static void cs_apply(cs_config_t *cfg, cs_cfg_source_t *src, int i,
                     const char *value, cs_cfg_source_t from,
                     const char *where)
{
    const cs_cfg_row_t *row = &cs_cfg_rows[i];
    char expect[256], used[CS_VALUE_LEN];

    if (cs_parse_value(row, value, cfg) == 0) {
        src[i] = from;
        return;
    }
    cs_expect_text(row, expect, sizeof(expect));
    if (row->type == CS_CFG_T_RANKS && !cfg->log_ranks_set)
        snprintf(used, sizeof(used), "(0, or all when COSTA_SHIM_LOG_FILE "
                                     "has %%r)");
    else
        cs_format_value(row, cfg, used, sizeof(used));
    cs_warn(cfg, "%s: invalid value '%.*s%s' (expected %s); using %s %.*s%s",
            row->name, CS_ECHO_LEN, value,
            strlen(value) > CS_ECHO_LEN ? "..." : "", expect,
            src[i] == CS_CFG_SRC_FILE ? "the config file value"
                                      : "default",
            CS_ECHO_LEN * 2, used, where);
}

/* ----------------------------------------------------------- the file */

static void cs_read_file(cs_config_t *cfg, cs_cfg_source_t *src,
                         const char *path)
{
    char line[CS_VALUE_LEN + 128], where[CS_CFG_PATH_LEN + 64];
    char *p, *key, *end;
    size_t keylen, len;
    int lineno = 0, i, c;
    FILE *f;

    f = fopen(path, "re");
    if (f == NULL) {
        cs_warn(cfg, "COSTA_SHIM_CONFIG: cannot open '%s': %s; file ignored",
                path, strerror(errno));
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        snprintf(where, sizeof(where), " (config file %s line %d)", path,
                 lineno);
        len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            cs_warn(cfg, "line too long; ignored%s", where);
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        /* '#' at the start or after a blank starts a comment. */
        for (p = line; *p != '\0'; p++) {
            if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
                *p = '\0';
                break;
            }
        }
        end = line + strlen(line);
        while (end > line && isspace((unsigned char)end[-1]))
            *--end = '\0';
        for (key = line; isspace((unsigned char)*key); key++)
            ;
        if (*key == '\0')
            continue;
        for (p = key; *p != '\0' && *p != '=' && !isspace((unsigned char)*p);
             p++)
            ;
        keylen = (size_t)(p - key);
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '=')
            p++;
        while (isspace((unsigned char)*p))
            p++;
        if (keylen < CS_PREFIX_LEN ||
            strncasecmp(key, CS_PREFIX, CS_PREFIX_LEN) != 0) {
            cs_warn(cfg, "'%.*s' is not a COSTA_SHIM_* variable; line "
                         "ignored%s",
                    (int)(keylen > CS_ECHO_LEN ? CS_ECHO_LEN : keylen), key,
                    where);
            continue;
        }
        i = cs_find_row(key, keylen);
        if (i < 0) {
            cs_warn_unknown(cfg, key, keylen, where);
            continue;
        }
        if (cs_is_config_row(i)) {
            cs_warn(cfg, "COSTA_SHIM_CONFIG in a config file is ignored%s",
                    where);
            continue;
        }
        cs_apply(cfg, src, i, p, CS_CFG_SRC_FILE, where);
    }
    if (ferror(f))
        cs_warn(cfg, "COSTA_SHIM_CONFIG: error reading '%s'", path);
    fclose(f);
}

/* -------------------------------------------------------------- parse */

static void cs_parse_into(char *const *envp, cs_config_t *cfg,
                          cs_cfg_source_t *src)
{
    char *const *e;
    const char *eq;
    size_t n;
    int i;

    memset(cfg, 0, sizeof(*cfg));
    for (i = 0; i < CS_CFG_N_ROWS; i++) {
        src[i] = CS_CFG_SRC_DEFAULT;
        if (cs_cfg_rows[i].def != NULL &&
            cs_parse_value(&cs_cfg_rows[i], cs_cfg_rows[i].def, cfg) != 0)
            cs_warn(cfg, "internal error: bad default for %s",
                    cs_cfg_rows[i].name);
    }

    /* The file first (env > file), named by the environment only. */
    for (e = envp; e != NULL && *e != NULL; e++) {
        eq = strchr(*e, '=');
        if (eq == NULL)
            continue;
        i = cs_find_row(*e, (size_t)(eq - *e));
        if (i >= 0 && cs_is_config_row(i)) {
            cs_apply(cfg, src, i, eq + 1, CS_CFG_SRC_ENV, "");
            break;
        }
    }
    if (cfg->config_file[0] != '\0')
        cs_read_file(cfg, src, cfg->config_file);

    for (e = envp; e != NULL && *e != NULL; e++) {
        eq = strchr(*e, '=');
        if (eq == NULL)
            continue;
        n = (size_t)(eq - *e);
        if (n < CS_PREFIX_LEN || strncasecmp(*e, CS_PREFIX, CS_PREFIX_LEN))
            continue;
        i = cs_find_row(*e, n);
        if (i < 0) {
            cs_warn_unknown(cfg, *e, n, "");
            continue;
        }
        /* First entry wins, as with getenv(). */
        if (cs_is_config_row(i) || src[i] == CS_CFG_SRC_ENV)
            continue;
        cs_apply(cfg, src, i, eq + 1, CS_CFG_SRC_ENV, "");
    }

    /* LOG_RANKS default depends on LOG_FILE. */
    if (!cfg->log_ranks_set) {
        memset(cfg->log_ranks, 0, sizeof(cfg->log_ranks));
        cfg->log_ranks_all = cs_template_has_rank(cfg->log_file) &&
                             strcmp(cfg->log_file, "stderr") != 0 &&
                             strcmp(cfg->log_file, "stdout") != 0;
        cfg->n_log_ranks = cfg->log_ranks_all ? 0 : 1;
    }
}

void cs_cfg_parse(char *const *envp, cs_config_t *cfg_p)
{
    cs_parse_into(envp, cfg_p, cs_last_src);
    cs_last_cfg = cfg_p;
}

static void cs_g_init(void)
{
    cs_parse_into(environ, &cs_g_cfg, cs_g_src);
    /* the log's settings, pushed: log.c does not call back into here */
    cs_log_set_level(cs_g_cfg.log_level);
    cs_log_set_trace_file(cs_g_cfg.log_file);
}

const cs_config_t *cs_cfg_get(void)
{
    pthread_once(&cs_g_once, cs_g_init);
    return &cs_g_cfg;
}

void cs_cfg_emit_warnings(int rank)
{
    static atomic_flag done = ATOMIC_FLAG_INIT;
    const cs_config_t *cfg;
    int i;

    if (rank != 0)
        return;
    cfg = cs_cfg_get();
    if (atomic_flag_test_and_set(&done))
        return;
    for (i = 0; i < cfg->n_warnings; i++)
        cs_log_write(CS_LOG_WARN, "%s", cfg->warnings[i]);
}

/* ------------------------------------------------------------ queries */

int cs_cfg_routine_enabled(const cs_config_t *cfg, const char *name)
{
    char base[CS_CFG_NAME_LEN];
    int i;

    if (name == NULL || cs_norm_routine(name, strlen(name), base) != 0)
        return cfg->routines_all;
    for (i = 0; i < cfg->n_exclude; i++)
        if (strcmp(cfg->exclude[i], base) == 0)
            return 0;
    if (cfg->routines_all)
        return 1;
    for (i = 0; i < cfg->n_include; i++)
        if (strcmp(cfg->include[i], base) == 0)
            return 1;
    return 0;
}

int cs_cfg_rank_logs(const cs_config_t *cfg, int rank)
{
    int i;

    if (rank < 0)
        return 0;
    if (cfg->log_ranks_all)
        return 1;
    for (i = 0; i < cfg->n_log_ranks && i < CS_CFG_MAX_RANK_RANGES; i++)
        if (rank >= cfg->log_ranks[i].first &&
            rank <= cfg->log_ranks[i].last)
            return 1;
    return 0;
}

void cs_cfg_dump(const cs_config_t *cfg, int fd)
{
    char value[CS_VALUE_LEN], line[CS_VALUE_LEN + 64];
    const cs_cfg_source_t *src = NULL;
    int i;

    if (cfg == &cs_g_cfg)
        src = cs_g_src;
    else if (cfg == cs_last_cfg)
        src = cs_last_src;
    for (i = 0; i < CS_CFG_N_ROWS; i++) {
        cs_format_value(&cs_cfg_rows[i], cfg, value, sizeof(value));
        snprintf(line, sizeof(line), "%s=%s (%s)", cs_cfg_rows[i].name,
                 value, src != NULL ? cs_src_names[src[i]] : "unknown");
        cs_log_line(fd, line);
    }
}
