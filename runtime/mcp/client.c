/* The MCP client over stdio and Streamable HTTP. */
#include "mcp/client.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "data/json.h"
#include "mcp/mcp.h"
#include "model/dialect.h"
#include "net/curl_shim.h"
#include "net/http.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define STDERR_KEEP 2048

struct forge_mcp_client {
    char *name;
    long timeout_ms;
    size_t max_message;
    long next_id;
    cJSON *info;
    pthread_mutex_t lock;
    /* stdio */
    pid_t pid;
    int in, out, err;           /* the child's stdin (we write), stdout and stderr (we read) */
    struct forge_buf pending;   /* stdout bytes not yet a whole line */
    char errtail[STDERR_KEEP];  /* the last of the child's stderr */
    size_t errlen;
    /* HTTP */
    char *url;
    char session[128];
    char version[16];
    char *auth;                 /* "Authorization: Bearer ..." or NULL */
};

static void keep_stderr(struct forge_mcp_client *c, const char *p, size_t n)
{
    if (n >= STDERR_KEEP) {
        p += n - (STDERR_KEEP - 1);
        n = STDERR_KEEP - 1;
    }
    if (c->errlen + n >= STDERR_KEEP) {
        size_t drop = c->errlen + n - (STDERR_KEEP - 1);
        memmove(c->errtail, c->errtail + drop, c->errlen - drop);
        c->errlen -= drop;
    }
    memcpy(c->errtail + c->errlen, p, n);
    c->errlen += n;
    c->errtail[c->errlen] = '\0';
}

/* The server's last stderr line, for messages: "" when it wrote none. */
static const char *stderr_hint(struct forge_mcp_client *c, char *out, size_t n)
{
    size_t e = c->errlen;
    while (e && (c->errtail[e - 1] == '\n' || c->errtail[e - 1] == '\r'))
        e--;
    size_t s = e;
    while (s && c->errtail[s - 1] != '\n')
        s--;
    if (e == s) {
        out[0] = '\0';
        return out;
    }
    snprintf(out, n, " (its stderr: %.*s)", (int)(e - s > 300 ? 300 : e - s), c->errtail + s);
    return out;
}

