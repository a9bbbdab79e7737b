/* Unit tests for eval/coverage and eval/gen: words and similarity, what each eval key counts for,
 * separation of overlapping tools, argument coverage, verifier stubs, and allocation failures. */
#include "test.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "eval/coverage.h"
#include "eval/gen.h"

#include <stdlib.h>
#include <string.h>

static cJSON *J(const char *text)
{
    cJSON *v = cJSON_Parse(text);
    if (!v) {
        fprintf(stderr, "bad JSON in test: %s\n", text);
        abort();
    }
    return v;
}

static const char tools_json[] =
    "[{\"name\": \"a\", \"description\": \"Alpha pages about topics.\","
    "  \"parameters\": {\"type\": \"object\", \"required\": [\"q\"], \"properties\": {\"q\": {\"type\": \"string\"},"
    "    \"mode\": {\"enum\": [\"fast\", \"slow\"]}, \"tags\": {\"type\": \"array\", \"items\": {\"enum\": [\"x\", \"y\"]}},"
    "    \"filters\": {\"type\": \"object\"}}}},"
    " {\"name\": \"b\", \"description\": \"Beta pages about topics.\"},"
    " {\"name\": \"c\", \"description\": \"Weather for a city.\"}]";

/* The report of <cases> (a JSON array of cases, all in a file named <file>). */
static cJSON *report(const char *cases, const char *file, double overlap)
{
    cJSON *tools = J(tools_json), *cs = J(cases), *entries = cJSON_CreateArray(), *c;
    cJSON_ArrayForEach(c, cs) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "file", file);
        cJSON_AddItemToObject(e, "case", cJSON_Duplicate(c, 1));
        cJSON_AddItemToArray(entries, e);
    }
    struct forge_cov_opts o = {.overlap = overlap};
    struct forge_err err = {0};
    cJSON *r = forge_coverage_compute(tools, NULL, entries, &o, &err);
    cJSON_Delete(tools);
    cJSON_Delete(cs);
    cJSON_Delete(entries);
    return r;
}

static int tool_count(const cJSON *r, const char *tool, const char *key)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(r, "tools"))
        if (!strcmp(forge_json_str(t, "name"), tool))
            return (int)forge_json_num(t, key, -1);
    return -1;
}

static double sim(const char *a, const char *b)
{
    cJSON *x = J(a), *y = J(b), *shared = NULL;
    double s = forge_coverage_similarity(x, y, &shared);
    cJSON_Delete(x);
    cJSON_Delete(y);
    cJSON_Delete(shared);
    return s;
}

TEST(similarity)
{
    /* camelCase and snake_case give the same words; stop words and one-letter words go */
    CHECK(sim("{\"name\": \"getWeatherNow\"}", "{\"name\": \"get_weather_now\"}") == 1);
    CHECK(sim("{\"name\": \"x\", \"description\": \"Use when the user asks a\"}", "{\"name\": \"y\"}") == 0);
    /* a final s goes from words of 4+ letters, not from "ss" */
    CHECK(sim("{\"name\": \"pages\"}", "{\"name\": \"page\"}") == 1);
    CHECK(sim("{\"name\": \"class\"}", "{\"name\": \"clas\"}") == 0);
    /* trigger phrases count; |shared| / |all| */
    CHECK(sim("{\"name\": \"alpha\", \"triggerPhrases\": [\"beta gamma\"]}",
              "{\"name\": \"beta\", \"description\": \"delta\"}") == 0.25);
    cJSON *x = J("{\"name\": \"search_web\", \"description\": \"Search the web\"}"),
          *y = J("{\"name\": \"search_news\", \"description\": \"search NEWS on the web\"}"), *shared = NULL;
    CHECK(forge_coverage_similarity(x, y, &shared) == 2.0 / 3);
    char *s = forge_json_print(shared, 0);
    CHECK_STR(s, "[\"search\",\"web\"]");
    forge_free(s);
    cJSON_Delete(x);
    cJSON_Delete(y);
    cJSON_Delete(shared);
}

