/* Unit tests for data/json. */
#include "test.h"
#include "data/json.h"
#include "base/buf.h"
#include "data/utf8.h"
#include "base/alloc.h"

#include <stdlib.h>

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
    /* nesting past cJSON's limit says so (strings with brackets and escapes do not count) */
    char deep[4200];
    size_t n = 0;
    n += (size_t)snprintf(deep + n, sizeof deep - n, "{\"s\": \"[[{\\\"\", \"a\":\n");
    for (int i = 1; i <= 1000; i++) /* arrays and objects in turn: the last is level 1001 */
        n += (size_t)snprintf(deep + n, sizeof deep - n, "%s", i % 2 ? "[" : "{\"k\":");
    v = forge_json_parse(deep, n, "d.json", &err);
    CHECK(v == NULL);
    CHECK_INT(err.code, FORGE_EINVAL);
    CHECK_STR(err.msg, "d.json:2:2996: JSON nested more than 1000 arrays and objects deep (the JSON "
                       "reader's fixed limit)");
    /* at the limit: an ordinary error */
    n = 0;
    for (int i = 0; i < 999; i++)
        deep[n++] = '[';
    deep[n++] = 'x';
    v = forge_json_parse(deep, n, "e.json", &err);
    CHECK(v == NULL);
    CHECK_INT(err.code, FORGE_EINVAL);
    CHECK_STR(err.msg, "e.json:1:1000: invalid JSON near 'x'");
}

