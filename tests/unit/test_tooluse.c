/* score/tooluse beyond the conformance vectors: JavaScript quirks, Unicode lower case, and the
 * deep detectors (on under deep only). */
#include "test.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "score/tooluse.h"
#include "deep_check.h"

#include <stdint.h>

static cJSON *J(const char *s)
{
    struct forge_err err = {0};
    cJSON *v = forge_json_parse(s, strlen(s), "<test>", &err);
    if (!v)
        fprintf(stderr, "bad test JSON: %s\n", err.msg);
    return v;
}

/* "type/severity,type/severity" of an issues array */
static char *types(const cJSON *issues)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "");
    for (const cJSON *i = issues ? issues->child : NULL; i; i = i->next)
        forge_buf_addf(&b, "%s%s/%s", i == issues->child ? "" : ",", forge_json_str(i, "type"),
                       forge_json_str(i, "severity"));
    return forge_buf_take(&b);
}

static void check_lower(const char *in, const char *want)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    CHECK_INT(forge_tooluse_lower(&b, in, strlen(in)), 0);
    CHECK_STR(b.data ? b.data : "", want);
    forge_buf_free(&b);
}

TEST(lower_case)
{
    check_lower("Hello WORLD", "hello world");
    check_lower("ÀÉÎÕÜ Ärger", "àéîõü ärger");
    check_lower("\xc4\xb0stanbul", "i\xcc\x87stanbul"); /* İ -> i + U+0307, as JavaScript */
    check_lower("ΟΔΟΣ ΣΑΣ", "οδος σας");               /* final sigma */
    check_lower("Σ", "σ");
    check_lower("\xff\xfe" "ABC", "\xff\xfe" "abc");       /* invalid bytes kept */
    /* every ASCII byte, at every offset of the eight-byte steps, runs cut by a non-ASCII one */
    char in[300], want[300];
    for (int shift = 0; shift < 9; shift++) {
        size_t n = 0;
        for (int i = 0; i < shift; i++)
            in[n] = want[n] = 'q', n++;
        for (int c = 1; c < 128; c++) {
            in[n] = (char)c;
            want[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            if (c == 77 + shift) {
                memcpy(in + n, "\xc3\x89", 2); /* É */
                memcpy(want + n, "\xc3\xa9", 2);
                n += 2;
            }
        }
        in[n] = want[n] = '\0';
        check_lower(in, want);
    }
}

static cJSON *validate_call(const char *call, const char *schema, const char *opts)
{
    struct forge_err err = {0};
    struct forge_tooluse_opts o;
    cJSON *c = J(call), *s = schema ? J(schema) : NULL, *op = opts ? J(opts) : NULL;
    forge_tooluse_opts_json(op, &o);
    cJSON *r = forge_tooluse_validate_tool_call(c, s, &o, &err);
    cJSON_Delete(c);
    cJSON_Delete(s);
    cJSON_Delete(op);
    return r;
}

/* The arguments and schema of <n> members: p0..p<n-1> strings (p7 a number: wrongly typed),
 * "p5" declared twice (a string first, then a number: the first wins), and `required` naming p1,
 * "missing", "toString" (inherited: present) and the last. */
static void big_call(struct forge_buf *call, struct forge_buf *schema, int n)
{
    forge_buf_init(call, 0);
    forge_buf_init(schema, 0);
    forge_buf_adds(call, "{\"name\":\"t\",\"result\":{\"x\":1},\"arguments\":{");
    forge_buf_adds(schema, "{\"parameters\":{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < n; i++) {
        forge_buf_addf(call, "%s\"p%d\":%s", i ? "," : "", i, i == 7 ? "7" : "\"x\"");
        forge_buf_addf(schema, "%s\"p%d\":{\"type\":\"string\"}", i ? "," : "", i);
    }
    forge_buf_addf(schema, ",\"p5\":{\"type\":\"number\"}},\"required\":[\"p1\",\"missing\",\"toString\",\"p%d\"]}}",
                   n - 1);
    forge_buf_adds(call, "}}");
}

TEST(large_objects_by_index)
{
    /* objects past a few members are looked up through a sorted index: the same issues as a
     * scan gives, for a small object (8 members) and a large one (40; 100,000 would take minutes
     * scanned) */
    for (int k = 0; k < 3; k++) {
        int n = k == 0 ? 8 : k == 1 ? 40 : 100000;
        struct forge_buf call, schema;
        big_call(&call, &schema, n);
        cJSON *r = validate_call(call.data, schema.data, NULL);
        char *t = types(cJSON_GetObjectItem(r, "issues"));
        CHECK_STR(t, "missing_required_param/high,type_mismatch/high");
        CHECK_STR(forge_json_str(forge_json_at(r, "issues[0].details"), "parameter"), "missing");
        CHECK_STR(forge_json_str(forge_json_at(r, "issues[1].details"), "parameter"), "p7");
        forge_free(t);
        cJSON_Delete(r);
        struct forge_err err = {0};
        cJSON *c = J(call.data), *s = J(schema.data);
        r = forge_tooluse_validate_schema(c, cJSON_GetObjectItem(s, "parameters") ? s : NULL, &err);
        t = types(cJSON_GetObjectItem(r, "issues"));
        CHECK_STR(t, "required_field_missing/high,type_error/high");
        CHECK_STR(forge_json_str(forge_json_at(r, "issues[0]"), "path"), "missing");
        CHECK_STR(forge_json_str(forge_json_at(r, "issues[1]"), "path"), "p7");
        forge_free(t);
        cJSON_Delete(r);
        cJSON_Delete(c);
        cJSON_Delete(s);
        forge_buf_free(&call);
        forge_buf_free(&schema);
    }
}

/* A random name for the index test: few distinct ones (duplicates are common), array indices
 * (ordered first by Object.entries), inherited names and an empty one. */
static const char *rand_name(unsigned *seed, char *buf)
{
    static const char *const fixed[] = {"toString", "constructor", "__proto__", "", "0", "1", "10",
                                        "length", "a", "ab", "b"};
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = (*seed >> 8) % 40;
    if (r < sizeof fixed / sizeof *fixed)
        return fixed[r];
    snprintf(buf, 16, "k%u", r);
    return buf;
}

TEST(index_agrees_with_scan)
{
    /* random arguments, properties and required names (duplicates, indices, inherited names):
     * every check gives the same result looked up through the index as scanned */
    static const char *const types[] = {"string", "number", "boolean", "object", "array", "integer"};
    static const char *const values[] = {"\"x\"", "1", "true", "{}", "[]", "null", "1.5"};
    unsigned seed = 7;
    int differ = 0, issues = 0;
    for (int round = 0; round < 300; round++) {
        struct forge_buf call, schema;
        forge_buf_init(&call, 0);
        forge_buf_init(&schema, 0);
        char nb[16];
        seed = seed * 1103515245u + 12345u;
        int na = 10 + (int)((seed >> 8) % 50), np = 10 + (int)((seed >> 12) % 50), nr = (int)((seed >> 16) % 12);
        forge_buf_adds(&call, "{\"name\":\"t\",\"result\":{\"x\":1},\"arguments\":{");
        for (int i = 0; i < na; i++) {
            const char *k = rand_name(&seed, nb);
            forge_buf_addf(&call, "%s\"%s\":%s", i ? "," : "", k, values[(seed >> 4) % 7]);
        }
        forge_buf_adds(&call, "}}");
        forge_buf_adds(&schema, "{\"parameters\":{\"type\":\"object\",\"properties\":{");
        for (int i = 0; i < np; i++) {
            const char *k = rand_name(&seed, nb);
            forge_buf_addf(&schema, "%s\"%s\":{\"type\":\"%s\"}", i ? "," : "", k, types[(seed >> 4) % 6]);
        }
        forge_buf_adds(&schema, "},\"required\":[");
        for (int i = 0; i < nr; i++) {
            const char *k = rand_name(&seed, nb);
            forge_buf_addf(&schema, "%s\"%s\"", i ? "," : "", k);
        }
        forge_buf_adds(&schema, "]}}");
        cJSON *c = J(call.data), *s = J(schema.data);
        CHECK(c && s);
        char *out[2][2];
        for (int scan = 0; scan < 2; scan++) {
            forge_tooluse_test_members_scan(scan ? 1 << 30 : 0);
            struct forge_err err = {0};
            struct forge_tooluse_opts o;
            forge_tooluse_opts_json(NULL, &o);
            cJSON *r1 = forge_tooluse_validate_tool_call(c, s, &o, &err);
            cJSON *r2 = forge_tooluse_validate_schema(c, s, &err);
            issues += cJSON_GetArraySize(cJSON_GetObjectItem(r1, "issues")) +
                      cJSON_GetArraySize(cJSON_GetObjectItem(r2, "issues"));
            out[scan][0] = forge_json_print(r1, 0);
            out[scan][1] = forge_json_print(r2, 0);
            cJSON_Delete(r1);
            cJSON_Delete(r2);
        }
        forge_tooluse_test_members_scan(-1);
        for (int k = 0; k < 2; k++) {
            if (strcmp(out[0][k], out[1][k]) && differ++ < 3)
                fprintf(stderr, "differ:\n%s\n%s\n%s\n%s\n", call.data, schema.data, out[0][k], out[1][k]);
            forge_free(out[0][k]);
            forge_free(out[1][k]);
        }
        cJSON_Delete(c);
        cJSON_Delete(s);
        forge_buf_free(&call);
        forge_buf_free(&schema);
    }
    CHECK_INT(differ, 0);
    CHECK(issues > 1000); /* (what the rounds found to report, both ways: 300 rounds of many) */
}

TEST(js_quirks)
{
    /* Object.entries order: array-index keys first, ascending */
    cJSON *r = validate_call(
        "{\"name\":\"t\",\"arguments\":{\"b\":1,\"2\":1,\"1\":1},\"result\":{\"x\":1}}",
        "{\"parameters\":{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"},"
        "\"1\":{\"type\":\"string\"},\"2\":{\"type\":\"string\"}}}}", NULL);
    const cJSON *is = cJSON_GetObjectItem(r, "issues");
    CHECK_STR(forge_json_str(forge_json_at(is, "[0].details"), "parameter"), "1");
    CHECK_STR(forge_json_str(forge_json_at(is, "[1].details"), "parameter"), "2");
    CHECK_STR(forge_json_str(forge_json_at(is, "[2].details"), "parameter"), "b");
    cJSON_Delete(r);
    /* typeMap["constructor"] is inherited (truthy): never equal to a typeof */
    r = validate_call("{\"name\":\"t\",\"arguments\":{\"a\":\"x\"},\"result\":{\"x\":1}}",
                      "{\"parameters\":{\"properties\":{\"a\":{\"type\":\"constructor\"}}}}", NULL);
    CHECK_STR(forge_json_str(forge_json_at(r, "issues[0]"), "description"),
              "Parameter \"a\" expected constructor, got string");
    cJSON_Delete(r);
    /* `"toString" in {}` is true: no missing_required_param; "integer" is not checked */
    r = validate_call("{\"name\":\"t\",\"arguments\":{\"n\":\"x\"},\"result\":{\"x\":1}}",
                      "{\"parameters\":{\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"toString\"]}}", NULL);
    char *t = types(cJSON_GetObjectItem(r, "issues"));
    CHECK_STR(t, "");
    forge_free(t);
    cJSON_Delete(r);
    /* a string enum is searched as a substring (String.prototype.includes) */
    r = validate_call("{\"name\":\"t\",\"arguments\":{\"s\":\"bc\",\"u\":\"zz\"},\"result\":{\"x\":1}}",
                      "{\"parameters\":{\"properties\":{\"s\":{\"enum\":\"abcd\"},\"u\":{\"enum\":\"abcd\"}}}}", NULL);
    t = types(cJSON_GetObjectItem(r, "issues"));
    CHECK_STR(t, "invalid_arguments/medium");
    forge_free(t);
    cJSON_Delete(r);
    /* falsy results: 0 and "" are missing; true has no keys (empty_result) */
    struct forge_verify_opts vo;
    forge_verify_opts_init(&vo);
    struct forge_err err = {0};
    cJSON *turn = J("{\"turn_id\":1,\"role\":\"agent\",\"content\":\"ok\"}");
    cJSON *c1 = J("{\"name\":\"t\",\"result\":0}"), *c2 = J("{\"name\":\"t\",\"result\":true}");
    r = forge_tooluse_verify_result(c1, turn, NULL, &vo, &err);
    t = types(cJSON_GetObjectItem(r, "issues"));
    CHECK_STR(t, "missing_result/medium");
    forge_free(t);
    cJSON_Delete(r);
    r = forge_tooluse_verify_result(c2, turn, NULL, &vo, &err);
    t = types(cJSON_GetObjectItem(r, "issues"));
    CHECK_STR(t, "empty_result/low,unused_result/medium");
    forge_free(t);
    cJSON_Delete(r);
    cJSON_Delete(c1);
    cJSON_Delete(c2);
    cJSON_Delete(turn);
}

