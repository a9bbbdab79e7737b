/* Unit tests for report/results (the results file: records written in any order, read back in
 * case order, light and whole) and the streaming report writers, which must write byte for byte
 * what the in-memory report gives; and eval/cases (eval files a case at a time). */
#include "test.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "eval/cases.h"
#include "eval/evalfile.h"
#include "eval/suite.h"
#include "report/report.h"
#include "report/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A result: every 3rd fails with two assertions, every 7th is an error, every 11th skipped; the
 * suites alternate in runs of 4, so "b" comes back after "a" (JUnit's suites are not one run). */
static cJSON *result(int i)
{
    char buf[1024];
    const char *suite = (i / 4) % 3 == 1 ? "b" : "a";
    if (i % 7 == 6)
        snprintf(buf, sizeof buf, "{\"id\":\"c%03d\",\"passed\":false,\"error\":\"no transcript <&>\",\"durationMs\":0,"
                 "\"suite\":\"%s\"}", i, suite);
    else if (i % 11 == 10)
        snprintf(buf, sizeof buf, "{\"id\":\"c%03d\",\"passed\":false,\"skipped\":true,\"reason\":\"no input\","
                 "\"durationMs\":1,\"suite\":\"%s\"}", i, suite);
    else
        snprintf(buf, sizeof buf, "{\"id\":\"c%03d\",\"description\":\"d|%d\\n\",\"passed\":%s,\"score\":%g,\"weight\":%d,"
                 "\"durationMs\":%d.25,\"latencyMs\":%d,\"costUsd\":0.000%d,\"reason\":%s,\"skippedAssertions\":%d,"
                 "\"toolsCalled\":[\"t\"],\"warnings\":[\"w%d\"],\"assertions\":[{\"type\":\"toolsCalled\",\"passed\":%s,"
                 "\"score\":0,\"reason\":\"missing: \\\"t\\\"\"},{\"type\":\"regex\",\"passed\":true,\"score\":1,"
                 "\"reason\":null}],\"suite\":\"%s\"}",
                 i, i, i % 3 == 2 ? "false" : "true", i % 3 == 2 ? 0.5 : 1.0, 1 + i % 2, 100 + i, 100 + (i * 37) % 91,
                 1 + i % 9, i % 3 == 2 ? "\"missing: \\\"t\\\"\"" : "null", i % 5 == 0, i,
                 i % 3 == 2 ? "false" : "true", suite);
    cJSON *r = cJSON_Parse(buf);
    CHECK(r != NULL);
    return r;
}

#define N 40

static char *stream(const char *format, const struct forge_report_src *src)
{
    struct forge_report_sink sink = {0};
    forge_buf_init(&sink.buf, 0);
    struct forge_err err = {0};
    int rc = format ? forge_report_stream(format, &sink, src, &err) : forge_report_stream_summary(&sink, src, &err);
    CHECK_INT(rc, 0);
    return forge_buf_take(&sink.buf);
}

TEST(streamed_reports_equal_the_in_memory_ones)
{
    setenv("SOURCE_DATE_EPOCH", "1763700000", 1);
    struct forge_err err = {0};
    /* a baseline in which every case passed except c001: regressions and a new pass */
    cJSON *base = cJSON_Parse("{\"runId\":\"run-x\",\"cases\":[{\"id\":\"c001\",\"passed\":false},"
                              "{\"id\":\"c002\",\"passed\":true},{\"id\":\"c005\",\"passed\":true}]}");
    struct forge_gates g = {.has_min_pass_rate = true, .min_pass_rate = 0.9, .has_max_p95_ms = true,
                            .max_p95_ms = 150};
    /* in memory: the results added, in order */
    struct forge_suite *mem = forge_suite_new();
    for (int i = 0; i < N; i++) CHECK_INT(forge_suite_add(mem, result(i), &err), 0);
    cJSON *full = NULL;
    CHECK_INT(forge_suite_report(mem, &g, base, &full, &err), 0);

    /* on disk: written in another order (as cases finish), counted back in case order */
    struct forge_results *res = forge_results_create(NULL, &err);
    CHECK(res != NULL);
    for (int k = 0; k < N; k++) {
        int i = (k * 7) % N; /* 7 and 40 are coprime: every place once */
        cJSON *r = result(i);
        CHECK_INT(forge_results_put(res, (size_t)i, r, &err), 0);
        cJSON_Delete(r);
    }
    cJSON *again = cJSON_CreateObject();
    CHECK_INT(forge_results_put(res, 3, again, &err), FORGE_EINTERNAL); /* a place once */
    cJSON_Delete(again);
    struct forge_suite *disk = forge_suite_new();
    CHECK_INT(forge_suite_set_baseline(disk, base, &err), 0);
    struct forge_results_iter it;
    forge_results_iter_init_light(&it, res);
    const cJSON *r;
    int got, n = 0;
    while ((got = forge_results_next(&it, &r, &err)) > 0) {
        /* a light record: the summary members only, the whole one on demand */
        CHECK(cJSON_GetObjectItem(r, "assertions") == NULL);
        CHECK_INT(forge_suite_count(disk, r, &err), 0);
        const cJSON *w;
        CHECK_INT(forge_results_iter_full(&it, &w, &err), 0);
        cJSON *want = result(n);
        CHECK(forge_json_equal(w, want));
        cJSON_Delete(want);
        n++;
    }
    forge_results_iter_done(&it);
    CHECK_INT(got, 0);
    CHECK_INT(n, N);
    cJSON *head = NULL;
    CHECK_INT(forge_suite_report(disk, &g, NULL, &head, &err), 0);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(head, "cases")), 0);
    struct forge_report_src tree = {.report = full}, file = {.report = head, .results = res};
    file.groups = forge_suite_groups(disk, &file.ngroups);
    CHECK_INT(file.ngroups, 2);
    const char *formats[] = {"json", "junit", "md", NULL};
    for (int f = 0; f < 4; f++) {
        char *a = stream(formats[f], &tree), *b = stream(formats[f], &file);
        CHECK_STR(b, a);
        forge_free(a);
        forge_free(b);
    }
    /* the streamed JSON is JSON.stringify(report, null, 2) of the whole tree */
    struct forge_buf want;
    forge_buf_init(&want, 0);
    CHECK_INT(forge_json_write(&want, full, FORGE_JSON_PRETTY), 0);
    forge_buf_addc(&want, '\n');
    char *j = stream("json", &file);
    CHECK_STR(j, want.data);
    forge_free(j);
    forge_buf_free(&want);
    char *regs = forge_json_print(cJSON_GetObjectItem(head, "regressions"), 0);
    CHECK_STR(regs, "[\"c002\",\"c005\"]");
    forge_free(regs);

    /* the jsonl report copies the records in case order */
    char path[] = "/tmp/forge-test-results-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_INT(forge_report_write_jsonl(path, res, &err), 0);
    FILE *fp = fopen(path, "r");
    char line[4096];
    for (int i = 0; i < N && fgets(line, sizeof line, fp); i++) {
        cJSON *got_r = cJSON_Parse(line), *want_r = result(i);
        CHECK(forge_json_equal(got_r, want_r));
        cJSON_Delete(got_r);
        cJSON_Delete(want_r);
    }
    fclose(fp);

    /* an index over that file: places given, a place taken twice refused */
    struct forge_results *ix = forge_results_index();
    int src = forge_results_source(ix, path, &err);
    CHECK_INT(src, 0);
    CHECK_INT(forge_results_place(ix, 1, src, 0, &err), 0);
    CHECK_INT(forge_results_place(ix, 1, src, 0, &err), 1);
    cJSON *back = NULL;
    CHECK_INT(forge_results_read(ix, 1, &back, &err), 0);
    CHECK_STR(forge_json_str(back, "id"), "c000");
    cJSON_Delete(back);
    CHECK(!forge_results_has(ix, 0));
    CHECK_INT(forge_results_read(ix, 0, &back, &err), 0);
    CHECK(back == NULL);
    forge_results_close(ix, false, NULL);
    unlink(path);

    forge_results_close(res, false, NULL);
    cJSON_Delete(head);
    cJSON_Delete(full);
    forge_suite_free(disk);
    forge_suite_free(mem);
    cJSON_Delete(base);
}