/* Every byte in a string, as JSON.stringify escapes it (invalid UTF-8 bytes as U+FFFD). */
TEST(strings_escape_every_byte)
{
    for (int c = 1; c < 256; c++) {
        char in[8] = {'a', (char)c, 'b', 0}, want[16];
        if (c == '"' || c == '\\')
            snprintf(want, sizeof want, "\"a\\%cb\"", c);
        else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
            snprintf(want, sizeof want, "\"a\\%cb\"", c == '\b' ? 'b' : c == '\f' ? 'f' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20)
            snprintf(want, sizeof want, "\"a\\u%04xb\"", c);
        else if (c >= 0x80)
            snprintf(want, sizeof want, "\"a\xef\xbf\xbd" "b\"");
        else
            snprintf(want, sizeof want, "\"a%cb\"", c);
        cJSON *v = cJSON_CreateString(in);
        char *s = forge_json_print(v, 0);
        CHECK_STR(s, want);
        forge_free(s);
        cJSON_Delete(v);
    }
    cJSON *v = cJSON_CreateString("caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82");
    char *s = forge_json_print(v, 0);
    CHECK_STR(s, "\"caf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd\xef\xbf\xbd\"");
    forge_free(s);
    cJSON_Delete(v);
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

/* Sorted printing, on the stack for up to 16 members and by qsort past them: members by name,
 * those of one name in their order, nested objects sorted too, every kind of value as it
 * prints unsorted; a node of no kind prints as null. */
TEST(print_sorted_small_and_large_objects)
{
    struct forge_err err = {0};
    const char *text = "{\"m\":1,\"b\":true,\"m\":2,\"a\":{\"z\":null,\"y\":false},\"m\":3,\"c\":\"s\"}";
    cJSON *v = forge_json_parse(text, strlen(text), "t", &err);
    CHECK(v != NULL);
    char *s = forge_json_print(v, FORGE_JSON_SORTED);
    CHECK_STR(s, "{\"a\":{\"y\":false,\"z\":null},\"b\":true,\"c\":\"s\",\"m\":1,\"m\":2,\"m\":3}");
    forge_free(s);
    cJSON_Delete(v);
    /* 40 members, names in reverse order with a repeated name among them */
    cJSON *o = cJSON_CreateObject();
    char name[16], want[1024] = "{";
    for (int i = 39; i >= 0; i--) {
        snprintf(name, sizeof name, "k%02d", i);
        cJSON_AddNumberToObject(o, name, i);
        if (i == 20)
            cJSON_AddNumberToObject(o, "k20", 100);
    }
    for (int i = 0; i < 40; i++) {
        char part[32];
        snprintf(part, sizeof part, "%s\"k%02d\":%d", i ? "," : "", i, i);
        strcat(want, part);
        if (i == 20)
            strcat(want, ",\"k20\":100");
    }
    strcat(want, "}");
    s = forge_json_print(o, FORGE_JSON_SORTED);
    CHECK_STR(s, want);
    forge_free(s);
    cJSON *bare = cJSON_CreateNull();
    bare->type = cJSON_Invalid;
    cJSON_AddItemToObject(o, "k99", bare);
    s = forge_json_print(bare, 0);
    CHECK_STR(s, "null");
    forge_free(s);
    cJSON_Delete(o);
}

/* forge_json_add_* build the lists cJSON_AddItemToObjectCS builds: each name the literal
 * itself (cJSON_StringIsConst), in order, the first child's prev at the last, the last's next
 * NULL; a member added to a missing object is deleted and NULL returned. */
TEST(added_members_are_cjson_lists)
{
    cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();
    static const char *const keys[] = {"one", "two", "three"};
    cJSON_AddItemToObjectCS(a, keys[0], cJSON_CreateNumber(1));
    cJSON_AddItemToObjectCS(a, keys[1], cJSON_CreateString("x"));
    cJSON_AddItemToObjectCS(a, keys[2], cJSON_CreateArray());
    CHECK(forge_json_add_num(b, "one", 1) != NULL);
    CHECK(forge_json_add_str(b, "two", "x") != NULL);
    CHECK(forge_json_add_arr(b, "three") != NULL);
    const cJSON *x = a->child, *y = b->child;
    for (int i = 0; i < 3; i++, x = x->next, y = y->next) {
        CHECK(x && y);
        if (!x || !y)
            break;
        CHECK_STR(y->string, keys[i]);
        CHECK_INT(y->type, x->type);
        CHECK(y->type & cJSON_StringIsConst);
        CHECK((y->prev == b->child->prev) == (x->prev == a->child->prev));
    }
    CHECK(!x && !y);
    CHECK_STR(b->child->prev->string, "three");
    CHECK(b->child->next->prev == b->child);
    CHECK(b->child->prev->next == NULL);
    char *pa = forge_json_print(a, 0), *pb = forge_json_print(b, 0);
    CHECK_STR(pb, pa);
    forge_free(pa);
    forge_free(pb);
    CHECK(forge_json_add_num(NULL, "n", 2) == NULL);
    cJSON_Delete(a);
    cJSON_Delete(b);
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

TEST(input_must_be_utf8_with_nothing_after_the_value)
{
    struct forge_err err = {0};
    CHECK(forge_json_parse("{\"a\":\n \"caf\xff\"}", 13, "u.json", &err) == NULL);
    CHECK_INT(err.code, FORGE_EINVAL);
    CHECK_STR(err.msg, "u.json:2:6: invalid UTF-8 (byte 0xFF)");
    /* a truncated sequence, an encoded surrogate, an over-long form, past U+10FFFF */
    CHECK(forge_json_parse("\"\xe2\x82\"", 4, "t", &err) == NULL);
    CHECK_STR(err.msg, "t:1:2: invalid UTF-8 (byte 0xE2)");
    CHECK(forge_json_parse("\"\xed\xa0\x80\"", 5, "t", &err) == NULL);
    CHECK_STR(err.msg, "t:1:2: invalid UTF-8 (byte 0xED)");
    CHECK(forge_json_parse("\"\xc0\xaf\"", 4, "t", &err) == NULL);
    CHECK_STR(err.msg, "t:1:2: invalid UTF-8 (byte 0xC0)");
    CHECK(forge_json_parse("\"\xf4\x90\x80\x80\"", 6, "t", &err) == NULL);
    CHECK_STR(err.msg, "t:1:2: invalid UTF-8 (byte 0xF4)");
    /* a NUL and garbage after the value, and a NUL inside a string */
    CHECK(forge_json_parse("[1]\n\0junk", 9, "n.json", &err) == NULL);
    CHECK_STR(err.msg, "n.json:2:1: invalid JSON: a NUL byte");
    CHECK(forge_json_parse("\"a\0b\"", 5, "n.json", &err) == NULL);
    CHECK_STR(err.msg, "n.json:1:3: invalid JSON: a NUL byte");
    /* \u0000 escapes are found (cJSON cuts strings there); an escaped backslash before "u0000"
     * is not one */
    CHECK_INT(forge_json_nul_escape("{\"k\":\"x\\u0000y\"}", 16), 7);
    CHECK_INT(forge_json_nul_escape("[\"\\\\u0000\"]", 11), 11);
    CHECK_INT(forge_json_nul_escape("\"\\u00001\"", 9), 1);
    /* lone surrogate escapes are refused, a pair is one character */
    CHECK(forge_json_parse("[\"\\ud800\"]", 10, "s", &err) == NULL);
    CHECK_STR(err.msg, "s:1:3: invalid JSON near '\\ud800\"]'");
    CHECK(forge_json_parse("\"\\udc00\"", 8, "s", &err) == NULL);
    cJSON *v = forge_json_parse("\"\\ud83d\\ude00 \xc3\xa9\"", 17, "s", &err);
    CHECK(v && strcmp(v->valuestring, "\xf0\x9f\x98\x80 \xc3\xa9") == 0);
    cJSON_Delete(v);
    /* 8-byte blocks: an invalid byte after a long ASCII run, and a valid long text */
    CHECK(forge_json_parse("\"0123456789abcdefg\x80\"", 20, "b", &err) == NULL);
    CHECK_STR(err.msg, "b:1:19: invalid UTF-8 (byte 0x80)");
    v = forge_json_parse("\"0123456789abcdef\xe2\x82\xac" "0123456789\"", 31, "b", &err);
    CHECK(v != NULL);
    cJSON_Delete(v);
}

TEST(value_limit)
{
    struct forge_err err = {0};
    CHECK_INT(forge_json_node_limit(), 10000000);
    forge_json_set_node_limit(4);
    /* 4 values fit: the array, 1, 2 and the object ("{}" has no element; "," inside a string
     * is text) */
    cJSON *v = forge_json_parse(" [1, 2, {}] ", 12, "a", &err);
    CHECK(v != NULL);
    cJSON_Delete(v);
    const char *t = "[\"[,{\", \",\\\",\", {}]";
    v = forge_json_parse(t, strlen(t), "a", &err);
    CHECK(v != NULL);
    cJSON_Delete(v);
    CHECK(forge_json_parse("[1, 2, 3,\n 4]", 13, "big.json", &err) == NULL);
    CHECK_INT(err.code, FORGE_ELIMIT);
    CHECK_STR(err.msg, "big.json:2:2: more than 4 JSON values in one input (the limit; raise it with "
                       "--max-json-nodes)");
    t = "{\"a\": {\"b\": [{\"c\": 1}]}}";
    CHECK(forge_json_parse(t, strlen(t), "o", &err) == NULL);
    CHECK_STR(err.msg, "o:1:15: more than 4 JSON values in one input (the limit; raise it with "
                       "--max-json-nodes)");
    forge_json_set_node_limit(0);
    CHECK_INT(forge_json_node_limit(), 10000000);
    v = forge_json_parse("[1, 2, 3,\n 4]", 13, "big.json", &err);
    CHECK(v != NULL);
    cJSON_Delete(v);
}

TEST(output_is_valid_utf8)
{
    cJSON *v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "k\xff", "a\xc3\xa9 \xe2\x82 \xed\xa0\x80 \xf0\x9f\x98\x80 \xef\xbf\xbe\x01");
    char *s = forge_json_print(v, 0);
    CHECK_STR(s, "{\"k\xef\xbf\xbd\":\"a\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                 "\xf0\x9f\x98\x80 \xef\xbf\xbe\\u0001\"}");
    CHECK_INT(forge_utf8_check(s, strlen(s), true), strlen(s));
    forge_free(s);
    cJSON_Delete(v);
}

TEST(syntax_is_json_parse_s)
{
    /* valid for RFC 8259 and JSON.parse */
    const char *good[] = {"0", "-0", "1.5e-3", "1E+5", "-12.0e10", "\"\"", "\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"",
                          "\"\\ud800\"", "\"\xc3\xa9\"", " [1, {\"a\": [true, false, null]}] \n", "{}", "[]",
                          "{\"a\":{\"a\":{}}}", "\t\r\n\"x\"\t\r\n"};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        CHECK_INT(forge_json_syntax(good[k], strlen(good[k]), NULL, NULL), 1);
    }
    /* what cJSON reads and JSON.parse refuses, and plain errors: the offset and what is wrong */
    struct { const char *text; long at; const char *what; } bad[] = {
        {"01", 0, "a number with a leading zero"},
        {"[-01]", 1, "a number with a leading zero"},
        {"1.", 2, "a number needs a digit after its '.'"},
        {".5", 0, "not a JSON value"},
        {"+1", 0, "not a JSON value"},
        {"1e", 2, "a number needs a digit in its exponent"},
        {"-", 1, "a number needs a digit here"},
        {"[\"a\x01" "b\"]", 3, "a control character in a string (write it as an escape)"},
        {"[\x01]", 1, "not a JSON value"},
        {"\x01" "1", 0, "not a JSON value"},
        {"\xef\xbb\xbf" "1", 0, "not a JSON value"},
        {"[1,]", 3, "not a JSON value"},
        {"{\"a\":1,}", 7, "a member name must be a string"},
        {"{oops", 1, "a member name must be a string"},
        {"{\"a\" 1}", 5, "expected ':' after the member name"},
        {"[1 2]", 3, "expected ',' or ']'"},
        {"{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"},
        {"\"\\u12\"", 1, "\\u needs four hexadecimal digits"},
        {"\"\\x\"", 1, "an escape JSON does not have"},
        {"\"abc", 4, "the text ends inside a string"},
        {"[1", 2, "the text ends inside an object or array"},
        {"tru", 0, "not a JSON value"},
        {"nul", 0, "not a JSON value"},
        {"1 2", 2, "unexpected text after the value"},
        {"", 0, "expected a JSON value, found the end"},
        {"  ", 2, "expected a JSON value, found the end"},
        {"[", 1, "the text ends where a value should be"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *what = NULL;
        size_t at = 99;
        CHECK_INT(forge_json_syntax(bad[k].text, strlen(bad[k].text), &at, &what), 0);
        CHECK_INT((long)at, bad[k].at);
        CHECK_STR(what, bad[k].what);
    }
    /* nesting has no limit but memory: 100,000 levels, closed and not */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    CHECK_INT(forge_json_syntax(deep, 2 * depth, NULL, NULL), 1);
    const char *what = NULL;
    size_t at = 0;
    CHECK_INT(forge_json_syntax(deep, 2 * depth - 1, &at, &what), 0);
    CHECK_INT((long)at, (long)(2 * depth - 1));
    CHECK_STR(what, "the text ends inside an object or array");
    /* out of memory while the stack grows */
    forge_alloc_fail_at(1);
    CHECK_INT(forge_json_syntax(deep, 2 * depth, NULL, NULL), FORGE_ENOMEM);
    forge_alloc_fail_at(0);
    free(deep);
}

/* forge_json_equal on objects as it reads: each first-of-its-name member of a is in b, equal,
 * and b has as many distinct names (a lookup per member) */
static bool equal_by_lookup(const cJSON *a, const cJSON *b)
{
    if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
        return forge_json_equal(a, b);
    int na = 0, nb = 0;
    for (const cJSON *x = a->child; x; x = x->next) {
        if (cJSON_GetObjectItemCaseSensitive(a, x->string) != x)
            continue;
        na++;
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!y || !equal_by_lookup(x, y))
            return false;
    }
    for (const cJSON *y = b->child; y; y = y->next)
        if (cJSON_GetObjectItemCaseSensitive(b, y->string) == y)
            nb++;
    return na == nb;
}

