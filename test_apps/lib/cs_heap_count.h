/*
 * test_apps/lib/cs_heap_count.h - heap bytes counted exactly, for the
 * unit programs that bound what a function allocates (test_plan_scaling,
 * test_relabel_shape).
 *
 * Include it in ONE source file of a program: it replaces malloc,
 * calloc, realloc and free there (every library of the program then
 * allocates through them) and forwards to glibc's __libc_* entry points.
 * Between mem_start() and mem_stop() it counts malloc_usable_size() of
 * every block: mem_live, what is allocated now (blocks freed that were
 * allocated before mem_start() count negative), and mem_peak, the most
 * of it.  Exact and the same on every run; one thread at a time (the
 * counters are plain variables).  Under AddressSanitizer or
 * ThreadSanitizer nothing is replaced and nothing counted
 * (CS_HEAP_COUNTED is 0).
 */
#ifndef CS_HEAP_COUNT_H
#define CS_HEAP_COUNT_H

#include <malloc.h>
#include <stdint.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static int mem_on;
static int64_t mem_live, mem_peak;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* The sanitizer owns malloc (blocks it allocated must not reach glibc's
 * free): nothing is counted, mem_live and mem_peak stay 0. */
#define CS_HEAP_COUNTED 0
#else
#define CS_HEAP_COUNTED 1

static void mem_add(void *p)
{
    if (mem_on && p) {
        mem_live += (int64_t)malloc_usable_size(p);
        if (mem_live > mem_peak) {
            mem_peak = mem_live;
        }
    }
}

static void mem_sub(void *p)
{
    if (mem_on && p) {
        mem_live -= (int64_t)malloc_usable_size(p);
    }
}

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    mem_add(p);
    return p;
}

void *calloc(size_t k, size_t n)
{
    void *p = __libc_calloc(k, n);
    mem_add(p);
    return p;
}

void *realloc(void *p, size_t n)
{
    mem_sub(p);
    void *q = __libc_realloc(p, n);
    /* on failure p is still allocated */
    mem_add(q || n == 0 ? q : p);
    return q;
}

void free(void *p)
{
    mem_sub(p);
    __libc_free(p);
}

#endif /* CS_HEAP_COUNTED */

static inline void mem_start(void)
{
    mem_live = mem_peak = 0;
    mem_on = 1;
}

static inline void mem_stop(void)
{
    mem_on = 0;
}

#endif /* CS_HEAP_COUNT_H */
