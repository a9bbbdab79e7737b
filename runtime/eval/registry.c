/* Custom-assertion registry: an array in registration order, and a hash table of the names
 * (a script may register very many: finding one is not a scan). */
#include "eval/registry.h"
#include "base/alloc.h"
#include "base/strtab.h"

#include <string.h>

struct entry {
    char *name;
    struct forge_callable fn;
    void (*free_ctx)(void *);
};

struct forge_assertions {
    struct entry *v;
    size_t n, cap;
    struct forge_strtab names; /* entry i's name at index i */
};

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
    char *copy = forge_strdup(name);
    if (!copy || forge_strtab_add(&r->names, copy) < 0) {
        forge_free(copy);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    struct entry *e = &r->v[r->n++];
    e->name = copy;
    e->fn = *fn;
    e->fn.name = copy;
    e->free_ctx = free_ctx;
    return 0;
}

const struct forge_callable *forge_assertions_find(const struct forge_assertions *r, const char *name)
{
    if (!r || !name) return NULL;
    long i = forge_strtab_find(&r->names, name);
    return i < 0 ? NULL : &r->v[i].fn;
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
    forge_strtab_free(&r->names);
    forge_free(r);
}
