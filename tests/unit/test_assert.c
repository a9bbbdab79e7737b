/* Unit tests for score/assert: agent-tool-forge's pinned behaviours (seed-anchors §A11) and every
 * assertion of the catalogue, passing, failing and edge cases. */
#include "test.h"
#include "base/buf.h"
#include "base/alloc.h"
#include "data/json.h"
#include "eval/registry.h"
#include "eval/suite.h"
#include "score/assert.h"
#include "score/template.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A trajectory: the agent answers <response> after <calls> (a JSON array of call objects;
 * "round" and "arguments" as given), with optional latency (< 0: none) and cost (< 0: none). */
static cJSON *traj(const char *response, const char *calls, double latency, double cost)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "trajectory_id", "t");
    cJSON *turns = cJSON_AddArrayToObject(t, "turns");
    cJSON *u = cJSON_CreateObject();
    cJSON_AddNumberToObject(u, "turn_id", 1);
    cJSON_AddStringToObject(u, "role", "user");
    cJSON_AddStringToObject(u, "content", "hi");
    cJSON_AddItemToArray(turns, u);
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "turn_id", 1);
    cJSON_AddStringToObject(a, "role", "agent");
    cJSON_AddStringToObject(a, "content", response);
    cJSON *c = cJSON_Parse(calls ? calls : "[]");
    if (!c) {
        fprintf(stderr, "bad calls JSON in test: %s\n", calls);
        abort();
    }
    cJSON_AddItemToObject(a, "tool_calls", c);
    cJSON_AddItemToArray(turns, a);
    cJSON *m = cJSON_AddObjectToObject(t, "metadata");
    if (latency >= 0) cJSON_AddNumberToObject(m, "latency_ms", latency);
    if (cost >= 0) cJSON_AddNumberToObject(m, "cost_usd", cost);
    cJSON_AddNumberToObject(m, "output_tokens", 40);
    return t;
}

/* Calls from a list of names: "a,b" -> [{"name":"a"},{"name":"b"}] (sequential rounds). */
static char *names(const char *list)
{
    static char buf[2048];
    char *p = buf;
    p += sprintf(p, "[");
    int i = 0;
    const char *s = list;
    while (s && *s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        p += sprintf(p, "%s{\"name\":\"%.*s\",\"arguments\":{},\"round\":%d}", i ? "," : "", (int)n, s, i + 1);
        i++;
        s = e ? e + 1 : NULL;
    }
    sprintf(p, "]");
    return buf;
}

static cJSON *make_case(const char *case_json)
{
    cJSON *k = cJSON_Parse(case_json);
    if (!k) {
        fprintf(stderr, "bad case JSON in test: %s\n", case_json);
        abort();
    }
    if (!cJSON_GetObjectItem(k, "id")) cJSON_AddStringToObject(k, "id", "c1");
    if (!cJSON_GetObjectItem(k, "input")) {
        cJSON *in = cJSON_AddObjectToObject(k, "input");
        cJSON_AddStringToObject(in, "message", "question");
    }
    return k;
}

static struct forge_assert_opts g_opts;

/* Scores; returns the result (owned by the caller). */
static cJSON *run_case(const char *case_json, cJSON *t)
{
    cJSON *k = make_case(case_json);
    cJSON *res = NULL;
    struct forge_err err = {0};
    int rc = forge_assert_case(k, t, &g_opts, &res, &err);
    CHECK_INT(rc, 0);
    cJSON_Delete(k);
    cJSON_Delete(t);
    return res;
}

static const char *reason(const cJSON *r)
{
    const cJSON *x = cJSON_GetObjectItem(r, "reason");
    return cJSON_IsString(x) ? x->valuestring : "(null)";
}

static bool passed(const cJSON *r) { return cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")); }

/* Expects pass (want_reason NULL) or failure with exactly <want_reason>. */
static void expect_case(int line, const char *case_json, cJSON *t, const char *want_reason)
{
    cJSON *r = run_case(case_json, t);
    if (want_reason) {
        if (passed(r)) fprintf(stderr, "line %d: expected failure\n", line);
        CHECK(!passed(r));
        if (strcmp(reason(r), want_reason) != 0) fprintf(stderr, "line %d:\n", line);
        CHECK_STR(reason(r), want_reason);
    } else {
        if (!passed(r)) fprintf(stderr, "line %d: expected pass, got: %s\n", line, reason(r));
        CHECK(passed(r));
    }
    cJSON_Delete(r);
}
#define EXPECT_PASS(c, t) expect_case(__LINE__, c, t, NULL)
#define EXPECT_FAIL(c, t, why) expect_case(__LINE__, c, t, why)

TEST(upstream_pinned_cases)
{
    /* seed-anchors §A11, rows 1..19 */
    EXPECT_PASS("{\"expect\":{\"toolsCalled\":[\"a\"]}}", traj("", names("a,a"), -1, -1));
    EXPECT_PASS("{\"expect\":{\"toolsCalled\":[\"a\",\"b\"]}}", traj("", names("b,a"), -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolsCalled\":[]}}", traj("", names("a"), -1, -1), "unexpected: a");
    EXPECT_PASS("{\"expect\":{\"responseContains\":[\"PARIS\"]}}", traj("paris is nice", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseContainsAny\":[[\"PARIS\"]]}}", traj("paris is nice", NULL, -1, -1),
                "response should contain any of [PARIS]");
    EXPECT_PASS("{\"expect\":{\"responseContainsAny\":[\"x1\",\"warm\"]}}", traj("It is warm", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseNotContains\":[\"i don't know\"]}}", traj("I DON'T KNOW", NULL, -1, -1),
                "Forbidden content found: i don't know");
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true}}", traj("Unfortunately, I could not", NULL, -1, -1),
                "Response contains cop-out phrase: \"unfortunately, i\"");
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true}}", traj("   ", NULL, -1, -1), "Response is empty");
    EXPECT_PASS("{\"expect\":{\"toolsAcceptable\":[[\"__none__\"]]}}", traj("", NULL, -1, -1));
    EXPECT_PASS("{\"expect\":{\"toolsAcceptable\":[[\"a\"]]}}", traj("", names("a,a"), -1, -1));
    EXPECT_PASS("{\"expect\":{\"toolsAcceptable\":[]}}", traj("", names("z"), -1, -1));
    EXPECT_FAIL("{\"expect\":{\"maxLatencyMs\":100}}", traj("", NULL, 150, -1), "Latency 150ms exceeded max 100ms");
    EXPECT_PASS("{\"expect\":{\"maxLatencyMs\":200}}", traj("", NULL, 200, -1));
    EXPECT_FAIL("{\"expect\":{\"minToolCalls\":2,\"maxToolCalls\":3}}", traj("", names("a"), -1, -1),
                "Tool call count 1 is below minimum 2");
    EXPECT_PASS("{\"expect\":{\"regexPattern\":\"^\\\\d{3}$\"}}", traj("123", NULL, -1, -1));
    EXPECT_FAIL("{\"requiresPreamble\":true,\"expect\":{}}", traj("", names("a"), -1, -1), "Response is empty");
    EXPECT_FAIL("{\"expect\":{\"toolsCalled\":[\"a\"],\"responseContains\":[\"foo\",\"bar\"],\"responseNotContains\":[\"baz\"],"
                "\"responseContainsAny\":[[\"q\"],[\"r\"]]}}",
                traj("foo baz", names("b"), -1, -1),
                "Missing from response: bar; Forbidden content found: baz; missing: a; unexpected: b; "
                "response should contain any of [q]; response should contain any of [r]");
    /* row 17: upstream ignores toolsNotCalled and toolParams; forge implements them */
    EXPECT_FAIL("{\"expect\":{\"toolsNotCalled\":[\"a\"],\"toolParams\":[{\"tool\":\"a\",\"paramName\":\"x\",\"assertion\":\"exists\"}]}}",
                traj("", names("a"), -1, -1),
                "Tools that must not be called were called: a; toolParams a.x: no call of a satisfies exists (got (absent))");
    /* row 18: empty input message -> skipped */
    cJSON *r = run_case("{\"input\":{\"message\":\"\"},\"expect\":{\"toolsCalled\":[\"a\"]}}", traj("", NULL, -1, -1));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "skipped")));
    CHECK_STR(reason(r), "no input message");
    cJSON_Delete(r);
}

