/* Unit tests for score/bfcl: one test per rule of BFCL's AST checker. */
#include "test.h"
#include "score/bfcl.h"
#include "base/alloc.h"
#include "data/json.h"

static struct forge_bfcl *B;
static struct forge_arena A;
static char first_error[2048];

static struct forge_pyval *J(const char *text)
{
    struct forge_pyval *v = NULL;
    char msg[200];
    if (forge_py_loads(&A, text, strlen(text), &v, msg, sizeof msg) != 0)
        fprintf(stderr, "bad test JSON: %s: %s\n", text, msg);
    return v;
}

/* Runs the checker; returns "valid" or the error type, and keeps the first error text. */
static const char *run(const char *category, bool u2d, const char *functions, const char *decoded,
                       const char *truth)
{
    struct forge_bfcl_verdict v;
    struct forge_err err = {0};
    first_error[0] = '\0';
    int rc = forge_bfcl_check(B, &A, category, u2d, J(functions), J(decoded), J(truth), &v, &err);
    if (rc) {
        snprintf(first_error, sizeof first_error, "%s", err.msg);
        return "error";
    }
    if (v.valid)
        return "valid";
    if (v.error && v.error->n) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_py_str_of(&b, v.error->u.items[0]);
        snprintf(first_error, sizeof first_error, "%s", b.data ? b.data : "");
        forge_buf_free(&b);
    }
    return v.error_type;
}

/* One function "f.g" with a parameter of each kind. */
static const char *F =
    "[{\"name\": \"f.g\", \"parameters\": {\"type\": \"dict\", \"required\": [\"s\"], \"properties\": {"
    "\"s\": {\"type\": \"string\"}, \"i\": {\"type\": \"integer\"}, \"x\": {\"type\": \"float\"},"
    "\"b\": {\"type\": \"boolean\"}, \"l\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
    "\"fl\": {\"type\": \"array\", \"items\": {\"type\": \"float\"}},"
    "\"d\": {\"type\": \"dict\"}, \"ld\": {\"type\": \"array\", \"items\": {\"type\": \"dict\"}},"
    "\"a\": {\"type\": \"any\"}, \"t\": {\"type\": \"tuple\", \"items\": {\"type\": \"integer\"}},"
    "\"extra\": {\"type\": \"string\"}}}}]";

/* Ground truth for F with every parameter optional except s. */
static const char *T =
    "[{\"f.g\": {\"s\": [\"New York, NY\", \"NYC\"], \"i\": [\"\", 5], \"x\": [\"\", 2.0],"
    "\"b\": [\"\", true], \"l\": [\"\", [\"a\", \"b\"]], \"fl\": [\"\", [1.5, 2.0]],"
    "\"d\": [\"\", {\"k\": [\"v\", \"\"], \"n\": [1]}], \"ld\": [\"\", [{\"k\": [\"v\"]}]],"
    "\"a\": [\"\", \"anything\"], \"t\": [\"\", [1, 2]]}}]";

static const char *call(const char *args)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "[{\"f.g\": %s}]", args);
    return buf;
}

static const char *call_u(const char *args)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "[{\"f_g\": %s}]", args);
    return buf;
}

TEST(function_names_and_underscore_to_dot)
{
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\"}"), T), "valid");
    CHECK_STR(run("simple_python", true, F, call_u("{\"s\": \"NYC\"}"), T), "valid");
    CHECK_STR(run("simple_python", true, F, call("{\"s\": \"NYC\"}"), T),
              "simple_function_checker:wrong_func_name");
    CHECK_STR(first_error, "Function name 'f_g' not found in model output.");
    CHECK_STR(run("simple_python", false, F, call_u("{\"s\": \"NYC\"}"), T),
              "simple_function_checker:wrong_func_name");
    CHECK_STR(run("simple_python", false, F, "[{\"F.g\": {\"s\": \"NYC\"}}]", T),
              "simple_function_checker:wrong_func_name");
}

