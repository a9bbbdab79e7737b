/* Unit tests for eval/suite and score/stats: summary, Wilson interval, percentiles, gates,
 * baseline comparison, and the report builders. */
#include "test.h"
#include "base/alloc.h"
#include "data/json.h"
#include "eval/suite.h"
#include "report/report.h"
#include "score/stats.h"

#include <math.h>
#include <stdlib.h>

static bool near(double a, double b) { return fabs(a - b) < 5e-6; }

TEST(wilson_matches_upstream)
{
    double lo, hi;
    forge_stats_wilson(10, 10, 1.96, &lo, &hi);
    CHECK(near(lo, 0.72246) && hi == 1);
    forge_stats_wilson(0, 10, 1.96, &lo, &hi);
    CHECK(lo == 0 && near(hi, 0.27754));
    forge_stats_wilson(5, 10, 1.96, &lo, &hi);
    CHECK(near(lo, 0.23659) && near(hi, 0.76341));
    forge_stats_wilson(9, 10, 1.96, &lo, &hi);
    CHECK(near(lo, 0.59584) && near(hi, 0.98212));
    forge_stats_wilson(0, 0, 1.96, &lo, &hi);
    CHECK(lo == 0 && hi == 0);
}

TEST(quantiles)
{
    double v[] = {100, 300, 200};
    CHECK(forge_stats_quantile(v, 3, 0.95) == 200);
    double w[20];
    for (int i = 0; i < 20; i++) w[i] = 20 - i;
    CHECK(forge_stats_quantile(w, 20, 0.95) == 19); /* sorted[floor(19 * 0.95)] = sorted[18] */
    CHECK(forge_stats_quantile(w, 20, 0.5) == 10);
    CHECK(forge_stats_quantile(w, 0, 0.95) == 0);
}

/* The 19 pinned cases of seed-anchors §A11 as one suite: 9 passed, 9 failed, 1 skipped. */
static const struct { const char *expect; const char *response; const char *tools; double latency; } pinned[] = {
    {"{\"toolsCalled\":[\"a\"]}", "", "a,a", -1},
    {"{\"toolsCalled\":[\"a\",\"b\"]}", "", "b,a", -1},
    {"{\"toolsCalled\":[]}", "", "a", -1},
    {"{\"responseContains\":[\"PARIS\"]}", "paris is nice", "", -1},
    {"{\"responseContainsAny\":[[\"PARIS\"]]}", "paris is nice", "", -1},
    {"{\"responseContainsAny\":[\"x1\",\"warm\"]}", "It is warm", "", -1},
    {"{\"responseNotContains\":[\"i don't know\"]}", "I DON'T KNOW", "", -1},
    {"{\"responseNonEmpty\":true}", "Unfortunately, I could not", "", -1},
    {"{\"responseNonEmpty\":true}", "   ", "", -1},
    {"{\"toolsAcceptable\":[[\"__none__\"]]}", "", "", -1},
    {"{\"toolsAcceptable\":[[\"a\"]]}", "", "a,a", -1},
    {"{\"toolsAcceptable\":[]}", "", "z", -1},
    {"{\"maxLatencyMs\":100}", "", "", 150},
    {"{\"minToolCalls\":2,\"maxToolCalls\":3}", "", "a", -1},
    {"{\"regexPattern\":\"^\\\\d{3}$\"}", "123", "", -1},
    {"PREAMBLE", "", "a", -1},
    {"{\"toolsNotCalled\":[\"b\"],\"toolParams\":[{\"tool\":\"a\",\"paramName\":\"x\",\"assertion\":\"notExists\"}]}", "", "a", -1},
    {"SKIP", "", "", -1},
    {"{\"toolsCalled\":[\"a\"],\"responseContains\":[\"foo\",\"bar\"],\"responseNotContains\":[\"baz\"],\"responseContainsAny\":[[\"q\"],[\"r\"]]}",
     "foo baz", "b", -1},
};

static cJSON *make_traj(const char *response, const char *tools, double latency)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "trajectory_id", "x");
    cJSON *turns = cJSON_AddArrayToObject(t, "turns");
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "role", "agent");
    cJSON_AddStringToObject(a, "content", response);
    if (latency >= 0) cJSON_AddNumberToObject(a, "latency_ms", latency);
    cJSON *calls = cJSON_AddArrayToObject(a, "tool_calls");
    char buf[64];
    snprintf(buf, sizeof buf, "%s", tools);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", tok);
        cJSON_AddItemToArray(calls, c);
    }
    cJSON_AddItemToArray(turns, a);
    return t;
}

