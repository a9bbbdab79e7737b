/* The agent service: routes, auth tiers, chat turns, approvals, audit. */
#include "service/service.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "data/json.h"
#include "model/model.h"
#include "server/jwt.h"
#include "store/store.h"
#include "tools/policy.h"
#include "tools/tool.h"

#include <openssl/rand.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_BUSY 4096
#define RATE_SLOTS 8192

/* A user's window of the rate limit. */
struct rate_slot {
    char user[96];
    double start;
    int count;
};

struct forge_service {
    struct forge_service_opts o;
    pthread_mutex_t mu;           /* busy sessions and the rate table */
    char *busy[MAX_BUSY];         /* sessions with a turn in flight (in this process) */
    struct rate_slot *rate;
    atomic_long answered, refused;
    atomic_int live;              /* streamed turns whose producer has not finished */
};

void forge_service_opts_init(struct forge_service_opts *o)
{
    memset(o, 0, sizeof *o);
    o->user_claim = "sub";
    o->jwt_leeway_s = 30;
    o->max_message = 32768;
    o->deadline_ms = 120000;
    o->history_limit = 200;
    o->hitl_ttl_s = 300;
    o->rate_window_s = 60;
}

struct forge_service *forge_service_new(const struct forge_service_opts *o, struct forge_err *err)
{
    struct forge_service *s = forge_calloc(1, sizeof *s);
    if (!s || (o->rate_limit > 0 && !(s->rate = forge_calloc(RATE_SLOTS, sizeof *s->rate)))) {
        forge_free(s);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    s->o = *o;
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

void forge_service_free(struct forge_service *s)
{
    if (!s)
        return;
    /* a streamed turn finishes on its own thread: wait for it (the server has closed its
     * connection, so it stops at its next step and its model request in flight is cancelled);
     * one stuck past 60 s (a Lua tool running) keeps the service alive rather than freed
     * under it */
    for (int i = 0; i < 6000 && atomic_load(&s->live) > 0; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (atomic_load(&s->live) > 0) {
        forge_log(FORGE_LOG_ERROR, "service: %d streamed turn(s) still running at exit", atomic_load(&s->live));
        return;
    }
    for (int i = 0; i < MAX_BUSY; i++)
        forge_free(s->busy[i]);
    forge_free(s->rate);
    pthread_mutex_destroy(&s->mu);
    forge_free(s);
}

void forge_service_counts(struct forge_service *s, long *answered, long *refused)
{
    *answered = atomic_load(&s->answered);
    *refused = atomic_load(&s->refused);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- replies ---- */

static void reply_json(struct forge_server_response *resp, int status, cJSON *body)
{
    char *text = body ? cJSON_PrintUnformatted(body) : NULL;
    cJSON_Delete(body);
    char *copy = text ? forge_strdup(text) : NULL;
    cJSON_free(text);
    forge_server_reply(resp, status, "application/json", copy);
}

static const char *error_type(int status)
{
    switch (status) {
    case 400: case 413: case 415: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 410: return "gone";
    case 429: return "rate_limit_error";
    case 503: return "unavailable";
    case 504: return "timeout_error";
    default: return "api_error";
    }
}

static cJSON *error_obj(int status, const char *msg)
{
    cJSON *b = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(b, "error");
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddStringToObject(e, "type", error_type(status));
    cJSON_AddNumberToObject(e, "code", status);
    return b;
}

static void reply_error(struct forge_service *s, struct forge_server_response *resp, int status,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void reply_error(struct forge_service *s, struct forge_server_response *resp, int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    atomic_fetch_add(&s->refused, 1);
    reply_json(resp, status, error_obj(status, msg));
}

/* A random identifier: 32 hex digits from OpenSSL's generator. */
static int random_id(char out[33])
{
    unsigned char b[16];
    if (RAND_bytes(b, sizeof b) != 1)
        return -1;
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

/* ---- auth ---- */

struct who {
    char user[96];
    int admin;
};

/* The string at the dotted <path> of <claims>, or NULL. */
static const char *claim_at(const cJSON *claims, const char *path, char *num, size_t n)
{
    char key[128];
    const cJSON *v = claims;
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        if (len >= sizeof key)
            return NULL;
        memcpy(key, path, len);
        key[len] = '\0';
        v = cJSON_GetObjectItemCaseSensitive(v, key);
        path += len + (dot ? 1 : 0);
    }
    if (cJSON_IsString(v))
        return v->valuestring;
    if (cJSON_IsNumber(v)) {
        forge_json_number(v->valuedouble, num);
        (void)n;
        return num;
    }
    return NULL;
}

/* The user tier. Fills <w> and returns 0, or answers 401 and returns -1. Refusals are logged
 * with the reason, never with the token. */
static int authenticate(struct forge_service *s, const struct forge_server_request *req,
                        struct forge_server_response *resp, struct who *w)
{
    memset(w, 0, sizeof *w);
    if (s->o.auth == FORGE_AUTH_NONE) {
        snprintf(w->user, sizeof w->user, "anonymous");
        return 0;
    }
    const char *a = forge_server_header(req, "Authorization");
    const char *tok = NULL;
    if (a && !strncasecmp(a, "Bearer ", 7)) {
        tok = a + 7;
        while (*tok == ' ')
            tok++;
    } else if (!a) {
        tok = forge_server_query(req, "token");
    }
    struct forge_err err = {0};
    cJSON *claims = NULL;
    const char *why = NULL;
    if (!tok || !*tok)
        why = "no bearer token (Authorization: Bearer JWT)";
    else if (forge_jwt_verify(s->o.auth == FORGE_AUTH_JWT ? s->o.jwt_key : NULL, tok, now_s(), s->o.jwt_leeway_s,
                              &claims, &err))
        why = err.msg;
    char num[40];
    const char *uid = claims ? claim_at(claims, s->o.user_claim, num, sizeof num) : NULL;
    if (!why && (!uid || !*uid))
        why = "the token has no user id at the configured claim";
    else if (!why && strlen(uid) >= sizeof w->user)
        why = "the token's user id is longer than 95 bytes";
    if (why) {
        cJSON_Delete(claims);
        forge_log(FORGE_LOG_WARN, "service: refused %s %s: %s", req->method, req->path, why);
        reply_error(s, resp, 401, "unauthorized: %s", why);
        forge_server_add_header(resp, "WWW-Authenticate", "Bearer");
        return -1;
    }
    snprintf(w->user, sizeof w->user, "%s", uid);
    cJSON_Delete(claims);
    return 0;
}

/* The admin tier: 503 when no admin token is configured, 401 for anything but it. */
static int authenticate_admin(struct forge_service *s, const struct forge_server_request *req,
                              struct forge_server_response *resp)
{
    if (!s->o.admin_token) {
        forge_log(FORGE_LOG_WARN, "service: refused %s %s: no admin token configured", req->method, req->path);
        reply_error(s, resp, 503, "the admin API is disabled: no admin token is configured "
                                  "(--admin-token-env VAR)");
        return -1;
    }
    const char *a = forge_server_header(req, "Authorization");
    const char *tok = a && !strncasecmp(a, "Bearer ", 7) ? a + 7 : NULL;
    if (!forge_server_secret_eq(tok, s->o.admin_token)) {
        forge_log(FORGE_LOG_WARN, "service: refused %s %s: %s", req->method, req->path,
                  tok ? "wrong admin token" : "no admin token");
        reply_error(s, resp, 401, "unauthorized: the admin API needs the admin bearer token");
        forge_server_add_header(resp, "WWW-Authenticate", "Bearer");
        return -1;
    }
    return 0;
}

/* Counts a request against <user>'s window; 0, or answers 429 with Retry-After. */
static int rate_check(struct forge_service *s, const char *user, struct forge_server_response *resp)
{
    if (s->o.rate_limit <= 0)
        return 0;
    if (s->o.store->shared) {
        /* replicas count together: fixed windows aligned on the clock, counted in the store */
        double now = now_s(), ws = (double)(long long)(now / s->o.rate_window_s) * s->o.rate_window_s;
        long count = 0;
        struct forge_err err = {0};
        if (forge_store_rate_hit(s->o.store, user, ws, &count, &err)) {
            reply_error(s, resp, 503, "%s", err.msg);
            return -1;
        }
        if (count <= s->o.rate_limit)
            return 0;
        double left = ws + s->o.rate_window_s - now;
        char ra[32];
        snprintf(ra, sizeof ra, "%ld", (long)(left + 0.999) > 0 ? (long)(left + 0.999) : 1);
        reply_error(s, resp, 429, "rate limit: %d requests per %g s per user (--rate-limit); retry in %s s",
                    s->o.rate_limit, s->o.rate_window_s, ra);
        forge_server_add_header(resp, "Retry-After", ra);
        return -1;
    }
    unsigned long h = 5381;
    for (const char *p = user; *p; p++)
        h = h * 33 + (unsigned char)*p;
    double now = forge_clock_ms() / 1000.0;
    pthread_mutex_lock(&s->mu);
    /* open addressing over a fixed table; a slot whose window has passed is free again */
    struct rate_slot *slot = NULL;
    for (int i = 0; i < 64 && !slot; i++) {
        struct rate_slot *r = &s->rate[(h + (unsigned long)i) % RATE_SLOTS];
        if (!strcmp(r->user, user) || !r->user[0] || now - r->start >= s->o.rate_window_s)
            slot = r;
    }
    if (!slot) /* the table is crowded: share the home slot rather than let anyone through */
        slot = &s->rate[h % RATE_SLOTS];
    if (strcmp(slot->user, user) || now - slot->start >= s->o.rate_window_s) {
        snprintf(slot->user, sizeof slot->user, "%s", user);
        slot->start = now;
        slot->count = 0;
    }
    int over = slot->count >= s->o.rate_limit;
    if (!over)
        slot->count++;
    double retry = slot->start + s->o.rate_window_s - now;
    pthread_mutex_unlock(&s->mu);
    if (!over)
        return 0;
    char ra[32];
    snprintf(ra, sizeof ra, "%ld", (long)(retry + 0.999) > 0 ? (long)(retry + 0.999) : 1);
    reply_error(s, resp, 429, "rate limit: %d requests per %g s per user (--rate-limit); retry in %s s",
                s->o.rate_limit, s->o.rate_window_s, ra);
    forge_server_add_header(resp, "Retry-After", ra);
    return -1;
}

/* ---- sessions in flight ---- */

static int busy_take(struct forge_service *s, const char *session)
{
    int rc = -1, free_i = -1;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < MAX_BUSY; i++) {
        if (s->busy[i] && !strcmp(s->busy[i], session)) {
            free_i = -2;
            break;
        }
        if (!s->busy[i] && free_i == -1)
            free_i = i;
    }
    if (free_i >= 0 && (s->busy[free_i] = forge_strdup(session)))
        rc = 0;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static void busy_drop(struct forge_service *s, const char *session)
{
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < MAX_BUSY; i++)
        if (s->busy[i] && !strcmp(s->busy[i], session)) {
            forge_free(s->busy[i]);
            s->busy[i] = NULL;
            break;
        }
    pthread_mutex_unlock(&s->mu);
}

/* ---- agents ---- */

static struct forge_service_agent *find_agent(struct forge_service *s, const char *id)
{
    if (!id)
        return s->o.nagents ? &s->o.agents[0] : NULL;
    for (int i = 0; i < s->o.nagents; i++)
        if (!strcmp(s->o.agents[i].id, id))
            return &s->o.agents[i];
    return NULL;
}

static cJSON *tools_of(const struct forge_service_agent *a)
{
    cJSON *list = cJSON_CreateArray();
    const struct forge_toolset *ts = a->agent.tools;
    for (int i = 0; ts && i < ts->n; i++) {
        const struct forge_tool *t = ts->v[i];
        if (a->agent.policy && forge_policy_blocked(a->agent.policy, t->name))
            continue;
        cJSON *d = forge_tool_model_def(t);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", t->name);
        const char *desc = forge_json_str(d, "description");
        cJSON_AddStringToObject(o, "description", desc ? desc : "");
        cJSON *p = cJSON_DetachItemFromObjectCaseSensitive(d, "parameters");
        cJSON_AddItemToObject(o, "schema", p ? p : cJSON_CreateObject());
        cJSON_AddBoolToObject(o, "requiresApproval", a->agent.policy && forge_policy_needs_approval(a->agent.policy, t));
        cJSON_Delete(d);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

/* ---- a chat turn ---- */

struct turn {
    struct forge_service *s;
    struct forge_service_agent *agent;
    char user[96];
    char session[130];
    char route[32];
    char *message;             /* new message, or NULL when resuming */
    cJSON *resume;             /* paused state when resuming (owned) */
    int approved;
    int created;               /* the conversation is new */
    cJSON *history;            /* owned until the chat takes it */
    struct forge_server_stream *stream; /* SSE; NULL for JSON */
    double deadline_ms;        /* forge_clock_ms() deadline */
    int busy;                  /* holds the conversation's busy mark */
    int live;                  /* counted in s->live */
    int timed_out;
    cJSON *warnings;           /* JSON: collected tool_warning events */
};

static void busy_drop(struct forge_service *s, const char *session);

static void turn_free(void *p)
{
    struct turn *t = p;
    if (!t)
        return;
    if (t->busy)
        busy_drop(t->s, t->session);
    if (t->live)
        atomic_fetch_sub(&t->s->live, 1);
    forge_free(t->message);
    cJSON_Delete(t->resume);
    cJSON_Delete(t->history);
    cJSON_Delete(t->warnings);
    forge_free(t);
}

static void sse(struct turn *t, const char *type, const cJSON *data)
{
    if (!t->stream)
        return;
    cJSON *d = data ? cJSON_Duplicate(data, 1) : cJSON_CreateObject();
    cJSON_AddItemToObject(d, "type", cJSON_CreateString(type));
    char *text = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    if (!text)
        return;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_addf(&b, "event: %s\ndata: %s\n\n", type, text);
    cJSON_free(text);
    if (b.data)
        forge_server_stream_write(t->stream, b.data, b.len);
    forge_buf_free(&b);
}

static void on_event(void *ctx, const char *type, const cJSON *data)
{
    struct turn *t = ctx;
    if (!strcmp(type, "tool_warning")) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddItemToObject(w, "tool", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(data, "tool"), 1));
        cJSON_AddItemToObject(w, "message", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(data, "message"), 1));
        cJSON_AddItemToObject(w, "verifier", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(data, "verifier"), 1));
        cJSON_AddItemToArray(t->warnings, w);
    }
    sse(t, type, data);
}

static int should_stop(void *ctx)
{
    struct turn *t = ctx;
    if (forge_clock_ms() > t->deadline_ms) {
        t->timed_out = 1;
        return 1;
    }
    return t->stream && forge_server_stream_closed(t->stream);
}

/* Keeps the last <limit> messages of <h>, cut at a user message so no tool result loses its
 * call; the latest turn is kept whole even when it alone is longer. */
static void trim_history(cJSON *h, int limit)
{
    int n = cJSON_GetArraySize(h);
    if (limit <= 0 || n <= limit)
        return;
    int drop = n - limit, cut = -1, last_user = -1, i = 0;
    for (const cJSON *m = h->child; m; m = m->next, i++) {
        const char *role = forge_json_str(m, "role");
        if (role && !strcmp(role, "user")) {
            last_user = i;
            if (cut < 0 && i >= drop)
                cut = i;
        }
    }
    if (cut < 0)
        cut = last_user;
    for (int k = 0; k < cut && h->child; k++)
        cJSON_Delete(cJSON_DetachItemFromArray(h, 0));
}

/* Writes the turn's audit row; returns it (new) for on_done. */
static cJSON *audit(struct turn *t, const char *status, double ms, int tools, int approvals, int hitl, int warnings,
                    const char *error)
{
    cJSON *row = cJSON_CreateObject();
    char at[40];
    forge_clock_iso(at, sizeof at);
    cJSON_AddStringToObject(row, "at", at);
    cJSON_AddStringToObject(row, "user", t->user);
    cJSON_AddStringToObject(row, "agentId", t->agent->id);
    cJSON_AddStringToObject(row, "sessionId", t->session);
    cJSON_AddStringToObject(row, "route", t->route);
    cJSON_AddStringToObject(row, "status", status);
    cJSON_AddNumberToObject(row, "durationMs", (double)(long long)(ms * 1000) / 1000);
    const struct forge_model *m = t->agent->agent.model;
    char model[300];
    snprintf(model, sizeof model, "%s:%s", m->provider ? m->provider : "", m->name ? m->name : "");
    cJSON_AddStringToObject(row, "model", model);
    cJSON_AddNumberToObject(row, "toolCount", tools);
    cJSON_AddNumberToObject(row, "approvals", approvals);
    cJSON_AddBoolToObject(row, "hitl", hitl);
    cJSON_AddNumberToObject(row, "warnings", warnings);
    if (error)
        cJSON_AddStringToObject(row, "error", error);
    struct forge_err err = {0};
    if (forge_store_audit_add(t->s->o.store, row, &err))
        forge_log(FORGE_LOG_ERROR, "service: %s", err.msg);
    return row;
}

/* Calls the agent's hook <which> with <arg> (borrowed). Returns 0 and *out (new; NULL for no
 * value), or the hook's error code with <err> (a script error or a broken limit). */
static int call_hook(const struct forge_service_agent *a, enum forge_service_hook which, const cJSON *arg, cJSON **out,
                     struct forge_err *err)
{
    *out = NULL;
    const struct forge_callable *h = a->hook[which];
    if (!h)
        return 0;
    cJSON *args = cJSON_CreateArray();
    cJSON_AddItemToArray(args, cJSON_Duplicate(arg, 1));
    int rc = h->call(h->ctx, args, out, err);
    cJSON_Delete(args);
    return rc;
}

/* A hook's refusal: false, {false, "why"} (an array of two results), or {reject|deny = "why"}.
 * Returns 1 and the reason (borrowed from <v>, may be "") when <v> refuses. */
static int refusal(const cJSON *v, const char *key, const char **why)
{
    *why = "";
    if (cJSON_IsFalse(v))
        return 1;
    if (cJSON_IsArray(v) && cJSON_IsFalse(v->child)) {
        if (v->child->next && cJSON_IsString(v->child->next))
            *why = v->child->next->valuestring;
        return 1;
    }
    const cJSON *r = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key) : NULL;
    if (cJSON_IsString(r)) {
        *why = r->valuestring;
        return 1;
    }
    return 0;
}

/* on_tool_call: runs before each call that passed every check. */
static void gate(void *ctx, const cJSON *call, char **deny)
{
    struct turn *t = ctx;
    cJSON *arg = cJSON_Duplicate(call, 1);
    cJSON_AddStringToObject(arg, "user", t->user);
    cJSON_AddStringToObject(arg, "agentId", t->agent->id);
    cJSON_AddStringToObject(arg, "sessionId", t->session);
    cJSON *out = NULL;
    struct forge_err err = {0};
    const char *why;
    if (call_hook(t->agent, FORGE_HOOK_ON_TOOL_CALL, arg, &out, &err))
        *deny = forge_strdupf("on_tool_call failed, so the call was not made: %s", err.msg);
    else if (refusal(out, "deny", &why))
        *deny = forge_strdupf("call refused by on_tool_call%s%s", *why ? ": " : "", why);
    cJSON_Delete(out);
    cJSON_Delete(arg);
}

/* The approval level named <name> (may be NULL), or -1. */
static int level_of(const char *name)
{
    for (int l = FORGE_APPROVE_AUTONOMOUS; name && l <= FORGE_APPROVE_PARANOID; l++)
        if (!strcmp(name, forge_approval_level_name((enum forge_approval_level)l)))
            return l;
    return -1;
}

/* When the agent (or --allow-user-hitl) lets the user choose, and the user's hitlLevel
 * preference names a level: fills <pol> with the agent's policy at that level, points a->policy
 * at it and returns 1 (free <pol> after). Else 0, <a> unchanged. */
static int user_policy(struct turn *t, struct forge_agent *a, struct forge_policy *pol)
{
    if (!t->s->o.allow_user_hitl && !t->agent->allow_user_hitl)
        return 0;
    cJSON *p = NULL;
    struct forge_err err = {0};
    if (forge_store_prefs_get(t->s->o.store, t->user, &p, &err)) {
        forge_log(FORGE_LOG_ERROR, "service: the preferences of '%s' could not be read, the agent's approval level "
                  "applies: %s", t->user, err.msg);
        return 0;
    }
    int level = level_of(forge_json_str(p, "hitlLevel"));
    cJSON_Delete(p);
    if (level < 0)
        return 0;
    struct forge_policy defaults;
    forge_policy_init(&defaults);
    int rc = forge_policy_copy(pol, a->policy ? a->policy : &defaults);
    forge_policy_free(&defaults);
    if (rc)
        return 0;
    pol->level = (enum forge_approval_level)level;
    a->policy = pol;
    return 1;
}

/* Runs the turn and answers: for JSON into <resp>, for SSE onto t->stream. */
static void run_turn(struct turn *t, struct forge_server_response *resp)
{
    struct forge_service *s = t->s;
    double t0 = forge_clock_ms();
    struct forge_agent agent = t->agent->agent;
    struct forge_policy upol;
    int own_policy = user_policy(t, &agent, &upol);
    t->warnings = cJSON_CreateArray();
    struct forge_agent_chat c = {
        .messages = t->history, .message = t->message, .resume = t->resume, .approved = t->approved,
        .case_id = t->agent->id, .on_event = on_event, .event_ctx = t, .stop = should_stop, .stop_ctx = t,
        .gate = t->agent->hook[FORGE_HOOK_ON_TOOL_CALL] ? gate : NULL, .gate_ctx = t,
    };
    t->history = NULL;
    struct forge_err err = {0};
    int rc = forge_agent_chat_run(&agent, &c, &err);
    if (own_policy)
        forge_policy_free(&upol);
    double ms = forge_clock_ms() - t0;
    int ncalls = cJSON_GetArraySize(c.calls);
    int paused = !rc && !strcmp(c.status, "paused");
    char token[33] = "";
    struct forge_err serr = {0};
    int stored = 0;
    if (c.messages) {
        trim_history(c.messages, s->o.history_limit);
        stored = forge_store_conv_put(s->o.store, t->session, t->user, t->agent->id, c.messages, &serr);
    }
    if (!stored && paused) {
        cJSON *st = cJSON_CreateObject();
        cJSON_AddStringToObject(st, "sessionId", t->session);
        cJSON_AddStringToObject(st, "agentId", t->agent->id);
        cJSON_AddStringToObject(st, "user", t->user);
        cJSON_AddItemToObject(st, "paused", cJSON_Duplicate(c.paused, 1));
        cJSON_AddItemToObject(st, "call", cJSON_Duplicate(c.pending_call, 1));
        if (random_id(token))
            stored = forge_err_set(&serr, FORGE_EIO, "no random numbers for a resume token");
        else
            stored = forge_store_pending_put(s->o.store, token, t->session, st, now_s() + s->o.hitl_ttl_s, &serr);
        cJSON_Delete(st);
    }
    const char *status = rc ? "error" : stored ? "error" : t->timed_out ? "timeout"
                       : !strcmp(c.status, "stopped") ? "disconnected" : c.status;
    const char *emsg = rc ? err.msg : stored ? serr.msg : NULL;
    char tmsg[200];
    if (!rc && !stored && t->timed_out) {
        snprintf(tmsg, sizeof tmsg, "the request passed its deadline of %ld ms (--request-timeout-ms)",
                 s->o.deadline_ms);
        emsg = tmsg;
    }
    cJSON *row = audit(t, status, ms, ncalls, c.approvals, paused, c.warnings, emsg);
    if (t->agent->hook[FORGE_HOOK_ON_DONE]) {
        cJSON_AddStringToObject(row, "message", c.text ? c.text : "");
        cJSON *out = NULL;
        struct forge_err herr = {0};
        if (call_hook(t->agent, FORGE_HOOK_ON_DONE, row, &out, &herr))
            forge_log(FORGE_LOG_ERROR, "service: agent '%s': on_done: %s", t->agent->id, herr.msg);
        cJSON_Delete(out);
    }
    cJSON_Delete(row);

    cJSON *usage = cJSON_CreateObject();
    cJSON_AddNumberToObject(usage, "inputTokens", c.input_tokens);
    cJSON_AddNumberToObject(usage, "outputTokens", c.output_tokens);
    if (t->stream) {
        if (emsg) {
            cJSON *e = cJSON_CreateObject();
            char *m = rc ? forge_strdupf("model call failed: %s", err.msg) : NULL;
            cJSON_AddStringToObject(e, "message", m ? m : emsg);
            forge_free(m);
            sse(t, "error", e);
            cJSON_Delete(e);
        } else if (paused) {
            cJSON *h = cJSON_CreateObject();
            cJSON_AddStringToObject(h, "tool", forge_json_str(c.pending_call, "name"));
            cJSON_AddItemToObject(h, "args", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(c.pending_call, "arguments"), 1));
            cJSON_AddStringToObject(h, "id", forge_json_str(c.pending_call, "id"));
            char m[300];
            snprintf(m, sizeof m, "The call to %s needs approval", forge_json_str(c.pending_call, "name"));
            cJSON_AddStringToObject(h, "message", m);
            cJSON_AddStringToObject(h, "resumeToken", token);
            cJSON_AddStringToObject(h, "sessionId", t->session);
            cJSON_AddNumberToObject(h, "expiresIn", s->o.hitl_ttl_s);
            sse(t, "hitl", h);
            cJSON_Delete(h);
        } else if (strcmp(status, "disconnected") != 0) {
            cJSON *d = cJSON_CreateObject();
            cJSON_AddItemToObject(d, "usage", usage);
            usage = NULL;
            cJSON_AddStringToObject(d, "conversationId", t->session);
            cJSON_AddStringToObject(d, "stopReason", c.status);
            sse(t, "done", d);
            cJSON_Delete(d);
        }
        atomic_fetch_add(emsg ? &s->refused : &s->answered, 1);
    } else if (rc) {
        reply_error(s, resp, 502, "model call failed: %s", err.msg);
    } else if (stored) {
        reply_error(s, resp, 503, "%s", serr.msg);
    } else if (t->timed_out) {
        reply_error(s, resp, 504, "%s", tmsg);
    } else {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "conversationId", t->session);
        cJSON_AddStringToObject(b, "sessionId", t->session);
        cJSON_AddStringToObject(b, "agentId", t->agent->id);
        if (paused) {
            cJSON_AddStringToObject(b, "resumeToken", token);
            cJSON_AddStringToObject(b, "tool", forge_json_str(c.pending_call, "name"));
            cJSON_AddItemToObject(b, "args", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(c.pending_call, "arguments"), 1));
            char m[300];
            snprintf(m, sizeof m, "The call to %s needs approval", forge_json_str(c.pending_call, "name"));
            cJSON_AddStringToObject(b, "message", m);
            cJSON_AddNumberToObject(b, "expiresIn", s->o.hitl_ttl_s);
        } else {
            cJSON_AddStringToObject(b, "message", c.text ? c.text : "");
        }
        cJSON *tc = cJSON_AddArrayToObject(b, "toolCalls");
        cJSON *flags = cJSON_CreateArray();
        const cJSON *rec;
        cJSON_ArrayForEach(rec, c.calls) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddItemToObject(o, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "id"), 1));
            cJSON_AddItemToObject(o, "name", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "name"), 1));
            cJSON_AddItemToObject(o, "args", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "arguments"), 1));
            cJSON_AddItemToObject(o, "result", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "result"), 1));
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(rec, "error");
            cJSON_AddItemToObject(o, "error", cJSON_Duplicate(e, 1));
            if (cJSON_IsString(e))
                cJSON_AddItemToArray(flags, cJSON_CreateString(e->valuestring));
            cJSON_AddItemToArray(tc, o);
        }
        cJSON_AddItemToObject(b, "warnings", t->warnings);
        t->warnings = NULL;
        cJSON_AddItemToObject(b, "flags", flags);
        cJSON_AddItemToObject(b, "usage", usage);
        usage = NULL;
        cJSON_AddStringToObject(b, "stopReason", c.status);
        atomic_fetch_add(&s->answered, 1);
        reply_json(resp, paused ? 409 : 200, b);
    }
    cJSON_Delete(usage);
    forge_agent_chat_free(&c);
    busy_drop(s, t->session);
    t->busy = 0;
}

