/* Bounded growable byte buffer. */
#include "base/buf.h"
#include "base/alloc.h"
#include "base/err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void forge_buf_init(struct forge_buf *b, size_t limit)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->limit = limit ? limit : SIZE_MAX / 2;
}

static int grow(struct forge_buf *b, size_t need)
{
    if (need > b->limit)
        return FORGE_ELIMIT;
    if (need + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need + 1)
        cap *= 2;
    char *p = forge_realloc(b->data, cap);
    if (!p)
        return FORGE_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int forge_buf_add(struct forge_buf *b, const void *p, size_t n)
{
    /* the common case first: room for the bytes and the terminator, under the limit */
    if (n < b->cap - b->len && n <= b->limit - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return 0;
    }
    if (n > b->limit - b->len)
        return FORGE_ELIMIT;
    int rc = grow(b, b->len + n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int forge_buf_reserve(struct forge_buf *b, size_t n)
{
    if (n > b->limit - b->len)
        return FORGE_ELIMIT;
    return grow(b, b->len + n);
}

int forge_buf_adds(struct forge_buf *b, const char *s)
{
    return forge_buf_add(b, s, strlen(s));
}

int forge_buf_addf(struct forge_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return FORGE_EINVAL;
    if ((size_t)n < sizeof small)
        return forge_buf_add(b, small, (size_t)n);
    if ((size_t)n > b->limit - b->len)
        return FORGE_ELIMIT;
    int rc = grow(b, b->len + (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *forge_buf_take(struct forge_buf *b)
{
    char *d = b->data;
    if (!d)
        d = forge_strdup("");
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return d;
}

void forge_buf_reset(struct forge_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void forge_buf_free(struct forge_buf *b)
{
    FORGE_FREE(b->data);
    b->len = 0;
    b->cap = 0;
}
