/* Bounded line reader. */
#include "base/lines.h"
#include "base/alloc.h"
#include "base/err.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void forge_lines_init(struct forge_lines *r, FILE *f, size_t limit)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->limit = limit;
}

int forge_lines_next(struct forge_lines *r, const char **p, size_t *n)
{
    if (r->failed)
        return r->failed;
    for (;;) {
        size_t have = r->end - r->start;
        char *nl = have ? memchr(r->buf + r->start, '\n', have) : NULL;
        if (nl || (r->eof && have)) {
            size_t s = r->start, len = nl ? (size_t)(nl - r->buf) - s : have;
            r->lineno++;
            if (len > r->limit) {
                return r->failed = FORGE_ELIMIT;
            }
            r->start = nl ? s + len + 1 : r->end;
            *p = r->buf + s;
            *n = len;
            return 1;
        }
        if (r->eof)
            return 0;
        if (have > r->limit) {
            r->lineno++;
            return r->failed = FORGE_ELIMIT;
        }
        /* reading in blocks, the rest of a line moves to the front only when a block no
         * longer fits after it */
        if (r->start > 0 && (!r->block || r->cap - r->end < r->block)) {
            memmove(r->buf, r->buf + r->start, have);
            r->end = have;
            r->start = 0;
        }
        if (r->end == r->cap) {
            /* room for limit + 1 bytes: enough to see that a line is too long */
            size_t want = r->cap ? r->cap * 2 : (size_t)1 << 20;
            size_t most = r->limit + 1 < r->limit ? r->limit : r->limit + 1;
            if (want > most)
                want = most > r->cap ? most : r->cap + 1;
            char *b = forge_realloc(r->buf, want);
            if (!b) {
                errno = ENOMEM;
                return r->failed = FORGE_ENOMEM;
            }
            r->buf = b;
            r->cap = want;
        }
        size_t want = r->cap - r->end;
        if (r->block && want > r->block)
            want = r->block;
        size_t got;
        if (r->stream) {
            ssize_t k;
            while ((k = read(fileno(r->f), r->buf + r->end, want)) < 0 && errno == EINTR)
                ;
            if (k < 0)
                return r->failed = FORGE_EIO;
            got = (size_t)k;
        } else {
            got = fread(r->buf + r->end, 1, want, r->f);
            if (got == 0 && ferror(r->f))
                return r->failed = FORGE_EIO;
        }
        r->end += got;
        if (got == 0)
            r->eof = true;
    }
}

bool forge_lines_ready(const struct forge_lines *r)
{
    size_t have = r->end - r->start;
    return r->failed || r->eof || have > r->limit || (have && memchr(r->buf + r->start, '\n', have));
}

void forge_lines_free(struct forge_lines *r)
{
    forge_free(r->buf);
    r->buf = NULL;
    r->cap = r->start = r->end = 0;
}