static void produce(void *ctx, struct forge_server_stream *stream)
{
    struct turn *t = ctx;
    t->stream = stream;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "sessionId", t->session);
    cJSON_AddStringToObject(e, "agentId", t->agent->id);
    sse(t, "session", e);
    cJSON_Delete(e);
    run_turn(t, NULL);
}

/* on_request: may refuse the request (403) or rewrite its message; a hook that fails refuses
 * it too (500). Returns 0 to go on. */
static int hook_request(struct forge_service *s, struct turn *t, struct forge_server_response *resp)
{
    if (!t->agent->hook[FORGE_HOOK_ON_REQUEST])
        return 0;
    cJSON *arg = cJSON_CreateObject();
    cJSON_AddStringToObject(arg, "route", t->route);
    cJSON_AddStringToObject(arg, "user", t->user);
    cJSON_AddStringToObject(arg, "agentId", t->agent->id);
    cJSON_AddStringToObject(arg, "sessionId", t->session);
    cJSON_AddItemToObject(arg, "message", t->message ? cJSON_CreateString(t->message) : cJSON_CreateNull());
    cJSON_AddBoolToObject(arg, "newConversation", t->created);
    if (t->resume)
        cJSON_AddBoolToObject(arg, "confirmed", t->approved);
    cJSON *out = NULL;
    struct forge_err err = {0};
    int rc = call_hook(t->agent, FORGE_HOOK_ON_REQUEST, arg, &out, &err);
    cJSON_Delete(arg);
    const char *why;
    const cJSON *m = cJSON_IsObject(out) ? cJSON_GetObjectItemCaseSensitive(out, "message") : NULL;
    if (rc) {
        forge_log(FORGE_LOG_ERROR, "service: agent '%s': on_request: %s", t->agent->id, err.msg);
        reply_error(s, resp, 500, "the agent's on_request hook failed: %s", err.msg);
        rc = -1;
    } else if (refusal(out, "reject", &why)) {
        reply_error(s, resp, 403, "refused by the agent's on_request hook%s%s", *why ? ": " : "", why);
        rc = -1;
    } else if (m && t->message) {
        if (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) > s->o.max_message) {
            reply_error(s, resp, 500, "the agent's on_request hook returned a message that is not a non-empty "
                        "string of at most %zu bytes", s->o.max_message);
            rc = -1;
        } else {
            forge_free(t->message);
            t->message = forge_strdup(m->valuestring);
        }
    }
    cJSON_Delete(out);
    return rc;
}

