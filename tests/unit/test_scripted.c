/* Unit tests for the scripted model's C engine (forge_scripted_set_plan): which requests it
 * answers itself, exactly as the Lua engine would, and which it leaves to the rules' callable. */
#include "test.h"
#include "base/alloc.h"
#include "data/jcache.h"
#include "data/json.h"
#include "model/model.h"
#include "model/scripted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Lua engine's stand-in: counts its calls and answers "lua". */
static int lua_calls;

static int respond(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    (void)ctx;
    (void)args;
    (void)err;
    lua_calls++;
    *out = cJSON_Parse("{\"finish_reason\":\"stop\",\"message\":{\"content\":\"lua\",\"role\":\"assistant\"}}");
    return 0;
}

static struct forge_model *model(const char *plan)
{
    struct forge_err err = {0};
    struct forge_callable fn = {respond, NULL, "respond", true};
    struct forge_model *m = forge_scripted_new(fn, NULL, "rules", &err);
    CHECK(m != NULL);
    CHECK_INT(forge_scripted_set_plan(m, cJSON_Parse(plan), &err), 0);
    return m;
}

/* The answer's message to <req> (JSON text), as compact JSON; sets *lua to whether the
 * callable answered. */
static char *ask(struct forge_model *m, const char *req, int *lua)
{
    int before = lua_calls;
    cJSON *r = cJSON_Parse(req), *resp = NULL;
    struct forge_err err = {0};
    CHECK_INT(forge_model_complete(m, r, &resp, &err), 0);
    cJSON_Delete(r);
    *lua = lua_calls - before;
    cJSON *keep = cJSON_CreateObject();
    cJSON_AddItemToObject(keep, "finish_reason", cJSON_DetachItemFromObject(resp, "finish_reason"));
    cJSON_AddItemToObject(keep, "message", cJSON_DetachItemFromObject(resp, "message"));
    char *s = forge_json_print(keep, 0);
    cJSON_Delete(keep);
    cJSON_Delete(resp);
    return s;
}

#define ASK(m, req, want, want_lua) do { int lua_; char *got_ = ask(m, req, &lua_); \
    CHECK_STR(got_, want); CHECK_INT(lua_, want_lua); forge_free(got_); } while (0)

static const char WEATHER[] =
    "[{\"case\":[\"c1\"],\"match\":\"in (\\\\w+)\",\"steps\":["
    "{\"calls\":[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"$1\",\"n\":[1,{\"x\":\"{{round}}\"}]}}]},"
    "{\"reply\":\"$1: {{results.1.result.temp_c}} {{result.f}} {{result.big}} {{match.1}} {{nope}}\"},"
    "{\"lua\":true}]},"
    "{\"when\":true,\"case\":[\"w\"],\"steps\":[{\"reply\":\"x\"}]},"
    "{\"case\":[\"t\"],\"steps\":[{\"reply\":\"{{result}}\"}]},"
    "{\"case\":[\"z\"],\"steps\":[{\"reply\":\"zz\"}]},"
    "{\"case\":[\"none\"]},"
    "{\"case\":[\"l\"],\"lua\":true}]";