TEST(upstream_other_checks)
{
    EXPECT_PASS("{\"expect\":{\"jsonValid\":true}}", traj("[1,2,3]", NULL, -1, -1));
    cJSON *r = run_case("{\"expect\":{\"jsonValid\":true}}", traj("{oops", NULL, -1, -1));
    CHECK(!passed(r));
    CHECK_STR(reason(r), "Invalid JSON: response:1:2: a member name must be a string near 'oops'");
    cJSON_Delete(r);
    /* JSON.parse's grammar, not cJSON's looser one */
    r = run_case("{\"expect\":{\"jsonValid\":true}}", traj("{\"n\": 01}", NULL, -1, -1));
    CHECK_STR(reason(r), "Invalid JSON: response:1:7: a number with a leading zero near '01}'");
    cJSON_Delete(r);
    r = run_case("{\"expect\":{\"jsonValid\":true}}", traj("[1.]", NULL, -1, -1));
    CHECK_STR(reason(r), "Invalid JSON: response:1:4: a number needs a digit after its '.' near ']'");
    cJSON_Delete(r);
    r = run_case("{\"expect\":{\"jsonValid\":true}}", traj("[1,", NULL, -1, -1));
    CHECK_STR(reason(r), "Invalid JSON: response:1:4: the text ends where a value should be");
    cJSON_Delete(r);
    EXPECT_PASS("{\"expect\":{\"jsonValid\":true}}", traj(" {\"a\": [-0.5e3, \"\\u00e9\"]} ", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"schemaData\":{\"n\":\"str\"},\"typeChecks\":{\"n\":\"number\"}}}", traj("", NULL, -1, -1),
                "Type mismatches: n: expected number, got string");
    EXPECT_FAIL("{\"expect\":{\"schemaData\":{\"n\":1},\"requiredKeys\":[\"n\",\"m\",\"k\"]}}", traj("", NULL, -1, -1),
                "Missing keys: m, k");
    EXPECT_PASS("{\"expect\":{\"schemaData\":{\"n\":1,\"o\":null},\"typeChecks\":{\"n\":\"number\",\"o\":\"object\",\"z\":\"undefined\"}}}",
                traj("", NULL, -1, -1));
    /* lengths count UTF-16 code units: "é😀" is 3 */
    EXPECT_PASS("{\"expect\":{\"minLength\":3,\"maxLength\":3}}", traj("\xc3\xa9\xf0\x9f\x98\x80", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"maxLength\":2}}", traj("\xc3\xa9\xf0\x9f\x98\x80", NULL, -1, -1),
                "Response length 3 exceeds maximum 2");
    EXPECT_FAIL("{\"expect\":{\"minLength\":5}}", traj("abc", NULL, -1, -1), "Response length 3 is below minimum 5");
    EXPECT_FAIL("{\"expect\":{\"regexPattern\":\"^\\\\d{3}$\"}}", traj("1234", NULL, -1, -1),
                "Response did not match pattern: ^\\d{3}$");
    EXPECT_FAIL("{\"expect\":{\"maxToolCalls\":1}}", traj("", names("a,a"), -1, -1), "Tool call count 2 exceeds maximum 1");
    EXPECT_PASS("{\"expect\":{\"maxToolCalls\":0}}", traj("", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"maxCost\":0.0005}}", traj("", NULL, -1, 0.001), "Cost $0.001000 exceeded budget $0.000500");
    EXPECT_PASS("{\"expect\":{\"maxCost\":0.001}}", traj("", NULL, -1, 0.001));
    /* latency and cost unmeasured: no check, as upstream */
    r = run_case("{\"expect\":{\"maxLatencyMs\":1,\"maxCost\":0}}", traj("", NULL, -1, -1));
    CHECK(passed(r));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r, "assertions")), 0);
    cJSON_Delete(r);
    /* a custom cop-out list replaces the default one */
    EXPECT_PASS("{\"expect\":{\"responseNonEmpty\":true,\"copOutPhrases\":[\"nope\"]}}", traj("I'm sorry, here it is", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true,\"copOutPhrases\":[\"Nope\"]}}", traj("NOPE.", NULL, -1, -1),
                "Response contains cop-out phrase: \"Nope\"");
    /* cop-out phrases in answers holding non-ASCII text: found in any case, and through the
     * letters whose folding reaches ASCII (KELVIN SIGN is k, LONG S is s) */
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true}}", traj("18\xc2\xb0" "C. UNFORTUNATELY, I will", NULL, -1, -1),
                "Response contains cop-out phrase: \"unfortunately, i\"");
    EXPECT_PASS("{\"expect\":{\"responseNonEmpty\":true}}", traj("18\xc2\xb0" "C in Z\xc3\xbcrich", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true,\"copOutPhrases\":[\"kelvin\"]}}",
                traj("300 \xe2\x84\xaa" "ELVIN \xc2\xb0", NULL, -1, -1), "Response contains cop-out phrase: \"kelvin\"");
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true,\"copOutPhrases\":[\"NoPe\"]}}",
                traj("d\xc3\xa9j\xc3\xa0 nOpE", NULL, -1, -1), "Response contains cop-out phrase: \"NoPe\"");
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true,\"copOutPhrases\":[\"sorry\"]}}",
                traj("\xc5\xbfORRY \xc3\xa9", NULL, -1, -1), "Response contains cop-out phrase: \"sorry\"");
    /* Unicode white space is empty, as String.prototype.trim() sees it */
    EXPECT_FAIL("{\"expect\":{\"responseNonEmpty\":true}}", traj("\xc2\xa0\xe3\x80\x80\n", NULL, -1, -1), "Response is empty");
    /* case-insensitive containment folds non-ASCII letters too */
    EXPECT_PASS("{\"expect\":{\"responseContains\":[\"ZÜRICH\", \"Σ\"]}}", traj("in zürich σ", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseContains\":[\"Zürich\"]}}", traj("in Zurich", NULL, -1, -1),
                "Missing from response: Zürich");
    /* ASCII needles in non-ASCII answers, including the letters that fold to ASCII */
    EXPECT_PASS("{\"expect\":{\"responseContains\":[\"paris\", \"18°c\"]}}", traj("18°C in PARIS", NULL, -1, -1));
    EXPECT_PASS("{\"expect\":{\"responseContains\":[\"5 k\"]}}", traj("it is 5 \xe2\x84\xaa", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseNotContains\":[\"ks\"]}}", traj("\xe2\x84\xaa\xc5\xbf", NULL, -1, -1),
                "Forbidden content found: ks");
    /* responseContainsAny is case-sensitive; a scalar responseContains is wrapped */
    EXPECT_FAIL("{\"expect\":{\"responseContainsAny\":[\"Warm\"]}}", traj("warm", NULL, -1, -1),
                "response should contain any of [Warm]");
    EXPECT_PASS("{\"expect\":{\"responseContains\":\"WARM\"}}", traj("warm", NULL, -1, -1));
    /* toolsCalled: a scalar is wrapped; duplicates stay in the message as upstream filters lists */
    EXPECT_FAIL("{\"expect\":{\"toolsCalled\":\"a\"}}", traj("", names("b,b"), -1, -1), "missing: a; unexpected: b, b");
    EXPECT_FAIL("{\"expect\":{\"toolsCalled\":[\"A\"]}}", traj("", names("a"), -1, -1), "missing: A; unexpected: a");
    EXPECT_FAIL("{\"expect\":{\"toolsAcceptable\":[[\"a\"],[\"b\",\"c\"]]}}", traj("", names("b,b"), -1, -1),
                "tools: [b, b] not in any acceptable set");
    EXPECT_PASS("{\"expect\":{\"toolsAcceptable\":[[\"a\"],[\"b\",\"c\"]]}}", traj("", names("c,b"), -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolsAcceptable\":[[\"__none__\"]]}}", traj("", names("a"), -1, -1),
                "tools: [a] not in any acceptable set");
    EXPECT_PASS("{\"expect\":{\"toolsAcceptable\":[[\"__none__\", \"a\"]]}}", traj("", NULL, -1, -1));
    /* past 16 calls the names are looked up in a table, and a set is the called names when
     * every item was called and the distinct items are as many as the distinct names */
    const char *twenty = "a,b,a,b,a,b,a,b,a,b,a,b,a,b,a,b,a,b,a,b";
    EXPECT_PASS("{\"expect\":{\"toolsAcceptable\":[[\"a\"],[\"b\",\"a\",\"b\"]]}}", traj("", names(twenty), -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolsAcceptable\":[[\"a\"],[\"a\",\"b\",\"c\"]]}}", traj("", names(twenty), -1, -1),
                "tools: [a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b] not in any acceptable set");
    EXPECT_FAIL("{\"expect\":{\"toolsCalled\":[\"a\",\"c\"]}}", traj("", names(twenty), -1, -1),
                "missing: c; unexpected: b, b, b, b, b, b, b, b, b, b");
    EXPECT_PASS("{\"expect\":{\"toolsNotCalled\":[\"c\",\"d\"]}}", traj("", names(twenty), -1, -1));
}

TEST(tools_not_called_and_params)
{
    EXPECT_PASS("{\"expect\":{\"toolsNotCalled\":[\"x\"]}}", traj("", names("a"), -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolsNotCalled\":[\"a\",\"b\",\"a\"]}}", traj("", names("a,b,a"), -1, -1),
                "Tools that must not be called were called: a, b");
    const char *calls = "[{\"name\":\"w\",\"arguments\":{\"city\":\"Paris\",\"n\":1,\"tags\":[\"x\",\"y\"],\"o\":{\"k\":\"v\"}}},"
                        "{\"name\":\"w\",\"arguments\":\"{\\\"city\\\":\\\"Rome\\\"}\"}]";
    EXPECT_PASS("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"city\",\"assertion\":\"equals\",\"value\":\"Rome\"}]}}",
                traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"city\",\"assertion\":\"equals\",\"value\":\"paris\"}]}}",
                traj("", calls, -1, -1), "toolParams w.city: no call of w satisfies equals \"paris\" (got \"Paris\")");
    EXPECT_PASS("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"n\",\"assertion\":\"equals\",\"value\":1.0}]}}",
                traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"n\",\"assertion\":\"equals\",\"value\":\"1\"}]}}",
                traj("", calls, -1, -1), "toolParams w.n: no call of w satisfies equals \"1\" (got 1)");
    EXPECT_PASS("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"city\",\"assertion\":\"contains\",\"value\":\"ari\"},"
                "{\"tool\":\"w\",\"paramName\":\"tags\",\"assertion\":\"contains\",\"value\":\"y\"},"
                "{\"tool\":\"w\",\"paramName\":\"city\",\"assertion\":\"oneOf\",\"value\":[\"Oslo\",\"Rome\"]},"
                "{\"tool\":\"w\",\"paramName\":\"o.k\",\"assertion\":\"exists\"},"
                "{\"tool\":\"w\",\"paramName\":\"zz\",\"assertion\":\"notExists\"},"
                "{\"tool\":\"w\",\"paramName\":\"city\",\"assertion\":\"matches\",\"value\":\"^R.m\"}]}}",
                traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"zz\",\"assertion\":\"exists\"}]}}",
                traj("", calls, -1, -1), "toolParams w.zz: no call of w satisfies exists (got (absent))");
    EXPECT_FAIL("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"city\",\"assertion\":\"contains\",\"value\":\"ARI\"}]}}",
                traj("", calls, -1, -1), "toolParams w.city: no call of w satisfies contains \"ARI\" (got \"Paris\")");
    /* the tool was not called: skipped, counted, warned; the case passes */
    cJSON *r = run_case("{\"expect\":{\"toolParams\":[{\"tool\":\"q\",\"paramName\":\"a\",\"assertion\":\"exists\"}]}}",
                        traj("", calls, -1, -1));
    CHECK(passed(r));
    CHECK_INT(forge_json_num(r, "skippedAssertions", -1), 1);
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "warnings"), 0)->valuestring,
              "toolParams q.a: skipped: q was not called");
    cJSON_Delete(r);
}

TEST(templates)
{
    cJSON *seed = cJSON_Parse("{\"user\":{\"name\":\"Ada\",\"ids\":[7,8]},\"n\":2.50,\"flag\":true,\"city\":\"{{snapshot:city}}\"}");
    cJSON *snap = cJSON_Parse("{\"city\":\"Paris\"}");
    g_opts.seed = seed;
    g_opts.snapshot = snap;
    EXPECT_PASS("{\"expect\":{\"responseContains\":[\"{{seed:user.name}}\",\"id {{seed:user.ids[1]}}\",\"{{seed:n}}\",\"{{snapshot:city}}\"]}}",
                traj("ada has id 8, 2.5 in paris", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseNotContains\":[\"{{seed:flag}}\"]}}", traj("flag is TRUE", NULL, -1, -1),
                "Forbidden content found: true");
    /* a whole-token value keeps its type: 7 equals the number 7 */
    EXPECT_PASS("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"id\",\"assertion\":\"equals\",\"value\":\"{{seed:user.ids[0]}}\"}]}}",
                traj("", "[{\"name\":\"w\",\"arguments\":{\"id\":7}}]", -1, -1));
    /* a seed value holding a snapshot token resolves through */
    EXPECT_PASS("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"equals\",\"value\":\"{{seed:city}}\"}]}}",
                traj("", "[{\"name\":\"w\",\"arguments\":{\"c\":\"Paris\"}}]", -1, -1));
    /* an array with a template resolves its strings and keeps the rest; a failure names the
     * resolved values */
    EXPECT_PASS("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"oneOf\","
                "\"value\":[3,\"{{seed:user.name}}\"]}]}}",
                traj("", "[{\"name\":\"w\",\"arguments\":{\"c\":\"Ada\"}}]", -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"oneOf\","
                "\"value\":[3,\"{{seed:user.name}}\"]}]}}",
                traj("", "[{\"name\":\"w\",\"arguments\":{\"c\":\"Bob\"}}]", -1, -1),
                "toolParams w.c: no call of w satisfies oneOf [3,\"Ada\"] (got \"Bob\")");
    /* no value: null */
    EXPECT_FAIL("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"equals\"}]}}",
                traj("", "[{\"name\":\"w\",\"arguments\":{\"c\":\"Bob\"}}]", -1, -1),
                "toolParams w.c: no call of w satisfies equals null (got \"Bob\")");
    /* an unresolved value: skipped with a warning naming the parameter */
    cJSON *r = run_case("{\"expect\":{\"toolParams\":[{\"tool\":\"w\",\"paramName\":\"c\",\"assertion\":\"equals\","
                        "\"value\":\"{{seed:nope}}\"}]}}",
                        traj("", "[{\"name\":\"w\",\"arguments\":{\"c\":\"Bob\"}}]", -1, -1));
    CHECK(passed(r));
    CHECK_INT(forge_json_num(r, "skippedAssertions", -1), 1);
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "warnings"), 0)->valuestring,
              "toolParams w.c: {{seed:nope}} is unresolved; value \"{{seed:nope}}\" skipped");
    cJSON_Delete(r);
    /* unresolved values are skipped with a warning, never failed */
    r = run_case("{\"expect\":{\"responseContains\":[\"{{seed:missing.x}}\",\"ok\"],"
                        "\"responseContainsAny\":[[\"{{snapshot:nope}}\"],[\"{{seed:user.ids[5]}}\",\"ok\"]]}}",
                        traj("ok", NULL, -1, -1));
    CHECK(passed(r));
    CHECK_INT(forge_json_num(r, "skippedAssertions", -1), 3);
    const cJSON *w = cJSON_GetObjectItem(r, "warnings");
    CHECK_INT(cJSON_GetArraySize(w), 4);
    CHECK_STR(cJSON_GetArrayItem(w, 0)->valuestring,
              "responseContains: {{seed:missing.x}} is unresolved; value \"{{seed:missing.x}}\" skipped");
    CHECK_STR(cJSON_GetArrayItem(w, 2)->valuestring, "responseContainsAny: a group has no resolved value; group skipped");
    cJSON_Delete(r);
    /* snapshot not configured: every snapshot token is unresolved */
    g_opts.snapshot = NULL;
    r = run_case("{\"expect\":{\"responseContains\":[\"{{snapshot:city}}\"]}}", traj("x", NULL, -1, -1));
    CHECK(passed(r));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r, "assertions")), 0);
    CHECK_INT(forge_json_num(r, "skippedAssertions", -1), 1);
    cJSON_Delete(r);
    g_opts.seed = NULL;
    cJSON_Delete(seed);
    cJSON_Delete(snap);
}

