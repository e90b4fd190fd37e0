/*
 * engine/exchange.c - executing the plan of one exchange (cs_eng_exch_t,
 * plan.c): post receives, pack and send each package, copy local blocks
 * directly, unpack packages as they arrive.  A call cut into panels runs
 * this once per panel (panels.c); this file knows nothing of panels.
 *
 * MPI is called from the calling thread only; OpenMP threads only copy.
 * Everything that can fail locally (buffers, request arrays) is obtained by
 * cs_eng_exch_reserve() before the first message, so the shim can agree on
 * it collectively; after that an MPI error is fatal (cs_eng_fatal: no
 * partial fallback).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Packages, and the acknowledgements of packages read from the shared
 * send buffer. */
enum { CS_ENG_TAG = 27911, CS_ENG_TAG_DONE = 27912 };

/* A signal standing for a package in the shared buffer: this magic word,
 * then the package's offset there. */
static const int64_t cs_eng_shm_magic = 0x636f73746173686dLL;
enum { CS_ENG_SIG_BYTES = 2 * sizeof(int64_t) };

/* RATIONALE: MPI counts are int; 1 GiB chunks keep every count far below
 * INT_MAX whatever the element size, at the cost of one extra message per
 * GiB, which is negligible. */
static const int64_t cs_eng_default_max_msg = (int64_t)1 << 30;

/* Below this many bytes a block is copied by one thread: starting a team
 * costs more than the copy.  Measured (1 rank, pdgemr2d n x n, 32 -> 64
 * blocks, 2 threads vs 1, best of 400, CI machine): 128 KiB 7 vs 2 us,
 * 256 KiB 6 vs 3 us, 512 KiB 7 vs 7 us, 720 KiB 8 vs 11 us, 1 MiB 12 vs
 * 19 us; the former 128 KiB threshold lost below 512 KiB. */
static const int64_t cs_eng_par_min_bytes = (int64_t)1 << 19;

int64_t cs_eng_exch_chunk(const cs_eng_exec_opts_t *opts)
{
    /* never above the default: each chunk's count must fit an int */
    return opts && opts->max_msg_bytes > 0 &&
                   opts->max_msg_bytes < cs_eng_default_max_msg
               ? opts->max_msg_bytes
               : cs_eng_default_max_msg;
}

static int64_t nchunks(int64_t bytes, int64_t chunk)
{
    return (bytes + chunk - 1) / chunk;
}

/* MPI requests for the messages of one peer. */
static int64_t msg_chunks(const cs_eng_msg_t *msg, const cs_eng_peer_t *pe,
                          int64_t chunk)
{
    int64_t n = 0;
    for (int64_t m = pe->msg_first; m < pe->msg_first + pe->msg_count; m++) {
        n += nchunks(msg[m].len, cs_eng_msg_piece(msg[m].len, chunk));
    }
    return n;
}

/* RATIONALE: GCC 12 warns that MPICH's MPI_STATUSES_IGNORE (a null
 * pointer cast) is a zero-sized array passed to MPI_Waitall/Testsome; it is the
 * standard's way to ignore statuses, so the false positive is silenced in
 * this one wrapper only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
int cs_eng_wait_all(int n, MPI_Request *reqs)
{
    return MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}

int cs_eng_test_all(int n, MPI_Request *reqs, int *done)
{
    return MPI_Testall(n, reqs, done, MPI_STATUSES_IGNORE);
}

static int test_some(int n, MPI_Request *reqs, int *out_p, int *idx,
                     MPI_Status *st)
{
    return MPI_Testsome(n, reqs, out_p, idx, st);
}
#pragma GCC diagnostic pop

static void check_mpi(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        cs_eng_fatal("%s failed during a redistribution: %s", what, msg);
    }
}

/* Strides of a local array: element (r, c) at r * rs + c * cs. */
static void strides(int order, int64_t ld, int64_t *rs_p, int64_t *cs_p)
{
    *rs_p = order == CS_ENG_COLMAJOR ? 1 : ld;
    *cs_p = order == CS_ENG_COLMAJOR ? ld : 1;
}

/* cs_eng_xform2d split over threads along the columns (or the rows when
 * there are fewer columns than threads). */
