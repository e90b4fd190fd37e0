/*
 * shim/shim_str_int.h - text built in fixed buffers (shim_str.c): the
 * per-call trace line, the messages about processes that disagree.
 */
#ifndef CS_SHIM_SHIM_STR_INT_H
#define CS_SHIM_SHIM_STR_INT_H

#include <stddef.h>

/*
 * Append printf-formatted text to buf (len bytes, *pos_p of them used),
 * never past its end: what does not fit is cut, *pos_p stays below len
 * and buf stays NUL-terminated.  Once buf is full, further calls do
 * nothing.  Local, thread-safe.
 */
void cs_shim_str_append(char *buf, size_t len, size_t *pos_p,
                        const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* CS_SHIM_SHIM_STR_INT_H */
