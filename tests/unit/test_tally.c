/* Unit tests for eval/tally: a run's statistics counted as its results come, in case order,
 * with the report the same as counting every record in order. */
#include "test.h"
#include "base/alloc.h"
#include "data/json.h"
#include "eval/suite.h"
#include "eval/tally.h"
#include "report/results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 600

static cJSON *recs[N];

/* Case results of every kind: passed, failed, errors, skipped, weights, two suites, latencies
 * and costs that are not round, and members counting does not read (reasons, assertions). */
static void make_records(void)
{
    for (int i = 0; i < N; i++) {
        cJSON *r = cJSON_CreateObject();
        char id[32];
        snprintf(id, sizeof id, "case-%d", i);
        cJSON_AddStringToObject(r, "id", id);
        cJSON_AddBoolToObject(r, "passed", i % 3 != 0);
        cJSON_AddNumberToObject(r, "score", (i % 7) / 7.0);
        if (i % 5 == 0)
            cJSON_AddNumberToObject(r, "weight", 1 + i % 4);
        if (i % 11 == 0)
            cJSON_AddBoolToObject(r, "skipped", true);
        if (i % 13 == 0)
            cJSON_AddStringToObject(r, "error", "model error: timed out");
        cJSON_AddStringToObject(r, "reason", i % 3 ? "" : "Missing from response: rain");
        cJSON_AddNumberToObject(r, "latencyMs", 0.1 + i * 1.37);
        cJSON_AddNumberToObject(r, "durationMs", 0.3 + i * 0.71);
        cJSON_AddNumberToObject(r, "costUsd", 0.000123 * (i % 17));
        cJSON_AddNumberToObject(r, "skippedAssertions", i % 2);
        cJSON *a = cJSON_AddArrayToObject(r, "assertions");
        cJSON_AddItemToArray(a, cJSON_CreateString("toolsCalled"));
        cJSON_AddStringToObject(r, "suite", i < N / 2 ? "weather" : "travel");
        recs[i] = r;
    }
}

static void free_records(void)
{
    for (int i = 0; i < N; i++) {
        cJSON_Delete(recs[i]);
        recs[i] = NULL;
    }
}

/* The report of a suite, printed without its run id and time. */
static char *report_text(struct forge_suite *s, const cJSON *baseline)
{
    cJSON *rep = NULL;
    struct forge_err err = {0};
    if (forge_suite_report(s, NULL, baseline, &rep, &err))
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(rep, "runId");
    cJSON_DeleteItemFromObjectCaseSensitive(rep, "timestamp");
    int n = 0;
    const struct forge_suite_group *g = forge_suite_groups(s, &n);
    cJSON *groups = cJSON_AddArrayToObject(rep, "groups");
    for (int i = 0; i < n; i++) {
        char line[200];
        snprintf(line, sizeof line, "%s %ld %ld %ld %ld %.17g %ld %ld", g[i].name, g[i].tests, g[i].failed,
                 g[i].errors, g[i].skipped, g[i].ms, g[i].first, g[i].last);
        cJSON_AddItemToArray(groups, cJSON_CreateString(line));
    }
    char *t = cJSON_PrintUnformatted(rep);
    cJSON_Delete(rep);
    return t;
}

/* What counting every record in <present> in case order reports. */
static char *reference(const bool *present, const cJSON *baseline)
{
    struct forge_suite *s = forge_suite_new();
    struct forge_err err = {0};
    forge_suite_set_baseline(s, baseline, &err);
    for (int i = 0; i < N; i++)
        if (!present || present[i])
            forge_suite_count(s, recs[i], &err);
    char *t = report_text(s, baseline);
    forge_suite_free(s);
    return t;
}

/* Runs the tally over the places in <order> (<n> of them, each put in the results file first),
 * then counts the records from the place it returns on, as forge_live_report reads them back;
 * returns that report and sets *from. */
