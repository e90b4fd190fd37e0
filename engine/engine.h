/*
 * engine/engine.h - the COSTA redistribution engine.
 *
 * The engine copies an m x n sub-matrix between two general grid layouts.
 * It knows nothing about ScaLAPACK: a layout is a row distribution, a column
 * distribution and a process grid (see cs_eng_layout_t), which covers
 * block-cyclic layouts (the shim builds those from descriptors), irregular
 * splits with any block-to-process assignment, and fully general layouts
 * with one owner per block (give every block its own process coordinate and
 * make the grid the owner table).
 *
 * Algorithm (COSTA paper, section "Implementation"): the grid overlay of the
 * two layouts, restricted to the sub-matrix, is computed per dimension; all
 * elements that go from one rank to another form one package, a contiguous
 * message in a canonical order both sides derive from global information
 * alone.  Execution posts every receive, packs and sends package by package,
 * copies the blocks that stay on this rank directly (no buffer) while the
 * messages fly, and unpacks each package as MPI_Waitany reports it.
 *
 * Element counts and offsets are int64_t; messages larger than the engine's
 * message limit are split into several MPI messages.
 */
#ifndef CS_ENGINE_ENGINE_H
#define CS_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* ------------------------------------------------------------ status */

typedef enum {
    CS_OK = 0,
    CS_ERR_NOMEM = -1,       /* an allocation failed */
    CS_ERR_UNSUPPORTED = -2, /* valid input the engine does not handle */
    CS_ERR_BAD_DESC = -3,    /* inconsistent or invalid layout */
    CS_ERR_MPI = -4,         /* an MPI call failed */
    CS_ERR_LIMIT = -5        /* a size or memory limit was exceeded */
} cs_status_t;

/* Static string for a status code ("ok", "out of memory", ...). */
const char *cs_status_str(cs_status_t status);

/* ------------------------------------------------------------ fatal errors */

/*
 * Set the hook the engine calls on a fatal error: an MPI call that failed
 * or an inconsistency found after communication has started, when no
 * fallback is possible any more.  hook(msg) gets one line describing it
 * (lower case, no newline; the string lives only during the call) and
 * must not return: it ends the job (say, logs, flushes and calls
 * MPI_Abort).  Without a hook (the default, or after hook = NULL) the
 * engine logs the message with cs_log_error and calls
 * MPI_Abort(MPI_COMM_WORLD, 1); so it does too if the hook returns.
 * Local; thread-safe (the hook is read atomically when a fatal error
 * happens, on the thread that meets it); set it once, before the first
 * plan is executed.
 */
void cs_eng_set_fatal_hook(void (*hook)(const char *msg));

/* ------------------------------------------------------------ layouts */

typedef enum {
    CS_ENG_DIST_CYCLIC = 0,  /* block-cyclic with an optional first block */
    CS_ENG_DIST_EXPLICIT = 1 /* arbitrary splits and owners */
} cs_eng_dist_kind_t;

/*
 * One dimension of a layout: how the extent [0, n) is cut into blocks, the
 * process coordinate (in this dimension of the grid) owning each block, and
 * where a block starts in its owner's local array.
 *
 * CS_ENG_DIST_CYCLIC: blocks of nb elements, except the first, which has
 *   `first` elements (1 <= first <= nb; first = nb for plain block-cyclic);
 *   block k belongs to coordinate (src + k) mod nprocs; local offsets follow
 *   the usual block-cyclic packing.  With nprocs == 1 the block size is
 *   irrelevant (the dimension is one block).
 * CS_ENG_DIST_EXPLICIT: nblk blocks, splits[0] = 0 < splits[1] < ... <
 *   splits[nblk] = n, proc[k] in [0, nprocs), loff[k] the local offset of
 *   block k.  loff needs to be meaningful only for blocks the calling rank
 *   owns, so each rank may store its blocks as it likes.
 * The arrays are borrowed: they must stay valid while a plan built from the
 * layout is alive.
 */
