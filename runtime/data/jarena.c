/* cJSON bump arena: see jarena.h. */
#include "data/jarena.h"
#include <stdint.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "data/jcache.h"

#define CHUNK ((size_t)1 << 20)

struct chunk {
    struct chunk *next;
    size_t cap;
    char *data; /* follows the header, 16-byte aligned */
};

/* The chunks, current first: its free room is [forge_jarena_next, forge_jarena_end), its data
 * starts at forge_jarena_lo; forge_jarena_older tells whether more chunks follow it. */
static _Thread_local struct chunk *head;

_Thread_local char *forge_jarena_next, *forge_jarena_end, *forge_jarena_lo;
_Thread_local bool forge_jarena_active, forge_jarena_older;

static void set_head(struct chunk *c)
{
    head = c;
    forge_jarena_next = forge_jarena_lo = c ? c->data : NULL;
    forge_jarena_end = c ? c->data + c->cap : NULL;
    forge_jarena_older = c && c->next;
}

void *forge_jarena_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if ((size_t)(forge_jarena_end - forge_jarena_next) < n) {
        size_t cap = n > CHUNK ? n : CHUNK;
        struct chunk *c = malloc(sizeof *c + cap + 16);
        if (!c) return NULL;
        c->cap = cap;
        c->data = (char *)(((uintptr_t)(c + 1) + 15) & ~(uintptr_t)15);
        c->next = head;
        set_head(c);
    }
    void *p = forge_jarena_next;
    forge_jarena_next += n;
    return p;
}

bool forge_jarena_owns_older(const void *p)
{
    uintptr_t q = (uintptr_t)p;
    for (const struct chunk *c = head ? head->next : NULL; c; c = c->next)
        if (q >= (uintptr_t)c->data && q < (uintptr_t)c->data + c->cap) return true;
    return false;
}

/* Whether cJSON's hooks know the arena (data/jcache's do): without them cJSON would free() arena
 * memory, so the arena stays off (forge_jarena_on does nothing) until they are installed. */
static bool installed;

void forge_jarena_install(void)
{
    forge_jcache_install();
}

void forge_jarena_hooked(void) { installed = true; }

void forge_jarena_on(bool on) { forge_jarena_active = on && installed; }

void forge_jarena_reset(void)
{
    struct chunk *c = head, *keep = NULL;
    while (c) {
        struct chunk *next = c->next;
#ifdef FORGE_SANITIZE
        /* sanitizer builds give every chunk back, so that a tree used after its reset is a
         * use after free that AddressSanitizer reports, not a quiet read of reused memory */
        if (0) {
#else
        if (!next && c->cap == CHUNK) {
#endif
            keep = c;
        } else {
            free(c);
        }
        c = next;
    }
    set_head(keep);
}

void forge_jarena_drop(void)
{
    forge_jarena_active = false;
    while (head) {
        struct chunk *n = head->next;
        free(head);
        head = n;
    }
    set_head(NULL);
}

void forge_jarena_release(void)
{
    forge_jarena_drop();
    cJSON_InitHooks(NULL);
    installed = false;
}
