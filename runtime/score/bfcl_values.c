/* BFCL's Java and JavaScript value conversion and string normalization, with the same patterns
 * (PCRE2 in byte mode, which agrees with Python's re on these ASCII patterns) and the same
 * fallbacks: a literal that does not parse stays a string. */
#include "score/bfcl.h"
#include "base/alloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
    RX_J_INT, RX_J_FLOAT, RX_J_DOUBLE, RX_J_LONG, RX_J_ASLIST, RX_J_ADD, RX_J_ADDCALL,
    RX_J_ALEMPTY, RX_J_ARRAY, RX_J_HASHMAP, RX_J_PUT, RX_J_HMEMPTY,
    RX_JS_FLOAT, RX_JS_BIGINT, RX_JS_2D, RX_JS_1D, RX_JS_INNER, RX_JS_DICT, RX_JS_PAIRS,
    RX_COUNT
};

static const struct {
    const char *pat;
    uint32_t flags;
} rx_src[RX_COUNT] = {
    [RX_J_INT] = {"^-?\\d+$", 0},
    [RX_J_FLOAT] = {"^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?[fF]$", 0},
    [RX_J_DOUBLE] = {"^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?$", 0},
    [RX_J_LONG] = {"^-?\\d+[lL]$", 0},
    [RX_J_ASLIST] = {"new\\s+ArrayList<\\w*>\\(Arrays\\.asList\\((.+?)\\)\\)", 0},
    [RX_J_ADD] = {"new\\s+ArrayList<\\w*>\\(\\)\\s*\\{\\{\\s*(.+?)\\s*\\}\\}", PCRE2_DOTALL},
    [RX_J_ADDCALL] = {"add\\((.+?)\\)", 0},
    [RX_J_ALEMPTY] = {"new\\s+ArrayList<\\w*>\\(\\)", 0},
    [RX_J_ARRAY] = {"new\\s+\\w+\\[\\]\\s*\\{(.*?)\\}", 0},
    [RX_J_HASHMAP] = {"new\\s+HashMap<.*?>\\s*\\(\\)\\s*\\{\\s*\\{?\\s*(.*?)\\s*\\}?\\s*\\}", PCRE2_DOTALL},
    [RX_J_PUT] = {"put\\(\\\"(.*?)\\\",\\s*(.*?)\\)", 0},
    [RX_J_HMEMPTY] = {"new\\s+HashMap<.*?>\\s*\\(\\)", 0},
    [RX_JS_FLOAT] = {"^-?\\d+(\\.\\d+)?$", 0},
    [RX_JS_BIGINT] = {"^-?\\d+n$", 0},
    [RX_JS_2D] = {"\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]|\\bnew\\s+Array\\(\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\)", 0},
    [RX_JS_1D] = {"\\[(.*?)\\]|\\bnew\\s+Array\\((.*?)\\)", 0},
    [RX_JS_INNER] = {"\\[(.*?)\\]", 0},
    [RX_JS_DICT] = {"\\{(.*?)\\}", 0},
    [RX_JS_PAIRS] = {"([^:]+):\\s*(.*?)(?:,\\s*(?=[^,]+:)|$)", 0},
};

struct forge_bfcl {
    pcre2_code *rx[RX_COUNT];
    pcre2_match_data *md;
    struct forge_buf out; /* score-file text, reused so large files do not fault in fresh pages */
};

struct forge_buf *forge_bfcl_out_buf(struct forge_bfcl *b) { return &b->out; }

struct forge_bfcl *forge_bfcl_new(struct forge_err *err)
{
    struct forge_bfcl *b = forge_calloc(1, sizeof(*b));
    if (!b) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < RX_COUNT; i++) {
        int ec;
        PCRE2_SIZE off;
        b->rx[i] = pcre2_compile((PCRE2_SPTR)rx_src[i].pat, PCRE2_ZERO_TERMINATED, rx_src[i].flags,
                                 &ec, &off, NULL);
        if (!b->rx[i]) {
            forge_err_set(err, FORGE_EINTERNAL, "bfcl: pattern %d does not compile at %zu", i,
                          (size_t)off);
            forge_bfcl_free(b);
            return NULL;
        }
    }
    forge_buf_init(&b->out, 0);
    b->md = pcre2_match_data_create(8, NULL);
    if (!b->md) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        forge_bfcl_free(b);
        return NULL;
    }
    return b;
}

