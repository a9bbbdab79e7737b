/* HTTP model providers: spec and option parsing, keys, URLs, cache, record/replay, cost. */
#include "model/provider.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "data/json.h"
#include "model/cache.h"
#include "model/cassette.h"
#include "model/dialect.h"
#include "model/prices.h"
#include "net/http.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SECRETS (FORGE_PROVIDER_MAX_HEADERS + 8)

/* Every key variable forge knows: their values are redacted wherever a provider writes, whichever
 * provider is in use, since a server may echo any of them. */
static const char *const key_vars[] = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                                       "GOOGLE_API_KEY", "OLLAMA_API_KEY", NULL};

struct provider {
    struct forge_model base;
    const struct forge_dialect *d;
    char *base_url;
    char *url, *stream_url;
    int stream;
    char *headers[FORGE_PROVIDER_MAX_HEADERS + 8]; /* NULL-terminated, owned */
    char *secrets[MAX_SECRETS];                    /* NULL-terminated, owned */
    struct forge_http_opts http;
    char *cache_dir; /* NULL: no cache */
    int read_cache;
    struct forge_cassette *record, *replay;
    struct forge_prices *prices;
    pthread_mutex_t cache_lock;
};

const char forge_provider_opts_usage[] = FORGE_PROVIDER_OPTS_USAGE;

/* The text piece a streamed event carries (<data>, <len> bytes: an SSE event's data or an
 * NDJSON line) in <dialect>, thinking excluded, appended to <out>. */
static void event_text(const char *dialect, const char *data, size_t len, struct forge_buf *out)
{
    cJSON *j = cJSON_ParseWithLength(data, len);
    if (!j)
        return;
    const cJSON *t = NULL;
    if (!strcmp(dialect, "openai")) {
        const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0);
        t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ch, "delta"), "content");
    } else if (!strcmp(dialect, "openai-responses")) {
        const char *type = forge_json_str(j, "type");
        if (type && !strcmp(type, "response.output_text.delta"))
            t = cJSON_GetObjectItemCaseSensitive(j, "delta");
    } else if (!strcmp(dialect, "anthropic")) {
        const char *type = forge_json_str(j, "type");
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "delta");
        const char *dtype = forge_json_str(d, "type");
        if (type && dtype && !strcmp(type, "content_block_delta") && !strcmp(dtype, "text_delta"))
            t = cJSON_GetObjectItemCaseSensitive(d, "text");
    } else if (!strcmp(dialect, "ollama")) {
        t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "message"), "content");
    } else if (!strcmp(dialect, "gemini")) {
        const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "candidates"), 0);
        const cJSON *part;
        cJSON_ArrayForEach(part, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "content"), "parts")) {
            const cJSON *pt = cJSON_GetObjectItemCaseSensitive(part, "text");
            if (cJSON_IsString(pt) && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(part, "thought")))
                forge_buf_add(out, pt->valuestring, strlen(pt->valuestring));
        }
    }
    if (cJSON_IsString(t))
        forge_buf_add(out, t->valuestring, strlen(t->valuestring));
    cJSON_Delete(j);
}

/* Hands the text of a stream's newly complete events to the thread's text receiver. */
struct text_feed {
    const struct forge_dialect *d;
    forge_model_text_fn fn;
    void *ctx;
    size_t done; /* bytes of the attempt's body whose events were read */
};

static void feed_text(void *ud, const char *body, size_t len)
{
    struct text_feed *f = ud;
    if (len < f->done)
        f->done = 0; /* a retried attempt */
    struct forge_buf piece;
    forge_buf_init(&piece, 0);
    if (!strcmp(f->d->stream_type, "application/x-ndjson")) {
        const char *p = body + f->done, *end = body + len, *nl;
        while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
            event_text(f->d->name, p, (size_t)(nl - p), &piece);
            p = nl + 1;
        }
        f->done = (size_t)(p - body);
    } else {
        struct forge_sse it;
        size_t base = f->done;
        forge_sse_init(&it, body + base, len - base);
        while (forge_sse_next(&it) == 1) {
            if (it.data)
                event_text(f->d->name, it.data, it.len, &piece);
            f->done = base + (size_t)(it.p - it.base);
        }
        forge_sse_free(&it);
    }
    if (piece.len)
        f->fn(f->ctx, piece.data, piece.len);
    forge_buf_free(&piece);
}