TEST(large_objects_equal_and_hash)
{
    /* objects of 10 to 60 members with repeated names, in shuffled orders: equality through the
     * name tables answers as a lookup per member, and equal values hash alike */
    unsigned seed;
    int equal = 0, unequal = 0;
    for (int round = 0; round < 400; round++) {
        struct forge_buf a, b;
        forge_buf_init(&a, 0);
        forge_buf_init(&b, 0);
        seed = (unsigned)test_rand();
        int n = 10 + (int)((seed >> 8) % 50);
        int perm[64];
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            seed = (unsigned)test_rand();
            int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        seed = (unsigned)test_rand();
        int change = (int)((seed >> 8) % 4); /* 0: none; 1: a value; 2: a repeat's order; 3: a name more */
        forge_buf_adds(&a, "{");
        forge_buf_adds(&b, "{");
        for (int i = 0; i < n; i++) {
            int k = i % 37; /* names past 37 repeat */
            forge_buf_addf(&a, "%s\"k%d\":%d", i ? "," : "", k, i);
            int p = perm[i], kp = p % 37;
            if (change == 2)
                p = kp; /* a repeat's value differs, which only matters when it comes first */
            forge_buf_addf(&b, "%s\"k%d\":%d", i ? "," : "", kp, change == 1 && i == 3 ? -1 : p);
        }
        if (change == 3)
            forge_buf_adds(&b, ",\"extra\":0");
        forge_buf_adds(&a, "}");
        forge_buf_adds(&b, "}");
        struct forge_err err = {0};
        cJSON *x = forge_json_parse(a.data, a.len, "a", &err), *y = forge_json_parse(b.data, b.len, "b", &err);
        bool want = equal_by_lookup(x, y), got = forge_json_equal(x, y);
        CHECK(want == got);
        if (got) {
            uint64_t hx, hy;
            CHECK(forge_json_hash(x, &hx) && forge_json_hash(y, &hy) && hx == hy);
            equal++;
        } else {
            unequal++;
        }
        cJSON_Delete(x);
        cJSON_Delete(y);
        forge_buf_free(&a);
        forge_buf_free(&b);
    }
    CHECK(equal > 50 && unequal > 50);
}