TEST(required_unexpected_and_optional_parameters)
{
    CHECK_STR(run("simple_python", false, F, call("{\"i\": 5}"), T),
              "simple_function_checker:missing_required");
    CHECK_STR(first_error, "Missing required parameter: 's'.");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"zzz\": 1}"), T),
              "simple_function_checker:unexpected_param");
    CHECK_STR(first_error, "Unexpected parameter: 'zzz'.");
    /* in the schema but not in the possible answer */
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"extra\": \"x\"}"), T),
              "simple_function_checker:unexpected_param");
    const char *t2 = "[{\"f.g\": {\"s\": [\"NYC\"], \"i\": [5]}}]";
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\"}"), t2),
              "simple_function_checker:missing_optional");
    CHECK_STR(first_error, "Optional parameter 'i' not provided and not marked as optional.");
}

TEST(python_types)
{
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"i\": true}"), T), "type_error:simple");
    CHECK_STR(first_error, "Incorrect type for parameter 'i'. Expected type integer, got bool. Parameter value: True.");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"i\": 5.0}"), T), "type_error:simple");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"b\": 1}"), T), "type_error:simple");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"b\": \"true\"}"), T), "type_error:simple");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": 7}"), T), "type_error:simple");
    /* an int is promoted to float at the top level only */
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"x\": 2}"), T), "valid");
    const char *tn = "[{\"f.g\": {\"s\": [\"NYC\"], \"fl\": [[1.5, 2.0]], \"l\": [[\"a\", \"b\"]]}}]";
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"fl\": [1.5, 2], \"l\": [\"a\", \"b\"]}"), tn),
              "type_error:nested");
    CHECK_STR(first_error, "Nested type checking failed for parameter 'fl'. Expected outer type array "
                           "with inner type <class 'float'>. Parameter value: [1.5, 2].");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"l\": [\"a\", 2], \"fl\": [1.5, 2.0]}"), tn),
              "type_error:nested");
    /* an alternative that is not a list (the optional marker) passes the nested check */
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"fl\": [1.5, 2]}"), T), "valid");
    /* any means str */
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"a\": \"Anything\"}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"a\": 3}"), T), "type_error:simple");
    /* tuple is a list */
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"t\": [1, 2]}"), T), "valid");
}

TEST(variable_answers_are_compared_exactly)
{
    /* the answer is a string for an integer parameter: a string of that value is accepted, with
     * plain equality (no normalization) */
    const char *t = "[{\"f.g\": {\"s\": [\"NYC\"], \"i\": [\"count\"]}}]";
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"i\": \"count\"}"), t), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"i\": \"Count\"}"), t), "value_error:others");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"i\": 3}"), t), "value_error:others");
    /* null listed first makes every value of the declared type go through plain membership */
    const char *tn = "[{\"f.g\": {\"s\": [null, \"NYC\"]}}]";
    CHECK_STR(run("simple_python", false, F, call("{\"s\": null}"), tn), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"nyc\"}"), tn), "value_error:others");
}

TEST(strings_are_normalized)
{
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"new york ny\"}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NewYork,NY\"}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"n-y-c_*^./\"}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC!\"}"), T), "value_error:string");
    CHECK_STR(first_error, "Invalid value for parameter 's': 'NYC!'. Expected one of ['New York, NY', 'NYC']. Case insensitive.");
    struct forge_pyval *s = forge_bfcl_standardize(&A, "It's A-B_c.d/e*f^g h,", 21);
    CHECK_STR(s->u.s, "it\"sabcdefgh");
    /* an empty (normalized) string matches the optional marker */
    const char *t = "[{\"f.g\": {\"s\": [\"NYC\"], \"extra\": [\"\"]}}]";
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"extra\": \"-\"}"), t), "valid");
}

