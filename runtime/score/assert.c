/* The assertion catalogue. Order of the upstream checks follows agent-tool-forge 0.4.11's
 * runChecks (contains, notContains, toolsCalled, latency, jsonValid, schemaData, nonEmpty,
 * length, regex, call count, cost) then responseContainsAny and toolsAcceptable, so failure
 * reasons join in the same order; forge's own assertions follow. */
#include "score/assert.h"
#include "score/template.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/strtab.h"
#include "data/json.h"
#include "data/re.h"
#include "data/schema.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

const char *const forge_assert_copouts[] = {
    "i'm sorry", "i cannot", "i can't", "i don't know", "i am not able to", "as an ai",
    "as a language model", "i don't have access", "i don't have information", "i'm not able to",
    "i am unable to", "unfortunately, i", "i apologize", NULL,
};

/* One tool call of the trajectory, flattened. */
struct call {
    const char *name;
    const cJSON *args;   /* object (borrowed or owned by run.owned) or NULL */
    const cJSON *error;  /* non-null error value or NULL */
    const cJSON *obj;    /* the call object */
    const cJSON *result, *round, *turn_id; /* members of the call and of its turn, or NULL */
    int group;           /* calls with the same group were issued in one round */
};

struct run {
    const char *response;
    struct call *calls;
    int ncalls;
    cJSON *owned; /* arguments parsed from strings */
    bool has_latency, has_cost, has_tokens;
    bool folds; /* folds_to_ascii(response) */
    double latency, cost, out_tokens;
};

#define MAX_EXPECT_KEYS 64

struct ctx {
    const cJSON *kase, *expect;
    /* expect's members with their key hashes: most assertions are absent from a case, so a
     * lookup compares hashes before it compares names */
    const cJSON *members[MAX_EXPECT_KEYS];
    unsigned hashes[MAX_EXPECT_KEYS];
    int nmembers;
    unsigned char slot[2 * MAX_EXPECT_KEYS]; /* 1 + a member's index, by its hash's slot */
    const cJSON *weights; /* expect's "weights", looked up once */
    struct run *r;
    const struct forge_assert_opts *o;
    cJSON *assertions, *warnings;
    struct forge_buf reason; /* failures joined with "; " */
    int skipped;
    double wsum, wscore;
    bool passed;
    int rc; /* FORGE_ENOMEM once out of memory */
    char *scratch;
    struct forge_strtab names; /* the calls' distinct names, built on first use */
    bool names_built;
};

/* ---- small helpers ---- */


/* snprintf that may truncate long names in messages on purpose. */
static void msgf(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void msgf(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, n, fmt, ap);
    va_end(ap);
}

static char *fmt_num(double d, char *out) { return forge_json_number(d, out); }

static bool is_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80) return false;
    return true;
}

static int lower_ascii(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Does <hay> hold one of the three non-ASCII letters whose case folding reaches ASCII (KELVIN
 * SIGN, LONG S, CAPITAL I WITH DOT)? Without them an ASCII needle can only match ASCII bytes. */
static bool folds_to_ascii(const char *hay)
{
    return strstr(hay, "\xe2\x84\xaa") || strstr(hay, "\xc5\xbf") || strstr(hay, "\xc4\xb0");
}

/* forge_assert_icontains with the folds_to_ascii answer for <hay> already known. */
static int icontains(const char *hay, bool hay_folds, const char *needle, struct forge_err *err);

int forge_assert_icontains(const char *hay, const char *needle, struct forge_err *err)
{
    return icontains(hay, folds_to_ascii(hay), needle, err);
}

static int icontains(const char *hay, bool hay_folds, const char *needle, struct forge_err *err)
{
    if (!*needle) return 1;
    if (!hay_folds && is_ascii(needle)) {
        size_t n = strlen(needle);
        /* jump to each place holding the needle's first byte in either case (strpbrk scans
         * many bytes at a time), then compare the rest */
        int f = lower_ascii((unsigned char)needle[0]);
        char first[3] = {(char)f, (char)(f >= 'a' && f <= 'z' ? f - 32 : 0), 0};
        for (const char *h = strpbrk(hay, first); h; h = strpbrk(h + 1, first)) {
            size_t i = 1;
            while (i < n && h[i] && lower_ascii((unsigned char)h[i]) == lower_ascii((unsigned char)needle[i])) i++;
            if (i == n) return 1;
            if (!h[i]) return 0; /* the rest of the text is shorter than the needle */
        }
        return 0;
    }
    /* Unicode: a caseless literal match by PCRE2 (simple case folding). Escape every ASCII
     * non-alphanumeric byte so the needle is taken literally. */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    for (const char *p = needle; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x80 && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            if (c == 0x0a || c == 0x0d || c == 0x09 || c < 0x20) {
                if (forge_buf_addf(&b, "\\x{%x}", c)) goto nomem;
                continue;
            }
            if (forge_buf_addc(&b, '\\')) goto nomem;
        }
        if (forge_buf_addc(&b, (char)c)) goto nomem;
    }
    char *pat = forge_buf_take(&b);
    int rc = forge_re_test(pat, FORGE_RE_CASELESS, hay, err);
    forge_free(pat);
    return rc;
nomem:
    forge_buf_free(&b);
    return forge_err_set(err, FORGE_ENOMEM, "out of memory");
}

/* JavaScript String.prototype.trim(): is <s> only white space (incl. Unicode spaces)? */
static bool blank(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p == ' ' || (*p >= 0x09 && *p <= 0x0d)) { p++; continue; }
        if (p[0] == 0xc2 && p[1] == 0xa0) { p += 2; continue; }                 /* U+00A0 */
        if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80) { p += 3; continue; } /* U+1680 */
        if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 ||
                                             p[2] == 0xa9 || p[2] == 0xaf)) { p += 3; continue; }
        if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f) { p += 3; continue; } /* U+205F */
        if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80) { p += 3; continue; } /* U+3000 */
        if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) { p += 3; continue; } /* U+FEFF */
        return false;
    }
    return true;
}

/* Items of a string-or-array value as an array (scalar wrapped, as upstream's adapter does). */
static int str_items(const cJSON *v, const char **items, int max)
{
    int n = 0;
    if (cJSON_IsString(v)) {
        items[n++] = v->valuestring;
        return n;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, v) {
        if (n < max && cJSON_IsString(it)) items[n++] = it->valuestring;
    }
    return n;
}

static void oom(struct ctx *c) { c->rc = FORGE_ENOMEM; }

/* Member names hashed by data/json's forge_json_name_hash (a constant for the literal keys of
 * ex()); the first slot of a hash in ctx.slot, of 2 * MAX_EXPECT_KEYS (probed onwards). */
static inline unsigned key_hash(const char *s) { return forge_json_name_hash(s); }
static inline unsigned key_slot(unsigned h) { return forge_json_name_slot(h, 7); }

static void index_expect(struct ctx *c)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, c->expect) {
        if (c->nmembers == MAX_EXPECT_KEYS) break; /* validation allows only the known keys */
        unsigned h = key_hash(it->string), s = key_slot(h);
        while (c->slot[s]) s = (s + 1) % (2 * MAX_EXPECT_KEYS);
        c->slot[s] = (unsigned char)(c->nmembers + 1);
        c->members[c->nmembers] = it;
        c->hashes[c->nmembers++] = h;
    }
}

/* The member <key> of the case's expect object (borrowed), or NULL; of duplicates, the first. */
static inline const cJSON *ex(const struct ctx *c, const char *key)
{
    unsigned h = key_hash(key);
    for (unsigned s = key_slot(h); c->slot[s]; s = (s + 1) % (2 * MAX_EXPECT_KEYS)) {
        int i = c->slot[s] - 1;
        if (c->hashes[i] == h && strcmp(c->members[i]->string, key) == 0) return c->members[i];
    }
    return NULL;
}

static void warn(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct ctx *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!cJSON_AddItemToArray(c->warnings, cJSON_CreateString(msg))) oom(c);
}

/* Records one assertion. <reason> may be NULL (passed, nothing to say). */
static double weight_of(const struct ctx *c, const char *type);

static void record(struct ctx *c, const char *type, bool passed, double score, const char *reason)
{
    if (passed && c->o && c->o->lean) {
        double w = weight_of(c, type);
        c->wsum += w;
        c->wscore += w * score;
        return;
    }
    cJSON *a = cJSON_CreateObject();
    if (!a || !forge_json_add_str(a, "type", type) || !forge_json_add_bool(a, "passed", passed) ||
        !forge_json_add_num(a, "score", score) ||
        !(reason ? (void *)forge_json_add_str(a, "reason", reason) : (void *)forge_json_add_null(a, "reason")) ||
        !cJSON_AddItemToArray(c->assertions, a)) {
        cJSON_Delete(a);
        oom(c);
        return;
    }
    double w = weight_of(c, type);
    c->wsum += w;
    c->wscore += w * score;
    if (!passed) {
        c->passed = false;
        if (c->reason.len && forge_buf_adds(&c->reason, "; ")) oom(c);
        if (forge_buf_adds(&c->reason, reason ? reason : type)) oom(c);
    }
}

static double weight_of(const struct ctx *c, const char *type)
{
    const cJSON *ws = c->weights;
    if (!ws) return 1;
    const cJSON *wv = forge_json_get(ws, type);
    if (!wv && strncmp(type, "custom:", 7) == 0) wv = forge_json_get(ws, "custom");
    return cJSON_IsNumber(wv) ? wv->valuedouble : 1;
}

static void pass_fail(struct ctx *c, const char *type, bool ok, const char *reason)
{
    record(c, type, ok, ok ? 1 : 0, ok ? NULL : reason);
}

/* Resolves templates in string <s>: returns a new value, or NULL when unresolved (a warning is
 * added and skippedAssertions counted). */
static cJSON *resolve(struct ctx *c, const char *where, const char *s)
{
    if (!forge_template_has(s)) {
        cJSON *v = cJSON_CreateString(s);
        if (!v) oom(c);
        return v;
    }
    cJSON *v = NULL;
    char why[256];
    FORGE_ERR_LOCAL(e);
    if (forge_template_resolve(s, c->o ? c->o->seed : NULL, c->o ? c->o->snapshot : NULL, &v, why, &e)) {
        oom(c);
        return NULL;
    }
    if (!v) {
        c->skipped++;
        warn(c, "%s: %s is unresolved; value \"%s\" skipped", where, why, s);
    }
    return v;
}

