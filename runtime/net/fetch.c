/* One HTTP request over libcurl. */
#include "net/fetch.h"
#include "net/curl_shim.h"
#include "base/alloc.h"
#include "base/buf.h"

#include <curl/curl.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_MAX_BYTES ((size_t)1 << 20)

struct sink {
    struct forge_buf buf;
    int over;
};

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    struct sink *s = ud;
    if (forge_buf_add(&s->buf, p, size * n)) {
        s->over = 1;
        return 0;
    }
    return size * n;
}

char *forge_fetch_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = forge_malloc(n * 3 + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}

int forge_fetch_is_token(const char *s, size_t n)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c && strchr(extra, c))))
            return 0;
    }
    return 1;
}

int forge_fetch_check_header(const char *name, size_t nlen, const char *value, size_t vlen,
                             struct forge_err *err)
{
    if (!forge_fetch_is_token(name, nlen))
        return forge_err_set(err, FORGE_EINVAL, "header name '%.*s' is not an HTTP token "
                             "(letters, digits and !#$%%&'*+-.^_`|~ only)",
                             (int)(nlen > 60 ? 60 : nlen), name);
    for (size_t i = 0; i < vlen; i++)
        if (value[i] == '\r' || value[i] == '\n' || value[i] == '\0')
            return forge_err_set(err, FORGE_EINVAL, "the value of header '%.*s' contains %s",
                                 (int)(nlen > 60 ? 60 : nlen), name,
                                 value[i] == '\r' ? "a carriage return" :
                                 value[i] == '\n' ? "a line feed" : "a NUL byte");
    return 0;
}

int forge_fetch(const struct forge_fetch *req, struct forge_fetch_result *out,
                struct forge_err *err)
{
    memset(out, 0, sizeof *out);
    /* The last line of defence for every caller: a method that is not a token, or a header
     * line that could end early and start another, never reaches the wire. */
    const char *m = req->method ? req->method : "GET";
    if (!forge_fetch_is_token(m, strlen(m)))
        return forge_err_set(err, FORGE_EINVAL, "HTTP method '%.40s' is not a token", m);
    for (const char *const *p = req->headers; p && *p; p++) {
        const char *colon = strchr(*p, ':');
        if (!colon)
            return forge_err_set(err, FORGE_EINVAL, "header '%.60s' has no ':'", *p);
        const char *v = colon + 1;
        int rc = forge_fetch_check_header(*p, (size_t)(colon - *p), v, strlen(v), err);
        if (rc)
            return rc;
    }
    int rc = forge_curl_load(err);
    if (rc)
        return rc;
    CURL *h = curl_easy_init();
    if (!h)
        return forge_err_set(err, FORGE_ENOMEM, "cannot create an HTTP handle");
    long timeout = req->timeout_ms > 0 ? req->timeout_ms : DEFAULT_TIMEOUT_MS;
    size_t cap = req->max_bytes ? req->max_bytes : DEFAULT_MAX_BYTES;
    struct sink sink;
    forge_buf_init(&sink.buf, cap);
    sink.over = 0;
    struct curl_slist *hl = NULL;
    for (const char *const *p = req->headers; p && *p; p++)
        hl = curl_slist_append(hl, *p);
    const char *method = req->method ? req->method : "GET";
    curl_easy_setopt(h, CURLOPT_URL, req->url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    if (req->body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)req->body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLcode cc = curl_easy_perform(h);
    if (sink.over) {
        rc = forge_err_set(err, FORGE_ELIMIT, "HTTP response larger than the cap of %zu bytes",
                           cap);
    } else if (cc == CURLE_OPERATION_TIMEDOUT) {
        rc = forge_err_set(err, FORGE_ENET, "HTTP request timed out after %ld ms", timeout);
    } else if (cc != CURLE_OK) {
        rc = forge_err_set(err, FORGE_ENET, "HTTP request failed: %s", curl_easy_strerror(cc));
    } else {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
        char *ct = NULL;
        curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
        out->content_type = ct ? forge_strdup(ct) : NULL;
        out->len = sink.buf.len;
        out->body = forge_buf_take(&sink.buf);
        if (!out->body)
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    forge_buf_free(&sink.buf);
    curl_slist_free_all(hl);
    curl_easy_cleanup(h);
    return rc;
}

void forge_fetch_result_free(struct forge_fetch_result *r)
{
    FORGE_FREE(r->body);
    FORGE_FREE(r->content_type);
    r->len = 0;
}
