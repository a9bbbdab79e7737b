/* A check that wants errors has two paths: the verdict walk first (forced here with
 * forge_schema_test_path(2); on an invalid instance, in first-error mode its trail replayed, in
 * all-errors mode the recording walk after it) and the walk that records errors from the root
 * (forge_schema_test_path(1)). This runner checks every instance of the given files both ways,
 * in first-error and all-errors mode, with formats asserted and not: the same return code, the
 * same number of errors and the same rendered text, byte for byte; and no trail that could not
 * be followed. The recording walk also runs with every error recording its paths' segments
 * (forge_schema_test_segments): the same errors as with the locations made at compile time. Files are JSON Schema Test Suite files (arrays of {schema, tests}) or
 * benchmark cases ({schema, valid, invalid}); a folder stands for its .json files, sorted, and
 * those of its "optional" and "optional/format" folders.
 *
 * usage: schema_paths [--remotes DIR] [--draft N] PATH...   (N: 4 6 7 2019 2020; exit 1 on a
 * difference, 2 on bad usage or when nothing was compared) */
#include "data/schema.h"
#include "data/schema_int.h"
#include "data/json.h"
#include "../support/same_error.h"
#include "../support/json_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct forge_schema_refdir refdir;
static int nrefdirs;
static long compared, invalid, differ;
static struct forge_schema_errors e1 = FORGE_SCHEMA_ERRORS_INIT, e2 = FORGE_SCHEMA_ERRORS_INIT,
                                  e3 = FORGE_SCHEMA_ERRORS_INIT;

/* Checks <inst> against <s> both ways. */
static void compare(const struct forge_schema *s, const cJSON *inst, const char *where, bool all)
{
    int r1, r2;
    bool followed = check_both_paths(s, inst, &e1, &r1, &e2, &r2);
    compared++;
    bool ok = followed && r1 == r2 && e1.n == e2.n;
    if (ok && r1 == 0) {
        invalid++;
        ok = same_errors(&e1, &e2);
    }
    if (ok && !same_with_segments(s, inst, &e2, r2, &e3)) {
        differ++;
        char *text = cJSON_PrintUnformatted(inst);
        fprintf(stderr, "DIFFER %s (%s): instance %.300s: the recording walk's errors differ when"
                " every error records its segments\n", where, all ? "all errors" : "first error",
                text ? text : "?");
        free(text);
        for (int i = 0; r2 == 0 && i < e2.n && i < e3.n && e2.list && e3.list; i++)
            fprintf(stderr, "  made     %s | %s\n  segments %s | %s\n", e2.list[i].instance_location,
                    e2.list[i].keyword_location, e3.list[i].instance_location, e3.list[i].keyword_location);
        return;
    }
    if (ok)
        return;
    differ++;
    char *text = cJSON_PrintUnformatted(inst);
    fprintf(stderr, "DIFFER %s (%s): instance %.300s: verdict first %d (%d errors), recording %d (%d errors)%s\n",
            where, all ? "all errors" : "first error", text ? text : "?", r1, e1.n, r2,
            e2.n, followed ? "" : "; the trail was not followed");
    free(text);
    if (r1 == 0 && r2 == 0 && e1.n == e2.n && e1.list && e2.list)
        for (int i = 0; i < e1.n; i++)
            fprintf(stderr, "  trail     %s | %s | %s | %s\n  recording %s | %s | %s | %s\n",
                    e1.list[i].instance_location, e1.list[i].keyword_location,
                    e1.list[i].absolute_keyword_location ? e1.list[i].absolute_keyword_location : "-",
                    e1.list[i].message, e2.list[i].instance_location, e2.list[i].keyword_location,
                    e2.list[i].absolute_keyword_location ? e2.list[i].absolute_keyword_location : "-",
                    e2.list[i].message);
}

