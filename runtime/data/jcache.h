/* A per-thread cache of freed small blocks for cJSON: a case of the agent loop builds and frees
 * some hundreds of small trees (requests, messages, records), and glibc's free of a node costs
 * about a hundred instructions in a process with threads. Blocks come from malloc and go back
 * to free (the cache keeps up to 256 blocks of each 16-byte size class up to 232 bytes per
 * thread, and frees them when the thread ends), so they mix freely with memory cJSON got from
 * other hooks. While the thread's arena (data/jarena) is on, blocks come from it, and freeing
 * arena memory does nothing. Builds with sanitizers use malloc as it is, so every free is
 * checked. */
#ifndef FORGE_DATA_JCACHE_H
#define FORGE_DATA_JCACHE_H
#include <stddef.h>

/* Installs the cache as cJSON's hooks. Call once at start, before other threads run. */
void forge_jcache_install(void);
void *forge_jcache_malloc(size_t n);
void forge_jcache_free(void *p);
#endif