TEST(what_counts)
{
    /* expected to be called by every key that says so; toolParams alone does not */
    const char *keys[] = {
        "{\"id\": \"1\", \"expect\": {\"toolsCalled\": \"a\"}}",
        "{\"id\": \"1\", \"expectedTool\": \"a\"}",
        "{\"id\": \"1\", \"expectedTools\": [\"a\"]}",
        "{\"id\": \"1\", \"checks\": [{\"type\": \"tool_called\", \"tool\": \"a\"}]}",
        "{\"id\": \"1\", \"expect\": {\"tool_calls\": {\"required_tools\": [\"a\"]}}}",
        "{\"id\": \"1\", \"expect\": {\"toolSequence\": {\"steps\": [[\"a\", \"c\"]]}}}",
        "{\"id\": \"1\", \"expect\": {\"toolCallF1\": {\"expected\": [\"a\"]}}}",
        "{\"id\": \"1\", \"expect\": {\"toolArgs\": [{\"tool\": \"a\", \"args\": {}}]}}",
        "{\"id\": \"1\", \"expect\": {\"toolsAcceptable\": [[\"c\"], [\"a\"]]}}",
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "[%s]", keys[i]);
        cJSON *r = report(buf, "x.golden.json", 0.3);
        CHECK_INT(tool_count(r, "a", "called"), 1);
        CHECK_INT(tool_count(r, "a", "golden"), 1);
        CHECK_INT(tool_count(r, "b", "called"), 0);
        cJSON_Delete(r);
    }
    cJSON *r = report("[{\"id\": \"1\", \"expect\": {\"toolParams\": [{\"tool\": \"a\", \"paramName\": \"q\", "
                      "\"assertion\": \"exists\"}]}}]", "x.json", 0.3);
    CHECK_INT(tool_count(r, "a", "called"), 0);
    cJSON_Delete(r);
    /* not called: explicit lists, or a case that expects no call at all */
    const char *nots[] = {
        "{\"id\": \"1\", \"expect\": {\"toolsNotCalled\": [\"a\"]}}",
        "{\"id\": \"1\", \"expect\": {\"tool_calls\": {\"forbidden_tools\": [\"a\"]}}}",
        "{\"id\": \"1\", \"expect\": {\"toolsAcceptable\": [[\"__none__\"]]}}",
        "{\"id\": \"1\", \"expect\": {\"maxToolCalls\": 0}}",
        "{\"id\": \"1\", \"expect\": {\"tool_calls\": {\"max_calls\": 0}}}",
    };
    for (size_t i = 0; i < sizeof nots / sizeof *nots; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "[%s]", nots[i]);
        r = report(buf, "x.json", 0.3);
        CHECK_INT(tool_count(r, "a", "not_called"), 1);
        CHECK_INT(tool_count(r, "b", "not_called"), i >= 2); /* "no call at all" excludes every tool */
        cJSON_Delete(r);
    }
    r = report("[{\"id\": \"1\", \"expect\": {\"toolsCalled\": [\"a\"]}}]", "x.json", 0.3);
    CHECK_INT(tool_count(r, "b", "not_called"), 0); /* set equality is not an explicit exclusion */
    cJSON_Delete(r);
    /* golden or labeled: label key, then file name, then id */
    r = report("[{\"id\": \"gs-1\", \"label\": \"correct\", \"expectedTool\": \"a\"},"
               " {\"id\": \"ls-2\", \"expect\": {\"toolsCalled\": [\"b\"]}},"
               " {\"id\": \"gs-3\", \"expect\": {\"toolsCalled\": [\"c\"]}}]", "dir.golden.x/cases.json", 0.3);
    CHECK_INT(tool_count(r, "a", "labeled"), 1);
    CHECK_INT(tool_count(r, "a", "golden"), 0);
    CHECK_INT(tool_count(r, "b", "labeled"), 1);
    CHECK_INT(tool_count(r, "c", "golden"), 1);
    cJSON_Delete(r);
}

/* The ids of the cases that separate a and b. */
static char *separated(const char *cases)
{
    cJSON *r = report(cases, "x.labeled.json", 0.3);
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(r, "overlaps");
    char *s = forge_json_print(cJSON_GetObjectItemCaseSensitive(ov->child, "separated_by"), 0);
    cJSON_Delete(r);
    return s;
}

