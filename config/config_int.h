/*
 * config/config_int.h - internals of the config module (not for other
 * modules): the option table row type shared by config_table.c (the data)
 * and env.c (the parser, dump and checks that walk it).
 */
#ifndef CS_CONFIG_CONFIG_INT_H
#define CS_CONFIG_CONFIG_INT_H

#include "config/config.h"

#include <stddef.h>
#include <stdint.h>

/* How a row's value is spelled and stored. */
typedef enum {
    CS_CFG_T_BOOL,     /* int: 1/0 on/off yes/no true/false */
    CS_CFG_T_INT,      /* int in [min, max]; words[0] names the value 0 */
    CS_CFG_T_COUNT,    /* int64_t >= 0, k/M/G suffix (powers of 1024) */
    CS_CFG_T_SIZE,     /* int64_t bytes >= 0, k/M/G/T suffix, inf = -1 */
    CS_CFG_T_ENUM,     /* int: index into words (NULL-terminated) */
    CS_CFG_T_ROUTINES, /* routines_all, n_include, ... (offset unused) */
    CS_CFG_T_RANKS,    /* log_ranks_all, log_ranks_set, ... */
    CS_CFG_T_PATH,     /* char[CS_CFG_PATH_LEN]; empty value = default */
    CS_CFG_T_TEMPLATE, /* like PATH; stderr, stdout or %r %p %h %j %% */
    CS_CFG_T_FORMATS   /* int: CS_CFG_FORMAT_* bits */
} cs_cfg_type_t;

/*
 * One COSTA_SHIM_* variable.  `def` is parsed by the same code as user
 * values (so the documented default is the applied default); NULL means
 * "computed after parsing" (LOG_RANKS).  `doc_def` overrides the default
 * shown in docs/env.md when non-NULL.
 */
typedef struct {
    const char *name;
    const char *def;
    const char *doc_def;
    cs_cfg_type_t type;
    size_t offset;
    const char *const *words;
    int64_t min;
    int64_t max;
    const char *syntax;
    const char *help;
} cs_cfg_row_t;

/* Number of rows (checked against the table at compile time). */
#define CS_CFG_N_ROWS 29

/* The table, in documentation order. */
extern const cs_cfg_row_t cs_cfg_rows[CS_CFG_N_ROWS];

#endif /* CS_CONFIG_CONFIG_INT_H */