/* forge_template_has against a search for each prefix, on strings with braces everywhere */
TEST(template_has)
{
    static const char *yes[] = {"{{seed:x}}", "a {{snapshot:y}} b", "{{{seed:", "{{x}} {{seed:", "{{snapshot:",
                                "}}{{seed:{{"};
    static const char *no[] = {"", "{", "{{", "{{seed", "{ {seed:x}}", "{{Seed:x}}", "{{snap:x}}", "{{snapshot",
                               "seed:x}}", "{x{seed:", "{{ seed:x}}"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(forge_template_has(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(!forge_template_has(no[i]));
    CHECK(!forge_template_has(NULL));
    /* generated: every string of up to 12 bytes over '{', 's', 'e', 'd', ':' and 'x' around the
     * prefixes, against strstr */
    static const char *parts[] = {"{", "{{", "seed:", "snapshot:", "x", "e", ":", "{{seed", "snap"};
    char buf[64];
    long n = 0;
    for (int a = 0; a < 9; a++)
        for (int b = 0; b < 9; b++)
            for (int c = 0; c < 9; c++) {
                snprintf(buf, sizeof buf, "%s%s%s", parts[a], parts[b], parts[c]);
                bool want = strstr(buf, "{{seed:") || strstr(buf, "{{snapshot:");
                CHECK(forge_template_has(buf) == want);
                n++;
            }
    CHECK_INT(n, 729);
}

TEST(no_tool_errors_and_tokens)
{
    EXPECT_PASS("{\"expect\":{\"noToolErrors\":true}}", traj("", "[{\"name\":\"a\",\"error\":null}]", -1, -1));
    EXPECT_FAIL("{\"expect\":{\"noToolErrors\":true}}", traj("", "[{\"name\":\"a\",\"error\":\"timeout\"}]", -1, -1),
                "tool errors: a: timeout");
    EXPECT_FAIL("{\"stubs\":{\"a\":{\"ok\":1}},\"expect\":{\"noToolErrors\":true}}", traj("", names("a,b,b"), -1, -1),
                "noToolErrors: tools called without stubs: [b]");
    EXPECT_FAIL("{\"expect\":{\"maxTokens\":10}}", traj("", NULL, -1, -1), "Output tokens 40 exceeded max 10");
    EXPECT_PASS("{\"expect\":{\"responseMatches\":[\"^it\", \"\\\\d+°C\"]}}", traj("it is 18°C", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseMatches\":[\"^It\"]}}", traj("it is", NULL, -1, -1), "Response did not match pattern: ^It");
}

TEST(checks_form)
{
    const char *calls = "[{\"name\":\"get_forecast\",\"arguments\":{\"city\":\"Oslo\",\"days\":3}}]";
    EXPECT_PASS("{\"expectedTool\":\"get_forecast\",\"expectedArgs\":{\"city\":\"Oslo\"},"
                "\"checks\":[{\"type\":\"tool_called\",\"tool\":\"get_forecast\"},{\"type\":\"arg_equals\",\"arg\":\"days\",\"value\":3}]}",
                traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expectedTool\":\"get_weather\",\"expectedArgs\":{\"city\":\"Oslo\"}}", traj("", calls, -1, -1),
                "tool \"get_weather\" was not called; arg_equals get_weather.city: get_weather was not called");
    EXPECT_FAIL("{\"expectedTool\":\"get_forecast\",\"checks\":[{\"type\":\"arg_equals\",\"arg\":\"days\",\"value\":\"3\"}]}",
                traj("", calls, -1, -1), "arg_equals get_forecast.days: expected \"3\", got 3");
    EXPECT_FAIL("{\"label\":\"incorrect\",\"expectedTools\":[\"a\",\"b\"]}", traj("", names("a,c"), -1, -1),
                "missing: b; unexpected: c");
    /* expectedTool implied once, not twice, when a check names it */
    cJSON *r = run_case("{\"expectedTool\":\"get_forecast\",\"checks\":[{\"type\":\"tool_called\",\"tool\":\"get_forecast\"}],\"label\":\"correct\"}",
                        traj("", calls, -1, -1));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r, "assertions")), 1);
    CHECK_STR(forge_json_str(r, "label"), "correct");
    cJSON_Delete(r);
}

TEST(waza_tool_calls)
{
    cJSON *r = run_case("{\"expect\":{\"tool_calls\":{\"required_tools\":[\"bash\",\"view\",\"grep\"]}}}", traj("", names("bash"), -1, -1));
    CHECK(!passed(r));
    CHECK(fabs(forge_json_num(r, "score", 0) - 1.0 / 3) < 1e-12);
    CHECK_STR(reason(r), "required tool \"view\" was not called; required tool \"grep\" was not called");
    cJSON_Delete(r);
    r = run_case("{\"expect\":{\"tool_calls\":{\"forbidden_tools\":[\"rm\",\"sudo\"]}}}", traj("", names("rm"), -1, -1));
    CHECK(fabs(forge_json_num(r, "score", 0) - 0.5) < 1e-12);
    CHECK_STR(reason(r), "forbidden tool \"rm\" was called");
    cJSON_Delete(r);
    r = run_case("{\"expect\":{\"tool_calls\":{\"required_tools\":[\"bash\",\"grep\"],\"forbidden_tools\":[\"rm\"],\"min_calls\":1,\"max_calls\":10}}}",
                 traj("", names("bash,view"), -1, -1));
    CHECK(fabs(forge_json_num(r, "score", 0) - 0.8) < 1e-12);
    cJSON_Delete(r);
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"max_calls\":0}}}", traj("", names("a"), -1, -1), "expected at most 0 tool calls, got 1");
    EXPECT_PASS("{\"expect\":{\"tool_calls\":{\"min_calls\":0}}}", traj("", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"min_calls\":5}}}", traj("", names("a"), -1, -1), "expected at least 5 tool calls, got 1");
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"max_calls\":2}}}", traj("", names("a,a,a"), -1, -1), "expected at most 2 tool calls, got 3");
    const char *calls = "[{\"name\":\"Azure_Search\",\"arguments\":{\"query\":\"auth flow\",\"limit\":20,\"path\":\"/etc/hosts\",\"cmd\":\"make test\"}}]";
    EXPECT_PASS("{\"expect\":{\"tool_calls\":{\"expect\":[{\"tool\":\"^azure_.*search\",\"args\":{\"query\":{\"regex\":\"^auth\"},"
                "\"limit\":{\"range\":{\"gte\":1,\"lte\":50}},\"path\":{\"equals\":\"/etc/hosts\"},\"cmd\":{\"contains\":\"test\"}}}]}}}",
                traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"expect\":[{\"tool\":\"search\",\"args\":{\"limit\":{\"range\":{\"lt\":10}}}}]}}}",
                traj("", calls, -1, -1), "expect[0] (tool \"search\"): argument \"limit\": 20 is not < 10");
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"expect\":[{\"tool\":\"search\",\"args\":{\"nope\":{\"equals\":1}}}]}}}",
                traj("", calls, -1, -1), "expect[0] (tool \"search\"): argument \"nope\": not present on tool call");
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"expect\":[{\"tool\":\"^bash$\"}]}}}", traj("", calls, -1, -1),
                "expect[0] (tool \"^bash$\"): no tool call with matching name");
}