void forge_provider_opts_init(struct forge_provider_opts *o)
{
    memset(o, 0, sizeof *o);
    o->retries = -1;
}

static int parse_long(const char *flag, const char *v, long min, long *out, struct forge_err *err)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < min)
        return forge_err_set(err, FORGE_EINVAL, "%s: '%s' is not a whole number >= %ld", flag, v, min);
    *out = n;
    return 0;
}

int forge_provider_opts_arg(struct forge_provider_opts *o, int argc, char **argv, int *i,
                            struct forge_err *err)
{
    static const char *const valued[] = {"--model", "--base-url", "--header", "--timeout-ms", "--retries",
                                         "--deadline-ms", "--cache-dir", "--record", "--replay", "--prices",
                                         "--max-response-bytes", "--idle-timeout-ms", NULL};
    const char *arg = argv[*i];
    if (strcmp(arg, "--no-cache") == 0) {
        o->no_cache = 1;
        (*i)++;
        return 1;
    }
    if (strcmp(arg, "--stream") == 0) {
        o->stream = 1;
        (*i)++;
        return 1;
    }
    const char *flag = NULL, *val = NULL;
    char name[32];
    for (int k = 0; valued[k]; k++) {
        size_t n = strlen(valued[k]);
        if (strncmp(arg, valued[k], n) != 0)
            continue;
        if (arg[n] == '\0') {
            if (*i + 1 >= argc)
                return forge_err_set(err, FORGE_EINVAL, "%s: needs a value", valued[k]);
            flag = valued[k];
            val = argv[*i + 1];
            *i += 2;
        } else if (arg[n] == '=') {
            flag = valued[k];
            val = arg + n + 1;
            *i += 1;
        } else {
            continue;
        }
        break;
    }
    if (!flag)
        return 0;
    snprintf(name, sizeof name, "%s", flag);
    long n = 0;
    if (strcmp(flag, "--model") == 0) {
        o->model = val;
    } else if (strcmp(flag, "--base-url") == 0) {
        o->base_url = val;
    } else if (strcmp(flag, "--header") == 0) {
        const char *colon = strchr(val, ':');
        if (!colon || colon == val || strpbrk(val, "\r\n"))
            return forge_err_set(err, FORGE_EINVAL, "--header: expected 'Name: value', got '%.*s...'",
                                 (int)(colon ? colon - val : 0), val);
        if (o->nheaders >= FORGE_PROVIDER_MAX_HEADERS)
            return forge_err_set(err, FORGE_EINVAL, "--header: more than %d headers", FORGE_PROVIDER_MAX_HEADERS);
        o->headers[o->nheaders++] = val;
    } else if (strcmp(flag, "--timeout-ms") == 0) {
        if (parse_long(name, val, 1, &n, err))
            return FORGE_EINVAL;
        o->timeout_ms = n;
    } else if (strcmp(flag, "--retries") == 0) {
        if (parse_long(name, val, 0, &n, err))
            return FORGE_EINVAL;
        if (n > 100)
            return forge_err_set(err, FORGE_EINVAL, "--retries: %ld is more than 100", n);
        o->retries = (int)n;
    } else if (strcmp(flag, "--deadline-ms") == 0) {
        if (parse_long(name, val, 1, &n, err))
            return FORGE_EINVAL;
        o->deadline_ms = n;
    } else if (strcmp(flag, "--cache-dir") == 0) {
        o->cache_dir = val;
    } else if (strcmp(flag, "--record") == 0) {
        o->record_path = val;
    } else if (strcmp(flag, "--replay") == 0) {
        o->replay_path = val;
    } else if (strcmp(flag, "--prices") == 0) {
        o->prices_path = val;
    } else if (strcmp(flag, "--max-response-bytes") == 0) {
        if (parse_long(name, val, 1, &n, err))
            return FORGE_EINVAL;
        o->max_response_bytes = (size_t)n;
    } else if (strcmp(flag, "--idle-timeout-ms") == 0) {
        if (parse_long(name, val, 1, &n, err))
            return FORGE_EINVAL;
        o->idle_timeout_ms = n;
    }
    if (o->record_path && o->replay_path)
        return forge_err_set(err, FORGE_EINVAL, "--record and --replay cannot be used together");
    return 1;
}

