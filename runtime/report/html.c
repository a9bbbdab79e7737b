/* The offline HTML report, written as a stream of cases (see html.h). */
#include "report/html.h"
#include "base/alloc.h"
#include "data/json.h"
#include "data/utf8.h"
#include "model/cache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The viewer's script and style (share/report/), embedded at build time. */
extern const char forge_html_viewer_js[], forge_html_viewer_css[];
extern const size_t forge_html_viewer_js_len, forge_html_viewer_css_len;

/* Latency histogram: four buckets a decade from 0.001 ms to 10^7 ms (40 buckets); latencies
 * outside fall in the first or the last. */
#define HIST_LO -3
#define HIST_PER_DECADE 4
#define HIST_N 40
/* The failing cases the page lists without JavaScript. */
#define NOSCRIPT_FAILS 100

struct forge_html {
    FILE *f;
    char *path, *tmp;
    long cases, passed, failed, errors, skipped, with_traj, cut;
    double in_tokens, out_tokens;
    long hist[HIST_N], nlat;
    struct forge_buf rec, fails;
    int nfails;
};

static int io_err(struct forge_html *h, struct forge_err *err)
{
    return forge_err_set(err, FORGE_EIO, "%s: cannot write the report: %s", h->path, strerror(errno));
}

/* Bytes of a valid UTF-8 character at p (of n left), or 0. */
static int utf8_at(const unsigned char *p, size_t n, unsigned *cp)
{
    return forge_utf8_decode((const char *)p, n < 4 ? n : 4, cp);
}

int forge_html_text(struct forge_buf *b, const char *s, size_t n)
{
    int rc = 0;
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end && !rc) {
        unsigned c = *p;
        switch (c) {
        case '&': rc = forge_buf_adds(b, "&amp;"); break;
        case '<': rc = forge_buf_adds(b, "&lt;"); break;
        case '>': rc = forge_buf_adds(b, "&gt;"); break;
        case '"': rc = forge_buf_adds(b, "&quot;"); break;
        case '\'': rc = forge_buf_adds(b, "&#39;"); break;
        case '\t': case '\n': case '\r': rc = forge_buf_addc(b, (char)c); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                rc = forge_buf_adds(b, FORGE_UTF8_REPLACEMENT);
            } else if (c < 0x80) {
                rc = forge_buf_addc(b, (char)c);
            } else {
                unsigned cp;
                int k = utf8_at(p, (size_t)(end - p), &cp);
                if (!k) {
                    rc = forge_buf_adds(b, FORGE_UTF8_REPLACEMENT);
                } else {
                    rc = forge_buf_add(b, p, (size_t)k);
                    p += k - 1;
                }
            }
        }
        p++;
    }
    return rc;
}

/* As forge_html_json_string. */
static int jstr(struct forge_buf *b, const char *s, size_t n, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t start = b->len;
    int rc = forge_buf_addc(b, '"');
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    /* room kept for the marker "… [+NNNNNNNNNNNNNNNNNNNN bytes]" and the quote */
    const size_t marker = 40;
    const size_t room = cap > marker ? cap - marker : 0;
    while (p < end && !rc) {
        size_t used = b->len - start;
        if (cap && used + 12 > room) break;
        /* a run of printable ASCII that needs no escape, copied at once */
        const unsigned char *q = p;
        size_t most = cap ? room - used - 12 + 1 : (size_t)(end - p);
        while (q < end && (size_t)(q - p) < most && *q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\' && *q != '<' &&
               *q != '>' && *q != '&')
            q++;
        if (q > p) {
            rc = forge_buf_add(b, p, (size_t)(q - p));
            p = q;
            continue;
        }
        unsigned c = *p;
        int k = 1;
        char e[8];
        switch (c) {
        case '"': rc = forge_buf_adds(b, "\\\""); break;
        case '\\': rc = forge_buf_adds(b, "\\\\"); break;
        case '\n': rc = forge_buf_adds(b, "\\n"); break;
        case '\r': rc = forge_buf_adds(b, "\\r"); break;
        case '\t': rc = forge_buf_adds(b, "\\t"); break;
        case '<': rc = forge_buf_adds(b, "\\u003c"); break;
        case '>': rc = forge_buf_adds(b, "\\u003e"); break;
        case '&': rc = forge_buf_adds(b, "\\u0026"); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                memcpy(e, "\\u00", 4);
                e[4] = hex[c >> 4];
                e[5] = hex[c & 15];
                rc = forge_buf_add(b, e, 6);
            } else if (c < 0x80) {
                rc = forge_buf_addc(b, (char)c);
            } else {
                unsigned cp;
                k = utf8_at(p, (size_t)(end - p), &cp);
                if (!k) {
                    k = 1;
                    rc = forge_buf_adds(b, "\\ufffd");
                } else if (cp == 0x2028 || cp == 0x2029) {
                    rc = forge_buf_adds(b, cp == 0x2028 ? "\\u2028" : "\\u2029");
                } else {
                    rc = forge_buf_add(b, p, (size_t)k);
                }
            }
        }
        p += k;
    }
    if (!rc && p < end)
        rc = forge_buf_addf(b, "\xe2\x80\xa6 [+%zu bytes]", (size_t)(end - p));
    return rc ? rc : forge_buf_addc(b, '"');
}

