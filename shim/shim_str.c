/*
 * shim/shim_str.c - text built in fixed buffers (shim_str_int.h).  No
 * allocation, no state, nothing else of the shim.
 */
#include <stdarg.h>
#include <stdio.h>

#include "shim/shim_str_int.h"

void cs_shim_str_append(char *buf, size_t len, size_t *pos_p,
                        const char *fmt, ...)
{
    if (*pos_p + 1 >= len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *pos_p, len - *pos_p, fmt, ap);
    va_end(ap);
    if (k > 0) {
        *pos_p += (size_t)k < len - *pos_p ? (size_t)k : len - *pos_p - 1;
    }
}
