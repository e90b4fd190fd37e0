/*
 * test_apps/lib/cs_bench.c - the measuring kit of the benchmarks; see
 * cs_bench.h.  MPI and libc only.
 */
#include "cs_bench.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*set_enabled_fn)(int on);
typedef long long (*memory_held_fn)(void);
typedef int (*engine_phases_fn)(double *seconds);

static const char *bench_prog = "bench";
static int bench_rank;
static set_enabled_fn bench_set_enabled;
static memory_held_fn bench_memory_held;
static engine_phases_fn bench_engine_phases;
/* The last cs_bench_time's shim calls: per engine phase (pack, local,
 * unpack, transfer) the median over the calls of the phase on the rank
 * that took longest in that call, ms; -1 without the hook. */
static double bench_phase_ms[CS_BENCH_PHASES] = {-1, -1, -1, -1};
/* The same for the last shim cs_bench_time_once (one call). */
static double bench_first_phase_ms[CS_BENCH_PHASES] = {-1, -1, -1, -1};
/* The case's memory, local bytes: per path (0 native, 1 shim) the most a
 * call raised the resident size above the application's own (the shim's:
 * what it held before the call counted in), and the most the shim held
 * after a call. */
static double bench_mem[2], bench_held;
static FILE *bench_csv;             /* rank 0's CSV file, or NULL */
static const char *bench_csv_name;  /* the program, first CSV column */

void cs_bench_init(const char *prog)
{
    bench_prog = prog;
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
}

void cs_bench_die(const char *msg)
{
    fprintf(stderr, "%s[%d]: %s\n", bench_prog, bench_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void *cs_bench_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        cs_bench_die("out of memory");
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cs_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

cs_bench_tail_t cs_bench_tail(double *v, int n)
{
    cs_bench_tail_t t;
    t.med = cs_median(v, n); /* sorts */
    /* ceil(0.9 n) in integers: no rounding of 0.9 * n (n = 10: 9, not
     * 10) */
    t.p90 = v[(9 * n + 9) / 10 - 1];
    t.max = v[n - 1];
    return t;
}

double cs_bench_memcpy_bw(size_t bytes)
{
    enum { ROUNDS = 3, COPIES = 5 };
    char *src = cs_bench_xmalloc(bytes), *dst = cs_bench_xmalloc(bytes);
    memset(src, bench_rank + 1, bytes);
    memset(dst, 0, bytes);
    memcpy(dst, src, bytes); /* warm-up */
    double best = 1e300;
    for (int r = 0; r < ROUNDS; r++) {
        double t[COPIES], tmax[COPIES];
        for (int k = 0; k < COPIES; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            memcpy(dst, src, bytes);
            t[k] = MPI_Wtime() - t0;
            src[k] ^= dst[bytes - 1 - (size_t)k]; /* keep the copies alive */
        }
        MPI_Allreduce(t, tmax, COPIES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double med = cs_median(tmax, COPIES);
        if (med < best)
            best = med;
    }
    free(src);
    free(dst);
    return (double)bytes / best;
}

double cs_bench_mpi_bw(size_t bytes)
{
    enum { ROUNDS = 3, EXCHANGES = 5 };
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* Pairs (0,1), (2,3), ...; a last odd rank only takes part in the
     * reductions. */
    int peer = bench_rank ^ 1;
    if (nprocs < 2)
        return 0.0; /* no pairs: nothing crosses ranks either */
    if (bytes > (size_t)INT32_MAX)
        cs_bench_die("cs_bench_mpi_bw: message over 2 GiB");
    char *sbuf = cs_bench_xmalloc(bytes), *rbuf = cs_bench_xmalloc(bytes);
    memset(sbuf, bench_rank + 1, bytes);
    memset(rbuf, 0, bytes);
    double best = 1e300;
    for (int r = -1; r < ROUNDS; r++) { /* round -1: warm-up, untimed */
        double t[EXCHANGES], tmax[EXCHANGES];
        for (int k = 0; k < EXCHANGES; k++) {
            MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (peer < nprocs) {
                MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, peer, 7,
                          MPI_COMM_WORLD, &req[0]);
                MPI_Isend(sbuf, (int)bytes, MPI_BYTE, peer, 7,
                          MPI_COMM_WORLD, &req[1]);
                MPI_Status st[2];
                MPI_Waitall(2, req, st);
            }
            t[k] = MPI_Wtime() - t0;
        }
        MPI_Allreduce(t, tmax, EXCHANGES, MPI_DOUBLE, MPI_MAX,
                      MPI_COMM_WORLD);
        double med = cs_median(tmax, EXCHANGES);
        if (r >= 0 && med < best)
            best = med;
    }
    free(sbuf);
    free(rbuf);
    return (double)bytes / best;
}

int64_t cs_bench_cross_elems(int m, int n, const cs_bench_place_t *t,
                             const cs_bench_place_t *s, int tr, char uplo,
                             int skip_diag)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const grid_t *tg = t->g, *sg = s->g;
    /* the partner's rank of element (i, j) of t is ri[i] + rj[j] (row-major
     * grids: process (r, c) is rank r * npcol + c) */
    int *ri = cs_bench_xmalloc((size_t)m * sizeof(int));
    int *rj = cs_bench_xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < m; i++)
        ri[i] = tr ? ((s->j0 - 1 + i) / s->blk) % sg->npcol
                   : ((s->i0 - 1 + i) / s->blk) % sg->nprow * sg->npcol;
    for (int j = 0; j < n; j++)
        rj[j] = tr ? ((s->i0 - 1 + j) / s->blk) % sg->nprow * sg->npcol
                   : ((s->j0 - 1 + j) / s->blk) % sg->npcol;
    int64_t count = 0;
    for (int j = 0; j < n; j++) {
        if ((t->j0 - 1 + j) / t->blk % tg->npcol != tg->mycol)
            continue;
        int lo, hi;
        cs_bench_trap_rows(uplo, skip_diag, j, m, &lo, &hi);
        for (int i = lo; i < hi; i++)
            if ((t->i0 - 1 + i) / t->blk % tg->nprow == tg->myrow &&
                ri[i] + rj[j] != me)
                count++;
    }
    free(ri);
    free(rj);
    return count;
}