/* Parses the body as a JSON object; answers 400/413 and returns NULL otherwise. */
static cJSON *json_body(struct forge_service *s, const struct forge_server_request *req,
                        struct forge_server_response *resp)
{
    if (req->body_too_large) {
        reply_error(s, resp, 413, "the request body is larger than %zu bytes (--max-body-mb)", s->o.max_body);
        return NULL;
    }
    const char *ct = forge_server_header(req, "Content-Type");
    if (ct && strncasecmp(ct, "application/json", 16) != 0) {
        reply_error(s, resp, 415, "the request body must be application/json, not '%.60s'", ct);
        return NULL;
    }
    struct forge_err err = {0};
    cJSON *b = req->body_len ? forge_json_parse(req->body, req->body_len, "request body", &err) : NULL;
    if (!b) {
        reply_error(s, resp, 400, "%s", req->body_len ? err.msg : "the request has no body (a JSON object)");
        return NULL;
    }
    if (!cJSON_IsObject(b)) {
        cJSON_Delete(b);
        reply_error(s, resp, 400, "the request body must be a JSON object");
        return NULL;
    }
    return b;
}

static int id_ok(const char *id)
{
    size_t n = strlen(id);
    return n > 0 && n <= 128 &&
           strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == n;
}

static int wants_stream(const struct forge_server_request *req)
{
    const char *acc = forge_server_header(req, "Accept");
    return acc && strstr(acc, "text/event-stream");
}

