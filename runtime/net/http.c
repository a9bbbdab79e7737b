/* HTTP POST over libcurl with retries, deadlines, body caps and secret redaction. */
#include "net/http.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static pthread_key_t handle_key;
static int global_rc;

static void handle_free(void *p)
{
    curl_easy_cleanup(p);
}

static void global_init(void)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || pthread_key_create(&handle_key, handle_free) != 0)
        global_rc = FORGE_EINTERNAL;
}

/* The calling thread's easy handle, reset to defaults; NULL when libcurl cannot make one. */
static CURL *thread_handle(void)
{
    CURL *h = pthread_getspecific(handle_key);
    if (h) {
        curl_easy_reset(h);
        return h;
    }
    h = curl_easy_init();
    if (h && pthread_setspecific(handle_key, h) != 0) {
        curl_easy_cleanup(h);
        h = NULL;
    }
    return h;
}

char *forge_http_redact_dup(const char *s, const char *const *secrets)
{
    int found = 0;
    for (const char *const *sp = secrets; s && sp && *sp && !found; sp++)
        found = **sp && strstr(s, *sp) != NULL;
    if (!found)
        return NULL;
    /* Secrets are at least 4 bytes and the mark is 10: a copy grows at most 2.5 times. */
    size_t cap = strlen(s) * 3 + 16;
    char *copy = forge_malloc(cap);
    if (!copy)
        return NULL;
    memcpy(copy, s, strlen(s) + 1);
    forge_http_redact(copy, cap, secrets);
    return copy;
}

void forge_http_redact(char *s, size_t cap, const char *const *secrets)
{
    static const char mark[] = "[REDACTED]";
    if (!s || !secrets)
        return;
    for (const char *const *sp = secrets; *sp; sp++) {
        size_t n = strlen(*sp);
        if (n == 0)
            continue;
        char *p = s;
        while ((p = strstr(p, *sp)) != NULL) {
            size_t len = strlen(s), tail = strlen(p + n), m = sizeof mark - 1;
            size_t newlen = len - n + m;
            if (newlen + 1 > cap) {
                /* No room to shift: cut the message at the secret. */
                memcpy(p, mark, (size_t)(s + cap - 1 - p) < m ? (size_t)(s + cap - 1 - p) : m);
                s[cap - 1] = '\0';
                if ((size_t)(p - s) + m < cap - 1)
                    p[m] = '\0';
                break;
            }
            memmove(p + m, p + n, tail + 1);
            memcpy(p, mark, m);
            p += m;
        }
    }
}

long forge_http_retry_after_ms(const char *v)
{
    if (!v)
        return -1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (!*v)
        return -1;
    char *end;
    errno = 0;
    double secs = strtod(v, &end);
    if (end != v && errno == 0) {
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (*end == '\0' && secs >= 0 && secs < 86400.0 * 365)
            return (long)(secs * 1000.0);
    }
    time_t t = curl_getdate(v, NULL);
    if (t == (time_t)-1)
        return -1;
    time_t now = time(NULL);
    return t > now ? (long)(t - now) * 1000 : 0;
}

static long opt_or(long v, long dflt)
{
    return v > 0 ? v : dflt;
}

long forge_http_backoff_ms(const struct forge_http_opts *o, int attempt)
{
    long first = opt_or(o->backoff_ms, 500), max = opt_or(o->backoff_max_ms, 60000);
    double base = (double)first;
    for (int i = 1; i < attempt && base < (double)max; i++)
        base *= 2;
    if (base > (double)max)
        base = (double)max;
    /* Per-thread seed: rand_r keeps threads from sharing state. */
    static _Thread_local unsigned seed;
    if (seed == 0)
        seed = (unsigned)forge_clock_ns() ^ (unsigned)(uintptr_t)&seed;
    double r = (double)rand_r(&seed) / ((double)RAND_MAX + 1.0);
    return (long)(base / 2 + r * base / 2);
}