TEST(many_records_through_the_write_buffer)
{
    /* more than the 64 KiB a temporary file buffers, written backwards */
    struct forge_err err = {0};
    struct forge_results *res = forge_results_create(NULL, &err);
    CHECK(res != NULL);
    char id[32];
    for (int i = 2999; i >= 0; i--) {
        cJSON *r = cJSON_CreateObject();
        snprintf(id, sizeof id, "r%04d", i);
        cJSON_AddStringToObject(r, "id", id);
        cJSON_AddStringToObject(r, "pad", "....................................................");
        CHECK_INT(forge_results_put(res, (size_t)i, r, &err), 0);
        cJSON_Delete(r);
    }
    CHECK_INT(forge_results_size(res), 3000);
    struct forge_results_iter it;
    forge_results_iter_init(&it, res);
    const cJSON *r;
    int n = 0, got;
    while ((got = forge_results_next(&it, &r, &err)) > 0) {
        snprintf(id, sizeof id, "r%04d", n++);
        CHECK_STR(forge_json_str(r, "id"), id);
    }
    forge_results_iter_done(&it);
    CHECK_INT(got, 0);
    CHECK_INT(n, 3000);
    forge_results_close(res, false, NULL);
}

/* The failing pass reads only failures and errors: passed and skipped cases are passed over by
 * place (across the words of the bit set: 2,000 places, written out of order). */
