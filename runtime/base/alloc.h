/* Allocation wrappers. All forge code allocates through these so tests can fail the Nth
 * allocation (fault injection) and check that every failure path is clean. */
#ifndef FORGE_BASE_ALLOC_H
#define FORGE_BASE_ALLOC_H
#include <stdbool.h>
#include <stddef.h>

/* Like malloc/calloc/realloc/strdup; return NULL on failure (or on an injected failure). */
void *forge_malloc(size_t n);
void *forge_calloc(size_t n, size_t size);
void *forge_realloc(void *p, size_t n);
char *forge_strdup(const char *s);
char *forge_strndup(const char *s, size_t n);
void forge_free(void *p);
/* A new string formatted like printf (free with forge_free), or NULL when out of memory. */
char *forge_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Test hook: the <n>th allocation from now fails (1 = the next one); 0 turns injection off.
 * Returns how many allocations were attempted since the last call (counted while injection is
 * on only; the hook is for single-threaded tests). */
long forge_alloc_fail_at(long n);

/* How many allocations have failed on this thread so far (injected or real). Code that builds
 * a large tree with cJSON's NULL-tolerant calls compares it before and after to tell a complete
 * result from one that lost parts. */
unsigned long forge_alloc_failures(void);

/* Measuring, and bounding, what a piece of work keeps on the heap, for work whose result is
 * held against a script's memory cap (a compiled schema). forge_alloc_measure_start starts at 0
 * on this thread; until forge_alloc_measure_stop, every allocation through these wrappers and
 * cJSON's hooks adds its usable size and every free takes it away, and forge_alloc_measure_add
 * adds memory allocated elsewhere (a library's own, such as PCRE2's compiled code). An
 * allocation that would take the bytes kept past <ceiling> (SIZE_MAX: none) fails as if memory
 * were exhausted, and so does forge_alloc_measure_add past it (it returns -1): the work stops
 * there, not after it has taken what it wanted. forge_alloc_measure_stop returns the bytes kept
 * (0 when more was freed than allocated); forge_alloc_measure_refused tells, until the next
 * start, whether the ceiling refused anything (the work is then to be given up, even when it
 * did without what was refused); forge_alloc_measure_peak, the most bytes kept at once. */
void forge_alloc_measure_start(size_t ceiling);
size_t forge_alloc_measure_stop(void);
bool forge_alloc_measure_refused(void);
size_t forge_alloc_measure_peak(void);
int forge_alloc_measure_add(size_t n);
/* What a finalizer frees while a measure runs (a collection step inside the measured work runs
 * it) is not the work's: forge_alloc_measure_pause stops the thread's measure and returns what
 * forge_alloc_measure_resume takes to start it again, where it was. */
int forge_alloc_measure_pause(void);
void forge_alloc_measure_resume(int paused);
/* For allocators outside these wrappers (cJSON's hooks): whether a block of <n> bytes (and what
 * malloc may add to it) stays within the ceiling (false: refused, and to be failed); then block
 * <p> was allocated (<sign> 1) or is being freed (-1). */
extern _Thread_local int forge_alloc_measuring;
bool forge_alloc_measure_room(size_t n);
void forge_alloc_measure_block(const void *p, int sign);

#define FORGE_FREE(p) do { forge_free(p); (p) = NULL; } while (0)
#endif
