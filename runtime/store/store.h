/* Persistence for the agent service: conversations, pending approvals, the audit trail and
 * user preferences, behind one interface. SQLite by default (one file, WAL), PostgreSQL when
 * the location is a postgres:// URL, so several replicas share state. forge creates the schema
 * and migrates it (table forge_schema holds the version).
 *
 * Every function is safe to call from several threads at once. Failures of the database
 * itself (locked past the busy timeout, gone, disk full) are FORGE_EIO with a message that
 * names the database and never its password; each write is one transaction, so a failed call
 * leaves nothing half-written. */
#ifndef FORGE_STORE_STORE_H
#define FORGE_STORE_STORE_H
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_store;

/* The operations a backend implements (see the forge_store_* functions for each contract). */
struct forge_store_ops {
    int (*conv_get)(struct forge_store *s, const char *id, char **user, char **agent, cJSON **messages,
                    struct forge_err *err);
    int (*conv_put)(struct forge_store *s, const char *id, const char *user, const char *agent,
                    const cJSON *messages, struct forge_err *err);
    int (*conv_list)(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err);
    int (*conv_delete)(struct forge_store *s, const char *id, struct forge_err *err);
    int (*pending_put)(struct forge_store *s, const char *token, const char *session, const cJSON *state,
                       double expires, struct forge_err *err);
    int (*pending_take)(struct forge_store *s, const char *token, double now, cJSON **state,
                        struct forge_err *err);
    int (*pending_drop)(struct forge_store *s, const char *session, double now, struct forge_err *err);
    int (*audit_add)(struct forge_store *s, const cJSON *row, struct forge_err *err);
    int (*audit_list)(struct forge_store *s, int limit, int offset, cJSON **out, struct forge_err *err);
    int (*prefs_get)(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err);
    int (*prefs_put)(struct forge_store *s, const char *user, const cJSON *prefs, struct forge_err *err);
    int (*rate_hit)(struct forge_store *s, const char *user, double window_start, long *count,
                    struct forge_err *err);
    void (*close)(struct forge_store *s);
};

struct forge_store {
    const struct forge_store_ops *ops;
    char *where; /* the location for messages, without credentials (owned) */
    int shared;  /* several processes share it (PostgreSQL): per-user counts live here */
};

/* Opens (creating and migrating the schema) the store at <location>: a file path or
 * "sqlite:PATH" (SQLite; ":memory:" for a private in-memory one), or "postgres://..." /
 * "postgresql://..." (libpq connection URI). Returns 0 and *out, FORGE_EINVAL for a malformed
 * location, or FORGE_EIO when the database cannot be opened or migrated. */
int forge_store_open(const char *location, struct forge_store **out, struct forge_err *err);
/* Closes the store; NULL is a no-op. */
void forge_store_close(struct forge_store *s);

/* The conversation <id>: 0 with new *user, *agent (forge_free) and *messages; 1 when there is
 * none (outputs NULL). */
int forge_store_conv_get(struct forge_store *s, const char *id, char **user, char **agent, cJSON **messages,
                         struct forge_err *err);
/* Creates or replaces conversation <id> (its messages borrowed). */
int forge_store_conv_put(struct forge_store *s, const char *id, const char *user, const char *agent,
                         const cJSON *messages, struct forge_err *err);
/* A new array of <user>'s conversations, newest first: [{"id", "agentId", "createdAt",
 * "updatedAt", "messageCount"}]. */
int forge_store_conv_list(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err);
/* Deletes conversation <id> and its pending approvals; 1 when there was none. */
int forge_store_conv_delete(struct forge_store *s, const char *id, struct forge_err *err);

/* Saves a pending approval under <token> for <session> (state borrowed) until <expires>
 * (seconds since the epoch). */
int forge_store_pending_put(struct forge_store *s, const char *token, const char *session, const cJSON *state,
                            double expires, struct forge_err *err);
/* Takes the pending approval <token> atomically: exactly one caller gets it. 0 with *state (new)
 * when it was there and not expired at <now>; 1 when unknown, used or expired (an expired one is
 * deleted all the same). */
int forge_store_pending_take(struct forge_store *s, const char *token, double now, cJSON **state,
                             struct forge_err *err);
/* Drops the pending approvals of <session> and every one expired at <now>. */
int forge_store_pending_drop(struct forge_store *s, const char *session, double now, struct forge_err *err);

/* Appends an audit row (borrowed): {"at", "user", "agentId", "sessionId", "route", "status",
 * "durationMs", "model", "toolCount", "approvals", "hitl", "warnings", "error"}. */
int forge_store_audit_add(struct forge_store *s, const cJSON *row, struct forge_err *err);
/* A new array of audit rows, newest first. */
int forge_store_audit_list(struct forge_store *s, int limit, int offset, cJSON **out, struct forge_err *err);

/* <user>'s preferences: a new object ({} when none). */
int forge_store_prefs_get(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err);
int forge_store_prefs_put(struct forge_store *s, const char *user, const cJSON *prefs, struct forge_err *err);

/* Counts one request of <user> in the fixed window that began at <window_start> (seconds since
 * the epoch) and sets *count to the requests counted in it so far, this one included; a new
 * window starts the count again. Atomic across processes. */
int forge_store_rate_hit(struct forge_store *s, const char *user, double window_start, long *count,
                         struct forge_err *err);

/* Backends (store_sqlite.c, store_pg.c). */
int forge_store_sqlite_open(const char *path, struct forge_store **out, struct forge_err *err);
int forge_store_pg_open(const char *uri, struct forge_store **out, struct forge_err *err);
#endif