void forge_bfcl_free(struct forge_bfcl *b)
{
    if (!b)
        return;
    for (int i = 0; i < RX_COUNT; i++)
        pcre2_code_free(b->rx[i]);
    pcre2_match_data_free(b->md);
    forge_buf_free(&b->out);
    forge_free(b);
}

#define UNSET SIZE_MAX

/* Runs pattern <id> on s[0..n) from <start>; re.match when <anchored>, else re.search. On a
 * match fills ov[0..2*(groups+1)) (UNSET for groups that did not take part) and returns 1. */
static int rx(struct forge_bfcl *b, int id, const char *s, size_t n, size_t start, bool anchored,
              size_t *ov, int groups)
{
    int rc = pcre2_match(b->rx[id], (PCRE2_SPTR)s, n, start, anchored ? PCRE2_ANCHORED : 0, b->md,
                         NULL);
    if (rc <= 0)
        return 0;
    PCRE2_SIZE *o = pcre2_get_ovector_pointer(b->md);
    for (int g = 0; g <= groups; g++) {
        if (g < rc && o[2 * g] != PCRE2_UNSET) {
            ov[2 * g] = o[2 * g];
            ov[2 * g + 1] = o[2 * g + 1];
        } else {
            ov[2 * g] = ov[2 * g + 1] = UNSET;
        }
    }
    return 1;
}

static bool full(struct forge_bfcl *b, int id, const char *s, size_t n)
{
    size_t ov[2];
    return rx(b, id, s, n, 0, true, ov, 0);
}

/* ---- Python string helpers ---- */

static bool py_space(unsigned char c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
}

struct span {
    const char *s;
    size_t n;
};

static struct span strip(struct span x)
{
    while (x.n && py_space((unsigned char)x.s[0])) {
        x.s++;
        x.n--;
    }
    while (x.n && py_space((unsigned char)x.s[x.n - 1]))
        x.n--;
    return x;
}

static struct span strip_chars(struct span x, const char *chars)
{
    while (x.n && strchr(chars, x.s[0])) {
        x.s++;
        x.n--;
    }
    while (x.n && strchr(chars, x.s[x.n - 1]))
        x.n--;
    return x;
}

static bool starts(struct span x, char c) { return x.n > 0 && x.s[0] == c; }
static bool ends(struct span x, char c) { return x.n > 0 && x.s[x.n - 1] == c; }
static bool eqz(struct span x, const char *z) { return x.n == strlen(z) && memcmp(x.s, z, x.n) == 0; }

/* Python's s[1:-1] on code points. */
static struct span inner(struct span x)
{
    if (x.n == 0)
        return x;
    size_t b = 1;
    while (b < x.n && ((unsigned char)x.s[b] & 0xC0) == 0x80)
        b++;
    size_t e = x.n - 1;
    while (e > 0 && ((unsigned char)x.s[e] & 0xC0) == 0x80)
        e--;
    if (e <= b) {
        struct span r = {x.s, 0};
        return r;
    }
    struct span r = {x.s + b, e - b};
    return r;
}

/* Python's s[:-1] on code points. */
static struct span drop_last(struct span x)
{
    if (x.n == 0)
        return x;
    size_t e = x.n - 1;
    while (e > 0 && ((unsigned char)x.s[e] & 0xC0) == 0x80)
        e--;
    x.n = e;
    return x;
}

/* re.sub(r"[xX]$", "", s) for a letter pair: removes it at the end or before a final newline. */
static struct span drop_suffix(struct span x, char lo, char up)
{
    if (x.n && x.s[x.n - 1] == '\n')
        x.n--; /* int() and float() ignore the newline that $ allows */
    if (x.n && (x.s[x.n - 1] == lo || x.s[x.n - 1] == up)) {
        x.n--;
        return x;
    }
    return x;
}

static struct forge_pyval *str_of(struct forge_arena *a, struct span x) { return forge_py_str(a, x.s, x.n); }

static struct forge_pyval *py_int_or_str(struct forge_arena *a, struct span x)
{
    struct forge_pyval *v;
    if (forge_py_parse_int(a, x.s, x.n, &v) == 0)
        return v;
    return str_of(a, x);
}

/* int(x), else float(x), else the string itself. */
static struct forge_pyval *num_or_str(struct forge_arena *a, struct span x)
{
    struct forge_pyval *v;
    if (forge_py_parse_int(a, x.s, x.n, &v) == 0)
        return v;
    double d;
    if (forge_py_parse_float(x.s, x.n, &d) == 0)
        return forge_py_float(a, d);
    return str_of(a, x);
}

