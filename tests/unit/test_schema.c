/* Unit tests for data/schema: error output shape and locations, first vs all errors, remote
 * references through refdirs, compile errors, limits, and the allocation-free valid path. */
#include "test.h"
#include "same_error.h"
#include "data/schema.h"
#include "data/schema_int.h"
#include "data/json.h"
#include "data/re.h"
#include "base/alloc.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static cJSON *J(const char *text)
{
    struct forge_err err;
    cJSON *v = forge_json_parse(text, strlen(text), "<test>", &err);
    if (!v)
        fprintf(stderr, "bad test JSON: %s\n", err.msg);
    return v;
}

static struct forge_schema *compile(const char *schema, const struct forge_schema_opts *o,
                                    struct forge_err *err)
{
    cJSON *s = J(schema);
    struct forge_schema *c = forge_schema_compile(s, o, err);
    cJSON_Delete(s);
    return c;
}

/* Validates and returns the errors as compact JSON text (or "valid"), a new string. */
static char *run(const struct forge_schema *s, const char *inst)
{
    cJSON *i = J(inst), *errors = NULL;
    int r = forge_schema_validate(s, i, &errors);
    cJSON_Delete(i);
    char *out;
    if (r == 1) {
        out = forge_strdup("valid");
    } else if (r == 0) {
        out = forge_json_print(errors, 0);
    } else {
        out = forge_strdup(forge_rc_name(r));
    }
    cJSON_Delete(errors);
    return out;
}

/* Parses <text> into *<keep> (for the caller to delete) and returns it. */
static cJSON *J_tmp(cJSON **keep, const char *text)
{
    return *keep = J(text);
}

/* "[" + <names> + "]", through the buffer <b> (whose text it returns). */
static const char *bracket(struct forge_buf *b, const char *names)
{
    b->len = 0;
    forge_buf_adds(b, "[");
    forge_buf_adds(b, names);
    forge_buf_adds(b, "]");
    forge_buf_addc(b, 0);
    return b->data;
}

#define EXPECT(s, inst, want) do { char *got_ = run(s, inst); CHECK_STR(got_, want); forge_free(got_); } while (0)

TEST(locations_through_refs)
{
    struct forge_err err;
    struct forge_schema *s = compile(
        "{\"$id\": \"https://example.com/tool.json\", \"type\": \"object\","
        " \"properties\": {\"items\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/item\"}}},"
        " \"$defs\": {\"item\": {\"type\": \"object\", \"required\": [\"sku\"],"
        "   \"properties\": {\"qty\": {\"type\": \"integer\", \"minimum\": 1}}}}}",
        NULL, &err);
    CHECK(s != NULL);
    EXPECT(s, "{\"items\": [{\"sku\": \"a\", \"qty\": 2}]}", "valid");
    EXPECT(s, "{\"items\": [{\"sku\": \"a\", \"qty\": 0}]}",
           "[{\"instanceLocation\":\"/items/0/qty\","
           "\"keywordLocation\":\"/properties/items/items/$ref/properties/qty/minimum\","
           "\"absoluteKeywordLocation\":\"https://example.com/tool.json#/$defs/item/properties/qty/minimum\","
           "\"error\":\"0 is less than the minimum 1\"}]");
    EXPECT(s, "{\"items\": [{}, {\"sku\": 1, \"qty\": \"2\"}]}",
           "[{\"instanceLocation\":\"/items/0\","
           "\"keywordLocation\":\"/properties/items/items/$ref/required\","
           "\"absoluteKeywordLocation\":\"https://example.com/tool.json#/$defs/item/required\","
           "\"error\":\"missing required property 'sku'\"}]");
    forge_schema_free(s);
}

TEST(all_errors_and_messages)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema *s = compile(
        "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"a\", \"b\"],"
        " \"properties\": {\"a\": {\"enum\": [\"x\", \"y\"]}, \"b\": {\"type\": [\"string\", \"null\"], \"maxLength\": 2}}}",
        &o, &err);
    CHECK(s != NULL);
    /* no absoluteKeywordLocation without an $id: the schema has no absolute URI */
    /* properties, additionalProperties and required are checked in one pass over the members:
     * their errors come in member order, then the missing required names */
    EXPECT(s, "{\"a\": \"z\", \"c\": 1, \"d/e~\": 2}",
           "[{\"instanceLocation\":\"/a\",\"keywordLocation\":\"/properties/a/enum\",\"error\":\"value must be one of [\\\"x\\\",\\\"y\\\"]\"},"
           "{\"instanceLocation\":\"\",\"keywordLocation\":\"/additionalProperties\",\"error\":\"property 'c' is not allowed\"},"
           "{\"instanceLocation\":\"\",\"keywordLocation\":\"/additionalProperties\",\"error\":\"property 'd/e~' is not allowed\"},"
           "{\"instanceLocation\":\"\",\"keywordLocation\":\"/required\",\"error\":\"missing required property 'b'\"}]");
    EXPECT(s, "{\"a\": \"x\", \"b\": 5}",
           "[{\"instanceLocation\":\"/b\",\"keywordLocation\":\"/properties/b/type\",\"error\":\"expected null or string, got integer\"}]");
    EXPECT(s, "{\"a\": \"x\", \"b\": \"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"}",
           "[{\"instanceLocation\":\"/b\",\"keywordLocation\":\"/properties/b/maxLength\",\"error\":\"string has 3 characters, more than the maximum 2\"}]");
    forge_schema_free(s);

    /* a member's leaf with more than one failing keyword (the member loop of properties fused
     * with required): each of them, from the one its flat list failed at (an enum, which in
     * first-error mode is recorded without evaluating it again) on */
    s = compile("{\"properties\": {\"e\": {\"enum\": [\"aa\", \"bb\"], \"maxLength\": 1, \"pattern\": \"^a\"}},"
                " \"required\": [\"e\"]}", &o, &err);
    EXPECT(s, "{\"e\": \"cc\"}",
           "[{\"instanceLocation\":\"/e\",\"keywordLocation\":\"/properties/e/enum\",\"error\":\"value must be one of [\\\"aa\\\",\\\"bb\\\"]\"},"
           "{\"instanceLocation\":\"/e\",\"keywordLocation\":\"/properties/e/maxLength\",\"error\":\"string has 2 characters, more than the maximum 1\"},"
           "{\"instanceLocation\":\"/e\",\"keywordLocation\":\"/properties/e/pattern\",\"error\":\"string does not match the pattern ^a\"}]");
    EXPECT(s, "{\"e\": \"bb\"}",
           "[{\"instanceLocation\":\"/e\",\"keywordLocation\":\"/properties/e/maxLength\",\"error\":\"string has 2 characters, more than the maximum 1\"},"
           "{\"instanceLocation\":\"/e\",\"keywordLocation\":\"/properties/e/pattern\",\"error\":\"string does not match the pattern ^a\"}]");
    forge_schema_free(s);
    /* the same as an item (the items loop) and as the root */
    s = compile("{\"items\": {\"enum\": [\"a\", \"bb\"], \"maxLength\": 1}}", &o, &err);
    EXPECT(s, "[\"a\", \"cc\"]",
           "[{\"instanceLocation\":\"/1\",\"keywordLocation\":\"/items/enum\",\"error\":\"value must be one of [\\\"a\\\",\\\"bb\\\"]\"},"
           "{\"instanceLocation\":\"/1\",\"keywordLocation\":\"/items/maxLength\",\"error\":\"string has 2 characters, more than the maximum 1\"}]");
    forge_schema_free(s);
    s = compile("{\"enum\": [\"aa\", \"bb\"], \"maxLength\": 1}", &o, &err);
    EXPECT(s, "\"cc\"",
           "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/enum\",\"error\":\"value must be one of [\\\"aa\\\",\\\"bb\\\"]\"},"
           "{\"instanceLocation\":\"\",\"keywordLocation\":\"/maxLength\",\"error\":\"string has 2 characters, more than the maximum 1\"}]");
    forge_schema_free(s);

    /* first-error mode stops at the first failing keyword */
    s = compile("{\"required\": [\"a\", \"b\"], \"minProperties\": 3}", NULL, &err);
    EXPECT(s, "{}", "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/required\",\"error\":\"missing required property 'a'\"}]");
    forge_schema_free(s);

    /* JSON pointer escaping of keys in instanceLocation */
    s = compile("{\"properties\": {\"a/b\": {\"properties\": {\"~\": {\"type\": \"string\"}}}}}", NULL, &err);
    EXPECT(s, "{\"a/b\": {\"~\": 1}}",
           "[{\"instanceLocation\":\"/a~1b/~0\",\"keywordLocation\":\"/properties/a~1b/properties/~0/type\",\"error\":\"expected string, got integer\"}]");
    forge_schema_free(s);
}

TEST(errors_are_ordinary_cjson)
{
    /* an error's strings share one block: copies, detaching and deleting must still work */
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema *s = compile("{\"$id\": \"https://x.example/s\", \"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {\"minimum\": 3}}}", &o, &err);
    cJSON *i = J("{\"a\": 1, \"b\": 2}"), *errors = NULL;
    CHECK_INT(forge_schema_validate(s, i, &errors), 0);
    char *before = forge_json_print(errors, 0);
    cJSON *copy = cJSON_Duplicate(errors, 1);
    cJSON *first = cJSON_DetachItemFromArray(errors, 0);
    cJSON_Delete(errors);
    char *after = forge_json_print(copy, 0);
    CHECK_STR(after, before);
    CHECK_STR(cJSON_GetObjectItem(first, "keywordLocation")->valuestring, "/properties/a/type");
    CHECK_STR(cJSON_GetObjectItem(first, "absoluteKeywordLocation")->valuestring, "https://x.example/s#/properties/a/type");
    CHECK(cJSON_SetValuestring(cJSON_GetObjectItem(first, "error"), "changed") != NULL);
    CHECK_STR(cJSON_GetObjectItem(first, "error")->valuestring, "changed");
    cJSON_Delete(first);
    cJSON_Delete(copy);
    forge_free(before);
    forge_free(after);
    cJSON_Delete(i);
    forge_schema_free(s);
}

TEST(remote_refs)
{
    struct forge_err err;
    struct forge_schema_refdir rd = {"https://schemas.example.com/", FORGE_TESTS_DIR "/unit/schema/remote"};
    struct forge_schema_opts o = {0};
    o.refdirs = &rd;
    o.nrefdirs = 1;
    struct forge_schema *s = compile(
        "{\"type\": \"object\", \"properties\": {\"ship_to\": {\"$ref\": \"https://schemas.example.com/address.json\"}}}",
        &o, &err);
    CHECK(s != NULL);
    if (!s)
        fprintf(stderr, "%s\n", err.msg);
    EXPECT(s, "{\"ship_to\": {\"city\": \"Paris\", \"zip\": \"75001\"}}", "valid");
    EXPECT(s, "{\"ship_to\": {\"city\": \"Paris\", \"zip\": \"7500\"}}",
           "[{\"instanceLocation\":\"/ship_to/zip\","
           "\"keywordLocation\":\"/properties/ship_to/$ref/properties/zip/$ref/$ref/pattern\","
           "\"absoluteKeywordLocation\":\"https://schemas.example.com/sub/zip.json#/$defs/digits/pattern\","
           "\"error\":\"string does not match the pattern ^[0-9]{5}$\"}]");
    forge_schema_free(s);

    /* a prefix without its trailing slash works the same */
    struct forge_schema_refdir rd2 = {"https://schemas.example.com", FORGE_TESTS_DIR "/unit/schema/remote"};
    o.refdirs = &rd2;
    s = compile("{\"$ref\": \"https://schemas.example.com/sub/zip.json\"}", &o, &err);
    CHECK(s != NULL);
    EXPECT(s, "\"12345\"", "valid");
    forge_schema_free(s);
    /* nothing outside the folder */
    s = compile("{\"$ref\": \"https://schemas.example.com/sub/%2e%2e/address.json\"}", &o, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "must stay inside its --ref-dir folder") != NULL);
    o.refdirs = &rd;

    /* without the mapping the reference cannot resolve, and nothing is fetched */
    s = compile("{\"$ref\": \"https://schemas.example.com/address.json\"}", NULL, &err);
    CHECK(s == NULL);
    CHECK_INT(err.code, FORGE_EINVAL);
    CHECK_STR(err.msg, "invalid schema at '/$ref': $ref 'https://schemas.example.com/address.json': "
                       "cannot resolve 'https://schemas.example.com/address.json': no --ref-dir maps its URL prefix to a folder");

    /* a mapped folder without the file */
    s = compile("{\"$ref\": \"https://schemas.example.com/missing.json\"}", &o, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "missing.json") != NULL);
}

TEST(compile_errors)
{
    struct forge_err err;
    CHECK(compile("{\"properties\": {\"a\": {\"type\": \"strin\"}}}", NULL, &err) == NULL);
    CHECK_STR(err.msg, "invalid schema at '/properties/a/type': unknown type name");
    CHECK(compile("{\"pattern\": \"(\"}", NULL, &err) == NULL);
    CHECK(strncmp(err.msg, "invalid schema at '/pattern': invalid regex '(':", 48) == 0);
    CHECK(compile("{\"minLength\": -1}", NULL, &err) == NULL);
    CHECK_STR(err.msg, "invalid schema at '/minLength': must be a non-negative integer");
    CHECK(compile("{\"$ref\": \"#/$defs/nope\"}", NULL, &err) == NULL);
    CHECK_STR(err.msg, "invalid schema at '/$ref': $ref '#/$defs/nope': cannot resolve 'forge:/root.json#/$defs/nope': no value at '/$defs/nope'");
    CHECK(compile("[1]", NULL, &err) == NULL);
    CHECK_STR(err.msg, "invalid schema: a schema must be an object or a boolean");
}

TEST(drafts_and_formats)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    const char *tuple = "{\"items\": [{\"type\": \"integer\"}], \"additionalItems\": false}";
    o.draft = FORGE_DRAFT_7;
    struct forge_schema *s = compile(tuple, &o, &err);
    EXPECT(s, "[1]", "valid");
    EXPECT(s, "[1, 2]", "[{\"instanceLocation\":\"/1\",\"keywordLocation\":\"/additionalItems\",\"error\":\"no value is allowed here (schema false)\"}]");
    forge_schema_free(s);
    /* 2020-12 (the default) has no array form of items */
    CHECK(compile(tuple, NULL, &err) == NULL);
    /* $schema wins over the option */
    o.draft = FORGE_DRAFT_2020_12;
    s = compile("{\"$schema\": \"http://json-schema.org/draft-04/schema#\", \"maximum\": 5, \"exclusiveMaximum\": true}", &o, &err);
    EXPECT(s, "4", "valid");
    EXPECT(s, "5", "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/maximum\",\"error\":\"5 is not less than the exclusive maximum 5\"}]");
    forge_schema_free(s);

    s = compile("{\"format\": \"date\"}", NULL, &err);
    EXPECT(s, "\"2026-02-30\"", "valid"); /* annotation only by default */
    forge_schema_free(s);
    o.formats = true;
    s = compile("{\"format\": \"date\"}", &o, &err);
    EXPECT(s, "\"2024-02-29\"", "valid");
    EXPECT(s, "\"2026-02-30\"", "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/format\",\"error\":\"string is not a valid date\"}]");
    EXPECT(s, "17", "valid");
    forge_schema_free(s);
}

TEST(ecma_patterns)
{
    struct forge_err err;
    /* \d is ASCII-only and $ does not match before a final newline, as in JavaScript */
    struct forge_schema *s = compile("{\"pattern\": \"^\\\\d+$\"}", NULL, &err);
    EXPECT(s, "\"123\"", "valid");
    char *r1 = run(s, "\"\xd9\xa1\""), *r2 = run(s, "\"12\\n\"");
    CHECK(strstr(r1, "does not match") != NULL);
    CHECK(strstr(r2, "does not match") != NULL);
    forge_free(r1);
    forge_free(r2);
    forge_schema_free(s);
    s = compile("{\"pattern\": \"^\\\\p{Letter}\\\\s\\\\u00e9$\"}", NULL, &err);
    CHECK(s != NULL);
    EXPECT(s, "\"\xc3\xa9\xe2\x80\x83\xc3\xa9\"", "valid"); /* é, EM SPACE, é */
    forge_schema_free(s);
}

/* The schema <schema> on instances nested 256 and 257 deep (<open> around <inner>, closed by
 * <close>): the first passes, the second meets the nesting limit (message <deep>), on each
 * walk. */
static void nesting_limit(const char *schema, const char *open, const char *inner, const char *close,
                          const char *deep)
{
    struct forge_err err;
    struct forge_schema *s = compile(schema, NULL, &err);
    CHECK(s != NULL);
    for (int depth = 256; depth <= 257 && s; depth++) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        for (int k = 1; k < depth; k++)
            forge_buf_adds(&b, open);
        forge_buf_adds(&b, inner);
        for (int k = 1; k < depth; k++)
            forge_buf_adds(&b, close);
        cJSON *i = J(b.data);
        struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
        for (int way = 0; way < 3; way++) {
            forge_schema_test_path(way);
            CHECK_INT(forge_schema_check(s, i, way ? &e : NULL), depth == 256 ? 1 : FORGE_ELIMIT);
            forge_schema_test_path(0);
        }
        if (depth == 257)
            CHECK_STR(forge_schema_limit_message(), deep);
        forge_schema_errors_free(&e);
        cJSON_Delete(i);
        forge_buf_free(&b);
    }
    forge_schema_free(s);
}

TEST(limits)
{
    struct forge_err err;
    struct forge_schema *s = compile("{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\": \"#/$defs/a\"}}, \"$ref\": \"#/$defs/a\"}", NULL, &err);
    CHECK(s != NULL);
    cJSON *i = J("1");
    const char *deep = "schema evaluation limit exceeded: evaluation nested deeper than 512 "
                       "schemas, a fixed limit (a reference cycle that consumes no input, or an "
                       "instance nested deeper than its recursive schema can follow)";
    CHECK_INT(forge_schema_validate(s, i, NULL), FORGE_ELIMIT);
    CHECK_STR(forge_schema_limit_message(), deep);
    cJSON_Delete(i);
    forge_schema_free(s);
    /* a recursive schema follows an instance two schemas a level ("items", "$ref"): 256
     * nested arrays pass, 257 reach the limit, which names both causes; the same through
     * objects (a node of "properties" alone and a $ref-only node a level) */
    nesting_limit("{\"items\": {\"$ref\": \"#\"}}", "[", "[]", "]", deep);
    nesting_limit("{\"properties\": {\"a\": {\"$ref\": \"#\"}}}", "{\"a\": ", "{}", "}", deep);
}

/* anyOf over a chain of $ref, 40 levels: 2^40 evaluations for an instance that fails every
 * branch. Memoised verdicts make it linear; where memoising is not sound, the step budget ends
 * it with a message naming the limit and its flag. An instance that passes the first branch at
 * each level stays cheap either way. */