/* Validation issues of the one agent turn of <traj> (deep on or off), as "type/severity,...". */
static char *deep_validation(const char *traj, const char *schemas, bool deep)
{
    struct forge_err err = {0};
    struct forge_tooluse_opts o;
    forge_tooluse_opts_init(&o);
    o.deep = deep;
    o.allow_unknown_tools = true;
    cJSON *t = J(traj), *s = schemas ? J(schemas) : NULL;
    struct forge_tooluse_schemas *cs = NULL;
    if (deep && s) {
        cs = forge_tooluse_schemas_compile(s, &err);
        o.schema_check = forge_tooluse_schemas_check;
        o.schema_ctx = cs;
    }
    cJSON *r = forge_tooluse_validate_trajectory(t, s, &o, &err);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "");
    for (const cJSON *v = r ? r->child : NULL; v; v = v->next) {
        char *x = types(cJSON_GetObjectItem(v, "issues"));
        forge_buf_addf(&b, "%s[%s]", v == r->child ? "" : " ", x);
        forge_free(x);
    }
    forge_tooluse_schemas_free(cs);
    cJSON_Delete(r);
    cJSON_Delete(t);
    cJSON_Delete(s);
    return forge_buf_take(&b);
}

#define U(c) "{\"turn_id\":" #c ",\"role\":\"user\",\"content\":\"q\"}"