static void provider_free(struct forge_model *m)
{
    struct provider *p = (struct provider *)m;
    forge_free(p->base.provider);
    forge_free(p->base.name);
    forge_free(p->base_url);
    forge_free(p->url);
    for (int i = 0; p->headers[i]; i++)
        forge_free(p->headers[i]);
    for (int i = 0; p->secrets[i]; i++)
        forge_free(p->secrets[i]);
    forge_free(p->cache_dir);
    forge_free(p->stream_url);
    forge_cassette_free(p->record);
    forge_cassette_free(p->replay);
    forge_prices_free(p->prices);
    pthread_mutex_destroy(&p->cache_lock);
    forge_free(p);
}

static int add_secret(struct provider *p, const char *s)
{
    int n = 0;
    while (p->secrets[n])
        n++;
    /* Shorter values are placeholders ("x", "none"): redacting them would garble messages. */
    if (n >= MAX_SECRETS - 1 || !s || strlen(s) < 4)
        return 0;
    return (p->secrets[n] = forge_strdup(s)) ? 0 : FORGE_ENOMEM;
}

/* Adds a built-in header unless the user gave one of the same name. */
static int add_header(struct provider *p, const struct forge_provider_opts *o, const char *name, const char *value)
{
    size_t nl = strlen(name);
    for (int i = 0; i < o->nheaders; i++)
        if (strncasecmp(o->headers[i], name, nl) == 0 && o->headers[i][nl] == ':')
            return 0;
    int n = 0;
    while (p->headers[n])
        n++;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (forge_buf_addf(&b, "%s: %s", name, value)) {
        forge_buf_free(&b);
        return FORGE_ENOMEM;
    }
    p->headers[n] = forge_buf_take(&b);
    return p->headers[n] ? 0 : FORGE_ENOMEM;
}

static const struct forge_model_ops provider_ops;

