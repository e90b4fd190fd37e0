/*
 * config/config_table.c - the one table of COSTA_SHIM_* variables: name,
 * default, type, storage, value syntax and help text.  The parser, the
 * dump, the unknown-name check and docs/env.md all walk this table, so a
 * variable is added here and nowhere else.
 *
 * Data only: no parsing, no I/O, no dependency outside config/.
 */
#include "config/config_int.h"

#include <stddef.h>

static const char *const cs_fallback_words[] = {"auto", "never", "always",
                                                NULL};
static const char *const cs_relabel_words[] = {"off", "report", "apply",
                                               NULL};
static const char *const cs_shm_words[] = {"off", "auto", "eager", NULL};
/* Index = cs_cfg_gemm_t value. */
static const char *const cs_gemm_words[] = {"off", "on", "force", NULL};
static const char *const cs_stats_words[] = {"off", "summary", "full",
                                             "local", NULL};
/* Index = cs_log_level_t value. */
static const char *const cs_level_words[] = {"error", "warn", "info",
                                             "debug", NULL};
/* The word that spells the value 0 of COSTA_SHIM_THREADS. */
static const char *const cs_threads_words[] = {"default", NULL};
/* Index = cs_cfg_fault_t value. */
static const char *const cs_fault_words[] = {
    "off",   "blacs",  "window", "workspace",     "plan",
    "table", "verify", "digest", "relabel", "relabel_dense", NULL};
/* The word of COSTA_SHIM_MAX_MEMORY's computed default. */
static const char *const cs_auto_words[] = {"auto", NULL};

#define CS_OFF(field) offsetof(cs_config_t, field)