TEST(names_index)
{
    /* each name once, at its first member, as cJSON's lookup finds it */
    struct forge_err err = {0};
    const char *text = "{\"b\": 1, \"a\": \"xy\", \"b\": [2], \"\": null, \"a\": 3}";
    cJSON *v = forge_json_parse(text, strlen(text), "m.json", &err);
    struct forge_json_names ix;
    CHECK_INT(forge_json_names_build(&ix, v), 0);
    const char *names[] = {"a", "b", "", "c", "ab"};
    for (int i = 0; i < 5; i++)
        CHECK(forge_json_names_find(&ix, names[i]) == cJSON_GetObjectItemCaseSensitive(v, names[i]));
    CHECK(forge_json_names_find(&ix, "a") != NULL && cJSON_IsString(forge_json_names_find(&ix, "a")));
    forge_json_names_free(&ix);
    cJSON *e = cJSON_CreateObject();
    CHECK_INT(forge_json_names_build(&ix, e), 0);
    CHECK(forge_json_names_find(&ix, "a") == NULL);
    forge_json_names_free(&ix);
    cJSON_Delete(e);
    cJSON_Delete(v);
}

TEST(members_sorted_and_tree_bytes)
{
    struct forge_err err = {0};
    const char *text = "{\"b\": 1, \"a\": \"xy\", \"b\": [2], \"\": null, \"a\": 3}";
    cJSON *v = forge_json_parse(text, strlen(text), "m.json", &err);
    /* by name, then position: a repeated name's first member first */
    struct forge_json_member few[8], *m;
    size_t n;
    CHECK((m = forge_json_members_sorted(v, few, 8, &n)) == few);
    CHECK_INT((int)n, 5);
    const char *names[] = {"", "a", "a", "b", "b"};
    const size_t pos[] = {3, 1, 4, 0, 2};
    for (size_t i = 0; i < n && i < 5; i++) {
        CHECK_STR(m[i].c->string, names[i]);
        CHECK_INT((int)m[i].pos, (int)pos[i]);
    }
    /* too many for the buffer: a new array, the same order */
    CHECK((m = forge_json_members_sorted(v, few, 4, &n)) != few && m != NULL);
    CHECK_INT((int)n, 5);
    CHECK_INT((int)m[1].pos, 1);
    forge_free(m);
    /* an array's items have no names; no buffer and nothing to sort still gives an array */
    cJSON *arr = cJSON_GetObjectItem(v, "b");
    CHECK((m = forge_json_members_sorted(arr, NULL, 0, &n)) != NULL);
    CHECK_INT((int)n, 0);
    forge_free(m);
    /* seven nodes (the object, its five members, the array's item); names b a b "" a (4 bytes), the
     * string "xy" (2 bytes) */
    CHECK_INT((int)forge_json_tree_bytes(v, 10), 7 * 10 + 4 + 2);
    CHECK_INT((int)forge_json_tree_bytes(NULL, 10), 0);
    cJSON_Delete(v);
}

