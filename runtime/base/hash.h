/* Hashing strings for in-memory tables (registries, sets of ids): FNV-1a over the bytes from a
 * basis drawn once per process, then mixed, so that names crafted to collide in one run do not
 * collide in the next: a table stays a table, not a list, whatever a suite or a file holds.
 * Nothing may depend on the values beyond one process. */
#ifndef FORGE_BASE_HASH_H
#define FORGE_BASE_HASH_H
#include <stdint.h>

extern uint64_t forge_hash_basis; /* set before main */

static inline uint64_t forge_hash_str(const char *s)
{
    uint64_t h = forge_hash_basis;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    h ^= h >> 33; /* (the mixer of MurmurHash3's finalizer) */
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}
#endif
