/* JSON helpers over cJSON. */
#include "data/json.h"
#include "data/yaml.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/hash.h"
#include "data/utf8.h"

#include <float.h>
#include <math.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void forge_json_position(const char *text, size_t offset, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* forge_json_syntax's pieces: each returns the offset past what it read, or (size_t)-1 after
 * setting *err_at and *what. */
static size_t syn_fail(size_t at, const char *msg, size_t *err_at, const char **what)
{
    *err_at = at;
    *what = msg;
    return (size_t)-1;
}

static size_t syn_string(const char *s, size_t n, size_t i, size_t *err_at, const char **what)
{
    i++; /* the opening quote */
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return syn_fail(i, "a control character in a string (write it as an escape)", err_at, what);
        if (c != '\\') {
            i++;
            continue;
        }
        if (i + 1 >= n)
            break;
        char e = s[i + 1];
        if (e == 'u') {
            for (size_t k = 2; k < 6; k++)
                if (i + k >= n || !isxdigit((unsigned char)s[i + k]))
                    return syn_fail(i, "\\u needs four hexadecimal digits", err_at, what);
            i += 6;
        } else if (strchr("\"\\/bfnrt", e) && e) {
            i += 2;
        } else {
            return syn_fail(i, "an escape JSON does not have", err_at, what);
        }
    }
    return syn_fail(n, "the text ends inside a string", err_at, what);
}

static size_t syn_number(const char *s, size_t n, size_t i, size_t *err_at, const char **what)
{
    size_t start = i;
    if (s[i] == '-')
        i++;
    if (i < n && s[i] == '0') {
        i++;
    } else if (i < n && s[i] >= '1' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return syn_fail(i, "a number needs a digit here", err_at, what);
    }
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return syn_fail(i, "a number needs a digit after its '.'", err_at, what);
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return syn_fail(i, "a number needs a digit in its exponent", err_at, what);
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < n && s[i] >= '0' && s[i] <= '9' && s[start + (s[start] == '-')] == '0')
        return syn_fail(start, "a number with a leading zero", err_at, what);
    return i;
}

int forge_json_syntax(const char *s, size_t n, size_t *at, const char **what)
{
    const char *dummy;
    size_t dummy_at;
    if (!what)
        what = &dummy;
    if (!at)
        at = &dummy_at;
    char few[64], *stack = few; /* '{' or '[' per open container */
    size_t depth = 0, cap = sizeof few, err_at = n, i = 0;
    bool ok = false;
#define SYN_WS() while (i < n && is_ws(s[i])) i++
#define SYN_FAIL(at, msg) do { err_at = (at); *what = (msg); goto out; } while (0)
    SYN_WS();
value:
    if (i >= n)
        SYN_FAIL(n, depth ? "the text ends where a value should be" : "expected a JSON value, found the end");
    switch (s[i]) {
    case '{':
    case '[':
        if (depth == cap) {
            char *g = forge_malloc(cap * 2);
            if (!g) {
                if (stack != few)
                    forge_free(stack);
                return FORGE_ENOMEM;
            }
            memcpy(g, stack, cap);
            if (stack != few)
                forge_free(stack);
            stack = g;
            cap *= 2;
        }
        stack[depth++] = s[i++];
        SYN_WS();
        if (stack[depth - 1] == '[') {
            if (i < n && s[i] == ']') {
                i++;
                depth--;
                goto after;
            }
            goto value;
        }
        if (i < n && s[i] == '}') {
            i++;
            depth--;
            goto after;
        }
        goto key;
    case '"':
        if ((i = syn_string(s, n, i, &err_at, what)) == (size_t)-1)
            goto out;
        goto after;
    case 't':
    case 'f':
    case 'n': {
        const char *lit = s[i] == 't' ? "true" : s[i] == 'f' ? "false" : "null";
        size_t l = strlen(lit);
        if (n - i < l || memcmp(s + i, lit, l))
            SYN_FAIL(i, "not a JSON value");
        i += l;
        goto after;
    }
    default:
        if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
            if ((i = syn_number(s, n, i, &err_at, what)) == (size_t)-1)
                goto out;
            goto after;
        }
        SYN_FAIL(i, "not a JSON value");
    }
