/* Sessions of forge serve and their trajectories. */
#include "serve/session.h"
#include "base/alloc.h"
#include "base/err.h"
#include "data/json.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BUCKETS 4096

/* Milliseconds to the microsecond, as trajectories write them. */
static double ms(double v)
{
    return (double)(long long)(v * 1000 + 0.5) / 1000;
}

struct forge_session {
    char *key, *case_id, *tag;  /* tag: the X-Forge-Session header, or NULL */
    long number;                /* 1, 2, ... in the order sessions began */
    double started;
    double *turn_start, *turn_end; /* by user turn, from 1 */
    int nturns;
    cJSON *calls;               /* {"#n": [issued ms, result ms]} for the n-th call of the
                                   conversation: by position, since dialects without call ids
                                   (Ollama, Gemini) name calls anew in each request */
    double in_tokens, out_tokens;
    long requests;
    cJSON *last_req, *last_resp; /* the latest exchange, kept (not copied) until a trajectory is
                                    needed: at completion, or at the end for open sessions */
    char *model, *provider;
    double last_ms;
    cJSON *traj;
    int complete;
    struct forge_session *next, *chain;
};

struct forge_sessions {
    pthread_mutex_t mu;
    struct forge_session *buckets[BUCKETS], *first, *last;
    long count, completed, max;
    FILE *out;
};

struct forge_sessions *forge_sessions_new(FILE *transcripts, long max_sessions)
{
    struct forge_sessions *t = forge_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->mu, NULL);
    t->out = transcripts;
    t->max = max_sessions;
    return t;
}

static void free_session(struct forge_session *s)
{
    forge_free(s->key);
    forge_free(s->case_id);
    forge_free(s->tag);
    forge_free(s->turn_start);
    forge_free(s->turn_end);
    cJSON_Delete(s->calls);
    cJSON_Delete(s->last_req);
    cJSON_Delete(s->last_resp);
    forge_free(s->model);
    forge_free(s->provider);
    cJSON_Delete(s->traj);
    forge_free(s);
}

void forge_sessions_free(struct forge_sessions *t)
{
    if (!t)
        return;
    for (struct forge_session *s = t->first, *n; s; s = n) {
        n = s->next;
        free_session(s);
    }
    pthread_mutex_destroy(&t->mu);
    forge_free(t);
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The text of the first user message of <nreq>, or "". */
static const char *first_user(const cJSON *nreq)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(nreq, "messages")) {
        const char *role = forge_json_str(m, "role"), *c = forge_json_str(m, "content");
        if (role && !strcmp(role, "user"))
            return c ? c : "";
    }
    return "";
}

/* The id of the case whose input.message is <text>, or NULL. */
static const char *case_of(const cJSON *cases, const char *text)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, cases) {
        const char *m = forge_json_str(cJSON_GetObjectItemCaseSensitive(k, "input"), "message");
        if (m && !strcmp(m, text))
            return forge_json_str(k, "id");
    }
    return NULL;
}

static int count_role(const cJSON *nreq, const char *role)
{
    int n = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(nreq, "messages")) {
        const char *r = forge_json_str(m, "role");
        n += r && !strcmp(r, role);
    }
    return n;
}

/* The position (from 1) of the call <id> among the calls of <msgs>, or 0. */
static int ordinal(const cJSON *msgs, const char *id)
{
    int n = 0;
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, msgs)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
            n++;
            const char *cid = forge_json_str(c, "id");
            if (cid && !strcmp(cid, id))
                return n;
        }
    return 0;
}

static int grow_turns(struct forge_session *s, int k)
{
    if (k <= s->nturns)
        return 0;
    double *a = forge_realloc(s->turn_start, (size_t)(k + 1) * sizeof *a);
    if (!a)
        return FORGE_ENOMEM;
    s->turn_start = a;
    double *b = forge_realloc(s->turn_end, (size_t)(k + 1) * sizeof *b);
    if (!b)
        return FORGE_ENOMEM;
    s->turn_end = b;
    for (int i = s->nturns + 1; i <= k; i++)
        s->turn_start[i] = s->turn_end[i] = -1;
    s->nturns = k;
    return 0;
}