TEST(lists_keep_order)
{
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"l\": [\"A\", \"b.\"]}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"l\": [\"b\", \"a\"]}"), T), "value_error:list/tuple");
    CHECK_STR(first_error, "Invalid value for parameter 'l': ['b', 'a']. Expected one of ['', ['a', 'b']].");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"l\": [\"a\"]}"), T), "value_error:list/tuple");
    /* [] matches the optional marker "" */
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"l\": []}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"fl\": [1.5, 2.0]}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"fl\": [2.0, 1.5]}"), T), "value_error:list/tuple");
}

TEST(dicts_and_lists_of_dicts)
{
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"d\": {\"n\": 1, \"k\": \"V\"}}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"d\": {\"n\": 1.0}}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"d\": {\"n\": 1, \"z\": 2}}"), T), "value_error:dict_key");
    CHECK_STR(first_error, "Unexpected dict key parameter: 'z'.");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"d\": {\"k\": \"v\"}}"), T), "value_error:dict_key");
    CHECK_STR(first_error, "Missing dict key parameter: 'n'.");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"d\": {\"n\": 2}}"), T), "value_error:dict_value");
    CHECK_STR(first_error, "Invalid value for parameter 'n': 2. Expected one of [1].");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"d\": [{\"n\": 1}]}"), T), "type_error:simple");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"ld\": [{\"k\": \"v\"}]}"), T), "valid");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"ld\": [{\"k\": \"v\"}, {\"k\": \"v\"}]}"), T),
              "value_error:list_dict_count");
    CHECK_STR(first_error, "Wrong number of dictionaries in the list.");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"ld\": [{\"k\": \"w\"}]}"), T), "value_error:dict_value");
}

TEST(other_values_use_python_equality)
{
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"i\": 6}"), T), "value_error:others");
    CHECK_STR(first_error, "Invalid value for parameter 'i': 6. Expected one of ['', 5].");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"x\": 2.0000001}"), T), "value_error:others");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"b\": false}"), T), "value_error:others");
    CHECK_STR(run("simple_python", false, F, call("{\"s\": \"NYC\", \"b\": true}"), T), "valid");
}

TEST(call_counts_and_parallel_matching)
{
    const char *two = "[{\"f.g\": {\"s\": \"NYC\", \"i\": 5}}, {\"f.g\": {\"s\": \"NYC\"}}]";
    CHECK_STR(run("simple_python", false, F, two, T), "simple_function_checker:wrong_count");
    CHECK_STR(run("simple_python", false, F, "[]", T), "simple_function_checker:wrong_count");
    CHECK_STR(run("multiple", false, F, two, T), "multiple_function_checker:wrong_count");
    const char *pt = "[{\"f.g\": {\"s\": [\"NYC\"], \"i\": [5]}}, {\"f.g\": {\"s\": [\"LA\"], \"i\": [6]}}]";
    CHECK_STR(run("parallel", false, F,
                  "[{\"f.g\": {\"s\": \"LA\", \"i\": 6}}, {\"f.g\": {\"s\": \"NYC\", \"i\": 5}}]", pt), "valid");
    CHECK_STR(run("parallel", false, F, "[{\"f.g\": {\"s\": \"LA\", \"i\": 6}}]", pt),
              "parallel_function_checker_no_order:wrong_count");
    CHECK_STR(run("live_parallel_multiple", false, F,
                  "[{\"f.g\": {\"s\": \"LA\", \"i\": 6}}, {\"f.g\": {\"s\": \"LA\", \"i\": 5}}]", pt),
              "parallel_function_checker_no_order:cannot_find_match");
    CHECK_STR(first_error, "Could not find a matching function among index [0, 1] of model output "
                           "for index 0 of possible answers.");
    CHECK_STR(run("parallel", false, F,
                  "[{\"f.g\": {\"s\": \"NYC\", \"i\": 5}}, {\"f.g\": {\"s\": \"NYC\", \"i\": 5}}]", pt),
              "parallel_function_checker_no_order:cannot_find_match");
    CHECK_STR(first_error, "Could not find a matching function among index [1] of model output "
                           "for index 1 of possible answers.");
}

