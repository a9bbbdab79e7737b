/* Unit tests for the agent loop, tool executors, policy limits, approval and verifiers, with a
 * model that plays back canned responses and C callables standing in for Lua functions. */
#include "test.h"
#include "agent/loop.h"
#include "base/alloc.h"
#include "data/json.h"
#include "model/model.h"
#include "tools/policy.h"
#include "tools/tool.h"
#include "tools/verify.h"

#include <stdlib.h>
#include <string.h>

/* ---- a model that answers from a list ---- */

struct fake {
    struct forge_model base;
    const char *const *answers; /* JSON messages; the last one repeats */
    int n, next;
    cJSON *requests;            /* every request received */
};

static int fake_complete(struct forge_model *m, const cJSON *req, cJSON **resp, struct forge_err *err)
{
    struct fake *f = (struct fake *)m;
    cJSON_AddItemToArray(f->requests, cJSON_Duplicate(req, 1));
    const char *a = f->answers[f->next < f->n ? f->next : f->n - 1];
    f->next++;
    cJSON *msg = cJSON_Parse(a);
    if (!msg)
        return forge_err_set(err, FORGE_EINVAL, "bad canned answer");
    *resp = cJSON_CreateObject();
    cJSON_AddItemToObject(*resp, "message", msg);
    cJSON *u = cJSON_AddObjectToObject(*resp, "usage");
    cJSON_AddNumberToObject(u, "input_tokens", 10);
    cJSON_AddNumberToObject(u, "output_tokens", 5);
    cJSON_AddNumberToObject(*resp, "cost_usd", 0.001);
    cJSON_AddStringToObject(*resp, "finish_reason", "stop");
    return 0;
}

static void fake_free(struct forge_model *m)
{
    (void)m;
}

static const struct forge_model_ops fake_ops = {fake_complete, fake_free};

static void fake_init(struct fake *f, const char *const *answers, int n)
{
    memset(f, 0, sizeof *f);
    f->base.ops = &fake_ops;
    f->base.provider = "fake";
    f->base.name = "fake-1";
    f->answers = answers;
    f->n = n;
    f->requests = cJSON_CreateArray();
}

/* ---- helpers ---- */

static cJSON *J(const char *s)
{
    cJSON *v = cJSON_Parse(s);
    if (!v)
        fprintf(stderr, "bad JSON in test: %s\n", s);
    return v;
}

static struct forge_tool *tool(const char *json)
{
    struct forge_err err = {0};
    cJSON *d = J(json);
    struct forge_tool *t = forge_tool_from_json(d, "test", &err);
    if (!t)
        fprintf(stderr, "tool: %s\n", err.msg);
    cJSON_Delete(d);
    return t;
}

static const cJSON *calls_of(const cJSON *traj)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(traj, "turns"), 1),
                                            "tool_calls");
}

static const char *field(const cJSON *traj, int call, const char *key)
{
    const cJSON *c = cJSON_GetArrayItem(calls_of(traj), call);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *compact(const cJSON *v)
{
    return forge_json_print(v, FORGE_JSON_SORTED);
}

static cJSON *run_case(struct fake *f, struct forge_toolset *tools, struct forge_verifiers *ver,
                       struct forge_policy *pol, const char *kase)
{
    struct forge_agent a = {.model = &f->base, .tools = tools, .verifiers = ver, .policy = pol};
    cJSON *k = J(kase);
    cJSON *traj = NULL;
    struct forge_err err = {0};
    int rc = forge_agent_run(&a, k, &traj, &err);
    if (rc)
        fprintf(stderr, "agent: %s\n", err.msg);
    cJSON_Delete(k);
    return traj;
}

#define CALL(name, args) "{\"id\":\"c" name "\",\"name\":\"" name "\",\"arguments\":" args "}"
#define CALLS(list) "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[" list "]}"
#define FINAL(text) "{\"role\":\"assistant\",\"content\":\"" text "\"}"

TEST(undecodable_arguments_from_a_provider)
{
    static const char *const answers[] = {
        CALLS("{\"id\":\"x\",\"name\":\"a\",\"arguments\":{},\"arguments_text\":\"{city:\",\"arguments_error\":\"not JSON: unexpected end\"}"),
        FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    struct forge_err err = {0};
    cJSON *d = cJSON_Parse("{\"name\":\"a\",\"mock\":1}");
    forge_toolset_add(&tools, forge_tool_from_json(d, "t", &err), &err);
    cJSON_Delete(d);
    struct forge_agent a = {.model = &f.base, .tools = &tools};
    cJSON *k = cJSON_Parse("{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    cJSON *t = NULL;
    CHECK_INT(forge_agent_run(&a, k, &t, &err), 0);
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "turns"), 1), "tool_calls"), 0);
    CHECK_STR(forge_json_str(c, "error"), "invalid arguments for tool 'a': not JSON: unexpected end");
    CHECK_STR(forge_json_str(c, "arguments_text"), "{city:");
    CHECK_STR(forge_json_str(c, "policy"), "invalid_arguments");
    cJSON_Delete(k);
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

