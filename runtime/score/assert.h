/* The assertion catalogue: scores one eval case (agent-tool-forge's `expect` form, its `checks`
 * form, and forge's additions) against the forge-format trajectory the case produced.
 * docs/assertions.md describes every assertion; this header is the C contract. */
#ifndef FORGE_SCORE_ASSERT_H
#define FORGE_SCORE_ASSERT_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "data/callable.h"

struct forge_assert_opts {
    const cJSON *seed;     /* {{seed:path}} source; NULL: seed tokens are unresolved */
    const cJSON *snapshot; /* {{snapshot:path}} source; NULL: snapshot tokens are unresolved */
    const cJSON *tools;    /* object: tool name -> JSON Schema of its arguments (argsMatchSchema);
                            * NULL when none is known */
    /* Finds the custom assertion <name> (borrowed), or NULL when none is registered. May be
     * NULL itself: then every `custom` assertion fails as unregistered. */
    const struct forge_callable *(*custom)(void *ctx, const char *name);
    void *custom_ctx;
    /* Leave passing assertions and toolsCalled out of the result (they still count in the score):
     * for runs whose reports show failures only. */
    bool lean;
};

/* Scores <kase> (one element of an eval file, already validated by forge_evalfile_*; borrowed)
 * against <traj> (a forge-format trajectory; borrowed; NULL makes an error case "no transcript").
 * Sets *out to a new result object (free with cJSON_Delete):
 *   { "id", "description"?, "label"?, "passed": bool, "skipped"?: true, "error"?: "...",
 *     "score": 0..1, "weight", "durationMs", "latencyMs": n|null, "costUsd": n|null,
 *     "reason": "failures joined with '; '"|null, "skippedAssertions": n, "warnings": [...],
 *     "toolsCalled": [...],
 *     "assertions": [{"type", "passed", "score", "reason"}] }
 * A case passes when every assertion passes; its score is the mean of its assertion scores
 * weighted by expect.weights (1 by default); a case with no assertion passes with score 1.
 * A case whose input.message is missing or empty is skipped, as agent-tool-forge does.
 * Errors inside an assertion (a bad regex subject, a failing custom assertion) fail that
 * assertion. Returns 0, or FORGE_ENOMEM. */
int forge_assert_case(const cJSON *kase, const cJSON *traj, const struct forge_assert_opts *opts,
                      cJSON **out, struct forge_err *err);

/* Builds the `run` object custom assertions receive for <traj> (borrowed; the result refers to
 * it and must be deleted before it): {response, tool_calls: [{name, arguments, result, error,
 * round, turn_id}], trajectory, latency_ms, cost_usd}; latency_ms and cost_usd are absent when
 * the trajectory does not give them. NULL when out of memory. */
cJSON *forge_assert_run_view(const cJSON *traj);

/* The default cop-out phrases of responseNonEmpty, NULL-terminated. */
extern const char *const forge_assert_copouts[];

/* 1 when <needle> occurs in <hay> ignoring case (Unicode simple case folding), 0 when not,
 * negative with <err> on invalid UTF-8. */
int forge_assert_icontains(const char *hay, const char *needle, struct forge_err *err);
#endif
