/*
 * shim/shim_fault.c - COSTA_SHIM_TEST_FAULT: the test hook that makes one
 * chosen rank's allocation fail at one step of a call's decision, so that
 * the checks can show every rank still takes the same path
 * (shim_fault_int.h).  Reads the configuration and the world rank only.
 */
#include "config/config.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_process_int.h"

int cs_shim_fault(int step)
{
    const cs_config_t *cfg = cs_cfg_get();
    return cfg->test_fault != CS_CFG_FAULT_OFF &&
           (int)cfg->test_fault == step &&
           (step == CS_CFG_FAULT_DIGEST ||
            cfg->test_fault_rank == cs_shim_world_rank());
}