typedef struct {
    int kind;           /* cs_eng_dist_kind_t */
    int64_t n;          /* global extent */
    int nprocs;         /* process coordinates in this dimension */
    /* CS_ENG_DIST_CYCLIC */
    int64_t nb;
    int64_t first;
    int src;
    /* CS_ENG_DIST_EXPLICIT */
    int64_t nblk;
    const int64_t *splits;
    const int *proc;
    const int64_t *loff;
} cs_eng_dist_t;

typedef enum {
    CS_ENG_COLMAJOR = 0, /* element (r, c) at base[r + c * ld] */
    CS_ENG_ROWMAJOR = 1  /* element (r, c) at base[r * ld + c] */
} cs_eng_order_t;

/*
 * A matrix layout as seen by one rank.  The owner of the block in block-row
 * bi and block-column bj is grid[rows.proc(bi) * npcol + cols.proc(bj)], a
 * rank of the communicator the plan is executed on (never -1 for a cell that
 * owns data).  Everything but ld/order must be identical on all ranks; the
 * local storage (ld, order, explicit loff) describes the calling rank's own
 * blocks only.  rows.nprocs must equal nprow and cols.nprocs npcol.
 */
typedef struct {
    cs_eng_dist_t rows;
    cs_eng_dist_t cols;
    int nprow;
    int npcol;
    const int *grid;    /* nprow * npcol ranks, borrowed */
    int64_t ld;         /* leading dimension of the local array */
    int order;          /* cs_eng_order_t */
} cs_eng_layout_t;

/*
 * Fill *dist_p with a block-cyclic distribution of extent n: blocks of nb,
 * the first of `first` (pass nb for the plain case), owned from coordinate
 * src on, over nprocs coordinates.  Local, no allocation.  Returns
 * CS_ERR_BAD_DESC for n < 0, nb < 1, first < 1, nprocs < 1 or src outside
 * [0, nprocs).
 */
cs_status_t cs_eng_dist_cyclic(int64_t n, int64_t nb, int64_t first, int src,
                               int nprocs, cs_eng_dist_t *dist_p);

/* Number of elements of dist owned by coordinate p.  Local. */
int64_t cs_eng_dist_local_size(const cs_eng_dist_t *dist, int p);

/* ------------------------------------------------------------ operation */

/* Element types the transform kernels compute on. */
typedef enum {
    CS_ENG_T_RAW = 0, /* opaque esize bytes: plain copies only */
    CS_ENG_T_S,       /* float */
    CS_ENG_T_D,       /* double */
    CS_ENG_T_C,       /* float complex */
    CS_ENG_T_Z        /* double complex */
} cs_eng_type_t;

/* Which elements of the target sub-matrix are written (0-based i, j). */
typedef enum {
    CS_ENG_MASK_NONE = 0,
    CS_ENG_MASK_UPPER, /* only i - j <= mask_k */
    CS_ENG_MASK_LOWER  /* only i - j >= mask_k */
} cs_eng_mask_t;

/*
 * What to do, for 0 <= i < m, 0 <= j < n (0-based indices):
 *   op(A)(i, j) = A(ia + i, ja + j)            trans = 0
 *               = A(ia + j, ja + i)            trans = 1 (sub(A) is n x m)
 *   conjugated when conj = 1 (complex types);
 *   axpby = 0: B(ib + i, jb + j) := op(A)(i, j), bit for bit;
 *   axpby = 1: B(ib + i, jb + j) := beta * B(..) + alpha * op(A)(i, j) with
 *              the case rules of PBLAS: beta = 0 overwrites (B is not read),
 *              alpha = 0 never reads A (no communication at all), alpha = 1
 *              and beta = 1 avoid the multiplications; no fused multiply-add.
 * Only elements selected by the mask are written; nothing else of B is.
 * alpha and beta are {re, im} (im ignored for real types).
 */