TEST(sequences)
{
    /* a and b in one round (parallel), then c */
    const char *par = "[{\"name\":\"a\",\"round\":1},{\"name\":\"b\",\"round\":1},{\"name\":\"c\",\"round\":2}]";
    const char *seq = "[{\"name\":\"a\",\"round\":1},{\"name\":\"b\",\"round\":2},{\"name\":\"c\",\"round\":3}]";
    EXPECT_PASS("{\"expect\":{\"toolSequence\":{\"steps\":[[\"b\",\"a\"],\"c\"],\"mode\":\"exact\"}}}", traj("", par, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolSequence\":{\"steps\":[[\"b\",\"a\"],\"c\"],\"mode\":\"exact\"}}}", traj("", seq, -1, -1),
                "expected tool sequence [[b, a], c] (exact), got [a, b, c]");
    EXPECT_FAIL("{\"expect\":{\"toolSequence\":{\"steps\":[\"a\",\"b\",\"c\"],\"mode\":\"exact\"}}}", traj("", par, -1, -1),
                "expected tool sequence [a, b, c] (exact), got [[a, b], c]");
    EXPECT_PASS("{\"expect\":{\"toolSequence\":{\"steps\":[\"a\",\"b\",\"c\"],\"mode\":\"exact\"}}}", traj("", seq, -1, -1));
    /* in_order: extras allowed between; successive steps need successive rounds */
    EXPECT_PASS("{\"expect\":{\"toolSequence\":{\"steps\":[\"a\",\"c\"]}}}", traj("", seq, -1, -1));
    EXPECT_PASS("{\"expect\":{\"toolSequence\":{\"steps\":[\"b\",\"c\"],\"mode\":\"in_order\"}}}", traj("", par, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolSequence\":{\"steps\":[\"a\",\"b\"],\"mode\":\"in_order\"}}}", traj("", par, -1, -1),
                "expected tool sequence [a, b] (in_order), got [[a, b], c]");
    EXPECT_FAIL("{\"expect\":{\"toolSequence\":{\"steps\":[\"c\",\"a\"],\"mode\":\"in_order\"}}}", traj("", seq, -1, -1),
                "expected tool sequence [c, a] (in_order), got [a, b, c]");
    EXPECT_PASS("{\"expect\":{\"toolSequence\":{\"steps\":[\"c\",\"a\"],\"mode\":\"any_order\"}}}", traj("", seq, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolSequence\":{\"steps\":[[\"a\",\"c\"]],\"mode\":\"any_order\"}}}", traj("", seq, -1, -1),
                "expected tool sequence [[a, c]] (any_order), got [a, b, c]");
    /* calls without a round are one after another */
    EXPECT_FAIL("{\"expect\":{\"toolSequence\":{\"steps\":[[\"a\",\"b\"]]}}}", traj("", "[{\"name\":\"a\"},{\"name\":\"b\"}]", -1, -1),
                "expected tool sequence [[a, b]] (in_order), got [a, b]");
}

TEST(f1_and_args)
{
    cJSON *r = run_case("{\"expect\":{\"toolCallF1\":{\"expected\":\"a, b\",\"threshold\":0.5}}}", traj("", names("a,c,a"), -1, -1));
    CHECK(passed(r));
    CHECK(fabs(forge_json_num(r, "score", 0) - 0.5) < 1e-12);
    cJSON_Delete(r);
    EXPECT_FAIL("{\"expect\":{\"toolCallF1\":{\"expected\":[\"a\",\"b\"]}}}", traj("", names("a"), -1, -1),
                "tool-call F1 0.6667 (precision 1, recall 0.5) is below threshold 1");
    EXPECT_PASS("{\"expect\":{\"toolCallF1\":{\"expected\":[]}}}", traj("", NULL, -1, -1));
    {
        /* 30,000 calls over ten names (t0..t9), five of them expected and one never called:
         * precision 5/10, recall 5/6, F1 0.625 */
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_buf_adds(&b, "[");
        for (int i = 0; i < 30000; i++)
            forge_buf_addf(&b, "%s{\"name\":\"t%d\",\"arguments\":{},\"round\":1}", i ? "," : "", (i * 7) % 10);
        forge_buf_adds(&b, "]");
        EXPECT_FAIL("{\"expect\":{\"toolCallF1\":{\"expected\":[\"t3\",\"t1\",\"t9\",\"x\",\"t0\",\"t5\",\"t1\"]}}}",
                    traj("", b.data, -1, -1), "tool-call F1 0.625 (precision 0.5, recall 0.8333) is below threshold 1");
        forge_buf_free(&b);
    }
    const char *calls = "[{\"name\":\"w\",\"arguments\":{\"city\":\"Paris\",\"units\":\"celsius\",\"opts\":{\"a\":1,\"b\":2},\"trace\":\"x\"}}]";
    EXPECT_PASS("{\"expect\":{\"toolArgs\":[{\"tool\":\"w\",\"args\":{\"city\":\"Paris\",\"opts\":{\"a\":1}}}]}}", traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolArgs\":[{\"tool\":\"w\",\"args\":{\"city\":\"Paris\"},\"mode\":\"exact\"}]}}", traj("", calls, -1, -1),
                "toolArgs: no call of w has arguments matching {\"city\":\"Paris\"} (exact)");
    EXPECT_PASS("{\"expect\":{\"toolArgs\":[{\"tool\":\"w\",\"args\":{\"city\":\"Paris\",\"opts\":{\"b\":2,\"a\":1}},\"mode\":\"exact\","
                "\"ignore\":[\"tr*\"],\"defaults\":{\"units\":\"celsius\"}}]}}", traj("", calls, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"toolArgs\":[{\"tool\":\"v\",\"args\":{}}]}}", traj("", calls, -1, -1), "toolArgs: v was not called");
}

TEST(verifiers_weights)
{
    EXPECT_FAIL("{\"expect\":{\"noVerifierBlocks\":true}}",
                traj("", "[{\"name\":\"a\",\"verifier\":{\"outcome\":\"pass\"}},{\"name\":\"b\",\"verifier\":{\"outcome\":\"block\",\"name\":\"plausible\",\"message\":\"too hot\"}}]", -1, -1),
                "verifier \"plausible\" blocked b: too hot");
    EXPECT_PASS("{\"expect\":{\"noVerifierBlocks\":true}}", traj("", "[{\"name\":\"a\",\"verifier\":{\"outcome\":\"warn\"}}]", -1, -1));
    /* weighted mean: toolsCalled passes (weight 3), responseContains fails (weight 1) -> 0.75 */
    cJSON *r = run_case("{\"weight\":2,\"expect\":{\"toolsCalled\":[\"a\"],\"responseContains\":[\"x\"],\"weights\":{\"toolsCalled\":3}}}",
                        traj("y", names("a"), -1, -1));
    CHECK(fabs(forge_json_num(r, "score", 0) - 0.25 * 0 - 0.75) < 1e-12);
    CHECK_INT(forge_json_num(r, "weight", 0), 2);
    cJSON_Delete(r);
    /* the same in lean results (weights summed for passing assertions too), and with the
     * "weights" member among many, first or last */
    g_opts.lean = true;
    r = run_case("{\"expect\":{\"weights\":{\"toolsCalled\":3},\"minLength\":1,\"maxLength\":9,\"toolsCalled\":[\"a\"],"
                 "\"responseContains\":[\"x\"]}}", traj("y", names("a"), -1, -1));
    CHECK(fabs(forge_json_num(r, "score", 0) - 0.8) < 1e-12); /* toolsCalled 3, length 1 of 5 */
    cJSON_Delete(r);
    g_opts.lean = false;
    /* keys of the same length and first and last bytes are told apart; of duplicates the first
     * counts */
    EXPECT_FAIL("{\"expect\":{\"minLength\":3,\"maxLength\":4}}", traj("hello", NULL, -1, -1),
                "Response length 5 exceeds maximum 4");
    EXPECT_FAIL("{\"expect\":{\"maxToolCalls\":0,\"maxToolCalls\":5}}", traj("y", names("a"), -1, -1),
                "Tool call count 1 exceeds maximum 0");
    EXPECT_PASS("{\"expect\":{\"maxToolCalls\":5,\"maxToolCalls\":0}}", traj("y", names("a"), -1, -1));
    /* no assertions: passes with score 1 */
    r = run_case("{\"expect\":{}}", traj("y", NULL, -1, -1));
    CHECK(passed(r));
    CHECK_INT(forge_json_num(r, "score", 0), 1);
    cJSON_Delete(r);
}

/* A C double for a custom assertion: returns what the case's expected value says. */
static int calls_seen;
static int double_call(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    calls_seen++;
    const cJSON *run = cJSON_GetObjectItem(args, "run"), *exp = cJSON_GetObjectItem(args, "expected");
    CHECK_STR(forge_json_str(run, "response"), "the answer is 42");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(run, "tool_calls"), 0), "name"), "a");
    CHECK_INT(forge_json_num(run, "latency_ms", 0), 99);
    CHECK(cJSON_GetObjectItem(run, "trajectory") != NULL);
    const char *mode = cJSON_IsString(exp) ? exp->valuestring : "object";
    if (strcmp(mode, "error") == 0) return forge_err_set(err, FORGE_ELUA, "suite.lua:3: boom");
    if (strcmp(mode, "true") == 0) *out = cJSON_CreateTrue();
    else if (strcmp(mode, "0.4") == 0) *out = cJSON_CreateNumber(0.4);
    else if (strcmp(mode, "nothing") == 0) *out = NULL;
    else if (strcmp(mode, "pair") == 0) *out = cJSON_Parse("[false, \"no number\"]");
    else if (strcmp(mode, "object") == 0) *out = cJSON_CreateNumber(0.4); /* with threshold 0.3 -> pass */
    else *out = cJSON_Parse("{\"pass\": false, \"score\": 0.25, \"reason\": \"too vague\"}");
    (void)ctx;
    return 0;
}

TEST(custom_assertions)
{
    struct forge_assertions *reg = forge_assertions_new();
    struct forge_callable fn = {double_call, NULL, "double", false};
    struct forge_err err = {0};
    CHECK_INT(forge_assertions_add(reg, "judge", &fn, NULL, &err), 0);
    CHECK_INT(forge_assertions_add(reg, "judge", &fn, NULL, &err), FORGE_EINVAL);
    CHECK_STR(err.msg, "custom assertion \"judge\" is already registered");
    CHECK_INT(forge_assertions_add(reg, "", &fn, NULL, &err), FORGE_EINVAL);
    CHECK_INT(forge_assertions_count(reg), 1);
    CHECK_STR(forge_assertions_name(reg, 0), "judge");
    struct forge_eval_opts eo = {.custom = reg};
    const char *calls = "[{\"name\":\"a\"}]";
    struct { const char *expected; bool pass; double score; const char *reason; } rows[] = {
        {"\"true\"", true, 1, NULL},
        {"\"0.4\"", false, 0.4, "custom assertion \"judge\" failed (score 0.4)"},
        {"{\"threshold\":0.3}", true, 0.4, NULL},
        {"\"pair\"", false, 0, "no number"},
        {"\"full\"", false, 0.25, "too vague"},
        {"\"error\"", false, 0, "suite.lua:3: boom"},
        {"\"nothing\"", false, 0, "the custom assertion returned no boolean, number or {pass, score, reason}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char cj[256];
        snprintf(cj, sizeof cj, "{\"expect\":{\"custom\":{\"judge\":%s}}}", rows[i].expected);
        cJSON *k = make_case(cj), *t = traj("the answer is 42", calls, 99, -1), *r = NULL;
        CHECK_INT(forge_eval_case(k, t, &eo, &r, &err), 0);
        const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "assertions"), 0);
        CHECK_STR(forge_json_str(a, "type"), "custom:judge");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(a, "passed")) == rows[i].pass);
        CHECK(fabs(forge_json_num(a, "score", -1) - rows[i].score) < 1e-12);
        if (rows[i].reason) CHECK_STR(forge_json_str(a, "reason"), rows[i].reason);
        cJSON_Delete(k);
        cJSON_Delete(t);
        cJSON_Delete(r);
    }
    CHECK_INT(calls_seen, 7);
    /* an unregistered name fails its case */
    cJSON *k = make_case("{\"expect\":{\"custom\":{\"nope\":1}}}"), *t = traj("x", NULL, -1, -1), *r = NULL;
    CHECK_INT(forge_eval_case(k, t, &eo, &r, &err), 0);
    CHECK_STR(reason(r), "no custom assertion named \"nope\" is registered");
    cJSON_Delete(k);
    cJSON_Delete(t);
    cJSON_Delete(r);
    forge_assertions_free(reg);
}