struct forge_model *forge_provider_open(const char *spec, const struct forge_provider_opts *o,
                                        struct forge_err *err)
{
    int rc = 0;
    struct provider *p = NULL;
    char prov[64];
    const char *colon = spec ? strchr(spec, ':') : NULL;
    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof prov || !colon[1]) {
        forge_err_set(err, FORGE_EINVAL, "--model: '%s' is not PROVIDER:MODEL (e.g. openai:gpt-4o-mini, "
                      "anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, ollama:qwen3)", spec ? spec : "");
        return NULL;
    }
    memcpy(prov, spec, (size_t)(colon - spec));
    prov[colon - spec] = '\0';
    const char *model = colon + 1;
    const struct forge_dialect *d = forge_dialect_find(prov);
    if (!d) {
        forge_err_set(err, FORGE_EINVAL, "--model: unknown provider '%s' (openai, openai-responses, anthropic, "
                      "gemini, ollama; any OpenAI-compatible server is openai with --base-url)", prov);
        return NULL;
    }
    if (d == &forge_dialect_gemini && strncmp(model, "models/", 7) == 0 && model[7])
        model += 7;
    for (const char *c = model; *c; c++)
        if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c)) {
            forge_err_set(err, FORGE_EINVAL, "--model: the model name '%s' contains white space", model);
            return NULL;
        }
    if (d == &forge_dialect_openai && strcmp(prov, "openai-compatible") == 0 && !o->base_url) {
        forge_err_set(err, FORGE_EINVAL, "--model %s: openai-compatible needs --base-url", spec);
        return NULL;
    }

    /* The key, before anything else can fail in a way that hides its absence. */
    const char *key = NULL, *keyvar = NULL;
    if (d == &forge_dialect_openai || d == &forge_dialect_openai_responses) {
        keyvar = "OPENAI_API_KEY";
        key = getenv(keyvar);
    } else if (d == &forge_dialect_anthropic) {
        keyvar = "ANTHROPIC_API_KEY";
        key = getenv(keyvar);
    } else if (d == &forge_dialect_gemini) {
        keyvar = "GEMINI_API_KEY";
        key = getenv(keyvar);
        if (!key || !*key)
            key = getenv("GOOGLE_API_KEY");
    } else {
        key = getenv("OLLAMA_API_KEY");
    }
    for (const char *c = key; c && *c; c++)
        if (iscntrl((unsigned char)*c)) {
            forge_err_set(err, FORGE_EINVAL, "--model %s: the API key in the environment contains a control "
                          "character (a stray line break?)", spec);
            return NULL;
        }
    if (keyvar && (!key || !*key) && !o->replay_path) {
        forge_err_set(err, FORGE_EINVAL,
                      "--model %s: no API key: set %s%s in the environment (or use --replay FILE)", spec, keyvar,
                      d == &forge_dialect_gemini ? " or GOOGLE_API_KEY" : "");
        return NULL;
    }

    p = forge_calloc(1, sizeof *p);
    if (!p) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory opening %s", spec);
        return NULL;
    }
    pthread_mutex_init(&p->cache_lock, NULL);
    p->base.ops = &provider_ops;
    p->d = d;
    if (!(p->base.provider = forge_strdup(d->name)) || !(p->base.name = forge_strdup(model)))
        goto nomem;

    const char *base = o->base_url;
    if (!base) {
        if (d == &forge_dialect_openai || d == &forge_dialect_openai_responses)
            base = getenv("OPENAI_BASE_URL"), base = base && *base ? base : "https://api.openai.com/v1";
        else if (d == &forge_dialect_anthropic)
            base = getenv("ANTHROPIC_BASE_URL"), base = base && *base ? base : "https://api.anthropic.com";
        else if (d == &forge_dialect_gemini)
            base = getenv("GEMINI_BASE_URL"), base = base && *base ? base : "https://generativelanguage.googleapis.com";
        else
            base = getenv("OLLAMA_HOST"), base = base && *base ? base : "http://localhost:11434";
    }
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (d == &forge_dialect_ollama && !strstr(base, "://"))
        rc = forge_buf_adds(&b, "http://"); /* OLLAMA_HOST is often host:port */
    if (rc || forge_buf_adds(&b, base)) {
        forge_buf_free(&b);
        goto nomem;
    }
    while (b.len > 0 && b.data[b.len - 1] == '/')
        b.data[--b.len] = '\0';
    if (!strstr(b.data, "://") || strpbrk(b.data, " \t\r\n")) {
        forge_err_set(err, FORGE_EINVAL, "--base-url: '%s' is not an http:// or https:// URL", base);
        forge_buf_free(&b);
        goto fail;
    }
    p->base_url = forge_buf_take(&b);
    if (!p->base_url)
        goto nomem;
    {
        /* Credentials inside the URL (https://user:secret@host) are secrets too. */
        const char *auth = strstr(p->base_url, "://") + 3, *at = strchr(auth, '@'), *slash = strchr(auth, '/');
        if (at && (!slash || at < slash)) {
            char *userinfo = forge_strndup(auth, (size_t)(at - auth));
            const char *pw = userinfo ? strchr(userinfo, ':') : NULL;
            rc = !userinfo || add_secret(p, userinfo) || (pw && add_secret(p, pw + 1)) ? FORGE_ENOMEM : 0;
            forge_free(userinfo);
            if (rc)
                goto nomem;
        }
    }
    forge_buf_init(&b, 0);
    if (d == &forge_dialect_openai)
        rc = forge_buf_addf(&b, "%s/chat/completions", p->base_url);
    else if (d == &forge_dialect_openai_responses)
        rc = forge_buf_addf(&b, "%s/responses", p->base_url);
    else if (d == &forge_dialect_anthropic)
        rc = forge_buf_addf(&b, "%s/v1/messages", p->base_url);
    else if (d == &forge_dialect_gemini) {
        rc = forge_buf_addf(&b, "%s/v1beta/models/", p->base_url);
        for (const char *c = model; !rc && *c; c++)
            rc = isalnum((unsigned char)*c) || strchr("-._~", *c) ? forge_buf_addc(&b, *c)
                                                                : forge_buf_addf(&b, "%%%02X", (unsigned char)*c);
        if (!rc)
            rc = forge_buf_adds(&b, ":generateContent");
    } else
        rc = forge_buf_addf(&b, "%s/api/chat", p->base_url);
    if (rc) {
        forge_buf_free(&b);
        goto nomem;
    }
    p->url = forge_buf_take(&b);
    if (!p->url)
        goto nomem;
    /* Gemini streams from another method of the model; the others take "stream": true */
    if (d == &forge_dialect_gemini) {
        size_t n = strlen(p->url) - strlen(":generateContent");
        p->stream_url = forge_strdupf("%.*s:streamGenerateContent?alt=sse", (int)n, p->url);
    } else {
        p->stream_url = forge_strdup(p->url);
    }
    if (!p->stream_url)
        goto nomem;
    p->stream = o->stream;

    if (add_header(p, o, "Content-Type", "application/json"))
        goto nomem;
    if (key && *key) {
        const char *hname = "Authorization";
        struct forge_buf kb;
        forge_buf_init(&kb, 0);
        if (d == &forge_dialect_anthropic) {
            hname = "x-api-key";
            rc = forge_buf_adds(&kb, key);
        } else if (d == &forge_dialect_gemini) {
            hname = "x-goog-api-key";
            rc = forge_buf_adds(&kb, key);
        } else {
            rc = forge_buf_addf(&kb, "Bearer %s", key);
        }
        char *v = rc ? NULL : forge_buf_take(&kb);
        forge_buf_free(&kb);
        if (!v)
            goto nomem;
        rc = add_header(p, o, hname, v);
        forge_free(v);
        if (rc || add_secret(p, key))
            goto nomem;
    }
    if (d == &forge_dialect_anthropic && add_header(p, o, "anthropic-version", "2023-06-01"))
        goto nomem;
    for (int i = 0; i < o->nheaders; i++) {
        int n = 0;
        while (p->headers[n])
            n++;
        if (!(p->headers[n] = forge_strdup(o->headers[i])))
            goto nomem;
        const char *v = strchr(o->headers[i], ':') + 1;
        while (*v == ' ')
            v++;
        /* User headers often carry tokens, alone or after a scheme ("Bearer ..."). */
        const char *sp = strchr(v, ' ');
        if ((strlen(v) >= 8 && add_secret(p, v)) || (sp && strlen(sp + 1) >= 8 && add_secret(p, sp + 1)))
            goto nomem;
    }

    p->http.timeout_ms = o->timeout_ms;
    p->http.retries = o->retries;
    p->http.backoff_ms = o->backoff_ms;
    p->http.body_limit = o->max_response_bytes;
    p->http.deadline_ns = o->deadline_ms ? forge_clock_ns() + (uint64_t)o->deadline_ms * 1000000u : 0;
    p->http.idle_timeout_ms = o->idle_timeout_ms ? o->idle_timeout_ms : 30000;
    p->http.complete = d->stream_complete;
    for (const char *const *kv = key_vars; *kv; kv++)
        if (add_secret(p, getenv(*kv)))
            goto nomem;
    p->http.secrets = (const char *const *)p->secrets;

    if (!o->no_cache && !o->replay_path) {
        p->cache_dir = o->cache_dir ? forge_strdup(o->cache_dir) : forge_cache_default_dir();
        p->read_cache = !o->record_path; /* recording must see every exchange */
    }
    if (forge_prices_load(o->prices_path, &p->prices, err))
        goto fail;
    if (o->record_path && forge_cassette_open(o->record_path, 0, &p->record, err))
        goto fail;
    if (o->replay_path && forge_cassette_open(o->replay_path, 1, &p->replay, err))
        goto fail;
    return &p->base;