/* Python's str.split(","): pieces in <out> (arena), count in *n. */
static struct span *split_commas(struct forge_arena *a, struct span x, size_t *n)
{
    size_t count = 1;
    for (size_t i = 0; i < x.n; i++)
        if (x.s[i] == ',')
            count++;
    struct span *out = forge_arena_alloc(a, count * sizeof(*out));
    if (!out)
        return NULL;
    size_t k = 0, from = 0;
    for (size_t i = 0; i <= x.n; i++) {
        if (i == x.n || x.s[i] == ',') {
            out[k].s = x.s + from;
            out[k].n = i - from;
            k++;
            from = i + 1;
        }
    }
    *n = k;
    return out;
}

/* ---- Java ---- */

static struct forge_pyval *java_value(struct forge_bfcl *b, struct forge_arena *a, struct span v,
                                      const char *type, const char *nested);

static struct forge_pyval *parse_java_value(struct forge_bfcl *b, struct forge_arena *a, struct span v)
{
    if (eqz(v, "true"))
        return forge_py_bool(a, true);
    if (eqz(v, "false"))
        return forge_py_bool(a, false);
    if (starts(v, '"') && ends(v, '"'))
        return str_of(a, inner(v));
    if (full(b, RX_J_LONG, v.s, v.n))
        return py_int_or_str(a, drop_last(v));
    if (full(b, RX_J_FLOAT, v.s, v.n)) {
        struct span t = drop_suffix(v, 'f', 'F');
        double d;
        if (forge_py_parse_float(t.s, t.n, &d) == 0)
            return forge_py_float(a, d);
        return str_of(a, v);
    }
    return num_or_str(a, v);
}

static struct forge_pyval *java_element(struct forge_bfcl *b, struct forge_arena *a, struct span e,
                                        const char *nested)
{
    if (nested && (strcmp(nested, "char") == 0 || strcmp(nested, "String") == 0))
        return str_of(a, inner(e));
    return nested ? java_value(b, a, e, nested, NULL) : parse_java_value(b, a, e);
}

static struct forge_pyval *parse_arraylist(struct forge_bfcl *b, struct forge_arena *a, struct span v,
                                           const char *nested)
{
    size_t ov[4];
    if (rx(b, RX_J_ASLIST, v.s, v.n, 0, false, ov, 1)) {
        struct span body = {v.s + ov[2], ov[3] - ov[2]};
        size_t n;
        struct span *parts = split_commas(a, body, &n);
        struct forge_pyval *l = parts ? forge_py_list(a, n) : NULL;
        if (!l)
            return NULL;
        for (size_t i = 0; i < n; i++) {
            struct forge_pyval *e = java_element(b, a, strip(parts[i]), nested);
            if (!e || forge_py_append(a, l, e))
                return NULL;
        }
        return l;
    }
    if (rx(b, RX_J_ADD, v.s, v.n, 0, false, ov, 1)) {
        struct span body = {v.s + ov[2], ov[3] - ov[2]};
        struct forge_pyval *l = forge_py_list(a, 4);
        if (!l)
            return NULL;
        size_t pos = 0;
        size_t m[4];
        while (pos <= body.n && rx(b, RX_J_ADDCALL, body.s, body.n, pos, false, m, 1)) {
            struct span e = {body.s + m[2], m[3] - m[2]};
            struct forge_pyval *x = java_element(b, a, strip(e), nested);
            if (!x || forge_py_append(a, l, x))
                return NULL;
            pos = m[1] > m[0] ? m[1] : m[1] + 1;
        }
        return l;
    }
    if (rx(b, RX_J_ALEMPTY, v.s, v.n, 0, false, ov, 0))
        return forge_py_list(a, 0);
    return str_of(a, v);
}

static struct forge_pyval *parse_array(struct forge_bfcl *b, struct forge_arena *a, struct span v,
                                       const char *nested)
{
    size_t ov[4];
    if (!rx(b, RX_J_ARRAY, v.s, v.n, 0, false, ov, 1))
        return str_of(a, v);
    struct span body = {v.s + ov[2], ov[3] - ov[2]};
    size_t n;
    struct span *parts = split_commas(a, body, &n);
    struct forge_pyval *l = parts ? forge_py_list(a, n) : NULL;
    if (!l)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        struct span e = strip(parts[i]);
        if (!e.n)
            continue;
        struct forge_pyval *x = nested ? java_value(b, a, e, nested, NULL) : parse_java_value(b, a, e);
        if (!x || forge_py_append(a, l, x))
            return NULL;
    }
    return l;
}

