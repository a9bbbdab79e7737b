/* A faster reader of the JSON cJSON accepts: see forge_json_parse_fast in json.h.
 *
 * It builds exactly the tree cJSON 1.7's cJSON_ParseWithLengthOpts builds (same types, values,
 * keys, order, child->prev pointing at the last child), for the common form of JSON only:
 * anything it is not sure to read as cJSON does (a lone surrogate or "\u0000" escape, a number
 * outside strict JSON syntax or of 63 characters or more, a byte order mark, nesting deeper than
 * cJSON's limit, any error) makes it give up, and the caller parses with cJSON, which also words
 * the error. What it saves is cJSON's per-number copy, locale lookup and strtod (numbers of at
 * most 19 digits and a power of ten up to 22 are exact in doubles), its two passes over each
 * string, and, while the thread's line arena (data/jarena) is on, the call through cJSON's
 * allocation hooks for every node and string. */
#include "data/json.h"
#include "data/jarena.h"
#include "data/jscan.h"

#include <limits.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fp {
    const unsigned char *p, *end;
    int depth;
    bool arena;
};

static void *fp_alloc(const struct fp *f, size_t n)
{
    return f->arena ? forge_jarena_alloc_fast(n) : cJSON_malloc(n);
}

static cJSON *fp_node(const struct fp *f)
{
    cJSON *n = fp_alloc(f, sizeof *n);
    if (n)
        memset(n, 0, sizeof *n);
    return n;
}

/* cJSON skips every byte up to the space as white space. */
static void fp_ws(struct fp *f)
{
    while (f->p < f->end && *f->p <= 32)
        f->p++;
}

/* fp_string's general case: any length, escapes decoded. */
static __attribute__((noinline)) char *fp_string_any(struct fp *f)
{
    const unsigned char *s = f->p + 1, *q = s;
    bool esc = false;
    for (;;) {
        q = forge_json_quote_or_escape(q, f->end);
        if (q >= f->end)
            return NULL;
        if (*q == '"')
            break;
        esc = true;
        if (q + 1 >= f->end)
            return NULL;
        q += 2;
    }
    size_t n = (size_t)(q - s);
    char *out = fp_alloc(f, n + 1);
    if (!out)
        return NULL;
    if (!esc) {
        memcpy(out, s, n);
        out[n] = '\0';
        f->p = q + 1;
        return out;
    }
    unsigned char *o = (unsigned char *)out;
    const unsigned char *r = s;
    while (r < q) {
        if (*r != '\\') {
            *o++ = *r++;
            continue;
        }
        unsigned char c = r[1];
        switch (c) {
        case 'b': *o++ = '\b'; r += 2; continue;
        case 'f': *o++ = '\f'; r += 2; continue;
        case 'n': *o++ = '\n'; r += 2; continue;
        case 'r': *o++ = '\r'; r += 2; continue;
        case 't': *o++ = '\t'; r += 2; continue;
        case '"': case '\\': case '/': *o++ = c; r += 2; continue;
        case 'u': break;
        default: goto bad;
        }
        if (q - r < 6)
            goto bad;
        int cp = forge_json_hex4((const char *)r + 2);
        if (cp <= 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
            goto bad; /* "\u0000" cuts cJSON's string; bad digits and lone low halves */
        r += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (q - r < 6 || r[0] != '\\' || r[1] != 'u')
                goto bad;
            int lo = forge_json_hex4((const char *)r + 2);
            if (lo < 0xDC00 || lo > 0xDFFF)
                goto bad;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            r += 6;
        }
        if (cp < 0x80) {
            *o++ = (unsigned char)cp;
        } else if (cp < 0x800) {
            *o++ = (unsigned char)(0xC0 | cp >> 6);
            *o++ = (unsigned char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (unsigned char)(0xE0 | cp >> 12);
            *o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (unsigned char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (unsigned char)(0xF0 | cp >> 18);
            *o++ = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
            *o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (unsigned char)(0x80 | (cp & 0x3F));
        }
    }
    *o = '\0';
    f->p = q + 1;
    return out;
bad:
    if (!f->arena)
        cJSON_free(out);
    return NULL;
}

/* A string at f->p (the opening quote): a new NUL-terminated copy with escapes decoded, or NULL
 * to give up. The usual string, shorter than 16 bytes and without escapes, is found with one
 * 16-byte compare and copied with one 16-byte move (the block has 16 bytes: malloc's smallest
 * holds 24, the arena rounds up to 16), while the text has 16 bytes from the string's start. */
static inline char *fp_string(struct fp *f)
{
#ifdef __SSE2__
    const unsigned char *s = f->p + 1;
    if (f->end - s >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
        int m = forge_json_quote_or_escape16(x);
        if (m) {
            unsigned n = (unsigned)__builtin_ctz((unsigned)m);
            if (s[n] == '"') {
                char *out = fp_alloc(f, 16);
                if (!out)
                    return NULL;
                _mm_storeu_si128((__m128i *)(void *)out, x);
                out[n] = '\0';
                f->p = s + n + 1;
                return out;
            }
        }
    }
#endif
    return fp_string_any(f);
}

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool num_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.';
}

/* A number at f->p, as cJSON reads it (the run of number characters, through strtod). */
static bool fp_number(struct fp *f, cJSON *item)
{
    const unsigned char *s = f->p, *p = s, *e = f->end;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (p >= e || *p < '0' || *p > '9')
        return false;
    uint64_t w = 0;
    int digits = 0, exp10 = 0;
    if (*p == '0') {
        p++;
    } else {
        while (p < e && *p >= '0' && *p <= '9') {
            if (digits < 19)
                w = w * 10 + (uint64_t)(*p - '0');
            else
                exp10++;
            digits++;
            p++;
        }
    }
    if (p < e && *p == '.') {
        p++;
        if (p >= e || *p < '0' || *p > '9')
            return false;
        while (p < e && *p >= '0' && *p <= '9') {
            if (w == 0 && *p == '0') {
                exp10--; /* leading zeros of a fraction are not significant */
            } else if (digits < 19) {
                w = w * 10 + (uint64_t)(*p - '0');
                digits++;
                exp10--;
            } else {
                digits++;
            }
            p++;
        }
    }
    int x = 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        bool xneg = false;
        if (p < e && (*p == '+' || *p == '-'))
            xneg = *p++ == '-';
        if (p >= e || *p < '0' || *p > '9')
            return false;
        while (p < e && *p >= '0' && *p <= '9') {
            if (x < 100000)
                x = x * 10 + (*p - '0');
            p++;
        }
        if (xneg)
            x = -x;
    }
    size_t len = (size_t)(p - s);
    if (len >= 63 || (p < e && num_char(*p)))
        return false; /* cJSON would read a different run of characters */
    double d;
    int ex = exp10 + x;
    if (digits <= 19 && w <= ((uint64_t)1 << 53) && ex >= -22 && ex <= 22) {
        d = (double)w;
        if (ex > 0)
            d *= pow10_exact[ex];
        else if (ex < 0)
            d /= pow10_exact[-ex];
        if (neg)
            d = -d;
    } else {
        /* what cJSON does: strtod on a copy, '.' as the locale's decimal point */
        char buf[64];
        memcpy(buf, s, len);
        buf[len] = '\0';
        char point = localeconv()->decimal_point[0];
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '.')
                buf[i] = point;
        char *after;
        d = strtod(buf, &after);
        if (after != buf + len)
            return false;
    }
    item->type = cJSON_Number;
    item->valuedouble = d;
    if (d >= INT_MAX)
        item->valueint = INT_MAX;
    else if (d <= (double)INT_MIN)
        item->valueint = INT_MIN;
    else
        item->valueint = (int)d;
    f->p = p;
    return true;
}

