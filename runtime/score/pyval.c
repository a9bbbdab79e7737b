/* Python-shaped values: arena, equality, repr, json.dumps and json.loads as CPython 3.11 does. */
#include "score/pyval.h"
#include "base/alloc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- arena ---- */

struct forge_arena_chunk {
    struct forge_arena_chunk *next;
    size_t size, used;
    max_align_t data[];
};

#define CHUNK_MIN ((size_t)64 << 10)

void forge_arena_init(struct forge_arena *a, size_t limit)
{
    a->head = NULL;
    a->used = 0;
    a->limit = limit;
}

void *forge_arena_alloc(struct forge_arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    if (n == 0)
        n = sizeof(max_align_t);
    if (a->limit && a->used + n > a->limit)
        return NULL;
    struct forge_arena_chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > CHUNK_MIN ? n : CHUNK_MIN;
        c = forge_malloc(sizeof(*c) + size);
        if (!c)
            return NULL;
        c->size = size;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    a->used += n;
    return p;
}

void forge_arena_reset(struct forge_arena *a)
{
    struct forge_arena_chunk *c = a->head;
    if (!c)
        return;
    /* keep the newest chunk for reuse, free the others */
    struct forge_arena_chunk *keep = c;
    c = c->next;
    while (c) {
        struct forge_arena_chunk *next = c->next;
        forge_free(c);
        c = next;
    }
    keep->next = NULL;
    keep->used = 0;
    a->head = keep;
    a->used = 0;
}

void forge_arena_free(struct forge_arena *a)
{
    struct forge_arena_chunk *c = a->head;
    while (c) {
        struct forge_arena_chunk *next = c->next;
        forge_free(c);
        c = next;
    }
    a->head = NULL;
    a->used = 0;
}

/* ---- constructors ---- */

static struct forge_pyval *mk(struct forge_arena *a, enum forge_pykind k)
{
    struct forge_pyval *v = forge_arena_alloc(a, sizeof(*v));
    if (v) {
        memset(v, 0, sizeof(*v));
        v->kind = k;
    }
    return v;
}

struct forge_pyval *forge_py_none(struct forge_arena *a) { return mk(a, FORGE_PY_NONE); }

struct forge_pyval *forge_py_bool(struct forge_arena *a, bool b)
{
    struct forge_pyval *v = mk(a, FORGE_PY_BOOL);
    if (v)
        v->u.b = b;
    return v;
}

struct forge_pyval *forge_py_int(struct forge_arena *a, long long i)
{
    struct forge_pyval *v = mk(a, FORGE_PY_INT);
    if (v)
        v->u.i = i;
    return v;
}

struct forge_pyval *forge_py_float(struct forge_arena *a, double f)
{
    struct forge_pyval *v = mk(a, FORGE_PY_FLOAT);
    if (v)
        v->u.f = f;
    return v;
}

