/* Helpers shared by the provider dialects: request checking and the normalized shapes. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/jscan.h"
#include "data/json.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

const struct forge_dialect *forge_dialect_find(const char *p)
{
    if (!p)
        return NULL;
    if (strcmp(p, "openai") == 0 || strcmp(p, "openai-compatible") == 0)
        return &forge_dialect_openai;
    if (strcmp(p, "openai-responses") == 0)
        return &forge_dialect_openai_responses;
    if (strcmp(p, "anthropic") == 0)
        return &forge_dialect_anthropic;
    if (strcmp(p, "gemini") == 0)
        return &forge_dialect_gemini;
    if (strcmp(p, "ollama") == 0)
        return &forge_dialect_ollama;
    return NULL;
}

static int bad(struct forge_err *err, const char *fmt, const char *a, int i, int j)
{
    char path[96];
    snprintf(path, sizeof path, fmt, i, j);
    return forge_err_set(err, FORGE_EINVAL, "request: %s: %s", path, a);
}

const cJSON *forge_wire_result(const cJSON *req, const char *call_id)
{
    return forge_wire_result_in(cJSON_GetObjectItemCaseSensitive(req, "messages"), call_id);
}

const cJSON *forge_wire_result_in(const cJSON *msgs, const char *call_id)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, msgs) {
        const char *role = forge_json_str(m, "role");
        const char *id = forge_json_str(m, "tool_call_id");
        if (role && strcmp(role, "tool") == 0 && id && strcmp(id, call_id) == 0)
            return m;
    }
    return NULL;
}

static int tool_named(const cJSON *tools, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        const char *n = forge_json_str(t, "name");
        if (n && strcmp(n, name) == 0)
            return 1;
    }
    return 0;
}

int forge_wire_check(const cJSON *req, struct forge_err *err)
{
    if (!cJSON_IsObject(req))
        return forge_err_set(err, FORGE_EINVAL, "request: must be a JSON object");
    const cJSON *sys = cJSON_GetObjectItemCaseSensitive(req, "system");
    if (sys && !cJSON_IsString(sys) && !cJSON_IsNull(sys))
        return forge_err_set(err, FORGE_EINVAL, "request: system: must be a string");
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(req, "messages");
    if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0)
        return forge_err_set(err, FORGE_EINVAL, "request: messages: must be a non-empty array");
    int i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, msgs) {
        const char *role = forge_json_str(m, "role");
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (!role)
            return bad(err, "messages[%d].role", "missing (user, assistant or tool)", i, 0);
        if (content && !cJSON_IsString(content) && !cJSON_IsNull(content))
            return bad(err, "messages[%d].content", "must be a string or null", i, 0);
        if (strcmp(role, "user") == 0) {
            if (!cJSON_IsString(content))
                return bad(err, "messages[%d].content", "a user message needs text", i, 0);
        } else if (strcmp(role, "assistant") == 0) {
            const cJSON *calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls"), *c;
            if (calls && !cJSON_IsArray(calls))
                return bad(err, "messages[%d].tool_calls", "must be an array", i, 0);
            int j = 0;
            cJSON_ArrayForEach(c, calls) {
                const char *id = forge_json_str(c, "id"), *name = forge_json_str(c, "name");
                if (!id || !*id)
                    return bad(err, "messages[%d].tool_calls[%d].id", "missing", i, j);
                if (!name || !*name)
                    return bad(err, "messages[%d].tool_calls[%d].name", "missing", i, j);
                if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "arguments")))
                    return bad(err, "messages[%d].tool_calls[%d].arguments", "must be an object", i, j);
                int n = 0, k = 0, after = 0;
                const cJSON *r;
                cJSON_ArrayForEach(r, msgs) {
                    const char *rid = forge_json_str(r, "tool_call_id");
                    const char *rr = forge_json_str(r, "role");
                    if (rr && strcmp(rr, "tool") == 0 && rid && strcmp(rid, id) == 0) {
                        n++;
                        after = k > i;
                    }
                    k++;
                }
                if (n == 0)
                    return forge_err_set(err, FORGE_EINVAL,
                                         "request: messages[%d].tool_calls[%d]: call '%s' (%s) has no tool "
                                         "message with its result; every call needs one", i, j, id, name);
                if (n > 1 || !after)
                    return forge_err_set(err, FORGE_EINVAL,
                                         "request: messages[%d].tool_calls[%d]: call '%s' needs exactly one tool "
                                         "message after it (found %d)", i, j, id, n);
                j++;
            }
        } else if (strcmp(role, "tool") == 0) {
            const char *id = forge_json_str(m, "tool_call_id");
            if (!id)
                return bad(err, "messages[%d].tool_call_id", "missing", i, 0);
            if (!cJSON_IsString(content))
                return bad(err, "messages[%d].content", "a tool message needs its result as text", i, 0);
            int found = 0;
            const cJSON *a;
            cJSON_ArrayForEach(a, msgs) {
                if (a == m)
                    break;
                const cJSON *c;
                cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(a, "tool_calls")) {
                    const char *cid = forge_json_str(c, "id");
                    if (cid && strcmp(cid, id) == 0)
                        found = 1;
                }
            }
            if (!found)
                return forge_err_set(err, FORGE_EINVAL,
                                     "request: messages[%d]: tool result for '%s' answers no earlier call", i, id);
        } else {
            return forge_err_set(err, FORGE_EINVAL,
                                 "request: messages[%d].role: '%s' is not user, assistant or tool "
                                 "(the system prompt goes in \"system\")", i, role);
        }
        i++;
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(req, "tools"), *t;
    if (tools && !cJSON_IsArray(tools))
        return forge_err_set(err, FORGE_EINVAL, "request: tools: must be an array");
    i = 0;
    cJSON_ArrayForEach(t, tools) {
        const char *name = forge_json_str(t, "name");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(t, "parameters");
        if (!name || !*name)
            return bad(err, "tools[%d].name", "missing", i, 0);
        if (p && !cJSON_IsObject(p))
            return bad(err, "tools[%d].parameters", "must be a JSON Schema object", i, 0);
        i++;
    }
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
    if (tc) {
        if (cJSON_IsString(tc)) {
            const char *s = tc->valuestring;
            if (strcmp(s, "auto") && strcmp(s, "none") && strcmp(s, "required"))
                return forge_err_set(err, FORGE_EINVAL,
                                     "request: tool_choice: '%s' is not auto, none, required or {\"name\": ...}", s);
        } else {
            const char *name = forge_json_str(tc, "name");
            if (!name)
                return forge_err_set(err, FORGE_EINVAL,
                                     "request: tool_choice: must be auto, none, required or {\"name\": TOOL}");
            if (!tool_named(tools, name))
                return forge_err_set(err, FORGE_EINVAL, "request: tool_choice: names '%s', which is not among the tools", name);
        }
    }
    const cJSON *ptc = cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls");
    if (ptc && !cJSON_IsBool(ptc))
        return forge_err_set(err, FORGE_EINVAL, "request: parallel_tool_calls: must be true or false");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    if (params && !cJSON_IsObject(params))
        return forge_err_set(err, FORGE_EINVAL, "request: params: must be an object");
    return 0;
}

int forge_wire_index(double v)
{
    return v > (double)INT_MIN - 1 && v < (double)INT_MAX + 1 ? (int)v : -1;
}

cJSON *forge_wire_put(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

char *forge_wire_args_text(const cJSON *args)
{
    return forge_json_print(args, 0);
}

cJSON *forge_wire_call_new(const char *id, const char *name)
{
    cJSON *c = cJSON_CreateObject();
    if (!c || !cJSON_AddStringToObject(c, "id", id ? id : "") || !cJSON_AddStringToObject(c, "name", name ? name : "") ||
        !cJSON_AddObjectToObject(c, "arguments")) {
        cJSON_Delete(c);
        return NULL;
    }
    return c;
}

int forge_wire_set_args_text(cJSON *call, const char *text)
{
    if (!text || !*text)
        return 0;
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *v = forge_json_parse(text, strlen(text), "arguments", &e);
    if (v && cJSON_IsObject(v))
        return forge_wire_put(call, "arguments", v) ? 0 : FORGE_ENOMEM;
    const char *why = v ? "arguments: not a JSON object" : e.msg;
    cJSON_Delete(v);
    if (!cJSON_AddStringToObject(call, "arguments_text", text) || !cJSON_AddStringToObject(call, "arguments_error", why))
        return FORGE_ENOMEM;
    return 0;
}

void forge_wire_call_id(const cJSON *req, int index, char *out, size_t n)
{
    int count = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(req, "messages"))
        count += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "tool_calls"));
    snprintf(out, n, "call_%d", count + index + 1);
}

cJSON *forge_wire_response_new(const char *content, cJSON *calls, const char *finish_reason,
                               double input_tokens, double output_tokens)
{
    cJSON *r = cJSON_CreateObject(), *m, *u, *c = calls;
    calls = NULL;
    if (!r || !(m = cJSON_AddObjectToObject(r, "message")) || !cJSON_AddStringToObject(m, "role", "assistant"))
        goto fail;
    if (!(content ? cJSON_AddStringToObject(m, "content", content) : cJSON_AddNullToObject(m, "content")))
        goto fail;
    if (c) {
        cJSON *t = c;
        c = NULL;
        if (!forge_wire_put(m, "tool_calls", t))
            goto fail;
    }
    if (!cJSON_AddStringToObject(r, "finish_reason", finish_reason) || !(u = cJSON_AddObjectToObject(r, "usage")) ||
        !cJSON_AddNumberToObject(u, "input_tokens", input_tokens) ||
        !cJSON_AddNumberToObject(u, "output_tokens", output_tokens))
        goto fail;
    return r;
fail:
    cJSON_Delete(r);
    cJSON_Delete(c);
    return NULL;
}

int forge_wire_copy_params(cJSON *obj, const cJSON *params, const char *const *skip)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, params) {
        int skipped = 0;
        for (const char *const *s = skip; s && *s; s++)
            if (strcmp(p->string, *s) == 0)
                skipped = 1;
        if (skipped)
            continue;
        if (!forge_wire_put(obj, p->string, cJSON_Duplicate(p, 1)))
            return FORGE_ENOMEM;
    }
    return 0;
}

cJSON *forge_wire_result_value(const char *text)
{
    struct forge_err e;
    cJSON *v = forge_json_parse(text, strlen(text), "result", &e);
    if (v)
        return v;
    return cJSON_CreateString(text);
}

void forge_wire_error_text(const cJSON *v, char *out, size_t n)
{
    out[0] = '\0';
    if (!v)
        return;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "error");
    const char *s = NULL;
    if (cJSON_IsString(e))
        s = e->valuestring;
    else if (cJSON_IsObject(e))
        s = forge_json_str(e, "message");
    if (!s)
        s = forge_json_str(v, "message");
    if (s)
        snprintf(out, n, "%s", s);
}

cJSON *forge_wire_turn(cJSON *msgs, const char *role, const char *key)
{
    int n = cJSON_GetArraySize(msgs);
    cJSON *last = n ? cJSON_GetArrayItem(msgs, n - 1) : NULL;
    const char *r = forge_json_str(last, "role");
    if (r && strcmp(r, role) == 0)
        return cJSON_GetObjectItemCaseSensitive(last, key);
    cJSON *m = cJSON_CreateObject();
    if (!m)
        return NULL;
    cJSON_AddItemToArray(msgs, m);
    if (!cJSON_AddStringToObject(m, "role", role))
        return NULL;
    return cJSON_AddArrayToObject(m, key);
}

char *forge_wire_result_text(const cJSON *r)
{
    const char *c = forge_json_str(r, "content");
    if (!c)
        c = "";
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "is_error")))
        return forge_strdup(c);
    return forge_strdupf("Error: %s", c);
}

size_t forge_wire_piece(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t k = max;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    if (k == 0) /* one character longer than max: take it whole */
        for (k = 1; k < n && ((unsigned char)s[k] & 0xC0) == 0x80; k++)
            ;
    return k;
}

