/*
 * relabel/plan_format.c - the relabeling plan file's text: writing a
 * computed plan, and reading one back with every check apply mode needs
 * before it may create a grid from it (relabel.h, "plan files";
 * docs/relabel.md).
 *
 * Pure C: no MPI, no environment, no logging, no global state.  The
 * caller opens, renames and closes the files and reports what went
 * wrong.
 */
#include "relabel/relabel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ writing */

static void print_map(FILE *f, const int *map, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, " %d", map[i]);
    }
}

void cs_rl_plan_print(FILE *f, const cs_rl_problem_t *pb,
                      const cs_rl_plan_t *plan, const char *command)
{
    int ng = pb->ng, nworld = pb->nworld;
    int complete = !pb->incomplete && !pb->saturated;
    fprintf(f, "# costa-shim relabeling plan (format: docs/relabel.md),\n"
               "# written by COSTA_SHIM_RELABEL=report; use it with\n"
               "# COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN=<this "
               "file>\n");
    fprintf(f, "%s %d\n", CS_RL_PLAN_MAGIC, CS_RL_PLAN_VERSION);
    fprintf(f, "command %s\n", command);
    fprintf(f, "processes %d\n", nworld);
    fprintf(f, "# world: the grids and calls of all ranks; rank0: only "
               "those rank 0 took part in\n");
    fprintf(f, "scope %s\n", pb->world ? "world" : "rank0");
    fprintf(f, "grids %d\n", ng);
    fprintf(f, "complete %d\n", complete);
    fprintf(f, "# bytes crossing processes in the %" PRId64
               " observed p?gemr2d/p?trmr2d calls\n",
            pb->calls_seen);
    fprintf(f, "bytes_app %" PRId64 "\n", pb->cross_total);
    fprintf(f, "bytes_plan %" PRId64 "\n", plan->planned_bytes);
    if (pb->node) {
        fprintf(f, "# node-aware: a byte leaving its process costs %" PRId64
                   " inside its node, %" PRId64 " across nodes; bytes "
                   "crossing nodes before and after\n",
                pb->w_rank, pb->w_node);
        fprintf(f, "nodes %d\n", pb->nnodes);
        fprintf(f, "net_app %" PRId64 "\n", plan->net_app);
        fprintf(f, "net_plan %" PRId64 "\n", plan->net_plan);
    }
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        int sat = 0;
        int64_t tot = cs_rl_pair_total(p, &sat);
        fprintf(f,
                "# pair #%d -> #%d: %" PRId64 " calls, %" PRId64
                " bytes, crossing %" PRId64 " with the application's maps, "
                "%" PRId64 " planned\n",
                p->ga, p->gb, p->calls, tot,
                tot - cs_rl_pair_kept(p, pb->g[p->ga].map, pb->g[p->gb].map,
                                      plan->pos, nworld),
                tot - cs_rl_pair_kept(p, plan->map[p->ga], plan->map[p->gb],
                                      plan->pos, nworld));
    }
    fprintf(f, "# grid <number> <P>x<Q> <order R|C|M> <world rank by "
               "position, row-major> -> <planned>\n");
    for (int g = 0; g < ng; g++) {
        const cs_rl_grid_t *gr = &pb->g[g];
        fprintf(f, "grid %d %dx%d %c", g, gr->p, gr->q, gr->order);
        print_map(f, gr->map, gr->p * gr->q);
        fputs(" ->", f);
        print_map(f, plan->map[g], gr->p * gr->q);
        fputc('\n', f);
    }
    fputs("end\n", f);
}

/* ------------------------------------------------------------ reading */

void cs_rl_plan_file_free(cs_rl_plan_file_t *plan)
{
    for (int i = 0; i < plan->ngrids && plan->g; i++) {
        free(plan->g[i].app);
        free(plan->g[i].planned);
    }
    free(plan->g);
    memset(plan, 0, sizeof(*plan));
}

/* Next integer of *s (strtol with checks); 0 on success. */
static int next_int(char **s, long lo, long hi, int *out_p)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno != 0 || v < lo || v > hi ||
        (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n' &&
         *end != 'x')) {
        return -1;
    }
    *s = end;
    *out_p = (int)v;
    return 0;
}

/* 1 if b is a permutation of a (n ranks in [0, nprocs)). */
static int same_set(const int *a, const int *b, int n, int nprocs)
{
    int *cnt = calloc((size_t)nprocs, sizeof(int));
    if (!cnt) {
        return 0;
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        cnt[a[i]]++;
        ok &= cnt[a[i]] == 1;
    }
    for (int i = 0; i < n && ok; i++) {
        ok &= --cnt[b[i]] == 0;
    }
    free(cnt);
    return ok;
}