TEST(deep_validation_detectors)
{
    /* tool_not_found from the recorded error; tool_misuse on a repeated identical call */
    const char *t1 = "{\"turns\":[" U(1) ",{\"turn_id\":1,\"role\":\"agent\",\"content\":\"Sunny.\",\"tool_calls\":["
        "{\"name\":\"w\",\"arguments\":{\"c\":\"Lima\"},\"result\":{\"s\":\"sunny\"}},"
        "{\"name\":\"w\",\"arguments\":{\"c\":\"Lima\"},\"result\":{\"s\":\"sunny\"}},"
        "{\"name\":\"mail\",\"arguments\":{},\"error\":\"Unknown tool: mail\"}]}]}";
    char *got = deep_validation(t1, NULL, false);
    CHECK_STR(got, "[missing_result/medium]");
    forge_free(got);
    got = deep_validation(t1, NULL, true);
    CHECK_STR(got, "[tool_misuse/medium,missing_result/medium,tool_not_found/high]");
    forge_free(got);
    /* result_unused (a >3-char result string nowhere in this or a later turn) and
     * hallucinated_result (a number in the answer that nothing before supports) */
    const char *t2 = "{\"turns\":[" U(1) ",{\"turn_id\":1,\"role\":\"agent\",\"content\":\"It is 25 degrees, 1,200 m up.\",\"tool_calls\":["
        "{\"name\":\"w\",\"arguments\":{\"alt\":1200},\"result\":{\"temp\":19,\"note\":\"windy\"}}]}," U(2) "]}";
    got = deep_validation(t2, NULL, false);
    CHECK_STR(got, "[]");
    forge_free(got);
    got = deep_validation(t2, NULL, true);
    CHECK_STR(got, "[result_unused/low,hallucinated_result/high]");
    forge_free(got);
    /* schema_violation against the full JSON Schema */
    const char *t3 = "{\"turns\":[" U(1) ",{\"turn_id\":1,\"role\":\"agent\",\"content\":\"done\",\"tool_calls\":["
        "{\"name\":\"w\",\"arguments\":{\"c\":\"\"},\"result\":{\"done\":\"yes\"}}]}]}";
    const char *sch = "{\"w\":{\"name\":\"w\",\"parameters\":{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"string\",\"minLength\":1}}}}}";
    got = deep_validation(t3, sch, false);
    CHECK_STR(got, "[]");
    forge_free(got);
    got = deep_validation(t3, sch, true);
    CHECK_STR(got, "[schema_violation/high]");
    forge_free(got);
}

