/* Allocation wrappers with fault injection. */
#include "base/alloc.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fail_at;
static long count;
static _Thread_local unsigned long failures;

/* Counts only while injection is on (a test, one thread): otherwise every allocation of every
 * thread would write this one shared counter (a data race, and a cache line bounced between the
 * cores of forge check's workers). */
static int injected(void)
{
    if (fail_at <= 0)
        return 0;
    count++;
    if (count == fail_at) {
        failures++;
        return 1;
    }
    return 0;
}

unsigned long forge_alloc_failures(void)
{
    return failures;
}

_Thread_local int forge_alloc_measuring;
static _Thread_local long long measured;

void forge_alloc_measure(int on)
{
    forge_alloc_measuring = on;
    measured = 0;
}

size_t forge_alloc_measured(void)
{
    return measured > 0 ? (size_t)measured : 0;
}

void forge_alloc_measure_add(size_t n)
{
    if (forge_alloc_measuring)
        measured += (long long)n;
}

void forge_alloc_measure_block(const void *p, int sign)
{
    if (p)
        measured += sign * (long long)malloc_usable_size((void *)p);
}

static void *counted(void *p)
{
    if (!p)
        failures++;
    else if (forge_alloc_measuring)
        forge_alloc_measure_block(p, 1);
    return p;
}

long forge_alloc_fail_at(long n)
{
    long c = count;
    fail_at = n;
    count = 0;
    return c;
}

void *forge_malloc(size_t n)
{
    if (injected())
        return NULL;
    return counted(malloc(n ? n : 1));
}

void *forge_calloc(size_t n, size_t size)
{
    if (injected())
        return NULL;
    return counted(calloc(n ? n : 1, size ? size : 1));
}

void *forge_realloc(void *p, size_t n)
{
    if (injected())
        return NULL;
    size_t old = forge_alloc_measuring && p ? malloc_usable_size(p) : 0;
    void *q = counted(realloc(p, n ? n : 1));
    if (q && old)
        measured -= (long long)old;
    return q;
}

char *forge_strndup(const char *s, size_t n)
{
    char *d = forge_malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *forge_strdup(const char *s)
{
    return forge_strndup(s, strlen(s));
}

void forge_free(void *p)
{
    if (forge_alloc_measuring)
        forge_alloc_measure_block(p, -1);
    free(p);
}

char *forge_strdupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = forge_malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
