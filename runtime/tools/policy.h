/* Tool policy and human approval for the agent loop.
 *
 * Policy (suite-wide, overridable per case), as JSON:
 *   tool_choice             "auto" | "none" | "required" | a tool name | {"name": ...}; applies
 *                           to the first model call of a case, later calls use "auto" (so
 *                           "required" cannot loop forever)
 *   max_rounds              model responses per case (default 10); the case's maxTurns caps it
 *   max_tool_calls_per_turn calls allowed in one model response (unset: no bound)
 *   max_total_tool_calls    calls allowed in the whole case (unset: no bound)
 *   blocklist               tool names never executed
 *   max_identical_calls     times the same call (name + arguments) may run (default 3); the
 *                           next one gets an error result, and one more ends the case
 *   approval                {"level": "autonomous"|"cautious"|"standard"|"paranoid",
 *                            "answer": "approve"|"deny"} (default cautious + approve); a Lua
 *                           suite may give a function instead of "answer"
 * A call over a limit, a blocklisted call and a denied call are not executed: each gets an
 * error result the model sees, and still counts as called. */
#ifndef FORGE_TOOLS_POLICY_H
#define FORGE_TOOLS_POLICY_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "data/callable.h"

struct forge_tool;

enum forge_approval_level {
    FORGE_APPROVE_AUTONOMOUS = 0, /* never asks */
    FORGE_APPROVE_CAUTIOUS,       /* asks for tools with requiresConfirmation */
    FORGE_APPROVE_STANDARD,       /* asks for tools that change things: category write, delete
                                     or side_effect, or an HTTP method other than GET/HEAD */
    FORGE_APPROVE_PARANOID,       /* asks for every call */
};

struct forge_policy {
    cJSON *tool_choice;     /* owned; NULL: auto */
    int max_rounds;
    int max_calls_per_turn; /* -1: unset */
    int max_total_calls;    /* -1: unset */
    char **blocklist;
    int nblock;
    int max_identical;      /* -1: unset */
    enum forge_approval_level level;
    bool deny;                    /* the answer when no function is given */
    struct forge_callable approve; /* approve(call) -> true/false [, reason]; ctx NULL: none */
    void (*approve_free)(void *ctx);
};

/* The defaults (max_rounds 10, max_identical_calls 3, cautious + approve). */
void forge_policy_init(struct forge_policy *p);

/* Applies the keys of <json> (borrowed) over <p>. Unknown keys and wrong types are FORGE_EINVAL
 * naming the key and <where>. */
int forge_policy_apply(struct forge_policy *p, const cJSON *json, const char *where,
                       struct forge_err *err);

/* Copies <src> into <dst> (deep; the approval function is shared, not owned by the copy). */
int forge_policy_copy(struct forge_policy *dst, const struct forge_policy *src);

void forge_policy_free(struct forge_policy *p);

bool forge_policy_blocked(const struct forge_policy *p, const char *tool);

/* Whether a call to <tool> (may be NULL) needs approval under the policy's level. */
bool forge_policy_needs_approval(const struct forge_policy *p, const struct forge_tool *tool);

/* Asks for approval of <call> ({"id", "name", "arguments"}). Returns a new record
 * {"level", "decision": "approved"|"denied", "by": "policy"|"function", "reason"?}. */
cJSON *forge_policy_ask(const struct forge_policy *p, const cJSON *call);

const char *forge_approval_level_name(enum forge_approval_level l);
#endif