static const char weather_def[] =
    "{\"name\":\"get_weather\",\"description\":\"Current weather.\",\"category\":\"read\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
    "\"days\":{\"type\":\"integer\"}},\"required\":[\"city\"],\"additionalProperties\":false},"
    "\"responses\":[{\"when\":{\"city\":\"Paris\"},\"result\":{\"temp_c\":18}},"
    "{\"when\":{\"city\":\"Oslo\",\"days\":1},\"result\":{\"temp_c\":3}},"
    "{\"when\":{\"city\":\"Rome\"},\"error\":\"service down\"}],"
    "\"fallback\":{\"temp_c\":20}}";

/* ---- tests ---- */

TEST(a_call_then_a_final_answer_makes_the_trajectory)
{
    static const char *const answers[] = {CALLS(CALL("get_weather", "{\"city\":\"Paris\"}")),
                                          FINAL("It is 18C in Paris.")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool(weather_def), NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL,
                        "{\"id\":\"c1\",\"input\":{\"message\":\"Weather in Paris?\"}}");
    CHECK(t != NULL);
    CHECK_STR(forge_json_str(t, "trajectory_id"), "c1");
    const cJSON *turns = cJSON_GetObjectItemCaseSensitive(t, "turns");
    CHECK_INT(cJSON_GetArraySize(turns), 2);
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(turns, 0), "content"), "Weather in Paris?");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(turns, 1), "role"), "agent");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(turns, 1), "content"), "It is 18C in Paris.");
    const cJSON *c = cJSON_GetArrayItem(calls_of(t), 0);
    char *s = compact(cJSON_GetObjectItemCaseSensitive(c, "result"));
    CHECK_STR(s, "{\"temp_c\":18}");
    forge_free(s);
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "error")));
    CHECK_INT(forge_json_num(c, "round", 0), 1);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(t, "metadata");
    CHECK_STR(forge_json_str(md, "stop_reason"), "final");
    CHECK_INT(forge_json_num(md, "rounds", 0), 2);
    CHECK_INT(forge_json_num(md, "input_tokens", 0), 20);
    CHECK(forge_json_num(md, "cost_usd", 0) == 0.002);
    CHECK_STR(forge_json_str(md, "provider"), "fake");
    /* the second request carried the call and its result */
    const cJSON *req2 = cJSON_GetArrayItem(f.requests, 1);
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(req2, "messages");
    CHECK_INT(cJSON_GetArraySize(msgs), 3);
    const cJSON *tm = cJSON_GetArrayItem(msgs, 2);
    CHECK_STR(forge_json_str(tm, "role"), "tool");
    CHECK_STR(forge_json_str(tm, "tool_call_id"), "cget_weather");
    CHECK_STR(forge_json_str(tm, "content"), "{\"temp_c\":18}");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(tm, "is_error")));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(req2, "tools")), 1);
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

TEST(canned_responses_match_by_subset_with_numbers_by_value)
{
    static const char *const answers[] = {
        CALLS(CALL("get_weather", "{\"city\":\"Oslo\",\"days\":1.0}") ","
              "{\"id\":\"x2\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Lima\"}}" ","
              "{\"id\":\"x3\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Rome\"}}"),
        FINAL("done")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool(weather_def), NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    char *s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 0), "result"));
    CHECK_STR(s, "{\"temp_c\":3}");
    forge_free(s);
    s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 1), "result"));
    CHECK_STR(s, "{\"temp_c\":20}"); /* fallback */
    forge_free(s);
    CHECK_STR(field(t, 2, "error"), "service down");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

TEST(stubs_answer_first_and_missing_stubs_are_errors)
{
    static const char *const answers[] = {
        CALLS(CALL("get_weather", "{\"city\":\"Paris\"}") "," CALL("lookup", "{}")), FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool(weather_def), NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL,
                        "{\"id\":\"c\",\"input\":{\"message\":\"m\"},"
                        "\"stubs\":{\"get_weather\":{\"temp_c\":-5}}}");
    char *s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 0), "result"));
    CHECK_STR(s, "{\"temp_c\":-5}");
    forge_free(s);
    CHECK_STR(field(t, 1, "error"), "no stub for \"lookup\"");
    CHECK_STR(field(t, 1, "policy"), "unknown_tool");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