static char *tallied(const int *order, int n, const cJSON *baseline, size_t *from)
{
    struct forge_err err = {0};
    struct forge_results *res = forge_results_create(NULL, &err);
    struct forge_suite *s = forge_suite_new();
    forge_suite_set_baseline(s, baseline, &err);
    struct forge_tally *t = forge_tally_new(s);
    for (int k = 0; k < n; k++) {
        forge_results_put(res, (size_t)order[k], recs[order[k]], &err);
        forge_tally_add(t, (size_t)order[k], recs[order[k]]);
    }
    CHECK_INT(forge_tally_finish(t, res, from, &err), 0);
    for (size_t p = *from; p < forge_results_size(res); p++)
        if (forge_results_has(res, p))
            forge_suite_count(s, recs[p], &err);
    char *text = report_text(s, baseline);
    forge_tally_free(t);
    forge_suite_free(s);
    forge_results_close(res, false, NULL);
    return text;
}

static int order[N];

static void in_order(void)
{
    for (int i = 0; i < N; i++)
        order[i] = i;
}

/* The tally over <order> (<n> places) reports what counting the records in <present> (NULL:
 * all) in order does, having counted up to place <from> itself. Returns the report. */
static char *check_same(int n, const bool *present, const cJSON *baseline, long from_want)
{
    size_t from = 99;
    char *want = reference(present, baseline), *got = tallied(order, n, baseline, &from);
    CHECK_INT((long)from, from_want);
    CHECK_STR(got, want);
    cJSON_free(got);
    return want;
}

/* Results that come in order are all counted as they come: nothing is left to read back, and
 * the report is the one counting the records in order makes (sums, percentiles, groups). */
TEST(in_order_counts_everything)
{
    make_records();
    in_order();
    cJSON_free(check_same(N, NULL, NULL, N));
    free_records();
}

/* Results that come early wait for the places before them (as -j N finishes cases), up to the
 * window: the report is the same, with a baseline's regressions and new passes too. */
TEST(early_results_wait_for_their_turn)
{
    make_records();
    for (int i = 0; i < N; i++) /* each block of 40 backwards */
        order[i] = (i / 40) * 40 + 39 - i % 40;
    cJSON *base = cJSON_CreateObject(), *cases = cJSON_AddArrayToObject(base, "cases");
    for (int i = 0; i < N; i += 2) {
        cJSON *c = cJSON_CreateObject();
        char id[32];
        snprintf(id, sizeof id, "case-%d", i);
        cJSON_AddStringToObject(c, "id", id);
        cJSON_AddBoolToObject(c, "passed", i % 4 == 0);
        cJSON_AddItemToArray(cases, c);
    }
    char *want = check_same(N, NULL, base, N);
    CHECK(strstr(want, "\"regressions\":[\"case-0\"") != NULL); /* (the baseline did count) */
    cJSON_free(want);
    cJSON_Delete(base);
    free_records();
}

/* A place that never gets a record (a recorded run's case without a transcript) holds the
 * results after it waiting (fewer than the window here); at the end the tally passes over it,
 * as the reader does. */
TEST(places_without_records_are_passed_over)
{
    make_records();
    bool present[N];
    int n = 0;
    for (int i = 0; i < N; i++) {
        present[i] = i != N - 200 && i != N - 10;
        if (present[i])
            order[n++] = i;
    }
    cJSON_free(check_same(n, present, NULL, N));
    free_records();
}

/* More results than the window behind a missing place stop the tally there: the report counts
 * the rest read back, and is the same. */
TEST(a_full_window_leaves_the_rest_to_be_read_back)
{
    make_records();
    int n = 0;
    order[n++] = 0;
    for (int i = 2; i < N; i++)
        order[n++] = i;
    order[n++] = 1; /* place 1 comes last */
    cJSON_free(check_same(n, NULL, NULL, 1));
    free_records();
}

/* A record the results file would not give back as it is stops the tally at its place: a
 * latency that is not a number JSON holds, a suite or an id that is not UTF-8. A place given
 * twice stops it too. */