TEST(step_budget)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_addf(&b, "{\"$ref\": \"#/$defs/d0\", \"$defs\": {");
    for (int k = 0; k < 40; k++)
        forge_buf_addf(&b, "\"d%d\": {\"anyOf\": [{\"$ref\": \"#/$defs/d%d\"}, {\"$ref\": "
                       "\"#/$defs/d%d\"}]}, ", k, k + 1, k + 1);
    forge_buf_addf(&b, "\"d40\": {\"type\": \"string\"}}}");
    struct forge_err err;
    struct forge_schema *s = compile(b.data, NULL, &err);
    /* the same with a $dynamicRef: verdicts may depend on the dynamic scope, so none is
     * memoised and the budget is what stops it */
    b.len -= 2; /* before "}}" */
    b.data[b.len] = '\0';
    forge_buf_addf(&b, ", \"any\": true}, \"allOf\": [{\"$dynamicRef\": \"#/$defs/any\"}]}");
    struct forge_schema *dyn = compile(b.data, NULL, &err);
    forge_buf_free(&b);
    CHECK(s != NULL && dyn != NULL);
    cJSON *bad = J("5"), *good = J("\"s\"");
    forge_schema_set_max_steps(100000);
    /* memoised past 4096 steps: linear, well under the budget */
    CHECK_INT(forge_schema_validate(s, bad, NULL), 0);
    CHECK_INT(forge_schema_validate(dyn, good, NULL), 1);
    forge_schema_free(s);
    s = dyn;
    CHECK_INT(forge_schema_validate(s, bad, NULL), FORGE_ELIMIT);
    CHECK_STR(forge_schema_limit_message(), "schema evaluation limit exceeded: more than 100000 "
              "steps validating one instance; raise it with --schema-steps N");
    CHECK_INT(forge_schema_validate(s, good, NULL), 1);
    forge_schema_set_max_steps(0);
    CHECK_INT(forge_schema_validate(s, good, NULL), 1);
    CHECK_STR(forge_schema_limit_message(), "no schema limit was exceeded");
    cJSON_Delete(bad);
    cJSON_Delete(good);
    forge_schema_free(s);
}

/* propertyNames runs its subschema on each name through one cJSON on the stack: past the 4096
 * steps after which probe verdicts are memoised by (node, instance), a name must not take the
 * verdict of the one before it at that address. */
TEST(property_names_not_memoised)
{
    struct forge_err err;
    struct forge_schema *s = compile("{\"propertyNames\": {\"anyOf\": [{\"pattern\": \"^a\"}]}}", NULL, &err);
    CHECK(s != NULL);
    cJSON *inst = cJSON_CreateObject();
    char name[16];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "a%d", i);
        cJSON_AddNullToObject(inst, name);
    }
    cJSON_AddNullToObject(inst, "b");
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    CHECK_INT(forge_schema_check(s, inst, NULL), 0);
    CHECK_INT(forge_schema_check(s, inst, &e), 0);
    CHECK_INT(e.n, 1);
    forge_schema_errors_free(&e);
    cJSON_Delete(inst);
    forge_schema_free(s);
}

TEST(valid_path_does_not_allocate)
{
    struct forge_err err;
    struct forge_schema *s = compile(
        "{\"type\": \"object\", \"required\": [\"q\"], \"properties\": {"
        " \"q\": {\"type\": \"string\", \"pattern\": \"^[a-z ]+$\"},"
        " \"n\": {\"anyOf\": [{\"type\": \"integer\"}, {\"type\": \"null\"}]},"
        " \"tags\": {\"type\": \"array\", \"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}},"
        " \"unevaluatedProperties\": false}", NULL, &err);
    cJSON *i = J("{\"q\": \"hello world\", \"n\": 3, \"tags\": [\"a\", \"b\"]}");
    CHECK_INT(forge_schema_validate(s, i, NULL), 1); /* warms the per-thread match data */
    forge_alloc_fail_at(1);
    CHECK_INT(forge_schema_validate(s, i, NULL), 1);
    cJSON *errors = (cJSON *)1;
    CHECK_INT(forge_schema_validate(s, i, &errors), 1);
    CHECK(errors == NULL);
    CHECK_INT(forge_alloc_fail_at(0), 0);
    cJSON_Delete(i);
    forge_schema_free(s);
}

TEST(out_of_memory_is_clean)
{
    /* every allocation of a compile may fail; each failure returns NULL with FORGE_ENOMEM and
     * leaks nothing (the sanitizer build checks the leaks) */
    const char *text = "{\"$id\": \"https://x.example/s\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/a\"},"
                       " \"b\": {\"pattern\": \"^b\"}}, \"$defs\": {\"a\": {\"$anchor\": \"A\", \"type\": \"integer\"}}}";
    cJSON *s = J(text);
    int failures = 0, wrong_code = 0;
    bool succeeded = false;
    for (long n = 1; n < 2000 && !succeeded; n++) {
        struct forge_err err;
        forge_err_clear(&err);
        forge_alloc_fail_at(n);
        struct forge_schema *c = forge_schema_compile(s, NULL, &err);
        forge_alloc_fail_at(0);
        if (c) {
            succeeded = true;
            cJSON *i = J("{\"a\": 1, \"b\": \"bee\"}");
            CHECK_INT(forge_schema_validate(c, i, NULL), 1);
            cJSON_Delete(i);
        } else {
            failures++;
            if (err.code != FORGE_ENOMEM) {
                wrong_code++;
                fprintf(stderr, "allocation %ld failed: %d %s\n", n, err.code, err.msg);
            }
        }
        forge_schema_free(c);
    }
    cJSON_Delete(s);
    CHECK(succeeded);
    CHECK(failures > 10);
    CHECK_INT(wrong_code, 0);
}

TEST(measured_compile_stops_at_its_ceiling)
{
    /* what a compile keeps is measured (a script's validator is held against its memory cap);
     * with a ceiling, the compile fails with FORGE_ENOMEM at the allocation that would pass it,
     * never holding more than the ceiling at once, and leaks nothing (the sanitizer build) */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "{\"type\": \"object\", \"properties\": {");
    for (int i = 0; i < 200; i++)
        forge_buf_addf(&b, "%s\"p%d\": {\"type\": \"string\", \"pattern\": \"(?:[a-z0-9]{2}x){30}%d\"}",
                         i ? ", " : "", i, i);
    forge_buf_adds(&b, "}}");
    cJSON *j = J(b.data);
    struct forge_err err;
    forge_alloc_measure_start(SIZE_MAX);
    struct forge_schema *s = forge_schema_compile(j, NULL, &err);
    size_t kept = forge_alloc_measure_stop(), peak = forge_alloc_measure_peak();
    CHECK(s != NULL);
    CHECK(!forge_alloc_measure_refused());
    CHECK(kept > 200 * 1000); /* 200 patterns' automata and code */
    CHECK(peak >= kept);
    forge_schema_free(s);
    /* the same compile with a little more room than it took succeeds (what PCRE2's JIT code
     * and reused blocks take varies a little from one compile to the next) */
    forge_alloc_measure_start(peak + peak / 10);
    s = forge_schema_compile(j, NULL, &err);
    size_t again = forge_alloc_measure_stop();
    CHECK(s != NULL && !forge_alloc_measure_refused());
    CHECK(again > kept - kept / 10 && again < kept + kept / 10);
    forge_schema_free(s);
    /* with less, it stops where the ceiling is reached */
    size_t ceilings[] = {peak - peak / 10, peak / 2, kept / 10, 1000, 0};
    for (size_t k = 0; k < sizeof ceilings / sizeof *ceilings; k++) {
        forge_err_clear(&err);
        forge_alloc_measure_start(ceilings[k]);
        s = forge_schema_compile(j, NULL, &err);
        forge_alloc_measure_stop();
        CHECK(s == NULL);
        CHECK_INT(err.code, FORGE_ENOMEM);
        CHECK(forge_alloc_measure_refused());
        CHECK(forge_alloc_measure_peak() <= ceilings[k]);
    }
    /* an unbounded measure refuses nothing and a compile outside a measure is not measured */
    s = forge_schema_compile(j, NULL, &err);
    CHECK(s != NULL);
    forge_schema_free(s);
    cJSON_Delete(j);
    forge_buf_free(&b);
}

static char *first_error(const struct forge_schema *s, const cJSON *inst, int recording);

/* A random value for the uniqueItems test, from a small domain so that equal values are common:
 * numbers (0, -0, 1, 1.0, 2.5), strings, booleans, null, arrays, and objects whose keys come in
 * any order and may repeat (the first value counts). */
static void rand_value(struct forge_buf *b, unsigned *seed, int depth)
{
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = (*seed >> 8) % (depth > 2 ? 9 : 12);
    static const char *const scalars[] = {"0", "-0", "1", "1.0", "2.5", "\"a\"", "\"b\"", "true", "false"};
    if (r < 9) {
        forge_buf_adds(b, r == 8 && (*seed >> 20) % 2 ? "null" : scalars[r]);
        return;
    }
    int n = (int)((*seed >> 12) % 3);
    if (r == 9) {
        forge_buf_adds(b, "[");
        for (int i = 0; i < n; i++) {
            if (i)
                forge_buf_adds(b, ",");
            rand_value(b, seed, depth + 1);
        }
        forge_buf_adds(b, "]");
        return;
    }
    forge_buf_adds(b, "{");
    for (int i = 0; i < n + 1; i++) {
        *seed = *seed * 1103515245u + 12345u;
        forge_buf_addf(b, "%s\"%c\":", i ? "," : "", "xyz"[(*seed >> 9) % 3]);
        rand_value(b, seed, depth + 1);
    }
    forge_buf_adds(b, "}");
}

/* uniqueItems beside "items" with an enum of strings (up to 64): the verdict walk tells the
 * items apart by their indexes in the enum's name table (the cases of verdict_walk_agrees), up
 * to 64 of them, the most a set of bits holds. */
TEST(unique_items_by_enum_table)
{
    /* 64 strings, the most a set of bits holds: the last and the first told apart */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "{\"items\": {\"enum\": [");
    for (int k = 0; k < 64; k++)
        forge_buf_addf(&b, "%s\"s%d\"", k ? ", " : "", k);
    forge_buf_adds(&b, "]}, \"uniqueItems\": true}");
    struct forge_err err;
    struct forge_schema *s = compile(b.data, NULL, &err);
    forge_buf_free(&b);
    CHECK(s != NULL);
    cJSON *i = J("[\"s63\", \"s0\", \"s31\", \"s32\"]"), *d = J("[\"s63\", \"s0\", \"s63\"]");
    CHECK_INT(forge_schema_check(s, i, NULL), 1);
    CHECK_INT(forge_schema_check(s, d, NULL), 0);
    cJSON_Delete(i);
    cJSON_Delete(d);
    forge_schema_free(s);
}

TEST(unique_items_by_hash)
{
    /* arrays past 32 items are checked through hashes of their items: the verdict and the pair
     * named are those of comparing every pair in order (forge_json_equal), on random arrays */
    struct forge_err err;
    struct forge_schema *s = compile("{\"uniqueItems\": true}", NULL, &err);
    unsigned seed = 11;
    int dups = 0, uniques = 0, wrong = 0;
    for (int round = 0; round < 400; round++) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_buf_adds(&b, "[");
        seed = seed * 1103515245u + 12345u;
        int n = 33 + (int)((seed >> 8) % 60);
        bool distinct = round % 4 == 0; /* numbers apart: no duplicate */
        for (int i = 0; i < n; i++) {
            if (i)
                forge_buf_adds(&b, ",");
            if (distinct)
                forge_buf_addf(&b, "[%d, {\"k\": %d}]", i, i);
            else
                rand_value(&b, &seed, 0);
        }
        forge_buf_adds(&b, "]");
        cJSON *inst = J(b.data);
        char want[96] = "valid (0 errors)";
        int i = 0;
        for (const cJSON *x = inst->child; x && !strncmp(want, "valid", 5); x = x->next, i++) {
            int j = i + 1;
            for (const cJSON *y = x->next; y; y = y->next, j++)
                if (forge_json_equal(x, y)) {
                    snprintf(want, sizeof want, " | /uniqueItems | items %d and %d are equal", i, j);
                    break;
                }
        }
        char *got = first_error(s, inst, 1);
        if (!strncmp(want, "valid", 5))
            uniques++;
        else
            dups++;
        if (strcmp(got, want) && wrong++ < 3)
            fprintf(stderr, "%s\n  got  %s\n  want %s\n", b.data, got, want);
        CHECK_INT(forge_schema_validate(s, inst, NULL), !strncmp(want, "valid", 5));
        forge_free(got);
        cJSON_Delete(inst);
        forge_buf_free(&b);
    }
    CHECK_INT(wrong, 0);
    CHECK(dups > 200 && uniques >= 100);
    /* 100,000 distinct items: one sort, not five billion comparisons */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "[");
    for (int i = 0; i < 100000; i++)
        forge_buf_addf(&b, "%s{\"a\": %d, \"b\": \"x\"}", i ? "," : "", i);
    forge_buf_adds(&b, ", {\"b\": \"x\", \"a\": 77}]");
    cJSON *inst = J(b.data);
    char *got = first_error(s, inst, 1);
    CHECK_STR(got, " | /uniqueItems | items 77 and 100000 are equal");
    forge_free(got);
    cJSON_Delete(inst);
    forge_buf_free(&b);
    forge_schema_free(s);
}

/* The schema <head> "name0", ..., "name<n-1>" <tail>, compiled, and in *inst an object of those
 * names in the reverse order. */
static struct forge_schema *names_schema(const char *head, const char *tail, int n, cJSON **inst)
{
    struct forge_buf b, t;
    forge_buf_init(&b, 0);
    forge_buf_init(&t, 0);
    forge_buf_adds(&b, head);
    forge_buf_adds(&t, "{");
    for (int i = 0; i < n; i++) {
        forge_buf_addf(&b, "%s\"name%d\"", i ? ", " : "", i);
        forge_buf_addf(&t, "%s\"name%d\": %d", i ? ", " : "", n - 1 - i, i);
    }
    forge_buf_adds(&b, tail);
    forge_buf_adds(&t, "}");
    struct forge_err err;
    struct forge_schema *s = compile(b.data, NULL, &err);
    *inst = J(t.data);
    forge_buf_free(&b);
    forge_buf_free(&t);
    return s;
}

TEST(many_dependent_names)
{
    /* dependentRequired and dependencies ask about each listed name; past eight questions the
     * object's names go into a table: the same errors in the same order (repeated names, a
     * repeated member) as the scan gives; 20,000 names on 20,000 members take one pass */
    for (int all = 0; all < 2; all++) {
        for (int draft = 0; draft < 2; draft++) {
            struct forge_buf b;
            forge_buf_init(&b, 0);
            forge_buf_adds(&b, draft ? "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"dependencies\": {\"a\": ["
                                     : "{\"dependentRequired\": {\"a\": [");
            for (int i = 0; i < 40; i++)
                forge_buf_addf(&b, "\"k%d\", ", i);
            forge_buf_adds(&b, "\"k5\"], \"zz\": [\"k1\"], \"k3\": [\"q\", \"k2\"]}}");
            struct forge_schema_opts o = {0};
            o.all_errors = all;
            struct forge_err err;
            struct forge_schema *s = compile(b.data, &o, &err);
            CHECK(s != NULL);
            forge_buf_reset(&b);
            forge_buf_adds(&b, "{\"a\": 0, ");
            for (int i = 39; i >= 0; i--)
                if (i != 5 && i != 10)
                    forge_buf_addf(&b, "\"k%d\": 1, ", i);
            forge_buf_adds(&b, "\"k3\": 2}");
            cJSON *inst = J(b.data);
            cJSON *errs = NULL;
            CHECK_INT(forge_schema_validate(s, inst, &errs), 0);
            const char *want[] = {"property 'a' requires property 'k5'", "property 'a' requires property 'k10'",
                                  "property 'a' requires property 'k5'", "property 'k3' requires property 'q'"};
            int n = cJSON_GetArraySize(errs);
            CHECK_INT(n, all ? 4 : 1);
            for (int i = 0; i < n && i < 4; i++)
                CHECK_STR(forge_json_str(cJSON_GetArrayItem(errs, i), "error"), want[i]);
            cJSON_Delete(errs);
            /* and the verdict alone */
            CHECK_INT(forge_schema_validate(s, inst, NULL), 0);
            cJSON_Delete(inst);
            forge_buf_free(&b);
            forge_schema_free(s);
        }
    }
    cJSON *inst;
    struct forge_schema *s = names_schema("{\"dependentRequired\": {\"name0\": [", "]}}", 20000, &inst);
    CHECK_INT(forge_schema_validate(s, inst, NULL), 1);
    cJSON_Delete(cJSON_DetachItemFromObject(inst, "name777"));
    cJSON *errs = NULL;
    CHECK_INT(forge_schema_validate(s, inst, &errs), 0);
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(errs, 0), "error"),
              "property 'name0' requires property 'name777'");
    cJSON_Delete(errs);
    cJSON_Delete(inst);
    forge_schema_free(s);
}

TEST(references_into_large_objects)
{
    /* $ref's JSON pointers look names up through a table once an object is looked into again:
     * each reference finds its own entry (the first of a repeated name, as the scan does), a
     * missing one is still an error, and so do anchors (the registry is a table too) */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "{\"$defs\": {\"d7\": {\"type\": \"string\"}, ");
    for (int i = 0; i < 3000; i++)
        forge_buf_addf(&b, "\"d%d\": {\"$anchor\": \"a%d\", \"const\": %d}, ", i, i, i);
    forge_buf_adds(&b, "\"last\": true}, \"properties\": {");
    for (int i = 0; i < 3000; i++)
        forge_buf_addf(&b, "%s\"p%d\": {\"$ref\": \"#/$defs/d%d\"}, \"q%d\": {\"$ref\": \"#a%d\"}",
                       i ? ", " : "", i, 2999 - i, i, i);
    forge_buf_adds(&b, "}}");
    struct forge_err err;
    struct forge_schema *s = compile(b.data, NULL, &err);
    CHECK(s != NULL);
    cJSON *ok = J("{\"p0\": 2999, \"p2992\": \"x\", \"p2999\": 0, \"q5\": 5, \"q7\": 7}");
    CHECK_INT(forge_schema_validate(s, ok, NULL), 1);
    cJSON *bad = J("{\"p2992\": 7}"); /* the first d7: a string */
    cJSON *errs = NULL;
    CHECK_INT(forge_schema_validate(s, bad, &errs), 0);
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(errs, 0), "keywordLocation"), "/properties/p2992/$ref/type");
    cJSON_Delete(errs);
    cJSON_Delete(bad);
    cJSON_Delete(ok);
    forge_schema_free(s);
    forge_buf_reset(&b);
    forge_buf_adds(&b, "{\"$defs\": {");
    for (int i = 0; i < 100; i++)
        forge_buf_addf(&b, "\"d%d\": {}, ", i);
    forge_buf_adds(&b, "\"e\": {}}, \"properties\": {\"a\": {\"$ref\": \"#/$defs/d1\"}, \"b\": {\"$ref\": \"#/$defs/nope\"}}}");
    CHECK(compile(b.data, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "cannot resolve") != NULL && strstr(err.msg, "no value at '/$defs/nope'") != NULL);
    forge_buf_free(&b);
}

