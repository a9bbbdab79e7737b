/* The agent loop: model <-> tools <-> verifiers until a final answer or a limit, producing the
 * trajectory of DESIGN.md.
 *
 * Per case: the user's message goes to the model with the tool definitions; each tool call the
 * model makes is checked (known tool, policy, approval, arguments against the tool's schema,
 * optionally coerced), executed (the case's stub for that tool when it has one, else the
 * tool's executor), verified, and its result (or error) goes back to the model; until the model
 * answers without calls, max_rounds is reached, or the identical-call breaker ends the case.
 * metadata.stop_reason says which: "final", "max_rounds", "identical_calls". */
#ifndef FORGE_AGENT_LOOP_H
#define FORGE_AGENT_LOOP_H
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_model;
struct forge_toolset;
struct forge_verifiers;
struct forge_policy;

struct forge_agent {
    struct forge_model *model;                /* borrowed */
    const struct forge_toolset *tools;        /* borrowed; may be NULL */
    const struct forge_verifiers *verifiers;  /* borrowed; may be NULL */
    const struct forge_policy *policy;        /* borrowed; NULL: defaults */
    const char *system;                       /* system prompt, may be NULL */
    const cJSON *params;                      /* model parameters (temperature, ...), may be NULL */
    int stream;                               /* ask for streamed answers ("stream": true) */
};

/* Runs the eval case <kase> (borrowed: id, input.message, stubs, maxTurns, policy). On success
 * sets *trajectory to a new forge trajectory and returns 0. A model failure returns its code
 * (FORGE_ENET after retries, FORGE_ELUA/FORGE_ELIMIT from a scripted model's rules) with <err>;
 * bad case input is FORGE_EINVAL. Tool failures are never errors here: they are recorded. */
int forge_agent_run(const struct forge_agent *a, const cJSON *kase, cJSON **trajectory,
                    struct forge_err *err);
#endif