double cs_bench_mpi_floor_ms(int64_t loc, int m, int n,
                             const cs_bench_place_t *t,
                             const cs_bench_place_t *s, int tr, char uplo,
                             int skip_diag, size_t esize, double rw_bw,
                             double mpi_bw)
{
    /* the source's mask: the target's, transposed with it */
    char suplo = !tr ? uplo : uplo == 'L' ? 'U' : uplo == 'U' ? 'L' : uplo;
    int64_t recv = cs_bench_cross_elems(m, n, t, s, tr, uplo, skip_diag);
    int64_t sent = cs_bench_cross_elems(tr ? n : m, tr ? m : n, s, t, tr,
                                        suplo, skip_diag);
    double ms = 1e3 * (double)esize *
                ((double)(loc - recv - sent) / rw_bw +
                 (recv > 0 ? (double)recv / mpi_bw : 0.0));
    double msmax = 0.0;
    MPI_Allreduce(&ms, &msmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return msmax;
}

const char *cs_bench_desc(const char *desc)
{
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np == 2)
        return desc;
    char grid[2][32];
    snprintf(grid[0], sizeof grid[0], "1x%d", np);
    snprintf(grid[1], sizeof grid[1], "%dx1", np);
    size_t cap = strlen(desc) * 4 + 64, o = 0;
    char *out = cs_bench_xmalloc(cap);
    for (const char *p = desc; *p && o + 32 < cap;) {
        int k = !strncmp(p, "1x2", 3) ? 0 : !strncmp(p, "2x1", 3) ? 1 : -1;
        if (k >= 0 && (p == desc || p[-1] == ' ' || p[-1] == '>')) {
            o += (size_t)snprintf(out + o, cap - o, "%s", grid[k]);
            p += 3;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    return out;
}

int cs_bench_find_shim(void)
{
    /* The hook is looked up, never linked: the program stays a plain
     * ScaLAPACK program that runs without the preload. */
    void *sym = dlsym(RTLD_DEFAULT, "costa_shim_set_enabled");
    memcpy(&bench_set_enabled, &sym, sizeof sym);
    sym = dlsym(RTLD_DEFAULT, "costa_shim_memory_held");
    memcpy(&bench_memory_held, &sym, sizeof sym);
    sym = dlsym(RTLD_DEFAULT, "costa_shim_engine_phases");
    memcpy(&bench_engine_phases, &sym, sizeof sym);
    int have = bench_set_enabled != NULL, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have)
        bench_set_enabled = NULL;
    return all_have;
}

int cs_bench_shim_set(int on)
{
    return bench_set_enabled ? bench_set_enabled(on) : 0;
}

int cs_bench_verdict(const char *label, long bad_native, long bad_shim)
{
    long bad[2] = {bad_native, bad_shim}, gbad[2];
    MPI_Allreduce(bad, gbad, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!gbad[0] && !gbad[1])
        return 1;
    if (bench_rank == 0) {
        if (gbad[0])
            printf("FAIL case %s: native result wrong in %ld elements\n",
                   label, gbad[0]);
        if (gbad[1])
            printf("FAIL case %s: shim result differs from native on "
                   "%ld rank(s)\n", label, gbad[1]);
    }
    return 0;
}

/* A "Key:  <n> kB" line of /proc/self/status, in bytes; -1 if absent. */
static double status_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n) == 0)
            v = 1024.0 * atof(line + n);
    }
    if (f)
        fclose(f);
    return v;
}