TEST(run_view_and_errors)
{
    cJSON *t = traj("done", "[{\"name\":\"a\",\"arguments\":\"{\\\"x\\\":1}\",\"round\":1,\"result\":{\"ok\":true}}]", -1, 0.5);
    cJSON *v = forge_assert_run_view(t);
    char *s = forge_json_print(cJSON_GetObjectItem(v, "tool_calls"), 0);
    CHECK_STR(s, "[{\"name\":\"a\",\"arguments\":{\"x\":1},\"result\":{\"ok\":true},\"error\":null,\"round\":1,\"turn_id\":1}]");
    forge_free(s);
    CHECK(cJSON_GetObjectItem(v, "latency_ms") == NULL);
    CHECK(forge_json_num(v, "cost_usd", 0) == 0.5);
    cJSON_Delete(v);
    cJSON_Delete(t);
    /* no transcript: an error case */
    cJSON *k = make_case("{\"expect\":{}}"), *r = NULL;
    struct forge_err err = {0};
    CHECK_INT(forge_assert_case(k, NULL, NULL, &r, &err), 0);
    CHECK_STR(forge_json_str(r, "error"), "no transcript for this case");
    cJSON_Delete(r);
    cJSON_Delete(k);
    /* latency from the agent turns when metadata has none */
    r = run_case("{\"expect\":{\"maxLatencyMs\":10}}", traj("x", NULL, -1, -1));
    CHECK(passed(r));
    cJSON_Delete(r);
}