int forge_wire_sse(struct forge_buf *b, const char *event, const cJSON *v)
{
    char *text = cJSON_PrintUnformatted(v);
    if (!text)
        return FORGE_ENOMEM;
    int rc = 0;
    if (event)
        rc = forge_buf_addf(b, "event: %s\n", event);
    if (!rc)
        rc = forge_buf_addf(b, "data: %s\n\n", text);
    cJSON_free(text);
    return rc;
}

void forge_sse_init(struct forge_sse *it, const char *text, size_t len)
{
    memset(it, 0, sizeof *it);
    it->p = it->base = text;
    it->end = text + len;
    forge_buf_init(&it->buf, 0);
}

void forge_sse_free(struct forge_sse *it)
{
    forge_buf_free(&it->buf);
}

/* The end of the line at <p>: its \n or \r, or NULL when the text ends first. */
static const char *line_end(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; end - p >= 32; p += 32) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, nl), _mm_cmpeq_epi8(x, cr))) |
                     (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(y, nl), _mm_cmpeq_epi8(y, cr))) << 16;
        if (m)
            return p + __builtin_ctz(m);
    }
#endif
    for (; p < end; p++)
        if (*p == '\n' || *p == '\r')
            return p;
    return NULL;
}

int forge_sse_next(struct forge_sse *it)
{
    it->data = NULL;
    it->len = 0;
    it->event[0] = '\0';
    const char *start = it->p;
    while (it->p < it->end) {
        const char *line = it->p, *e = *line == '\n' ? line : line_end(line, it->end);
        if (!e)
            return 0; /* a line without its end: the stream was cut */
        it->p = e + 1;
        if (*e == '\r' && it->p < it->end && *it->p == '\n')
            it->p++;
        size_t n = (size_t)(e - line);
        if (n == 0) {
            if (it->data || it->event[0]) {
                it->offset = (size_t)(start - it->base);
                return 1;
            }
            start = it->p;
            continue;
        }
        if (line[0] == ':')
            continue;
        /* the two fields read come first on their lines: no search for them */
        const char *colon = n >= 5 && !memcmp(line, "data:", 5) ? line + 4
                          : n >= 6 && !memcmp(line, "event:", 6) ? line + 5 : memchr(line, ':', n);
        size_t flen = colon ? (size_t)(colon - line) : n;
        const char *v = colon ? colon + 1 : e;
        if (v < e && *v == ' ')
            v++;
        size_t vlen = (size_t)(e - v);
        if (flen == 4 && !memcmp(line, "data", 4)) {
            if (!it->data) {
                /* the usual event has one data line: it is read where it lies */
                it->data = v;
                it->len = vlen;
                continue;
            }
            if (it->data != it->buf.data) {
                forge_buf_reset(&it->buf);
                if (forge_buf_add(&it->buf, it->data, it->len))
                    return FORGE_ENOMEM;
            }
            if (forge_buf_addc(&it->buf, '\n') || forge_buf_add(&it->buf, v, vlen))
                return FORGE_ENOMEM;
            it->data = it->buf.data;
            it->len = it->buf.len;
        } else if (flen == 5 && !memcmp(line, "event", 5)) {
            size_t m = vlen < sizeof it->event - 1 ? vlen : sizeof it->event - 1;
            memcpy(it->event, v, m);
            it->event[m] = '\0';
        }
    }
    return 0;
}