key:
    if (i >= n || s[i] != '"')
        SYN_FAIL(i, i >= n ? "the text ends where a member name should be" : "a member name must be a string");
    if ((i = syn_string(s, n, i, &err_at, what)) == (size_t)-1)
        goto out;
    SYN_WS();
    if (i >= n || s[i] != ':')
        SYN_FAIL(i, "expected ':' after the member name");
    i++;
    SYN_WS();
    goto value;
after:
    SYN_WS();
    if (!depth) {
        if (i < n)
            SYN_FAIL(i, "unexpected text after the value");
        ok = true;
        goto out;
    }
    if (i < n && s[i] == ',') {
        i++;
        SYN_WS();
        if (stack[depth - 1] == '{')
            goto key;
        goto value;
    }
    if (i < n && s[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
        i++;
        depth--;
        goto after;
    }
    SYN_FAIL(i, i >= n ? "the text ends inside an object or array"
                        : stack[depth - 1] == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
out:
#undef SYN_WS
#undef SYN_FAIL
    if (stack != few)
        forge_free(stack);
    *at = err_at;
    return ok;
}

static size_t node_limit = FORGE_JSON_NODE_LIMIT;

size_t forge_json_node_limit(void)
{
    return node_limit;
}

void forge_json_set_node_limit(size_t n)
{
    node_limit = n ? n : FORGE_JSON_NODE_LIMIT;
}

/* The offset of the quote that ends the JSON string whose opening quote is at <i> in the <len>
 * bytes of <text> (<len> when it does not end), its escapes skipped. */
static inline size_t string_end(const char *text, size_t len, size_t i)
{
    for (i++; i < len && text[i] != '"'; i++)
        if (text[i] == '\\')
            i++;
    return i;
}

size_t forge_json_count_values(const char *text, size_t len, size_t limit, size_t *past)
{
    *past = len;
    size_t count = 1;
    if (count > limit) {
        *past = 0;
        return count;
    }
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            i = string_end(text, len, i);
        } else if (c == ',' || c == '[' || c == '{') {
            size_t j = i + 1;
            while (j < len && is_ws(text[j]))
                j++;
            if (!(j < len && (text[j] == ']' || text[j] == '}')) && ++count > limit) {
                *past = j;
                return count;
            }
        }
    }
    return count;
}

size_t forge_json_nul_escape(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
        if (end - p >= 6 && memcmp(p + 1, "u0000", 5) == 0)
            return (size_t)(p - text);
        p += 2; /* the escaped character is never the start of another escape */
        if (p >= end)
            break;
    }
    return len;
}

static cJSON *fail_at(const char *text, size_t off, const char *name, struct forge_err *err,
                      const char *what)
{
    int line, col;
    forge_json_position(text, off, &line, &col);
    forge_err_set(err, FORGE_EINVAL, "%s:%d:%d: %s", name, line, col, what);
    return NULL;
}

/* How deeply the arrays and objects of <text> are nested just before offset <off> (strings
 * skipped), for the error of a text nested past cJSON's limit. */
static size_t nesting_at(const char *text, size_t off)
{
    size_t depth = 0;
    for (size_t i = 0; i < off; i++) {
        char c = text[i];
        if (c == '"')
            i = string_end(text, off, i);
        else if (c == '[' || c == '{')
            depth++;
        else if ((c == ']' || c == '}') && depth)
            depth--;
    }
    return depth;
}

