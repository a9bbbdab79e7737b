/* Eval-file loading and validation. cJSON keeps no positions, so errors are located afterwards
 * by a small scanner that walks the original text along the failing key path. */
#include "eval/evalfile.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/strtab.h"
#include "data/json.h"
#include "data/re.h"
#include "data/yaml.h"
#include "score/template.h"

#include <ctype.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- locating a key path in the text ---- */

static const char *ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Skips a JSON string starting at the quote; returns the position after it. */
static const char *skip_string(const char *p, const char *e)
{
    for (p++; p < e && *p != '"'; p++)
        if (*p == '\\') p++;
    return p < e ? p + 1 : e;
}

static const char *skip_value(const char *p, const char *e)
{
    p = ws(p, e);
    if (p >= e) return e;
    if (*p == '"') return skip_string(p, e);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < e; p++) {
            if (*p == '"') { p = skip_string(p, e) - 1; continue; }
            if (*p == '{' || *p == '[') depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0) return p + 1;
        }
        return e;
    }
    while (p < e && !strchr(",]} \t\r\n", *p)) p++;
    return p;
}

/* Does the JSON string at <p> (a quote) equal <key> (<klen> bytes)? Handles the common escapes. */
static bool key_equals(const char *p, const char *e, const char *key, size_t klen)
{
    size_t i = 0;
    for (p++; p < e && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p + 1 < e) {
            p++;
            switch (*p) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'u': return false; /* rare in keys: give up on the exact position */
            default: ch = *p;
            }
        }
        if (i >= klen || key[i] != ch) return false;
        i++;
    }
    return i == klen;
}

/* Finds the byte offset of the value (or, with <at_key>, of the member's key) at <path>
 * ("[2].expect.toolsCalled", keys also as ["..."]). Falls back to the deepest position found. */
static size_t locate(const char *text, size_t len, const char *path, bool at_key)
{
    const char *e = text + len, *p = ws(text, e), *q = path;
    const char *best = p;
    char key[512];
    while (*q) {
        size_t klen = 0;
        long idx = -1;
        if (q[0] == '[' && q[1] == '"') {
            q += 2;
            while (*q && !(q[0] == '"' && q[1] == ']') && klen < sizeof key - 1) {
                if (*q == '\\' && q[1]) q++;
                key[klen++] = *q++;
            }
            if (*q) q += 2;
        } else if (*q == '[') {
            idx = strtol(q + 1, (char **)&q, 10);
            if (*q == ']') q++;
        } else {
            if (*q == '.') q++;
            while (*q && *q != '.' && *q != '[' && klen < sizeof key - 1) key[klen++] = *q++;
        }
        p = ws(p, e);
        if (idx >= 0) {
            if (p >= e || *p != '[') return (size_t)(best - text);
            p = ws(p + 1, e);
            for (long i = 0; i < idx; i++) {
                p = ws(skip_value(p, e), e);
                if (p < e && *p == ',') p = ws(p + 1, e);
                else return (size_t)(best - text);
            }
            best = p;
            continue;
        }
        if (p >= e || *p != '{') return (size_t)(best - text);
        p = ws(p + 1, e);
        bool found = false;
        while (p < e && *p == '"') {
            const char *kstart = p;
            bool match = key_equals(p, e, key, klen);
            p = ws(skip_string(p, e), e);
            if (p < e && *p == ':') p = ws(p + 1, e);
            if (match) {
                found = true;
                best = (at_key && !*q) ? kstart : p;
                break;
            }
            p = ws(skip_value(p, e), e);
            if (p < e && *p == ',') p = ws(p + 1, e);
        }
        if (!found) return (size_t)(best - text);
    }
    return (size_t)(best - text);
}

/* ---- did you mean ---- */

static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 99;
    int d[65][65];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m) m = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < m) m = d[i - 1][j - 1] + cost;
            d[i][j] = m;
        }
    return d[la][lb];
}

char *forge_evalfile_suggest(const char *key, const char *const *known, char *out, size_t n)
{
    int best = 99;
    out[0] = 0;
    for (; *known; known++) {
        int d = distance(key, *known);
        int limit = (int)strlen(*known) / 3;
        if (limit < 2) limit = 2;
        if (d <= limit && d < best) {
            best = d;
            snprintf(out, n, "%s", *known);
        }
    }
    return out;
}

/* ---- validation ---- */

struct val {
    const char *name, *text; /* text NULL: no positions */
    size_t len;
    size_t skip;             /* text is one case: the length of its "[i]" at the path's start */
    int line0, col0;         /* and where the case starts in its file */
    const cJSON *root;                     /* YAML: the tree the marks belong to */
    const struct forge_yaml_marks *marks;  /* YAML: positions by node (text is then NULL) */
    struct forge_err *err;
    /* The path to the value being checked, as segments (a key, or an index when key is NULL)
     * pushed and popped as the walk goes; its text is made only for an error (path_text). */
    struct {
        const char *key;
        int index;
    } seg[256];
    int nseg;                /* may pass 256 (deeper segments are not named) */
    int skipseg;             /* text is one case: the segments of its "[i]" */
    char path[1024];
    int failed;
};

/* A val with its fields set and its path empty: the segments (4 KiB) and the path's text are
 * written as they are used, not cleared for every case. */
