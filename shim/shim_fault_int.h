/*
 * shim/shim_fault_int.h - COSTA_SHIM_TEST_FAULT, the test hook of the
 * decision sequence (shim_fault.c).
 */
#ifndef CS_SHIM_SHIM_FAULT_INT_H
#define CS_SHIM_SHIM_FAULT_INT_H

/* 1 when COSTA_SHIM_TEST_FAULT names step (a cs_cfg_fault_t) and
 * COSTA_SHIM_TEST_FAULT_RANK this rank of MPI_COMM_WORLD: the step's
 * allocation fails here, for the tests (CS_CFG_FAULT_DIGEST: on every
 * rank).  Local. */
int cs_shim_fault(int step);

#endif /* CS_SHIM_SHIM_FAULT_INT_H */