static struct forge_pyval *parse_hashmap(struct forge_bfcl *b, struct forge_arena *a, struct span v)
{
    size_t ov[4];
    if (rx(b, RX_J_HASHMAP, v.s, v.n, 0, false, ov, 1)) {
        struct span body = {v.s + ov[2], ov[3] - ov[2]};
        struct forge_pyval *d = forge_py_dict(a, 4);
        if (!d)
            return NULL;
        if (strip(body).n) {
            size_t pos = 0, m[6];
            while (pos <= body.n && rx(b, RX_J_PUT, body.s, body.n, pos, false, m, 2)) {
                struct span val = {body.s + m[4], m[5] - m[4]};
                struct forge_pyval *x = parse_java_value(b, a, strip(val));
                char *key = x ? forge_arena_alloc(a, m[3] - m[2] + 1) : NULL;
                if (!key)
                    return NULL;
                memcpy(key, body.s + m[2], m[3] - m[2]);
                key[m[3] - m[2]] = '\0';
                if (forge_py_set(a, d, key, m[3] - m[2], x))
                    return NULL;
                pos = m[1] > m[0] ? m[1] : m[1] + 1;
            }
        }
        return d;
    }
    if (rx(b, RX_J_HMEMPTY, v.s, v.n, 0, false, ov, 0))
        return forge_py_dict(a, 0);
    return str_of(a, v);
}

static struct forge_pyval *java_value(struct forge_bfcl *b, struct forge_arena *a, struct span v,
                                      const char *type, const char *nested)
{
    if (!strcmp(type, "byte") || !strcmp(type, "short") || !strcmp(type, "integer")) {
        if (!full(b, RX_J_INT, v.s, v.n))
            return str_of(a, v);
        return py_int_or_str(a, v);
    }
    if (!strcmp(type, "float") || !strcmp(type, "double")) {
        bool f = type[0] == 'f';
        if (!full(b, f ? RX_J_FLOAT : RX_J_DOUBLE, v.s, v.n))
            return str_of(a, v);
        struct span t = f ? drop_suffix(v, 'f', 'F') : v;
        double d;
        if (forge_py_parse_float(t.s, t.n, &d) == 0)
            return forge_py_float(a, d);
        return str_of(a, v);
    }
    if (!strcmp(type, "long")) {
        if (!full(b, RX_J_LONG, v.s, v.n))
            return str_of(a, v);
        return py_int_or_str(a, drop_suffix(v, 'l', 'L'));
    }
    if (!strcmp(type, "boolean")) {
        if (eqz(v, "true"))
            return forge_py_bool(a, true);
        if (eqz(v, "false"))
            return forge_py_bool(a, false);
        return str_of(a, v);
    }
    if (!strcmp(type, "Array"))
        return parse_array(b, a, v, nested);
    if (!strcmp(type, "ArrayList"))
        return parse_arraylist(b, a, v, nested);
    if (!strcmp(type, "HashMap"))
        return parse_hashmap(b, a, v);
    /* char (BFCL's pattern for it never matches), String, any, and the types BFCL does not
     * convert: the text itself */
    return str_of(a, v);
}

struct forge_pyval *forge_bfcl_java_value(struct forge_bfcl *b, struct forge_arena *a,
                                          const char *s, size_t n, const char *type,
                                          const char *nested)
{
    struct span v = {s, n};
    return java_value(b, a, v, type, nested);
}

/* ---- JavaScript ---- */

static struct forge_pyval *js_value(struct forge_bfcl *b, struct forge_arena *a, struct span v,
                                    const char *type, const char *nested);

static struct forge_pyval *parse_js_value(struct forge_arena *a, struct span v)
{
    v = strip(v);
    if (eqz(v, "true"))
        return forge_py_bool(a, true);
    if (eqz(v, "false"))
        return forge_py_bool(a, false);
    if ((starts(v, '"') && ends(v, '"')) || (starts(v, '\'') && ends(v, '\'')))
        return str_of(a, inner(v));
    return num_or_str(a, v);
}