typedef struct {
    int64_t m, n;
    int64_t ia, ja;
    int64_t ib, jb;
    size_t esize;
    int type;           /* cs_eng_type_t; RAW is fine when axpby = conj = 0 */
    int trans;
    int conj;
    int axpby;
    double alpha[2];
    double beta[2];
    int mask;           /* cs_eng_mask_t */
    int64_t mask_k;
    /* p?tradd computes in three steps: c1 = beta * c (0 when beta = 0, c
     * when beta = 1), t = alpha * op(a) (op(a) when alpha = 1), then
     * c1 + t through ?AXPY with alpha one (complex: re = (c1r + 1*tr) -
     * 0*ti, im = (c1i + 1*ti) + 0*tr, OpenBLAS's order).  tradd = 1 selects
     * that order, which differs from the general case in signed zeros and
     * rounding.  PBLAS works in panels of tradd_kb (pilaenv) and also adds
     * a zero to the elements of each diagonal tradd_kb block just outside
     * the trapezoid (so -0.0 becomes +0.0 there): tradd_kb > 0 does too. */
    int tradd;
    int64_t tradd_kb;
    /* add_zero = 1: every element written into sub(B) then gets + 0, as
     * where PBLAS forms a replicated target by summing the copies of each
     * process with zeros from the others (-0.0 becomes +0.0, a signalling
     * NaN becomes quiet).  Only with axpby and a typed element. */
    int add_zero;
} cs_eng_op_t;

/* Per-call execution settings (the shim fills them from its configuration;
 * the engine reads no environment). */
typedef struct {
    int threads;        /* threads for pack/unpack/copy; <= 1: serial */
    int overlap;        /* 1: unpack each package as it arrives */
    int64_t max_msg_bytes; /* split messages above this; 0: engine default */
    /* packages of at least this many bytes (one message, nothing sent
     * straight from A) to a process on this node are read by it from the
     * shared send buffer (cs_eng_shm_grow) when that buffer holds the
     * plan's packing; 0: never.  Values below CS_ENG_SHM_MIN_FLOOR count
     * as that. */
    int64_t shm_min_bytes;
    /* optional, per rank of the communicator: a group number (the shim
     * passes each rank's node); stats count the bytes sent to peers of
     * this rank's group apart.  NULL: no groups. */
    const int *peer_group;
} cs_eng_exec_opts_t;

/* What one execution moved, as seen by the calling rank. */
typedef struct {
    int64_t bytes_sent;  /* to other ranks */
    int64_t bytes_recv;  /* from other ranks */
    int64_t bytes_self;  /* copied locally from A to B */
    int64_t bytes_sent_near; /* of bytes_sent: to peers in this rank's
                              * group (opts->peer_group; 0 without) */
    int64_t msgs_sent;   /* MPI messages */
    int64_t msgs_recv;
    int threads;         /* threads used */
    /* where the call's time went on this rank, seconds (wall clock of the
     * calling thread): packing the packages (and posting the messages),
     * copying the blocks that stay here, unpacking the packages received
     * (also those unpacked while packing or copying), and waiting for
     * messages with nothing else left to do (transfer: what the copies
     * did not hide of it) */
    double t_pack, t_local, t_unpack, t_transfer;
} cs_eng_stats_t;

typedef struct cs_eng_plan cs_eng_plan_t;

/*
 * Build the plan of `op` from layout a to layout b for rank `me` of the
 * communicator the layouts' grids refer to.  Local (no communication),
 * O(blocks of both layouts inside the sub-matrix along each dimension +
 * peers) time and temporary memory, plus O(P) to read the grid tables; the
 * plan keeps O(this rank's blocks + peers).  The layouts are copied where
 * needed; their arrays are borrowed.
 * On success *plan_p owns the plan; on failure *plan_p is untouched.
 * Checks the sub-matrix against both layouts (CS_ERR_BAD_DESC).
 */
cs_status_t cs_eng_plan_create(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, int me,
                               cs_eng_plan_t **plan_p);

