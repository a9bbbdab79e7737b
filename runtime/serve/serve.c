/* forge serve: routing, backends and sessions. */
#include "serve/serve.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "data/json.h"
#include "model/dialect.h"
#include "serve/session.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct forge_serve {
    struct forge_serve_opts o;
    struct forge_sessions *sessions;
    atomic_long next_id, answered, refused;
};

struct forge_serve *forge_serve_new(const struct forge_serve_opts *o, struct forge_err *err)
{
    struct forge_serve *s = forge_calloc(1, sizeof *s);
    if (!s || !(s->sessions = forge_sessions_new(o->transcripts, o->max_sessions))) {
        forge_free(s);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    s->o = *o;
    return s;
}

void forge_serve_free(struct forge_serve *s)
{
    if (!s)
        return;
    forge_sessions_free(s->sessions);
    forge_free(s);
}

int forge_serve_finished(struct forge_serve *s)
{
    return forge_sessions_finished(s->sessions);
}

void forge_serve_counts(struct forge_serve *s, long *sessions, long *answered, long *refused)
{
    *sessions = forge_sessions_complete(s->sessions);
    *answered = atomic_load(&s->answered);
    *refused = atomic_load(&s->refused);
}

cJSON *forge_serve_trajectories(struct forge_serve *s)
{
    return forge_sessions_trajectories(s->sessions);
}

/* ---- replies ---- */

static void reply_json(struct forge_server_response *resp, int status, cJSON *body)
{
    /* forge's writer: whole numbers digit by digit (cJSON prints each number with sprintf and
     * reads it back with sscanf), and the text is ours to hand over, with no copy */
    char *owned = body ? forge_json_print(body, 0) : NULL;
    cJSON_Delete(body);
    if (!owned) {
        forge_server_reply(resp, 500, "application/json",
                           forge_strdup("{\"error\":{\"message\":\"the server is out of memory\"}}"));
        return;
    }
    forge_server_reply(resp, status, "application/json", owned);
}

/* A refusal in the dialect's error shape, reported on stderr. */
static void refuse(struct forge_serve *s, const struct forge_dialect *d, const struct forge_server_request *req,
                   struct forge_server_response *resp, int status, const char *msg)
{
    atomic_fetch_add(&s->refused, 1);
    forge_log(FORGE_LOG_WARN, "serve: %s %s: %d %s", req->method, req->path, status, msg);
    reply_json(resp, status, d && d->error_body ? d->error_body(status, msg) : NULL);
    if (!resp->body || resp->status == 500) {
        /* no dialect (an unknown path): a plain JSON error */
        cJSON *o = cJSON_CreateObject(), *e = o ? cJSON_AddObjectToObject(o, "error") : NULL;
        if (e)
            cJSON_AddStringToObject(e, "message", msg);
        reply_json(resp, status, o);
    }
}

/* ---- model listings ---- */

static const char *served_name(const struct forge_serve *s, int i)
{
    if (s->o.names[i])
        return s->o.names[i];
    /* the scripted model's name is its rules file: it answers to any name, listed as "scripted" */
    return strcmp(s->o.models[i]->provider, "scripted") ? s->o.models[i]->name : "scripted";
}

static void list_models(struct forge_serve *s, const struct forge_server_request *req,
                        struct forge_server_response *resp, const char *shape)
{
    cJSON *o = cJSON_CreateObject(), *arr = NULL;
    int anthropic = forge_server_header(req, "anthropic-version") != NULL;
    if (o)
        arr = cJSON_AddArrayToObject(o, !strcmp(shape, "openai") ? "data" : "models");
    for (int i = 0; arr && i < s->o.nmodels; i++) {
        const char *n = served_name(s, i);
        cJSON *m = cJSON_CreateObject();
        if (!m)
            break;
        cJSON_AddItemToArray(arr, m);
        if (!strcmp(shape, "gemini")) {
            char *full = forge_strdupf("models/%s", n);
            cJSON_AddStringToObject(m, "name", full ? full : n);
            forge_free(full);
            cJSON_AddStringToObject(m, "displayName", n);
            cJSON *g = cJSON_AddArrayToObject(m, "supportedGenerationMethods");
            cJSON_AddItemToArray(g, cJSON_CreateString("generateContent"));
            cJSON_AddItemToArray(g, cJSON_CreateString("streamGenerateContent"));
        } else if (!strcmp(shape, "ollama")) {
            cJSON_AddStringToObject(m, "name", n);
            cJSON_AddStringToObject(m, "model", n);
            cJSON_AddStringToObject(m, "modified_at", "1970-01-01T00:00:00Z");
            cJSON_AddNumberToObject(m, "size", 0);
            cJSON_AddStringToObject(m, "digest", "");
            cJSON_AddObjectToObject(m, "details");
        } else if (anthropic) {
            cJSON_AddStringToObject(m, "type", "model");
            cJSON_AddStringToObject(m, "id", n);
            cJSON_AddStringToObject(m, "display_name", n);
            cJSON_AddStringToObject(m, "created_at", "1970-01-01T00:00:00Z");
        } else {
            cJSON_AddStringToObject(m, "id", n);
            cJSON_AddStringToObject(m, "object", "model");
            cJSON_AddNumberToObject(m, "created", 0);
            cJSON_AddStringToObject(m, "owned_by", "forge");
        }
    }
    if (arr && !strcmp(shape, "openai")) {
        if (anthropic) {
            cJSON_AddFalseToObject(o, "has_more");
            int n = cJSON_GetArraySize(arr);
            const char *first = n ? forge_json_str(cJSON_GetArrayItem(arr, 0), "id") : NULL;
            const char *last = n ? forge_json_str(cJSON_GetArrayItem(arr, n - 1), "id") : NULL;
            first ? cJSON_AddStringToObject(o, "first_id", first) : cJSON_AddNullToObject(o, "first_id");
            last ? cJSON_AddStringToObject(o, "last_id", last) : cJSON_AddNullToObject(o, "last_id");
        } else {
            cJSON_AddStringToObject(o, "object", "list");
        }
    }
    reply_json(resp, 200, o);
}

/* ---- completions ---- */

/* The model serving <name>, or -1. */
static int pick_model(const struct forge_serve *s, const char *name)
{
    if (s->o.nmodels == 1 && !s->o.names[0])
        return 0;
    for (int i = 0; name && i < s->o.nmodels; i++)
        if (!strcmp(served_name(s, i), name))
            return i;
    return -1;
}

static int json_content_type(const struct forge_server_request *req)
{
    const char *ct = forge_server_header(req, "Content-Type");
    if (!ct)
        return 0;
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    return n == 16 && !strncasecmp(ct, "application/json", 16);
}

static void complete(struct forge_serve *s, const struct forge_dialect *d, const struct forge_server_request *req,
                     struct forge_server_response *resp, const char *url_model, int url_stream)
{
    double t0 = forge_clock_ms();
    struct forge_err err = {0};
    cJSON *body = NULL, *nreq = NULL, *nresp = NULL;
    char msg[2100];
    if (req->body_too_large) {
        snprintf(msg, sizeof msg, "the request body is larger than %zu bytes (raise it with forge serve --max-body-mb)",
                 s->o.max_body);
        refuse(s, d, req, resp, 413, msg);
        return;
    }
    if (!json_content_type(req)) {
        refuse(s, d, req, resp, 400, "Content-Type must be application/json");
        return;
    }
    if (!(body = forge_json_parse(req->body, req->body_len, "request body", &err)) || !cJSON_IsObject(body)) {
        snprintf(msg, sizeof msg, "%s", body ? "the request body must be a JSON object" : err.msg);
        cJSON_Delete(body);
        refuse(s, d, req, resp, err.code == FORGE_ENOMEM ? 500 : 400, msg);
        return;
    }
    const char *model = url_model ? url_model : forge_json_str(body, "model");
    if (!model || !*model) {
        cJSON_Delete(body);
        refuse(s, d, req, resp, 400, "model: required");
        return;
    }
    int stream = 0;
    if (d->accept(body, &nreq, &stream, &err)) {
        snprintf(msg, sizeof msg, "%s", err.msg);
        cJSON_Delete(body);
        refuse(s, d, req, resp, err.code == FORGE_ENOMEM ? 500 : 400, msg);
        return;
    }
    stream = stream || url_stream;
    int mi = pick_model(s, model);
    if (mi < 0) {
        snprintf(msg, sizeof msg, "model '%.200s' is not served here", model);
        refuse(s, d, req, resp, 404, msg);
        goto out;
    }
    struct forge_session_ref ref;
    if (forge_sessions_begin(s->sessions, req, nreq, s->o.cases, t0, &ref)) {
        refuse(s, d, req, resp, 500, "the server is out of memory");
        goto out;
    }
    if (ref.case_id && !cJSON_GetObjectItemCaseSensitive(nreq, "case_id"))
        cJSON_AddStringToObject(nreq, "case_id", ref.case_id);
    int rc = forge_model_complete(s->o.models[mi], nreq, &nresp, &err);
    if (rc) {
        forge_sessions_abandon(s->sessions, &ref);
        /* a request the cassette lacks or an error of the rules is the request's, and SDKs
         * retry 5xx: those get 400; a live provider failing gets 502 */
        refuse(s, d, req, resp, rc == FORGE_ENET && !s->o.replay ? 502 : rc == FORGE_ENOMEM ? 500 : 400, err.msg);
        goto out;
    }
    char id[48];
    long n = atomic_fetch_add(&s->next_id, 1) + 1;
    snprintf(id, sizeof id, "%s%ld", d == &forge_dialect_anthropic ? "msg_forge" : d == &forge_dialect_openai
                                     ? "chatcmpl-forge" : d == &forge_dialect_openai_responses ? "resp_forge" : "forge-", n);
    struct forge_answer_info info = {.model = model, .id = id, .created = (long long)time(NULL)};
    if (stream) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        if (d->stream(nreq, nresp, &info, &b, &err)) {
            forge_buf_free(&b);
            forge_sessions_abandon(s->sessions, &ref);
            refuse(s, d, req, resp, 500, "the server is out of memory");
            goto out;
        }
        forge_server_reply(resp, 200, d->stream_type, forge_buf_take(&b));
        resp->stream = 1;
    } else {
        cJSON *out = NULL;
        if (d->answer(nreq, nresp, &info, &out, &err)) {
            forge_sessions_abandon(s->sessions, &ref);
            refuse(s, d, req, resp, 500, "the server is out of memory");
            goto out;
        }
        reply_json(resp, 200, out);
    }
    atomic_fetch_add(&s->answered, 1);
    forge_sessions_end(s->sessions, &ref, &nreq, &nresp, model, s->o.models[mi]->provider, forge_clock_ms());
out:
    cJSON_Delete(body);
    cJSON_Delete(nreq);
    cJSON_Delete(nresp);
}

