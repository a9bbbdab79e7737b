/* Tool definitions: every input format to the same name -> ToolSchema map. */
#include "test.h"
#include "base/alloc.h"
#include "data/json.h"
#include "score/tooldefs.h"

static void check_defs(const char *json, const char *want)
{
    struct forge_err err = {0};
    cJSON *doc = forge_json_parse(json, strlen(json), "<test>", &err);
    cJSON *d = doc ? forge_tooldefs_import(doc, &err) : NULL;
    char *got = d ? forge_json_print(d, 0) : NULL;
    CHECK_STR(got ? got : err.msg, want);
    forge_free(got);
    cJSON_Delete(d);
    cJSON_Delete(doc);
}

#define P "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}"
#define WANT "{\"get_weather\":{\"name\":\"get_weather\",\"description\":\"Weather.\",\"parameters\":" P "}}"

TEST(formats)
{
    /* forge */
    check_defs("{\"name\":\"get_weather\",\"description\":\"Weather.\",\"schema\":" P "}", WANT);
    /* OpenAI chat completions tools */
    check_defs("[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather.\",\"parameters\":" P "}}]", WANT);
    /* OpenAI responses tools (flat) */
    check_defs("[{\"type\":\"function\",\"name\":\"get_weather\",\"description\":\"Weather.\",\"parameters\":" P "}]", WANT);
    /* Anthropic */
    check_defs("[{\"name\":\"get_weather\",\"description\":\"Weather.\",\"input_schema\":" P "}]", WANT);
    /* MCP tools/list result, bare and as a JSON-RPC response */
    check_defs("{\"tools\":[{\"name\":\"get_weather\",\"description\":\"Weather.\",\"inputSchema\":" P "}]}", WANT);
    check_defs("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"get_weather\",\"description\":\"Weather.\",\"inputSchema\":" P "}]}}", WANT);
    /* agent-eval-harness ToolSchema list and Record */
    check_defs("[{\"name\":\"old\",\"parameters\":{\"type\":\"object\",\"properties\":{}},\"deprecated\":true,\"replacedBy\":\"new\"}]",
               "{\"old\":{\"name\":\"old\",\"parameters\":{\"type\":\"object\",\"properties\":{}},\"deprecated\":true,\"replacedBy\":\"new\"}}");
    check_defs("{\"a\":{\"parameters\":{\"type\":\"object\",\"properties\":{}}},\"b\":{\"name\":\"b\"}}",
               "{\"a\":{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{}}},"
               "\"b\":{\"name\":\"b\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}");
}

TEST(errors)
{
    check_defs("[{\"name\":\"a\"},{\"name\":\"a\"}]", "tools[1]: tool 'a' is defined twice");
    check_defs("[{\"description\":\"x\"}]", "tools[0]: a tool needs a \"name\"");
    check_defs("[3]", "tools[0]: a tool definition must be an object");
    check_defs("[{\"name\":\"a\",\"parameters\":[]}]", "tools[0]: the parameters of tool 'a' must be a JSON Schema object");
    check_defs("7", "tool definitions must be an object or an array of objects");
}

int main(void)
{
    RUN(formats);
    RUN(errors);
    return TEST_DONE();
}