TEST(pattern_properties_count_as_steps)
{
    /* every member name against every pattern is what patternProperties means: each test is a
     * step of the budget, so 300 patterns on 300 members pass 10,000 steps */
    struct forge_buf b, t;
    forge_buf_init(&b, 0);
    forge_buf_init(&t, 0);
    forge_buf_adds(&b, "{\"patternProperties\": {");
    forge_buf_adds(&t, "{");
    for (int i = 0; i < 300; i++) {
        forge_buf_addf(&b, "%s\"^k%d$\": {\"type\": \"integer\"}", i ? ", " : "", i);
        forge_buf_addf(&t, "%s\"k%d\": %d", i ? ", " : "", i, i);
    }
    forge_buf_adds(&b, "}, \"additionalProperties\": false}");
    forge_buf_adds(&t, "}");
    struct forge_err err;
    struct forge_schema *s = compile(b.data, NULL, &err);
    cJSON *inst = J(t.data);
    CHECK_INT(forge_schema_validate(s, inst, NULL), 1);
    forge_schema_set_max_steps(10000);
    CHECK_INT(forge_schema_validate(s, inst, NULL), FORGE_ELIMIT);
    CHECK(strstr(forge_schema_limit_message(), "more than 10000 steps") != NULL);
    forge_schema_set_max_steps(0);
    cJSON_Delete(inst);
    forge_schema_free(s);
    forge_buf_free(&b);
    forge_buf_free(&t);
}

TEST(pattern_limit_matched_once)
{
    /* a pattern that runs past its time limit is an error at once: the walk that records errors
     * does not match it again to explain the failure (which would spend the limit twice), in
     * each place a pattern is tested and on each walk */
    const char *schemas[] = {
        /* a property's leaf with its bounds folded (lspec), and one without */
        "{\"properties\": {\"p\": {\"type\": \"string\", \"maxLength\": 900, \"pattern\": \"^(?=a)(a+)+$\"}}}",
        "{\"properties\": {\"p\": {\"pattern\": \"^(?=a)(a+)+$\", \"enum\": [1, \"a\"]}}}",
        /* the root as a leaf, and a pattern beside subschemas (not a leaf) */
        "{\"pattern\": \"^(?=a)(a+)+$\"}",
        "{\"pattern\": \"^(?=a)(a+)+$\", \"not\": {\"type\": \"null\"}, \"allOf\": [{\"minLength\": 1}]}",
        /* an item's leaf */
        "{\"items\": {\"type\": \"string\", \"pattern\": \"^(?=a)(a+)+$\"}}",
    };
    const char *insts[] = {
        "{\"p\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"}",
        "{\"p\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"}",
        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"",
        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"",
        "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"]",
    };
    unsigned long was = forge_re_timeout_ms();
    /* (the match limit stops it; the time limit is only a bound should it not) */
    forge_re_set_timeout(10000);
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (size_t k = 0; k < sizeof schemas / sizeof *schemas; k++) {
        for (int all = 0; all < 2; all++) {
            struct forge_schema_opts o = {0};
            o.all_errors = all;
            struct forge_err err;
            struct forge_schema *s = compile(schemas[k], &o, &err);
            CHECK(s != NULL);
            if (!s)
                continue;
            cJSON *i = J(insts[k]);
            /* no errors wanted (the verdict walk), then the first error both ways, or all */
            for (int way = 0; way < 4; way++) {
                forge_schema_test_path(way == 2 ? 1 : way == 3 ? 2 : 0);
                unsigned long before = forge_ecmare_test_pcre2_matches();
                int r = forge_schema_check(s, i, way ? &e : NULL);
                forge_schema_test_path(0);
                unsigned long ran = forge_ecmare_test_pcre2_matches() - before;
                if (r != FORGE_ELIMIT || ran != 1)
                    fprintf(stderr, "schema %zu (all %d, way %d): %d after %lu matches\n", k, all,
                            way, r, ran);
                CHECK_INT(r, FORGE_ELIMIT);
                CHECK_INT((int)ran, 1);
                CHECK_STR(forge_schema_limit_message(), "a pattern hit its PCRE2 match limit "
                          "(catastrophic backtracking?); simplify the pattern");
            }
            cJSON_Delete(i);
            forge_schema_free(s);
        }
    }
    /* a keyword before the pattern fails: the first error is that keyword's, as the keywords in
     * their order say, whatever the quick test met first; in all-errors mode (with or without
     * an arena) the pattern is evaluated too and its limit reported, still after one match */
    struct forge_schema_opts o = {0};
    struct forge_err err;
    for (int all = 0; all < 2; all++) {
        o.all_errors = all;
        struct forge_schema *s = compile("{\"properties\": {\"p\": {\"enum\": [\"x\"], \"maxLength\": 900, "
                                         "\"pattern\": \"^(?=a)(a+)+$\"}}}", &o, &err);
        cJSON *i = J(insts[0]);
        for (int way = 0; way < 4; way++) {
            forge_schema_test_path(way == 2 ? 1 : way == 3 ? 2 : 0);
            unsigned long before = forge_ecmare_test_pcre2_matches();
            int r = forge_schema_check(s, i, way ? &e : NULL);
            forge_schema_test_path(0);
            CHECK((int)(forge_ecmare_test_pcre2_matches() - before) <= 1);
            CHECK_INT(r, all ? FORGE_ELIMIT : 0);
            if (!all && way) {
                CHECK_INT(forge_schema_errors_render(&e), 0);
                CHECK_STR(e.list[0].keyword_location, "/properties/p/enum");
            }
        }
        cJSON_Delete(i);
        forge_schema_free(s);
    }
    /* the answer is kept for one validation only: the same subject's bytes changed in place
     * (the same address and length, as a freed string's successor may have) are matched again */
    struct forge_schema *s = compile(schemas[2], NULL, &err);
    cJSON *i = J(insts[2]);
    CHECK_INT(forge_schema_check(s, i, NULL), FORGE_ELIMIT);
    i->valuestring[strlen(i->valuestring) - 1] = 'a';
    CHECK_INT(forge_schema_check(s, i, NULL), 1);
    cJSON_Delete(i);
    forge_schema_free(s);
    forge_schema_errors_free(&e);
    forge_re_set_timeout(was);
}

TEST(many_required_names)
{
    /* "required" of more than 64 names marks the names present in one pass: the same errors, in
     * the same order (a repeated name each time), as a lookup per name; and 100,000 names on
     * 100,000 members take that one pass */
    for (int all = 0; all < 2; all++) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_buf_adds(&b, "{\"required\": [");
        for (int i = 0; i < 100; i++)
            forge_buf_addf(&b, "\"k%d\", ", i);
        forge_buf_adds(&b, "\"k5\"]}");
        struct forge_schema_opts o = {0};
        o.all_errors = all;
        struct forge_err err;
        struct forge_schema *s = compile(b.data, &o, &err);
        forge_buf_free(&b);
        forge_buf_init(&b, 0);
        forge_buf_adds(&b, "{");
        for (int i = 99; i >= 0; i--) /* in another order than required's */
            if (i != 5 && i != 10 && i != 50)
                forge_buf_addf(&b, "\"k%d\": 1, ", i);
        forge_buf_adds(&b, "\"k7\": 2}");
        cJSON *inst = J(b.data);
        cJSON *errs = NULL;
        CHECK_INT(forge_schema_validate(s, inst, &errs), 0);
        const char *want[] = {"k5", "k10", "k50", "k5"};
        int n = cJSON_GetArraySize(errs);
        CHECK_INT(n, all ? 4 : 1);
        for (int i = 0; i < n && i < 4; i++) {
            char msg[64];
            snprintf(msg, sizeof msg, "missing required property '%s'", want[i]);
            CHECK_STR(forge_json_str(cJSON_GetArrayItem(errs, i), "error"), msg);
        }
        cJSON_Delete(errs);
        cJSON_Delete(inst);
        forge_buf_free(&b);
        forge_schema_free(s);
    }
    cJSON *inst;
    struct forge_schema *s = names_schema("{\"required\": [", "]}", 100000, &inst);
    CHECK_INT(forge_schema_validate(s, inst, NULL), 1);
    cJSON_Delete(inst);
    forge_schema_free(s);
}

TEST(many_enum_strings)
{
    /* an enum of more than 16 strings is looked up in a hash table, by every walk: at the top, as
     * a property's leaf and as array items; the strings include "", prefixes of each other and
     * repeats (the first, "v12", looked up through the table) */
    const char *shapes[] = {"{\"enum\": %s}", "{\"properties\": {\"p\": {\"enum\": %s}}}",
                            "{\"items\": {\"enum\": %s}}"};
    struct forge_buf e;
    forge_buf_init(&e, 0);
    forge_buf_adds(&e, "[\"v12\", \"\", \"a\", \"ab\", \"abc\", \"a\"");
    for (int i = 0; i < 60; i++)
        forge_buf_addf(&e, ", \"v%d\"", i * 3);
    forge_buf_adds(&e, "]");
    for (int sh = 0; sh < 3; sh++) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_buf_addf(&b, shapes[sh], e.data);
        struct forge_err err;
        struct forge_schema *s = compile(b.data, NULL, &err);
        CHECK(s != NULL);
        for (int i = -4; i < 200; i++) {
            char v[16];
            if (i < 0)
                snprintf(v, sizeof v, "%s", i == -4 ? "" : i == -3 ? "a" : i == -2 ? "ab" : "abc");
            else
                snprintf(v, sizeof v, "v%d", i);
            bool in = i < 0 || (i % 3 == 0 && i < 180);
            char inst[64];
            snprintf(inst, sizeof inst, sh == 0 ? "\"%s\"" : sh == 1 ? "{\"p\": \"%s\"}" : "[\"v0\", \"%s\"]", v);
            cJSON *x = J(inst);
            cJSON *errs = NULL;
            int r = forge_schema_validate(s, x, &errs);
            CHECK_INT(r, in);
            if (!in)
                CHECK(strstr(forge_json_str(cJSON_GetArrayItem(errs, 0), "error"), "value must be one of") != NULL);
            CHECK_INT(forge_schema_validate(s, x, NULL), in);
            cJSON_Delete(errs);
            cJSON_Delete(x);
        }
        cJSON *x = J(sh == 0 ? "\"abcd\"" : sh == 1 ? "{\"p\": \"v\"}" : "[\"v3\", \"v1\"]");
        CHECK_INT(forge_schema_validate(s, x, NULL), 0);
        cJSON_Delete(x);
        forge_schema_free(s);
        forge_buf_free(&b);
    }
    forge_buf_free(&e);
}

TEST(errors_arena)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema *s = compile(
        "{\"$id\": \"https://example.com/w.json\", \"type\": \"object\", \"additionalProperties\": false,"
        " \"required\": [\"city\"], \"properties\": {\"city\": {\"type\": \"string\", \"minLength\": 1},"
        " \"days\": {\"type\": \"integer\", \"maximum\": 14}}}", &o, &err);
    CHECK(s != NULL);
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    cJSON *i = J("{\"days\": 30, \"wind\": true}");
    CHECK_INT(forge_schema_check(s, i, &e), 0);
    CHECK_INT(e.n, 3);
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_INT(forge_schema_errors_render(&e), 0); /* once rendered, the same text */
    CHECK_STR(e.list[0].instance_location, "/days");
    CHECK_STR(e.list[0].keyword_location, "/properties/days/maximum");
    CHECK_STR(e.list[0].absolute_keyword_location, "https://example.com/w.json#/properties/days/maximum");
    CHECK_STR(e.list[0].message, "30 is greater than the maximum 14");
    CHECK_STR(e.list[1].keyword_location, "/additionalProperties");
    CHECK_STR(e.list[1].message, "property 'wind' is not allowed");
    CHECK_STR(e.list[2].instance_location, "");
    CHECK_STR(e.list[2].message, "missing required property 'city'");
    /* the JSON form is the one forge_schema_validate returns */
    cJSON *a = forge_schema_errors_json(&e), *b = NULL;
    CHECK_INT(forge_schema_validate(s, i, &b), 0);
    char *ta = forge_json_print(a, 0), *tb = forge_json_print(b, 0);
    CHECK_STR(ta, tb);
    forge_free(ta);
    forge_free(tb);
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* the arena is reused: once it has grown, reporting errors allocates nothing */
    cJSON *j = J("{\"city\": \"\", \"days\": \"x\"}");
    CHECK_INT(forge_schema_check(s, j, &e), 0); /* also warms the per-thread match data */
    forge_alloc_fail_at(1);
    CHECK_INT(forge_schema_check(s, j, &e), 0);
    CHECK_INT(forge_schema_check(s, i, &e), 0);
    CHECK_INT(forge_alloc_fail_at(0), 0);
    CHECK_INT(e.n, 3);
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_STR(e.list[0].instance_location, "/days");
    CHECK_INT(forge_schema_check(s, j, &e), 0);
    CHECK_INT(e.n, 2);
    forge_alloc_fail_at(1); /* the text's room was made rendering the three errors before */
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_INT(forge_alloc_fail_at(0), 0);
    CHECK_STR(e.list[0].message, "string has 0 characters, fewer than the minimum 1");
    CHECK_STR(e.list[1].message, "expected integer, got string");
    /* a valid instance empties the list; no list wanted is the fastest form */
    cJSON *v = J("{\"city\": \"Paris\"}");
    CHECK_INT(forge_schema_check(s, v, &e), 1);
    CHECK_INT(e.n, 0);
    CHECK_INT(forge_schema_errors_render(&e), 0); /* nothing to write */
    CHECK_INT(e.n, 0);
    CHECK_INT(forge_schema_check(s, i, &e), 0); /* and an invalid one after it is written */
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_INT(e.n, 3);
    CHECK_STR(e.list[2].message, "missing required property 'city'");
    CHECK_INT(forge_schema_check(s, v, &e), 1);
    CHECK_INT(forge_schema_check(s, i, NULL), 0);
    forge_schema_errors_free(&e);
    forge_schema_errors_free(&e); /* freeing twice is harmless */
    /* out of memory in a fresh arena: an error code, no errors, nothing leaked */
    forge_alloc_fail_at(1);
    CHECK_INT(forge_schema_check(s, i, &e), FORGE_ENOMEM);
    forge_alloc_fail_at(0);
    CHECK_INT(e.n, 0);
    forge_schema_errors_free(&e);
    forge_schema_free(s);
    /* first-error mode stops at the first failing keyword */
    s = compile("{\"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {\"type\": \"string\"}}}", NULL, &err);
    CHECK_INT(forge_schema_check(s, J_tmp(&a, "{\"a\": 1, \"b\": 2}"), &e), 0);
    CHECK_INT(e.n, 1);
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_STR(e.list[0].instance_location, "/a");
    cJSON_Delete(a);
    forge_schema_errors_free(&e);
    forge_schema_free(s);
    cJSON_Delete(i);
    cJSON_Delete(j);
    cJSON_Delete(v);
}

/* A lookup takes the one name that starts with the key's first byte when only one does; else
 * property tables of more than six names use a perfect hash when one exists, else a hashed
 * table: lookups must find every name, only those names, and the first of duplicates. */
TEST(property_tables)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    /* names alike in length, first two, middle and last two bytes defeat the perfect hash */
    const char *sets[] = {
        "\"\", \"a\", \"ab\", \"abc\", \"abcd\", \"label_001\", \"label_002\", \"a_very_long_property_name_1\", \"a_very_long_property_name_2\", \"caf\xc3\xa9\"",
        "\"ab_X_c_yz\", \"ab_Y_c_yz\", \"ab_Z_c_yz\", \"ab_W_c_yz\", \"ab_V_c_yz\", \"ab_U_c_yz\", \"ab_T_c_yz\"",
        /* first bytes all different, and one shared: a small table, then a hashed one */
        "\"\", \"city\", \"zip\", \"lab\", \"label_00\"",
        "\"\", \"city\", \"zip\", \"lab\", \"label_00\", \"m\", \"n\", \"o\", \"p\"",
    };
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        cJSON *names = J(bracket(&b, sets[k]));
        forge_buf_free(&b);
        CHECK(names != NULL);
        /* schema: every name an integer property; a required list of all of them */
        cJSON *schema = cJSON_CreateObject(), *props = cJSON_AddObjectToObject(schema, "properties");
        cJSON_AddFalseToObject(schema, "additionalProperties");
        cJSON *inst = cJSON_CreateObject(), *bad = cJSON_CreateObject();
        const cJSON *x;
        cJSON_ArrayForEach(x, names) {
            cJSON *p = cJSON_AddObjectToObject(props, x->valuestring);
            cJSON_AddStringToObject(p, "type", "integer");
            cJSON_AddNumberToObject(inst, x->valuestring, 1);
            cJSON_AddStringToObject(bad, x->valuestring, "s");
        }
        cJSON_AddNumberToObject(bad, "ab_X_c_yy", 1); /* not a property: near names */
        cJSON_AddNumberToObject(bad, "label_003", 1);
        struct forge_schema *s = forge_schema_compile(schema, &o, &err);
        CHECK(s != NULL);
        struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
        CHECK_INT(forge_schema_check(s, inst, &e), 1);
        CHECK_INT(forge_schema_check(s, inst, NULL), 1);
        CHECK_INT(forge_schema_check(s, bad, NULL), 0);
        CHECK_INT(forge_schema_check(s, bad, &e), 0);
        CHECK_INT(e.n, cJSON_GetArraySize(names) + 2);
        CHECK_INT(forge_schema_errors_render(&e), 0);
        int i = 0;
        cJSON_ArrayForEach(x, names) {
            CHECK_STR(e.list[i].message, "expected integer, got string");
            i++;
        }
        CHECK_STR(e.list[i].message, "property 'ab_X_c_yy' is not allowed");
        CHECK_STR(e.list[i + 1].message, "property 'label_003' is not allowed");
        forge_schema_errors_free(&e);
        forge_schema_free(s);
        cJSON_Delete(schema);
        cJSON_Delete(inst);
        cJSON_Delete(bad);
        cJSON_Delete(names);
    }
    /* the only name with a key's first byte still has to be that key: near names, an empty
     * key and an empty name */
    const char *near[] = {"{\"cit\": 1}", "{\"cityx\": 1}", "{\"c\": 1}", "{\"zap\": 1}", "{\"\": 1}"};
    for (int big = 0; big < 2; big++) {
        struct forge_schema *s = compile(big ? "{\"properties\": {\"city\": {}, \"zip\": {}, \"a\": {}, \"b\": {},"
                                               " \"d\": {}, \"e\": {}, \"f\": {}}, \"additionalProperties\": false}"
                                             : "{\"properties\": {\"city\": {}, \"zip\": {}},"
                                               " \"additionalProperties\": false}", NULL, &err);
        CHECK(s != NULL);
        for (size_t k = 0; k < sizeof near / sizeof *near; k++) {
            cJSON *x = J(near[k]);
            CHECK_INT(forge_schema_check(s, x, NULL), 0);
            cJSON_Delete(x);
        }
        EXPECT(s, "{\"city\": 1, \"zip\": 2}", "valid");
        forge_schema_free(s);
        s = compile(big ? "{\"properties\": {\"\": {\"type\": \"string\"}, \"a\": {}, \"b\": {}, \"c\": {}, \"d\": {},"
                          " \"e\": {}, \"f\": {}}}"
                        : "{\"properties\": {\"\": {\"type\": \"string\"}, \"a\": {}}}", NULL, &err);
        CHECK(s != NULL);
        EXPECT(s, "{\"\": \"s\", \"a\": 1}", "valid");
        cJSON *x = J("{\"\": 1}");
        CHECK_INT(forge_schema_check(s, x, NULL), 0);
        cJSON_Delete(x);
        forge_schema_free(s);
    }
    /* duplicate names in a small table: the first wins */
    struct forge_schema *s = compile(
        "{\"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {}, \"a\": {\"type\": \"integer\"}}}", NULL, &err);
    CHECK(s != NULL);
    EXPECT(s, "{\"a\": \"x\"}", "valid");
    forge_schema_free(s);
    /* duplicate names in a table of more than six: the first wins */
    s = compile(
        "{\"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {}, \"c\": {}, \"d\": {}, \"e\": {},"
        " \"f\": {}, \"g\": {}, \"a\": {\"type\": \"integer\"}}}", NULL, &err);
    CHECK(s != NULL);
    EXPECT(s, "{\"a\": \"x\"}", "valid");
    forge_schema_free(s);
}

