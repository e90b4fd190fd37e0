/*
 * shim/shim_sym.c - finding a symbol as the process would without the
 * shim (cs_shim_sym_next, cs_shim_sym_any), for the real ScaLAPACK and
 * BLACS routines and for MPI_Init.  No state, no MPI: shim_mpi.c uses it
 * to find out whether MPI may be called at all.
 *
 * RATIONALE: a Python program (GPAW, petsc4py) loads its extension module
 * with RTLD_LOCAL, and with it MPI and ScaLAPACK: their calls still reach
 * the preloaded shim, which comes first in the global scope, but
 * dlsym(RTLD_NEXT) and dlsym(RTLD_DEFAULT) only search the global scope
 * and find nothing.  So when they fail, the loaded objects are searched
 * one by one (cs_shim_sym_next): a forwarded call must never fail where
 * the program would have run.
 */
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

#include "shim/shim_sym_int.h"

#define CS_REAL_MAX_OBJECTS 1024

typedef struct {
    const char *name[CS_REAL_MAX_OBJECTS];
    int n;
} cs_real_objects_t;

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    cs_real_objects_t *o = data;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < CS_REAL_MAX_OBJECTS) {
        o->name[o->n++] = info->dlpi_name;
    }
    return 0;
}

/* The first loaded object but the shim defining name, searched in load
 * order (dlopen of each while the loader's object list is not held). */
static void *search_objects(const char *name)
{
    Dl_info me;
    if (!dladdr((void *)search_objects, &me)) {
        return NULL;
    }
    cs_real_objects_t objs;
    objs.n = 0;
    dl_iterate_phdr(collect, &objs);
    for (int i = 0; i < objs.n; i++) {
        void *h = dlopen(objs.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) {
            continue;
        }
        void *p = dlsym(h, name);
        Dl_info at;
        int mine = p && dladdr(p, &at) && at.dli_fbase == me.dli_fbase;
        dlclose(h);
        if (p && !mine) {
            return p;
        }
    }
    return NULL;
}

void *cs_shim_sym_next(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    return p ? p : search_objects(name);
}

void *cs_shim_sym_any(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    return p ? p : search_objects(name);
}
