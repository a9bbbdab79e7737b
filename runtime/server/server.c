/* The embedded HTTP server on libmicrohttpd. */
#include "server/server.h"
#include "base/alloc.h"
#include "base/buf.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

struct forge_server {
    struct MHD_Daemon *d;
    forge_server_handler handler;
    void *ctx;
    size_t max_body;
    int port;
};

/* What one request has read so far. */
struct pending {
    struct forge_buf body;
    int too_large;
};

/* A streamed body, sent one event per chunk. */
struct stream {
    char *data;
    size_t len;
    char sep; /* '\n' for NDJSON; for SSE an event ends at a blank line */
};

void forge_server_opts_init(struct forge_server_opts *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:0";
    o->max_body = 32u << 20;
    o->threads = 8;
    o->max_connections = 4096;
    o->idle_timeout_s = 60;
}

const char *forge_server_header(const struct forge_server_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *forge_server_query(const struct forge_server_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *forge_server_credential(const struct forge_server_request *r)
{
    const char *a = forge_server_header(r, "Authorization");
    if (a) {
        if (strncasecmp(a, "Bearer ", 7) != 0)
            return NULL; /* another scheme is not a credential forge accepts */
        a += 7;
        while (*a == ' ')
            a++;
        return a;
    }
    if ((a = forge_server_header(r, "x-api-key")) || (a = forge_server_header(r, "x-goog-api-key")))
        return a;
    return forge_server_query(r, "key");
}

int forge_server_secret_eq(const char *given, const char *expected)
{
    if (!given || !expected)
        return 0;
    size_t n = strlen(given), m = strlen(expected);
    unsigned char diff = (unsigned char)(n != m);
    /* every byte of the expected secret is read whatever the given one holds */
    for (size_t i = 0; i < m; i++)
        diff |= (unsigned char)(expected[i] ^ (i < n ? given[i] : 0));
    return diff == 0;
}

void forge_server_reply(struct forge_server_response *resp, int status, const char *content_type, char *owned)
{
    forge_free(resp->body);
    resp->status = status;
    resp->content_type = content_type;
    resp->body = owned;
    resp->len = owned ? strlen(owned) : 0;
}

void forge_server_add_header(struct forge_server_response *resp, const char *name, const char *value)
{
    if (resp->nheaders >= FORGE_SERVER_MAX_HEADERS)
        return;
    resp->header_name[resp->nheaders] = name;
    snprintf(resp->header_value[resp->nheaders], sizeof resp->header_value[0], "%s", value);
    resp->nheaders++;
}

static ssize_t read_stream(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream *s = cls;
    if (pos >= s->len)
        return MHD_CONTENT_READER_END_OF_STREAM;
    size_t left = s->len - (size_t)pos, n = left < max ? left : max;
    const char *p = s->data + pos;
    /* up to the end of the next event, so each event leaves as it would from the provider */
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\n' && (s->sep == '\n' || (i > 0 && p[i - 1] == '\n'))) {
            n = i + 1;
            break;
        }
    memcpy(buf, p, n);
    return (ssize_t)n;
}

static void free_stream(void *cls)
{
    struct stream *s = cls;
    forge_free(s->data);
    forge_free(s);
}

static struct MHD_Response *make_response(struct forge_server_response *r)
{
    struct MHD_Response *mr = NULL;
    if (!r->body)
        r->body = forge_strdup("");
    if (!r->body)
        return NULL;
    if (r->stream) {
        struct stream *s = forge_calloc(1, sizeof *s);
        if (!s)
            return NULL;
        s->data = r->body;
        s->len = r->len;
        s->sep = r->content_type && strstr(r->content_type, "ndjson") ? '\n' : '\0';
        mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, read_stream, s, free_stream);
        if (!mr) {
            forge_free(s);
            return NULL;
        }
        r->body = NULL;
        MHD_add_response_header(mr, "Cache-Control", "no-cache");
    } else {
        mr = MHD_create_response_from_buffer_with_free_callback(r->len, r->body, forge_free);
        if (!mr)
            return NULL;
        r->body = NULL;
    }
    MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type ? r->content_type : "application/json");
    for (int i = 0; i < r->nheaders; i++)
        MHD_add_response_header(mr, r->header_name[i], r->header_value[i]);
    return mr;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, struct forge_server_response *r)
{
    struct MHD_Response *mr = make_response(r);
    forge_free(r->body);
    if (!mr) {
        static char oom[] = "{\"error\":{\"message\":\"the server is out of memory\"}}";
        mr = MHD_create_response_from_buffer(sizeof oom - 1, oom, MHD_RESPMEM_PERSISTENT);
        if (!mr)
            return MHD_NO;
        r->status = 500;
    }
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)(r->status ? r->status : 200), mr);
    MHD_destroy_response(mr);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void)version;
    struct forge_server *s = cls;
    struct pending *p = *state;
    if (!p) {
        if (!(p = forge_calloc(1, sizeof *p)))
            return MHD_NO;
        forge_buf_init(&p->body, s->max_body);
        *state = p;
        /* a body announced too large is read and dropped, not kept: the client gets its 413
         * as an answer rather than a reset connection in the middle of sending */
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->max_body)
            p->too_large = 1;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!p->too_large && forge_buf_add(&p->body, upload, *upload_size)) {
            p->too_large = 1;
            forge_buf_free(&p->body);
        }
        *upload_size = 0;
        return MHD_YES;
    }
    struct forge_server_request req = {
        .method = method, .path = url, .body = p->too_large || !p->body.data ? "" : p->body.data,
        .body_len = p->too_large ? 0 : p->body.len, .body_too_large = p->too_large, .conn = conn,
    };
    struct forge_server_response resp = {.status = 200};
    s->handler(s->ctx, &req, &resp);
    forge_buf_free(&p->body);
    return send_response(conn, &resp);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state, enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)conn;
    (void)t;
    struct pending *p = *state;
    if (p) {
        forge_buf_free(&p->body);
        forge_free(p);
        *state = NULL;
    }
}