cJSON *forge_json_parse(const char *text, size_t len, const char *name, struct forge_err *err)
{
    const char *end = NULL;
    size_t start = 0;
    while (start < len && is_ws(text[start]))
        start++;
    if (start == len)
        return fail_at(text, len, name, err, "expected a JSON value, found end of input");
    size_t bad = forge_utf8_check(text, len, true);
    if (bad < len) {
        char what[64];
        if (text[bad])
            snprintf(what, sizeof what, "invalid UTF-8 (byte 0x%02X)", (unsigned char)text[bad]);
        else
            snprintf(what, sizeof what, "invalid JSON: a NUL byte");
        return fail_at(text, bad, name, err, what);
    }
    /* A value needs at least 2 bytes of text after the first ("[0,0,..."): shorter texts cannot
     * pass the limit, so the count runs only on large inputs. */
    if ((len - start) / 2 + 1 > node_limit) {
        size_t off;
        forge_json_count_values(text + start, len - start, node_limit, &off);
        if (off < len - start) {
            char what[160];
            snprintf(what, sizeof what, "more than %zu JSON values in one input (the limit; raise "
                     "it with --max-json-nodes)", node_limit);
            cJSON *r = fail_at(text, start + off, name, err, what);
            if (err)
                err->code = FORGE_ELIMIT;
            return r;
        }
    }
    size_t fast_end = 0;
    cJSON *v = forge_json_parse_fast(text, len, &fast_end);
    if (v)
        end = text + fast_end;
    else
        v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!v) {
        size_t off = end ? (size_t)(end - text) : 0;
        if (off > len)
            off = len;
        int line, col;
        forge_json_position(text, off, &line, &col);
        if (off < len && (text[off] == '[' || text[off] == '{') &&
            nesting_at(text, off) >= CJSON_NESTING_LIMIT) {
            /* cJSON's limit, fixed when libcjson is built (so not FORGE_ELIMIT, which callers
             * report as a limit to raise): input forge cannot read, named */
            forge_err_set(err, FORGE_EINVAL, "%s:%d:%d: JSON nested more than %d arrays and objects "
                          "deep (the JSON reader's fixed limit)", name, line, col, CJSON_NESTING_LIMIT);
            return NULL;
        }
        if (off >= len)
            forge_err_set(err, FORGE_EINVAL, "%s:%d:%d: invalid JSON: unexpected end of input",
                          name, line, col);
        else
            forge_err_set(err, FORGE_EINVAL, "%s:%d:%d: invalid JSON near '%.*s'", name, line,
                          col, (int)(len - off < 12 ? len - off : 12), text + off);
        return NULL;
    }
    size_t off = (size_t)(end - text);
    while (off < len && is_ws(text[off]))
        off++;
    if (off < len) {
        cJSON_Delete(v);
        return fail_at(text, off, name, err, "invalid JSON: unexpected text after the value");
    }
    return v;
}

cJSON *forge_json_load(const char *path, struct forge_err *err)
{
    char *text;
    size_t len;
    if (forge_file_read_input(path, &text, &len, err))
        return NULL;
    cJSON *v = forge_yaml_is_path(path) ? forge_yaml_parse(text, len, path, err) : forge_json_parse(text, len, path, err);
    forge_free(text);
    return v;
}

cJSON *forge_json_at(const cJSON *root, const char *path)
{
    const cJSON *cur = root;
    const char *p = path;
    while (cur && *p) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            p++;
            if (*p == '"') {
                const char *q = strchr(p + 1, '"');
                if (!q)
                    return NULL;
                char key[512];
                size_t n = (size_t)(q - p - 1);
                if (n >= sizeof key)
                    return NULL;
                memcpy(key, p + 1, n);
                key[n] = '\0';
                cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, key) : NULL;
                p = q + 1;
            } else {
                char *e;
                long i = strtol(p, &e, 10);
                if (e == p || i < 0 || !cJSON_IsArray(cur))
                    return NULL;
                cur = cJSON_GetArrayItem(cur, (int)i);
                p = e;
            }
            if (*p != ']')
                return NULL;
            p++;
            continue;
        }
        size_t n = strcspn(p, ".[");
        char key[512];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, key) : NULL;
        p += n;
    }
    return (cJSON *)cur;
}

static size_t tree_bytes(const cJSON *v, size_t per_node, int depth)
{
    size_t n = per_node + (v->string ? strlen(v->string) : 0) + (v->valuestring ? strlen(v->valuestring) : 0);
    if (depth < 1000)
        for (const cJSON *c = v->child; c; c = c->next)
            n += tree_bytes(c, per_node, depth + 1);
    return n;
}

size_t forge_json_tree_bytes(const cJSON *v, size_t per_node)
{
    return v ? tree_bytes(v, per_node, 0) : 0;
}

/* Members that forge_json_members_sorted sorts by insertion (and write_value keeps on the stack). */
#define MEMBERS_SMALL 16

static int member_cmp(const void *a, const void *b)
{
    const struct forge_json_member *x = a, *y = b;
    int d = strcmp(x->c->string, y->c->string);
    return d ? d : (x->pos > y->pos) - (x->pos < y->pos);
}