int forge_html_json_string(struct forge_buf *out, const char *s, size_t n, size_t cap)
{
    return jstr(out, s, n, cap);
}

static int jnum(struct forge_buf *b, double d)
{
    char t[40];
    if (!isfinite(d)) return forge_buf_adds(b, "null");
    if (d == floor(d) && fabs(d) < 1e15) { /* most numbers here are counts: no float formatting */
        long long v = (long long)d;
        char *e = t + sizeof t, *q = e;
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        do *--q = (char)('0' + u % 10); while (u /= 10);
        if (v < 0) *--q = '-';
        return forge_buf_add(b, q, (size_t)(e - q));
    }
    return forge_buf_adds(b, forge_json_number(d, t));
}

/* ,"key": */
static int key_(struct forge_buf *b, const char *key)
{
    size_t n = strlen(key);
    int rc = forge_buf_add(b, ",\"", 2);
    if (!rc) rc = forge_buf_add(b, key, n);
    return rc ? rc : forge_buf_add(b, "\":", 2);
}

/* ,"key":<v, capped> when v is a string */
static int mstr(struct forge_buf *b, const char *key, const cJSON *v, size_t cap)
{
    if (!cJSON_IsString(v)) return 0;
    int rc = key_(b, key);
    return rc ? rc : jstr(b, v->valuestring, strlen(v->valuestring), cap);
}

/* ,"key":<v> when v is a number */
static int mnum(struct forge_buf *b, const char *key, const cJSON *v)
{
    if (!cJSON_IsNumber(v)) return 0;
    int rc = key_(b, key);
    return rc ? rc : jnum(b, v->valuedouble);
}

/* The members of <o> named keys[0..n-1], found in one pass over its members: out[i], or NULL.
 * (Records are read once each; lookups by name would scan every object many times.) */
static void members(const cJSON *o, const char *const *keys, int n, const cJSON **out)
{
    for (int i = 0; i < n; i++) out[i] = NULL;
    for (const cJSON *it = cJSON_IsObject(o) ? o->child : NULL; it; it = it->next) {
        const char *k = it->string;
        if (!k) continue;
        for (int i = 0; i < n; i++)
            if (k[0] == keys[i][0] && !out[i] && strcmp(k, keys[i]) == 0) {
                out[i] = it;
                break;
            }
    }
}

static const char *str_of(const cJSON *v) { return cJSON_IsString(v) ? v->valuestring : NULL; }

/* Any JSON value with its strings capped and nesting below 16 levels (deeper: "…"). */
static int jval(struct forge_buf *b, const cJSON *v, size_t cap, int depth)
{
    if (depth > 16) return forge_buf_adds(b, "\"\xe2\x80\xa6\"");
    if (cJSON_IsString(v)) return jstr(b, v->valuestring, strlen(v->valuestring), cap);
    if (cJSON_IsNumber(v)) return jnum(b, v->valuedouble);
    if (cJSON_IsBool(v)) return forge_buf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
    if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
        bool obj = cJSON_IsObject(v);
        int rc = forge_buf_addc(b, obj ? '{' : '[');
        const cJSON *it;
        bool first = true;
        cJSON_ArrayForEach(it, v) {
            if (rc) break;
            if (!first) rc = forge_buf_addc(b, ',');
            first = false;
            if (!rc && obj) {
                rc = jstr(b, it->string ? it->string : "", it->string ? strlen(it->string) : 0, 256);
                if (!rc) rc = forge_buf_addc(b, ':');
            }
            if (!rc) rc = jval(b, it, cap, depth + 1);
        }
        return rc ? rc : forge_buf_addc(b, obj ? '}' : ']');
    }
    return forge_buf_adds(b, "null");
}

/* A JSON value shown as its compact JSON text in a capped string. */
static int jtext(struct forge_buf *b, const cJSON *v, size_t cap)
{
    struct forge_buf t;
    forge_buf_init(&t, 0);
    int rc = forge_json_write(&t, v, 0);
    if (!rc) rc = jstr(b, t.data ? t.data : "", t.len, cap);
    forge_buf_free(&t);
    return rc;
}

/* The members of a case result the page reads. */
enum { R_ID, R_SUITE, R_LABEL, R_DESC, R_SCORE, R_WEIGHT, R_LAT, R_COST, R_SKIPPEDA, R_REASON, R_ERROR, R_ASSERTS,
       R_WARNINGS, R_SKIPPED, R_PASSED, R_N };
static const char *const result_keys[R_N] = {"id", "suite", "label", "description", "score", "weight", "latencyMs",
                                             "costUsd", "skippedAssertions", "reason", "error", "assertions",
                                             "warnings", "skipped", "passed"};

static const char *status_of(const cJSON *const *f)
{
    if (f[R_ERROR]) return "error";
    if (cJSON_IsTrue(f[R_SKIPPED])) return "skipped";
    return cJSON_IsTrue(f[R_PASSED]) ? "passed" : "failed";
}