/* anyOf/oneOf branches told apart by a const property: branches whose const the instance's
 * member contradicts are skipped, with the verdicts and errors of a full evaluation. */
TEST(discriminators)
{
    struct forge_err err;
    struct forge_schema *s = compile(
        "{\"oneOf\": [{\"$ref\": \"#/$defs/card\"}, {\"$ref\": \"#/$defs/bank\"},"
        "  {\"type\": \"object\", \"properties\": {\"type\": {\"$ref\": \"#/$defs/w\"}}, \"required\": [\"token\"]},"
        "  {\"type\": \"string\"}],"
        " \"$defs\": {\"w\": {\"const\": \"wallet\"},"
        "  \"card\": {\"type\": \"object\", \"properties\": {\"type\": {\"const\": \"card\"}, \"number\": {\"type\": \"string\"}}, \"required\": [\"number\"]},"
        "  \"bank\": {\"type\": \"object\", \"properties\": {\"type\": {\"const\": \"bank\"}}, \"required\": [\"iban\"]}}}", NULL, &err);
    CHECK(s != NULL);
    EXPECT(s, "{\"type\": \"card\", \"number\": \"4242\"}", "valid");
    EXPECT(s, "{\"type\": \"bank\", \"iban\": \"GB33\"}", "valid");
    EXPECT(s, "{\"type\": \"wallet\", \"token\": \"t\"}", "valid");
    EXPECT(s, "\"a string\"", "valid");
    EXPECT(s, "{\"type\": \"card\", \"number\": 4242}",
           "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/oneOf\",\"error\":\"value matches none of the 4 oneOf schemas\"}]");
    EXPECT(s, "{\"type\": \"crypto\", \"number\": \"1\", \"iban\": \"x\", \"token\": \"t\"}",
           "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/oneOf\",\"error\":\"value matches none of the 4 oneOf schemas\"}]");
    EXPECT(s, "{\"type\": 7, \"number\": \"1\"}",
           "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/oneOf\",\"error\":\"value matches none of the 4 oneOf schemas\"}]");
    /* without the discriminator every branch is evaluated: card and bank both match */
    EXPECT(s, "{\"number\": \"1\", \"iban\": \"x\"}",
           "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/oneOf\",\"error\":\"value matches oneOf schemas 0 and 1; exactly one must match\"}]");
    forge_schema_free(s);
    /* a duplicate property name: the first one applies, so its const is the discriminator */
    s = compile("{\"anyOf\": [{\"properties\": {\"k\": {}, \"k\": {\"const\": \"a\"}}, \"required\": [\"x\"]},"
                " {\"properties\": {\"k\": {\"const\": \"b\"}}}]}", NULL, &err);
    CHECK(s != NULL);
    EXPECT(s, "{\"k\": \"z\", \"x\": 1}", "valid");
    EXPECT(s, "{\"k\": \"z\"}",
           "[{\"instanceLocation\":\"\",\"keywordLocation\":\"/anyOf\",\"error\":\"value matches none of the 2 anyOf schemas\"}]");
    forge_schema_free(s);
}

/* Errors are recorded as paths and operands and written out only when asked for: the text is
 * the same through forge_schema_errors_render and forge_schema_errors_json, paths longer than
 * the arena's first room grow it, numbers are written as JavaScript does, and a message stops
 * at 1023 bytes. */
TEST(errors_rendered_on_demand)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema *s = compile(
        "{\"type\": [\"array\", \"number\"], \"items\": {\"$ref\": \"#\"}, \"maximum\": 0.5,"
        " \"multipleOf\": 0.25}", &o, &err);
    CHECK(s != NULL);
    /* 100 nested arrays around 1e21: 100 indexes and 200 keyword segments */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    for (int i = 0; i < 100; i++)
        forge_buf_adds(&b, "[");
    forge_buf_adds(&b, "1e21");
    for (int i = 0; i < 100; i++)
        forge_buf_adds(&b, "]");
    cJSON *deep = J(b.data);
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    CHECK_INT(forge_schema_check(s, deep, &e), 0);
    CHECK_INT(e.n, 1);
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_STR(e.list[0].message, "1e+21 is greater than the maximum 0.5");
    CHECK_INT((int)strlen(e.list[0].instance_location), 200);
    CHECK_INT((int)strlen(e.list[0].keyword_location), 100 * (int)strlen("/items/$ref") + 8);
    CHECK(!strncmp(e.list[0].keyword_location, "/items/$ref/items/$ref", 22));
    CHECK_STR(e.list[0].keyword_location + 1100, "/maximum");
    CHECK(e.list[0].absolute_keyword_location == NULL);
    cJSON *js = forge_schema_errors_json(&e);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(js, 0), "instanceLocation")->valuestring,
              e.list[0].instance_location);
    cJSON_Delete(js);
    cJSON *i2 = J("[19.999, -3, 0.75]");
    CHECK_INT(forge_schema_check(s, i2, &e), 0);
    CHECK_INT(e.n, 3);
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_STR(e.list[0].instance_location, "/0");
    CHECK_STR(e.list[0].message, "19.999 is greater than the maximum 0.5");
    CHECK_STR(e.list[1].message, "19.999 is not a multiple of 0.25");
    CHECK_STR(e.list[2].instance_location, "/2");
    CHECK_STR(e.list[2].keyword_location, "/items/$ref/maximum");
    forge_schema_free(s);
    /* a message is cut at 1023 bytes (here a long member name) */
    s = compile("{\"additionalProperties\": false}", &o, &err);
    b.len = 0;
    forge_buf_adds(&b, "{\"");
    for (int i = 0; i < 1100; i++)
        forge_buf_adds(&b, "k");
    forge_buf_adds(&b, "\": 1}");
    cJSON *wide = J(b.data);
    CHECK_INT(forge_schema_check(s, wide, &e), 0);
    CHECK_INT(forge_schema_errors_render(&e), 0);
    CHECK_INT((int)strlen(e.list[0].message), 1023);
    CHECK(!strncmp(e.list[0].message, "property 'kkk", 13));
    js = forge_schema_errors_json(&e);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(js, 0), "error")->valuestring, e.list[0].message);
    cJSON_Delete(js);
    forge_schema_errors_free(&e);
    forge_schema_free(s);
    forge_buf_free(&b);
    cJSON_Delete(deep);
    cJSON_Delete(i2);
    cJSON_Delete(wide);
}

/* Renders <e> and checks that forge_schema_errors_json gives the same four strings. */
static void render_matches_json(struct forge_schema_errors *e)
{
    CHECK_INT(forge_schema_errors_render(e), 0);
    cJSON *js = forge_schema_errors_json(e);
    CHECK(js != NULL);
    CHECK_INT(cJSON_GetArraySize(js), e->n);
    for (int i = 0; i < e->n; i++) {
        const cJSON *o = cJSON_GetArrayItem(js, i);
        const cJSON *abs = cJSON_GetObjectItem(o, "absoluteKeywordLocation");
        CHECK_STR(cJSON_GetObjectItem(o, "instanceLocation")->valuestring, e->list[i].instance_location);
        CHECK_STR(cJSON_GetObjectItem(o, "keywordLocation")->valuestring, e->list[i].keyword_location);
        CHECK_STR(cJSON_GetObjectItem(o, "error")->valuestring, e->list[i].message);
        CHECK((abs == NULL) == (e->list[i].absolute_keyword_location == NULL));
        if (abs)
            CHECK_STR(abs->valuestring, e->list[i].absolute_keyword_location);
    }
    cJSON_Delete(js);
}

/* The keyword location of a node that the walk reaches through subschemas alone is made with
 * the schema; through a reference (or a member name that starts with "$") it is written from
 * the walk's segments. Both give the same text, in a new resource too, and a node reached
 * both ways gets each its own location. A validation whose errors outgrow the text renders
 * them again into the larger room. */
/* The instance location of an error is made with the schema when the schema fixes it: below
 * the root through properties and the applicators that keep the instance (allOf, if/then,
 * dependentSchemas, oneOf...). The list then points at the compiled schema's text, as for
 * keyword locations. Under items, additionalProperties, patternProperties, propertyNames or
 * a reference it is written from the walk. Both give the locations the walk gives. */
TEST(instance_locations_made_at_compile_time)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema *s = compile(
        "{\"properties\": {\"a\": {\"allOf\": [{\"properties\": {\"b\": {\"maximum\": 1}}}]},"
        " \"i\": {\"items\": {\"minimum\": 3}}, \"p\": {\"additionalProperties\": {\"maxLength\": 1}},"
        " \"q\": {\"patternProperties\": {\"^z\": {\"maxLength\": 1}}},"
        " \"d\": {\"if\": {\"type\": \"object\"}, \"then\": {\"properties\": {\"t\": {\"minimum\": 2}}},"
        " \"else\": {\"minimum\": 100}},"
        " \"s~/\": {\"dependentSchemas\": {\"k\": {\"properties\": {\"k\": {\"maxLength\": 0}}}}},"
        " \"r\": {\"$ref\": \"#/$defs/bound\"},"
        " \"o\": {\"oneOf\": [{\"properties\": {\"u\": {\"const\": 1}}, \"required\": [\"u\"]},"
        " {\"not\": {\"required\": [\"w\"]}}]},"
        " \"n\": {\"propertyNames\": {\"maxLength\": 1}}},"
        " \"$defs\": {\"bound\": {\"properties\": {\"v\": {\"minimum\": 2}}}}}", &o, &err);
    CHECK(s != NULL);
    cJSON *inst = J("{\"a\": {\"b\": 2}, \"i\": [1], \"p\": {\"zz\": \"long\"}, \"q\": {\"zz\": \"long\"},"
                    " \"d\": {\"t\": 1}, \"s~/\": {\"k\": \"x\"}, \"r\": {\"v\": 1}, \"o\": {\"u\": 2, \"w\": 1},"
                    " \"n\": {\"long\": 1}}");
    static const struct {
        const char *iloc, *kloc, *msg;
        bool fixed;
    } want[] = {
        {"/a/b", "/properties/a/allOf/0/properties/b/maximum", "2 is greater than the maximum 1", true},
        {"/i/0", "/properties/i/items/minimum", "1 is less than the minimum 3", false},
        {"/p/zz", "/properties/p/additionalProperties/maxLength",
         "string has 4 characters, more than the maximum 1", false},
        {"/q/zz", "/properties/q/patternProperties/^z/maxLength",
         "string has 4 characters, more than the maximum 1", false},
        {"/d/t", "/properties/d/then/properties/t/minimum", "1 is less than the minimum 2", true},
        {"/s~0~1/k", "/properties/s~0~1/dependentSchemas/k/properties/k/maxLength",
         "string has 1 characters, more than the maximum 0", true},
        {"/r/v", "/properties/r/$ref/properties/v/minimum", "1 is less than the minimum 2", false},
        {"/o", "/properties/o/oneOf", "value matches none of the 2 oneOf schemas", true},
        {"/n", "/properties/n/propertyNames/maxLength", "string has 4 characters, more than the maximum 1",
         false},
    };
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (int round = 0; round < 2; round++) { /* the second time in the arena the first one made */
        CHECK_INT(forge_schema_check(s, inst, &e), 0);
        CHECK_INT(e.n, 9);
        render_matches_json(&e);
        for (int i = 0; i < 9; i++) {
            const char *l = e.list[i].instance_location;
            CHECK_STR(l, want[i].iloc);
            CHECK_STR(e.list[i].keyword_location, want[i].kloc);
            CHECK_STR(e.list[i].message, want[i].msg);
            CHECK_INT(l >= e.text && l < e.text + e.size, !want[i].fixed); /* copied, or the schema's */
        }
    }
    cJSON_Delete(inst);
    /* first-error mode, and a failing location that the schema fixes at the root */
    struct forge_schema *f = compile("{\"properties\": {\"a\": {\"minimum\": 1}}, \"required\": [\"z\"]}", NULL, &err);
    CHECK(f != NULL);
    inst = J("{\"a\": 0}");
    CHECK_INT(forge_schema_check(f, inst, &e), 0);
    CHECK_INT(e.n, 1);
    render_matches_json(&e);
    CHECK_STR(e.list[0].instance_location, "/a");
    CHECK_STR(e.list[0].message, "0 is less than the minimum 1");
    cJSON_Delete(inst);
    inst = J("{\"a\": 1}");
    CHECK_INT(forge_schema_check(f, inst, &e), 0);
    render_matches_json(&e);
    CHECK_STR(e.list[0].instance_location, "");
    CHECK_STR(e.list[0].keyword_location, "/required");
    CHECK_STR(e.list[0].message, "missing required property 'z'");
    cJSON_Delete(inst);
    forge_schema_free(f);
    /* the quick loop's records, then others whose text outgrows the room: written again */
    struct forge_schema *g = compile("{\"properties\": {\"a\": {\"maximum\": 1}, \"b\": {\"minLength\": 3}},"
                                     " \"additionalProperties\": false}", &o, &err);
    CHECK(g != NULL);
    for (int big = 0; big < 2; big++) { /* short names first: the list and the text exist */
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_buf_adds(&b, "{\"a\": 5, \"b\": \"x\"");
        for (int i = 0; i < 5; i++) {
            forge_buf_adds(&b, ", \"");
            for (int k = 0; k < (big ? 900 : 1); k++)
                forge_buf_adds(&b, "n");
            char m[16];
            snprintf(m, sizeof m, "%d\": 1", i);
            forge_buf_adds(&b, m);
        }
        forge_buf_adds(&b, "}");
        inst = J(b.data);
        forge_buf_free(&b);
        CHECK_INT(forge_schema_check(g, inst, &e), 0);
        CHECK_INT(e.n, 7);
        render_matches_json(&e);
        CHECK_STR(e.list[0].message, "5 is greater than the maximum 1");
        CHECK_STR(e.list[1].message, "string has 1 characters, fewer than the minimum 3");
        CHECK_INT((int)strlen(e.list[6].message), big ? 927 : 28); /* property 'n...4' is not allowed */
        CHECK_STR(e.list[6].keyword_location, "/additionalProperties");
        cJSON_Delete(inst);
    }
    forge_schema_free(g);
    forge_schema_free(s);
    forge_schema_errors_free(&e);
}

/* Through references followed from places whose locations the schema fixes, an error records
 * the references' keywords alone, and its locations are theirs joined (the target of each is the
 * region the next one's, or the keyword's, locations start from; an items' subschema starts a
 * region of instance locations). A reference to a node inside another region, one under
 * additionalProperties, or a target that some reference reaches from such a place, records the
 * segments. Both give the same text. */
TEST(locations_through_references)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema *s = compile(
        "{\"$id\": \"https://x.example/r.json\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/money\"},"
        " \"n\": {\"properties\": {\"deep\": {\"$ref\": \"#/$defs/wrap\"}}},"
        " \"l\": {\"items\": {\"$ref\": \"#/$defs/line\"}}, \"p\": {\"$ref\": \"#/properties/a\"}},"
        " \"$defs\": {\"money\": {\"properties\": {\"currency\": {\"enum\": [\"EUR\", \"USD\"]},"
        " \"value\": {\"minimum\": 0}}}, \"wrap\": {\"properties\": {\"m\": {\"$ref\": \"#/$defs/money\"}}},"
        " \"line\": {\"properties\": {\"q\": {\"minimum\": 1}}}}}", &o, &err);
    CHECK(s != NULL);
    cJSON *inst = J("{\"a\": {\"currency\": \"X\"}, \"n\": {\"deep\": {\"m\": {\"value\": -1}}},"
                    " \"l\": [{\"q\": 0}], \"p\": {\"currency\": \"Y\"}}");
    static const char *const want[][3] = {
        {"/a/currency", "/properties/a/$ref/properties/currency/enum",
         "https://x.example/r.json#/$defs/money/properties/currency/enum"},
        {"/n/deep/m/value", "/properties/n/properties/deep/$ref/properties/m/$ref/properties/value/minimum",
         "https://x.example/r.json#/$defs/money/properties/value/minimum"},
        {"/l/0/q", "/properties/l/items/$ref/properties/q/minimum",
         "https://x.example/r.json#/$defs/line/properties/q/minimum"},
        {"/p/currency", "/properties/p/$ref/$ref/properties/currency/enum",
         "https://x.example/r.json#/$defs/money/properties/currency/enum"},
    };
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (int seg = 0; seg < 2; seg++) { /* the sites, then every error's segments */
        forge_schema_test_path(1);
        forge_schema_test_segments(seg);
        unsigned long before = forge_schema_test_ref_records();
        CHECK_INT(forge_schema_check(s, inst, &e), 0);
        CHECK_INT((int)(forge_schema_test_ref_records() - before), seg ? 0 : 3);
        forge_schema_test_segments(false);
        forge_schema_test_path(0);
        CHECK_INT(e.n, 4);
        render_matches_json(&e);
        for (int i = 0; i < 4 && i < e.n; i++) {
            CHECK_STR(e.list[i].instance_location, want[i][0]);
            CHECK_STR(e.list[i].keyword_location, want[i][1]);
            CHECK_STR(e.list[i].absolute_keyword_location, want[i][2]);
        }
    }
    cJSON_Delete(inst);
    forge_schema_free(s);
    /* a target also reached from under additionalProperties: its errors record segments
     * wherever they are */
    s = compile("{\"properties\": {\"a\": {\"$ref\": \"#/$defs/t\"}},"
                " \"additionalProperties\": {\"$ref\": \"#/$defs/t\"},"
                " \"$defs\": {\"t\": {\"properties\": {\"v\": {\"maximum\": 1}}}}}", &o, &err);
    CHECK(s != NULL);
    inst = J("{\"a\": {\"v\": 2}, \"l\": {\"v\": 3}}");
    forge_schema_test_path(1);
    unsigned long before = forge_schema_test_ref_records();
    CHECK_INT(forge_schema_check(s, inst, &e), 0);
    CHECK_INT((int)(forge_schema_test_ref_records() - before), 0);
    forge_schema_test_path(0);
    CHECK_INT(e.n, 2);
    render_matches_json(&e);
    CHECK_STR(e.list[0].instance_location, "/a/v");
    CHECK_STR(e.list[0].keyword_location, "/properties/a/$ref/properties/v/maximum");
    CHECK_STR(e.list[1].instance_location, "/l/v");
    CHECK_STR(e.list[1].keyword_location, "/additionalProperties/$ref/properties/v/maximum");
    cJSON_Delete(inst);
    forge_schema_free(s);
    forge_schema_errors_free(&e);
}