TEST(failing_records_alone)
{
    struct forge_err err = {0};
    struct forge_results *res = forge_results_create(NULL, &err);
    CHECK(res != NULL);
    char id[32];
    for (int i = 1999; i >= 0; i--) {
        cJSON *r = cJSON_CreateObject();
        snprintf(id, sizeof id, "c%04d", i);
        cJSON_AddStringToObject(r, "id", id);
        cJSON_AddBoolToObject(r, "passed", i % 7 != 3 && i % 11 != 5);
        if (i % 13 == 0) cJSON_AddBoolToObject(r, "skipped", true);
        if (i % 11 == 5) cJSON_AddStringToObject(r, "error", "no transcript");
        if (i % 17 == 1) cJSON_AddNullToObject(r, "error"); /* an error member, even null, is an error */
        CHECK_INT(forge_results_put(res, (size_t)i, r, &err), 0);
        cJSON_Delete(r);
    }
    struct forge_results_iter it;
    forge_results_iter_init_failing(&it, res);
    const cJSON *r;
    int got, n = 0, want = 0;
    int next = 0;
    while ((got = forge_results_next(&it, &r, &err)) > 0) {
        int i = atoi(forge_json_str(r, "id") + 1);
        /* every place before i that was skipped over passed or was skipped */
        for (; next < i; next++)
            CHECK((next % 7 != 3 || next % 13 == 0) && next % 11 != 5 && next % 17 != 1);
        CHECK(i % 7 == 3 || i % 11 == 5 || i % 17 == 1);
        next = i + 1;
        n++;
    }
    forge_results_iter_done(&it);
    CHECK_INT(got, 0);
    for (int i = 0; i < 2000; i++)
        want += ((i % 7 == 3 && i % 13 != 0) || i % 11 == 5 || i % 17 == 1);
    CHECK_INT(n, want);
    forge_results_close(res, false, NULL);
}