static int emit_call(struct forge_buf *b, const cJSON *c)
{
    static const char *const keys[] = {"name", "id", "round", "latency_ms", "arguments", "result", "error",
                                       "verifier", "approval"};
    const cJSON *f[9];
    members(c, keys, 9, f);
    int rc = forge_buf_adds(b, "{\"name\":");
    const char *name = str_of(f[0]);
    if (!rc) rc = jstr(b, name ? name : "", name ? strlen(name) : 0, 256);
    if (!rc) rc = mstr(b, "id", f[1], 128);
    if (!rc) rc = mnum(b, "round", f[2]);
    if (!rc) rc = mnum(b, "ms", f[3]);
    const cJSON *a = f[4];
    if (!rc && a) {
        rc = forge_buf_adds(b, ",\"args\":");
        if (!rc) rc = cJSON_IsString(a) ? jstr(b, a->valuestring, strlen(a->valuestring), FORGE_HTML_TEXT_MAX)
                                        : jtext(b, a, FORGE_HTML_TEXT_MAX);
    }
    const cJSON *res = f[5];
    if (!rc && res && !cJSON_IsNull(res)) {
        rc = forge_buf_adds(b, ",\"result\":");
        if (!rc) rc = cJSON_IsString(res) ? jstr(b, res->valuestring, strlen(res->valuestring), FORGE_HTML_TEXT_MAX)
                                          : jtext(b, res, FORGE_HTML_TEXT_MAX);
    }
    const cJSON *e = f[6];
    if (!rc && e && !cJSON_IsNull(e)) {
        rc = forge_buf_adds(b, ",\"error\":");
        if (!rc) rc = cJSON_IsString(e) ? jstr(b, e->valuestring, strlen(e->valuestring), FORGE_HTML_TEXT_MAX)
                                        : jtext(b, e, FORGE_HTML_TEXT_MAX);
    }
    for (int i = 7; i < 9 && !rc; i++) {
        const cJSON *o = f[i];
        if (!cJSON_IsObject(o)) continue;
        rc = key_(b, keys[i]);
        if (!rc) rc = jval(b, o, 256, 0);
    }
    return rc ? rc : forge_buf_addc(b, '}');
}

/* The trajectory, cut to end no later than <limit> bytes into <b>. */
static int emit_traj(struct forge_html *h, struct forge_buf *b, const cJSON *t, size_t limit)
{
    static const char *const tkeys[] = {"turns", "metadata"};
    static const char *const turn_keys[] = {"role", "content", "latency_ms", "tool_calls"};
    const cJSON *tf[2], *uf[4];
    members(t, tkeys, 2, tf);
    const cJSON *m = tf[1];
    int rc = forge_buf_adds(b, ",\"traj\":{\"turns\":[");
    const cJSON *turns = tf[0], *turn;
    long omitted = 0;
    bool full = false, first = true;
    const size_t close = 48; /* ],"omitted":N} */
    cJSON_ArrayForEach(turn, turns) {
        if (rc) break;
        members(turn, turn_keys, 4, uf);
        const cJSON *calls = uf[3], *c;
        if (full) {
            omitted += 1 + cJSON_GetArraySize(calls);
            continue;
        }
        size_t at = b->len;
        if (!first) rc = forge_buf_addc(b, ',');
        if (!rc) rc = forge_buf_adds(b, "{\"role\":");
        const char *role = str_of(uf[0]);
        if (!rc) rc = jstr(b, role ? role : "", role ? strlen(role) : 0, 64);
        const cJSON *content = uf[1];
        if (!rc && cJSON_IsString(content)) {
            rc = forge_buf_adds(b, ",\"text\":");
            if (!rc) rc = jstr(b, content->valuestring, strlen(content->valuestring), FORGE_HTML_TEXT_MAX);
        } else if (!rc && content && !cJSON_IsNull(content)) {
            rc = forge_buf_adds(b, ",\"text\":");
            if (!rc) rc = jtext(b, content, FORGE_HTML_TEXT_MAX);
        }
        if (!rc) rc = mnum(b, "ms", uf[2]);
        if (!rc && b->len + close > limit) {
            b->len = at;
            full = true;
            omitted += 1 + cJSON_GetArraySize(calls);
            continue;
        }
        first = false;
        if (!rc && cJSON_GetArraySize(calls) > 0) {
            rc = forge_buf_adds(b, ",\"calls\":[");
            bool cfirst = true;
            cJSON_ArrayForEach(c, calls) {
                if (rc) break;
                if (full) {
                    omitted++;
                    continue;
                }
                size_t cat = b->len;
                if (!cfirst) rc = forge_buf_addc(b, ',');
                if (!rc) rc = emit_call(b, c);
                if (!rc && b->len + close + 2 > limit) {
                    b->len = cat;
                    full = true;
                    omitted++;
                    continue;
                }
                cfirst = false;
            }
            if (!rc) rc = forge_buf_addc(b, ']');
        }
        if (!rc) rc = forge_buf_addc(b, '}');
    }
    if (!rc) rc = forge_buf_addc(b, ']');
    if (!rc && omitted) {
        rc = forge_buf_addf(b, ",\"omitted\":%ld", omitted);
        h->cut++;
    }
    /* the metadata after the turns: small and capped, it always fits the reserve */
    if (!rc && cJSON_IsObject(m)) {
        static const char *const mkeys[] = {"model", "input_tokens", "output_tokens", "rounds", "stop_reason"};
        const cJSON *mf[5];
        members(m, mkeys, 5, mf);
        rc = mstr(b, "model", mf[0], 64);
        if (!rc) rc = mnum(b, "in", mf[1]);
        if (!rc) rc = mnum(b, "out", mf[2]);
        if (!rc) rc = mnum(b, "rounds", mf[3]);
        if (!rc) rc = mstr(b, "stop", mf[4], 64);
        if (cJSON_IsNumber(mf[1]) && isfinite(mf[1]->valuedouble)) h->in_tokens += mf[1]->valuedouble;
        if (cJSON_IsNumber(mf[2]) && isfinite(mf[2]->valuedouble)) h->out_tokens += mf[2]->valuedouble;
    }
    return rc ? rc : forge_buf_addc(b, '}');
}