static char *deep_result(const char *call, const char *content, bool deep)
{
    struct forge_err err = {0};
    struct forge_verify_opts o;
    forge_verify_opts_init(&o);
    o.deep = deep;
    cJSON *c = J(call), *turn = cJSON_CreateObject();
    cJSON_AddNumberToObject(turn, "turn_id", 1);
    cJSON_AddStringToObject(turn, "role", "agent");
    cJSON_AddStringToObject(turn, "content", content);
    cJSON *r = forge_tooluse_verify_result(c, turn, NULL, &o, &err);
    char *t = types(cJSON_GetObjectItem(r, "issues"));
    cJSON_Delete(r);
    cJSON_Delete(c);
    cJSON_Delete(turn);
    return t;
}

TEST(deep_result_detectors)
{
    const char *partial = "{\"name\":\"w\",\"result\":{\"condition\":\"sunny\",\"wind\":\"strong gusts\",\"pressure\":\"1013 hPa\"}}";
    char *got = deep_result(partial, "It is sunny.", false);
    CHECK_STR(got, "");
    forge_free(got);
    got = deep_result(partial, "It is sunny.", true);
    CHECK_STR(got, "incomplete_integration/low");
    forge_free(got);
    got = deep_result(partial, "It is sunny with strong gusts.", true);
    CHECK_STR(got, "");
    forge_free(got);
    const char *broken = "{\"name\":\"w\",\"result\":\"{\\\"status\\\": \\\"queued\\\", \\\"id\\\": \"}";
    /* upstream reads a string result character by character: never "used" */
    got = deep_result(broken, "Queued.", false);
    CHECK_STR(got, "unused_result/medium");
    forge_free(got);
    got = deep_result(broken, "Queued.", true);
    CHECK_STR(got, "unused_result/medium,malformed_result/medium");
    forge_free(got);
    got = deep_result("{\"name\":\"w\",\"result\":\"[1,2]\"}", "Queued.", true);
    CHECK_STR(got, "unused_result/medium");
    forge_free(got);
}

