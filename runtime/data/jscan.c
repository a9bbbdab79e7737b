/* The in-place JSON scanner of streamed events (jscan.h). Strings, most of an event's bytes,
 * are searched 16 bytes at a time (SSE2 when the compiler has it) for the bytes that need a
 * look: the quote, the backslash, NUL and non-ASCII bytes; UTF-8 is checked there, so no
 * separate pass over the text is needed. */
#include "data/jscan.h"
#include "data/json.h"
#include "data/utf8.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static int fail(struct forge_jscan *j)
{
    j->failed = 1;
    j->p = j->end;
    return -1;
}

static inline void ws(struct forge_jscan *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

void forge_jscan_init(struct forge_jscan *j, const char *text, size_t len)
{
    memset(j, 0, sizeof *j);
    j->p = text;
    j->end = text + len;
}

int forge_json_hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* Reads the escape at <p> (its backslash); returns its length, or 0 when it is not one this
 * scanner accepts. Sets *cp to the code point of a \u escape (pairs combined), else to the byte. */
static size_t escape(const char *p, const char *end, unsigned *cp)
{
    if (end - p < 2)
        return 0;
    switch (p[1]) {
    case '"': *cp = '"'; return 2;
    case '\\': *cp = '\\'; return 2;
    case '/': *cp = '/'; return 2;
    case 'b': *cp = '\b'; return 2;
    case 'f': *cp = '\f'; return 2;
    case 'n': *cp = '\n'; return 2;
    case 'r': *cp = '\r'; return 2;
    case 't': *cp = '\t'; return 2;
    case 'u': break;
    default: return 0;
    }
    int h = end - p < 6 ? -1 : forge_json_hex4(p + 2), l;
    if (h <= 0 || (h >= 0xDC00 && h <= 0xDFFF))
        return 0;
    unsigned hi = (unsigned)h, lo;
    if (hi < 0xD800 || hi > 0xDBFF) {
        *cp = hi;
        return 6;
    }
    if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || (l = forge_json_hex4(p + 8)) < 0xDC00 || l > 0xDFFF)
        return 0;
    lo = (unsigned)l;
    *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    return 12;
}

/* The string token at j->p (its opening quote). */
static int string_at(struct forge_jscan *j, struct forge_jstr *v)
{
    const char *p = j->p + 1, *end = j->end;
    v->s = p;
    v->esc = 0;
    for (;;) {
#ifdef __SSE2__
        /* signed bytes below 0x20: the control characters and every non-ASCII byte */
        const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
        while (end - p >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bs)),
                                       _mm_cmplt_epi8(x, space));
            int m = _mm_movemask_epi8(hit);
            if (m) {
                p += __builtin_ctz((unsigned)m);
                break;
            }
            p += 16;
        }
#endif
        if (p >= end)
            return fail(j);
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            unsigned cp;
            size_t n = escape(p, end, &cp);
            if (!n)
                return fail(j);
            p += n;
            v->esc = 1;
        } else if (c >= 0x80) {
            unsigned cp;
            int n = forge_utf8_decode(p, (size_t)(end - p), &cp);
            if (!n)
                return fail(j);
            p += n;
        } else if (c == 0 || (j->no_breaks && (c == '\n' || c == '\r'))) {
            return fail(j);
        } else {
            p++;
        }
    }
    v->n = (size_t)(p - v->s);
    j->p = p + 1;
    j->values++;
    return 0;
}

int forge_jscan_peek(struct forge_jscan *j)
{
    ws(j);
    return j->p < j->end ? (unsigned char)*j->p : 0;
}

int forge_jscan_open(struct forge_jscan *j, char c)
{
    ws(j);
    if (j->failed || j->p >= j->end || *j->p != c || j->depth >= FORGE_JSCAN_DEPTH)
        return fail(j);
    j->p++;
    if (c == '[')
        j->kinds |= 1ul << j->depth;
    else
        j->kinds &= ~(1ul << j->depth);
    j->depth++;
    j->first = 1;
    j->values++;
    return 0;
}

static int close_container(struct forge_jscan *j)
{
    j->p++;
    j->depth--;
    j->first = 0;
    return 0;
}

int forge_jscan_key(struct forge_jscan *j, struct forge_jstr *k)
{
    ws(j);
    if (j->failed || j->p >= j->end)
        return fail(j);
    if (*j->p == '}')
        return close_container(j);
    if (!j->first) {
        if (*j->p != ',')
            return fail(j);
        j->p++;
        ws(j);
        if (j->p >= j->end)
            return fail(j);
    }
    if (*j->p != '"' || string_at(j, k) || k->esc)
        return fail(j);
    j->values--; /* a key is not a value */
    ws(j);
    if (j->p >= j->end || *j->p != ':')
        return fail(j);
    j->p++;
    j->first = 0;
    return 1;
}

int forge_jscan_item(struct forge_jscan *j)
{
    ws(j);
    if (j->failed || j->p >= j->end)
        return fail(j);
    if (*j->p == ']')
        return close_container(j);
    if (j->first) {
        j->first = 0;
        return 1;
    }
    if (*j->p != ',')
        return fail(j);
    j->p++;
    return 1;
}

