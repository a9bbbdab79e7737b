/* Unit tests for score/pyval: Python's json.loads, ==, repr and json.dumps as BFCL relies on. */
#include "test.h"
#include "score/pyval.h"
#include "base/alloc.h"

#include <math.h>

static struct forge_arena A;

static struct forge_pyval *J(const char *text)
{
    struct forge_pyval *v = NULL;
    char msg[200];
    if (forge_py_loads(&A, text, strlen(text), &v, msg, sizeof msg) != 0)
        fprintf(stderr, "parse failed: %s: %s\n", text, msg);
    return v;
}

static const char *loads_error(const char *text)
{
    static char msg[200];
    struct forge_pyval *v;
    if (forge_py_loads(&A, text, strlen(text), &v, msg, sizeof msg) == 0)
        return "(parsed)";
    return msg;
}

static char out[4096];

static const char *repr(const struct forge_pyval *v)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_py_repr(&b, v);
    snprintf(out, sizeof out, "%s", b.data ? b.data : "");
    forge_buf_free(&b);
    return out;
}

static const char *dumps(const struct forge_pyval *v)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_py_dumps(&b, v);
    snprintf(out, sizeof out, "%s", b.data ? b.data : "");
    forge_buf_free(&b);
    return out;
}

static const char *frepr(double d)
{
    return forge_py_float_repr(d, out);
}

TEST(float_repr_matches_python)
{
    CHECK_STR(frepr(1.0), "1.0");
    CHECK_STR(frepr(-0.0), "-0.0");
    CHECK_STR(frepr(0.1), "0.1");
    CHECK_STR(frepr(2e-07), "2e-07");
    CHECK_STR(frepr(1e-05), "1e-05");
    CHECK_STR(frepr(0.0001), "0.0001");
    CHECK_STR(frepr(1e16), "1e+16");
    CHECK_STR(frepr(1e15), "1000000000000000.0");
    CHECK_STR(frepr(123456789012345680.0), "1.2345678901234568e+17");
    CHECK_STR(frepr(0.47166666666666668), "0.4716666666666667");
    CHECK_STR(frepr(1.5e300), "1.5e+300");
    CHECK_STR(frepr(INFINITY), "inf");
    CHECK_STR(frepr(NAN), "nan");
}

TEST(loads_keeps_int_float_and_order)
{
    struct forge_pyval *v = J("{\"b\": 1, \"a\": 1.0, \"c\": [true, null, \"x\"], \"b\": 2}");
    CHECK(v && v->kind == FORGE_PY_DICT);
    CHECK_INT(v->n, 3);
    CHECK_STR(repr(v), "{'b': 2, 'a': 1.0, 'c': [True, None, 'x']}");
    CHECK(forge_py_getz(v, "a")->kind == FORGE_PY_FLOAT);
    CHECK(forge_py_getz(v, "b")->kind == FORGE_PY_INT);
    struct forge_pyval *big = J("123456789012345678901234567890");
    CHECK(big && big->kind == FORGE_PY_BIGINT);
    CHECK_STR(repr(big), "123456789012345678901234567890");
    CHECK_STR(repr(J("[NaN, Infinity, -Infinity, 1E400]")), "[nan, inf, -inf, inf]");
    CHECK_STR(repr(J("\"\\ud83d\\ude00 \\u00e9\"")), "'\xF0\x9F\x98\x80 \xC3\xA9'");
}

