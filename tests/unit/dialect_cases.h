/* Helpers for the dialect unit tests: build a wire body from a normalized request, parse a
 * wire answer, and compare with expected JSON (printed side by side on a mismatch). */
#ifndef FORGE_TEST_DIALECT_CASES_H
#define FORGE_TEST_DIALECT_CASES_H
#include "test.h"
#include "base/alloc.h"
#include "data/json.h"
#include "model/dialect.h"

#include <stdlib.h>

/* Parses test JSON written with single quotes for readability: ' is ", \' is \". */
__attribute__((unused)) static cJSON *J(const char *src)
{
    struct forge_err e;
    size_t n = strlen(src);
    char *text = malloc(n + 1);
    for (size_t i = 0; i <= n; i++)
        text[i] = src[i] == '\'' ? '"' : src[i];
    cJSON *v = forge_json_parse(text, n, "<test>", &e);
    free(text);
    if (!v) {
        fprintf(stderr, "bad test JSON: %s\n", e.msg);
        abort();
    }
    return v;
}

__attribute__((unused)) static int same(const char *what, const cJSON *got, const char *want_text, int line)
{
    cJSON *want = J(want_text);
    int ok = got && forge_json_equal(got, want);
    if (!ok) {
        char *g = got ? forge_json_print(got, FORGE_JSON_SORTED) : NULL;
        char *w = forge_json_print(want, FORGE_JSON_SORTED);
        fprintf(stderr, "line %d: %s differs\n  got:      %s\n  expected: %s\n", line, what, g ? g : "(null)", w);
        forge_free(g);
        forge_free(w);
    }
    cJSON_Delete(want);
    return ok;
}

/* The body <d> builds for <req> equals <want>. */
#define BODY_IS(d, req, want) CHECK(body_is_(d, req, want, __LINE__))
__attribute__((unused)) static int body_is_(const struct forge_dialect *d, const char *req_text, const char *want, int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *req = J(req_text), *body = NULL;
    int rc = forge_wire_check(req, &e);
    if (!rc)
        rc = d->build(req, "m1", &body, &e);
    if (rc)
        fprintf(stderr, "line %d: build failed: %s\n", line, e.msg);
    int ok = !rc && same("body", body, want, line);
    cJSON_Delete(req);
    cJSON_Delete(body);
    return ok;
}

/* Building <req> fails with <code> and a message containing <part>. */
#define BUILD_FAILS(d, req, code, part) CHECK(build_fails_(d, req, code, part, __LINE__))
__attribute__((unused)) static int build_fails_(const struct forge_dialect *d, const char *req_text, int code, const char *part, int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *req = J(req_text), *body = NULL;
    int rc = forge_wire_check(req, &e);
    if (!rc)
        rc = d->build(req, "m1", &body, &e);
    int ok = rc == code && strstr(e.msg, part) != NULL && body == NULL;
    if (!ok)
        fprintf(stderr, "line %d: expected failure %d with '%s', got %d '%s'\n", line, code, part, rc, e.msg);
    cJSON_Delete(req);
    cJSON_Delete(body);
    return ok;
}

/* Parsing the wire answer <wire> to <req> gives <want>. */
#define PARSE_IS(d, req, wire, want) CHECK(parse_is_(d, req, wire, want, __LINE__))
__attribute__((unused)) static int parse_is_(const struct forge_dialect *d, const char *req_text, const char *wire, const char *want, int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *req = J(req_text), *w = J(wire), *resp = NULL;
    int rc = d->parse(req, w, &resp, &e);
    if (rc)
        fprintf(stderr, "line %d: parse failed: %s\n", line, e.msg);
    int ok = !rc && same("response", resp, want, line);
    cJSON_Delete(req);
    cJSON_Delete(w);
    cJSON_Delete(resp);
    return ok;
}

#define PARSE_FAILS(d, wire, part) CHECK(parse_fails_(d, wire, part, __LINE__))
__attribute__((unused)) static int parse_fails_(const struct forge_dialect *d, const char *wire, const char *part, int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *req = J("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"), *w = J(wire), *resp = NULL;
    int rc = d->parse(req, w, &resp, &e);
    int ok = rc == FORGE_ENET && strstr(e.msg, part) && !resp;
    if (!ok)
        fprintf(stderr, "line %d: expected parse failure with '%s', got %d '%s'\n", line, part, rc, e.msg);
    cJSON_Delete(req);
    cJSON_Delete(w);
    cJSON_Delete(resp);
    return ok;
}

#define ERRMSG_IS(d, wire, want) CHECK(errmsg_is_(d, wire, want, __LINE__))
__attribute__((unused)) static int errmsg_is_(const struct forge_dialect *d, const char *wire, const char *want, int line)
{
    cJSON *w = J(wire);
    char out[256];
    d->error_message(w, out, sizeof out);
    cJSON_Delete(w);
    if (strcmp(out, want) != 0)
        fprintf(stderr, "line %d: error message '%s', expected '%s'\n", line, out, want);
    return strcmp(out, want) == 0;
}

/* ---- the server side ---- */

