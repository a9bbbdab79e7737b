/* YAML to JSON on libyaml's event parser. The stream is read twice: a first pass counts the
 * values every document expands to (aliases included) without building anything, so an alias
 * bomb is refused before it costs memory; the second pass builds the trees and records where
 * each node came from. */
#include "data/yaml.h"
#include "data/json.h"
#include "base/alloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 1000

/* ---- marks: node address -> position ---- */

struct mark {
    const cJSON *node;
    unsigned line, col, kline, kcol; /* kline 0: no key */
};

struct forge_yaml_marks {
    struct mark *v; /* open addressing, cap a power of two */
    size_t n, cap;
};

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static struct mark *marks_slot(const struct forge_yaml_marks *m, const cJSON *node)
{
    size_t i = ptr_hash(node) & (m->cap - 1);
    while (m->v[i].node && m->v[i].node != node)
        i = (i + 1) & (m->cap - 1);
    return &m->v[i];
}

static int marks_put(struct forge_yaml_marks *m, const cJSON *node, unsigned line, unsigned col,
                     unsigned kline, unsigned kcol)
{
    if (2 * (m->n + 1) > m->cap) {
        struct forge_yaml_marks bigger = {forge_calloc(m->cap ? 2 * m->cap : 64, sizeof(struct mark)), 0,
                                          m->cap ? 2 * m->cap : 64};
        if (!bigger.v)
            return FORGE_ENOMEM;
        for (size_t i = 0; i < m->cap; i++)
            if (m->v[i].node)
                *marks_slot(&bigger, m->v[i].node) = m->v[i];
        bigger.n = m->n;
        forge_free(m->v);
        *m = bigger;
    }
    struct mark *s = marks_slot(m, node);
    if (!s->node)
        m->n++;
    *s = (struct mark){node, line, col, kline, kcol};
    return 0;
}

bool forge_yaml_mark(const struct forge_yaml_marks *m, const cJSON *node, bool key, int *line, int *col)
{
    if (!m || !m->cap || !node)
        return false;
    const struct mark *s = marks_slot(m, node);
    if (!s->node || (key && !s->kline))
        return false;
    *line = (int)(key ? s->kline : s->line);
    *col = (int)(key ? s->kcol : s->col);
    return true;
}

void forge_yaml_marks_free(struct forge_yaml_marks *m)
{
    if (!m)
        return;
    forge_free(m->v);
    forge_free(m);
}

bool forge_yaml_is_path(const char *path)
{
    size_t n = strlen(path);
    return (n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"));
}

/* ---- scalars: YAML 1.2 core schema ---- */

enum kind { K_NULL, K_BOOL, K_INT, K_FLOAT, K_STR };

static int in(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(s, *set))
            return 1;
    return 0;
}

static int digits(const char *s, const char *set)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr(set, *s))
            return 0;
    return 1;
}

/* The core schema's resolution of a plain scalar: its kind and its value (a new node). */
static cJSON *resolve(const char *s, enum kind *k)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    static const char *const specials[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                           "-.INF", ".nan", ".NaN", ".NAN", NULL};
    if (in(s, nulls))
        return *k = K_NULL, cJSON_CreateNull();
    if (in(s, trues))
        return *k = K_BOOL, cJSON_CreateTrue();
    if (in(s, falses))
        return *k = K_BOOL, cJSON_CreateFalse();
    if (in(s, specials))
        return *k = K_FLOAT, cJSON_CreateString(s); /* JSON has no infinities or NaN: the text */
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
        int hex = s[1] == 'x';
        if (digits(s + 2, hex ? "0123456789abcdefABCDEF" : "01234567")) {
            double v = 0;
            for (const char *p = s + 2; *p; p++)
                v = v * (hex ? 16 : 8) + (double)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
            if (isfinite(v))
                return *k = K_INT, cJSON_CreateNumber(v);
        }
        return *k = K_STR, cJSON_CreateString(s);
    }
    /* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
    const char *p = s + (*s == '-' || *s == '+');
    size_t whole = strspn(p, "0123456789"), frac = 0;
    int dot = p[whole] == '.', expo = 0;
    const char *q = p + whole;
    if (dot) {
        frac = strspn(q + 1, "0123456789");
        q += 1 + frac;
    }
    if ((*q == 'e' || *q == 'E') && (whole || frac)) {
        const char *e = q + 1 + (q[1] == '-' || q[1] == '+');
        size_t n = strspn(e, "0123456789");
        if (n) {
            expo = 1;
            q = e + n;
        }
    }
    if (*q || !(whole || frac)) /* not a number: the text */
        return *k = K_STR, cJSON_CreateString(s);
    double v = strtod(s, NULL);
    if (!isfinite(v)) /* 1e999: kept as written, like .inf */
        return *k = K_FLOAT, cJSON_CreateString(s);
    *k = dot || expo ? K_FLOAT : K_INT;
    return cJSON_CreateNumber(v);
}

