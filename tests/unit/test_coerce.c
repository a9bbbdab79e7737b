/* Unit tests for data/coerce: each rule, the coercion report, and what is left alone. */
#include "test.h"
#include "data/coerce.h"
#include "data/json.h"
#include "base/alloc.h"

static cJSON *J(const char *text)
{
    struct forge_err err;
    cJSON *v = forge_json_parse(text, strlen(text), "<test>", &err);
    if (!v)
        fprintf(stderr, "bad test JSON: %s\n", err.msg);
    return v;
}

static const char *SCHEMA =
    "{\"type\": \"object\", \"required\": [\"city\", \"count\"], \"properties\": {"
    " \"city\": {\"type\": \"string\"},"
    " \"count\": {\"type\": \"integer\"},"
    " \"ratio\": {\"type\": \"number\"},"
    " \"metric\": {\"type\": \"boolean\"},"
    " \"verbose\": {\"type\": [\"boolean\", \"null\"]},"
    " \"unit\": {\"type\": \"string\", \"enum\": [\"celsius\", \"fahrenheit\", \"Kelvin\"]},"
    " \"days\": {\"type\": \"array\", \"items\": {\"type\": \"integer\"}},"
    " \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
    " \"filter\": {\"type\": \"object\"},"
    " \"note\": {\"type\": \"string\"}}}";

/* Coerces <args>; checks the result and the report (compact JSON). */
static void expect(const char *args, int count, const char *want_args, const char *want_log)
{
    struct forge_err err;
    cJSON *s = J(SCHEMA), *a = J(args), *log = NULL;
    int n = forge_coerce_args(a, s, &log, &err);
    CHECK_INT(n, count);
    char *got = forge_json_print(a, 0), *gl = forge_json_print(log, 0);
    CHECK_STR(got, want_args);
    CHECK_STR(gl, want_log);
    forge_free(got);
    forge_free(gl);
    cJSON_Delete(log);
    cJSON_Delete(a);
    cJSON_Delete(s);
}

TEST(strings_to_declared_types)
{
    expect("{\"city\": \"Paris\", \"count\": \"5\", \"ratio\": \"0.25\", \"metric\": \"YES\"}", 3,
           "{\"city\":\"Paris\",\"count\":5,\"ratio\":0.25,\"metric\":true}",
           "[{\"path\":\"/count\",\"from\":\"5\",\"to\":5,\"rule\":\"string-to-integer\"},"
           "{\"path\":\"/ratio\",\"from\":\"0.25\",\"to\":0.25,\"rule\":\"string-to-number\"},"
           "{\"path\":\"/metric\",\"from\":\"YES\",\"to\":true,\"rule\":\"string-to-boolean\"}]");
    expect("{\"count\": \"5.0\", \"metric\": \"f\", \"verbose\": \"no\"}", 3,
           "{\"count\":5,\"metric\":false,\"verbose\":false}",
           "[{\"path\":\"/count\",\"from\":\"5.0\",\"to\":5,\"rule\":\"string-to-integer\"},"
           "{\"path\":\"/metric\",\"from\":\"f\",\"to\":false,\"rule\":\"string-to-boolean\"},"
           "{\"path\":\"/verbose\",\"from\":\"no\",\"to\":false,\"rule\":\"string-to-boolean\"}]");
    /* what does not convert stays for validation to report */
    expect("{\"count\": \"3.14\", \"ratio\": \"0x10\", \"metric\": \"maybe\", \"filter\": \"[1]\"}", 0,
           "{\"count\":\"3.14\",\"ratio\":\"0x10\",\"metric\":\"maybe\",\"filter\":\"[1]\"}", "[]");
    expect("{\"filter\": \"{\\\"a\\\": 1}\"}", 1, "{\"filter\":{\"a\":1}}",
           "[{\"path\":\"/filter\",\"from\":\"{\\\"a\\\": 1}\",\"to\":{\"a\":1},\"rule\":\"string-to-object\"}]");
}

TEST(numbers_to_booleans_and_arrays)
{
    expect("{\"metric\": 1, \"verbose\": 0}", 2, "{\"metric\":true,\"verbose\":false}",
           "[{\"path\":\"/metric\",\"from\":1,\"to\":true,\"rule\":\"number-to-boolean\"},"
           "{\"path\":\"/verbose\",\"from\":0,\"to\":false,\"rule\":\"number-to-boolean\"}]");
    expect("{\"metric\": 2}", 0, "{\"metric\":2}", "[]");
    expect("{\"days\": \"[1, 2]\", \"tags\": \"solo\"}", 2, "{\"days\":[1,2],\"tags\":[\"solo\"]}",
           "[{\"path\":\"/days\",\"from\":\"[1, 2]\",\"to\":[1,2],\"rule\":\"string-to-array\"},"
           "{\"path\":\"/tags\",\"from\":\"solo\",\"to\":[\"solo\"],\"rule\":\"wrap-in-array\"}]");
    expect("{\"days\": 3}", 1, "{\"days\":[3]}",
           "[{\"path\":\"/days\",\"from\":3,\"to\":[3],\"rule\":\"wrap-in-array\"}]");
    /* element-wise for non-string item types */
    expect("{\"days\": [\"1\", 2, \"x\"], \"tags\": [\"1\"]}", 1, "{\"days\":[1,2,\"x\"],\"tags\":[\"1\"]}",
           "[{\"path\":\"/days/0\",\"from\":\"1\",\"to\":1,\"rule\":\"string-to-integer\"}]");
}