TEST(multiple_checks_the_expected_functions_doc)
{
    const char *fs = "[{\"name\": \"a\", \"parameters\": {\"type\": \"dict\", \"required\": [], \"properties\": {}}},"
                     "{\"name\": \"b\", \"parameters\": {\"type\": \"dict\", \"required\": [\"n\"], "
                     "\"properties\": {\"n\": {\"type\": \"integer\"}}}}]";
    CHECK_STR(run("multiple", false, fs, "[{\"b\": {\"n\": 1}}]", "[{\"b\": {\"n\": [1]}}]"), "valid");
    CHECK_STR(run("multiple", false, fs, "[{\"a\": {}}]", "[{\"b\": {\"n\": [1]}}]"),
              "simple_function_checker:wrong_func_name");
    /* simple categories check against the first doc */
    CHECK_STR(run("live_simple", false, fs, "[{\"b\": {\"n\": 1}}]", "[{\"b\": {\"n\": [1]}}]"),
              "simple_function_checker:wrong_func_name");
    CHECK_STR(run("multiple", false, fs, "[{\"b\": {\"n\": 1}}]", "[{\"c\": {\"n\": [1]}}]"), "error");
}

static const char *JF =
    "[{\"name\": \"J.m\", \"parameters\": {\"type\": \"dict\", \"required\": [], \"properties\": {"
    "\"i\": {\"type\": \"integer\"}, \"l\": {\"type\": \"long\"}, \"f\": {\"type\": \"float\"},"
    "\"d\": {\"type\": \"double\"}, \"b\": {\"type\": \"boolean\"}, \"s\": {\"type\": \"String\"},"
    "\"al\": {\"type\": \"ArrayList\", \"items\": {\"type\": \"String\"}},"
    "\"ar\": {\"type\": \"Array\", \"items\": {\"type\": \"String\"}},"
    "\"ai\": {\"type\": \"Array\", \"items\": {\"type\": \"integer\"}},"
    "\"h\": {\"type\": \"HashMap\"}, \"any\": {\"type\": \"any\"}}}}]";

static const char *jcall(const char *args)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "[{\"J.m\": %s}]", args);
    return buf;
}

TEST(java_values)
{
    const char *t = "[{\"J.m\": {\"i\": [5], \"l\": [42], \"f\": [3.5], \"d\": [2.0], \"b\": [true],"
                    "\"s\": [\"abc\"], \"al\": [[\"a\", \"b\"]], \"ar\": [[\"\\\"a\\\"\"]], \"ai\": [[1, 2]],"
                    "\"h\": [{\"k\": [\"v\"], \"n\": [1]}], \"any\": [\"x\"]}}]";
    CHECK_STR(run("simple_java", false, JF,
                  jcall("{\"i\": \"5\", \"l\": \"42L\", \"f\": \"3.5f\", \"d\": \"2.0\", \"b\": \"true\","
                        "\"s\": \"abc\", \"al\": \"new ArrayList<>(Arrays.asList(\\\"a\\\", \\\"b\\\"))\","
                        "\"ar\": \"new String[]{\\\"a\\\"}\", \"ai\": \"new int[]{1, 2}\","
                        "\"h\": \"new HashMap<String, Object>() {{ put(\\\"k\\\", \\\"v\\\"); put(\\\"n\\\", 1); }}\","
                        "\"any\": \"x\"}"), t),
              "valid");
    CHECK_STR(run("simple_java", false, JF, jcall("{\"i\": 5}"), t), "type_error:java");
    CHECK_STR(first_error, "Incorrect type for parameter 'i'. Expected type String, got int. Parameter value: 5.");
    CHECK_STR(run("simple_java", false, JF, jcall("{\"i\": \"5.0\"}"), t), "type_error:simple");
    CHECK_STR(run("simple_java", false, JF, jcall("{\"l\": \"42\"}"), t), "type_error:simple");
    CHECK_STR(run("simple_java", false, JF, jcall("{\"f\": \"3.5\"}"), t), "type_error:simple");
    CHECK_STR(run("simple_java", false, JF, jcall("{\"b\": \"True\"}"), t), "type_error:simple");
    CHECK_STR(run("simple_java", false, JF,
                  jcall("{\"al\": \"new ArrayList<String>() {{ add(\\\"a\\\"); add(\\\"b\\\"); }}\"}"),
                  "[{\"J.m\": {\"al\": [[\"a\", \"b\"]]}}]"), "valid");
    /* Array<String> elements keep their quotes */
    CHECK_STR(run("simple_java", false, JF, jcall("{\"ar\": \"new String[]{\\\"a\\\"}\"}"),
                  "[{\"J.m\": {\"ar\": [[\"a\"]]}}]"), "value_error:list/tuple");

    struct forge_pyval *v = forge_bfcl_java_value(B, &A, "new int[]{1, 2L, x}", 19, "Array", "long");
    CHECK(v && v->kind == FORGE_PY_LIST && v->n == 3);
    CHECK(v->u.items[1]->kind == FORGE_PY_INT && v->u.items[1]->u.i == 2);
    CHECK(v->u.items[0]->kind == FORGE_PY_STR);
    v = forge_bfcl_java_value(B, &A, "3e3F", 4, "float", NULL);
    CHECK(v && v->kind == FORGE_PY_FLOAT && v->u.f == 3000.0);
    v = forge_bfcl_java_value(B, &A, "new HashMap<>()", 15, "HashMap", NULL);
    CHECK(v && v->kind == FORGE_PY_DICT && v->n == 0);
    v = forge_bfcl_java_value(B, &A, "'a'", 3, "char", NULL);
    CHECK(v && v->kind == FORGE_PY_STR && v->n == 3);
}