TEST(records_carry_trajectories_that_readers_take_apart)
{
    struct forge_err err = {0};
    char path[] = "/tmp/forge-test-traj-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    struct forge_results *res = forge_results_create(path, &err);
    CHECK(res != NULL);
    cJSON *traj = cJSON_Parse("{\"trajectory_id\":\"a\",\"turns\":[{\"role\":\"user\",\"content\":\"}{\"}]}");
    cJSON *ra = cJSON_Parse("{\"id\":\"a\",\"passed\":true,\"durationMs\":1}");
    cJSON *rb = cJSON_Parse("{\"id\":\"b\",\"passed\":false,\"error\":\"no transcript\"}");
    cJSON *empty = cJSON_CreateObject();
    /* finished out of order: b (an error case, no trajectory), then a, then an empty record */
    CHECK_INT(forge_results_put_case(res, 1, rb, NULL, &err), 0);
    CHECK_INT(forge_results_put_case(res, 0, ra, traj, &err), 0);
    CHECK_INT(forge_results_put_case(res, 2, empty, traj, &err), 0);
    CHECK_INT(forge_results_put_case(res, 0, ra, traj, &err), FORGE_EINTERNAL);
    /* the line as the JSONL report has it: the result's members, then "trajectory" */
    struct forge_buf line;
    forge_buf_init(&line, 0);
    CHECK_INT(forge_results_copy(res, 0, &line, &err), 0);
    CHECK_INT(forge_buf_addc(&line, '\0'), 0);
    CHECK_STR(line.data, "{\"id\":\"a\",\"passed\":true,\"durationMs\":1,\"trajectory\":{\"trajectory_id\":\"a\","
                         "\"turns\":[{\"role\":\"user\",\"content\":\"}{\"}]}}");
    forge_buf_reset(&line);
    CHECK_INT(forge_results_copy(res, 2, &line, &err), 0);
    CHECK_INT(forge_buf_addc(&line, '\0'), 0);
    CHECK_STR(line.data, "{\"trajectory\":{\"trajectory_id\":\"a\",\"turns\":[{\"role\":\"user\",\"content\":\"}{\"}]}}");
    forge_buf_free(&line);
    /* whole records come back without it, the trajectory apart; in case order */
    struct forge_results_iter it;
    forge_results_iter_init(&it, res);
    const cJSON *r;
    CHECK_INT(forge_results_next(&it, &r, &err), 1);
    CHECK(forge_json_equal(r, ra));
    CHECK(forge_json_equal(it.traj, traj));
    CHECK_INT(forge_results_next(&it, &r, &err), 1);
    CHECK(forge_json_equal(r, rb));
    CHECK(it.traj == NULL);
    CHECK_INT(forge_results_next(&it, &r, &err), 1);
    CHECK(forge_json_equal(r, empty));
    CHECK(forge_json_equal(it.traj, traj));
    CHECK_INT(forge_results_next(&it, &r, &err), 0);
    CHECK(it.traj == NULL);
    forge_results_iter_done(&it);
    /* light records skip it; the whole record on demand is taken apart too */
    forge_results_iter_init_light(&it, res);
    CHECK_INT(forge_results_next(&it, &r, &err), 1);
    CHECK(cJSON_GetObjectItem(r, "trajectory") == NULL && it.traj == NULL);
    CHECK_STR(forge_json_str(r, "id"), "a");
    CHECK_INT(forge_results_iter_full(&it, &r, &err), 0);
    CHECK(forge_json_equal(r, ra));
    CHECK(forge_json_equal(it.traj, traj));
    forge_results_iter_done(&it);
    CHECK_INT(forge_results_close(res, true, &err), 0);
    unlink(path);
    cJSON_Delete(traj);
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    cJSON_Delete(empty);
}

