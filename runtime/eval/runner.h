/* Live suite runs: every case through the agent loop (model, tools, verifiers), then through the
 * eval engine, on N worker threads. Results stream to a callback and to the run's results file
 * (report/results.h) as cases finish, each at its place in case order, and are not kept. Cases
 * come from an array or are read one at a time from a case source (an eval file read lazily):
 * a worker takes the next case when it is free, so at most -j cases are in memory. Offline runs
 * (recorded transcripts) skip the loop and call forge_eval_case directly. */
#ifndef FORGE_EVAL_RUNNER_H
#define FORGE_EVAL_RUNNER_H
#include <cjson/cJSON.h>
#include "agent/loop.h"
#include "base/err.h"
#include "eval/suite.h"
#include "report/results.h"

struct forge_run_spec {
    const char *suite_name;          /* recorded on each case result as "suite" (may be NULL) */
    struct forge_agent agent;        /* model, tools, verifiers, policy, system, params */
    const cJSON *cases;              /* array of validated cases (borrowed), or NULL: */
    /* the case source: sets *kase to the next validated case (a new tree, taken) and returns 1,
     * 0 at the end, or an error (the run stops; it is returned). Called one call at a time. */
    int (*next_case)(void *ctx, cJSON **kase, struct forge_err *err);
    void *case_ctx;
    struct forge_results *results;   /* where the results go (borrowed) */
    bool results_traj;               /* each record carries its case's trajectory (the jsonl and
                                      * html reports show it) */
    size_t base;                     /* the place of this suite's first case in the run */
    struct forge_eval_opts eval;     /* seed, snapshot, argument schemas, custom assertions */
    int jobs;                        /* cases in flight (worker threads); < 1 means 1 */
    /* Called as each case finishes, one call at a time, with the case's place in the run (base
     * plus its index: where its result goes in spec->results), its result and trajectory (both
     * borrowed; the trajectory is NULL for an error case). May be NULL. */
    void (*on_case)(void *ud, size_t pos, const cJSON *result, const cJSON *trajectory);
    void *ud;
};

struct forge_run_stats {
    int cases;
    int infra_errors; /* cases whose model could not be reached (exit code 3) */
};

/* Runs every case of <spec> and puts each result in spec->results at spec->base plus the case's
 * index. A case whose model call fails is an error case carrying the message ("model error:
 * ..."); the run goes on. Returns 0, the case source's error, or FORGE_ENOMEM / FORGE_EIO
 * (the results file). */
int forge_run_suite(const struct forge_run_spec *spec, struct forge_run_stats *stats, struct forge_err *err);
#endif
