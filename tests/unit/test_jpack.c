/* forge_jpack / forge_junpack against printing and parsing: a packed tree reads back as the tree
 * forge_json_parse builds from the tree's cJSON_PrintUnformatted text (types, values bit for bit,
 * valueint, keys, order, prev links), and the packed length of the text is that text's length.
 * Fixed trees, trees of generated numbers and strings, and the trees the form refuses. */
#include "test.h"
#include "base/buf.h"
#include "data/jpack.h"
#include "data/json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "same_tree.h"


static int compared;

/* Packs <v>, checks it reads back as its printed text parses, and that every shorter prefix of
 * the packed bytes is refused. */
static void roundtrip(const cJSON *v)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    size_t len = 0;
    int rc = forge_jpack(v, &b, &len);
    CHECK_INT(rc, 0);
    char *text = cJSON_PrintUnformatted(v);
    CHECK(text != NULL);
    if (rc || !text) {
        cJSON_free(text);
        forge_buf_free(&b);
        return;
    }
    CHECK_INT(len, strlen(text));
    struct forge_err err = {0};
    cJSON *parsed = forge_json_parse(text, strlen(text), "<text>", &err);
    cJSON *unpacked = forge_junpack(b.data, b.len);
    CHECK(parsed != NULL);
    CHECK(unpacked != NULL);
    if (parsed && unpacked) {
        bool same = same_tree(parsed, unpacked);
        CHECK(same);
        if (!same)
            fprintf(stderr, "  differs on: %s\n", text);
        compared++;
    }
    for (size_t n = 0; n < b.len && n < 64; n++) {
        cJSON *cut = forge_junpack(b.data, n);
        CHECK(cut == NULL);
        cJSON_Delete(cut);
    }
    cJSON_Delete(parsed);
    cJSON_Delete(unpacked);
    cJSON_free(text);
    forge_buf_free(&b);
}

static void roundtrip_text(const char *json)
{
    cJSON *v = cJSON_Parse(json);
    CHECK(v != NULL);
    if (v)
        roundtrip(v);
    cJSON_Delete(v);
}

TEST(fixed_trees)
{
    static const char *texts[] = {
        "null", "true", "false", "0", "-0", "1", "-1", "2147483647", "2147483648", "-2147483648",
        "-2147483649", "1e10", "1e15", "1e16", "1e21", "1e300", "-1e-300", "4.9e-324", "0.1",
        "0.30000000000000004", "3.14159265358979", "1234567890123456789", "9007199254740993",
        "0.1e-6", "123.456", "\"\"", "\"plain\"", "\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\\u0001\\u001f\"",
        "\"caf\\u00e9 \\u20ac \\ud83d\\ude00\"", "\"\x7f\"", "[]", "{}", "[[],{}]", "[1,\"a\",null,true]",
        "{\"a\":1,\"a\":2,\"\":\"\"}", "{\"id\":\"case-1\",\"input\":{\"message\":\"weather in City1\"},"
        "\"expect\":{\"toolsCalled\":[\"get_weather\",\"get_forecast\"],\"toolParams\":[{\"tool\":"
        "\"get_weather\",\"paramName\":\"city\",\"assertion\":\"equals\",\"value\":\"City1\"}],"
        "\"responseContains\":[\"City1\"],\"custom\":{\"has_number\":true}}}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        roundtrip_text(texts[i]);
    /* values no text holds: negative zero made in C, a NULL valuestring */
    cJSON *z = cJSON_CreateNumber(-0.0);
    roundtrip(z);
    cJSON_Delete(z);
    cJSON *s = cJSON_CreateString("x");
    cJSON_free(s->valuestring);
    s->valuestring = NULL;
    roundtrip(s);
    cJSON_Delete(s);
}


static double some_number(void)
{
    uint64_t r = test_rand();
    switch (r % 8) {
    case 0: return (double)(int64_t)(test_rand() % 4000000000ull) - 2000000000.0;
    case 1: return (double)(test_rand() % 1000) / 10.0;
    case 2: return (double)(test_rand() % 1000000) / 1000.0 + 0.1 * (double)(test_rand() % 3);
    case 3: {
        double d;
        uint64_t bits = test_rand();
        memcpy(&d, &bits, sizeof d);
        return isfinite(d) ? d : 1.5;
    }
    case 4: return ldexp((double)(test_rand() % 1000003), (int)(test_rand() % 200) - 100);
    case 5: return 1.0 / (double)(test_rand() % 97 + 1);
    case 6: return -(double)(test_rand() % 100000000000000000ull);
    default: return (double)(test_rand() % 10) * 1e15;
    }
}

static void some_string(char *buf, size_t cap)
{
    static const char *pieces[] = {"a", "Z", " ", "\"", "\\", "\n", "\t", "\x01", "\x1f", "/",
                                   "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x7f", "0"};
    size_t n = test_rand() % 12, len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[test_rand() % (sizeof pieces / sizeof pieces[0])];
        if (len + strlen(p) + 1 > cap)
            break;
        strcpy(buf + len, p);
        len += strlen(p);
    }
}