struct forge_json_member *forge_json_members_sorted(const cJSON *o, struct forge_json_member *buf,
                                                    size_t cap, size_t *n)
{
    size_t k = 0, i = 0;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next)
        k += c->string != NULL;
    struct forge_json_member *m = k <= cap && buf ? buf : forge_malloc((k ? k : 1) * sizeof *m);
    *n = 0;
    if (!m)
        return NULL;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next, i++)
        if (c->string)
            m[(*n)++] = (struct forge_json_member){c, i};
    if (k > MEMBERS_SMALL) {
        qsort(m, k, sizeof *m, member_cmp);
        return m;
    }
    /* a few (the usual object): inserted in turn, each after those not above it, so that
     * members of one name stay in their order (qsort's call and set-up cost more) */
    for (i = 1; i < k; i++) {
        struct forge_json_member x = m[i];
        size_t j = i;
        for (; j > 0 && strcmp(m[j - 1].c->string, x.c->string) > 0; j--)
            m[j] = m[j - 1];
        m[j] = x;
    }
    return m;
}

static inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static bool hash_at(const cJSON *v, int depth, uint64_t *out)
{
    uint64_t h;
    switch (v->type & 0xFF) {
    case cJSON_Number: {
        double d = v->valuedouble == 0 ? 0.0 : v->valuedouble;
        memcpy(&h, &d, sizeof h);
        *out = mix64(h ^ 1);
        return true;
    }
    case cJSON_String:
        *out = forge_hash_str(v->valuestring) ^ 2;
        return true;
    case cJSON_Array:
        h = 6;
        if (depth < 64)
            for (const cJSON *c = v->child; c; c = c->next) {
                uint64_t x;
                if (!hash_at(c, depth + 1, &x))
                    return false;
                h = mix64(h * 31 + x);
            }
        *out = h;
        return true;
    case cJSON_Object: {
        h = 7;
        if (depth >= 64) {
            *out = h;
            return true;
        }
        struct forge_json_member few[16], *m;
        size_t n;
        if (!(m = forge_json_members_sorted(v, few, 16, &n)))
            return false;
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            if (i && !strcmp(m[i].c->string, m[i - 1].c->string))
                continue; /* a repeat: its first value counts */
            uint64_t x;
            ok = hash_at(m[i].c, depth + 1, &x);
            h += mix64(forge_hash_str(m[i].c->string) * 0x9E3779B97F4A7C15ull ^ x);
        }
        if (m != few)
            forge_free(m);
        *out = h;
        return ok;
    }
    case cJSON_True:
        *out = 3;
        return true;
    case cJSON_False:
        *out = 4;
        return true;
    default:
        *out = 5;
        return true;
    }
}

bool forge_json_hash(const cJSON *v, uint64_t *out)
{
    return hash_at(v, 0, out);
}

bool forge_json_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsBool(a) && cJSON_IsBool(b))
        return cJSON_IsTrue(a) == cJSON_IsTrue(b);
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return false;
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!forge_json_equal(x, y))
                return false;
        return !x && !y;
    }
    if (cJSON_IsObject(a)) {
        /* A repeated key counts once, with its first value (the one lookups find), so that
         * equality stays reflexive and agrees with cJSON_GetObjectItem. Large objects look
         * names up through tables of both (a lookup per member would be quadratic). */
        int big = 0;
        for (const cJSON *x = a->child; x && big <= 16; x = x->next)
            big++;
        if (big > 16) {
            struct forge_json_names ia, ib;
            if (!forge_json_names_build(&ia, a)) {
                if (!forge_json_names_build(&ib, b)) {
                    bool eq = ia.t.n == ib.t.n;
                    for (const cJSON *x = a->child; x && eq; x = x->next) {
                        if (forge_json_names_find(&ia, x->string) != x)
                            continue;
                        const cJSON *y = forge_json_names_find(&ib, x->string);
                        eq = y && forge_json_equal(x, y);
                    }
                    forge_json_names_free(&ia);
                    forge_json_names_free(&ib);
                    return eq;
                }
                forge_json_names_free(&ia);
            }
            /* out of memory: the scan */
        }
        int na = 0, nb = 0;
        for (const cJSON *x = a->child; x; x = x->next) {
            if (cJSON_GetObjectItemCaseSensitive(a, x->string) != x)
                continue;
            na++;
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (!y || !forge_json_equal(x, y))
                return false;
        }
        for (const cJSON *y = b->child; y; y = y->next)
            if (cJSON_GetObjectItemCaseSensitive(b, y->string) == y)
                nb++;
        return na == nb;
    }
    return true; /* null */
}

