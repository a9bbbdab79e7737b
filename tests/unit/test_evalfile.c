/* Unit tests for eval/evalfile: positions, key paths, did-you-mean, and trees without text. */
#include "test.h"
#include "eval/evalfile.h"
#include "base/buf.h"

#include <cjson/cJSON.h>

static void bad(const char *text, const char *want)
{
    struct forge_err err = {0};
    cJSON *cases = NULL;
    CHECK_INT(forge_evalfile_parse(text, strlen(text), "f.json", &cases, &err), FORGE_EINVAL);
    CHECK(cases == NULL);
    CHECK_STR(err.msg, want);
}

TEST(errors_name_position_and_path)
{
    bad("[\n {\"id\": \"a\",\n  \"expect\": {\"toolsCalled\": [\"x\", 3]}}]",
        "f.json:3:35: [0].expect.toolsCalled[1]: expected a string, got number");
    bad("[{\"id\":\"a\",\"expect\":{\"responseContains\":{\"a\":1}}}]",
        "f.json:1:41: [0].expect.responseContains: expected a string or an array of strings, got object");
    bad("[{\"id\":\"a\",\"expec\":{}}]", "f.json:1:12: [0].expec: unknown key \"expec\" (did you mean \"expect\"?)");
    bad("[{\"id\":\"a\",\"zzzzzzzz\":{}}]", "f.json:1:12: [0].zzzzzzzz: unknown key \"zzzzzzzz\"");
    bad("[{\"id\":\"a\",\"weird.key\":1}]", "f.json:1:12: [0][\"weird.key\"]: unknown key \"weird.key\"");
    bad("[{\"description\":\"x\"}]",
        "f.json:1:2: [0]: missing required key \"id\" (a unique case id, such as \"gs-get_weather-001\")");
    bad("[{\"id\":\"a\",\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"equals\"}]}}]",
        "f.json:1:36: [0].expect.toolParams[0]: missing required key \"value\" (the equals assertion compares against it)");
    bad("[{\"id\":\"a\",\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"oneOf\",\"value\":\"x\"}]}}]",
        "f.json:1:92: [0].expect.toolParams[0].value: expected an array (oneOf lists the allowed values), got string");
    bad("[{\"id\":\"a\",\"expect\":{\"minToolCalls\":3,\"maxToolCalls\":1}}]",
        "f.json:1:37: [0].expect.minToolCalls: minToolCalls (3) must not exceed maxToolCalls (1)");
    bad("[{\"id\":\"a\",\"expect\":{\"maxToolCalls\":1.5}}]", "f.json:1:37: [0].expect.maxToolCalls: expected a whole number, got 1.5");
    bad("[{\"id\":\"a\",\"expect\":{\"typeChecks\":{\"n\":\"number\"}}}]",
        "f.json:1:21: [0].expect: typeChecks needs schemaData (the object it checks)");
    bad("[{\"id\":\"a\",\"expect\":{\"schemaData\":{},\"typeChecks\":{\"n\":\"numbr\"}}}]",
        "f.json:1:56: [0].expect.typeChecks.n: \"numbr\" is not a JavaScript typeof name (string, number, boolean, object, undefined); did you mean \"number\"?");
    bad("[{\"id\":\"a\",\"expect\":{\"toolCallF1\":{\"expected\":[\"a\"],\"threshold\":2}}}]",
        "f.json:1:65: [0].expect.toolCallF1.threshold: must be between 0 and 1, got 2");
    bad("[{\"id\":\"a\",\"expect\":{\"toolsCalled\":\"{{seed:x}}\"}}]",
        "f.json:1:36: [0].expect.toolsCalled: templates ({{seed:...}}, {{snapshot:...}}) are allowed only in responseContains, "
        "responseContainsAny, responseNotContains and toolParams[].value");
    bad("[{\"id\":\"a\",\"label\":\"right\"}]", "f.json:1:20: [0].label: \"right\" is not one of correct, incorrect, partial");
    bad("[]x", "f.json:1:3: invalid JSON: unexpected text after the value");
    /* an unknown key is named before a known key's wrong value, wherever it stands */
    bad("[{\"id\":\"a\",\"expect\":{\"maxToolCalls\":\"x\",\"maxToolcalls\":1}}]",
        "f.json:1:41: [0].expect.maxToolcalls: unknown key \"maxToolcalls\" (did you mean \"maxToolCalls\"?)");
    bad("[{\"expect\":{\"maxToolCalls\":\"x\"},\"idd\":\"a\"}]",
        "f.json:1:33: [0].idd: unknown key \"idd\" (did you mean \"id\"?)");
    /* keys whose length and first and last bytes are alike are told apart */
    bad("[{\"id\":\"a\",\"expect\":{\"minLength\":1,\"maxLength\":\"2\"}}]",
        "f.json:1:48: [0].expect.maxLength: expected a number, got string");
    /* of duplicate keys, the first is checked (as scoring reads the first) */
    bad("[{\"id\":\"a\",\"expect\":{\"maxCost\":\"x\",\"maxCost\":1}}]",
        "f.json:1:32: [0].expect.maxCost: expected a number, got string");
}

