/* `forge serve`: model endpoints in every provider's wire format, answered by forge models (the
 * scripted model, a cassette, or a real provider that is recorded), and the trajectories of the
 * conversations agents hold through them.
 *
 * Routes: POST /v1/chat/completions (openai), /v1/responses (openai-responses), /v1/messages
 * (anthropic), /v1beta/models/{model}:generateContent and :streamGenerateContent (gemini),
 * /api/chat (ollama); GET /v1/models, /v1beta/models, /api/tags, /health.
 *
 * A conversation is a session: its key is the X-Forge-Case header (with X-Forge-Session to tell
 * concurrent runs of one case apart), else the eval case whose input.message equals the first
 * user message, else that message itself. Each request carries the whole history, so the
 * session's trajectory is rebuilt from the latest request and answer; timings come from the
 * server's clock. A session is complete at an answer without tool calls: its trajectory is
 * written as one line to the transcripts file and kept for scoring. */
#ifndef FORGE_SERVE_SERVE_H
#define FORGE_SERVE_SERVE_H
#include <stdio.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "model/model.h"
#include "server/server.h"

#define FORGE_SERVE_MAX_MODELS 16

struct forge_serve_opts {
    struct forge_model *models[FORGE_SERVE_MAX_MODELS]; /* borrowed */
    const char *names[FORGE_SERVE_MAX_MODELS];  /* the model name each answers to; NULL: any
                                                   (only when it is the only model) */
    int nmodels;
    const char *token;          /* the credential clients must send; NULL: none asked */
    const cJSON *cases;         /* eval cases (borrowed) to recognise conversations by; may be NULL */
    FILE *transcripts;          /* completed trajectories, one per line; may be NULL */
    long max_sessions;          /* forge_serve_finished() turns true after this many (0: never) */
    size_t max_body;            /* for the message of a refused body */
    int replay;                 /* the provider models answer from a cassette: nothing they fail
                                   on is transient (400, not 502) */
};

struct forge_serve;

/* A new server state (opts are copied; what they point to must outlive it). */
struct forge_serve *forge_serve_new(const struct forge_serve_opts *o, struct forge_err *err);
void forge_serve_free(struct forge_serve *s);

/* The request handler for forge_server_start. */
void forge_serve_handle(void *ctx, const struct forge_server_request *req, struct forge_server_response *resp);

/* True once --max-sessions sessions are complete. */
int forge_serve_finished(struct forge_serve *s);

/* Counts: complete sessions, requests answered, requests refused. */
void forge_serve_counts(struct forge_serve *s, long *sessions, long *answered, long *refused);

/* A new array of every session's latest trajectory (complete or not), in the order sessions
 * began; NULL when out of memory. */
cJSON *forge_serve_trajectories(struct forge_serve *s);
#endif
