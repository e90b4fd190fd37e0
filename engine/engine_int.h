/*
 * engine/engine_int.h - internals shared by the engine's files.
 *
 * Nothing here is visible outside engine/.  The overlay of one dimension is
 * global information: every rank computes the same segments and groups in
 * the same (pa, pb) order, which is what lets sender and receiver agree on
 * the order of elements in a package without exchanging anything.  A plan
 * then keeps only its own rank's groups (cs_eng_overlay_restrict), in that
 * order, so group indices differ between ranks but never the order.
 */
#ifndef CS_ENGINE_ENGINE_INT_H
#define CS_ENGINE_ENGINE_INT_H

#include "engine/engine.h"
#include "engine/kernels/kernels.h"

/* ------------------------------------------------------------ helpers */

static inline int64_t cs_eng_min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t cs_eng_max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) (exchange.c, where GCC's
 * false positive on MPICH's MPI_STATUSES_IGNORE is silenced once). */
int cs_eng_wait_all(int n, MPI_Request *reqs);
/* MPI_Testall(n, reqs, done, MPI_STATUSES_IGNORE), alike. */
int cs_eng_test_all(int n, MPI_Request *reqs, int *done);

/* ------------------------------------------------------------ fatal */

/* A fatal error (printf format, one line, lower case): the message goes
 * to the hook of cs_eng_set_fatal_hook(), or without one to cs_log_error,
 * and the job is aborted (fatal.c).  Never returns.  Every abort of the
 * engine goes through here. */
_Noreturn void cs_eng_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------ dist */

/* Copy of a distribution with nprocs == 1 turned into a single block. */
void cs_eng_dist_normalize(const cs_eng_dist_t *in, cs_eng_dist_t *out_p);
int64_t cs_eng_dist_block_of(const cs_eng_dist_t *d, int64_t x);
int64_t cs_eng_dist_block_start(const cs_eng_dist_t *d, int64_t k);
int64_t cs_eng_dist_block_end(const cs_eng_dist_t *d, int64_t k);
int cs_eng_dist_proc(const cs_eng_dist_t *d, int64_t k);
int64_t cs_eng_dist_loff(const cs_eng_dist_t *d, int64_t k);
cs_status_t cs_eng_dist_check(const cs_eng_dist_t *d);

/* ------------------------------------------------------------ overlay */

/* One piece of the overlay of two 1-D distributions over the operation's
 * range: the same A block and the same B block all along. */
typedef struct {
    int64_t start;      /* first index in the operation's range */
    int64_t len;
    int pa, pb;         /* owning coordinates in A's and B's dimension */
    int64_t offa, offb; /* local offsets on those owners */
    int64_t pos;        /* position inside its (pa, pb) group */
    int64_t kb;         /* index of its B block */
} cs_eng_seg_t;

/* A maximal run of segments of one group that are contiguous in local
 * memory on one side (or both); pos is the position inside the group. */
typedef struct {
    int64_t pos, len;
    int64_t offa, offb;
    int64_t start;      /* index of the first element in the operation */
} cs_eng_run_t;

/* CS_ENG_SIDE_CUT: pieces of a group inside one B block, consecutive in
 * the index; unlike the others, the same on every rank whatever its local
 * storage (messages.c cuts packages along them). */
enum {
    CS_ENG_SIDE_A = 0,
    CS_ENG_SIDE_B = 1,
    CS_ENG_SIDE_AB = 2,
    CS_ENG_SIDE_CUT = 3,
    CS_ENG_NSIDES = 4
};

/* All segments going from A coordinate pa to B coordinate pb. */
typedef struct {
    int pa, pb;
    int64_t total;          /* elements */
    int64_t run_first[CS_ENG_NSIDES]; /* per side: index into runs[side] */
    int64_t run_count[CS_ENG_NSIDES];
} cs_eng_group_t;

typedef struct {
    int64_t nseg;
    cs_eng_seg_t *seg;      /* in index order; NULL once restricted */
    int64_t ngroup;
    cs_eng_group_t *group;  /* sorted by (pa, pb) */
    int64_t *by_pb;         /* group indices sorted by (pb, pa) */
    int64_t nrun[CS_ENG_NSIDES];
    cs_eng_run_t *runs[CS_ENG_NSIDES];
} cs_eng_overlay_t;

/*
 * Overlay of distribution da from offset oa and db from offset ob over len
 * indices.  With keep_index, runs merge only segments that are also
 * consecutive in the operation's index (needed by masks, which depend on
 * the index).  Local.  On failure nothing is allocated.
 */
cs_status_t cs_eng_overlay_build(const cs_eng_dist_t *da, int64_t oa,
                                 const cs_eng_dist_t *db, int64_t ob,
                                 int64_t len, int keep_index,
                                 cs_eng_overlay_t *ov_p);
void cs_eng_overlay_free(cs_eng_overlay_t *ov);

/*
 * Keep only the groups whose A coordinate pa has keep_pa[pa] set or whose
 * B coordinate pb has keep_pb[pb] set (arrays over da's and db's
 * coordinates), with their runs; drop the segments (nseg becomes the number
 * of segments of the groups kept).  The groups kept stay in the same order,
 * so any two ranks that both keep a group still agree on where it sits in a
 * package; only the indices change.  Local.  On failure ov is unchanged.
 */
cs_status_t cs_eng_overlay_restrict(cs_eng_overlay_t *ov,
                                    const unsigned char *keep_pa,
                                    const unsigned char *keep_pb);

/* Range [*first_p, *first_p + *count_p) of groups with the given pa (in
 * ov->group order) or pb (in ov->by_pb order). */
void cs_eng_overlay_groups_pa(const cs_eng_overlay_t *ov, int pa,
                              int64_t *first_p, int64_t *count_p);
void cs_eng_overlay_groups_pb(const cs_eng_overlay_t *ov, int pb,
                              int64_t *first_p, int64_t *count_p);

/* ------------------------------------------------------------ plan */

/* 1 if op fits layouts a and b (sizes, offsets, types).  Local. */
int cs_eng_op_ok(const cs_eng_layout_t *a, const cs_eng_layout_t *b,
                 const cs_eng_op_t *op);

/* The row and column overlays of op (target rows pair with A's rows, or
 * A's columns when op->trans).  Local; nothing allocated on failure. */
cs_status_t cs_eng_op_overlays(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, cs_eng_overlay_t *rows_p,
                               cs_eng_overlay_t *cols_p);

/* Rank of A owning the overlay block (row group rg, column group cg). */
int cs_eng_a_owner(const cs_eng_layout_t *a, int trans,
                   const cs_eng_group_t *rg, const cs_eng_group_t *cg);

/* One (row group, column group) block of a package or of the local copy. */
typedef struct {
    int64_t rg, cg;         /* group indices in the row / column overlay */
    int64_t off;            /* byte offset inside the package */
    int direct;             /* its messages leave from A (sending) or land
                             * in B (receiving) directly: nothing to pack
                             * or unpack (messages.c) */
    int64_t buf;            /* byte offset in its peer's part of the send or
                             * receive buffer; -1 when direct */
    int64_t bytes;          /* its size in the package */
} cs_eng_combo_t;

/* One MPI message of a package (before chunking to the size limit). */
typedef struct {
    int64_t off, len;       /* bytes inside the package */
    int64_t doff;           /* >= 0: sent straight from A (sending) or
                             * received straight into B (receiving) at
                             * this byte offset of the local array */
    int64_t buf;            /* otherwise: byte offset in its peer's part of
                             * the send or receive buffer */
} cs_eng_msg_t;

typedef struct {
    int peer;               /* rank in the execution communicator */
    int64_t bytes;
    int64_t first, count;   /* combos */
    int64_t buf_off;        /* byte offset of its part of the send or
                             * receive buffer (only blocks that are not
                             * direct take room there, messages.c) */
    int64_t zc_off;         /* >= 0: the package is this one contiguous
                             * byte range of A (send) or B (receive), sent
                             * from or received into it directly */
    int64_t msg_first, msg_count; /* its messages (send_msg / recv_msg) */
} cs_eng_peer_t;

/*
 * Choosing between two ways (modes 0 and 1) of running a plan by timing
 * both on its calls (choice.c says how).  Zeroed: nothing tried yet.
 * cs_eng_choice_next(): the mode for the plan's next call, dflt (0 or 1)
 * until a trial has decided; cs_eng_choice_record(): that call ran in
 * mode and took seconds.  Local, no MPI.
 */
enum { CS_ENG_CHOICE_TRIALS = 8, CS_ENG_CHOICE_RETRY = 2048 };
typedef struct {
    int64_t calls;  /* calls recorded */
    int64_t trials; /* trials ended */
    int mode;       /* the last trial's choice */
    int n[2];       /* times of the running trial, per mode */
    double t[2][CS_ENG_CHOICE_TRIALS];
} cs_eng_choice_t;
int cs_eng_choice_next(const cs_eng_choice_t *c, int dflt);
void cs_eng_choice_record(cs_eng_choice_t *c, int mode, double seconds,
                          int dflt);

/*
 * The plan of one exchange: what plan.c builds from two layouts and an
 * operation (the packages this rank sends and receives, the blocks it
 * copies locally) and exchange.c executes, with the state of that
 * execution.  A call whose buffers would exceed the workspace bound runs
 * as several of them, one per panel (cs_eng_panels_t).
 */
typedef struct cs_eng_exch {
    cs_eng_op_t op;
    cs_eng_overlay_t rows, cols;
    int a_order, b_order;
    int64_t a_ld, b_ld;
    int nsend, nrecv;
    cs_eng_peer_t *send, *recv;
    int *send_order;        /* indices into send[]: the order to pack */
    cs_eng_combo_t *send_combo, *recv_combo;
    cs_eng_msg_t *send_msg, *recv_msg;
    int64_t send_ws, recv_ws; /* bytes of send / receive buffer needed */
    int64_t nlocal;
    cs_eng_combo_t *local_combo;
    int64_t send_bytes, recv_bytes, self_bytes;
    cs_eng_xform_t xf;      /* what unpack and local copies compute */
    cs_eng_xform_t pack_xf; /* plain copy, for packing */
    int b_only;             /* alpha = 0: A is not referenced */
    int compact;            /* packages hold only the trapezoid
                             * (trapezoid.c) */
    int me;                 /* rank the plan was built for */
    /* mode 1: small packages packed with streaming stores (exchange.c,
     * pack_columns), 0: plainly */
    cs_eng_choice_t pack_choice;
    /* execution state, obtained by cs_eng_exch_reserve() (the request
     * arrays through cs_eng_exch_requests_alloc()) */
    int reserved;
    int64_t chunk;          /* bytes per MPI message at most */
    int64_t nreq_cap;
    MPI_Request *reqs;
    int *req_peer;          /* receive request -> index in recv[] */
    int *test_idx;          /* MPI_Testsome output */
    int64_t *remaining;     /* chunks still in flight per receive peer */
    MPI_Status *statuses;   /* MPI_Testsome output (receive requests) */
    MPI_Request *done_reqs; /* shared-buffer acknowledgements */
    int64_t *sig;           /* per send peer: shared-buffer signal */
    int64_t *req_head;      /* receive request -> the message whose other
                             * pieces it brings, or -1 (exchange.c) */
    int *rx_signal;         /* per receive peer: its package came as a
                             * shared-buffer signal */
} cs_eng_exch_t;

/* Build the plan of op's exchange from layout a to layout b for rank me,
 * uncut (cs_eng_plan_create() documents it).  Local, no MPI. */
cs_status_t cs_eng_exch_create(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, int me,
                               cs_eng_exch_t **x_p);

/* Free x and everything it holds (NULL is fine).  Local. */
void cs_eng_exch_destroy(cs_eng_exch_t *x);

/* Bytes of send plus receive buffer x needs. */
static inline int64_t cs_eng_exch_workspace_bytes(const cs_eng_exch_t *x)
{
    return x->send_ws + x->recv_ws;
}

/* Heap bytes x holds (request arrays included).  Local. */
int64_t cs_eng_exch_heap_bytes(const cs_eng_exch_t *x);

/* Make x's request arrays hold nreq requests (those it has are kept when
 * they are big enough).  CS_ERR_NOMEM when an allocation fails (then x
 * holds none).  Local. */
cs_status_t cs_eng_exch_requests_alloc(cs_eng_exch_t *x, int64_t nreq);

/* Heap bytes of x's request arrays made for nreq requests. */
int64_t cs_eng_exch_requests_bytes(const cs_eng_exch_t *x, int64_t nreq);

/* What cs_eng_plan_describe() prints, summed over the exchanges of a plan
 * (peers: the most of any one). */
typedef struct {
    int send_peers, recv_peers;
    int64_t send, recv, self, sblk, rblk, lblk, rseg, rgrp, cseg, cgrp;
} cs_eng_summary_t;

/* Add x's counts to *sum_p.  Local. */
void cs_eng_exch_summary_add(const cs_eng_exch_t *x, cs_eng_summary_t *sum_p);

/*
 * Small messages travel in pieces that MPI sends eagerly.  RATIONALE: a
 * message above MPI's eager limit waits for a rendezvous handshake, which
 * costs more than the copy of a small package: exchanging 24 KiB between
 * 2 ranks took 6.0-6.4 us as one message, 1.9 us as three of 8 KiB with
 * MPICH 4.0 (ch4:ucx, eager up to 8 KiB); 48 KiB 7.1 -> 3.4 us, 96 KiB 9.0
 * -> 6.3 us.  Open MPI 4.1 (vader, eager below 4 KiB): 16 KiB 5.4 -> 3.1
 * us in 2 KiB pieces, 24 KiB 5.4 -> 4.9, 48 KiB 6.4 -> 8.9 (worse).  So
 * messages above one piece and up to CS_ENG_PIECE_MAX go in pieces (pdtran
 * 92 x 92, blocks 32, 2 x 1: 15.4-15.8 -> 7.0-7.2 us per call); larger
 * ones stay whole, and from COSTA_SHIM_SHM_MIN on may use the shared send
 * buffer.  Both sides cut by the message's length alone.
 */
#ifdef OPEN_MPI
enum { CS_ENG_PIECE = 2048, CS_ENG_PIECE_MAX = 16384 };
#else
enum { CS_ENG_PIECE = 8192, CS_ENG_PIECE_MAX = 65536 };
#endif

/* Bytes per MPI message for a message of len bytes, messages being cut
 * at chunk bytes otherwise. */
static inline int64_t cs_eng_msg_piece(int64_t len, int64_t chunk)
{
    return len > CS_ENG_PIECE && len <= CS_ENG_PIECE_MAX &&
                   CS_ENG_PIECE < chunk
               ? CS_ENG_PIECE
               : chunk;
}

/* Cut every package of the plan into messages (send_msg, recv_msg, the
 * peers' msg_first/msg_count, the receiving combos' direct flags); the
 * peers' zc_off must be set.  Local, no MPI.  See messages.c. */
cs_status_t cs_eng_exch_messages(cs_eng_exch_t *x);

/* ------------------------------------------------------------ exchange */

/*
 * Pack (unpack 0: from A into pkg) or unpack (1: from pkg into B) the
 * whole package of peer pe of x, every block at its offset in the package,
 * those that x sends from A or receives into B directly included: batch.c
 * sends the packages of several plans as one message.  Local.
 */
void cs_eng_exch_copy_package(const cs_eng_exch_t *x, const cs_eng_peer_t *pe,
                              int unpack, const char *a, char *b, char *pkg,
                              int threads);

/* Copy the blocks of x that stay on this rank from A to B.  Local. */
void cs_eng_exch_copy_local(const cs_eng_exch_t *x, const char *a, char *b,
                            int threads);

/* Bytes per MPI message at most with these options (never above the
 * engine's limit, which keeps every count an int). */
int64_t cs_eng_exch_chunk(const cs_eng_exec_opts_t *opts);

/* Bytes of request arrays cs_eng_exch_reserve(x, opts) would allocate
 * now (0 when x holds big enough ones).  Local. */
int64_t cs_eng_exch_requests_need(const cs_eng_exch_t *x,
                                  const cs_eng_exec_opts_t *opts);

/* cs_eng_plan_reserve() and cs_eng_plan_execute() of one exchange (those
 * document them). */
cs_status_t cs_eng_exch_reserve(cs_eng_exch_t *x,
                                const cs_eng_exec_opts_t *opts);
cs_status_t cs_eng_exch_execute(cs_eng_exch_t *x, const void *a_base,
                                void *b_base, MPI_Comm comm,
                                const cs_eng_exec_opts_t *opts,
                                cs_eng_stats_t *stats_p);

/* cs_eng_plan_shm_bytes() of one exchange. */
int64_t cs_eng_exch_shm_bytes(const cs_eng_exch_t *x, int64_t min_bytes);

/* ------------------------------------------------------------ panels */

/*
 * A call cut into panels (panels.c): n plans of one exchange each, for
 * consecutive ranges of whole target columns (or rows), executed in turn
 * through one workspace.  Built from plans of one exchange (plan.c),
 * executed by running them (exchange.c).
 */
typedef struct {
    int n;                  /* panels, >= 1 */
    cs_eng_exch_t **panel;
    int reserved;           /* every panel reserved, for chunk */
    int64_t chunk;          /* cs_eng_exch_chunk() at the reservation */
} cs_eng_panels_t;

/* The panels of op under the workspace bound ws_max (as
 * cs_eng_plan_create_bounded() documents it); *p_p = NULL when the call
 * needs no cut.  Local. */
cs_status_t cs_eng_panels_create(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_op_t *op, int me,
                                 int64_t ws_max, cs_eng_panels_t **p_p);
void cs_eng_panels_destroy(cs_eng_panels_t *p);

/* What the cs_eng_plan_* functions of the same names say of a cut plan:
 * its largest panel's workspace, its heap, its volumes summed, the
 * request arrays its panels would allocate, the largest shared buffer
 * any panel uses. */
int64_t cs_eng_panels_workspace_bytes(const cs_eng_panels_t *p);
int64_t cs_eng_panels_heap_bytes(const cs_eng_panels_t *p);
void cs_eng_panels_volume(const cs_eng_panels_t *p, int64_t *sent_p,
                          int64_t *recv_p, int64_t *self_p);
void cs_eng_panels_summary_add(const cs_eng_panels_t *p,
                               cs_eng_summary_t *sum_p);
int64_t cs_eng_panels_requests_need(const cs_eng_panels_t *p,
                                    const cs_eng_exec_opts_t *opts);
int64_t cs_eng_panels_shm_bytes(const cs_eng_panels_t *p, int64_t min_bytes);

/* cs_eng_plan_reserve() and cs_eng_plan_execute() of a cut plan: every
 * panel, the largest first; the panels in turn, their statistics summed. */
cs_status_t cs_eng_panels_reserve(cs_eng_panels_t *p,
                                  const cs_eng_exec_opts_t *opts);
cs_status_t cs_eng_panels_execute(cs_eng_panels_t *p, const void *a_base,
                                  void *b_base, MPI_Comm comm,
                                  const cs_eng_exec_opts_t *opts,
                                  cs_eng_stats_t *stats_p);

/* ------------------------------------------------------------ the plan */

/*
 * What cs_eng_plan_create*() hand out (engine.c): one exchange, or a call
 * cut into panels; exactly one of the two is set.  The cs_eng_plan_*
 * functions of engine.h dispatch on which.
 */
struct cs_eng_plan {
    cs_eng_exch_t *exch;     /* uncut */
    cs_eng_panels_t *panels; /* cut */
};

/* ------------------------------------------------------- trapezoid */

/* 1 if packages of op (with kernel settings xf) hold only the trapezoid:
 * plain masked copies, not transposed.  The same on every rank. */
int cs_eng_plan_compact(const cs_eng_op_t *op, const cs_eng_xform_t *xf);


/* Elements of the (rg, cg) block that travel: with compact (packages hold
 * only the trapezoid of xf's mask), those inside the mask, else the whole
 * rectangle.  The plan and the volume matrix count with it alike. */
int64_t cs_eng_block_elems(const cs_eng_overlay_t *ro,
                           const cs_eng_overlay_t *co, int compact,
                           const cs_eng_xform_t *xf, const cs_eng_group_t *rg,
                           const cs_eng_group_t *cg);

/* Called after each package column with the bytes it moved. */
typedef void (*cs_eng_poll_fn)(void *ctx, int64_t bytes);

/* Pack (unpack 0: from A) or unpack (1: into B) the compact block cb at
 * pkg: column by column in position order, each holding its trapezoid
 * rows only.  With threads > 1, split over that many OpenMP threads by
 * columns, and poll is not called (MPI only from the calling thread).
 * Local. */
void cs_eng_trap_copy(const cs_eng_exch_t *plan, const cs_eng_combo_t *cb,
                      int unpack, const char *a, char *b, char *pkg,
                      int threads, cs_eng_poll_fn poll, void *ctx);

/* ------------------------------------------------ shared send buffer */

/* This process's shared send buffer, or NULL. */
char *cs_eng_shm_mine(void);

/* Where the shared send buffer of rank `peer` of comm is mapped here;
 * NULL when it is not on this node or there is none. */
char *cs_eng_shm_peer(MPI_Comm comm, int peer);

/* Memory barrier between writing the shared buffer and signalling (and
 * between being signalled and reading). */
void cs_eng_shm_sync(void);

/* ------------------------------------------------------------ workspace */

/* A buffer of at least bytes bytes, kept between calls; NULL on failure. */
void *cs_eng_workspace_get(size_t bytes);

/* Bytes the workspace holds after cs_eng_workspace_get(bytes) grew it
 * (its headroom, and whole huge pages for large buffers).  Local. */
size_t cs_eng_workspace_bytes_for(size_t bytes);

#endif /* CS_ENGINE_ENGINE_INT_H */
