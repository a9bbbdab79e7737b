/* JSON Schema compile + validate (runtime/data/schema.h). Input: one option byte (draft,
 * format assertion, all errors), the schema, NUL, the instance. Properties: compile fails with
 * FORGE_EINVAL/ELIMIT and a message or returns a validator; validation answers 0 or 1 (or a
 * limit), the same with and without the error list and with a reused error arena, and an
 * invalid verdict comes with errors of the documented shape (the same in the arena); in
 * first-error mode the verdict walk's trail and the recording walk give the same errors, byte
 * for byte. */
#include <cjson/cJSON.h>
#include "data/json.h"
#include "data/schema.h"
#include "data/schema_int.h"
#include "fuzz.h"
#include "../support/same_error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    uint8_t o = data[0];
    struct fuzz_part part[2];
    fuzz_split(data + 1, size - 1, part, 2);
    struct forge_err err = {0};
    cJSON *schema = forge_json_parse(part[0].p, part[0].n, "<schema>", &err);
    if (!schema)
        return 0;
    cJSON *inst = forge_json_parse(part[1].p, part[1].n, "<instance>", &err);
    if (!inst)
        inst = cJSON_CreateNull();
    struct forge_schema_opts opts = {0};
    opts.draft = (enum forge_schema_draft)(o % 6);
    opts.formats = (o & 0x08) != 0;
    opts.all_errors = (o & 0x10) != 0;
    struct forge_schema *s = forge_schema_compile(schema, &opts, &err);
    if (!s) {
        FUZZ_CHECK(err.code == FORGE_EINVAL || err.code == FORGE_ELIMIT, "compile: %d %s",
                   err.code, err.msg);
        FUZZ_CHECK(err.msg[0], "compile failed without a message");
    } else {
        cJSON *errors = NULL;
        int v1 = forge_schema_validate(s, inst, &errors);
        int v2 = forge_schema_validate(s, inst, NULL);
        FUZZ_CHECK(v1 == v2, "verdict %d with errors, %d without", v1, v2);
        FUZZ_CHECK(v1 == 0 || v1 == 1 || v1 == FORGE_ELIMIT || v1 == FORGE_ENOMEM, "verdict %d", v1);
        if (v1 == 0) {
            FUZZ_CHECK(cJSON_IsArray(errors) && cJSON_GetArraySize(errors) >= 1,
                       "invalid without errors");
            if (!opts.all_errors)
                FUZZ_CHECK(cJSON_GetArraySize(errors) == 1, "more than one error");
            const cJSON *e;
            cJSON_ArrayForEach(e, errors) {
                FUZZ_CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "instanceLocation")) &&
                               cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "keywordLocation")) &&
                               cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "error")),
                           "error object shape");
            }
        } else {
            FUZZ_CHECK(!errors, "errors set on a valid instance");
        }
        /* the error arena, used twice (the second time over the first's memory), gives the
         * same verdict and the same errors */
        struct forge_schema_errors arena = FORGE_SCHEMA_ERRORS_INIT;
        for (int round = 0; round < 2; round++) {
            int v3 = forge_schema_check(s, inst, &arena);
            FUZZ_CHECK(v3 == v1, "verdict %d with the arena, %d without", v3, v1);
            FUZZ_CHECK(v3 == 0 ? arena.n >= 1 : arena.n == 0, "%d errors with verdict %d", arena.n, v3);
            if (v3 == 0 && errors) {
                cJSON *again = forge_schema_errors_json(&arena);
                if (again) { /* NULL: out of memory */
                    FUZZ_CHECK(cJSON_Compare(again, errors, 1), "the arena's errors differ");
                    cJSON_Delete(again);
                }
                /* the rendered list says the same as the JSON form */
                if (forge_schema_errors_render(&arena) == 0) {
                    FUZZ_CHECK(cJSON_GetArraySize(errors) == arena.n, "rendered %d errors of %d",
                               arena.n, cJSON_GetArraySize(errors));
                    int k = 0;
                    const cJSON *x;
                    cJSON_ArrayForEach(x, errors) {
                        const cJSON *abs = cJSON_GetObjectItemCaseSensitive(x, "absoluteKeywordLocation");
                        struct forge_schema_error j = {
                            cJSON_GetObjectItemCaseSensitive(x, "instanceLocation")->valuestring,
                            cJSON_GetObjectItemCaseSensitive(x, "keywordLocation")->valuestring,
                            abs ? abs->valuestring : NULL,
                            cJSON_GetObjectItemCaseSensitive(x, "error")->valuestring};
                        FUZZ_CHECK(same_error(&arena.list[k++], &j), "rendered error %d differs", k - 1);
                    }
                }
            }
        }
        /* the two paths of a check that wants errors (the verdict walk first, then the trail
         * or the recording walk; the recording walk alone): the same verdict and errors */
        {
            struct forge_schema_errors rec = FORGE_SCHEMA_ERRORS_INIT;
            int v4, v5;
            FUZZ_CHECK(check_both_paths(s, inst, &arena, &v4, &rec, &v5), "a trail was not followed");
            FUZZ_CHECK(v4 == v5 && arena.n == rec.n,
                       "verdict first %d (%d errors), recording %d (%d errors)", v4, arena.n, v5, rec.n);
            FUZZ_CHECK(v4 != 0 || same_errors(&arena, &rec),
                       "the two paths' rendered errors differ");
            /* and the recording walk's errors when every error records its segments */
            struct forge_schema_errors seg = FORGE_SCHEMA_ERRORS_INIT;
            FUZZ_CHECK(same_with_segments(s, inst, &rec, v5, &seg),
                       "errors differ when every error records its segments");
            forge_schema_errors_free(&seg);
            forge_schema_errors_free(&rec);
        }
        forge_schema_errors_free(&arena);
        cJSON_Delete(errors);
        /* The schema validates itself as an instance too (a second, different document). */
        (void)forge_schema_validate(s, schema, NULL);
        forge_schema_free(s);
    }
    cJSON_Delete(inst);
    cJSON_Delete(schema);
    return 0;
}