TEST(invalid_arguments_get_an_error_result_and_coercion_is_recorded)
{
    static const char *const answers[] = {
        CALLS(CALL("get_weather", "{\"city\":\"Paris\",\"wind\":true}")),
        CALLS(CALL("strict", "{\"n\":\"5\"}")), FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 3);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool(weather_def), NULL);
    forge_toolset_add(&tools, tool("{\"name\":\"strict\",\"coerce\":true,\"mock\":{\"ok\":true},"
                                   "\"parameters\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}}"),
                      NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    const char *e = field(t, 0, "error");
    CHECK(e && strncmp(e, "invalid arguments for tool 'get_weather': ", 42) == 0);
    CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 0), "validation")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 1), "error")));
    char *s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 1), "arguments"));
    CHECK_STR(s, "{\"n\":5}");
    forge_free(s);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 1), "coercions")), 1);
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

TEST(policy_limits)
{
    static const char *const answers[] = {
        CALLS(CALL("a", "{}") "," "{\"id\":\"2\",\"name\":\"a\",\"arguments\":{\"i\":2}}" ","
              "{\"id\":\"3\",\"name\":\"a\",\"arguments\":{\"i\":3}}" "," CALL("blocked", "{}")),
        CALLS("{\"id\":\"4\",\"name\":\"a\",\"arguments\":{\"i\":4}}" ","
              "{\"id\":\"5\",\"name\":\"a\",\"arguments\":{\"i\":5}}"),
        FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 3);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"a\",\"mock\":1}"), NULL);
    forge_toolset_add(&tools, tool("{\"name\":\"blocked\",\"mock\":1}"), NULL);
    struct forge_policy p;
    forge_policy_init(&p);
    cJSON *pj = J("{\"max_tool_calls_per_turn\":2,\"max_total_tool_calls\":4,\"blocklist\":[\"zz\",\"blocked\",\"b\",\"a0\"]}");
    struct forge_err err = {0};
    CHECK_INT(forge_policy_apply(&p, pj, "test", &err), 0);
    cJSON_Delete(pj);
    cJSON *t = run_case(&f, &tools, NULL, &p, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    CHECK(field(t, 0, "error") == NULL);
    CHECK(field(t, 1, "error") == NULL);
    CHECK_STR(field(t, 2, "error"), "call not executed: more than max_tool_calls_per_turn (2) calls in one response");
    CHECK_STR(field(t, 2, "policy"), "max_tool_calls_per_turn");
    CHECK_STR(field(t, 3, "policy"), "blocklist");
    CHECK_STR(field(t, 3, "error"), "Tool blocked is blocked by policy");
    /* rejected calls count as called: the 5th call of the case is over the total of 4 */
    CHECK_STR(field(t, 4, "policy"), "max_total_tool_calls");
    CHECK_STR(field(t, 4, "error"), "call not executed: more than max_total_tool_calls (4) calls in this case");
    CHECK_STR(field(t, 5, "policy"), "max_total_tool_calls");
    /* the blocklisted tool is not offered to the model */
    const cJSON *offered = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(f.requests, 0), "tools");
    CHECK_INT(cJSON_GetArraySize(offered), 1);
    /* the list is searched by bisection: every name it holds is blocked, none other */
    const char *in[] = {"zz", "blocked", "b", "a0"}, *out[] = {"a", "c", "blockedx", "", "zzz"};
    for (int i = 0; i < 4; i++)
        CHECK(forge_policy_blocked(&p, in[i]));
    for (int i = 0; i < 5; i++)
        CHECK(!forge_policy_blocked(&p, out[i]));
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_policy_free(&p);
    forge_toolset_free(&tools);
}

TEST(identical_calls_and_max_rounds_end_the_case)
{
    static const char *const loop[] = {CALLS(CALL("a", "{\"x\":1}"))};
    struct fake f;
    fake_init(&f, loop, 1);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"a\",\"mock\":{}}"), NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(t, "metadata");
    CHECK_STR(forge_json_str(md, "stop_reason"), "identical_calls");
    CHECK_INT(cJSON_GetArraySize(calls_of(t)), 5);
    CHECK(field(t, 2, "error") == NULL);
    CHECK_STR(field(t, 3, "error"), "Repeated call ignored: a was called 4 times with the same arguments (max_identical_calls 3)");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);

    /* the same arguments in another order are the same call; another tool's are not */
    static const char *const mixed[] = {CALLS(CALL("a", "{\"x\":1,\"y\":2}") "," CALL("b", "{\"x\":1,\"y\":2}") ","
                                              CALL("a", "{\"y\":2,\"x\":1}"))};
    fake_init(&f, mixed, 1);
    t = run_case(&f, &tools, NULL, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    md = cJSON_GetObjectItemCaseSensitive(t, "metadata");
    CHECK_STR(forge_json_str(md, "stop_reason"), "identical_calls");
    CHECK(field(t, 3, "error") == NULL); /* a for the third time: allowed */
    CHECK_STR(field(t, 5, "error"), "Repeated call ignored: a was called 4 times with the same arguments (max_identical_calls 3)");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);

    struct forge_policy p;
    forge_policy_init(&p);
    p.max_identical = -1;
    fake_init(&f, loop, 1);
    t = run_case(&f, &tools, NULL, &p, "{\"id\":\"c\",\"maxTurns\":4,\"input\":{\"message\":\"m\"}}");
    md = cJSON_GetObjectItemCaseSensitive(t, "metadata");
    CHECK_STR(forge_json_str(md, "stop_reason"), "max_rounds");
    CHECK_INT(forge_json_num(md, "rounds", 0), 4);
    CHECK_INT(cJSON_GetArraySize(f.requests), 4);
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_policy_free(&p);
    forge_toolset_free(&tools);
}

