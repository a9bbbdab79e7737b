/* The results file: case records on disk, read back in case order. */
#include "report/results.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest record read back: a shard's line is capped the same way when merged. */
#define MAX_LINE ((size_t)256 << 20)
#define MAX_SOURCES 65535

struct source {
    const char *path; /* borrowed (a source) or the set's own */
    int fd;
    char *buf;        /* read window: bytes [boff, boff + blen) of the file */
    size_t cap, blen;
    uint64_t boff;
};

struct forge_results {
    struct source *src;
    int nsrc;
    char *path, *tmp;  /* the report's path and its temporary file (NULL: anonymous) */
    int writing;       /* source 0 is the file this set writes */
    uint64_t woff;     /* end of the written file (buffered bytes included) */
    struct forge_buf wbuf; /* a temporary file's unwritten tail (a report's lines are written at once) */
    uint64_t *loc;     /* per place: 0 empty, else ((src << 48) | offset) + 1 */
    uint64_t *ok;      /* per place, a bit: its record was written here and passed or was skipped */
    size_t nloc, cap;
    struct forge_buf line;
};

static struct forge_results *alloc_set(void)
{
    struct forge_results *r = forge_calloc(1, sizeof *r);
    if (r) {
        forge_buf_init(&r->line, 0);
        forge_buf_init(&r->wbuf, 0);
    }
    return r;
}

static int add_source(struct forge_results *r, const char *path, int fd, struct forge_err *err)
{
    if (r->nsrc == MAX_SOURCES)
        return forge_err_set(err, FORGE_ELIMIT, "%s: more than %d result files in one report", path, MAX_SOURCES);
    struct source *s = forge_realloc(r->src, (size_t)(r->nsrc + 1) * sizeof *s);
    if (!s)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    r->src = s;
    memset(&s[r->nsrc], 0, sizeof *s);
    s[r->nsrc].path = path;
    s[r->nsrc].fd = fd;
    return r->nsrc++;
}

struct forge_results *forge_results_create(const char *path, struct forge_err *err)
{
    struct forge_results *r = alloc_set();
    if (!r) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    int fd = -1;
    if (path) {
        size_t n = strlen(path) + 40;
        if (!(r->path = forge_strdup(path)) || !(r->tmp = forge_malloc(n)))
            goto nomem;
        snprintf(r->tmp, n, "%s.tmp.%ld", path, (long)getpid());
        fd = open(r->tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            forge_err_set(err, FORGE_EIO, "%s: cannot write the report: %s", path, strerror(errno));
            goto fail;
        }
    } else {
        const char *dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
        char *t = forge_strdupf("%s/forge-results-XXXXXX", dir);
        if (!t)
            goto nomem;
        fd = mkstemp(t);
        if (fd < 0) {
            forge_err_set(err, FORGE_EIO, "%s: cannot make the run's temporary results file: %s (set TMPDIR to a "
                          "writable folder)", t, strerror(errno));
            forge_free(t);
            goto fail;
        }
        unlink(t); /* anonymous: gone with the process, however it ends */
        forge_free(t);
    }
    if (add_source(r, path ? r->tmp : "<results>", fd, err) < 0) {
        close(fd);
        goto fail;
    }
    r->writing = 1;
    return r;
nomem:
    forge_err_set(err, FORGE_ENOMEM, "out of memory");
fail:
    forge_free(r->path);
    forge_free(r->tmp);
    forge_buf_free(&r->line);
    forge_buf_free(&r->wbuf);
    forge_free(r->src);
    forge_free(r);
    return NULL;
}

struct forge_results *forge_results_index(void) { return alloc_set(); }

int forge_results_source(struct forge_results *r, const char *path, struct forge_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return forge_err_set(err, FORGE_EINVAL, "%s: cannot read: %s", path, strerror(errno));
    int i = add_source(r, path, fd, err);
    if (i < 0)
        close(fd);
    return i;
}

static const char *shown(const struct forge_results *r) { return r->path ? r->path : r->src[0].path; }

