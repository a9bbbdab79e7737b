/* A bump arena for cJSON trees that die together (one line of a JSONL file): while it is on,
 * cJSON allocates from chunks of 1 MiB and frees of arena memory are no-ops; forge_jarena_reset
 * releases everything at once. Memory from malloc passes through, on or off, so trees may mix
 * both. For one thread's use: it sets cJSON's global hooks. */
#ifndef FORGE_DATA_JARENA_H
#define FORGE_DATA_JARENA_H
#include <stdbool.h>

/* Installs the hooks (off at first). */
void forge_jarena_install(void);
/* Turns allocation from the arena on or off; what was allocated stays valid until reset. */
void forge_jarena_on(bool on);
/* Releases everything allocated from the arena (keeps one chunk for the next tree). Nothing
 * allocated from it may be used afterwards. */
void forge_jarena_reset(void);
/* Frees the arena and puts back cJSON's default hooks. */
void forge_jarena_release(void);
#endif