static void val_init(struct val *v, const char *name, const char *text, size_t len, int line0, int col0,
                     struct forge_err *err)
{
    v->name = name;
    v->text = text;
    v->len = len;
    v->skip = 0;
    v->line0 = line0;
    v->col0 = col0;
    v->root = NULL;
    v->marks = NULL;
    v->err = err;
    v->nseg = 0;
    v->skipseg = 0;
    v->path[0] = 0;
    v->failed = 0;
}

static const char *type_name(const cJSON *v)
{
    if (!v) return "nothing";
    if (cJSON_IsString(v)) return "string";
    if (cJSON_IsNumber(v)) return "number";
    if (cJSON_IsBool(v)) return "boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "array";
    return "object";
}

/* The position of the node at <path> in a YAML file: the node's key (with <at_key>) or value, or
 * the deepest node along the path that has a position (a node copied from an alias has its
 * alias's position, its children none). */
static void yaml_locate(const struct val *v, const char *path, bool at_key, int *line, int *col)
{
    const cJSON *cur = v->root;
    *line = *col = 1;
    forge_yaml_mark(v->marks, cur, false, line, col);
    const char *q = path;
    char key[512];
    while (*q && cur) {
        size_t klen = 0;
        long idx = -1;
        if (q[0] == '[' && q[1] == '"') {
            q += 2;
            while (*q && !(q[0] == '"' && q[1] == ']') && klen < sizeof key - 1) key[klen++] = *q++;
            if (*q) q += 2;
        } else if (*q == '[') {
            idx = strtol(q + 1, (char **)&q, 10);
            if (*q == ']') q++;
        } else {
            if (*q == '.') q++;
            while (*q && *q != '.' && *q != '[' && klen < sizeof key - 1) key[klen++] = *q++;
        }
        key[klen] = 0;
        cur = idx >= 0 ? (cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, (int)idx) : NULL)
                       : (cJSON_IsObject(cur) ? forge_json_get(cur, key) : NULL);
        if (!cur) break;
        if (!(at_key && !*q && idx < 0 && forge_yaml_mark(v->marks, cur, true, line, col)))
            forge_yaml_mark(v->marks, cur, false, line, col);
    }
}

static void path_text(struct val *v);
static int failv(struct val *v, bool at_key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failv(struct val *v, bool at_key, const char *fmt, ...)
{
    if (v->failed) return FORGE_EINVAL;
    v->failed = 1;
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    path_text(v);
    const char *path = v->path[0] == '.' ? v->path + 1 : v->path;
    if (v->text || v->marks) {
        int line, col;
        if (v->marks) {
            yaml_locate(v, v->path, at_key, &line, &col);
        } else {
            forge_json_position(v->text, locate(v->text, v->len, v->path + v->skip, at_key), &line, &col);
            if (v->line0) {
                col = line == 1 ? v->col0 + col - 1 : col;
                line = v->line0 + line - 1;
            }
        }
        if (!*path) return forge_err_set(v->err, FORGE_EINVAL, "%s:%d:%d: %s", v->name, line, col, what);
        return forge_err_set(v->err, FORGE_EINVAL, "%s:%d:%d: %s: %s", v->name, line, col, path, what);
    }
    if (v->name) return forge_err_set(v->err, FORGE_EINVAL, "%s: %s: %s", v->name, path, what);
    return forge_err_set(v->err, FORGE_EINVAL, "%s: %s", path, what);
}

/* Appends a key (or index when key is NULL) to the text of the path in v->path. */
static void path_add(struct val *v, const char *key, int index)
{
    size_t old = strlen(v->path);
    char *at = v->path + old;
    size_t room = sizeof v->path - old;
    if (!key) {
        char digits[16];
        int nd = 0;
        unsigned u = index < 0 ? 0u : (unsigned)index;
        do digits[nd++] = (char)('0' + u % 10); while ((u /= 10) && nd < 15);
        if ((size_t)nd + 3 <= room) {
            *at++ = '[';
            while (nd) *at++ = digits[--nd];
            *at++ = ']';
            *at = 0;
        }
        return;
    }
    bool plain = *key != 0;
    size_t klen = 0;
    for (const char *k = key; *k && plain; k++, klen++)
        plain = isalnum((unsigned char)*k) || *k == '_' || *k == '-' || *k == '$';
    if (plain && klen + 2 <= room) { /* the common case, without printf */
        at[0] = '.';
        memcpy(at + 1, key, klen + 1);
    } else if (plain) {
        snprintf(at, room, ".%s", key);
    } else {
        snprintf(at, room, "[\"%s\"]", key);
    }
}

/* Makes v->path the text of the path (and v->skip the length of its first skipseg segments). */
static void path_text(struct val *v)
{
    v->path[0] = 0;
    int n = v->nseg < 256 ? v->nseg : 256;
    for (int i = 0; i < n; i++) {
        if (i == v->skipseg)
            v->skip = strlen(v->path);
        path_add(v, v->seg[i].key, v->seg[i].index);
    }
    if (n <= v->skipseg)
        v->skip = strlen(v->path);
}

/* Pushes a key (or index when key is NULL) onto the path; returns what to pop to. */
static inline int push(struct val *v, const char *key, int index)
{
    if (v->nseg < 256) {
        v->seg[v->nseg].key = key;
        v->seg[v->nseg].index = index;
    }
    return v->nseg++;
}

static inline void pop(struct val *v, int old) { v->nseg = old; }

/* Checks the keys of object <o> against <known>: unknown -> error with a suggestion. */
static int known_keys(struct val *v, const cJSON *o, const char *const *known)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, o) {
        bool ok = false;
        const char *ks = it->string;
        for (const char *const *k = known; *k && !ok; k++)
            ok = (*k)[0] == ks[0] && (!ks[0] || (*k)[1] == ks[1]) && strcmp(*k, ks) == 0;
        if (ok) continue;
        char sug[128];
        forge_evalfile_suggest(it->string, known, sug, sizeof sug);
        int old = push(v, it->string, 0);
        int rc = sug[0] ? failv(v, true, "unknown key \"%s\" (did you mean \"%s\"?)", it->string, sug)
                        : failv(v, true, "unknown key \"%s\"", it->string);
        pop(v, old);
        return rc;
    }
    return 0;
}