static void xform_par(int threads, const cs_eng_xform_t *x, int64_t rows,
                      int64_t cols, const char *s, int64_t srs, int64_t scs,
                      char *d, int64_t drs, int64_t dcs, int64_t i0,
                      int64_t j0)
{
    int64_t es = (int64_t)x->esize;
    if (threads <= 1 || rows * cols * es < cs_eng_par_min_bytes) {
        cs_eng_xform2d(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
        return;
    }
#ifdef _OPENMP
    int split_cols = cols >= threads;
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t len = split_cols ? cols : rows;
        int64_t lo = len * t / nt, hi = len * (t + 1) / nt;
        if (split_cols) {
            cs_eng_xform2d(x, rows, hi - lo, s + lo * scs * es, srs, scs,
                           d + lo * dcs * es, drs, dcs, i0, j0 + lo);
        } else {
            cs_eng_xform2d(x, hi - lo, cols, s + lo * srs * es, srs, scs,
                           d + lo * drs * es, drs, dcs, i0 + lo, j0);
        }
    }
#else
    cs_eng_xform2d(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
#endif
}

/* Which way a combo is copied. */
typedef enum { DIR_PACK, DIR_UNPACK, DIR_LOCAL } dir_t;

/*
 * Communication progress while this rank copies.  RATIONALE: MPI moves a
 * large message (rendezvous) only when both sides call into MPI; a rank
 * busy packing or copying its local blocks for tens of milliseconds would
 * stall its peers' transfers.  So copies call progress_poll() every
 * CS_ENG_POLL_BYTES, which also unpacks any package that has arrived.
 */
typedef struct {
    cs_eng_exch_t *plan;
    int nrecvreq;       /* receive request slots (first in plan->reqs) */
    int expected;       /* receive requests posted so far (a message that
                         * may come in pieces posts them once its first
                         * piece is in) */
    int nreq;           /* all requests; no polling when there are none */
    int done;           /* receive requests completed */
    int ndone;          /* acknowledgements sent or expected (done_reqs) */
    MPI_Comm comm;
    int busy;           /* inside an unpack started by a poll */
    int overlap;
    int threads;
    int64_t since;      /* bytes copied since the last poll */
    double t_unpack;    /* seconds in unpack_peer so far */
    const char *a;
    char *b, *rbuf;
} progress_t;

static const int64_t cs_eng_poll_bytes = (int64_t)1 << 19;

static void copy_peer(const cs_eng_exch_t *plan, const cs_eng_peer_t *pe,
                      const cs_eng_combo_t *combos, dir_t dir, const char *a,
                      char *b, char *buf, int64_t off, int threads,
                      int stream, progress_t *pg);

/*
 * 1 when the plan's packages may wait in the shared send buffer: not for
 * plain copies, whose receivers may take a package or a piece straight
 * into B (plan.c, messages.c), where a signal cannot stand for it (and
 * where the shared buffer would save no copy).  The same on every rank.
 */
static int shm_kind(const cs_eng_exch_t *plan)
{
    return plan->op.trans || !cs_eng_xform_plain(&plan->xf);
}

/* The package size from which the shared send buffer is used (0: never):
 * the caller's threshold, at least CS_ENG_SHM_MIN_FLOOR. */
static int64_t shm_threshold(int64_t min_bytes)
{
    return min_bytes > 0 && min_bytes < CS_ENG_SHM_MIN_FLOOR
               ? CS_ENG_SHM_MIN_FLOOR
               : min_bytes;
}

/* The message of pe's package when the package may wait in the shared
 * send buffer (one message of min..chunk bytes, nothing direct); NULL
 * otherwise. */
static const cs_eng_msg_t *shm_message(const cs_eng_exch_t *plan,
                                       const cs_eng_peer_t *pe,
                                       const cs_eng_msg_t *msgs, int64_t min,
                                       int64_t chunk)
{
    if (!shm_kind(plan) || pe->zc_off >= 0 || pe->msg_count != 1) {
        return NULL;
    }
    const cs_eng_msg_t *m = &msgs[pe->msg_first];
    return m->doff < 0 && m->len >= min && m->len <= chunk ? m : NULL;
}

/*
 * Unpack the package of receive peer p, whose messages are all in.  A
 * package the sender left in its shared send buffer arrived as a 16-byte
 * signal (magic, offset) instead (plan->rx_signal[p], recv_done): it is
 * read from there and acknowledged, so the sender may reuse the buffer.
 * RATIONALE: the receiver tells the two apart by the size alone, so the
 * sides need not agree beforehand: such packages are at least
 * CS_ENG_SHM_MIN_FLOOR bytes and would travel as one message, or as
 * pieces larger than a signal (cs_eng_msg_piece).
 */
static void unpack_peer_now(cs_eng_exch_t *plan, int p, progress_t *pg);

/* unpack_peer_now, timed */
static void unpack_peer(cs_eng_exch_t *plan, int p, progress_t *pg)
{
    double t0 = MPI_Wtime();
    unpack_peer_now(plan, p, pg);
    pg->t_unpack += MPI_Wtime() - t0;
}

static void unpack_peer_now(cs_eng_exch_t *plan, int p, progress_t *pg)
{
    const cs_eng_peer_t *pe = &plan->recv[p];
    const cs_eng_msg_t *mg = shm_message(plan, pe, plan->recv_msg,
                                         CS_ENG_SHM_MIN_FLOOR, plan->chunk);
    if (mg) {
        if (plan->rx_signal[p]) {
            int64_t sig[2];
            memcpy(sig, pg->rbuf + pe->buf_off + mg->buf, sizeof(sig));
            char *base = cs_eng_shm_peer(pg->comm, pe->peer);
            if (sig[0] != cs_eng_shm_magic || !base) {
                cs_eng_fatal("a shared-buffer signal from rank %d that "
                             "this rank cannot read", pe->peer);
            }
            cs_eng_shm_sync();
            copy_peer(plan, pe, plan->recv_combo, DIR_UNPACK, pg->a, pg->b,
                      base, sig[1], pg->threads, 0, NULL);
            check_mpi(MPI_Isend(NULL, 0, MPI_BYTE, pe->peer, CS_ENG_TAG_DONE,
                                pg->comm, &plan->done_reqs[pg->ndone++]),
                      "MPI_Isend");
            return;
        }
    }
    copy_peer(plan, pe, plan->recv_combo, DIR_UNPACK, pg->a, pg->b, pg->rbuf,
              pe->buf_off, pg->threads, 0, NULL);
}

/* Where message mg of receive peer pe lands: straight in B, or in the
 * receive buffer. */
static char *recv_dst(const cs_eng_peer_t *pe, const cs_eng_msg_t *mg,
                      char *b, char *rbuf)
{
    return pe->zc_off >= 0 ? b + pe->zc_off + mg->off
           : mg->doff >= 0 ? b + mg->doff
                           : rbuf + pe->buf_off + mg->buf;
}

/*
 * Receive request idx (of receive peer p) completed with status st.  The
 * message that may also come as a shared-buffer signal was received with
 * its whole length (its head): a signal ends the package, a first piece
 * brings the receives of the other pieces (into the slots kept after it).
 * With overlap, unpacks the package once all of it is in; otherwise the
 * caller unpacks at the end.
 */
static void recv_done(cs_eng_exch_t *plan, int idx, const MPI_Status *st,
                      progress_t *pg)
{
    int p = plan->req_peer[idx];
    const cs_eng_peer_t *pe = &plan->recv[p];
    int count = 0;
    MPI_Get_count(st, MPI_BYTE, &count);
    int64_t m = plan->req_head[idx];
    if (m >= 0 && count == CS_ENG_SIG_BYTES) {
        plan->rx_signal[p] = 1;
    } else if (m >= 0 && count < plan->recv_msg[m].len) {
        const cs_eng_msg_t *mg = &plan->recv_msg[m];
        int64_t piece = cs_eng_msg_piece(mg->len, plan->chunk);
        char *dst = recv_dst(pe, mg, pg->b, pg->rbuf);
        int slot = idx + 1;
        for (int64_t off = piece; off < mg->len; off += piece) {
            int64_t len = mg->len - off < piece ? mg->len - off : piece;
            check_mpi(MPI_Irecv(dst + off, (int)len, MPI_BYTE, pe->peer,
                                CS_ENG_TAG, pg->comm, &plan->reqs[slot++]),
                      "MPI_Irecv");
            plan->remaining[p]++;
            pg->expected++;
        }
    }
    pg->done++;
    if (--plan->remaining[p] == 0 && pg->overlap) {
        unpack_peer(plan, p, pg);
    }
}

static void progress_poll(progress_t *pg)
{
    if (!pg || pg->busy || !pg->overlap || pg->nreq == 0) {
        return;
    }
    pg->since = 0;
    cs_eng_exch_t *plan = pg->plan;
    int out = 0;
    check_mpi(test_some(pg->nrecvreq, plan->reqs, &out, plan->test_idx,
                        plan->statuses),
              "MPI_Testsome");
    if (out == MPI_UNDEFINED) {
        return;
    }
    pg->busy = 1;
    for (int k = 0; k < out; k++) {
        recv_done(plan, plan->test_idx[k], &plan->statuses[k], pg);
    }
    pg->busy = 0;
}

/* cs_eng_poll_fn for the trapezoid's packing (trapezoid.c). */
static void poll_bytes(void *ctx, int64_t bytes)
{
    progress_t *pg = ctx;
    if ((pg->since += bytes) >= cs_eng_poll_bytes) {
        progress_poll(pg);
    }
}

/*
 * One block of a package or of the local copy.  Packages hold A's elements
 * in A's orientation (column-major, |rows| x |cols| of the target, or
 * |cols| x |rows| when transposed); the transform (scale, transpose,
 * conjugate, mask) happens when unpacking or copying locally, so it
 * overlaps with the packages still in flight.  RATIONALE: transposing when
 * packing instead (a target-oriented package, which whole local columns
 * of B could receive directly) was measured slower: pdtran 4000 x 4000
 * 13.5 -> 18.8 ms, a = 2, b = 3 15.2 -> 21 ms, only the 2 x 1 grid gained
 * (16.8 -> 15.1 ms).
 */
static void copy_combo(const cs_eng_exch_t *plan, const cs_eng_combo_t *cb,
                       dir_t dir, const char *a, char *b, char *pkg,
                       int threads, progress_t *pg)
{
    const cs_eng_overlay_t *ro = &plan->rows, *co = &plan->cols;
    const cs_eng_group_t *rg = &ro->group[cb->rg], *cg = &co->group[cb->cg];
    int side = dir == DIR_PACK     ? CS_ENG_SIDE_A
               : dir == DIR_UNPACK ? CS_ENG_SIDE_B
                                   : CS_ENG_SIDE_AB;
    const cs_eng_run_t *rr = ro->runs[side] + rg->run_first[side];
    const cs_eng_run_t *cr = co->runs[side] + cg->run_first[side];
    int64_t es = (int64_t)plan->op.esize;
    int tr = plan->op.trans;
    int64_t ars, acs, brs, bcs, R = rg->total, C = cg->total;
    strides(plan->a_order, plan->a_ld, &ars, &acs);
    strides(plan->b_order, plan->b_ld, &brs, &bcs);
    /* with a transpose, target rows are A's columns */
    int64_t ta_rs = tr ? acs : ars, ta_cs = tr ? ars : acs;
    /* the package block in target orientation */
    int64_t tp_rs = tr ? C : 1, tp_cs = tr ? 1 : R;
    for (int64_t j = 0; j < cg->run_count[side]; j++) {
        for (int64_t i = 0; i < rg->run_count[side]; i++) {
            const cs_eng_run_t *r = &rr[i], *c = &cr[j];
            /* only the pointers of the sides this direction touches are
             * formed (the other base may be NULL) */
            const char *as = dir != DIR_UNPACK
                                 ? a + (r->offa * ta_rs + c->offa * ta_cs) * es
                                 : NULL;
            char *p = dir != DIR_LOCAL
                          ? pkg + (r->pos * tp_rs + c->pos * tp_cs) * es
                          : NULL;
            char *bd = dir != DIR_PACK
                           ? b + (r->offb * brs + c->offb * bcs) * es
                           : NULL;
            if (dir == DIR_PACK) {
                /* A's orientation: plain copy, long columns */
                if (tr) {
                    xform_par(threads, &plan->pack_xf, c->len, r->len, as,
                              ars, acs, p, 1, C, 0, 0);
                } else {
                    xform_par(threads, &plan->pack_xf, r->len, c->len, as,
                              ars, acs, p, 1, R, 0, 0);
                }
            } else if (dir == DIR_UNPACK) {
                xform_par(threads, &plan->xf, r->len, c->len, p, tp_rs, tp_cs,
                          bd, brs, bcs, r->start, c->start);
            } else {
                xform_par(threads, &plan->xf, r->len, c->len, as, ta_rs,
                          ta_cs, bd, brs, bcs, r->start, c->start);
            }
            if (pg && (pg->since += r->len * c->len * es) >=
                          cs_eng_poll_bytes) {
                progress_poll(pg);
            }
        }
    }
}

/*
 * The pieces a package column takes from the A column at acol, asked for
 * PACK_AHEAD columns ahead of their copy, where a package column is short
 * (at most CS_ENG_PREFETCH_AHEAD_MAX bytes).  RATIONALE: such a column's
 * pieces (a block's height, 1 KiB at 128 doubles) lie in another page for
 * each A column, too little for the hardware prefetcher to follow, so each
 * piece waited for memory in turn.  Measured (one process, the pack of
 * pdtran 4000 x 4000 on 1 x 2 in panels of 500 rows, 32 MiB, CI machine):
 * 3.3-4.0 ms without, 1.7-2.3 / 1.6-2.1 / 1.5-1.8 ms fetching 1 / 2 / 4
 * columns ahead; in bench_tran's pdtran a 10.3-10.8 -> 8.9-9.8 ms (3
 * alternating runs).  Long package columns lost (pdgemr2d 1 x 2 -> 2 x 1,
 * 64-row pieces of 4000-row columns: 7.1-8.6 -> 9.2-10.3 ms): there the
 * hardware follows the column.
 */
enum { PACK_AHEAD = 4 };

static void prefetch_pieces(const char *acol, const cs_eng_run_t *irun,
                            int64_t nin, int64_t es)
{
    for (int64_t i = 0; i < nin; i++) {
        cs_eng_prefetch(acol + irun[i].offa * es, irun[i].len * es);
    }
}

/*
 * Packing from a column-major A, one package column at a time.  RATIONALE:
 * a package column gathers pieces of one A column from every run of the
 * other dimension; writing it run by run (copy_combo's order) would sweep
 * the whole package once per run, touching every page again each time.
 * Column by column, the package is written once, front to back, and each
 * A column is read front to back too.
 *
 * stream: the package (pe->bytes, all of it) has between
 * CS_ENG_PACK_STREAM_MIN and CS_ENG_PACK_STREAM_MAX bytes, and the plan's
 * calls ran faster so (pack_choice: both ways timed, choice.c); then
 * short package columns (at most CS_ENG_PREFETCH_AHEAD_MAX bytes) are
 * written with streaming stores.
 * RATIONALE: the package is read by another process on another core, and
 * the last call's copy of each line is still in that core's cache, so an
 * ordinary store first waits for the line to be taken back from there.
 * Written front to back, the pieces fill whole lines, which streaming
 * stores write without asking for them.  Measured (CI machine): a plain C
 * copy of the pack of CP2K's pdgemr2d 293 x 293 (48 -> 32 row blocks on
 * 2 x 1, 160 KiB, 4 pieces of 5-32 doubles per column) took 5 us alone,
 * 35-41 us when a thread on the other core read the package after each
 * pack, 11 us so with streaming stores (prefetching the lines for
 * writing: 10-12 us; flushing them first: 13-14 us).  In the engine
 * (replay_call of that call, MPICH, 3000 calls, 2 alternations) pack
 * 27-29 -> 10-16 us, the call 66-75 -> 47-61 us per rank; in CP2K
 * (rpa_ch3, Open MPI, 8000 such calls per rank, 2 alternations) 52-67 ->
 * 39-48 us.  Large packages lost: pdtran 4000 x 4000 on 1 x 2 (4 MiB
 * packages per panel) 8.3-8.8 -> 10.9-11.9 ms, pack 2.9-4.4 -> 5.0-6.4 ms
 * (bench_tran, 2 alternations): there the receiver reads most of the
 * package from this core's caches, and with streaming stores from
 * memory.  Hence the upper bound: half of this machine's 1 MiB L2.  And
 * the lower one: a package small enough to go in pieces that MPI sends
 * eagerly (cs_eng_msg_piece) is copied by this process's own MPI, and is
 * better left in its cache.  Between the two, how much streaming gains
 * depends on where the virtual machine's cores sit: pdgemr2d 238 x 238
 * (38 -> 32 row blocks, 119-126 KiB packages, MPICH) took 23-26 us per
 * call in two runs whose plain packing took 4-5 us, 35-53 us streamed,
 * and in a later run (3 alternations) 53-58 us plain, 38-43 streamed;
 * with Open MPI 52-57 -> 35-42 us, and pdgemr2d 160 x 160 (30-50 KiB
 * packages) 25-26 -> 16-18 us (replay_call, 3000 calls).  Hence the timed
 * choice: on 2026-12-03 at 14:20 UTC, plain packing being fast again,
 * always streaming took 51-55 us per call (pack 18) for the 293 x 293
 * shape (MPICH, replay_call, 2 alternations) and 50-55 in CP2K rpa_ch3
 * (Open MPI), the timed choice 34-38 and 32-34 (pack 5-7).
 */
#define CS_ENG_PACK_STREAM_MAX ((int64_t)512 << 10)
#define CS_ENG_PACK_STREAM_MIN ((int64_t)CS_ENG_PIECE_MAX + 1)
static void pack_columns(const cs_eng_exch_t *plan, const cs_eng_combo_t *cb,
                         const char *a, char *pkg, int stream, progress_t *pg)
{
    const cs_eng_overlay_t *ro = &plan->rows, *co = &plan->cols;
    const cs_eng_group_t *rg = &ro->group[cb->rg], *cg = &co->group[cb->cg];
    int tr = plan->op.trans;
    /* A's columns come from the column runs, or the row runs when
     * transposed; the pieces inside a column from the other dimension */
    const cs_eng_overlay_t *oo = tr ? ro : co, *io = tr ? co : ro;
    const cs_eng_group_t *og = tr ? rg : cg, *ig = tr ? cg : rg;
    const cs_eng_run_t *orun = oo->runs[CS_ENG_SIDE_A] +
                               og->run_first[CS_ENG_SIDE_A];
    const cs_eng_run_t *irun = io->runs[CS_ENG_SIDE_A] +
                               ig->run_first[CS_ENG_SIDE_A];
    int64_t nin = ig->run_count[CS_ENG_SIDE_A], ld = ig->total;
    int64_t es = (int64_t)plan->op.esize, lda = plan->a_ld;
    int ahead = ld * es <= CS_ENG_PREFETCH_AHEAD_MAX;
    stream = stream && ahead && cs_eng_words_stream_ok(pkg, (size_t)es);
    for (int64_t j = 0; j < og->run_count[CS_ENG_SIDE_A]; j++) {
        for (int64_t k = 0; k < orun[j].len; k++) {
            const char *acol = a + (orun[j].offa + k) * lda * es;
            char *pcol = pkg + (orun[j].pos + k) * ld * es;
            if (ahead && k + PACK_AHEAD < orun[j].len) {
                prefetch_pieces(acol + PACK_AHEAD * lda * es, irun, nin, es);
            }
            for (int64_t i = 0; i < nin; i++) {
                char *d = pcol + irun[i].pos * es;
                const char *s = acol + irun[i].offa * es;
                size_t n = (size_t)(irun[i].len * es);
                if (stream) {
                    cs_eng_copy_words_stream(d, s, n);
                } else {
                    memcpy(d, s, n);
                }
            }
            if (pg && (pg->since += ld * es) >= cs_eng_poll_bytes) {
                progress_poll(pg);
            }
        }
    }
    if (stream) {
        cs_eng_store_fence(); /* before the package is sent */
    }
}

/* 1 if pack_columns may pack pe's package with streaming stores (when
 * the plan's pack_choice allows it). */
static int pack_may_stream(const cs_eng_exch_t *plan,
                           const cs_eng_peer_t *pe, int threads)
{
    return pe->zc_off < 0 && !plan->compact &&
           plan->a_order == CS_ENG_COLMAJOR && threads <= 1 &&
           pe->bytes >= CS_ENG_PACK_STREAM_MIN &&
           pe->bytes <= CS_ENG_PACK_STREAM_MAX;
}

/* buf + off: the package of pe (unused when it travels directly); stream:
 * packing may use streaming stores (pack_may_stream) */
static void copy_peer(const cs_eng_exch_t *plan, const cs_eng_peer_t *pe,
                      const cs_eng_combo_t *combos, dir_t dir, const char *a,
                      char *b, char *buf, int64_t off, int threads,
                      int stream, progress_t *pg)
{
    if (pe->zc_off >= 0) {
        return; /* sent from A or received into B directly */
    }
    stream = stream && pack_may_stream(plan, pe, threads);
    for (int64_t k = pe->first; k < pe->first + pe->count; k++) {
        if (combos[k].direct) {
            continue; /* sent from A or received into B directly */
        }
        char *pkg = buf + off + combos[k].buf;
        if (plan->compact && dir != DIR_LOCAL) {
            int nt = combos[k].bytes >= cs_eng_par_min_bytes ? threads : 1;
            cs_eng_trap_copy(plan, &combos[k], dir == DIR_UNPACK, a, b, pkg,
                             nt, pg ? poll_bytes : NULL, pg);
        } else if (dir == DIR_PACK && plan->a_order == CS_ENG_COLMAJOR &&
            threads <= 1) {
            pack_columns(plan, &combos[k], a, pkg, stream, pg);
        } else {
            copy_combo(plan, &combos[k], dir, a, b, pkg, threads, pg);
        }
    }
}

void cs_eng_exch_copy_package(const cs_eng_exch_t *plan,
                              const cs_eng_peer_t *pe, int unpack,
                              const char *a, char *b, char *pkg, int threads)
{
    const cs_eng_combo_t *combos =
        unpack ? plan->recv_combo : plan->send_combo;
    a = plan->b_only ? b : a;
    for (int64_t k = pe->first; k < pe->first + pe->count; k++) {
        char *at = pkg + combos[k].off;
        if (plan->compact) {
            int nt = combos[k].bytes >= cs_eng_par_min_bytes ? threads : 1;
            cs_eng_trap_copy(plan, &combos[k], unpack, a, b, at, nt, NULL,
                             NULL);
        } else if (!unpack && plan->a_order == CS_ENG_COLMAJOR &&
                   threads <= 1) {
            pack_columns(plan, &combos[k], a, at, 0, NULL);
        } else {
            copy_combo(plan, &combos[k], unpack ? DIR_UNPACK : DIR_PACK, a, b,
                       at, threads, NULL);
        }
    }
}

void cs_eng_exch_copy_local(const cs_eng_exch_t *plan, const char *a, char *b,
                            int threads)
{
    a = plan->b_only ? b : a;
    for (int64_t k = 0; k < plan->nlocal; k++) {
        copy_combo(plan, &plan->local_combo[k], DIR_LOCAL, a, b, NULL,
                   threads, NULL);
    }
}

/* Requests (message chunks) the plan's execution posts with messages of
 * at most chunk bytes. */
static int64_t plan_requests(const cs_eng_exch_t *plan, int64_t chunk)
{
    int64_t nreq = 0;
    for (int p = 0; p < plan->nsend; p++) {
        nreq += msg_chunks(plan->send_msg, &plan->send[p], chunk);
    }
    for (int p = 0; p < plan->nrecv; p++) {
        nreq += msg_chunks(plan->recv_msg, &plan->recv[p], chunk);
    }
    return nreq;
}

int64_t cs_eng_exch_requests_need(const cs_eng_exch_t *plan,
                                  const cs_eng_exec_opts_t *opts)
{
    int64_t nreq = plan_requests(plan, cs_eng_exch_chunk(opts));
    return !plan->reqs || nreq > plan->nreq_cap
               ? cs_eng_exch_requests_bytes(plan, nreq)
               : 0;
}

cs_status_t cs_eng_exch_reserve(cs_eng_exch_t *plan,
                                const cs_eng_exec_opts_t *opts)
{
    int64_t chunk = cs_eng_exch_chunk(opts);
    int64_t nreq = plan_requests(plan, chunk);
    if (nreq > INT32_MAX) {
        return CS_ERR_LIMIT;
    }
    cs_status_t st = cs_eng_exch_requests_alloc(plan, nreq);
    if (st != CS_OK) {
        return st;
    }
    plan->chunk = chunk;
    int64_t ws = cs_eng_exch_workspace_bytes(plan);
    if (ws > 0 && !cs_eng_workspace_get((size_t)ws)) {
        return CS_ERR_NOMEM;
    }
    plan->reserved = 1;
    return CS_OK;
}

cs_status_t cs_eng_exch_execute(cs_eng_exch_t *plan, const void *a_base,
                                void *b_base, MPI_Comm comm,
                                const cs_eng_exec_opts_t *opts,
                                cs_eng_stats_t *stats_p)
{
    int threads = opts && opts->threads > 1 ? opts->threads : 1;
#ifdef _OPENMP
    if (omp_in_parallel()) {
        threads = 1;
    }
#else
    threads = 1;
#endif
    int overlap = opts ? opts->overlap : 1;
    if (!plan->reserved || plan->chunk != cs_eng_exch_chunk(opts)) {
        cs_status_t st = cs_eng_exch_reserve(plan, opts);
        if (st != CS_OK) {
            return st;
        }
    }
    int64_t chunk = plan->chunk;
    double t0 = MPI_Wtime(); /* phases: see cs_eng_stats_t */
    char *ws = plan->send_ws + plan->recv_ws > 0
                   ? cs_eng_workspace_get(
                         (size_t)(plan->send_ws + plan->recv_ws))
                   : NULL;
    /* packing into the shared send buffer when it can hold the packages */
    int64_t shm_min = shm_threshold(opts ? opts->shm_min_bytes : 0);
    char *shm = shm_min > 0 && plan->send_ws > 0 &&
                        plan->send_ws <= cs_eng_shm_size()
                    ? cs_eng_shm_mine()
                    : NULL;
    char *sbuf = shm ? shm : ws, *rbuf = ws ? ws + plan->send_ws : NULL;
    char *b = b_base;
    /* alpha = 0: the plan made B both parts and A is never read */
    const char *a = plan->b_only ? b : a_base;
    MPI_Request *reqs = plan->reqs;
    int nr = 0;

    /* 1. every receive first, so senders never wait for a late post */
    int posted = 0;
    for (int p = 0; p < plan->nrecv; p++) {
        const cs_eng_peer_t *pe = &plan->recv[p];
        plan->remaining[p] = 0;
        plan->rx_signal[p] = 0;
        /* the package's one message, when it may come as a signal */
        const cs_eng_msg_t *sm = shm_message(plan, pe, plan->recv_msg,
                                             CS_ENG_SHM_MIN_FLOOR, chunk);
        for (int64_t m = pe->msg_first; m < pe->msg_first + pe->msg_count;
             m++) {
            const cs_eng_msg_t *mg = &plan->recv_msg[m];
            char *dst = recv_dst(pe, mg, b, rbuf);
            int64_t piece = cs_eng_msg_piece(mg->len, chunk);
            int head = mg == sm; /* a signal, the whole or a first piece */
            for (int64_t off = 0; off < mg->len; off += piece) {
                int64_t len = mg->len - off < piece ? mg->len - off : piece;
                plan->req_peer[nr] = p;
                plan->req_head[nr] = head && off == 0 ? m : -1;
                if (head && off > 0) {
                    /* posted by recv_done once the first piece is in */
                    reqs[nr++] = MPI_REQUEST_NULL;
                    continue;
                }
                check_mpi(MPI_Irecv(dst + off, (int)(head ? mg->len : len),
                                    MPI_BYTE, pe->peer, CS_ENG_TAG, comm,
                                    &reqs[nr++]),
                          "MPI_Irecv");
                plan->remaining[p]++;
                posted++;
            }
        }
    }
    int nrecvreq = nr;

    /* 2. pack and send package by package, in the plan's order (largest
     * first, see order_sends in plan.c); small packages with streaming
     * stores or plainly, whichever this plan's calls ran faster with */
    int may_stream = 0;
    for (int p = 0; p < plan->nsend && !may_stream; p++) {
        may_stream = pack_may_stream(plan, &plan->send[p], threads);
    }
    int stream = may_stream ? cs_eng_choice_next(&plan->pack_choice, 1) : 0;
    progress_t pg = {.plan = plan,
                     .nrecvreq = nrecvreq,
                     .expected = posted,
                     .nreq = nrecvreq + plan->nsend,
                     .comm = comm,
                     .overlap = overlap,
                     .threads = threads,
                     .a = a,
                     .b = b,
                     .rbuf = rbuf};
    for (int k = 0; k < plan->nsend; k++) {
        const cs_eng_peer_t *pe = &plan->send[plan->send_order[k]];
        copy_peer(plan, pe, plan->send_combo, DIR_PACK, a, b, sbuf,
                  pe->buf_off, threads, stream, &pg);
        const cs_eng_msg_t *m0 =
            shm_min > 0
                ? shm_message(plan, pe, plan->send_msg, shm_min, chunk)
                : NULL;
        if (m0 && shm && cs_eng_shm_peer(comm, pe->peer)) {
            /* the receiver reads the package here; it acknowledges */
            int64_t *sig = plan->sig + 2 * (int64_t)k;
            sig[0] = cs_eng_shm_magic;
            sig[1] = pe->buf_off + m0->buf;
            cs_eng_shm_sync();
            check_mpi(MPI_Isend(sig, CS_ENG_SIG_BYTES, MPI_BYTE, pe->peer,
                                CS_ENG_TAG, comm, &reqs[nr++]),
                      "MPI_Isend");
            check_mpi(MPI_Irecv(NULL, 0, MPI_BYTE, pe->peer, CS_ENG_TAG_DONE,
                                comm, &plan->done_reqs[pg.ndone++]),
                      "MPI_Irecv");
            continue;
        }
        if (m0) {
            cs_eng_shm_count(m0->len); /* could have waited in the buffer */
        }
        /* the same cut as the receiver's (messages.c): MPI keeps the order
         * of messages between two ranks */
        for (int64_t m = pe->msg_first; m < pe->msg_first + pe->msg_count;
             m++) {
            const cs_eng_msg_t *mg = &plan->send_msg[m];
            const char *src = pe->zc_off >= 0 ? a + pe->zc_off + mg->off
                              : mg->doff >= 0 ? a + mg->doff
                                              : sbuf + pe->buf_off + mg->buf;
            int64_t piece = cs_eng_msg_piece(mg->len, chunk);
            for (int64_t off = 0; off < mg->len; off += piece) {
                int64_t len = mg->len - off < piece ? mg->len - off : piece;
                check_mpi(MPI_Isend(src + off, (int)len, MPI_BYTE, pe->peer,
                                    CS_ENG_TAG, comm, &reqs[nr++]),
                          "MPI_Isend");
            }
        }
    }

    double t_packed = MPI_Wtime(), u_packed = pg.t_unpack;
    /* 3. blocks that stay here: straight from A to B, while messages fly */
    for (int64_t k = 0; k < plan->nlocal; k++) {
        copy_combo(plan, &plan->local_combo[k], DIR_LOCAL, a, b, NULL,
                   threads, &pg);
    }

    double t_copied = MPI_Wtime(), u_copied = pg.t_unpack;
    /* 4. unpack each package as soon as all its chunks are in (some were
     * already unpacked by the polls above) */
    while (pg.done < pg.expected) {
        int idx;
        MPI_Status st;
        check_mpi(MPI_Waitany(nrecvreq, reqs, &idx, &st), "MPI_Waitany");
        recv_done(plan, idx, &st, &pg);
    }
    if (!overlap) {
        /* everything is in: unpack in the plan's order */
        for (int p = 0; p < plan->nrecv; p++) {
            unpack_peer(plan, p, &pg);
        }
    }
    check_mpi(cs_eng_wait_all(nr - nrecvreq, reqs + nrecvreq), "MPI_Waitall");
    /* packages read from shared buffers: acknowledgements sent, and
     * (before this rank's buffer may be packed again) received */
    check_mpi(cs_eng_wait_all(pg.ndone, plan->done_reqs), "MPI_Waitall");
    double t_end = MPI_Wtime();
    if (may_stream) {
        cs_eng_choice_record(&plan->pack_choice, stream, t_end - t0, 1);
    }

    if (stats_p) {
        stats_p->t_pack = t_packed - t0 - u_packed;
        stats_p->t_local = t_copied - t_packed - (u_copied - u_packed);
        stats_p->t_unpack = pg.t_unpack;
        stats_p->t_transfer = t_end - t_copied - (pg.t_unpack - u_copied);
        const int *grp = opts ? opts->peer_group : NULL;
        stats_p->bytes_sent_near = 0;
        for (int p = 0; grp && p < plan->nsend; p++) {
            if (grp[plan->send[p].peer] == grp[plan->me]) {
                stats_p->bytes_sent_near += plan->send[p].bytes;
            }
        }
        stats_p->bytes_sent = plan->send_bytes;
        stats_p->bytes_recv = plan->recv_bytes;
        stats_p->bytes_self = plan->self_bytes;
        stats_p->msgs_sent = nr - nrecvreq;
        stats_p->msgs_recv = pg.expected;
        stats_p->threads = threads;
    }
    return CS_OK;
}

int64_t cs_eng_exch_shm_bytes(const cs_eng_exch_t *plan, int64_t min_bytes)
{
    min_bytes = shm_threshold(min_bytes);
    if (min_bytes <= 0) {
        return 0;
    }
    for (int p = 0; p < plan->nsend; p++) {
        if (shm_message(plan, &plan->send[p], plan->send_msg, min_bytes,
                        cs_eng_default_max_msg)) {
            return plan->send_ws;
        }
    }
    return 0;
}