static const char *SF =
    "[{\"name\": \"js\", \"parameters\": {\"type\": \"dict\", \"required\": [], \"properties\": {"
    "\"s\": {\"type\": \"String\"}, \"i\": {\"type\": \"integer\"}, \"f\": {\"type\": \"float\"},"
    "\"b\": {\"type\": \"Boolean\"}, \"a\": {\"type\": \"array\", \"items\": {\"type\": \"String\"}},"
    "\"d\": {\"type\": \"dict\"}, \"n\": {\"type\": \"Bigint\"}}}}]";

TEST(javascript_values)
{
    const char *t = "[{\"js\": {\"s\": [\"abc\"], \"i\": [5], \"f\": [4.0], \"b\": [false], \"a\": [[\"x\", \"y\"]],"
                    "\"d\": [{\"k\": [\"v\"], \"n\": [2]}], \"n\": [7]}}]";
    CHECK_STR(run("simple_javascript", false, SF,
                  "[{\"js\": {\"s\": \"'abc'\", \"i\": \"5\", \"f\": \"4\", \"b\": \"false\","
                  "\"a\": \"['x', \\\"y\\\"]\", \"d\": \"{k: 'v', n: 2}\", \"n\": \"7n\"}}]", t),
              "valid");
    CHECK_STR(run("simple_javascript", false, SF, "[{\"js\": {\"i\": 5}}]", t), "type_error:js");
    CHECK_STR(run("simple_javascript", false, SF, "[{\"js\": {\"b\": \"True\"}}]", t), "type_error:simple");
    CHECK_STR(first_error, "Incorrect type for parameter 'b'. Expected type Boolean, got str. Parameter value: 'True'.");
    CHECK_STR(run("simple_javascript", false, SF, "[{\"js\": {\"f\": \"3.000000e+00\"}}]", t), "type_error:simple");
    CHECK_STR(run("simple_javascript", false, SF, "[{\"js\": {\"a\": \"new Array('x', 'y')\"}}]",
                  "[{\"js\": {\"a\": [[\"x\", \"y\"]]}}]"), "valid");

    struct forge_pyval *v = forge_bfcl_js_value(B, &A, "[[1, 2], [3, 4]]", 16, "array", NULL);
    CHECK(v && v->kind == FORGE_PY_LIST && v->n == 2 && v->u.items[1]->n == 2);
    CHECK(v->u.items[1]->u.items[0]->u.i == 3);
    v = forge_bfcl_js_value(B, &A, "{a: [1, 2], b: {c: 3}}", 22, "dict", NULL);
    CHECK(v && v->kind == FORGE_PY_DICT && v->n == 2);
}