static int want_type(struct val *v, const cJSON *x, bool ok, const char *expected)
{
    if (ok) return 0;
    return failv(v, false, "expected %s, got %s", expected, type_name(x));
}

static int v_string(struct val *v, const cJSON *x) { return want_type(v, x, cJSON_IsString(x), "a string"); }
static int v_bool(struct val *v, const cJSON *x) { return want_type(v, x, cJSON_IsBool(x), "a boolean"); }
static int v_object(struct val *v, const cJSON *x) { return want_type(v, x, cJSON_IsObject(x), "an object"); }

static int v_nonneg(struct val *v, const cJSON *x)
{
    if (want_type(v, x, cJSON_IsNumber(x), "a number")) return FORGE_EINVAL;
    if (x->valuedouble < 0 || !isfinite(x->valuedouble)) return failv(v, false, "must be a number >= 0, got %g", x->valuedouble);
    return 0;
}

static int v_count(struct val *v, const cJSON *x)
{
    if (v_nonneg(v, x)) return FORGE_EINVAL;
    if (x->valuedouble != floor(x->valuedouble)) return failv(v, false, "expected a whole number, got %g", x->valuedouble);
    return 0;
}

static int v_regex(struct val *v, const cJSON *x, int flags)
{
    if (v_string(v, x)) return FORGE_EINVAL;
    FORGE_ERR_LOCAL(e);
    /* cached: eval files repeat their patterns, and scoring uses the same cache */
    if (!forge_re_cached(x->valuestring, strlen(x->valuestring), flags, &e)) return failv(v, false, "%s", e.msg);
    return 0;
}

static int no_template(struct val *v, const cJSON *x)
{
    if (cJSON_IsString(x) && forge_template_has(x->valuestring))
        return failv(v, false, "templates ({{seed:...}}, {{snapshot:...}}) are allowed only in responseContains, "
                               "responseContainsAny, responseNotContains and toolParams[].value");
    return 0;
}

/* An array whose elements all pass <each>. */
static int v_array_of(struct val *v, const cJSON *x, int (*each)(struct val *, const cJSON *), const char *what)
{
    if (want_type(v, x, cJSON_IsArray(x), what)) return FORGE_EINVAL;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, x) {
        int old = push(v, NULL, i++);
        int rc = each(v, it);
        pop(v, old);
        if (rc) return rc;
    }
    return 0;
}

#define MAX_NAMES 256

static int v_strings(struct val *v, const cJSON *x)
{
    if (v_array_of(v, x, v_string, "an array of strings")) return FORGE_EINVAL;
    if (cJSON_GetArraySize(x) > MAX_NAMES)
        return failv(v, false, "at most %d entries, got %d (split the case)", MAX_NAMES, cJSON_GetArraySize(x));
    return 0;
}

static int v_plain_string(struct val *v, const cJSON *x) { return v_string(v, x) || no_template(v, x) ? FORGE_EINVAL : 0; }

/* A string or an array of strings (a scalar is wrapped, as upstream does). */
static int v_str_or_strings(struct val *v, const cJSON *x)
{
    if (cJSON_IsString(x)) return 0;
    if (!cJSON_IsArray(x)) return failv(v, false, "expected a string or an array of strings, got %s", type_name(x));
    return v_strings(v, x);
}

static int v_plain_str_or_strings(struct val *v, const cJSON *x)
{
    if (cJSON_IsString(x)) return no_template(v, x);
    if (!cJSON_IsArray(x)) return failv(v, false, "expected a string or an array of strings, got %s", type_name(x));
    if (v_array_of(v, x, v_plain_string, "an array of strings")) return FORGE_EINVAL;
    if (cJSON_GetArraySize(x) > MAX_NAMES)
        return failv(v, false, "at most %d entries, got %d (split the case)", MAX_NAMES, cJSON_GetArraySize(x));
    return 0;
}

static int v_regex_plain(struct val *v, const cJSON *x) { return v_regex(v, x, 0); }

static int v_acceptable_set(struct val *v, const cJSON *x)
{
    if (v_array_of(v, x, v_plain_string, "an array of tool names")) return FORGE_EINVAL;
    if (cJSON_GetArraySize(x) > MAX_NAMES)
        return failv(v, false, "at most %d entries, got %d (split the case)", MAX_NAMES, cJSON_GetArraySize(x));
    return 0;
}

