/*
 * shim/shim_mpi.c - which MPI library the process runs on, and whether it
 * is the one this build of the shim was compiled for.
 *
 * The MPICH and Open MPI ABIs differ in every handle (an int in MPICH, a
 * pointer to a library object in Open MPI), so a shim compiled for one
 * crashes or corrupts the other at its first MPI call.  The library has no
 * DT_NEEDED on MPI (the Makefile makes every MPI reference weak), so it
 * binds to whatever MPI the program loaded; this file decides, before the
 * shim makes any MPI call, whether that MPI speaks this build's ABI.  If it
 * does not (or the process has no MPI the shim can see) the shim goes
 * inert: every intercepted call is forwarded and counted with reason
 * mpi_mismatch, the MPI_Init hooks only chain, one warning names the build
 * to preload instead.
 *
 * How: MPI_Get_library_version may be called before MPI_Init and after
 * MPI_Finalize (MPI-3), and its C signature is the same in every ABI, so it
 * is the one MPI function safe to call from the wrong build.  Found with
 * dlsym(RTLD_DEFAULT) (the shim does not define it), it names the library;
 * Open MPI is also recognised by its ompi_mpi_comm_world object.  Last, the
 * shim's own weak references must have been bound at load time: an MPI
 * that the program dlopen()ed later left them null.
 *
 * No MPI call of this build's ABI is made here.  Thread-safe (pthread_once).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/log.h"
#include "shim/shim_mpi_int.h"
#include "shim/shim_sym_int.h"

#include <mpi.h>

#if defined(OPEN_MPI)
#define CS_MPI_BUILD CS_SHIM_MPI_OPENMPI
#define CS_MPI_BUILD_TAG "openmpi"
#elif defined(MPICH) || defined(MPICH_VERSION)
#define CS_MPI_BUILD CS_SHIM_MPI_MPICH
#define CS_MPI_BUILD_TAG "mpich"
#else
#error "unknown MPI: costa-shim is built for MPICH-family MPIs or Open MPI"
#endif

/* Larger than MPI_MAX_LIBRARY_VERSION_STRING of every MPI we know (MPICH
 * and Intel MPI 8192, Open MPI 256). */
#define CS_MPI_VERSION_LEN 16384

/* Read by scripts/costa-shim-check (grep -a), which has no other way to
 * tell a build's ABI now that the library names no MPI in DT_NEEDED. */
__attribute__((used)) static const char cs_mpi_abi_tag[] =
    "costa-shim-mpi-abi: " CS_MPI_BUILD_TAG;

static pthread_once_t cs_mpi_once = PTHREAD_ONCE_INIT;
static int cs_mpi_ok;                  /* 1: this build's ABI, usable */
static int cs_mpi_found;               /* cs_shim_mpi_t of the process */
static char cs_mpi_line[256];          /* first line of the version */
static char cs_mpi_path[512];          /* library file, "" if unknown */

static const char *const cs_mpi_names[] = {
    [CS_SHIM_MPI_NONE] = "no MPI",
    [CS_SHIM_MPI_UNKNOWN] = "an MPI of unknown ABI",
    [CS_SHIM_MPI_MPICH] = "MPICH",
    [CS_SHIM_MPI_OPENMPI] = "Open MPI",
};
static const char *const cs_mpi_libs[] = {
    [CS_SHIM_MPI_MPICH] = "libcosta_shim.so",
    [CS_SHIM_MPI_OPENMPI] = "libcosta_shim-openmpi.so",
};

/* The launcher's rank of this process, from the variables MPI launchers
 * set; -1 when none is set (a singleton, or an unknown launcher). */
int cs_shim_mpi_launcher_rank(void)
{
    static const char *const vars[] = {
        "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
        "SLURM_PROCID", "PALS_RANKID", "ALPS_APP_PE",
    };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (v && *v) {
            long r = strtol(v, &end, 10);
            if (*end == '\0' && r >= 0 && r < (1L << 30)) {
                return (int)r;
            }
        }
    }
    return -1;
}

/* MPICH's family names its ABI in the version string. */
static int is_mpich_family(const char *s)
{
    static const char *const marks[] = {"MPICH", "Intel(R) MPI", "MVAPICH"};
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        if (strstr(s, marks[i])) {
            return 1;
        }
    }
    return 0;
}

