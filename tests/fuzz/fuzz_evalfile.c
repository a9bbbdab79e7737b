/* Eval-file loading and validation (runtime/eval/evalfile.h) and scoring each case against a
 * trajectory (runtime/eval/suite.h forge_eval_case). Input: the eval file, NUL, a transcript
 * in any format (imported with detection; scored as "no trajectory" when it does not import),
 * NUL, an optional tools object (tool name -> argument schema). Properties: errors name the
 * input; every case a loaded file holds passes forge_evalfile_check_case; scoring succeeds and
 * yields a result object that prints; the suite report builds. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "data/json.h"
#include "eval/evalfile.h"
#include "eval/suite.h"
#include "score/trajectory.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    struct fuzz_part part[3];
    fuzz_split(data, size, part, 3);
    struct forge_err err = {0};
    cJSON *cases = NULL;
    int rc = forge_evalfile_parse(part[0].p, part[0].n, "<fuzz>", &cases, &err);
    if (rc != 0) {
        FUZZ_CHECK(rc == FORGE_EINVAL || rc == FORGE_ELIMIT, "code %d: %s", rc, err.msg);
        FUZZ_CHECK(strncmp(err.msg, "<fuzz>", 6) == 0, "message does not name the file: %s",
                   err.msg);
        FUZZ_CHECK(!cases, "cases set on failure");
        return 0;
    }
    FUZZ_CHECK(cJSON_IsArray(cases), "cases is not an array");

    cJSON *traj = NULL;
    if (part[1].n) {
        cJSON *doc = forge_json_parse(part[1].p, part[1].n, "<transcript>", &err);
        if (doc)
            traj = forge_trajectory_adopt(doc, NULL, &err);
    }
    cJSON *tools = part[2].n ? forge_json_parse(part[2].p, part[2].n, "<tools>", &err) : NULL;
    struct forge_eval_opts opts = {0};
    opts.tools = cJSON_IsObject(tools) ? tools : NULL;

    struct forge_suite *suite = forge_suite_new();
    FUZZ_CHECK(suite, "suite");
    const cJSON *kase;
    int i = 0;
    cJSON_ArrayForEach(kase, cases) {
        struct forge_err e2 = {0};
        FUZZ_CHECK(forge_evalfile_check_case(kase, &e2) == 0,
                   "case %d loaded but fails check_case: %s", i, e2.msg);
        cJSON *result = NULL;
        opts.lean = (i & 1) != 0;
        rc = forge_eval_case(kase, traj, &opts, &result, &e2);
        FUZZ_CHECK(rc == 0, "case %d: scoring failed (%d): %s", i, rc, e2.msg);
        FUZZ_CHECK(cJSON_IsObject(result), "case %d: result is not an object", i);
        char *text = forge_json_print(result, FORGE_JSON_PRETTY);
        FUZZ_CHECK(text, "print");
        forge_free(text);
        FUZZ_CHECK(forge_suite_add(suite, result, &e2) == 0, "suite_add: %s", e2.msg);
        i++;
    }
    cJSON *report = NULL;
    struct forge_gates gates = {.has_min_pass_rate = true, .min_pass_rate = 0.5};
    FUZZ_CHECK(forge_suite_report(suite, &gates, NULL, &report, &err) == 0, "report: %s", err.msg);
    cJSON_Delete(report);
    forge_suite_free(suite);
    cJSON_Delete(tools);
    cJSON_Delete(traj);
    cJSON_Delete(cases);
    return 0;
}