/* ws_max of cs_eng_plan_create_bounded(): CS_ENG_WS_AUTO_PER_RANK per
 * process of the larger grid, at least CS_ENG_WS_AUTO_MIN and at most
 * CS_ENG_WS_AUTO_MAX (cs_eng_ws_auto). */
#define CS_ENG_WS_AUTO ((int64_t)-1)
#define CS_ENG_WS_AUTO_MIN ((int64_t)8 << 20)
#define CS_ENG_WS_AUTO_MAX ((int64_t)64 << 20)
#define CS_ENG_WS_AUTO_PER_RANK ((int64_t)512 << 10)

/* The bound CS_ENG_WS_AUTO stands for, for layouts a and b.  Global
 * information only, so every rank computes the same. */
int64_t cs_eng_ws_auto(const cs_eng_layout_t *a, const cs_eng_layout_t *b);

/* Most panels one plan is cut into (a tighter bound is not honoured). */
#define CS_ENG_PANELS_MAX 1024

/*
 * cs_eng_plan_create() with a bound on the workspace: when some rank could
 * need more than ws_max bytes of send plus receive buffers (bytes it sends
 * plus bytes it receives, an upper bound computed from global information
 * alone), the operation is cut into panels, ranges of whole target
 * columns (rows when m > n), each planned on its own and executed one
 * after the other through the same workspace, so that no panel needs more
 * than ws_max on any rank (unless one column or row alone does, or
 * CS_ENG_PANELS_MAX panels are not enough).  ws_max: bytes > 0,
 * CS_ENG_WS_AUTO, or 0 for no bound.  The cut depends only on the
 * layouts' global parts, op and ws_max, so every rank cuts alike (ws_max
 * must be the same on every rank).  Results are those of the uncut plan,
 * bit for bit.  Local, like cs_eng_plan_create().
 */
cs_status_t cs_eng_plan_create_bounded(const cs_eng_layout_t *a,
                                       const cs_eng_layout_t *b,
                                       const cs_eng_op_t *op, int me,
                                       int64_t ws_max,
                                       cs_eng_plan_t **plan_p);

/* Panels of the plan (1 when it is not cut).  Local. */
int cs_eng_plan_panels(const cs_eng_plan_t *plan);

/* Bytes of send plus receive buffers the plan needs on this rank (of a cut
 * plan, its largest panel's: the panels reuse one workspace). */
int64_t cs_eng_plan_workspace_bytes(const cs_eng_plan_t *plan);

/* Bytes this rank sends to / receives from other ranks, and keeps local. */
void cs_eng_plan_volume(const cs_eng_plan_t *plan, int64_t *sent_p,
                        int64_t *recv_p, int64_t *self_p);

/*
 * Obtain everything execution needs that can fail locally (the workspace
 * buffers, request arrays) so that the caller can agree on success with the
 * other ranks before any message is sent.  Local.  Returns CS_ERR_NOMEM or
 * CS_ERR_LIMIT on failure.  cs_eng_plan_execute() calls it if needed.
 */
cs_status_t cs_eng_plan_reserve(cs_eng_plan_t *plan,
                                const cs_eng_exec_opts_t *opts);

/*
 * Bytes of memory cs_eng_plan_reserve(plan, opts) would newly allocate now:
 * its request arrays (unless the plan already holds big enough ones) and
 * the growth of the workspace (0 when the workspace already holds the
 * plan's buffers).  Computed from the plan, nothing is allocated, so a
 * caller can refuse a call before touching memory.  Local.
 */
int64_t cs_eng_plan_reserve_bytes(const cs_eng_plan_t *plan,
                                  const cs_eng_exec_opts_t *opts);

/* Heap bytes the plan holds (overlays, package lists, request arrays): what
 * keeping it in a cache costs.  Local. */
int64_t cs_eng_plan_heap_bytes(const cs_eng_plan_t *plan);

