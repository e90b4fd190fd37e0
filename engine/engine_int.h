/*
 * engine/engine_int.h - internals shared by the engine's files.
 *
 * Nothing here is visible outside engine/.  The overlay of one dimension is
 * global information: every rank computes the same segments, groups and
 * group indices, which is what lets sender and receiver agree on the order
 * of elements in a package without exchanging anything.
 */
#ifndef CS_ENGINE_ENGINE_INT_H
#define CS_ENGINE_ENGINE_INT_H

#include "engine/engine.h"

/* ------------------------------------------------------------ dist */

/* Copy of a distribution with nprocs == 1 turned into a single block. */
void cs_eng_dist_normalize(const cs_eng_dist_t *in, cs_eng_dist_t *out_p);
int64_t cs_eng_dist_nblocks(const cs_eng_dist_t *d);
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
} cs_eng_seg_t;

/* A maximal run of segments of one group that are contiguous in local
 * memory on one side (or both); pos is the position inside the group. */
typedef struct {
    int64_t pos, len;
    int64_t offa, offb;
} cs_eng_run_t;

enum { CS_ENG_SIDE_A = 0, CS_ENG_SIDE_B = 1, CS_ENG_SIDE_AB = 2 };

/* All segments going from A coordinate pa to B coordinate pb. */
typedef struct {
    int pa, pb;
    int64_t total;          /* elements */
    int64_t run_first[3];   /* per side: index into runs[side] */
    int64_t run_count[3];
} cs_eng_group_t;

typedef struct {
    int64_t nseg;
    cs_eng_seg_t *seg;      /* in index order */
    int64_t ngroup;
    cs_eng_group_t *group;  /* sorted by (pa, pb) */
    int64_t *by_pb;         /* group indices sorted by (pb, pa) */
    int64_t nrun[3];
    cs_eng_run_t *runs[3];
} cs_eng_overlay_t;

/*
 * Overlay of distribution da from offset oa and db from offset ob over len
 * indices.  Local.  On failure nothing is allocated.
 */
cs_status_t cs_eng_overlay_build(const cs_eng_dist_t *da, int64_t oa,
                                 const cs_eng_dist_t *db, int64_t ob,
                                 int64_t len, cs_eng_overlay_t *ov_p);
void cs_eng_overlay_free(cs_eng_overlay_t *ov);

/* Range [*first_p, *first_p + *count_p) of groups with the given pa (in
 * ov->group order) or pb (in ov->by_pb order). */
void cs_eng_overlay_groups_pa(const cs_eng_overlay_t *ov, int pa,
                              int64_t *first_p, int64_t *count_p);
void cs_eng_overlay_groups_pb(const cs_eng_overlay_t *ov, int pb,
                              int64_t *first_p, int64_t *count_p);

/* ------------------------------------------------------------ plan */

/* One (row group, column group) block of a package or of the local copy. */
typedef struct {
    int64_t rg, cg;         /* group indices in the row / column overlay */
    int64_t off;            /* byte offset inside the package */
} cs_eng_combo_t;

typedef struct {
    int peer;               /* rank in the execution communicator */
    int64_t bytes;
    int64_t first, count;   /* combos */
    int64_t buf_off;        /* byte offset in the send or receive buffer */
} cs_eng_peer_t;

struct cs_eng_plan {
    cs_eng_op_t op;
    cs_eng_overlay_t rows, cols;
    int a_order, b_order;
    int64_t a_ld, b_ld;
    int nsend, nrecv;
    cs_eng_peer_t *send, *recv;
    cs_eng_combo_t *send_combo, *recv_combo;
    int64_t nlocal;
    cs_eng_combo_t *local_combo;
    int64_t send_bytes, recv_bytes, self_bytes;
    int me;                 /* rank the plan was built for */
    /* execution state, obtained by cs_eng_plan_reserve() */
    int reserved;
    int64_t chunk;          /* bytes per MPI message at most */
    int64_t nreq_cap;
    MPI_Request *reqs;
    int *req_peer;          /* receive request -> index in recv[] */
    int64_t *remaining;     /* chunks still in flight per receive peer */
};

/* ------------------------------------------------------------ kernels */

/*
 * Copy a rows x cols block of esize-byte elements; element (r, c) is at
 * src[(r * srs + c * scs) * esize] and dst[(r * drs + c * dcs) * esize].
 * Bit-exact.  Local, serial.
 */
void cs_eng_copy2d(size_t esize, int64_t rows, int64_t cols, const void *src,
                   int64_t srs, int64_t scs, void *dst, int64_t drs,
                   int64_t dcs);

/* ------------------------------------------------------------ workspace */

/* A buffer of at least bytes bytes, kept between calls; NULL on failure. */
void *cs_eng_workspace_get(size_t bytes);

#endif /* CS_ENGINE_ENGINE_INT_H */