/* The string form of a value: strings as they are, the rest as JSON (new string). */
static char *string_form(const cJSON *v)
{
    if (cJSON_IsString(v)) return forge_strdup(v->valuestring);
    return forge_json_print(v, 0);
}

/* A short JSON rendering for messages (truncated at 200 bytes). */
static void brief(const cJSON *v, char *out, size_t n)
{
    if (!v) {
        msgf(out, n, "(absent)");
        return;
    }
    char *s = forge_json_print(v, 0);
    if (!s) {
        msgf(out, n, "?");
        return;
    }
    if (strlen(s) > 200) msgf(out, n, "%.200s...", s);
    else msgf(out, n, "%s", s);
    forge_free(s);
}

static bool called(const struct run *r, const char *name)
{
    for (int i = 0; i < r->ncalls; i++)
        if (strcmp(r->calls[i].name, name) == 0) return true;
    return false;
}

/* The distinct names of the calls (a table: a case may make tens of thousands of calls, and an
 * expectation list each of them); NULL when out of memory. */
static const struct forge_strtab *call_names(struct ctx *c)
{
    if (!c->names_built) {
        for (int i = 0; i < c->r->ncalls; i++)
            if (forge_strtab_find(&c->names, c->r->calls[i].name) < 0 &&
                forge_strtab_add(&c->names, c->r->calls[i].name) < 0) {
                forge_strtab_free(&c->names);
                oom(c);
                return NULL;
            }
        c->names_built = true;
    }
    return &c->names;
}

/* called() through the table of names past a few calls. */
static bool called_in(struct ctx *c, const char *name)
{
    const struct forge_strtab *t = c->r->ncalls > 16 ? call_names(c) : NULL;
    return t ? forge_strtab_find(t, name) >= 0 : called(c->r, name);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool in_list(const char **v, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return true;
    return false;
}

/* Set comparison of upstream's toolSelection (strict): "missing: a; unexpected: b" (duplicates
 * kept in the message, as upstream filters the lists). */
static void tool_set(struct ctx *c, const char *type, const char **exp, int nexp)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int nm = 0, nx = 0;
    for (int i = 0; i < nexp; i++) {
        if (called_in(c, exp[i])) continue;
        if (forge_buf_adds(&b, nm++ ? ", " : "missing: ") || forge_buf_adds(&b, exp[i])) oom(c);
    }
    for (int i = 0; i < c->r->ncalls; i++) {
        if (in_list(exp, nexp, c->r->calls[i].name)) continue;
        if (forge_buf_adds(&b, nx++ ? ", " : (nm ? "; unexpected: " : "unexpected: ")) ||
            forge_buf_adds(&b, c->r->calls[i].name)) oom(c);
    }
    pass_fail(c, type, nm == 0 && nx == 0, b.data ? b.data : "");
    forge_buf_free(&b);
}

/* ---- upstream checks ---- */

/* Number of items of a string-or-array value. */
static int n_items(const cJSON *v) { return cJSON_IsString(v) ? 1 : cJSON_GetArraySize(v); }

static void check_contains(struct ctx *c, bool negative)
{
    const char *key = negative ? "responseNotContains" : "responseContains";
    const cJSON *v = ex(c, key);
    if (!v) return;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int kept = 0, bad = 0;
    /* the needles: the string, or the strings of the array; a template's resolved value is a
     * string of its own, the others are the case's */
    bool one = cJSON_IsString(v);
    for (const cJSON *it = one ? v : cJSON_IsArray(v) ? v->child : NULL; it; it = one ? NULL : it->next) {
        if (!cJSON_IsString(it)) continue;
        const char *needle = it->valuestring;
        char *owned = NULL;
        if (forge_template_has(needle)) {
            cJSON *s = resolve(c, key, needle);
            if (!s) continue;
            owned = string_form(s);
            cJSON_Delete(s);
            if (!owned) goto nomem;
            needle = owned;
        }
        kept++;
        FORGE_ERR_LOCAL(e);
        int hit = icontains(c->r->response, c->r->folds, needle, &e);
        if (hit < 0) {
            forge_free(owned);
            forge_buf_free(&b);
            record(c, key, false, 0, e.msg);
            return;
        }
        if ((negative && hit) || (!negative && !hit)) {
            if (forge_buf_adds(&b, bad++ ? ", " : (negative ? "Forbidden content found: " : "Missing from response: ")) ||
                forge_buf_adds(&b, needle)) oom(c);
        }
        forge_free(owned);
    }
    if (kept) pass_fail(c, key, bad == 0, b.data);
    forge_buf_free(&b);
    return;
nomem:
    oom(c);
    forge_buf_free(&b);
}

static void check_tools_called(struct ctx *c)
{
    const cJSON *v = ex(c, "toolsCalled");
    if (!v) return;
    int cap = n_items(v);
    const char **items = forge_malloc(((size_t)cap + 1) * sizeof *items);
    if (!items) return oom(c);
    int n = str_items(v, items, cap);
    tool_set(c, "toolsCalled", items, n);
    forge_free(items);
}

static void check_latency(struct ctx *c)
{
    const cJSON *v = ex(c, "maxLatencyMs");
    if (!cJSON_IsNumber(v) || !c->r->has_latency) return;
    if (c->r->latency <= v->valuedouble) return pass_fail(c, "maxLatencyMs", true, NULL);
    char a[40], b[40], msg[160];
    msgf(msg, sizeof msg, "Latency %sms exceeded max %sms", fmt_num(c->r->latency, a), fmt_num(v->valuedouble, b));
    pass_fail(c, "maxLatencyMs", false, msg);
}

/* Whether <text> (the response) is one JSON text by JSON.parse's grammar (RFC 8259), not
 * cJSON's looser reading ("01", "1." and raw control characters fail): 1, or 0 with <msg> =
 * <prefix> + "response:<line>:<col>: <what> near '...'", or FORGE_ENOMEM. */
static int response_json(const char *text, const char *prefix, char *msg, size_t size)
{
    const char *what = NULL;
    size_t len = strlen(text), at = 0;
    int ok = forge_json_syntax(text, len, &at, &what);
    if (ok != 0) return ok;
    int line, col;
    forge_json_position(text, at, &line, &col);
    if (at < len)
        msgf(msg, size, "%sresponse:%d:%d: %s near '%.*s'", prefix, line, col, what,
             (int)(len - at < 12 ? len - at : 12), text + at);
    else
        msgf(msg, size, "%sresponse:%d:%d: %s", prefix, line, col, what);
    return 0;
}

static void check_json_valid(struct ctx *c)
{
    if (!cJSON_IsTrue(ex(c, "jsonValid"))) return;
    char msg[400];
    int ok = response_json(c->r->response, "Invalid JSON: ", msg, sizeof msg);
    if (ok < 0) return oom(c);
    pass_fail(c, "jsonValid", ok, ok ? NULL : msg);
}

static const char *js_typeof(const cJSON *v)
{
    if (!v) return "undefined";
    if (cJSON_IsString(v)) return "string";
    if (cJSON_IsNumber(v)) return "number";
    if (cJSON_IsBool(v)) return "boolean";
    return "object";
}

static void check_schema_data(struct ctx *c)
{
    const cJSON *data = ex(c, "schemaData");
    if (!cJSON_IsObject(data)) return;
    const cJSON *req = ex(c, "requiredKeys");
    const cJSON *types = ex(c, "typeChecks");
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int bad = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, req) {
        if (!cJSON_IsString(it) || forge_json_get(data, it->valuestring)) continue;
        if (forge_buf_adds(&b, bad++ ? ", " : "Missing keys: ") || forge_buf_adds(&b, it->valuestring)) oom(c);
    }
    if (!bad && cJSON_IsObject(types)) {
        cJSON_ArrayForEach(it, types) {
            const char *want = cJSON_IsString(it) ? it->valuestring : "";
            const char *got = js_typeof(forge_json_get(data, it->string));
            if (strcmp(want, got) == 0) continue;
            if (forge_buf_addf(&b, "%s%s: expected %s, got %s", bad++ ? "; " : "Type mismatches: ", it->string, want, got)) oom(c);
        }
    }
    pass_fail(c, "schemaData", bad == 0, b.data);
    forge_buf_free(&b);
}

static void check_non_empty(struct ctx *c)
{
    if (!cJSON_IsTrue(ex(c, "responseNonEmpty")) &&
        !cJSON_IsTrue(forge_json_get(c->kase, "requiresPreamble")))
        return;
    if (blank(c->r->response)) return pass_fail(c, "responseNonEmpty", false, "Response is empty");
    const cJSON *custom = ex(c, "copOutPhrases");
    const char *phrases[256];
    int n = 0;
    if (custom) n = str_items(custom, phrases, 256);
    else
        for (; forge_assert_copouts[n]; n++) phrases[n] = forge_assert_copouts[n];
    /* Answers without the letters whose case folding reaches ASCII (the common case, non-ASCII
     * text included) are lowered once instead of once per phrase: an ASCII phrase then matches
     * exactly where icontains finds it, since other non-ASCII bytes never equal ASCII ones */
    char *lower = NULL;
    if (!c->r->folds && (lower = forge_strdup(c->r->response)))
        for (char *p = lower; *p; p++) *p = (char)lower_ascii((unsigned char)*p);
    for (int i = 0; i < n; i++) {
        FORGE_ERR_LOCAL(e);
        int hit;
        char ph[256];
        if (lower && !custom) {
            hit = strstr(lower, phrases[i]) != NULL; /* the built-in phrases are lower-case ASCII */
        } else if (lower && strlen(phrases[i]) < sizeof ph && is_ascii(phrases[i])) {
            size_t pl = strlen(phrases[i]);
            for (size_t j = 0; j <= pl; j++) ph[j] = (char)lower_ascii((unsigned char)phrases[i][j]);
            hit = strstr(lower, ph) != NULL;
        } else {
            hit = icontains(c->r->response, c->r->folds, phrases[i], &e);
        }
        if (hit != 0) forge_free(lower), lower = NULL;
        if (hit < 0) return pass_fail(c, "responseNonEmpty", false, e.msg);
        if (hit) {
            char msg[512];
            msgf(msg, sizeof msg, "Response contains cop-out phrase: \"%s\"", phrases[i]);
            return pass_fail(c, "responseNonEmpty", false, msg);
        }
    }
    forge_free(lower);
    pass_fail(c, "responseNonEmpty", true, NULL);
}