/* forge_utf8_check, which takes sixteen and eight ASCII bytes at a time, against a reading one
 * character at a time: the same length of valid text on generated strings with a NUL, a
 * multi-byte character, a bad byte or a truncated sequence at every place, with NULs allowed and
 * refused; each in a block of its own length (a read past its end is one the sanitizers report). */
static size_t utf8_check_slow(const char *s, size_t n, bool no_nul)
{
    size_t i = 0;
    while (i < n) {
        unsigned cp;
        if (!s[i]) {
            if (no_nul)
                return i;
            i++;
            continue;
        }
        int len = forge_utf8_decode(s + i, n - i, &cp);
        if (!len)
            return i;
        i += (size_t)len;
    }
    return n;
}

TEST(utf8_check_in_blocks)
{
    static const char *odd[] = {"", "\0", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff",
                                "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", "\x80"};
    static const size_t oddlen[] = {0, 1, 2, 3, 4, 1, 1, 2, 3, 2, 1};
    char buf[96];
    long checked = 0;
    for (size_t n = 0; n <= 70; n++) {
        for (size_t at = 0; at <= n; at++) {
            for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
                size_t len = 0;
                for (size_t i = 0; i < at; i++)
                    buf[len++] = (char)('a' + i % 26);
                memcpy(buf + len, odd[k], oddlen[k]);
                len += oddlen[k];
                for (size_t i = at; i < n; i++)
                    buf[len++] = (char)('A' + i % 26);
                char *exact = malloc(len ? len : 1);
                CHECK(exact != NULL);
                if (!exact)
                    return;
                memcpy(exact, buf, len);
                for (int nul = 0; nul < 2; nul++) {
                    size_t want = utf8_check_slow(exact, len, nul), got = forge_utf8_check(exact, len, nul);
                    CHECK_INT(got, want);
                    checked++;
                }
                free(exact);
            }
        }
    }
    CHECK(checked > 50000);
}