/* Reset the process's peak resident size to its current one (Linux
 * /proc/PID/clear_refs, value 5: this process only, no system setting). */
static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static double shim_held(void)
{
    return bench_memory_held ? (double)bench_memory_held() : 0.0;
}

/* One call timed between barriers; local seconds (reduced by the caller).
 * Outside the timed part: the peak resident size during the call against
 * the size before it (bench_mem). */
static double timed_call(cs_bench_call_fn call, void *ctx, int shim)
{
    reset_peak();
    double rss = status_bytes("VmRSS:"), held = shim ? shim_held() : 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    call(ctx, shim);
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    double hwm = status_bytes("VmHWM:");
    if (rss >= 0 && hwm >= 0 && hwm - rss + held > bench_mem[shim != 0])
        bench_mem[shim != 0] = hwm - rss + held;
    if (shim && shim_held() > bench_held)
        bench_held = shim_held();
    return t;
}

void cs_bench_phases(cs_bench_row_t *row)
{
    memcpy(row->phase_ms, bench_phase_ms, sizeof(row->phase_ms));
    memcpy(row->first_phase_ms, bench_first_phase_ms,
           sizeof(row->first_phase_ms));
}

void cs_bench_mem_start(void)
{
    bench_mem[0] = bench_mem[1] = bench_held = 0.0;
}

void cs_bench_mem_end(cs_bench_row_t *row)
{
    double mine[3] = {bench_mem[0], bench_mem[1], bench_held}, all[3];
    MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    row->native_mem_mb = all[0] / (1 << 20);
    row->shim_mem_mb = all[1] / (1 << 20);
    row->shim_held_mb = all[2] / (1 << 20);
}

/* 1 when path shim is the shim's and every rank has the phases hook
 * (collective). */