/* Gemini: /v1beta/models/{model}:generateContent or :streamGenerateContent (also under /v1 and
 * /v1alpha, the API versions the SDKs may be set to). */
static int gemini_path(const char *path, char *model, size_t n, int *stream)
{
    static const char *const prefixes[] = {"/v1beta/models/", "/v1/models/", "/v1alpha/models/", NULL};
    const char *m = NULL;
    for (const char *const *p = prefixes; *p && !m; p++)
        if (!strncmp(path, *p, strlen(*p)))
            m = path + strlen(*p);
    const char *colon = m ? strrchr(m, ':') : NULL;
    if (!colon || colon == m || (size_t)(colon - m) >= n)
        return 0;
    if (!strcmp(colon + 1, "generateContent"))
        *stream = 0;
    else if (!strcmp(colon + 1, "streamGenerateContent"))
        *stream = 1;
    else
        return 0;
    memcpy(model, m, (size_t)(colon - m));
    model[colon - m] = '\0';
    return 1;
}

void forge_serve_handle(void *ctx, const struct forge_server_request *req, struct forge_server_response *resp)
{
    struct forge_serve *s = ctx;
    const struct forge_dialect *d = NULL;
    const char *p = req->path;
    char gmodel[256];
    int gstream = 0, is_gemini = gemini_path(p, gmodel, sizeof gmodel, &gstream);
    if (!strcmp(p, "/v1/chat/completions") || !strcmp(p, "/chat/completions"))
        d = &forge_dialect_openai;
    else if (!strcmp(p, "/v1/responses") || !strcmp(p, "/responses"))
        d = &forge_dialect_openai_responses;
    else if (!strcmp(p, "/v1/messages"))
        d = &forge_dialect_anthropic;
    else if (is_gemini)
        d = &forge_dialect_gemini;
    else if (!strcmp(p, "/api/chat"))
        d = &forge_dialect_ollama;
    if (!strcmp(p, "/health") && !strcmp(req->method, "GET")) {
        forge_server_reply(resp, 200, "application/json", forge_strdup("{\"status\":\"ok\"}"));
        return;
    }
    /* everything but the health check needs the token when one is set */
    if (s->o.token && !forge_server_secret_eq(forge_server_credential(req), s->o.token)) {
        refuse(s, d ? d : &forge_dialect_openai, req, resp, 401,
               "missing or wrong API key: this forge serve requires the token set with --token-env");
        return;
    }
    if (!strcmp(req->method, "GET")) {
        if (!strcmp(p, "/v1/models") || !strcmp(p, "/models"))
            list_models(s, req, resp, "openai");
        else if (!strcmp(p, "/v1beta/models"))
            list_models(s, req, resp, "gemini");
        else if (!strcmp(p, "/api/tags"))
            list_models(s, req, resp, "ollama");
        else
            refuse(s, d, req, resp, 404, "no such endpoint");
        return;
    }
    if (!d) {
        refuse(s, NULL, req, resp, 404, "no such endpoint");
        return;
    }
    if (strcmp(req->method, "POST")) {
        refuse(s, d, req, resp, 405, "this endpoint takes POST");
        return;
    }
    if (!d->accept) {
        refuse(s, d, req, resp, 501, "this dialect is not served yet");
        return;
    }
    if (is_gemini && gstream) {
        const char *alt = forge_server_query(req, "alt");
        if (!alt || strcmp(alt, "sse")) {
            refuse(s, d, req, resp, 400, "streamGenerateContent is served as server-sent events: add ?alt=sse");
            return;
        }
    }
    complete(s, d, req, resp, is_gemini ? gmodel : NULL, gstream);
}