static cJSON *pinned_report(const struct forge_gates *g, const cJSON *baseline, int flip)
{
    struct forge_suite *s = forge_suite_new();
    struct forge_err err = {0};
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
        char cj[1024];
        if (strcmp(pinned[i].expect, "PREAMBLE") == 0)
            snprintf(cj, sizeof cj, "{\"id\":\"c%02zu\",\"input\":{\"message\":\"m\"},\"requiresPreamble\":true}", i + 1);
        else if (strcmp(pinned[i].expect, "SKIP") == 0)
            snprintf(cj, sizeof cj, "{\"id\":\"c%02zu\",\"input\":{\"message\":\"\"},\"expect\":{}}", i + 1);
        else
            snprintf(cj, sizeof cj, "{\"id\":\"c%02zu\",\"input\":{\"message\":\"m\"},\"expect\":%s}", i + 1, pinned[i].expect);
        cJSON *k = cJSON_Parse(cj);
        cJSON *t = make_traj((int)i == flip ? "123" : pinned[i].response, pinned[i].tools, pinned[i].latency);
        cJSON *r = NULL;
        CHECK_INT(forge_eval_case(k, t, NULL, &r, &err), 0);
        CHECK_INT(forge_suite_add(s, r, &err), 0);
        cJSON_Delete(k);
        cJSON_Delete(t);
    }
    cJSON *rep = NULL;
    CHECK_INT(forge_suite_report(s, g, baseline, &rep, &err), 0);
    forge_suite_free(s);
    return rep;
}

TEST(pinned_suite_summary_and_gate)
{
    setenv("SOURCE_DATE_EPOCH", "1763700000", 1);
    struct forge_gates g = {.has_min_pass_rate = true, .min_pass_rate = 0.5};
    cJSON *rep = pinned_report(&g, NULL, -1);
    const cJSON *s = cJSON_GetObjectItem(rep, "summary");
    CHECK_INT(forge_json_num(s, "totalCases", 0), 19);
    CHECK_INT(forge_json_num(s, "passed", 0), 9);
    CHECK_INT(forge_json_num(s, "failed", 0), 9);
    CHECK_INT(forge_json_num(s, "skipped", 0), 1);
    CHECK_INT(forge_json_num(s, "errors", -1), 0);
    CHECK(forge_json_num(s, "passRate", 0) == 0.5);
    CHECK(forge_json_num(s, "p95LatencyMs", 0) == 150);
    const cJSON *gate = cJSON_GetArrayItem(cJSON_GetObjectItem(rep, "gates"), 0);
    CHECK_STR(forge_json_str(gate, "gate"), "passRate");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(gate, "pass")));
    /* failed cases make the run fail even when the gate passes */
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(rep, "passed")));
    CHECK_STR(forge_json_str(rep, "runId"), "run-20251121T044000000Z");
    CHECK_STR(forge_json_str(rep, "timestamp"), "2025-11-21T04:40:00.000Z");

    /* baseline: case 13 (latency) now fails with 150 -> flip case 15 (regex) to fail too */
    cJSON *rep2 = pinned_report(&g, rep, 14); /* case c15 gets "123" anyway: unchanged */
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(rep2, "regressions")), 0);
    cJSON_Delete(rep2);
    rep2 = pinned_report(NULL, rep, 3); /* c04 responds "123": PARIS missing -> regression */
    char *regs = forge_json_print(cJSON_GetObjectItem(rep2, "regressions"), 0);
    CHECK_STR(regs, "[\"c04\"]");
    forge_free(regs);
    CHECK_STR(forge_json_str(rep2, "baselineRunId"), "run-20251121T044000000Z");
    /* a repeated id in the baseline: its last case counts */
    for (int last_passed = 0; last_passed < 2; last_passed++) {
        char text[200];
        snprintf(text, sizeof text, "{\"runId\":\"r0\",\"cases\":[{\"id\":\"c04\",\"passed\":%s},"
                 "{\"id\":\"c04\",\"passed\":%s}]}", last_passed ? "false" : "true",
                 last_passed ? "true" : "false");
        cJSON *base = cJSON_Parse(text);
        cJSON *rep5 = pinned_report(NULL, base, 3);
        char *r5 = forge_json_print(cJSON_GetObjectItem(rep5, "regressions"), 0);
        CHECK_STR(r5, last_passed ? "[\"c04\"]" : "[]");
        forge_free(r5);
        cJSON_Delete(rep5);
        cJSON_Delete(base);
    }
    cJSON *rep3 = pinned_report(NULL, rep2, -1);
    char *np = forge_json_print(cJSON_GetObjectItem(rep3, "newPasses"), 0);
    CHECK_STR(np, "[\"c04\"]");
    forge_free(np);
    cJSON_Delete(rep3);
    cJSON_Delete(rep2);

    /* a gate over its bound fails the run */
    struct forge_gates g2 = {.has_min_pass_rate = true, .min_pass_rate = 0.51, .has_max_p95_ms = true, .max_p95_ms = 150,
                             .has_max_cost = true, .max_cost = 0};
    cJSON *rep4 = pinned_report(&g2, NULL, -1);
    const cJSON *gs = cJSON_GetObjectItem(rep4, "gates");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(gs, 0), "pass")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(gs, 1), "pass")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(gs, 2), "pass")));
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(gs, 2), "gate"), "p95LatencyMs");

    /* report builders */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    CHECK_INT(forge_report_console_summary(&b, rep4), 0);
    CHECK(strstr(b.data, "\xe2\x9c\x97 9/18 passed (50.0%), 1 skipped, p95 latency: 150ms\n") != NULL);
    CHECK(strstr(b.data, "gate passRate >= 0.51: actual 0.5 FAIL\n") != NULL);
    CHECK(strstr(b.data, "  \xe2\x9c\x97 c03: unexpected: a\n") != NULL);
    forge_buf_reset(&b);
    CHECK_INT(forge_report_junit(&b, rep4), 0);
    CHECK(strstr(b.data, "<testsuites name=\"forge\" tests=\"19\" failures=\"9\" errors=\"0\" skipped=\"1\" time=\"0.150\">") != NULL);
    CHECK(strstr(b.data, "<testcase name=\"c07\" classname=\"forge\" time=\"0.000\">\n      <failure type=\"assertion\" "
                         "message=\"Forbidden content found: i don&apos;t know\">") != NULL);
    CHECK(strstr(b.data, "<skipped message=\"no input message\"/>") != NULL);
    forge_buf_reset(&b);
    CHECK_INT(forge_report_md(&b, rep4), 0);
    CHECK(strstr(b.data, "| 19 | 9 | 9 | 0 | 1 | 50.0% | 29.0% - 71.0% |") != NULL);
    CHECK(strstr(b.data, "| passRate | 0.51 | 0.5 | **fail** |") != NULL);
    forge_buf_free(&b);
    cJSON_Delete(rep4);
    cJSON_Delete(rep);
}

