/*
 * test_apps/lib/noinit_preload.c - LD_PRELOAD helper for check
 * 62_relabel_subgrid: MPI_Init and MPI_Init_thread that go straight to
 * the MPI library, past the shim's hooks, as for a program that starts MPI
 * in a way the shim cannot see.  The shim then registers its finalizer
 * only on the ranks that call it, cannot communicate at MPI_Finalize, and
 * writes the relabeling plan from rank 0's view ("scope rank0").  Put it
 * first in LD_PRELOAD.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `name` from the MPI library itself: the library that defines
 * PMPI_Comm_rank, which the shim does not export. */
static void *mpi_sym(const char *name)
{
    Dl_info info;
    void *probe = dlsym(RTLD_DEFAULT, "PMPI_Comm_rank");
    void *h = probe && dladdr(probe, &info)
                  ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)
                  : NULL;
    void *f = h ? dlsym(h, name) : NULL;
    if (!f) {
        fprintf(stderr, "noinit_preload: cannot find %s in the MPI library\n",
                name);
        abort();
    }
    return f;
}

int MPI_Init(int *argc, char ***argv)
{
    int (*f)(int *, char ***);
    void *p = mpi_sym("PMPI_Init");
    memcpy(&f, &p, sizeof(f));
    return f(argc, argv);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int (*f)(int *, char ***, int, int *);
    void *p = mpi_sym("PMPI_Init_thread");
    memcpy(&f, &p, sizeof(f));
    return f(argc, argv, required, provided);
}