TEST(data_rules_in_c)
{
    struct forge_model *m = model(WEATHER);
    ASK(m, "{\"case_id\":\"c1\",\"messages\":[{\"role\":\"user\",\"content\":\"weather in Oslo\"}]}",
        "{\"finish_reason\":\"tool_calls\",\"message\":{\"content\":null,\"role\":\"assistant\",\"tool_calls\":"
        "[{\"arguments\":{\"city\":\"Oslo\",\"n\":[1,{\"x\":\"1\"}]},\"id\":\"call_1_1\",\"name\":\"get_weather\"}]}}", 0);
    const char *round2 =
        "{\"case_id\":\"c1\",\"messages\":[{\"role\":\"user\",\"content\":\"weather in Oslo\"},"
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1_1\",\"name\":\"get_weather\",\"arguments\":{}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"call_1_1\",\"name\":\"get_weather\",\"is_error\":false,"
        "\"content\":\"{\\\"temp_c\\\":14,\\\"f\\\":1.5,\\\"big\\\":1e20}\"}]}";
    ASK(m, round2, "{\"finish_reason\":\"stop\",\"message\":{\"content\":\"Oslo: 14 1.5 1e+20 Oslo \",\"role\":\"assistant\"}}", 0);
    /* a conversation's second user message: turn 2, round 1 again, ids with the turn */
    ASK(m, "{\"case_id\":\"c1\",\"messages\":[{\"role\":\"user\",\"content\":\"in A\"},"
           "{\"role\":\"assistant\",\"content\":\"ok\"},{\"role\":\"user\",\"content\":\"and in Bergen\"}]}",
        "{\"finish_reason\":\"tool_calls\",\"message\":{\"content\":null,\"role\":\"assistant\",\"tool_calls\":"
        "[{\"arguments\":{\"city\":\"Bergen\",\"n\":[1,{\"x\":\"1\"}]},\"id\":\"call_2_1_1\",\"name\":\"get_weather\"}]}}", 0);
    /* a rule without steps: an empty answer, still without Lua */
    ASK(m, "{\"case_id\":\"none\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        "{\"finish_reason\":\"stop\",\"message\":{\"content\":\"\",\"role\":\"assistant\"}}", 0);
    /* a rule whose case does not match is passed over, even one with `when` */
    ASK(m, "{\"case_id\":\"z\",\"messages\":[]}",
        "{\"finish_reason\":\"stop\",\"message\":{\"content\":\"zz\",\"role\":\"assistant\"}}", 0);
    forge_model_free(m);
}

TEST(lua_answers_what_c_does_not)
{
    struct forge_model *m = model(WEATHER);
    const char *lua = "{\"finish_reason\":\"stop\",\"message\":{\"content\":\"lua\",\"role\":\"assistant\"}}";
    /* a `when` function to call */
    ASK(m, "{\"case_id\":\"w\",\"messages\":[]}", lua, 1);
    /* {{result}} is a table: json.encode in Lua */
    ASK(m, "{\"case_id\":\"t\",\"messages\":[{\"role\":\"tool\",\"content\":\"{\\\"a\\\":1}\"}]}", lua, 1);
    /* ... but a scalar result is rendered here */
    ASK(m, "{\"case_id\":\"t\",\"messages\":[{\"role\":\"tool\",\"content\":\"7\"}]}",
        "{\"finish_reason\":\"stop\",\"message\":{\"content\":\"7\",\"role\":\"assistant\"}}", 0);
    /* a rule marked for Lua (reached by a case no rule before takes), a step marked for Lua
     * (round 3) */
    ASK(m, "{\"case_id\":\"l\",\"messages\":[]}", lua, 1);
    ASK(m, "{\"messages\":[]}", lua, 1);
    ASK(m, "{\"case_id\":\"c1\",\"messages\":[{\"role\":\"user\",\"content\":\"in A\"},{\"role\":\"assistant\"},"
           "{\"role\":\"assistant\"}]}", lua, 1);
    /* a request the Lua engine would read differently or raise on: a user message that is not a
     * string, a call without an id */
    ASK(m, "{\"case_id\":\"z\",\"messages\":[{\"role\":\"user\",\"content\":[1]}]}", lua, 1);
    ASK(m, "{\"case_id\":\"z\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"name\":\"x\"}]}]}", lua, 1);
    forge_model_free(m);
}

/* The strings of one answer may render to MAX_TEXT (1 MiB) in all; past that Lua answers. */
TEST(rendering_is_capped_per_answer)
{
    size_t n = 400000;
    char *req = forge_malloc(n + 100);
    CHECK(req != NULL);
    int at = snprintf(req, 100, "{\"messages\":[{\"role\":\"user\",\"content\":\"");
    memset(req + at, 'a', n);
    strcpy(req + at + n, "\"}]}");
    struct forge_model *two = model("[{\"match\":\"(a+)\",\"steps\":[{\"calls\":[{\"name\":\"t\","
                                    "\"arguments\":{\"x\":\"$1\",\"y\":\"$1\"}}]}]}]");
    struct forge_model *three = model("[{\"match\":\"(a+)\",\"steps\":[{\"calls\":[{\"name\":\"t\","
                                      "\"arguments\":{\"x\":\"$1\",\"y\":\"$1\",\"z\":\"$1\"}}]}]}]");
    int lua;
    char *got = ask(two, req, &lua);
    CHECK_INT(lua, 0);
    CHECK(strlen(got) > 2 * n);
    forge_free(got);
    ASK(three, req, "{\"finish_reason\":\"stop\",\"message\":{\"content\":\"lua\",\"role\":\"assistant\"}}", 1);
    forge_model_free(two);
    forge_model_free(three);
    forge_free(req);
}

TEST(jcache_reuses_blocks)
{
    void *p = forge_jcache_malloc(40);
    CHECK(p != NULL);
    forge_jcache_free(p);
    void *q = forge_jcache_malloc(40);
#ifndef FORGE_SANITIZE
    CHECK(q == p); /* the freed block came back */
#endif
    forge_jcache_free(q);
    forge_jcache_free(NULL);
    void *big = forge_jcache_malloc(4096); /* beyond the classes: malloc and free */
    CHECK(big != NULL);
    forge_jcache_free(big);
}

int main(void)
{
    RUN(data_rules_in_c);
    RUN(lua_answers_what_c_does_not);
    RUN(rendering_is_capped_per_answer);
    RUN(jcache_reuses_blocks);
    return TEST_DONE();
}
