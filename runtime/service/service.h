/* The agent service (`forge serve --agent`): forge's agent loop served over HTTP and SSE with
 * agent-tool-forge's sidecar API (docs/service.md): chat (SSE) and chat-sync (JSON), resumable
 * human approval with one-time tokens, tools, conversations, preferences, health, an admin
 * API; auth tiers that fail closed; per-user rate limits; an audit row per chat request. State
 * lives in a store (store/store.h). Runs on the embedded server with thread_per_connection.
 * Everything a client sends is untrusted: every refusal is a JSON error
 * {"error": {"message", "type", "code"}} with the status it names. */
#ifndef FORGE_SERVICE_SERVICE_H
#define FORGE_SERVICE_SERVICE_H
#include <stddef.h>
#include "agent/loop.h"
#include "base/err.h"
#include "data/callable.h"
#include "server/server.h"

struct forge_store;
struct forge_jwt_key;

enum forge_service_hook { FORGE_HOOK_ON_REQUEST = 0, FORGE_HOOK_ON_TOOL_CALL, FORGE_HOOK_ON_DONE };

struct forge_service_agent {
    const char *id;                    /* borrowed */
    const char *description;           /* may be NULL */
    struct forge_agent agent;          /* model, tools, verifiers, policy, system, params (borrowed) */
    const struct forge_callable *hook[3]; /* on_request, on_tool_call, on_done; NULL: none */
    int allow_user_hitl;               /* the user's hitlLevel preference sets the approval level */
};

enum forge_auth_mode {
    FORGE_AUTH_UNSET = 0,
    FORGE_AUTH_JWT,   /* verify the user's JWT (HS256 or RS256) */
    FORGE_AUTH_TRUST, /* decode the JWT without verifying it: a gateway in front verified it */
    FORGE_AUTH_NONE,  /* no user identity: every request is the user "anonymous" */
};

struct forge_service_opts {
    struct forge_service_agent *agents; /* borrowed; the first is the default agent */
    int nagents;
    struct forge_store *store;          /* borrowed */
    enum forge_auth_mode auth;
    const struct forge_jwt_key *jwt_key; /* FORGE_AUTH_JWT: the key (borrowed) */
    const char *user_claim;             /* where the user id is in the claims (default "sub";
                                           a dotted path) */
    double jwt_leeway_s;                /* exp/nbf leeway (default 30) */
    const char *admin_token;            /* the admin bearer token; NULL: admin routes answer 503 */
    size_t max_body;                    /* for the message of a refused body */
    size_t max_message;                 /* longest user message in bytes (default 32 KiB) */
    long deadline_ms;                   /* per chat request (default 120000) */
    int history_limit;                  /* messages a conversation keeps (default 200) */
    int allow_user_hitl;                /* every agent: the user's hitlLevel preference sets the
                                           approval level (else only agents that allow it) */
    double hitl_ttl_s;                  /* resume tokens expire after this (default 300) */
    int rate_limit;                     /* requests per user per window; 0: no limit */
    double rate_window_s;               /* the window (default 60) */
};

void forge_service_opts_init(struct forge_service_opts *o);

struct forge_service;
/* A new service (opts copied; what they point to must outlive it). */
struct forge_service *forge_service_new(const struct forge_service_opts *o, struct forge_err *err);
void forge_service_free(struct forge_service *s);
/* The request handler for forge_server_start. */
void forge_service_handle(void *ctx, const struct forge_server_request *req, struct forge_server_response *resp);
/* Counts: chat requests answered, refused (4xx/5xx). */
void forge_service_counts(struct forge_service *s, long *answered, long *refused);
#endif
