/* Eval files a case at a time, and the run's set of case ids. */
#include "eval/cases.h"
#include "base/alloc.h"
#include "base/file.h"
#include "data/jarena.h"
#include "data/json.h"
#include "data/utf8.h"
#include "data/jscan.h"
#include "eval/evalfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK ((size_t)1 << 16)

/* A window on the file: bytes [lo, hi) of buf are unread; buf[0] is byte <boff> of the file. */
struct win {
    FILE *f;
    char *buf;
    size_t cap, lo, hi;
    uint64_t boff;
    int eof;
    int line, col; /* of buf[lo] (the main reader only) */
};

struct forge_cases {
    const char *path;
    struct win w, at; /* the stream, and forge_cases_read_at's */
    int index;        /* of the next case */
    size_t values;    /* JSON values so far (the array's and its cases'), when counted */
    int count;        /* the file is large enough to hold more values than the limit */
    int state;        /* 0 before '[', 1 in the array, 2 done */
    /* the last case's text (in w.buf until the next call) */
    size_t last_lo, last_len;
    int last_line, last_col;
};

bool forge_cases_lazy(const char *path)
{
    size_t n = strlen(path);
    if (!strcmp(path, "-") || (n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml")))
        return false;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    int ch;
    while ((ch = getc(f)) == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {}
    fclose(f);
    return ch == '[';
}

static void win_reset(struct win *w, uint64_t off)
{
    w->lo = w->hi = 0;
    w->boff = off;
    w->eof = 0;
}

/* Makes at least <need> bytes from lo available (or all the file has). 0, or an error code. */
static int fill(struct win *w, size_t need)
{
    while (w->hi - w->lo < need && !w->eof) {
        if (w->lo) {
            memmove(w->buf, w->buf + w->lo, w->hi - w->lo);
            w->boff += w->lo;
            w->hi -= w->lo;
            w->lo = 0;
        }
        if (w->cap - w->hi < CHUNK) {
            size_t cap = w->cap ? w->cap * 2 : CHUNK * 2;
            while (cap - w->hi < CHUNK) cap *= 2;
            char *b = forge_realloc(w->buf, cap);
            if (!b) return FORGE_ENOMEM;
            w->buf = b;
            w->cap = cap;
        }
        size_t got = fread(w->buf + w->hi, 1, w->cap - w->hi, w->f);
        w->hi += got;
        if (got == 0) {
            if (ferror(w->f)) return FORGE_EIO;
            w->eof = 1;
        }
    }
    return 0;
}

/* Consumes <n> bytes, keeping line:col: lines counted by memchr, columns as the UTF-8 lead
 * bytes after the last newline (a continuation byte is 10xxxxxx), eight at a time. */
static void eat(struct win *w, size_t n)
{
    const char *p = w->buf + w->lo, *end = p + n, *nl;
    while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
        w->line++;
        w->col = 1;
        p = nl + 1;
    }
    size_t cont = 0;
    const char *q = p;
    for (; end - q >= 8; q += 8) {
        uint64_t x;
        memcpy(&x, q, sizeof x);
        /* 1 in each byte that is 10xxxxxx, summed across the word by one multiplication */
        uint64_t c = (x & ~(x << 1) & 0x8080808080808080ull) >> 7;
        cont += (size_t)((c * 0x0101010101010101ull) >> 56);
    }
    for (; q < end; q++)
        cont += ((unsigned char)*q & 0xC0) == 0x80;
    w->col += (int)((size_t)(end - p) - cont);
    w->lo += n;
}

/* Skips white space; returns the next byte or -1 at the end (or -2 on a read error). */
static int next_byte(struct win *w)
{
    for (;;) {
        if (w->lo == w->hi && fill(w, 1)) return -2;
        if (w->lo == w->hi) return -1;
        char ch = w->buf[w->lo];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') return (unsigned char)ch;
        eat(w, 1);
    }
}

/* The bytes that framing looks at outside strings. */
static const unsigned char framing[256] = {['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1};

/* The length of the value that starts at lo (all of it in the window after the call), or an
 * error: FORGE_EINVAL when the file ends inside it, FORGE_ELIMIT past the input limit. */
static int frame(struct win *w, size_t *len)
{
    size_t j = 0, limit = forge_file_input_limit();
    int depth = 0, instr = 0, esc = 0;
    char first = w->buf[w->lo];
    int scalar = first != '{' && first != '[' && first != '"';
    for (;;) {
        if (w->lo + j == w->hi) {
            if (j > limit) return FORGE_ELIMIT;
            int rc = fill(w, j + 1);
            if (rc) return rc;
            if (w->lo + j == w->hi) {
                if (scalar) break;
                return FORGE_EINVAL;
            }
        }
        /* the bytes in the window from j: strings are crossed to their next quote or backslash
         * eight bytes at a time, the rest a byte at a time */
        const unsigned char *base = (const unsigned char *)w->buf + w->lo, *p = base + j,
                            *end = (const unsigned char *)w->buf + w->hi;
        int done = 0;
        if (scalar) {
            while (p < end && *p != ',' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
                p++;
            done = p < end;
        } else {
            while (p < end && !done) {
                if (instr) {
                    if (esc) {
                        esc = 0;
                        p++;
                        continue;
                    }
                    p = forge_json_quote_or_escape(p, end);
                    if (p == end)
                        break;
                    if (*p++ == '\\') {
                        esc = 1;
                        continue;
                    }
                    instr = 0;
                    done = depth == 0; /* a string case */
                    continue;
                }
                while (p < end && !framing[*p])
                    p++;
                if (p == end)
                    break;
                unsigned char ch = *p++;
                if (ch == '"')
                    instr = 1;
                else if (ch == '{' || ch == '[')
                    depth++;
                else if (--depth == 0)
                    done = 1;
            }
        }
        j = (size_t)(p - base);
        if (done)
            break;
    }
    if (j > limit) return FORGE_ELIMIT;
    *len = j;
    return 0;
}

/* The case at lo parsed where it lies, when it is an object that the window holds whole and
 * forge_json_parse would read to the same tree (valid UTF-8 without NUL bytes, the fast reader's
 * JSON, fewer values than the node limit can reach, within the input limit); its length in
 * *len. NULL otherwise: the caller frames the case and parses it the slow way, which also words
 * any error. */
static cJSON *parse_in_window(struct win *w, size_t *len)
{
    const char *s = w->buf + w->lo;
    size_t end = 0;
    if (*s != '{') return NULL;
    cJSON *v = forge_json_parse_fast(s, w->hi - w->lo, &end);
    if (!v) return NULL;
    if (end > forge_file_input_limit() || end / 2 + 1 > forge_json_node_limit() || forge_utf8_check(s, end, true) < end) {
        if (!forge_jarena_owns(v)) cJSON_Delete(v);
        return NULL;
    }
    *len = end;
    return v;
}

static int open_win(struct win *w, const char *path, struct forge_err *err)
{
    w->f = fopen(path, "rb");
    if (!w->f) return forge_err_set(err, FORGE_EIO, "%s: cannot open: %s", path, strerror(errno));
    w->line = w->col = 1;
    return 0;
}

struct forge_cases *forge_cases_open(const char *path, struct forge_err *err)
{
    struct forge_cases *c = forge_calloc(1, sizeof *c);
    if (!c) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    c->path = path;
    if (open_win(&c->w, path, err)) {
        forge_free(c);
        return NULL;
    }
    /* the input limits hold for the whole file, as when it is read whole: its size before a
     * byte is read, its values as they are read */
    struct stat st;
    if (fstat(fileno(c->w.f), &st) == 0 && (unsigned long long)st.st_size > forge_file_input_limit()) {
        forge_file_limit_error(path, err);
        forge_cases_close(c);
        return NULL;
    }
    c->count = (size_t)st.st_size / 2 + 1 > forge_json_node_limit();
    c->values = 1;
    return c;
}

/* Where a case is, for forge_cases_read_at: the offset in the low 40 bits (a file read a case at
 * a time is below the input limit, at most 4000 MiB), the length in the high 24, or 0 there when
 * the case is longer, so that a second reading need not frame it again. */
#define OFFSET_BITS 40
static uint64_t locate(uint64_t offset, size_t len)
{
    return offset | (len >> (64 - OFFSET_BITS) ? 0 : (uint64_t)len << OFFSET_BITS);
}

static int where(struct forge_cases *c, struct forge_err *err, const char *what)
{
    return forge_err_set(err, FORGE_EINVAL, "%s:%d:%d: %s", c->path, c->w.line, c->w.col, what);
}

int forge_cases_next(struct forge_cases *c, cJSON **kase, int *index, uint64_t *loc, struct forge_err *err)
{
    *kase = NULL;
    struct win *w = &c->w;
    if (c->last_len) {
        eat(w, c->last_len); /* the previous case */
        c->last_len = 0;
    }
    int ch = next_byte(w);
    if (ch == -2) return forge_err_set(err, FORGE_EIO, "%s: read failed: %s", c->path, strerror(errno));
    if (c->state == 0) {
        if (ch != '[') return where(c, err, "an eval file is a JSON array of cases (agent-tool-forge's format)");
        eat(w, 1);
        c->state = 1;
        ch = next_byte(w);
        if (ch == ']') {
            eat(w, 1);
            c->state = 2;
        }
    } else if (c->state == 1) {
        if (ch == ']') {
            eat(w, 1);
            c->state = 2;
        } else if (ch == ',') {
            eat(w, 1);
            ch = next_byte(w);
        } else {
            return where(c, err, ch < 0 ? "the file ends inside the array of cases (a ']' is missing)"
                                        : "expected ',' or ']' after a case");
        }
    }
    if (c->state == 2) {
        ch = next_byte(w);
        if (ch >= 0) return where(c, err, "unexpected text after the array of cases");
        return 0;
    }
    if (ch < 0) return where(c, err, "the file ends inside the array of cases (a case is missing)");
    if (ch == ']') return where(c, err, "a case is missing before ']'");
    size_t len;
    cJSON *parsed = c->count ? NULL : parse_in_window(w, &len);
    int rc = parsed ? 0 : frame(w, &len);
    if (rc == FORGE_ELIMIT) {
        forge_err_set(err, FORGE_ELIMIT, "%s:%d:%d: case [%d] is larger than the input limit (raise it with "
                      "--max-file-mb)", c->path, w->line, w->col, c->index);
        return FORGE_ELIMIT;
    }
    if (rc == FORGE_EINVAL) return where(c, err, "the file ends inside a case");
    if (rc) return forge_err_set(err, rc, "%s: %s", c->path, rc == FORGE_ENOMEM ? "out of memory" : "read failed");
    if (c->count) {
        size_t limit = forge_json_node_limit(), past;
        size_t left = c->values >= limit ? 0 : limit - c->values;
        size_t n = forge_json_count_values(w->buf + w->lo, len, left, &past);
        if (n > left) {
            eat(w, past);
            forge_err_set(err, FORGE_ELIMIT, "%s:%d:%d: more than %zu JSON values in one input (the limit; raise it "
                          "with --max-json-nodes)", c->path, w->line, w->col, limit);
            c->state = 2;
            return FORGE_ELIMIT;
        }
        c->values += n;
    }
    c->last_lo = w->lo;
    c->last_len = len;
    c->last_line = w->line;
    c->last_col = w->col;
    *loc = locate(w->boff + w->lo, len);
    *index = c->index;
    rc = parsed ? forge_evalfile_take_case(parsed, w->buf + w->lo, len, c->path, c->index, w->line, w->col, kase, err)
                : forge_evalfile_parse_case(w->buf + w->lo, len, c->path, c->index, w->line, w->col, kase, err);
    if (rc) return rc;
    c->index++;
    return 1;
}

int forge_cases_fail(struct forge_cases *c, const char *key, const char *what, struct forge_err *err)
{
    return forge_evalfile_case_error(c->w.buf + c->last_lo, c->last_len, c->path, c->index - 1, c->last_line,
                                     c->last_col, key, err, what);
}

int forge_cases_read_at(struct forge_cases *c, uint64_t loc, int index, const char *want_id, cJSON **kase,
                        struct forge_err *err)
{
    *kase = NULL;
    uint64_t offset = loc & (((uint64_t)1 << OFFSET_BITS) - 1), known = loc >> OFFSET_BITS;
    struct win *w = &c->at;
    if (!w->f && open_win(w, c->path, err)) return err ? err->code : FORGE_EIO;
    /* the window may already hold it (cases read in file order) */
    if (!(offset >= w->boff && offset < w->boff + w->hi)) {
        if (fseeko(w->f, (off_t)offset, SEEK_SET) != 0)
            return forge_err_set(err, FORGE_EIO, "%s: cannot seek: %s", c->path, strerror(errno));
        win_reset(w, offset);
    } else {
        w->lo = (size_t)(offset - w->boff);
    }
    if (fill(w, 1) || w->lo == w->hi)
        return forge_err_set(err, FORGE_EIO, "%s: case [%d] is gone (was the file changed?)", c->path, index);
    size_t len = (size_t)known;
    int rc = known ? fill(w, len) : frame(w, &len);
    if (!rc && w->hi - w->lo < len) rc = FORGE_EINVAL; /* the file is shorter now */
    if (rc) return forge_err_set(err, rc == FORGE_ENOMEM ? rc : FORGE_EIO, "%s: case [%d] cannot be read again "
                                 "(was the file changed?)", c->path, index);
    /* the case was checked when first read: parsed only (its id must match, should the file
     * have changed since) */
    *kase = forge_json_parse(w->buf + w->lo, len, c->path, err);
    w->lo += len;
    if (!*kase) return err ? err->code : FORGE_EINVAL;
    const char *got = forge_json_str(*kase, "id");
    if (!cJSON_IsObject(*kase) || !got || (want_id && strcmp(got, want_id) != 0)) {
        cJSON_Delete(*kase);
        *kase = NULL;
        return forge_err_set(err, FORGE_EIO, "%s: case [%d] changed while the run read it", c->path, index);
    }
    return 0;
}

int forge_cases_rewind(struct forge_cases *c, struct forge_err *err)
{
    if (fseeko(c->w.f, 0, SEEK_SET) != 0)
        return forge_err_set(err, FORGE_EIO, "%s: cannot seek: %s", c->path, strerror(errno));
    win_reset(&c->w, 0);
    c->w.line = c->w.col = 1;
    c->index = 0;
    c->values = 1;
    c->state = 0;
    c->last_len = 0;
    return 0;
}

void forge_cases_close(struct forge_cases *c)
{
    if (!c) return;
    if (c->w.f) fclose(c->w.f);
    if (c->at.f) fclose(c->at.f);
    forge_free(c->w.buf);
    forge_free(c->at.buf);
    forge_free(c);
}

/* ---- the id set: a 64-bit hash per place, an open-addressing table of places ---- */

/* The ids' text is not kept: two ids whose hashes are equal are told apart by asking the caller
 * (same()), which reads the id of a place back from its eval file. */
struct forge_idset {
    uint64_t (*hash)(const char *);
    uint64_t *h;     /* per place: its id's hash */
    size_t n, ncap;
    uint32_t *slots; /* place + 1, or 0 */
    size_t scap;
};

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 29);
}

struct forge_idset *forge_idset_new_hash(uint64_t (*hash)(const char *))
{
    struct forge_idset *s = forge_calloc(1, sizeof *s);
    if (s) s->hash = hash ? hash : fnv;
    return s;
}

struct forge_idset *forge_idset_new(void) { return forge_idset_new_hash(NULL); }

/* The slot holding <id> (*found = 1) or the free slot where it would go; < 0: same() failed. */
static int64_t slot_of(const struct forge_idset *s, const char *id, uint64_t h, forge_idset_same_fn same, void *ctx,
                       int *found)
{
    size_t m = s->scap - 1, i = (size_t)h & m;
    *found = 0;
    for (; s->slots[i]; i = (i + 1) & m) {
        size_t place = s->slots[i] - 1;
        if (s->h[place] != h) continue;
        int eq = same(ctx, place, id);
        if (eq < 0) return eq;
        if (eq) {
            *found = 1;
            break;
        }
    }
    return (int64_t)i;
}

int64_t forge_idset_find(const struct forge_idset *s, const char *id, forge_idset_same_fn same, void *ctx)
{
    if (!s->scap) return -1;
    int found;
    int64_t i = slot_of(s, id, s->hash(id), same, ctx, &found);
    if (i < 0) return INT64_MIN;
    return found ? (int64_t)s->slots[i] - 1 : -1;
}

int64_t forge_idset_add(struct forge_idset *s, const char *id, forge_idset_same_fn same, void *ctx)
{
    if (s->n >= UINT32_MAX - 1) return INT64_MIN;
    /* at most 3/4 full: 5 to 11 bytes a place, besides the 8 of its hash */
    if (4 * (s->n + 1) > 3 * s->scap) {
        size_t cap = s->scap ? s->scap * 2 : 1024;
        uint32_t *t = forge_calloc(cap, sizeof *t);
        if (!t) return INT64_MIN;
        for (size_t i = 0; i < s->scap; i++) {
            if (!s->slots[i]) continue;
            size_t j = (size_t)s->h[s->slots[i] - 1] & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = s->slots[i];
        }
        forge_free(s->slots);
        s->slots = t;
        s->scap = cap;
    }
    uint64_t h = s->hash(id);
    int found;
    int64_t i = slot_of(s, id, h, same, ctx, &found);
    if (i < 0) return INT64_MIN;
    if (found) return -1 - ((int64_t)s->slots[i] - 1);
    if (s->n == s->ncap) {
        size_t cap = s->ncap ? s->ncap * 2 : 1024;
        uint64_t *a = forge_realloc(s->h, cap * sizeof *a);
        if (!a) return INT64_MIN;
        s->h = a;
        s->ncap = cap;
    }
    s->h[s->n] = h;
    s->slots[i] = (uint32_t)(s->n + 1);
    return (int64_t)s->n++;
}

size_t forge_idset_count(const struct forge_idset *s) { return s->n; }

void forge_idset_free(struct forge_idset *s)
{
    if (!s) return;
    forge_free(s->slots);
    forge_free(s->h);
    forge_free(s);
}
