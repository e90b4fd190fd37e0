/*
 * shim/shim_sym_int.h - finding a symbol as the process would without
 * the shim (shim_sym.c).
 */
#ifndef CS_SHIM_SHIM_SYM_INT_H
#define CS_SHIM_SHIM_SYM_INT_H

/*
 * The definition of name the process would use without the shim: the next
 * one after the shim in the global scope (dlsym(RTLD_NEXT)), else the first
 * loaded object but the shim that defines it (an object loaded with
 * RTLD_LOCAL, as Python loads extension modules and their MPI and
 * ScaLAPACK).  cs_shim_sym_any: any definition (dlsym(RTLD_DEFAULT) first).
 * NULL when there is none.  Local, thread-safe.
 */
void *cs_shim_sym_next(const char *name);
void *cs_shim_sym_any(const char *name);

#endif /* CS_SHIM_SHIM_SYM_INT_H */