static int spawn(struct forge_mcp_client *c, char *const *argv, struct forge_err *err)
{
    int pin[2], pout[2], perr[2];
    if (pipe(pin) || pipe(pout) || pipe(perr))
        return forge_err_set(err, FORGE_EIO, "mcp %s: cannot make pipes: %s", c->name, strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
    posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
    posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
    int fds[] = {pin[0], pin[1], pout[0], pout[1], perr[0], perr[1]};
    for (int i = 0; i < 6; i++)
        posix_spawn_file_actions_addclose(&fa, fds[i]);
    int rc = posix_spawnp(&c->pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    c->in = pin[1];
    c->out = pout[0];
    c->err = perr[0];
    fcntl(c->out, F_SETFL, O_NONBLOCK);
    fcntl(c->err, F_SETFL, O_NONBLOCK);
    fcntl(c->in, F_SETFD, FD_CLOEXEC);
    fcntl(c->out, F_SETFD, FD_CLOEXEC);
    fcntl(c->err, F_SETFD, FD_CLOEXEC);
    if (rc) {
        c->pid = 0;
        return forge_err_set(err, FORGE_ENET, "mcp %s: cannot start '%s': %s", c->name, argv[0], strerror(rc));
    }
    return 0;
}

/* Writes one message line to the child. */
static int send_line(struct forge_mcp_client *c, const cJSON *msg, struct forge_err *err)
{
    char *t = cJSON_PrintUnformatted(msg);
    if (!t)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    size_t n = strlen(t);
    t[n] = '\n'; /* cJSON's buffer has room for its terminator: replaced, and written with it */
    int rc = 0;
    for (size_t off = 0; off <= n;) {
        ssize_t w = write(c->in, t + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            char hint[400];
            rc = forge_err_set(err, FORGE_ENET, "mcp %s: the server closed its input%s", c->name,
                               stderr_hint(c, hint, sizeof hint));
            break;
        }
        off += (size_t)w;
    }
    cJSON_free(t);
    return rc;
}

/* Reads the next whole stdout line into <line> (new string) before <deadline> (ms). */
static int read_line(struct forge_mcp_client *c, double deadline, char **line, struct forge_err *err)
{
    char hint[400];
    for (;;) {
        char *nl = c->pending.data ? memchr(c->pending.data, '\n', c->pending.len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - c->pending.data);
            *line = forge_strndup(c->pending.data, n);
            memmove(c->pending.data, nl + 1, c->pending.len - n - 1);
            c->pending.len -= n + 1;
            c->pending.data[c->pending.len] = '\0';
            return *line ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        if (c->pending.len > c->max_message)
            return forge_err_set(err, FORGE_ENET, "mcp %s: a message longer than %zu bytes (the limit; raise it with "
                                 "--max-message-mb)", c->name, c->max_message);
        double left = deadline - forge_clock_ms();
        if (left <= 0)
            return forge_err_set(err, FORGE_ENET, "mcp %s: no answer within %ld ms (the per-call timeout; raise it "
                                 "with --mcp-timeout-ms)%s", c->name, c->timeout_ms, stderr_hint(c, hint, sizeof hint));
        struct pollfd p[2] = {{c->out, POLLIN, 0}, {c->err, POLLIN, 0}};
        int r = poll(p, c->err >= 0 ? 2 : 1, (int)(left < 1000 ? left + 1 : 1000));
        if (r < 0 && errno != EINTR)
            return forge_err_set(err, FORGE_ENET, "mcp %s: poll: %s", c->name, strerror(errno));
        char buf[65536];
        if (c->err >= 0 && (p[1].revents & (POLLIN | POLLHUP))) {
            ssize_t n = read(c->err, buf, sizeof buf);
            if (n > 0)
                keep_stderr(c, buf, (size_t)n);
            else if (n == 0) {
                close(c->err);
                c->err = -1;
            }
        }
        if (p[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(c->out, buf, sizeof buf);
            if (n == 0)
                return forge_err_set(err, FORGE_ENET, "mcp %s: the server exited or closed its output%s", c->name,
                                     stderr_hint(c, hint, sizeof hint));
            if (n > 0 && forge_buf_add(&c->pending, buf, (size_t)n))
                return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
    }
}

/* Answers a request the server sent us: ping, else "method not found". */
static int answer_server(struct forge_mcp_client *c, const cJSON *msg, struct forge_err *err)
{
    const char *m = forge_json_str(msg, "method");
    cJSON *r;
    if (m && !strcmp(m, "ping")) {
        r = cJSON_CreateObject();
        if (r) {
            cJSON_AddStringToObject(r, "jsonrpc", "2.0");
            cJSON_AddItemToObject(r, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(msg, "id"), 1));
            cJSON_AddObjectToObject(r, "result");
        }
    } else {
        r = forge_rpc_error(cJSON_GetObjectItemCaseSensitive(msg, "id"), FORGE_RPC_METHOD_NOT_FOUND, "Method not found");
    }
    int rc = r ? send_line(c, r, err) : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    cJSON_Delete(r);
    return rc;
}

/* The message of <text> answering request <id>: the matching one among the JSON or the SSE
 * events of an HTTP answer. */
static cJSON *match(const char *text, size_t len, int sse, long id)
{
    struct forge_err e;
    if (!sse) {
        cJSON *v = forge_json_parse(text, len, "answer", &e);
        return v;
    }
    struct forge_sse it;
    forge_sse_init(&it, text, len);
    cJSON *found = NULL;
    while (!found && forge_sse_next(&it) == 1) {
        cJSON *v = it.data ? forge_json_parse(it.data, it.len, "event", &e) : NULL;
        const cJSON *vid = cJSON_GetObjectItemCaseSensitive(v, "id");
        if (cJSON_IsNumber(vid) && (long)vid->valuedouble == id && !cJSON_HasObjectItem(v, "method"))
            found = v;
        else
            cJSON_Delete(v);
    }
    forge_sse_free(&it);
    return found;
}

static int http_post(struct forge_mcp_client *c, const cJSON *msg, long id, cJSON **reply, struct forge_err *err)
{
    const char *headers[8];
    int nh = 0;
    char sh[160], vh[64];
    headers[nh++] = "Content-Type: application/json";
    headers[nh++] = "Accept: application/json, text/event-stream";
    if (c->session[0]) {
        snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", c->session);
        headers[nh++] = sh;
    }
    if (c->version[0]) {
        snprintf(vh, sizeof vh, "MCP-Protocol-Version: %s", c->version);
        headers[nh++] = vh;
    }
    if (c->auth)
        headers[nh++] = c->auth;
    headers[nh] = NULL;
    const char *secrets[] = {c->auth ? c->auth + 22 : NULL, NULL};
    struct forge_http_opts o = {.timeout_ms = c->timeout_ms, .retries = 0, .body_limit = c->max_message,
                                .keep_headers = 1, .secrets = secrets};
    char *t = cJSON_PrintUnformatted(msg);
    if (!t)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    struct forge_http_response r = {0};
    int rc = forge_http_post(c->url, headers, t, strlen(t), &o, &r, err);
    cJSON_free(t);
    if (rc) {
        forge_err_prefix(err, "mcp %s", c->name);
        return rc == FORGE_ELIMIT ? rc : FORGE_ENET;
    }
    char sid[128], ctype[128] = "";
    if (!forge_http_header(&r, "Mcp-Session-Id", sid, sizeof sid))
        snprintf(c->session, sizeof c->session, "%s", sid);
    forge_http_header(&r, "Content-Type", ctype, sizeof ctype);
    if (r.status == 202 || (id < 0 && r.status >= 200 && r.status < 300)) {
        forge_http_response_free(&r);
        *reply = NULL;
        return 0;
    }
    cJSON *v = match(r.body, r.len, strstr(ctype, "text/event-stream") != NULL, id);
    if (r.status < 200 || r.status > 299) {
        char m[512] = "";
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "error");
        snprintf(m, sizeof m, "%s", forge_json_str(e, "message") ? forge_json_str(e, "message") : r.body);
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: HTTP %ld: %.300s", c->name, r.status, m);
        cJSON_Delete(v);
        v = NULL;
    } else if (!v) {
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: the answer has no JSON-RPC response to request %ld", c->name, id);
    }
    forge_http_response_free(&r);
    *reply = v;
    return rc;
}

/* Sends <method> with <params> (a request when <notify> is 0) and waits for its response. */
static int exchange(struct forge_mcp_client *c, const char *method, const cJSON *params, int notify, cJSON **reply,
                    struct forge_err *err)
{
    *reply = NULL;
    long id = notify ? -1 : ++c->next_id;
    cJSON *msg = cJSON_CreateObject();
    if (!msg || !cJSON_AddStringToObject(msg, "jsonrpc", "2.0") || (!notify && !cJSON_AddNumberToObject(msg, "id", (double)id)) ||
        !cJSON_AddStringToObject(msg, "method", method) ||
        (params && !cJSON_AddItemToObject(msg, "params", cJSON_Duplicate(params, 1)))) {
        cJSON_Delete(msg);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    int rc;
    if (c->url) {
        rc = http_post(c, msg, id, reply, err);
        cJSON_Delete(msg);
        return rc;
    }
    rc = send_line(c, msg, err);
    cJSON_Delete(msg);
    if (rc || notify)
        return rc;
    double deadline = forge_clock_ms() + (double)c->timeout_ms;
    for (;;) {
        char *line = NULL;
        if ((rc = read_line(c, deadline, &line, err))) {
            if (strstr(err->msg, "no answer within")) {
                /* the request is given up: tell the server, as the spec asks */
                cJSON *p = cJSON_CreateObject(), *ignored = NULL;
                struct forge_err e2;
                if (p && cJSON_AddNumberToObject(p, "requestId", (double)id) &&
                    cJSON_AddStringToObject(p, "reason", "timeout"))
                    exchange(c, "notifications/cancelled", p, 1, &ignored, &e2);
                cJSON_Delete(p);
            }
            return rc;
        }
        struct forge_err pe;
        cJSON *v = forge_json_parse(line, strlen(line), "message", &pe);
        forge_free(line);
        if (!v) {
            char hint[400];
            return forge_err_set(err, FORGE_ENET, "mcp %s: the server wrote something that is not JSON-RPC (%s)%s",
                                 c->name, pe.msg, stderr_hint(c, hint, sizeof hint));
        }
        const cJSON *vid = cJSON_GetObjectItemCaseSensitive(v, "id");
        if (cJSON_HasObjectItem(v, "method")) {
            /* a notification (progress, logging, list_changed) or a request of the server's */
            if (vid && (rc = answer_server(c, v, err))) {
                cJSON_Delete(v);
                return rc;
            }
            cJSON_Delete(v);
            continue;
        }
        if (cJSON_IsNumber(vid) && (long)vid->valuedouble == id) {
            *reply = v;
            return 0;
        }
        cJSON_Delete(v); /* an answer to a request given up earlier */
    }
}

int forge_mcp_request(struct forge_mcp_client *c, const char *method, const cJSON *params, cJSON **result,
                      struct forge_err *err)
{
    *result = NULL;
    cJSON *reply = NULL;
    pthread_mutex_lock(&c->lock);
    int rc = exchange(c, method, params, 0, &reply, err);
    pthread_mutex_unlock(&c->lock);
    if (rc)
        return rc;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (e) {
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: %s: error %d: %s", c->name, method, (int)forge_json_num(e, "code", 0),
                           forge_json_str(e, "message") ? forge_json_str(e, "message") : "(no message)");
    } else if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(reply, "result"))) {
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: %s: the response has no result object", c->name, method);
    } else {
        *result = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
    }
    cJSON_Delete(reply);
    return rc;
}