static cJSON *some_tree(int depth)
{
    char s[64];
    switch (test_rand() % (depth > 4 ? 5 : 7)) {
    case 0: return cJSON_CreateNull();
    case 1: return cJSON_CreateBool(test_rand() & 1);
    case 2:
    case 3: return cJSON_CreateNumber(some_number());
    case 4: some_string(s, sizeof s); return cJSON_CreateString(s);
    case 5: {
        cJSON *a = cJSON_CreateArray();
        for (int n = (int)(test_rand() % 5); n > 0; n--)
            cJSON_AddItemToArray(a, some_tree(depth + 1));
        return a;
    }
    default: {
        cJSON *o = cJSON_CreateObject();
        for (int n = (int)(test_rand() % 5); n > 0; n--) {
            some_string(s, sizeof s);
            cJSON_AddItemToObject(o, s, some_tree(depth + 1));
        }
        return o;
    }
    }
}

TEST(generated_trees)
{
    for (int i = 0; i < 3000; i++) {
        cJSON *v = some_tree(0);
        roundtrip(v);
        cJSON_Delete(v);
    }
    for (int i = 0; i < 20000; i++) { /* numbers alone, where printing rounds */
        cJSON *v = cJSON_CreateNumber(some_number());
        roundtrip(v);
        cJSON_Delete(v);
    }
}

/* Trees the packed form would not read back as their text: packing says so and leaves the
 * buffer as it was. */
static void refused(const cJSON *v)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, "head");
    size_t len = 7;
    CHECK_INT(forge_jpack(v, &b, &len), 1);
    CHECK_INT(b.len, 4);
    CHECK_STR(b.data, "head");
    CHECK_INT(len, 7);
    forge_buf_free(&b);
}

TEST(refused_trees)
{
    cJSON *bad = cJSON_CreateString("x\xff");
    refused(bad);
    cJSON_Delete(bad);
    cJSON *badkey = cJSON_CreateObject();
    cJSON_AddNullToObject(badkey, "k\xc3");
    refused(badkey);
    cJSON_Delete(badkey);
    cJSON *deep = cJSON_CreateArray(), *in = deep;
    for (int i = 0; i < 600; i++) {
        cJSON *a = cJSON_CreateArray();
        cJSON_AddItemToArray(in, a);
        in = a;
    }
    refused(deep);
    cJSON_Delete(deep);
    cJSON *inf = cJSON_CreateNumber(INFINITY);
    refused(inf);
    cJSON_Delete(inf);
    cJSON *holder = cJSON_CreateArray(), *item = cJSON_CreateString("shared");
    cJSON_AddItemReferenceToArray(holder, item);
    refused(holder);
    cJSON_Delete(holder);
    cJSON_Delete(item);
    /* more values than the JSON value limit: the text path reports it */
    cJSON *many = cJSON_CreateArray();
    for (int i = 0; i < 10; i++)
        cJSON_AddItemToArray(many, cJSON_CreateNumber(i));
    forge_json_set_node_limit(10);
    refused(many);
    forge_json_set_node_limit(11);
    roundtrip(many);
    forge_json_set_node_limit(0);
    cJSON_Delete(many);
    /* bytes that are no packed tree */
    static const char junk[][6] = {"x", "s\x05\0\0\0", "a\x02\0\0\0", "t t"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        cJSON *v = forge_junpack(junk[i], strlen(junk[i]) ? strlen(junk[i]) : 1);
        CHECK(v == NULL);
        cJSON_Delete(v);
    }
}

/* Bytes that packing never writes are refused, not read: a number that is NaN or infinite (the
 * printer writes those as null; one cast to int would be undefined), and a record cut short. */
TEST(foreign_bytes)
{
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char rec[1 + sizeof(double)];
        rec[0] = 'd';
        memcpy(rec + 1, &bad[i], sizeof(double));
        CHECK(forge_junpack(rec, sizeof rec) == NULL);
    }
    char ok[1 + sizeof(double)];
    double d = 2.5;
    ok[0] = 'd';
    memcpy(ok + 1, &d, sizeof d);
    cJSON *v = forge_junpack(ok, sizeof ok);
    CHECK(v && cJSON_IsNumber(v) && v->valuedouble == 2.5 && v->valueint == 2);
    cJSON_Delete(v);
    CHECK(forge_junpack(ok, sizeof ok - 1) == NULL);
}

int main(void)
{
    RUN(fixed_trees);
    RUN(generated_trees);
    RUN(refused_trees);
    RUN(foreign_bytes);
    CHECK(compared > 20000);
    return TEST_DONE();
}