TEST(tool_choice_goes_to_the_first_request_only)
{
    static const char *const answers[] = {CALLS(CALL("a", "{}")), FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"a\",\"mock\":{}}"), NULL);
    struct forge_policy p;
    forge_policy_init(&p);
    cJSON *pj = J("{\"tool_choice\":\"none\"}");
    forge_policy_apply(&p, pj, "t", NULL);
    cJSON_Delete(pj);
    cJSON *t = run_case(&f, &tools, NULL, &p, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(f.requests, 0), "tool_choice"), "none");
    CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(f.requests, 1), "tool_choice") == NULL);
    CHECK_STR(field(t, 0, "error"), "tool 'a' was called although tool_choice is \"none\"");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_policy_free(&p);
    forge_toolset_free(&tools);
}

static int approve_fn(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    (void)ctx;
    (void)err;
    const char *name = forge_json_str(cJSON_GetArrayItem(args, 0), "name");
    *out = J(strcmp(name, "delete_file") ? "true" : "[false, \"never delete\"]");
    return 0;
}

TEST(approval_levels_and_answers)
{
    static const char *const answers[] = {CALLS(CALL("read_file", "{}") "," CALL("delete_file", "{}")),
                                          FINAL("ok")};
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"read_file\",\"category\":\"read\",\"mock\":1}"), NULL);
    forge_toolset_add(&tools, tool("{\"name\":\"delete_file\",\"category\":\"delete\","
                                   "\"requiresConfirmation\":true,\"mock\":1}"), NULL);
    struct forge_policy p;
    struct fake f;
    /* cautious + deny: only the tool that requires confirmation is asked about */
    forge_policy_init(&p);
    p.deny = true;
    fake_init(&f, answers, 2);
    cJSON *t = run_case(&f, &tools, NULL, &p, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 0), "approval") == NULL);
    CHECK_STR(field(t, 1, "error"), "call to delete_file denied by the approval policy");
    char *s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 1), "approval"));
    CHECK_STR(s, "{\"by\":\"policy\",\"decision\":\"denied\",\"level\":\"cautious\"}");
    forge_free(s);
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    /* paranoid + a function */
    p.level = FORGE_APPROVE_PARANOID;
    p.approve.call = approve_fn;
    fake_init(&f, answers, 2);
    t = run_case(&f, &tools, NULL, &p, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    CHECK(field(t, 0, "error") == NULL);
    s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 0), "approval"));
    CHECK_STR(s, "{\"by\":\"function\",\"decision\":\"approved\",\"level\":\"paranoid\"}");
    forge_free(s);
    CHECK_STR(field(t, 1, "error"), "call to delete_file denied by the approval policy: never delete");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    /* standard: write/delete categories */
    p.level = FORGE_APPROVE_STANDARD;
    CHECK(!forge_policy_needs_approval(&p, tools.v[0]));
    CHECK(forge_policy_needs_approval(&p, tools.v[1]));
    p.level = FORGE_APPROVE_AUTONOMOUS;
    CHECK(!forge_policy_needs_approval(&p, tools.v[1]));
    p.approve.call = NULL;
    forge_policy_free(&p);
    forge_toolset_free(&tools);
}

static int verdict_fn(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    const char *what = ctx;
    (void)args;
    if (!strcmp(what, "raise"))
        return forge_err_set(err, FORGE_ELUA, "v.lua:3: boom");
    *out = J(what);
    return 0;
}

static struct forge_verifier *fnv(const char *def, const char *verdict)
{
    cJSON *d = J(def);
    struct forge_verifier *v = forge_verifier_from_json(d, "t", NULL);
    cJSON_Delete(d);
    struct forge_callable fn = {verdict_fn, (void *)verdict, "v", false};
    forge_verifier_set_function(v, fn, NULL);
    return v;
}