static int decode(const char *raw, struct forge_pyval **out, char *msg)
{
    return forge_bfcl_decode(&A, J(raw), out, msg, 300);
}

TEST(decoding_fc_results)
{
    struct forge_pyval *d;
    char msg[300];
    CHECK_INT(decode("[{\"f\": \"{\\\"a\\\": 1}\"}]", &d, msg), 0);
    CHECK(forge_bfcl_is_fc_format(d) && !forge_bfcl_is_empty_output(d));
    CHECK_INT(decode("\"\"", &d, msg), 0);
    CHECK(d->n == 0 && forge_bfcl_is_empty_output(d));
    CHECK_INT(decode("\"I cannot\"", &d, msg), 1);
    CHECK_STR(msg, "'str' object has no attribute 'keys'");
    CHECK_INT(decode("{\"f\": \"{}\"}", &d, msg), 1);
    CHECK_STR(msg, "'str' object has no attribute 'keys'");
    CHECK_INT(decode("[{}]", &d, msg), 1);
    CHECK_STR(msg, "list index out of range");
    CHECK_INT(decode("[{\"f\": {\"a\": 1}}]", &d, msg), 1);
    CHECK_STR(msg, "the JSON object must be str, bytes or bytearray, not dict");
    CHECK_INT(decode("[{\"f\": \"{\\\"a\\\": }\"}]", &d, msg), 1);
    CHECK_STR(msg, "Expecting value: line 1 column 7 (char 6)");
    CHECK_INT(decode("null", &d, msg), 1);
    CHECK_STR(msg, "'NoneType' object is not iterable");
    CHECK_INT(decode("[5]", &d, msg), 1);
    CHECK_STR(msg, "'int' object has no attribute 'keys'");
    /* keys after the first are ignored */
    CHECK_INT(decode("[{\"f\": \"{}\", \"g\": 5}]", &d, msg), 0);
    CHECK(d->n == 1 && d->u.items[0]->n == 1);
    /* arguments that are not an object decode but are not in call format */
    CHECK_INT(decode("[{\"f\": \"[]\"}]", &d, msg), 0);
    CHECK(!forge_bfcl_is_fc_format(d) && forge_bfcl_is_empty_output(d));
}

static const char *entry_type(const char *category, const char *result)
{
    static char buf[FORGE_ERR_MAX + 8];
    char line[512];
    snprintf(line, sizeof line, "{\"id\": \"x\", \"result\": %s}", result);
    const char *q = "{\"id\": \"x\", \"function\": [{\"name\": \"f\", \"parameters\": {\"type\": \"dict\","
                    "\"required\": [], \"properties\": {\"a\": {\"type\": \"integer\"}}}}]}";
    const char *pa = "{\"id\": \"x\", \"ground_truth\": [{\"f\": {\"a\": [1]}}]}";
    struct forge_pyval *failure;
    struct forge_err err = {0};
    if (forge_bfcl_entry(B, &A, category, "m", false, J(line), J(q),
                         forge_bfcl_category_is_relevance(category) ? NULL : J(pa), &failure, &err)) {
        snprintf(buf, sizeof buf, "%s", err.msg);
        return buf;
    }
    if (!failure)
        return "valid";
    snprintf(buf, sizeof buf, "%s", forge_py_getz(failure, "error_type")->u.s);
    return buf;
}