TEST(contradiction_rules_are_separate)
{
    /* "there" holds rule 2's "here"; "sent" is rule 1's word: no contradiction (a scan that
     * mixed the two rules once reported one) */
    char *got = deep_result("{\"name\":\"e\",\"result\":{\"status\":\"sent\"}}",
                            "I sent it. Go there.", false);
    CHECK_STR(got, "");
    forge_free(got);
    got = deep_result("{\"name\":\"e\",\"result\":{\"status\":\"sent\"}}",
                      "Sorry, it failed.", false);
    CHECK_STR(got, "unused_result/medium,contradicts_response/high");
    forge_free(got);
    got = deep_result("{\"name\":\"e\",\"result\":{\"note\":\"not\\nfound\"}}",
                      "Here.", false); /* JSON.stringify writes \\n: two characters between */
    CHECK_STR(got, "unused_result/medium");
    forge_free(got);
    got = deep_result("{\"name\":\"e\",\"result\":{\"note\":\"\\not found\"}}",
                      "Here.", false); /* "\\n" + "ot found" reads "not found" */
    CHECK_STR(got, "unused_result/medium,contradicts_response/high");
    forge_free(got);
}

TEST(signed_numbers_are_grounded)
{
    const char *t = "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"q\"},{\"turn_id\":1,\"role\":\"agent\","
        "\"content\":\"It is -4.9 degrees.\",\"tool_calls\":[{\"name\":\"w\",\"arguments\":{},\"result\":{\"temp\":-4.9}}]}]}";
    char *got = deep_validation(t, NULL, true);
    CHECK_STR(got, "[]");
    forge_free(got);
}