/*
 * Execute the plan: collective over comm (every rank that sends or receives
 * must call it with its own plan of the same operation).  a_base is this
 * rank's local array of A (may be NULL if it owns no part of sub(A)),
 * b_base likewise for B.  Uses the engine workspace; returns CS_ERR_NOMEM
 * before any communication if cs_eng_plan_reserve() fails.  MPI errors after
 * communication started are fatal (cs_eng_set_fatal_hook: no partial
 * fallback is possible).  Calls MPI only from the calling thread.
 */
cs_status_t cs_eng_plan_execute(cs_eng_plan_t *plan, const void *a_base,
                                void *b_base, MPI_Comm comm,
                                const cs_eng_exec_opts_t *opts,
                                cs_eng_stats_t *stats_p);

/*
 * Several plans executed as one exchange (a batch): the packages every plan
 * sends from this rank to one peer travel as one message (in the order of
 * the plans), so each pair of ranks exchanges one message per batch, cut
 * only at the message limit.  Every package is packed into and unpacked
 * from the caller's buffer, also those a plan alone would send from A or
 * receive into B directly.
 *
 * cs_eng_batch_create: from n uncut plans (cs_eng_plan_panels() == 1;
 * CS_ERR_UNSUPPORTED otherwise), which must stay alive while the batch is;
 * every rank of the execution must batch plans of the same operations in
 * the same order.  Local; holds the request arrays (one slot per peer).
 * cs_eng_batch_buffer_bytes: bytes of the buffer cs_eng_batch_execute needs
 * on this rank (its packages out and in).
 * cs_eng_batch_execute: collective over comm like cs_eng_plan_execute;
 * a[i], b[i] are this rank's local arrays of plan i's A and B; the plans'
 * own workspaces and request arrays are not used.  Nothing it does can
 * fail locally; MPI errors are fatal.  stats: the sums over the plans,
 * messages counted as batched.
 */
typedef struct cs_eng_batch cs_eng_batch_t;

cs_status_t cs_eng_batch_create(cs_eng_plan_t *const *plans, int n,
                                cs_eng_batch_t **batch_p);
int64_t cs_eng_batch_buffer_bytes(const cs_eng_batch_t *batch);
/* Heap bytes the batch holds.  Local. */
int64_t cs_eng_batch_heap_bytes(const cs_eng_batch_t *batch);
cs_status_t cs_eng_batch_execute(cs_eng_batch_t *batch, const void *const *a,
                                 void *const *b, void *buf, MPI_Comm comm,
                                 const cs_eng_exec_opts_t *opts,
                                 cs_eng_stats_t *stats_p);
void cs_eng_batch_destroy(cs_eng_batch_t *batch);

/*
 * The communication-volume matrix of op between the two layouts: vol_p[i *
 * nranks + j] += bytes that rank i (owner in a) holds and rank j (owner in
 * b) needs, for ranks in [0, nranks) (of a masked copy, the trapezoid's
 * elements only, as its packages carry).  The caller zeroes vol_p.  Local,
 * no MPI; the same result on every rank; O(row groups x column groups)
 * after the overlay (times the columns for a masked copy).  Used by process
 * relabeling (relabel/) and its tools.
 */
cs_status_t cs_eng_volume_matrix(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_op_t *op, int nranks,
                                 int64_t *vol_p);

/*
 * The same volumes, entry by entry, for process counts where a P x P
 * matrix does not fit: fn(ctx, src, dst, bytes) for each (row group,
 * column group) block of the overlay with bytes > 0, in the overlay's
 * order; a (src, dst) pair may come several times (ranks with several
 * grid cells), the caller adds them up.  fn returns 0 to go on, else the
 * walk stops with CS_ERR_BAD_DESC.  Local, no MPI; O(row groups x column
 * groups) calls.
 */
typedef int (*cs_eng_volume_fn)(void *ctx, int src, int dst, int64_t bytes);
cs_status_t cs_eng_volume_each(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, cs_eng_volume_fn fn,
                               void *ctx);