static int all_have_phases(int shim)
{
    int phases = shim && bench_engine_phases, all = 0;
    MPI_Allreduce(&phases, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* out_ms[CS_BENCH_PHASES] from each rank's shim call times ts[reps] and
 * phases ph[phase * reps + call]: per call the phases of the rank whose
 * call took longest, then per phase the median over the calls
 * (collective). */
static void slowest_phases(const double *ts, const double *ph, int reps,
                           double *out_ms)
{
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t per = (size_t)reps * (1 + CS_BENCH_PHASES);
    double *mine = cs_bench_xmalloc(per * sizeof(double));
    double *all = cs_bench_xmalloc((size_t)np * per * sizeof(double));
    double *pick = cs_bench_xmalloc((size_t)reps * sizeof(double));
    memcpy(mine, ts, (size_t)reps * sizeof(double));
    memcpy(mine + reps, ph, (size_t)reps * CS_BENCH_PHASES * sizeof(double));
    MPI_Allgather(mine, (int)per, MPI_DOUBLE, all, (int)per, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    for (int k = 0; k < CS_BENCH_PHASES; k++) {
        for (int r = 0; r < reps; r++) {
            int slow = 0;
            for (int p = 1; p < np; p++)
                if (all[(size_t)p * per + r] > all[(size_t)slow * per + r])
                    slow = p;
            pick[r] = all[(size_t)slow * per + reps + (size_t)k * reps + r];
        }
        out_ms[k] = 1e3 * cs_median(pick, reps);
    }
    free(pick);
    free(all);
    free(mine);
}

double cs_bench_time_once(cs_bench_call_fn call, void *ctx, int shim)
{
    cs_bench_shim_set(shim);
    int phases = all_have_phases(shim);
    double p0[CS_BENCH_PHASES] = {0}, p1[CS_BENCH_PHASES] = {0};
    if (phases)
        bench_engine_phases(p0);
    double t = timed_call(call, ctx, shim), tmax = 0.0;
    if (phases && bench_engine_phases(p1) == 0)
        for (int q = 0; q < CS_BENCH_PHASES; q++)
            p1[q] -= p0[q];
    /* a first call's phases say what it paid where (issue 18, item 2) */
    if (phases)
        slowest_phases(&t, p1, 1, bench_first_phase_ms);
    else
        for (int q = 0; q < CS_BENCH_PHASES; q++)
            bench_first_phase_ms[q] = -1.0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return 1e3 * tmax;
}

/* One timed call of a path into round r of tn (native) or tn + reps (the
 * shim, with its engine phases into ph when all ranks have the hook). */
static void bench_turn(cs_bench_call_fn call, void *ctx, int shim, int r,
                       int reps, int all_phases, double *tn, double *ph)
{
    cs_bench_shim_set(shim);
    if (!shim) {
        tn[r] = timed_call(call, ctx, 0);
        return;
    }
    double p0[CS_BENCH_PHASES] = {0}, p1[CS_BENCH_PHASES];
    if (all_phases)
        bench_engine_phases(p0);
    tn[reps + r] = timed_call(call, ctx, 1);
    if (all_phases && bench_engine_phases(p1) == 0)
        for (int q = 0; q < CS_BENCH_PHASES; q++)
            ph[(size_t)q * reps + r] = p1[q] - p0[q];
}

/* 1 when CS_BENCH_ORDER=alternate: native and shim calls take turns. */
static int bench_alternate(void)
{
    const char *o = getenv("CS_BENCH_ORDER");
    return o && !strcmp(o, "alternate");
}

void cs_bench_time(cs_bench_call_fn call, void *ctx, int warm, int reps,
                   int have_shim, cs_bench_row_t *row)
{
    double *tn = cs_bench_xmalloc(2 * (size_t)reps * sizeof(double));
    double *ts = tn + reps;
    double *tmax = cs_bench_xmalloc(2 * (size_t)reps * sizeof(double));
    /* the engine's phases of each shim call (the hook's difference) */
    size_t nph = (size_t)reps * CS_BENCH_PHASES;
    double *ph = cs_bench_xmalloc(nph * sizeof(double));
    int all_phases = all_have_phases(have_shim);
    memset(ph, 0, nph * sizeof(double));
    /*
     * RATIONALE: by default each path runs its warm-up and timed calls as
     * a block, native's first, as an application calls one of them; the
     * shim's warm-up calls absorb what native's last call left behind.
     * Taking turns call by call (CS_BENCH_ORDER=alternate, the former
     * method) put every shim call right after a native one, whose page
     * faults and frees disturb the next call on a virtual machine: pdtran
     * 4000 x 4000 on 2 x 1 ran 11.2-12 ms in a loop of shim calls and
     * 12-122 ms with a native call before each (2026-12-02).
     */
    if (bench_alternate()) {
        for (int w = 0; w < warm; w++) {
            for (int shim = 0; shim <= have_shim; shim++) {
                cs_bench_shim_set(shim);
                call(ctx, shim);
            }
        }
        /* which path goes first alternates too, so neither always gets
         * the caches the other left behind */
        for (int r = 0; r < reps; r++) {
            for (int k = 0; k < 2; k++) {
                int shim = (k == 0) == (r % 2 == 1);
                if (!shim || have_shim)
                    bench_turn(call, ctx, shim, r, reps, all_phases, tn, ph);
            }
        }
    } else {
        for (int shim = 0; shim <= have_shim; shim++) {
            cs_bench_shim_set(shim);
            for (int w = 0; w < warm; w++)
                call(ctx, shim);
            for (int r = 0; r < reps; r++)
                bench_turn(call, ctx, shim, r, reps, all_phases, tn, ph);
        }
    }
    if (!have_shim)
        memset(ts, 0, (size_t)reps * sizeof(double));
    cs_bench_shim_set(1);
    MPI_Allreduce(tn, tmax, 2 * reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    cs_bench_tail_t nat = cs_bench_tail(tmax, reps), sh = {0, 0, 0};
    if (have_shim)
        sh = cs_bench_tail(tmax + reps, reps);
    row->native_ms = 1e3 * nat.med;
    row->native_p90_ms = 1e3 * nat.p90;
    row->native_max_ms = 1e3 * nat.max;
    row->shim_ms = 1e3 * sh.med;
    row->shim_p90_ms = 1e3 * sh.p90;
    row->shim_max_ms = 1e3 * sh.max;
    if (all_phases)
        slowest_phases(ts, ph, reps, bench_phase_ms);
    else
        for (int k = 0; k < CS_BENCH_PHASES; k++)
            bench_phase_ms[k] = -1.0;
    free(ph);
    free(tn);
    free(tmax);
}

void cs_bench_print_head(const char *title, const char *floor_line,
                         int have_shim, size_t memcpy_bytes, double bw,
                         double mpi_bw, int desc_w)
{
    if (bench_rank != 0)
        return;
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    printf("%s, %d ranks; times: median per call, each call max over "
           "ranks\n", title, nprocs);
    if (have_shim)
        printf("mode: native vs costa-shim interleaved "
               "(costa_shim_set_enabled found)\n");
    else
        printf("mode: NATIVE ONLY - costa_shim_set_enabled not found "
               "(shim not preloaded); last column is floor/native\n");
    printf("memcpy: %zu MiB per rank, %d ranks at once: %.2f GB/s "
           "copied per rank (%.2f GB/s read+write)\n",
           memcpy_bytes >> 20, nprocs, bw / 1e9, 2.0 * bw / 1e9);
    if (nprocs > 1)
        printf("MPI: %zu MiB each way between rank pairs at once: %.2f GB/s "
               "received per rank\n",
               memcpy_bytes >> 20, mpi_bw / 1e9);
    else
        printf("MPI: one rank, nothing crosses ranks\n");
    printf("%s\n", floor_line);
    printf("mpi_ms: the same with what crosses ranks passing through MPI "
           "once instead, at the MPI speed above\n");
    printf("nat_MiB, shim_MiB: the most one call raised a rank's resident "
           "memory above the application's own (the shim's: what it holds "
           "between calls counted in); held_MiB: the most the shim held "
           "(workspace, plans)\n");
    printf("nat_p90, nat_max, shim_p90, shim_max: the 90th percentile "
           "and the slowest of the same calls, ms; nmax/med, smax/med: "
           "slowest / median (issue 34: at most 2 wanted)\n");
    printf("pack, local, unpack, xfer: the shim call's time in the engine "
           "packing, copying locally, unpacking and waiting for messages "
           "(costa_shim_engine_phases), ms: in each call the phases of the "
           "rank that took longest, each the median over the calls; the "
           "rest of shim_ms is the arrival, the decision exchange and the "
           "plan lookup\n\n");
    printf("%-4s %-*s %5s %10s %10s %8s %10s %10s %8s %10s %10s %8s %8s "
           "%8s %8s %10s %7s %8s %8s %8s %8s %8s %8s %8s %5s\n",
           "case", desc_w, "description", "reps", "native_ms", "shim_ms",
           "shim/nat", "nat_p90", "nat_max", "nmax/med", "shim_p90",
           "shim_max", "smax/med", "copy_ms", "mpi_ms",
           have_shim ? "fl/shim" : "fl/nat", "1st_ms", "1st/med", "nat_MiB",
           "shim_MiB", "held_MiB", "pack", "local", "unpack", "xfer",
           "check");
    fflush(stdout);
}

/* A phase column of the CSV: empty where the table prints "-". */
static const char *csv_ph(const char *s)
{
    return strcmp(s, "-") == 0 ? "" : s;
}

void cs_bench_print_row(const cs_bench_row_t *row, int desc_w, int have_shim)
{
    if (bench_rank != 0)
        return;
    char shim_s[32] = "-", ratio_s[32] = "-", sp90[32] = "-",
         smax[32] = "-", sx[32] = "-";
    double t = have_shim ? row->shim_ms : row->native_ms;
    double first = have_shim ? row->shim_first_ms : row->native_first_ms;
    if (have_shim) {
        snprintf(shim_s, sizeof shim_s, "%.3f", row->shim_ms);
        snprintf(ratio_s, sizeof ratio_s, "%.3f",
                 row->shim_ms / row->native_ms);
        snprintf(sp90, sizeof sp90, "%.3f", row->shim_p90_ms);
        snprintf(smax, sizeof smax, "%.3f", row->shim_max_ms);
        snprintf(sx, sizeof sx, "%.2f",
                 row->shim_ms > 0 ? row->shim_max_ms / row->shim_ms : 0.0);
    }
    char ph[CS_BENCH_PHASES][32], fph[CS_BENCH_PHASES][32];
    for (int k = 0; k < CS_BENCH_PHASES; k++) {
        if (have_shim && row->phase_ms[k] >= 0)
            snprintf(ph[k], sizeof ph[k], "%.3f", row->phase_ms[k]);
        else
            snprintf(ph[k], sizeof ph[k], "-");
        if (have_shim && row->first_phase_ms[k] >= 0)
            snprintf(fph[k], sizeof fph[k], "%.3f", row->first_phase_ms[k]);
        else
            snprintf(fph[k], sizeof fph[k], "-");
    }
    printf("%-4s %-*s %5d %10.3f %10s %8s %10.3f %10.3f %8.2f %10s %10s "
           "%8s %8.3f %8.3f %8.3f %10.3f %7.2f %8.1f %8.1f %8.1f %8s %8s "
           "%8s %8s %5s\n",
           row->label, desc_w, row->what, row->reps, row->native_ms, shim_s,
           ratio_s, row->native_p90_ms, row->native_max_ms,
           row->native_ms > 0 ? row->native_max_ms / row->native_ms : 0.0,
           sp90, smax, sx, row->floor_ms, row->mpi_floor_ms,
           t > 0 ? row->mpi_floor_ms / t : 0.0,
           first, t > 0 ? first / t : 0.0, row->native_mem_mb,
           row->shim_mem_mb, row->shim_held_mb, ph[0], ph[1], ph[2], ph[3],
           row->ok ? (have_shim ? "ok" : "ok*") : "FAIL");
    fflush(stdout);
    if (bench_csv) {
        fprintf(bench_csv,
                "%s,%s,\"%s\",%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%.6f,%.3f,"
                "%.3f,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%.6f,%.6f,%.6f,%.6f\n",
                bench_csv_name, row->label, row->what, row->size, row->reps,
                row->native_ms, have_shim ? row->shim_ms : 0.0, row->floor_ms,
                row->native_first_ms, have_shim ? row->shim_first_ms : 0.0,
                row->ok, row->mpi_floor_ms, row->native_mem_mb,
                have_shim ? row->shim_mem_mb : 0.0,
                have_shim ? row->shim_held_mb : 0.0, csv_ph(ph[0]),
                csv_ph(ph[1]), csv_ph(ph[2]), csv_ph(ph[3]), csv_ph(fph[0]),
                csv_ph(fph[1]), csv_ph(fph[2]), csv_ph(fph[3]),
                row->native_p90_ms, row->native_max_ms,
                have_shim ? row->shim_p90_ms : 0.0,
                have_shim ? row->shim_max_ms : 0.0);
        fflush(bench_csv);
    }
}

void cs_bench_csv_open(const char *path, const char *bench)
{
    if (bench_rank != 0)
        return;
    bench_csv = fopen(path, "a");
    if (!bench_csv)
        cs_bench_die("cannot open the --csv file");
    bench_csv_name = bench;
    if (ftell(bench_csv) == 0)
        fprintf(bench_csv, "bench,case,description,size,reps,native_ms,"
                           "shim_ms,floor_ms,native_first_ms,shim_first_ms,"
                           "ok,mpi_floor_ms,native_mem_mb,shim_mem_mb,"
                           "shim_held_mb,pack_ms,local_ms,unpack_ms,"
                           "xfer_ms,first_pack_ms,first_local_ms,"
                           "first_unpack_ms,first_xfer_ms,native_p90_ms,"
                           "native_max_ms,shim_p90_ms,shim_max_ms\n");
}

void cs_bench_csv_close(void)
{
    if (bench_csv)
        fclose(bench_csv);
    bench_csv = NULL;
}
