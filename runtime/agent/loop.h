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

/* A conversation turn as a service holds it: the history comes in, grows by the user's message,
 * the model's answers and the tool results, and goes out; events are reported as they happen;
 * a call that needs approval pauses the turn instead of asking the policy, and a later call
 * resumes it with the user's decision.
 *
 * Events (<type>, <data> borrowed for the call): "text" {content}, "text_delta" {content} (each
 * text piece of a streaming model's answer as it arrives, see forge_model_text_set; one piece
 * with the whole text of a response from a model that does not stream), "tool_call" {id,
 * tool, args}, "tool_result" {id, tool, result, error}, "tool_warning" {id, tool, message,
 * verifier}. The caller reports "session", "hitl", "done" and "error" itself. */
typedef void (*forge_agent_event_fn)(void *ctx, const char *type, const cJSON *data);

struct forge_agent_chat {
    /* in */
    cJSON *messages;          /* the history (normalized messages); taken, and given back
                                 updated in the same field (the caller frees it) */
    const char *message;      /* the user's new message; NULL when resuming */
    const cJSON *resume;      /* the paused state a previous turn returned ({"calls", "round",
                                 "total"}), borrowed; NULL for a new message */
    int approved;             /* resuming: the user's decision on the first paused call */
    const char *case_id;      /* passed to the model as case_id (scripted rules); may be NULL */
    forge_agent_event_fn on_event; /* may be NULL */
    void *event_ctx;
    int (*stop)(void *ctx);   /* polled before each model request and each call, and (through
                                 forge_http_cancel_set, on the calling thread) by an HTTP request
                                 in flight, the model's included, which it cancels: nonzero ends
                                 the turn with status "stopped" (client gone, deadline); must be
                                 cheap and safe to call often; may be NULL */
    void *stop_ctx;
    /* called before a call that passed every check runs, with {"id", "name", "arguments"};
     * setting *deny (a new string) refuses it: the call gets that error. May be NULL. */
    void (*gate)(void *ctx, const cJSON *call, char **deny);
    void *gate_ctx;
    /* out */
    const char *status;       /* "final", "paused", "max_rounds", "identical_calls", "stopped" */
    cJSON *paused;            /* status "paused": the state to resume with (new) */
    cJSON *pending_call;      /* status "paused": {"id", "name", "arguments"} of the call that
                                 waits (new) */
    char *text;               /* the last model text of the turn (new; may be "") */
    cJSON *calls;             /* this turn's call records, as in a trajectory (new) */
    double input_tokens, output_tokens;
    int rounds, warnings, approvals;
};

/* Runs one turn of <c>. Tool failures, policy refusals and verifier blocks are data (recorded,
 * shown to the model). Returns 0, or a model failure's code with <err> (the history then holds
 * what happened before it). Free the outputs with forge_agent_chat_free. */
int forge_agent_chat_run(const struct forge_agent *a, struct forge_agent_chat *c,
                         struct forge_err *err);
/* Frees the outputs and the history of <c>. */
void forge_agent_chat_free(struct forge_agent_chat *c);
#endif
