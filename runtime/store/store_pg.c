/* The store on PostgreSQL (libpq): a few connections shared by the service's threads, each
 * statement one round trip with text parameters; several forge processes on one database share
 * every conversation, pending approval and audit row. */
#include "store/store.h"
#include "store/pq_shim.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "data/json.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCONN 8

struct pg {
    struct forge_store base;
    char *uri;
    PGconn *conn[NCONN];
    int used[NCONN];
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static const char *const migrations[] = {
    "CREATE TABLE conversations (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,"
    " messages TEXT NOT NULL, message_count INTEGER NOT NULL, created_at TEXT NOT NULL,"
    " updated_at TEXT NOT NULL);"
    "CREATE INDEX conversations_user ON conversations(user_id, updated_at);"
    "CREATE TABLE pending_approvals (token TEXT PRIMARY KEY, session_id TEXT NOT NULL,"
    " state TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL, created_at TEXT NOT NULL);"
    "CREATE INDEX pending_session ON pending_approvals(session_id);"
    "CREATE TABLE audit (id BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, user_id TEXT, agent_id TEXT,"
    " session_id TEXT, route TEXT, status TEXT, duration_ms DOUBLE PRECISION, model TEXT,"
    " tool_count INTEGER, approvals INTEGER, hitl INTEGER, warnings INTEGER, error TEXT);"
    "CREATE TABLE preferences (user_id TEXT PRIMARY KEY, prefs TEXT NOT NULL, updated_at TEXT NOT NULL);",
    /* 2: per-user request counts shared by the replicas */
    "CREATE TABLE rate_limits (user_id TEXT PRIMARY KEY, window_start DOUBLE PRECISION NOT NULL,"
    " count BIGINT NOT NULL);",
};

#define P_OF(s) ((struct pg *)(s))

/* The URI without its password, for messages. */
static char *redact(const char *uri)
{
    const char *scheme = strstr(uri, "://");
    const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
    const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
    if (!at || (slash && slash < at))
        return forge_strdup(uri);
    return forge_strdupf("%.*s%s", (int)(scheme + 3 - uri), uri, at + 1);
}

/* Borrows a connection (waits for a free one), reconnecting one that has gone. */
static int acquire(struct pg *p, struct forge_err *err)
{
    pthread_mutex_lock(&p->mu);
    int i;
    for (;;) {
        for (i = 0; i < NCONN && p->used[i]; i++)
            ;
        if (i < NCONN)
            break;
        pthread_cond_wait(&p->cv, &p->mu);
    }
    p->used[i] = 1;
    pthread_mutex_unlock(&p->mu);
    if (!p->conn[i] || PQstatus(p->conn[i]) != CONNECTION_OK) {
        if (p->conn[i])
            PQreset(p->conn[i]);
        else
            p->conn[i] = PQconnectdb(p->uri);
        if (!p->conn[i] || PQstatus(p->conn[i]) != CONNECTION_OK) {
            forge_err_set(err, FORGE_EIO, "store %s: cannot connect: %s", p->base.where,
                          p->conn[i] ? PQerrorMessage(p->conn[i]) : "out of memory");
            size_t n = strlen(err->msg);
            while (n && (err->msg[n - 1] == '\n' || err->msg[n - 1] == ' '))
                err->msg[--n] = '\0';
            pthread_mutex_lock(&p->mu);
            p->used[i] = 0;
            pthread_cond_signal(&p->cv);
            pthread_mutex_unlock(&p->mu);
            return FORGE_EIO;
        }
    }
    return i;
}

static void release(struct pg *p, int i)
{
    pthread_mutex_lock(&p->mu);
    p->used[i] = 0;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Runs <sql> with <n> text parameters; returns the result (PQclear it) or NULL with <err>. */
static PGresult *run(struct pg *p, int c, const char *sql, int n, const char *const *params, const char *what,
                     struct forge_err *err)
{
    PGresult *r = PQexecParams(p->conn[c], sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return r;
    forge_err_set(err, FORGE_EIO, "store %s: %s: %s", p->base.where, what,
                  r ? PQresultErrorMessage(r) : PQerrorMessage(p->conn[c]));
    size_t len = strlen(err->msg);
    while (len && (err->msg[len - 1] == '\n' || err->msg[len - 1] == ' '))
        err->msg[--len] = '\0';
    PQclear(r);
    return NULL;
}

/* One statement on a borrowed connection. */
static PGresult *once(struct pg *p, const char *sql, int n, const char *const *params, const char *what,
                      struct forge_err *err)
{
    int c = acquire(p, err);
    if (c < 0)
        return NULL;
    PGresult *r = run(p, c, sql, n, params, what, err);
    release(p, c);
    return r;
}

static char *dup_val(PGresult *r, int row, int col)
{
    return forge_strdup(PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

static int conv_get(struct forge_store *s, const char *id, char **user, char **agent, cJSON **messages,
                    struct forge_err *err)
{
    const char *pv[] = {id};
    PGresult *r = once(P_OF(s), "SELECT user_id, agent_id, messages FROM conversations WHERE id = $1", 1, pv,
                       "reading a conversation", err);
    if (!r)
        return FORGE_EIO;
    int rc = 1;
    if (PQntuples(r) == 1) {
        *user = dup_val(r, 0, 0);
        *agent = dup_val(r, 0, 1);
        *messages = cJSON_Parse(PQgetvalue(r, 0, 2));
        if (!*messages)
            *messages = cJSON_CreateArray();
        rc = 0;
    }
    PQclear(r);
    return rc;
}

static int conv_put(struct forge_store *s, const char *id, const char *user, const char *agent,
                    const cJSON *messages, struct forge_err *err)
{
    char *text = cJSON_PrintUnformatted(messages);
    if (!text)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char now[40], count[16];
    forge_clock_iso(now, sizeof now);
    snprintf(count, sizeof count, "%d", cJSON_GetArraySize(messages));
    const char *pv[] = {id, user, agent, text, count, now};
    PGresult *r = once(P_OF(s),
                       "INSERT INTO conversations (id, user_id, agent_id, messages, message_count, created_at,"
                       " updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (id) DO UPDATE SET"
                       " messages = $4, message_count = $5, updated_at = $6",
                       6, pv, "saving a conversation", err);
    cJSON_free(text);
    if (!r)
        return FORGE_EIO;
    PQclear(r);
    return 0;
}

static int conv_list(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err)
{
    const char *pv[] = {user};
    PGresult *r = once(P_OF(s),
                       "SELECT id, agent_id, created_at, updated_at, message_count FROM conversations"
                       " WHERE user_id = $1 ORDER BY updated_at DESC, id LIMIT 1000",
                       1, pv, "listing conversations", err);
    if (!r)
        return FORGE_EIO;
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < PQntuples(r); i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", PQgetvalue(r, i, 0));
        cJSON_AddStringToObject(o, "agentId", PQgetvalue(r, i, 1));
        cJSON_AddStringToObject(o, "createdAt", PQgetvalue(r, i, 2));
        cJSON_AddStringToObject(o, "updatedAt", PQgetvalue(r, i, 3));
        cJSON_AddNumberToObject(o, "messageCount", atoi(PQgetvalue(r, i, 4)));
        cJSON_AddItemToArray(a, o);
    }
    PQclear(r);
    *out = a;
    return 0;
}

static int conv_delete(struct forge_store *s, const char *id, struct forge_err *err)
{
    struct pg *p = P_OF(s);
    int c = acquire(p, err);
    if (c < 0)
        return FORGE_EIO;
    const char *pv[] = {id};
    int rc = 0;
    /* one statement, so both go or neither */
    PGresult *r = run(p, c,
                      "WITH a AS (DELETE FROM pending_approvals WHERE session_id = $1)"
                      " DELETE FROM conversations WHERE id = $1",
                      1, pv, "deleting a conversation", err);
    if (!r)
        rc = FORGE_EIO;
    else if (atoi(PQcmdTuples(r)) == 0)
        rc = 1;
    PQclear(r);
    release(p, c);
    return rc;
}

static int pending_put(struct forge_store *s, const char *token, const char *session, const cJSON *state,
                       double expires, struct forge_err *err)
{
    char *text = cJSON_PrintUnformatted(state);
    if (!text)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char now[40], exp[40];
    forge_clock_iso(now, sizeof now);
    snprintf(exp, sizeof exp, "%.3f", expires);
    const char *pv[] = {token, session, text, exp, now};
    PGresult *r = once(P_OF(s),
                       "INSERT INTO pending_approvals (token, session_id, state, expires_at, created_at)"
                       " VALUES ($1, $2, $3, $4, $5)",
                       5, pv, "saving a pending approval", err);
    cJSON_free(text);
    if (!r)
        return FORGE_EIO;
    PQclear(r);
    return 0;
}

static int pending_take(struct forge_store *s, const char *token, double now, cJSON **state,
                        struct forge_err *err)
{
    const char *pv[] = {token};
    /* DELETE ... RETURNING: exactly one transaction, on any replica, gets the row */
    PGresult *r = once(P_OF(s), "DELETE FROM pending_approvals WHERE token = $1 RETURNING state, expires_at", 1, pv,
                       "taking a pending approval", err);
    if (!r)
        return FORGE_EIO;
    int rc = 1;
    if (PQntuples(r) == 1 && strtod(PQgetvalue(r, 0, 1), NULL) > now) {
        *state = cJSON_Parse(PQgetvalue(r, 0, 0));
        rc = *state ? 0 : forge_err_set(err, FORGE_EIO, "store %s: a pending approval is not valid JSON",
                                        s->where);
    }
    PQclear(r);
    return rc;
}

static int pending_drop(struct forge_store *s, const char *session, double now, struct forge_err *err)
{
    char t[40];
    snprintf(t, sizeof t, "%.3f", now);
    const char *pv[] = {session, t};
    PGresult *r = once(P_OF(s), "DELETE FROM pending_approvals WHERE session_id = $1 OR expires_at <= $2", 2, pv,
                       "dropping pending approvals", err);
    if (!r)
        return FORGE_EIO;
    PQclear(r);
    return 0;
}

static int audit_add(struct forge_store *s, const cJSON *row, struct forge_err *err)
{
    char dur[40], tools[16], appr[16], hitl[4], warn[16];
    snprintf(dur, sizeof dur, "%.3f", forge_json_num(row, "durationMs", 0));
    snprintf(tools, sizeof tools, "%d", (int)forge_json_num(row, "toolCount", 0));
    snprintf(appr, sizeof appr, "%d", (int)forge_json_num(row, "approvals", 0));
    snprintf(hitl, sizeof hitl, "%d", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "hitl")));
    snprintf(warn, sizeof warn, "%d", (int)forge_json_num(row, "warnings", 0));
    const char *pv[] = {forge_json_str(row, "at"), forge_json_str(row, "user"), forge_json_str(row, "agentId"),
                        forge_json_str(row, "sessionId"), forge_json_str(row, "route"), forge_json_str(row, "status"),
                        dur, forge_json_str(row, "model"), tools, appr, hitl, warn, forge_json_str(row, "error")};
    PGresult *r = once(P_OF(s),
                       "INSERT INTO audit (at, user_id, agent_id, session_id, route, status, duration_ms, model,"
                       " tool_count, approvals, hitl, warnings, error)"
                       " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)",
                       13, pv, "writing the audit trail", err);
    if (!r)
        return FORGE_EIO;
    PQclear(r);
    return 0;
}

static int audit_list(struct forge_store *s, int limit, int offset, cJSON **out, struct forge_err *err)
{
    char l[16], o[16];
    snprintf(l, sizeof l, "%d", limit);
    snprintf(o, sizeof o, "%d", offset);
    const char *pv[] = {l, o};
    PGresult *r = once(P_OF(s),
                       "SELECT id, at, user_id, agent_id, session_id, route, status, duration_ms, model, tool_count,"
                       " approvals, hitl, warnings, error FROM audit ORDER BY id DESC LIMIT $1 OFFSET $2",
                       2, pv, "reading the audit trail", err);
    if (!r)
        return FORGE_EIO;
    static const char *const names[] = {"id", "at", "user", "agentId", "sessionId", "route", "status",
                                        "durationMs", "model", "toolCount", "approvals", "hitl", "warnings",
                                        "error"};
    static const int numeric[] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 2, 1, 0};
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < PQntuples(r); i++) {
        cJSON *row = cJSON_CreateObject();
        for (int k = 0; k < 14; k++) {
            const char *v = PQgetvalue(r, i, k);
            if (numeric[k] == 2)
                cJSON_AddBoolToObject(row, names[k], atoi(v) != 0);
            else if (PQgetisnull(r, i, k))
                cJSON_AddNullToObject(row, names[k]);
            else if (numeric[k])
                cJSON_AddNumberToObject(row, names[k], strtod(v, NULL));
            else
                cJSON_AddStringToObject(row, names[k], v);
        }
        cJSON_AddItemToArray(a, row);
    }
    PQclear(r);
    *out = a;
    return 0;
}