/*
 * The volume of an unmasked operation in factored form.  Rows and columns
 * of a block-cyclic (or any grid) layout move independently: the elements
 * that go from A's grid cell to B's grid cell are the rows the two cells'
 * grid rows share times the columns their grid columns share, so the
 * whole P x P volume is known from two small tables (a Kronecker
 * product).  A factor is one dimension's table as its nonzero entries:
 * count[k] indices of the operation's rows (or columns) that A's
 * coordinate pa[k] holds and B's coordinate pb[k] needs, sorted by (pa,
 * pb), each pair once, count > 0.  For the row factor, pa is a grid row
 * of A (a grid column of A when op->trans: the target's rows are A's
 * columns) and pb a grid row of B; for the column factor the other
 * dimension alike.  Arrays owned (cs_eng_factors_free).
 */
typedef struct {
    int na, nb;        /* coordinates on A's side and on B's side */
    int64_t n;         /* entries */
    int *pa, *pb;
    int64_t *count;
} cs_eng_factor_t;

typedef struct {
    cs_eng_factor_t rows, cols;
    int64_t esize;     /* bytes per element */
    int trans;         /* op->trans: rows pair A's grid columns */
} cs_eng_factors_t;

/*
 * The factors of op between layouts a and b: the bytes from A's cell
 * whose op-row coordinate is x and op-column coordinate y (A's grid cell
 * (x, y), or (y, x) when op->trans) to B's cell (u, v) are
 * rows(x, u) * cols(y, v) * esize, the same numbers cs_eng_volume_each()
 * walks block by block.  Returns CS_ERR_UNSUPPORTED for masked
 * (trapezoidal) operations, whose volume has no such structure (the
 * caller counts them with cs_eng_volume_each or cs_eng_volume_matrix),
 * CS_ERR_BAD_DESC when op does not fit the layouts, CS_ERR_NOMEM.
 * *f_p is written only on success.  Local, no MPI; O(blocks of both
 * layouts inside the operation along each dimension) time and memory,
 * never O(P).
 */
cs_status_t cs_eng_volume_factors(const cs_eng_layout_t *a,
                                  const cs_eng_layout_t *b,
                                  const cs_eng_op_t *op,
                                  cs_eng_factors_t *f_p);

/* Free the arrays of f and zero it (a zeroed f is fine).  Local. */
void cs_eng_factors_free(cs_eng_factors_t *f);

/*
 * The ranks of the factors' cells: proc_p[x * f->cols.na + y] = the rank
 * of A holding op-row coordinate x and op-column coordinate y, and
 * pos_p[u * f->cols.nb + v] = the rank of B's cell (u, v) (arrays of
 * rows.na * cols.na and rows.nb * cols.nb ints).  The volume between two
 * ranks is one product of the factors exactly when each grid names every
 * rank at most once: returns CS_ERR_UNSUPPORTED when a grid names a rank
 * twice or names one outside [0, nranks) (a replicated or partial grid;
 * the caller falls back to cs_eng_volume_each), CS_ERR_BAD_DESC when the
 * factors do not fit the layouts.  Local, O(grid cells + nranks).
 */
cs_status_t cs_eng_factors_ranks(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_factors_t *f, int nranks,
                                 int *proc_p, int *pos_p);

/* Bytes from A's cell (x, y) to B's cell (u, v) in factor coordinates
 * (see cs_eng_volume_factors), 0 outside the tables.  Local, O(log
 * entries); for tests and small tables. */
int64_t cs_eng_factor_cells(const cs_eng_factors_t *f, int x, int y, int u,
                            int v);

/*
 * Write a one-line summary of the plan into buf (for COSTA_SHIM_VERBOSE=2):
 * "send_peers:.. send:..MB send_blocks:.. recv_peers:.. recv:..MB
 * recv_blocks:.. local_blocks:.. self:..MB row_segs:.. row_groups:..
 * col_segs:.. col_groups:..".  Local.
 */
void cs_eng_plan_describe(const cs_eng_plan_t *plan, char *buf, size_t len);

/* Free a plan (NULL is fine).  Local. */
void cs_eng_plan_destroy(cs_eng_plan_t *plan);