nomem:
    forge_err_set(err, FORGE_ENOMEM, "out of memory opening %s", spec);
fail:
    provider_free(&p->base);
    return NULL;
}

/* Turns an answer that is not a success into an error naming the provider's message. */
static int answer_error(struct provider *p, long status, const char *body, struct forge_err *err)
{
    struct forge_err pe;
    char msg[1024] = "";
    cJSON *v = forge_json_parse(body, strlen(body), "response", &pe);
    p->d->error_message(v, msg, sizeof msg);
    cJSON_Delete(v);
    if (!msg[0]) {
        size_t n = strlen(body);
        snprintf(msg, sizeof msg, "%.300s%s", n ? body : "(empty body)", n > 300 ? "..." : "");
    }
    forge_err_set(err, FORGE_ENET, "%s:%s: HTTP %ld%s: %s", p->base.provider, p->base.name, status,
                  status == 429 || status >= 500 ? " (after retries)" : "", msg);
    forge_http_redact(err->msg, sizeof err->msg, (const char *const *)p->secrets);
    return FORGE_ENET;
}

/* Parses a wire answer into the normalized response. */
static int read_answer(struct provider *p, const cJSON *req, long status, const char *body, cJSON **resp,
                       struct forge_err *err)
{
    if (status < 200 || status > 299)
        return answer_error(p, status, body, err);
    struct forge_err pe;
    forge_err_clear(&pe);
    cJSON *v = forge_json_parse(body, strlen(body), "response", &pe);
    if (!v) {
        forge_err_set(err, FORGE_ENET, "%s:%s: the response is not valid JSON (%s)", p->base.provider, p->base.name, pe.msg);
        forge_http_redact(err->msg, sizeof err->msg, (const char *const *)p->secrets);
        return FORGE_ENET;
    }
    int rc = p->d->parse(req, v, resp, err);
    cJSON_Delete(v);
    if (rc)
        forge_err_prefix(err, "%s", p->base.name);
    return rc;
}