static void check_length(struct ctx *c)
{
    const cJSON *mn = ex(c, "minLength");
    const cJSON *mx = ex(c, "maxLength");
    if (!cJSON_IsNumber(mn) && !cJSON_IsNumber(mx)) return;
    double len = (double)forge_utf16_len(c->r->response, strlen(c->r->response));
    char a[40], b[40], msg[160];
    if (cJSON_IsNumber(mn) && len < mn->valuedouble) {
        msgf(msg, sizeof msg, "Response length %s is below minimum %s", fmt_num(len, a), fmt_num(mn->valuedouble, b));
        return pass_fail(c, "lengthBounds", false, msg);
    }
    if (cJSON_IsNumber(mx) && len > mx->valuedouble) {
        msgf(msg, sizeof msg, "Response length %s exceeds maximum %s", fmt_num(len, a), fmt_num(mx->valuedouble, b));
        return pass_fail(c, "lengthBounds", false, msg);
    }
    pass_fail(c, "lengthBounds", true, NULL);
}

/* 1 match, 0 no match; on error records a failed assertion of <type> and returns -1. */
static int regex_test(struct ctx *c, const char *type, const char *pattern, int flags, const char *subject)
{
    FORGE_ERR_LOCAL(e);
    int rc = forge_re_test(pattern, flags, subject, &e);
    if (rc < 0) {
        if (rc == FORGE_ENOMEM) oom(c);
        pass_fail(c, type, false, e.msg);
        return -1;
    }
    return rc;
}

static void check_regex(struct ctx *c)
{
    const cJSON *v = ex(c, "regexPattern");
    if (!cJSON_IsString(v) || !*v->valuestring) return;
    int rc = regex_test(c, "regexPattern", v->valuestring, 0, c->r->response);
    if (rc < 0) return;
    if (rc == 1) return pass_fail(c, "regexPattern", true, NULL);
    char msg[1200];
    msgf(msg, sizeof msg, "Response did not match pattern: %s", v->valuestring);
    pass_fail(c, "regexPattern", false, msg);
}

static void check_call_count(struct ctx *c)
{
    const cJSON *mn = ex(c, "minToolCalls");
    const cJSON *mx = ex(c, "maxToolCalls");
    if (!cJSON_IsNumber(mn) && !cJSON_IsNumber(mx)) return;
    double n = c->r->ncalls;
    char a[40], b[40], msg[160];
    if (cJSON_IsNumber(mn) && n < mn->valuedouble) {
        msgf(msg, sizeof msg, "Tool call count %s is below minimum %s", fmt_num(n, a), fmt_num(mn->valuedouble, b));
        return pass_fail(c, "toolCallCount", false, msg);
    }
    if (cJSON_IsNumber(mx) && n > mx->valuedouble) {
        msgf(msg, sizeof msg, "Tool call count %s exceeds maximum %s", fmt_num(n, a), fmt_num(mx->valuedouble, b));
        return pass_fail(c, "toolCallCount", false, msg);
    }
    pass_fail(c, "toolCallCount", true, NULL);
}

static void check_cost(struct ctx *c)
{
    const cJSON *v = ex(c, "maxCost");
    if (!cJSON_IsNumber(v) || !c->r->has_cost) return;
    if (c->r->cost <= v->valuedouble) return pass_fail(c, "maxCost", true, NULL);
    char msg[160];
    msgf(msg, sizeof msg, "Cost $%.6f exceeded budget $%.6f", c->r->cost, v->valuedouble);
    pass_fail(c, "maxCost", false, msg);
}

static void check_contains_any(struct ctx *c)
{
    const cJSON *v = ex(c, "responseContainsAny");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) return;
    bool flat = !cJSON_IsArray(cJSON_GetArrayItem(v, 0));
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int groups = 0, bad = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, v) {
        const cJSON *group = flat ? v : g;
        const cJSON *it;
        int kept = 0;
        bool hit = false;
        struct forge_buf names;
        forge_buf_init(&names, 0);
        cJSON_ArrayForEach(it, group) {
            if (!cJSON_IsString(it)) continue;
            cJSON *s = resolve(c, "responseContainsAny", it->valuestring);
            if (!s) continue;
            char *needle = string_form(s);
            cJSON_Delete(s);
            if (!needle) { oom(c); continue; }
            if (forge_buf_adds(&names, kept++ ? ", " : "") || forge_buf_adds(&names, needle)) oom(c);
            if (strstr(c->r->response, needle)) hit = true;
            forge_free(needle);
        }
        if (kept == 0) {
            warn(c, "responseContainsAny: a group has no resolved value; group skipped");
        } else {
            groups++;
            if (!hit && forge_buf_addf(&b, "%sresponse should contain any of [%s]", bad++ ? "; " : "",
                                       names.data ? names.data : "")) oom(c);
        }
        forge_buf_free(&names);
        if (flat) break;
    }
    if (groups) pass_fail(c, "responseContainsAny", bad == 0, b.data);
    forge_buf_free(&b);
}

static void check_acceptable(struct ctx *c)
{
    const cJSON *v = ex(c, "toolsAcceptable");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) return;
    bool ok = false;
    const cJSON *set;
    cJSON_ArrayForEach(set, v) {
        const char *items[512];
        int n = str_items(set, items, 512);
        if (in_list(items, n, "__none__") && c->r->ncalls == 0) { ok = true; break; }
        /* every item called, and no other name called: as many distinct items as names */
        bool eq = true;
        for (int i = 0; i < n && eq; i++) eq = called_in(c, items[i]);
        const struct forge_strtab *names = eq ? call_names(c) : NULL;
        if (eq && names) {
            qsort(items, (size_t)n, sizeof *items, cmp_str);
            size_t distinct = 0;
            for (int i = 0; i < n; i++) distinct += !i || strcmp(items[i], items[i - 1]) != 0;
            eq = distinct == names->n;
        }
        if (!names) eq = false;
        if (eq) { ok = true; break; }
    }
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (!ok) {
        if (forge_buf_adds(&b, "tools: [")) oom(c);
        for (int i = 0; i < c->r->ncalls; i++)
            if (forge_buf_addf(&b, "%s%s", i ? ", " : "", c->r->calls[i].name)) oom(c);
        if (forge_buf_adds(&b, "] not in any acceptable set")) oom(c);
    }
    pass_fail(c, "toolsAcceptable", ok, b.data);
    forge_buf_free(&b);
}

/* ---- documented but never implemented upstream ---- */

static void check_not_called(struct ctx *c)
{
    const cJSON *v = ex(c, "toolsNotCalled");
    if (!v) return;
    const char *items[1024];
    int n = str_items(v, items, 1024), bad = 0;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    for (int i = 0; i < n; i++) {
        if (!called_in(c, items[i]) || in_list(items, i, items[i])) continue;
        if (forge_buf_adds(&b, bad++ ? ", " : "Tools that must not be called were called: ") ||
            forge_buf_adds(&b, items[i])) oom(c);
    }
    pass_fail(c, "toolsNotCalled", bad == 0, b.data);
    forge_buf_free(&b);
}

/* Does <got> (may be NULL: absent) satisfy a toolParams assertion against <want>? */
static int param_ok(struct ctx *c, const char *op, const cJSON *got, const cJSON *want)
{
    if (strcmp(op, "exists") == 0) return got != NULL;
    if (strcmp(op, "notExists") == 0) return got == NULL;
    if (!got) return 0;
    if (strcmp(op, "equals") == 0) return forge_json_equal(got, want);
    if (strcmp(op, "oneOf") == 0) {
        const cJSON *it;
        cJSON_ArrayForEach(it, want)
            if (forge_json_equal(got, it)) return 1;
        return 0;
    }
    if (strcmp(op, "contains") == 0) {
        if (cJSON_IsArray(got)) {
            const cJSON *it;
            cJSON_ArrayForEach(it, got)
                if (forge_json_equal(it, want)) return 1;
            return 0;
        }
        if (!cJSON_IsString(got)) return 0;
        char *needle = string_form(want);
        if (!needle) return oom(c), 0;
        int hit = strstr(got->valuestring, needle) != NULL;
        forge_free(needle);
        return hit;
    }
    if (strcmp(op, "matches") == 0) {
        char *s = string_form(got);
        if (!s) return oom(c), 0;
        FORGE_ERR_LOCAL(e);
        int rc = forge_re_test(cJSON_IsString(want) ? want->valuestring : "", 0, s, &e);
        forge_free(s);
        return rc == 1;
    }
    return 0;
}

/* Resolves templates in a toolParams value (a string, or the strings of a oneOf array). NULL
 * when unresolved. */
static cJSON *resolve_value(struct ctx *c, const char *where, const cJSON *v)
{
    if (cJSON_IsString(v)) return resolve(c, where, v->valuestring);
    if (cJSON_IsArray(v)) {
        cJSON *out = cJSON_CreateArray();
        if (!out) return oom(c), NULL;
        const cJSON *it;
        cJSON_ArrayForEach(it, v) {
            cJSON *r = cJSON_IsString(it) ? resolve(c, where, it->valuestring) : cJSON_Duplicate(it, 1);
            if (r) cJSON_AddItemToArray(out, r);
        }
        if (cJSON_GetArraySize(out) == 0 && cJSON_GetArraySize(v) > 0) {
            cJSON_Delete(out);
            return NULL;
        }
        return out;
    }
    cJSON *d = v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
    if (!d) oom(c);
    return d;
}

/* Whether resolving <v> (resolve_value) could change it: a string, or an array's string, holding
 * a template. */
static bool has_template(const cJSON *v)
{
    if (cJSON_IsString(v)) return forge_template_has(v->valuestring);
    if (!cJSON_IsArray(v)) return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
        if (cJSON_IsString(it) && forge_template_has(it->valuestring)) return true;
    return false;
}

/* The place of a toolParams entry in warnings and messages ("toolParams TOOL.PARAM"). */
static const char *param_place(char *out, size_t n, const char *tool, const char *param)
{
    msgf(out, n, "toolParams %s.%s", tool, param);
    return out;
}

