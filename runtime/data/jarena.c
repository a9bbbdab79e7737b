/* cJSON bump arena: see jarena.h. */
#include "data/jarena.h"
#include <stdint.h>
#include <stdlib.h>
#include <cjson/cJSON.h>

#define CHUNK ((size_t)1 << 20)

struct chunk {
    struct chunk *next;
    size_t cap;
    char *data; /* follows the header, 16-byte aligned */
};

static _Thread_local struct {
    struct chunk *head; /* current chunk first; its free room is [forge_jarena_next, _end) */
    bool on;
} arena;

_Thread_local char *forge_jarena_next, *forge_jarena_end;

void *forge_jarena_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if ((size_t)(forge_jarena_end - forge_jarena_next) < n) {
        size_t cap = n > CHUNK ? n : CHUNK;
        struct chunk *c = malloc(sizeof *c + cap + 16);
        if (!c) return NULL;
        c->cap = cap;
        c->data = (char *)(((uintptr_t)(c + 1) + 15) & ~(uintptr_t)15);
        c->next = arena.head;
        arena.head = c;
        forge_jarena_next = c->data;
        forge_jarena_end = c->data + cap;
    }
    void *p = forge_jarena_next;
    forge_jarena_next += n;
    return p;
}

static void *jmalloc(size_t n)
{
    if (!arena.on) return malloc(n);
    return forge_jarena_alloc_fast(n);
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

/* Whether cJSON's hooks are the arena's: without them cJSON would free() arena memory, so the
 * arena stays off (forge_jarena_on does nothing) until they are installed. */
static bool installed;

void forge_jarena_install(void)
{
    installed = true;
    cJSON_Hooks hooks = {jmalloc, jfree};
    cJSON_InitHooks(&hooks);
}

void forge_jarena_on(bool on) { arena.on = on && installed; }

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
    forge_jarena_next = keep ? keep->data : NULL;
    forge_jarena_end = keep ? keep->data + keep->cap : NULL;
}

void forge_jarena_drop(void)
{
    arena.on = false;
    while (arena.head) {
        struct chunk *n = arena.head->next;
        free(arena.head);
        arena.head = n;
    }
    forge_jarena_next = forge_jarena_end = NULL;
}

void forge_jarena_release(void)
{
    forge_jarena_drop();
    cJSON_InitHooks(NULL);
    installed = false;
}