TEST(verifiers_order_short_circuit_and_worst_outcome)
{
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"w\",\"category\":\"write\",\"mock\":{\"ok\":1}}"), NULL);
    forge_toolset_add(&tools, tool("{\"name\":\"r\",\"category\":\"read\",\"mock\":{\"ok\":1}}"), NULL);
    struct forge_verifiers vs = {0};
    forge_verifiers_add(&vs, fnv("{\"name\":\"late\",\"tools\":\"*\",\"order\":\"U-0001\"}", "\"pass\""), NULL);
    forge_verifiers_add(&vs, fnv("{\"name\":\"warns\",\"tools\":[\"r\"],\"order\":\"C-0001\"}",
                                 "[\"warn\", \"careful\"]"), NULL);
    forge_verifiers_add(&vs, fnv("{\"name\":\"early\",\"tools\":[\"r\"],\"order\":\"A-0001\"}", "\"pass\""), NULL);
    forge_verifiers_add(&vs, fnv("{\"name\":\"crash\",\"tools\":[\"w\"],\"order\":\"I-0001\"}", "raise"), NULL);
    cJSON *call = J("{\"id\":\"1\",\"name\":\"r\",\"arguments\":{},\"result\":{\"ok\":1}}");
    cJSON *v = NULL;
    CHECK_INT(forge_verifiers_run(&vs, tools.v[1], call, &v), 0);
    CHECK_STR(forge_json_str(v, "outcome"), "warn");
    CHECK_STR(forge_json_str(v, "verifier"), "warns");
    CHECK_STR(forge_json_str(v, "message"), "careful");
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(v, "checks");
    CHECK_INT(cJSON_GetArraySize(checks), 3);
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(checks, 0), "verifier"), "early");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(checks, 1), "verifier"), "warns");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(checks, 2), "verifier"), "late");
    cJSON_Delete(v);
    cJSON_Delete(call);
    /* a verifier that raises blocks a write tool, and the block stops the run */
    call = J("{\"id\":\"1\",\"name\":\"w\",\"arguments\":{},\"result\":{\"ok\":1}}");
    CHECK_INT(forge_verifiers_run(&vs, tools.v[0], call, &v), 0);
    CHECK_STR(forge_json_str(v, "outcome"), "block");
    CHECK_STR(forge_json_str(v, "message"), "verifier 'crash' failed: v.lua:3: boom");
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v, "checks")), 1);
    cJSON_Delete(v);
    cJSON_Delete(call);
    /* ... and only warns for a read tool */
    forge_verifiers_add(&vs, fnv("{\"name\":\"crash2\",\"tools\":[\"r\"],\"order\":\"B-0001\"}", "raise"), NULL);
    forge_verifiers_add(&vs, fnv("{\"name\":\"odd\",\"tools\":[\"r\"],\"order\":\"B-0002\"}", "\"maybe\""), NULL);
    call = J("{\"id\":\"1\",\"name\":\"r\",\"arguments\":{},\"result\":{\"ok\":1}}");
    CHECK_INT(forge_verifiers_run(&vs, tools.v[1], call, &v), 0);
    CHECK_STR(forge_json_str(v, "outcome"), "warn");
    CHECK_STR(forge_json_str(v, "verifier"), "crash2");
    checks = cJSON_GetObjectItemCaseSensitive(v, "checks");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(checks, 2), "message"),
              "verifier 'odd' returned \"maybe\", not \"pass\", \"warn\" or \"block\"");
    cJSON_Delete(v);
    cJSON_Delete(call);
    forge_verifiers_free(&vs);
    forge_toolset_free(&tools);
}

