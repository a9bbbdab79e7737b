/* net/http helpers: redaction, Retry-After, backoff, cancellation. (Requests themselves are tested end to end
 * against the fake provider in tests/integration/providers_test.py.) */
#include "test.h"
#include "net/http.h"

#include <stdlib.h>
#include <time.h>

TEST(redact)
{
    const char *secrets[] = {"sk-abc", "", "tok123", NULL};
    char s[128] = "key sk-abc and sk-abc, token tok123.";
    forge_http_redact(s, sizeof s, secrets);
    CHECK_STR(s, "key [REDACTED] and [REDACTED], token [REDACTED].");
    char small[16] = "x sk-abc yyyy";
    forge_http_redact(small, sizeof small, secrets);
    CHECK(strstr(small, "sk-abc") == NULL);
    CHECK(strlen(small) < sizeof small);
    /* A secret that would not fit is cut, never left in. */
    char tight[12] = "ab tok123";
    forge_http_redact(tight, sizeof tight, secrets);
    CHECK(strstr(tight, "tok") == NULL);
    char none[32] = "nothing here";
    forge_http_redact(none, sizeof none, NULL);
    CHECK_STR(none, "nothing here");
}

TEST(retry_after)
{
    CHECK_INT(forge_http_retry_after_ms("1"), 1000);
    CHECK_INT(forge_http_retry_after_ms(" 2.5 "), 2500);
    CHECK_INT(forge_http_retry_after_ms("0"), 0);
    CHECK_INT(forge_http_retry_after_ms(NULL), -1);
    CHECK_INT(forge_http_retry_after_ms(""), -1);
    CHECK_INT(forge_http_retry_after_ms("soon"), -1);
    CHECK_INT(forge_http_retry_after_ms("-3"), -1);
    CHECK_INT(forge_http_retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT"), 0); /* in the past */
    time_t later = time(NULL) + 30;
    char date[64];
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime(&later));
    long ms = forge_http_retry_after_ms(date);
    CHECK(ms >= 28000 && ms <= 30000);
}

TEST(backoff)
{
    struct forge_http_opts o = {0};
    o.backoff_ms = 100;
    o.backoff_max_ms = 1000;
    for (int i = 0; i < 50; i++) {
        long a1 = forge_http_backoff_ms(&o, 1), a3 = forge_http_backoff_ms(&o, 3), a9 = forge_http_backoff_ms(&o, 9);
        CHECK(a1 >= 50 && a1 <= 100);
        CHECK(a3 >= 200 && a3 <= 400);
        CHECK(a9 >= 500 && a9 <= 1000);
    }
    /* Jitter: 50 draws are not all equal. */
    long first = forge_http_backoff_ms(&o, 4);
    int differ = 0;
    for (int i = 0; i < 50; i++)
        differ |= forge_http_backoff_ms(&o, 4) != first;
    CHECK(differ);
    struct forge_http_opts d = {0};
    long x = forge_http_backoff_ms(&d, 1);
    CHECK(x >= 250 && x <= 500);
}

TEST(unreachable)
{
    /* Port 9 on loopback: nothing listens; no retries; the error names the URL. */
    struct forge_http_opts o = {0};
    struct forge_http_response r;
    struct forge_err e;
    const char *secrets[] = {"secret-in-url", NULL};
    o.retries = 0;
    o.timeout_ms = 2000;
    o.secrets = secrets;
    int rc = forge_http_post("http://127.0.0.1:9/v1/secret-in-url", NULL, "{}", 2, &o, &r, &e);
    CHECK_INT(rc, FORGE_ENET);
    CHECK(strstr(e.msg, "http://127.0.0.1:9/v1/[REDACTED]") != NULL);
    CHECK(strstr(e.msg, "after 1 attempt") != NULL);
    CHECK(r.body == NULL);
}

static double cancel_at; /* CLOCK_MONOTONIC seconds after which cancel_after says stop */

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cancel_after(void *ctx)
{
    (void)ctx;
    return mono() >= cancel_at;
}

static int never(void *ctx)
{
    (void)ctx;
    return 0;
}

TEST(cancel)
{
    /* nothing listens on port 9: each attempt fails at once, then a 5 s wait to retry, which
     * the cancel check cuts short */
    struct forge_http_opts o = {0};
    struct forge_http_response r;
    struct forge_err e;
    o.retries = 3;
    o.backoff_ms = 5000;
    o.backoff_max_ms = 5000;
    o.timeout_ms = 2000;
    forge_http_cancel_fn pf = never;
    void *pc = &o;
    cancel_at = mono() + 0.3; /* after the refused first attempt, during the wait */
    forge_http_cancel_set(cancel_after, NULL, &pf, &pc);
    CHECK(pf == NULL && pc == NULL); /* none was set */
    double t0 = mono();
    int rc = forge_http_post("http://127.0.0.1:9/v1", NULL, "{}", 2, &o, &r, &e);
    double took = mono() - t0;
    CHECK_INT(rc, FORGE_ENET);
    CHECK(strstr(e.msg, "cancelled while waiting to retry") != NULL);
    CHECK(took < 3); /* not the 5 s wait */
    CHECK(r.body == NULL);
    /* already cancelled: no attempt is made */
    cancel_at = 0;
    rc = forge_http_post("http://127.0.0.1:9/v1", NULL, "{}", 2, &o, &r, &e);
    CHECK_INT(rc, FORGE_ENET);
    CHECK(strstr(e.msg, "cancelled before attempt 1") != NULL);
    /* restoring the previous setting (none) */
    forge_http_cancel_set(NULL, NULL, &pf, &pc);
    CHECK(pf == cancel_after);
    o.retries = 0;
    rc = forge_http_post("http://127.0.0.1:9/v1", NULL, "{}", 2, &o, &r, &e);
    CHECK_INT(rc, FORGE_ENET);
    CHECK(strstr(e.msg, "cancelled") == NULL);
}

int main(void)
{
    RUN(redact);
    RUN(retry_after);
    RUN(backoff);
    RUN(unreachable);
    RUN(cancel);
    return TEST_DONE();
}