static char *arena_strdup(struct forge_arena *a, const char *s, size_t n)
{
    char *p = forge_arena_alloc(a, n + 1);
    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

struct forge_pyval *forge_py_str(struct forge_arena *a, const char *s, size_t n)
{
    if (n > UINT32_MAX)
        return NULL;
    struct forge_pyval *v = mk(a, FORGE_PY_STR);
    if (!v)
        return NULL;
    char *p = arena_strdup(a, s, n);
    if (!p)
        return NULL;
    v->u.s = p;
    v->n = n;
    return v;
}

struct forge_pyval *forge_py_strz(struct forge_arena *a, const char *s)
{
    return forge_py_str(a, s, strlen(s));
}

/* Containers keep their capacity just before the item array. */
struct forge_pyval *forge_py_list(struct forge_arena *a, size_t cap)
{
    struct forge_pyval *v = mk(a, FORGE_PY_LIST);
    if (!v)
        return NULL;
    if (cap < 4)
        cap = 4;
    size_t *p = forge_arena_alloc(a, sizeof(max_align_t) + cap * sizeof(struct forge_pyval *));
    if (!p)
        return NULL;
    p[0] = cap;
    v->u.items = (struct forge_pyval **)((char *)p + sizeof(max_align_t));
    return v;
}

struct forge_pyval *forge_py_dict(struct forge_arena *a, size_t cap)
{
    struct forge_pyval *v = mk(a, FORGE_PY_DICT);
    if (!v)
        return NULL;
    if (cap < 4)
        cap = 4;
    size_t *p = forge_arena_alloc(a, sizeof(max_align_t) + cap * sizeof(struct forge_pyitem));
    if (!p)
        return NULL;
    p[0] = cap;
    v->u.pairs = (struct forge_pyitem *)((char *)p + sizeof(max_align_t));
    return v;
}

static size_t *cap_of(void *items) { return (size_t *)((char *)items - sizeof(max_align_t)); }

static void *grow_items(struct forge_arena *a, void *items, size_t n, size_t elem)
{
    size_t cap = *cap_of(items);
    if (n < cap)
        return items;
    size_t ncap = cap * 2;
    size_t *p = forge_arena_alloc(a, sizeof(max_align_t) + ncap * elem);
    if (!p)
        return NULL;
    p[0] = ncap;
    void *nitems = (char *)p + sizeof(max_align_t);
    memcpy(nitems, items, n * elem);
    return nitems;
}

int forge_py_append(struct forge_arena *a, struct forge_pyval *list, struct forge_pyval *v)
{
    struct forge_pyval **items = grow_items(a, list->u.items, list->n, sizeof(*items));
    if (!items)
        return FORGE_ENOMEM;
    list->u.items = items;
    items[list->n++] = v;
    return 0;
}

struct forge_pyval *forge_py_get(const struct forge_pyval *dict, const char *key, size_t klen)
{
    if (!dict || dict->kind != FORGE_PY_DICT)
        return NULL;
    for (size_t i = 0; i < dict->n; i++) {
        const struct forge_pyitem *p = &dict->u.pairs[i];
        if (p->klen == klen && memcmp(p->key, key, klen) == 0)
            return p->val;
    }
    return NULL;
}

struct forge_pyval *forge_py_getz(const struct forge_pyval *dict, const char *key)
{
    return forge_py_get(dict, key, strlen(key));
}

int forge_py_set(struct forge_arena *a, struct forge_pyval *dict, const char *key, size_t klen,
                 struct forge_pyval *v)
{
    for (size_t i = 0; i < dict->n; i++) {
        struct forge_pyitem *p = &dict->u.pairs[i];
        if (p->klen == klen && (klen == 0 || p->key[0] == key[0]) && memcmp(p->key, key, klen) == 0) {
            p->val = v;
            return 0;
        }
    }
    struct forge_pyitem *pairs = grow_items(a, dict->u.pairs, dict->n, sizeof(*pairs));
    if (!pairs)
        return FORGE_ENOMEM;
    dict->u.pairs = pairs;
    pairs[dict->n].key = key;
    pairs[dict->n].val = v;
    pairs[dict->n].klen = klen;
    dict->n++;
    return 0;
}

bool forge_py_is_strz(const struct forge_pyval *v, const char *s)
{
    size_t n = strlen(s);
    return v && v->kind == FORGE_PY_STR && v->n == n && memcmp(v->u.s, s, n) == 0;
}

/* ---- equality ---- */

static bool is_num(const struct forge_pyval *v)
{
    return v->kind == FORGE_PY_BOOL || v->kind == FORGE_PY_INT || v->kind == FORGE_PY_BIGINT ||
           v->kind == FORGE_PY_FLOAT;
}

/* Python compares int and float exactly. */
static bool int_eq_float(long long i, double f)
{
    if (!isfinite(f) || f != floor(f))
        return false;
    if (f < -9223372036854775808.0 || f >= 9223372036854775808.0)
        return false;
    return (long long)f == i;
}

static bool num_eq(const struct forge_pyval *a, const struct forge_pyval *b)
{
    if (a->kind == FORGE_PY_BIGINT || b->kind == FORGE_PY_BIGINT) {
        if (a->kind == FORGE_PY_BIGINT && b->kind == FORGE_PY_BIGINT)
            return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
        const struct forge_pyval *big = a->kind == FORGE_PY_BIGINT ? a : b;
        const struct forge_pyval *o = big == a ? b : a;
        if (o->kind != FORGE_PY_FLOAT)
            return false; /* a bigint is outside long long by construction */
        return strtod(big->u.s, NULL) == o->u.f; /* close enough: such numbers do not occur in BFCL data */
    }
    if (a->kind == FORGE_PY_FLOAT && b->kind == FORGE_PY_FLOAT)
        return a->u.f == b->u.f;
    long long ia = 0, ib = 0;
    if (a->kind == FORGE_PY_FLOAT || b->kind == FORGE_PY_FLOAT) {
        const struct forge_pyval *f = a->kind == FORGE_PY_FLOAT ? a : b;
        const struct forge_pyval *o = f == a ? b : a;
        long long io = o->kind == FORGE_PY_BOOL ? (long long)o->u.b : o->u.i;
        return int_eq_float(io, f->u.f);
    }
    ia = a->kind == FORGE_PY_BOOL ? (long long)a->u.b : a->u.i;
    ib = b->kind == FORGE_PY_BOOL ? (long long)b->u.b : b->u.i;
    return ia == ib;
}

bool forge_py_eq(const struct forge_pyval *a, const struct forge_pyval *b)
{
    if (a == b)
        return true; /* identity, as Python's containers compare */
    if (is_num(a) && is_num(b))
        return num_eq(a, b);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FORGE_PY_NONE: return true;
    case FORGE_PY_STR: return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
    case FORGE_PY_LIST:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if (!forge_py_eq(a->u.items[i], b->u.items[i]))
                return false;
        return true;
    case FORGE_PY_DICT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++) {
            const struct forge_pyitem *p = &a->u.pairs[i];
            const struct forge_pyval *o = forge_py_get(b, p->key, p->klen);
            if (!o || !forge_py_eq(p->val, o))
                return false;
        }
        return true;
    default: return false;
    }
}