void forge_sse_tmpl_set(const struct forge_sse *it, struct forge_wire_tmpl *t, const struct forge_jstr *v)
{
    t->pre = it->base + it->offset;
    t->npre = (size_t)(v->s - t->pre);
    t->suf = v->s + v->n;
    t->nsuf = (size_t)(it->p - t->suf);
    t->nfix = 0;
    t->dpre = (size_t)(it->data - t->pre);
    t->dsuf = (size_t)(it->data + it->len - t->suf);
    memcpy(t->event, it->event, sizeof t->event);
}

int forge_sse_tmpl_next(struct forge_sse *it, const struct forge_wire_tmpl *t, struct forge_jstr *v)
{
    const char *p = it->p;
    size_t left = (size_t)(it->end - p);
    if (!t->pre || left < t->npre + t->nsuf || memcmp(p, t->pre, t->npre))
        return 0;
    /* the string ends at the first unescaped quote; the scanner finds it, then the rest must be
     * the template's */
    struct forge_jscan j;
    forge_jscan_init(&j, p + t->npre - 1, left - t->npre + 1);
    j.no_breaks = 1; /* a line break would end the data line */
    if (forge_jscan_string(&j, v) || (size_t)(it->end - j.p) < t->nsuf - 1 || memcmp(j.p - 1, t->suf, t->nsuf))
        return 0;
    it->offset = (size_t)(p - it->base);
    it->data = p + t->dpre;
    it->len = (size_t)(v->s + v->n - it->data) + t->dsuf;
    it->p = j.p - 1 + t->nsuf;
    memcpy(it->event, t->event, sizeof it->event);
    return 1;
}

