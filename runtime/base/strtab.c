/* See strtab.h. */
#include "base/strtab.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <string.h>

static void place(struct forge_strtab *t, size_t i)
{
    size_t k = (size_t)t->hashes[i] & (t->nslots - 1);
    while (t->slots[k])
        k = (k + 1) & (t->nslots - 1);
    t->slots[k] = (uint32_t)i + 1;
}

/* Tables of up to this many strings are searched in turn: no hashes, no slots (most of a run's
 * tables: a case's calls, a suite's assertions). */
#define STRTAB_SCAN 8

long forge_strtab_find(const struct forge_strtab *t, const char *key)
{
    if (!t->nslots) {
        for (size_t i = 0; i < t->n; i++)
            if (strcmp(t->keys[i], key) == 0)
                return (long)i;
        return -1;
    }
    uint64_t h = forge_hash_str(key);
    for (size_t k = (size_t)h & (t->nslots - 1);; k = (k + 1) & (t->nslots - 1)) {
        uint32_t x = t->slots[k];
        if (!x)
            return -1;
        if (t->hashes[x - 1] == h && strcmp(t->keys[x - 1], key) == 0)
            return (long)x - 1;
    }
}

long forge_strtab_add(struct forge_strtab *t, const char *key)
{
    if (t->n >= UINT32_MAX / 4)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : STRTAB_SCAN;
        const char **k = forge_realloc(t->keys, cap * sizeof *k);
        if (!k)
            return -1;
        t->keys = k;
        if (t->hashes || cap > STRTAB_SCAN) { /* (hashed from the first string past the scan) */
            uint64_t *h = forge_realloc(t->hashes, cap * sizeof *h);
            if (!h)
                return -1;
            t->hashes = h;
        }
        t->cap = cap;
    }
    if (t->n < STRTAB_SCAN) {
        t->keys[t->n] = key;
        return (long)t->n++;
    }
    if ((t->n + 1) * 2 > t->nslots) {
        size_t ns = t->nslots ? t->nslots * 2 : 32;
        uint32_t *s = forge_calloc(ns, sizeof *s);
        if (!s)
            return -1;
        if (!t->nslots) /* the strings scanned so far, hashed */
            for (size_t i = 0; i < t->n; i++)
                t->hashes[i] = forge_hash_str(t->keys[i]);
        forge_free(t->slots);
        t->slots = s;
        t->nslots = ns;
        for (size_t i = 0; i < t->n; i++)
            place(t, i);
    }
    t->keys[t->n] = key;
    t->hashes[t->n] = forge_hash_str(key);
    place(t, t->n);
    return (long)t->n++;
}

void forge_strtab_free(struct forge_strtab *t)
{
    forge_free(t->keys);
    forge_free(t->hashes);
    forge_free(t->slots);
    memset(t, 0, sizeof *t);
}
