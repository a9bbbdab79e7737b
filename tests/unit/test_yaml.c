/* Unit tests for data/yaml: YAML read into JSON trees, with positions. */
#include "test.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/yaml.h"
#include "base/alloc.h"

/* The YAML text as compact JSON, or "ERR <message>" when it does not parse. */
static char *conv(const char *yaml)
{
    struct forge_err err = {0};
    cJSON *v = forge_yaml_parse(yaml, strlen(yaml), "t.yaml", &err);
    if (!v)
        return forge_strdupf("ERR %s", err.msg);
    char *s = forge_json_print(v, 0);
    cJSON_Delete(v);
    return s;
}

#define YAML_IS(yaml, want) do { char *got_ = conv(yaml); CHECK_STR(got_, want); forge_free(got_); } while (0)

TEST(core_schema_scalars)
{
    YAML_IS("[null, Null, NULL, ~, true, True, TRUE, false, False, FALSE]",
            "[null,null,null,null,true,true,true,false,false,false]");
    YAML_IS("a:\nb: ~", "{\"a\":null,\"b\":null}");
    YAML_IS("[0, 12, -7, +3, 0x1F, 0o17, 0xff, 007]", "[0,12,-7,3,31,15,255,7]");
    YAML_IS("[1.5, -0.25, .5, +.5, 1., 1e3, 2.5E-2, -1e+2]", "[1.5,-0.25,0.5,0.5,1,1000,0.025,-100]");
    /* JSON has no infinities or NaN: the text is kept */
    YAML_IS("[.inf, -.Inf, +.INF, .nan, .NaN, .NAN, 1e999]", "[\".inf\",\"-.Inf\",\"+.INF\",\".nan\",\".NaN\",\".NAN\",\"1e999\"]");
    /* not core-schema numbers or booleans (YAML 1.1's yes/no/on/off, signed hex, underscores) */
    YAML_IS("[yes, no, on, off, y, -0x5, 0x, 0o8, 0b101, 1_000, 12e, ., -, 1.2.3, 0x1g, nulls, True1]",
            "[\"yes\",\"no\",\"on\",\"off\",\"y\",\"-0x5\",\"0x\",\"0o8\",\"0b101\",\"1_000\",\"12e\",\".\",\"-\","
            "\"1.2.3\",\"0x1g\",\"nulls\",\"True1\"]");
    /* quoted scalars and block scalars stay strings */
    YAML_IS("['1', \"true\", 'null', \"~\", '', \"0x10\"]", "[\"1\",\"true\",\"null\",\"~\",\"\",\"0x10\"]");
    YAML_IS("a: |\n  12\nb: >-\n  true\n", "{\"a\":\"12\\n\",\"b\":\"true\"}");
    /* tags */
    YAML_IS("[!!str 12, !!str true, ! 12, !!int \"7\", !!float 3, !!bool \"false\", !!null '', !custom 5]",
            "[\"12\",\"true\",\"12\",7,3,false,null,\"5\"]");
    YAML_IS("!!int 1.5", "ERR t.yaml:1:1: \"1.5\" is not an integer (its tag is !!int)");
    YAML_IS("x: !!bool yes", "ERR t.yaml:1:4: \"yes\" is not a boolean (its tag is !!bool)");
    /* keys are their text */
    YAML_IS("1: a\ntrue: b\n~: c\n'q': d", "{\"1\":\"a\",\"true\":\"b\",\"~\":\"c\",\"q\":\"d\"}");
    /* escapes of double-quoted scalars */
    YAML_IS("\"caf\\u00e9 \\t\\x41\"", "\"café \\tA\"");
}

TEST(block_and_flow_styles)
{
    const char *block = "name: weather\n"
                        "cases:\n"
                        "  - id: a\n"
                        "    tags: [x, y]\n"
                        "  - id: b\n"
                        "    expect: {toolsCalled: [get_weather], maxTurns: 2}\n"
                        "empty_list: []\n"
                        "empty_map: {}\n";
    YAML_IS(block, "{\"name\":\"weather\",\"cases\":[{\"id\":\"a\",\"tags\":[\"x\",\"y\"]},{\"id\":\"b\",\"expect\":"
                   "{\"toolsCalled\":[\"get_weather\"],\"maxTurns\":2}}],\"empty_list\":[],\"empty_map\":{}}");
    /* JSON is YAML: a JSON file reads the same */
    YAML_IS("{\"a\": [1, 2.5, \"s\", null, true], \"b\": {}}", "{\"a\":[1,2.5,\"s\",null,true],\"b\":{}}");
    /* key order is kept */
    YAML_IS("z: 1\na: 2\nm: 3", "{\"z\":1,\"a\":2,\"m\":3}");
    YAML_IS("- - 1\n  - 2\n- [3]", "[[1,2],[3]]");
    YAML_IS("plain text", "\"plain text\"");
}

