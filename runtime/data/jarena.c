/* cJSON bump arena: see jarena.h. */
#include "data/jarena.h"
#include <stdint.h>
#include <stdlib.h>
#include <cjson/cJSON.h>

#define CHUNK ((size_t)1 << 20)

struct chunk {
    struct chunk *next;
    size_t cap, used;
    char *data; /* follows the header, 16-byte aligned */
};

static _Thread_local struct {
    struct chunk *head; /* current chunk first */
    bool on;
} arena;

static void *jmalloc(size_t n)
{
    if (!arena.on) return malloc(n);
    n = (n + 15) & ~(size_t)15;
    struct chunk *c = arena.head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK ? n : CHUNK;
        c = malloc(sizeof *c + cap + 16);
        if (!c) return NULL;
        c->cap = cap;
        c->used = 0;
        c->data = (char *)(((uintptr_t)(c + 1) + 15) & ~(uintptr_t)15);
        c->next = arena.head;
        arena.head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void *forge_jarena_alloc(size_t n)
{
    return jmalloc(n);
}

static bool in_arena(const void *p)
{
    for (const struct chunk *c = arena.head; c; c = c->next)
        if ((const char *)p >= c->data && (const char *)p < c->data + c->cap) return true;
    return false;
}

static void jfree(void *p)
{
    if (!p || in_arena(p)) return;
    free(p);
}

void forge_jarena_install(void)
{
    cJSON_Hooks hooks = {jmalloc, jfree};
    cJSON_InitHooks(&hooks);
}

void forge_jarena_on(bool on) { arena.on = on; }

bool forge_jarena_is_on(void) { return arena.on; }

void forge_jarena_reset(void)
{
    struct chunk *c = arena.head, *keep = NULL;
    while (c) {
        struct chunk *next = c->next;
        if (!next && c->cap == CHUNK)
            keep = c;
        else
            free(c);
        c = next;
    }
    arena.head = keep;
    if (keep) keep->used = 0;
}

void forge_jarena_drop(void)
{
    arena.on = false;
    while (arena.head) {
        struct chunk *n = arena.head->next;
        free(arena.head);
        arena.head = n;
    }
}

void forge_jarena_release(void)
{
    forge_jarena_drop();
    cJSON_InitHooks(NULL);
}