const cs_cfg_row_t cs_cfg_rows[CS_CFG_N_ROWS] = {
    {"COSTA_SHIM_DISABLE", "0", NULL, CS_CFG_T_BOOL, CS_OFF(disable), NULL,
     0, 1, "boolean",
     "pure pass-through to the real routines, nothing recorded"},
    {"COSTA_SHIM_ROUTINES", "all", NULL, CS_CFG_T_ROUTINES, 0, NULL, 0, 0,
     "comma-separated routine names and `all`; `-name` excludes, e.g. "
     "`pdgemr2d,pzgemr2d` or `all,-pztranc`; any spelling (`PDGEMR2D_`, "
     "`Cpdgemr2d`); excludes only = `all` minus them",
     "which routines the engine takes over; the rest pass through and are "
     "counted"},
    {"COSTA_SHIM_MIN_ELEMS", "0", NULL, CS_CFG_T_COUNT, CS_OFF(min_elems),
     NULL, 0, INT64_MAX,
     "integer >= 0, optional suffix `k`, `M`, `G` (powers of 1024)",
     "calls with m*n below this go to the real routine, reason `small`"},
    {"COSTA_SHIM_FALLBACK", "auto", NULL, CS_CFG_T_ENUM, CS_OFF(fallback),
     cs_fallback_words, 0, 0, "`auto`, `never`, `always`",
     "`auto`: unsupported input goes to the real routine; `never`: abort "
     "with a message (for tests; a p?gemm left to ScaLAPACK as the faster "
     "path, reason `native_faster`, is not a fallback); `always`: measure "
     "only, every call forwarded but timed and logged"},
    {"COSTA_SHIM_THREADS", "default", NULL, CS_CFG_T_INT, CS_OFF(threads),
     cs_threads_words, 0, 65536,
     "`default` (or 0) = OpenMP default, or an integer >= 1",
     "pack/unpack/transpose threads; 1 inside a parallel region.  "
     "`default`: the OpenMP default, at most this rank's cores (those of "
     "its affinity mask when the launcher bound it, otherwise the node's "
     "cores divided by its ranks)"},
    {"COSTA_SHIM_OVERLAP", "on", NULL, CS_CFG_T_BOOL, CS_OFF(overlap), NULL,
     0, 1, "boolean",
     "unpack as messages arrive (on), or wait for all first (off)"},
    {"COSTA_SHIM_MAX_MEMORY", "auto", NULL, CS_CFG_T_SIZE,
     CS_OFF(max_memory), cs_auto_words, 0, INT64_MAX,
     "`auto`, `inf` or bytes >= 0, optional suffix `k`, `M`, `G`, `T` "
     "(powers of 1024, `B`/`iB` may follow)",
     "cap on what the shim holds per rank (workspace, cached plans, shared "
     "send buffer); a call that would go above it goes to the real routine "
     "before allocating, reason `memory`.  `auto`: a quarter of the node's "
     "memory divided by the ranks on the node (docs/user-guide.md, "
     "Memory)"},
    {"COSTA_SHIM_WORKSPACE", "auto", NULL, CS_CFG_T_SIZE, CS_OFF(workspace),
     cs_auto_words, 1, INT64_MAX,
     "`auto`, `inf` or bytes >= 1, optional suffix `k`, `M`, `G`, `T` "
     "(powers of 1024, `B`/`iB` may follow)",
     "bound on one call's send and receive buffers per rank: a call that "
     "could need more is cut into panels of whole target columns (or "
     "rows), run one after the other through the same buffer, with the "
     "same results.  `auto`: 512 KiB per process of the larger grid, at "
     "least 8 MiB and at most 64 MiB (a first call faults in every new "
     "page); `inf`: never cut.  Must be the "
     "same on every rank"},
    {"COSTA_SHIM_SHM", "auto", NULL, CS_CFG_T_ENUM, CS_OFF(shm), cs_shm_words,
     0, 0, "`off`, `auto`, `eager`",
     "shared-memory send buffer for processes on the same node (created "
     "and grown in calls where every process of MPI_COMM_WORLD takes "
     "part): `auto` creates it once the data that could have used it is "
     "40 times its size (its page faults then have paid off), `eager` at "
     "the first call that can use it, `off` never"},
    {"COSTA_SHIM_GEMM", "off", NULL, CS_CFG_T_ENUM, CS_OFF(gemm),
     cs_gemm_words, 0, 0, "`off`, `on`, `force` (testing)",
     "p?gemm, p?syrk and p?herk through the engine: `off` leaves every "
     "call of them to ScaLAPACK (results bit-identical); `on` runs the "
     "calls a cost model "
     "expects to be faster on the engine (results within PBLAS's error "
     "bound, not bit-identical: docs/design.md, \"Matrix "
     "multiplication\"); `force`: every call the engine can take.  Must be "
     "the same on every rank"},
    {"COSTA_SHIM_SHM_MIN", "64k", NULL, CS_CFG_T_SIZE, CS_OFF(shm_min), NULL,
     0, INT64_MAX,
     "`inf` or bytes >= 0, optional suffix `k`, `M`, `G`, `T` (powers of "
     "1024, `B`/`iB` may follow)",
     "packages of at least this size (1k at least) for a process on the "
     "same node wait in a shared-memory send buffer that the receiver "
     "reads, instead of passing through MPI (one copy less); `inf`: "
     "always MPI"},
    {"COSTA_SHIM_RELABEL", "off", NULL, CS_CFG_T_ENUM, CS_OFF(relabel),
     cs_relabel_words, 0, 0, "`off`, `report`, `apply`",
     "`report`: compute what an optimal relabeling would save, per call "
     "shape, into log and report, and write a relabeling plan; `apply`: "
     "create BLACS grids with the permuted maps from "
     "COSTA_SHIM_RELABEL_PLAN"},
    {"COSTA_SHIM_RELABEL_COST_RANK", "1", NULL, CS_CFG_T_INT,
     CS_OFF(relabel_cost_rank), NULL, 0, 1000000, "integer >= 0",
     "relabeling on several nodes: what a byte that leaves its process but "
     "stays in its node costs (the weight of COSTA_SHIM_RELABEL_COST_NODE's "
     "unit)"},
    {"COSTA_SHIM_RELABEL_COST_NODE", "3", NULL, CS_CFG_T_INT,
     CS_OFF(relabel_cost_node), NULL, 0, 1000000,
     "integer >= COSTA_SHIM_RELABEL_COST_RANK",
     "relabeling on several nodes: what a byte that leaves its node costs; "
     "3 measured on the CI machine (Open MPI between emulated nodes 2.0-2.1 "
     "GB/s against 5.7-6.2 GB/s in shared memory); on clusters the ranks "
     "of a node share its link, so more (docs/relabel.md)"},
    {"COSTA_SHIM_RELABEL_PLAN", "costa_shim.relabel.plan", NULL,
     CS_CFG_T_PATH, CS_OFF(relabel_plan), NULL, 0, 0, "path",
     "plan file written by `report`, read by `apply`"},
    {"COSTA_SHIM_VERIFY", "0", NULL, CS_CFG_T_BOOL, CS_OFF(verify), NULL, 0,
     1, "boolean",
     "debug: also run the real routine into a scratch copy and compare; the "
     "log carries the max difference"},
    {"COSTA_SHIM_VERBOSE", "0", NULL, CS_CFG_T_INT, CS_OFF(verbose), NULL, 0,
     2, "`0`, `1`, `2`",
     "1: one trace line per call; 2: plus plan details"},
    {"COSTA_SHIM_LOG_LEVEL", "warn", NULL, CS_CFG_T_ENUM, CS_OFF(log_level),
     cs_level_words, 0, 0, "`error`, `warn`, `info`, `debug`",
     "diagnostics, independent of the call trace"},
    {"COSTA_SHIM_LOG_FILE", "stderr", NULL, CS_CFG_T_TEMPLATE,
     CS_OFF(log_file), NULL, 0, 0,
     "`stderr`, `stdout` or a path template: `%r` rank, `%p` pid, `%h` "
     "host, `%j` job id (SLURM_JOB_ID, PBS_JOBID, JOB_ID, else `nojob`), "
     "`%%` a percent sign",
     "where the per-call trace lines go (opened in append mode)"},
    {"COSTA_SHIM_LOG_RANKS", NULL,
     "`0` for stderr/stdout and templates without `%r`; `all` with `%r`",
     CS_CFG_T_RANKS, 0, NULL, 0, 0,
     "`all` or comma-separated ranks and ranges, e.g. `0,4-7`",
     "which ranks write trace lines"},
    {"COSTA_SHIM_BANNER", "0", NULL, CS_CFG_T_BOOL, CS_OFF(banner), NULL, 0,
     1, "boolean",
     "rank 0 prints one line at the first intercepted call: version, "
     "routines, threads, real library path"},
    {"COSTA_SHIM_STATS", "off", NULL, CS_CFG_T_ENUM, CS_OFF(stats),
     cs_stats_words, 0, 0, "`off`, `summary`, `full`, `local`",
     "`summary`: text table on rank 0's stderr plus report files; `full`: "
     "adds per-rank and per-shape tables; `local`: per-rank files only, no "
     "collective at the end"},
    {"COSTA_SHIM_STATS_DIR", ".", NULL, CS_CFG_T_PATH, CS_OFF(stats_dir),
     NULL, 0, 0, "path", "where report files go"},
    {"COSTA_SHIM_STATS_FORMAT", "txt,csv,json", NULL, CS_CFG_T_FORMATS,
     CS_OFF(stats_format), NULL, 0, 0,
     "comma-separated subset of `txt`, `csv`, `json`",
     "report files written"},
    {"COSTA_SHIM_DUMP_CONFIG", "0", NULL, CS_CFG_T_BOOL,
     CS_OFF(dump_config), NULL, 0, 1, "boolean",
     "rank 0 prints every variable with its effective value and where it "
     "came from"},
    {"COSTA_SHIM_CONFIG", "", "unset (no file)", CS_CFG_T_PATH,
     CS_OFF(config_file), NULL, 0, 0, "path",
     "optional file of `COSTA_SHIM_NAME value` lines (`#` starts a "
     "comment); the environment overrides it; read from the environment "
     "only"},
    {"COSTA_SHIM_TEST_FAULT", "off", NULL, CS_CFG_T_ENUM, CS_OFF(test_fault),
     cs_fault_words, 0, 0,
     "`off`, `blacs`, `window`, `workspace`, `plan`, `table`, `verify`, "
     "`digest`, `relabel`, `relabel_dense`",
     "testing: on the rank COSTA_SHIM_TEST_FAULT_RANK names, this step's "
     "allocation fails: the context's communicator (`blacs`), the shared "
     "send buffer (`window`), the engine's workspace (`workspace`), the "
     "plan (`plan`), p?gemr2d's table (`table`), COSTA_SHIM_VERIFY's copy "
     "(`verify`); every rank must still take the same path.  `digest`: "
     "every rank's digests of tables and arguments are 0 (they all "
     "collide).  `relabel`: COSTA_SHIM_RELABEL's memory claim for each "
     "new call shape is refused, as above the memory cap.  "
     "`relabel_dense`: the plan's position matrix of each new call shape "
     "is refused, so the keeper keeps its factors, as for grids too large "
     "for a matrix"},
    {"COSTA_SHIM_TEST_FAULT_RANK", "0", NULL, CS_CFG_T_INT,
     CS_OFF(test_fault_rank), NULL, 0, INT32_MAX, "a rank of MPI_COMM_WORLD",
     "testing: the rank on which COSTA_SHIM_TEST_FAULT's step fails"},
    {"COSTA_SHIM_TEST_GEMM_CHUNK", "64M", NULL, CS_CFG_T_SIZE,
     CS_OFF(test_gemm_chunk), NULL, 1, INT64_MAX,
     "`inf` or bytes >= 1, optional suffix `k`, `M`, `G`, `T` (powers of "
     "1024, `B`/`iB` may follow)",
     "testing: p?gemm's engine path cuts the inner dimension into chunks "
     "whose slabs of A and B hold at most this much (small values make "
     "small calls run in several chunks; `inf`: 64M).  Must be the same on "
     "every rank"},
};

/* A row added without bumping CS_CFG_N_ROWS is a compile error (excess
 * initializer); a row missing leaves a NULL name, which test_config catches.
 */

int cs_cfg_table_size(void)
{
    return CS_CFG_N_ROWS;
}

int cs_cfg_table_row(int i, const char **name_p, const char **default_p,
                     const char **syntax_p, const char **help_p)
{
    const cs_cfg_row_t *row;

    if (i < 0 || i >= CS_CFG_N_ROWS)
        return -1;
    row = &cs_cfg_rows[i];
    *name_p = row->name;
    *default_p = row->doc_def != NULL ? row->doc_def : row->def;
    *syntax_p = row->syntax;
    *help_p = row->help;
    return 0;
}