static int emit_case(struct forge_html *h, struct forge_buf *b, const cJSON *const *f, const cJSON *traj,
                     const char *st)
{
    static const char *const akeys[] = {"type", "passed", "score", "reason"};
    const cJSON *af[4];
    const char *id = str_of(f[R_ID]);
    int rc = forge_buf_adds(b, "{\"id\":");
    if (!rc) rc = jstr(b, id ? id : "", id ? strlen(id) : 0, 256);
    if (!rc) rc = forge_buf_adds(b, ",\"status\":\"");
    if (!rc) rc = forge_buf_adds(b, st);
    if (!rc) rc = forge_buf_addc(b, '"');
    if (!rc) rc = mstr(b, "suite", f[R_SUITE], 128);
    if (!rc) rc = mstr(b, "label", f[R_LABEL], 64);
    if (!rc) rc = mstr(b, "desc", f[R_DESC], 512);
    if (!rc) rc = mnum(b, "score", f[R_SCORE]);
    /* what the viewer shows only when it is not the usual value: a weight other than 1, skipped assertions */
    if (!rc && !(cJSON_IsNumber(f[R_WEIGHT]) && f[R_WEIGHT]->valuedouble == 1)) rc = mnum(b, "weight", f[R_WEIGHT]);
    if (!rc) rc = mnum(b, "ms", f[R_LAT]);
    if (!rc) rc = mnum(b, "cost", f[R_COST]);
    if (!rc && !(cJSON_IsNumber(f[R_SKIPPEDA]) && f[R_SKIPPEDA]->valuedouble == 0))
        rc = mnum(b, "skippedAssertions", f[R_SKIPPEDA]);
    if (!rc) rc = mstr(b, "reason", f[strcmp(st, "error") == 0 ? R_ERROR : R_REASON], FORGE_HTML_TEXT_MAX);
    const cJSON *as = f[R_ASSERTS], *a;
    int shown = 0, total = cJSON_GetArraySize(as);
    if (!rc && total > 0) {
        rc = forge_buf_adds(b, ",\"asserts\":[");
        /* failed first: they are why the case is read */
        for (int pass = 0; pass < 2 && !rc; pass++)
            cJSON_ArrayForEach(a, as) {
                if (rc || shown == FORGE_HTML_ASSERT_MAX) continue;
                members(a, akeys, 4, af);
                bool ok = cJSON_IsTrue(af[1]);
                if (ok != (pass == 1)) continue;
                if (shown++) rc = forge_buf_addc(b, ',');
                if (!rc) rc = forge_buf_adds(b, "{\"type\":");
                const char *ty = str_of(af[0]);
                if (!rc) rc = jstr(b, ty ? ty : "", ty ? strlen(ty) : 0, 128);
                if (!rc) rc = forge_buf_adds(b, ok ? ",\"ok\":true" : ",\"ok\":false");
                if (!rc && !ok && cJSON_IsNumber(af[2]) && af[2]->valuedouble > 0) rc = mnum(b, "score", af[2]);
                if (!rc) rc = mstr(b, "reason", af[3], 320);
                if (!rc) rc = forge_buf_addc(b, '}');
            }
        if (!rc) rc = forge_buf_addc(b, ']');
        if (!rc && total > shown) rc = forge_buf_addf(b, ",\"moreAsserts\":%d", total - shown);
    }
    const cJSON *ws = f[R_WARNINGS], *w;
    int nw = 0;
    cJSON_ArrayForEach(w, ws) {
        if (rc || !cJSON_IsString(w) || nw == 4) continue;
        rc = forge_buf_adds(b, nw++ ? "," : ",\"warnings\":[");
        if (!rc) rc = jstr(b, w->valuestring, strlen(w->valuestring), 256);
    }
    if (!rc && nw) rc = forge_buf_addc(b, ']');
    if (!rc && cJSON_IsObject(traj)) {
        h->with_traj++;
        size_t meta = 256; /* the trajectory's metadata and the closing braces */
        size_t limit = b->len + FORGE_HTML_TRAJ_MAX;
        if (limit > FORGE_HTML_CASE_MAX - meta) limit = FORGE_HTML_CASE_MAX - meta;
        rc = emit_traj(h, b, traj, limit);
    }
    return rc ? rc : forge_buf_addc(b, '}');
}