/* Parse one "grid k PxQ O map... -> planned..." line into pl->g[k]. */
static int parse_grid(cs_rl_plan_file_t *pl, char *s, int k, char *why,
                      size_t len)
{
    int idx, p, q;
    while (*s == ' ') {
        s++;
    }
    if (next_int(&s, 0, INT32_MAX, &idx) || idx != k) {
        snprintf(why, len, "grid lines out of order (expected grid %d)", k);
        return -1;
    }
    while (*s == ' ') {
        s++;
    }
    if (next_int(&s, 1, INT32_MAX, &p) || *s != 'x') {
        snprintf(why, len, "grid %d: bad shape", k);
        return -1;
    }
    s++;
    if (next_int(&s, 1, INT32_MAX, &q) || (int64_t)p * q > pl->nprocs) {
        snprintf(why, len, "grid %d: bad shape", k);
        return -1;
    }
    while (*s == ' ') {
        s++;
    }
    char order = *s;
    if ((order != 'R' && order != 'C' && order != 'M') || s[1] != ' ') {
        snprintf(why, len, "grid %d: bad order", k);
        return -1;
    }
    s += 2;
    int n = p * q;
    cs_rl_plan_grid_t *g = &pl->g[k];
    g->app = malloc((size_t)n * sizeof(int));
    g->planned = malloc((size_t)n * sizeof(int));
    if (!g->app || !g->planned) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    g->p = p;
    g->q = q;
    g->order = order;
    for (int half = 0; half < 2; half++) {
        int *m = half ? g->planned : g->app;
        for (int i = 0; i < n; i++) {
            while (*s == ' ') {
                s++;
            }
            if (next_int(&s, 0, pl->nprocs - 1, &m[i])) {
                snprintf(why, len, "grid %d: bad or missing rank", k);
                return -1;
            }
        }
        while (*s == ' ') {
            s++;
        }
        if (!half && strncmp(s, "->", 2) != 0) {
            snprintf(why, len, "grid %d: '->' expected after %d ranks", k, n);
            return -1;
        }
        s += half ? 0 : 2;
    }
    while (*s == ' ' || *s == '\n' || *s == '\r') {
        s++;
    }
    if (*s != '\0') {
        snprintf(why, len, "grid %d: extra text after the planned map", k);
        return -1;
    }
    if (!same_set(g->app, g->planned, n, pl->nprocs)) {
        snprintf(why, len,
                 "grid %d: the planned map is not a permutation of the "
                 "grid's processes",
                 k);
        return -1;
    }
    return 0;
}

cs_rl_status_t cs_rl_plan_parse(FILE *f, int max_grids,
                                cs_rl_plan_file_t *plan_p, char *why,
                                size_t len)
{
    cs_rl_plan_file_t pl;
    memset(&pl, 0, sizeof(pl));
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, magic = 0, seen_end = 0, next_grid = 0, rc = 0;
    int scope = 0;
    pl.nprocs = pl.ngrids = -1;
    pl.complete = 1;
    pl.world = 0; /* version 1: rank 0's view */
    while (!seen_end && getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t') {
            s++;
        }
        if (*s == '#' || *s == '\n' || *s == '\0') {
            continue;
        }
        char word[32];
        int used = 0;
        if (sscanf(s, "%31s%n", word, &used) != 1) {
            continue;
        }
        char *rest = s + used;
        int v = 0;
        long long big = 0;
        if (!magic) {
            if (strcmp(word, CS_RL_PLAN_MAGIC) != 0 ||
                sscanf(rest, "%d", &v) != 1 || v < 1 ||
                v > CS_RL_PLAN_VERSION) {
                snprintf(why, len, "not a version 1 to %d plan (line %d)",
                         CS_RL_PLAN_VERSION, lineno);
                rc = -1;
                break;
            }
            magic = v;
        } else if (strcmp(word, "scope") == 0 && magic >= 2) {
            char sc[16] = "";
            if (sscanf(rest, "%15s", sc) != 1 ||
                (strcmp(sc, "world") != 0 && strcmp(sc, "rank0") != 0)) {
                rc = -1;
            } else {
                pl.world = strcmp(sc, "world") == 0;
                scope = 1;
            }
        } else if (strcmp(word, "processes") == 0) {
            if (sscanf(rest, "%d", &pl.nprocs) != 1 || pl.nprocs < 1) {
                rc = -1;
            }
        } else if (strcmp(word, "grids") == 0) {
            if (sscanf(rest, "%d", &v) != 1 || v < 0 || v > max_grids ||
                pl.g) {
                rc = -1;
            } else {
                pl.g = calloc((size_t)(v > 0 ? v : 1),
                              sizeof(cs_rl_plan_grid_t));
                pl.ngrids = v;
                rc = pl.g ? 0 : -1;
            }
        } else if (strcmp(word, "complete") == 0) {
            rc = sscanf(rest, "%d", &pl.complete) == 1 ? 0 : -1;
        } else if (strcmp(word, "grid") == 0) {
            if (!pl.g || pl.nprocs < 1 || next_grid >= pl.ngrids) {
                snprintf(why, len, "line %d: unexpected grid line", lineno);
                rc = -1;
                break;
            }
            if (parse_grid(&pl, rest, next_grid, why, len) != 0) {
                rc = -1;
                break;
            }
            next_grid++;
        } else if (strcmp(word, "end") == 0) {
            seen_end = 1;
        } else if (strcmp(word, "bytes_app") == 0 ||
                   strcmp(word, "bytes_plan") == 0 ||
                   (magic >= 3 && (strcmp(word, "nodes") == 0 ||
                                   strcmp(word, "net_app") == 0 ||
                                   strcmp(word, "net_plan") == 0))) {
            rc = sscanf(rest, "%lld", &big) == 1 ? 0 : -1;
        } else if (strcmp(word, "command") != 0) {
            snprintf(why, len, "line %d: unknown keyword '%s'", lineno, word);
            rc = -1;
            break;
        }
        if (rc != 0) {
            if (!why[0]) {
                snprintf(why, len, "line %d: bad '%s' line", lineno, word);
            }
            break;
        }
    }
    free(line);
    if (rc == 0 && (!magic || !seen_end || pl.ngrids < 0 ||
                    next_grid != pl.ngrids)) {
        snprintf(why, len, "incomplete file (no 'end' line or missing "
                           "grid lines)");
        rc = -1;
    }
    if (rc == 0 && magic >= 2 && !scope) {
        snprintf(why, len, "no 'scope world|rank0' line");
        rc = -1;
    }
    if (rc != 0) {
        cs_rl_plan_file_free(&pl);
        return CS_RL_ERR_INVALID;
    }
    *plan_p = pl;
    return CS_RL_OK;
}