TEST(what_the_file_changes_is_read_back)
{
    const char *bad_member[] = {"latencyMs", "suite", "id"};
    for (int b = 0; b < 3; b++) {
        make_records();
        in_order();
        if (b == 0)
            cJSON_ReplaceItemInObjectCaseSensitive(recs[5], "latencyMs", cJSON_CreateNumber(NAN));
        else
            cJSON_ReplaceItemInObjectCaseSensitive(recs[5], bad_member[b], cJSON_CreateString("ab\xff"));
        struct forge_err err = {0};
        struct forge_results *res = forge_results_create(NULL, &err);
        struct forge_suite *s = forge_suite_new();
        struct forge_tally *t = forge_tally_new(s);
        for (int i = 0; i < 20; i++) {
            forge_results_put(res, (size_t)i, recs[i], &err);
            forge_tally_add(t, (size_t)i, recs[i]);
        }
        size_t from = 99;
        CHECK_INT(forge_tally_finish(t, res, &from, &err), 0);
        CHECK_INT((long)from, 5);
        forge_tally_free(t);
        forge_suite_free(s);
        forge_results_close(res, false, NULL);
        free_records();
    }
    make_records();
    struct forge_suite *s = forge_suite_new();
    struct forge_tally *t = forge_tally_new(s);
    struct forge_err err = {0};
    struct forge_results *res = forge_results_create(NULL, &err);
    forge_tally_add(t, 0, recs[0]);
    forge_tally_add(t, 3, recs[3]);
    forge_tally_add(t, 3, recs[3]);
    forge_tally_add(t, 1, recs[1]); /* (stopped: not counted) */
    for (int i = 0; i < 4; i++)
        forge_results_put(res, (size_t)i, recs[i], &err);
    size_t from = 99;
    CHECK_INT(forge_tally_finish(t, res, &from, &err), 0);
    CHECK_INT((long)from, 1);
    forge_tally_free(t);
    forge_suite_free(s);
    forge_results_close(res, false, NULL);
    free_records();
}

/* A waiting result keeps what counting reads, not a scorer's text: a long reason or error waits
 * (the report is the same), a long suite name stops the tally where it is. */
TEST(waiting_results_stay_small)
{
    make_records();
    static char big[5000];
    memset(big, 'x', sizeof big - 1);
    cJSON_ReplaceItemInObjectCaseSensitive(recs[3], "reason", cJSON_CreateString(big));
    cJSON_ReplaceItemInObjectCaseSensitive(recs[13], "error", cJSON_CreateString(big));
    for (int i = 0; i < N; i++) /* each block of 40 backwards */
        order[i] = (i / 40) * 40 + 39 - i % 40;
    cJSON_free(check_same(N, NULL, NULL, N));
    cJSON_ReplaceItemInObjectCaseSensitive(recs[5], "suite", cJSON_CreateString(big));
    cJSON_free(check_same(N, NULL, NULL, 0)); /* (place 5 came early: the tally stops at 0) */
    free_records();
}

/* Out of memory: copying a waiting result stops the tally (the rest is read back); a count that
 * fails makes forge_tally_finish fail, as reading back would. */
TEST(allocation_failures)
{
    make_records();
    struct forge_err err = {0};
    struct forge_results *res = forge_results_create(NULL, &err);
    for (int i = 0; i < 10; i++)
        forge_results_put(res, (size_t)i, recs[i], &err);
    cJSON_Hooks hooks = {forge_malloc, forge_free}; /* (cJSON's allocations fail too) */
    cJSON_InitHooks(&hooks);
    struct forge_suite *s = forge_suite_new();
    struct forge_tally *t = forge_tally_new(s);
    forge_tally_add(t, 0, recs[0]);
    forge_alloc_fail_at(1);
    forge_tally_add(t, 2, recs[2]); /* its copy fails */
    forge_alloc_fail_at(0);
    forge_tally_add(t, 1, recs[1]);
    size_t from = 99;
    CHECK_INT(forge_tally_finish(t, res, &from, &err), 0);
    CHECK_INT((long)from, 1);
    forge_tally_free(t);
    forge_suite_free(s);
    s = forge_suite_new();
    t = forge_tally_new(s);
    forge_alloc_fail_at(1);
    forge_tally_add(t, 0, recs[0]); /* the count's latency array fails */
    forge_alloc_fail_at(0);
    forge_tally_add(t, 1, recs[1]);
    CHECK_INT(forge_tally_finish(t, res, &from, &err), FORGE_ENOMEM);
    forge_tally_free(t);
    forge_suite_free(s);
    forge_results_close(res, false, NULL);
    free_records();
    cJSON_InitHooks(NULL);
}

int main(void)
{
    RUN(in_order_counts_everything);
    RUN(early_results_wait_for_their_turn);
    RUN(places_without_records_are_passed_over);
    RUN(a_full_window_leaves_the_rest_to_be_read_back);
    RUN(what_the_file_changes_is_read_back);
    RUN(waiting_results_stay_small);
    RUN(allocation_failures);
    return TEST_DONE();
}