static void run_schema(const cJSON *schema, int draft, const cJSON *const *sets, int nsets,
                       const char *where)
{
    for (int mode = 0; mode < 4; mode++) {
        bool formats = mode & 1, all = mode >> 1;
        struct forge_schema_opts o = {(enum forge_schema_draft)draft, formats, all, &refdir, nrefdirs};
        struct forge_err err;
        forge_err_clear(&err);
        struct forge_schema *s = forge_schema_compile(schema, &o, &err);
        if (!s)
            continue; /* a schema forge refuses: nothing to compare */
        for (int k = 0; k < nsets; k++) {
            const cJSON *t;
            cJSON_ArrayForEach(t, sets[k]) {
                const cJSON *data = cJSON_IsObject(t) && cJSON_GetObjectItem(t, "data") &&
                                            cJSON_GetObjectItem(t, "valid")
                                        ? cJSON_GetObjectItem(t, "data")
                                        : t;
                compare(s, data, where, all);
            }
        }
        forge_schema_free(s);
    }
}

static void run_file(const char *path, int draft)
{
    struct forge_err err;
    forge_err_clear(&err);
    cJSON *doc = forge_json_load(path, &err);
    if (!doc) {
        fprintf(stderr, "%s\n", err.msg);
        differ++;
        return;
    }
    if (cJSON_IsArray(doc)) { /* the test suite's groups */
        const cJSON *g;
        cJSON_ArrayForEach(g, doc) {
            const cJSON *tests = cJSON_GetObjectItem(g, "tests");
            run_schema(cJSON_GetObjectItem(g, "schema"), draft, &tests, 1, path);
        }
    } else {
        const cJSON *sets[2] = {cJSON_GetObjectItem(doc, "valid"), cJSON_GetObjectItem(doc, "invalid")};
        run_schema(cJSON_GetObjectItem(doc, "schema"), draft, sets, 2, path);
    }
    cJSON_Delete(doc);
}

static void run_dir(const char *dir, int draft, int depth)
{
    char *names[1024];
    int n = json_files(dir, names, 1024);
    char path[4096];
    for (int i = 0; i < n; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) < sizeof path)
            run_file(path, draft);
        free(names[i]);
    }
    if (depth < 2 &&
        (size_t)snprintf(path, sizeof path, "%s/%s", dir, depth ? "format" : "optional") < sizeof path)
        run_dir(path, draft, depth + 1);
}

static int draft_of(const char *a)
{
    if (!strcmp(a, "4")) return FORGE_DRAFT_4;
    if (!strcmp(a, "6")) return FORGE_DRAFT_6;
    if (!strcmp(a, "7")) return FORGE_DRAFT_7;
    if (!strcmp(a, "2019")) return FORGE_DRAFT_2019_09;
    if (!strcmp(a, "2020")) return FORGE_DRAFT_2020_12;
    return -1;
}

int main(int argc, char **argv)
{
    int draft = FORGE_DRAFT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--remotes") && i + 1 < argc) {
            refdir = (struct forge_schema_refdir){"http://localhost:1234/", argv[++i]};
            nrefdirs = 1;
        } else if (!strcmp(argv[i], "--draft") && i + 1 < argc) {
            if ((draft = draft_of(argv[++i])) < 0) {
                fprintf(stderr, "unknown draft '%s'\n", argv[i]);
                return 2;
            }
        } else {
            struct stat st;
            if (stat(argv[i], &st)) {
                fprintf(stderr, "%s: not found\n", argv[i]);
                return 2;
            }
            if (S_ISDIR(st.st_mode))
                run_dir(argv[i], draft, 0);
            else
                run_file(argv[i], draft);
        }
    }
    forge_schema_errors_free(&e1);
    forge_schema_errors_free(&e2);
    forge_schema_errors_free(&e3);
    printf("compared %ld instances (%ld invalid), %ld differ, %lu trails not followed\n", compared,
           invalid, differ, forge_schema_test_trail_misses());
    if (!invalid) {
        fprintf(stderr, "no invalid instance was compared\n");
        return 2;
    }
    return differ ? 1 : 0;
}