static int write_out(struct forge_results *r, const char *p, size_t left, uint64_t off, struct forge_err *err)
{
    while (left) {
        ssize_t w = pwrite(r->src[0].fd, p, left, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return forge_err_set(err, FORGE_EIO, "%s: write failed: %s", shown(r), w < 0 ? strerror(errno) : "no space");
        p += w;
        left -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

/* Writes out a temporary file's buffered tail (before it is read, and at the end). */
static int drain(struct forge_results *r, struct forge_err *err)
{
    if (!r->wbuf.len)
        return 0;
    int rc = write_out(r, r->wbuf.data, r->wbuf.len, r->woff - r->wbuf.len, err);
    forge_buf_reset(&r->wbuf);
    return rc;
}

/* Appends <v> as one line; an object <v> with a <traj> carries it as a last member "trajectory". */
static int append(struct forge_results *r, const cJSON *v, const cJSON *traj, uint64_t *at, struct forge_err *err)
{
    forge_buf_reset(&r->line);
    int rc = forge_json_write(&r->line, v, 0);
    if (!rc && traj && r->line.len && r->line.data[r->line.len - 1] == '}') {
        /* the closing brace gives way to the trajectory member */
        r->line.len--;
        rc = forge_buf_adds(&r->line, r->line.len > 1 ? ",\"trajectory\":" : "\"trajectory\":");
        if (!rc)
            rc = forge_json_write(&r->line, traj, 0);
        if (!rc)
            rc = forge_buf_addc(&r->line, '}');
    }
    if (!rc)
        rc = forge_buf_addc(&r->line, '\n');
    if (rc)
        return forge_err_set(err, rc, "results: out of memory");
    *at = r->woff;
    if (r->path) {
        /* a report: each line reaches the file as its case finishes */
        rc = write_out(r, r->line.data, r->line.len, r->woff, err);
        if (!rc)
            r->woff += r->line.len;
        return rc;
    }
    rc = forge_buf_add(&r->wbuf, r->line.data, r->line.len);
    if (rc)
        return forge_err_set(err, rc, "results: out of memory");
    r->woff += r->line.len;
    return r->wbuf.len >= ((size_t)64 << 10) ? drain(r, err) : 0;
}

int forge_results_write_line(struct forge_results *r, const cJSON *line, struct forge_err *err)
{
    uint64_t at = 0;
    return append(r, line, NULL, &at, err);
}

static int grow(struct forge_results *r, size_t pos, struct forge_err *err)
{
    if (pos < r->cap)
        return 0;
    size_t cap = r->cap ? r->cap : 1024;
    while (cap <= pos)
        cap *= 2;
    uint64_t *l = forge_realloc(r->loc, cap * sizeof *l);
    if (!l)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    memset(l + r->cap, 0, (cap - r->cap) * sizeof *l);
    r->loc = l;
    uint64_t *ok = forge_realloc(r->ok, cap / 64 * sizeof *ok); /* cap is 1024 times a power of 2 */
    if (!ok)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    memset(ok + r->cap / 64, 0, (cap - r->cap) / 64 * sizeof *ok);
    r->ok = ok;
    r->cap = cap;
    return 0;
}

int forge_results_put(struct forge_results *r, size_t pos, const cJSON *rec, struct forge_err *err)
{
    return forge_results_put_case(r, pos, rec, NULL, err);
}

int forge_results_put_case(struct forge_results *r, size_t pos, const cJSON *rec, const cJSON *traj,
                           struct forge_err *err)
{
    if (grow(r, pos, err))
        return err ? err->code : FORGE_ENOMEM;
    if (r->loc[pos])
        return forge_err_set(err, FORGE_EINTERNAL, "results: place %zu written twice", pos);
    uint64_t at = 0;
    int rc = append(r, rec, traj, &at, err);
    if (rc)
        return rc;
    r->loc[pos] = at + 1;
    if (pos >= r->nloc)
        r->nloc = pos + 1;
    /* passed or skipped (an error case has "error"), as reports tell them apart */
    bool passed = false, skipped = false, error = false;
    for (const cJSON *m = cJSON_IsObject(rec) ? rec->child : NULL; m; m = m->next) {
        const char *k = m->string;
        if (!k) continue;
        if (k[0] == 'e' && !strcmp(k, "error")) error = true;
        else if (k[0] == 'p' && !strcmp(k, "passed")) passed = (m->type & 0xFF) == cJSON_True;
        else if (k[0] == 's' && k[1] == 'k' && !strcmp(k, "skipped")) skipped = (m->type & 0xFF) == cJSON_True;
    }
    if (!error && (passed || skipped))
        r->ok[pos / 64] |= (uint64_t)1 << (pos % 64);
    return 0;
}

int forge_results_place(struct forge_results *r, size_t pos, int src, uint64_t offset, struct forge_err *err)
{
    if (grow(r, pos, err))
        return FORGE_ENOMEM;
    if (r->loc[pos])
        return 1;
    r->loc[pos] = (((uint64_t)src << 48) | offset) + 1;
    if (pos >= r->nloc)
        r->nloc = pos + 1;
    return 0;
}

size_t forge_results_size(const struct forge_results *r) { return r->nloc; }

bool forge_results_has(const struct forge_results *r, size_t pos) { return pos < r->nloc && r->loc[pos]; }

/* The line at <off> of source <s>: *p (valid until the next read of <s>) and *n, without '\n'. */
static int line_at(struct source *s, uint64_t off, const char **p, size_t *n, struct forge_err *err)
{
    size_t scanned = 0;
    if (off >= s->boff && off < s->boff + s->blen) {
        size_t start = (size_t)(off - s->boff);
        const char *nl = memchr(s->buf + start, '\n', s->blen - start);
        if (nl) {
            *p = s->buf + start;
            *n = (size_t)(nl - (s->buf + start));
            return 0;
        }
        /* keep what was read of the line: move it to the front */
        memmove(s->buf, s->buf + start, s->blen - start);
        s->blen -= start;
        s->boff = off;
        scanned = s->blen;
    } else {
        s->boff = off;
        s->blen = 0;
    }
    for (;;) {
        if (s->blen == s->cap) {
            if (s->cap > MAX_LINE)
                return forge_err_set(err, FORGE_ELIMIT, "%s: a record longer than %zu bytes at byte %llu", s->path,
                                     MAX_LINE, (unsigned long long)off);
            size_t cap = s->cap ? s->cap * 2 : (size_t)1 << 16;
            char *b = forge_realloc(s->buf, cap);
            if (!b)
                return forge_err_set(err, FORGE_ENOMEM, "out of memory");
            s->buf = b;
            s->cap = cap;
        }
        ssize_t got = pread(s->fd, s->buf + s->blen, s->cap - s->blen, (off_t)(s->boff + s->blen));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return forge_err_set(err, FORGE_EIO, "%s: read failed: %s", s->path, strerror(errno));
        if (got == 0) {
            if (!s->blen)
                return forge_err_set(err, FORGE_EIO, "%s: the record at byte %llu is gone (was the file changed?)",
                                     s->path, (unsigned long long)off);
            *p = s->buf;
            *n = s->blen; /* a last line without '\n' */
            return 0;
        }
        s->blen += (size_t)got;
        const char *nl = memchr(s->buf + scanned, '\n', s->blen - scanned);
        if (nl) {
            *p = s->buf;
            *n = (size_t)(nl - s->buf);
            return 0;
        }
        scanned = s->blen;
    }
}

static int raw(struct forge_results *r, size_t pos, const char **p, size_t *n, struct source **src,
               struct forge_err *err)
{
    if (r->wbuf.len && drain(r, err))
        return err ? err->code : FORGE_EIO;
    uint64_t l = r->loc[pos] - 1;
    int si = (int)(l >> 48);
    *src = &r->src[si];
    return line_at(*src, l & (((uint64_t)1 << 48) - 1), p, n, err);
}

int forge_results_read(struct forge_results *r, size_t pos, cJSON **rec, struct forge_err *err)
{
    *rec = NULL;
    if (!forge_results_has(r, pos))
        return 0;
    const char *p;
    size_t n;
    struct source *s;
    int rc = raw(r, pos, &p, &n, &s, err);
    if (rc)
        return rc;
    /* the records were checked when they were written or placed */
    *rec = cJSON_ParseWithLength(p, n);
    if (!*rec)
        return forge_err_set(err, FORGE_EINVAL, "%s: the record of case %zu is no JSON (was the file changed?)",
                             s->path, pos + 1);
    return 0;
}

int forge_results_copy(struct forge_results *r, size_t pos, struct forge_buf *out, struct forge_err *err)
{
    if (!forge_results_has(r, pos))
        return 0;
    const char *p;
    size_t n;
    struct source *s;
    int rc = raw(r, pos, &p, &n, &s, err);
    if (!rc && (rc = forge_buf_add(out, p, n)) != 0)
        forge_err_set(err, rc, "out of memory");
    return rc;
}

void forge_results_iter_init(struct forge_results_iter *it, struct forge_results *r)
{
    it->r = r;
    it->pos = 0;
    it->cur = NULL;
    it->traj = NULL;
    it->light = false;
    it->failing = false;
    it->cur_full = false;
}

void forge_results_iter_init_light(struct forge_results_iter *it, struct forge_results *r)
{
    forge_results_iter_init(it, r);
    it->light = true;
}

void forge_results_iter_init_failing(struct forge_results_iter *it, struct forge_results *r)
{
    forge_results_iter_init_light(it, r);
    it->failing = true;
}

/* The members a light record keeps (constant keys: cJSON does not copy or free them). */
static const char *const summary_keys[] = {"id", "passed", "skipped", "error", "reason", "score", "weight",
                                           "durationMs", "latencyMs", "costUsd", "skippedAssertions", "suite", NULL};

static const char *ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* The end of the string that starts at <p> (its closing quote + 1), or NULL. Sets *esc when it
 * holds an escape. */
static const char *str_end(const char *p, const char *e, bool *esc)
{
    /* most strings hold no escape: the first quote after this one ends them */
    const char *q = p + 1 < e ? memchr(p + 1, '"', (size_t)(e - p - 1)) : NULL;
    if (q && !memchr(p + 1, '\\', (size_t)(q - p - 1)))
        return q + 1;
    for (p++; p < e; p++) {
        if (*p == '\\') {
            *esc = true;
            p++;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* The end of the array or object that starts at <p>, or NULL. */
static const char *nest_end(const char *p, const char *e)
{
    /* the bytes that matter here: quotes and brackets */
    static const bool special[256] = {['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true};
    int depth = 0;
    bool esc;
    for (; p < e; p++) {
        if (!special[(unsigned char)*p])
            continue;
        if (*p == '"') {
            p = str_end(p, e, &esc);
            if (!p) return NULL;
            p--;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

/* A light record: the summary members of the object <p>..<e>, each value parsed by cJSON as it
 * would be in the whole record; NULL when the text is not the plain shape forge writes (the
 * caller parses it whole). */
static cJSON *parse_light(const char *p, const char *e)
{
    p = ws(p, e);
    if (p >= e || *p != '{') return NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    p = ws(p + 1, e);
    if (p < e && *p == '}') return o;
    while (p < e) {
        if (*p != '"') goto whole;
        bool esc = false;
        const char *k = p + 1, *ke = str_end(p, e, &esc);
        if (!ke || esc) goto whole;
        const char *key = NULL;
        size_t kl = (size_t)(ke - 1 - k);
        for (const char *const *s = summary_keys; *s && !key; s++)
            if (strlen(*s) == kl && memcmp(*s, k, kl) == 0) key = *s;
        p = ws(ke, e);
        if (p >= e || *p != ':') goto whole;
        p = ws(p + 1, e);
        if (p >= e) goto whole;
        const char *v = p, *ve;
        if (*p == '{' || *p == '[') {
            if (key || !(ve = nest_end(p, e))) goto whole; /* a summary member is a scalar */
        } else if (*p == '"') {
            if (!(ve = str_end(p, e, &esc))) goto whole;
        } else {
            ve = p;
            while (ve < e && *ve != ',' && *ve != '}' && *ve != ' ' && *ve != '\n' && *ve != '\t' && *ve != '\r') ve++;
        }
        if (key) {
            if (forge_json_get(o, key)) goto whole; /* a repeated key: cJSON's rules */
            size_t used;
            cJSON *item = forge_json_parse_fast(v, (size_t)(ve - v), &used);
            if (!item) item = cJSON_ParseWithLength(v, (size_t)(ve - v));
            if (!item) goto whole;
            cJSON_AddItemToObjectCS(o, key, item);
        }
        p = ws(ve, e);
        if (p < e && *p == ',') {
            p = ws(p + 1, e);
            continue;
        }
        if (p < e && *p == '}' && ws(p + 1, e) == e) return o;
        goto whole;
    }
whole:
    cJSON_Delete(o);
    return NULL;
}

/* Takes the trajectory out of the whole record <it>->cur (the record alone is the case result). */
static void take_traj(struct forge_results_iter *it)
{
    cJSON_Delete(it->traj);
    it->traj = cJSON_IsObject(it->cur) ? cJSON_DetachItemFromObjectCaseSensitive(it->cur, "trajectory") : NULL;
}

int forge_results_next(struct forge_results_iter *it, const cJSON **rec, struct forge_err *err)
{
    cJSON_Delete(it->cur);
    it->cur = NULL;
    cJSON_Delete(it->traj);
    it->traj = NULL;
    *rec = NULL;
    while (it->pos < it->r->nloc &&
           (!it->r->loc[it->pos] || (it->failing && it->r->ok[it->pos / 64] >> (it->pos % 64) & 1)))
        it->pos++;
    if (it->pos >= it->r->nloc)
        return 0;
    if (it->light) {
        const char *p;
        size_t n;
        struct source *s;
        int rc = raw(it->r, it->pos, &p, &n, &s, err);
        if (rc)
            return rc;
        if ((it->cur = parse_light(p, p + n)) != NULL) {
            it->pos++;
            it->cur_full = false;
            *rec = it->cur;
            return 1;
        }
    }
    int rc = forge_results_read(it->r, it->pos++, &it->cur, err);
    if (rc)
        return rc;
    take_traj(it);
    it->cur_full = true;
    *rec = it->cur;
    return 1;
}

int forge_results_iter_full(struct forge_results_iter *it, const cJSON **rec, struct forge_err *err)
{
    if (!it->cur_full) {
        cJSON *full = NULL;
        int rc = forge_results_read(it->r, it->pos - 1, &full, err);
        if (rc)
            return rc;
        cJSON_Delete(it->cur);
        it->cur = full;
        take_traj(it);
        it->cur_full = true;
    }
    *rec = it->cur;
    return 0;
}

void forge_results_iter_done(struct forge_results_iter *it)
{
    cJSON_Delete(it->cur);
    it->cur = NULL;
    cJSON_Delete(it->traj);
    it->traj = NULL;
}

int forge_results_close(struct forge_results *r, bool commit, struct forge_err *err)
{
    if (!r)
        return 0;
    int rc = 0;
    for (int i = 0; i < r->nsrc; i++) {
        if (r->src[i].fd >= 0 && close(r->src[i].fd) != 0 && i == 0 && r->writing && commit && r->path)
            rc = forge_err_set(err, FORGE_EIO, "%s: write failed: %s", r->path, strerror(errno));
        forge_free(r->src[i].buf);
    }
    if (r->path) {
        if (!rc && commit && rename(r->tmp, r->path) != 0)
            rc = forge_err_set(err, FORGE_EIO, "%s: cannot write the report: %s", r->path, strerror(errno));
        if (rc || !commit)
            remove(r->tmp);
    }
    forge_free(r->src);
    forge_free(r->loc);
    forge_free(r->ok);
    forge_free(r->path);
    forge_free(r->tmp);
    forge_buf_free(&r->line);
    forge_buf_free(&r->wbuf);
    forge_free(r);
    return rc;
}