struct sink {
    struct forge_buf body;
    int over; /* the cap was passed */
    int stream, idle;            /* marking pieces; the idle limit was passed */
    long idle_ms;
    uint64_t t0, last_ns;        /* the attempt's start, the last piece's arrival */
    struct forge_http_mark *marks;
    size_t nmarks, cap_marks;
    int keep_headers;
    struct forge_buf headers;
    char retry_after[64];
    char retry_after_ms[32]; /* OpenAI's more precise variant, preferred when present */
    void (*on_data)(void *ctx, const char *body, size_t len); /* opts.on_data */
    void *on_data_ctx;
    forge_http_cancel_fn cancel; /* the thread's cancel check (may be NULL) */
    void *cancel_ctx;
    int cancelled;               /* the check said stop */
};

static _Thread_local forge_http_cancel_fn cancel_fn;
static _Thread_local void *cancel_ctx;

void forge_http_cancel_set(forge_http_cancel_fn fn, void *ctx, forge_http_cancel_fn *prev_fn, void **prev_ctx)
{
    if (prev_fn)
        *prev_fn = cancel_fn;
    if (prev_ctx)
        *prev_ctx = cancel_ctx;
    cancel_fn = fn;
    cancel_ctx = fn ? ctx : NULL;
}

/* Copies the value of header line <p> (<len> bytes) after its <namelen>-byte name into <out>. */
static void header_value(const char *p, size_t len, size_t namelen, char *out, size_t n)
{
    size_t vlen = len - namelen;
    if (vlen >= n)
        vlen = n - 1;
    memcpy(out, p + namelen, vlen);
    out[vlen] = '\0';
    char *e = out + strlen(out);
    while (e > out && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
        *--e = '\0';
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct sink *s = ud;
    if (forge_buf_add(&s->body, p, size * n) != 0) {
        s->over = 1;
        return 0;
    }
    if (s->stream) {
        uint64_t now = forge_clock_ns();
        s->last_ns = now;
        if (s->nmarks == s->cap_marks) {
            size_t cap = s->cap_marks ? s->cap_marks * 2 : 64;
            struct forge_http_mark *m = forge_realloc(s->marks, cap * sizeof *m);
            if (!m) {
                s->over = 1;
                return 0;
            }
            s->marks = m;
            s->cap_marks = cap;
        }
        s->marks[s->nmarks].end = s->body.len;
        s->marks[s->nmarks++].ms = (double)(now - s->t0) / 1e6;
        if (s->on_data)
            s->on_data(s->on_data_ctx, s->body.data, s->body.len);
    }
    return size * n;
}

/* Ends an attempt whose stream has been silent past the idle limit, or that the caller
 * cancelled. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    struct sink *s = ud;
    if (s->cancel && s->cancel(s->cancel_ctx)) {
        s->cancelled = 1;
        return 1;
    }
    uint64_t since = s->last_ns ? s->last_ns : s->t0;
    if (s->idle_ms > 0 && forge_clock_ns() - since > (uint64_t)s->idle_ms * 1000000u) {
        s->idle = 1;
        return 1;
    }
    return 0;
}

double forge_http_time_at(const struct forge_http_response *r, size_t offset)
{
    for (size_t i = 0; i < r->nmarks; i++)
        if (r->marks[i].end > offset)
            return r->marks[i].ms;
    return r->nmarks ? r->marks[r->nmarks - 1].ms : -1;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    struct sink *s = ud;
    size_t len = size * n;
    static const char ra[] = "retry-after:", ram[] = "retry-after-ms:";
    if (len > sizeof ra - 1 && strncasecmp(p, ra, sizeof ra - 1) == 0) {
        header_value(p, len, sizeof ra - 1, s->retry_after, sizeof s->retry_after);
    } else if (len > sizeof ram - 1 && strncasecmp(p, ram, sizeof ram - 1) == 0) {
        header_value(p, len, sizeof ram - 1, s->retry_after_ms, sizeof s->retry_after_ms);
    } else if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        /* a new response (after a redirect or 100) starts */
        s->retry_after[0] = '\0';
        s->retry_after_ms[0] = '\0';
        if (s->keep_headers)
            forge_buf_reset(&s->headers);
    }
    if (s->keep_headers && forge_buf_add(&s->headers, p, len))
        return 0;
    return len;
}

