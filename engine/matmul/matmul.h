/*
 * engine/matmul/matmul.h - matrix multiplication through the engine:
 * C := alpha op(A) op(B) + beta C for matrices in any engine layouts
 * (docs/design.md, "Matrix multiplication").
 *
 * The P processes form a pm x pn x pk grid; the inner dimension is also
 * cut into chunks (CS_ENG_MM_CHUNK_BYTES), done one after the other.  Process
 * (i, j, l) multiplies the rows M_i of op(A), the columns N_j of op(B) and the
 * slab K_l of the inner dimension: it receives its blocks of A and B with one
 * exchange each (plain copies of the application's layouts into contiguous
 * slabs), completes them from the other copies of its slab (A's slab is
 * needed by the pn processes of the same i and l, B's by the pm of the
 * same j and l: each receives 1/pn, resp. 1/pm, and the copies are
 * exchanged directly), multiplies locally with the application's ?gemm,
 * sums the partial products of the pk slabs (a reduce-scatter: each of
 * the pk processes receives one column piece of C_ij summed over l) and
 * writes its piece into C with alpha and beta by a third exchange.
 *
 * Nothing here knows ScaLAPACK: the layouts come from the caller, and so
 * does the local multiplication.
 */
#ifndef CS_ENGINE_MATMUL_MATMUL_H
#define CS_ENGINE_MATMUL_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#include <mpi.h>

/* One multiplication: sub(C) (m x n, at 0-based (ic, jc) of C) :=
 * alpha op(sub(A)) op(sub(B)) + beta sub(C), op(sub(A)) m x k at (ia, ja)
 * of A, op(sub(B)) k x n at (ib, jb) of B. */
typedef struct {
    int64_t m, n, k;
    int64_t ia, ja, ib, jb, ic, jc;
    int type; /* cs_eng_type_t: S, D, C or Z */
    size_t esize;
    char transa, transb; /* 'N', 'T' or 'C' (conjugate transpose) */
    int64_t chunk_bytes; /* chunks of k (CS_ENG_MM_CHUNK_BYTES); 0: that */
    /* direct = 1: this rank's slabs are already in the local arrays of A
     * and B, stored as the exchanges would store them (split 1 x 1 x P;
     * the caller checked that sub(A)'s and sub(B)'s inner indices lie on
     * the same process in the same order on every rank): elements a_off
     * and b_off of them, leading dimensions lda and ldb, kl inner indices
     * here (0 allowed).  Nothing of A or B is moved. */
    int direct;
    int64_t a_off, lda, b_off, ldb, kl;
    /* inplace = 'A' (or 'B'): that operand is read where it lies and the
     * other one brought to it.  Its outer dimension (op(A)'s rows m, or
     * op(B)'s columns n) is spread over po processes along one dimension
     * of its grid, its inner dimension over pk along the other (po or pk
     * may be 1), each cyclic where spread; the split is po x 1 x pk (A)
     * or 1 x po x pk (B), the process at grid place (o, l) of that
     * operand being process (o, l) of the split.  Each process multiplies
     * its own part where it lies with the matching slab of the other
     * operand (its inner dimension cut as the in-place one cuts it,
     * whole along its other dimension, one copy on each of the po
     * processes); the partial C of its rows (columns) is summed over the
     * pk processes of its grid line, whose pieces of C go out.
     * Column-major.  0: neither. */
    char inplace;
    /* pieces = 1: both operands have their inner dimension along the
     * same grid dimension, cut alike, and their other dimension along
     * the other one (A^T B, A B^T; on 1 x P, P x 1 or any grid): split
     * 1 x 1 x P, each slab assembled from the pieces the members of its
     * grid line hold, the next chunk's in flight while one is multiplied
     * (pieces.c).  Column-major layouts. */
    int pieces;
    /* uplo = 'U' or 'L': only that triangle of sub(C) is written
     * (p?syrk, p?herk): B is A itself and op(B) = op(A)^T (op(A)^H when
     * an op is 'C'), so the local product computes one triangle and
     * fills the other by symmetry (cs_eng_gemm_fn).  Split 1 x 1 x P
     * only.  0: all of sub(C). */
    char uplo;
    double alpha[2], beta[2];
} cs_eng_mm_op_t;

/* The process grid of the multiplication: pm * pn * pk = P. */
typedef struct {
    int pm, pn, pk;
} cs_eng_mm_split_t;

/* What a split costs one process (the largest over the processes, in
 * elements): words received in all phases, and the memory held. */
typedef struct {
    double words;
    double words_in;     /* A and B into the slabs, with the copies */
    double words_reduce; /* the reduce-scatter */
    double words_out;    /* C's pieces into C */
    double elems;        /* buffers: one chunk of the slabs of A and B,
                          * C_ij, received pieces */
} cs_eng_mm_cost_t;

/*
 * The split of an m x n x k product over nranks processes that receives
 * the fewest words per process within mem_max bytes of buffers (< 0: no
 * bound); ties go to fewer copies.  Every factor is at most its dimension.
 * Returns 0 and fills *s (and *cost when not NULL), or -1 when no split
 * fits.  Global: the same on every rank.
 */