/* The shortest decimal that reads back as d > 0 (ECMA-262 Number::toString's digits, the
 * closest of that length, an exact tie to the even digit), by exact arithmetic in 128 bits:
 * d = m / 2^(t-1), the values that read back as d lie within half an ulp, 1 / 2^t, on either
 * side (boundaries included when m is even, as reading rounds half to even). Digits are made
 * one at a time from the remainder r / s, with the margin w scaled alike, until the digits so
 * far, or the next one up, fall within the margin (Steele and White's free-format method).
 * Fills digits (no trailing zeros) and returns their count, with *point the place of the
 * decimal point; returns 0 for what it leaves to the search: subnormals, powers of two (whose
 * lower margin is half the upper), whole numbers and values below 2^-66. */
static int shortest_exact(double d, char *digits, int *point)
{
    typedef unsigned __int128 u128;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int be = (int)(bits >> 52 & 0x7ff);
    uint64_t m = bits & ((1ULL << 52) - 1);
    if (be == 0 || m == 0)
        return 0;
    m |= 1ULL << 52;
    int t = 1076 - be; /* d = 2m / 2^t */
    if (t < 2 || t > 120)
        return 0;
    u128 r = (u128)m << 1, s = (u128)1 << t, w = 1;
    int even = !(m & 1);
    /* the place of the point: 10^(k-1) <= d < 10^k, from the binary exponent, then adjusted */
    int k = (int)ceil((be - 1022) * 0.30102999566398120);
    if (k > 0)
        for (int i = 0; i < k; i++)
            s *= 10;
    else
        for (int i = 0; i < -k; i++)
            r *= 10, w *= 10;
    while (r >= s) {
        s *= 10;
        k++;
    }
    while (r * 10 < s) {
        r *= 10;
        w *= 10;
        k--;
    }
    u128 s2 = s << 1, s4 = s << 2, s8 = s << 3;
    int n = 0;
    for (;;) {
        r *= 10;
        w *= 10;
        int dg = 0;
        if (r >= s8) r -= s8, dg += 8;
        if (r >= s4) r -= s4, dg += 4;
        if (r >= s2) r -= s2, dg += 2;
        if (r >= s) r -= s, dg += 1;
        int low = even ? r <= w : r < w;
        int high = even ? r + w >= s : r + w > s;
        if (!low && !high && n < 17) {
            digits[n++] = (char)('0' + dg);
            continue;
        }
        if (low && high) {
            u128 r2 = r << 1;
            if (r2 > s || (r2 == s && (dg & 1)))
                dg++;
        } else if (high) {
            dg++;
        }
        /* a 10 carries into the digits before it */
        while (dg == 10) {
            if (n == 0) {
                dg = 1;
                k++;
                break;
            }
            dg = digits[--n] - '0' + 1;
        }
        digits[n++] = (char)('0' + dg);
        break;
    }
    while (n > 1 && digits[n - 1] == '0')
        n--;
    *point = k;
    return n;
}

/* Writes the decimal digits[0..k) with the point at position n (ECMA-262 Number::toString). */
static char *layout(int neg, const char *digits, int k, int n, char *out)
{
    char *o = out;
    if (neg)
        *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = 0; i < n - k; i++)
            *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -n; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *o = '\0';
    return out;
}