/* An items' subschema starts a region of instance locations: an error under items reached from
 * places whose locations the schema fixes records the items keywords with each item's index
 * (and the $refs on the way), whatever the depth, draft and mode, and its keyword location is
 * the keyword's own when no $ref is among them; under a place the schema does not fix
 * (additionalProperties), it records the segments. Both give the same text. */
TEST(locations_through_items)
{
    struct forge_err err;
    static const struct {
        const char *schema, *inst;
        int sites; /* records made of sites, in all-errors mode */
        const char *want[3][2]; /* instance and keyword locations of the first errors */
    } cases[] = {
        {"{\"properties\": {\"m\": {\"items\": {\"items\": {\"properties\": {\"q\": {\"minimum\": 1}}}}}}}",
         "{\"m\": [[{\"q\": 1}], [{\"q\": 2}, {\"q\": 0}], [], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, {\"q\": -4}]]}", 2,
         {{"/m/1/1/q", "/properties/m/items/items/properties/q/minimum"},
          {"/m/3/11/q", "/properties/m/items/items/properties/q/minimum"}}},
        {"{\"prefixItems\": [{\"type\": \"string\"}], \"items\": {\"$ref\": \"#/$defs/n\"},"
         " \"$defs\": {\"n\": {\"maximum\": 3, \"type\": \"integer\"}}}",
         "[5, 1, 9, \"x\"]", 2,
         {{"/0", "/prefixItems/0/type"}, {"/2", "/items/$ref/maximum"}, {"/3", "/items/$ref/type"}}},
        {"{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"properties\": {\"t\":"
         " {\"items\": [{\"type\": \"integer\"}], \"additionalItems\": {\"minLength\": 2}},"
         " \"u\": {\"items\": {\"required\": [\"k\"]}}}}",
         "{\"t\": [1, \"a\"], \"u\": [{}, {\"k\": 1}, {\"j\": 2}]}", 2,
         {{"/t/1", "/properties/t/additionalItems/minLength"}, {"/u/0", "/properties/u/items/required"},
          {"/u/2", "/properties/u/items/required"}}},
        {"{\"$ref\": \"#/$defs/n\", \"$defs\": {\"n\": {\"properties\": {\"c\": {\"items\": {\"$ref\": \"#/$defs/n\"}},"
         " \"v\": {\"maximum\": 0}}}}}",
         "{\"c\": [{\"c\": [{}, {\"v\": 1}]}], \"v\": 2}", 2,
         {{"/c/0/c/1/v", "/$ref/properties/c/items/$ref/properties/c/items/$ref/properties/v/maximum"},
          {"/v", "/$ref/properties/v/maximum"}}},
        {"{\"additionalProperties\": {\"items\": {\"maximum\": 0}}}",
         "{\"z~/\": [0, 1]}", 0,
         {{"/z~0~1/1", "/additionalProperties/items/maximum"}}},
    };
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int all = 0; all < 2; all++)
            for (int seg = 0; seg < 2; seg++) { /* the sites, then every error's segments */
                struct forge_schema_opts o = {0};
                o.all_errors = all;
                struct forge_schema *s = compile(cases[c].schema, &o, &err);
                CHECK(s != NULL);
                cJSON *inst = J(cases[c].inst);
                forge_schema_test_segments(seg);
                unsigned long before = forge_schema_test_ref_records();
                CHECK_INT(forge_schema_check(s, inst, &e), 0);
                if (all)
                    CHECK_INT((int)(forge_schema_test_ref_records() - before), seg ? 0 : cases[c].sites);
                forge_schema_test_segments(false);
                render_matches_json(&e);
                for (int i = 0; i < 3 && cases[c].want[i][0]; i++) {
                    if (i >= e.n) {
                        CHECK(all == 0);
                        break;
                    }
                    CHECK_STR(e.list[i].instance_location, cases[c].want[i][0]);
                    CHECK_STR(e.list[i].keyword_location, cases[c].want[i][1]);
                }
                cJSON_Delete(inst);
                forge_schema_free(s);
            }
    forge_schema_errors_free(&e);
}

TEST(error_locations_made_at_compile_time)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    struct forge_schema *s = compile(
        "{\"$id\": \"https://x.example/root.json\","
        " \"properties\": {\"a\": {\"properties\": {\"b\": {\"minimum\": 2}}},"
        " \"r\": {\"$ref\": \"#/properties/a/properties/b\"},"
        " \"$x\": {\"type\": [\"null\", \"boolean\", \"object\", \"array\", \"string\"]},"
        " \"c\": {\"$id\": \"c.json\", \"maximum\": -1, \"multipleOf\": 0.25},"
        " \"s~/\": {\"dependentRequired\": {\"p\": [\"q\"]}}}}", &o, &err);
    CHECK(s != NULL);
    cJSON *inst = J("{\"a\": {\"b\": 1}, \"r\": 1, \"$x\": 2, \"c\": -0.1, \"s~/\": {\"p\": 1}}");
    CHECK_INT(forge_schema_check(s, inst, &e), 0);
    CHECK_INT(e.n, 6);
    render_matches_json(&e);
    static const char *const want[][4] = {
        {"/a/b", "/properties/a/properties/b/minimum",
         "https://x.example/root.json#/properties/a/properties/b/minimum", "1 is less than the minimum 2"},
        {"/r", "/properties/r/$ref/minimum",
         "https://x.example/root.json#/properties/a/properties/b/minimum", "1 is less than the minimum 2"},
        {"/$x", "/properties/$x/type", "https://x.example/root.json#/properties/$x/type",
         "expected null or boolean or object or array or string, got integer"},
        {"/c", "/properties/c/maximum", "https://x.example/c.json#/maximum",
         "-0.1 is greater than the maximum -1"},
        {"/c", "/properties/c/multipleOf", "https://x.example/c.json#/multipleOf",
         "-0.1 is not a multiple of 0.25"},
        {"/s~0~1", "/properties/s~0~1/dependentRequired/p",
         "https://x.example/root.json#/properties/s~0~1/dependentRequired/p",
         "property 'p' requires property 'q'"},
    };
    for (int i = 0; i < 6; i++) {
        CHECK_STR(e.list[i].instance_location, want[i][0]);
        CHECK_STR(e.list[i].keyword_location, want[i][1]);
        CHECK_STR(e.list[i].absolute_keyword_location, want[i][2]);
        CHECK_STR(e.list[i].message, want[i][3]);
    }
    cJSON_Delete(inst);
    /* messages whose operands are the keyword's own text, or whose words follow the keyword */
    struct forge_schema *m = compile(
        "{\"properties\": {\"e\": {\"enum\": [1, \"two\", null]}, \"k\": {\"const\": {\"a\": [1]}},"
        " \"o\": {\"minProperties\": 2}, \"p\": {\"maxProperties\": 0}, \"s\": {\"maxLength\": 1}}}",
        &o, &err);
    CHECK(m != NULL);
    EXPECT(m, "{\"e\": 2, \"k\": {\"a\": [2]}, \"o\": {\"x\": 1}, \"p\": {\"y\": 1}, \"s\": \"ab\"}",
           "[{\"instanceLocation\":\"/e\",\"keywordLocation\":\"/properties/e/enum\",\"error\":\"value must be one of [1,\\\"two\\\",null]\"},"
           "{\"instanceLocation\":\"/k\",\"keywordLocation\":\"/properties/k/const\",\"error\":\"value must be {\\\"a\\\":[1]}\"},"
           "{\"instanceLocation\":\"/o\",\"keywordLocation\":\"/properties/o/minProperties\",\"error\":\"object has 1 properties, fewer than the minimum 2\"},"
           "{\"instanceLocation\":\"/p\",\"keywordLocation\":\"/properties/p/maxProperties\",\"error\":\"object has 1 properties, more than the maximum 0\"},"
           "{\"instanceLocation\":\"/s\",\"keywordLocation\":\"/properties/s/maxLength\",\"error\":\"string has 2 characters, more than the maximum 1\"}]");
    forge_schema_free(m);
    /* -0 is written "0", as String(-0) */
    inst = J("{\"c\": -0.0}");
    CHECK_INT(forge_schema_check(s, inst, &e), 0);
    render_matches_json(&e);
    CHECK_STR(e.list[0].message, "0 is greater than the maximum -1");
    cJSON_Delete(inst);
    forge_schema_free(s);
    forge_schema_errors_free(&e);

    /* 300 errors in a new arena: its text grows while the errors are written */
    s = compile("{\"additionalProperties\": false}", &o, &err);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "{");
    for (int i = 0; i < 300; i++) {
        char m[32];
        snprintf(m, sizeof m, "%s\"p%d\": %d", i ? ", " : "", i, i);
        forge_buf_adds(&b, m);
    }
    forge_buf_adds(&b, "}");
    inst = J(b.data);
    CHECK_INT(forge_schema_check(s, inst, &e), 0);
    CHECK_INT(e.n, 300);
    render_matches_json(&e);
    CHECK_STR(e.list[0].message, "property 'p0' is not allowed");
    CHECK_STR(e.list[299].message, "property 'p299' is not allowed");
    CHECK_STR(e.list[299].keyword_location, "/additionalProperties");
    CHECK_STR(e.list[299].instance_location, "");
    cJSON_Delete(inst);
    forge_buf_free(&b);
    forge_schema_free(s);
    forge_schema_errors_free(&e);
}

/* The messages of enum, const, pattern and format, and those without operands, are made with
 * the schema and rendered by reference, as are keyword locations made at compile time: the
 * same text as forge_schema_errors_json's, through a reference too, cut at 1023 bytes, and
 * right again when the errors outgrow the text's room. */
TEST(messages_made_with_the_schema)
{
    struct forge_err err;
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    o.formats = true;
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "{\"$id\": \"https://x.example/m.json\", \"properties\": {"
                       "\"e\": {\"enum\": [\"a\", 2]}, \"k\": {\"const\": \"c\"}, \"p\": {\"pattern\": \"^x\"},"
                       " \"f\": {\"format\": \"email\"}, \"n\": {\"not\": {}}, \"z\": false,"
                       " \"h\": {\"contains\": {\"const\": 1}}, \"r\": {\"$ref\": \"#/$defs/d\"},"
                       " \"t\": {\"type\": \"string\", \"enum\": [\"s\"]},"
                       " \"ao\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}]},"
                       " \"oo\": {\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}, false]},"
                       " \"om\": {\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}, \"big\": {\"pattern\": \"^");
    for (int i = 0; i < 1100; i++)
        forge_buf_adds(&b, "x");
    forge_buf_adds(&b, "\"}}, \"$defs\": {\"d\": {\"enum\": [true]}}}");
    struct forge_schema *s = compile(b.data, &o, &err);
    CHECK(s != NULL);
    cJSON *inst = J("{\"e\": 3, \"k\": \"d\", \"p\": \"y\", \"f\": \"no\", \"n\": 1, \"z\": 1,"
                    " \"h\": [2], \"r\": false, \"t\": 5, \"ao\": 1, \"oo\": 1, \"om\": 1, \"big\": \"y\"}");
    static const char *const want[][4] = {
        {"/e", "/properties/e/enum", "https://x.example/m.json#/properties/e/enum",
         "value must be one of [\"a\",2]"},
        {"/k", "/properties/k/const", "https://x.example/m.json#/properties/k/const", "value must be \"c\""},
        {"/p", "/properties/p/pattern", "https://x.example/m.json#/properties/p/pattern",
         "string does not match the pattern ^x"},
        {"/f", "/properties/f/format", "https://x.example/m.json#/properties/f/format",
         "string is not a valid email"},
        {"/n", "/properties/n/not", "https://x.example/m.json#/properties/n/not",
         "value must not match the 'not' schema"},
        {"/z", "/properties/z", NULL, "no value is allowed here (schema false)"}, /* (a false schema's
                                                                              * absolute location
                                                                              * is not shown) */
        {"/h", "/properties/h/contains", "https://x.example/m.json#/properties/h/contains",
         "no item matches the contains schema"},
        {"/r", "/properties/r/$ref/enum", "https://x.example/m.json#/$defs/d/enum", "value must be one of [true]"},
        {"/t", "/properties/t/type", "https://x.example/m.json#/properties/t/type", "expected string, got integer"},
        {"/t", "/properties/t/enum", "https://x.example/m.json#/properties/t/enum", "value must be one of [\"s\"]"},
        {"/ao", "/properties/ao/anyOf", "https://x.example/m.json#/properties/ao/anyOf",
         "value matches none of the 2 anyOf schemas"},
        {"/oo", "/properties/oo/oneOf", "https://x.example/m.json#/properties/oo/oneOf",
         "value matches none of the 3 oneOf schemas"},
        /* (oneOf's other message, with the instance's operands, is not the one made beforehand) */
        {"/om", "/properties/om/oneOf", "https://x.example/m.json#/properties/om/oneOf",
         "value matches oneOf schemas 0 and 1; exactly one must match"},
        {"/big", "/properties/big/pattern", "https://x.example/m.json#/properties/big/pattern", NULL},
    };
    int nw = (int)(sizeof want / sizeof *want);
    for (int mode = 0; mode < 2; mode++) {
        forge_schema_test_path(mode + 1); /* each walk */
        CHECK_INT(forge_schema_check(s, inst, &e), 0);
        CHECK_INT(e.n, nw);
        render_matches_json(&e);
        for (int i = 0; i < nw && i < e.n; i++) {
            CHECK_STR(e.list[i].instance_location, want[i][0]);
            CHECK_STR(e.list[i].keyword_location, want[i][1]);
            if (want[i][2])
                CHECK_STR(e.list[i].absolute_keyword_location, want[i][2]);
            else
                CHECK(e.list[i].absolute_keyword_location == NULL);
            if (want[i][3])
                CHECK_STR(e.list[i].message, want[i][3]);
        }
        /* the long pattern's message, cut at 1023 bytes */
        const char *big = e.list[nw - 1].message;
        CHECK_INT((int)strlen(big), 1023);
        CHECK(!strncmp(big, "string does not match the pattern ^xxx", 38));
        CHECK_INT((int)strspn(big + 35, "x"), 1023 - 35);
    }
    forge_schema_test_path(0);
    cJSON_Delete(inst);
    forge_schema_free(s);
    /* first error, the verdict walk's trail replayed: a failure below a reference, or beside
     * one, reached through more than one level, has the location the recording walk gives */
    o.all_errors = false;
    s = compile("{\"properties\": {\"a\": {\"$ref\": \"#/$defs/n\"}, \"b\": {\"$ref\": \"#/$defs/n\"},"
                " \"c\": {\"properties\": {\"d\": {\"enum\": [1]}}}, \"r\": {\"$ref\": \"#/properties/c\"}},"
                " \"$defs\": {\"n\": {\"properties\": {\"x\": {\"enum\": [1]}, \"y\": {\"type\": \"object\"},"
                " \"z\": {\"$ref\": \"#/$defs/n\"}}}}}", &o, &err);
    CHECK(s != NULL);
    static const char *const trail[][3] = {
        {"{\"a\": {\"x\": 1, \"y\": {}}, \"b\": {\"x\": 2}, \"c\": {}}", "/b/x", "/properties/b/$ref/properties/x/enum"},
        {"{\"a\": {\"z\": {\"z\": {\"x\": 3}}}, \"c\": {}}", "/a/z/z/x",
         "/properties/a/$ref/properties/z/$ref/properties/z/$ref/properties/x/enum"},
        {"{\"a\": {\"x\": 1}, \"b\": {}, \"c\": {\"d\": 2}, \"e\": 1}", "/c/d", "/properties/c/properties/d/enum"},
        /* (a reference to a node that has a location of its own) */
        {"{\"a\": {\"x\": 1}, \"b\": {}, \"c\": {}, \"r\": {\"d\": 2}}", "/r/d", "/properties/r/$ref/properties/d/enum"},
    };
    for (int t = 0; t < 4; t++) {
        inst = J(trail[t][0]);
        for (int way = 1; way <= 2; way++) {
            forge_schema_test_path(way);
            unsigned long misses = forge_schema_test_trail_misses();
            CHECK_INT(forge_schema_check(s, inst, &e), 0);
            CHECK_INT((int)(forge_schema_test_trail_misses() - misses), 0);
            render_matches_json(&e);
            CHECK_STR(e.list[0].instance_location, trail[t][1]);
            CHECK_STR(e.list[0].keyword_location, trail[t][2]);
            CHECK_STR(e.list[0].message, "value must be one of [1]");
        }
        forge_schema_test_path(0);
        cJSON_Delete(inst);
    }
    forge_schema_free(s);
    o.all_errors = true;
    forge_schema_errors_free(&e);
    /* 300 errors in a new arena, each message and absolute location the schema's: right after
     * the text has grown and the errors were written again */
    s = compile("{\"$id\": \"https://x.example/a.json\", \"additionalProperties\": {\"$ref\": \"#/$defs/e\"},"
                " \"$defs\": {\"e\": {\"enum\": [1]}}}", &o, &err);
    CHECK(s != NULL);
    b.len = 0;
    forge_buf_adds(&b, "{");
    for (int i = 0; i < 300; i++) {
        char m[32];
        snprintf(m, sizeof m, "%s\"p%d\": %d", i ? ", " : "", i, i + 2);
        forge_buf_adds(&b, m);
    }
    forge_buf_adds(&b, "}");
    inst = J(b.data);
    CHECK_INT(forge_schema_check(s, inst, &e), 0);
    CHECK_INT(e.n, 300);
    render_matches_json(&e);
    for (int i = 0; i < 300; i += 299) {
        char loc[32];
        snprintf(loc, sizeof loc, "/p%d", i);
        CHECK_STR(e.list[i].instance_location, loc);
        CHECK_STR(e.list[i].keyword_location, "/additionalProperties/$ref/enum");
        CHECK_STR(e.list[i].absolute_keyword_location, "https://x.example/a.json#/$defs/e/enum");
        CHECK_STR(e.list[i].message, "value must be one of [1]");
    }
    cJSON_Delete(inst);
    forge_buf_free(&b);
    forge_schema_free(s);
    forge_schema_errors_free(&e);
}

/* Without an error arena (and inside probes) the verdict walk runs; with one, the walk that
 * records errors. Table: schema, instance, verdict; each is checked both ways, in first-error
 * and all-errors modes, and the two must give the expected verdict. */
