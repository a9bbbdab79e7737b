/* The ECMA-262 regex translation (runtime/data/ecmare.c), directly and through a schema
 * "pattern". Input: the pattern, NUL, the subject. Properties: translation and compilation agree
 * (a pattern that translates compiles unless PCRE2 refuses it with a message); the fast matcher
 * for regular patterns (literal, DFA, bit-parallel) answers as PCRE2 does, and to the NUL
 * (forge_ecmare_test_str) as on the counted bytes; a schema {"pattern": p} validates the subject as
 * forge_ecmare_test matches it. */
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "data/schema.h"
#include "data/schema_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    struct fuzz_part part[2];
    fuzz_split(data, size, part, 2);
    struct forge_err err = {0};
    struct forge_buf out;
    forge_buf_init(&out, 0);
    int trc = forge_ecmare_translate(part[0].p, part[0].n, &out, &err);
    FUZZ_CHECK(trc == 0 || (trc == FORGE_EINVAL && err.msg[0]), "translate: %d %s", trc, err.msg);
    forge_buf_free(&out);

    struct forge_err e2 = {0};
    void *code = forge_ecmare_compile(part[0].p, part[0].n, &e2);
    if (trc != 0)
        FUZZ_CHECK(!code, "a pattern translation rejects compiles");
    if (!code) {
        FUZZ_CHECK(e2.msg[0], "compile failed without a message");
        return 0;
    }
    int m1 = forge_ecmare_test(code, part[1].p, part[1].n);
    int m2 = forge_ecmare_test_pcre2(code, part[1].p, part[1].n);
    int m3 = forge_ecmare_test_nfa(code, part[1].p, part[1].n);
    if (m1 >= 0 && m2 >= 0)
        FUZZ_CHECK(m1 == m2, "fast matcher %d, PCRE2 %d (engine: %c)", m1, m2, forge_ecmare_engine(code));
    if (m3 >= 0)
        FUZZ_CHECK(m3 == m1, "bit-parallel matcher %d, fast matcher %d (engine: %c)", m3, m1,
                   forge_ecmare_engine(code));
    if (forge_ecmare_is_simple(code))
        FUZZ_CHECK(m1 == 0 || m1 == 1, "the automaton answered %d", m1);
    /* the NUL-terminated entry point answers as a counted match of the same bytes */
    char *cs = fuzz_strdup(&part[1]);
    int m4 = forge_ecmare_test_str(code, cs), m5 = forge_ecmare_test(code, cs, strlen(cs));
    FUZZ_CHECK(m4 == m5, "to the NUL %d, counted %d (engine: %c)", m4, m5, forge_ecmare_engine(code));
    free(cs);
    forge_ecmare_free(code);

    /* Through a schema: strings only (the subject must be valid UTF-8 to be a JSON string). */
    char *pat = fuzz_strdup(&part[0]);
    char *subj = fuzz_strdup(&part[1]);
    cJSON *schema = cJSON_CreateObject();
    cJSON *inst = cJSON_CreateString(subj);
    FUZZ_CHECK(schema && inst && cJSON_AddStringToObject(schema, "pattern", pat), "alloc");
    if (strlen(pat) == part[0].n && strlen(subj) == part[1].n) {
        struct forge_schema *s = forge_schema_compile(schema, NULL, &err);
        if (s) {
            int v = forge_schema_validate(s, inst, NULL);
            if (v >= 0 && m1 >= 0)
                FUZZ_CHECK(v == m1, "schema says %d, matcher %d", v, m1);
            forge_schema_free(s);
        }
    }
    cJSON_Delete(inst);
    cJSON_Delete(schema);
    free(subj);
    free(pat);
    return 0;
}