TEST(loads_errors_are_pythons)
{
    CHECK_STR(loads_error(""), "Expecting value: line 1 column 1 (char 0)");
    CHECK_STR(loads_error("{\"a\":1"), "Expecting ',' delimiter: line 1 column 7 (char 6)");
    CHECK_STR(loads_error("{\"a\":1,}"),
              "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)");
    CHECK_STR(loads_error("{'a': 1}"),
              "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
    CHECK_STR(loads_error("{\"a\" 1}"), "Expecting ':' delimiter: line 1 column 6 (char 5)");
    CHECK_STR(loads_error("[1,]"), "Expecting value: line 1 column 4 (char 3)");
    CHECK_STR(loads_error("\"abc"), "Unterminated string starting at: line 1 column 1 (char 0)");
    CHECK_STR(loads_error("\"a\x01\""), "Invalid control character at: line 1 column 3 (char 2)");
    CHECK_STR(loads_error("\"a\\x\""), "Invalid \\escape: line 1 column 3 (char 2)");
    CHECK_STR(loads_error("\"\\u12\""), "Invalid \\uXXXX escape: line 1 column 3 (char 2)");
    CHECK_STR(loads_error("1 2"), "Extra data: line 1 column 3 (char 2)");
    CHECK_STR(loads_error("\xEF\xBB\xBF{}"),
              "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)");
    /* positions count code points and lines */
    CHECK_STR(loads_error("\"\xC3\xA9\" x"), "Extra data: line 1 column 5 (char 4)");
    CHECK_STR(loads_error("[1,\n 2,\n x]"), "Expecting value: line 3 column 2 (char 9)");
}

TEST(equality_is_pythons)
{
    CHECK(forge_py_eq(J("1"), J("1.0")));
    CHECK(forge_py_eq(J("true"), J("1")));
    CHECK(forge_py_eq(J("false"), J("0.0")));
    CHECK(!forge_py_eq(J("\"1\""), J("1")));
    CHECK(forge_py_eq(J("[1, 2.0]"), J("[1.0, 2]")));
    CHECK(!forge_py_eq(J("[1, 2]"), J("[2, 1]")));
    CHECK(forge_py_eq(J("{\"a\": 1, \"b\": [true]}"), J("{\"b\": [1], \"a\": 1.0}")));
    CHECK(!forge_py_eq(J("{\"a\": 1}"), J("{\"a\": 1, \"b\": 2}")));
    CHECK(forge_py_eq(J("null"), J("null")));
    CHECK(!forge_py_eq(J("null"), J("0")));
    CHECK(!forge_py_eq(J("9007199254740993"), J("9007199254740992.0")));
    CHECK(forge_py_in(J("10"), J("[\"\", 10.0]")));
    CHECK(!forge_py_in(J("\"\""), J("[[], {}]")));
}

TEST(repr_and_dumps_are_pythons)
{
    CHECK_STR(repr(J("\"it's\"")), "\"it's\"");
    CHECK_STR(repr(J("\"say \\\"hi\\\" it's\"")), "'say \"hi\" it\\'s'");
    CHECK_STR(repr(J("\"a\\nb\\t\\\\\"")), "'a\\nb\\t\\\\'");
    CHECK_STR(repr(J("\"\\u0001\\u007f\\u00a0\\u00e9\"")), "'\\x01\\x7f\\xa0\xC3\xA9'");
    CHECK_STR(repr(J("[{}, [], \"\", -0.0, 1e-7]")), "[{}, [], '', -0.0, 1e-07]");
    CHECK_STR(dumps(J("{\"a\": [1, 2.5, true, null], \"b\": \"\\u00e9\\n\\\"\\u0001\"}")),
              "{\"a\": [1, 2.5, true, null], \"b\": \"\xC3\xA9\\n\\\"\\u0001\"}");
    CHECK_STR(dumps(J("[NaN, -Infinity, 1E400]")), "[NaN, -Infinity, Infinity]");
    CHECK_STR(forge_py_type_name(J("true")), "bool");
    CHECK_STR(forge_py_type_name(J("null")), "NoneType");
}

TEST(int_and_float_parse_like_python)
{
    struct forge_pyval *v;
    CHECK(forge_py_parse_int(&A, " 42\n", 4, &v) == 0 && v->u.i == 42);
    CHECK(forge_py_parse_int(&A, "-1_000", 6, &v) == 0 && v->u.i == -1000);
    CHECK(forge_py_parse_int(&A, "+7", 2, &v) == 0 && v->u.i == 7);
    CHECK(forge_py_parse_int(&A, "1__0", 4, &v) == -1);
    CHECK(forge_py_parse_int(&A, "1.0", 3, &v) == -1);
    CHECK(forge_py_parse_int(&A, "", 0, &v) == -1);
    double d;
    CHECK(forge_py_parse_float("2.5", 3, &d) == 0 && d == 2.5);
    CHECK(forge_py_parse_float(" .5 ", 4, &d) == 0 && d == 0.5);
    CHECK(forge_py_parse_float("5.", 2, &d) == 0 && d == 5.0);
    CHECK(forge_py_parse_float("1e3", 3, &d) == 0 && d == 1000.0);
    CHECK(forge_py_parse_float("-Infinity", 9, &d) == 0 && isinf(d) && d < 0);
    CHECK(forge_py_parse_float("nan", 3, &d) == 0 && isnan(d));
    CHECK(forge_py_parse_float("1e", 2, &d) == -1);
    CHECK(forge_py_parse_float("abc", 3, &d) == -1);
    CHECK(forge_py_parse_float("3.5f", 4, &d) == -1);
}

TEST(inplace_strings_stay_terminated)
{
    char text[] = "{\"name\": \"math.sqrt\", \"e\": \"a\\\"b\"}";
    struct forge_pyval *v;
    char msg[100];
    bool canon = true;
    CHECK(forge_py_loads_inplace(&A, text, strlen(text), &v, &canon, msg, sizeof msg) == 0);
    CHECK_STR(forge_py_getz(v, "name")->u.s, "math.sqrt");
    CHECK_STR(forge_py_getz(v, "e")->u.s, "a\"b");
    CHECK(canon);
}

static bool canonical(const char *json)
{
    char text[256];
    snprintf(text, sizeof text, "%s", json);
    struct forge_pyval *v;
    char msg[100];
    bool canon = false;
    if (forge_py_loads_inplace(&A, text, strlen(text), &v, &canon, msg, sizeof msg) != 0)
        return false;
    return canon;
}

TEST(canonical_text_is_recognized)
{
    CHECK(canonical("{\"a\": [1, 2.5, true, null], \"b\": {}, \"c\": \"x\\n\\u0001\"}"));
    CHECK(canonical("[1e-05, 1e+16, -0.0, NaN, \"\xC3\xA9\"]"));
    CHECK(!canonical("{\"a\":1}"));
    CHECK(!canonical("{\"a\": 1,\"b\": 2}"));
    CHECK(!canonical("[1,  2]"));
    CHECK(!canonical(" [1]"));
    CHECK(!canonical("[1.50]"));
    CHECK(!canonical("[1E5]"));
    CHECK(!canonical("[-0]"));
    CHECK(!canonical("[\"\\u00e9\"]"));
    CHECK(!canonical("[\"\\/\"]"));
    CHECK(!canonical("[\"\\u000A\"]"));
    CHECK(!canonical("{\"a\": 1, \"a\": 2}"));
}

int main(void)
{
    forge_arena_init(&A, 0);
    RUN(float_repr_matches_python);
    RUN(loads_keeps_int_float_and_order);
    RUN(loads_errors_are_pythons);
    RUN(equality_is_pythons);
    RUN(repr_and_dumps_are_pythons);
    RUN(int_and_float_parse_like_python);
    RUN(inplace_strings_stay_terminated);
    RUN(canonical_text_is_recognized);
    forge_arena_free(&A);
    return TEST_DONE();
}
