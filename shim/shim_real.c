/*
 * shim/shim_real.c - finding the real ScaLAPACK routines and the BLACS
 * queries the shim needs.
 *
 * Everything is resolved lazily at the first intercepted call, never in a
 * constructor, and nothing here adds a DT_NEEDED entry: BLACS lives in the
 * application's ScaLAPACK, which is loaded whenever one of our routines is
 * called.  A routine is resolved once, under a mutex, and published with
 * release stores (its pointer, then its `tried` flag); the library's path
 * is written once, before its `has_path` flag, so threads that read it
 * after the flag never see it half written.  The BLACS pointers are cached
 * with atomic stores (two threads may race to resolve; both find the same
 * symbol).
 *
 * Symbols are looked up with cs_shim_sym_next/cs_shim_sym_any
 * (shim_sym.c).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "shim/shim.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"
#include "shim/shim_sym_int.h"

#include <mpi.h>

/* ------------------------------------------------------------ routines */

typedef struct {
    _Atomic(cs_shim_fn_t) fn[2]; /* [fortran] */
    atomic_int tried[2];
    atomic_int has_path;         /* path written, never again */
    char path[512];
} cs_shim_real_t;

static cs_shim_real_t cs_shim_real_tab[CS_SHIM_NROUTINES];
static pthread_mutex_t cs_shim_real_lock = PTHREAD_MUTEX_INITIALIZER;

/* The symbol `name` after the shim; the first one found gives r's path.
 * The caller holds cs_shim_real_lock. */
static cs_shim_fn_t probe(const char *name, cs_shim_real_t *r)
{
    void *p = cs_shim_sym_next(name);
    if (p && !atomic_load_explicit(&r->has_path, memory_order_relaxed)) {
        Dl_info info;
        if (dladdr(p, &info) && info.dli_fname) {
            snprintf(r->path, sizeof(r->path), "%s", info.dli_fname);
            atomic_store_explicit(&r->has_path, 1, memory_order_release);
        }
    }
    cs_shim_fn_t fn;
    memcpy(&fn, &p, sizeof(fn)); /* object to function pointer, POSIX */
    return fn;
}

/* Resolve r's entry (fortran or C); the caller holds cs_shim_real_lock. */
static void resolve_locked(int routine, int fortran, cs_shim_real_t *r)
{
    const cs_shim_routine_t *rt = &cs_shim_routines[routine];
    static const int order[] = {CS_SHIM_SP_LOWER_,  CS_SHIM_SP_LOWER,
                                CS_SHIM_SP_LOWER__, CS_SHIM_SP_UPPER,
                                CS_SHIM_SP_UPPER_,  CS_SHIM_SP_UPPER__};
    char name[64];
    cs_shim_fn_t fn = NULL;
    if (fortran) {
        for (size_t i = 0; !fn && i < sizeof(order) / sizeof(order[0]); i++) {
            cs_shim_called_name(routine, order[i], name, sizeof(name));
            fn = probe(name, r);
        }
    } else {
        snprintf(name, sizeof(name), "C%s", rt->lower);
        fn = probe(name, r);
    }
    atomic_store_explicit(&r->fn[fortran], fn, memory_order_release);
    atomic_store_explicit(&r->tried[fortran], 1, memory_order_release);
}

cs_shim_fn_t cs_shim_real(int routine, int fortran)
{
    cs_shim_real_t *r = &cs_shim_real_tab[routine];
    if (!atomic_load_explicit(&r->tried[fortran], memory_order_acquire)) {
        pthread_mutex_lock(&cs_shim_real_lock);
        if (!atomic_load_explicit(&r->tried[fortran],
                                  memory_order_relaxed)) {
            resolve_locked(routine, fortran, r);
        }
        pthread_mutex_unlock(&cs_shim_real_lock);
    }
    return atomic_load_explicit(&r->fn[fortran], memory_order_acquire);
}

const char *cs_shim_real_library(void)
{
    for (int r = 0; r < CS_SHIM_NROUTINES; r++) {
        if (atomic_load_explicit(&cs_shim_real_tab[r].has_path,
                                 memory_order_acquire)) {
            return cs_shim_real_tab[r].path;
        }
    }
    /* nothing forwarded yet: look where the real pdgemr2d_ lives */
    cs_shim_real(CS_SHIM_R_PDGEMR2D, 1);
    const cs_shim_real_t *g = &cs_shim_real_tab[CS_SHIM_R_PDGEMR2D];
    return atomic_load_explicit(&g->has_path, memory_order_acquire) ? g->path
                                                                     : "";
}

/* ------------------------------------------------------------ BLACS */

typedef void (*gridinfo_fn)(int, int *, int *, int *, int *);
typedef void (*get_fn)(int, int, int *);
typedef MPI_Comm (*b2s_fn)(int);

static void *blacs_sym(const char *name)
{
    void *p = cs_shim_sym_any(name);
    if (!p) {
        cs_shim_fatal("cannot find the BLACS function %s in the process; "
                      "is the application linked with ScaLAPACK?",
                      name);
    }
    return p;
}

void cs_shim_gridinfo(int ctxt, int *nprow_p, int *npcol_p, int *myrow_p,
                      int *mycol_p)
{
    static _Atomic(void *) fp;
    void *p = atomic_load(&fp);
    if (!p) {
        p = blacs_sym("Cblacs_gridinfo");
        atomic_store(&fp, p);
    }
    gridinfo_fn f;
    memcpy(&f, &p, sizeof(f));
    *nprow_p = *npcol_p = *myrow_p = *mycol_p = -1;
    f(ctxt, nprow_p, npcol_p, myrow_p, mycol_p);
}

/* BLACS does not check handles: only call this for contexts the caller
 * belongs to (cs_shim_gridinfo says so). */
MPI_Comm cs_shim_ctxt_system_comm(int ctxt)
{
    static _Atomic(void *) getp, b2sp;
    void *g = atomic_load(&getp), *b = atomic_load(&b2sp);
    if (!g || !b) {
        g = blacs_sym("Cblacs_get");
        b = blacs_sym("Cblacs2sys_handle");
        atomic_store(&getp, g);
        atomic_store(&b2sp, b);
    }
    get_fn get;
    b2s_fn b2s;
    memcpy(&get, &g, sizeof(get));
    memcpy(&b2s, &b, sizeof(b2s));
    int handle = -1;
    get(ctxt, 10, &handle); /* 10 = SGET_BLACSCONTXT */
    return b2s(handle);
}

int cs_shim_pilaenv(int ctxt, char type)
{
    typedef int (*pilaenv_fn)(const int *, const char *);
    void *p = cs_shim_sym_any("pilaenv_");
    if (!p) {
        return 32; /* the reference PILAENV's answer */
    }
    pilaenv_fn f;
    memcpy(&f, &p, sizeof(f));
    char prec = (char)(type - 'a' + 'A');
    int kb = f(&ctxt, &prec);
    return kb > 0 ? kb : 32;
}