static void check_tool_params(struct ctx *c)
{
    const cJSON *v = ex(c, "toolParams");
    const cJSON *p;
    cJSON_ArrayForEach(p, v) {
        const char *tool = forge_json_str(p, "tool"), *param = forge_json_str(p, "paramName");
        const char *op = forge_json_str(p, "assertion");
        if (!tool || !param || !op) continue;
        /* (the place, for warnings and messages: written only when one is) */
        char where[600];
        if (!called_in(c, tool)) {
            c->skipped++;
            warn(c, "%s: skipped: %s was not called", param_place(where, sizeof where, tool, param), tool);
            continue;
        }
        const cJSON *raw = forge_json_get(p, "value");
        bool exists = strcmp(op, "exists") == 0 || strcmp(op, "notExists") == 0;
        /* the value as the case has it, or resolved (a copy) when it holds a template; an
         * absent value is null */
        const cJSON *want = NULL;
        cJSON *owned = NULL;
        if (!exists && raw && !has_template(raw)) {
            want = raw;
        } else if (!exists) {
            if (!(owned = resolve_value(c, param_place(where, sizeof where, tool, param), raw))) continue;
            want = owned;
        }
        bool ok = false;
        const cJSON *first = NULL;
        bool seen = false;
        for (int i = 0; i < c->r->ncalls && !ok; i++) {
            if (strcmp(c->r->calls[i].name, tool) != 0) continue;
            const cJSON *got = c->r->calls[i].args ? forge_json_at(c->r->calls[i].args, param) : NULL;
            if (!seen) first = got, seen = true;
            ok = param_ok(c, op, got, want) == 1;
        }
        if (ok) {
            pass_fail(c, "toolParams", true, NULL);
            cJSON_Delete(owned);
            continue;
        }
        char wbuf[256], gbuf[256], msg[900];
        param_place(where, sizeof where, tool, param);
        brief(want, wbuf, sizeof wbuf);
        brief(first, gbuf, sizeof gbuf);
        if (exists)
            msgf(msg, sizeof msg, "%s: no call of %s satisfies %s (got %s)", where, tool, op, gbuf);
        else
            msgf(msg, sizeof msg, "%s: no call of %s satisfies %s %s (got %s)", where, tool, op, wbuf, gbuf);
        pass_fail(c, "toolParams", ok, msg);
        cJSON_Delete(owned);
    }
}

static void check_response_matches(struct ctx *c)
{
    const cJSON *v = ex(c, "responseMatches");
    if (!v) return;
    const char *items[256];
    int n = str_items(v, items, 256), bad = 0;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    for (int i = 0; i < n; i++) {
        int rc = regex_test(c, "responseMatches", items[i], 0, c->r->response);
        if (rc < 0) goto out;
        if (rc == 0 && forge_buf_addf(&b, "%sResponse did not match pattern: %s", bad++ ? "; " : "", items[i])) oom(c);
    }
    if (n) pass_fail(c, "responseMatches", bad == 0, b.data);
out:
    forge_buf_free(&b);
}

static void check_max_tokens(struct ctx *c)
{
    const cJSON *v = ex(c, "maxTokens");
    if (!cJSON_IsNumber(v) || !c->r->has_tokens) return;
    if (c->r->out_tokens <= v->valuedouble) return pass_fail(c, "maxTokens", true, NULL);
    char a[40], b[40], msg[160];
    msgf(msg, sizeof msg, "Output tokens %s exceeded max %s", fmt_num(c->r->out_tokens, a), fmt_num(v->valuedouble, b));
    pass_fail(c, "maxTokens", false, msg);
}

static void check_no_tool_errors(struct ctx *c)
{
    if (!cJSON_IsTrue(ex(c, "noToolErrors"))) return;
    const cJSON *stubs = forge_json_get(c->kase, "stubs");
    bool stub_mode = cJSON_IsObject(stubs) && stubs->child;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int nerr = 0, nmiss = 0;
    for (int i = 0; i < c->r->ncalls; i++) {
        const struct call *k = &c->r->calls[i];
        if (!k->error) continue;
        char *e = string_form(k->error);
        if (forge_buf_addf(&b, "%s%s: %s", nerr++ ? ", " : "tool errors: ", k->name, e ? e : "?")) oom(c);
        forge_free(e);
    }
    if (stub_mode) {
        for (int i = 0; i < c->r->ncalls; i++) {
            const char *n = c->r->calls[i].name;
            if (forge_json_get(stubs, n)) continue;
            bool dup = false;
            for (int j = 0; j < i && !dup; j++) dup = strcmp(c->r->calls[j].name, n) == 0;
            if (dup) continue;
            if (forge_buf_addf(&b, "%s%s", nmiss++ ? ", " : (nerr ? "; noToolErrors: tools called without stubs: ["
                                                                   : "noToolErrors: tools called without stubs: ["), n)) oom(c);
        }
        if (nmiss && forge_buf_adds(&b, "]")) oom(c);
    }
    pass_fail(c, "noToolErrors", nerr == 0 && nmiss == 0, b.data);
    forge_buf_free(&b);
}

/* ---- checks form ---- */

static void arg_equals(struct ctx *c, const char *tool, const char *arg, const cJSON *want)
{
    char msg[900], wbuf[256], gbuf[256];
    if (!tool) {
        msgf(msg, sizeof msg, "arg_equals %s: no tool named (set the check's tool or the case's expectedTool)", arg);
        return pass_fail(c, "arg_equals", false, msg);
    }
    const cJSON *first = NULL;
    bool seen = false, ok = false;
    for (int i = 0; i < c->r->ncalls && !ok; i++) {
        if (strcmp(c->r->calls[i].name, tool) != 0) continue;
        const cJSON *got = c->r->calls[i].args ? forge_json_at(c->r->calls[i].args, arg) : NULL;
        if (!seen) first = got, seen = true;
        ok = got && forge_json_equal(got, want);
    }
    if (ok) return pass_fail(c, "arg_equals", true, NULL);
    brief(want, wbuf, sizeof wbuf);
    brief(first, gbuf, sizeof gbuf);
    if (!seen) msgf(msg, sizeof msg, "arg_equals %s.%s: %s was not called", tool, arg, tool);
    else msgf(msg, sizeof msg, "arg_equals %s.%s: expected %s, got %s", tool, arg, wbuf, gbuf);
    pass_fail(c, "arg_equals", ok, msg);
}

static void check_checks_form(struct ctx *c)
{
    const cJSON *k = c->kase;
    const char *tool = forge_json_str(k, "expectedTool");
    const cJSON *eargs = forge_json_get(k, "expectedArgs");
    const cJSON *checks = forge_json_get(k, "checks");
    const cJSON *ch;
    char msg[600];
    /* expectedTool implies tool_called unless a check says it already */
    bool have_called = false;
    cJSON_ArrayForEach(ch, checks) {
        const char *t = forge_json_str(ch, "type"), *ct = forge_json_str(ch, "tool");
        if (t && strcmp(t, "tool_called") == 0 && tool && ct && strcmp(ct, tool) == 0) have_called = true;
    }
    if (tool && !have_called) {
        msgf(msg, sizeof msg, "tool \"%s\" was not called", tool);
        pass_fail(c, "tool_called", called_in(c, tool), msg);
    }
    cJSON_ArrayForEach(ch, checks) {
        const char *t = forge_json_str(ch, "type");
        if (!t) continue;
        if (strcmp(t, "tool_called") == 0) {
            const char *ct = forge_json_str(ch, "tool");
            if (!ct) ct = tool;
            if (!ct) continue;
            msgf(msg, sizeof msg, "tool \"%s\" was not called", ct);
            pass_fail(c, "tool_called", called_in(c, ct), msg);
        } else if (strcmp(t, "arg_equals") == 0) {
            const char *ct = forge_json_str(ch, "tool"), *arg = forge_json_str(ch, "arg");
            if (!arg) continue;
            const cJSON *val = forge_json_get(ch, "value");
            cJSON *nul = NULL;
            if (!val) val = nul = cJSON_CreateNull();
            arg_equals(c, ct ? ct : tool, arg, val);
            cJSON_Delete(nul);
        }
    }
    const cJSON *a;
    cJSON_ArrayForEach(a, eargs) {
        bool dup = false;
        cJSON_ArrayForEach(ch, checks) {
            const char *t = forge_json_str(ch, "type"), *arg = forge_json_str(ch, "arg");
            const char *ct = forge_json_str(ch, "tool");
            if (t && arg && strcmp(t, "arg_equals") == 0 && strcmp(arg, a->string) == 0 &&
                (!ct || (tool && strcmp(ct, tool) == 0))) dup = true;
        }
        if (!dup) arg_equals(c, tool, a->string, a);
    }
    const cJSON *et = forge_json_get(k, "expectedTools");
    if (et) {
        const char *items[1024];
        int n = str_items(et, items, 1024);
        tool_set(c, "expectedTools", items, n);
    }
}

/* ---- forge's additions ---- */

/* Compiled JSON Schemas of assertions, by canonical text: cases share schemas (a tool's
 * arguments, a response shape), and compiling costs far more than printing. At most
 * SCHEMA_CACHE are kept for the life of the process; past that, schemas compile per call.
 * Returns the validator (borrowed, or in *own for the caller to free) or NULL with <e>. */
#define SCHEMA_CACHE 256
static struct {
    char *key;
    struct forge_schema *s;
} schema_cache[SCHEMA_CACHE];
static int schema_cache_n;
static pthread_mutex_t schema_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct forge_schema *schema_get(const cJSON *schema, struct forge_schema **own,
                                             struct forge_err *e)
{
    *own = NULL;
    char *key = forge_json_print(schema, FORGE_JSON_SORTED);
    if (key) {
        pthread_mutex_lock(&schema_cache_lock);
        for (int i = 0; i < schema_cache_n; i++) {
            if (!strcmp(schema_cache[i].key, key)) {
                const struct forge_schema *hit = schema_cache[i].s;
                pthread_mutex_unlock(&schema_cache_lock);
                forge_free(key);
                return hit;
            }
        }
        pthread_mutex_unlock(&schema_cache_lock);
    }
    struct forge_schema *s = forge_schema_compile(schema, NULL, e);
    if (!s || !key) {
        forge_free(key);
        return *own = s;
    }
    pthread_mutex_lock(&schema_cache_lock);
    if (schema_cache_n < SCHEMA_CACHE) {
        schema_cache[schema_cache_n].key = key;
        schema_cache[schema_cache_n++].s = s;
        key = NULL;
    } else {
        *own = s;
    }
    pthread_mutex_unlock(&schema_cache_lock);
    forge_free(key);
    return s;
}