TEST(enums_and_drops)
{
    expect("{\"unit\": \"  Celsius \"}", 1, "{\"unit\":\"celsius\"}",
           "[{\"path\":\"/unit\",\"from\":\"  Celsius \",\"to\":\"celsius\",\"rule\":\"enum-match\"}]");
    expect("{\"unit\": \"kelvin\"}", 1, "{\"unit\":\"Kelvin\"}",
           "[{\"path\":\"/unit\",\"from\":\"kelvin\",\"to\":\"Kelvin\",\"rule\":\"enum-match\"}]");
    expect("{\"unit\": \"rankine\"}", 0, "{\"unit\":\"rankine\"}", "[]");
    /* nulls of optional fields go; a required null stays */
    expect("{\"city\": null, \"ratio\": null, \"note\": \"\"}", 1, "{\"city\":null,\"note\":\"\"}",
           "[{\"path\":\"/ratio\",\"from\":null,\"rule\":\"drop-null\"}]");
    /* "" of a non-string (or enum) optional field goes; a plain string's "" stays */
    expect("{\"ratio\": \"\", \"unit\": \"\", \"note\": \"\", \"count\": \"\"}", 2,
           "{\"note\":\"\",\"count\":\"\"}",
           "[{\"path\":\"/ratio\",\"from\":\"\",\"rule\":\"drop-empty-string\"},"
           "{\"path\":\"/unit\",\"from\":\"\",\"rule\":\"drop-empty-string\"}]");
    /* unknown fields and non-object arguments are left alone */
    expect("{\"other\": \"5\"}", 0, "{\"other\":\"5\"}", "[]");
    struct forge_err err;
    cJSON *s = J(SCHEMA), *a = J("[\"5\"]");
    CHECK_INT(forge_coerce_args(a, s, NULL, &err), 0);
    cJSON_Delete(a);
    cJSON_Delete(s);
}

TEST(a_repeated_name_coerces_its_own_member)
{
    /* each member is replaced where it is, not the first of its name */
    expect("{\"count\": \"5\", \"count\": \"6\"}", 2, "{\"count\":5,\"count\":6}",
           "[{\"path\":\"/count\",\"from\":\"5\",\"to\":5,\"rule\":\"string-to-integer\"},"
           "{\"path\":\"/count\",\"from\":\"6\",\"to\":6,\"rule\":\"string-to-integer\"}]");
}

TEST(many_arguments_as_one_at_a_time)
{
    /* past 16 arguments, properties and required names are found by hash: the result and the
     * report are those of coercing each argument alone, in order */
    const char *args =
        "{\"x0\": null, \"city\": null, \"count\": \"5\", \"x1\": \"7\", \"ratio\": \"0.5\", \"x2\": null,"
        " \"metric\": \"yes\", \"x3\": 1, \"verbose\": \"\", \"unit\": \"KELVIN\", \"x4\": [],"
        " \"days\": \"3\", \"x5\": null, \"tags\": \"a\", \"x6\": \"\", \"note\": \"\", \"x7\": null,"
        " \"filter\": \"{}\", \"x8\": 2, \"count\": \"9\", \"unit\": \"\", \"city\": \"Oslo\"}";
    struct forge_err err;
    cJSON *s = J(SCHEMA), *all = J(args), *log = NULL;
    cJSON *want = cJSON_CreateObject(), *want_log = cJSON_CreateArray();
    int want_n = 0;
    for (const cJSON *m = all->child; m; m = m->next) {
        cJSON *one = cJSON_CreateObject(), *l1 = NULL;
        cJSON_AddItemToObject(one, m->string, cJSON_Duplicate(m, 1));
        want_n += forge_coerce_args(one, s, &l1, &err);
        if (one->child)
            cJSON_AddItemToObject(want, one->child->string, cJSON_Duplicate(one->child, 1));
        for (cJSON *e = l1->child; e; e = e->next)
            cJSON_AddItemToArray(want_log, cJSON_Duplicate(e, 1));
        cJSON_Delete(l1);
        cJSON_Delete(one);
    }
    int n = forge_coerce_args(all, s, &log, &err);
    CHECK_INT(n, want_n);
    CHECK(n >= 10); /* the rules are exercised */
    char *got = forge_json_print(all, 0), *wa = forge_json_print(want, 0);
    char *gl = forge_json_print(log, 0), *wl = forge_json_print(want_log, 0);
    CHECK_STR(got, wa);
    CHECK_STR(gl, wl);
    forge_free(got);
    forge_free(wa);
    forge_free(gl);
    forge_free(wl);
    cJSON_Delete(log);
    cJSON_Delete(want_log);
    cJSON_Delete(want);
    cJSON_Delete(all);
    cJSON_Delete(s);
}

int main(void)
{
    RUN(strings_to_declared_types);
    RUN(numbers_to_booleans_and_arrays);
    RUN(enums_and_drops);
    RUN(a_repeated_name_coerces_its_own_member);
    RUN(many_arguments_as_one_at_a_time);
    return TEST_DONE();
}