static int finish(struct provider *p, cJSON *resp, double latency_ms, int cached)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "usage");
    double cost = forge_prices_cost(p->prices, p->base.provider, p->base.name, forge_json_num(u, "input_tokens", 0),
                                    forge_json_num(u, "output_tokens", 0), NULL);
    cJSON_DeleteItemFromObjectCaseSensitive(resp, "cost_usd");
    cJSON_DeleteItemFromObjectCaseSensitive(resp, "latency_ms");
    cJSON_DeleteItemFromObjectCaseSensitive(resp, "cached");
    if (!cJSON_AddNumberToObject(resp, "cost_usd", cost) || !cJSON_AddNumberToObject(resp, "latency_ms", latency_ms) ||
        !cJSON_AddBoolToObject(resp, "cached", cached))
        return FORGE_ENOMEM;
    return 0;
}

/* A copy of the request body <body> that asks for the dialect's stream (Gemini asks by URL). */
static cJSON *stream_body(const struct provider *p, const cJSON *body)
{
    cJSON *b = cJSON_Duplicate(body, 1), *so;
    if (!b || p->d == &forge_dialect_gemini)
        return b;
    if (!forge_wire_put(b, "stream", cJSON_CreateTrue()) ||
        (p->d == &forge_dialect_openai && (!(so = cJSON_AddObjectToObject(b, "stream_options")) ||
                                           !cJSON_AddTrueToObject(so, "include_usage")))) {
        cJSON_Delete(b);
        return NULL;
    }
    return b;
}

static cJSON *ms_or_null(double ms)
{
    return ms < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)(long long)(ms * 1000 + 0.5) / 1000);
}

/* "timing" of a streamed answer from when its pieces arrived; all zeros without pieces. */
static int add_timing(cJSON *r, const struct forge_http_response *hr, const struct forge_stream_marks *mk)
{
    double ttfb = hr && hr->nmarks ? hr->marks[0].ms : 0, last = hr && hr->nmarks ? hr->marks[hr->nmarks - 1].ms : 0;
    double tok = mk->first_token == SIZE_MAX ? -1 : hr ? forge_http_time_at(hr, mk->first_token) : 0;
    double call = mk->first_call == SIZE_MAX ? -1 : hr ? forge_http_time_at(hr, mk->first_call) : 0;
    cJSON *t = cJSON_CreateObject();
    if (!t || !forge_wire_put(r, "timing", t) || !cJSON_AddItemToObject(t, "ttfb_ms", ms_or_null(ttfb)) ||
        !cJSON_AddItemToObject(t, "first_token_ms", ms_or_null(tok)) ||
        !cJSON_AddItemToObject(t, "first_tool_call_ms", ms_or_null(call)) ||
        !cJSON_AddItemToObject(t, "last_byte_ms", ms_or_null(last)))
        return FORGE_ENOMEM;
    return 0;
}

/* A recorded or cached answer asked for as a stream: streamed again through the dialect's own
 * events and read back, so replays exercise the same path as live streams. */
