/* Bounded growable byte buffer. Always NUL-terminated; never grows past its limit. */
#ifndef FORGE_BASE_BUF_H
#define FORGE_BASE_BUF_H
#include <stddef.h>

struct forge_buf {
    char *data;   /* owned; NULL until the first append */
    size_t len;
    size_t cap;
    size_t limit; /* hard cap on len; 0 means SIZE_MAX/2 */
};

/* Initializes an empty buffer with a hard cap of <limit> bytes (0: effectively unbounded). */
void forge_buf_init(struct forge_buf *b, size_t limit);
/* Appends; returns 0, FORGE_ENOMEM, or FORGE_ELIMIT when len would pass the limit (the buffer
 * keeps what it had). */
int forge_buf_add(struct forge_buf *b, const void *p, size_t n);
int forge_buf_adds(struct forge_buf *b, const char *s);
/* Makes room for <n> more bytes and the terminator without changing len, for a writer that
 * fills data + len itself; returns 0, FORGE_ENOMEM or FORGE_ELIMIT (as forge_buf_add would). */
int forge_buf_reserve(struct forge_buf *b, size_t n);
/* One byte; inlined (room and limit checked, else forge_buf_add). */
static inline int forge_buf_addc(struct forge_buf *b, char c)
{
    if (b->len + 1 < b->cap && b->len < b->limit) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return 0;
    }
    return forge_buf_add(b, &c, 1);
}
int forge_buf_addf(struct forge_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the data (never NULL: "" when empty), transferring ownership; the buffer is reset. */
char *forge_buf_take(struct forge_buf *b);
void forge_buf_reset(struct forge_buf *b);
void forge_buf_free(struct forge_buf *b);
#endif
