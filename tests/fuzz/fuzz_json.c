/* JSON parsing (forge_json_parse: errors as "<name>:<line>:<col>: ...") and JavaScript-
 * compatible printing (forge_json_write). Properties: the fast reader builds cJSON's tree or
 * gives up; a failed parse names the input with a
 * position inside it; printed text parses again to an equal value and prints the same text;
 * path lookups and UTF-16 lengths do not crash. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "data/json.h"
#include "data/utf8.h"
#include "fuzz.h"
#include "../support/same_tree.h"

/* Whether equality is well defined for <v> after a round trip: finite numbers (others print
 * as null) and no key twice in an object (sorted output may reorder repeated keys). */
static bool finite_only(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return v->valuedouble - v->valuedouble == 0;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (!finite_only(c))
            return false;
        if (cJSON_IsObject(v))
            for (const cJSON *d = c->next; d; d = d->next)
                if (strcmp(c->string, d->string) == 0)
                    return false;
    }
    return true;
}

/* Whether <text> holds \u0000 or a surrogate's escape (\uD800 to \uDFFF): JSON.parse takes
 * lone surrogates and NUL characters in strings, cJSON refuses the one and cuts at the other. */
static bool has_odd_escape(const char *text, size_t n)
{
    for (size_t i = 0; i + 6 <= n; i++) {
        if (text[i] != '\\' || text[i + 1] != 'u')
            continue;
        if (!memcmp(text + i + 2, "0000", 4))
            return true;
        if ((text[i + 2] == 'd' || text[i + 2] == 'D') && strchr("89abcdefABCDEF", text[i + 3]) && text[i + 3])
            return true;
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    const char *text = (const char *)data;
    struct forge_err err = {0};
    /* forge_json_parse_fast builds cJSON's tree or gives up, never a tree cJSON would not */
    size_t fend = 0;
    const char *cend = NULL;
    cJSON *fast = forge_json_parse_fast(text, size, &fend);
    if (fast) {
        cJSON *slow = cJSON_ParseWithLengthOpts(text, size, &cend, 0);
        FUZZ_CHECK(slow, "the fast reader read what cJSON refuses");
        FUZZ_CHECK(same_tree(fast, slow) && text + fend == cend, "the fast reader's tree differs");
        cJSON_Delete(slow);
        cJSON_Delete(fast);
    }
    cJSON *v = forge_json_parse(text, size, "<fuzz>", &err);
    /* the strict grammar (forge_json_syntax, JSON.parse's) is inside cJSON's reading: a text it
     * accepts parses, when it is valid UTF-8 without NUL bytes (which forge_json_parse asks of
     * any text) and holds no \u0000 and no surrogate escape (see has_odd_escape) */
    size_t sat = 0;
    const char *swhat = NULL;
    int syn = forge_json_syntax(text, size, &sat, &swhat);
    FUZZ_CHECK(syn == 0 || syn == 1, "syntax %d", syn);
    FUZZ_CHECK(syn == 1 || sat <= size, "error offset %zu past the end %zu", sat, size);
    if (syn == 1 && forge_utf8_check(text, size, true) == size && !has_odd_escape(text, size))
        FUZZ_CHECK(v || err.code == FORGE_ELIMIT, "JSON.parse's grammar accepts what forge_json_parse refuses: %s",
                   err.msg);
    int line = 0, col = 0;
    forge_json_position(text, size, &line, &col);
    FUZZ_CHECK(line >= 1 && col >= 1, "position %d:%d", line, col);
    (void)forge_utf16_len(text, size);
    if (!v) {
        FUZZ_CHECK(err.code == FORGE_EINVAL, "code %d", err.code);
        if (strstr(err.msg, "JSON nested more than")) { /* past cJSON's limit: the brackets are there */
            size_t open = 0;
            for (size_t i = 0; i < size; i++)
                open += text[i] == '[' || text[i] == '{';
            FUZZ_CHECK(open > CJSON_NESTING_LIMIT, "%s with %zu brackets", err.msg, open);
        }
        FUZZ_CHECK(strncmp(err.msg, "<fuzz>:", 7) == 0, "message %s", err.msg);
        int l = 0, c = 0;
        FUZZ_CHECK(sscanf(err.msg + 7, "%d:%d:", &l, &c) == 2 && l >= 1 && c >= 1 && l <= line,
                   "message %s (input ends at %d:%d)", err.msg, line, col);
        return 0;
    }
    static const int flags[] = {0, FORGE_JSON_PRETTY, FORGE_JSON_SORTED,
                                FORGE_JSON_PRETTY | FORGE_JSON_SORTED};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        char *out = forge_json_print(v, flags[i]);
        FUZZ_CHECK(out, "print failed");
        struct forge_err e2 = {0};
        cJSON *back = forge_json_parse(out, strlen(out), "<printed>", &e2);
        FUZZ_CHECK(back, "printed text does not parse: %s\n%s", e2.msg, out);
        if (finite_only(v))
            FUZZ_CHECK(forge_json_equal(v, back), "round trip changed the value:\n%s", out);
        FUZZ_CHECK(forge_json_equal(back, back), "value not equal to itself");
        char *again = forge_json_print(back, flags[i]);
        FUZZ_CHECK(again, "print failed");
        if (!(flags[i] & FORGE_JSON_SORTED))
            FUZZ_CHECK(strcmp(out, again) == 0, "printing is not stable:\n%s\n%s", out, again);
        forge_free(again);
        cJSON_Delete(back);
        forge_free(out);
    }
    /* Path lookups: the input's strings, used as paths, on the value itself. */
    for (const cJSON *c = v->child; c; c = c->next) {
        if (c->string)
            (void)forge_json_at(v, c->string);
        if (cJSON_IsString(c))
            (void)forge_json_at(v, c->valuestring);
    }
    if (cJSON_IsString(v))
        (void)forge_json_at(v, v->valuestring);
    (void)forge_json_str(v, "a");
    (void)forge_json_num(v, "n", 0);
    cJSON_Delete(v);
    return 0;
}