TEST(console_case_lines)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *r = cJSON_Parse("{\"id\":\"x\",\"passed\":false,\"assertions\":[{\"type\":\"toolsCalled\",\"passed\":false,\"reason\":\"missing: a\"},"
                           "{\"type\":\"jsonValid\",\"passed\":true,\"reason\":null}],\"warnings\":[\"w1\"]}");
    CHECK_INT(forge_report_console_case(&b, r), 0);
    CHECK_STR(b.data, "\xe2\x9c\x97 x\n    toolsCalled: missing: a\n    warning: w1\n");
    cJSON_Delete(r);
    forge_buf_reset(&b);
    r = cJSON_Parse("{\"id\":\"y\",\"passed\":false,\"error\":\"no transcript for this case\"}");
    CHECK_INT(forge_report_console_case(&b, r), 0);
    CHECK_STR(b.data, "! y: error: no transcript for this case\n");
    cJSON_Delete(r);
    forge_buf_free(&b);
}

TEST(junit_is_well_formed_xml_whatever_the_text)
{
    /* strings that did not come from parsed JSON (Lua, providers) may hold anything */
    cJSON *rep = cJSON_CreateObject(), *cases = cJSON_AddArrayToObject(rep, "cases");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "id", "a\x01" "b\x1f<&>\t");
    cJSON_AddStringToObject(c, "suite", "s\xff");
    cJSON_AddStringToObject(c, "error", "cut \xe2\x82, U+FFFE \xef\xbf\xbe, U+FFFF \xef\xbf\xbf, U+FDD0 "
                                        "\xef\xb7\x90, U+10FFFF \xf4\x8f\xbf\xbf, surrogate \xed\xa0\x80, "
                                        "over-long \xc0\xaf, kept \xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd\r\n");
    cJSON_AddItemToArray(cases, c);
    cJSON_AddObjectToObject(rep, "summary");
    struct forge_buf b;
    forge_buf_init(&b, 0);
    CHECK_INT(forge_report_junit(&b, rep), 0);
#define R "\xef\xbf\xbd"
    CHECK_STR(b.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<testsuites name=\"forge\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
                      "  <testsuite name=\"s" R "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                      "    <testcase name=\"a" R "b" R "&lt;&amp;&gt;\t\" classname=\"s" R "\" time=\"0.000\">\n"
                      "      <error type=\"error\" message=\"cut " R R ", U+FFFE " R ", U+FFFF " R ", U+FDD0 " R
                      ", U+10FFFF " R ", surrogate " R R R ", over-long " R R ", kept \xc3\xa9 \xf0\x9f\x98\x80 " R "\r&#10;\"/>\n"
                      "    </testcase>\n"
                      "  </testsuite>\n"
                      "</testsuites>\n");
#undef R
    forge_buf_free(&b);
    cJSON_Delete(rep);
}

int main(void)
{
    RUN(wilson_matches_upstream);
    RUN(quantiles);
    RUN(pinned_suite_summary_and_gate);
    RUN(console_case_lines);
    RUN(junit_is_well_formed_xml_whatever_the_text);
    return TEST_DONE();
}
