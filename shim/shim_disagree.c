/*
 * shim/shim_disagree.c - wording the messages about processes that pass
 * different arguments to one collective call: which value each rank
 * passed.  No MPI: the callers have gathered the values.
 */
#include <stdio.h>

#include "shim/shim.h"
#include "shim/shim_disagree_int.h"
#include "shim/shim_str_int.h"

void cs_shim_disagree_str(const int *tab, int np, int stride, int off, int in,
                          int wrank, int routines, char *buf, size_t len)
{
    size_t pos = 0;
    int shown = 0;
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    for (int k = 0; k < np && shown < 4; k++) {
        const int *rk = tab + (size_t)k * stride;
        int v = rk[off], seen = 0, nr = 0;
        if (in >= 0 && !rk[in]) {
            continue;
        }
        for (int j = 0; j < np; j++) {
            const int *rj = tab + (size_t)j * stride;
            if ((in < 0 || rj[in]) && rj[off] == v) {
                seen |= j < k;
                nr++;
            }
        }
        if (seen) {
            continue;
        }
        if (routines && v >= 0 && v < CS_SHIM_NROUTINES) {
            cs_shim_str_append(buf, len, &pos, "%s%s", shown ? "; " : "",
                               cs_shim_routines[v].lower);
        } else {
            cs_shim_str_append(buf, len, &pos, "%s%d", shown ? "; " : "", v);
        }
        cs_shim_str_append(buf, len, &pos, " on rank%s", nr > 1 ? "s" : "");
        for (int j = k, i = 0; j < np; j++) {
            const int *rj = tab + (size_t)j * stride;
            if ((in >= 0 && !rj[in]) || rj[off] != v) {
                continue;
            }
            if (i < 6) {
                cs_shim_str_append(buf, len, &pos, "%s %d", i ? "," : "",
                                   rj[wrank]);
            } else if (i == 6) {
                cs_shim_str_append(buf, len, &pos, ", ...");
            }
            i++;
        }
        shown++;
    }
}