static int v_contains_any(struct val *v, const cJSON *x)
{
    if (want_type(v, x, cJSON_IsArray(x), "an array of strings or an array of arrays of strings")) return FORGE_EINVAL;
    if (cJSON_IsArray(cJSON_GetArrayItem(x, 0))) return v_array_of(v, x, v_strings, "an array of arrays of strings");
    return v_strings(v, x);
}

static const char *const typeof_names[] = {"string", "number", "boolean", "object", "undefined", "function", "bigint", "symbol", NULL};

static int v_typeof(struct val *v, const cJSON *x)
{
    if (v_string(v, x)) return FORGE_EINVAL;
    for (const char *const *t = typeof_names; *t; t++)
        if (strcmp(*t, x->valuestring) == 0) return 0;
    char sug[64];
    forge_evalfile_suggest(x->valuestring, typeof_names, sug, sizeof sug);
    return failv(v, false, "\"%s\" is not a JavaScript typeof name (string, number, boolean, object, undefined)%s%s%s",
                 x->valuestring, sug[0] ? "; did you mean \"" : "", sug, sug[0] ? "\"?" : "");
}

static int v_object_of(struct val *v, const cJSON *x, int (*each)(struct val *, const cJSON *))
{
    if (v_object(v, x)) return FORGE_EINVAL;
    const cJSON *it;
    cJSON_ArrayForEach(it, x) {
        int old = push(v, it->string, 0);
        int rc = each(v, it);
        pop(v, old);
        if (rc) return rc;
    }
    return 0;
}

static int v_enum(struct val *v, const cJSON *x, const char *const *names)
{
    if (v_string(v, x)) return FORGE_EINVAL;
    for (const char *const *n = names; *n; n++)
        if (strcmp(*n, x->valuestring) == 0) return 0;
    char list[256] = "", sug[64];
    for (const char *const *n = names; *n; n++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n == names ? "" : ", ", *n);
    forge_evalfile_suggest(x->valuestring, names, sug, sizeof sug);
    if (sug[0]) return failv(v, false, "\"%s\" is not one of %s (did you mean \"%s\"?)", x->valuestring, list, sug);
    return failv(v, false, "\"%s\" is not one of %s", x->valuestring, list);
}

/* The known keys of an object, found by a hash of a member's name: its length and its first and
 * last bytes, in a table of 64 slots made once. A validator finds the members of an object in
 * one pass (the first of duplicates, as forge_json_get), then looks each known key up by its
 * index. */
struct keyset {
    const char *const *keys; /* NULL-terminated, at most 63 */
    pthread_once_t once;
    unsigned char slot[64];  /* 1 + the index of the key whose hash leads here, or 0 */
    unsigned hash[64];       /* by index */
};

static inline unsigned key_hash(const char *s) { return forge_json_name_hash(s); }
static inline unsigned key_slot(unsigned h) { return forge_json_name_slot(h, 6); }

static void keyset_make(struct keyset *ks)
{
    for (int i = 0; ks->keys[i]; i++) {
        unsigned h = key_hash(ks->keys[i]), s = key_slot(h);
        while (ks->slot[s]) s = (s + 1) & 63;
        ks->slot[s] = (unsigned char)(i + 1);
        ks->hash[i] = h;
    }
}

/* The index of <key> among the set's keys, or -1. */
static int keyset_index(const struct keyset *ks, const char *key)
{
    unsigned h = key_hash(key);
    for (unsigned s = key_slot(h); ks->slot[s]; s = (s + 1) & 63) {
        int i = ks->slot[s] - 1;
        if (ks->hash[i] == h && strcmp(ks->keys[i], key) == 0) return i;
    }
    return -1;
}

/* Fills found[] (by key index, zeroed by the caller) with the members of object <o>; an unknown
 * key fails as known_keys words it. */
static int find_members(struct val *v, const cJSON *o, struct keyset *ks, void (*make)(void), const cJSON **found)
{
    pthread_once(&ks->once, make);
    const cJSON *it;
    cJSON_ArrayForEach(it, o) {
        int i = keyset_index(ks, it->string);
        if (i < 0) {
            int rc = known_keys(v, o, ks->keys);
            if (rc) return rc;
            continue;
        }
        if (!found[i]) found[i] = it;
    }
    return 0;
}

/* Runs <fn> on member <key> of <o> when present, with the path extended. */
#define MEMBER(o, key, fn) do { const cJSON *m_ = forge_json_get((o), (key)); \
    if (m_) { int old_ = push(v, (key), 0); int rc_ = (fn); pop(v, old_); if (rc_) return rc_; } } while (0)