static struct forge_pyval *js_collection(struct forge_bfcl *b, struct forge_arena *a, struct span code,
                                         bool is_dict, const char *nested)
{
    code = strip(code);
    size_t ov[8];
    if (!is_dict) {
        if (rx(b, RX_JS_2D, code.s, code.n, 0, true, ov, 2)) {
            struct span all = {code.s + ov[0], ov[1] - ov[0]};
            struct forge_pyval *outer = forge_py_list(a, 4);
            if (!outer)
                return NULL;
            size_t pos = 0, m[4];
            int idx = 0;
            while (pos <= all.n && rx(b, RX_JS_INNER, all.s, all.n, pos, false, m, 1)) {
                struct span in = strip((struct span){all.s + m[2], m[3] - m[2]});
                if (idx == 0 && starts(in, '[')) {
                    in.s++;
                    in.n--;
                }
                size_t n;
                struct span *parts = split_commas(a, in, &n);
                struct forge_pyval *l = parts ? forge_py_list(a, n) : NULL;
                if (!l || forge_py_append(a, outer, l))
                    return NULL;
                for (size_t i = 0; i < n; i++) {
                    struct forge_pyval *x = parse_js_value(a, strip(parts[i]));
                    if (!x || forge_py_append(a, l, x))
                        return NULL;
                }
                idx++;
                pos = m[1] > m[0] ? m[1] : m[1] + 1;
            }
            return outer;
        }
        if (rx(b, RX_JS_1D, code.s, code.n, 0, true, ov, 2)) {
            struct span body = {NULL, 0};
            bool have = false;
            if (ov[2] != UNSET) {
                body = (struct span){code.s + ov[2], ov[3] - ov[2]};
                have = true;
            } else if (ov[4] != UNSET) {
                body = (struct span){code.s + ov[4], ov[5] - ov[4]};
                have = true;
            }
            body = strip(body);
            size_t n = 0;
            struct span *parts = NULL;
            if (have && body.n) {
                parts = split_commas(a, body, &n);
                if (!parts)
                    return NULL;
            }
            struct forge_pyval *l = forge_py_list(a, n);
            if (!l)
                return NULL;
            for (size_t i = 0; i < n; i++) {
                struct span e = strip(parts[i]);
                struct forge_pyval *x;
                if (nested)
                    x = js_value(b, a, e, nested, (starts(e, '\'') || starts(e, '"')) ? "String" : NULL);
                else
                    x = parse_js_value(a, e);
                if (!x || forge_py_append(a, l, x))
                    return NULL;
            }
            return l;
        }
        return str_of(a, code);
    }
    if (eqz(code, "{}"))
        return forge_py_dict(a, 0);
    if (!rx(b, RX_JS_DICT, code.s, code.n, 0, true, ov, 1))
        return str_of(a, code);
    struct span content = {code.s + ov[2], ov[3] - ov[2]};
    struct forge_pyval *d = forge_py_dict(a, 4);
    if (!d)
        return NULL;
    size_t pos = 0, m[6];
    while (pos <= content.n && rx(b, RX_JS_PAIRS, content.s, content.n, pos, false, m, 2)) {
        struct span key = strip_chars(strip((struct span){content.s + m[2], m[3] - m[2]}), "'\"");
        struct span val = strip((struct span){content.s + m[4], m[5] - m[4]});
        struct forge_pyval *x;
        if (starts(val, '[') && ends(val, ']'))
            x = js_collection(b, a, val, false, NULL);
        else if (starts(val, '{') && ends(val, '}'))
            x = js_collection(b, a, val, true, NULL);
        else
            x = parse_js_value(a, strip_chars(val, "'\""));
        char *k = x ? forge_arena_alloc(a, key.n + 1) : NULL;
        if (!k)
            return NULL;
        memcpy(k, key.s, key.n);
        k[key.n] = '\0';
        if (forge_py_set(a, d, k, key.n, x))
            return NULL;
        pos = m[1] > m[0] ? m[1] : m[1] + 1;
    }
    return d;
}

static struct forge_pyval *js_value(struct forge_bfcl *b, struct forge_arena *a, struct span v,
                                    const char *type, const char *nested)
{
    if (!strcmp(type, "String")) {
        if ((starts(v, '"') && ends(v, '"')) || (starts(v, '\'') && ends(v, '\'')))
            return str_of(a, inner(v));
        return str_of(a, v);
    }
    if (!strcmp(type, "integer")) {
        if (!full(b, RX_J_INT, v.s, v.n))
            return str_of(a, v);
        return py_int_or_str(a, v);
    }
    if (!strcmp(type, "float")) {
        double d;
        if (!full(b, RX_JS_FLOAT, v.s, v.n) || forge_py_parse_float(v.s, v.n, &d) != 0)
            return str_of(a, v);
        return forge_py_float(a, d);
    }
    if (!strcmp(type, "Bigint")) {
        if (!full(b, RX_JS_BIGINT, v.s, v.n))
            return str_of(a, v);
        return py_int_or_str(a, drop_last(v));
    }
    if (!strcmp(type, "Boolean")) {
        if (eqz(v, "true"))
            return forge_py_bool(a, true);
        if (eqz(v, "false"))
            return forge_py_bool(a, false);
        return str_of(a, v);
    }
    if (!strcmp(type, "dict"))
        return js_collection(b, a, v, true, nested);
    if (!strcmp(type, "array"))
        return js_collection(b, a, v, false, nested);
    return str_of(a, v); /* any */
}