static struct forge_session *find_or_open(struct forge_sessions *t, const char *key, const char *case_id,
                                          const char *tag, double t0)
{
    uint64_t h = hash(key) % BUCKETS;
    for (struct forge_session *s = t->buckets[h]; s; s = s->chain)
        if (!strcmp(s->key, key))
            return s;
    struct forge_session *s = forge_calloc(1, sizeof *s);
    if (!s || !(s->key = forge_strdup(key)) || (case_id && !(s->case_id = forge_strdup(case_id))) ||
        (tag && !(s->tag = forge_strdup(tag))) || !(s->calls = cJSON_CreateObject())) {
        if (s)
            free_session(s);
        return NULL;
    }
    s->started = t0;
    s->number = ++t->count;
    s->chain = t->buckets[h];
    t->buckets[h] = s;
    if (t->last)
        t->last->next = s;
    else
        t->first = s;
    t->last = s;
    return s;
}

int forge_sessions_begin(struct forge_sessions *t, const struct forge_server_request *req, const cJSON *nreq,
                         const cJSON *cases, double t0, struct forge_session_ref *ref)
{
    memset(ref, 0, sizeof *ref);
    const char *case_id = forge_server_header(req, "X-Forge-Case");
    const char *tag = forge_server_header(req, "X-Forge-Session");
    const char *first = first_user(nreq);
    if (!case_id || !*case_id)
        case_id = case_of(cases, first);
    char *key = case_id ? forge_strdupf("c\037%s\037%s", case_id, tag ? tag : "")
                        : forge_strdupf("m\037%s\037%s", first, tag ? tag : "");
    if (!key)
        return FORGE_ENOMEM;
    int rc = 0;
    pthread_mutex_lock(&t->mu);
    struct forge_session *s = find_or_open(t, key, case_id, tag, t0);
    int k = count_role(nreq, "user");
    if (!s || grow_turns(s, k)) {
        rc = FORGE_ENOMEM;
        goto out;
    }
    if (s->turn_start[k] < 0)
        s->turn_start[k] = t0;
    /* the first request that carries a call's result tells how long the agent's tool took */
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(nreq, "messages"), *m;
    cJSON_ArrayForEach(m, msgs) {
        const char *role = forge_json_str(m, "role"), *id = forge_json_str(m, "tool_call_id");
        char key[24];
        int n = id && role && !strcmp(role, "tool") ? ordinal(msgs, id) : 0;
        snprintf(key, sizeof key, "#%d", n);
        cJSON *c = n ? cJSON_GetObjectItemCaseSensitive(s->calls, key) : NULL;
        if (cJSON_GetArraySize(c) == 1)
            cJSON_AddItemToArray(c, cJSON_CreateNumber(t0));
    }
    ref->s = s;
    ref->case_id = s->case_id;
out:
    pthread_mutex_unlock(&t->mu);
    forge_free(key);
    return rc;
}

void forge_sessions_abandon(struct forge_sessions *t, struct forge_session_ref *ref)
{
    (void)t;
    ref->s = NULL;
}

/* A tool result as a trajectory records it: JSON text holding an object or an array is that
 * value, other text is {"content": text} (as the transcript importers do). */
static cJSON *result_value(const char *text)
{
    struct forge_err e;
    cJSON *v = forge_json_parse(text, strlen(text), "result", &e);
    if (v && (cJSON_IsObject(v) || cJSON_IsArray(v)))
        return v;
    cJSON_Delete(v);
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, "content", text)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

static cJSON *find_call(cJSON *turn, const char *id)
{
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(turn, "tool_calls")) {
        const char *cid = forge_json_str(c, "id");
        if (cid && !strcmp(cid, id))
            return c;
    }
    return NULL;
}