/* The same for member <key> found by find_members (<prefix>_<key> is its index). */
#define MEMBERF(prefix, key, fn) do { const cJSON *m_ = found[prefix##_##key]; \
    if (m_) { int old_ = push(v, #key, 0); int rc_ = (fn); pop(v, old_); if (rc_) return rc_; } } while (0)
#define REQUIRE(o, key, what) do { if (!forge_json_get((o), (key))) \
    return failv(v, false, "missing required key \"%s\" (%s)", (key), (what)); } while (0)

static const char *const param_ops[] = {"equals", "contains", "oneOf", "exists", "notExists", "matches", NULL};
static const char *const param_keys[] = {"tool", "paramName", "assertion", "value", NULL};

static int v_tool_param(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, param_keys)) return FORGE_EINVAL;
    REQUIRE(x, "tool", "the tool's name");
    REQUIRE(x, "paramName", "the argument's name or path");
    REQUIRE(x, "assertion", "equals, contains, oneOf, exists, notExists or matches");
    MEMBER(x, "tool", v_plain_string(v, m_));
    MEMBER(x, "paramName", v_string(v, m_));
    MEMBER(x, "assertion", v_enum(v, m_, param_ops));
    const char *op = forge_json_get(x, "assertion")->valuestring;
    const cJSON *val = forge_json_get(x, "value");
    bool needs = strcmp(op, "exists") != 0 && strcmp(op, "notExists") != 0;
    if (needs && !val) return failv(v, false, "missing required key \"value\" (the %s assertion compares against it)", op);
    if (strcmp(op, "oneOf") == 0) MEMBER(x, "value", want_type(v, m_, cJSON_IsArray(m_), "an array (oneOf lists the allowed values)"));
    if (strcmp(op, "matches") == 0 && !forge_template_has(val->valuestring ? val->valuestring : ""))
        MEMBER(x, "value", v_regex_plain(v, m_));
    return 0;
}

static const char *const matcher_keys[] = {"equals", "regex", "contains", "range", "json_schema", NULL};
static const char *const range_keys[] = {"gte", "lte", "gt", "lt", NULL};

static int v_number(struct val *v, const cJSON *x) { return want_type(v, x, cJSON_IsNumber(x), "a number"); }

static int v_matcher(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, matcher_keys)) return FORGE_EINVAL;
    if (cJSON_GetArraySize(x) != 1)
        return failv(v, false, "a matcher has exactly one of equals, regex, contains, range, json_schema (got %d keys)", cJSON_GetArraySize(x));
    MEMBER(x, "regex", v_regex_plain(v, m_));
    MEMBER(x, "contains", (v_string(v, m_) || (!*m_->valuestring && failv(v, false, "must not be empty"))) ? FORGE_EINVAL : 0);
    MEMBER(x, "json_schema", want_type(v, m_, cJSON_IsObject(m_) || cJSON_IsBool(m_), "a JSON Schema (object or boolean)"));
    const cJSON *r = forge_json_get(x, "range");
    if (r) {
        int old = push(v, "range", 0);
        int rc = v_object(v, r) || known_keys(v, r, range_keys) ? FORGE_EINVAL : 0;
        if (!rc && !r->child) rc = failv(v, false, "needs at least one of gte, lte, gt, lt");
        const cJSON *b;
        cJSON_ArrayForEach(b, r) {
            if (rc) break;
            int o2 = push(v, b->string, 0);
            rc = v_number(v, b);
            pop(v, o2);
        }
        pop(v, old);
        if (rc) return rc;
    }
    return 0;
}

static const char *const waza_expect_keys[] = {"tool", "args", NULL};

static int v_waza_expect(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, waza_expect_keys)) return FORGE_EINVAL;
    const cJSON *t = forge_json_get(x, "tool");
    if (!cJSON_IsString(t) || !*t->valuestring) {
        int old = push(v, "tool", 0);
        int rc = failv(v, false, "required non-empty string (a regex over tool names)");
        pop(v, old);
        return rc;
    }
    MEMBER(x, "tool", v_regex(v, m_, FORGE_RE_CASELESS));
    MEMBER(x, "args", v_object_of(v, m_, v_matcher));
    return 0;
}

static const char *const waza_keys[] = {"required_tools", "forbidden_tools", "min_calls", "max_calls", "expect", NULL};

static int v_waza(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, waza_keys)) return FORGE_EINVAL;
    if (!x->child)
        return failv(v, false, "at least one constraint (required_tools, forbidden_tools, min_calls, max_calls, expect) must be specified");
    MEMBER(x, "required_tools", v_strings(v, m_));
    MEMBER(x, "forbidden_tools", v_strings(v, m_));
    MEMBER(x, "min_calls", v_count(v, m_));
    MEMBER(x, "max_calls", v_count(v, m_));
    MEMBER(x, "expect", v_array_of(v, m_, v_waza_expect, "an array of {tool, args}"));
    const cJSON *mn = forge_json_get(x, "min_calls"), *mx = forge_json_get(x, "max_calls");
    if (mn && mx && mn->valuedouble > mx->valuedouble) {
        int old = push(v, "min_calls", 0);
        int rc = failv(v, false, "min_calls (%g) must not exceed max_calls (%g)", mn->valuedouble, mx->valuedouble);
        pop(v, old);
        return rc;
    }
    return 0;
}

static int v_step(struct val *v, const cJSON *x)
{
    if (cJSON_IsString(x)) return 0;
    if (!cJSON_IsArray(x) || cJSON_GetArraySize(x) == 0)
        return failv(v, false, "expected a tool name or a non-empty array of tool names (one round), got %s", type_name(x));
    return v_strings(v, x);
}

static const char *const seq_keys[] = {"steps", "mode", NULL};
static const char *const seq_modes[] = {"exact", "in_order", "any_order", NULL};