/* waza's argument matcher: NULL when <got> satisfies <m>, else a new failure message. */
static char *arg_matcher(struct ctx *c, const char *key, const cJSON *got, const cJSON *m)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    char gb[256], wb[256];
    if (!got) {
        forge_buf_addf(&b, "argument \"%s\": not present on tool call", key);
        return forge_buf_take(&b);
    }
    const cJSON *x;
    brief(got, gb, sizeof gb);
    if ((x = forge_json_get(m, "equals"))) {
        if (forge_json_equal(got, x)) return NULL;
        brief(x, wb, sizeof wb);
        forge_buf_addf(&b, "argument \"%s\": expected %s, got %s", key, wb, gb);
    } else if ((x = forge_json_get(m, "regex"))) {
        char *s = string_form(got);
        FORGE_ERR_LOCAL(e);
        int rc = s ? forge_re_test(x->valuestring, 0, s, &e) : FORGE_ENOMEM;
        forge_free(s);
        if (rc == 1) return NULL;
        if (rc < 0) forge_buf_addf(&b, "argument \"%s\": %s", key, e.msg);
        else forge_buf_addf(&b, "argument \"%s\": %s does not match regex \"%s\"", key, gb, x->valuestring);
    } else if ((x = forge_json_get(m, "contains"))) {
        char *s = string_form(got);
        bool hit = s && strstr(s, x->valuestring);
        forge_free(s);
        if (hit) return NULL;
        forge_buf_addf(&b, "argument \"%s\": %s does not contain \"%s\"", key, gb, x->valuestring);
    } else if ((x = forge_json_get(m, "range"))) {
        if (!cJSON_IsNumber(got)) {
            forge_buf_addf(&b, "argument \"%s\": %s is not a number", key, gb);
            return forge_buf_take(&b);
        }
        double d = got->valuedouble;
        const cJSON *gte = forge_json_get(x, "gte"), *lte = forge_json_get(x, "lte");
        const cJSON *gt = forge_json_get(x, "gt"), *lt = forge_json_get(x, "lt");
        char nb[40];
        if (gte && !(d >= gte->valuedouble)) forge_buf_addf(&b, "argument \"%s\": %s is not >= %s", key, gb, fmt_num(gte->valuedouble, nb));
        else if (lte && !(d <= lte->valuedouble)) forge_buf_addf(&b, "argument \"%s\": %s is not <= %s", key, gb, fmt_num(lte->valuedouble, nb));
        else if (gt && !(d > gt->valuedouble)) forge_buf_addf(&b, "argument \"%s\": %s is not > %s", key, gb, fmt_num(gt->valuedouble, nb));
        else if (lt && !(d < lt->valuedouble)) forge_buf_addf(&b, "argument \"%s\": %s is not < %s", key, gb, fmt_num(lt->valuedouble, nb));
        else return NULL;
    } else if ((x = forge_json_get(m, "json_schema"))) {
        FORGE_ERR_LOCAL(e);
        struct forge_schema *own = NULL;
        const struct forge_schema *s = schema_get(x, &own, &e);
        if (!s) {
            forge_buf_addf(&b, "argument \"%s\": invalid json_schema: %s", key, e.msg);
            return forge_buf_take(&b);
        }
        cJSON *errs = NULL;
        int rc = forge_schema_validate(s, got, &errs);
        forge_schema_free(own);
        if (rc == 1) return NULL;
        if (rc < 0) {
            forge_buf_addf(&b, "argument \"%s\": json_schema could not be evaluated: %s", key,
                           rc == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(rc));
            cJSON_Delete(errs);
            return forge_buf_take(&b);
        }
        const char *first = errs ? forge_json_str(cJSON_GetArrayItem(errs, 0), "error") : NULL;
        forge_buf_addf(&b, "argument \"%s\": does not match json_schema: %s", key, first ? first : "validation failed");
        cJSON_Delete(errs);
    }
    (void)c;
    return forge_buf_take(&b);
}

static void check_waza(struct ctx *c)
{
    const cJSON *g = ex(c, "tool_calls");
    if (!cJSON_IsObject(g)) return;
    int total = 0, ok = 0;
    struct forge_buf b;
    forge_buf_init(&b, 0);
#define FAIL_(...) do { if (forge_buf_addf(&b, "%s", b.len ? "; " : "") || forge_buf_addf(&b, __VA_ARGS__)) oom(c); } while (0)
    const cJSON *it;
    cJSON_ArrayForEach(it, forge_json_get(g, "required_tools")) {
        total++;
        if (called_in(c, it->valuestring)) ok++;
        else FAIL_("required tool \"%s\" was not called", it->valuestring);
    }
    cJSON_ArrayForEach(it, forge_json_get(g, "forbidden_tools")) {
        total++;
        if (!called_in(c, it->valuestring)) ok++;
        else FAIL_("forbidden tool \"%s\" was called", it->valuestring);
    }
    const cJSON *mn = forge_json_get(g, "min_calls"), *mx = forge_json_get(g, "max_calls");
    if (cJSON_IsNumber(mn)) {
        total++;
        if (c->r->ncalls >= mn->valuedouble) ok++;
        else FAIL_("expected at least %d tool calls, got %d", mn->valueint, c->r->ncalls);
    }
    if (cJSON_IsNumber(mx)) {
        total++;
        if (c->r->ncalls <= mx->valuedouble) ok++;
        else FAIL_("expected at most %d tool calls, got %d", mx->valueint, c->r->ncalls);
    }
    int idx = 0;
    cJSON_ArrayForEach(it, forge_json_get(g, "expect")) {
        total++;
        const char *pat = forge_json_str(it, "tool");
        const cJSON *args = forge_json_get(it, "args");
        bool matched = false, name_hit = false;
        char *why = NULL;
        for (int i = 0; i < c->r->ncalls && !matched; i++) {
            FORGE_ERR_LOCAL(e);
            if (forge_re_test(pat ? pat : "", FORGE_RE_CASELESS, c->r->calls[i].name, &e) != 1) continue;
            name_hit = true;
            char *fail = NULL;
            const cJSON *m;
            cJSON_ArrayForEach(m, args) {
                const cJSON *got = c->r->calls[i].args ? forge_json_get(c->r->calls[i].args, m->string) : NULL;
                if ((fail = arg_matcher(c, m->string, got, m))) break;
            }
            if (!fail) matched = true;
            else if (!why) why = fail;
            else forge_free(fail);
        }
        if (matched) ok++;
        else if (!name_hit) FAIL_("expect[%d] (tool \"%s\"): no tool call with matching name", idx, pat ? pat : "");
        else FAIL_("expect[%d] (tool \"%s\"): %s", idx, pat ? pat : "", why ? why : "no match");
        forge_free(why);
        idx++;
    }
#undef FAIL_
    double score = total ? (double)ok / total : 1;
    record(c, "tool_calls", ok == total, score, ok == total ? "all tool_calls checks passed" : b.data);
    forge_buf_free(&b);
}

/* Names of the calls in group <gi> (first index and count). */
struct group { int first, n; };

static int groups_of(const struct run *r, struct group *g)
{
    int n = 0;
    for (int i = 0; i < r->ncalls; i++) {
        if (n && r->calls[i].group == r->calls[g[n - 1].first].group) g[n - 1].n++;
        else g[n].first = i, g[n].n = 1, n++;
    }
    return n;
}

static bool group_has(const struct run *r, const struct group *g, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (strcmp(r->calls[g->first + i].name, name) == 0) return true;
    return false;
}

/* Does step <s> (a name or an array of names) match group <g>? exact: the same names (as a
 * multiset); otherwise: the group contains every name. */
static bool step_matches(const struct run *r, const cJSON *s, const struct group *g, bool exact)
{
    if (cJSON_IsString(s)) {
        if (exact) return g->n == 1 && strcmp(r->calls[g->first].name, s->valuestring) == 0;
        return group_has(r, g, s->valuestring);
    }
    int n = cJSON_GetArraySize(s);
    if (exact && n != g->n) return false;
    bool used[256] = {0};
    const cJSON *it;
    cJSON_ArrayForEach(it, s) {
        bool found = false;
        for (int i = 0; i < g->n && i < 256 && !found; i++) {
            if (!used[i] && strcmp(r->calls[g->first + i].name, it->valuestring) == 0) used[i] = found = true;
        }
        if (!found) return false;
    }
    return true;
}

static void render_groups(struct forge_buf *b, const struct run *r, const struct group *g, int n)
{
    forge_buf_adds(b, "[");
    for (int i = 0; i < n; i++) {
        if (i) forge_buf_adds(b, ", ");
        if (g[i].n > 1) forge_buf_adds(b, "[");
        for (int j = 0; j < g[i].n; j++) forge_buf_addf(b, "%s%s", j ? ", " : "", r->calls[g[i].first + j].name);
        if (g[i].n > 1) forge_buf_adds(b, "]");
    }
    forge_buf_adds(b, "]");
}

static void render_steps(struct forge_buf *b, const cJSON *steps)
{
    forge_buf_adds(b, "[");
    int i = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, steps) {
        if (i++) forge_buf_adds(b, ", ");
        if (cJSON_IsString(s)) {
            forge_buf_adds(b, s->valuestring);
            continue;
        }
        forge_buf_adds(b, "[");
        int j = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, s) forge_buf_addf(b, "%s%s", j++ ? ", " : "", it->valuestring);
        forge_buf_adds(b, "]");
    }
    forge_buf_adds(b, "]");
}

