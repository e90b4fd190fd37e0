/*
 * engine/batch.c - several exchanges in one round (the COSTA paper's
 * batched transformation): the packages that the plans of a batch send
 * from this rank to one peer travel as one message, the plans' packages
 * one after the other in the order of the plans.  The receiver cuts the
 * message the same way, since its plans' packages from that rank have the
 * same sizes (both sides derive them from the same layouts).
 *
 * RATIONALE: the multiplication brings op(A)'s and op(B)'s slabs in from
 * layouts that are unrelated to each other; run one after the other, the
 * two exchanges pay their latencies and waits twice and the second's
 * messages cannot overlap the first's copies.  A batch pays them once and
 * sends one message per pair of processes.  Its price: every package is
 * packed and unpacked, also those a single exchange sends from A or
 * receives into B directly (exchange.c), so the caller gives a buffer for
 * all of them (cs_eng_batch_buffer_bytes).
 *
 * A message goes in pieces as exchange.c cuts its messages (at the
 * message limit, and small ones into the pieces MPI sends eagerly,
 * cs_eng_msg_piece), one piece in flight per peer and direction: so the
 * request arrays have one slot per peer, whatever the limit, and are made
 * with the batch.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Batched messages; not the tags of exchange.c, so that a batch can never
 * take a message of a single exchange. */
enum { CS_ENG_TAG_BATCH = 27913 };

/* One plan's package inside a batched message. */
typedef struct {
    int plan;    /* index in the batch */
    int64_t idx; /* its peer entry in that plan's send[] or recv[] */
    int64_t off; /* byte offset inside the message */
} part_t;

/* One peer's batched message. */
typedef struct {
    int peer;
    int64_t bytes;
    int64_t buf;          /* byte offset in the caller's buffer */
    int64_t first, count; /* its parts */
    int64_t pos;          /* bytes posted so far (execution) */
} bpeer_t;

typedef struct {
    int n;
    bpeer_t *peer;
    part_t *part;
    int64_t bytes;
} side_t;

struct cs_eng_batch {
    int n;
    cs_eng_exch_t **x; /* the plans' exchanges, borrowed */
    side_t send, recv;
    int64_t self_bytes;
    MPI_Request *reqs; /* recv.n receive slots, then send.n send slots */
};

typedef struct {
    int peer, plan;
    int64_t idx, bytes;
} entry_t;

static int entry_cmp(const void *x, const void *y)
{
    const entry_t *a = x, *b = y;
    if (a->peer != b->peer) {
        return a->peer < b->peer ? -1 : 1;
    }
    return a->plan < b->plan ? -1 : a->plan > b->plan;
}

/* Larger messages first, as exchange.c sends its packages. */
static int peer_cmp(const void *x, const void *y)
{
    const bpeer_t *a = x, *b = y;
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1;
    }
    return a->peer < b->peer ? -1 : a->peer > b->peer;
}

/* One side's messages from every plan's peer entries of that side. */
static cs_status_t side_make(cs_eng_exch_t **x, int n, int sending, side_t *sd)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        total += sending ? x[i]->nsend : x[i]->nrecv;
    }
    entry_t *e = malloc(((size_t)total + 1) * sizeof(*e));
    sd->part = malloc(((size_t)total + 1) * sizeof(*sd->part));
    sd->peer = calloc((size_t)total + 1, sizeof(*sd->peer));
    if (!e || !sd->part || !sd->peer) {
        free(e);
        return CS_ERR_NOMEM;
    }
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        int np = sending ? x[i]->nsend : x[i]->nrecv;
        const cs_eng_peer_t *pe = sending ? x[i]->send : x[i]->recv;
        for (int p = 0; p < np; p++) {
            e[k++] = (entry_t){pe[p].peer, i, p, pe[p].bytes};
        }
    }
    qsort(e, (size_t)total, sizeof(*e), entry_cmp);
    sd->n = 0;
    sd->bytes = 0;
    for (k = 0; k < total; k++) {
        if (k == 0 || e[k].peer != e[k - 1].peer) {
            sd->peer[sd->n++] = (bpeer_t){.peer = e[k].peer, .first = k};
        }
        bpeer_t *bp = &sd->peer[sd->n - 1];
        sd->part[k] = (part_t){e[k].plan, e[k].idx, bp->bytes};
        bp->bytes += e[k].bytes;
        bp->count++;
    }
    free(e);
    if (sending && sd->n > 1) {
        qsort(sd->peer, (size_t)sd->n, sizeof(*sd->peer), peer_cmp);
    }
    for (int p = 0; p < sd->n; p++) {
        sd->peer[p].buf = sd->bytes;
        sd->bytes += sd->peer[p].bytes;
    }
    return CS_OK;
}

