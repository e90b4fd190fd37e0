/*
 * test_apps/lib/cs_bench.h - the measuring kit of the native-vs-shim
 * benchmarks (bench_gemr2d.c, bench_tran.c): the shim's on/off hook,
 * interleaved timing with medians, the memcpy floor and the result table.
 *
 * The functions of cs_bench.c use MPI and libc only (they are linked into
 * every test program); the BLACS helpers below are static inline because
 * only the ScaLAPACK programs link BLACS.
 */
#ifndef CS_BENCH_H
#define CS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "cs_blacs.h"

/* A BLACS grid and this process's place in it. */
typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
} grid_t;

/* Program name for messages ("<prog>[<rank>]: ...") and the rank; call
 * after MPI_Init. */
void cs_bench_init(const char *prog);
void cs_bench_die(const char *msg);
void *cs_bench_xmalloc(size_t bytes);

/* Median of v[0..n-1] (sorts v). */
double cs_median(double *v, int n);

/* Where a case's calls lie: the median, the 90th percentile (nearest
 * rank: the ceil(0.9 n)-th smallest) and the slowest. */
typedef struct {
    double med, p90, max;
} cs_bench_tail_t;

/* The tail of v[0..n-1], n >= 1 (sorts v); in v's unit. */
cs_bench_tail_t cs_bench_tail(double *v, int n);

/* memcpy bandwidth, all ranks copying at once: bytes copied per second per
 * rank (best of 3 medians of 5 copies, each max over ranks). */
double cs_bench_memcpy_bw(size_t bytes);

/* MPI bandwidth of the bytes that cross ranks: rank pairs (0,1), (2,3), ...
 * exchange `bytes` in one message each way at once (contiguous buffers,
 * after one untimed round): bytes received per second per rank (best of 3
 * medians of 5 exchanges, each max over ranks).  In the benchmarks' floor
 * what a rank receives from others moves at this speed, one pass that
 * reads the sender's copy and writes the receiver's. */
double cs_bench_mpi_bw(size_t bytes);

/* Looks up the preloaded shim's costa_shim_set_enabled (never linked);
 * returns 1 iff every rank has it (else the hook is not used). */
int cs_bench_find_shim(void);
/* The hook: 1 = calls go to the shim, 0 = to ScaLAPACK; no-op without it. */
int cs_bench_shim_set(int on);

/* Verdict of a case's first native and shim calls (local counts: wrong
 * native elements, shim result differs from native 0/1), summed over the
 * ranks; FAIL lines from rank 0.  Returns 1 iff both are 0 everywhere. */
int cs_bench_verdict(const char *label, long bad_native, long bad_shim);

/* One call of the routine under test; shim: which path (and output). */
typedef void (*cs_bench_call_fn)(void *ctx, int shim);

/* One call through `call` on the given path, between barriers; the max
 * over ranks in ms (collective).  The benchmarks time each case's first
 * native and shim calls with it (plan built, buffers grown: what an
 * application's first call costs). */
double cs_bench_time_once(cs_bench_call_fn call, void *ctx, int shim);

/* A sub-matrix's place: its grid, first global row and column (1-based)
 * and square blocks (source process 0). */
typedef struct {
    const grid_t *g;
    int i0, j0, blk;
} cs_bench_place_t;

/* Elements of the m x n sub-matrix t that this process owns and whose
 * partner element (the same (i, j) of sub-matrix s, or (j, i) when tr)
 * another process owns: with t the target, what this process receives
 * through MPI; with t the source (and m, n swapped when tr), what it
 * sends.  uplo 'L' / 'U': only the lower / upper trapezoid of t (without
 * the diagonal when skip_diag), anything else: all.  Row-major grids over
 * MPI_COMM_WORLD's ranks (bench_grids_init). */
int64_t cs_bench_cross_elems(int m, int n, const cs_bench_place_t *t,
                             const cs_bench_place_t *s, int tr, char uplo,
                             int skip_diag);

