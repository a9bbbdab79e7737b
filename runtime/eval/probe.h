/* Tool-calling probes (`forge probe`): a probe is a request with a pass function (defined in Lua,
 * lua/forge/probes.lua); running it against a model gives one of big-AGI's outcome classes. */
#ifndef FORGE_EVAL_PROBE_H
#define FORGE_EVAL_PROBE_H
#include <cjson/cJSON.h>
#include "base/err.h"
#include "data/callable.h"
#include "model/model.h"

enum forge_probe_outcome {
    FORGE_PROBE_PASS,      /* the check passed */
    FORGE_PROBE_FAIL,      /* the model or the wire did not do what the probe asks */
    FORGE_PROBE_BLOCKED,   /* 429 or 503 after retries: transient, says nothing of the model */
    FORGE_PROBE_TRUNCATED, /* the answer was cut by the token limit: inconclusive */
    FORGE_PROBE_ERROR,     /* no verdict: the provider unreachable, a malformed answer, a check that raised */
};

/* "pass", "fail", "blocked", "truncated", "error". */
const char *forge_probe_outcome_name(enum forge_probe_outcome o);

struct forge_probe {
    char *name, *description;
    cJSON *request;         /* the normalized request (model.h), "stream": true when streamed */
    cJSON *roundtrip;       /* the canned result the calls get on round 2, or NULL */
    struct forge_callable check;     /* (response, info) -> pass [, reason] */
    struct forge_callable preflight; /* (wire body, dialect) -> nil | reason; .call NULL when none */
    void (*free_ctx)(void *);        /* frees the callables' contexts */
};

void forge_probe_free(struct forge_probe *p);

/* One run of a probe. */
struct forge_probe_result {
    enum forge_probe_outcome outcome;
    char reason[512];
    double latency_ms;      /* the model's time over the run's requests */
    cJSON *request;         /* the first wire body sent (or that would have been), new; may be NULL */
};

/* The wire body the model sends for a normalized request: set by the caller (provider models
 * have one; others leave it NULL and the preflight is skipped). */
typedef int (*forge_probe_wire_fn)(struct forge_model *m, const cJSON *req, cJSON **body, struct forge_err *err);

/* Runs <p> once against <m> (dialect <dialect>, e.g. "openai"). Always fills <out>; returns 0,
 * or FORGE_ENOMEM. */
int forge_probe_run(const struct forge_probe *p, struct forge_model *m, const char *dialect, forge_probe_wire_fn wire,
                    struct forge_probe_result *out);
#endif