/* Adds an assistant message to the agent turn *agent (opened after the user turn <turn_id>). */
static int add_assistant(struct forge_session *s, cJSON *turns, cJSON **agent, int turn_id, int *round,
                         const cJSON *m)
{
    if (!*agent) {
        cJSON *a = cJSON_CreateObject();
        if (!a)
            return FORGE_ENOMEM;
        cJSON_AddItemToArray(turns, a);
        if (!cJSON_AddNumberToObject(a, "turn_id", turn_id) || !cJSON_AddStringToObject(a, "role", "agent") ||
            !cJSON_AddStringToObject(a, "content", "") || !cJSON_AddArrayToObject(a, "tool_calls"))
            return FORGE_ENOMEM;
        if (turn_id <= s->nturns && s->turn_start[turn_id] >= 0 && s->turn_end[turn_id] >= 0)
            cJSON_AddNumberToObject(a, "latency_ms", ms(s->turn_end[turn_id] - s->turn_start[turn_id]));
        *agent = a;
    }
    (*round)++;
    const char *text = forge_json_str(m, "content");
    if (text && *text) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(*agent, "content");
        char *joined = *c->valuestring ? forge_strdupf("%s\n%s", c->valuestring, text) : forge_strdup(text);
        if (!joined)
            return FORGE_ENOMEM;
        cJSON *n = cJSON_CreateString(joined);
        forge_free(joined);
        if (!n)
            return FORGE_ENOMEM;
        cJSON_ReplaceItemInObjectCaseSensitive(*agent, "content", n);
    }
    cJSON *calls = cJSON_GetObjectItemCaseSensitive(*agent, "tool_calls");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
        cJSON *w = cJSON_CreateObject();
        if (!w)
            return FORGE_ENOMEM;
        cJSON_AddItemToArray(calls, w);
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(c, "arguments");
        if (!cJSON_AddStringToObject(w, "id", forge_json_str(c, "id")) ||
            !cJSON_AddStringToObject(w, "name", forge_json_str(c, "name")) ||
            !cJSON_AddItemToObject(w, "arguments", args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject()) ||
            !cJSON_AddNullToObject(w, "result") || !cJSON_AddNullToObject(w, "error") ||
            !cJSON_AddNumberToObject(w, "round", *round))
            return FORGE_ENOMEM;
    }
    return 0;
}

static int add_result(struct forge_session *s, cJSON *agent, const cJSON *msgs, const cJSON *m)
{
    const char *id = forge_json_str(m, "tool_call_id"), *text = forge_json_str(m, "content");
    cJSON *call = agent && id ? find_call(agent, id) : NULL;
    if (!call)
        return 0;
    if (!text)
        text = "";
    cJSON *v = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "is_error")) ? cJSON_CreateString(text)
                                                                               : result_value(text);
    if (!v)
        return FORGE_ENOMEM;
    cJSON_ReplaceItemInObjectCaseSensitive(call, cJSON_IsString(v) ? "error" : "result", v);
    char key[24];
    snprintf(key, sizeof key, "#%d", ordinal(msgs, id));
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(s->calls, key);
    if (cJSON_GetArraySize(times) == 2)
        cJSON_AddNumberToObject(call, "latency_ms",
                                ms(cJSON_GetArrayItem(times, 1)->valuedouble - cJSON_GetArrayItem(times, 0)->valuedouble));
    return 0;
}

static cJSON *build(struct forge_session *s, const cJSON *nreq, const cJSON *nresp, const char *model,
                    const char *provider, double t1)
{
    cJSON *traj = cJSON_CreateObject(), *turns, *meta, *agent = NULL;
    if (!traj)
        return NULL;
    char sid[32];
    snprintf(sid, sizeof sid, "session-%ld", s->number);
    if (!cJSON_AddStringToObject(traj, "trajectory_id", s->case_id ? s->case_id : sid) ||
        !(turns = cJSON_AddArrayToObject(traj, "turns")))
        goto fail;
    int turn_id = 0, round = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(nreq, "messages")) {
        const char *role = forge_json_str(m, "role");
        if (!strcmp(role, "user")) {
            cJSON *u = cJSON_CreateObject();
            if (!u)
                goto fail;
            cJSON_AddItemToArray(turns, u);
            const char *c = forge_json_str(m, "content");
            if (!cJSON_AddNumberToObject(u, "turn_id", ++turn_id) || !cJSON_AddStringToObject(u, "role", "user") ||
                !cJSON_AddStringToObject(u, "content", c ? c : ""))
                goto fail;
            agent = NULL;
            round = 0;
        } else if (!strcmp(role, "assistant")) {
            if (add_assistant(s, turns, &agent, turn_id, &round, m))
                goto fail;
        } else if (add_result(s, agent, cJSON_GetObjectItemCaseSensitive(nreq, "messages"), m)) {
            goto fail;
        }
    }
    if (add_assistant(s, turns, &agent, turn_id, &round, cJSON_GetObjectItemCaseSensitive(nresp, "message")))
        goto fail;
    if (!(meta = cJSON_AddObjectToObject(traj, "metadata")) || !cJSON_AddStringToObject(meta, "model", model) ||
        !cJSON_AddStringToObject(meta, "provider", provider) ||
        !cJSON_AddNumberToObject(meta, "input_tokens", s->in_tokens) ||
        !cJSON_AddNumberToObject(meta, "output_tokens", s->out_tokens) || !cJSON_AddNumberToObject(meta, "cost_usd", 0) ||
        !cJSON_AddNumberToObject(meta, "latency_ms", ms(t1 - s->started)) ||
        !cJSON_AddNumberToObject(meta, "requests", (double)s->requests) ||
        !cJSON_AddStringToObject(meta, "session", s->tag ? s->tag : sid))
        goto fail;
    return traj;