TEST(allocation_failures_are_clean)
{
    /* every allocation of a rich case may fail; each failure must return ENOMEM and leak nothing */
    const char *cj = "{\"expect\":{\"toolsCalled\":[\"a\"],\"responseContains\":[\"x\"],\"toolSequence\":{\"steps\":[\"a\"]},"
                     "\"tool_calls\":{\"required_tools\":[\"a\"]},\"toolArgs\":[{\"tool\":\"a\",\"args\":{}}],\"toolCallF1\":{\"expected\":[\"a\"]}}}";
    for (long n = 1; n < 400; n++) {
        cJSON *k = make_case(cj), *t = traj("x", names("a"), 5, 0.1), *r = NULL;
        struct forge_err err = {0};
        forge_alloc_fail_at(n);
        int rc = forge_assert_case(k, t, NULL, &r, &err);
        forge_alloc_fail_at(0);
        CHECK(rc == 0 || rc == FORGE_ENOMEM);
        CHECK((rc == 0) == (r != NULL));
        cJSON_Delete(r);
        cJSON_Delete(k);
        cJSON_Delete(t);
    }
}

TEST(schema_assertions)
{
    cJSON *tools = cJSON_Parse("{\"w\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}");
    g_opts.tools = tools;
    EXPECT_PASS("{\"expect\":{\"argsMatchSchema\":true}}", traj("", "[{\"name\":\"w\",\"arguments\":{\"city\":\"Oslo\"}}]", -1, -1));
    EXPECT_FAIL("{\"expect\":{\"argsMatchSchema\":true}}", traj("", "[{\"name\":\"w\",\"arguments\":{\"city\":7}}]", -1, -1),
                "w arguments: /city: expected string, got integer");
    EXPECT_FAIL("{\"expect\":{\"argsMatchSchema\":true}}", traj("", "[{\"name\":\"w\"}]", -1, -1),
                "w arguments: missing required property 'city'");
    /* a tool without a known schema is warned about, not failed */
    cJSON *r = run_case("{\"expect\":{\"argsMatchSchema\":true}}", traj("", "[{\"name\":\"q\"}]", -1, -1));
    CHECK(passed(r));
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "warnings"), 0)->valuestring,
              "argsMatchSchema: no schema is known for tool q (give it with --tools)");
    cJSON_Delete(r);
    g_opts.tools = NULL;
    cJSON_Delete(tools);
    EXPECT_PASS("{\"expect\":{\"responseSchema\":{\"type\":\"object\",\"required\":[\"a\"]}}}", traj("{\"a\":1}", NULL, -1, -1));
    EXPECT_FAIL("{\"expect\":{\"responseSchema\":{\"type\":\"object\",\"required\":[\"a\"]}}}", traj("{\"b\":1}", NULL, -1, -1),
                "response does not match responseSchema: missing required property 'a'");
    EXPECT_FAIL("{\"expect\":{\"responseSchema\":true}}", traj("hello", NULL, -1, -1),
                "response is not JSON: response:1:1: not a JSON value near 'hello'");
    /* the grammar of jsonValid: cJSON would read [01] */
    EXPECT_FAIL("{\"expect\":{\"responseSchema\":{\"type\":\"array\"}}}", traj("[01]", NULL, -1, -1),
                "response is not JSON: response:1:2: a number with a leading zero near '01]'");
    EXPECT_FAIL("{\"expect\":{\"tool_calls\":{\"expect\":[{\"tool\":\"w\",\"args\":{\"n\":{\"json_schema\":{\"type\":\"integer\",\"maximum\":3}}}}]}}}",
                traj("", "[{\"name\":\"w\",\"arguments\":{\"n\":5}}]", -1, -1),
                "expect[0] (tool \"w\"): argument \"n\": does not match json_schema: 5 is greater than the maximum 3");
}