/* Every allocation failure (cJSON's included) is reported as ENOMEM or survived, never a crash
 * or a leak (run under the sanitizers). */
TEST(allocation_failures)
{
    cJSON_Hooks hooks = {forge_malloc, forge_free};
    const char *traj_s = "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"Mail Ana the 12 results\"},"
        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"Sorry, I sent 14 of them. Here they are.\",\"tool_calls\":["
        "{\"name\":\"send\",\"arguments\":{\"to\":5,\"tags\":[1]},\"result\":{\"status\":\"sent\",\"d\":\"12/25/2024\",\"n\":0}},"
        "{\"name\":\"send\",\"arguments\":{\"to\":5,\"tags\":[1]},\"result\":\"{broken\"},"
        "{\"name\":\"\",\"arguments\":{}},{\"name\":\"old\",\"error\":\"unknown tool\"}]},"
        "{\"turn_id\":2,\"role\":\"user\",\"content\":\"thanks\"}]}";
    const char *schemas_s = "{\"send\":{\"name\":\"send\",\"parameters\":{\"type\":\"object\",\"properties\":"
        "{\"to\":{\"type\":\"string\",\"format\":\"email\"},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
        "\"required\":[\"to\",\"cc\"]}},\"old\":{\"name\":\"old\",\"deprecated\":true,\"parameters\":{}}}";
    cJSON *traj = J(traj_s), *schemas = J(schemas_s);
    cJSON_InitHooks(&hooks);
    struct forge_tooluse_opts vo;
    struct forge_verify_opts ro;
    forge_tooluse_opts_init(&vo);
    forge_verify_opts_init(&ro);
    vo.deep = ro.deep = true;
    int ok = 0, failed = 0;
    for (long n = 1; n < 20000; n++) {
        struct forge_err err = {0};
        forge_alloc_fail_at(n);
        cJSON *r = forge_tooluse_check(traj, schemas, &vo, &ro, &err);
        cJSON *v = forge_tooluse_validate_schema(forge_json_at(traj, "turns[1].tool_calls[0]"),
                                                 cJSON_GetObjectItem(schemas, "send"), &err);
        long used = forge_alloc_fail_at(0);
        if (r && v)
            ok++;
        else
            failed++;
        cJSON_Delete(r);
        cJSON_Delete(v);
        if (used < n) /* the run finished before the n-th allocation: all paths tried */
            break;
    }
    cJSON_InitHooks(NULL);
    CHECK(failed > 50);
    CHECK(ok >= 1);
    cJSON_Delete(traj);
    cJSON_Delete(schemas);
}

static unsigned rnd(unsigned n)
{
    return (unsigned)(test_rand() % n);
}

/* Appends a random turn id: numbers (repeated, fractional), null, booleans, strings (some
 * that read as numbers), objects and arrays, or none. */
static void rand_turn_id(struct forge_buf *b, int i, int kinds)
{
    static const char *const any[] = {"null", "true", "false", "2.5", "\"5\"", "\"a\"", "\"b\"",
                                      "{\"o\":1}", "[1]", "-1", "0"};
    unsigned r = rnd(10);
    if (r == 0)
        return; /* no turn_id */
    forge_buf_adds(b, "\"turn_id\":");
    if (kinds == 0 || (kinds == 2 && r < 5))
        forge_buf_addf(b, "%d,", r < 7 ? i : (int)rnd(12));
    else if (kinds == 1 || r < 7)
        forge_buf_addf(b, "\"t%03u\",", r < 7 ? (unsigned)i : rnd(30));
    else
        forge_buf_addf(b, "%s,", any[rnd(sizeof any / sizeof *any)]);
}

