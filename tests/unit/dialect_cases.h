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