/* Sleeps <ms>, in slices of 50 ms when <s> has a cancel check; returns 1 when it cancelled. */
static int sleep_ms(long ms, struct sink *s)
{
    while (ms > 0) {
        if (s->cancel && s->cancel(s->cancel_ctx))
            return s->cancelled = 1;
        long step = s->cancel && ms > 50 ? 50 : ms;
        struct timespec ts = {step / 1000, (step % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        ms -= step;
    }
    return 0;
}

static int retryable_status(long st)
{
    return st == 429 || (st >= 500 && st <= 599);
}

void forge_http_response_free(struct forge_http_response *r)
{
    if (!r)
        return;
    FORGE_FREE(r->body);
    FORGE_FREE(r->marks);
    FORGE_FREE(r->headers);
    r->nmarks = 0;
    r->len = 0;
}

int forge_http_header(const struct forge_http_response *r, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    for (const char *p = r->headers; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > nl && !strncasecmp(p, name, nl) && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vl = (size_t)(p + len - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
                vl--;
            snprintf(out, n, "%.*s", (int)vl, v);
            return 0;
        }
        p = e ? e + 1 : p + len;
    }
    return -1;
}

int forge_http_post(const char *url, const char *const *headers, const char *body, size_t len,
                    const struct forge_http_opts *o, struct forge_http_response *out,
                    struct forge_err *err)
{
    memset(out, 0, sizeof *out);
    pthread_once(&global_once, global_init);
    if (global_rc)
        return forge_err_set(err, FORGE_EINTERNAL, "libcurl could not be initialized");
    CURL *h = thread_handle();
    if (!h)
        return forge_err_set(err, FORGE_ENOMEM, "libcurl could not create a handle");

    int rc = 0;
    struct curl_slist *hl = NULL;
    for (const char *const *hp = headers; hp && *hp; hp++) {
        struct curl_slist *n = curl_slist_append(hl, *hp);
        if (!n) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building request headers");
            goto out;
        }
        hl = n;
    }
    {
        /* libcurl would otherwise send "Expect: 100-continue" on large bodies: one more
         * round trip per request. */
        struct curl_slist *n = curl_slist_append(hl, "Expect:");
        if (!n) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building request headers");
            goto out;
        }
        hl = n;
    }

    long timeout = opt_or(o->timeout_ms, 120000), ctimeout = opt_or(o->connect_timeout_ms, 10000);
    int retries = o->retries < 0 ? FORGE_HTTP_RETRIES : o->retries;
    size_t limit = o->body_limit ? o->body_limit : FORGE_HTTP_BODY_LIMIT;
    uint64_t t0 = forge_clock_ns();
    char last[512] = "";
    struct sink s;
    memset(&s, 0, sizeof s);
    forge_buf_init(&s.body, limit);
    s.stream = o->stream;
    s.idle_ms = o->idle_timeout_ms;
    s.keep_headers = o->keep_headers;
    s.cancel = cancel_fn;
    s.on_data = o->on_data;
    s.on_data_ctx = o->on_data_ctx;
    s.cancel_ctx = cancel_ctx;
    forge_buf_init(&s.headers, 0);

    for (int attempt = 0;; attempt++) {
        long this_timeout = timeout;
        if (o->deadline_ns) {
            uint64_t now = forge_clock_ns();
            if (now >= o->deadline_ns) {
                rc = forge_err_set(err, FORGE_ENET, "POST %s: the deadline passed after %d attempt%s%s%s",
                                   url, attempt, attempt == 1 ? "" : "s", last[0] ? "; last: " : "", last);
                goto out_sink;
            }
            long left = (long)((o->deadline_ns - now) / 1000000u);
            if (left < this_timeout)
                this_timeout = left > 0 ? left : 1;
        }
        if (s.cancel && s.cancel(s.cancel_ctx)) {
            rc = forge_err_set(err, FORGE_ENET, "POST %s: cancelled before attempt %d (the caller stopped waiting)",
                               url, attempt + 1);
            goto out_sink;
        }
        forge_buf_reset(&s.body);
        s.over = 0;
        s.idle = 0;
        s.nmarks = 0;
        s.last_ns = 0;
        s.t0 = forge_clock_ns();
        s.retry_after[0] = '\0';
        s.retry_after_ms[0] = '\0';
        if (attempt > 0)
            curl_easy_reset(h);
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        if (o->method) {
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, o->method);
        } else {
            curl_easy_setopt(h, CURLOPT_POST, 1L);
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        }
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, this_timeout);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ctimeout < this_timeout ? ctimeout : this_timeout);
        curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(h, CURLOPT_USERAGENT, "forge/" FORGE_VERSION);
        if (s.idle_ms > 0 || s.cancel) {
            curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
            curl_easy_setopt(h, CURLOPT_XFERINFODATA, &s);
            curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        }
        CURLcode cc = curl_easy_perform(h);
        out->attempts = attempt + 1;
        long status = 0;
        if (s.over) {
            rc = forge_err_set(err, FORGE_ELIMIT,
                               "POST %s: the response body passed the limit of %zu bytes "
                               "(raise it with --max-response-bytes)", url, limit);
            goto out_sink;
        }
        if (s.cancelled) {
            rc = forge_err_set(err, FORGE_ENET, "POST %s: cancelled in flight after %.0f ms (the caller stopped waiting)",
                               url, (double)(forge_clock_ns() - s.t0) / 1e6);
            goto out_sink;
        }
        int retry;
        if (s.idle) {
            snprintf(last, sizeof last, "the stream sent nothing for %ld ms (the idle limit; raise it with "
                     "--idle-timeout-ms)", s.idle_ms);
            cc = CURLE_OPERATION_TIMEDOUT;
            retry = 1;
        } else if (cc != CURLE_OK) {
            snprintf(last, sizeof last, "%s%s", curl_easy_strerror(cc),
                     s.stream && s.body.len ? " in the middle of the stream" : "");
            retry = 1;
        } else {
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
            retry = retryable_status(status);
            if (retry) {
                snprintf(last, sizeof last, "HTTP %ld", status);
            } else if (s.stream && status >= 200 && status < 300 && o->complete &&
                       !o->complete(s.body.data ? s.body.data : "", s.body.len)) {
                /* a stream cut short is never taken as a whole answer */
                snprintf(last, sizeof last, "the stream ended before its end (%zu bytes)", s.body.len);
                cc = CURLE_PARTIAL_FILE;
                retry = 1;
            }
        }
        if (!retry || attempt >= retries) {
            if (cc != CURLE_OK) {
                rc = forge_err_set(err, FORGE_ENET, "POST %s: %s (after %d attempt%s)", url, last,
                                   attempt + 1, attempt ? "s" : "");
                goto out_sink;
            }
            out->status = status;
            out->len = s.body.len;
            out->body = forge_buf_take(&s.body);
            out->elapsed_ms = (double)(forge_clock_ns() - t0) / 1e6;
            out->attempt_ms = (double)(forge_clock_ns() - s.t0) / 1e6;
            out->marks = s.marks;
            out->nmarks = s.nmarks;
            s.marks = NULL;
            if (s.keep_headers && !(out->headers = forge_buf_take(&s.headers))) {
                rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response");
                goto out_sink;
            }
            if (!out->body) {
                rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response");
                goto out_sink;
            }
            goto out_sink;
        }
        long wait = forge_http_backoff_ms(o, attempt + 1);
        long ra = forge_http_retry_after_ms(s.retry_after[0] ? s.retry_after : NULL);
        if (s.retry_after_ms[0]) {
            char *end;
            double ms = strtod(s.retry_after_ms, &end);
            if (end != s.retry_after_ms && *end == '\0' && ms >= 0 && ms < 86400e3)
                ra = (long)ms;
        }
        if (ra >= 0)
            wait = ra;
        long max = opt_or(o->backoff_max_ms, 60000);
        if (wait > max)
            wait = max;
        if (o->deadline_ns) {
            uint64_t now = forge_clock_ns();
            long left = now < o->deadline_ns ? (long)((o->deadline_ns - now) / 1000000u) : 0;
            if (wait >= left) {
                rc = forge_err_set(err, FORGE_ENET,
                                   "POST %s: %s; the deadline leaves no time for retry %d (wait %ld ms)",
                                   url, last, attempt + 1, wait);
                goto out_sink;
            }
        }
        if (sleep_ms(wait, &s)) {
            rc = forge_err_set(err, FORGE_ENET, "POST %s: cancelled while waiting to retry; last: %s", url, last);
            goto out_sink;
        }
    }
out_sink:
    forge_buf_free(&s.body);
    forge_buf_free(&s.headers);
    forge_free(s.marks);
out:
    curl_slist_free_all(hl);
    if (rc && err)
        forge_http_redact(err->msg, sizeof err->msg, o->secrets);
    return rc;
}
