/* Custom-assertion registry: a small array; suites register a handful of assertions. */
#include "eval/registry.h"
#include "base/alloc.h"

#include <string.h>

struct entry {
    char *name;
    struct forge_callable fn;
    void (*free_ctx)(void *);
};

struct forge_assertions {
    struct entry *v;
    size_t n, cap;
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
    if (!copy) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
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
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].name, name) == 0) return &r->v[i].fn;
    return NULL;
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
    forge_free(r);
}