TEST(separation)
{
    static const struct {
        const char *expect;
        bool sep;
    } t[] = {
        {"{\"toolsCalled\": [\"a\"]}", true},
        {"{\"toolsCalled\": [\"a\", \"b\"]}", false},
        {"{\"toolsCalled\": [\"a\", \"c\"], \"toolsNotCalled\": [\"b\"]}", true},
        {"{\"toolsNotCalled\": [\"b\"]}", false},
        {"{\"toolsAcceptable\": [[\"a\"], [\"b\"]]}", false},
        {"{\"toolsAcceptable\": [[\"b\"], [\"a\"], [\"a\", \"b\"]]}", false},
        {"{\"toolsAcceptable\": [[\"a\"], [\"a\", \"b\"]]}", true},
        {"{\"toolsAcceptable\": [[\"a\", \"c\"], [\"b\"]]}", true},
        {"{\"toolsAcceptable\": [[\"c\"]]}", false},
        {"{\"toolsCalled\": [\"c\"], \"toolsNotCalled\": [\"a\"]}", false},
        {"{\"tool_calls\": {\"required_tools\": [\"b\"], \"forbidden_tools\": [\"a\"]}}", true},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "[{\"id\": \"k\", \"expect\": %s}]", t[i].expect);
        char *s = separated(buf);
        if (strcmp(s, t[i].sep ? "[\"k\"]" : "[]"))
            fprintf(stderr, "separation %zu: %s\n", i, t[i].expect);
        CHECK_STR(s, t[i].sep ? "[\"k\"]" : "[]");
        forge_free(s);
    }
}

static int arg_cases(const cJSON *r, const char *arg, const char *kind, const char *value)
{
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(r, "arguments")) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
        if (!strcmp(forge_json_str(a, "argument"), arg) && !strcmp(forge_json_str(a, "kind"), kind) &&
            (!value || (cJSON_IsString(v) && !strcmp(v->valuestring, value))))
            return (int)forge_json_num(a, "cases", -1);
    }
    return -1;
}

TEST(arguments)
{
    cJSON *r = report(
        "[{\"id\": \"1\", \"expectedTool\": \"a\", \"expectedArgs\": {\"mode\": \"fast\"}},"
        " {\"id\": \"2\", \"expect\": {\"toolArgs\": [{\"tool\": \"a\", \"args\": {\"tags\": [\"y\", \"z\"]}}]}},"
        " {\"id\": \"3\", \"expect\": {\"toolParams\": [{\"tool\": \"a\", \"paramName\": \"filters.city\", \"assertion\": \"matches\", \"value\": \".\"}]}},"
        " {\"id\": \"4\", \"expect\": {\"tool_calls\": {\"expect\": [{\"tool\": \"^A$\", \"args\": {\"mode\": {\"equals\": \"slow\"}}}]}}},"
        " {\"id\": \"5\", \"expect\": {\"toolParams\": [{\"tool\": \"b\", \"paramName\": \"mode\", \"assertion\": \"equals\", \"value\": \"fast\"}]}},"
        " {\"id\": \"6\", \"checks\": [{\"type\": \"arg_equals\", \"tool\": \"a\", \"arg\": \"mode\", \"value\": \"fast\"}]}]",
        "x.json", 0.3);
    CHECK_INT(arg_cases(r, "mode", "enum", "fast"), 2);   /* case 5 names another tool */
    CHECK_INT(arg_cases(r, "mode", "enum", "slow"), 1);   /* the grader's regex, caseless */
    CHECK_INT(arg_cases(r, "tags", "enum", "y"), 1);      /* items.enum, inside an array value */
    CHECK_INT(arg_cases(r, "tags", "enum", "x"), 0);
    CHECK_INT(arg_cases(r, "filters", "optional", NULL), 1); /* a path counts for its top level */
    CHECK_INT(arg_cases(r, "mode", "optional", NULL), 3);
    CHECK_INT(arg_cases(r, "q", "optional", NULL), -1);   /* required: not an item */
    CHECK_INT(forge_json_num(r, "items", 0), 3 * 5 + 1 + 4 + 3); /* tools, the a~b pair, enums, optionals */
    cJSON_Delete(r);
}

