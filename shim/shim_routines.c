/*
 * shim/shim_routines.c - the routine table built from shim_symbols.def and
 * the names of paths and reasons used by statistics, trace and report.
 */
#include <stdio.h>

#include "shim/shim.h"

const cs_shim_routine_t cs_shim_routines[CS_SHIM_NROUTINES] = {
#define CS_SHIM_ROUTINE(ID, lower, UPPER, fam, type, esize, conj)             \
    [CS_SHIM_R_##ID] = {#lower, #UPPER, CS_SHIM_FAM_##fam, type, esize, conj},
#include "shim/shim_symbols.def"
#undef CS_SHIM_ROUTINE
};

void cs_shim_called_name(int routine, int spelling, char *buf, size_t len)
{
    const cs_shim_routine_t *r = &cs_shim_routines[routine];
    static const char *const suffix[CS_SHIM_NSPELL] = {"", "_", "__", "",
                                                       "_", "__", ""};
    if (spelling == CS_SHIM_SP_C) {
        snprintf(buf, len, "C%s", r->lower);
    } else {
        int upper = spelling >= CS_SHIM_SP_UPPER;
        snprintf(buf, len, "%s%s", upper ? r->upper : r->lower,
                 suffix[spelling]);
    }
}

const char *cs_shim_path_str(int path)
{
    static const char *const str[CS_SHIM_NPATH] = {
        [CS_SHIM_PATH_ENGINE] = "engine",
        [CS_SHIM_PATH_FALLBACK] = "fallback",
        [CS_SHIM_PATH_PASSTHROUGH] = "passthrough",
        [CS_SHIM_PATH_NESTED] = "nested",
        [CS_SHIM_PATH_NONE] = "none",
    };
    return path >= 0 && path < CS_SHIM_NPATH ? str[path] : "?";
}

const char *cs_shim_reason_str(int reason)
{
    static const char *const str[CS_SHIM_NREASON] = {
        [CS_SHIM_REASON_NONE] = "",
        [CS_SHIM_REASON_SMALL] = "small",
        [CS_SHIM_REASON_DISABLED] = "disabled",
        [CS_SHIM_REASON_ROUTINE_OFF] = "routine_off",
        [CS_SHIM_REASON_BAD_DESC] = "bad_desc",
        [CS_SHIM_REASON_CTXT_NEG1] = "ctxt_neg1",
        [CS_SHIM_REASON_MEMORY] = "memory",
        [CS_SHIM_REASON_MPI_NOT_READY] = "mpi_not_ready",
        [CS_SHIM_REASON_NESTED] = "nested",
        [CS_SHIM_REASON_ALWAYS] = "always",
        [CS_SHIM_REASON_UNSUPPORTED] = "unsupported",
        [CS_SHIM_REASON_MPI_MISMATCH] = "mpi_mismatch",
        [CS_SHIM_REASON_NO_WORK] = "no_work",
        [CS_SHIM_REASON_GEMM_OFF] = "gemm_off",
        [CS_SHIM_REASON_NATIVE_FASTER] = "native_faster",
    };
    return reason >= 0 && reason < CS_SHIM_NREASON ? str[reason] : "?";
}