/* The length of s cut to at most <max> bytes at a character boundary (s may be NULL). */
static size_t cut(const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (n <= max) return n;
    n = max;
    while (n && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
    return n;
}

static int addl(struct forge_html *h, const char *s)
{
    size_t n = strlen(s);
    return fwrite(s, 1, n, h->f) == n ? 0 : -1;
}

/* base64 of a SHA-256 digest given in hex: the CSP hash of the viewer script */
static void csp_hash(const char *text, size_t n, char out[48])
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char hex[65];
    unsigned char d[33] = {0};
    forge_sha256_hex(text, n, hex);
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        d[i] = (unsigned char)v;
    }
    int o = 0;
    for (int i = 0; i < 33; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | (i + 2 < 33 ? d[i + 2] : 0);
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < 32 ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < 32 ? b64[v & 63] : '=';
    }
    out[o] = '\0';
}

struct forge_html *forge_html_open(const char *path, struct forge_err *err)
{
    struct forge_html *h = forge_calloc(1, sizeof *h);
    size_t n = strlen(path) + 40;
    if (!h || !(h->path = forge_strdup(path)) || !(h->tmp = forge_malloc(n))) {
        if (h) forge_free(h->path);
        forge_free(h);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(h->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    forge_buf_init(&h->rec, 0);
    forge_buf_init(&h->fails, 0);
    h->f = fopen(h->tmp, "w");
    if (!h->f) {
        io_err(h, err);
        forge_html_close(h, NULL, false, NULL);
        return NULL;
    }
    setvbuf(h->f, NULL, _IOFBF, (size_t)1 << 18); /* fewer, larger writes of a large page */
    char hash[48];
    csp_hash(forge_html_viewer_js, forge_html_viewer_js_len, hash);
    int rc = addl(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-");
    if (!rc) rc = addl(h, hash);
    if (!rc) rc = addl(h, "'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
                          "<meta name=\"referrer\" content=\"no-referrer\">\n"
                          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                          "<meta name=\"generator\" content=\"forge " FORGE_VERSION "\">\n"
                          "<title>forge report</title>\n<style>\n");
    if (!rc) rc = fwrite(forge_html_viewer_css, 1, forge_html_viewer_css_len, h->f) == forge_html_viewer_css_len ? 0 : -1;
    if (!rc) rc = addl(h, "</style>\n</head>\n<body>\n<script type=\"application/json\" id=\"forge-cases\">[");
    if (rc) {
        io_err(h, err);
        forge_html_close(h, NULL, false, NULL);
        return NULL;
    }
    return h;
}

int forge_html_case(struct forge_html *h, const cJSON *r, const cJSON *traj, struct forge_err *err)
{
    const cJSON *f[R_N];
    members(r, result_keys, R_N, f);
    const char *st = status_of(f);
    forge_buf_reset(&h->rec);
    int rc = forge_buf_adds(&h->rec, h->cases ? ",\n" : "\n");
    if (!rc) rc = emit_case(h, &h->rec, f, traj, st);
    if (rc) return forge_err_set(err, rc, "html report: out of memory");
    if (fwrite(h->rec.data, 1, h->rec.len, h->f) != h->rec.len) return io_err(h, err);
    h->cases++;
    if (!strcmp(st, "passed")) h->passed++;
    else if (!strcmp(st, "failed")) h->failed++;
    else if (!strcmp(st, "error")) h->errors++;
    else h->skipped++;
    const cJSON *lat = f[R_LAT];
    if (cJSON_IsNumber(lat) && isfinite(lat->valuedouble) && lat->valuedouble >= 0) {
        double v = lat->valuedouble;
        int k = v > 0 ? (int)floor((log10(v) - HIST_LO) * HIST_PER_DECADE) : 0;
        if (k < 0) k = 0;
        if (k >= HIST_N) k = HIST_N - 1;
        h->hist[k]++;
        h->nlat++;
    }
    if ((!strcmp(st, "failed") || !strcmp(st, "error")) && h->nfails < NOSCRIPT_FAILS) {
        const char *id = str_of(f[R_ID]);
        const char *why = str_of(f[!strcmp(st, "error") ? R_ERROR : R_REASON]);
        size_t wn = cut(why, 300);
        h->nfails++;
        rc = forge_buf_addf(&h->fails, "<li><code>");
        if (!rc) rc = forge_html_text(&h->fails, id ? id : "", cut(id, 256));
        if (!rc) rc = forge_buf_addf(&h->fails, "</code> <span class=\"st-%s\">%s</span> ", st, st);
        if (!rc) rc = forge_html_text(&h->fails, why ? why : "", wn);
        if (!rc) rc = forge_buf_adds(&h->fails, "</li>\n");
        if (rc) return forge_err_set(err, rc, "html report: out of memory");
    }
    return 0;
}

static int hnum(struct forge_buf *b, double d)
{
    char t[40];
    return forge_buf_adds(b, forge_json_number(d, t));
}

/* A row of the summary table: <tr><th>label</th><td id="s-key">value</td></tr> */
static int row(struct forge_buf *b, const char *key, const char *label, const char *value)
{
    int rc = forge_buf_addf(b, "<tr><th>%s</th><td id=\"s-%s\">", label, key);
    if (!rc) rc = forge_html_text(b, value, strlen(value));
    return rc ? rc : forge_buf_adds(b, "</td></tr>\n");
}

static int id_list(struct forge_buf *b, const cJSON *l, const char *id, const char *title)
{
    int n = cJSON_GetArraySize(l), k = 0;
    int rc = forge_buf_addf(b, "<section class=\"diff\" id=\"%s\"><h3>%s (%d)</h3>\n<ul>", id, title, n);
    const cJSON *it;
    cJSON_ArrayForEach(it, l) {
        if (rc || !cJSON_IsString(it)) continue;
        if (k++ == 200) {
            rc = forge_buf_addf(b, "<li>and %d more (the case table lists them all)</li>", n - 200);
            break;
        }
        rc = forge_buf_adds(b, "<li><code>");
        if (!rc) rc = forge_html_text(b, it->valuestring, cut(it->valuestring, 256));
        if (!rc) rc = forge_buf_adds(b, "</code></li>");
    }
    return rc ? rc : forge_buf_adds(b, "</ul></section>\n");
}

/* The latency histogram as inline SVG: a bar per bucket from the first to the last filled. */
static int chart(struct forge_html *h, struct forge_buf *b, double p50, double p95)
{
    if (!h->nlat) return forge_buf_adds(b, "<p class=\"muted\">No case has a measured latency.</p>\n");
    int lo = 0, hi = HIST_N - 1;
    while (!h->hist[lo]) lo++;
    while (!h->hist[hi]) hi--;
    if (hi - lo < 7) { /* at least eight bars for a readable axis */
        hi = lo + 7 < HIST_N ? lo + 7 : HIST_N - 1;
        lo = hi - 7;
    }
    long max = 1;
    for (int k = lo; k <= hi; k++) max = h->hist[k] > max ? h->hist[k] : max;
    int nb = hi - lo + 1, W = 720, H = 180, L = 48, B = 36, bw = (W - L - 8) / nb;
    int rc = forge_buf_addf(b, "<svg id=\"latency-chart\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">"
                               "<title>Cases per latency bucket (log scale): "
                               "p50 ", W, H, W, H);
    if (!rc) rc = hnum(b, p50);
    if (!rc) rc = forge_buf_adds(b, " ms, p95 ");
    if (!rc) rc = hnum(b, p95);
    if (!rc) rc = forge_buf_adds(b, " ms</title>\n");
    if (!rc) rc = forge_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", L, H - B, W - 4, H - B);
    if (!rc) rc = forge_buf_addf(b, "<text x=\"4\" y=\"14\" class=\"lbl\">%ld</text><text x=\"4\" y=\"%d\" class=\"lbl\">0</text>\n",
                                 max, H - B);
    for (int k = lo; k <= hi && !rc; k++) {
        int x = L + (k - lo) * bw;
        int bh = (int)((double)h->hist[k] / (double)max * (H - B - 20));
        if (h->hist[k] && bh < 1) bh = 1;
        double from = pow(10, HIST_LO + (double)k / HIST_PER_DECADE);
        rc = forge_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"bar\"><title>", x + 1,
                            H - B - bh, bw - 2, bh);
        if (!rc) rc = forge_buf_addf(b, "%ld case%s from %.4g ms to %.4g ms</title></rect>\n", h->hist[k],
                                     h->hist[k] == 1 ? "" : "s", from, from * pow(10, 1.0 / HIST_PER_DECADE));
        if (!rc && (k - lo) % 2 == 0)
            rc = forge_buf_addf(b, "<text x=\"%d\" y=\"%d\" class=\"lbl\">%.3g</text>\n", x, H - B + 14, from);
    }
    if (!rc) rc = forge_buf_addf(b, "<text x=\"%d\" y=\"%d\" class=\"lbl\">latency, ms (log scale)</text>\n", L, H - 6);
    if (!rc) rc = forge_buf_adds(b, "</svg>\n");
    return rc;
}

/* Milliseconds for a reader: three significant digits below 100 ms, whole ones above. */
static const char *ms(double v, char out[40])
{
    if (v < 100) snprintf(out, 40, "%.3g ms", v);
    else snprintf(out, 40, "%.0f ms", v);
    return out;
}

static int summary(struct forge_html *h, struct forge_buf *b, const cJSON *rep)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "summary");
    bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "passed"));
    char v[160], a[40], c[40];
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(s, "passRateInterval");
    double lo = cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) ? cJSON_GetArrayItem(ci, 0)->valuedouble : 0;
    double hi = cJSON_IsNumber(cJSON_GetArrayItem(ci, 1)) ? cJSON_GetArrayItem(ci, 1)->valuedouble : 0;
    const char *run = forge_json_str(rep, "runId"), *ts = forge_json_str(rep, "timestamp");
    int rc = forge_buf_addf(b, "<header><h1>forge report: <span id=\"verdict\" class=\"%s\">%s</span></h1>\n<p class=\"muted\">",
                            ok ? "st-passed" : "st-failed", ok ? "passed" : "failed");
    if (!rc) rc = forge_html_text(b, run ? run : "", run ? strlen(run) : 0);
    if (!rc) rc = forge_buf_adds(b, " &middot; ");
    if (!rc) rc = forge_html_text(b, ts ? ts : "", ts ? strlen(ts) : 0);
    if (!rc) rc = forge_buf_adds(b, "</p></header>\n<main>\n<section id=\"summary\"><h2>Summary</h2>\n<table class=\"kv\">\n");
