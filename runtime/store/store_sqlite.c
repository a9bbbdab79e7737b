/* The store on SQLite: one file in WAL mode, one connection guarded by a mutex (the service's
 * statements are short; SQLite serialises writers anyway). */
#include "store/store.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "data/json.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

struct lite {
    struct forge_store base;
    sqlite3 *db;
    pthread_mutex_t mu;
};

/* The schema, one migration per version; forge_schema holds the version reached. */
static const char *const migrations[] = {
    "CREATE TABLE conversations (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,"
    " messages TEXT NOT NULL, message_count INTEGER NOT NULL, created_at TEXT NOT NULL,"
    " updated_at TEXT NOT NULL);"
    "CREATE INDEX conversations_user ON conversations(user_id, updated_at);"
    "CREATE TABLE pending_approvals (token TEXT PRIMARY KEY, session_id TEXT NOT NULL,"
    " state TEXT NOT NULL, expires_at REAL NOT NULL, created_at TEXT NOT NULL);"
    "CREATE INDEX pending_session ON pending_approvals(session_id);"
    "CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, user_id TEXT,"
    " agent_id TEXT, session_id TEXT, route TEXT, status TEXT, duration_ms REAL, model TEXT,"
    " tool_count INTEGER, approvals INTEGER, hitl INTEGER, warnings INTEGER, error TEXT);"
    "CREATE TABLE preferences (user_id TEXT PRIMARY KEY, prefs TEXT NOT NULL, updated_at TEXT NOT NULL);",
    /* 2: per-user request counts shared by the processes on one database */
    "CREATE TABLE rate_limits (user_id TEXT PRIMARY KEY, window_start REAL NOT NULL, count INTEGER NOT NULL);",
};

static int fail(struct lite *l, struct forge_err *err, const char *what)
{
    int code = sqlite3_errcode(l->db);
    return forge_err_set(err, FORGE_EIO, "store %s: %s: %s%s", l->base.where, what, sqlite3_errmsg(l->db),
                         code == SQLITE_BUSY || code == SQLITE_LOCKED ? " (the database is locked)" : "");
}

static int exec(struct lite *l, const char *sql, struct forge_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(l->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        forge_err_set(err, FORGE_EIO, "store %s: %s", l->base.where, msg ? msg : sqlite3_errmsg(l->db));
        sqlite3_free(msg);
        return FORGE_EIO;
    }
    return 0;
}

static int prep(struct lite *l, const char *sql, sqlite3_stmt **st, struct forge_err *err)
{
    if (sqlite3_prepare_v2(l->db, sql, -1, st, NULL) != SQLITE_OK)
        return fail(l, err, "preparing a statement");
    return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return forge_strdup(t ? (const char *)t : "");
}

static int run_done(struct lite *l, sqlite3_stmt *st, const char *what, struct forge_err *err)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail(l, err, what);
    sqlite3_finalize(st);
    return rc;
}

#define L_OF(s) ((struct lite *)(s))
#define LOCK(l) pthread_mutex_lock(&(l)->mu)
#define UNLOCK(l) pthread_mutex_unlock(&(l)->mu)

static int conv_get(struct forge_store *s, const char *id, char **user, char **agent, cJSON **messages,
                    struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "SELECT user_id, agent_id, messages FROM conversations WHERE id = ?", &st, err);
    if (!rc) {
        bind_text(st, 1, id);
        int r = sqlite3_step(st);
        if (r == SQLITE_ROW) {
            *user = col_text(st, 0);
            *agent = col_text(st, 1);
            const char *m = (const char *)sqlite3_column_text(st, 2);
            *messages = m ? cJSON_Parse(m) : NULL;
            if (!*messages)
                *messages = cJSON_CreateArray();
        } else if (r == SQLITE_DONE) {
            rc = 1;
        } else {
            rc = fail(l, err, "reading a conversation");
        }
        sqlite3_finalize(st);
    }
    UNLOCK(l);
    return rc;
}