TEST(entries_and_relevance)
{
    CHECK_STR(entry_type("simple_python", "[{\"f\": \"{\\\"a\\\": 1}\"}]"), "valid");
    CHECK_STR(entry_type("simple_python", "\"text\""), "ast_decoder:decoder_failed");
    CHECK_STR(entry_type("simple_python", "[{\"f\": \"5\"}]"), "ast_decoder:decoder_wrong_output_format");
    CHECK_STR(entry_type("simple_python", "[]"), "simple_function_checker:wrong_count");
    CHECK_STR(entry_type("irrelevance", "[]"), "valid");
    CHECK_STR(entry_type("irrelevance", "\"no function fits\""), "valid");
    CHECK_STR(entry_type("irrelevance", "[{\"f\": \"[]\"}]"), "valid");
    CHECK_STR(entry_type("irrelevance", "[{\"f\": \"{}\"}]"), "irrelevance_error:decoder_success");
    CHECK_STR(entry_type("live_irrelevance", "[{\"f\": \"{\\\"a\\\": 2}\"}]"), "irrelevance_error:decoder_success");
    CHECK_STR(entry_type("live_relevance", "[{\"f\": \"{}\"}]"), "valid");
    CHECK_STR(entry_type("live_relevance", "\"\""), "relevance_error:decoder_failed");
    CHECK_STR(entry_type("live_relevance", "[{}]"), "relevance_error:decoder_failed");
}

TEST(categories)
{
    CHECK(forge_bfcl_category_known("live_parallel_multiple"));
    CHECK(!forge_bfcl_category_known("multi_turn_base"));
    CHECK(forge_bfcl_category_is_relevance("irrelevance"));
    CHECK(!forge_bfcl_category_is_relevance("live_multiple"));
    CHECK_INT(forge_bfcl_category_lang("simple_java"), FORGE_BFCL_JAVA);
    CHECK_INT(forge_bfcl_category_lang("simple_javascript"), FORGE_BFCL_JAVASCRIPT);
    CHECK_INT(forge_bfcl_category_lang("live_simple"), FORGE_BFCL_PYTHON);
}

TEST(unknown_types_are_input_errors)
{
    const char *fs = "[{\"name\": \"f\", \"parameters\": {\"type\": \"dict\", \"required\": [],"
                     "\"properties\": {\"a\": {\"type\": \"String\"}}}}]";
    CHECK_STR(run("simple_python", false, fs, "[{\"f\": {\"a\": \"x\"}}]", "[{\"f\": {\"a\": [\"x\"]}}]"), "error");
    CHECK(strstr(first_error, "'String'") != NULL);
}

static char *req_json(const char *question, const char *category)
{
    struct forge_err err = {0};
    cJSON *req = forge_bfcl_request(J(question), category, 0.001, &err);
    if (!req)
        return forge_strdup(err.msg);
    char *s = forge_json_print(req, FORGE_JSON_SORTED);
    cJSON_Delete(req);
    return s;
}