static int prefs_get(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err)
{
    const char *pv[] = {user};
    PGresult *r = once(P_OF(s), "SELECT prefs FROM preferences WHERE user_id = $1", 1, pv, "reading preferences", err);
    if (!r)
        return FORGE_EIO;
    *out = PQntuples(r) == 1 ? cJSON_Parse(PQgetvalue(r, 0, 0)) : NULL;
    if (!*out)
        *out = cJSON_CreateObject();
    PQclear(r);
    return 0;
}

static int prefs_put(struct forge_store *s, const char *user, const cJSON *prefs, struct forge_err *err)
{
    char *text = cJSON_PrintUnformatted(prefs);
    if (!text)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char now[40];
    forge_clock_iso(now, sizeof now);
    const char *pv[] = {user, text, now};
    PGresult *r = once(P_OF(s),
                       "INSERT INTO preferences (user_id, prefs, updated_at) VALUES ($1, $2, $3)"
                       " ON CONFLICT (user_id) DO UPDATE SET prefs = $2, updated_at = $3",
                       3, pv, "saving preferences", err);
    cJSON_free(text);
    if (!r)
        return FORGE_EIO;
    PQclear(r);
    return 0;
}

static int rate_hit(struct forge_store *s, const char *user, double window_start, long *count,
                    struct forge_err *err)
{
    char ws[40];
    snprintf(ws, sizeof ws, "%.3f", window_start);
    const char *pv[] = {user, ws};
    /* one statement: concurrent requests on any replica each get their own count */
    PGresult *r = once(P_OF(s),
                       "INSERT INTO rate_limits AS r (user_id, window_start, count) VALUES ($1, $2, 1)"
                       " ON CONFLICT (user_id) DO UPDATE SET count = CASE WHEN r.window_start = $2"
                       " THEN r.count + 1 ELSE 1 END, window_start = $2 RETURNING count",
                       2, pv, "counting a request", err);
    if (!r)
        return FORGE_EIO;
    *count = PQntuples(r) == 1 ? atol(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    return 0;
}

static void pg_close(struct forge_store *s)
{
    struct pg *p = P_OF(s);
    for (int i = 0; i < NCONN; i++)
        if (p->conn[i])
            PQfinish(p->conn[i]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    if (p->uri) {
        memset(p->uri, 0, strlen(p->uri));
        forge_free(p->uri);
    }
    forge_free(p->base.where);
    forge_free(p);
}

static const struct forge_store_ops pg_ops = {
    conv_get, conv_put, conv_list, conv_delete, pending_put, pending_take, pending_drop,
    audit_add, audit_list, prefs_get, prefs_put, rate_hit, pg_close,
};

/* Brings the schema to the newest version; an advisory lock keeps replicas that start at once
 * from migrating twice. */
static int migrate(struct pg *p, struct forge_err *err)
{
    int c = acquire(p, err);
    if (c < 0)
        return FORGE_EIO;
    int rc = 0;
    PGresult *r = run(p, c, "BEGIN", 0, NULL, "migrating", err);
    PQclear(r);
    if (!r)
        goto done;
    r = run(p, c, "SELECT pg_advisory_xact_lock(7152468)", 0, NULL, "migrating", err);
    PQclear(r);
    if (r)
        r = run(p, c, "CREATE TABLE IF NOT EXISTS forge_schema (version INTEGER NOT NULL)", 0, NULL, "migrating", err);
    PQclear(r);
    int version = 0;
    if (r && (r = run(p, c, "SELECT coalesce(max(version), 0) FROM forge_schema", 0, NULL, "migrating", err))) {
        version = atoi(PQgetvalue(r, 0, 0));
        PQclear(r);
    }
    int n = (int)(sizeof migrations / sizeof *migrations);
    if (r && version > n) {
        forge_err_set(err, FORGE_EIO, "store %s: schema version %d is newer than this forge knows (%d): upgrade forge",
                      p->base.where, version, n);
        r = NULL;
    }
    for (int v = version; r && v < n; v++) {
        PGresult *x = PQexec(p->conn[c], migrations[v]);
        if (PQresultStatus(x) != PGRES_COMMAND_OK) {
            forge_err_set(err, FORGE_EIO, "store %s: migrating to version %d: %s", p->base.where, v + 1,
                          PQresultErrorMessage(x));
            r = NULL;
        }
        PQclear(x);
        char sql[80];
        snprintf(sql, sizeof sql, "INSERT INTO forge_schema (version) VALUES (%d)", v + 1);
        if (r && (r = run(p, c, sql, 0, NULL, "migrating", err)))
            PQclear(r);
    }
    if (r) {
        r = run(p, c, "COMMIT", 0, NULL, "migrating", err);
        PQclear(r);
    }
    if (!r) {
        PQclear(PQexec(p->conn[c], "ROLLBACK"));
        rc = FORGE_EIO;
    }
done:
    if (!r)
        rc = FORGE_EIO;
    release(p, c);
    return rc;
}

int forge_store_pg_open(const char *uri, struct forge_store **out, struct forge_err *err)
{
    *out = NULL;
    int rc = forge_pq_load(err);
    if (rc)
        return rc;
    struct pg *p = forge_calloc(1, sizeof *p);
    if (!p)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    p->base.ops = &pg_ops;
    p->base.shared = 1;
    p->base.where = redact(uri);
    p->uri = forge_strdup(uri);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(uri, &perr);
    if (!opts) {
        forge_err_set(err, FORGE_EINVAL, "store %s: not a PostgreSQL connection URI: %s", p->base.where,
                      perr ? perr : "out of memory");
        PQfreemem(perr);
        pg_close(&p->base);
        return FORGE_EINVAL;
    }
    PQconninfoFree(opts);
    rc = migrate(p, err);
    if (rc) {
        pg_close(&p->base);
        return rc;
    }
    *out = &p->base;
    return 0;
}