#define ROWN(key, label, member)                                                                                      \
    do {                                                                                                               \
        if (!rc) rc = row(b, key, label, forge_json_number(forge_json_num(s, member, 0), a));                           \
    } while (0)
    ROWN("total", "cases", "totalCases");
    ROWN("passed", "passed", "passed");
    ROWN("failed", "failed", "failed");
    ROWN("errors", "errors", "errors");
    ROWN("skipped", "skipped", "skipped");
    snprintf(v, sizeof v, "%.1f%%", forge_json_num(s, "passRate", 0) * 100);
    if (!rc) rc = row(b, "passrate", "pass rate", v);
    snprintf(v, sizeof v, "%.1f%% \xe2\x80\x93 %.1f%%", lo * 100, hi * 100);
    if (!rc) rc = row(b, "interval", "95% interval (Wilson)", v);
    snprintf(v, sizeof v, "%.3f", forge_json_num(s, "score", 0));
    if (!rc) rc = row(b, "score", "score", v);
    snprintf(v, sizeof v, "%s / %s", ms(forge_json_num(s, "p50LatencyMs", 0), a), ms(forge_json_num(s, "p95LatencyMs", 0), c));
    if (!rc) rc = row(b, "latency", "p50 / p95 latency", v);
    if (!rc) rc = row(b, "duration", "total duration", ms(forge_json_num(s, "totalDurationMs", 0), a));
    snprintf(v, sizeof v, "$%.6f", forge_json_num(s, "estimatedCostUsd", 0));
    if (!rc) rc = row(b, "cost", "estimated cost", v);
    snprintf(v, sizeof v, "%s in / %s out", forge_json_number(h->in_tokens, a), forge_json_number(h->out_tokens, c));
    if (!rc) rc = row(b, "tokens", "tokens", v);
    ROWN("skippedassertions", "skipped assertions", "skippedAssertions");