int forge_jscan_string(struct forge_jscan *j, struct forge_jstr *v)
{
    ws(j);
    if (j->failed || j->p >= j->end || *j->p != '"')
        return fail(j);
    return string_at(j, v);
}

static int literal(struct forge_jscan *j, const char *lit, size_t n)
{
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
        return fail(j);
    j->p += n;
    j->values++;
    return 0;
}

int forge_jscan_null(struct forge_jscan *j)
{
    ws(j);
    return j->failed ? -1 : literal(j, "null", 4);
}

static int digit(const char *p, const char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

int forge_jscan_int(struct forge_jscan *j, long *v)
{
    ws(j);
    const char *p = j->p, *end = j->end;
    if (j->failed || !digit(p, end))
        return fail(j);
    long x = 0;
    int n = 0;
    if (*p == '0') {
        p++;
    } else {
        while (digit(p, end) && n < 9) {
            x = x * 10 + (*p++ - '0');
            n++;
        }
    }
    if (digit(p, end) || (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
        return fail(j);
    *v = x;
    j->p = p;
    j->values++;
    return 0;
}

static int number(struct forge_jscan *j)
{
    const char *s = j->p, *p = s, *end = j->end;
    if (*p == '-')
        p++;
    if (!digit(p, end))
        return fail(j);
    if (*p == '0')
        p++;
    else
        while (digit(p, end))
            p++;
    if (p < end && *p == '.') {
        p++;
        if (!digit(p, end))
            return fail(j);
        while (digit(p, end))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!digit(p, end))
            return fail(j);
        while (digit(p, end))
            p++;
    }
    /* cJSON reads a number through a 64-byte buffer: longer ones are left to it */
    if (p - s > 40)
        return fail(j);
    j->p = p;
    j->values++;
    return 0;
}

int forge_jscan_leave(struct forge_jscan *j)
{
    struct forge_jstr k;
    int r, depth = j->depth;
    if (j->failed || depth == 0)
        return fail(j);
    /* which container this is: an object's members come as keys */
    int array = (j->kinds >> (depth - 1)) & 1;
    if (array) {
        while ((r = forge_jscan_item(j)) == 1)
            if (forge_jscan_skip(j))
                return -1;
    } else {
        while ((r = forge_jscan_key(j, &k)) == 1)
            if (forge_jscan_skip(j))
                return -1;
    }
    return r;
}

int forge_jscan_skip(struct forge_jscan *j)
{
    struct forge_jstr s;
    int c = forge_jscan_peek(j);
    if (j->failed)
        return -1;
    switch (c) {
    case '{':
    case '[':
        if (forge_jscan_open(j, (char)c))
            return -1;
        return forge_jscan_leave(j);
    case '"':
        return string_at(j, &s);
    case 't':
        return literal(j, "true", 4);
    case 'f':
        return literal(j, "false", 5);
    case 'n':
        return literal(j, "null", 4);
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return number(j);
        return fail(j);
    }
}

int forge_jscan_end(struct forge_jscan *j)
{
    ws(j);
    if (j->failed || j->depth || j->p != j->end || j->values > forge_json_node_limit())
        return fail(j);
    return 0;
}

int forge_jstr_scan(const char *s, size_t n, struct forge_jstr *v)
{
    struct forge_jscan j;
    forge_jscan_init(&j, s, n);
    if (n < 2 || *s != '"' || string_at(&j, v) || j.p != j.end)
        return -1;
    return 0;
}

int forge_jstr_append(const struct forge_jstr *v, struct forge_buf *b)
{
    if (!v->esc) {
        if (b->len + v->n < b->cap && v->n <= b->limit - b->len) {
            memcpy(b->data + b->len, v->s, v->n); /* the usual piece: room already there */
            b->len += v->n;
            b->data[b->len] = '\0';
            return 0;
        }
        return v->n ? forge_buf_add(b, v->s, v->n) : 0;
    }
    const char *p = v->s, *end = v->s + v->n, *run = p;
    int rc = 0;
    while (p < end && !rc) {
        if (*p != '\\') {
            p++;
            continue;
        }
        if (p > run && (rc = forge_buf_add(b, run, (size_t)(p - run))))
            break;
        unsigned cp = 0; /* escape() sets it: the string was checked when scanned */
        size_t n = escape(p, end, &cp);
        char u[4];
        size_t k;
        if (cp < 0x80) {
            u[0] = (char)cp, k = 1;
        } else if (cp < 0x800) {
            u[0] = (char)(0xC0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
        } else if (cp < 0x10000) {
            u[0] = (char)(0xE0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
            u[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
        } else {
            u[0] = (char)(0xF0 | (cp >> 18)), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
            u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), k = 4;
        }
        rc = forge_buf_add(b, u, k);
        p += n;
        run = p;
    }
    if (!rc && p > run)
        rc = forge_buf_add(b, run, (size_t)(p - run));
    return rc;
}