/* forge_json_write_string appends a string without escapes in one step when the buffer has
 * room: around every room and limit, the text is the same as through the general path. */
TEST(write_string_room_and_limit)
{
    char s[80], want[200];
    long checked = 0;
    for (int esc = 0; esc < 2; esc++) {
        for (size_t n = 0; n < 70; n++) {
            for (size_t i = 0; i < n; i++)
                s[i] = (char)('a' + i % 26);
            if (esc && n)
                s[n / 2] = '"';
            s[n] = 0;
            /* the expected text: quotes, and the quote inside escaped */
            size_t w = 0;
            want[w++] = '"';
            for (size_t i = 0; i < n; i++) {
                if (s[i] == '"')
                    want[w++] = '\\';
                want[w++] = s[i];
            }
            want[w++] = '"';
            want[w] = 0;
            for (size_t pre = 0; pre < 70; pre += 3) {
                for (size_t limit = 0; limit < 160; limit += limit < 60 ? 1 : 50) {
                    struct forge_buf b;
                    forge_buf_init(&b, limit);
                    int rc = 0;
                    for (size_t k = 0; k < pre && !rc; k++)
                        rc = forge_buf_addc(&b, 'x');
                    if (rc) {
                        forge_buf_free(&b);
                        continue;
                    }
                    rc = forge_json_write_string(&b, s);
                    bool fits = !limit || pre + w <= limit;
                    CHECK_INT(rc, fits ? 0 : FORGE_ELIMIT);
                    if (fits) {
                        CHECK_INT(b.len, pre + w);
                        CHECK(b.data && !memcmp(b.data + pre, want, w + 1));
                    }
                    forge_buf_free(&b);
                    checked++;
                }
            }
        }
    }
    CHECK(checked > 10000);
}

int main(void)
{
    RUN(numbers_print_like_javascript);
    RUN(parse_errors_name_line_and_column);
    RUN(print_keeps_order_sorts_and_escapes);
    RUN(print_sorted_small_and_large_objects);
    RUN(added_members_are_cjson_lists);
    RUN(strings_escape_every_byte);
    RUN(equality_and_paths);
    RUN(utf16_lengths);
    RUN(input_must_be_utf8_with_nothing_after_the_value);
    RUN(value_limit);
    RUN(output_is_valid_utf8);
    RUN(syntax_is_json_parse_s);
    RUN(names_index);
    RUN(large_objects_equal_and_hash);
    RUN(members_sorted_and_tree_bytes);
    RUN(utf8_check_in_blocks);
    RUN(write_string_room_and_limit);
    return TEST_DONE();
}