#undef ROWN
    if (!rc) rc = forge_buf_adds(b, "</table>\n");
    if (!rc && (h->cut || h->with_traj < h->cases - h->errors))
        rc = forge_buf_addf(b, "<p class=\"muted\">%ld of %ld cases carry a trajectory; %ld trajectories are cut to the "
                               "report's per-case bound (docs/reports.md).</p>\n", h->with_traj, h->cases, h->cut);
    if (!rc) rc = forge_buf_adds(b, "</section>\n");
    const cJSON *gates = cJSON_GetObjectItemCaseSensitive(rep, "gates"), *g;
    if (!rc && cJSON_GetArraySize(gates) > 0) {
        rc = forge_buf_adds(b, "<section id=\"gates\"><h2>Gates</h2>\n<table><thead><tr><th>gate</th><th>threshold</th>"
                               "<th>actual</th><th>result</th></tr></thead><tbody>\n");
        cJSON_ArrayForEach(g, gates) {
            if (rc) break;
            const char *name = forge_json_str(g, "gate");
            bool p = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "pass"));
            rc = forge_buf_adds(b, "<tr><td>");
            if (!rc) rc = forge_html_text(b, name ? name : "", name ? strlen(name) : 0);
            if (!rc) rc = forge_buf_addf(b, " %s</td><td>", name && !strcmp(name, "passRate") ? "&ge;" : "&le;");
            if (!rc) rc = hnum(b, forge_json_num(g, "threshold", 0));
            if (!rc) rc = forge_buf_adds(b, "</td><td>");
            if (!rc) rc = hnum(b, forge_json_num(g, "actual", 0));
            if (!rc) rc = forge_buf_addf(b, "</td><td class=\"%s\">%s</td></tr>\n", p ? "st-passed" : "st-failed",
                                         p ? "pass" : "FAIL");
        }
        if (!rc) rc = forge_buf_adds(b, "</tbody></table></section>\n");
    }
    const char *base = forge_json_str(rep, "baselineRunId");
    const cJSON *reg = cJSON_GetObjectItemCaseSensitive(rep, "regressions");
    const cJSON *fix = cJSON_GetObjectItemCaseSensitive(rep, "newPasses");
    if (!rc && (base || cJSON_GetArraySize(reg) || cJSON_GetArraySize(fix))) {
        rc = forge_buf_adds(b, "<section id=\"baseline\"><h2>Against the baseline</h2>\n<p class=\"muted\">baseline run ");
        if (!rc) rc = forge_html_text(b, base ? base : "?", base ? strlen(base) : 1);
        if (!rc) rc = forge_buf_adds(b, "</p>\n");
        if (!rc) rc = id_list(b, reg, "new-failures", "New failures (passed in the baseline, fail now)");
        if (!rc) rc = id_list(b, fix, "fixes", "Fixes (failed in the baseline, pass now)");
        if (!rc) rc = forge_buf_adds(b, "</section>\n");
    }
    if (!rc) rc = forge_buf_adds(b, "<section id=\"latency\"><h2>Latency</h2>\n");
    if (!rc) rc = chart(h, b, forge_json_num(s, "p50LatencyMs", 0), forge_json_num(s, "p95LatencyMs", 0));
    if (!rc) rc = forge_buf_adds(b, "</section>\n");
    if (!rc && h->nfails) {
        rc = forge_buf_addf(b, "<noscript><section id=\"failing\"><h2>Failing cases</h2>\n<ul>\n");
        if (!rc) rc = forge_buf_add(b, h->fails.data, h->fails.len);
        if (!rc && h->failed + h->errors > h->nfails)
            rc = forge_buf_addf(b, "<li>and %ld more: the case table needs JavaScript</li>\n",
                                h->failed + h->errors - h->nfails);
        if (!rc) rc = forge_buf_adds(b, "</ul></section></noscript>\n");
    }
    /* the viewer's place: shown by its script */
    if (!rc)
        rc = forge_buf_adds(b,
            "<section id=\"cases\" hidden><h2>Cases</h2>\n"
            "<div id=\"controls\"><div id=\"filter\" role=\"group\" aria-label=\"filter\">"
            "<button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">all</button>"
            "<button type=\"button\" data-filter=\"passed\" aria-pressed=\"false\">passed</button>"
            "<button type=\"button\" data-filter=\"failed\" aria-pressed=\"false\">failed</button>"
            "<button type=\"button\" data-filter=\"error\" aria-pressed=\"false\">error</button>"
            "<button type=\"button\" data-filter=\"skipped\" aria-pressed=\"false\">skipped</button>"
            "<button type=\"button\" data-filter=\"new-failure\" aria-pressed=\"false\">new failures</button>"
            "<button type=\"button\" data-filter=\"fix\" aria-pressed=\"false\">fixes</button></div>"
            "<input id=\"search\" type=\"search\" placeholder=\"search id, description, reason, arguments\" "
            "aria-label=\"search\"></div>\n"
            "<p id=\"shown\" class=\"muted\"></p>\n"
            "<table id=\"case-table\"><thead><tr><th>status</th><th>case</th><th>suite</th><th>score</th>"
            "<th>latency</th><th>cost</th><th>reason</th></tr></thead><tbody id=\"rows\"></tbody></table>\n"
            "<div id=\"pager\"><button type=\"button\" id=\"first\">&laquo; first</button> "
            "<button type=\"button\" id=\"prev\">&larr; previous</button> <span id=\"page-info\"></span> "
            "<button type=\"button\" id=\"next\">next &rarr;</button> "
            "<button type=\"button\" id=\"last\">last &raquo;</button></div>\n</section>\n</main>\n");
    return rc;
}