TEST(anchors_and_aliases)
{
    YAML_IS("base: &b {model: scripted, j: 2}\nrun: *b\nlist: [&x 7, *x, *x]",
            "{\"base\":{\"model\":\"scripted\",\"j\":2},\"run\":{\"model\":\"scripted\",\"j\":2},\"list\":[7,7,7]}");
    /* a later anchor of the same name replaces the earlier one */
    YAML_IS("[&a 1, *a, &a 2, *a]", "[1,1,2,2]");
    /* anchors do not cross documents */
    struct forge_err err = {0};
    const char *two = "a: &x 1\n---\nb: *x\n";
    cJSON *v = forge_yaml_parse_all(two, strlen(two), "t.yaml", NULL, &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "t.yaml:3:4: the alias *x names no anchor defined before it");
    YAML_IS("a: *nope", "ERR t.yaml:1:4: the alias *nope names no anchor defined before it");
    /* many anchors (the table grows), redefined after growing: the latest definition wins */
    char many[8192];
    size_t n = 0;
    n += (size_t)snprintf(many + n, sizeof many - n, "[");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "&a%d %d, ", i, i);
    n += (size_t)snprintf(many + n, sizeof many - n, "&a7 seven, *a99, *a0, *a7, *a50]");
    char *got = conv(many);
    const char *tail = ",98,99,\"seven\",99,0,\"seven\",50]";
    CHECK(got && strlen(got) > strlen(tail) && strcmp(got + strlen(got) - strlen(tail), tail) == 0);
    CHECK(got && strncmp(got, "[0,1,2,", 7) == 0);
    forge_free(got);
    /* `<<` is an ordinary key (merge keys are YAML 1.1) */
    YAML_IS("a: &m {x: 1}\nb: {<<: *m}", "{\"a\":{\"x\":1},\"b\":{\"<<\":{\"x\":1}}}");
}

TEST(alias_bomb_is_refused_by_the_value_limit)
{
    const char *bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
                       "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                       "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                       "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                       "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
                       "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
                       "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
                       "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
                       "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
    /* about 10^9 values: refused under the default limit at the first alias that passes it (h's first
     * *g: 6053445 values before it, 5380840 in it), before any tree is built */
    struct forge_err err = {0};
    cJSON *v = forge_yaml_parse(bomb, strlen(bomb), "bomb.yaml", &err);
    CHECK(v == NULL);
    CHECK_INT(err.code, FORGE_ELIMIT);
    CHECK_STR(err.msg, "bomb.yaml:8:8: more than 10000000 JSON values in one input (the limit; raise it with "
                       "--max-json-nodes)");
    /* a small limit stops a small expansion, and counts exactly */
    forge_json_set_node_limit(13); /* {a: [x, x, x]} and three copies of it: 1+1+3 + 1+3+... */
    YAML_IS("a: &a [1, 2, 3]\nb: *a\n", "{\"a\":[1,2,3],\"b\":[1,2,3]}"); /* 1 + 4 + 4 = 9 */
    YAML_IS("a: &a [1, 2, 3]\nb: *a\nc: *a\n", "{\"a\":[1,2,3],\"b\":[1,2,3],\"c\":[1,2,3]}"); /* 13 */
    YAML_IS("a: &a [1, 2, 3]\nb: *a\nc: *a\nd: 1\n",
            "ERR t.yaml:4:4: more than 13 JSON values in one input (the limit; raise it with --max-json-nodes)");
    forge_json_set_node_limit(0);
}

TEST(recursive_alias_is_an_error)
{
    YAML_IS("a: &a [1, *a]", "ERR t.yaml:1:11: the alias *a is inside the node it names (1:4): a recursive alias has "
                             "no JSON value");
    YAML_IS("&r {x: {y: *r}}", "ERR t.yaml:1:12: the alias *r is inside the node it names (1:1): a recursive alias "
                               "has no JSON value");
}

TEST(deep_nesting)
{
    char deep[4200];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 1000; i++)
        deep[n++] = ']';
    deep[n] = 0;
    struct forge_err err = {0};
    cJSON *v = forge_yaml_parse(deep, n, "d.yaml", &err);
    CHECK(v != NULL); /* 1000 levels: JSON's own nesting limit, allowed */
    cJSON_Delete(v);
    memmove(deep + 1, deep, n + 1);
    deep[0] = '[';
    deep[n + 1] = ']';
    deep[n + 2] = 0;
    v = forge_yaml_parse(deep, n + 2, "d.yaml", &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "d.yaml:1:1001: nested more than 1000 levels");
    /* block style nests the same way: "- - - ... x" */
    char block[2100];
    n = 0;
    for (int i = 0; i < 1001; i++)
        block[n++] = '-', block[n++] = ' ';
    block[n++] = 'x';
    v = forge_yaml_parse(block, n, "b.yaml", &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "b.yaml:1:2001: nested more than 1000 levels");
}

