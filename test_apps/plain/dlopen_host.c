/*
 * test_apps/plain/dlopen_host.c - a program without MPI that loads its MPI
 * work from a shared object with dlopen(RTLD_LOCAL), as a Python
 * interpreter loads an extension module: the plugin's MPI and ScaLAPACK
 * come into the process after any LD_PRELOAD and stay out of the global
 * scope.  The costa-shim checks preload the shim into it: it must run
 * exactly as without (the shim finds the real routines among the loaded
 * objects, and stays inert because its MPI references were not bound).
 *
 *   dlopen_host PLUGIN.so [args]   calls PLUGIN's cs_plugin_main(argc, argv)
 *
 * Built with the plain C compiler and no MPI.  Exit status: the plugin's,
 * 2 when it cannot be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlopen_host PLUGIN.so [args]\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen_host: %s\n", dlerror());
        return 2;
    }
    void *p = dlsym(h, "cs_plugin_main");
    if (!p) {
        fprintf(stderr, "dlopen_host: no cs_plugin_main in %s\n", argv[1]);
        return 2;
    }
    int (*f)(int, char **);
    memcpy(&f, &p, sizeof(f));
    return f(argc - 1, argv + 1);
}
