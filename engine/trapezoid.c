/*
 * engine/trapezoid.c - packages of trapezoidal copies (p?trmr2d) hold only
 * the trapezoid.
 *
 * RATIONALE: a package block is a row group x column group rectangle; with
 * a mask, the receiver reads only the rows of each column inside the
 * trapezoid, so sending whole rectangles moves about twice the bytes of a
 * square's triangle.  In a compact package each column keeps only its
 * trapezoid rows, consecutive: a column's rows are in position order, and
 * positions follow the target row index, so the rows a lower (upper) mask
 * keeps are a suffix (prefix) of the column.  Sender and receiver find the
 * same bounds from the overlay's runs and the mask alone (global
 * information), so neither needs the other's storage.  Only plain masked
 * copies are compacted: p?tradd also writes a halo outside the trapezoid
 * and transposes.
 *
 * No MPI.
 */
#include "engine/engine_int.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int cs_eng_plan_compact(const cs_eng_op_t *op, const cs_eng_xform_t *xf)
{
    return op->mask != CS_ENG_MASK_NONE && !op->trans &&
           xf->mode == CS_XM_COPY && !xf->conj && !xf->add_zero &&
           xf->halo_kb == 0;
}

/* Index of the first of runs[0..n) that ends after x, counted in target
 * rows (by_row) or in positions; n if none.  Runs are in position order,
 * and so in row order. */