static void check_sequence(struct ctx *c)
{
    const cJSON *v = ex(c, "toolSequence");
    if (!cJSON_IsObject(v)) return;
    const cJSON *steps = forge_json_get(v, "steps");
    const char *mode = forge_json_str(v, "mode");
    if (!mode) mode = "in_order";
    struct group *g = forge_calloc((size_t)c->r->ncalls + 1, sizeof *g);
    if (!g) return oom(c);
    int ng = groups_of(c->r, g), ns = cJSON_GetArraySize(steps);
    bool ok = false;
    if (strcmp(mode, "exact") == 0) {
        ok = ng == ns;
        const cJSON *st = cJSON_IsArray(steps) ? steps->child : NULL;
        for (int i = 0; i < ns && ok; i++, st = st->next) ok = step_matches(c->r, st, &g[i], true);
    } else if (strcmp(mode, "any_order") == 0) {
        bool *used = forge_calloc((size_t)ng + 1, 1);
        if (!used) { forge_free(g); return oom(c); }
        ok = true;
        const cJSON *s;
        cJSON_ArrayForEach(s, steps) {
            bool found = false;
            for (int i = 0; i < ng && !found; i++)
                if (!used[i] && step_matches(c->r, s, &g[i], false)) used[i] = found = true;
            if (!found) { ok = false; break; }
        }
        forge_free(used);
    } else { /* in_order: a subsequence of the rounds; extras allowed between */
        int gi = 0;
        const cJSON *s;
        ok = true;
        cJSON_ArrayForEach(s, steps) {
            while (gi < ng && !step_matches(c->r, s, &g[gi], false)) gi++;
            if (gi == ng) { ok = false; break; }
            gi++;
        }
    }
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (!ok) {
        forge_buf_adds(&b, "expected tool sequence ");
        render_steps(&b, steps);
        forge_buf_addf(&b, " (%s), got ", mode);
        render_groups(&b, c->r, g, ng);
    }
    pass_fail(c, "toolSequence", ok, b.data);
    forge_buf_free(&b);
    forge_free(g);
}

static void check_f1(struct ctx *c)
{
    const cJSON *v = ex(c, "toolCallF1");
    if (!cJSON_IsObject(v)) return;
    const cJSON *ev = forge_json_get(v, "expected");
    double threshold = forge_json_num(v, "threshold", 1.0);
    const char *exp[1024];
    int ne = 0;
    char *copy = NULL;
    if (cJSON_IsString(ev)) { /* comma-separated, as promptfoo accepts */
        copy = forge_strdup(ev->valuestring);
        if (!copy) return oom(c);
        for (char *tok = strtok(copy, ","); tok && ne < 1024; tok = strtok(NULL, ",")) {
            while (*tok == ' ') tok++;
            char *e = tok + strlen(tok);
            while (e > tok && e[-1] == ' ') *--e = 0;
            if (*tok && !in_list(exp, ne, tok)) exp[ne++] = tok;
        }
    } else {
        const cJSON *it;
        cJSON_ArrayForEach(it, ev)
            if (cJSON_IsString(it) && ne < 1024 && !in_list(exp, ne, it->valuestring)) exp[ne++] = it->valuestring;
    }
    /* the distinct names called, and how many of them are expected: both lists sorted, so that
     * tens of thousands of calls take a sort, not a scan each */
    int na = 0, inter = 0, n = c->r->ncalls;
    const char **names = n ? forge_malloc((size_t)n * sizeof *names) : NULL;
    if (n && !names) {
        forge_free(copy);
        return oom(c);
    }
    for (int i = 0; i < n; i++) names[i] = c->r->calls[i].name;
    if (n > 1) qsort(names, (size_t)n, sizeof *names, cmp_str);
    if (ne > 1) qsort(exp, (size_t)ne, sizeof *exp, cmp_str);
    for (int i = 0; i < n; i++) {
        if (i && strcmp(names[i], names[i - 1]) == 0) continue;
        na++;
        if (bsearch(&names[i], exp, (size_t)ne, sizeof *exp, cmp_str)) inter++;
    }
    forge_free(names);
    double precision = na ? (double)inter / na : (ne ? 0 : 1);
    double recall = ne ? (double)inter / ne : (na ? 0 : 1);
    double f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0;
    char msg[200] = "", tb[40];
    if (f1 < threshold) msgf(msg, sizeof msg, "tool-call F1 %.4g (precision %.4g, recall %.4g) is below threshold %s", f1,
             precision, recall, fmt_num(threshold, tb));
    record(c, "toolCallF1", f1 >= threshold, f1, f1 >= threshold ? NULL : msg);
    forge_free(copy);
}

/* Removes ignored keys (names or globs) and top-level keys equal to their declared default. */
static void strip_args(cJSON *o, const cJSON *ignore, const cJSON *defaults)
{
    cJSON *it = o ? o->child : NULL;
    while (it) {
        cJSON *next = it->next;
        bool drop = false;
        const cJSON *ig;
        cJSON_ArrayForEach(ig, ignore)
            if (cJSON_IsString(ig) && fnmatch(ig->valuestring, it->string, 0) == 0) drop = true;
        const cJSON *d = defaults ? forge_json_get(defaults, it->string) : NULL;
        if (d && forge_json_equal(d, it)) drop = true;
        if (drop) cJSON_Delete(cJSON_DetachItemViaPointer(o, it));
        it = next;
    }
}

/* Recursive subset: every key of <want> is in <got> with a matching value; arrays match
 * element by element with the same length; scalars by JSON equality. */
static bool partial_match(const cJSON *want, const cJSON *got)
{
    if (cJSON_IsObject(want)) {
        if (!cJSON_IsObject(got)) return false;
        const cJSON *it;
        cJSON_ArrayForEach(it, want) {
            const cJSON *g = forge_json_get(got, it->string);
            if (!g || !partial_match(it, g)) return false;
        }
        return true;
    }
    if (cJSON_IsArray(want)) {
        if (!cJSON_IsArray(got) || cJSON_GetArraySize(want) != cJSON_GetArraySize(got)) return false;
        const cJSON *w = want->child, *g = got->child;
        for (; w && g; w = w->next, g = g->next)
            if (!partial_match(w, g)) return false;
        return true;
    }
    return forge_json_equal(want, got);
}

static void check_tool_args(struct ctx *c)
{
    const cJSON *v = ex(c, "toolArgs");
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        const char *tool = forge_json_str(e, "tool");
        const char *mode = forge_json_str(e, "mode");
        bool exact = mode && strcmp(mode, "exact") == 0;
        const cJSON *ignore = forge_json_get(e, "ignore");
        const cJSON *defaults = forge_json_get(e, "defaults");
        cJSON *want = cJSON_Duplicate(forge_json_get(e, "args"), 1);
        if (!want) want = cJSON_CreateObject();
        if (!want || !tool) { cJSON_Delete(want); if (!want) oom(c); continue; }
        strip_args(want, ignore, defaults);
        bool ok = false, seen = false;
        for (int i = 0; i < c->r->ncalls && !ok; i++) {
            if (strcmp(c->r->calls[i].name, tool) != 0) continue;
            seen = true;
            cJSON *got = c->r->calls[i].args ? cJSON_Duplicate(c->r->calls[i].args, 1) : cJSON_CreateObject();
            if (!got) { oom(c); break; }
            strip_args(got, ignore, defaults);
            ok = exact ? forge_json_equal(want, got) : partial_match(want, got);
            cJSON_Delete(got);
        }
        char wb[256] = "", msg[600] = "";
        if (!ok) brief(want, wb, sizeof wb);
        if (!seen) msgf(msg, sizeof msg, "toolArgs: %s was not called", tool);
        else msgf(msg, sizeof msg, "toolArgs: no call of %s has arguments matching %s (%s)", tool, wb, exact ? "exact" : "partial");
        pass_fail(c, "toolArgs", ok, msg);
        cJSON_Delete(want);
    }
}

/* Validates <inst> against <schema>: NULL when valid, else a new message. */
static char *schema_check(const cJSON *schema, const cJSON *inst)
{
    FORGE_ERR_LOCAL(e);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    struct forge_schema *own = NULL;
    const struct forge_schema *s = schema_get(schema, &own, &e);
    if (!s) {
        forge_buf_addf(&b, "invalid schema: %s", e.msg);
        return forge_buf_take(&b);
    }
    cJSON *errs = NULL;
    int rc = forge_schema_validate(s, inst, &errs);
    forge_schema_free(own);
    if (rc == 1) return NULL;
    const cJSON *first = cJSON_GetArrayItem(errs, 0);
    const char *loc = forge_json_str(first, "instanceLocation");
    const char *msg = forge_json_str(first, "error");
    if (rc < 0) forge_buf_addf(&b, "schema validation failed: %s", rc == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(rc));
    else forge_buf_addf(&b, "%s%s%s", loc && *loc ? loc : "", loc && *loc ? ": " : "", msg ? msg : "does not match the schema");
    cJSON_Delete(errs);
    return forge_buf_take(&b);
}

static void check_args_schema(struct ctx *c)
{
    if (!cJSON_IsTrue(ex(c, "argsMatchSchema"))) return;
    const cJSON *tools = c->o ? c->o->tools : NULL;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int bad = 0, checked = 0;
    for (int i = 0; i < c->r->ncalls; i++) {
        const struct call *k = &c->r->calls[i];
        const cJSON *schema = tools ? forge_json_get(tools, k->name) : NULL;
        if (!schema) {
            bool dup = false;
            for (int j = 0; j < i && !dup; j++) dup = strcmp(c->r->calls[j].name, k->name) == 0;
            if (!dup) warn(c, "argsMatchSchema: no schema is known for tool %s (give it with --tools)", k->name);
            continue;
        }
        checked++;
        cJSON *empty = NULL;
        const cJSON *args = k->args ? k->args : (empty = cJSON_CreateObject());
        char *fail = schema_check(schema, args);
        cJSON_Delete(empty);
        if (!fail) continue;
        if (forge_buf_addf(&b, "%s%s arguments: %s", bad++ ? "; " : "", k->name, fail)) oom(c);
        forge_free(fail);
    }
    (void)checked;
    pass_fail(c, "argsMatchSchema", bad == 0, b.data);
    forge_buf_free(&b);
}

