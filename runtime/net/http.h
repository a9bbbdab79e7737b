/* HTTP POST over libcurl for model providers: per-attempt timeouts, an overall deadline, a cap
 * on response bodies, retries with exponential backoff and jitter on 429, 5xx and connection
 * errors (honouring Retry-After), and redaction of secrets in every message it writes.
 *
 * Waits before a retry follow Retry-After (or OpenAI's retry-after-ms, which wins when both are
 * sent) when the response has it, else forge_http_backoff_ms.
 *
 * Thread safety: forge_http_post may be called from many threads at once. Each thread keeps one
 * libcurl easy handle (so connections are reused across calls); it is released when the thread
 * exits. libcurl's global state is initialized once, on first use. */
#ifndef FORGE_NET_HTTP_H
#define FORGE_NET_HTTP_H
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"

/* Default cap on a response body: 32 MiB. */
#define FORGE_HTTP_BODY_LIMIT ((size_t)32 << 20)
/* Retries after the first attempt, unless set otherwise. */
#define FORGE_HTTP_RETRIES 4

struct forge_http_opts {
    long timeout_ms;         /* one attempt, connect to last byte; 0: 120000 */
    long connect_timeout_ms; /* 0: 10000 */
    int retries;             /* retries after the first attempt; negative: FORGE_HTTP_RETRIES */
    long backoff_ms;         /* first backoff; doubles each retry, jittered; 0: 500 */
    long backoff_max_ms;     /* cap on one wait, Retry-After included; 0: 60000 */
    uint64_t deadline_ns;    /* absolute forge_clock_ns() after which no attempt starts and
                                waits are cut short; 0: none */
    size_t body_limit;       /* cap on the response body; 0: FORGE_HTTP_BODY_LIMIT */
    const char *const *secrets; /* NULL-terminated strings never to appear in messages; may
                                   be NULL. Borrowed for the call. */
    /* Streamed answers (server-sent events, NDJSON): */
    int stream;              /* note when each piece of the body arrives (forge_http_response
                                marks), and retry a 2xx body <complete> says is cut short */
    long idle_timeout_ms;    /* a stream that sends nothing for this long fails, retryably;
                                0: none. libcurl looks about once a second, so the effective
                                resolution is a second */
    int (*complete)(const char *body, size_t len); /* with stream: nonzero when the body ends
                                                      as a whole stream ends (may be NULL) */
    const char *method;      /* "DELETE" sends no body; NULL: POST */
    int keep_headers;        /* keep the final response's header lines (forge_http_response) */
    /* with stream: called after each piece of an attempt's body arrives, with the whole body
     * of that attempt so far (borrowed for the call; a retried attempt starts again from 0
     * bytes); may be NULL */
    void (*on_data)(void *ctx, const char *body, size_t len);
    void *on_data_ctx;
};

/* When a streamed body had received <end> bytes: <ms> after the attempt started. */
struct forge_http_mark {
    size_t end;
    double ms;
};

struct forge_http_response {
    long status;       /* final HTTP status */
    char *body;        /* owned, NUL-terminated; free with forge_http_response_free */
    size_t len;
    int attempts;      /* 1 + retries actually made */
    double elapsed_ms; /* wall time of the whole call, waits included */
    /* with opts.stream: one mark per piece of the final attempt's body, in order (owned) */
    struct forge_http_mark *marks;
    size_t nmarks;
    double attempt_ms; /* the final attempt's wall time, first byte sent to last received */
    char *headers;     /* with opts.keep_headers: the final response's header lines (owned) */
};

/* The value of header <name> (case-insensitive) in <r>'s kept headers, copied into <out> (n
 * bytes); 0 when present, -1 when not. */
int forge_http_header(const struct forge_http_response *r, const char *name, char *out, size_t n);

/* The time (ms after the final attempt started) at which byte <offset> of a streamed body had
 * arrived, or -1 without marks. */
double forge_http_time_at(const struct forge_http_response *r, size_t offset);

/* POSTs <len> bytes of <body> to <url> with the NULL-terminated "Name: value" <headers>
 * (borrowed). Retries 429, 5xx and connection errors (timeouts included) as <o> says.
 * Returns 0 when a response arrived, whatever its status (the caller judges non-2xx; after
 * retries on 429/5xx the last response is returned), filling <out>. Errors: FORGE_ENET when no
 * response could be had (the message names the URL, the cause and the attempts), FORGE_ELIMIT
 * when the body passes the cap (not retried), FORGE_ENOMEM. Messages never contain a secret. */
int forge_http_post(const char *url, const char *const *headers, const char *body, size_t len,
                    const struct forge_http_opts *o, struct forge_http_response *out,
                    struct forge_err *err);

void forge_http_response_free(struct forge_http_response *r);

/* Cancellation: returns nonzero when the caller no longer wants the answer (a client gone, a
 * deadline passed). */
typedef int (*forge_http_cancel_fn)(void *ctx);

/* Sets the cancel check for every forge_http_post made on the calling thread from now on
 * (NULL: none), returning the previous one in *prev_fn / *prev_ctx (may be NULL) so a caller can
 * restore it. A request in flight polls <fn> as libcurl reports progress (at least about once a
 * second, more often while bytes flow), and a retry wait polls it every 50 ms; when it returns
 * nonzero the request is abandoned at once (connection closed, no retry) and forge_http_post
 * fails with FORGE_ENET and a message saying it was cancelled. <ctx> is borrowed and must
 * outlive the setting. Lets a layer above the model (which knows nothing of HTTP) stop a model
 * call in flight. */
void forge_http_cancel_set(forge_http_cancel_fn fn, void *ctx, forge_http_cancel_fn *prev_fn, void **prev_ctx);

/* Replaces, in place, every occurrence of each non-empty string of the NULL-terminated
 * <secrets> in the NUL-terminated <s> by "[REDACTED]" (truncating to <cap> bytes including
 * the NUL). */
void forge_http_redact(char *s, size_t cap, const char *const *secrets);

/* A new copy of the NUL-terminated <s> with every occurrence of the <secrets> replaced by
 * "[REDACTED]" (free with forge_free), or NULL when none occurs (or out of memory). For bodies a
 * server sent back, which may echo a key. */
char *forge_http_redact_dup(const char *s, const char *const *secrets);

/* Parses a Retry-After value (delay seconds, possibly fractional, or an HTTP date) into
 * milliseconds from now; returns -1 when it is absent or unreadable. */
long forge_http_retry_after_ms(const char *value);

/* The wait before retry number <attempt> (1-based) in milliseconds: a uniformly random value
 * in [base/2, base] with base = backoff_ms * 2^(attempt-1), capped at backoff_max_ms. */
long forge_http_backoff_ms(const struct forge_http_opts *o, int attempt);
#endif
