/* MCP transports of the server: stdio lines, and Streamable HTTP on server/server.h. */
#include "mcp/mcp.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "server/server.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

static int write_line(FILE *out, const cJSON *v)
{
    char *t = cJSON_PrintUnformatted(v);
    int rc = t && fputs(t, out) >= 0 && fputc('\n', out) != EOF && fflush(out) == 0 ? 0 : FORGE_EIO;
    cJSON_free(t);
    return rc;
}

/* stdio: a notification is written at once, before the reply it precedes */
static void send_line(void *ctx, cJSON *note)
{
    write_line(ctx, note);
    cJSON_Delete(note);
}

int forge_mcp_serve_stdio(const struct forge_mcp_server *s, FILE *in, FILE *out, size_t max_line)
{
    struct forge_mcp_session sess;
    memset(&sess, 0, sizeof sess);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while (!rc && (n = getline(&line, &cap, in)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        cJSON *reply = NULL;
        if ((size_t)n > max_line) {
            reply = forge_rpc_error(NULL, FORGE_RPC_INVALID_REQUEST, "Invalid Request: the message is longer than the "
                                                                     "line limit (raise it with --max-message-mb)");
        } else {
            struct forge_err err = {0};
            cJSON *msg = forge_json_parse(line, (size_t)n, "message", &err);
            if (!msg) {
                char m[FORGE_ERR_MAX + 16];
                snprintf(m, sizeof m, "Parse error: %s", err.msg);
                reply = forge_rpc_error(NULL, FORGE_RPC_PARSE_ERROR, m);
            } else {
                struct forge_mcp_sink sink = {send_line, out};
                reply = forge_mcp_handle(s, &sess, msg, &sink);
                cJSON_Delete(msg);
            }
        }
        if (reply)
            rc = write_line(out, reply);
        cJSON_Delete(reply);
    }
    free(line);
    return rc;
}

/* ---- Streamable HTTP ---- */

struct session {
    char id[33];
    struct forge_mcp_session s;
    struct session *next;
};

struct forge_mcp_http {
    const struct forge_mcp_server *srv;
    const char *token;
    long max_sessions, count;
    struct session *sessions;
    pthread_mutex_t mu;
};

struct forge_mcp_http *forge_mcp_http_new(const struct forge_mcp_server *s, const char *token, long max_sessions)
{
    struct forge_mcp_http *h = forge_calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->srv = s;
    h->token = token;
    h->max_sessions = max_sessions > 0 ? max_sessions : 10000;
    pthread_mutex_init(&h->mu, NULL);
    return h;
}

void forge_mcp_http_free(struct forge_mcp_http *h)
{
    if (!h)
        return;
    for (struct session *s = h->sessions, *n; s; s = n) {
        n = s->next;
        forge_free(s);
    }
    pthread_mutex_destroy(&h->mu);
    forge_free(h);
}

static void reply(struct forge_server_response *resp, int status, cJSON *body)
{
    char *t = body ? cJSON_PrintUnformatted(body) : NULL;
    cJSON_Delete(body);
    forge_server_reply(resp, status, "application/json", t ? forge_strdup(t) : forge_strdup(""));
    cJSON_free(t);
}

static void fail(struct forge_server_response *resp, int status, int code, const char *msg)
{
    reply(resp, status, forge_rpc_error(NULL, code, msg));
}

/* Browsers send Origin: only a page served from this machine may talk to a local server. */
static int origin_ok(const char *origin)
{
    if (!origin || !strcmp(origin, "null"))
        return origin == NULL;
    const char *h = strstr(origin, "://");
    if (!h)
        return 0;
    h += 3;
    static const char *const local[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        size_t n = strlen(local[i]);
        if (!strncasecmp(h, local[i], n) && (h[n] == '\0' || h[n] == ':' || h[n] == '/'))
            return 1;
    }
    return 0;
}

static struct session *find(struct forge_mcp_http *h, const char *id)
{
    for (struct session *s = h->sessions; s && id; s = s->next)
        if (!strcmp(s->id, id))
            return s;
    return NULL;
}

/* HTTP: the notifications of a request are gathered and sent before its reply, as one stream */
static void gather(void *ctx, cJSON *note)
{
    if (!cJSON_AddItemToArray(ctx, note))
        cJSON_Delete(note);
}

static int accepts_sse(const char *accept)
{
    return accept && strstr(accept, "text/event-stream");
}

/* The reply and the notifications before it as server-sent events. */
static void reply_sse(struct forge_server_response *resp, cJSON *notes, cJSON *r)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *n;
    int ok = 1;
    cJSON_ArrayForEach(n, notes) {
        char *t = cJSON_PrintUnformatted(n);
        ok = ok && t && !forge_buf_adds(&b, "event: message\ndata: ") && !forge_buf_adds(&b, t) &&
             !forge_buf_adds(&b, "\n\n");
        cJSON_free(t);
    }
    char *t = cJSON_PrintUnformatted(r);
    ok = ok && t && !forge_buf_adds(&b, "event: message\ndata: ") && !forge_buf_adds(&b, t) && !forge_buf_adds(&b, "\n\n");
    cJSON_free(t);
    cJSON_Delete(r);
    if (!ok) {
        forge_buf_free(&b);
        fail(resp, 500, FORGE_RPC_INTERNAL_ERROR, "out of memory");
        return;
    }
    forge_server_add_header(resp, "Cache-Control", "no-cache");
    forge_server_reply(resp, 200, "text/event-stream", forge_buf_take(&b));
}

static int accepts_json(const char *accept)
{
    return !accept || strstr(accept, "application/json") || strstr(accept, "*/*") || strstr(accept, "application/*");
}