/* POST /agent-api/chat and /agent-api/chat-sync. */
static void chat(struct forge_service *s, const struct forge_server_request *req, struct forge_server_response *resp,
                 const struct who *w, int stream)
{
    cJSON *b = json_body(s, req, resp);
    if (!b)
        return;
    static const char *const known[] = {"message", "sessionId", "conversationId", "agentId", NULL};
    for (const cJSON *k = b->child; k; k = k->next) {
        int ok = 0;
        for (const char *const *p = known; *p && !ok; p++)
            ok = !strcmp(*p, k->string);
        if (!ok) {
            reply_error(s, resp, 400, "unknown key '%.60s' in the request (message, sessionId, agentId)", k->string);
            cJSON_Delete(b);
            return;
        }
    }
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(b, "message");
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(b, "sessionId");
    if (!sid)
        sid = cJSON_GetObjectItemCaseSensitive(b, "conversationId");
    const cJSON *aid = cJSON_GetObjectItemCaseSensitive(b, "agentId");
    struct turn *t = NULL;
    if (!cJSON_IsString(msg) || !msg->valuestring[0]) {
        reply_error(s, resp, 400, "'message' must be a non-empty string");
        goto out;
    }
    if (strlen(msg->valuestring) > s->o.max_message) {
        reply_error(s, resp, 413, "'message' is longer than %zu bytes (--max-message-kb)", s->o.max_message);
        goto out;
    }
    if (sid && !cJSON_IsNull(sid) && (!cJSON_IsString(sid) || !id_ok(sid->valuestring))) {
        reply_error(s, resp, 400, "'sessionId' must be 1 to 128 letters, digits, '_', '.', ':' or '-'");
        goto out;
    }
    if (aid && !cJSON_IsNull(aid) && !cJSON_IsString(aid)) {
        reply_error(s, resp, 400, "'agentId' must be a string");
        goto out;
    }
    const char *agent_id = cJSON_IsString(aid) ? aid->valuestring : NULL;
    if (!(t = forge_calloc(1, sizeof *t))) {
        reply_error(s, resp, 500, "out of memory");
        goto out;
    }
    t->s = s;
    snprintf(t->user, sizeof t->user, "%s", w->user);
    snprintf(t->route, sizeof t->route, "%s", stream ? "chat" : "chat-sync");
    if (cJSON_IsString(sid)) {
        snprintf(t->session, sizeof t->session, "%s", sid->valuestring);
        char *owner = NULL, *agent = NULL;
        cJSON *h = NULL;
        struct forge_err err = {0};
        int r = forge_store_conv_get(s->o.store, t->session, &owner, &agent, &h, &err);
        if (r < 0) {
            reply_error(s, resp, 503, "%s", err.msg);
        } else if (r == 0 && strcmp(owner, t->user) != 0) {
            reply_error(s, resp, 403, "conversation '%s' belongs to another user", t->session);
        } else if (r == 0 && agent_id && strcmp(agent_id, agent) != 0) {
            reply_error(s, resp, 400, "conversation '%s' is held with agent '%s', not '%.64s'", t->session, agent,
                        agent_id);
        } else if (r == 0) {
            t->agent = find_agent(s, agent);
            t->history = h;
            h = NULL;
            if (!t->agent)
                reply_error(s, resp, 404, "conversation '%s' was held with agent '%s', which this server does not "
                            "serve", t->session, agent);
        } else {
            t->created = 1;
        }
        forge_free(owner);
        forge_free(agent);
        cJSON_Delete(h);
        if (r < 0 || (r == 0 && !t->agent))
            goto out;
    } else {
        t->created = 1;
        if (random_id(t->session)) {
            reply_error(s, resp, 503, "no random numbers for a session id");
            goto out;
        }
    }
    if (!t->agent && !(t->agent = find_agent(s, agent_id))) {
        reply_error(s, resp, 404, "unknown agent '%.64s' (GET /agent-api/agents lists them)", agent_id);
        goto out;
    }
    t->message = forge_strdup(msg->valuestring);
    if (hook_request(s, t, resp))
        goto out;
    if (busy_take(s, t->session)) {
        reply_error(s, resp, 409, "conversation '%s' is busy with another request", t->session);
        goto out;
    }
    t->busy = 1;
    /* a new message supersedes the conversation's pending approval */
    struct forge_err err = {0};
    if (!t->created && forge_store_pending_drop(s->o.store, t->session, now_s(), &err)) {
        reply_error(s, resp, 503, "%s", err.msg);
        goto out;
    }
    t->deadline_ms = forge_clock_ms() + (double)s->o.deadline_ms;
    if (stream) {
        t->live = 1;
        atomic_fetch_add(&s->live, 1);
        forge_server_live(resp, "text/event-stream", produce, t, turn_free);
        t = NULL;
    } else {
        run_turn(t, resp);
    }
out:
    turn_free(t);
    cJSON_Delete(b);
}