TEST(verdict_walk_agrees)
{
    static const struct {
        const char *schema, *inst;
        int verdict;
    } cases[] = {
        /* properties fused with required and additionalProperties */
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}, \"b\": {\"type\": \"object\", \"properties\": {\"c\": {\"minimum\": 2}}}},"
         " \"required\": [\"a\"], \"additionalProperties\": false}", "{\"a\": 1, \"b\": {\"c\": 3}}", 1},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}, \"b\": {\"type\": \"object\", \"properties\": {\"c\": {\"minimum\": 2}}}},"
         " \"required\": [\"a\"], \"additionalProperties\": false}", "{\"a\": 1, \"b\": {\"c\": 1}}", 0},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\"], \"additionalProperties\": false}",
         "{\"a\": 1, \"x\": 2}", 0},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\", \"b\"]}", "{\"a\": 1}", 0},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"additionalProperties\": {\"type\": \"string\"}}",
         "{\"a\": 1, \"x\": \"y\"}", 1},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"additionalProperties\": {\"type\": \"string\"}}",
         "{\"a\": 1, \"x\": 2}", 0},
        {"{\"properties\": {\"a\": {\"not\": {\"const\": 1}}}}", "{\"a\": 1}", 0},
        {"{\"properties\": {\"a\": {\"not\": {\"const\": 1}}}}", "{\"a\": 2, \"b\": 1}", 1},
        /* items, prefixItems, additionalItems (draft 7) */
        {"{\"prefixItems\": [{\"type\": \"string\"}], \"items\": {\"type\": \"object\", \"required\": [\"k\"]}}",
         "[\"s\", {\"k\": 1}, {\"k\": 2}]", 1},
        {"{\"prefixItems\": [{\"type\": \"string\"}], \"items\": {\"type\": \"object\", \"required\": [\"k\"]}}",
         "[\"s\", {\"k\": 1}, {}]", 0},
        {"{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"items\": [{\"type\": \"string\"}],"
         " \"additionalItems\": {\"type\": \"object\", \"required\": [\"k\"]}}", "[\"s\", {\"j\": 1}]", 0},
        {"{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"items\": [{\"type\": \"string\"}],"
         " \"additionalItems\": {\"type\": \"object\", \"required\": [\"k\"]}}", "[\"s\", {\"k\": 1}]", 1},
        /* anyOf, oneOf (with a discriminator), allOf, not, if/then/else, $ref */
        {"{\"anyOf\": [{\"type\": \"object\", \"required\": [\"a\"]}, {\"type\": \"object\", \"required\": [\"b\"]}]}",
         "{\"b\": 1}", 1},
        {"{\"anyOf\": [{\"type\": \"object\", \"required\": [\"a\"]}, {\"type\": \"object\", \"required\": [\"b\"]}]}",
         "{\"c\": 1}", 0},
        {"{\"oneOf\": [{\"properties\": {\"t\": {\"const\": \"x\"}, \"v\": {\"type\": \"string\"}}},"
         " {\"properties\": {\"t\": {\"const\": \"y\"}, \"v\": {\"type\": \"integer\"}}}]}", "{\"t\": \"y\", \"v\": 3}", 1},
        {"{\"oneOf\": [{\"properties\": {\"t\": {\"const\": \"x\"}, \"v\": {\"type\": \"string\"}}},"
         " {\"properties\": {\"t\": {\"const\": \"y\"}, \"v\": {\"type\": \"integer\"}}}]}", "{\"t\": \"y\", \"v\": \"s\"}", 0},
        {"{\"oneOf\": [{\"type\": \"object\"}, {\"required\": [\"a\"]}]}", "{\"a\": 1}", 0},
        {"{\"allOf\": [{\"type\": \"object\"}, {\"required\": [\"a\"]}, {\"maxProperties\": 1}]}", "{\"a\": 1}", 1},
        {"{\"allOf\": [{\"type\": \"object\"}, {\"required\": [\"a\"]}, {\"maxProperties\": 1}]}", "{\"a\": 1, \"b\": 2}", 0},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"f\": \"w\", \"d\": 1}", 1},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"f\": \"v\", \"d\": 1}", 0},
        /* "if" on one member (FI_IFM): absent, duplicated (every one counts), of another kind, on
         * an array; with a pattern; "not" of a leaf (FI_NOTL) */
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"d\": 1}", 1},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"e\": 1}", 0},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"f\": \"w\", \"f\": \"v\", \"e\": 1}", 1},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"f\": \"v\", \"f\": \"w\", \"d\": 1}", 0},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "{\"f\": 3, \"e\": 1}", 1},
        {"{\"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}}, \"then\": {\"required\": [\"d\"]}, \"else\": {\"required\": [\"e\"]}}",
         "[1]", 1},
        {"{\"type\": \"object\", \"if\": {\"properties\": {\"f\": {\"type\": \"string\", \"pattern\": \"^w[0-9]+$\"}}}, \"then\": {\"required\": [\"d\"]}}",
         "{\"f\": \"w12\", \"d\": 0}", 1},
        {"{\"type\": \"object\", \"if\": {\"properties\": {\"f\": {\"type\": \"string\", \"pattern\": \"^w[0-9]+$\"}}}, \"then\": {\"required\": [\"d\"]}}",
         "{\"f\": \"w12\"}", 0},
        {"{\"type\": \"object\", \"if\": {\"properties\": {\"f\": {\"type\": \"string\", \"pattern\": \"^w[0-9]+$\"}}}, \"then\": {\"required\": [\"d\"]}}",
         "{\"f\": \"x12\"}", 1},
        {"{\"type\": \"object\", \"not\": {\"required\": [\"a\", \"b\"]}}",
         "{\"a\": 1}", 1},
        {"{\"type\": \"object\", \"not\": {\"required\": [\"a\", \"b\"]}}",
         "{\"b\": 1, \"a\": 1}", 0},
        {"{\"type\": \"object\", \"not\": {\"required\": [\"a\", \"b\"]}}",
         "[1]", 0},
        {"{\"not\": {\"type\": \"string\", \"maxLength\": 2}, \"minimum\": 0}",
         "\"ab\"", 0},
        {"{\"not\": {\"type\": \"string\", \"maxLength\": 2}, \"minimum\": 0}",
         "\"abc\"", 1},
        {"{\"not\": {\"type\": \"string\", \"maxLength\": 2}, \"minimum\": 0}",
         "3", 1},
        {"{\"not\": {\"type\": \"string\", \"maxLength\": 2}, \"minimum\": 0}",
         "-1", 0},
        {"{\"$defs\": {\"n\": {\"type\": \"object\", \"properties\": {\"k\": {\"$ref\": \"#/$defs/n\"}}, \"additionalProperties\": false}},"
         " \"$ref\": \"#/$defs/n\"}", "{\"k\": {\"k\": {}}}", 1},
        {"{\"$defs\": {\"n\": {\"type\": \"object\", \"properties\": {\"k\": {\"$ref\": \"#/$defs/n\"}}, \"additionalProperties\": false}},"
         " \"$ref\": \"#/$defs/n\"}", "{\"k\": {\"k\": {\"j\": 1}}}", 0},
        /* nodes whose list for objects is "properties" alone (fpnode), on objects and others */
        {"{\"properties\": {\"a\": {\"properties\": {\"b\": {\"type\": \"integer\"}}}}}", "{\"a\": {\"b\": 1}}", 1},
        {"{\"properties\": {\"a\": {\"properties\": {\"b\": {\"type\": \"integer\"}}}}}", "{\"a\": {\"b\": \"x\"}}", 0},
        {"{\"properties\": {\"a\": {\"properties\": {\"b\": {\"type\": \"integer\"}}}}}", "{\"a\": \"x\"}", 1},
        {"{\"properties\": {\"a\": {\"properties\": {\"b\": {\"type\": \"integer\"}}}}}", "[{\"a\": 1}]", 1},
        {"{\"properties\": {\"a\": {\"type\": \"object\", \"properties\": {\"b\": true}, \"required\": [\"b\"]}}}",
         "{\"a\": []}", 0},
        {"{\"properties\": {\"a\": {\"type\": \"object\", \"properties\": {\"b\": true}, \"required\": [\"b\"]}}}",
         "{\"a\": {\"c\": 1}}", 0},
        {"{\"properties\": {\"a\": {\"type\": \"object\", \"properties\": {\"b\": true}, \"required\": [\"b\"]}}}",
         "{\"a\": {\"b\": null}}", 1},
        /* uniqueItems beside "items" with an enum of strings (unique_in_table) */
        {"{\"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}, \"uniqueItems\": true}", "[\"mo\", \"tu\", \"th\"]", 1},
        {"{\"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}, \"uniqueItems\": true}", "[\"mo\", \"th\", \"mo\"]", 0},
        {"{\"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}, \"uniqueItems\": true}", "[\"th\", \"th\"]", 0},
        {"{\"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}, \"uniqueItems\": true}", "[]", 1},
        /* outside the enum: "items" fails; in all-errors mode uniqueItems is checked too */
        {"{\"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}, \"uniqueItems\": true}", "[\"mo\", \"x\", \"x\"]", 0},
        {"{\"uniqueItems\": true, \"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}}", "[\"mo\", \"x\", \"y\"]", 0},
        {"{\"uniqueItems\": true, \"items\": {\"enum\": [\"mo\", \"tu\", \"th\"]}}", "[\"mo\", 1, 1]", 0},
        /* one pass decides both (FI_ENUMSET) only where the item's one test for strings is the
         * enum: not beside another keyword, nor for a parent that collects annotations */
        {"{\"items\": {\"enum\": [\"ab\", \"c\"], \"minLength\": 2}, \"uniqueItems\": true}", "[\"ab\", \"c\"]", 0},
        {"{\"items\": {\"enum\": [\"ab\", \"c\"], \"minLength\": 2}, \"uniqueItems\": true}", "[\"ab\"]", 1},
        {"{\"allOf\": [{\"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}], \"unevaluatedItems\": false}",
         "[\"b\", \"a\"]", 1},
        {"{\"allOf\": [{\"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}], \"unevaluatedItems\": false}",
         "[\"b\", \"b\"]", 0},
        {"{\"items\": {\"enum\": [\"a\", \"b\"]}, \"minItems\": 3, \"uniqueItems\": true}", "[\"a\", \"b\"]", 0},
        {"{\"items\": {\"enum\": [\"a\", \"b\"]}, \"maxItems\": 1, \"uniqueItems\": true}", "[\"a\", \"a\"]", 0},
        {"{\"type\": \"array\", \"uniqueItems\": true, \"items\": {\"enum\": [\"a\", \"b\"]}, \"maxItems\": 2}",
         "[\"a\", \"b\"]", 1},
        {"{\"properties\": {\"t\": {\"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}}}",
         "{\"t\": [\"a\", {\"a\": 1}]}", 0},
        /* only the items after prefixItems take the enum: the others are compared pair by pair */
        {"{\"prefixItems\": [true, true], \"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}",
         "[{\"k\": 1}, \"a\", \"b\"]", 1},
        {"{\"prefixItems\": [true, true], \"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}",
         "[{\"k\": 1}, {\"k\": 1}, \"b\"]", 0},
        {"{\"prefixItems\": [true, true], \"items\": {\"enum\": [\"a\", \"b\"]}, \"uniqueItems\": true}",
         "[\"b\", \"a\", \"b\"]", 0},
        /* through a $ref, an enum with a repeated string, names alike in their first bytes */
        {"{\"$defs\": {\"d\": {\"enum\": [\"abc\", \"abd\", \"abc\", \"\"]}}, \"items\": {\"$ref\": \"#/$defs/d\"},"
         " \"uniqueItems\": true}", "[\"abd\", \"abc\", \"\"]", 1},
        {"{\"$defs\": {\"d\": {\"enum\": [\"abc\", \"abd\", \"abc\", \"\"]}}, \"items\": {\"$ref\": \"#/$defs/d\"},"
         " \"uniqueItems\": true}", "[\"abc\", \"abd\", \"abc\"]", 0},
        {"{\"$defs\": {\"d\": {\"enum\": [\"abc\", \"abd\", \"abc\", \"\"]}}, \"items\": {\"$ref\": \"#/$defs/d\"},"
         " \"uniqueItems\": true}", "[\"\", \"abd\", \"\"]", 0},
        /* a node collecting annotations goes to the recording walk */
        {"{\"properties\": {\"a\": true}, \"unevaluatedProperties\": false}", "{\"a\": 1}", 1},
        {"{\"properties\": {\"a\": true}, \"unevaluatedProperties\": false}", "{\"a\": 1, \"b\": 2}", 0},
        {"{\"anyOf\": [{\"properties\": {\"a\": true}}], \"unevaluatedProperties\": false}", "{\"a\": 1, \"b\": 2}", 0},
        /* boolean schemas, contains through a probe */
        {"{\"properties\": {\"a\": false}}", "{\"a\": 1}", 0},
        {"{\"contains\": {\"type\": \"object\", \"required\": [\"k\"]}}", "[1, {\"k\": 2}]", 1},
        {"{\"contains\": {\"type\": \"object\", \"required\": [\"k\"]}}", "[1, {\"j\": 2}]", 0},
    };
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        for (int all = 0; all < 2; all++) {
            struct forge_err err;
            struct forge_schema_opts o = {0};
            o.all_errors = all;
            struct forge_schema *s = compile(cases[k].schema, &o, &err);
            CHECK(s != NULL);
            if (!s)
                continue;
            cJSON *i = J(cases[k].inst);
            int quick = forge_schema_check(s, i, NULL), full = forge_schema_check(s, i, &e);
            if (quick != cases[k].verdict || full != cases[k].verdict)
                fprintf(stderr, "case %zu (all %d): verdict walk %d, recording walk %d, expected %d\n",
                        k, all, quick, full, cases[k].verdict);
            CHECK_INT(quick, cases[k].verdict);
            CHECK_INT(full, cases[k].verdict);
            CHECK(full == 1 ? e.n == 0 : e.n > 0);
            cJSON_Delete(i);
            forge_schema_free(s);
        }
    }
    /* The verdict walk's instructions one by one (keywords, instance, verdict), each in a node of
     * its own (beside an allOf, so not a leaf) and as a property's leaf subschema ({"v": X}). */
    static const struct {
        const char *kws, *inst;
        int verdict;
    } ops[] = {
        /* FI_TYPE */
        {"\"type\": \"integer\"", "2", 1}, {"\"type\": \"integer\"", "1.5", 0}, {"\"type\": \"integer\"", "\"x\"", 0},
        /* FI_NUM: bounds folded, an exclusive bound beside an inclusive one of the same value */
        {"\"minimum\": 2, \"exclusiveMinimum\": 2, \"maximum\": 5", "2", 0},
        {"\"minimum\": 2, \"exclusiveMinimum\": 2, \"maximum\": 5", "2.5", 1},
        {"\"minimum\": 2, \"exclusiveMinimum\": 2, \"maximum\": 5", "5", 1},
        {"\"minimum\": 2, \"exclusiveMinimum\": 2, \"maximum\": 5", "5.5", 0},
        {"\"exclusiveMaximum\": 5, \"maximum\": 5", "5", 0}, {"\"maximum\": 5, \"exclusiveMaximum\": 5", "4", 1},
        {"\"minimum\": 1, \"exclusiveMinimum\": 0", "0.5", 0}, {"\"exclusiveMinimum\": 0, \"minimum\": 1", "1", 1},
        {"\"minimum\": 1", "\"s\"", 1},
        /* FI_MULOF */
        {"\"multipleOf\": 0.25", "19.75", 1}, {"\"multipleOf\": 0.25", "19.8", 0},
        /* FI_SLEN (characters, not bytes) and FI_NONEMPTY */
        {"\"minLength\": 2, \"maxLength\": 3", "\"\xc3\xa9\"", 0},
        {"\"minLength\": 2, \"maxLength\": 3", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", 1},
        {"\"minLength\": 2, \"maxLength\": 3", "\"abcd\"", 0}, {"\"maxLength\": 3", "\"abc\"", 1},
        {"\"minLength\": 1", "\"\"", 0}, {"\"minLength\": 1", "\"a\"", 1}, {"\"minLength\": 1", "5", 1},
        /* FI_PAT: a DFA, and a pattern left to PCRE2 */
        {"\"pattern\": \"^a+$\"", "\"aa\"", 1}, {"\"pattern\": \"^a+$\"", "\"ab\"", 0},
        {"\"pattern\": \"^(a)\\\\1$\"", "\"aa\"", 1}, {"\"pattern\": \"^(a)\\\\1$\"", "\"ab\"", 0},
        /* FI_ENUMS (by first bytes, and names alike in them), FI_ENUMD, a mixed enum (FI_KW) */
        {"\"enum\": [\"mo\", \"tu\", \"th\"]", "\"th\"", 1}, {"\"enum\": [\"mo\", \"tu\", \"th\"]", "\"t\"", 0},
        {"\"enum\": [\"mo\", \"tu\", \"th\"]", "\"thx\"", 0}, {"\"enum\": [\"mo\", \"tu\", \"th\"]", "1", 0},
        {"\"enum\": [\"abc\", \"abd\", \"\"]", "\"abd\"", 1}, {"\"enum\": [\"abc\", \"abd\", \"\"]", "\"\"", 1},
        {"\"enum\": [\"abc\", \"abd\", \"\"]", "\"ab\"", 0}, {"\"enum\": [\"abc\"]", "\"\"", 0},
        {"\"enum\": [15, 30]", "30", 1}, {"\"enum\": [15, 30]", "31", 0}, {"\"enum\": [15, 30]", "\"30\"", 0},
        {"\"enum\": [\"a\", 1, null]", "null", 1}, {"\"enum\": [\"a\", 1, null]", "2", 0},
        /* FI_CONSTS, a const of another type (FI_KW) */
        {"\"const\": \"w\"", "\"w\"", 1}, {"\"const\": \"w\"", "\"ww\"", 0}, {"\"const\": \"w\"", "1", 0},
        {"\"const\": 3", "3.0", 1}, {"\"const\": 3", "4", 0},
        /* FI_REQ1, FI_REQN (with a duplicate name), FI_REQ */
        {"\"required\": [\"a\"]", "{\"a\": 1}", 1}, {"\"required\": [\"a\"]", "{\"b\": 1}", 0},
        {"\"required\": [\"a\"]", "[]", 1},
        {"\"required\": [\"a\", \"b\", \"a\"]", "{\"b\": 1, \"a\": 2}", 1},
        {"\"required\": [\"a\", \"b\", \"a\"]", "{\"a\": 1}", 0},
        {"\"required\": [\"a\", \"b\", \"c\", \"d\", \"e\"]", "{\"e\": 1, \"d\": 1, \"c\": 1, \"b\": 1, \"a\": 1}", 1},
        {"\"required\": [\"a\", \"b\", \"c\", \"d\", \"e\"]", "{\"a\": 1, \"b\": 1, \"c\": 1, \"d\": 1}", 0},
        /* FI_COUNT, FI_PCOUNT */
        {"\"minItems\": 1, \"maxItems\": 2", "[]", 0}, {"\"minItems\": 1, \"maxItems\": 2", "[1]", 1},
        {"\"minItems\": 1, \"maxItems\": 2", "[1, 2, 3]", 0},
        {"\"minProperties\": 1, \"maxProperties\": 1", "{}", 0},
        {"\"minProperties\": 1, \"maxProperties\": 1", "{\"a\": 1}", 1},
        {"\"minProperties\": 1, \"maxProperties\": 1", "{\"a\": 1, \"b\": 2}", 0},
        /* FI_UNIQUE, FI_DEPREQ */
        {"\"uniqueItems\": true", "[1, \"1\", {\"a\": 1}, {\"a\": 2}]", 1}, {"\"uniqueItems\": true", "[1, 1.0]", 0},
        {"\"uniqueItems\": true", "[{\"a\": [1]}, {\"a\": [1]}]", 0},
        {"\"dependentRequired\": {\"a\": [\"b\"]}", "{\"a\": 1}", 0},
        {"\"dependentRequired\": {\"a\": [\"b\"]}", "{\"a\": 1, \"b\": 1}", 1},
        {"\"dependentRequired\": {\"a\": [\"b\"]}", "{\"b\": 1}", 1},
        /* FI_ITEMS (on a leaf), FI_NOT, FI_PNAMES, FI_REF, FI_KW (patternProperties, contains) */
        {"\"items\": {\"enum\": [\"x\"]}", "[\"x\", \"x\"]", 1}, {"\"items\": {\"enum\": [\"x\"]}", "[\"x\", \"y\"]", 0},
        {"\"not\": {\"type\": \"string\"}", "1", 1}, {"\"not\": {\"type\": \"string\"}", "\"s\"", 0},
        {"\"propertyNames\": {\"maxLength\": 2}", "{\"ab\": 1}", 1},
        {"\"propertyNames\": {\"maxLength\": 2}", "{\"ab\": 1, \"abc\": 2}", 0},
        {"\"$ref\": \"#/$defs/s\", \"$defs\": {\"s\": {\"type\": \"string\"}}", "\"s\"", 1},
        {"\"$ref\": \"#/$defs/s\", \"$defs\": {\"s\": {\"type\": \"string\"}}", "1", 0},
        {"\"patternProperties\": {\"^x\": {\"type\": \"integer\"}}", "{\"xa\": 1, \"y\": \"s\"}", 1},
        {"\"patternProperties\": {\"^x\": {\"type\": \"integer\"}}", "{\"xa\": \"s\"}", 0},
        {"\"contains\": {\"const\": 2}, \"maxContains\": 1", "[2, 3]", 1},
        {"\"contains\": {\"const\": 2}, \"maxContains\": 1", "[2, 2]", 0},
    };
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        for (int form = 0; form < 4; form++) {
            struct forge_err err;
            struct forge_schema_opts o = {0};
            o.all_errors = form & 1;
            char sch[1024], in[512];
            if (form < 2) {
                snprintf(sch, sizeof sch, "{%s, \"allOf\": [true]}", ops[k].kws);
                snprintf(in, sizeof in, "%s", ops[k].inst);
            } else {
                /* $ref and $defs stay at the root */
                const char *defs = strstr(ops[k].kws, "\"$defs\"");
                if (defs)
                    snprintf(sch, sizeof sch, "{\"properties\": {\"v\": {%.*s}}, %s}",
                             (int)(strstr(ops[k].kws, ", \"$defs\"") - ops[k].kws), ops[k].kws, defs);
                else
                    snprintf(sch, sizeof sch, "{\"properties\": {\"v\": {%s}}}", ops[k].kws);
                snprintf(in, sizeof in, "{\"v\": %s}", ops[k].inst);
            }
            struct forge_schema *s = compile(sch, &o, &err);
            CHECK(s != NULL);
            if (!s)
                continue;
            cJSON *i = J(in);
            int quick = forge_schema_check(s, i, NULL), full = forge_schema_check(s, i, &e);
            if (quick != ops[k].verdict || full != ops[k].verdict)
                fprintf(stderr, "op case %zu (form %d): %s on %s: verdict walk %d, recording walk %d, "
                        "expected %d\n", k, form, sch, in, quick, full, ops[k].verdict);
            CHECK_INT(quick, ops[k].verdict);
            CHECK_INT(full, ops[k].verdict);
            CHECK(full == 1 ? e.n == 0 : e.n > 0);
            cJSON_Delete(i);
            forge_schema_free(s);
        }
    }
    forge_schema_errors_free(&e);
}