/* Splits "HOST:PORT", "[V6]:PORT" or "PORT" into an address. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len, int *v6, struct forge_err *err)
{
    char host[256] = "127.0.0.1";
    const char *port = spec;
    const char *colon = strrchr(spec, ':');
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof host)
            return forge_err_set(err, FORGE_EINVAL, "--listen '%s': expected HOST:PORT, [IPV6]:PORT or PORT", spec);
        memcpy(host, spec + 1, (size_t)(close - spec - 1));
        host[close - spec - 1] = '\0';
        port = close + 2;
    } else if (colon) {
        if ((size_t)(colon - spec) >= sizeof host)
            return forge_err_set(err, FORGE_EINVAL, "--listen '%s': host too long", spec);
        memcpy(host, spec, (size_t)(colon - spec));
        host[colon - spec] = '\0';
        port = colon + 1;
    }
    char *end;
    long pn = strtol(port, &end, 10);
    if (!*port || *end || pn < 0 || pn > 65535)
        return forge_err_set(err, FORGE_EINVAL, "--listen '%s': the port must be a number from 0 to 65535", spec);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai = NULL;
    int g = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
    if (g || !ai)
        return forge_err_set(err, FORGE_EINVAL, "--listen '%s': cannot resolve '%s': %s", spec, host, gai_strerror(g));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    *v6 = ai->ai_family == AF_INET6;
    freeaddrinfo(ai);
    return 0;
}

static void quiet_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    (void)fmt;
    (void)ap;
}

int forge_server_start(const struct forge_server_opts *o, forge_server_handler h, void *ctx, struct forge_server **out,
                       struct forge_err *err)
{
    *out = NULL;
    struct sockaddr_storage ss;
    socklen_t slen = 0;
    int v6 = 0;
    int rc = parse_listen(o->listen, &ss, &slen, &v6, err);
    if (rc)
        return rc;
    struct forge_server *s = forge_calloc(1, sizeof *s);
    if (!s)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    s->handler = h;
    s->ctx = ctx;
    s->max_body = o->max_body;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    if (v6)
        flags |= MHD_USE_IPv6;
    s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                            MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(o->threads ? o->threads : 1),
                            MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
                            MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout_s,
                            /* headers and the read buffer; bodies are passed on as they come.
                             * The library clears the pool for every request: 16 KiB, not its
                             * 32 KiB default, halves that cost */
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                            MHD_OPTION_EXTERNAL_LOGGER, quiet_log, s,
                            MHD_OPTION_END);
    if (!s->d) {
        forge_free(s);
        return forge_err_set(err, FORGE_EIO, "cannot listen on %s: the address is in use or not local", o->listen);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : 0;
    *out = s;
    return 0;
}

int forge_server_port(const struct forge_server *s)
{
    return s->port;
}

void forge_server_stop(struct forge_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    forge_free(s);
}