void forge_mcp_http_handle(void *ctx, const struct forge_server_request *req, struct forge_server_response *resp)
{
    struct forge_mcp_http *h = ctx;
    if (strcmp(req->path, "/mcp")) {
        fail(resp, 404, FORGE_RPC_INVALID_REQUEST, "Not found: the MCP endpoint is /mcp");
        return;
    }
    if (!origin_ok(forge_server_header(req, "Origin"))) {
        fail(resp, 403, FORGE_RPC_INVALID_REQUEST, "Forbidden: requests from another origin are refused");
        return;
    }
    if (h->token && !forge_server_secret_eq(forge_server_credential(req), h->token)) {
        forge_server_add_header(resp, "WWW-Authenticate", "Bearer");
        fail(resp, 401, FORGE_RPC_INVALID_REQUEST, "Unauthorized: a valid bearer token is required");
        return;
    }
    const char *sid = forge_server_header(req, "Mcp-Session-Id");
    if (!strcmp(req->method, "DELETE")) {
        pthread_mutex_lock(&h->mu);
        struct session **pp = &h->sessions, *gone = NULL;
        for (; *pp && sid; pp = &(*pp)->next)
            if (!strcmp((*pp)->id, sid)) {
                gone = *pp;
                *pp = gone->next;
                h->count--;
                break;
            }
        pthread_mutex_unlock(&h->mu);
        forge_free(gone);
        if (gone)
            forge_server_reply(resp, 200, "application/json", forge_strdup(""));
        else
            fail(resp, 404, FORGE_RPC_INVALID_REQUEST, "Not found: no such session");
        return;
    }
    if (strcmp(req->method, "POST")) {
        forge_server_add_header(resp, "Allow", "POST, DELETE");
        fail(resp, 405, FORGE_RPC_INVALID_REQUEST, "Method not allowed: this server opens no stream on GET");
        return;
    }
    if (req->body_too_large) {
        fail(resp, 413, FORGE_RPC_INVALID_REQUEST, "the message is larger than the limit (raise it with --max-message-mb)");
        return;
    }
    if (!accepts_json(forge_server_header(req, "Accept"))) {
        fail(resp, 406, FORGE_RPC_INVALID_REQUEST, "Not acceptable: the client must accept application/json");
        return;
    }
    const char *pv = forge_server_header(req, "MCP-Protocol-Version");
    if (pv && !forge_mcp_version_known(pv)) {
        char m[160];
        snprintf(m, sizeof m, "Bad Request: unsupported MCP-Protocol-Version %.40s", pv);
        fail(resp, 400, FORGE_RPC_INVALID_REQUEST, m);
        return;
    }
    struct forge_err err = {0};
    cJSON *msg = forge_json_parse(req->body, req->body_len, "message", &err);
    if (!msg) {
        char m[FORGE_ERR_MAX + 16];
        snprintf(m, sizeof m, "Parse error: %s", err.msg);
        fail(resp, 400, FORGE_RPC_PARSE_ERROR, m);
        return;
    }
    const char *method = forge_json_str(msg, "method");
    int is_init = method && !strcmp(method, "initialize") && cJSON_GetObjectItemCaseSensitive(msg, "id");
    pthread_mutex_lock(&h->mu);
    struct session *s = find(h, sid), local;
    if (is_init) {
        if (h->count >= h->max_sessions) {
            pthread_mutex_unlock(&h->mu);
            cJSON_Delete(msg);
            fail(resp, 503, FORGE_RPC_INTERNAL_ERROR, "Service unavailable: too many open sessions");
            return;
        }
        unsigned char rnd[16];
        if (!(s = forge_calloc(1, sizeof *s)) || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            forge_free(s);
            pthread_mutex_unlock(&h->mu);
            cJSON_Delete(msg);
            fail(resp, 500, FORGE_RPC_INTERNAL_ERROR, "cannot open a session");
            return;
        }
        for (int i = 0; i < 16; i++)
            snprintf(s->id + 2 * i, 3, "%02x", rnd[i]);
        s->next = h->sessions;
        h->sessions = s;
        h->count++;
    } else if (!sid) {
        pthread_mutex_unlock(&h->mu);
        cJSON_Delete(msg);
        fail(resp, 400, FORGE_RPC_INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required");
        return;
    } else if (!s) {
        pthread_mutex_unlock(&h->mu);
        cJSON_Delete(msg);
        fail(resp, 404, FORGE_RPC_INVALID_REQUEST, "Not found: the session does not exist (initialize again)");
        return;
    }
    /* the handshake state is copied out and back so no lock is held while a tool runs */
    local = *s;
    char id[33];
    snprintf(id, sizeof id, "%s", s->id);
    pthread_mutex_unlock(&h->mu);
    cJSON *notes = cJSON_CreateArray();
    struct forge_mcp_sink sink = {gather, notes};
    cJSON *r = forge_mcp_handle(h->srv, &local.s, msg, notes && accepts_sse(forge_server_header(req, "Accept")) ? &sink : NULL);
    cJSON_Delete(msg);
    pthread_mutex_lock(&h->mu);
    if ((s = find(h, id)))
        s->s = local.s;
    pthread_mutex_unlock(&h->mu);
    if (is_init)
        forge_server_add_header(resp, "Mcp-Session-Id", id);
    if (!r) {
        cJSON_Delete(notes);
        forge_server_reply(resp, 202, "application/json", forge_strdup(""));
        return;
    }
    if (notes && notes->child)
        reply_sse(resp, notes, r);
    else
        reply(resp, 200, r);
    cJSON_Delete(notes);
}
