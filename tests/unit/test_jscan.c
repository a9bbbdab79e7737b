/* The in-place scanner of streamed events (data/jscan.h): what it accepts, forge_json_parse
 * accepts with the same values; what it refuses is left to forge_json_parse. */
#include "test.h"
#include "data/jscan.h"
#include "data/json.h"

/* Whole texts: 1 when the scanner accepts the text as one value. */
static const struct {
    const char *text;
    int ok;
} texts[] = {
    {"{}", 1},
    {" {\"a\" : [1, -0.5e+3, true, false, null, \"x\", {}, []]}\r\n", 1},
    {"{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}", 1},
    {"{\"a\":\"raw\x01control\"}", 1},  /* cJSON keeps raw control characters */
    {"{\"a\":1,}", 0},
    {"{\"a\":1 \"b\":2}", 0},
    {"[1,]", 0},
    {"{\"a\":01}", 0},                  /* cJSON reads it; the scanner leaves it to cJSON */
    {"{\"a\":1.}", 0},
    {"{\"a\":-}", 0},
    {"{\"a\":\"\\u0000\"}", 0},         /* cJSON cuts the string there */
    {"{\"a\":\"\\uD800\"}", 0},
    {"{\"a\":\"\\uDC00\\uD800\"}", 0},
    {"{\"a\":\"\\x\"}", 0},
    {"{\"a\":\"\\u12G4\"}", 0},
    {"{\"\\u0061\":1}", 0},             /* a key with escapes: cJSON would decode it */
    {"{\"a\":1} x", 0},
    {"{\"a\":1}\x01", 0},
    {"{\"a\":\"\xff\"}", 0},
    {"{\"a\":\"\xc3\"}", 0},
    {"{\"a\":1", 0},
    {"{\"a\":tru}", 0},
    {"{\"a\":12345678901234567890123456789012345678901}", 0}, /* over 40 characters */
};

TEST(accepts_a_subset_of_forge_json_parse)
{
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct forge_jscan j;
        size_t n = strlen(texts[i].text);
        forge_jscan_init(&j, texts[i].text, n);
        int ok = !forge_jscan_skip(&j) && !forge_jscan_end(&j);
        if (ok != texts[i].ok)
            fprintf(stderr, "text %zu: %s\n", i, texts[i].text);
        CHECK_INT(ok, texts[i].ok);
        if (ok) {
            struct forge_err err;
            cJSON *v = forge_json_parse(texts[i].text, n, "t", &err);
            CHECK(v != NULL);
            cJSON_Delete(v);
        }
    }
}

TEST(walks_an_event)
{
    static const char ev[] = "{\"id\":\"x\",\"choices\":[{\"index\":3,\"delta\":{\"content\":\"caf\\u00e9 \\\"ok\\\"\"},"
                             "\"finish_reason\":null},{\"more\":[1]}],\"usage\":null}";
    struct forge_jscan j;
    struct forge_jstr k, v;
    long idx = -1;
    forge_jscan_init(&j, ev, sizeof ev - 1);
    CHECK_INT(forge_jscan_open(&j, '{'), 0);
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK(forge_jstr_is(&k, "id"));
    CHECK_INT(forge_jscan_skip(&j), 0);
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK(forge_jstr_is(&k, "choices"));
    CHECK_INT(forge_jscan_open(&j, '['), 0);
    CHECK_INT(forge_jscan_item(&j), 1);
    CHECK_INT(forge_jscan_open(&j, '{'), 0);
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK_INT(forge_jscan_int(&j, &idx), 0);
    CHECK_INT(idx, 3);
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK(forge_jstr_is(&k, "delta"));
    CHECK_INT(forge_jscan_open(&j, '{'), 0);
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK_INT(forge_jscan_string(&j, &v), 0);
    CHECK(v.esc);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    CHECK_INT(forge_jstr_append(&v, &b), 0);
    CHECK_STR(b.data, "caf\xc3\xa9 \"ok\"");
    forge_buf_free(&b);
    CHECK_INT(forge_jscan_key(&j, &k), 0); /* end of delta */
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK(forge_jstr_is(&k, "finish_reason"));
    CHECK_INT(forge_jscan_null(&j), 0);
    CHECK_INT(forge_jscan_leave(&j), 0);   /* the rest of choices[0]: nothing */
    CHECK_INT(forge_jscan_leave(&j), 0);   /* the rest of choices: {"more":[1]} */
    CHECK_INT(forge_jscan_key(&j, &k), 1);
    CHECK(forge_jstr_is(&k, "usage"));
    CHECK_INT(forge_jscan_int(&j, &idx), -1); /* null is not an integer: the scanner stays failed */
    CHECK_INT(forge_jscan_end(&j), -1);
}

TEST(nesting)
{
    char t[80];
    for (int depth = 31; depth <= 34; depth++) {
        for (int i = 0; i < depth; i++)
            t[i] = '[', t[2 * depth - 1 - i] = ']';
        struct forge_jscan j;
        forge_jscan_init(&j, t, (size_t)(2 * depth));
        int ok = !forge_jscan_skip(&j) && !forge_jscan_end(&j);
        CHECK_INT(ok, depth <= FORGE_JSCAN_DEPTH);
    }
}

TEST(counts_values_against_the_limit)
{
    static const char t[] = "{\"a\":[1,2,3],\"b\":\"s\"}"; /* 6 values */
    struct forge_jscan j;
    forge_json_set_node_limit(6);
    forge_jscan_init(&j, t, sizeof t - 1);
    CHECK(!forge_jscan_skip(&j) && !forge_jscan_end(&j));
    forge_json_set_node_limit(5);
    forge_jscan_init(&j, t, sizeof t - 1);
    CHECK(!forge_jscan_skip(&j) && forge_jscan_end(&j) == -1);
    struct forge_err err;
    CHECK(forge_json_parse(t, sizeof t - 1, "t", &err) == NULL); /* the limit cJSON's path reports */
    forge_json_set_node_limit(0);
}

TEST(string_tokens)
{
    struct forge_jstr v;
    CHECK_INT(forge_jstr_scan("\"abc\"", 5, &v), 0);
    CHECK_INT((int)v.n, 3);
    CHECK_INT(forge_jstr_scan("\"a\"b\"", 5, &v), -1);  /* a quote before the end */
    CHECK_INT(forge_jstr_scan("\"ab\\\"", 5, &v), -1); /* the last quote is escaped */
    CHECK_INT(forge_jstr_scan("\"\"", 2, &v), 0);
    CHECK_INT((int)v.n, 0);
    /* long strings go through the 16-byte search: a quote and a bad byte beyond the first block */
    CHECK_INT(forge_jstr_scan("\"0123456789abcdef0123456789\"", 28, &v), 0);
    CHECK_INT(forge_jstr_scan("\"0123456789abcdef01234\xff" "6789\"", 28, &v), -1);
}

int main(void)
{
    RUN(accepts_a_subset_of_forge_json_parse);
    RUN(walks_an_event);
    RUN(nesting);
    RUN(counts_values_against_the_limit);
    RUN(string_tokens);
    return TEST_DONE();
}
