/* JSON Schema Test Suite runner: for each draft folder given, validates every test of every
 * file and prints passed/failed counts for the required tests, optional/format (with formats
 * asserted) and the other optional tests. Exit status 1 when a required test fails.
 *
 * usage: schema_suite SUITE_DIR DRAFT... [-v]   (DRAFT: draft4 draft6 draft7 draft2019-09
 * draft2020-12; -v lists failing optional tests too) */
#include "data/schema.h"
#include "data/json.h"
#include "base/alloc.h"
#include "base/file.h"
#include "../support/json_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tally {
    int passed, failed;
};

static int verbose;

static int draft_id(const char *name)
{
    if (!strcmp(name, "draft4")) return FORGE_DRAFT_4;
    if (!strcmp(name, "draft6")) return FORGE_DRAFT_6;
    if (!strcmp(name, "draft7")) return FORGE_DRAFT_7;
    if (!strcmp(name, "draft2019-09")) return FORGE_DRAFT_2019_09;
    if (!strcmp(name, "draft2020-12")) return FORGE_DRAFT_2020_12;
    return -1;
}

static void run_file(const char *path, const char *label, int draft, bool formats,
                     const struct forge_schema_refdir *rd, struct tally *t, bool report)
{
    struct forge_err err;
    forge_err_clear(&err);
    cJSON *groups = forge_json_load(path, &err);
    if (!groups) {
        fprintf(stderr, "%s\n", err.msg);
        t->failed++;
        return;
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, groups) {
        struct forge_schema_opts o = {(enum forge_schema_draft)draft, formats, false, rd, 1};
        forge_err_clear(&err);
        struct forge_schema *s = forge_schema_compile(cJSON_GetObjectItem(g, "schema"), &o, &err);
        const char *gd = forge_json_str(g, "description");
        const cJSON *test;
        cJSON_ArrayForEach(test, cJSON_GetObjectItem(g, "tests")) {
            const char *td = forge_json_str(test, "description");
            bool want = cJSON_IsTrue(cJSON_GetObjectItem(test, "valid"));
            int got = -100;
            if (s) {
                cJSON *errors = NULL;
                got = forge_schema_validate(s, cJSON_GetObjectItem(test, "data"), &errors);
                /* the verdict must not depend on whether errors are collected */
                int quick = forge_schema_validate(s, cJSON_GetObjectItem(test, "data"), NULL);
                if (quick != got)
                    got = -200;
                if (got == 0 && (!cJSON_IsArray(errors) || cJSON_GetArraySize(errors) < 1))
                    got = -300;
                cJSON_Delete(errors);
            }
            if ((got == 1) == want && got >= 0) {
                t->passed++;
            } else {
                t->failed++;
                if (report)
                    fprintf(stderr, "FAIL %s: %s / %s: expected %s, got %s%s%s\n", label, gd, td,
                            want ? "valid" : "invalid",
                            got == 1 ? "valid" : got == 0 ? "invalid" : got == -100 ? "compile error: " : "error",
                            got == -100 ? err.msg : "", "");
            }
        }
        forge_schema_free(s);
    }
    cJSON_Delete(groups);
}

/* Runs every .json file directly in <dir>. */
static void run_dir(const char *dir, int draft, bool formats, const struct forge_schema_refdir *rd,
                    struct tally *t, bool report)
{
    char *names[512];
    int n = json_files(dir, names, 512);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        run_file(path, names[i], draft, formats, rd, t, report);
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: schema_suite SUITE_DIR DRAFT... [-v]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
    char remotes[4096];
    snprintf(remotes, sizeof remotes, "%s/remotes", argv[1]);
    struct forge_schema_refdir rd = {"http://localhost:1234/", remotes};
    int required_failed = 0;
    printf("%-14s %18s %18s %18s\n", "draft", "required", "optional/format", "optional (other)");
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            continue;
        int draft = draft_id(argv[i]);
        if (draft < 0) {
            fprintf(stderr, "unknown draft folder '%s'\n", argv[i]);
            return 2;
        }
        char dir[2048], fdir[4200], odir[4200];
        snprintf(dir, sizeof dir, "%.1000s/tests/%.100s", argv[1], argv[i]);
        snprintf(odir, sizeof odir, "%s/optional", dir);
        snprintf(fdir, sizeof fdir, "%s/optional/format", dir);
        struct tally req = {0, 0}, fmt = {0, 0}, opt = {0, 0};
        run_dir(dir, draft, false, &rd, &req, true);
        run_dir(fdir, draft, true, &rd, &fmt, verbose);
        run_dir(odir, draft, false, &rd, &opt, verbose);
        char a[32], b[32], c[32];
        snprintf(a, sizeof a, "%d/%d", req.passed, req.passed + req.failed);
        snprintf(b, sizeof b, "%d/%d", fmt.passed, fmt.passed + fmt.failed);
        snprintf(c, sizeof c, "%d/%d", opt.passed, opt.passed + opt.failed);
        printf("%-14s %18s %18s %18s\n", argv[i], a, b, c);
        printf("  %s: required passed %d failed %d; optional/format passed %d failed %d; "
               "optional passed %d failed %d\n", argv[i], req.passed, req.failed, fmt.passed,
               fmt.failed, opt.passed, opt.failed);
        required_failed += req.failed;
        if (req.passed + req.failed == 0) { /* a runner that ran nothing must not pass */
            fprintf(stderr, "%s: no required test ran (is %s the suite's tests folder?)\n",
                    argv[i], dir);
            required_failed++;
        }
    }
    return required_failed ? 1 : 0;
}