static bool fp_list(struct fp *f, cJSON *item, bool obj);

/* The value at f->p into <item> (inline in the loop over a container's members: most values are
 * scalars, read without a call; and for the root). */
static inline __attribute__((always_inline)) bool fp_item(struct fp *f, cJSON *item)
{
    if (f->p >= f->end)
        return false;
    size_t left = (size_t)(f->end - f->p);
    switch (*f->p) {
    case '"':
        item->valuestring = fp_string(f);
        if (!item->valuestring)
            return false;
        item->type = cJSON_String;
        return true;
    case '{':
        return fp_list(f, item, true);
    case '[':
        return fp_list(f, item, false);
    case 'n':
        if (left < 4 || memcmp(f->p, "null", 4) != 0)
            return false;
        item->type = cJSON_NULL;
        f->p += 4;
        return true;
    case 't':
        if (left < 4 || memcmp(f->p, "true", 4) != 0)
            return false;
        item->type = cJSON_True;
        item->valueint = 1;
        f->p += 4;
        return true;
    case 'f':
        if (left < 5 || memcmp(f->p, "false", 5) != 0)
            return false;
        item->type = cJSON_False;
        f->p += 5;
        return true;
    default:
        return fp_number(f, item);
    }
}

/* The elements of an array or members of an object at f->p (the opening bracket). */
static bool fp_list(struct fp *f, cJSON *item, bool obj)
{
    if (f->depth >= CJSON_NESTING_LIMIT)
        return false;
    f->depth++;
    f->p++;
    fp_ws(f);
    if (f->p >= f->end)
        return false;
    item->type = obj ? cJSON_Object : cJSON_Array;
    unsigned char close = obj ? '}' : ']';
    if (*f->p == close) {
        f->p++;
        f->depth--;
        return true;
    }
    cJSON *last = NULL;
    for (;;) {
        cJSON *c = fp_node(f);
        if (!c)
            return false;
        if (last) {
            last->next = c;
            c->prev = last;
        } else {
            item->child = c;
        }
        last = c;
        item->child->prev = c;
        if (obj) {
            if (f->p >= f->end || *f->p != '"')
                return false;
            c->string = fp_string(f);
            if (!c->string)
                return false;
            if (f->p >= f->end || *f->p != ':') { /* (the colon most often follows at once) */
                fp_ws(f);
                if (f->p >= f->end || *f->p != ':')
                    return false;
            }
            f->p++;
            fp_ws(f);
        }
        if (!fp_item(f, c))
            return false;
        if (f->p >= f->end)
            return false;
        if (*f->p <= 32) { /* (as does the comma or the bracket) */
            fp_ws(f);
            if (f->p >= f->end)
                return false;
        }
        if (*f->p == ',') {
            f->p++;
            fp_ws(f);
            continue;
        }
        if (*f->p != close)
            return false;
        f->p++;
        f->depth--;
        return true;
    }
}

cJSON *forge_json_parse_fast(const char *text, size_t len, size_t *end)
{
    struct fp f = {(const unsigned char *)text, (const unsigned char *)text + len, 0,
                   forge_jarena_is_on()};
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        return NULL;
    fp_ws(&f);
    cJSON *root = fp_node(&f);
    if (!root)
        return NULL;
    if (!fp_item(&f, root)) {
        if (!f.arena)
            cJSON_Delete(root);
        return NULL;
    }
    *end = (size_t)(f.p - (const unsigned char *)text);
    return root;
}
