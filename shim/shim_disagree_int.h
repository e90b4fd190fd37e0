/*
 * shim/shim_disagree_int.h - naming the ranks that disagree, for messages
 * (shim_disagree.c).
 */
#ifndef CS_SHIM_SHIM_DISAGREE_INT_H
#define CS_SHIM_SHIM_DISAGREE_INT_H

#include <stddef.h>

/*
 * For a message about ranks that disagree: "9 on rank 1; 8 on ranks 0, 2",
 * each distinct value of entry off in the np rows of tab (stride ints
 * each; only rows whose entry in is nonzero when in >= 0) with the world
 * ranks (entry wrank of each row) that pass it, a few of each; routines:
 * the values are routine ids, written as names.  Local.
 */
void cs_shim_disagree_str(const int *tab, int np, int stride, int off, int in,
                          int wrank, int routines, char *buf, size_t len);

#endif /* CS_SHIM_SHIM_DISAGREE_INT_H */
