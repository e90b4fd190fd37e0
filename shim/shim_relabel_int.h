/*
 * shim/shim_relabel_int.h - the old place of shim/relabel/relabel_int.h,
 * kept only while shim/shim_redist.c still includes it by this name.
 * Remove it once that file includes "shim/relabel/relabel_int.h".
 */
#ifndef CS_SHIM_SHIM_RELABEL_INT_H
#define CS_SHIM_SHIM_RELABEL_INT_H

#include "shim/relabel/relabel_int.h"

#endif /* CS_SHIM_SHIM_RELABEL_INT_H */