static int conv_put(struct forge_store *s, const char *id, const char *user, const char *agent,
                    const cJSON *messages, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    char *text = cJSON_PrintUnformatted(messages);
    if (!text)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char now[40];
    forge_clock_iso(now, sizeof now);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l,
                  "INSERT INTO conversations (id, user_id, agent_id, messages, message_count, created_at, updated_at)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) ON CONFLICT(id) DO UPDATE SET messages = ?4,"
                  " message_count = ?5, updated_at = ?6",
                  &st, err);
    if (!rc) {
        bind_text(st, 1, id);
        bind_text(st, 2, user);
        bind_text(st, 3, agent);
        bind_text(st, 4, text);
        sqlite3_bind_int(st, 5, cJSON_GetArraySize(messages));
        bind_text(st, 6, now);
        rc = run_done(l, st, "saving a conversation", err);
    }
    UNLOCK(l);
    cJSON_free(text);
    return rc;
}

static int conv_list(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l,
                  "SELECT id, agent_id, created_at, updated_at, message_count FROM conversations"
                  " WHERE user_id = ? ORDER BY updated_at DESC, id LIMIT 1000",
                  &st, err);
    if (!rc) {
        bind_text(st, 1, user);
        cJSON *a = cJSON_CreateArray();
        int r;
        while ((r = sqlite3_step(st)) == SQLITE_ROW) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", (const char *)sqlite3_column_text(st, 0));
            cJSON_AddStringToObject(o, "agentId", (const char *)sqlite3_column_text(st, 1));
            cJSON_AddStringToObject(o, "createdAt", (const char *)sqlite3_column_text(st, 2));
            cJSON_AddStringToObject(o, "updatedAt", (const char *)sqlite3_column_text(st, 3));
            cJSON_AddNumberToObject(o, "messageCount", sqlite3_column_int(st, 4));
            cJSON_AddItemToArray(a, o);
        }
        if (r != SQLITE_DONE) {
            rc = fail(l, err, "listing conversations");
            cJSON_Delete(a);
        } else {
            *out = a;
        }
        sqlite3_finalize(st);
    }
    UNLOCK(l);
    return rc;
}

static int conv_delete(struct forge_store *s, const char *id, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = exec(l, "BEGIN IMMEDIATE", err);
    if (!rc && !(rc = prep(l, "DELETE FROM pending_approvals WHERE session_id = ?", &st, err))) {
        bind_text(st, 1, id);
        rc = run_done(l, st, "deleting approvals", err);
    }
    if (!rc && !(rc = prep(l, "DELETE FROM conversations WHERE id = ?", &st, err))) {
        bind_text(st, 1, id);
        rc = run_done(l, st, "deleting a conversation", err);
        if (!rc && sqlite3_changes(l->db) == 0)
            rc = 1;
    }
    if (rc >= 0)
        rc = exec(l, "COMMIT", err) ? FORGE_EIO : rc;
    if (rc < 0)
        sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
    UNLOCK(l);
    return rc;
}

static int pending_put(struct forge_store *s, const char *token, const char *session, const cJSON *state,
                       double expires, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    char *text = cJSON_PrintUnformatted(state);
    if (!text)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char now[40];
    forge_clock_iso(now, sizeof now);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "INSERT INTO pending_approvals (token, session_id, state, expires_at, created_at)"
                     " VALUES (?, ?, ?, ?, ?)", &st, err);
    if (!rc) {
        bind_text(st, 1, token);
        bind_text(st, 2, session);
        bind_text(st, 3, text);
        sqlite3_bind_double(st, 4, expires);
        bind_text(st, 5, now);
        rc = run_done(l, st, "saving a pending approval", err);
    }
    UNLOCK(l);
    cJSON_free(text);
    return rc;
}

static int pending_take(struct forge_store *s, const char *token, double now, cJSON **state,
                        struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    /* one statement: the row is gone for everyone once one caller has it */
    int rc = prep(l, "DELETE FROM pending_approvals WHERE token = ? RETURNING state, expires_at", &st, err);
    if (!rc) {
        bind_text(st, 1, token);
        int r = sqlite3_step(st);
        if (r == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(st, 0);
            double exp = sqlite3_column_double(st, 1);
            if (exp <= now)
                rc = 1;
            else if (!(*state = t ? cJSON_Parse(t) : NULL))
                rc = forge_err_set(err, FORGE_EIO, "store %s: a pending approval is not valid JSON", l->base.where);
            r = sqlite3_step(st);
        } else {
            rc = 1;
        }
        if (r != SQLITE_DONE) {
            cJSON_Delete(*state);
            *state = NULL;
            rc = fail(l, err, "taking a pending approval");
        }
        sqlite3_finalize(st);
    }
    UNLOCK(l);
    return rc;
}

