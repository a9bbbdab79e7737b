/* Packed trees: see jpack.h.
 *
 * A node is one tag byte and its operand: 'n' null, 't' true, 'f' false, 'd' a double (8 bytes,
 * the value cJSON's printed text parses back to), 'i' a whole number of 32 bits (4 bytes), or
 * the byte 0x80 + N alone for a whole number N from 0 to 127 (so a record is at most about twice
 * as long as the case's JSON), 's' a string (4-byte length, the bytes, a NUL),
 * 'a' an array (4-byte count, the elements), 'o' an object (4-byte count, then for each member
 * its key as a string without tag, then its value). Native byte order: the form never leaves
 * the process that wrote it. */
#include "data/jpack.h"
#include "base/err.h"
#include "data/json.h"
#include "data/utf8.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512

struct pack {
    struct forge_buf *out;
    size_t json_len;
    size_t nodes, node_limit;
    int rc;
};

/* cJSON 1.7's test that "%1.15g" printed a number closely enough. */
static int close_enough(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= m * DBL_EPSILON;
}

/* The number cJSON's printer writes for <v>, read back as its parser reads it; *len is the
 * printed text's length. Returns -1 for NaN and infinities (printed "null"). */
static int printed_number(const cJSON *v, double *out, size_t *len)
{
    double d = v->valuedouble;
    if (isnan(d) || isinf(d))
        return -1;
    if (fabs(d) < 1e15 && d == floor(d)) { /* "%1.15g" writes all its digits: the same value */
        unsigned long long u = (unsigned long long)fabs(d);
        size_t n = signbit(d) ? 2 : 1;
        while (u >= 10) {
            u /= 10;
            n++;
        }
        *len = n;
        *out = d;
        return 0;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%1.15g", d);
    double test = strtod(buf, NULL);
    if (!close_enough(test, d)) {
        n = snprintf(buf, sizeof buf, "%1.17g", d);
        test = strtod(buf, NULL);
    }
    if (n < 0 || n > 25) /* cJSON's buffer holds 25 characters */
        return -1;
    *len = (size_t)n;
    *out = test;
    return 0;
}

/* What cJSON's printer adds to a string byte: 1 for the seven escaped by a letter, 5 for the
 * other control characters (\u00XX). */
static const unsigned char escape_extra[256] = {
    5, 5, 5, 5, 5, 5, 5, 5, 1, 1, 1, 5, 1, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    ['"'] = 1, ['\\'] = 1,
};

/* <n> bytes at the end of the buffer for the caller to fill, or NULL (p->rc says why). */
static char *take(struct pack *p, size_t n)
{
    struct forge_buf *b = p->out;
    if (p->rc)
        return NULL;
    if (!(n < b->cap - b->len && n <= b->limit - b->len) && (p->rc = forge_buf_reserve(b, n)) != 0)
        return NULL;
    char *w = b->data + b->len;
    b->len += n;
    return w;
}

/* A string's tag (when <tag>), length, bytes and NUL; 1 when it is not UTF-8 or too long for
 * the form, -1 when the buffer failed. */
static int put_string(struct pack *p, const char *s, char tag)
{
    size_t n = strlen(s), json = n + 2, i = 0;
    for (; i < n && (unsigned char)s[i] < 0x80; i++)
        json += escape_extra[(unsigned char)s[i]];
    if (i < n) { /* past the ASCII head: check the rest, whose bytes are escaped alike */
        if (forge_utf8_check(s + i, n - i, true) != n - i)
            return 1;
        for (; i < n; i++)
            json += escape_extra[(unsigned char)s[i]];
    }
    if (n > UINT32_MAX)
        return 1;
    p->json_len += json;
    size_t t = tag ? 1 : 0;
    char *w = take(p, t + 4 + n + 1);
    if (!w)
        return -1;
    if (tag)
        *w = tag;
    uint32_t u = (uint32_t)n;
    memcpy(w + t, &u, sizeof u);
    memcpy(w + t + 4, s, n + 1);
    return 0;
}

static int pack_value(struct pack *p, const cJSON *v, int depth)
{
    if (depth > MAX_DEPTH || ++p->nodes > p->node_limit)
        return 1;
    if (v->type & (cJSON_IsReference | cJSON_StringIsConst))
        return 1;
    char *w;
    switch (v->type & 0xFF) {
    case cJSON_NULL:
    case cJSON_True:
    case cJSON_False:
        if (!(w = take(p, 1)))
            return -1;
        *w = v->type == cJSON_NULL ? 'n' : v->type == cJSON_True ? 't' : 'f';
        p->json_len += v->type == cJSON_False ? 5 : 4;
        return 0;
    case cJSON_Number: {
        double d;
        size_t len;
        if (printed_number(v, &d, &len))
            return 1;
        p->json_len += len;
        if (d >= 0 && d <= 127 && d == floor(d) && !signbit(d)) {
            if (!(w = take(p, 1)))
                return -1;
            *w = (char)(0x80 | (int)d);
        } else if (d >= INT32_MIN && d <= INT32_MAX && d == floor(d) && !(d == 0 && signbit(d))) {
            int32_t i = (int32_t)d;
            if (!(w = take(p, 1 + sizeof i)))
                return -1;
            *w = 'i';
            memcpy(w + 1, &i, sizeof i);
        } else {
            if (!(w = take(p, 1 + sizeof d)))
                return -1;
            *w = 'd';
            memcpy(w + 1, &d, sizeof d);
        }
        return 0;
    }
    case cJSON_String:
        return put_string(p, v->valuestring ? v->valuestring : "", 's'); /* NULL prints as "" */
    case cJSON_Array:
    case cJSON_Object:
        break;
    default:
        return 1;
    }
    bool object = v->type == cJSON_Object;
    size_t n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        n++;
    if (n > UINT32_MAX || !(w = take(p, 5)))
        return n > UINT32_MAX ? 1 : -1;
    *w = object ? 'o' : 'a';
    uint32_t u = (uint32_t)n;
    memcpy(w + 1, &u, sizeof u);
    p->json_len += 2 + (n ? n - 1 : 0); /* brackets and commas */
    for (const cJSON *c = v->child; c; c = c->next) {
        if (object) {
            int r = c->string ? put_string(p, c->string, 0) : 1;
            if (r)
                return r;
            p->json_len += 1; /* the colon */
        }
        int r = pack_value(p, c, depth + 1);
        if (r)
            return r;
    }
    return 0;
}

int forge_jpack(const cJSON *v, struct forge_buf *out, size_t *json_len)
{
    struct pack p = {out, 0, 0, forge_json_node_limit(), 0};
    size_t start = out->len;
    int r = pack_value(&p, v, 1);
    if (r < 0)
        r = p.rc;
    if (r) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        return r;
    }
    if (out->data)
        out->data[out->len] = '\0';
    *json_len = p.json_len;
    return 0;
}