__attribute__((unused)) static const struct forge_answer_info SERVE_INFO = {
    .model = "m-served", .id = "id7", .created = 1700000000};

/* What build() sends for <req>, accept() reads back as <req> (or <want> when not NULL). */
#define ROUND_TRIP(d, req, want) CHECK(round_trip_(d, req, want, __LINE__))
__attribute__((unused)) static int round_trip_(const struct forge_dialect *d, const char *req_text, const char *want,
                                               int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *req = J(req_text), *body = NULL, *back = NULL;
    int stream = -1;
    int rc = d->build(req, "m1", &body, &e);
    if (!rc)
        rc = d->accept(body, &back, &stream, &e);
    if (rc)
        fprintf(stderr, "line %d: build or accept failed: %s\n", line, e.msg);
    int ok = !rc && same("accept(build(req))", back, want ? want : req_text, line);
    cJSON_Delete(req);
    cJSON_Delete(body);
    cJSON_Delete(back);
    return ok;
}

/* accept(<body>) gives <want> and the stream flag <stream>. */
#define ACCEPT_IS(d, body, want, stream) CHECK(accept_is_(d, body, want, stream, __LINE__))
__attribute__((unused)) static int accept_is_(const struct forge_dialect *d, const char *body_text, const char *want,
                                              int want_stream, int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *body = J(body_text), *req = NULL;
    int stream = -1;
    int rc = d->accept(body, &req, &stream, &e);
    if (rc)
        fprintf(stderr, "line %d: accept failed: %s\n", line, e.msg);
    int ok = !rc && same("request", req, want, line) && stream == want_stream;
    if (!rc && stream != want_stream)
        fprintf(stderr, "line %d: stream %d, expected %d\n", line, stream, want_stream);
    cJSON_Delete(body);
    cJSON_Delete(req);
    return ok;
}

/* accept(<body>) fails with FORGE_EINVAL and exactly <msg>. */
#define ACCEPT_FAILS(d, body, msg) CHECK(accept_fails_(d, body, msg, __LINE__))
__attribute__((unused)) static int accept_fails_(const struct forge_dialect *d, const char *body_text, const char *msg,
                                                 int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *body = J(body_text), *req = NULL;
    int stream = 0;
    int rc = d->accept(body, &req, &stream, &e);
    int ok = rc == FORGE_EINVAL && !strcmp(e.msg, msg) && !req;
    if (!ok)
        fprintf(stderr, "line %d: expected '%s', got %d '%s'\n", line, msg, rc, e.msg);
    cJSON_Delete(body);
    cJSON_Delete(req);
    return ok;
}

/* answer(<resp>) is <want>, and parse() reads <resp> back from it. */
#define ANSWER_IS(d, req, resp, want) CHECK(answer_is_(d, req, resp, want, __LINE__))
__attribute__((unused)) static int answer_is_(const struct forge_dialect *d, const char *req_text, const char *resp_text,
                                              const char *want, int line)
{
    struct forge_err e;
    forge_err_clear(&e);
    cJSON *req = J(req_text), *resp = J(resp_text), *out = NULL, *back = NULL;
    int rc = d->answer(req, resp, &SERVE_INFO, &out, &e);
    int ok = !rc && same("answer", out, want, line);
    if (!rc && (rc = d->parse(req, out, &back, &e)))
        fprintf(stderr, "line %d: parse(answer) failed: %s\n", line, e.msg);
    ok = ok && !rc && same("parse(answer)", back, resp_text, line);
    cJSON_Delete(req);
    cJSON_Delete(resp);
    cJSON_Delete(out);
    cJSON_Delete(back);
    return ok;
}

/* The stream of <resp> is exactly <want>. */
#define STREAM_IS(d, req, resp, want) CHECK(stream_is_(d, req, resp, want, __LINE__))
__attribute__((unused)) static int stream_is_(const struct forge_dialect *d, const char *req_text, const char *resp_text,
                                              const char *want, int line)
{
    struct forge_err e;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *req = J(req_text), *resp = J(resp_text);
    int rc = d->stream(req, resp, &SERVE_INFO, &b, &e);
    int ok = !rc && b.data && !strcmp(b.data, want);
    if (!ok)
        fprintf(stderr, "line %d: stream differs\n  got:\n%s\n  expected:\n%s\n", line, b.data ? b.data : "(null)", want);
    forge_buf_free(&b);
    cJSON_Delete(req);
    cJSON_Delete(resp);
    return ok;
}

/* Requests shared by the dialect tests. */
#define USER_ONLY "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"
#define WEATHER "{\"name\":\"get_weather\",\"description\":\"Weather.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}"
#define HISTORY \
    "{\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}," \
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}," \
    "{\"id\":\"c2\",\"name\":\"get_weather\",\"arguments\":{}}]}," \
    "{\"role\":\"tool\",\"tool_call_id\":\"c2\",\"name\":\"get_weather\",\"content\":\"no city\",\"is_error\":true}," \
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":\"get_weather\",\"content\":\"{\\\"t\\\":18}\"}," \
    "{\"role\":\"user\",\"content\":\"Thanks\"}]," \
    "\"tools\":[" WEATHER "]}"
#endif
