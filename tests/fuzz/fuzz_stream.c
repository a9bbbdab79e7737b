/* Streamed answers read two ways (runtime/model/dialect.h assemble): with the in-place scanner
 * for hot events (forge_wire_set_fast(1)) and with cJSON for every event (0). Input: one option
 * byte (dialect = byte % 5; bit 3: a value limit of 12 for the run), then the streamed body.
 * Properties: both ways give the same return code, the same error message, the same marks and
 * the same assembled body, byte for byte. And the scanner alone (data/jscan.h) on the body as one
 * JSON text: what it accepts, forge_json_parse accepts; a string it accepts decodes as cJSON's. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "base/buf.h"
#include "data/jscan.h"
#include "data/json.h"
#include "model/dialect.h"
#include "fuzz.h"

static char *assemble(const struct forge_dialect *d, const char *text, size_t len, int fast, int *rc,
                      struct forge_stream_marks *mk, struct forge_err *err)
{
    cJSON *body = NULL;
    forge_wire_set_fast(fast);
    forge_err_clear(err);
    *rc = d->assemble(text, len, &body, mk, err);
    forge_wire_set_fast(1);
    char *s = body ? forge_json_print(body, 0) : NULL;
    cJSON_Delete(body);
    return s;
}

static void scanner(const char *text, size_t len)
{
    struct forge_jscan j;
    struct forge_err err;
    forge_jscan_init(&j, text, len);
    if (!forge_jscan_skip(&j) && !forge_jscan_end(&j)) {
        cJSON *v = forge_json_parse(text, len, "text", &err);
        FUZZ_CHECK(v, "the scanner accepts what forge_json_parse refuses: %s", err.msg);
        cJSON_Delete(v);
    }
    struct forge_jstr s;
    size_t n = len;
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n'))
        n--;
    if (!forge_jstr_scan(text, n, &s)) {
        cJSON *v = forge_json_parse(text, n, "text", &err);
        FUZZ_CHECK(cJSON_IsString(v), "a string the scanner accepts does not parse: %s", err.msg);
        struct forge_buf b;
        forge_buf_init(&b, 0);
        FUZZ_CHECK(!forge_jstr_append(&s, &b), "append failed");
        FUZZ_CHECK(b.len == strlen(v->valuestring) && !memcmp(b.data ? b.data : "", v->valuestring, b.len),
                   "decoded '%s', cJSON '%s'", b.data ? b.data : "", v->valuestring);
        forge_buf_free(&b);
        cJSON_Delete(v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    static const struct forge_dialect *const dialects[] = {
        &forge_dialect_openai, &forge_dialect_openai_responses, &forge_dialect_anthropic,
        &forge_dialect_gemini, &forge_dialect_ollama};
    const struct forge_dialect *d = dialects[data[0] % 5];
    if (data[0] & 8)
        forge_json_set_node_limit(12);
    /* a copy of exactly the body, so reading past it is an error the sanitizers see */
    size_t len = size - 1;
    char *text = forge_malloc(len ? len : 1);
    FUZZ_CHECK(text, "out of memory");
    memcpy(text, data + 1, len);
    struct forge_stream_marks m1, m2;
    struct forge_err e1, e2;
    int rc1, rc2;
    char *b1 = assemble(d, text, len, 1, &rc1, &m1, &e1);
    char *b2 = assemble(d, text, len, 0, &rc2, &m2, &e2);
    FUZZ_CHECK(rc1 == rc2, "%s: fast %d (%s), cJSON %d (%s)", d->name, rc1, e1.msg, rc2, e2.msg);
    FUZZ_CHECK(rc1 == 0 || !strcmp(e1.msg, e2.msg), "%s: fast '%s', cJSON '%s'", d->name, e1.msg, e2.msg);
    FUZZ_CHECK(m1.first_token == m2.first_token && m1.first_call == m2.first_call,
               "%s: marks fast %zu %zu, cJSON %zu %zu", d->name, m1.first_token, m1.first_call, m2.first_token,
               m2.first_call);
    FUZZ_CHECK((!b1 && !b2) || (b1 && b2 && !strcmp(b1, b2)), "%s: bodies differ:\nfast  %s\ncJSON %s", d->name,
               b1 ? b1 : "(none)", b2 ? b2 : "(none)");
    forge_free(b1);
    forge_free(b2);
    scanner(text, len);
    forge_free(text);
    forge_json_set_node_limit(0);
    return 0;
}
