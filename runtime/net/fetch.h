/* One HTTP request, no retries: what HTTP tools and forge.http use. libcurl is loaded on first
 * use (net/curl_shim.h). */
#ifndef FORGE_NET_FETCH_H
#define FORGE_NET_FETCH_H
#include <stddef.h>
#include "base/err.h"

struct forge_fetch {
    const char *method;          /* "GET", "POST", ...; NULL: GET */
    const char *url;
    const char *const *headers;  /* "Name: value" strings, NULL-terminated; may be NULL */
    const char *body;            /* may be NULL */
    size_t body_len;
    long timeout_ms;             /* whole request; 0: 30000 */
    size_t max_bytes;            /* response cap; 0: 1 MiB */
};

/* Whether <s> (<n> bytes) is an HTTP token (RFC 9110: method and header names): 1 or 0. */
int forge_fetch_is_token(const char *s, size_t n);

/* Checks one header: <name> a token, <value> free of CR, LF and NUL (which would let a value
 * start a header or a request of its own). Returns 0, or FORGE_EINVAL with <err> saying what is
 * wrong with which header. */
int forge_fetch_check_header(const char *name, size_t nlen, const char *value, size_t vlen,
                             struct forge_err *err);

struct forge_fetch_result {
    long status;
    char *body;                  /* owned, NUL-terminated (free with forge_free) */
    size_t len;
    char *content_type;          /* owned, may be NULL */
};

/* Performs the request. Returns 0 when a response arrived (any status), else FORGE_ENET with
 * "HTTP request timed out after N ms (...)" or "HTTP request failed: <reason>", or
 * FORGE_ELIMIT "HTTP response larger than N bytes". */
int forge_fetch(const struct forge_fetch *req, struct forge_fetch_result *out,
                struct forge_err *err);
void forge_fetch_result_free(struct forge_fetch_result *r);

/* URL-encodes <s> into a new string (free with forge_free). */
char *forge_fetch_escape(const char *s);
#endif