static int restream(struct provider *p, const cJSON *req, cJSON **r, struct forge_err *err)
{
    struct forge_answer_info info = {.model = p->base.name, .id = "replayed", .created = 0};
    struct forge_stream_marks mk;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *body = NULL, *again = NULL, *sreq = cJSON_Duplicate(req, 1), *so;
    /* the stream a live request gets: with usage (OpenAI sends it only when asked) */
    int rc = sreq && (so = cJSON_AddObjectToObject(sreq, "stream_options")) && cJSON_AddTrueToObject(so, "include_usage")
             ? p->d->stream(sreq, *r, &info, &b, err) : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    cJSON_Delete(sreq);
    if (!rc)
        rc = p->d->assemble(b.data ? b.data : "", b.len, &body, &mk, err);
    if (!rc)
        rc = p->d->parse(req, body, &again, err);
    if (!rc && (rc = add_timing(again, NULL, &mk)))
        forge_err_set(err, rc, "out of memory");
    forge_buf_free(&b);
    cJSON_Delete(body);
    if (rc) {
        cJSON_Delete(again);
        forge_err_prefix(err, "%s:%s: replaying the stream", p->base.provider, p->base.name);
        return rc;
    }
    cJSON_Delete(*r);
    *r = again;
    return 0;
}

static int provider_complete(struct forge_model *m, const cJSON *req, cJSON **resp, struct forge_err *err)
{
    struct provider *p = (struct provider *)m;
    int rc;
    cJSON *body = NULL, *r = NULL;
    char *text = NULL, *sorted = NULL, *rbody = NULL;
    struct forge_http_response hr = {0};
    struct forge_stream_marks mk = {SIZE_MAX, SIZE_MAX};
    char key[65] = "", tape_key[65] = "";
    double t0 = forge_clock_ms();
    int stream = p->stream || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stream"));
    cJSON *sbody = NULL;
    char *stext = NULL;
    *resp = NULL;
    if ((rc = forge_wire_check(req, err)) || (rc = p->d->build(req, p->base.name, &body, err)))
        goto out;
    if (!(text = forge_json_print(body, 0))) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory printing the request");
        goto out;
    }
    if (p->cache_dir || p->record || p->replay) {
        if (!(sorted = forge_json_print(body, FORGE_JSON_SORTED))) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory printing the request");
            goto out;
        }
        forge_cache_key(p->base.provider, p->base_url, p->base.name, sorted, key);
        /* A cassette must replay wherever the recording pointed, so its key leaves the URL out. */
        forge_cache_key(p->base.provider, "", p->base.name, sorted, tape_key);
    }
    if (p->replay) {
        long status = 0;
        if ((rc = forge_cassette_find(p->replay, tape_key, &status, &rbody, err)))
            goto out;
        if ((rc = read_answer(p, req, status, rbody, &r, err)))
            goto out;
        if (stream && (rc = restream(p, req, &r, err)))
            goto out;
        rc = finish(p, r, forge_clock_ms() - t0, 0);
        goto out;
    }
    if (p->cache_dir && p->read_cache && (r = forge_cache_get(p->cache_dir, key))) {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "timing");
        if (stream && (rc = restream(p, req, &r, err)))
            goto out;
        rc = finish(p, r, forge_clock_ms() - t0, 1);
        goto out;
    }
    struct forge_http_opts http = p->http;
    http.stream = stream;
    struct text_feed tf = {.d = p->d};
    if (stream && (tf.fn = forge_model_text_get(&tf.ctx))) {
        http.on_data = feed_text;
        http.on_data_ctx = &tf;
    }
    if (stream && (!(sbody = stream_body(p, body)) || !(stext = forge_json_print(sbody, 0)))) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory printing the request");
        goto out;
    }
    if ((rc = forge_http_post(stream ? p->stream_url : p->url, (const char *const *)p->headers, stream ? stext : text,
                              strlen(stream ? stext : text), &http, &hr, err))) {
        forge_err_prefix(err, "%s:%s", p->base.provider, p->base.name);
        goto out;
    }
    if (stream && hr.status >= 200 && hr.status <= 299) {
        /* from here on the answer is the one the provider would have sent whole */
        cJSON *whole = NULL;
        if ((rc = p->d->assemble(hr.body, hr.len, &whole, &mk, err))) {
            forge_err_prefix(err, "%s", p->base.name);
            forge_http_redact(err->msg, sizeof err->msg, (const char *const *)p->secrets);
            goto out;
        }
        char *wt = forge_json_print(whole, 0);
        cJSON_Delete(whole);
        if (!wt) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory assembling the stream");
            goto out;
        }
        forge_free(hr.body);
        hr.body = wt;
        hr.len = strlen(wt);
    }
    /* A server may echo a key in a successful answer: none reaches the cassette, the cache, a
     * transcript, a report or forge model's output. */
    char *clean = forge_http_redact_dup(hr.body, (const char *const *)p->secrets);
    if (clean) {
        forge_free(hr.body);
        hr.body = clean;
        hr.len = strlen(clean);
    }
    if (p->record) {
        struct forge_err re;
        if (forge_cassette_record(p->record, tape_key, p->base.provider, p->base.name, body, hr.status, hr.body,
                                  (const char *const *)p->secrets, &re) != 0) {
            rc = forge_err_set(err, re.code, "%s", re.msg);
            goto out;
        }
    }
    if ((rc = read_answer(p, req, hr.status, hr.body, &r, err)))
        goto out;
    if ((rc = finish(p, r, hr.elapsed_ms, 0)))
        goto out;
    if (stream && (rc = add_timing(r, &hr, &mk))) {
        forge_err_set(err, rc, "out of memory");
        goto out;
    }
    if (p->cache_dir) {
        /* finish() refreshes cost, latency and "cached" when the entry is served later. */
        struct forge_err ce;
        pthread_mutex_lock(&p->cache_lock);
        if (forge_cache_put(p->cache_dir, key, r, &ce) != 0)
            forge_log(FORGE_LOG_WARN, "response cache: %s", ce.msg);
        pthread_mutex_unlock(&p->cache_lock);
    }
