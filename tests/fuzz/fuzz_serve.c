/* The server side of the dialects (forge serve): a client's request body read by accept, then
 * answered. Input: one byte choosing the dialect, then the body. Properties: accept succeeds
 * with a request that passes forge_wire_check, or fails with FORGE_EINVAL and a message and no
 * request; an accepted request builds (or is refused with FORGE_EINVAL), and a fixed response
 * to it is answered and streamed, and parse reads the answer back. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "model/dialect.h"
#include "fuzz.h"

#include <string.h>

static const char response[] =
    "{\"message\":{\"role\":\"assistant\",\"content\":\"Here \\u00e9 it is.\",\"tool_calls\":["
    "{\"id\":\"k1\",\"name\":\"f\",\"arguments\":{\"a\":[1,{\"b\":null}]}}]},"
    "\"finish_reason\":\"tool_calls\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    static const struct forge_dialect *const dialects[] = {
        &forge_dialect_openai, &forge_dialect_openai_responses, &forge_dialect_anthropic,
        &forge_dialect_gemini, &forge_dialect_ollama};
    const struct forge_dialect *d = dialects[data[0] % 5];
    struct forge_err err = {0};
    cJSON *body = forge_json_parse((const char *)data + 1, size - 1, "<body>", &err);
    if (!body)
        return 0;
    cJSON *req = NULL;
    int stream = 0;
    int rc = d->accept(body, &req, &stream, &err);
    if (rc) {
        FUZZ_CHECK(rc == FORGE_EINVAL && err.msg[0] && !req, "%s accept: code %d '%s'", d->name, rc, err.msg);
        cJSON_Delete(body);
        return 0;
    }
    FUZZ_CHECK(req && forge_wire_check(req, &err) == 0, "%s accept: the request fails the check: %s", d->name, err.msg);
    cJSON *wire = NULL;
    rc = d->build(req, "m", &wire, &err);
    FUZZ_CHECK(rc == 0 || rc == FORGE_EINVAL, "%s build: %d %s", d->name, rc, err.msg);
    cJSON_Delete(wire);
    cJSON *resp = forge_json_parse(response, sizeof response - 1, "<response>", &err), *out = NULL, *back = NULL;
    FUZZ_CHECK(resp, "response: %s", err.msg);
    struct forge_answer_info info = {.model = "m", .id = "id1", .created = 1};
    FUZZ_CHECK(d->answer(req, resp, &info, &out, &err) == 0 && out, "%s answer: %s", d->name, err.msg);
    FUZZ_CHECK(d->parse(req, out, &back, &err) == 0, "%s parse(answer): %s", d->name, err.msg);
    /* the same calls come back (Ollama's wire carries no ids: parse names them anew) */
    cJSON *c0 = forge_json_at(back, "message.tool_calls[0]");
    FUZZ_CHECK(cJSON_GetArraySize(forge_json_at(back, "message.tool_calls")) == 1 && c0 &&
               !strcmp(forge_json_str(c0, "name"), "f") &&
               forge_json_equal(cJSON_GetObjectItemCaseSensitive(c0, "arguments"),
                                forge_json_at(resp, "message.tool_calls[0].arguments")) &&
               (d == &forge_dialect_ollama || !strcmp(forge_json_str(c0, "id"), "k1")),
               "%s parse(answer): the calls differ", d->name);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    FUZZ_CHECK(d->stream(req, resp, &info, &b, &err) == 0 && b.len > 0, "%s stream: %s", d->name, err.msg);
    forge_buf_free(&b);
    cJSON_Delete(back);
    cJSON_Delete(out);
    cJSON_Delete(resp);
    cJSON_Delete(req);
    cJSON_Delete(body);
    return 0;
}