int forge_mcp_connect(const struct forge_mcp_client_opts *o, struct forge_mcp_client **out, struct forge_err *err)
{
    *out = NULL;
    struct forge_mcp_client *c = forge_calloc(1, sizeof *c);
    if (!c)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    pthread_mutex_init(&c->lock, NULL);
    c->in = c->out = c->err = -1;
    c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
    c->max_message = o->max_message ? o->max_message : (size_t)16 << 20;
    forge_buf_init(&c->pending, 0);
    int rc = 0;
    cJSON *params = NULL, *info = NULL, *ignored = NULL;
    if (!(c->name = forge_strdup(o->name ? o->name : o->url ? o->url : o->argv ? o->argv[0] : "server"))) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto out;
    }
    if (o->url) {
        if ((rc = forge_curl_load(err)))
            goto out;
        if (!(c->url = forge_strdup(o->url))) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
            goto out;
        }
        if (o->token_env) {
            const char *t = getenv(o->token_env);
            if (!t || !*t) {
                rc = forge_err_set(err, FORGE_EINVAL, "mcp %s: %s is not set (the bearer token)", c->name, o->token_env);
                goto out;
            }
            if (!(c->auth = forge_strdupf("Authorization: Bearer %s", t))) {
                rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
                goto out;
            }
        }
    } else if (!o->argv || !o->argv[0]) {
        rc = forge_err_set(err, FORGE_EINVAL, "mcp: give a command or a URL");
        goto out;
    } else if ((rc = spawn(c, o->argv, err))) {
        goto out;
    }
    cJSON *ci;
    if (!(params = cJSON_CreateObject()) || !cJSON_AddStringToObject(params, "protocolVersion", forge_mcp_versions[0]) ||
        !cJSON_AddObjectToObject(params, "capabilities") || !(ci = cJSON_AddObjectToObject(params, "clientInfo")) ||
        !cJSON_AddStringToObject(ci, "name", "forge") || !cJSON_AddStringToObject(ci, "version", FORGE_VERSION)) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = forge_mcp_request(c, "initialize", params, &info, err)))
        goto out;
    const char *v = forge_json_str(info, "protocolVersion");
    if (!forge_mcp_version_known(v)) {
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: the server speaks protocol version %.40s, which forge does not "
                           "(forge speaks %s, %s, %s and %s)", c->name, v ? v : "(none)", forge_mcp_versions[0],
                           forge_mcp_versions[1], forge_mcp_versions[2], forge_mcp_versions[3]);
        goto out;
    }
    snprintf(c->version, sizeof c->version, "%s", v);
    c->info = info;
    info = NULL;
    pthread_mutex_lock(&c->lock);
    rc = exchange(c, "notifications/initialized", NULL, 1, &ignored, err);
    pthread_mutex_unlock(&c->lock);