TEST(lean_results)
{
    g_opts.lean = true;
    cJSON *r = run_case("{\"expect\":{\"toolsCalled\":[\"a\"],\"responseContains\":[\"x\"],\"weights\":{\"toolsCalled\":3}}}",
                        traj("y", names("a"), -1, -1));
    g_opts.lean = false;
    const cJSON *as = cJSON_GetObjectItem(r, "assertions");
    CHECK_INT(cJSON_GetArraySize(as), 1);
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(as, 0), "type"), "responseContains");
    CHECK(fabs(forge_json_num(r, "score", 0) - 0.75) < 1e-12);
    CHECK(cJSON_GetObjectItem(r, "toolsCalled") == NULL);
    cJSON_Delete(r);
}

/* Case-insensitive containment, as responseContains reads it: ASCII case, every place the first
 * byte occurs (in either case), texts shorter than the needle, and Unicode case folding. */
TEST(icontains)
{
    struct forge_err err = {0};
    static const struct { const char *hay, *needle; int want; } t[] = {
        {"It is cloudy in Paris", "paris", 1},
        {"It is cloudy in Paris", "PARIS", 1},
        {"It is cloudy in Paris", "It IS", 1},
        {"Par Pa Pari Paris", "paris", 1},   /* three false starts first */
        {"Par Pa Pari", "paris", 0},         /* the text ends inside a candidate */
        {"pp", "ppp", 0},
        {"ppp", "ppp", 1},
        {"a.b (c)", ".B (", 1},              /* a first byte that is not a letter */
        {"a.b (c)", "(C) ", 0},
        {"18\xc2\xb0" "C", "\xc2\xb0" "c", 1},     /* bytes past ASCII in the text */
        {"", "x", 0},
        {"anything", "", 1},
        {"Temperature: 5 \xe2\x84\xaa", "5 k", 1}, /* KELVIN SIGN folds to k */
        {"Stra\xc3\x9f" "e", "STRASSE", 0},   /* simple folding only, as before */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        CHECK_INT(forge_assert_icontains(t[i].hay, t[i].needle, &err), t[i].want);
}

int main(void)
{
    RUN(icontains);
    RUN(lean_results);
    RUN(schema_assertions);
    RUN(upstream_pinned_cases);
    RUN(upstream_other_checks);
    RUN(tools_not_called_and_params);
    RUN(templates);
    RUN(template_has);
    RUN(no_tool_errors_and_tokens);
    RUN(checks_form);
    RUN(waza_tool_calls);
    RUN(sequences);
    RUN(f1_and_args);
    RUN(verifiers_weights);
    RUN(custom_assertions);
    RUN(run_view_and_errors);
    RUN(allocation_failures_are_clean);
    return TEST_DONE();
}