TEST(requests_convert_function_docs_as_bfcl)
{
    char *s = req_json("{\"id\": \"x\", \"question\": [[{\"role\": \"system\", \"content\": \"S\"},"
                       "{\"role\": \"user\", \"content\": \"U\"}]], \"function\": [{\"name\": \"a.b\","
                       "\"description\": \"D\", \"parameters\": {\"type\": \"dict\", \"required\": [\"x\"],"
                       "\"properties\": {\"x\": {\"type\": \"float\", \"description\": \"X\"},"
                       "\"t\": {\"type\": \"tuple\", \"items\": {\"type\": \"float\"}, \"description\": \"T\"},"
                       "\"d\": {\"type\": \"dict\", \"description\": \"M\", \"properties\": {\"k\": {\"type\": \"any\","
                       "\"description\": \"K\"}}}}}}]}",
                       "simple_python");
    CHECK_STR(s, "{\"messages\":[{\"content\":\"U\",\"role\":\"user\"}],\"params\":{\"temperature\":0.001},"
                 "\"system\":\"S\",\"tools\":[{\"description\":\"D Note that the provided function is in Python 3 syntax.\",\"name\":\"a_b\",\"parameters\":{"
                 "\"properties\":{\"d\":{\"description\":\"M\",\"properties\":{\"k\":{\"description\":\"K\","
                 "\"type\":\"string\"}},\"type\":\"object\"},\"t\":{\"description\":\"T\",\"items\":{\"type\":"
                 "\"number\"},\"type\":\"array\"},\"x\":{\"description\":\"X This is a float type value.\","
                 "\"format\":\"float\",\"type\":\"number\"}},\"required\":[\"x\"],\"type\":\"object\"}}]}");
    forge_free(s);
    s = req_json("{\"id\": \"x\", \"question\": [[{\"role\": \"user\", \"content\": \"U\"}]], \"function\":"
                 "[{\"name\": \"f\", \"description\": \"D\", \"parameters\": {\"type\": \"dict\", \"properties\":"
                 "{\"o\": {\"type\": \"dict\", \"description\": \"O\", \"properties\": {\"a\": {\"type\": \"String\"}}}}}}]}",
                 "simple_javascript");
    CHECK(strstr(s, "\"description\":\"D Note that the provided function is in JavaScript syntax.\"") != NULL);
    CHECK(strstr(s, "\"description\":\"O This is JavaScript dict type parameter in string representation. "
                    "The dictionary entries have the following schema; they are not in string representation. "
                    "{\\\"a\\\": {\\\"type\\\": \\\"String\\\"}}\",\"type\":\"string\"") != NULL);
    forge_free(s);
    s = req_json("{\"id\": \"x\"}", "simple_python");
    CHECK(strstr(s, "needs \"question\"") != NULL);
    forge_free(s);
}

TEST(results_are_stored_as_bfcl_stores_them)
{
    struct forge_err err = {0};
    const char *t1 = "{\"message\": {\"role\": \"assistant\", \"content\": null, \"tool_calls\": ["
                     "{\"id\": \"1\", \"name\": \"a_b\", \"arguments\": {\"x\": 1.5, \"s\": \"\\u00e9\"}}]}}";
    cJSON *r = forge_json_parse(t1, strlen(t1), "<test>", &err);
    CHECK(r != NULL);
    struct forge_pyval *v = forge_bfcl_result_value(&A, r);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_py_dumps(&b, v);
    CHECK_STR(b.data, "[{\"a_b\": \"{\\\"x\\\":1.5,\\\"s\\\":\\\"\xC3\xA9\\\"}\"}]");
    forge_buf_free(&b);
    cJSON_Delete(r);
    const char *t2 = "{\"message\": {\"role\": \"assistant\", \"content\": \"Hi\"}}";
    r = forge_json_parse(t2, strlen(t2), "<test>", &err);
    v = forge_bfcl_result_value(&A, r);
    CHECK(v && v->kind == FORGE_PY_STR && strcmp(v->u.s, "Hi") == 0);
    cJSON_Delete(r);
}

int main(void)
{
    struct forge_err err = {0};
    B = forge_bfcl_new(&err);
    if (!B) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    forge_arena_init(&A, 0);
    RUN(function_names_and_underscore_to_dot);
    RUN(required_unexpected_and_optional_parameters);
    RUN(python_types);
    RUN(variable_answers_are_compared_exactly);
    RUN(strings_are_normalized);
    RUN(lists_keep_order);
    RUN(dicts_and_lists_of_dicts);
    RUN(other_values_use_python_equality);
    RUN(call_counts_and_parallel_matching);
    RUN(multiple_checks_the_expected_functions_doc);
    RUN(java_values);
    RUN(javascript_values);
    RUN(decoding_fc_results);
    RUN(entries_and_relevance);
    RUN(categories);
    RUN(unknown_types_are_input_errors);
    RUN(requests_convert_function_docs_as_bfcl);
    RUN(results_are_stored_as_bfcl_stores_them);
    forge_arena_free(&A);
    forge_bfcl_free(B);
    return TEST_DONE();
}
