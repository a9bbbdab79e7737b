/* A bump arena for cJSON trees that die together (one line of a JSONL file, one case of a run):
 * while it is on, cJSON allocates from chunks of 1 MiB and frees of arena memory are no-ops;
 * forge_jarena_reset releases everything at once. Memory from malloc passes through, on or off,
 * so trees may mix both. cJSON's hooks are data/jcache's, which know the arena; they are global,
 * and each thread has its own arena, so worker threads may each use theirs (forge check does,
 * one per JSONL line). */
#ifndef FORGE_DATA_JARENA_H
#define FORGE_DATA_JARENA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Installs the hooks (data/jcache's; the arena is off at first). */
void forge_jarena_install(void);
/* Called by data/jcache when it installs its hooks: the arena can be turned on only while
 * cJSON's hooks know it. */
void forge_jarena_hooked(void);
/* Turns allocation from the calling thread's arena on or off (on only once the hooks are
 * installed); what was allocated stays valid until reset. */
void forge_jarena_on(bool on);
/* True while the calling thread allocates from its arena. */
extern _Thread_local bool forge_jarena_active;
static inline bool forge_jarena_is_on(void)
{
    return forge_jarena_active;
}
/* Allocates <n> bytes from the calling thread's arena (which must be on), 16-byte aligned;
 * NULL when out of memory. For builders of cJSON trees that bypass cJSON's allocator
 * (forge_jarena_alloc_fast is the same, inlined: the current chunk's free room is the
 * thread's [forge_jarena_next, forge_jarena_end)). */
void *forge_jarena_alloc(size_t n);
extern _Thread_local char *forge_jarena_next, *forge_jarena_end;
static inline void *forge_jarena_alloc_fast(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if ((size_t)(forge_jarena_end - forge_jarena_next) >= n) {
        void *p = forge_jarena_next;
        forge_jarena_next += n;
        return p;
    }
    return forge_jarena_alloc(n);
}
/* Releases everything allocated from the arena (keeps one chunk for the next tree). Nothing
 * allocated from it may be used afterwards. */
void forge_jarena_reset(void);
/* True when <p> lies in the calling thread's arena (the current chunk is checked inline). */
extern _Thread_local char *forge_jarena_lo;
extern _Thread_local bool forge_jarena_older;
bool forge_jarena_owns_older(const void *p);
static inline bool forge_jarena_owns(const void *p)
{
    uintptr_t lo = (uintptr_t)forge_jarena_lo;
    if (!lo) /* the thread has no arena: most threads, and every free of theirs */
        return false;
    if ((uintptr_t)p - lo < (uintptr_t)forge_jarena_end - lo) /* the current chunk */
        return true;
    return forge_jarena_older && forge_jarena_owns_older(p);
}
/* Turns the calling thread's arena off and frees it (a worker thread's end). */
void forge_jarena_drop(void);
/* Frees the calling thread's arena and puts back cJSON's default hooks. */
void forge_jarena_release(void);
#endif
