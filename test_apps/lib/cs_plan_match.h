/*
 * test_apps/lib/cs_plan_match.h - for the engine unit tests: does block x
 * of the sender's plan ps describe the same data, at the same offset of
 * the package, as block y of the receiver's plan pd?  Each plan keeps only
 * its own overlay groups, so the group indices differ between the plans;
 * the groups themselves (coordinates and sizes) must not.  Header only.
 */
#ifndef CS_PLAN_MATCH_H
#define CS_PLAN_MATCH_H

#include "engine/engine_int.h"

static inline int cs_same_package_block(const cs_eng_exch_t *ps,
                                        const cs_eng_combo_t *x,
                                        const cs_eng_exch_t *pd,
                                        const cs_eng_combo_t *y)
{
    const cs_eng_group_t *xr = &ps->rows.group[x->rg];
    const cs_eng_group_t *xc = &ps->cols.group[x->cg];
    const cs_eng_group_t *yr = &pd->rows.group[y->rg];
    const cs_eng_group_t *yc = &pd->cols.group[y->cg];
    return xr->pa == yr->pa && xr->pb == yr->pb && xr->total == yr->total &&
           xc->pa == yc->pa && xc->pb == yc->pb && xc->total == yc->total &&
           x->off == y->off && x->bytes == y->bytes;
}

#endif /* CS_PLAN_MATCH_H */