/* The process's MPI, its version's first line and its library path. */
static int find_process_mpi(void)
{
    typedef int (*version_fn)(char *, int *);
    void *p = cs_shim_sym_any("MPI_Get_library_version");
    if (!p) {
        return CS_SHIM_MPI_NONE;
    }
    Dl_info info;
    if (dladdr(p, &info) && info.dli_fname) {
        snprintf(cs_mpi_path, sizeof(cs_mpi_path), "%s", info.dli_fname);
    }
    static char ver[CS_MPI_VERSION_LEN + 1];
    int len = 0;
    version_fn f;
    memcpy(&f, &p, sizeof(f));
    ver[0] = '\0';
    f(ver, &len);
    ver[CS_MPI_VERSION_LEN] = '\0';
    /* first line (up to a comma), blanks squeezed */
    size_t k = 0;
    for (const char *c = ver; *c && *c != '\n' && *c != ',' &&
                              k + 1 < sizeof(cs_mpi_line);
         c++) {
        int blank = *c == ' ' || *c == '\t';
        if (!blank || (k > 0 && cs_mpi_line[k - 1] != ' ')) {
            cs_mpi_line[k++] = blank ? ' ' : *c;
        }
    }
    cs_mpi_line[k] = '\0';
    if (strstr(ver, "Open MPI") ||
        cs_shim_sym_any("ompi_mpi_comm_world")) {
        return CS_SHIM_MPI_OPENMPI;
    }
    return is_mpich_family(ver) ? CS_SHIM_MPI_MPICH : CS_SHIM_MPI_UNKNOWN;
}

/* Whether the shim's weak references to MPI were bound when it was
 * loaded.  Read through volatile pointers: the compiler was told these
 * symbols exist and would otherwise fold the test to true. */
static int weak_refs_bound(void)
{
    int (*volatile rank_fn)(MPI_Comm, int *) = MPI_Comm_rank;
    if (!rank_fn) {
        return 0;
    }
#if CS_MPI_BUILD == CS_SHIM_MPI_OPENMPI
    void *volatile world = (void *)MPI_COMM_WORLD;
    if (!world) {
        return 0;
    }
#endif
    return 1;
}

/* One warning for the job, from its first rank: what was found, that the
 * shim stays out of the way, and what to do instead. */
static void warn_inert(const char *what, const char *todo)
{
    int r = cs_shim_mpi_launcher_rank();
    if (r > 0) {
        return;
    }
    if (r == 0) {
        cs_log_set_rank(0);
    }
    cs_log_warn("%s: the shim stays inert and every ScaLAPACK call goes to "
                "the real routine (reason mpi_mismatch); %s",
                what, todo);
}

static void detect(void)
{
    char what[1024], todo[1024];
    const char *mine = cs_mpi_names[CS_MPI_BUILD];
    const char *me = cs_mpi_libs[CS_MPI_BUILD];
    cs_mpi_found = find_process_mpi();
    if (cs_mpi_found == CS_MPI_BUILD && weak_refs_bound()) {
        cs_mpi_ok = 1;
        return;
    }
    const char *lib = cs_mpi_path[0] ? cs_mpi_path : "?";
    snprintf(todo, sizeof(todo),
             "scripts/costa-shim-run picks the build that matches the "
             "program");
    if (cs_mpi_found == CS_MPI_BUILD) {
        /* a Python program: the extension module's MPI and ScaLAPACK are
         * loaded later, and locally; preloaded behind the shim they are
         * global from the start and the hooks still come first */
        Dl_info self, sca;
        void *p = cs_shim_sym_next("pdgemr2d_");
        const char *shim = dladdr((void *)detect, &self) && self.dli_fname
                               ? self.dli_fname
                               : me;
        const char *scalapack = p && dladdr(p, &sca) && sca.dli_fname
                                    ? sca.dli_fname
                                    : "<ScaLAPACK>";
        snprintf(what, sizeof(what),
                 "%s (%s) was loaded after the shim and not into the global "
                 "scope (a module the program dlopen()ed, as Python does), "
                 "so the shim's references to it are unbound",
                 mine, lib);
        snprintf(todo, sizeof(todo), "preload MPI and ScaLAPACK behind the "
                 "shim: LD_PRELOAD=%s:%s:%s", shim, lib, scalapack);
    } else if (cs_mpi_found == CS_SHIM_MPI_NONE) {
        snprintf(what, sizeof(what),
                 "this is the %s build of costa-shim (%s), but no MPI "
                 "library is visible in the process",
                 mine, me);
    } else if (cs_mpi_found == CS_SHIM_MPI_UNKNOWN) {
        snprintf(what, sizeof(what),
                 "this is the %s build of costa-shim (%s), but the program "
                 "runs on '%s' (%s), an MPI whose ABI it does not know",
                 mine, me, cs_mpi_line, lib);
        snprintf(todo, sizeof(todo), "builds exist for the MPICH family "
                 "(%s) and for Open MPI (%s)",
                 cs_mpi_libs[CS_SHIM_MPI_MPICH],
                 cs_mpi_libs[CS_SHIM_MPI_OPENMPI]);
    } else {
        snprintf(what, sizeof(what),
                 "this is the %s build of costa-shim (%s), but the program "
                 "runs on %s (%s, %s)",
                 mine, me, cs_mpi_names[cs_mpi_found], cs_mpi_line, lib);
        snprintf(todo, sizeof(todo), "preload %s instead (scripts/"
                 "costa-shim-run picks it for you)",
                 cs_mpi_libs[cs_mpi_found]);
    }
    warn_inert(what, todo);
}

int cs_shim_mpi_ok(void)
{
    pthread_once(&cs_mpi_once, detect);
    return cs_mpi_ok;
}