static int v_sequence(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, seq_keys)) return FORGE_EINVAL;
    REQUIRE(x, "steps", "the expected tool names in order");
    MEMBER(x, "steps", v_array_of(v, m_, v_step, "an array of steps"));
    MEMBER(x, "mode", v_enum(v, m_, seq_modes));
    return 0;
}

static const char *const f1_keys[] = {"expected", "threshold", NULL};

static int v_f1(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, f1_keys)) return FORGE_EINVAL;
    REQUIRE(x, "expected", "the expected tool names");
    MEMBER(x, "expected", v_str_or_strings(v, m_));
    MEMBER(x, "threshold", (v_number(v, m_) || ((m_->valuedouble < 0 || m_->valuedouble > 1) &&
                                                 failv(v, false, "must be between 0 and 1, got %g", m_->valuedouble))) ? FORGE_EINVAL : 0);
    return 0;
}

static const char *const targs_keys[] = {"tool", "args", "mode", "ignore", "defaults", NULL};
static const char *const targs_modes[] = {"partial", "exact", NULL};

static int v_tool_args(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, targs_keys)) return FORGE_EINVAL;
    REQUIRE(x, "tool", "the tool's name");
    REQUIRE(x, "args", "the expected arguments");
    MEMBER(x, "tool", v_string(v, m_));
    MEMBER(x, "args", v_object(v, m_));
    MEMBER(x, "mode", v_enum(v, m_, targs_modes));
    MEMBER(x, "ignore", v_strings(v, m_));
    MEMBER(x, "defaults", v_object(v, m_));
    return 0;
}

static int v_schema(struct val *v, const cJSON *x)
{
    return want_type(v, x, cJSON_IsObject(x) || cJSON_IsBool(x), "a JSON Schema (object or boolean)");
}

static int v_true(struct val *v, const cJSON *x) { return v_bool(v, x); }

/* The keys of "expect", in the order they are checked (an error names the first wrong one). */
#define EXPECT_KEYS(X) X(toolsCalled) X(toolsAcceptable) X(toolsNotCalled) X(toolParams) X(noToolErrors) \
    X(responseNonEmpty) X(responseContains) X(responseContainsAny) X(responseNotContains) X(maxLatencyMs) \
    X(maxCost) X(minToolCalls) X(maxToolCalls) X(jsonValid) X(schemaData) X(requiredKeys) X(typeChecks) \
    X(minLength) X(maxLength) X(regexPattern) X(copOutPhrases) X(responseMatches) X(maxTokens) X(tool_calls) \
    X(toolSequence) X(toolCallF1) X(toolArgs) X(argsMatchSchema) X(responseSchema) X(noVerifierBlocks) \
    X(custom) X(weights)
#define KEY_NAME(k) #k,
#define EXPECT_INDEX(k) EX_##k,
enum { EXPECT_KEYS(EXPECT_INDEX) N_EXPECT };
_Static_assert(N_EXPECT < 64, "a keyset holds at most 63 keys");
static const char *const expect_keys[] = {EXPECT_KEYS(KEY_NAME) NULL};
static struct keyset expect_set = {expect_keys, PTHREAD_ONCE_INIT, {0}, {0}};
static void make_expect_set(void) { keyset_make(&expect_set); }

static int v_expect(struct val *v, const cJSON *x)
{
    const cJSON *found[N_EXPECT] = {0};
    if (v_object(v, x) || find_members(v, x, &expect_set, make_expect_set, found)) return FORGE_EINVAL;
    MEMBERF(EX, toolsCalled, v_plain_str_or_strings(v, m_));
    MEMBERF(EX, toolsAcceptable, v_array_of(v, m_, v_acceptable_set, "an array of arrays of tool names"));
    MEMBERF(EX, toolsNotCalled, v_plain_str_or_strings(v, m_));
    MEMBERF(EX, toolParams, v_array_of(v, m_, v_tool_param, "an array of {tool, paramName, assertion, value}"));
    MEMBERF(EX, noToolErrors, v_bool(v, m_));
    MEMBERF(EX, responseNonEmpty, v_bool(v, m_));
    MEMBERF(EX, responseContains, v_str_or_strings(v, m_));
    MEMBERF(EX, responseContainsAny, v_contains_any(v, m_));
    MEMBERF(EX, responseNotContains, v_str_or_strings(v, m_));
    MEMBERF(EX, maxLatencyMs, v_nonneg(v, m_));
    MEMBERF(EX, maxCost, v_nonneg(v, m_));
    MEMBERF(EX, minToolCalls, v_count(v, m_));
    MEMBERF(EX, maxToolCalls, v_count(v, m_));
    MEMBERF(EX, jsonValid, v_bool(v, m_));
    MEMBERF(EX, schemaData, v_object(v, m_));
    MEMBERF(EX, requiredKeys, v_strings(v, m_));
    MEMBERF(EX, typeChecks, v_object_of(v, m_, v_typeof));
    MEMBERF(EX, minLength, v_count(v, m_));
    MEMBERF(EX, maxLength, v_count(v, m_));
    MEMBERF(EX, regexPattern, v_regex_plain(v, m_));
    MEMBERF(EX, copOutPhrases, v_strings(v, m_));
    MEMBERF(EX, responseMatches, cJSON_IsString(m_) ? v_regex_plain(v, m_)
                                                    : v_array_of(v, m_, v_regex_plain, "a regex or an array of regexes"));
    MEMBERF(EX, maxTokens, v_count(v, m_));
    MEMBERF(EX, tool_calls, v_waza(v, m_));
    MEMBERF(EX, toolSequence, v_sequence(v, m_));
    MEMBERF(EX, toolCallF1, v_f1(v, m_));
    MEMBERF(EX, toolArgs, v_array_of(v, m_, v_tool_args, "an array of {tool, args, mode, ignore, defaults}"));
    MEMBERF(EX, argsMatchSchema, v_true(v, m_));
    MEMBERF(EX, responseSchema, v_schema(v, m_));
    MEMBERF(EX, noVerifierBlocks, v_true(v, m_));
    MEMBERF(EX, custom, v_object(v, m_));
    MEMBERF(EX, weights, v_object_of(v, m_, v_nonneg));
    const cJSON *mn = found[EX_minToolCalls], *mx = found[EX_maxToolCalls];
    if (mn && mx && mn->valuedouble > mx->valuedouble) {
        int old = push(v, "minToolCalls", 0);
        int rc = failv(v, false, "minToolCalls (%g) must not exceed maxToolCalls (%g)", mn->valuedouble, mx->valuedouble);
        pop(v, old);
        return rc;
    }
    if (found[EX_requiredKeys] && !found[EX_schemaData])
        return failv(v, false, "requiredKeys needs schemaData (the object it checks)");
    if (found[EX_typeChecks] && !found[EX_schemaData])
        return failv(v, false, "typeChecks needs schemaData (the object it checks)");
    return 0;
}

