/* Per-thread cache of small freed cJSON blocks: see jcache.h. */
#include "data/jcache.h"
#include "data/jarena.h"
#include "base/alloc.h"

#include <cjson/cJSON.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#ifndef FORGE_SANITIZE

#define CLASSES 16 /* usable sizes up to 232 bytes, in steps of 16 */
#define PER_CLASS 256

struct block {
    struct block *next;
};

struct cache {
    struct block *head[CLASSES];
    unsigned n[CLASSES];
    int on; /* registered for the thread's end */
};

static _Thread_local struct cache tc;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void drain(void *unused)
{
    (void)unused;
    for (int k = 0; k < CLASSES; k++) {
        while (tc.head[k]) {
            struct block *b = tc.head[k];
            tc.head[k] = b->next;
            free(b);
        }
        tc.n[k] = 0;
    }
    tc.on = 0; /* a later free (another destructor's) registers again */
}

static void make_key(void)
{
    pthread_key_create(&key, drain);
}

static inline void *cache_get(size_t n)
{
    /* a block of class k has at least 16k - 8 usable bytes (glibc's chunks have 16k - 8:
     * 24, 40, 56, ...) */
    size_t k = n <= 24 ? 2 : (n + 23) / 16;
    if (k < CLASSES && tc.head[k]) {
        struct block *b = tc.head[k];
        tc.head[k] = b->next;
        tc.n[k]--;
        return b;
    }
    return malloc(n);
}

/* Registers the thread's cache to be freed when the thread ends, before its first block:
 * false when it cannot be. */
static __attribute__((noinline, cold)) bool cache_register(void)
{
    pthread_once(&once, make_key);
    if (pthread_setspecific(key, &tc) != 0)
        return false;
    tc.on = 1;
    return true;
}

/* Keeps the freed block <p> for a later cache_get of its class, or frees it. */
static inline void cache_put(void *p)
{
    size_t k = (malloc_usable_size(p) + 8) / 16;
    if (k >= 1 && k < CLASSES && tc.n[k] < PER_CLASS && (tc.on || cache_register())) {
        struct block *b = p;
        b->next = tc.head[k];
        tc.head[k] = b;
        tc.n[k]++;
        return;
    }
    free(p);
}

#else /* sanitizers check every allocation: no cache */

static inline void *cache_get(size_t n)
{
    return malloc(n);
}

static inline void cache_put(void *p)
{
    free(p);
}

#endif

/* forge_jcache_malloc while an allocation is measured. */
static __attribute__((noinline)) void *jcache_malloc_measured(size_t n)
{
    if (!forge_alloc_measure_room(n))
        return NULL;
    void *p = cache_get(n);
    forge_alloc_measure_block(p, 1);
    return p;
}

/* The usual cases inline, without a frame: from the thread's arena when it is on, else a block
 * from the cache, or malloc's (a tail call). */
void *forge_jcache_malloc(size_t n)
{
    if (forge_jarena_is_on())
        return forge_jarena_alloc_fast(n);
    if (__builtin_expect(forge_alloc_measuring, 0))
        return jcache_malloc_measured(n);
    return cache_get(n);
}

/* forge_jcache_free while an allocation is measured. */
static __attribute__((noinline)) void jcache_free_measured(void *p)
{
    forge_alloc_measure_block(p, -1);
    cache_put(p);
}

void forge_jcache_free(void *p)
{
    if (!p || forge_jarena_owns(p))
        return;
    if (__builtin_expect(forge_alloc_measuring, 0))
        jcache_free_measured(p);
    else
        cache_put(p);
}

void forge_jcache_install(void)
{
    cJSON_Hooks hooks = {forge_jcache_malloc, forge_jcache_free};
    cJSON_InitHooks(&hooks);
    forge_jarena_hooked();
}