char *forge_json_number(double d, char *out)
{
    if (isnan(d))
        return strcpy(out, "NaN");
    if (isinf(d))
        return strcpy(out, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0)
        return strcpy(out, "0");
    /* Whole numbers below 2^53: their digits directly. */
    if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        char t[24], *p = t + sizeof t;
        unsigned long long u = (unsigned long long)fabs(d);
        *--p = '\0';
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (d < 0)
            *--p = '-';
        return strcpy(out, p);
    }
    /* A decimal of at most 15 digits with k <= 8 of them after the point (scores such as 0.7,
     * prices): m / 10^k for the integer m nearest d * 10^k, when that quotient (correctly
     * rounded: m and 10^k are exact) is d. It is then the 15-digit form below, trimmed: no
     * other decimal of 15 digits or fewer reads back as d. */
    static const double p10[9] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    double a = fabs(d);
    if (a >= 1e-8 && a < 1e15) {
        for (int k = 1; k <= 8; k++) {
            double m = floor(a * p10[k] + 0.5);
            if (m >= 1e15)
                break;
            if (m == 0 || m / p10[k] != a)
                continue;
            char digits[24], t[24], *q = t + sizeof t;
            unsigned long long u = (unsigned long long)m;
            int nd = 0;
            do {
                *--q = (char)('0' + u % 10);
                u /= 10;
                nd++;
            } while (u);
            memcpy(digits, q, (size_t)nd);
            int kd = nd;
            while (kd > 1 && digits[kd - 1] == '0')
                kd--;
            return layout(d < 0, digits, kd, nd - k, out);
        }
    }
    char sd[24];
    int point, ns = shortest_exact(a, sd, &point);
    if (ns)
        return layout(d < 0, sd, ns, point, out);
    /* The shortest digit string that reads back as d. With a full mantissa (not subnormal) it
     * is found among 15, 16 and 17 significant digits: a decimal of k <= 15 digits that reads
     * back as d lies within half an ulp of it, so the correctly rounded 15-digit form is that
     * decimal padded with zeros (trimmed below); at 16 and 17 digits the correctly rounded form
     * is the closest of its length, which ECMA-262 picks. Subnormals try every length. */
    char tmp[40];
    int prec = fabs(d) < DBL_MIN ? 1 : 15;
    for (; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    if (prec == 17)
        snprintf(tmp, sizeof tmp, "%.16e", d);
    char digits[24];
    int k = 0;
    const char *p = tmp;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    digits[k] = '\0';
    return layout(neg, digits, k, atoi(p + 1) + 1, out);
}

/* Bytes a JSON string cannot hold as they are: control characters, '"', '\\' and the non-ASCII
 * bytes (which are checked as UTF-8). */
static const unsigned char json_special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static int write_string(struct forge_buf *b, const char *s)
{
    const char *p = s;
    while (!json_special[(unsigned char)*p])
        p++;
    if (!*p) { /* nothing to escape (keys, most values): quotes and bytes in one append */
        size_t n = (size_t)(p - s);
        if (n + 2 < b->cap - b->len && n + 2 <= b->limit - b->len) {
            char *o = b->data + b->len;
            o[0] = '"';
            memcpy(o + 1, s, n);
            o[n + 1] = '"';
            o[n + 2] = '\0';
            b->len += n + 2;
            return 0;
        }
    }
    /* (the general path from the first byte to escape, or from the end) */
    int rc = forge_buf_addc(b, '"');
    const char *run = s;
    for (; !rc; p++) {
        while (!json_special[(unsigned char)*p])
            p++;
        unsigned char c = (unsigned char)*p;
        if (!c)
            break;
        const char *esc = NULL;
        char u[8];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                snprintf(u, sizeof u, "\\u%04x", c);
                esc = u;
            } else {
                unsigned cp;
                int n = forge_utf8_decode(p, 4, &cp); /* stops at the NUL */
                if (n) {
                    p += n - 1;
                    continue;
                }
                esc = FORGE_UTF8_REPLACEMENT;
            }
        }
        rc = forge_buf_add(b, run, (size_t)(p - run));
        if (!rc)
            rc = forge_buf_adds(b, esc);
        run = p + 1;
    }
    if (!rc)
        rc = forge_buf_add(b, run, (size_t)(p - run));
    if (!rc)
        rc = forge_buf_addc(b, '"');
    return rc;
}

static int indent(struct forge_buf *b, int flags, int depth)
{
    if (!(flags & FORGE_JSON_PRETTY))
        return 0;
    int rc = forge_buf_addc(b, '\n');
    for (int i = 0; !rc && i < depth; i++)
        rc = forge_buf_add(b, "  ", 2);
    return rc;
}