/* POST /agent-api/chat/resume. */
static void resume(struct forge_service *s, const struct forge_server_request *req, struct forge_server_response *resp,
                   const struct who *w)
{
    cJSON *b = json_body(s, req, resp);
    if (!b)
        return;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(b, "resumeToken");
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(b, "confirmed");
    struct turn *t = NULL;
    cJSON *st = NULL;
    char *owner = NULL, *agent = NULL;
    if (!cJSON_IsString(tok) || !tok->valuestring[0] || strlen(tok->valuestring) > 128) {
        reply_error(s, resp, 400, "'resumeToken' must be the token a paused chat returned");
        goto out;
    }
    if (!cJSON_IsBool(conf)) {
        reply_error(s, resp, 400, "'confirmed' must be true or false");
        goto out;
    }
    struct forge_err err = {0};
    int r = forge_store_pending_take(s->o.store, tok->valuestring, now_s(), &st, &err);
    if (r < 0) {
        reply_error(s, resp, 503, "%s", err.msg);
        goto out;
    }
    if (r == 1) {
        reply_error(s, resp, 410, "the resume token is unknown, expired or already used");
        goto out;
    }
    const char *user = forge_json_str(st, "user"), *session = forge_json_str(st, "sessionId");
    if (!user || !session || strcmp(user, w->user) != 0) {
        forge_log(FORGE_LOG_WARN, "service: refused %s %s: a resume token of another user", req->method, req->path);
        reply_error(s, resp, 403, "the resume token belongs to another user");
        goto out;
    }
    if (!(t = forge_calloc(1, sizeof *t))) {
        reply_error(s, resp, 500, "out of memory");
        goto out;
    }
    t->s = s;
    snprintf(t->user, sizeof t->user, "%s", w->user);
    snprintf(t->session, sizeof t->session, "%s", session);
    snprintf(t->route, sizeof t->route, "resume");
    cJSON *h = NULL;
    r = forge_store_conv_get(s->o.store, t->session, &owner, &agent, &h, &err);
    if (r != 0) {
        cJSON_Delete(h);
        if (r < 0)
            reply_error(s, resp, 503, "%s", err.msg);
        else
            reply_error(s, resp, 410, "the conversation of this resume token was deleted");
        goto out;
    }
    t->history = h;
    if (!(t->agent = find_agent(s, agent))) {
        reply_error(s, resp, 404, "the conversation was held with agent '%s', which this server does not serve", agent);
        goto out;
    }
    t->resume = cJSON_DetachItemFromObjectCaseSensitive(st, "paused");
    t->approved = cJSON_IsTrue(conf);
    if (hook_request(s, t, resp))
        goto out;
    if (busy_take(s, t->session)) {
        reply_error(s, resp, 409, "conversation '%s' is busy with another request", t->session);
        goto out;
    }
    t->busy = 1;
    t->deadline_ms = forge_clock_ms() + (double)s->o.deadline_ms;
    if (wants_stream(req)) {
        t->live = 1;
        atomic_fetch_add(&s->live, 1);
        forge_server_live(resp, "text/event-stream", produce, t, turn_free);
        t = NULL;
    } else {
        run_turn(t, resp);
    }
out:
    forge_free(owner);
    forge_free(agent);
    cJSON_Delete(st);
    turn_free(t);
    cJSON_Delete(b);
}