TEST(verifiers_that_apply_as_the_definition_reads)
{
    /* random sets (tools lists of a, b and "*", with repeats; orders that tie): the verifiers run
     * for a call are those bound to its name, then the "*" ones not already in, each in
     * registration order, stably sorted by order, as a scan of every verifier gives them */
    static const char *const names[] = {"a", "b", "*"}, *const orders[] = {"A", "C", "C", "U"};
    static const char *const calls[] = {"a", "b", "c", "*"};
    unsigned seed;
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"a\",\"mock\":{\"ok\":1}}"), NULL);
    int checked = 0;
    for (int round = 0; round < 200; round++) {
        struct forge_verifiers vs = {0};
        seed = (unsigned)test_rand();
        int nv = 1 + (int)((seed >> 8) % 24);
        char vtools[24][4][4];
        int vnt[24];
        const char *vorder[24];
        for (int i = 0; i < nv; i++) {
            char def[256];
            seed = (unsigned)test_rand();
            vnt[i] = 1 + (int)((seed >> 8) % 3);
            vorder[i] = orders[(seed >> 12) % 4];
            int n = snprintf(def, sizeof def, "{\"name\":\"v%d\",\"order\":\"%s\",\"tools\":[", i, vorder[i]);
            for (int k = 0; k < vnt[i]; k++) {
                seed = (unsigned)test_rand();
                snprintf(vtools[i][k], 4, "%s", names[(seed >> 8) % 3]);
                n += snprintf(def + n, sizeof def - (size_t)n, "%s\"%s\"", k ? "," : "", vtools[i][k]);
            }
            snprintf(def + n, sizeof def - (size_t)n, "]}");
            CHECK_INT(forge_verifiers_add(&vs, fnv(def, "\"pass\""), NULL), 0);
        }
        for (int c = 0; c < 4; c++) {
            /* the reference: two passes over every verifier, then a stable insertion sort */
            int want[48], nw = 0;
            for (int pass = 0; pass < 2; pass++)
                for (int i = 0; i < nv; i++) {
                    bool bound = false, dup = false;
                    for (int k = 0; k < vnt[i]; k++)
                        bound |= !strcmp(vtools[i][k], pass ? "*" : calls[c]);
                    for (int j = 0; j < nw; j++)
                        dup |= want[j] == i;
                    if (bound && !dup)
                        want[nw++] = i;
                }
            for (int i = 1; i < nw; i++)
                for (int j = i; j > 0 && strcmp(vorder[want[j - 1]], vorder[want[j]]) > 0; j--) {
                    int t = want[j];
                    want[j] = want[j - 1];
                    want[j - 1] = t;
                }
            char text[128];
            snprintf(text, sizeof text, "{\"id\":\"1\",\"name\":\"%s\",\"arguments\":{},\"result\":{}}", calls[c]);
            cJSON *call = J(text), *v = NULL;
            CHECK_INT(forge_verifiers_run(&vs, tools.v[0], call, &v), 0);
            const cJSON *checks = cJSON_GetObjectItemCaseSensitive(v, "checks");
            CHECK_INT(cJSON_GetArraySize(checks), nw);
            for (int j = 0; j < nw && j < cJSON_GetArraySize(checks); j++) {
                char vn[16];
                snprintf(vn, sizeof vn, "v%d", want[j]);
                CHECK_STR(forge_json_str(cJSON_GetArrayItem(checks, j), "verifier"), vn);
                checked++;
            }
            cJSON_Delete(v);
            cJSON_Delete(call);
        }
        forge_verifiers_free(&vs);
    }
    forge_toolset_free(&tools);
    CHECK(checked > 2000);
}

TEST(verifiers_out_of_memory)
{
    /* more verifiers than the run keeps on its stack (16), and every allocation of a run failing
     * in turn: each failure is FORGE_ENOMEM with no verdict, never a verdict that lost its
     * outcome, and the last one blocks */
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"w\",\"category\":\"write\",\"mock\":{\"ok\":1}}"), NULL);
    struct forge_verifiers vs = {0};
    for (int i = 0; i < 20; i++) {
        char def[128];
        snprintf(def, sizeof def, "{\"name\":\"v%02d\",\"tools\":\"*\",\"order\":\"A-%04d\"}", i, i);
        forge_verifiers_add(&vs, fnv(def, i == 19 ? "\"block\"" : "\"pass\""), NULL);
    }
    cJSON *call = J("{\"id\":\"1\",\"name\":\"w\",\"arguments\":{},\"result\":{\"ok\":1}}");
    cJSON_Hooks hooks = {forge_malloc, forge_free};
    cJSON_InitHooks(&hooks);
    int ok = 0, failed = 0;
    for (long n = 1; n < 5000; n++) {
        cJSON *v = (cJSON *)1;
        forge_alloc_fail_at(n);
        int rc = forge_verifiers_run(&vs, tools.v[0], call, &v);
        long used = forge_alloc_fail_at(0);
        CHECK(rc == 0 || rc == FORGE_ENOMEM);
        if (rc) {
            CHECK(v == NULL);
            failed++;
        } else {
            CHECK_STR(forge_json_str(v, "outcome"), "block");
            ok++;
        }
        cJSON_Delete(v);
        if (used < n)
            break;
    }
    cJSON_InitHooks(NULL);
    CHECK(failed >= 1);
    CHECK(ok >= 1);
    cJSON *v = NULL;
    CHECK_INT(forge_verifiers_run(&vs, tools.v[0], call, &v), 0);
    CHECK_STR(forge_json_str(v, "verifier"), "v19");
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v, "checks")), 20);
    cJSON_Delete(v);
    cJSON_Delete(call);
    forge_verifiers_free(&vs);
    forge_toolset_free(&tools);
}

