/* The conversations `forge serve` sees, each rebuilt as a trajectory (DESIGN.md). Thread-safe. */
#ifndef FORGE_SERVE_SESSION_H
#define FORGE_SERVE_SESSION_H
#include <stdio.h>
#include <cjson/cJSON.h>
#include "server/server.h"

struct forge_sessions;
struct forge_session;

/* A request in flight: which session it belongs to. */
struct forge_session_ref {
    struct forge_session *s;
    const char *case_id; /* the eval case the conversation is, or NULL (valid while the table lives) */
};

/* A new table; completed trajectories go to <transcripts> (may be NULL) one per line. */
struct forge_sessions *forge_sessions_new(FILE *transcripts, long max_sessions);
void forge_sessions_free(struct forge_sessions *t);

/* Finds or opens the session of the normalized request <nreq> that arrived at <t0> (ms) in the
 * server request <req> (for the X-Forge-Case and X-Forge-Session headers); <cases> may be NULL.
 * Returns 0 or FORGE_ENOMEM. */
int forge_sessions_begin(struct forge_sessions *t, const struct forge_server_request *req, const cJSON *nreq,
                         const cJSON *cases, double t0, struct forge_session_ref *ref);
/* The request was not answered: nothing is recorded. */
void forge_sessions_abandon(struct forge_sessions *t, struct forge_session_ref *ref);
/* Records the answer *nresp to *nreq (both taken: set to NULL) sent at <t1> (ms) for the
 * client's <model>, served by <provider>; writes the trajectory when the answer ends the
 * conversation. Trajectories of open conversations are built only when asked for. */
void forge_sessions_end(struct forge_sessions *t, struct forge_session_ref *ref, cJSON **nreq, cJSON **nresp,
                        const char *model, const char *provider, double t1);

int forge_sessions_finished(struct forge_sessions *t);
long forge_sessions_complete(struct forge_sessions *t);
/* A new array of every session's latest trajectory in the order sessions began. */
cJSON *forge_sessions_trajectories(struct forge_sessions *t);
#endif