TEST(duplicate_and_non_scalar_keys)
{
    YAML_IS("a: 1\nb: 2\na: 3", "ERR t.yaml:3:1: the key \"a\" appears twice in one mapping");
    YAML_IS("x:\n  k: 1\n  'k': 2", "ERR t.yaml:3:3: the key \"k\" appears twice in one mapping");
    /* a large mapping (sorted check) reports the first repeat in document order */
    char big[4096];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "k%d: %d\n", i, i);
    n += (size_t)snprintf(big + n, sizeof big - n, "k7: again\nk3: again\n");
    char *got = conv(big);
    CHECK_STR(got, "ERR t.yaml:101:1: the key \"k7\" appears twice in one mapping");
    forge_free(got);
    /* the earliest repeat wins over an earlier name repeated later, and many repeats of one
     * name take one sort, not a scan each (80,000 in a mapping) */
    n = 0;
    for (int i = 0; i < 20; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "k%d: 1\n", i == 10 ? 3 : i == 12 ? 1 : i == 15 ? 3 : i);
    got = conv(big);
    CHECK_STR(got, "ERR t.yaml:11:1: the key \"k3\" appears twice in one mapping");
    forge_free(got);
    struct forge_buf many;
    forge_buf_init(&many, 0);
    for (int i = 0; i < 80000; i++)
        forge_buf_adds(&many, "a: 1\n");
    got = conv(many.data);
    CHECK_STR(got, "ERR t.yaml:2:1: the key \"a\" appears twice in one mapping");
    forge_free(got);
    forge_buf_free(&many);
    YAML_IS("? [a, b]\n: 1", "ERR t.yaml:1:3: a sequence as a key (JSON keys are strings)");
    YAML_IS("{a: 1}: 2", "ERR t.yaml:1:1: a mapping as a key (JSON keys are strings)");
    YAML_IS("a: &k x\n*k : 1", "ERR t.yaml:2:1: an alias (*k) as a key (JSON keys are strings)");
    /* the same key text in different mappings is fine */
    YAML_IS("a: {k: 1}\nb: {k: 2}", "{\"a\":{\"k\":1},\"b\":{\"k\":2}}");
}

TEST(nul_and_bad_bytes)
{
    YAML_IS("a: \"x\\0y\"", "ERR t.yaml:1:4: a string with a NUL character (JSON text cannot carry it)");
    YAML_IS("k: \"\\x00\"", "ERR t.yaml:1:4: a string with a NUL character (JSON text cannot carry it)");
    struct forge_err err = {0};
    cJSON *v = forge_yaml_parse("a: x\0y", 6, "n.yaml", &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "n.yaml:1:5: invalid YAML: control characters are not allowed (byte 0x00)");
    v = forge_yaml_parse("a: 1\nb: caf\xff", 12, "u.yaml", &err);
    CHECK(v == NULL);
    CHECK_STR(err.msg, "u.yaml:2:7: invalid YAML: invalid leading UTF-8 octet (byte 0xFF)");
}

TEST(documents)
{
    YAML_IS("a: 1\n---\nb: 2\n", "ERR t.yaml:2:1: a second YAML document (this input holds one)");
    YAML_IS("---\na: 1\n...\n", "{\"a\":1}");
    YAML_IS("", "ERR t.yaml:1:1: no YAML document (the input is empty or only comments)");
    YAML_IS("# just a comment\n\n", "ERR t.yaml:1:1: no YAML document (the input is empty or only comments)");
    YAML_IS("---\n", "null");
    struct forge_err err = {0};
    const char *three = "a: 1\n---\n- x\n---\n\"s\"\n";
    struct forge_yaml_marks *marks = NULL;
    cJSON *v = forge_yaml_parse_all(three, strlen(three), "m.yaml", &marks, &err);
    CHECK(v != NULL);
    char *s = forge_json_print(v, 0);
    CHECK_STR(s, "[{\"a\":1},[\"x\"],\"s\"]");
    forge_free(s);
    int line = 0, col = 0;
    CHECK(forge_yaml_mark(marks, cJSON_GetArrayItem(v, 1), false, &line, &col));
    CHECK_INT(line, 3);
    CHECK_INT(col, 1);
    CHECK(forge_yaml_mark(marks, cJSON_GetArrayItem(v, 2), false, &line, &col));
    CHECK_INT(line, 5);
    cJSON_Delete(v);
    forge_yaml_marks_free(marks);
    v = forge_yaml_parse_all("", 0, "e.yaml", NULL, &err);
    CHECK(v && cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0);
    cJSON_Delete(v);
}