/* Appends a random word or number, as an answer or a result might hold them. */
static void rand_word(struct forge_buf *b)
{
    static const char *const nums[] = {"12", "345", "4.9", "1,234", "3.50", "07", "99", "100",
                                       "12.0", "0", "2,500.75", "-4.9"};
    switch (rnd(5)) {
    case 0: forge_buf_addf(b, "alpha%u", rnd(25)); break;
    case 1: forge_buf_addf(b, "x%s", nums[rnd(12)]); break;
    case 2: forge_buf_addf(b, "%skg", nums[rnd(12)]); break;
    default: forge_buf_adds(b, nums[rnd(12)]); break;
    }
}

TEST(later_turns_and_numbers_agree_with_the_definitions)
{
    /* random trajectories (ids of every kind, repeated and missing; answers and results with
     * words and numbers; calls that repeat, arguments in either member order or missing):
     * every check and score the same whether "a later turn contains", "an earlier turn holds
     * the number" and "an earlier call is its twin" are answered by the ordered texts, the
     * table of first turns and the calls by hash, or turn by turn and call by call */
    int differ = 0, issues = 0, misuses = 0;
    for (int round = 0; round < 300; round++) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        int n = 1 + (int)rnd(25), kinds = (int)rnd(3);
        forge_buf_adds(&b, "{\"trajectory_id\":\"r\",\"turns\":[");
        for (int i = 0; i < n; i++) {
            bool agent = rnd(3) != 0;
            forge_buf_addf(&b, "%s{", i ? "," : "");
            rand_turn_id(&b, i, kinds);
            forge_buf_addf(&b, "\"role\":\"%s\",\"content\":\"", agent ? "agent" : "user");
            for (int w = (int)rnd(8); w > 0; w--) {
                rand_word(&b);
                forge_buf_addc(&b, ' ');
            }
            forge_buf_adds(&b, "\"");
            for (int nc = agent && rnd(5) ? 1 + (int)rnd(3) : 0, c = 0; c < nc; c++) {
                /* arguments that repeat (in either member order, or missing) for tool_misuse */
                int k = (int)rnd(4), form = (int)rnd(4);
                forge_buf_addf(&b, "%s{\"id\":\"c%d\",\"name\":\"%s\"", c ? "," : ",\"tool_calls\":[", c,
                               rnd(3) ? "lookup" : "find");
                if (form == 0)
                    forge_buf_addf(&b, ",\"arguments\":{\"k\":%d,\"q\":\"x%d\"}", k, k % 2);
                else if (form == 1)
                    forge_buf_addf(&b, ",\"arguments\":{\"q\":\"x%d\",\"k\":%d}", k % 2, k);
                else if (form == 2)
                    forge_buf_addf(&b, ",\"arguments\":{\"k\":%d,\"q\":\"", (int)rnd(200) - 50);
                if (form == 2) {
                    rand_word(&b);
                    forge_buf_adds(&b, "\"}");
                }
                forge_buf_adds(&b, ",\"result\":");
                switch (rnd(4)) {
                case 0: forge_buf_adds(&b, "null"); break;
                case 1: forge_buf_addf(&b, "%u", rnd(400)); break;
                default:
                    forge_buf_addf(&b, "{\"a\":\"alpha%u\",\"n\":%d,\"b\":[\"", rnd(25), (int)rnd(400) - 5);
                    rand_word(&b);
                    forge_buf_adds(&b, "\",\"ALPHA");
                    forge_buf_addf(&b, "%u\"]}", rnd(25));
                }
                forge_buf_adds(&b, ",\"round\":1}");
                if (c == nc - 1)
                    forge_buf_adds(&b, "]");
            }
            forge_buf_adds(&b, "}");
        }
        forge_buf_adds(&b, "]}");
        cJSON *traj = J(b.data);
        CHECK(traj != NULL);
        char *out[2];
        for (int scan = 0; scan < 2; scan++) {
            cJSON *r = deep_check(traj, scan);
            CHECK(r != NULL);
            issues += cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "summary"), "issues"));
            out[scan] = forge_json_print(r, 0);
            for (const char *m = out[scan]; (m = strstr(m, "\"tool_misuse\"")); m++)
                misuses++;
            cJSON_Delete(r);
        }
        /* and each turn alone, without its trajectory (tool_misuse within the turn) */
        for (const cJSON *tu = cJSON_GetObjectItem(traj, "turns")->child; tu; tu = tu->next) {
            char *one[2];
            for (int scan = 0; scan < 2; scan++) {
                cJSON *r = deep_check_turn(tu, scan);
                one[scan] = forge_json_print(r, 0);
                for (const char *m = one[scan]; m && (m = strstr(m, "\"tool_misuse\"")); m++)
                    misuses++;
                cJSON_Delete(r);
            }
            CHECK(one[0] && one[1] && !strcmp(one[0], one[1]));
            forge_free(one[0]);
            forge_free(one[1]);
        }
        if (strcmp(out[0], out[1]) && differ++ < 3)
            fprintf(stderr, "differ:\n%s\n%s\n%s\n", b.data, out[0], out[1]);
        forge_free(out[0]);
        forge_free(out[1]);
        cJSON_Delete(traj);
        forge_buf_free(&b);
    }
    CHECK_INT(differ, 0);
    CHECK(issues > 500); /* the detectors fire */
    CHECK(misuses > 200);
}