/* The first error both ways (the verdict walk's trail replayed, and the recording walk), as
 * "instance | keyword | message", or a return code's name. */
static char *first_error(const struct forge_schema *s, const cJSON *inst, int recording)
{
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    forge_schema_test_path(recording ? 1 : 2);
    int r = forge_schema_check(s, inst, &e);
    forge_schema_test_path(0);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (r == 0 && forge_schema_errors_render(&e) == 0 && e.n == 1)
        forge_buf_addf(&b, "%s | %s | %s", e.list[0].instance_location, e.list[0].keyword_location,
                       e.list[0].message);
    else
        forge_buf_addf(&b, "%s (%d errors)", r == 1 ? "valid" : forge_rc_name(r), e.n);
    forge_schema_errors_free(&e);
    return b.data;
}

/* In first-error mode a failing verdict walk leaves a trail (each kind of level it can fail
 * through) that gives the recording walk's error exactly; what it cannot follow (more levels
 * than it has room for, a walk past the steps after which probes are memoised) is left to the
 * recording walk. Every case: the expected error, both ways, and no trail that was not
 * followed. */
/* Each bound a message shows is written as String(n) would write it: made once, at compile time,
 * it must read the same as the instance's own numbers do. */
TEST(bounds_in_messages)
{
    static const struct {
        const char *schema, *inst, *msg;
    } cases[] = {
        {"{\"multipleOf\": 0.25}", "19.999", "19.999 is not a multiple of 0.25"},
        {"{\"maximum\": -1e21}", "0", "0 is greater than the maximum -1e+21"},
        {"{\"exclusiveMaximum\": 0.1}", "0.5", "0.5 is not less than the exclusive maximum 0.1"},
        {"{\"minimum\": 1e-7}", "0", "0 is less than the minimum 1e-7"},
        {"{\"minimum\": 0}", "-3", "-3 is less than the minimum 0"},
        {"{\"maximum\": -1e21}", "-1e20", "-100000000000000000000 is greater than the maximum -1e+21"},
        {"{\"exclusiveMinimum\": -0}", "-0.5", "-0.5 is not greater than the exclusive minimum 0"},
        {"{\"maxLength\": 2}", "\"abc\"", "string has 3 characters, more than the maximum 2"},
        {"{\"minLength\": 2.0}", "\"a\"", "string has 1 characters, fewer than the minimum 2"},
        {"{\"maxItems\": 1}", "[1, 2]", "array has 2 items, more than the maximum 1"},
        {"{\"minItems\": 3}", "[1]", "array has 1 items, fewer than the minimum 3"},
        {"{\"contains\": {\"type\": \"string\"}, \"minContains\": 2}", "[\"a\", 1]",
         "1 items match the contains schema, fewer than minContains 2"},
        {"{\"contains\": {\"type\": \"string\"}, \"maxContains\": 1}", "[\"a\", \"b\"]",
         "2 items match the contains schema, more than maxContains 1"},
        {"{\"maxProperties\": 0}", "{\"a\": 1}", "object has 1 properties, more than the maximum 0"},
        {"{\"minProperties\": 12345678901234567}", "{}",
         "object has 0 properties, fewer than the minimum 12345678901234568"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct forge_err err;
        struct forge_schema *s = compile(cases[i].schema, NULL, &err);
        CHECK(s != NULL);
        cJSON *x = J(cases[i].inst);
        struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
        CHECK_INT(forge_schema_check(s, x, &e), 0);
        CHECK_INT(e.n, 1);
        render_matches_json(&e);
        CHECK_STR(e.list[0].message, cases[i].msg);
        forge_schema_errors_free(&e);
        cJSON_Delete(x);
        forge_schema_free(s);
    }
}

TEST(trail_gives_the_recording_walks_error)
{
    static const struct {
        const char *schema, *inst, *want;
    } cases[] = {
        /* fused properties: a leaf, a node, required, additionalProperties false and a schema */
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\", \"b\"], \"additionalProperties\": false}",
         "{\"a\": \"x\"}", "/a | /properties/a/type | expected integer, got string"},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\", \"b\"], \"additionalProperties\": false}",
         "{\"a\": 1}", " | /required | missing required property 'b'"},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\"], \"additionalProperties\": false}",
         "{\"a\": 1, \"x~/\": 2}", " | /additionalProperties | property 'x~/' is not allowed"},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"additionalProperties\": {\"properties\": {\"k\": {\"const\": 1}}}}",
         "{\"z\": {\"k\": 2}}", "/z/k | /additionalProperties/properties/k/const | value must be 1"},
        {"{\"properties\": {\"o\": {\"properties\": {\"p\": {\"minimum\": 3}}, \"required\": [\"p\"]}}}",
         "{\"o\": {\"p\": 2}}", "/o/p | /properties/o/properties/p/minimum | 2 is less than the minimum 3"},
        {"{\"properties\": {\"a\": false}}", "{\"a\": 1}", "/a | /properties/a | no value is allowed here (schema false)"},
        /* names that a JSON pointer escapes, each level's taken from the member */
        {"{\"properties\": {\"a/b\": {\"properties\": {\"~x\": {\"type\": \"integer\"}, \"y\": true}}, \"c\": true}}",
         "{\"c\": 1, \"a/b\": {\"y\": 2, \"~x\": \"s\"}}",
         "/a~1b/~0x | /properties/a~1b/properties/~0x/type | expected integer, got string"},
        /* items, prefixItems, additionalItems (draft 7), a tuple items (FI_KW) */
        {"{\"prefixItems\": [{\"type\": \"string\"}], \"items\": {\"required\": [\"k\"], \"properties\": {}}}",
         "[\"s\", {\"k\": 1}, {}]", "/2 | /items/required | missing required property 'k'"},
        {"{\"prefixItems\": [{\"type\": \"string\"}, {\"allOf\": [{\"maxItems\": 1}]}]}", "[\"s\", [1, 2]]",
         "/1 | /prefixItems/1/allOf/0/maxItems | array has 2 items, more than the maximum 1"},
        {"{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"items\": [{\"type\": \"string\"}, {\"not\": {}}],"
         " \"additionalItems\": {\"type\": \"object\", \"required\": [\"k\"]}}", "[\"s\", 2]",
         "/1 | /items/1/not | value must not match the 'not' schema"},
        {"{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"items\": [{\"type\": \"string\"}],"
         " \"additionalItems\": {\"type\": \"object\", \"required\": [\"k\"]}}", "[\"s\", {\"j\": 1}]",
         "/1 | /additionalItems/required | missing required property 'k'"},
        /* $ref (a keyword beside others, a $ref-only node, a chain), allOf, if/then/else */
        {"{\"$defs\": {\"n\": {\"type\": \"object\", \"properties\": {\"c\": {\"items\": {\"$ref\": \"#/$defs/n\"}}, \"v\": {\"maximum\": 1}}}},"
         " \"$ref\": \"#/$defs/n\"}", "{\"c\": [{\"c\": [{\"v\": 2}]}]}",
         "/c/0/c/0/v | /$ref/properties/c/items/$ref/properties/c/items/$ref/properties/v/maximum | 2 is greater than the maximum 1"},
        {"{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"type\": \"string\", \"minLength\": 2}}, \"type\": \"object\","
         " \"properties\": {\"x\": {\"$ref\": \"#/$defs/a\"}}}", "{\"x\": \"s\"}",
         "/x | /properties/x/$ref/$ref/minLength | string has 1 characters, fewer than the minimum 2"},
        {"{\"allOf\": [{\"required\": [\"a\"]}, {\"properties\": {\"a\": {\"enum\": [1, \"x\", null]}}}]}", "{\"a\": 2}",
         "/a | /allOf/1/properties/a/enum | value must be one of [1,\"x\",null]"},
        {"{\"if\": {\"required\": [\"a\"]}, \"then\": {\"properties\": {\"a\": {\"type\": \"string\"}}}, \"else\": {\"required\": [\"b\"]}}",
         "{\"a\": 1}", "/a | /then/properties/a/type | expected string, got integer"},
        {"{\"if\": {\"required\": [\"a\"]}, \"then\": {\"properties\": {\"a\": {\"type\": \"string\"}}}, \"else\": {\"required\": [\"b\"]}}",
         "{\"c\": 1}", " | /else/required | missing required property 'b'"},
        /* anyOf, oneOf (none, two), not: the error at the applicator */
        {"{\"properties\": {\"p\": {\"anyOf\": [{\"type\": \"string\"}, {\"minimum\": 3}]}}}", "{\"p\": 1}",
         "/p | /properties/p/anyOf | value matches none of the 2 anyOf schemas"},
        {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 3}, {\"maximum\": 0}]}", "1.5",
         " | /oneOf | value matches none of the 3 oneOf schemas"},
        {"{\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}, {\"minimum\": 3}, {\"maximum\": 9}]}", "5",
         " | /oneOf | value matches oneOf schemas 1 and 2; exactly one must match"},
        {"{\"properties\": {\"n\": {\"not\": {\"const\": 1}, \"type\": \"integer\"}}}", "{\"n\": 1}",
         "/n | /properties/n/not | value must not match the 'not' schema"},
        /* "if" on one member (FI_IFM: a discriminator) and "not" of a leaf (FI_NOTL), in a
         * node of other keywords, and below a member */
        {"{\"properties\": {\"r\": {\"required\": [\"f\"], \"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}},"
         " \"then\": {\"required\": [\"d\"]}, \"else\": {\"properties\": {\"d\": false}}}}}",
         "{\"r\": {\"f\": \"w\"}}", "/r | /properties/r/then/required | missing required property 'd'"},
        {"{\"properties\": {\"r\": {\"required\": [\"f\"], \"if\": {\"properties\": {\"f\": {\"const\": \"w\"}}},"
         " \"then\": {\"required\": [\"d\"]}, \"else\": {\"properties\": {\"d\": false}}}}}",
         "{\"r\": {\"f\": \"v\", \"d\": 1}}", "/r/d | /properties/r/else/properties/d | no value is allowed here (schema false)"},
        {"{\"properties\": {\"r\": {\"minProperties\": 1, \"not\": {\"required\": [\"a\", \"b\"]}}}}",
         "{\"r\": {\"b\": 1, \"a\": 2}}", "/r | /properties/r/not | value must not match the 'not' schema"},
        /* a bound folded with others (the first that fails), an enum of strings on a number */
        {"{\"minimum\": 2, \"exclusiveMaximum\": 5, \"maximum\": 9, \"allOf\": [true]}", "5",
         " | /exclusiveMaximum | 5 is not less than the exclusive maximum 5"},
        {"{\"enum\": [\"a\", \"b\"], \"allOf\": [true]}", "1", " | /enum | value must be one of [\"a\",\"b\"]"},
        /* propertyNames (the keyword is the origin), dependentSchemas, contains, format */
        {"{\"propertyNames\": {\"maxLength\": 2, \"pattern\": \"^a\"}}", "{\"ab\": 1, \"bc\": 2}",
         " | /propertyNames/pattern | string does not match the pattern ^a"},
        {"{\"dependentSchemas\": {\"a\": {\"properties\": {\"b\": {\"type\": \"null\"}}}}}", "{\"a\": 1, \"b\": 2}",
         "/b | /dependentSchemas/a/properties/b/type | expected null, got integer"},
        {"{\"properties\": {\"l\": {\"contains\": {\"const\": 2}, \"minContains\": 2}}}", "{\"l\": [2, 3]}",
         "/l | /properties/l/contains | 1 items match the contains schema, fewer than minContains 2"},
        /* a node that collects annotations (the recording walk's own part) */
        {"{\"properties\": {\"u\": {\"properties\": {\"a\": true}, \"unevaluatedProperties\": false}}}",
         "{\"u\": {\"a\": 1, \"b\": 2}}", "/u | /properties/u/unevaluatedProperties | property 'b' is not allowed"},
        /* a leaf's failing instruction gives its keyword's error (leaf_failed_at): a type, an enum of
         * strings (and on a number), of numbers, a string const (and on a number), a pattern (a DFA's,
         * PCRE2's), one required name */
        {"{\"properties\": {\"u\": {\"enum\": [\"celsius\", \"kelvin\"]}}}",
         "{\"u\": \"x\"}", "/u | /properties/u/enum | value must be one of [\"celsius\",\"kelvin\"]"},
        {"{\"properties\": {\"u\": {\"enum\": [\"celsius\", \"kelvin\"]}}}",
         "{\"u\": 3}", "/u | /properties/u/enum | value must be one of [\"celsius\",\"kelvin\"]"},
        {"{\"properties\": {\"d\": {\"type\": \"integer\", \"enum\": [15, 30]}}}",
         "{\"d\": 20}", "/d | /properties/d/enum | value must be one of [15,30]"},
        {"{\"properties\": {\"d\": {\"type\": \"integer\", \"enum\": [15, 30]}}}",
         "{\"d\": 15.5}", "/d | /properties/d/type | expected integer, got number"},
        {"{\"properties\": {\"c\": {\"const\": \"weekly\"}}}",
         "{\"c\": \"daily\"}", "/c | /properties/c/const | value must be \"weekly\""},
        {"{\"properties\": {\"c\": {\"const\": \"weekly\"}}}",
         "{\"c\": 1}", "/c | /properties/c/const | value must be \"weekly\""},
        {"{\"properties\": {\"s\": {\"type\": \"string\", \"pattern\": \"^\\\\d+$\"}}}",
         "{\"s\": \"x1\"}", "/s | /properties/s/pattern | string does not match the pattern ^\\d+$"},
        {"{\"properties\": {\"s\": {\"type\": \"string\", \"pattern\": \"^\\\\d+$\"}}}",
         "{\"s\": 5}", "/s | /properties/s/type | expected string, got integer"},
        {"{\"properties\": {\"s\": {\"minLength\": 2, \"pattern\": \"^(a)\\\\1$\"}}}",
         "{\"s\": \"ab\"}", "/s | /properties/s/pattern | string does not match the pattern ^(a)\\1$"},
        {"{\"properties\": {\"o\": {\"type\": \"object\", \"required\": [\"k\"]}}}",
         "{\"o\": {\"j\": 1}}", "/o | /properties/o/required | missing required property 'k'"},
        /* the root itself: a leaf, false */
        {"{\"type\": \"string\"}", "1", " | /type | expected string, got integer"},
        {"false", "1", " |  | no value is allowed here (schema false)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct forge_err err;
        struct forge_schema *s = compile(cases[k].schema, NULL, &err);
        CHECK(s != NULL);
        if (!s)
            continue;
        cJSON *i = J(cases[k].inst);
        unsigned long misses = forge_schema_test_trail_misses();
        for (int rec = 0; rec < 2; rec++) {
            char *got = first_error(s, i, rec);
            if (strcmp(got, cases[k].want))
                fprintf(stderr, "case %zu (%s): %s\n", k, rec ? "recording" : "trail", got);
            CHECK_STR(got, cases[k].want);
            forge_free(got);
        }
        CHECK(forge_schema_test_trail_misses() == misses);
        cJSON_Delete(i);
        forge_schema_free(s);
    }

    /* 80 levels of arrays: more links than the trail has room for; and a walk past 4096 steps */
    struct forge_buf b;
    forge_buf_init(&b, 0);
    for (int d = 0; d < 80; d++)
        forge_buf_adds(&b, "[");
    forge_buf_adds(&b, "\"x\"");
    for (int d = 0; d < 80; d++)
        forge_buf_adds(&b, "]");
    cJSON *deep = J(b.data);
    struct forge_err err;
    struct forge_schema *s = compile("{\"items\": {\"$ref\": \"#\"}, \"type\": [\"array\", \"integer\"]}", NULL, &err);
    char *t = first_error(s, deep, 0), *r = first_error(s, deep, 1);
    CHECK_STR(t, r);
    b.len = 0;
    for (int d = 0; d < 80; d++)
        forge_buf_adds(&b, "/0");
    forge_buf_adds(&b, " | ");
    for (int d = 0; d < 80; d++)
        forge_buf_adds(&b, "/items/$ref");
    forge_buf_adds(&b, "/type | expected array or integer, got string");
    CHECK_STR(t, b.data);
    forge_free(t);
    forge_free(r);
    forge_schema_free(s);
    cJSON_Delete(deep);
    /* 1,000 items: the part with the failure is walked again; 5,000: past 4096 steps the
     * recording walk runs instead */
    s = compile("{\"items\": {\"not\": {\"not\": {\"type\": \"integer\"}}}}", NULL, &err);
    for (int size = 1000; size <= 5000; size += 4000) {
        b.len = 0;
        forge_buf_adds(&b, "[");
        for (int k = 0; k < size; k++)
            forge_buf_adds(&b, "1, ");
        forge_buf_adds(&b, "\"x\"]");
        cJSON *many = J(b.data);
        char want[100];
        snprintf(want, sizeof want, "/%d | /items/not | value must not match the 'not' schema", size);
        unsigned long misses = forge_schema_test_trail_misses();
        t = first_error(s, many, 0);
        CHECK_STR(t, want);
        r = first_error(s, many, 1);
        CHECK_STR(r, want);
        CHECK(forge_schema_test_trail_misses() == misses);
        forge_free(t);
        /* the smallest step budget the recording walk fits in (searched): the trail's walk fits
         * in it too, with the part it walks again, and neither fits in one step less */
        unsigned long lo = 1, hi = 100000;
        while (lo < hi) {
            unsigned long mid = (lo + hi) / 2;
            forge_schema_set_max_steps(mid);
            forge_free(r);
            r = first_error(s, many, 1);
            if (!strcmp(r, "limit exceeded (0 errors)"))
                lo = mid + 1;
            else
                hi = mid;
        }
        CHECK(lo > (unsigned long)size * 2 && lo < (unsigned long)size * 4);
        forge_schema_set_max_steps(lo);
        t = first_error(s, many, 0);
        CHECK_STR(t, want);
        forge_free(t);
        forge_schema_set_max_steps(lo - 1);
        t = first_error(s, many, 0);
        CHECK_STR(t, "limit exceeded (0 errors)");
        char msg[200];
        snprintf(msg, sizeof msg, "schema evaluation limit exceeded: more than %lu steps validating "
                 "one instance; raise it with --schema-steps N", lo - 1);
        CHECK_STR(forge_schema_limit_message(), msg);
        forge_schema_set_max_steps(0);
        forge_free(t);
        forge_free(r);
        cJSON_Delete(many);
    }
    forge_buf_free(&b);
    forge_schema_free(s);
}