static struct forge_wire_acc_entry *acc_find(const struct forge_wire_acc *a, const cJSON *obj, const char *key)
{
    for (size_t i = a->n; i-- > 0;)
        if (a->v[i].obj == obj && !strcmp(a->v[i].key, key))
            return &a->v[i];
    return NULL;
}

void forge_wire_tmpl_set(struct forge_wire_tmpl *t, const char *data, size_t len, const struct forge_jstr *v)
{
    t->pre = data;
    t->npre = (size_t)(v->s - data);
    t->suf = v->s + v->n;
    t->nsuf = len - t->npre - v->n;
    for (t->nfix = 0; t->nfix < t->nsuf && (t->suf[t->nfix] < '0' || t->suf[t->nfix] > '9'); t->nfix++)
        ;
}

int forge_wire_tmpl_match(const struct forge_wire_tmpl *t, const char *data, size_t len, struct forge_jstr *v)
{
    if (!t->pre || len < t->npre + t->nsuf || memcmp(data, t->pre, t->npre) ||
        memcmp(data + len - t->nsuf, t->suf, t->nsuf))
        return 0;
    /* the opening quote ends pre, the closing one starts suf */
    return !forge_jstr_scan(data + t->npre - 1, len - t->npre - t->nsuf + 2, v);
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int forge_wire_tmpl_match_digits(const struct forge_wire_tmpl *t, const char *data, size_t len, struct forge_jstr *v)
{
    if (!t->pre || len < t->npre + 2 || memcmp(data, t->pre, t->npre))
        return 0;
    /* the string ends at the first unescaped quote: the scanner finds it */
    struct forge_jscan j;
    forge_jscan_init(&j, data + t->npre - 1, len - t->npre + 1);
    if (forge_jscan_string(&j, v))
        return 0;
    const char *p = v->s + v->n, *end = data + len, *q = t->suf, *qend = t->suf + t->nsuf;
    if ((size_t)(end - p) < t->nfix || memcmp(p, q, t->nfix))
        return 0;
    p += t->nfix;
    q += t->nfix;
    while (p < end && q < qend) {
        if (is_digit(*q) && is_digit(*p)) {
            const char *p0 = p;
            while (q < qend && is_digit(*q))
                q++;
            while (p < end && is_digit(*p))
                p++;
            if (p - p0 > 15 || (*p0 == '0' && p - p0 > 1))
                return 0;
            continue;
        }
        if (*p++ != *q++)
            return 0;
    }
    return p == end && q == qend;
}

static int fast_events = 1;

void forge_wire_set_fast(int on)
{
    fast_events = on;
}

int forge_wire_fast(void)
{
    return fast_events;
}

struct forge_buf *forge_wire_acc_buf(struct forge_wire_acc *a, cJSON *obj, const char *key)
{
    struct forge_wire_acc_entry *e = acc_find(a, obj, key);
    if (!e) {
        if (a->n == a->cap) {
            size_t cap = a->cap ? a->cap * 2 : 8;
            struct forge_wire_acc_entry *v = forge_realloc(a->v, cap * sizeof *v);
            if (!v)
                return NULL;
            a->v = v;
            a->cap = cap;
        }
        e = &a->v[a->n++];
        e->obj = obj;
        snprintf(e->key, sizeof e->key, "%s", key);
        forge_buf_init(&e->b, 0);
        const char *had = forge_json_str(obj, key);
        if (had && forge_buf_adds(&e->b, had))
            return NULL;
    }
    return &e->b;
}

int forge_wire_acc_add(struct forge_wire_acc *a, cJSON *obj, const char *key, const char *piece)
{
    struct forge_buf *b = forge_wire_acc_buf(a, obj, key);
    if (!b)
        return FORGE_ENOMEM;
    return piece && forge_buf_adds(b, piece) ? FORGE_ENOMEM : 0;
}

const char *forge_wire_acc_get(const struct forge_wire_acc *a, const cJSON *obj, const char *key)
{
    const struct forge_wire_acc_entry *e = acc_find(a, obj, key);
    return e ? (e->b.data ? e->b.data : "") : NULL;
}

int forge_wire_acc_flush(struct forge_wire_acc *a)
{
    for (size_t i = 0; i < a->n; i++) {
        struct forge_wire_acc_entry *e = &a->v[i];
        if (!forge_wire_put(e->obj, e->key, cJSON_CreateString(e->b.data ? e->b.data : "")))
            return FORGE_ENOMEM;
    }
    return 0;
}

void forge_wire_acc_free(struct forge_wire_acc *a)
{
    for (size_t i = 0; i < a->n; i++)
        forge_buf_free(&a->v[i].b);
    forge_free(a->v);
    memset(a, 0, sizeof *a);
}

/* The end (one past) of the last blank line at or before <end> in <text>, or 0. */
static size_t last_blank(const char *text, size_t end)
{
    for (size_t i = end; i >= 2; i--) {
        if (text[i - 1] != '\n')
            continue;
        if (text[i - 2] == '\n' || (i >= 3 && text[i - 2] == '\r' && text[i - 3] == '\n'))
            return i;
    }
    return 0;
}

int forge_sse_last(struct forge_sse *it, const char *text, size_t len)
{
    forge_sse_init(it, text, len);
    size_t end = last_blank(text, len);
    if (!end)
        return 0;
    /* the event before that blank line starts after the blank line before it */
    size_t k = end - 1;
    while (k > 0 && (text[k - 1] == '\n' || text[k - 1] == '\r'))
        k--;
    it->p = text + last_blank(text, k);
    it->end = text + end;
    return forge_sse_next(it);
}