int forge_html_close(struct forge_html *h, const cJSON *rep, bool commit, struct forge_err *err)
{
    if (!h) return 0;
    int rc = 0;
    if (commit) {
        struct forge_buf *b = &h->rec;
        forge_buf_reset(b);
        rc = forge_buf_adds(b, "\n]</script>\n");
        if (!rc) rc = summary(h, b, rep);
        if (!rc) rc = forge_buf_adds(b, "<script type=\"application/json\" id=\"forge-run\">{\"regressions\":");
        const char *lists[2] = {"regressions", "newPasses"};
        for (int i = 0; i < 2 && !rc; i++) {
            if (i) rc = forge_buf_adds(b, ",\"newPasses\":");
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(rep, lists[i]);
            if (!rc) rc = cJSON_IsArray(l) ? jval(b, l, 256, 0) : forge_buf_adds(b, "[]");
        }
        if (!rc) rc = forge_buf_addf(b, ",\"baseline\":%s,\"cases\":%ld}</script>\n<script>",
                                     forge_json_str(rep, "baselineRunId") ? "true" : "false", h->cases);
        if (!rc) rc = forge_buf_add(b, forge_html_viewer_js, forge_html_viewer_js_len);
        if (!rc) rc = forge_buf_adds(b, "</script>\n</body>\n</html>\n");
        if (rc) {
            rc = forge_err_set(err, rc, "html report: out of memory");
        } else if (fwrite(b->data, 1, b->len, h->f) != b->len) {
            rc = io_err(h, err);
        }
    }
    if (h->f && fclose(h->f) != 0 && commit && !rc) rc = io_err(h, err);
    if (!rc && commit && rename(h->tmp, h->path) != 0) rc = io_err(h, err);
    if (rc || !commit) remove(h->tmp);
    forge_buf_free(&h->rec);
    forge_buf_free(&h->fails);
    forge_free(h->tmp);
    forge_free(h->path);
    forge_free(h);
    return rc;
}