static int write_value(struct forge_buf *b, const cJSON *v, int flags, int depth)
{
    char num[40];
    int rc = 0;
    switch (v->type & 0xFF) { /* (the kind once, as cJSON_Is* would test it) */
    case cJSON_False:
        return forge_buf_add(b, "false", 5);
    case cJSON_True:
        return forge_buf_add(b, "true", 4);
    case cJSON_Number:
        if (!isfinite(v->valuedouble))
            return forge_buf_add(b, "null", 4);
        return forge_buf_adds(b, forge_json_number(v->valuedouble, num));
    case cJSON_String:
        return write_string(b, v->valuestring ? v->valuestring : "");
    case cJSON_Raw:
        return forge_buf_adds(b, v->valuestring ? v->valuestring : "null");
    case cJSON_Array:
    case cJSON_Object:
        break;
    default: /* null, and a node of no kind */
        return forge_buf_add(b, "null", 4);
    }
    int is_obj = (v->type & 0xFF) == cJSON_Object;
    if (!v->child)
        return forge_buf_add(b, is_obj ? "{}" : "[]", 2);
    rc = forge_buf_addc(b, is_obj ? '{' : '[');
    struct forge_json_member small[MEMBERS_SMALL], *items = NULL;
    size_t count = 0;
    if (is_obj && (flags & FORGE_JSON_SORTED)) {
        if (!(items = forge_json_members_sorted(v, small, MEMBERS_SMALL, &count)))
            return FORGE_ENOMEM;
    } else {
        for (const cJSON *c = v->child; c; c = c->next)
            count++;
    }
    const cJSON *c = v->child;
    for (size_t i = 0; !rc && i < count; i++, c = c ? c->next : NULL) {
        const cJSON *item = items ? items[i].c : c;
        if (i)
            rc = forge_buf_addc(b, ',');
        if (!rc)
            rc = indent(b, flags, depth + 1);
        if (!rc && is_obj) {
            rc = write_string(b, item->string ? item->string : "");
            if (!rc)
                rc = (flags & FORGE_JSON_PRETTY) ? forge_buf_add(b, ": ", 2) : forge_buf_addc(b, ':');
        }
        if (!rc)
            rc = write_value(b, item, flags, depth + 1);
    }
    if (items != small)
        forge_free(items);
    if (!rc)
        rc = indent(b, flags, depth);
    if (!rc)
        rc = forge_buf_addc(b, is_obj ? '}' : ']');
    return rc;
}

int forge_json_write_string(struct forge_buf *b, const char *s)
{
    return write_string(b, s);
}

int forge_json_write(struct forge_buf *b, const cJSON *v, int flags)
{
    return write_value(b, v, flags, 0);
}

char *forge_json_print(const cJSON *v, int flags)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    /* most texts printed here are short (arguments, results): one block instead of growing */
    if (forge_buf_reserve(&b, 240) || forge_json_write(&b, v, flags)) {
        forge_buf_free(&b);
        return NULL;
    }
    return forge_buf_take(&b);
}

size_t forge_utf16_len(const char *s, size_t n)
{
    size_t units = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t step = 1;
        if (c >= 0xF0 && c < 0xF8)
            step = 4;
        else if (c >= 0xE0)
            step = 3;
        else if (c >= 0xC0)
            step = 2;
        if (step > 1 && i + step > n)
            step = 1;
        units += step == 4 ? 2 : 1;
        i += step;
    }
    return units;
}

const char *forge_json_str(const cJSON *obj, const char *key)
{
    const cJSON *v = forge_json_get(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

double forge_json_num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = forge_json_get(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int forge_json_names_build(struct forge_json_names *ix, const cJSON *o)
{
    memset(ix, 0, sizeof *ix);
    size_t n = 0, k = 0;
    for (const cJSON *x = o->child; x; x = x->next)
        n++;
    if (n && !(ix->members = forge_malloc(n * sizeof *ix->members)))
        return FORGE_ENOMEM;
    for (const cJSON *x = o->child; x; x = x->next) {
        if (!x->string || forge_strtab_find(&ix->t, x->string) >= 0)
            continue;
        if (forge_strtab_add(&ix->t, x->string) < 0) {
            forge_json_names_free(ix);
            return FORGE_ENOMEM;
        }
        ix->members[k++] = x;
    }
    return 0;
}

const cJSON *forge_json_names_find(const struct forge_json_names *ix, const char *name)
{
    long i = forge_strtab_find(&ix->t, name);
    return i >= 0 ? ix->members[i] : NULL;
}

void forge_json_names_free(struct forge_json_names *ix)
{
    forge_strtab_free(&ix->t);
    forge_free(ix->members);
    memset(ix, 0, sizeof *ix);
}