static const char *const check_keys[] = {"type", "tool", "arg", "value", NULL};
static const char *const check_types[] = {"tool_called", "arg_equals", NULL};

static int v_check(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, check_keys)) return FORGE_EINVAL;
    REQUIRE(x, "type", "tool_called or arg_equals");
    MEMBER(x, "type", v_enum(v, m_, check_types));
    MEMBER(x, "tool", v_plain_string(v, m_));
    MEMBER(x, "arg", v_string(v, m_));
    const char *t = forge_json_get(x, "type")->valuestring;
    if (strcmp(t, "arg_equals") == 0) {
        REQUIRE(x, "arg", "the argument's name");
        REQUIRE(x, "value", "the expected value");
    }
    return 0;
}

static const char *const input_keys[] = {"message", NULL};
static const char *const labels[] = {"correct", "incorrect", "partial", NULL};
/* The keys of a case, in the order they are checked. */
#define CASE_KEYS(X) X(id) X(description) X(difficulty) X(input) X(stubs) X(maxTurns) X(requiresPreamble) \
    X(expect) X(expectedTool) X(expectedArgs) X(checks) X(label) X(expectedTools) X(weight) X(createdAt) \
    X(bugRef) X(tags)
#define CASE_INDEX(k) CK_##k,
enum { CASE_KEYS(CASE_INDEX) N_CASE };
_Static_assert(N_CASE < 64, "a keyset holds at most 63 keys");
static const char *const case_keys[] = {CASE_KEYS(KEY_NAME) NULL};
static struct keyset case_set = {case_keys, PTHREAD_ONCE_INIT, {0}, {0}};
static void make_case_set(void) { keyset_make(&case_set); }

static int v_input(struct val *v, const cJSON *x)
{
    if (v_object(v, x) || known_keys(v, x, input_keys)) return FORGE_EINVAL;
    MEMBER(x, "message", v_plain_string(v, m_));
    return 0;
}

static int v_case(struct val *v, const cJSON *x)
{
    if (want_type(v, x, cJSON_IsObject(x), "a case object")) return FORGE_EINVAL;
    const cJSON *found[N_CASE] = {0};
    if (find_members(v, x, &case_set, make_case_set, found)) return FORGE_EINVAL;
    if (!found[CK_id]) return failv(v, false, "missing required key \"id\" (a unique case id, such as \"gs-get_weather-001\")");
    MEMBERF(CK, id, (v_string(v, m_) || (!*m_->valuestring && failv(v, false, "must not be empty"))) ? FORGE_EINVAL : 0);
    MEMBERF(CK, description, v_string(v, m_));
    MEMBERF(CK, difficulty, v_string(v, m_));
    MEMBERF(CK, input, v_input(v, m_));
    MEMBERF(CK, stubs, v_object(v, m_));
    MEMBERF(CK, maxTurns, (v_count(v, m_) || (m_->valuedouble < 1 && failv(v, false, "must be at least 1"))) ? FORGE_EINVAL : 0);
    MEMBERF(CK, requiresPreamble, v_bool(v, m_));
    MEMBERF(CK, expect, v_expect(v, m_));
    MEMBERF(CK, expectedTool, v_plain_string(v, m_));
    MEMBERF(CK, expectedArgs, v_object(v, m_));
    MEMBERF(CK, checks, v_array_of(v, m_, v_check, "an array of {type, tool, arg, value}"));
    MEMBERF(CK, label, v_enum(v, m_, labels));
    MEMBERF(CK, expectedTools, v_plain_str_or_strings(v, m_));
    MEMBERF(CK, weight, v_nonneg(v, m_));
    MEMBERF(CK, createdAt, v_string(v, m_));
    MEMBERF(CK, bugRef, v_string(v, m_));
    MEMBERF(CK, tags, v_strings(v, m_));
    const cJSON *ch;
    int i = 0;
    cJSON_ArrayForEach(ch, found[CK_checks]) {
        const char *t = forge_json_str(ch, "type");
        if (t && strcmp(t, "tool_called") == 0 && !forge_json_get(ch, "tool") &&
            !found[CK_expectedTool]) {
            int o1 = push(v, "checks", 0), o2 = push(v, NULL, i);
            int rc = failv(v, false, "a tool_called check needs \"tool\" (or the case's expectedTool)");
            pop(v, o2);
            pop(v, o1);
            return rc;
        }
        i++;
    }
    return 0;
}