TEST(data_verifiers_and_a_blocked_result)
{
    static const char *const answers[] = {CALLS(CALL("r", "{}")), FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"r\",\"mock\":{\"temp\":99,\"note\":\"SECRET\"}}"), NULL);
    struct forge_verifiers vs = {0};
    struct forge_err err = {0};
    cJSON *d = J("{\"name\":\"shape\",\"tools\":[\"r\"],\"order\":\"I-0001\",\"schema\":"
                 "{\"type\":\"object\",\"properties\":{\"temp\":{\"maximum\":60}}}}");
    CHECK_INT(forge_verifiers_add(&vs, forge_verifier_from_json(d, "t", &err), &err), 0);
    cJSON_Delete(d);
    d = J("{\"name\":\"nosecret\",\"order\":\"C-0001\",\"pattern\":{\"reject\":\"SECRET\"}}");
    CHECK_INT(forge_verifiers_add(&vs, forge_verifier_from_json(d, "t", &err), &err), 0);
    cJSON_Delete(d);
    cJSON *t = run_case(&f, &tools, &vs, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    const cJSON *c = cJSON_GetArrayItem(calls_of(t), 0);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "verifier");
    CHECK_STR(forge_json_str(v, "outcome"), "block");
    CHECK_STR(forge_json_str(v, "verifier"), "shape");
    CHECK_STR(field(t, 0, "error"),
              "result blocked by verifier shape: result does not match the verifier's schema: "
              "99 is greater than the maximum 60 at /temp");
    /* pattern ran first (C < I) and warned */
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(v, "checks"), 0), "outcome"), "warn");
    /* the model saw the block as an error result */
    const cJSON *tm = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(f.requests, 1), "messages"), 2);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tm, "is_error")));
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_verifiers_free(&vs);
    forge_toolset_free(&tools);
}

TEST(templates_render_the_call)
{
    cJSON *scope = J("{\"tool\":\"t\",\"index\":2,\"args\":{\"city\":\"Pa\\\"ris\",\"n\":[1,2]}}");
    const char *tmpl = "{\"city\":\"{{args.city}}\",\"n\":{{ args.n }},\"i\":{{index}},\"x\":\"{{args.none}}\"}";
    const char *want = "{\"city\":\"Pa\\\"ris\",\"n\":[1,2],\"i\":2,\"x\":\"\"}";
    char *s = NULL;
    CHECK_INT(forge_tool_render(tmpl, scope, 0, &s), 0);
    CHECK_STR(s, want);
    forge_free(s);
    /* the text is bounded: its exact length passes, one byte less does not */
    CHECK_INT(forge_tool_render(tmpl, scope, strlen(want), &s), 0);
    CHECK_STR(s, want);
    forge_free(s);
    CHECK_INT(forge_tool_render(tmpl, scope, strlen(want) - 1, &s), FORGE_ELIMIT);
    CHECK(s == NULL);
    cJSON_Delete(scope);
    static const char *const answers[] = {CALLS(CALL("t", "{\"city\":\"Oslo\"}") "," CALL("u", "{}")), FINAL("ok")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    forge_toolset_add(&tools, tool("{\"name\":\"t\",\"template\":\"{\\\"where\\\":\\\"{{args.city}}\\\",\\\"tool\\\":\\\"{{tool}}\\\"}\"}"), NULL);
    forge_toolset_add(&tools, tool("{\"name\":\"u\",\"template\":\"plain text {{index}}\"}"), NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 0), "result"));
    CHECK_STR(s, "{\"tool\":\"t\",\"where\":\"Oslo\"}");
    forge_free(s);
    s = compact(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls_of(t), 1), "result"));
    CHECK_STR(s, "{\"result\":\"plain text 2\"}");
    forge_free(s);
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

static int failing_tool(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    (void)ctx;
    (void)args;
    (void)out;
    return forge_err_set(err, FORGE_ELIMIT, "tools.lua:4: time limit exceeded: the script ran longer than 100 ms in one call; raise it with --lua-timeout MS");
}

TEST(a_failing_function_tool_is_an_error_result)
{
    static const char *const answers[] = {CALLS(CALL("slow", "{}")), FINAL("sorry")};
    struct fake f;
    fake_init(&f, answers, 2);
    struct forge_toolset tools = {0};
    struct forge_tool *t0 = tool("{\"name\":\"slow\"}");
    struct forge_callable fn = {failing_tool, NULL, "slow", false};
    forge_tool_set_function(t0, fn, false, NULL);
    forge_toolset_add(&tools, t0, NULL);
    cJSON *t = run_case(&f, &tools, NULL, NULL, "{\"id\":\"c\",\"input\":{\"message\":\"m\"}}");
    CHECK_STR(field(t, 0, "error"), "tools.lua:4: time limit exceeded: the script ran longer than 100 ms in one call; raise it with --lua-timeout MS");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "turns"), 1), "content"), "sorry");
    cJSON_Delete(t);
    cJSON_Delete(f.requests);
    forge_toolset_free(&tools);
}