static int pending_drop(struct forge_store *s, const char *session, double now, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "DELETE FROM pending_approvals WHERE session_id = ? OR expires_at <= ?", &st, err);
    if (!rc) {
        bind_text(st, 1, session);
        sqlite3_bind_double(st, 2, now);
        rc = run_done(l, st, "dropping pending approvals", err);
    }
    UNLOCK(l);
    return rc;
}

static int audit_add(struct forge_store *s, const cJSON *row, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "INSERT INTO audit (at, user_id, agent_id, session_id, route, status, duration_ms, model,"
                     " tool_count, approvals, hitl, warnings, error) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                  &st, err);
    if (!rc) {
        static const char *const keys[] = {"at", "user", "agentId", "sessionId", "route", "status"};
        for (int i = 0; i < 6; i++)
            bind_text(st, i + 1, forge_json_str(row, keys[i]));
        sqlite3_bind_double(st, 7, forge_json_num(row, "durationMs", 0));
        bind_text(st, 8, forge_json_str(row, "model"));
        sqlite3_bind_int(st, 9, (int)forge_json_num(row, "toolCount", 0));
        sqlite3_bind_int(st, 10, (int)forge_json_num(row, "approvals", 0));
        sqlite3_bind_int(st, 11, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "hitl")));
        sqlite3_bind_int(st, 12, (int)forge_json_num(row, "warnings", 0));
        bind_text(st, 13, forge_json_str(row, "error"));
        rc = run_done(l, st, "writing the audit trail", err);
    }
    UNLOCK(l);
    return rc;
}

static int audit_list(struct forge_store *s, int limit, int offset, cJSON **out, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "SELECT id, at, user_id, agent_id, session_id, route, status, duration_ms, model, tool_count,"
                     " approvals, hitl, warnings, error FROM audit ORDER BY id DESC LIMIT ? OFFSET ?",
                  &st, err);
    if (!rc) {
        sqlite3_bind_int(st, 1, limit);
        sqlite3_bind_int(st, 2, offset);
        cJSON *a = cJSON_CreateArray();
        int r;
        static const char *const names[] = {"id", "at", "user", "agentId", "sessionId", "route", "status",
                                            "durationMs", "model", "toolCount", "approvals", "hitl",
                                            "warnings", "error"};
        while ((r = sqlite3_step(st)) == SQLITE_ROW) {
            cJSON *o = cJSON_CreateObject();
            for (int i = 0; i < 14; i++) {
                int t = sqlite3_column_type(st, i);
                if (i == 11)
                    cJSON_AddBoolToObject(o, names[i], sqlite3_column_int(st, i));
                else if (t == SQLITE_NULL)
                    cJSON_AddNullToObject(o, names[i]);
                else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
                    cJSON_AddNumberToObject(o, names[i], sqlite3_column_double(st, i));
                else
                    cJSON_AddStringToObject(o, names[i], (const char *)sqlite3_column_text(st, i));
            }
            cJSON_AddItemToArray(a, o);
        }
        if (r != SQLITE_DONE) {
            rc = fail(l, err, "reading the audit trail");
            cJSON_Delete(a);
        } else {
            *out = a;
        }
        sqlite3_finalize(st);
    }
    UNLOCK(l);
    return rc;
}

static int prefs_get(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "SELECT prefs FROM preferences WHERE user_id = ?", &st, err);
    if (!rc) {
        bind_text(st, 1, user);
        int r = sqlite3_step(st);
        if (r == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(st, 0);
            *out = t ? cJSON_Parse(t) : NULL;
        } else if (r != SQLITE_DONE) {
            rc = fail(l, err, "reading preferences");
        }
        if (!rc && !*out)
            *out = cJSON_CreateObject();
        sqlite3_finalize(st);
    }
    UNLOCK(l);
    return rc;
}