TEST(syntax_errors_name_file_line_col)
{
    YAML_IS("a: 1\nb: [1, 2\nc: 3\n",
            "ERR t.yaml:3:2: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence that starts "
            "at 2:4)");
    YAML_IS("a: b: c", "ERR t.yaml:1:5: invalid YAML: mapping values are not allowed in this context");
    YAML_IS("a:\n\tb: 1", "ERR t.yaml:2:1: invalid YAML: found character that cannot start any token (while scanning "
                          "for the next token that starts at 2:1)");
    YAML_IS("key: \"open", "ERR t.yaml:1:11: invalid YAML: found unexpected end of stream (while scanning a quoted "
                          "scalar that starts at 1:6)");
    YAML_IS("- a\nb: 1", "ERR t.yaml:2:1: invalid YAML: did not find expected '-' indicator (while parsing a block "
                         "collection that starts at 1:1)");
    /* columns count characters, not bytes */
    YAML_IS("é: ü: 1", "ERR t.yaml:1:5: invalid YAML: mapping values are not allowed in this context");
}

TEST(marks_give_value_and_key_positions)
{
    const char *text = "cases:\n"
                       "  - id: a\n"
                       "    expect:\n"
                       "      toolsCalled: [x, \"y\"]\n"
                       "  - {id: b, maxTurns: 3}\n";
    struct forge_err err = {0};
    struct forge_yaml_marks *marks = NULL;
    cJSON *v = forge_yaml_parse_marked(text, strlen(text), "m.yaml", &marks, &err);
    CHECK(v != NULL && marks != NULL);
    int line = 0, col = 0;
    const cJSON *tc = forge_json_at(v, "cases[0].expect.toolsCalled");
    CHECK(forge_yaml_mark(marks, tc, true, &line, &col));
    CHECK_INT(line, 4);
    CHECK_INT(col, 7);
    CHECK(forge_yaml_mark(marks, tc, false, &line, &col));
    CHECK_INT(col, 20);
    CHECK(forge_yaml_mark(marks, cJSON_GetArrayItem(tc, 1), false, &line, &col));
    CHECK_INT(col, 24);
    CHECK(!forge_yaml_mark(marks, cJSON_GetArrayItem(tc, 1), true, &line, &col)); /* no key */
    const cJSON *mt = forge_json_at(v, "cases[1].maxTurns");
    CHECK(forge_yaml_mark(marks, mt, true, &line, &col));
    CHECK_INT(line, 5);
    CHECK_INT(col, 13);
    CHECK(forge_yaml_mark(marks, v, false, &line, &col));
    CHECK_INT(line, 1);
    CHECK(!forge_yaml_mark(NULL, v, false, &line, &col));
    cJSON_Delete(v);
    forge_yaml_marks_free(marks);
    forge_yaml_marks_free(NULL);
}

TEST(allocation_failures_are_clean)
{
    const char *text = "a: &a [1, {b: 2}]\nb: *a\nc: [x, y, z]\n";
    int failed = 0;
    for (long n = 1; n < 400; n++) {
        struct forge_err err = {0};
        struct forge_yaml_marks *marks = NULL;
        forge_alloc_fail_at(n);
        cJSON *v = forge_yaml_parse_marked(text, strlen(text), "f.yaml", &marks, &err);
        forge_alloc_fail_at(0);
        if (!v) {
            failed++;
            CHECK_INT(err.code, FORGE_ENOMEM);
            CHECK(marks == NULL);
        }
        cJSON_Delete(v);
        forge_yaml_marks_free(marks);
    }
    CHECK(failed > 0);
}

TEST(loads_yaml_files_by_name)
{
    CHECK(forge_yaml_is_path("a/b.yaml"));
    CHECK(forge_yaml_is_path("b.yml"));
    CHECK(!forge_yaml_is_path("b.json"));
    CHECK(!forge_yaml_is_path(".yml"));
    struct forge_err err = {0};
    cJSON *v = forge_json_load(FORGE_TESTS_DIR "/../docs/ci/k8s-job.yaml", &err);
    CHECK(v != NULL);
    CHECK_STR(forge_json_str(v, "kind"), "Job");
    CHECK_INT((long long)forge_json_at(v, "spec.completions")->valuedouble, 8);
    cJSON_Delete(v);
}

int main(void)
{
    RUN(core_schema_scalars);
    RUN(block_and_flow_styles);
    RUN(anchors_and_aliases);
    RUN(alias_bomb_is_refused_by_the_value_limit);
    RUN(recursive_alias_is_an_error);
    RUN(deep_nesting);
    RUN(duplicate_and_non_scalar_keys);
    RUN(nul_and_bad_bytes);
    RUN(documents);
    RUN(syntax_errors_name_file_line_col);
    RUN(marks_give_value_and_key_positions);
    RUN(allocation_failures_are_clean);
    RUN(loads_yaml_files_by_name);
    return TEST_DONE();
}