bool forge_py_in(const struct forge_pyval *x, const struct forge_pyval *seq)
{
    if (!seq || seq->kind != FORGE_PY_LIST)
        return false;
    for (size_t i = 0; i < seq->n; i++)
        if (forge_py_eq(x, seq->u.items[i]))
            return true;
    return false;
}

const char *forge_py_type_name(const struct forge_pyval *v)
{
    switch (v->kind) {
    case FORGE_PY_NONE: return "NoneType";
    case FORGE_PY_BOOL: return "bool";
    case FORGE_PY_INT:
    case FORGE_PY_BIGINT: return "int";
    case FORGE_PY_FLOAT: return "float";
    case FORGE_PY_STR: return "str";
    case FORGE_PY_LIST: return "list";
    case FORGE_PY_DICT: return "dict";
    case FORGE_PY_RAW: return "str";
    }
    return "object";
}

/* ---- output ---- */

/* Index of the first byte in s[i..n) that is '"', '\\' or below 0x20 (n when none), 16 bytes
 * at a time with SSE2, else 8 at a time. */
static size_t scan_plain(const char *s, size_t i, size_t n)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    while (i + 16 <= n) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, bslash)),
                                   _mm_cmpeq_epi8(_mm_min_epu8(w, ctl), w));
        int mask = _mm_movemask_epi8(hit);
        if (mask)
            return i + (size_t)__builtin_ctz((unsigned)mask);
        i += 16;
    }
#else
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
        if (hit & highs)
            break;
        i += 8;
    }
#endif
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c < 0x20)
            return i;
        i++;
    }
    return n;
}

/* Decodes one UTF-8 sequence at s[*i] (lenient: a bad byte stands for itself). */
static uint32_t next_cp(const char *s, size_t n, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned char c = u[*i];
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (len == 1 || *i + (size_t)len > n) {
        (*i)++;
        return c;
    }
    uint32_t cp = c & (0x3F >> (len - 1));
    for (int k = 1; k < len; k++) {
        if ((u[*i + k] & 0xC0) != 0x80) {
            (*i)++;
            return c;
        }
        cp = (cp << 6) | (u[*i + k] & 0x3F);
    }
    *i += len;
    return cp;
}

/* str.isprintable() for one code point. Exact for ASCII and Latin-1; elsewhere it knows the
 * separators, format characters, surrogates and private-use areas that matter in practice. */
static bool printable(uint32_t c)
{
    if (c < 0x20 || c == 0x7F)
        return false;
    if (c < 0x7F)
        return true;
    if (c < 0xA0 || c == 0xAD)
        return false;
    if (c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
        (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0xFEFF || c == 0x061C ||
        c == 0x180E || (c >= 0xFFF0 && c <= 0xFFFB))
        return false;
    if ((c >= 0xD800 && c <= 0xF8FF) || c >= 0xF0000 || c == 0xFFFE || c == 0xFFFF)
        return false;
    if (c >= 0xE0000 && c <= 0xE0FFF)
        return false;
    return true;
}

static int repr_str(struct forge_buf *b, const char *s, size_t n)
{
    bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
    char q = (sq && !dq) ? '"' : '\'';
    int rc = forge_buf_addc(b, q);
    size_t i = 0;
    while (!rc && i < n) {
        size_t start = i;
        uint32_t c = next_cp(s, n, &i);
        if (c == (uint32_t)q || c == '\\') {
            char e[2] = {'\\', (char)c};
            rc = forge_buf_add(b, e, 2);
        } else if (c == '\t') {
            rc = forge_buf_adds(b, "\\t");
        } else if (c == '\n') {
            rc = forge_buf_adds(b, "\\n");
        } else if (c == '\r') {
            rc = forge_buf_adds(b, "\\r");
        } else if (printable(c)) {
            rc = forge_buf_add(b, s + start, i - start);
        } else if (c < 0x100) {
            rc = forge_buf_addf(b, "\\x%02x", c);
        } else if (c < 0x10000) {
            rc = forge_buf_addf(b, "\\u%04x", c);
        } else {
            rc = forge_buf_addf(b, "\\U%08x", c);
        }
    }
    if (!rc)
        rc = forge_buf_addc(b, q);
    return rc;
}

char *forge_py_float_repr(double d, char *out)
{
    if (isnan(d)) {
        strcpy(out, "nan");
        return out;
    }
    if (isinf(d)) {
        strcpy(out, d < 0 ? "-inf" : "inf");
        return out;
    }
    char tmp[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    /* tmp: [-]D[.DDD]e[+-]XX */
    char digits[24];
    int nd = 0;
    const char *p = tmp;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    char *o = out;
    if (neg)
        *o++ = '-';
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int k = 0; k < -exp - 1; k++)
                *o++ = '0';
            for (int k = 0; k < nd; k++)
                *o++ = digits[k];
        } else {
            for (int k = 0; k <= exp; k++)
                *o++ = k < nd ? digits[k] : '0';
            *o++ = '.';
            if (nd > exp + 1)
                for (int k = exp + 1; k < nd; k++)
                    *o++ = digits[k];
            else
                *o++ = '0';
        }
        *o = '\0';
        return out;
    }
    o = out + (neg ? 1 : 0);
    *o++ = digits[0];
    if (nd > 1) {
        *o++ = '.';
        for (int k = 1; k < nd; k++)
            *o++ = digits[k];
    }
    sprintf(o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out;
}