/* ---- the converter ---- */

struct anchor {
    char *name;
    cJSON *node;  /* second pass: the anchored node (borrowed from the tree) */
    size_t size;  /* the values it expands to */
    bool done;    /* false while its collection is still open */
    unsigned line, col;
};

struct frame {
    cJSON *node;  /* second pass: the array or object */
    size_t size;  /* values in this subtree so far, itself included */
    long anchor;  /* index into anchors, or -1 */
    bool mapping, have_key;
    char *key;    /* mapping: the key waiting for its value (owned) */
    unsigned kline, kcol, line, col;
};

struct conv {
    const char *text, *name;
    size_t len, limit, total;
    bool build, all;
    struct forge_err *err;
    int rc;
    struct frame *stack;
    int depth;
    struct anchor *anchors;
    size_t nanchors, capanchors;
    size_t *slots, capslots; /* anchor name -> index + 1 of its latest definition (open addressing) */
    cJSON *docs;  /* second pass: the documents */
    int ndocs;
    struct forge_yaml_marks *marks;
};

static int fail(struct conv *c, int code, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(struct conv *c, int code, yaml_mark_t m, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->rc = forge_err_set(c->err, code, "%s:%lu:%lu: %s", c->name, (unsigned long)m.line + 1,
                          (unsigned long)m.column + 1, what);
    return c->rc;
}

static int nomem(struct conv *c)
{
    return c->rc = forge_err_set(c->err, FORGE_ENOMEM, "out of memory");
}

/* Counts <n> more values against the limit. */
static int count(struct conv *c, size_t n, yaml_mark_t m)
{
    if (n > c->limit || c->total > c->limit - n)
        return fail(c, FORGE_ELIMIT, m, "more than %zu JSON values in one input (the limit; raise it with "
                    "--max-json-nodes)", c->limit);
    c->total += n;
    return 0;
}

static size_t str_hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slot of <name>: its entry, or the empty slot where it goes. */
static size_t *anchor_slot(struct conv *c, const char *name)
{
    size_t i = str_hash(name) & (c->capslots - 1);
    while (c->slots[i] && strcmp(c->anchors[c->slots[i] - 1].name, name))
        i = (i + 1) & (c->capslots - 1);
    return &c->slots[i];
}

static struct anchor *find_anchor(struct conv *c, const char *name)
{
    if (!c->capslots)
        return NULL;
    size_t *slot = anchor_slot(c, name);
    return *slot ? &c->anchors[*slot - 1] : NULL;
}

static long add_anchor(struct conv *c, const char *name, yaml_mark_t m)
{
    if (c->nanchors == c->capanchors) {
        size_t cap = c->capanchors ? 2 * c->capanchors : 16;
        struct anchor *a = forge_realloc(c->anchors, cap * sizeof *a);
        if (!a)
            return nomem(c), -1;
        c->anchors = a;
        c->capanchors = cap;
    }
    if (2 * (c->nanchors + 1) > c->capslots) { /* rehash the latest definitions */
        size_t cap = c->capslots ? 2 * c->capslots : 32;
        size_t *slots = forge_calloc(cap, sizeof *slots);
        if (!slots)
            return nomem(c), -1;
        forge_free(c->slots);
        c->slots = slots;
        c->capslots = cap;
        for (size_t i = 0; i < c->nanchors; i++)
            *anchor_slot(c, c->anchors[i].name) = i + 1; /* later ones overwrite earlier ones */
    }
    char *dup = forge_strdup(name);
    if (!dup)
        return nomem(c), -1;
    c->anchors[c->nanchors] = (struct anchor){dup, NULL, 0, false, (unsigned)m.line + 1, (unsigned)m.column + 1};
    *anchor_slot(c, dup) = c->nanchors + 1; /* the latest definition wins */
    return (long)c->nanchors++;
}

static void clear_anchors(struct conv *c)
{
    for (size_t i = 0; i < c->nanchors; i++)
        forge_free(c->anchors[i].name);
    c->nanchors = 0;
    if (c->slots)
        memset(c->slots, 0, c->capslots * sizeof *c->slots);
}

/* A finished value of <size> values (<v>: its node in the second pass, taken) at <m> goes into
 * the open collection, or becomes the document. */
static int place(struct conv *c, cJSON *v, size_t size, yaml_mark_t m)
{
    unsigned kline = 0, kcol = 0;
    if (c->depth == 0) {
        if (c->build)
            cJSON_AddItemToArray(c->docs, v);
        c->ndocs++;
    } else {
        struct frame *f = &c->stack[c->depth - 1];
        f->size += size;
        if (f->mapping) {
            kline = f->kline;
            kcol = f->kcol;
            if (c->build)
                cJSON_AddItemToObject(f->node, f->key, v); /* copies the key */
            forge_free(f->key);
            f->key = NULL;
            f->have_key = false;
        } else if (c->build) {
            cJSON_AddItemToArray(f->node, v);
        }
    }
    if (c->build && c->marks && marks_put(c->marks, v, (unsigned)m.line + 1, (unsigned)m.column + 1, kline, kcol))
        return nomem(c);
    return 0;
}

/* Whether the next node is a mapping's key. */
static bool at_key(struct conv *c)
{
    return c->depth && c->stack[c->depth - 1].mapping && !c->stack[c->depth - 1].have_key;
}

static int scalar(struct conv *c, yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    if (memchr(s, 0, n))
        return fail(c, FORGE_EINVAL, ev->start_mark, "a string with a NUL character (JSON text cannot carry it)");
    if (at_key(c)) {
        struct frame *f = &c->stack[c->depth - 1];
        if (!(f->key = forge_strndup(s, n)))
            return nomem(c);
        f->have_key = true;
        f->kline = (unsigned)ev->start_mark.line + 1;
        f->kcol = (unsigned)ev->start_mark.column + 1;
        if (ev->data.scalar.anchor)
            return fail(c, FORGE_EINVAL, ev->start_mark, "an anchor on a key (keys cannot be aliased here)");
        return 0;
    }
    if (count(c, 1, ev->start_mark))
        return c->rc;
    const char *tag = (const char *)ev->data.scalar.tag;
    cJSON *v = NULL;
    if (c->build || tag) {
        enum kind k = K_STR;
        if (!tag) {
            v = ev->data.scalar.plain_implicit && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                    ? resolve(s, &k) : cJSON_CreateString(s);
        } else if (!strcmp(tag, YAML_NULL_TAG) || !strcmp(tag, YAML_BOOL_TAG) || !strcmp(tag, YAML_INT_TAG) ||
                   !strcmp(tag, YAML_FLOAT_TAG)) {
            v = resolve(s, &k);
            enum kind want = !strcmp(tag, YAML_NULL_TAG) ? K_NULL : !strcmp(tag, YAML_BOOL_TAG) ? K_BOOL
                             : !strcmp(tag, YAML_INT_TAG) ? K_INT : K_FLOAT;
            if (v && k != want && !(want == K_FLOAT && k == K_INT)) {
                cJSON_Delete(v);
                return fail(c, FORGE_EINVAL, ev->start_mark, "\"%s\" is not a%s %s (its tag is !!%s)", s,
                            want == K_INT ? "n" : "",
                            want == K_NULL ? "null" : want == K_BOOL ? "boolean" : want == K_INT ? "integer" : "float",
                            tag + strlen("tag:yaml.org,2002:"));
            }
        } else {
            v = cJSON_CreateString(s); /* !!str, the non-specific "!" and any other tag: the text */
        }
        if (!v)
            return nomem(c);
        if (!c->build)
            cJSON_Delete(v), v = NULL;
    }
    long a = -1;
    if (ev->data.scalar.anchor && (a = add_anchor(c, (const char *)ev->data.scalar.anchor, ev->start_mark)) < 0) {
        cJSON_Delete(v);
        return c->rc;
    }
    if (a >= 0) {
        c->anchors[a].node = v;
        c->anchors[a].size = 1;
        c->anchors[a].done = true;
    }
    return place(c, v, 1, ev->start_mark);
}

static int alias(struct conv *c, yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    if (at_key(c))
        return fail(c, FORGE_EINVAL, ev->start_mark, "an alias (*%s) as a key (JSON keys are strings)", name);
    struct anchor *a = find_anchor(c, name);
    if (!a)
        return fail(c, FORGE_EINVAL, ev->start_mark, "the alias *%s names no anchor defined before it", name);
    if (!a->done)
        return fail(c, FORGE_EINVAL, ev->start_mark, "the alias *%s is inside the node it names (%u:%u): a "
                    "recursive alias has no JSON value", name, a->line, a->col);
    if (count(c, a->size, ev->start_mark))
        return c->rc;
    cJSON *v = NULL;
    if (c->build && !(v = cJSON_Duplicate(a->node, 1)))
        return nomem(c);
    return place(c, v, a->size, ev->start_mark);
}

static int open_collection(struct conv *c, yaml_event_t *ev, bool mapping)
{
    if (at_key(c))
        return fail(c, FORGE_EINVAL, ev->start_mark, "a %s as a key (JSON keys are strings)",
                    mapping ? "mapping" : "sequence");
    if (c->depth >= MAX_DEPTH)
        return fail(c, FORGE_EINVAL, ev->start_mark, "nested more than %d levels", MAX_DEPTH);
    if (count(c, 1, ev->start_mark))
        return c->rc;
    const yaml_char_t *anchor = mapping ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    struct frame f = {0};
    f.mapping = mapping;
    f.size = 1;
    f.anchor = -1;
    f.line = (unsigned)ev->start_mark.line;
    f.col = (unsigned)ev->start_mark.column;
    if (c->build && !(f.node = mapping ? cJSON_CreateObject() : cJSON_CreateArray()))
        return nomem(c);
    if (anchor && (f.anchor = add_anchor(c, (const char *)anchor, ev->start_mark)) < 0) {
        cJSON_Delete(f.node);
        return c->rc;
    }
    c->stack[c->depth++] = f;
    return 0;
}

/* The first member of the mapping <o> (of <n> members) whose name an earlier member has, or
 * NULL. */
static const cJSON *repeated_key(const cJSON *o, size_t n)
{
    if (n < 2)
        return NULL;
    if (n <= 16) {
        for (const cJSON *a = o->child; a; a = a->next)
            for (const cJSON *b = o->child; b != a; b = b->next)
                if (!strcmp(a->string, b->string))
                    return a;
        return NULL;
    }
    size_t k;
    struct forge_json_member *v = forge_json_members_sorted(o, NULL, 0, &k);
    if (!v)
        return NULL;
    /* in a run of equal names, each but the first (in the mapping) repeats an earlier one: the
     * repeat that comes first is the least position among them */
    const cJSON *first = NULL;
    size_t at = SIZE_MAX;
    for (size_t i = 1; i < k; i++)
        if (!strcmp(v[i].c->string, v[i - 1].c->string) && v[i].pos < at) {
            at = v[i].pos;
            first = v[i].c;
        }
    forge_free(v);
    return first;
}

static int close_collection(struct conv *c, yaml_event_t *ev)
{
    struct frame f = c->stack[--c->depth];
    if (c->build && f.mapping) {
        size_t n = (size_t)cJSON_GetArraySize(f.node);
        const cJSON *dup = repeated_key(f.node, n);
        if (dup) {
            int line = 0, col = 0;
            forge_yaml_mark(c->marks, dup, true, &line, &col);
            yaml_mark_t m = {0, line ? (size_t)line - 1 : f.line, line ? (size_t)col - 1 : f.col};
            fail(c, FORGE_EINVAL, m, "the key \"%s\" appears twice in one mapping", dup->string);
            cJSON_Delete(f.node);
            return c->rc;
        }
    }
    if (f.anchor >= 0) {
        c->anchors[f.anchor].node = f.node;
        c->anchors[f.anchor].size = f.size;
        c->anchors[f.anchor].done = true;
    }
    yaml_mark_t m = {0, f.line, f.col};
    (void)ev;
    return place(c, f.node, f.size, m);
}

/* Runs one pass over the stream. */
static int pass(struct conv *c)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return nomem(c);
    yaml_parser_set_input_string(&p, (const unsigned char *)c->text, c->len);
    bool done = false;
    while (!done && !c->rc) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            if (p.error == YAML_MEMORY_ERROR) {
                nomem(c);
            } else if (p.error == YAML_READER_ERROR) {
                int line, col;
                forge_json_position(c->text, p.problem_offset <= c->len ? p.problem_offset : c->len, &line, &col);
                char byte[32] = "";
                if (p.problem_value >= 0)
                    snprintf(byte, sizeof byte, " (byte 0x%02X)", (unsigned)p.problem_value & 0xFFu);
                c->rc = forge_err_set(c->err, FORGE_EINVAL, "%s:%d:%d: invalid YAML: %s%s", c->name, line, col,
                                      p.problem ? p.problem : "unreadable input", byte);
            } else {
                yaml_mark_t m = p.problem_mark;
                if (p.context)
                    fail(c, FORGE_EINVAL, m, "invalid YAML: %s (%s that starts at %lu:%lu)", p.problem, p.context,
                         (unsigned long)p.context_mark.line + 1, (unsigned long)p.context_mark.column + 1);
                else
                    fail(c, FORGE_EINVAL, m, "invalid YAML: %s", p.problem ? p.problem : "a syntax error");
            }
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (!c->all && c->ndocs == 1)
                fail(c, FORGE_EINVAL, ev.start_mark, "a second YAML document (this input holds one)");
            break;
        case YAML_DOCUMENT_END_EVENT:
            clear_anchors(c);
            break;
        case YAML_ALIAS_EVENT:
            alias(c, &ev);
            break;
        case YAML_SCALAR_EVENT:
            scalar(c, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            open_collection(c, &ev, ev.type == YAML_MAPPING_START_EVENT);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            close_collection(c, &ev);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    /* on failure, the open collections are freed here */
    while (c->depth > 0) {
        struct frame *f = &c->stack[--c->depth];
        forge_free(f->key);
        cJSON_Delete(f->node);
    }
    clear_anchors(c);
    return c->rc;
}

static cJSON *parse(const char *text, size_t len, const char *name, bool all, struct forge_yaml_marks **marks,
                    struct forge_err *err)
{
    if (marks)
        *marks = NULL;
    struct conv c = {.text = text, .name = name, .len = len, .limit = forge_json_node_limit(), .all = all, .err = err};
    c.stack = forge_malloc(MAX_DEPTH * sizeof *c.stack);
    if (!c.stack) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    cJSON *out = NULL;
    if (pass(&c))
        goto out;
    if (!all && c.ndocs == 0) {
        forge_err_set(err, FORGE_EINVAL, "%s:1:1: no YAML document (the input is empty or only comments)", name);
        goto out;
    }
    c.build = true;
    c.total = 0;
    c.ndocs = 0;
    c.docs = cJSON_CreateArray();
    c.marks = forge_calloc(1, sizeof *c.marks);
    if (!c.docs || !c.marks) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto out;
    }
    if (pass(&c))
        goto out;
    if (all) {
        out = c.docs;
    } else {
        out = cJSON_DetachItemFromArray(c.docs, 0);
        cJSON_Delete(c.docs);
    }
    c.docs = NULL;
    if (marks) {
        *marks = c.marks;
        c.marks = NULL;
    }
out:
    cJSON_Delete(c.docs);
    forge_yaml_marks_free(c.marks);
    forge_free(c.anchors);
    forge_free(c.slots);
    forge_free(c.stack);
    return out;
}

int forge_yaml_count(const char *text, size_t len, const char *name, size_t *values, struct forge_err *err)
{
    *values = 0;
    struct conv c = {.text = text, .name = name, .len = len, .limit = forge_json_node_limit(), .all = true, .err = err};
    c.stack = forge_malloc(MAX_DEPTH * sizeof *c.stack);
    if (!c.stack)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int rc = pass(&c);
    forge_free(c.anchors);
    forge_free(c.slots);
    forge_free(c.stack);
    if (!rc)
        *values = c.total;
    return rc;
}

cJSON *forge_yaml_parse(const char *text, size_t len, const char *name, struct forge_err *err)
{
    return parse(text, len, name, false, NULL, err);
}

cJSON *forge_yaml_parse_marked(const char *text, size_t len, const char *name, struct forge_yaml_marks **marks,
                               struct forge_err *err)
{
    return parse(text, len, name, false, marks, err);
}

cJSON *forge_yaml_parse_all(const char *text, size_t len, const char *name, struct forge_yaml_marks **marks,
                            struct forge_err *err)
{
    return parse(text, len, name, true, marks, err);
}