TEST(valid_files_load)
{
    struct forge_err err = {0};
    const char *text = "[{\"id\":\"a\",\"input\":{\"message\":\"m\"},\"expect\":{\"toolsCalled\":\"x\",\"weights\":{\"toolsCalled\":2},"
                       "\"toolSequence\":{\"steps\":[\"x\",[\"y\",\"z\"]]},\"custom\":{\"j\":{\"threshold\":0.5}}}},"
                       "{\"id\":\"b\",\"expectedTool\":\"x\",\"checks\":[{\"type\":\"tool_called\"}],\"label\":\"partial\"}]";
    cJSON *cases = NULL;
    CHECK_INT(forge_evalfile_parse(text, strlen(text), "ok.json", &cases, &err), 0);
    CHECK_INT(cJSON_GetArraySize(cases), 2);
    cJSON_Delete(cases);
    const char *dup = "[{\"id\":\"a\",\"id\":3,\"expect\":{\"maxCost\":1,\"maxCost\":\"x\"}}]";
    CHECK_INT(forge_evalfile_parse(dup, strlen(dup), "ok.json", &cases, &err), 0);
    cJSON_Delete(cases);
    CHECK_INT(forge_evalfile_load(FORGE_TESTS_DIR "/../evals/get_weather.golden.json", &cases, &err), 0);
    CHECK_INT(cJSON_GetArraySize(cases), 4);
    cJSON_Delete(cases);
    CHECK_INT(forge_evalfile_load(FORGE_TESTS_DIR "/nope.json", &cases, &err), FORGE_EIO);
}

TEST(ids_that_collide)
{
    /* 32,768 ids made of the blocks "aB" and "b!", which a multiplicative string hash (djb2) maps
     * alike: all of them load, and one repeated at the end is named */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "[");
    char id[40];
    for (int i = 0; i < 32768; i++) {
        for (int k = 0; k < 15; k++)
            memcpy(id + 2 * k, i >> k & 1 ? "b!" : "aB", 2);
        id[30] = 0;
        forge_buf_addf(&b, "%s{\"id\":\"%s\",\"input\":{\"message\":\"m\"}}", i ? "," : "", id);
    }
    struct forge_err err = {0};
    cJSON *cases = NULL;
    forge_buf_adds(&b, "]");
    CHECK_INT(forge_evalfile_parse(b.data, b.len, "ids.json", &cases, &err), 0);
    CHECK_INT(cJSON_GetArraySize(cases), 32768);
    cJSON_Delete(cases);
    b.len--;
    forge_buf_addf(&b, ",{\"id\":\"%s\",\"input\":{\"message\":\"m\"}}]", id);
    CHECK_INT(forge_evalfile_parse(b.data, b.len, "ids.json", &cases, &err), FORGE_EINVAL);
    CHECK(strstr(err.msg, "[32768].id") != NULL);
    CHECK(strstr(err.msg, "duplicate case id") != NULL);
    forge_buf_free(&b);
}

TEST(trees_without_text)
{
    struct forge_err err = {0};
    cJSON *k = cJSON_Parse("{\"id\":\"a\",\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"exist\"}]}}");
    CHECK_INT(forge_evalfile_check_case(k, &err), FORGE_EINVAL);
    CHECK_STR(err.msg, "expect.toolParams[0].assertion: \"exist\" is not one of equals, contains, oneOf, exists, notExists, "
                       "matches (did you mean \"exists\"?)");
    cJSON_Delete(k);
    char out[64];
    static const char *const known[] = {"toolsCalled", "toolsAcceptable", NULL};
    CHECK_STR(forge_evalfile_suggest("toolscalled", known, out, sizeof out), "toolsCalled");
    CHECK_STR(forge_evalfile_suggest("banana", known, out, sizeof out), "");
}

int main(void)
{
    RUN(errors_name_position_and_path);
    RUN(valid_files_load);
    RUN(trees_without_text);
    RUN(ids_that_collide);
    return TEST_DONE();
}
