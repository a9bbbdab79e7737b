/* A model: given a normalized chat request, returns the assistant's next message.
 * Every provider dialect, the offline scripted model and the replay model implement this.
 *
 * Request (cJSON, borrowed):
 *   { "system": "...",                                   optional
 *     "messages": [
 *        {"role": "user", "content": "..."},
 *        {"role": "assistant", "content": "..." | null,
 *         "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {...}}],
 *         "provider_data": {...}},                      opaque per-dialect data to send back
 *                                                        (Gemini thought signatures, ...)
 *        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
 *         "content": "<result as text; JSON results are JSON text>", "is_error": false} ],
 *     "tools": [{"name": "...", "description": "...", "parameters": {JSON Schema}}],
 *     "tool_choice": "auto" | "none" | "required" | {"name": "get_weather"},   optional
 *     "parallel_tool_calls": true,                       optional
 *     "params": {"temperature": 0, "max_tokens": 1024} } optional
 * Response (a new cJSON tree):
 *   { "message": {"role": "assistant", "content": "..." | null, "tool_calls": [...],
 *                 "provider_data": {...}},
 *     "finish_reason": "stop" | "tool_calls" | "length" | "content_filter" | "error" | ...,
 *     "usage": {"input_tokens": 0, "output_tokens": 0},
 *     "cost_usd": 0, "latency_ms": 0, "cached": false }
 * Tool call arguments are always a JSON object in both directions (dialects that carry JSON
 * text decode and encode it). Every tool call in the history must have a tool message.
 * A call whose arguments a provider sent as text that is not a JSON object keeps
 * "arguments": {} and adds "arguments_text" (the raw text) and "arguments_error" (why).
 * provider_data keys per dialect: "gemini" {"parts"}, "anthropic" {"thinking"},
 * "openai_responses" {"reasoning"}; send the assistant message back with it unchanged.
 * The HTTP providers are opened with model/provider.h. */
#ifndef FORGE_MODEL_MODEL_H
#define FORGE_MODEL_MODEL_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_model;

struct forge_model_ops {
    /* Completes <req>; on success *resp is a new tree. Errors: FORGE_ENET (provider
     * unreachable or failing after retries; message from the provider, never a key),
     * FORGE_EINVAL (the request cannot be expressed), FORGE_ELUA/ELIMIT (scripted rules). */
    int (*complete)(struct forge_model *m, const cJSON *req, cJSON **resp, struct forge_err *err);
    void (*free)(struct forge_model *m);
};

struct forge_model {
    const struct forge_model_ops *ops;
    char *provider; /* "openai", "anthropic", "scripted", ... (owned) */
    char *name;     /* the model name (owned) */
};

/* Receives a piece of a streamed answer's text as it arrives (<piece>, <len> bytes, borrowed
 * for the call, not NUL-terminated). */
typedef void (*forge_model_text_fn)(void *ctx, const char *piece, size_t len);

/* Sets the text receiver for every forge_model_complete made on the calling thread from now on
 * (NULL: none), returning the previous one in *prev_fn / *prev_ctx (may be NULL) so a caller can
 * restore it. A provider model with streaming on hands it each text piece of the answer as the
 * provider sends it (thinking excluded); the whole answer is still returned as usual. Other
 * models (scripted, replayed, cached answers) hand it nothing. A stream retried after a cut
 * hands the pieces of the retry again from its start. <ctx> is borrowed. */
void forge_model_text_set(forge_model_text_fn fn, void *ctx, forge_model_text_fn *prev_fn, void **prev_ctx);
/* The calling thread's text receiver (NULL when none), for model implementations. */
forge_model_text_fn forge_model_text_get(void **ctx);

/* Dispatches to m->ops->complete. complete is safe to call from several threads at once. */
int forge_model_complete(struct forge_model *m, const cJSON *req, cJSON **resp,
                         struct forge_err *err);
/* Frees a model of any kind; NULL is a no-op. */
void forge_model_free(struct forge_model *m);
#endif