int forge_evalfile_check_case(const cJSON *kase, struct forge_err *err)
{
    struct val v;
    val_init(&v, NULL, NULL, 0, 0, 0, err);
    return v_case(&v, kase);
}


int forge_evalfile_parse(const char *text, size_t len, const char *name, cJSON **cases, struct forge_err *err)
{
    *cases = NULL;
    struct forge_yaml_marks *marks = NULL;
    bool yaml = forge_yaml_is_path(name);
    cJSON *doc = yaml ? forge_yaml_parse_marked(text, len, name, &marks, err) : forge_json_parse(text, len, name, err);
    if (!doc) return err ? err->code : FORGE_EINVAL;
    struct val v = {.name = name, .text = yaml ? NULL : text, .len = len, .err = err, .root = doc, .marks = marks};
    int rc = 0;
    struct forge_strtab ids = FORGE_STRTAB_INIT;
    if (!cJSON_IsArray(doc)) {
        rc = yaml ? failv(&v, false, "an eval file is a list of cases (in YAML, a sequence: \"- id: ...\"), got %s",
                          type_name(doc))
                  : failv(&v, false, "an eval file is a JSON array of cases (agent-tool-forge's format), got %s",
                          type_name(doc));
        goto out;
    }
    int i = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, doc) {
        int old = push(&v, NULL, i);
        rc = v_case(&v, k);
        if (!rc) {
            const char *id = forge_json_str(k, "id");
            if (forge_strtab_find(&ids, id) >= 0) {
                int o2 = push(&v, "id", 0);
                rc = failv(&v, false, "duplicate case id \"%s\"", id);
                pop(&v, o2);
            } else if (forge_strtab_add(&ids, id) < 0) {
                rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
            }
        }
        pop(&v, old);
        if (rc) goto out;
        i++;
    }
    *cases = doc;
    doc = NULL;
out:
    forge_strtab_free(&ids);
    cJSON_Delete(doc);
    forge_yaml_marks_free(marks);
    return rc;
}

/* "NAME:L:C: what" of a case's text -> the same place in its file. */
static void shift_error(struct forge_err *err, const char *name, int line0, int col0)
{
    if (!err) return;
    size_t n = strlen(name);
    if (strncmp(err->msg, name, n) != 0 || err->msg[n] != ':') return;
    char *rest;
    long l = strtol(err->msg + n + 1, &rest, 10);
    if (*rest != ':') return;
    long c = strtol(rest + 1, &rest, 10);
    if (*rest != ':') return;
    char tail[FORGE_ERR_MAX];
    snprintf(tail, sizeof tail, "%s", rest);
    if (l == 1) c = col0 + c - 1;
    l = line0 + l - 1;
    snprintf(err->msg + n, sizeof err->msg - n, ":%ld:%ld%s", l, c, tail);
}

int forge_evalfile_parse_case(const char *text, size_t len, const char *name, int index, int line, int col,
                              cJSON **kase, struct forge_err *err)
{
    *kase = NULL;
    cJSON *doc = forge_json_parse(text, len, name, err);
    if (!doc) {
        shift_error(err, name, line, col);
        return err ? err->code : FORGE_EINVAL;
    }
    return forge_evalfile_take_case(doc, text, len, name, index, line, col, kase, err);
}

int forge_evalfile_take_case(cJSON *doc, const char *text, size_t len, const char *name, int index, int line,
                             int col, cJSON **kase, struct forge_err *err)
{
    *kase = NULL;
    struct val v;
    val_init(&v, name, text, len, line, col, err);
    push(&v, NULL, index);
    v.skipseg = 1;
    int rc = v_case(&v, doc);
    if (rc) {
        cJSON_Delete(doc);
        return rc;
    }
    *kase = doc;
    return 0;
}

int forge_evalfile_case_error(const char *text, size_t len, const char *name, int index, int line, int col,
                              const char *key, struct forge_err *err, const char *what)
{
    struct val v = {.name = name, .text = text, .len = len, .err = err, .line0 = line, .col0 = col};
    push(&v, NULL, index);
    v.skipseg = 1;
    push(&v, key, 0);
    return failv(&v, false, "%s", what);
}

int forge_evalfile_load(const char *path, cJSON **cases, struct forge_err *err)
{
    char *text = NULL;
    size_t len = 0;
    *cases = NULL;
    int rc = forge_file_read_input(path, &text, &len, err);
    if (rc) return rc;
    rc = forge_evalfile_parse(text, len, path, cases, err);
    forge_free(text);
    return rc;
}