static char *write_tmp(const char *text)
{
    char *path = forge_strdup("/tmp/forge-test-cases-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* The error of reading <text> a case at a time equals the one of reading it whole (<exact>), or
 * at least names the file, line and column (a broken array: the command line then reports the
 * whole file's message). */

static int id_is(void *ctx, size_t place, const char *id)
{
    return strcmp(((char (*)[16])ctx)[place], id) == 0;
}

static int id_fails(void *ctx, size_t place, const char *id)
{
    (void)ctx, (void)place, (void)id;
    return -1;
}

static uint64_t one_hash(const char *id)
{
    (void)id;
    return 42;
}

static void same_error(const char *text, bool exact)
{
    char *path = write_tmp(text);
    struct forge_err whole = {0}, lazy = {0};
    cJSON *t = NULL;
    CHECK(forge_evalfile_load(path, &t, &whole) != 0);
    struct forge_cases *c = forge_cases_open(path, &lazy);
    CHECK(c != NULL);
    cJSON *k;
    int index, got;
    uint64_t off;
    while ((got = forge_cases_next(c, &k, &index, &off, &lazy)) > 0) cJSON_Delete(k);
    CHECK(got < 0);
    if (exact) CHECK_STR(lazy.msg, whole.msg);
    else CHECK(strncmp(lazy.msg, path, strlen(path)) == 0 && lazy.msg[strlen(path)] == ':');
    forge_cases_close(c);
    unlink(path);
    forge_free(path);
}

TEST(cases_a_case_at_a_time)
{
    const char *text = "[\n  {\"id\": \"a\", \"input\": {\"message\": \"x\"}},\n"
                       "  {\"id\": \"b\", \"input\": {\"message\": \"y [\\\"]\"}, \"expect\": {\"responseNonEmpty\": true}}\n]\n";
    char *path = write_tmp(text);
    CHECK(forge_cases_lazy(path));
    struct forge_err err = {0};
    struct forge_cases *c = forge_cases_open(path, &err);
    CHECK(c != NULL);
    cJSON *k;
    int index;
    uint64_t off[2];
    CHECK_INT(forge_cases_next(c, &k, &index, &off[0], &err), 1);
    CHECK_STR(forge_json_str(k, "id"), "a");
    CHECK_INT(index, 0);
    cJSON_Delete(k);
    CHECK_INT(forge_cases_next(c, &k, &index, &off[1], &err), 1);
    CHECK_STR(forge_json_str(k, "id"), "b");
    cJSON_Delete(k);
    uint64_t end;
    CHECK_INT(forge_cases_next(c, &k, &index, &end, &err), 0);
    CHECK_INT(forge_cases_read_at(c, off[0], 0, "a", &k, &err), 0);
    CHECK_STR(forge_json_str(k, "id"), "a");
    cJSON_Delete(k);
    CHECK_INT(forge_cases_read_at(c, off[0], 0, "b", &k, &err), FORGE_EIO); /* not that case any more */
    CHECK(k == NULL);
    CHECK_INT(forge_cases_read_at(c, off[1], 1, "b", &k, &err), 0); /* its length known: not framed again */
    CHECK_STR(forge_json_str(forge_json_get(k, "input"), "message"), "y [\"]");
    cJSON_Delete(k);
    CHECK_INT(forge_cases_rewind(c, &err), 0);
    CHECK_INT(forge_cases_next(c, &k, &index, &off[0], &err), 1);
    CHECK_STR(forge_json_str(k, "id"), "a");
    cJSON_Delete(k);
    forge_cases_close(c);
    /* the file cut short after its cases were read: case b is gone, said plainly */
    c = forge_cases_open(path, &err);
    CHECK(c != NULL);
    CHECK_INT(forge_cases_next(c, &k, &index, &off[0], &err), 1);
    cJSON_Delete(k);
    CHECK_INT(forge_cases_next(c, &k, &index, &off[1], &err), 1);
    cJSON_Delete(k);
    CHECK_INT(truncate(path, (off_t)strlen(text) - 12), 0);
    CHECK_INT(forge_cases_read_at(c, off[1], 1, "b", &k, &err), FORGE_EIO);
    CHECK(strstr(err.msg, "case [1] cannot be read again (was the file changed?)") != NULL);
    CHECK(k == NULL);
    forge_cases_close(c);
    unlink(path);
    forge_free(path);

    /* errors name the same file:line:col as reading the file whole */
    same_error("[\n  {\"id\": \"a\", \"input\": {\"message\": \"x\"}},\n  {\"id\": \"b\", \"input\": {\"mesage\": \"y\"}}\n]", true);
    same_error("[{\"id\": \"a\", \"input\": {\"message\": \"x\"}}, {\"id\": \"b\", \"input\": {\"message\": \"y\"},\n"
               "  \"expect\": {\"toolsCaled\": [\"get_weather\"]}}]", true);
    same_error("[\n {\"id\": \"\u00e9t\u00e9\", \"description\": \"\xc3\xa9t\xc3\xa9\", \"input\": {\"message\": \"x\"}, "
               "\"expect\": {\"maxLatencyMs\": \"x\"}}]", true);
    same_error("[{\"id\": \"a\", \"input\": {\"message\": \"x\", \"bad\": \"\xff\"}}]", true);
    same_error("[1]", true);
    same_error("[{\"id\": \"a\", \"input\": {\"message\": \"x\"}},\n {\"id\": \"b\", \"input\": {\"message\": \"y\" ]", false);
    same_error("[{\"id\": \"a\", \"input\": {\"message\": \"x\"}}\n {\"id\": \"b\"}]", false);
    same_error("[{\"id\": \"a\", \"input\": {\"message\": \"x\"}}] x", false);
    same_error("[{\"id\": \"a\", \"input\": {\"message\": \"x\"}},", false);

    struct forge_idset *s = forge_idset_new();
    static char ids[5000][16];
    for (int i = 0; i < 5000; i++) {
        snprintf(ids[i], sizeof ids[i], "id-%d", i);
        CHECK_INT(forge_idset_add(s, ids[i], id_is, ids), i);
    }
    CHECK_INT(forge_idset_add(s, "id-4321", id_is, ids), -1 - 4321);
    CHECK_INT(forge_idset_find(s, "id-17", id_is, ids), 17);
    CHECK_INT(forge_idset_find(s, "id-5000", id_is, ids), -1);
    CHECK_INT(forge_idset_count(s), 5000);
    forge_idset_free(s);
    /* every id hashed alike: told apart by their text alone */
    s = forge_idset_new_hash(one_hash);
    for (int i = 0; i < 300; i++) CHECK_INT(forge_idset_add(s, ids[i], id_is, ids), i);
    CHECK_INT(forge_idset_add(s, "id-299", id_is, ids), -1 - 299);
    CHECK_INT(forge_idset_add(s, "id-0", id_is, ids), -1);
    CHECK_INT(forge_idset_find(s, "id-150", id_is, ids), 150);
    CHECK_INT(forge_idset_find(s, "id-300", id_is, ids), -1);
    CHECK_INT(forge_idset_find(s, "id-7", id_fails, ids), INT64_MIN);
    CHECK_INT(forge_idset_count(s), 300);
    forge_idset_free(s);
}

/* Cases parsed where they lie in the read window, or framed first when the window holds part
 * of one (at its 64 KiB edges) or the fast reader gives up on one (a number of 63 characters or
 * more): every case reads as the whole file's tree, from the stream and again at its offset. */
TEST(cases_across_the_window_and_the_slow_path)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    CHECK_INT(forge_buf_adds(&b, "["), 0);
    int n = 3000;
    for (int i = 0; i < n; i++) {
        char pad[200];
        memset(pad, 'a' + i % 26, (size_t)(i % 170));
        pad[i % 170] = 0;
        CHECK_INT(forge_buf_addf(&b, "%s\n {\"id\": \"c%d\", \"input\": {\"message\": \"%s \\\" \\u00e9\"}", i ? "," : "", i,
                                 pad), 0);
        if (i % 500 == 7)
            CHECK_INT(forge_buf_adds(&b, ", \"weight\": 1.000000000000000000000000000000000000000000000000000000000000000001"), 0);
        CHECK_INT(forge_buf_adds(&b, ", \"expect\": {\"custom\": {\"x\": [1, {\"k\": null}]}}}"), 0);
    }
    CHECK_INT(forge_buf_adds(&b, "\n]\n"), 0);
    CHECK(b.len > 4 * 65536);
    char *path = write_tmp(b.data);
    forge_buf_free(&b);
    struct forge_err err = {0};
    cJSON *whole = NULL;
    CHECK_INT(forge_evalfile_load(path, &whole, &err), 0);
    struct forge_cases *c = forge_cases_open(path, &err);
    CHECK(c != NULL);
    uint64_t *off = forge_calloc((size_t)n, sizeof *off);
    const cJSON *want = whole ? whole->child : NULL;
    cJSON *k;
    int index, got, i = 0;
    while ((got = forge_cases_next(c, &k, &index, &off[i < n ? i : 0], &err)) > 0) {
        CHECK_INT(index, i);
        CHECK(want && cJSON_Compare(k, want, true));
        cJSON_Delete(k);
        want = want ? want->next : NULL;
        i++;
    }
    CHECK_INT(got, 0);
    CHECK_INT(i, n);
    CHECK(forge_json_num(cJSON_GetArrayItem(whole, 7), "weight", 0) == 1.0);
    for (i = n - 1; i >= 0; i -= 7) {
        char id[16];
        snprintf(id, sizeof id, "c%d", i);
        CHECK_INT(forge_cases_read_at(c, off[i], i, id, &k, &err), 0);
        CHECK(cJSON_Compare(k, cJSON_GetArrayItem(whole, i), true));
        cJSON_Delete(k);
    }
    forge_free(off);
    forge_cases_close(c);
    cJSON_Delete(whole);
    unlink(path);
    forge_free(path);
}

int main(void)
{
    RUN(streamed_reports_equal_the_in_memory_ones);
    RUN(many_records_through_the_write_buffer);
    RUN(failing_records_alone);
    RUN(records_carry_trajectories_that_readers_take_apart);
    RUN(cases_a_case_at_a_time);
    RUN(cases_across_the_window_and_the_slow_path);
    return TEST_DONE();
}
