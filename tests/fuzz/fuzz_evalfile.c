/* Eval-file loading and validation (runtime/eval/evalfile.h) and scoring each case against a
 * trajectory (runtime/eval/suite.h forge_eval_case). Input: the eval file, NUL, a transcript
 * in any format (imported with detection; scored as "no trajectory" when it does not import),
 * NUL, an optional tools object (tool name -> argument schema). Properties: errors name the
 * input; every case a loaded file holds passes forge_evalfile_check_case; scoring succeeds and
 * yields a result object that prints; the suite report builds. A file that loads whole and is
 * an array reads the same a case at a time (eval/cases.h, as forge run reads it): the same
 * cases, in order, equal again when read back at their place (or an error naming the file). */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "data/json.h"
#include "eval/cases.h"
#include "eval/evalfile.h"
#include "eval/suite.h"
#include "score/trajectory.h"
#include "fuzz.h"

#include <unistd.h>

/* Whether two trees print the same (cJSON_Compare looks members up by name, so an object with a
 * duplicate name never equals itself). */
static int same_text(const cJSON *a, const cJSON *b)
{
    char *x = forge_json_print(a, 0), *y = forge_json_print(b, 0);
    FUZZ_CHECK(x && y, "print");
    int same = !strcmp(x, y);
    forge_free(x);
    forge_free(y);
    return same;
}

/* The eval file <text> read a case at a time from a file (forge_cases): the same cases as
 * forge_evalfile_parse gave (<cases>), each equal when read again at its place. */
static void same_case_by_case(const char *text, size_t n, const cJSON *cases)
{
    char path[] = "/tmp/forge-fuzz-cases-XXXXXX";
    int fd = mkstemp(path);
    FUZZ_CHECK(fd >= 0, "mkstemp");
    FUZZ_CHECK(write(fd, text, n) == (ssize_t)n, "write");
    close(fd);
    if (forge_cases_lazy(path)) {
        struct forge_err err = {0};
        struct forge_cases *c = forge_cases_open(path, &err);
        FUZZ_CHECK(c, "open: %s", err.msg);
        const cJSON *want = cases->child;
        for (int k = 0;; k++) {
            cJSON *kase = NULL, *again = NULL;
            int index;
            uint64_t loc;
            int got = forge_cases_next(c, &kase, &index, &loc, &err);
            if (got < 0) {
                /* the case reader frames cases by RFC 8259, where cJSON, which the whole file
                 * goes through when the fast reader declines, is looser (control characters as
                 * whitespace): it may refuse, naming the place, what the whole file accepted */
                FUZZ_CHECK(!strncmp(err.msg, path, strlen(path)), "case %d: %s", k, err.msg);
                break;
            }
            if (!got) {
                FUZZ_CHECK(!want, "case %d of the whole file was not read a case at a time", k);
                break;
            }
            FUZZ_CHECK(want && index == k, "case %d read a case at a time (index %d) is not in the whole file", k,
                       index);
            FUZZ_CHECK(same_text(kase, want), "case %d differs when read a case at a time", k);
            FUZZ_CHECK(forge_cases_read_at(c, loc, index, NULL, &again, &err) == 0, "case %d read again: %s", k,
                       err.msg);
            FUZZ_CHECK(same_text(again, want), "case %d differs when read again at its place", k);
            cJSON_Delete(again);
            cJSON_Delete(kase);
            want = want->next;
        }
        forge_cases_close(c);
    }
    unlink(path);
}

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
    same_case_by_case(part[0].p, part[0].n, cases);

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
