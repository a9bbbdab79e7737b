/* A set of strings that gives each its index (0, 1, ... in the order added), found by hash
 * (base/hash.h: names crafted to collide in one run do not in the next) once it holds more than
 * eight, by a scan until then: for registries and counts a suite or an input can fill with tens
 * of thousands of names, and that mostly hold a few. The strings are borrowed: they must
 * outlive the table. */
#ifndef FORGE_BASE_STRTAB_H
#define FORGE_BASE_STRTAB_H
#include <stddef.h>
#include <stdint.h>

struct forge_strtab {
    const char **keys;
    uint64_t *hashes;
    size_t n, cap;
    uint32_t *slots; /* index + 1, 0 when empty; nslots a power of two, at least 2n */
    size_t nslots;
};
#define FORGE_STRTAB_INIT {0}

/* The index of <key>, or -1. */
long forge_strtab_find(const struct forge_strtab *t, const char *key);
/* Adds <key> (not in the table) and returns its index, or -1 when out of memory. */
long forge_strtab_add(struct forge_strtab *t, const char *key);
void forge_strtab_free(struct forge_strtab *t);
#endif