void cs_eng_batch_destroy(cs_eng_batch_t *bt)
{
    if (!bt) {
        return;
    }
    free(bt->x);
    free(bt->send.peer);
    free(bt->send.part);
    free(bt->recv.peer);
    free(bt->recv.part);
    free(bt->reqs);
    free(bt);
}

cs_status_t cs_eng_batch_create(cs_eng_plan_t *const *plans, int n,
                                cs_eng_batch_t **batch_p)
{
    for (int i = 0; i < n; i++) {
        if (plans[i]->panels) {
            return CS_ERR_UNSUPPORTED; /* cut: one panel at a time */
        }
    }
    cs_eng_batch_t *bt = calloc(1, sizeof(*bt));
    if (!bt) {
        return CS_ERR_NOMEM;
    }
    bt->n = n;
    bt->x = malloc(((size_t)n + 1) * sizeof(*bt->x));
    cs_status_t st = bt->x ? CS_OK : CS_ERR_NOMEM;
    for (int i = 0; st == CS_OK && i < n; i++) {
        bt->x[i] = plans[i]->exch;
        bt->self_bytes += plans[i]->exch->self_bytes;
    }
    if (st == CS_OK) {
        st = side_make(bt->x, n, 1, &bt->send);
    }
    if (st == CS_OK) {
        st = side_make(bt->x, n, 0, &bt->recv);
    }
    if (st == CS_OK) {
        size_t nreq = (size_t)bt->send.n + (size_t)bt->recv.n + 1;
        bt->reqs = malloc(nreq * sizeof(*bt->reqs));
        st = bt->reqs ? CS_OK : CS_ERR_NOMEM;
    }
    if (st != CS_OK) {
        cs_eng_batch_destroy(bt);
        return st;
    }
    *batch_p = bt;
    return CS_OK;
}

int64_t cs_eng_batch_buffer_bytes(const cs_eng_batch_t *bt)
{
    return bt->send.bytes + bt->recv.bytes;
}

int64_t cs_eng_batch_heap_bytes(const cs_eng_batch_t *bt)
{
    int64_t parts = 0;
    for (int p = 0; p < bt->send.n; p++) {
        parts += bt->send.peer[p].count;
    }
    for (int p = 0; p < bt->recv.n; p++) {
        parts += bt->recv.peer[p].count;
    }
    return (int64_t)sizeof(*bt) + (bt->n + 1) * (int64_t)sizeof(*bt->x) +
           (bt->send.n + bt->recv.n + 2) *
               (int64_t)(sizeof(bpeer_t) + sizeof(MPI_Request)) +
           (parts + 2) * (int64_t)sizeof(part_t);
}

static void check_mpi(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        cs_eng_fatal("batch: %s failed (error %d)", what, rc);
    }
}

/* Post the next piece of message bp (receive or send) in *req. */
static void post_next(bpeer_t *bp, char *base, int64_t chunk, int recv,
                      MPI_Comm comm, MPI_Request *req, int64_t *msgs)
{
    int64_t piece = cs_eng_msg_piece(bp->bytes, chunk);
    int64_t len = cs_eng_min64(bp->bytes - bp->pos, piece);
    char *at = base + bp->buf + bp->pos;
    check_mpi(recv ? MPI_Irecv(at, (int)len, MPI_BYTE, bp->peer,
                               CS_ENG_TAG_BATCH, comm, req)
                   : MPI_Isend(at, (int)len, MPI_BYTE, bp->peer,
                               CS_ENG_TAG_BATCH, comm, req),
              recv ? "MPI_Irecv" : "MPI_Isend");
    bp->pos += len;
    (*msgs)++;
}