TEST(tool_schemas_by_index_agree_with_scan)
{
    /* past 16 calls a trajectory's tool schemas are looked up through a sorted index of the
     * map (a repeated name: its first schema; unknown names: none), as a scan finds them */
    struct forge_buf b, m;
    forge_buf_init(&b, 0);
    forge_buf_init(&m, 0);
    forge_buf_adds(&m, "{");
    for (int i = 0; i < 40; i++)
        forge_buf_addf(&m, "%s\"t%d\":{\"name\":\"t%d\",\"parameters\":{\"type\":\"object\",\"properties\":"
                           "{\"q\":{\"type\":\"%s\"}},\"required\":[\"q\"]}}", i ? "," : "", i, i,
                       i % 3 ? "string" : "number");
    forge_buf_adds(&m, ",\"t5\":{\"name\":\"t5\",\"parameters\":{\"type\":\"object\"}}}");
    forge_buf_adds(&b, "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"go\"},"
                       "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"done\",\"tool_calls\":[");
    for (int k = 0; k < 60; k++)
        forge_buf_addf(&b, "%s{\"id\":\"c%d\",\"name\":\"t%u\",\"arguments\":{\"q\":%s},\"result\":{\"v\":%d}}",
                       k ? "," : "", k, rnd(46), rnd(2) ? "\"x\"" : "7", k);
    forge_buf_adds(&b, "]}]}");
    cJSON *traj = J(b.data), *schemas = J(m.data);
    char *out[2];
    for (int scan = 0; scan < 2; scan++) {
        forge_tooluse_test_members_scan(scan ? 1 << 30 : -1);
        struct forge_err err = {0};
        struct forge_tooluse_opts vo;
        struct forge_verify_opts ro;
        forge_tooluse_opts_json(NULL, &vo);
        forge_verify_opts_json(NULL, &ro);
        cJSON *r = forge_tooluse_check(traj, schemas, &vo, &ro, &err);
        out[scan] = forge_json_print(r, 0);
        cJSON_Delete(r);
    }
    forge_tooluse_test_members_scan(-1);
    CHECK(out[0] && out[1] && !strcmp(out[0], out[1]));
    CHECK(strstr(out[0], "unknown_tool") && strstr(out[0], "type_mismatch"));
    forge_free(out[0]);
    forge_free(out[1]);
    cJSON_Delete(traj);
    cJSON_Delete(schemas);
    forge_buf_free(&b);
    forge_buf_free(&m);
}

int main(void)
{
    RUN(lower_case);
    RUN(js_quirks);
    RUN(large_objects_by_index);
    RUN(index_agrees_with_scan);
    RUN(deep_validation_detectors);
    RUN(deep_result_detectors);
    RUN(contradiction_rules_are_separate);
    RUN(signed_numbers_are_grounded);
    RUN(later_turns_and_numbers_agree_with_the_definitions);
    RUN(tool_schemas_by_index_agree_with_scan);
    RUN(allocation_failures);
    return TEST_DONE();
}