static int out_val(struct forge_buf *b, const struct forge_pyval *v)
{
    char tmp[40];
    int rc = 0;
    switch (v->kind) {
    case FORGE_PY_NONE: return forge_buf_adds(b, "None");
    case FORGE_PY_BOOL: return forge_buf_adds(b, v->u.b ? "True" : "False");
    case FORGE_PY_INT: return forge_buf_addf(b, "%lld", v->u.i);
    case FORGE_PY_BIGINT: return forge_buf_add(b, v->u.s, v->n);
    case FORGE_PY_FLOAT: return forge_buf_adds(b, forge_py_float_repr(v->u.f, tmp));
    case FORGE_PY_STR: return repr_str(b, v->u.s, v->n);
    case FORGE_PY_RAW: return forge_buf_add(b, v->u.s, v->n);
    case FORGE_PY_LIST:
        rc = forge_buf_addc(b, '[');
        for (size_t i = 0; !rc && i < v->n; i++) {
            if (i)
                rc = forge_buf_add(b, ", ", 2);
            if (!rc)
                rc = out_val(b, v->u.items[i]);
        }
        return rc ? rc : forge_buf_addc(b, ']');
    case FORGE_PY_DICT:
        rc = forge_buf_addc(b, '{');
        for (size_t i = 0; !rc && i < v->n; i++) {
            const struct forge_pyitem *p = &v->u.pairs[i];
            if (i)
                rc = forge_buf_add(b, ", ", 2);
            if (!rc)
                rc = repr_str(b, p->key, p->klen);
            if (!rc)
                rc = forge_buf_add(b, ": ", 2);
            if (!rc)
                rc = out_val(b, p->val);
        }
        return rc ? rc : forge_buf_addc(b, '}');
    }
    return 0;
}

int forge_py_repr(struct forge_buf *b, const struct forge_pyval *v) { return out_val(b, v); }

int forge_py_str_of(struct forge_buf *b, const struct forge_pyval *v)
{
    if (v->kind == FORGE_PY_STR)
        return forge_buf_add(b, v->u.s, v->n);
    return out_val(b, v);
}

