/* Custom-assertion registry: an array in registration order, and a hash table of the names
 * (a script may register very many: finding one is not a scan). */
#include "eval/registry.h"
#include "base/alloc.h"
#include "base/hash.h"

#include <stdint.h>
#include <string.h>

struct entry {
    char *name;
    uint64_t hash;
    struct forge_callable fn;
    void (*free_ctx)(void *);
};

struct forge_assertions {
    struct entry *v;
    size_t n, cap;
    uint32_t *slots; /* index + 1 into v, 0 when empty; nslots a power of two, at least 2n */
    size_t nslots;
};

/* Room in the table for one more name. Returns 0 or FORGE_ENOMEM. */
static int slots_grow(struct forge_assertions *r)
{
    if ((r->n + 1) * 2 <= r->nslots)
        return 0;
    if (r->n >= UINT32_MAX / 4)
        return FORGE_ENOMEM;
    size_t ns = r->nslots ? r->nslots * 2 : 16;
    uint32_t *t = forge_calloc(ns, sizeof *t);
    if (!t)
        return FORGE_ENOMEM;
    for (size_t i = 0; i < r->n; i++) {
        size_t k = (size_t)r->v[i].hash & (ns - 1);
        while (t[k])
            k = (k + 1) & (ns - 1);
        t[k] = (uint32_t)i + 1;
    }
    forge_free(r->slots);
    r->slots = t;
    r->nslots = ns;
    return 0;
}

struct forge_assertions *forge_assertions_new(void)
{
    return forge_calloc(1, sizeof(struct forge_assertions));
}

int forge_assertions_add(struct forge_assertions *r, const char *name, const struct forge_callable *fn,
                         void (*free_ctx)(void *ctx), struct forge_err *err)
{
    if (!name || !*name) return forge_err_set(err, FORGE_EINVAL, "a custom assertion needs a non-empty name");
    if (!fn || !fn->call) return forge_err_set(err, FORGE_EINVAL, "custom assertion \"%s\" has no function", name);
    if (forge_assertions_find(r, name))
        return forge_err_set(err, FORGE_EINVAL, "custom assertion \"%s\" is already registered", name);
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        struct entry *v = forge_realloc(r->v, cap * sizeof *v);
        if (!v) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        r->v = v;
        r->cap = cap;
    }
    if (slots_grow(r)) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char *copy = forge_strdup(name);
    if (!copy) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    uint64_t h = forge_hash_str(name);
    size_t k = (size_t)h & (r->nslots - 1);
    while (r->slots[k])
        k = (k + 1) & (r->nslots - 1);
    r->slots[k] = (uint32_t)r->n + 1;
    struct entry *e = &r->v[r->n++];
    e->name = copy;
    e->hash = h;
    e->fn = *fn;
    e->fn.name = copy;
    e->free_ctx = free_ctx;
    return 0;
}

const struct forge_callable *forge_assertions_find(const struct forge_assertions *r, const char *name)
{
    if (!r || !name || !r->nslots) return NULL;
    uint64_t h = forge_hash_str(name);
    for (size_t k = (size_t)h & (r->nslots - 1);; k = (k + 1) & (r->nslots - 1)) {
        uint32_t x = r->slots[k];
        if (!x) return NULL;
        const struct entry *e = &r->v[x - 1];
        if (e->hash == h && strcmp(e->name, name) == 0) return &r->v[x - 1].fn;
    }
}

const struct forge_callable *forge_assertions_lookup(void *r, const char *name)
{
    return forge_assertions_find(r, name);
}

size_t forge_assertions_count(const struct forge_assertions *r) { return r ? r->n : 0; }

const char *forge_assertions_name(const struct forge_assertions *r, size_t i)
{
    return r && i < r->n ? r->v[i].name : NULL;
}

void forge_assertions_free(struct forge_assertions *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].free_ctx) r->v[i].free_ctx(r->v[i].fn.ctx);
        forge_free(r->v[i].name);
    }
    forge_free(r->v);
    forge_free(r->slots);
    forge_free(r);
}