TEST(tool_definitions_in_every_shape)
{
    struct forge_err err = {0};
    struct forge_tool *t = tool("{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"d\","
                                "\"parameters\":{\"type\":\"object\"}}}");
    CHECK(t && !strcmp(t->name, "f"));
    forge_tool_free(t);
    t = tool("{\"name\":\"m\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}");
    CHECK(t && t->schema);
    forge_tool_free(t);
    /* agent-tool-forge's flat schema */
    t = tool("{\"name\":\"g\",\"schema\":{\"city\":{\"type\":\"string\"},\"units\":{\"type\":\"string\",\"optional\":true}}}");
    char *s = compact(cJSON_GetObjectItemCaseSensitive(t->def, "parameters"));
    CHECK_STR(s, "{\"properties\":{\"city\":{\"type\":\"string\"},\"units\":{\"type\":\"string\"}},"
                 "\"required\":[\"city\"],\"type\":\"object\"}");
    forge_free(s);
    forge_tool_free(t);
    cJSON *d = J("{\"name\":\"x\",\"discription\":\"typo\"}");
    CHECK(forge_tool_from_json(d, "tools.json: tools[0]", &err) == NULL);
    CHECK_STR(err.msg, "tools.json: tools[0]: unknown key 'discription' in a tool definition (did you mean 'description'?)");
    cJSON_Delete(d);
    d = J("{\"name\":\"x\",\"http\":{\"url\":\"ftp://x\"}}");
    CHECK(forge_tool_from_json(d, "t", &err) == NULL);
    CHECK_STR(err.msg, "t: tool 'x': http.url must be an http:// or https:// URL");
    cJSON_Delete(d);
    d = J("{\"name\":\"x\",\"category\":\"dangerous\"}");
    CHECK(forge_tool_from_json(d, "t", &err) == NULL);
    CHECK_STR(err.msg, "t: tool 'x': category must be read, write, delete, side_effect or analysis, not 'dangerous'");
    cJSON_Delete(d);
    struct forge_toolset set = {0};
    CHECK_INT(forge_toolset_add(&set, tool("{\"name\":\"a\"}"), &err), 0);
    CHECK_INT(forge_toolset_add(&set, tool("{\"name\":\"a\"}"), &err), FORGE_EINVAL);
    CHECK_STR(err.msg, "tool 'a' is defined twice");
    forge_toolset_free(&set);
}

TEST(policy_json_errors)
{
    struct forge_policy p;
    forge_policy_init(&p);
    struct forge_err err = {0};
    cJSON *j = J("{\"max_rounds\":0}");
    CHECK_INT(forge_policy_apply(&p, j, "suite 'w'", &err), FORGE_EINVAL);
    CHECK_STR(err.msg, "suite 'w': policy.max_rounds must be an integer >= 1");
    cJSON_Delete(j);
    j = J("{\"max_round\":3}");
    CHECK_INT(forge_policy_apply(&p, j, "suite 'w'", &err), FORGE_EINVAL);
    CHECK(strstr(err.msg, "unknown policy key 'max_round'") != NULL);
    cJSON_Delete(j);
    j = J("{\"approval\":{\"level\":\"careful\"}}");
    CHECK_INT(forge_policy_apply(&p, j, "s", &err), FORGE_EINVAL);
    CHECK_STR(err.msg, "s: policy.approval.level must be autonomous, cautious, standard or paranoid");
    cJSON_Delete(j);
    forge_policy_free(&p);
}

int main(void)
{
    RUN(a_call_then_a_final_answer_makes_the_trajectory);
    RUN(undecodable_arguments_from_a_provider);
    RUN(canned_responses_match_by_subset_with_numbers_by_value);
    RUN(stubs_answer_first_and_missing_stubs_are_errors);
    RUN(invalid_arguments_get_an_error_result_and_coercion_is_recorded);
    RUN(policy_limits);
    RUN(identical_calls_and_max_rounds_end_the_case);
    RUN(tool_choice_goes_to_the_first_request_only);
    RUN(approval_levels_and_answers);
    RUN(verifiers_order_short_circuit_and_worst_outcome);
    RUN(verifiers_that_apply_as_the_definition_reads);
    RUN(verifiers_out_of_memory);
    RUN(data_verifiers_and_a_blocked_result);
    RUN(templates_render_the_call);
    RUN(a_failing_function_tool_is_an_error_result);
    RUN(tool_definitions_in_every_shape);
    RUN(policy_json_errors);
    return TEST_DONE();
}