/* ------------------------------------------------ shared send buffer */

/* The smallest package the shared send buffer takes (a signal message of
 * 16 bytes stands for the package; see exchange.c). */
#define CS_ENG_SHM_MIN_FLOOR ((int64_t)1024)

/*
 * Bytes of shared send buffer the plan would use with this threshold (its
 * send buffer, when some package qualifies), else 0.  Local.
 */
int64_t cs_eng_plan_shm_bytes(const cs_eng_plan_t *plan, int64_t min_bytes);

/*
 * RATIONALE: a new shared buffer costs its pages once (shared memory takes
 * no huge pages here, and on the CI machine, a virtual machine, each page's
 * first use by either side is slow: the 36 MiB of a 4000 x 4000 pdtran on
 * 2 ranks made its first call 268-280 ms instead of 136-138 ms, about
 * 3.8 ms per MiB), and saves MPI's copy on every later call (10.7-11.2 ->
 * 8.1-8.6 ms there, about 0.09 ms per MiB).  So, like renting skis until
 * the rent paid equals the price, the buffer grows only once the bytes
 * that could have used it reach CS_ENG_SHM_PAYBACK (3.8 / 0.09, rounded)
 * times its size: a program that calls rarely never pays, one that calls
 * often pays at most about twice what the best choice in hindsight would.
 */
#define CS_ENG_SHM_PAYBACK 40

/* Count bytes of packages that qualified for the shared buffer but went
 * through MPI.  Local. */
void cs_eng_shm_count(int64_t bytes);

/* 1 when the bytes counted so far pay for a buffer of `bytes`.  Local. */
int cs_eng_shm_pays(int64_t bytes);

/* Bytes of this process's shared send buffer (0: none).  Local. */
int64_t cs_eng_shm_size(void);

/* Bytes this process's segment would have after cs_eng_shm_grow(bytes):
 * bytes with an eighth of headroom, at least the present size, whole
 * pages.  Local. */
int64_t cs_eng_shm_grow_size(int64_t bytes);

/*
 * Make this process's shared send buffer cs_eng_shm_grow_size(bytes)
 * bytes (each process passes its own need).  Collective over
 * MPI_COMM_WORLD: every process must call it at the same point, whatever
 * it needs.  test_fail: testing, this process behaves as if its part of
 * the new buffer could not be allocated.  Returns 1 when a buffer exists
 * afterwards; 0 when shared memory is not available (then never again on
 * this node: a failure on one process of a node turns it off on all of
 * them) or the node's /dev/shm has no room (the old buffer is kept).
 */
int cs_eng_shm_grow(int64_t bytes, int test_fail);

/* Free the shared send buffer.  Collective over MPI_COMM_WORLD; call at
 * finalize. */
void cs_eng_shm_release(void);

/*
 * Free the calling thread's persistent send/receive workspace (grown on
 * demand and kept between calls to avoid page faults; each thread has its
 * own, freed when the thread ends).  Local; call at finalize.
 */
void cs_eng_workspace_release(void);

/* Release the calling thread's workspace if it holds more than keep bytes
 * (the next call that needs it maps it again at its size).  Local. */
void cs_eng_workspace_shrink(size_t keep);

/*
 * Anonymous memory of at least bytes, on a 2 MiB boundary and advised
 * MADV_HUGEPAGE, each 2 MiB touched once (workspace.c: why); *len_p is
 * the length mapped.  NULL on failure.  Free with cs_eng_unmap_huge().
 * Local.
 */
void *cs_eng_map_huge(size_t bytes, size_t *len_p);
void cs_eng_unmap_huge(void *p, size_t len);

/* Bytes currently held by the calling thread's workspace. */
size_t cs_eng_workspace_size(void);

/* Bytes of the workspaces of every thread of the process together.
 * Thread-safe. */
int64_t cs_eng_workspace_total(void);

#endif /* CS_ENGINE_ENGINE_H */