/* The floor of a case through MPI (collective): on each rank the elements
 * that stay on it are read and written at rw_bw bytes/s (loc: the
 * elements its copy floor counts, sub(A) read + target written [+ read]),
 * and those it receives from others pass through MPI once at mpi_bw
 * (elements it sends are read by that pass); the max over the ranks, in
 * ms.  Target t (m x n) from source s as in cs_bench_cross_elems. */
double cs_bench_mpi_floor_ms(int64_t loc, int m, int n,
                             const cs_bench_place_t *t,
                             const cs_bench_place_t *s, int tr, char uplo,
                             int skip_diag, size_t esize, double rw_bw,
                             double mpi_bw);

/* The engine's phases a shim call is split into (its
 * costa_shim_engine_phases hook): pack, local copy, unpack, transfer. */
#define CS_BENCH_PHASES 4

/* One row of a benchmark table. */
typedef struct {
    const char *label, *what; /* case id, description */
    int size;                 /* matrix order, for the size chart */
    int reps;
    double native_ms, shim_ms;               /* medians */
    /* the tails of the same calls (cs_bench_tail): a slow call now and
     * then shows in the maxima, not in the medians (issue 34) */
    double native_p90_ms, native_max_ms, shim_p90_ms, shim_max_ms;
    double floor_ms;     /* copy floor: everything at memcpy speed */
    double mpi_floor_ms; /* floor with what crosses ranks through MPI */
    double native_first_ms, shim_first_ms;   /* each path's first call */
    int ok;
    /* cs_bench_mem_end(): MiB, max over ranks and the case's timed calls */
    double native_mem_mb; /* a native call's peak above the RSS before it */
    double shim_mem_mb;   /* a shim call's, plus what the shim held */
    double shim_held_mb;  /* what the shim held after a call */
    /* cs_bench_phases(): per engine phase, the median over the timed shim
     * calls of its max over ranks, ms; -1 without the hook */
    double phase_ms[CS_BENCH_PHASES];
    /* the same for the shim's first call (cs_bench_time_once): the phases
     * of the rank whose first call took longest; -1 without the hook */
    double first_phase_ms[CS_BENCH_PHASES];
} cs_bench_row_t;

/* Native's warm untimed calls and reps timed ones, then the shim's (with
 * CS_BENCH_ORDER=alternate: warm rounds of both, then reps rounds taking
 * turns, which path goes first alternating), each call between barriers;
 * the time of a call is its max over ranks.  Sets row's native_ms and
 * shim_ms (medians over the reps calls, ms) and their 90th percentiles
 * and maxima (the _p90_ms and _max_ms fields); the shim's are 0 without
 * the shim.  Leaves the shim enabled. */
void cs_bench_time(cs_bench_call_fn call, void *ctx, int warm, int reps,
                   int have_shim, cs_bench_row_t *row);

/* Fill row->phase_ms from the last cs_bench_time() and
 * row->first_phase_ms from the last shim cs_bench_time_once(). */
void cs_bench_phases(cs_bench_row_t *row);

/* Memory of a case: cs_bench_mem_start() before its first call (local),
 * cs_bench_mem_end() after its last (collective) fills the row's _mem_
 * fields from every call timed in between (cs_bench_time_once,
 * cs_bench_time): the peak resident size (VmHWM, reset before each call)
 * above the size before the call, for the shim plus what it held before
 * the call (its costa_shim_memory_held hook), and the most it held after
 * one.  Native calls are measured while the shim's memory stays resident,
 * which their peak above the size before them leaves out. */
void cs_bench_mem_start(void);
void cs_bench_mem_end(cs_bench_row_t *row);

/* Rank 0: the lines above the table (title and copy-floor lines given,
 * the mode, memcpy and MPI lines common) and the table's header; desc_w:
 * width of the description column. */
void cs_bench_print_head(const char *title, const char *floor_line,
                         int have_shim, size_t memcpy_bytes, double bw,
                         double mpi_bw, int desc_w);