struct unpack {
    const char *p, *e;
};

static int get_u32(struct unpack *u, size_t *n)
{
    uint32_t x;
    if ((size_t)(u->e - u->p) < sizeof x)
        return -1;
    memcpy(&x, u->p, sizeof x);
    u->p += sizeof x;
    *n = x;
    return 0;
}

/* A packed string's bytes (NUL-terminated in place) and length, or NULL. */
static const char *get_string(struct unpack *u, size_t *len)
{
    size_t n;
    if (get_u32(u, &n) || (size_t)(u->e - u->p) <= n || u->p[n] != '\0')
        return NULL;
    const char *s = u->p;
    u->p += n + 1;
    *len = n;
    return s;
}

/* A copy of <s> (<n> bytes and its NUL) from cJSON's allocator, as cJSON's own copies are. */
static char *copy(const char *s, size_t n)
{
    char *c = cJSON_malloc(n + 1);
    if (c)
        memcpy(c, s, n + 1);
    return c;
}

/* A zeroed node of <type> from cJSON's allocator, as cJSON makes them. */
static cJSON *node(int type)
{
    cJSON *v = cJSON_malloc(sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = type;
    }
    return v;
}

/* The nodes are made and linked as cJSON's parser makes them (its prev of the first child is
 * the last), without the length scans of cJSON's copy functions. */
static cJSON *unpack_value(struct unpack *u, int depth)
{
    if (u->p >= u->e || depth > MAX_DEPTH)
        return NULL;
    char tag = *u->p++;
    cJSON *v;
    if ((unsigned char)tag >= 0x80) { /* a small whole number */
        if ((v = node(cJSON_Number)) != NULL) {
            v->valueint = (unsigned char)tag & 0x7F;
            v->valuedouble = v->valueint;
        }
        return v;
    }
    switch (tag) {
    case 'i': {
        int32_t i;
        if ((size_t)(u->e - u->p) < sizeof i || !(v = node(cJSON_Number)))
            return NULL;
        memcpy(&i, u->p, sizeof i);
        u->p += sizeof i;
        v->valuedouble = i;
        v->valueint = i; /* within int: cJSON's saturation leaves it */
        return v;
    }
    case 'n':
        return node(cJSON_NULL);
    case 't':
        if ((v = node(cJSON_True)) != NULL)
            v->valueint = 1; /* as cJSON's parser sets it */
        return v;
    case 'f':
        return node(cJSON_False);
    case 'd': {
        double d;
        if ((size_t)(u->e - u->p) < sizeof d)
            return NULL;
        memcpy(&d, u->p, sizeof d);
        /* packing writes finite numbers only (the printer writes the others as null) */
        if (!isfinite(d) || !(v = node(cJSON_Number)))
            return NULL;
        u->p += sizeof d;
        v->valuedouble = d;
        v->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
        return v;
    }
    case 's': {
        size_t n;
        const char *s = get_string(u, &n);
        if (!s || !(v = node(cJSON_String)))
            return NULL;
        if (!(v->valuestring = copy(s, n))) {
            cJSON_Delete(v);
            return NULL;
        }
        return v;
    }
    case 'a':
    case 'o': {
        size_t n;
        if (get_u32(u, &n) || !(v = node(tag == 'a' ? cJSON_Array : cJSON_Object)))
            return NULL;
        for (size_t i = 0; i < n; i++) {
            size_t klen;
            const char *key = NULL;
            if (tag == 'o' && !(key = get_string(u, &klen)))
                goto fail;
            cJSON *c = unpack_value(u, depth + 1);
            if (!c)
                goto fail;
            if (key && !(c->string = copy(key, klen))) {
                cJSON_Delete(c);
                goto fail;
            }
            if (!v->child) {
                v->child = c;
                c->prev = c;
            } else {
                c->prev = v->child->prev;
                c->prev->next = c;
                v->child->prev = c;
            }
        }
        return v;
    fail:
        cJSON_Delete(v);
        return NULL;
    }
    default:
        return NULL;
    }
}

cJSON *forge_junpack(const char *p, size_t n)
{
    struct unpack u = {p, p + n};
    cJSON *v = unpack_value(&u, 1);
    if (v && u.p != u.e) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}
