/* The embedded HTTP server on libmicrohttpd. */
#include "server/server.h"
#include "server/mhd_shim.h"
#include "base/alloc.h"
#include "base/buf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
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

/* A live stream, shared by the producer thread and the connection (two references). */
struct forge_server_stream {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *buf;
    size_t len, off, cap;
    int done, closed, refs;
    forge_server_producer fn;
    void *ctx;
    void (*ctx_free)(void *);
};

#define LIVE_MAX_QUEUED (8u << 20)

static void live_unref(struct forge_server_stream *s)
{
    pthread_mutex_lock(&s->mu);
    int last = --s->refs == 0;
    pthread_mutex_unlock(&s->mu);
    if (!last)
        return;
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    forge_free(s->buf);
    forge_free(s);
}

int forge_server_stream_write(struct forge_server_stream *s, const char *data, size_t len)
{
    pthread_mutex_lock(&s->mu);
    int rc = -1;
    if (!s->closed && s->len - s->off + len > LIVE_MAX_QUEUED)
        s->closed = 1; /* a client that does not read is treated as gone: the producer stops */
    if (!s->closed) {
        if (s->off && s->off == s->len)
            s->off = s->len = 0;
        if (s->len + len > s->cap) {
            size_t cap = s->cap ? s->cap : 4096;
            while (cap < s->len + len)
                cap *= 2;
            char *b = forge_realloc(s->buf, cap);
            if (b) {
                s->buf = b;
                s->cap = cap;
            }
        }
        if (s->len + len <= s->cap) {
            memcpy(s->buf + s->len, data, len);
            s->len += len;
            rc = 0;
            pthread_cond_signal(&s->cv);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int forge_server_stream_closed(struct forge_server_stream *s)
{
    pthread_mutex_lock(&s->mu);
    int c = s->closed;
    pthread_mutex_unlock(&s->mu);
    return c;
}

static void *live_main(void *arg)
{
    struct forge_server_stream *s = arg;
    s->fn(s->ctx, s);
    if (s->ctx_free)
        s->ctx_free(s->ctx);
    pthread_mutex_lock(&s->mu);
    s->done = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    live_unref(s);
    return NULL;
}

static ssize_t live_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct forge_server_stream *s = cls;
    pthread_mutex_lock(&s->mu);
    if (s->off == s->len && !s->done) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        while (s->off == s->len && !s->done)
            if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT)
                break;
    }
    ssize_t n;
    if (s->off < s->len) {
        size_t k = s->len - s->off < max ? s->len - s->off : max;
        memcpy(buf, s->buf + s->off, k);
        s->off += k;
        n = (ssize_t)k;
    } else if (s->done) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        /* nothing to say for a second: a comment keeps proxies from closing the stream and
         * finds out whether the client is still there */
        static const char ka[] = ": keepalive\n\n";
        n = (ssize_t)(sizeof ka - 1 < max ? sizeof ka - 1 : max);
        memcpy(buf, ka, (size_t)n);
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

static void live_closed(void *cls)
{
    struct forge_server_stream *s = cls;
    pthread_mutex_lock(&s->mu);
    s->closed = 1;
    pthread_mutex_unlock(&s->mu);
    live_unref(s);
}

void forge_server_live(struct forge_server_response *resp, const char *content_type, forge_server_producer fn,
                       void *ctx, void (*ctx_free)(void *ctx))
{
    resp->status = 200;
    resp->content_type = content_type;
    resp->live = fn;
    resp->live_ctx = ctx;
    resp->live_free = ctx_free;
}

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

static struct MHD_Response *make_live(struct forge_server_response *r)
{
    struct forge_server_stream *s = forge_calloc(1, sizeof *s);
    if (!s)
        goto fail;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->refs = 2;
    s->fn = r->live;
    s->ctx = r->live_ctx;
    s->ctx_free = r->live_free;
    struct MHD_Response *mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, live_read, s, live_closed);
    if (!mr) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        forge_free(s);
        goto fail;
    }
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, live_main, s)) {
        pthread_attr_destroy(&attr);
        /* nothing will be produced: the stream ends at once */
        if (s->ctx_free)
            s->ctx_free(s->ctx);
        s->done = 1;
        s->refs = 1;
    } else {
        pthread_attr_destroy(&attr);
    }
    r->live = NULL;
    MHD_add_response_header(mr, "Cache-Control", "no-cache");
    MHD_add_response_header(mr, "X-Accel-Buffering", "no");
    MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type ? r->content_type : "text/event-stream");
    for (int i = 0; i < r->nheaders; i++)
        MHD_add_response_header(mr, r->header_name[i], r->header_value[i]);
    return mr;
fail:
    if (r->live_free)
        r->live_free(r->live_ctx);
    r->live = NULL;
    return NULL;
}

static struct MHD_Response *make_response(struct forge_server_response *r)
{
    struct MHD_Response *mr = NULL;
    if (r->live)
        return make_live(r);
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
    int rc = forge_mhd_load(err);
    if (rc)
        return rc;
    rc = parse_listen(o->listen, &ss, &slen, &v6, err);
    if (rc)
        return rc;
    struct forge_server *s = forge_calloc(1, sizeof *s);
    if (!s)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    s->handler = h;
    s->ctx = ctx;
    s->max_body = o->max_body;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    flags |= o->thread_per_connection ? MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL : MHD_USE_EPOLL;
    if (v6)
        flags |= MHD_USE_IPv6;
    /* a pool only without a thread per connection (the library warns of a pool size of 0) */
    struct MHD_OptionItem pool[] = {
        {o->thread_per_connection ? MHD_OPTION_END : MHD_OPTION_THREAD_POOL_SIZE,
         (intptr_t)(o->threads ? o->threads : 1), NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                            MHD_OPTION_EXTERNAL_LOGGER, quiet_log, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                            MHD_OPTION_ARRAY, pool,
                            MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
                            MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout_s,
                            /* headers and the read buffer; bodies are passed on as they come.
                             * The library clears the pool for every request: 16 KiB, not its
                             * 32 KiB default, halves that cost */
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
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