int cs_eng_mm_split(int64_t m, int64_t n, int64_t k, int nranks, size_t esize,
                    int64_t mem_max, cs_eng_mm_split_t *s,
                    cs_eng_mm_cost_t *cost);

/*
 * The cost of reading operand inplace ('A' or 'B') where it lies with its
 * outer dimension over po processes and its inner one over pk (split
 * po x 1 x pk or 1 x po x pk, matmul.h): the other operand's slabs in,
 * this process's rows (columns) of C summed over pk processes and out.
 * Returns 0 and fills *c, or -1 when its buffers exceed mem_max bytes
 * (< 0: no bound).  Global.
 */
int cs_eng_mm_inplace_cost(int64_t m, int64_t n, int64_t k, int po, int pk,
                           char inplace, size_t esize, int64_t mem_max,
                           cs_eng_mm_cost_t *c);

/* The same for op.pieces (matmul.h): the split 1 x 1 x P with only the
 * pieces of the other nline - 1 members of a line received. */
int cs_eng_mm_pieces_cost(int64_t m, int64_t n, int64_t k, int nranks,
                          int nline, size_t esize, int64_t mem_max,
                          cs_eng_mm_cost_t *c);

/* The local product c (m x n, ldc) := op(a) op(b) (alpha 1; beta 0, or
 * 1 with accumulate), with ta and tb as ?gemm takes them.  uplo 'U' or
 * 'L' (cs_eng_mm_op_t.uplo): m = n and op(b) = op(a)^T (^H when ta or tb
 * is 'C'); the product computes that triangle of c from a alone (?syrk,
 * ?herk, whose diagonal it keeps real) and may leave the other as it
 * was: the engine fills it once the products are summed.  0: a general
 * product. */
typedef void (*cs_eng_gemm_fn)(void *ctx, char uplo, char ta, char tb,
                               int64_t m, int64_t n, int64_t k, const void *a,
                               int64_t lda, const void *b, int64_t ldb,
                               int accumulate, void *c, int64_t ldc);

/* The inner dimension is cut into chunks whose slabs of A and B (of the
 * largest brick) hold at most this many bytes: the buffer stays bounded
 * and a first call faults in that much, not the whole slabs. */
#define CS_ENG_MM_CHUNK_BYTES ((int64_t)64 << 20)

typedef struct cs_eng_mm cs_eng_mm_t;

/*
 * Plan the multiplication op of A (layout la), B (lb) into C (lc) with
 * split s, as process me of the communicator the layouts' grids number
 * (nranks = s.pm * s.pn * s.pk processes).  The exchanges are cut
 * to ws_max like cs_eng_plan_create_bounded().  Local.
 */
cs_status_t cs_eng_mm_create(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb,
                             const cs_eng_layout_t *lc,
                             const cs_eng_mm_op_t *op, cs_eng_mm_split_t s,
                             int me, int64_t ws_max, cs_eng_mm_t **mm_p);

/* The exchanges that run on their own, for reservation: of each chunk
 * A's and B's, unless they run batched (in the buffer, reserving nothing
 * else), or the one of an operand not read in place; the last: C out. */
int cs_eng_mm_nplans(const cs_eng_mm_t *mm);
cs_eng_plan_t *cs_eng_mm_plan(cs_eng_mm_t *mm, int which);

/* Bytes of the buffer cs_eng_mm_execute() needs on this rank. */
int64_t cs_eng_mm_buffer_bytes(const cs_eng_mm_t *mm);

/* Heap bytes of the plan itself (its exchanges). */
int64_t cs_eng_mm_heap_bytes(const cs_eng_mm_t *mm);

/* What one multiplication did on this rank. */
typedef struct {
    cs_eng_stats_t xfer;  /* the exchanges together */
    int64_t bytes_copies; /* received from the other copies of slabs */
    int64_t bytes_reduce; /* received by the reduce-scatter */
    int64_t sent_copies, sent_reduce;    /* ... and sent */
    double flops;                        /* of the local product */
    double t_in, t_mul, t_reduce, t_out; /* seconds per phase */
} cs_eng_mm_stats_t;

/*
 * Run it: a, b and c are the local arrays of the three layouts, buf
 * cs_eng_mm_buffer_bytes() bytes (its content is not kept).  Collective
 * over comm (the communicator the layouts' grids number).
 */
cs_status_t cs_eng_mm_execute(cs_eng_mm_t *mm, const void *a, const void *b,
                              void *c, void *buf, MPI_Comm comm,
                              const cs_eng_exec_opts_t *opts,
                              cs_eng_gemm_fn gemm, void *gemm_ctx,
                              cs_eng_mm_stats_t *st);

/* A one-line description ("split 1x1x2 ..."). */
void cs_eng_mm_describe(const cs_eng_mm_t *mm, char *buf, size_t len);

void cs_eng_mm_destroy(cs_eng_mm_t *mm);

#endif /* CS_ENGINE_MATMUL_MATMUL_H */
