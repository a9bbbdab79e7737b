/* Allocation wrappers with fault injection. */
#include "base/alloc.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
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
static _Thread_local long long peak;
static _Thread_local size_t ceiling;
static _Thread_local bool refused;

void forge_alloc_measure_start(size_t max)
{
    forge_alloc_measuring = 1;
    measured = 0;
    peak = 0;
    ceiling = max;
    refused = false;
}

size_t forge_alloc_measure_stop(void)
{
    forge_alloc_measuring = 0;
    return measured > 0 ? (size_t)measured : 0;
}

bool forge_alloc_measure_refused(void)
{
    return refused;
}

int forge_alloc_measure_pause(void)
{
    int was = forge_alloc_measuring;
    forge_alloc_measuring = 0;
    return was;
}

void forge_alloc_measure_resume(int paused)
{
    forge_alloc_measuring = paused;
}

size_t forge_alloc_measure_peak(void)
{
    return (size_t)peak;
}

/* Whether <n> more bytes kept stay within the ceiling (false: refused). */
static bool fits(size_t n)
{
    size_t kept = measured > 0 ? (size_t)measured : 0;
    if (ceiling == SIZE_MAX || (kept <= ceiling && n <= ceiling - kept))
        return true;
    refused = true;
    return false;
}

/* A heap block asked for <n> bytes may have up to this many more (malloc_usable_size): glibc
 * gives at least 24, and rounds a larger request up by at most 15. */
#define USABLE_SLACK 24

bool forge_alloc_measure_room(size_t n)
{
    return fits(n > SIZE_MAX - USABLE_SLACK ? SIZE_MAX : n + USABLE_SLACK);
}

int forge_alloc_measure_add(size_t n)
{
    if (!forge_alloc_measuring)
        return 0;
    if (!fits(n))
        return -1;
    measured += (long long)n;
    if (measured > peak)
        peak = measured;
    return 0;
}

void forge_alloc_measure_block(const void *p, int sign)
{
    if (p)
        measured += sign * (long long)malloc_usable_size((void *)p);
    if (measured > peak)
        peak = measured;
}

static void *counted(void *p)
{
    if (!p)
        failures++;
    else if (forge_alloc_measuring)
        forge_alloc_measure_block(p, 1);
    return p;
}

/* An allocation of <n> bytes past the measure's ceiling: refused, as a failure. */
static bool over_ceiling(size_t n)
{
    if (!forge_alloc_measuring || forge_alloc_measure_room(n))
        return false;
    failures++;
    return true;
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
    if (injected() || over_ceiling(n))
        return NULL;
    return counted(malloc(n ? n : 1));
}

void *forge_calloc(size_t n, size_t size)
{
    if (injected() || over_ceiling(size && n > SIZE_MAX / size ? SIZE_MAX : n * size))
        return NULL;
    return counted(calloc(n ? n : 1, size ? size : 1));
}

void *forge_realloc(void *p, size_t n)
{
    if (injected())
        return NULL;
    size_t old = forge_alloc_measuring && p ? malloc_usable_size(p) : 0;
    if (n > old && over_ceiling(n - old))
        return NULL;
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