static int64_t run_after(const cs_eng_run_t *runs, int64_t n, int64_t x,
                         int by_row)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int64_t first = by_row ? runs[mid].start : runs[mid].pos;
        if (first + runs[mid].len > x) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* First position of row group g whose target row is at least t (the
 * group's size when there is none).  The A-side runs are used: with a mask
 * every run is consecutive in the index (cs_eng_overlay_build's
 * keep_index), so position and row advance together inside a run. */
static int64_t first_pos_from(const cs_eng_overlay_t *ro,
                              const cs_eng_group_t *g, int64_t t)
{
    const cs_eng_run_t *r = ro->runs[CS_ENG_SIDE_A] +
                            g->run_first[CS_ENG_SIDE_A];
    int64_t k = run_after(r, g->run_count[CS_ENG_SIDE_A], t, 1);
    if (k == g->run_count[CS_ENG_SIDE_A]) {
        return g->total;
    }
    return r[k].start >= t ? r[k].pos : r[k].pos + (t - r[k].start);
}

/* Positions [*p0_p, *p1_p) of row group rg (of row overlay ro) inside
 * the mask (cs_eng_mask_t, with its diagonal offset k, as in
 * cs_eng_mask_rows) in target column j (op-relative).  Global information
 * only: the same on every rank. */
static void trap_rows(const cs_eng_overlay_t *ro, int mask, int64_t k,
                      const cs_eng_group_t *rg, int64_t j, int64_t *p0_p,
                      int64_t *p1_p)
{
    /* the mask of cs_eng_mask_rows: lower keeps rows i >= k + j, upper
     * rows i <= k + j */
    if (mask == CS_ENG_MASK_LOWER) {
        *p0_p = first_pos_from(ro, rg, k + j);
        *p1_p = rg->total;
    } else {
        *p0_p = 0;
        *p1_p = first_pos_from(ro, rg, k + j + 1);
    }
}

int64_t cs_eng_block_elems(const cs_eng_overlay_t *ro,
                           const cs_eng_overlay_t *co, int compact,
                           const cs_eng_xform_t *xf, const cs_eng_group_t *rg,
                           const cs_eng_group_t *cg)
{
    if (!compact) {
        return rg->total * cg->total;
    }
    const cs_eng_run_t *cr = co->runs[CS_ENG_SIDE_A] +
                             cg->run_first[CS_ENG_SIDE_A];
    int64_t n = 0;
    for (int64_t i = 0; i < cg->run_count[CS_ENG_SIDE_A]; i++) {
        for (int64_t c = 0; c < cr[i].len; c++) {
            int64_t p0, p1;
            trap_rows(ro, xf->mask, xf->mask_k, rg, cr[i].start + c,
                             &p0, &p1);
            n += p1 - p0;
        }
    }
    return n;
}

/* Trapezoid elements of the package columns at positions [lo, hi) of
 * column runs cr[0..ncr) (one side's runs of the block's column group);
 * only the threaded copy needs it. */
#ifdef _OPENMP
static int64_t count_cols(const cs_eng_exch_t *plan, const cs_eng_group_t *rg,
                          const cs_eng_run_t *cr, int64_t ncr, int64_t lo,
                          int64_t hi)
{
    int64_t n = 0;
    for (int64_t j = run_after(cr, ncr, lo, 0); j < ncr && cr[j].pos < hi;
         j++) {
        int64_t k0 = lo > cr[j].pos ? lo - cr[j].pos : 0;
        int64_t k1 = hi < cr[j].pos + cr[j].len ? hi - cr[j].pos : cr[j].len;
        for (int64_t k = k0; k < k1; k++) {
            int64_t p0, p1;
            trap_rows(&plan->rows, plan->xf.mask, plan->xf.mask_k, rg,
                             cr[j].start + k, &p0, &p1);
            n += p1 - p0;
        }
    }
    return n;
}
#endif

/* cs_eng_trap_copy for the package columns at positions [lo, hi), whose
 * first element is element off of the block. */
static void copy_cols(const cs_eng_exch_t *plan, const cs_eng_combo_t *cb,
                      int unpack, const char *a, char *b, char *pkg,
                      int64_t lo, int64_t hi, int64_t off,
                      cs_eng_poll_fn poll, void *ctx)
{
    int side = unpack ? CS_ENG_SIDE_B : CS_ENG_SIDE_A;
    const cs_eng_group_t *rg = &plan->rows.group[cb->rg];
    const cs_eng_group_t *cg = &plan->cols.group[cb->cg];
    const cs_eng_run_t *rr = plan->rows.runs[side] + rg->run_first[side];
    const cs_eng_run_t *cr = plan->cols.runs[side] + cg->run_first[side];
    int64_t nr = rg->run_count[side], ncr = cg->run_count[side];
    int order = unpack ? plan->b_order : plan->a_order;
    int64_t ld = unpack ? plan->b_ld : plan->a_ld;
    int64_t rs = order == CS_ENG_COLMAJOR ? 1 : ld;
    int64_t cs = order == CS_ENG_COLMAJOR ? ld : 1;
    size_t es = plan->op.esize;
    char *arr = unpack ? b : (char *)(uintptr_t)a;
    for (int64_t j = run_after(cr, ncr, lo, 0); j < ncr && cr[j].pos < hi;
         j++) {
        int64_t k0 = lo > cr[j].pos ? lo - cr[j].pos : 0;
        int64_t k1 = hi < cr[j].pos + cr[j].len ? hi - cr[j].pos : cr[j].len;
        int64_t col0 = unpack ? cr[j].offb : cr[j].offa;
        for (int64_t k = k0; k < k1; k++) {
            int64_t p0, p1;
            trap_rows(&plan->rows, plan->xf.mask, plan->xf.mask_k, rg,
                             cr[j].start + k, &p0, &p1);
            for (int64_t i = run_after(rr, nr, p0, 0);
                 i < nr && rr[i].pos < p1; i++) {
                int64_t x0 = p0 > rr[i].pos ? p0 : rr[i].pos;
                int64_t x1 = rr[i].pos + rr[i].len < p1
                                 ? rr[i].pos + rr[i].len
                                 : p1;
                int64_t row = (unpack ? rr[i].offb : rr[i].offa) + x0 -
                              rr[i].pos;
                char *el = arr + (size_t)(row * rs + (col0 + k) * cs) * es;
                char *pk = pkg + (size_t)(off + x0 - p0) * es;
                if (unpack) {
                    cs_eng_copy2d(es, x1 - x0, 1, pk, 1, 0, el, rs, cs);
                } else {
                    cs_eng_copy2d(es, x1 - x0, 1, el, rs, cs, pk, 1, 0);
                }
            }
            off += p1 - p0;
            if (poll) {
                poll(ctx, (p1 - p0) * (int64_t)es);
            }
        }
    }
}

void cs_eng_trap_copy(const cs_eng_exch_t *plan, const cs_eng_combo_t *cb,
                      int unpack, const char *a, char *b, char *pkg,
                      int threads, cs_eng_poll_fn poll, void *ctx)
{
    int64_t ncol = plan->cols.group[cb->cg].total;
#ifdef _OPENMP
    if (threads > 1) {
        /* each thread its share of the columns; where its first column
         * starts in the package is counted, not stored */
        int side = unpack ? CS_ENG_SIDE_B : CS_ENG_SIDE_A;
        const cs_eng_group_t *rg = &plan->rows.group[cb->rg];
        const cs_eng_group_t *cg = &plan->cols.group[cb->cg];
        const cs_eng_run_t *cr = plan->cols.runs[side] + cg->run_first[side];
        int64_t ncr = cg->run_count[side];
#pragma omp parallel num_threads(threads)
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t lo = ncol * t / nt, hi = ncol * (t + 1) / nt;
            int64_t off = count_cols(plan, rg, cr, ncr, 0, lo);
            copy_cols(plan, cb, unpack, a, b, pkg, lo, hi, off, NULL, NULL);
        }
        return;
    }
#else
    (void)threads;
#endif
    copy_cols(plan, cb, unpack, a, b, pkg, 0, ncol, 0, poll, ctx);
}
