/*
 * engine/matmul/reduce.c - the reduce-scatter of partial products
 * (matmul_int.h): each rank's piece of C summed from every rank's partial,
 * in the same order on every rank, through a receive buffer of two slots.
 *
 * RATIONALE: receiving every other rank's piece whole took (P - 1) pieces
 * of memory, as much as C_ij again for large P, and its fresh pages are a
 * first call's largest cost on a virtual machine (20000 x 300 x 2000 on
 * 1 x 2: 24 MB of the 73 MB buffer).  Pieces come in slots instead: two
 * receives in flight, each added as it lands.
 */
#include <stdlib.h>

#include "engine/engine_int.h"
#include "engine/matmul/matmul_int.h"

enum { CS_MM_TAG_SUM = 27925 };

/* dst[k] += src[k] for n real numbers of the element type (a complex
 * element is two). */
static void add(void *dst, const void *src, int64_t n, int type)
{
    if (type == CS_ENG_T_S || type == CS_ENG_T_C) {
        float *d = dst;
        const float *s = src;
        for (int64_t k = 0; k < n; k++) {
            d[k] += s[k];
        }
    } else {
        double *d = dst;
        const double *s = src;
        for (int64_t k = 0; k < n; k++) {
            d[k] += s[k];
        }
    }
}

/* The bytes of one slot: the same on every rank for the same chunk_bytes
 * (0: CS_ENG_MM_CHUNK_BYTES), a multiple of esize; 1/16 of the chunk
 * bytes (4 MiB), a sixteenth of what a chunk's slabs may hold. */
static int64_t slot_bytes(int64_t chunk_bytes, int64_t esize)
{
    int64_t cb = chunk_bytes > 0 ? chunk_bytes : CS_ENG_MM_CHUNK_BYTES;
    int64_t s = cs_eng_min64(cb / 16, (int64_t)1 << 30) / esize * esize;
    return s > esize ? s : esize;
}

int64_t cs_eng_mm_reduce_ring(int64_t chunk_bytes, int64_t esize, int64_t mine,
                              int nparts)
{
    if (nparts < 2 || mine <= 0) {
        return 0;
    }
    return 2 * cs_eng_min64(slot_bytes(chunk_bytes, esize), mine);
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        cs_eng_fatal("matmul: MPI %s failed (error %d)", what, rc);
    }
}

/* Receive number i of the order (w, sub-piece), w != me, into slot i % 2;
 * MPI keeps the order of one sender's messages. */
static void post_recv(const cs_eng_mm_rs_t *rs, int64_t i, int64_t nsub,
                      int64_t slot, int64_t sub, MPI_Request rq[2])
{
    int w = (int)(i / nsub);
    w += w >= rs->me;
    int64_t off = i % nsub * slot;
    int64_t len = cs_eng_min64(slot, rs->bytes[rs->me] - off);
    check(MPI_Irecv(rs->ring + i % 2 * sub, (int)len, MPI_BYTE, rs->peer[w],
                    CS_MM_TAG_SUM, rs->comm, &rq[i % 2]),
          "Irecv");
}

void cs_eng_mm_reduce_scatter(const cs_eng_mm_rs_t *rs, int64_t *bytes_recv,
                              int64_t *bytes_sent)
{
    int64_t slot = slot_bytes(rs->chunk_bytes, rs->esize);
    int64_t mine = rs->bytes[rs->me];
    int64_t nsub = (mine + slot - 1) / slot; /* sub-pieces of one piece */
    int64_t nsend = 0;
    for (int w = 0; w < rs->np; w++) {
        if (w != rs->me) {
            nsend += (rs->bytes[w] + slot - 1) / slot;
        }
    }
    MPI_Request *sq = malloc((size_t)cs_eng_max64(nsend, 1) * sizeof(*sq));
    if (!sq) {
        /* the ranks are already committed: there is no way back */
        cs_eng_fatal("matmul: out of memory for %lld requests",
                     (long long)nsend);
    }
    /* two receives in flight; each is added as it lands, in the order
     * own + w ascending for every element */
    int64_t nrecv = nsub * (rs->np - 1);
    int64_t sub = cs_eng_min64(slot, mine);
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int64_t posted = 0;
    for (; posted < nrecv && posted < 2; posted++) {
        post_recv(rs, posted, nsub, slot, sub, rq);
    }
    int64_t ns = 0;
    for (int w = 0; w < rs->np; w++) {
        if (w == rs->me) {
            continue;
        }
        for (int64_t off = 0; off < rs->bytes[w]; off += slot) {
            check(MPI_Isend(rs->cij + rs->off[w] + off,
                            (int)cs_eng_min64(slot, rs->bytes[w] - off),
                            MPI_BYTE, rs->peer[w], CS_MM_TAG_SUM, rs->comm,
                            &sq[ns++]),
                  "Isend");
        }
        *bytes_sent += rs->bytes[w];
    }
    char *own = rs->cij + rs->off[rs->me];
    int cplx = rs->type == CS_ENG_T_C || rs->type == CS_ENG_T_Z;
    for (int64_t i = 0; i < nrecv; i++) {
        check(MPI_Wait(&rq[i % 2], MPI_STATUS_IGNORE), "Wait");
        int64_t off = i % nsub * slot, len = cs_eng_min64(slot, mine - off);
        add(own + off, rs->ring + i % 2 * sub, len / rs->esize * (cplx ? 2 : 1),
            rs->type);
        if (posted < nrecv) {
            post_recv(rs, posted++, nsub, slot, sub, rq);
        }
    }
    *bytes_recv += mine * (rs->np - 1);
    check(cs_eng_wait_all((int)ns, sq), "Waitall");
    free(sq);
}
