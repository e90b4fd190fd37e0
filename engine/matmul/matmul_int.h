/*
 * engine/matmul/matmul_int.h - what the files of engine/matmul share:
 * cutting one dimension of an operand as its layout cuts it (cut.c), the
 * reduce-scatter of partial products (reduce.c), what a product of one
 * triangle changes (sym.c) and the multiplication whose slabs are made of
 * the owners' pieces (pieces.c).
 */
#ifndef CS_ENGINE_MATMUL_MATMUL_INT_H
#define CS_ENGINE_MATMUL_MATMUL_INT_H

#include "engine/matmul/matmul.h"

/*
 * Indices [k0, k1) of one dimension of lx (its rows when along_rows, else
 * its columns), counted from global index off, as lx distributes them:
 * block-cyclic over one grid dimension whose other dimension is 1, so
 * that a rank's indices are one run of its local storage, in global
 * order.  Gives this rank's count *mine and the local index of its first
 * one *lfirst; with count (nranks entries), every rank's count; with d,
 * the cut as a distribution over the nranks ranks (proc: the rank, loff:
 * the place in that rank's run).  d is freed by cs_eng_mm_dist_free().
 * Global but for *mine and *lfirst.
 */
cs_status_t cs_eng_mm_cut(const cs_eng_layout_t *lx, int along_rows,
                          int64_t off, int64_t k0, int64_t k1, int me,
                          int nranks, cs_eng_dist_t *d, int64_t *count,
                          int64_t *mine, int64_t *lfirst);

void cs_eng_mm_dist_free(cs_eng_dist_t *d);

/* The reduce-scatter of partial products (reduce.c): np parts, part w of
 * this rank's partial at cij + off[w] (bytes[w] bytes; part w has as many
 * bytes on every rank) goes to rank peer[w]; this rank holds part me and
 * sums into it every rank's part me in the order of w.  The parts
 * received pass through ring (cs_eng_mm_reduce_ring bytes) in slots. */
typedef struct {
    char *cij;
    const int64_t *off, *bytes;
    const int *peer;
    int np, me;
    int type;      /* cs_eng_type_t, for the sum */
    int64_t esize; /* an element's bytes */
    int64_t chunk_bytes;  /* the multiplication's (cs_eng_mm_op_t) */
    char *ring;
    MPI_Comm comm;
} cs_eng_mm_rs_t;

void cs_eng_mm_reduce_scatter(const cs_eng_mm_rs_t *rs, int64_t *bytes_recv,
                              int64_t *bytes_sent);

/* The ring a rank whose own part has mine bytes needs, of nparts parts. */
int64_t cs_eng_mm_reduce_ring(int64_t chunk_bytes, int64_t esize, int64_t mine,
                              int nparts);

/* ------------------------------------------------------------ triangle */

/* Flops of a local product of m x n x k under op: 8 m n k for complex, 2
 * for real; op->uplo (one triangle, m = n): (n + 1) n k, 4 for complex,
 * as ?syrk and ?herk count (sym.c). */
double cs_eng_mm_flops(const cs_eng_mm_op_t *op, int64_t m, int64_t n,
                       int64_t k);

/* The mask (cs_eng_mask_t) of the exchange that writes the whole sub(C)
 * from (0, 0): op->uplo's triangle, else none. */
int cs_eng_mm_mask(const cs_eng_mm_op_t *op);

/* op->uplo set: the other triangle of the n x n local c (ldc) filled
 * from op->uplo's, once all local products are summed into it (the
 * local product computes one triangle, cs_eng_gemm_fn).  0: nothing. */
void cs_eng_mm_mirror(const cs_eng_mm_op_t *op, int64_t n, void *c,
                      int64_t ldc);

/* ------------------------------------------------------------ pieces */

typedef struct cs_eng_mm_pieces cs_eng_mm_pieces_t;

cs_status_t cs_eng_mm_pieces_create(const cs_eng_layout_t *la,
                                    const cs_eng_layout_t *lb,
                                    const cs_eng_layout_t *lc,
                                    const cs_eng_mm_op_t *op, int me,
                                    int nranks, int64_t ws_max,
                                    cs_eng_mm_pieces_t **g_p);

/* The exchange of C out. */
cs_eng_plan_t *cs_eng_mm_pieces_out(cs_eng_mm_pieces_t *g);

int64_t cs_eng_mm_pieces_buffer_bytes(const cs_eng_mm_pieces_t *g);
int64_t cs_eng_mm_pieces_heap_bytes(const cs_eng_mm_pieces_t *g);
void cs_eng_mm_pieces_describe(const cs_eng_mm_pieces_t *g, char *buf,
                               size_t len);

cs_status_t cs_eng_mm_pieces_execute(cs_eng_mm_pieces_t *g, const void *a,
                                     const void *b, void *c, void *buf,
                                     MPI_Comm comm,
                                     const cs_eng_exec_opts_t *opts,
                                     cs_eng_gemm_fn gemm, void *gemm_ctx,
                                     cs_eng_mm_stats_t *st);

void cs_eng_mm_pieces_destroy(cs_eng_mm_pieces_t *g);

#endif /* CS_ENGINE_MATMUL_MATMUL_INT_H */