static void check_response_schema(struct ctx *c)
{
    const cJSON *schema = ex(c, "responseSchema");
    if (!schema) return;
    char jmsg[400];
    int ok = response_json(c->r->response, "response is not JSON: ", jmsg, sizeof jmsg);
    if (ok < 0) return oom(c);
    if (!ok) return pass_fail(c, "responseSchema", false, jmsg);
    FORGE_ERR_LOCAL(e);
    cJSON *v = forge_json_parse(c->r->response, strlen(c->r->response), "response", &e);
    if (!v) {
        char msg[FORGE_ERR_MAX + 40];
        msgf(msg, sizeof msg, "response is not JSON: %s", e.msg);
        return pass_fail(c, "responseSchema", false, msg);
    }
    char *fail = schema_check(schema, v);
    cJSON_Delete(v);
    char msg[1200];
    msgf(msg, sizeof msg, "response does not match responseSchema: %s", fail ? fail : "");
    pass_fail(c, "responseSchema", fail == NULL, msg);
    forge_free(fail);
}

static void check_verifiers(struct ctx *c)
{
    if (!cJSON_IsTrue(ex(c, "noVerifierBlocks"))) return;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int bad = 0;
    for (int i = 0; i < c->r->ncalls; i++) {
        const cJSON *vf = forge_json_get(c->r->calls[i].obj, "verifier");
        const char *outcome = forge_json_str(vf, "outcome");
        if (!outcome || strcmp(outcome, "block") != 0) continue;
        const char *m = forge_json_str(vf, "message"), *name = forge_json_str(vf, "name");
        if (forge_buf_addf(&b, "%sverifier %s%s%sblocked %s%s%s", bad++ ? "; " : "", name ? "\"" : "", name ? name : "",
                           name ? "\" " : "", c->r->calls[i].name, m ? ": " : "", m ? m : "")) oom(c);
    }
    pass_fail(c, "noVerifierBlocks", bad == 0, b.data);
    forge_buf_free(&b);
}

/* The `run` record a custom assertion receives, as cJSON nodes laid out in one block that refer
 * to the trajectory (and to arguments parsed from text, owned by the run): nothing is copied and
 * no node is allocated on its own. The nodes are never passed to cJSON_Delete; the block is freed
 * with free_record. */
struct record_block {
    cJSON *nodes, *heap;
    cJSON local[6 + 7 * 4]; /* enough for four calls without allocating */
};

static void add_node(cJSON *parent, cJSON *n)
{
    if (!parent->child) {
        parent->child = n;
    } else {
        cJSON *last = parent->child->prev;
        last->next = n;
        n->prev = last;
    }
    parent->child->prev = n; /* cJSON keeps the last child in the first's prev */
}

/* <n> as a member <key> (a literal) of <parent>: a reference to <src>, or null when <src> is NULL. */
static void add_ref(cJSON *parent, cJSON *n, const char *key, const cJSON *src)
{
    if (src) {
        *n = *src;
        n->type = (src->type & 0xFF) | cJSON_IsReference;
    } else {
        memset(n, 0, sizeof *n);
        n->type = cJSON_NULL;
    }
    n->next = n->prev = NULL;
    n->string = (char *)key;
    n->type |= cJSON_StringIsConst;
    add_node(parent, n);
}

/* cJSON's valueint for <d>. */
static int json_int(double d)
{
    return d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
}

static void free_record(struct record_block *b)
{
    forge_free(b->heap);
}

/* <n> as a reference to <src> named <key> (a literal), or null when <src> is NULL; unlinked. */
static void put_ref(cJSON *n, const char *key, const cJSON *src)
{
    if (src) {
        *n = *src;
        n->type = (src->type & 0xFF) | cJSON_IsReference | cJSON_StringIsConst;
        n->next = n->prev = NULL;
    } else {
        *n = (cJSON){.type = cJSON_NULL | cJSON_StringIsConst};
    }
    n->string = (char *)key;
}

/* Links the <n> nodes at <first> as the children of <parent>, in order. */
static void link_children(cJSON *parent, cJSON *first, int n)
{
    parent->child = first;
    for (int i = 0; i < n; i++) {
        first[i].prev = i ? &first[i - 1] : &first[n - 1]; /* cJSON keeps the last in the first's prev */
        first[i].next = i + 1 < n ? &first[i + 1] : NULL;
    }
}

/* Lays out {response, tool_calls, trajectory, latency_ms, cost_usd} for <traj> and its run <r>,
 * tool_calls being [{name, arguments, result, error, round, turn_id}]: the record's members
 * first, then each call's object and members. NULL when out of memory. */
static cJSON *build_record(const cJSON *traj, const struct run *r, struct record_block *b)
{
    size_t need = 6 + 7 * (size_t)r->ncalls;
    b->heap = NULL;
    b->nodes = b->local;
    if (need > sizeof b->local / sizeof b->local[0]) {
        if (!(b->heap = forge_calloc(need, sizeof *b->heap))) return NULL;
        b->nodes = b->heap;
    }
    cJSON *v = b->nodes, *m = v + 1;
    *v = (cJSON){.type = cJSON_Object};
    m[0] = (cJSON){.type = cJSON_String | cJSON_IsReference | cJSON_StringIsConst, .string = (char *)"response",
                   .valuestring = (char *)r->response};
    m[1] = (cJSON){.type = cJSON_Array | cJSON_StringIsConst, .string = (char *)"tool_calls"};
    put_ref(&m[2], "trajectory", traj);
    int nm = 3;
    /* absent when unmeasured, so that a script sees nil */
    if (r->has_latency) m[nm++] = (cJSON){.type = cJSON_Number | cJSON_StringIsConst, .string = (char *)"latency_ms",
                                          .valuedouble = r->latency, .valueint = json_int(r->latency)};
    if (r->has_cost) m[nm++] = (cJSON){.type = cJSON_Number | cJSON_StringIsConst, .string = (char *)"cost_usd",
                                       .valuedouble = r->cost, .valueint = json_int(r->cost)};
    link_children(v, m, nm);
    cJSON *o = m + nm;
    for (int i = 0; i < r->ncalls; i++, o += 7) {
        const struct call *c = &r->calls[i];
        cJSON *cm = o + 1;
        *o = (cJSON){.type = cJSON_Object};
        cm[0] = (cJSON){.type = cJSON_String | cJSON_IsReference | cJSON_StringIsConst, .string = (char *)"name",
                        .valuestring = (char *)c->name};
        if (c->args) put_ref(&cm[1], "arguments", c->args); /* parsed from text: owned by the run */
        else cm[1] = (cJSON){.type = cJSON_Object | cJSON_StringIsConst, .string = (char *)"arguments"};
        put_ref(&cm[2], "result", c->result);
        put_ref(&cm[3], "error", c->error);
        put_ref(&cm[4], "round", c->round);
        put_ref(&cm[5], "turn_id", c->turn_id);
        link_children(o, cm, 6);
    }
    if (r->ncalls) {
        /* the calls' objects, 7 nodes apart */
        cJSON *first = m + nm;
        m[1].child = first;
        for (int i = 0; i < r->ncalls; i++) {
            first[7 * i].prev = i ? &first[7 * (i - 1)] : &first[7 * (r->ncalls - 1)];
            first[7 * i].next = i + 1 < r->ncalls ? &first[7 * (i + 1)] : NULL;
        }
    }
    return v;
}

static void check_custom(struct ctx *c, const cJSON *traj)
{
    const cJSON *v = ex(c, "custom");
    if (!cJSON_IsObject(v) || !v->child) return;
    struct record_block block;
    cJSON *run = build_record(traj, c->r, &block);
    if (!run) return oom(c);
    /* {"run": RUN, "expected": EXPECTED}, as nodes on the stack that refer to both */
    cJSON args, run_ref, expected;
    memset(&args, 0, sizeof args);
    args.type = cJSON_Object;
    add_ref(&args, &run_ref, "run", run);
    const cJSON *it;
    cJSON_ArrayForEach(it, v) {
        char type[300];
        size_t nlen = strlen(it->string);
        if (nlen > sizeof type - 8) nlen = sizeof type - 8;
        memcpy(type, "custom:", 7);
        memcpy(type + 7, it->string, nlen);
        type[7 + nlen] = '\0';
        const struct forge_callable *fn = c->o && c->o->custom ? c->o->custom(c->o->custom_ctx, it->string) : NULL;
        if (!fn) {
            char msg[400];
            msgf(msg, sizeof msg, "no custom assertion named \"%s\" is registered", it->string);
            pass_fail(c, type, false, msg);
            continue;
        }
        run_ref.next = NULL;
        args.child->prev = &run_ref;
        add_ref(&args, &expected, "expected", it);
        cJSON *res = NULL;
        FORGE_ERR_LOCAL(e);
        int rc = fn->call(fn->ctx, &args, &res, &e);
        if (rc) {
            if (rc == FORGE_ENOMEM) oom(c);
            pass_fail(c, type, false, e.msg[0] ? e.msg : forge_rc_name(rc));
            cJSON_Delete(res);
            continue;
        }
        double threshold = cJSON_IsObject(it) ? forge_json_num(it, "threshold", 0.5) : 0.5;
        const cJSON *val = res, *why = NULL;
        if (cJSON_IsArray(res)) { /* (value, reason) as multiple returns */
            val = cJSON_GetArrayItem(res, 0);
            why = cJSON_GetArrayItem(res, 1);
        }
        bool pass = false;
        double score = 0;
        const char *reason = cJSON_IsString(why) ? why->valuestring : NULL;
        if (cJSON_IsBool(val)) {
            pass = cJSON_IsTrue(val);
            score = pass ? 1 : 0;
        } else if (cJSON_IsNumber(val)) {
            score = val->valuedouble;
            pass = score >= threshold;
        } else if (cJSON_IsObject(val)) {
            const cJSON *p = forge_json_get(val, "pass");
            const cJSON *s = forge_json_get(val, "score");
            const cJSON *r = forge_json_get(val, "reason");
            if (cJSON_IsNumber(s)) score = s->valuedouble;
            if (cJSON_IsBool(p)) pass = cJSON_IsTrue(p);
            else pass = cJSON_IsNumber(s) && score >= threshold;
            if (!cJSON_IsNumber(s)) score = pass ? 1 : 0;
            if (cJSON_IsString(r)) reason = r->valuestring;
        } else {
            reason = "the custom assertion returned no boolean, number or {pass, score, reason}";
        }
        /* a trailing reason (`return ok, "why"`) explains a failure; a passing one drops it */
        if (pass && cJSON_IsArray(res) && !cJSON_IsObject(val)) reason = NULL;
        char msg[1200];
        if (!pass && !reason) {
            char sb[40];
            msgf(msg, sizeof msg, "custom assertion \"%s\" failed (score %s)", it->string, fmt_num(score, sb));
            reason = msg;
        }
        record(c, type, pass, score, reason);
        cJSON_Delete(res);
    }
    free_record(&block);
}