/* Rank 0: one table row; also appended to the CSV file of
 * cs_bench_csv_open() if one is open. */
void cs_bench_print_row(const cs_bench_row_t *row, int desc_w, int have_shim);

/* Rank 0: append rows (with a header line if the file is new or empty) to
 * path as bench,case,description,size,reps,native_ms,shim_ms,floor_ms,
 * native_first_ms,shim_first_ms,ok,mpi_floor_ms,native_mem_mb,
 * shim_mem_mb,shim_held_mb, the engine phases (pack_ms .. xfer_ms,
 * first_pack_ms .. first_xfer_ms), native_p90_ms,native_max_ms,
 * shim_p90_ms,shim_max_ms (scripts/bench_report.py reads it; the columns
 * from mpi_floor_ms on are newer than the kept baseline file);
 * bench names the program.  Dies if the file cannot be opened. */
void cs_bench_csv_open(const char *path, const char *bench);
void cs_bench_csv_close(void);

/* Rows [*lo, *hi) of column j (0-based) of an m-row sub-matrix inside its
 * lower ('L') or upper ('U') trapezoid, without the diagonal when
 * skip_diag (ScaLAPACK's p?trmr2d rule); all m rows for any other uplo. */
static inline void cs_bench_trap_rows(char uplo, int skip_diag, int j, int m,
                                      int *lo, int *hi)
{
    *lo = uplo == 'L' ? j + skip_diag : 0;
    *hi = uplo == 'U' && j + 1 - skip_diag < m ? j + 1 - skip_diag : m;
}

/* ---- BLACS helpers (header only) ---- */

/* GRID_1X2 and GRID_2X1 name the 1 x P and P x 1 grids over all P ranks
 * (1 x 2 and 2 x 1 in the standard 2-rank runs). */
enum { GRID_1X2 = 0, GRID_2X1 = 1, NGRIDS = 2 };

/* The 1 x P and P x 1 row-major grids over MPI_COMM_WORLD's P ranks. */
static inline void bench_grids_init(grid_t grids[NGRIDS])
{
    int me, np;
    Cblacs_pinfo(&me, &np);
    for (int k = 0; k < NGRIDS; k++) {
        grid_t *g = &grids[k];
        Cblacs_get(-1, 0, &g->ctxt);
        Cblacs_gridinit(&g->ctxt, "Row", k == GRID_1X2 ? 1 : np,
                        k == GRID_1X2 ? np : 1);
        Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
        if (g->myrow < 0)
            cs_bench_die("process not in grid");
    }
}

/* A case description written for 2 ranks ("... 1x2->2x1") with the grids
 * of a P-rank run (1xP, Px1); the string itself when P = 2 (a new one,
 * never freed, otherwise). */
const char *cs_bench_desc(const char *desc);

static inline void bench_grids_exit(grid_t grids[NGRIDS])
{
    for (int k = NGRIDS - 1; k >= 0; k--)
        Cblacs_gridexit(grids[k].ctxt);
    Cblacs_exit(1);
}

/* 0-based local index -> 0-based global index (source process 0). */
static inline int64_t l2g(int l, int blk, int p, int np)
{
    return ((int64_t)(l / blk) * np + p) * blk + l % blk;
}

/* Elements of rows [i0, i0+len) (1-based i0) owned by process p. */
static inline int64_t owned(int i0, int len, int blk, int p, int np)
{
    int zero = 0, hi = i0 - 1 + len, lo = i0 - 1;
    if (len <= 0)
        return 0;
    return (int64_t)numroc_(&hi, &blk, &p, &zero, &np) -
           numroc_(&lo, &blk, &p, &zero, &np);
}

/* Local elements of the m x n sub-matrix at (i0, j0), blocks blk. */
static inline int64_t local_sub_elems(const grid_t *g, int i0, int j0, int m,
                                      int n, int blk)
{
    return owned(i0, m, blk, g->myrow, g->nprow) *
           owned(j0, n, blk, g->mycol, g->npcol);
}

#endif /* CS_BENCH_H */
