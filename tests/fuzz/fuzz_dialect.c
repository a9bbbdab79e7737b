/* Provider response parsing per dialect (runtime/model/dialect.h). Input: one byte choosing
 * the dialect, then the provider's answer body, NUL, an optional normalized request (a fixed
 * one with a tool call in its history when absent or failing forge_wire_check). Properties:
 * parse succeeds with a normalized response (message, finish_reason, usage) or fails with
 * FORGE_ENET and a message; error_message always leaves a string; a valid request builds. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "data/json.h"
#include "model/dialect.h"
#include "fuzz.h"

static const char default_req[] =
    "{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
    "\"arguments\":{\"x\":1}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"{}\"}],"
    "\"tools\":[{\"name\":\"f\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    static const struct forge_dialect *const dialects[] = {
        &forge_dialect_openai, &forge_dialect_openai_responses, &forge_dialect_anthropic,
        &forge_dialect_gemini, &forge_dialect_ollama};
    const struct forge_dialect *d = dialects[data[0] % 5];
    struct fuzz_part part[2];
    fuzz_split(data + 1, size - 1, part, 2);
    struct forge_err err = {0};

    cJSON *req = NULL;
    if (part[1].n) {
        req = forge_json_parse(part[1].p, part[1].n, "<request>", &err);
        if (req && forge_wire_check(req, &err) != 0) {
            cJSON_Delete(req);
            req = NULL;
        }
    }
    if (!req)
        req = forge_json_parse(default_req, sizeof default_req - 1, "<request>", &err);
    FUZZ_CHECK(req && forge_wire_check(req, &err) == 0, "default request: %s", err.msg);

    cJSON *wire = NULL;
    int rc = d->build(req, "m", &wire, &err);
    FUZZ_CHECK(rc == 0 || rc == FORGE_EINVAL, "%s build: %d %s", d->name, rc, err.msg);
    FUZZ_CHECK(rc != 0 || wire, "%s build: no body", d->name);
    cJSON_Delete(wire);

    cJSON *body = forge_json_parse(part[0].p, part[0].n, "<body>", &err);
    char msg[512];
    msg[0] = 'x';
    d->error_message(body, msg, sizeof msg);
    FUZZ_CHECK(memchr(msg, 0, sizeof msg), "%s error_message: unterminated", d->name);
    if (body) {
        cJSON *resp = NULL;
        struct forge_err e2 = {0};
        rc = d->parse(req, body, &resp, &e2);
        if (rc == 0) {
            FUZZ_CHECK(cJSON_IsObject(resp), "%s parse: no response", d->name);
            FUZZ_CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(resp, "message")),
                       "%s parse: no message", d->name);
            char *text = forge_json_print(resp, 0);
            FUZZ_CHECK(text, "print");
            forge_free(text);
        } else {
            FUZZ_CHECK(rc == FORGE_ENET || rc == FORGE_EINVAL, "%s parse: code %d", d->name, rc);
            FUZZ_CHECK(e2.msg[0] && !resp, "%s parse: failure without message", d->name);
        }
        cJSON_Delete(resp);
        cJSON_Delete(body);
    }
    cJSON_Delete(req);
    return 0;
}
