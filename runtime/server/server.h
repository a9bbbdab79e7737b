/* The embedded HTTP server every `forge serve` side stands on: libmicrohttpd with a thread
 * pool, request bodies read whole up to a limit, responses sent whole or as a stream of
 * events (chunked), and the bearer-token check. It knows nothing of what it serves: a handler
 * turns each complete request into a response. No Lua runs here. */
#ifndef FORGE_SERVER_SERVER_H
#define FORGE_SERVER_SERVER_H
#include <stddef.h>
#include "base/err.h"

struct forge_server;

struct forge_server_request {
    const char *method;  /* "GET", "POST", ... */
    const char *path;    /* the URL path without the query string */
    const char *body;    /* the whole body, NUL-terminated (empty when there is none) */
    size_t body_len;
    int body_too_large;  /* the body passed the limit and was dropped (body is "") */
    void *conn;          /* the library's connection, for the lookups below */
};

#define FORGE_SERVER_MAX_HEADERS 6

/* A live stream: a producer thread writes events while the client reads them. */
struct forge_server_stream;
/* Runs on its own thread once the response headers are queued; writes with
 * forge_server_stream_write and returns when it has nothing more to say. */
typedef void (*forge_server_producer)(void *ctx, struct forge_server_stream *s);

struct forge_server_response {
    int status;                /* default 200 */
    const char *content_type;  /* default "application/json" */
    char *body;                /* taken (forge_free) */
    size_t len;
    int stream;                /* send chunked, one event (up to a blank line or, for NDJSON, a
                                  newline) per chunk, as streamed answers are */
    const char *header_name[FORGE_SERVER_MAX_HEADERS]; /* extra headers (copied when sent) */
    char header_value[FORGE_SERVER_MAX_HEADERS][128];
    int nheaders;
    forge_server_producer live;   /* set by forge_server_live */
    void *live_ctx;
    void (*live_free)(void *ctx);
};

/* Called on a pool thread once a request is read whole; fills <resp>. Runs concurrently with
 * other requests. */
typedef void (*forge_server_handler)(void *ctx, const struct forge_server_request *req,
                                     struct forge_server_response *resp);

struct forge_server_opts {
    const char *listen;         /* "HOST:PORT", "[V6]:PORT" or "PORT" (127.0.0.1); port 0 picks one */
    size_t max_body;            /* request bodies above this are dropped (default 32 MiB) */
    unsigned threads;           /* worker threads (default 8) */
    unsigned max_connections;   /* open connections at once (default 4096) */
    unsigned idle_timeout_s;    /* an idle connection is closed after this (default 60) */
    int thread_per_connection;  /* one thread per connection instead of a pool: handlers may
                                   block (the agent service) and live streams are allowed */
};

void forge_server_opts_init(struct forge_server_opts *o);

/* Starts serving; returns 0 and *out, or FORGE_EINVAL (a malformed address, naming it) or
 * FORGE_EIO (the address cannot be bound: in use, not local, ...). */
int forge_server_start(const struct forge_server_opts *o, forge_server_handler h, void *ctx,
                       struct forge_server **out, struct forge_err *err);
/* The port the server listens on (the one picked when the address asked for port 0). */
int forge_server_port(const struct forge_server *s);
/* Stops accepting, finishes the requests in flight, and frees the server. NULL is a no-op. */
void forge_server_stop(struct forge_server *s);

/* A request header (case-insensitive name) or query argument, or NULL. */
const char *forge_server_header(const struct forge_server_request *r, const char *name);
const char *forge_server_query(const struct forge_server_request *r, const char *name);

/* The credential a client sent: "Authorization: Bearer T", else "x-api-key", else
 * "x-goog-api-key", else the "key" query argument (Gemini's REST form); NULL when none. */
const char *forge_server_credential(const struct forge_server_request *r);

/* Compares two secrets in time that depends only on their lengths. NULL never matches. */
int forge_server_secret_eq(const char *given, const char *expected);

/* Sets resp's body to a copy of <text> (or takes <owned> when not NULL) with <status>. */
void forge_server_reply(struct forge_server_response *resp, int status, const char *content_type,
                        char *owned);
/* Adds a response header (value truncated to 127 bytes); ignored past the maximum. */
void forge_server_add_header(struct forge_server_response *resp, const char *name, const char *value);

/* Makes <resp> a live stream of <content_type>: after the handler returns, <fn>(ctx, stream)
 * runs on a new thread and what it writes goes to the client as it comes (idle streams get a
 * ": keepalive" comment every second, which is also how a gone client is noticed). <ctx_free>
 * (may be NULL) frees ctx after fn returns; it is also called when the thread cannot start.
 * Needs thread_per_connection. */
void forge_server_live(struct forge_server_response *resp, const char *content_type,
                       forge_server_producer fn, void *ctx, void (*ctx_free)(void *ctx));
/* Queues <len> bytes for the client. Returns 0, or -1 when the client has gone (or the queue
 * passed 8 MiB unread): the producer should stop. */
int forge_server_stream_write(struct forge_server_stream *s, const char *data, size_t len);
/* True once the client has gone. */
int forge_server_stream_closed(struct forge_server_stream *s);
#endif
