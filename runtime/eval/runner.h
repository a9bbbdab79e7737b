/* Live suite runs: every case through the agent loop (model, tools, verifiers), then through the
 * eval engine, on N worker threads. Results stream to a callback as cases finish and are added to
 * the suite accumulator in case order. Offline runs (recorded transcripts) skip the loop and
 * call forge_eval_case directly. */
#ifndef FORGE_EVAL_RUNNER_H
#define FORGE_EVAL_RUNNER_H
#include <cjson/cJSON.h>
#include "agent/loop.h"
#include "base/err.h"
#include "eval/suite.h"

struct forge_run_spec {
    const char *suite_name;          /* recorded on each case result as "suite" (may be NULL) */
    struct forge_agent agent;        /* model, tools, verifiers, policy, system, params */
    const cJSON *cases;              /* array of validated cases (borrowed) */
    struct forge_eval_opts eval;     /* seed, snapshot, argument schemas, custom assertions */
    int jobs;                        /* cases in flight (worker threads); < 1 means 1 */
    /* Called as each case finishes, one call at a time, with the case's result and trajectory
     * (both borrowed; the trajectory is NULL for an error case). May be NULL. */
    void (*on_case)(void *ud, const cJSON *result, const cJSON *trajectory);
    void *ud;
};

struct forge_run_stats {
    int cases;
    int infra_errors; /* cases whose model could not be reached (exit code 3) */
};

/* Runs every case of <spec> and adds the results to <suite>. A case whose model call fails is an
 * error case carrying the message ("model error: ..."); the run goes on. Returns 0, or
 * FORGE_ENOMEM. */
int forge_run_suite(const struct forge_run_spec *spec, struct forge_suite *suite,
                    struct forge_run_stats *stats, struct forge_err *err);
#endif