out:
    if (rc == FORGE_ENOMEM && err && !err->msg[0])
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
    forge_http_response_free(&hr);
    forge_free(text);
    forge_free(stext);
    forge_free(sorted);
    forge_free(rbody);
    cJSON_Delete(body);
    cJSON_Delete(sbody);
    if (rc) {
        cJSON_Delete(r);
        r = NULL;
    }
    *resp = r;
    return rc;
}

static const struct forge_model_ops provider_ops = {provider_complete, provider_free};

int forge_provider_wire(struct forge_model *m, const cJSON *req, cJSON **body, struct forge_err *err)
{
    *body = NULL;
    if (!m || m->ops != &provider_ops)
        return forge_err_set(err, FORGE_EINVAL, "not a provider model");
    struct provider *p = (struct provider *)m;
    cJSON *b = NULL;
    int rc = forge_wire_check(req, err);
    if (!rc)
        rc = p->d->build(req, p->base.name, &b, err);
    if (rc)
        return rc;
    if (p->stream || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stream"))) {
        cJSON *s = stream_body(p, b);
        cJSON_Delete(b);
        if (!(b = s))
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    *body = b;
    return 0;
}

struct batch {
    struct forge_model *m;
    const cJSON *const *reqs;
    cJSON **resps;
    struct forge_err *errs;
    size_t n, next, done, ok;
    forge_batch_progress_fn progress;
    void *ctx;
    pthread_mutex_t lock;
};

static void *worker(void *ud)
{
    struct batch *b = ud;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t i = b->next < b->n ? b->next++ : b->n;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n)
            return NULL;
        forge_err_clear(&b->errs[i]);
        int rc = forge_model_complete(b->m, b->reqs[i], &b->resps[i], &b->errs[i]);
        if (rc && !b->errs[i].code)
            b->errs[i].code = rc;
        pthread_mutex_lock(&b->lock);
        b->done++;
        b->ok += rc == 0;
        if (b->progress)
            b->progress(b->ctx, b->done, b->ok, b->n);
        pthread_mutex_unlock(&b->lock);
    }
}

int forge_provider_run_batch(struct forge_model *m, const cJSON *const *reqs, size_t n, int jobs,
                             cJSON **resps, struct forge_err *errs, forge_batch_progress_fn progress,
                             void *ctx)
{
    struct batch b = {m, reqs, resps, errs, n, 0, 0, 0, progress, ctx, PTHREAD_MUTEX_INITIALIZER};
    if (jobs < 1)
        jobs = 1;
    if ((size_t)jobs > n)
        jobs = n ? (int)n : 1;
    for (size_t i = 0; i < n; i++)
        resps[i] = NULL;
    pthread_t *t = forge_calloc((size_t)jobs, sizeof *t);
    if (!t)
        return FORGE_ENOMEM;
    int started = 0, rc = 0;
    for (; started < jobs; started++)
        if (pthread_create(&t[started], NULL, worker, &b) != 0)
            break;
    if (started == 0)
        rc = FORGE_EINTERNAL;
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    forge_free(t);
    pthread_mutex_destroy(&b.lock);
    return rc;
}
