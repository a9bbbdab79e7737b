/* Unit tests for data/json. */
#include "test.h"
#include "data/json.h"
#include "base/alloc.h"

static void num(double d, const char *want)
{
    char out[40];
    CHECK_STR(forge_json_number(d, out), want);
}

TEST(numbers_print_like_javascript)
{
    num(0.1 + 0.2, "0.30000000000000004");
    num(1, "1");
    num(-0.0, "0");
    num(1e21, "1e+21");
    num(1e20, "100000000000000000000");
    num(123.456, "123.456");
    num(0.000001, "0.000001");
    num(1e-7, "1e-7");
    num(-1.5e-10, "-1.5e-10");
    num(5e-324, "5e-324");
    num(1.7976931348623157e308, "1.7976931348623157e+308");
    num(2.5, "2.5");
    num(100, "100");
    num(0.5, "0.5");
}

TEST(parse_errors_name_line_and_column)
{
    struct forge_err err = {0};
    const char *text = "{\n  \"a\": 1,\n  \"b\": tru\n}";
    cJSON *v = forge_json_parse(text, strlen(text), "x.json", &err);
    CHECK(v == NULL);
    CHECK_INT(err.code, FORGE_EINVAL);
    CHECK(strncmp(err.msg, "x.json:3:8:", 11) == 0);
    v = forge_json_parse("[1] x", 5, "y.json", &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "y.json:1:5: invalid JSON: unexpected text after the value");
    v = forge_json_parse("  ", 2, "z", &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "z:1:3: expected a JSON value, found end of input");
}

TEST(print_keeps_order_sorts_and_escapes)
{
    struct forge_err err = {0};
    const char *text = "{\"b\":[1,2.50,{}],\"a\":\"x\\n\\u0001\\\"\",\"c\":[]}";
    cJSON *v = forge_json_parse(text, strlen(text), "t", &err);
    CHECK(v != NULL);
    char *s = forge_json_print(v, 0);
    CHECK_STR(s, "{\"b\":[1,2.5,{}],\"a\":\"x\\n\\u0001\\\"\",\"c\":[]}");
    forge_free(s);
    s = forge_json_print(v, FORGE_JSON_SORTED);
    CHECK_STR(s, "{\"a\":\"x\\n\\u0001\\\"\",\"b\":[1,2.5,{}],\"c\":[]}");
    forge_free(s);
    s = forge_json_print(v, FORGE_JSON_PRETTY);
    CHECK_STR(s, "{\n  \"b\": [\n    1,\n    2.5,\n    {}\n  ],\n  \"a\": \"x\\n\\u0001\\\"\",\n  \"c\": []\n}");
    forge_free(s);
    cJSON_Delete(v);
}

TEST(equality_and_paths)
{
    struct forge_err err = {0};
    cJSON *a = forge_json_parse("{\"x\":[1,{\"y\":2}],\"z\":null}", 26, "a", &err);
    cJSON *b = forge_json_parse("{\"z\":null,\"x\":[1.0,{\"y\":2e0}]}", 30, "b", &err);
    cJSON *c = forge_json_parse("{\"z\":null,\"x\":[\"1\",{\"y\":2}]}", 28, "c", &err);
    CHECK(a && b && c);
    CHECK(forge_json_equal(a, b));
    CHECK(!forge_json_equal(a, c));
    CHECK_INT(forge_json_at(a, "x[1].y")->valuedouble, 2);
    CHECK(forge_json_at(a, "x[2]") == NULL);
    CHECK(forge_json_at(a, "[\"z\"]") != NULL);
    CHECK(forge_json_at(a, "") == a);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
}

TEST(utf16_lengths)
{
    CHECK_INT(forge_utf16_len("abc", 3), 3);
    CHECK_INT(forge_utf16_len("é", strlen("é")), 1);
    CHECK_INT(forge_utf16_len("😀", strlen("😀")), 2);
    CHECK_INT(forge_utf16_len("€x", strlen("€x")), 2);
}

int main(void)
{
    RUN(numbers_print_like_javascript);
    RUN(parse_errors_name_line_and_column);
    RUN(print_keeps_order_sorts_and_escapes);
    RUN(equality_and_paths);
    RUN(utf16_lengths);
    return TEST_DONE();
}