/* ---- the run view ---- */

/* The members of a turn that scoring reads, found in one pass over the turn. */
struct turn_view {
    bool agent;
    const cJSON *content, *latency, *calls, *turn_id;
};

static void scan_turn(const cJSON *t, struct turn_view *v)
{
    memset(v, 0, sizeof *v);
    const cJSON *it;
    cJSON_ArrayForEach(it, t) {
        const char *k = it->string;
        if (!k) continue;
        switch (k[0]) {
        case 'r':
            if (strcmp(k, "role") == 0 && cJSON_IsString(it))
                v->agent = strcmp(it->valuestring, "agent") == 0 || strcmp(it->valuestring, "assistant") == 0;
            break;
        case 'c': if (strcmp(k, "content") == 0) v->content = it; break;
        case 'l': if (strcmp(k, "latency_ms") == 0) v->latency = it; break;
        case 't':
            if (k[1] == 'o' && strcmp(k, "tool_calls") == 0) v->calls = it;
            else if (k[1] == 'u' && strcmp(k, "turn_id") == 0) v->turn_id = it;
            break;
        default: break;
        }
    }
}

static int build_run(const cJSON *traj, struct run *r)
{
    memset(r, 0, sizeof *r);
    r->response = "";
    const cJSON *turns = NULL, *meta = NULL, *it;
    cJSON_ArrayForEach(it, traj) {
        if (!it->string) continue;
        if (strcmp(it->string, "turns") == 0) turns = it;
        else if (strcmp(it->string, "metadata") == 0) meta = it;
    }
    const cJSON *t, *k;
    int n = 0;
    double lat = 0;
    bool turn_lat = false;
    struct turn_view tv;
    cJSON_ArrayForEach(t, turns) {
        scan_turn(t, &tv);
        if (!tv.agent) continue;
        n += cJSON_GetArraySize(tv.calls);
        r->response = cJSON_IsString(tv.content) ? tv.content->valuestring : "";
        if (cJSON_IsNumber(tv.latency)) lat += tv.latency->valuedouble, turn_lat = true;
    }
    r->calls = forge_calloc((size_t)n + 1, sizeof *r->calls);
    if (!r->calls) return FORGE_ENOMEM;
    int group = 0;
    cJSON_ArrayForEach(t, turns) {
        scan_turn(t, &tv);
        if (!tv.agent) continue;
        int last_round = -1;
        cJSON_ArrayForEach(k, tv.calls) {
            struct call *c = &r->calls[r->ncalls++];
            c->obj = k;
            c->name = "";
            const cJSON *a = NULL, *e = NULL, *rd = NULL;
            c->turn_id = tv.turn_id;
            cJSON_ArrayForEach(it, k) {
                const char *key = it->string;
                if (!key) continue;
                switch (key[0]) {
                case 'n': if (strcmp(key, "name") == 0 && cJSON_IsString(it)) c->name = it->valuestring; break;
                case 'a': if (strcmp(key, "arguments") == 0) a = it; break;
                case 'e': if (strcmp(key, "error") == 0) e = it; break;
                case 'r':
                    if (key[1] == 'o' && strcmp(key, "round") == 0) rd = it;
                    else if (key[1] == 'e' && strcmp(key, "result") == 0) c->result = it;
                    break;
                default: break;
                }
            }
            if (cJSON_IsString(a)) { /* arguments as JSON text, as OpenAI sends them */
                cJSON *p = cJSON_Parse(a->valuestring);
                if (p) {
                    if (!r->owned && !(r->owned = cJSON_CreateArray())) {
                        cJSON_Delete(p);
                        return FORGE_ENOMEM;
                    }
                    cJSON_AddItemToArray(r->owned, p);
                    a = p;
                }
            }
            c->args = a;
            c->error = e && !cJSON_IsNull(e) && !cJSON_IsFalse(e) ? e : NULL;
            c->round = rd;
            if (cJSON_IsNumber(rd) && rd->valueint == last_round) c->group = group;
            else c->group = ++group;
            last_round = cJSON_IsNumber(rd) ? rd->valueint : -1;
        }
    }
    r->folds = folds_to_ascii(r->response);
    cJSON_ArrayForEach(it, meta) {
        const char *key = it->string;
        if (!key || !cJSON_IsNumber(it)) continue;
        if (strcmp(key, "latency_ms") == 0) r->has_latency = true, r->latency = it->valuedouble;
        else if (strcmp(key, "cost_usd") == 0) r->has_cost = true, r->cost = it->valuedouble;
        else if (strcmp(key, "output_tokens") == 0) r->has_tokens = true, r->out_tokens = it->valuedouble;
    }
    if (!r->has_latency && turn_lat) r->has_latency = true, r->latency = lat;
    return 0;
}

static void free_run(struct run *r)
{
    forge_free(r->calls);
    cJSON_Delete(r->owned);
}

cJSON *forge_assert_run_view(const cJSON *traj)
{
    struct run r;
    cJSON *v = NULL;
    if (build_run(traj, &r) == 0) {
        struct record_block block;
        cJSON *rec = build_record(traj, &r, &block);
        if (rec) v = cJSON_Duplicate(rec, 1);
        if (rec) free_record(&block);
    }
    free_run(&r);
    return v;
}

/* ---- the case ---- */

static cJSON *new_result(const cJSON *kase)
{
    cJSON *res = cJSON_CreateObject();
    if (!res) return NULL;
    const char *id = forge_json_str(kase, "id"), *desc = forge_json_str(kase, "description");
    const char *label = forge_json_str(kase, "label");
    forge_json_add_str(res, "id", id ? id : "");
    if (desc) forge_json_add_str(res, "description", desc);
    if (label) forge_json_add_str(res, "label", label);
    return res;
}

int forge_assert_case(const cJSON *kase, const cJSON *traj, const struct forge_assert_opts *opts,
                      cJSON **out, struct forge_err *err)
{
    *out = NULL;
    struct run r;
    memset(&r, 0, sizeof r);
    struct ctx c;
    memset(&c, 0, sizeof c);
    forge_buf_init(&c.reason, 0);
    cJSON *res = new_result(kase);
    if (!res) goto nomem;
    double weight = forge_json_num(kase, "weight", 1);
    const cJSON *input = forge_json_get(kase, "input");
    const char *message = forge_json_str(input, "message");
    if (!traj) {
        forge_json_add_bool(res, "passed", false);
        forge_json_add_lit(res, "error", "no transcript for this case");
        forge_json_add_num(res, "score", 0);
        forge_json_add_num(res, "weight", weight);
        forge_json_add_num(res, "durationMs", 0);
        forge_json_add_lit(res, "reason", "no transcript for this case");
        forge_json_add_arr(res, "assertions");
        goto done;
    }
    if (!message || !*message) {
        forge_json_add_bool(res, "passed", false);
        forge_json_add_bool(res, "skipped", true);
        forge_json_add_num(res, "score", 0);
        forge_json_add_num(res, "weight", weight);
        forge_json_add_num(res, "durationMs", 0);
        forge_json_add_lit(res, "reason", "no input message");
        forge_json_add_arr(res, "assertions");
        goto done;
    }
    if (build_run(traj, &r)) goto nomem;
    c.kase = kase;
    c.expect = forge_json_get(kase, "expect");
    index_expect(&c);
    c.weights = ex(&c, "weights");
    c.r = &r;
    c.o = opts;
    c.passed = true;
    c.assertions = cJSON_CreateArray();
    c.warnings = cJSON_CreateArray();
    if (!c.assertions || !c.warnings) goto nomem;

    check_contains(&c, false);
    check_contains(&c, true);
    check_tools_called(&c);
    check_latency(&c);
    check_json_valid(&c);
    check_schema_data(&c);
    check_non_empty(&c);
    check_length(&c);
    check_regex(&c);
    check_call_count(&c);
    check_cost(&c);
    check_contains_any(&c);
    check_acceptable(&c);
    check_not_called(&c);
    check_tool_params(&c);
    check_response_matches(&c);
    check_max_tokens(&c);
    check_no_tool_errors(&c);
    check_checks_form(&c);
    check_waza(&c);
    check_sequence(&c);
    check_f1(&c);
    check_tool_args(&c);
    check_args_schema(&c);
    check_response_schema(&c);
    check_verifiers(&c);
    check_custom(&c, traj);
    if (c.rc) goto nomem;

    forge_json_add_bool(res, "passed", c.passed);
    forge_json_add_num(res, "score", c.wsum > 0 ? c.wscore / c.wsum : (cJSON_GetArraySize(c.assertions) ? 0 : 1));
    forge_json_add_num(res, "weight", weight);
    forge_json_add_num(res, "durationMs", r.has_latency ? r.latency : 0);
    if (r.has_latency) forge_json_add_num(res, "latencyMs", r.latency);
    else forge_json_add_null(res, "latencyMs");
    if (r.has_cost) forge_json_add_num(res, "costUsd", r.cost);
    else forge_json_add_null(res, "costUsd");
    if (c.passed) forge_json_add_null(res, "reason");
    else forge_json_add_str(res, "reason", c.reason.data ? c.reason.data : "");
    forge_json_add_num(res, "skippedAssertions", c.skipped);
    if (!opts || !opts->lean) {
        cJSON *tc = forge_json_add_arr(res, "toolsCalled");
        for (int i = 0; tc && i < r.ncalls; i++) cJSON_AddItemToArray(tc, cJSON_CreateString(r.calls[i].name));
    }
    forge_json_add_item(res, "warnings", c.warnings);
    c.warnings = NULL;
    forge_json_add_item(res, "assertions", c.assertions);
    c.assertions = NULL;
done:
    *out = res;
    res = NULL;
    free_run(&r);
    forge_buf_free(&c.reason);
    forge_strtab_free(&c.names);
    return 0;
nomem:
    cJSON_Delete(res);
    cJSON_Delete(c.assertions);
    cJSON_Delete(c.warnings);
    free_run(&r);
    forge_buf_free(&c.reason);
    forge_strtab_free(&c.names);
    return forge_err_set(err, FORGE_ENOMEM, "out of memory");
}