static int prefs_put(struct forge_store *s, const char *user, const cJSON *prefs, struct forge_err *err)
{
    struct lite *l = L_OF(s);
    char *text = cJSON_PrintUnformatted(prefs);
    if (!text)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char now[40];
    forge_clock_iso(now, sizeof now);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "INSERT INTO preferences (user_id, prefs, updated_at) VALUES (?1, ?2, ?3)"
                     " ON CONFLICT(user_id) DO UPDATE SET prefs = ?2, updated_at = ?3", &st, err);
    if (!rc) {
        bind_text(st, 1, user);
        bind_text(st, 2, text);
        bind_text(st, 3, now);
        rc = run_done(l, st, "saving preferences", err);
    }
    UNLOCK(l);
    cJSON_free(text);
    return rc;
}

static int rate_hit(struct forge_store *s, const char *user, double window_start, long *count,
                    struct forge_err *err)
{
    struct lite *l = L_OF(s);
    sqlite3_stmt *st = NULL;
    LOCK(l);
    int rc = prep(l, "INSERT INTO rate_limits (user_id, window_start, count) VALUES (?1, ?2, 1)"
                     " ON CONFLICT(user_id) DO UPDATE SET count = CASE WHEN window_start = ?2 THEN count + 1"
                     " ELSE 1 END, window_start = ?2 RETURNING count", &st, err);
    if (!rc) {
        bind_text(st, 1, user);
        sqlite3_bind_double(st, 2, window_start);
        int r = sqlite3_step(st);
        if (r == SQLITE_ROW) {
            *count = (long)sqlite3_column_int64(st, 0);
            r = sqlite3_step(st);
        }
        if (r != SQLITE_DONE)
            rc = fail(l, err, "counting a request");
        sqlite3_finalize(st);
    }
    UNLOCK(l);
    return rc;
}

static void lite_close(struct forge_store *s)
{
    struct lite *l = L_OF(s);
    sqlite3_close_v2(l->db);
    pthread_mutex_destroy(&l->mu);
    forge_free(l->base.where);
    forge_free(l);
}

static const struct forge_store_ops lite_ops = {
    conv_get, conv_put, conv_list, conv_delete, pending_put, pending_take, pending_drop,
    audit_add, audit_list, prefs_get, prefs_put, rate_hit, lite_close,
};

/* Brings the schema to the newest version in one transaction. */
static int migrate(struct lite *l, struct forge_err *err)
{
    int rc = exec(l, "BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS forge_schema (version INTEGER NOT NULL);", err);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    int version = 0;
    if (!(rc = prep(l, "SELECT max(version) FROM forge_schema", &st, err))) {
        if (sqlite3_step(st) == SQLITE_ROW)
            version = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    int n = (int)(sizeof migrations / sizeof *migrations);
    if (!rc && version > n)
        rc = forge_err_set(err, FORGE_EIO, "store %s: schema version %d is newer than this forge knows (%d): "
                           "upgrade forge", l->base.where, version, n);
    for (int v = version; !rc && v < n; v++) {
        rc = exec(l, migrations[v], err);
        char sql[80];
        snprintf(sql, sizeof sql, "INSERT INTO forge_schema (version) VALUES (%d)", v + 1);
        if (!rc)
            rc = exec(l, sql, err);
    }
    if (!rc)
        return exec(l, "COMMIT", err);
    sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int forge_store_sqlite_open(const char *path, struct forge_store **out, struct forge_err *err)
{
    struct lite *l = forge_calloc(1, sizeof *l);
    if (!l)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    l->base.ops = &lite_ops;
    l->base.where = forge_strdupf("sqlite:%s", path);
    pthread_mutex_init(&l->mu, NULL);
    int rc = 0;
    if (sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        rc = forge_err_set(err, FORGE_EIO, "store %s: cannot open: %s", l->base.where,
                           l->db ? sqlite3_errmsg(l->db) : "out of memory");
        goto out;
    }
    sqlite3_busy_timeout(l->db, 5000);
    /* WAL: readers do not wait for the writer; NORMAL sync is durable across crashes of forge */
    if (strcmp(path, ":memory:") != 0)
        rc = exec(l, "PRAGMA journal_mode=WAL", err);
    if (!rc)
        rc = exec(l, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON", err);
    if (!rc)
        rc = migrate(l, err);
out:
    if (rc) {
        lite_close(&l->base);
        return rc;
    }
    *out = &l->base;
    return 0;
}