TEST(groups_and_stubs)
{
    cJSON *t = J("{\"name\": \"x\", \"description\": \"Stock QUOTES and the 5-day forecast\", \"tags\": [\"portfolio\"]}");
    cJSON *g = forge_coverage_groups(t);
    char *s = forge_json_print(g, 0);
    CHECK_STR(s, "[\"holdings\",\"quotes\",\"forecast\"]");
    forge_free(s);
    cJSON_Delete(g);
    cJSON_Delete(t);
    cJSON *rep = J("{\"tools\": [{\"name\": \"w1\", \"verifiers\": [], \"groups\": [\"weather\"]},"
                   " {\"name\": \"w2\", \"verifiers\": [], \"groups\": [\"weather\", \"forecast\"]},"
                   " {\"name\": \"ok\", \"verifiers\": [\"v\"], \"groups\": [\"unknown\"]},"
                   " {\"name\": \"a.b-c\", \"verifiers\": [], \"groups\": [\"unknown\"]}]}");
    cJSON *taken = J("[\"weather_verifier\"]");
    struct forge_buf b;
    forge_buf_init(&b, 0);
    CHECK_INT(forge_gen_verifiers(&b, rep, taken), 2);
    CHECK(strstr(b.data, "name = \"weather_verifier_2\",\n  tools = { \"w1\", \"w2\" },\n  order = \"U-0001\"") != NULL);
    CHECK(strstr(b.data, "name = \"a_b_c_verifier\",\n  tools = { \"a.b-c\" },\n  order = \"U-0002\"") != NULL);
    CHECK(strstr(b.data, "\"ok\"") == NULL);
    forge_buf_free(&b);
    cJSON_Delete(rep);
    cJSON_Delete(taken);
}

TEST(targets)
{
    cJSON *g = J("{\"kind\": \"enum\", \"tool\": \"../x/y\"}");
    char *p = forge_gen_target("out/", g);
    CHECK_STR(p, "out/_.._x_y.golden.json");
    forge_free(p);
    cJSON_Delete(g);
    g = J("{\"kind\": \"overlap\", \"tool\": \"a\", \"other\": \"b\"}");
    p = forge_gen_target("", g);
    CHECK_STR(p, "a.labeled.json");
    forge_free(p);
    cJSON_Delete(g);
}

/* Every allocation failure gives NULL with FORGE_ENOMEM or a report, never a crash or a leak
 * (the sanitizer build checks both). */
TEST(allocation_failures)
{
    cJSON *tools = J(tools_json), *entries = J(
        "[{\"file\": \"x.labeled.json\", \"case\": {\"id\": \"1\", \"expectedTool\": \"a\", \"expectedArgs\": {\"mode\": \"fast\"}}},"
        " {\"file\": \"x.labeled.json\", \"case\": {\"id\": \"2\", \"expect\": {\"toolsAcceptable\": [[\"a\"], [\"a\", \"b\"]]}}}]");
    cJSON *map = J("{\"a\": {\"overlaps\": [\"c\"], \"clusters\": [[\"a\", \"b\", \"c\"]]}}");
    struct forge_cov_opts o = {.overlap = 0.3, .overlap_map = map};
    bool completed = false;
    long n = 1;
    for (; n < 200000 && !completed; n++) {
        struct forge_err err = {0};
        forge_alloc_fail_at(n);
        cJSON *r = forge_coverage_compute(tools, NULL, entries, &o, &err);
        long used = forge_alloc_fail_at(0);
        if (!r)
            CHECK_INT(err.code, FORGE_ENOMEM);
        cJSON_Delete(r);
        completed = used < n;
    }
    CHECK(completed);
    CHECK(n > 100);
    cJSON_Delete(tools);
    cJSON_Delete(entries);
    cJSON_Delete(map);
}

static void *hook_malloc(size_t n)
{
    return forge_malloc(n);
}

static void hook_free(void *p)
{
    forge_free(p);
}

int main(void)
{
    RUN(similarity);
    RUN(what_counts);
    RUN(separation);
    RUN(arguments);
    RUN(groups_and_stubs);
    RUN(targets);
    cJSON_Hooks hooks = {hook_malloc, hook_free}; /* cJSON's allocations fail too */
    cJSON_InitHooks(&hooks);
    RUN(allocation_failures);
    return TEST_DONE();
}
