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

long forge_strtab_find(const struct forge_strtab *t, const char *key)
{
    if (!t->nslots)
        return -1;
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
        size_t cap = t->cap ? t->cap * 2 : 16;
        const char **k = forge_realloc(t->keys, cap * sizeof *k);
        if (k)
            t->keys = k;
        uint64_t *h = forge_realloc(t->hashes, cap * sizeof *h);
        if (h)
            t->hashes = h;
        if (!k || !h)
            return -1;
        t->cap = cap;
    }
    if ((t->n + 1) * 2 > t->nslots) {
        size_t ns = t->nslots ? t->nslots * 2 : 32;
        uint32_t *s = forge_calloc(ns, sizeof *s);
        if (!s)
            return -1;
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