/* A check that wants errors runs the verdict walk first unless the thread's last two checks
 * found invalid instances (then the recording walk; one valid instance brings the verdict walk
 * back); in first-error mode an
 * instance big enough for the trail to pay takes the verdict walk whatever was predicted. Either
 * way the verdict and the errors are the same. */
/* Member names, enum and const strings are compared with the schema's a word at a time when
 * the instance's string starts at an 8-byte boundary, else with strcmp: both give the same
 * verdicts, whatever bytes follow the string's NUL in its word, at every length around the
 * word boundaries, in both walks and on the recording path. */
TEST(names_compared_by_words)
{
    static const char *names[] = {"", "a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno",
                                  "abcdefghijklmnop", "abcdefghijklmnopq"};
    enum { NN = sizeof names / sizeof *names };
    /* keys: every name, and near misses: one byte short, one more, the last byte changed */
    static const char *keys[] = {"", "a", "b", "ab", "abcdef", "abcdefg", "abcdefG", "abcdefgh",
                                 "abcdefgH", "abcdefghi", "abcdefghI", "abcdefghij",
                                 "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnO",
                                 "abcdefghijklmnop", "abcdefghijklmnoP", "abcdefghijklmnopq",
                                 "abcdefghijklmnopQ", "abcdefghijklmnopqr", "x"};
    enum { NK = sizeof keys / sizeof *keys };
    struct forge_buf b;
    forge_buf_init(&b, 0);
    /* properties: each name false (a key that is one of them fails), all of them (a table
     * hashed where their first two bytes are alike), and the four that share "abcdefg" (scanned
     * in turn) */
    struct forge_err err;
    struct forge_schema_opts o = {0};
    _Alignas(16) char buf[64];
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (int set = 0; set < 2; set++) {
        int from = set ? 2 : 0, to = set ? 6 : NN;
        b.len = 0;
        forge_buf_adds(&b, "{\"properties\": {");
        for (int j = from; j < to; j++)
            forge_buf_addf(&b, "%s\"%s\": false", j > from ? ", " : "", names[j]);
        forge_buf_adds(&b, "}}");
        forge_buf_addc(&b, 0);
        struct forge_schema *sp = compile(b.data, &o, &err);
        CHECK(sp != NULL);
        for (int k = 0; k < NK && sp; k++) {
            bool named = false;
            for (int j = from; j < to; j++)
                named = named || !strcmp(keys[k], names[j]);
            for (int off = 0; off < 2; off++)         /* aligned, and not */
                for (int fill = 0; fill < 2; fill++) { /* what follows the NUL */
                    memset(buf, fill ? 0xA5 : 'p', sizeof buf);
                    memcpy(buf + off, keys[k], strlen(keys[k]) + 1);
                    cJSON *inst = cJSON_CreateObject(), *v = cJSON_CreateNull();
                    cJSON_AddItemToObjectCS(inst, buf + off, v);
                    for (int way = 0; way < 3; way++) {
                        forge_schema_test_path(way);
                        int r = forge_schema_check(sp, inst, way ? &e : NULL);
                        if (r != !named)
                            fprintf(stderr, "  key \"%s\" (set %d, offset %d, fill %d, path %d): %d\n",
                                    keys[k], set, off, fill, way, r);
                        CHECK_INT(r, !named);
                    }
                    forge_schema_test_path(0);
                    cJSON_Delete(inst);
                }
        }
        forge_schema_free(sp);
    }
    /* the same strings as values: enum (a few, and more than its scan's sixteen), const,
     * required of one name and of a few */
    static const char *tail[] = {"", ", \"e1\", \"e2\", \"e3\", \"e4\", \"e5\", \"e6\", \"e7\", "
                                     "\"e8\", \"e9\", \"e10\", \"e11\", \"e12\""};
    for (int t = 0; t < 2; t++) {
        b.len = 0;
        forge_buf_adds(&b, "{\"enum\": [");
        for (int j = 0; j < NN; j++)
            forge_buf_addf(&b, "%s\"%s\"", j ? ", " : "", names[j]);
        forge_buf_adds(&b, tail[t]);
        forge_buf_adds(&b, "]}");
        forge_buf_addc(&b, 0);
        char *en = forge_strdup(b.data);
        struct forge_schema *se = compile(en, &o, &err);
        forge_free(en);
        CHECK(se != NULL);
        for (int k = 0; k < NK && se; k++) {
            bool named = false;
            for (int j = 0; j < NN; j++)
                named = named || !strcmp(keys[k], names[j]);
            for (int off = 0; off < 2; off++) {
                memset(buf, 0xA5, sizeof buf);
                memcpy(buf + off, keys[k], strlen(keys[k]) + 1);
                cJSON *inst = cJSON_CreateStringReference(buf + off);
                for (int way = 0; way < 3; way++) {
                    forge_schema_test_path(way);
                    CHECK_INT(forge_schema_check(se, inst, way ? &e : NULL), named);
                }
                forge_schema_test_path(0);
                cJSON_Delete(inst);
            }
        }
        forge_schema_free(se);
    }
    for (int j = 0; j < NN; j++) {
        char text[200];
        snprintf(text, sizeof text, "{\"const\": \"%s\"}", names[j]);
        struct forge_schema *sc = compile(text, &o, &err);
        snprintf(text, sizeof text, "{\"required\": [\"%s\"]}", names[j]);
        struct forge_schema *s1 = compile(text, &o, &err);
        snprintf(text, sizeof text, "{\"required\": [\"%s\", \"%s\"]}", names[j], names[(j + 3) % NN]);
        struct forge_schema *s2 = compile(text, &o, &err);
        /* a discriminator: the name, with its own text as the const of one branch */
        char disc[400];
        snprintf(disc, sizeof disc, "{\"oneOf\": [{\"properties\": {\"%s\": {\"const\": \"%s\"}}, "
                 "\"required\": [\"%s\"]}, {\"properties\": {\"%s\": {\"const\": \"zz\"}}, "
                 "\"required\": [\"%s\"]}]}", names[j], names[j], names[j], names[j], names[j]);
        struct forge_schema *sd = compile(disc, &o, &err);
        CHECK(sc && s1 && s2 && sd);
        for (int k = 0; k < NK && sc && s1 && s2 && sd; k++) {
            bool same = !strcmp(keys[k], names[j]);
            for (int off = 0; off < 2; off++) {
                memset(buf, 0xA5, sizeof buf);
                memcpy(buf + off, keys[k], strlen(keys[k]) + 1);
                cJSON *str = cJSON_CreateStringReference(buf + off);
                /* an object with the key, and with the other name of s2 */
                cJSON *obj = cJSON_CreateObject();
                cJSON_AddItemToObjectCS(obj, buf + off, cJSON_CreateNull());
                cJSON_AddItemToObjectCS(obj, names[(j + 3) % NN], cJSON_CreateNull());
                /* an object whose one member has the key as its name and as its value */
                _Alignas(16) char vbuf[64];
                memcpy(vbuf, buf, sizeof vbuf);
                cJSON *tagged = cJSON_CreateObject();
                cJSON_AddItemToObjectCS(tagged, buf + off, cJSON_CreateStringReference(vbuf + off));
                for (int way = 0; way < 3; way++) {
                    forge_schema_test_path(way);
                    struct forge_schema_errors *ep = way ? &e : NULL;
                    CHECK_INT(forge_schema_check(sc, str, ep), same);
                    CHECK_INT(forge_schema_check(s1, obj, ep),
                              same || !strcmp(names[(j + 3) % NN], names[j]));
                    CHECK_INT(forge_schema_check(s2, obj, ep), same);
                    CHECK_INT(forge_schema_check(sd, tagged, ep), same);
                }
                forge_schema_test_path(0);
                cJSON_Delete(str);
                cJSON_Delete(obj);
                cJSON_Delete(tagged);
            }
        }
        forge_schema_free(sc);
        forge_schema_free(s1);
        forge_schema_free(s2);
        forge_schema_free(sd);
    }
    forge_schema_errors_free(&e);
    forge_buf_free(&b);
}

TEST(walk_predicted_from_recent_checks)
{
    static const char *schema = "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": "
                                "\"string\", \"minLength\": 1}, \"days\": {\"type\": \"integer\", "
                                "\"maximum\": 14}, \"tags\": {\"type\": \"array\", \"items\": {\"type\": "
                                "\"string\"}}, \"meta\": {\"properties\": {\"a\": {\"type\": \"string\"}}}}, "
                                "\"required\": [\"city\"]}";
    cJSON *ok = J("{\"city\": \"Paris\", \"days\": 3}");
    cJSON *bad = J("{\"city\": \"Paris\", \"days\": 30}");
    cJSON *big_bad = J("{\"city\": \"Paris\", \"tags\": [\"a\"], \"x\": 1, \"y\": 2, \"z\": 3, "
                       "\"w\": 4, \"v\": 5, \"days\": 30}");
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    for (int all = 0; all < 2; all++) {
        struct forge_schema_opts o = {0};
        o.all_errors = all;
        struct forge_err err;
        struct forge_schema *s = compile(schema, &o, &err);
        CHECK(s != NULL);
        if (!s)
            continue;
        for (int k = 0; k < 3; k++) /* (whatever the earlier tests left: predicting valid) */
            CHECK_INT(forge_schema_check(s, ok, &e), 1);
        /* each check: the instance, then the walks it should run (verdict, recording) */
        static const struct {
            int bad, verdict, recording;
        } steps[] = {
            {0, 1, 0}, /* valid, predicted valid: the verdict walk alone */
            {1, 1, 0}, /* invalid, predicted valid: the verdict walk; then the trail (first error)
                        * or the recording walk (all errors) */
            {1, 1, 0}, /* one invalid before: still the verdict walk */
            {1, 0, 1}, /* two: the recording walk alone */
            {0, 0, 1}, /* two, a valid one: the recording walk */
            {0, 1, 0}, /* one valid before: the verdict walk again */
            {1, 1, 0},
        };
        for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
            unsigned long v0 = forge_schema_test_walks(0), r0 = forge_schema_test_walks(1);
            int r = forge_schema_check(s, steps[k].bad ? bad : ok, &e);
            CHECK_INT(r, !steps[k].bad);
            int rec = steps[k].recording + (all && steps[k].bad && steps[k].verdict);
            if (forge_schema_test_walks(0) - v0 != (unsigned long)steps[k].verdict ||
                forge_schema_test_walks(1) - r0 != (unsigned long)rec)
                fprintf(stderr, "all %d, check %zu: %lu verdict and %lu recording walks\n", all, k,
                        forge_schema_test_walks(0) - v0, forge_schema_test_walks(1) - r0);
            CHECK_INT((int)(forge_schema_test_walks(0) - v0), steps[k].verdict);
            CHECK_INT((int)(forge_schema_test_walks(1) - r0), rec);
            if (steps[k].bad) {
                CHECK_INT(e.n, 1);
                CHECK_INT(forge_schema_errors_render(&e), 0);
                CHECK_STR(e.list[0].instance_location, "/days");
                CHECK_STR(e.list[0].keyword_location, "/properties/days/maximum");
                CHECK_STR(e.list[0].message, "30 is greater than the maximum 14");
            }
        }
        /* predicting invalid, a big instance: in first-error mode the trail */
        for (int k = 0; k < 3; k++)
            CHECK_INT(forge_schema_check(s, bad, &e), 0);
        unsigned long v0 = forge_schema_test_walks(0), r0 = forge_schema_test_walks(1);
        CHECK_INT(forge_schema_check(s, big_bad, &e), 0);
        CHECK_INT((int)(forge_schema_test_walks(0) - v0), !all);
        CHECK_INT((int)(forge_schema_test_walks(1) - r0), all);
        CHECK_INT(e.n, 1);
        CHECK_INT(forge_schema_errors_render(&e), 0);
        CHECK_STR(e.list[0].instance_location, "/days");
        for (int k = 0; k < 3; k++) /* (predicting valid again) */
            CHECK_INT(forge_schema_check(s, ok, &e), 1);
        forge_schema_free(s);
    }
    forge_schema_errors_free(&e);
    cJSON_Delete(ok);
    cJSON_Delete(bad);
    cJSON_Delete(big_bad);
}

/* In all-errors mode too, the verdict walk first and the recording walk alone meet the step
 * budget alike: the smallest budget the recording walk fits in (searched) lets the two walks of
 * the other path through with the same errors, and one step less stops both with the budget's
 * message. */
TEST(all_errors_paths_meet_the_budget_alike)
{
    struct forge_schema_opts o = {0};
    o.all_errors = true;
    struct forge_err err;
    struct forge_schema *s = compile("{\"items\": {\"not\": {\"not\": {\"type\": \"integer\"}}}}", &o, &err);
    CHECK(s != NULL);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "[");
    for (int k = 0; k < 1000; k++)
        forge_buf_adds(&b, k == 500 ? "\"y\", " : "1, ");
    forge_buf_adds(&b, "\"x\"]");
    cJSON *many = J(b.data);
    struct forge_schema_errors e1 = FORGE_SCHEMA_ERRORS_INIT, e2 = FORGE_SCHEMA_ERRORS_INIT;
    unsigned long lo = 1, hi = 100000;
    while (lo < hi) {
        unsigned long mid = (lo + hi) / 2;
        forge_schema_set_max_steps(mid);
        forge_schema_test_path(1);
        int r = forge_schema_check(s, many, &e1);
        forge_schema_test_path(0);
        if (r == FORGE_ELIMIT)
            lo = mid + 1;
        else
            hi = mid;
    }
    CHECK(lo > 1000 && lo < 5000);
    for (unsigned long budget = lo; budget >= lo - 1; budget--) {
        forge_schema_set_max_steps(budget);
        int r1, r2;
        CHECK(check_both_paths(s, many, &e2, &r2, &e1, &r1));
        CHECK_INT(r1, budget == lo ? 0 : FORGE_ELIMIT);
        CHECK_INT(r2, r1);
        if (budget == lo) {
            CHECK_INT(e1.n, 2);
            CHECK(same_errors(&e1, &e2));
            CHECK_STR(e1.list[0].instance_location, "/500");
            CHECK_STR(e1.list[1].instance_location, "/1000");
        } else {
            CHECK(!strncmp(forge_schema_limit_message(), "schema evaluation limit exceeded: more than", 43));
        }
    }
    forge_schema_set_max_steps(0);
    forge_schema_errors_free(&e1);
    forge_schema_errors_free(&e2);
    cJSON_Delete(many);
    forge_buf_free(&b);
    forge_schema_free(s);
}

int main(void)
{
    RUN(locations_through_refs);
    RUN(all_errors_and_messages);
    RUN(errors_are_ordinary_cjson);
    RUN(remote_refs);
    RUN(compile_errors);
    RUN(drafts_and_formats);
    RUN(ecma_patterns);
    RUN(limits);
    RUN(step_budget);
    RUN(valid_path_does_not_allocate);
    RUN(out_of_memory_is_clean);
    RUN(measured_compile_stops_at_its_ceiling);
    RUN(errors_arena);
    RUN(unique_items_by_enum_table);
    RUN(unique_items_by_hash);
    RUN(pattern_limit_matched_once);
    RUN(many_required_names);
    RUN(many_dependent_names);
    RUN(references_into_large_objects);
    RUN(pattern_properties_count_as_steps);
    RUN(many_enum_strings);
    RUN(property_tables);
    RUN(discriminators);
    RUN(errors_rendered_on_demand);
    RUN(instance_locations_made_at_compile_time);
    RUN(locations_through_references);
    RUN(locations_through_items);
    RUN(error_locations_made_at_compile_time);
    RUN(messages_made_with_the_schema);
    RUN(verdict_walk_agrees);
    RUN(property_names_not_memoised);
    RUN(trail_gives_the_recording_walks_error);
    RUN(bounds_in_messages);
    RUN(walk_predicted_from_recent_checks);
    RUN(all_errors_paths_meet_the_budget_alike);
    RUN(names_compared_by_words);
    return TEST_DONE();
}