struct forge_pyval *forge_bfcl_js_value(struct forge_bfcl *b, struct forge_arena *a, const char *s,
                                        size_t n, const char *type, const char *nested)
{
    struct span v = {s, n};
    return js_value(b, a, v, type, nested);
}

/* ---- standardize_string ---- */

/* str.lower() for the scripts that occur in practice: ASCII, Latin-1, Latin Extended-A, Greek
 * and Cyrillic; other code points are kept. Returns bytes written. */
static size_t lower_cp(uint32_t c, char *o)
{
    uint32_t l = c;
    if (c >= 'A' && c <= 'Z')
        l = c + 32;
    else if (c < 0x80)
        l = c;
    else if ((c >= 0xC0 && c <= 0xDE && c != 0xD7))
        l = c + 32;
    else if (c >= 0x100 && c <= 0x137 && !(c & 1))
        l = c + 1;
    else if (c == 0x130) {
        memcpy(o, "i\xCC\x87", 3); /* İ lowers to i + combining dot above */
        return 3;
    } else if (c >= 0x139 && c <= 0x148 && (c & 1))
        l = c + 1;
    else if (c >= 0x14A && c <= 0x177 && !(c & 1))
        l = c + 1;
    else if (c == 0x178)
        l = 0xFF;
    else if (c >= 0x179 && c <= 0x17E && (c & 1))
        l = c + 1;
    else if (c >= 0x391 && c <= 0x3AB && c != 0x3A2)
        l = c + 32;
    else if (c >= 0x388 && c <= 0x38A)
        l = c + 37;
    else if (c == 0x386)
        l = 0x3AC;
    else if (c == 0x38C)
        l = 0x3CC;
    else if (c == 0x38E || c == 0x38F)
        l = c + 63;
    else if (c >= 0x410 && c <= 0x42F)
        l = c + 32;
    else if (c >= 0x400 && c <= 0x40F)
        l = c + 80;
    else if (c >= 0x460 && c <= 0x4BF && !(c & 1))
        l = c + 1;
    if (l < 0x80) {
        o[0] = (char)l;
        return 1;
    }
    if (l < 0x800) {
        o[0] = (char)(0xC0 | (l >> 6));
        o[1] = (char)(0x80 | (l & 0x3F));
        return 2;
    }
    if (l < 0x10000) {
        o[0] = (char)(0xE0 | (l >> 12));
        o[1] = (char)(0x80 | ((l >> 6) & 0x3F));
        o[2] = (char)(0x80 | (l & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (l >> 18));
    o[1] = (char)(0x80 | ((l >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((l >> 6) & 0x3F));
    o[3] = (char)(0x80 | (l & 0x3F));
    return 4;
}

struct forge_pyval *forge_bfcl_standardize(struct forge_arena *a, const char *s, size_t n)
{
    char *o = forge_arena_alloc(a, n * 2 + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        if (c < 0x80) {
            i++;
            switch (c) {
            case ' ': case ',': case '.': case '/': case '-': case '_': case '*': case '^':
                continue;
            case '\'':
                o[k++] = '"';
                continue;
            default:
                o[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
                continue;
            }
        }
        int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (len == 1 || i + (size_t)len > n) {
            o[k++] = (char)c;
            i++;
            continue;
        }
        uint32_t cp = c & (0x3F >> (len - 1));
        for (int j = 1; j < len; j++)
            cp = (cp << 6) | (u[i + j] & 0x3F);
        if (len == 2 || (len == 3 && cp < 0x500)) {
            k += lower_cp(cp, o + k);
        } else {
            memcpy(o + k, s + i, (size_t)len);
            k += (size_t)len;
        }
        i += (size_t)len;
    }
    struct forge_pyval *v = forge_py_str(a, o, k);
    return v;
}