/* Pack (unpack 0) or unpack (1) every part of bp's message. */
static void copy_message(const cs_eng_batch_t *bt, const side_t *sd,
                         const bpeer_t *bp, int unpack, const void *const *a,
                         void *const *b, char *base, int threads)
{
    for (int64_t k = bp->first; k < bp->first + bp->count; k++) {
        const part_t *pt = &sd->part[k];
        const cs_eng_exch_t *x = bt->x[pt->plan];
        const cs_eng_peer_t *pe =
            unpack ? &x->recv[pt->idx] : &x->send[pt->idx];
        cs_eng_exch_copy_package(x, pe, unpack, a[pt->plan], b[pt->plan],
                                 base + bp->buf + pt->off, threads);
    }
}

cs_status_t cs_eng_batch_execute(cs_eng_batch_t *bt, const void *const *a,
                                 void *const *b, void *buf, MPI_Comm comm,
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
    int64_t chunk = cs_eng_exch_chunk(opts);
    char *sbuf = buf, *rbuf = (char *)buf + bt->send.bytes;
    int nr = bt->recv.n, ns = bt->send.n;
    MPI_Request *rreq = bt->reqs, *sreq = bt->reqs + nr;
    int64_t msgs_sent = 0, msgs_recv = 0;
    double t0 = MPI_Wtime(), t_unpack = 0;

    /* 1. every receive first (its first piece) */
    for (int p = 0; p < nr; p++) {
        bt->recv.peer[p].pos = 0;
        post_next(&bt->recv.peer[p], rbuf, chunk, 1, comm, &rreq[p],
                  &msgs_recv);
    }
    /* 2. pack and send message by message, larger ones first */
    for (int p = 0; p < ns; p++) {
        bpeer_t *bp = &bt->send.peer[p];
        copy_message(bt, &bt->send, bp, 0, a, b, sbuf, threads);
        bp->pos = 0;
        post_next(bp, sbuf, chunk, 0, comm, &sreq[p], &msgs_sent);
    }
    double t_packed = MPI_Wtime();
    /* 3. the blocks that stay here, while the messages fly */
    for (int i = 0; i < bt->n; i++) {
        cs_eng_exch_copy_local(bt->x[i], a[i], b[i], threads);
    }
    double t_copied = MPI_Wtime();
    /* 4. the next pieces as the previous ones complete; each message
     * unpacked once whole */
    int left = nr + ns;
    while (left > 0) {
        int idx;
        check_mpi(MPI_Waitany(nr + ns, bt->reqs, &idx, MPI_STATUS_IGNORE),
                  "MPI_Waitany");
        if (idx == MPI_UNDEFINED) {
            cs_eng_fatal("batch: %d messages never completed", left);
        }
        int recv = idx < nr;
        bpeer_t *bp = recv ? &bt->recv.peer[idx] : &bt->send.peer[idx - nr];
        if (bp->pos < bp->bytes) {
            post_next(bp, recv ? rbuf : sbuf, chunk, recv, comm, &bt->reqs[idx],
                      recv ? &msgs_recv : &msgs_sent);
            continue;
        }
        left--;
        if (recv && overlap) {
            double u = MPI_Wtime();
            copy_message(bt, &bt->recv, bp, 1, a, b, rbuf, threads);
            t_unpack += MPI_Wtime() - u;
        }
    }
    if (!overlap) {
        double u = MPI_Wtime();
        for (int p = 0; p < nr; p++) {
            copy_message(bt, &bt->recv, &bt->recv.peer[p], 1, a, b, rbuf,
                         threads);
        }
        t_unpack += MPI_Wtime() - u;
    }
    double t_end = MPI_Wtime();

    if (stats_p) {
        stats_p->t_pack = t_packed - t0;
        stats_p->t_local = t_copied - t_packed;
        stats_p->t_unpack = t_unpack;
        stats_p->t_transfer = t_end - t_copied - t_unpack;
        const int *grp = opts ? opts->peer_group : NULL;
        int me = bt->n > 0 ? bt->x[0]->me : -1;
        stats_p->bytes_sent_near = 0;
        for (int p = 0; grp && p < ns; p++) {
            if (grp[bt->send.peer[p].peer] == grp[me]) {
                stats_p->bytes_sent_near += bt->send.peer[p].bytes;
            }
        }
        stats_p->bytes_sent = bt->send.bytes;
        stats_p->bytes_recv = bt->recv.bytes;
        stats_p->bytes_self = bt->self_bytes;
        stats_p->msgs_sent = msgs_sent;
        stats_p->msgs_recv = msgs_recv;
        stats_p->threads = threads;
    }
    return CS_OK;
}