fail:
    cJSON_Delete(traj);
    return NULL;
}

/* Replaces *slot with a copy of <v> unless it already holds the same text. */
static int keep_str(char **slot, const char *v)
{
    if (*slot && !strcmp(*slot, v))
        return 0;
    char *c = forge_strdup(v);
    if (!c)
        return FORGE_ENOMEM;
    forge_free(*slot);
    *slot = c;
    return 0;
}

void forge_sessions_end(struct forge_sessions *t, struct forge_session_ref *ref, cJSON **nreq, cJSON **nresp,
                        const char *model, const char *provider, double t1)
{
    struct forge_session *s = ref->s;
    if (!s)
        return;
    pthread_mutex_lock(&t->mu);
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(*nresp, "usage");
    s->in_tokens += forge_json_num(usage, "input_tokens", 0);
    s->out_tokens += forge_json_num(usage, "output_tokens", 0);
    s->requests++;
    int k = count_role(*nreq, "user");
    if (k <= s->nturns)
        s->turn_end[k] = t1;
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(*nresp, "message"),
                                                          "tool_calls"), *c;
    int base = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(*nreq, "messages"))
        base += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "tool_calls"));
    cJSON_ArrayForEach(c, calls) {
        char key[24];
        snprintf(key, sizeof key, "#%d", ++base);
        cJSON *times = cJSON_CreateArray();
        if (!times || !cJSON_AddItemToArray(times, cJSON_CreateNumber(t1)) ||
            (!cJSON_ReplaceItemInObjectCaseSensitive(s->calls, key, times) && !cJSON_AddItemToObject(s->calls, key, times)))
            cJSON_Delete(times);
    }
    int ends = cJSON_GetArraySize(calls) == 0;
    cJSON_Delete(s->last_req);
    cJSON_Delete(s->last_resp);
    s->last_req = *nreq;
    s->last_resp = *nresp;
    *nreq = *nresp = NULL;
    s->last_ms = t1;
    if (keep_str(&s->model, model) || keep_str(&s->provider, provider)) {
        pthread_mutex_unlock(&t->mu);
        ref->s = NULL;
        return;
    }
    cJSON *traj = ends ? build(s, s->last_req, s->last_resp, s->model, s->provider, t1) : NULL;
    if (traj) {
        cJSON_Delete(s->traj);
        s->traj = traj;
        if (!s->complete)
            t->completed++;
        s->complete = 1;
        char *line = t->out ? forge_json_print(traj, 0) : NULL;
        if (line) {
            fputs(line, t->out);
            fputc('\n', t->out);
            fflush(t->out);
            forge_free(line);
        }
    } else {
        s->complete = 0; /* a conversation that goes on after an answer is open again */
    }
    pthread_mutex_unlock(&t->mu);
    ref->s = NULL;
}

int forge_sessions_finished(struct forge_sessions *t)
{
    pthread_mutex_lock(&t->mu);
    int f = t->max > 0 && t->completed >= t->max;
    pthread_mutex_unlock(&t->mu);
    return f;
}

long forge_sessions_complete(struct forge_sessions *t)
{
    pthread_mutex_lock(&t->mu);
    long n = t->completed;
    pthread_mutex_unlock(&t->mu);
    return n;
}

cJSON *forge_sessions_trajectories(struct forge_sessions *t)
{
    cJSON *arr = cJSON_CreateArray();
    pthread_mutex_lock(&t->mu);
    for (struct forge_session *s = t->first; arr && s; s = s->next) {
        cJSON *traj = s->complete && s->traj ? cJSON_Duplicate(s->traj, 1)
                    : s->last_req ? build(s, s->last_req, s->last_resp, s->model, s->provider, s->last_ms) : NULL;
        if ((s->traj || s->last_req) && !cJSON_AddItemToArray(arr, traj)) {
            cJSON_Delete(traj);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return arr;
}