/* ---- routing ---- */

static int method_is(struct forge_service *s, const struct forge_server_request *req,
                     struct forge_server_response *resp, const char *allow)
{
    char m[16];
    snprintf(m, sizeof m, "%s", req->method);
    const char *p = allow;
    size_t n = strlen(m);
    while ((p = strstr(p, m))) {
        if ((p == allow || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
            return 1;
        p += n;
    }
    reply_error(s, resp, 405, "%s is not allowed here (allowed: %s)", m, allow);
    forge_server_add_header(resp, "Allow", allow);
    return 0;
}

static void conversations(struct forge_service *s, const struct forge_server_request *req,
                          struct forge_server_response *resp, const struct who *w, const char *id)
{
    struct forge_err err = {0};
    if (!id) {
        if (!method_is(s, req, resp, "GET"))
            return;
        cJSON *list = NULL;
        if (forge_store_conv_list(s->o.store, w->user, &list, &err))
            return reply_error(s, resp, 503, "%s", err.msg);
        cJSON *b = cJSON_CreateObject();
        cJSON_AddItemToObject(b, "conversations", list);
        return reply_json(resp, 200, b);
    }
    if (!method_is(s, req, resp, "GET, DELETE"))
        return;
    if (!id_ok(id))
        return reply_error(s, resp, 404, "no such conversation");
    char *owner = NULL, *agent = NULL;
    cJSON *h = NULL;
    int r = forge_store_conv_get(s->o.store, id, &owner, &agent, &h, &err);
    if (r < 0)
        reply_error(s, resp, 503, "%s", err.msg);
    else if (r == 1)
        reply_error(s, resp, 404, "no conversation '%s'", id);
    else if (strcmp(owner, w->user) != 0)
        reply_error(s, resp, 403, "conversation '%s' belongs to another user", id);
    else if (!strcmp(req->method, "DELETE")) {
        r = forge_store_conv_delete(s->o.store, id, &err);
        if (r < 0)
            reply_error(s, resp, 503, "%s", err.msg);
        else {
            cJSON *b = cJSON_CreateObject();
            cJSON_AddBoolToObject(b, "deleted", r == 0);
            cJSON_AddStringToObject(b, "id", id);
            reply_json(resp, 200, b);
        }
    } else {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "id", id);
        cJSON_AddStringToObject(b, "agentId", agent);
        cJSON_AddItemToObject(b, "messages", h);
        h = NULL;
        reply_json(resp, 200, b);
    }
    cJSON_Delete(h);
    forge_free(owner);
    forge_free(agent);
}

static void preferences(struct forge_service *s, const struct forge_server_request *req,
                        struct forge_server_response *resp, const struct who *w)
{
    if (!method_is(s, req, resp, "GET, PUT"))
        return;
    struct forge_err err = {0};
    cJSON *p = NULL;
    if (!strcmp(req->method, "GET")) {
        if (forge_store_prefs_get(s->o.store, w->user, &p, &err))
            return reply_error(s, resp, 503, "%s", err.msg);
        cJSON *b = cJSON_CreateObject();
        cJSON_AddItemToObject(b, "preferences", p);
        return reply_json(resp, 200, b);
    }
    cJSON *b = json_body(s, req, resp);
    if (!b)
        return;
    /* the keys agent-tool-forge knows; hitlLevel applies where the agent or --allow-user-hitl allows it */
    for (const cJSON *k = b->child; k; k = k->next) {
        if (!strcmp(k->string, "model") || !strcmp(k->string, "hitlLevel")) {
            if (!cJSON_IsString(k) && !cJSON_IsNull(k)) {
                reply_error(s, resp, 400, "preference '%s' must be a string or null", k->string);
                cJSON_Delete(b);
                return;
            }
            if (!strcmp(k->string, "hitlLevel") && cJSON_IsString(k) && level_of(k->valuestring) < 0) {
                reply_error(s, resp, 400, "preference 'hitlLevel': unknown level '%.60s' (autonomous, cautious, "
                            "standard, paranoid)", k->valuestring);
                cJSON_Delete(b);
                return;
            }
        } else {
            reply_error(s, resp, 400, "unknown preference '%.60s' (model, hitlLevel)", k->string);
            cJSON_Delete(b);
            return;
        }
    }
    if (forge_store_prefs_put(s->o.store, w->user, b, &err)) {
        cJSON_Delete(b);
        return reply_error(s, resp, 503, "%s", err.msg);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "preferences", b);
    reply_json(resp, 200, o);
}

static void admin(struct forge_service *s, const struct forge_server_request *req, struct forge_server_response *resp,
                  const char *rest)
{
    if (authenticate_admin(s, req, resp))
        return;
    struct forge_err err = {0};
    if (!strcmp(rest, "audit")) {
        if (!method_is(s, req, resp, "GET"))
            return;
        const char *l = forge_server_query(req, "limit"), *o = forge_server_query(req, "offset");
        long limit = l ? strtol(l, NULL, 10) : 50, offset = o ? strtol(o, NULL, 10) : 0;
        if (limit < 1 || limit > 1000 || offset < 0 || offset > 1000000000)
            return reply_error(s, resp, 400, "limit must be 1 to 1000 and offset 0 or more");
        cJSON *rows = NULL;
        if (forge_store_audit_list(s->o.store, (int)limit, (int)offset, &rows, &err))
            return reply_error(s, resp, 503, "%s", err.msg);
        cJSON *b = cJSON_CreateObject();
        cJSON_AddItemToObject(b, "audit", rows);
        return reply_json(resp, 200, b);
    }
    if (!strcmp(rest, "agents")) {
        if (!method_is(s, req, resp, "GET"))
            return;
        cJSON *b = cJSON_CreateObject();
        cJSON *list = cJSON_AddArrayToObject(b, "agents");
        for (int i = 0; i < s->o.nagents; i++) {
            const struct forge_service_agent *a = &s->o.agents[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", a->id);
            const struct forge_model *m = a->agent.model;
            cJSON_AddStringToObject(o, "provider", m->provider ? m->provider : "");
            cJSON_AddStringToObject(o, "model", m->name ? m->name : "");
            cJSON_AddStringToObject(o, "approvalLevel",
                                    forge_approval_level_name(a->agent.policy ? a->agent.policy->level
                                                                              : FORGE_APPROVE_CAUTIOUS));
            cJSON_AddItemToObject(o, "tools", tools_of(a));
            cJSON_AddItemToArray(list, o);
        }
        return reply_json(resp, 200, b);
    }
    reply_error(s, resp, 404, "no admin route '/forge-admin/%.60s' (audit, agents)", rest);
}

void forge_service_handle(void *ctx, const struct forge_server_request *req, struct forge_server_response *resp)
{
    struct forge_service *s = ctx;
    char path[512];
    const char *p = req->path;
    if (strlen(p) >= sizeof path)
        return reply_error(s, resp, 404, "no such route");
    /* /agent-api/v1/... is /agent-api/... */
    if (!strncmp(p, "/agent-api/v1/", 14) || !strcmp(p, "/agent-api/v1"))
        snprintf(path, sizeof path, "/agent-api/%s", p + (p[13] ? 14 : 13));
    else
        snprintf(path, sizeof path, "%s", p);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = '\0';
    if (!strcmp(path, "/health")) {
        if (!method_is(s, req, resp, "GET, HEAD"))
            return;
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "status", "ok");
        return reply_json(resp, 200, b);
    }
    if (!strncmp(path, "/forge-admin/", 13))
        return admin(s, req, resp, path + 13);
    if (strncmp(path, "/agent-api/", 11) != 0)
        return reply_error(s, resp, 404, "no route %.200s (the API is under /agent-api/)", path);
    const char *r = path + 11;
    struct who w;
    if (authenticate(s, req, resp, &w))
        return;
    if (rate_check(s, w.user, resp))
        return;
    if (!strcmp(r, "chat-sync")) {
        if (method_is(s, req, resp, "POST"))
            chat(s, req, resp, &w, 0);
    } else if (!strcmp(r, "chat")) {
        if (method_is(s, req, resp, "POST"))
            chat(s, req, resp, &w, 1);
    } else if (!strcmp(r, "chat/resume")) {
        if (method_is(s, req, resp, "POST"))
            resume(s, req, resp, &w);
    } else if (!strcmp(r, "tools")) {
        if (!method_is(s, req, resp, "GET"))
            return;
        const char *id = forge_server_query(req, "agent");
        struct forge_service_agent *a = find_agent(s, id);
        if (!a)
            return reply_error(s, resp, 404, "unknown agent '%.64s'", id ? id : "");
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "agentId", a->id);
        cJSON_AddItemToObject(b, "tools", tools_of(a));
        reply_json(resp, 200, b);
    } else if (!strcmp(r, "agents")) {
        if (!method_is(s, req, resp, "GET"))
            return;
        cJSON *b = cJSON_CreateObject();
        cJSON *list = cJSON_AddArrayToObject(b, "agents");
        for (int i = 0; i < s->o.nagents; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", s->o.agents[i].id);
            if (s->o.agents[i].description)
                cJSON_AddStringToObject(o, "description", s->o.agents[i].description);
            cJSON_AddBoolToObject(o, "default", i == 0);
            cJSON_AddItemToArray(list, o);
        }
        reply_json(resp, 200, b);
    } else if (!strcmp(r, "conversations")) {
        conversations(s, req, resp, &w, NULL);
    } else if (!strncmp(r, "conversations/", 14)) {
        conversations(s, req, resp, &w, r + 14);
    } else if (!strcmp(r, "user/preferences")) {
        preferences(s, req, resp, &w);
    } else {
        reply_error(s, resp, 404, "no route %.200s", path);
    }
}