out:
    cJSON_Delete(params);
    cJSON_Delete(info);
    cJSON_Delete(ignored);
    if (rc) {
        forge_mcp_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

const cJSON *forge_mcp_server_info(const struct forge_mcp_client *c)
{
    return c->info;
}

int forge_mcp_list_tools(struct forge_mcp_client *c, cJSON **tools, struct forge_err *err)
{
    cJSON *all = cJSON_CreateArray();
    char cursor[256] = "";
    int rc = all ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    for (int page = 0; !rc; page++) {
        if (page >= 1000) {
            rc = forge_err_set(err, FORGE_ENET, "mcp %s: tools/list gave more than 1000 pages", c->name);
            break;
        }
        cJSON *params = cJSON_CreateObject(), *res = NULL;
        if (!params || (cursor[0] && !cJSON_AddStringToObject(params, "cursor", cursor))) {
            cJSON_Delete(params);
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
            break;
        }
        rc = forge_mcp_request(c, "tools/list", params, &res, err);
        cJSON_Delete(params);
        if (rc)
            break;
        cJSON *ts = cJSON_GetObjectItemCaseSensitive(res, "tools"), *t;
        if (!cJSON_IsArray(ts)) {
            cJSON_Delete(res);
            rc = forge_err_set(err, FORGE_ENET, "mcp %s: tools/list has no tools array", c->name);
            break;
        }
        while ((t = cJSON_DetachItemFromArray(ts, 0)))
            cJSON_AddItemToArray(all, t);
        const char *next = forge_json_str(res, "nextCursor");
        if (next && strlen(next) >= sizeof cursor)
            rc = forge_err_set(err, FORGE_ENET, "mcp %s: a nextCursor longer than %zu bytes", c->name, sizeof cursor - 1);
        else
            snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        int more = next && *next;
        cJSON_Delete(res); /* <next> pointed into it */
        if (!more)
            break;
    }
    if (rc) {
        cJSON_Delete(all);
        all = NULL;
    }
    *tools = all;
    return rc;
}

int forge_mcp_call(struct forge_mcp_client *c, const char *tool, const cJSON *args, cJSON **result,
                   struct forge_err *err)
{
    cJSON *params = cJSON_CreateObject();
    if (!params || !cJSON_AddStringToObject(params, "name", tool) ||
        !cJSON_AddItemToObject(params, "arguments", args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject())) {
        cJSON_Delete(params);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    int rc = forge_mcp_request(c, "tools/call", params, result, err);
    cJSON_Delete(params);
    if (!rc && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(*result, "content"))) {
        cJSON_Delete(*result);
        *result = NULL;
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: tools/call %s: the result has no content array", c->name, tool);
    }
    return rc;
}

void forge_mcp_close(struct forge_mcp_client *c)
{
    if (!c)
        return;
    if (c->url && c->session[0]) {
        const char *headers[4] = {NULL};
        char sh[160];
        snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", c->session);
        headers[0] = sh;
        headers[1] = c->auth;
        struct forge_http_opts o = {.timeout_ms = 2000, .retries = 0, .method = "DELETE"};
        struct forge_http_response r = {0};
        struct forge_err e;
        if (!forge_http_post(c->url, headers, "", 0, &o, &r, &e))
            forge_http_response_free(&r);
    }
    if (c->in >= 0)
        close(c->in); /* the spec's first step: the server sees its input end */
    if (c->pid > 0) {
        int st;
        double until = forge_clock_ms() + 1000;
        pid_t w = 0;
        while ((w = waitpid(c->pid, &st, WNOHANG)) == 0 && forge_clock_ms() < until) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (w == 0) {
            kill(c->pid, SIGTERM);
            until = forge_clock_ms() + 1000;
            while ((w = waitpid(c->pid, &st, WNOHANG)) == 0 && forge_clock_ms() < until) {
                struct timespec ts = {0, 10 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            if (w == 0) {
                kill(c->pid, SIGKILL);
                waitpid(c->pid, &st, 0);
            }
        }
    }
    if (c->out >= 0)
        close(c->out);
    if (c->err >= 0)
        close(c->err);
    forge_buf_free(&c->pending);
    cJSON_Delete(c->info);
    forge_free(c->name);
    forge_free(c->url);
    forge_free(c->auth);
    pthread_mutex_destroy(&c->lock);
    forge_free(c);
}