/* json.dumps writes straight into the buffer's storage: score files are megabytes of it. */
static int reserve(struct forge_buf *b, size_t extra)
{
    if (b->data && b->len + extra + 1 <= b->cap)
        return 0;
    if (extra > b->limit - b->len)
        return FORGE_ELIMIT;
    size_t need = b->len + extra + 1, cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = forge_realloc(b->data, cap);
    if (!p)
        return FORGE_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

static int put(struct forge_buf *b, const char *s, size_t n)
{
    int rc = reserve(b, n);
    if (rc)
        return rc;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static int dump_str(struct forge_buf *b, const char *s, size_t n)
{
    if (n > SIZE_MAX / 8)
        return FORGE_ELIMIT;
    int rc = reserve(b, n * 6 + 2);
    if (rc)
        return rc;
    char *o = b->data + b->len;
    *o++ = '"';
    size_t run = 0;
    for (size_t i = scan_plain(s, 0, n); i < n; i = scan_plain(s, i + 1, n)) {
        memcpy(o, s + run, i - run);
        o += i - run;
        unsigned char c = (unsigned char)s[i];
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = "0123456789abcdef"[c >> 4];
            *o++ = "0123456789abcdef"[c & 15];
        }
        run = i + 1;
    }
    memcpy(o, s + run, n - run);
    o += n - run;
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    return 0;
}

static int dump(struct forge_buf *b, const struct forge_pyval *v)
{
    char tmp[40];
    int rc = 0;
    switch (v->kind) {
    case FORGE_PY_NONE: return put(b, "null", 4);
    case FORGE_PY_BOOL: return v->u.b ? put(b, "true", 4) : put(b, "false", 5);
    case FORGE_PY_INT: {
        unsigned long long u = v->u.i < 0 ? 0ull - (unsigned long long)v->u.i : (unsigned long long)v->u.i;
        char *e = tmp + sizeof tmp, *p = e;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v->u.i < 0)
            *--p = '-';
        return put(b, p, (size_t)(e - p));
    }
    case FORGE_PY_BIGINT:
    case FORGE_PY_RAW: return put(b, v->u.s, v->n);
    case FORGE_PY_FLOAT:
        if (!isfinite(v->u.f)) {
            const char *t = isnan(v->u.f) ? "NaN" : v->u.f < 0 ? "-Infinity" : "Infinity";
            return put(b, t, strlen(t));
        }
        forge_py_float_repr(v->u.f, tmp);
        return put(b, tmp, strlen(tmp));
    case FORGE_PY_STR: return dump_str(b, v->u.s, v->n);
    case FORGE_PY_LIST:
        rc = put(b, "[", 1);
        for (size_t i = 0; !rc && i < v->n; i++) {
            if (i)
                rc = put(b, ", ", 2);
            if (!rc)
                rc = dump(b, v->u.items[i]);
        }
        return rc ? rc : put(b, "]", 1);
    case FORGE_PY_DICT:
        rc = put(b, "{", 1);
        for (size_t i = 0; !rc && i < v->n; i++) {
            const struct forge_pyitem *p = &v->u.pairs[i];
            if (i)
                rc = put(b, ", ", 2);
            if (!rc)
                rc = dump_str(b, p->key, p->klen);
            if (!rc)
                rc = put(b, ": ", 2);
            if (!rc)
                rc = dump(b, p->val);
        }
        return rc ? rc : put(b, "}", 1);
    }
    return 0;
}

int forge_py_dumps(struct forge_buf *b, const struct forge_pyval *v)
{
    int rc = dump(b, v);
    if (b->data)
        b->data[b->len] = '\0';
    return rc;
}

/* ---- json.loads ---- */

struct jp {
    struct forge_arena *a;
    const char *s;
    size_t n;
    size_t err_pos;
    const char *err_what;
    int depth;
    int rc;
    bool inplace;
    bool canon; /* the text is exactly what json.dumps(value, ensure_ascii=False) writes */
};



#define JP_MAX_DEPTH 990

static bool jws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_ws(const struct jp *p, size_t i)
{
    while (i < p->n && jws(p->s[i]))
        i++;
    return i;
}

/* skip_ws where json.dumps writes nothing */
static size_t no_ws(struct jp *p, size_t i)
{
    size_t j = skip_ws(p, i);
    if (j != i)
        p->canon = false;
    return j;
}

/* skip_ws where json.dumps writes one space (after ',' and ':') */
static size_t one_sp(struct jp *p, size_t i)
{
    size_t j = skip_ws(p, i);
    if (j != i + 1 || p->s[i] != ' ')
        p->canon = false;
    return j;
}

static struct forge_pyval *fail(struct jp *p, const char *what, size_t pos)
{
    if (!p->rc) {
        p->rc = FORGE_EINVAL;
        p->err_what = what;
        p->err_pos = pos;
    }
    return NULL;
}

