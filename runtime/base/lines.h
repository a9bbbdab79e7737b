/* Bounded line reader: cuts a stream into lines without ever holding more than one line (at
 * most its limit) plus one read block, so endless input (/dev/zero, a pipe) or a huge single
 * line is refused while it is read, not after. */
#ifndef FORGE_BASE_LINES_H
#define FORGE_BASE_LINES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct forge_lines {
    FILE *f;     /* borrowed */
    char *buf;   /* owned */
    size_t cap, start, end, limit;
    size_t block; /* most bytes read at once; 0 (the default): as many as the buffer holds.
                   * Set it after init when the caller holds a lock across forge_lines_next, so
                   * that no call does much more than one block's work. */
    /* Set after init for a pipe, terminal or socket: each read takes what has arrived (read(2)
     * on the stream's descriptor, nothing read through the FILE before) instead of waiting for
     * a whole block, so lines are returned as they come. */
    bool stream;
    bool eof;
    int failed;  /* the error code once failed, else 0 */
    long lineno; /* number of the line last returned (or refused) */
};

/* Starts reading <f> (borrowed) in lines of at most <limit> bytes (the '\n' not counted). */
void forge_lines_init(struct forge_lines *r, FILE *f, size_t limit);

/* Returns 1 with the next line in *p and *n (without its '\n'; valid until the next call), 0 at
 * the end, FORGE_ELIMIT when line r->lineno is longer than the limit (found after reading at
 * most limit + 1 of its bytes), FORGE_EIO on a read error (errno set) or FORGE_ENOMEM. After a
 * negative return the reader is done: every later call returns the same code. */
int forge_lines_next(struct forge_lines *r, const char **p, size_t *n);

/* True when the next forge_lines_next returns without reading: a whole line (or the end, or a
 * failure) is already held. */
bool forge_lines_ready(const struct forge_lines *r);

/* Frees the buffer (not the stream). */
void forge_lines_free(struct forge_lines *r);
#endif
