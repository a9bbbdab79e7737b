/* Suite results: scoring cases through the catalogue and the custom-assertion registry,
 * accumulating case results, and the suite report (summary, gates, baseline comparison).
 * The same path serves offline runs (`forge run --transcripts`) and live runs (the agent loop
 * produces a trajectory, then calls forge_eval_case and forge_suite_add). */
#ifndef FORGE_EVAL_SUITE_H
#define FORGE_EVAL_SUITE_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "eval/registry.h"

struct forge_eval_opts {
    const cJSON *seed;                      /* --seed FILE; may be NULL */
    const cJSON *snapshot;                  /* --snapshot FILE; may be NULL */
    const cJSON *tools;                     /* tool name -> argument schema; may be NULL */
    const struct forge_assertions *custom;  /* may be NULL */
    bool lean;                              /* results without passing assertions (see
                                             * forge_assert_opts.lean) */
};

/* Scores <kase> (validated; borrowed) against <traj> (forge-format trajectory; borrowed; NULL
 * when the case has none, which makes an error case). Sets *result to a new case result
 * (the shape of forge_assert_case). Returns 0 or FORGE_ENOMEM. */
int forge_eval_case(const cJSON *kase, const cJSON *traj, const struct forge_eval_opts *opts,
                    cJSON **result, struct forge_err *err);

/* Gates: a gate is checked only when its has_ flag is set. Bounds are inclusive. */
struct forge_gates {
    bool has_min_pass_rate, has_max_cost, has_max_p95_ms;
    double min_pass_rate; /* 0..1 */
    double max_cost;      /* USD, total */
    double max_p95_ms;
};

struct forge_suite;

/* Returns a new, empty accumulator (free with forge_suite_free) or NULL when out of memory. */
struct forge_suite *forge_suite_new(void);

/* Reserves room for <n> results' statistics up front (optional; a run that knows its case count
 * avoids growing, and large allocations late in a long run are slow). Returns 0 or FORGE_ENOMEM. */
int forge_suite_reserve(struct forge_suite *s, size_t n, struct forge_err *err);

/* Adds a case result (takes it, also on failure): counted and kept for the report's "cases".
 * Results are added in case order. Returns 0 or FORGE_ENOMEM. */
int forge_suite_add(struct forge_suite *s, cJSON *result, struct forge_err *err);

/* Counts a case result (borrowed) without keeping it: runs whose records live in a results file
 * (report/results.h) count them in a pass over that file, in case order, and their report's
 * "cases" stays empty (the report writers read the records from the file). Memory: 8 bytes a
 * case (its latency, for the percentiles) plus the baseline's index. Returns 0 or FORGE_ENOMEM. */
int forge_suite_count(struct forge_suite *s, const cJSON *result, struct forge_err *err);

/* Compares the results counted from now on with <baseline> (a previous report, borrowed: it
 * must outlive the suite) for "regressions" and "newPasses". Call it before the first add or
 * count; forge_suite_report(baseline) does it itself when it was not called. Returns 0 or
 * FORGE_ENOMEM. */
int forge_suite_set_baseline(struct forge_suite *s, const cJSON *baseline, struct forge_err *err);

/* The JUnit report's test suites: each distinct "suite" of the results (or "forge"), in
 * first-seen order, with its counts, as the results were added or counted. <first> and <last>
 * are the places (from 0, in the order counted) of its first and last results: when
 * last - first + 1 == tests, its results are contiguous. */
struct forge_suite_group {
    char *name;
    long tests, failed, errors, skipped;
    double ms;
    long first, last;
};
/* Borrows the groups (valid until the suite is freed or more results are added); sets *n. */
const struct forge_suite_group *forge_suite_groups(const struct forge_suite *s, int *n);

/* Builds the suite report from the results added so far (moving them into it; the counts and
 * groups stay until the suite is freed). <gates> may be NULL; <baseline> (borrowed, may be NULL) is a previous report
 * of the same shape. The report (a new tree, agent-tool-forge's EvalSuiteResult plus forge's
 * fields):
 *   { "runId", "timestamp", "passed": bool (every case passed, no error case, gates met),
 *     "cases": [results],
 *     "summary": {totalCases, passed, failed, errors, skipped, skippedAssertions, passRate,
 *                 passRateInterval: [low, high], score, totalDurationMs, p50LatencyMs,
 *                 p95LatencyMs, estimatedCostUsd},
 *     "gates": [{gate, threshold, actual, pass}],
 *     "baselineRunId"?, "regressions": [ids], "newPasses": [ids] }
 * pass rate = passed / (passed + failed); error and skipped cases are outside it. The run id and
 * timestamp come from the clock, or from SOURCE_DATE_EPOCH when it is set (reproducible
 * reports). Returns 0 or FORGE_ENOMEM. */
int forge_suite_report(struct forge_suite *s, const struct forge_gates *gates, const cJSON *baseline,
                       cJSON **report, struct forge_err *err);

void forge_suite_free(struct forge_suite *s);
#endif