static struct forge_pyval *nomem(struct jp *p)
{
    p->rc = FORGE_ENOMEM;
    p->err_what = "out of memory";
    p->err_pos = 0;
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int hex4(const char *s)
{
    int v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(s[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Parses the string whose opening quote is at s[q]; *end gets the index after the closing quote.
 * Returns the bytes in the arena (NUL-terminated) and their length in *len. */
static char *jstring(struct jp *p, size_t q, size_t *end, size_t *len)
{
    const char *s = p->s;
    size_t i = q + 1;
    size_t j = scan_plain(s, i, p->n);
    if (j >= p->n) {
        fail(p, "Unterminated string starting at", q);
        return NULL;
    }
    if (s[j] == '"') {
        if (p->inplace) {
            ((char *)s)[j] = '\0';
            *len = j - i;
            *end = j + 1;
            return (char *)s + i;
        }
        char *o = arena_strdup(p->a, s + i, j - i);
        if (!o) {
            nomem(p);
            return NULL;
        }
        *len = j - i;
        *end = j + 1;
        return o;
    }
    /* slow path: escapes; the output is never longer than the input */
    char *o = forge_arena_alloc(p->a, p->n - i + 1);
    if (!o) {
        nomem(p);
        return NULL;
    }
    size_t k = 0;
    while (1) {
        if (i >= p->n) {
            fail(p, "Unterminated string starting at", q);
            return NULL;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            break;
        if (c < 0x20) {
            fail(p, "Invalid control character at", i);
            return NULL;
        }
        if (c != '\\') {
            o[k++] = (char)c;
            i++;
            continue;
        }
        i++;
        if (i >= p->n) {
            fail(p, "Unterminated string starting at", q);
            return NULL;
        }
        char e = s[i];
        switch (e) {
        case '"': o[k++] = '"'; i++; continue;
        case '\\': o[k++] = '\\'; i++; continue;
        case '/': o[k++] = '/'; i++; p->canon = false; continue;
        case 'b': o[k++] = '\b'; i++; continue;
        case 'f': o[k++] = '\f'; i++; continue;
        case 'n': o[k++] = '\n'; i++; continue;
        case 'r': o[k++] = '\r'; i++; continue;
        case 't': o[k++] = '\t'; i++; continue;
        case 'u': break;
        default: fail(p, "Invalid \\escape", i - 1); return NULL;
        }
        if (i + 5 > p->n || hex4(s + i + 1) < 0) {
            fail(p, "Invalid \\uXXXX escape", i);
            return NULL;
        }
        uint32_t cp = (uint32_t)hex4(s + i + 1);
        if (cp >= 0x20 || cp == 8 || cp == 9 || cp == 10 || cp == 12 || cp == 13 ||
            (s[i + 3] >= 'A' && s[i + 3] <= 'F') || (s[i + 4] >= 'A' && s[i + 4] <= 'F'))
            p->canon = false; /* json.dumps writes these characters as themselves or shorter */
        i += 5;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= p->n && s[i] == '\\' && s[i + 1] == 'u') {
            int lo = hex4(s + i + 2);
            if (lo < 0) {
                fail(p, "Invalid \\uXXXX escape", i + 1);
                return NULL;
            }
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                i += 6;
            }
        }
        k += put_utf8(o + k, cp);
    }
    o[k] = '\0';
    *len = k;
    *end = i + 1;
    return o;
}

static struct forge_pyval *jvalue(struct jp *p, size_t i, size_t *end);

static struct forge_pyval *jnumber(struct jp *p, size_t i, size_t *end)
{
    const char *s = p->s;
    size_t start = i;
    if (i < p->n && s[i] == '-') {
        i++;
        if (i >= p->n)
            return fail(p, "Expecting value", start);
    }
    if (i < p->n && s[i] >= '1' && s[i] <= '9') {
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else if (i < p->n && s[i] == '0') {
        i++;
    } else {
        return fail(p, "Expecting value", start);
    }
    bool is_float = false;
    if (i + 1 < p->n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
        is_float = true;
        i += 2;
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = i++;
        if (i < p->n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i > d)
            is_float = true;
        else
            i = e;
    }
    *end = i;
    char buf[64];
    char *tmp = buf;
    size_t len = i - start;
    if (len >= sizeof buf) {
        tmp = forge_arena_alloc(p->a, len + 1);
        if (!tmp)
            return nomem(p);
    }
    memcpy(tmp, s + start, len);
    tmp[len] = '\0';
    struct forge_pyval *v;
    if (is_float) {
        v = forge_py_float(p->a, strtod(tmp, NULL));
        if (v && p->canon) {
            char r[40];
            forge_py_float_repr(v->u.f, r);
            if (!isfinite(v->u.f) || strcmp(r, tmp) != 0)
                p->canon = false;
        }
    } else {
        errno = 0;
        long long x = strtoll(tmp, NULL, 10);
        if (len == 2 && tmp[0] == '-' && tmp[1] == '0')
            p->canon = false;
        if (errno == ERANGE) {
            v = mk(p->a, FORGE_PY_BIGINT);
            if (v) {
                v->u.s = arena_strdup(p->a, tmp, len);
                v->n = len;
                if (!v->u.s)
                    v = NULL;
            }
        } else {
            v = forge_py_int(p->a, x);
        }
    }
    return v ? v : nomem(p);
}

static bool lit(const struct jp *p, size_t i, const char *w)
{
    size_t n = strlen(w);
    return i + n <= p->n && memcmp(p->s + i, w, n) == 0;
}

static struct forge_pyval *jobject(struct jp *p, size_t i, size_t *end)
{
    struct forge_pyval *d = forge_py_dict(p->a, 4);
    if (!d)
        return nomem(p);
    i = no_ws(p, i);
    if (i < p->n && p->s[i] == '}') {
        *end = i + 1;
        return d;
    }
    while (1) {
        if (i >= p->n || p->s[i] != '"')
            return fail(p, "Expecting property name enclosed in double quotes", i);
        size_t klen, kend;
        char *key = jstring(p, i, &kend, &klen);
        if (!key)
            return NULL;
        i = no_ws(p, kend);
        if (i >= p->n || p->s[i] != ':')
            return fail(p, "Expecting ':' delimiter", i);
        i = one_sp(p, i + 1);
        size_t vend;
        struct forge_pyval *v = jvalue(p, i, &vend);
        if (!v)
            return NULL;
        size_t before = d->n;
        if (forge_py_set(p->a, d, key, klen, v))
            return nomem(p);
        if (d->n == before)
            p->canon = false; /* a repeated key */
        i = no_ws(p, vend);
        if (i < p->n && p->s[i] == '}') {
            *end = i + 1;
            return d;
        }
        if (i >= p->n || p->s[i] != ',')
            return fail(p, "Expecting ',' delimiter", i);
        i = one_sp(p, i + 1);
    }
}

static struct forge_pyval *jarray(struct jp *p, size_t i, size_t *end)
{
    struct forge_pyval *l = forge_py_list(p->a, 4);
    if (!l)
        return nomem(p);
    i = no_ws(p, i);
    if (i < p->n && p->s[i] == ']') {
        *end = i + 1;
        return l;
    }
    while (1) {
        size_t vend;
        struct forge_pyval *v = jvalue(p, i, &vend);
        if (!v)
            return NULL;
        if (forge_py_append(p->a, l, v))
            return nomem(p);
        i = no_ws(p, vend);
        if (i < p->n && p->s[i] == ']') {
            *end = i + 1;
            return l;
        }
        if (i >= p->n || p->s[i] != ',')
            return fail(p, "Expecting ',' delimiter", i);
        i = one_sp(p, i + 1);
    }
}

static struct forge_pyval *jvalue(struct jp *p, size_t i, size_t *end)
{
    if (i >= p->n)
        return fail(p, "Expecting value", i);
    struct forge_pyval *v = NULL;
    switch (p->s[i]) {
    case '"': {
        size_t len;
        char *s = jstring(p, i, end, &len);
        if (!s)
            return NULL;
        v = len <= UINT32_MAX ? mk(p->a, FORGE_PY_STR) : NULL;
        if (!v)
            return nomem(p);
        v->u.s = s;
        v->n = (uint32_t)len;
        return v;
    }
    case '{':
    case '[':
        if (++p->depth > JP_MAX_DEPTH)
            return fail(p, "maximum recursion depth exceeded while decoding a JSON document", i);
        v = p->s[i] == '{' ? jobject(p, i + 1, end) : jarray(p, i + 1, end);
        p->depth--;
        return v;
    case 'n':
        if (lit(p, i, "null")) {
            *end = i + 4;
            return (v = forge_py_none(p->a)) ? v : nomem(p);
        }
        break;
    case 't':
        if (lit(p, i, "true")) {
            *end = i + 4;
            return (v = forge_py_bool(p->a, true)) ? v : nomem(p);
        }
        break;
    case 'f':
        if (lit(p, i, "false")) {
            *end = i + 5;
            return (v = forge_py_bool(p->a, false)) ? v : nomem(p);
        }
        break;
    case 'N':
        if (lit(p, i, "NaN")) {
            *end = i + 3;
            return (v = forge_py_float(p->a, NAN)) ? v : nomem(p);
        }
        break;
    case 'I':
        if (lit(p, i, "Infinity")) {
            *end = i + 8;
            return (v = forge_py_float(p->a, INFINITY)) ? v : nomem(p);
        }
        break;
    case '-':
        if (lit(p, i, "-Infinity")) {
            *end = i + 9;
            return (v = forge_py_float(p->a, -INFINITY)) ? v : nomem(p);
        }
        break;
    }
    return jnumber(p, i, end);
}

static size_t cps(const char *s, size_t from, size_t to)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

static int loads(struct forge_arena *a, const char *text, size_t len, bool inplace,
                 struct forge_pyval **out, bool *canonical, char *msg, size_t msgsize)
{
    struct jp p = {a, text, len, 0, NULL, 0, 0, inplace, true};
    *out = NULL;
    struct forge_pyval *v = NULL;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        fail(&p, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    } else {
        size_t end;
        v = jvalue(&p, no_ws(&p, 0), &end);
        if (v) {
            end = no_ws(&p, end);
            if (end != len) {
                v = NULL;
                fail(&p, "Extra data", end);
            }
        }
    }
    if (!v) {
        if (p.rc == FORGE_ENOMEM) {
            snprintf(msg, msgsize, "out of memory while decoding JSON");
            return FORGE_ENOMEM;
        }
        size_t pos = p.err_pos, lastnl = SIZE_MAX, lines = 0;
        for (size_t i = 0; i < pos && i < len; i++)
            if (text[i] == '\n') {
                lines++;
                lastnl = i;
            }
        size_t cpos = cps(text, 0, pos);
        size_t col = lastnl == SIZE_MAX ? cpos + 1 : cpos - cps(text, 0, lastnl);
        snprintf(msg, msgsize, "%s: line %zu column %zu (char %zu)", p.err_what, lines + 1, col, cpos);
        return FORGE_EINVAL;
    }
    *out = v;
    if (canonical)
        *canonical = p.canon;
    return 0;
}

int forge_py_loads(struct forge_arena *a, const char *text, size_t len, struct forge_pyval **out,
                   char *msg, size_t msgsize)
{
    return loads(a, text, len, false, out, NULL, msg, msgsize);
}

int forge_py_loads_inplace(struct forge_arena *a, char *text, size_t len, struct forge_pyval **out,
                           bool *canonical, char *msg, size_t msgsize)
{
    return loads(a, text, len, true, out, canonical, msg, msgsize);
}

/* ---- int() and float() ---- */

static bool py_space(unsigned char c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
}

/* Strips whitespace and copies the digits, dropping single underscores between digits. Returns
 * false when underscores are misplaced. */
static bool strip_digits(const char *s, size_t n, size_t *b, size_t *e)
{
    size_t i = 0;
    while (i < n && py_space((unsigned char)s[i]))
        i++;
    while (n > i && py_space((unsigned char)s[n - 1]))
        n--;
    *b = i;
    *e = n;
    return i < n;
}

int forge_py_parse_int(struct forge_arena *a, const char *s, size_t n, struct forge_pyval **out)
{
    size_t b, e;
    if (!strip_digits(s, n, &b, &e))
        return -1;
    char buf[128];
    size_t k = 0;
    size_t i = b;
    if (s[i] == '+' || s[i] == '-') {
        if (s[i] == '-')
            buf[k++] = '-';
        i++;
    }
    if (i >= e)
        return -1;
    bool prev_digit = false;
    for (; i < e; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (k >= sizeof buf - 1)
                return -1;
            buf[k++] = c;
            prev_digit = true;
        } else if (c == '_' && prev_digit && i + 1 < e && s[i + 1] >= '0' && s[i + 1] <= '9') {
            prev_digit = false;
        } else {
            return -1;
        }
    }
    buf[k] = '\0';
    /* drop leading zeros for the bigint spelling */
    errno = 0;
    long long x = strtoll(buf, NULL, 10);
    if (errno == ERANGE) {
        char *d = buf[0] == '-' ? buf + 1 : buf;
        while (d[0] == '0' && d[1])
            memmove(d, d + 1, strlen(d));
        struct forge_pyval *v = mk(a, FORGE_PY_BIGINT);
        if (!v)
            return -1;
        v->n = strlen(buf);
        v->u.s = arena_strdup(a, buf, v->n);
        if (!v->u.s)
            return -1;
        *out = v;
        return 0;
    }
    *out = forge_py_int(a, x);
    return *out ? 0 : -1;
}

int forge_py_parse_float(const char *s, size_t n, double *out)
{
    size_t b, e;
    if (!strip_digits(s, n, &b, &e))
        return -1;
    char buf[512];
    size_t k = 0;
    size_t i = b;
    bool neg = false;
    if (s[i] == '+' || s[i] == '-') {
        neg = s[i] == '-';
        i++;
    }
    size_t rest = e - i;
    const char *r = s + i;
    static const char *const specials[] = {"inf", "infinity", "nan"};
    for (int t = 0; t < 3; t++) {
        size_t sl = strlen(specials[t]);
        if (rest == sl && strncasecmp(r, specials[t], sl) == 0) {
            double v = t == 2 ? NAN : INFINITY;
            *out = neg ? -v : v;
            return 0;
        }
    }
    /* digits [. digits] [e [sign] digits], underscores only between digits */
    bool any = false, prev_digit = false;
    bool seen_dot = false, seen_e = false;
    for (size_t j = i; j < e; j++) {
        char c = s[j];
        if (k >= sizeof buf - 2)
            return -1;
        if (c >= '0' && c <= '9') {
            buf[k++] = c;
            prev_digit = true;
            any = true;
        } else if (c == '_') {
            if (!prev_digit || j + 1 >= e || s[j + 1] < '0' || s[j + 1] > '9')
                return -1;
            prev_digit = false;
        } else if (c == '.' && !seen_dot && !seen_e) {
            seen_dot = true;
            buf[k++] = c;
            prev_digit = false;
        } else if ((c == 'e' || c == 'E') && !seen_e && any) {
            seen_e = true;
            buf[k++] = 'e';
            prev_digit = false;
            if (j + 1 < e && (s[j + 1] == '+' || s[j + 1] == '-'))
                buf[k++] = s[++j];
            if (j + 1 >= e)
                return -1;
        } else {
            return -1;
        }
    }
    if (!any)
        return -1;
    buf[k] = '\0';
    char *endp;
    double v = strtod(buf, &endp);
    if (*endp)
        return -1;
    *out = neg ? -v : v;
    return 0;
}
