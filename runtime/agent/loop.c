/* The agent loop. */
#include "agent/loop.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/strtab.h"
#include "base/clock.h"
#include "data/coerce.h"
#include "data/json.h"
#include "data/schema.h"
#include "model/model.h"
#include "net/http.h"
#include "tools/policy.h"
#include "tools/tool.h"
#include "tools/verify.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Identical-call accounting: canonical "name args" strings with counts. */
/* The calls of a case so far, by "NAME ARGS" (arguments printed with sorted keys), with how many
 * times each was made (a response may hold tens of thousands of calls: finding one is not a
 * scan). */
struct seen {
    struct forge_strtab keys; /* owned: freed by seen_free */
    int *counts;              /* by index in keys */
    size_t cap;
    struct forge_buf key;     /* the call's key is written here, copied only when new */
};

/* Counts the call <name>(<args>): returns how many times it has been made, this one included
 * (1 when memory runs out). */
static int seen_bump(struct seen *s, const char *name, const cJSON *args)
{
    /* "NAME ARGS", the arguments printed after the name, in the buffer the case's calls share */
    forge_buf_reset(&s->key);
    if (forge_buf_adds(&s->key, name) || forge_buf_addc(&s->key, ' ') ||
        (args && forge_json_write(&s->key, args, FORGE_JSON_SORTED)))
        return 1;
    long i = forge_strtab_find(&s->keys, s->key.data);
    if (i >= 0)
        return ++s->counts[i];
    char *key = forge_strdup(s->key.data); /* (a new key: its own copy, of its length) */
    if (!key)
        return 1;
    if (s->keys.n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        int *c = forge_realloc(s->counts, sizeof *c * cap);
        if (!c) {
            forge_free(key);
            return 1;
        }
        s->counts = c;
        s->cap = cap;
    }
    if ((i = forge_strtab_add(&s->keys, key)) < 0) {
        forge_free(key);
        return 1;
    }
    s->counts[i] = 1;
    return 1;
}

static void seen_free(struct seen *s)
{
    for (size_t i = 0; i < s->keys.n; i++)
        forge_free((char *)s->keys.keys[i]);
    forge_strtab_free(&s->keys);
    forge_free(s->counts);
    forge_buf_free(&s->key);
}

/* The text a tool message carries: strings as they are, other results as JSON. */
static char *result_text(const cJSON *result)
{
    if (cJSON_IsString(result))
        return forge_strdup(result->valuestring);
    return forge_json_print(result, 0);
}

struct run {
    const struct forge_agent *a;
    const struct forge_policy *policy;
    const cJSON *stubs;
    cJSON *messages;  /* normalized chat history */
    cJSON *calls;     /* the agent turn's tool_calls */
    struct seen seen;
    int total_calls;
    int identical_stop;
    /* a service turn (forge_agent_chat_run) */
    forge_agent_event_fn on_event;
    void *event_ctx;
    int pause_mode;         /* a call that needs approval pauses the turn */
    const char *decide_id;  /* resuming: the call the user decided on */
    int approved;           /* ... and the decision */
    int paused;
    int warnings, approvals;
    void (*gate)(void *ctx, const cJSON *call, char **deny);
    void *gate_ctx;
    size_t result_bytes; /* the tool results of the case so far (forge_json_tree_bytes) */
};


static void emit(struct run *r, const char *type, cJSON *data)
{
    if (r->on_event && data)
        r->on_event(r->event_ctx, type, data);
    cJSON_Delete(data);
}

/* {"id", "tool", k1: v1, ...}: an event about call <id> of <name>. */
static cJSON *call_event(const char *id, const char *name)
{
    cJSON *e = cJSON_CreateObject();
    forge_json_add_str(e, "id", id);
    forge_json_add_str(e, "tool", name);
    return e;
}

/* Checks, executes and verifies one call; appends its record to r->calls and its tool message
 * to r->messages. */
static int handle_call(struct run *r, const cJSON *mcall, int round, int nth_in_response,
                       struct forge_err *err)
{
    const char *name = forge_json_str(mcall, "name");
    const char *id = forge_json_str(mcall, "id");
    const cJSON *margs = forge_json_get(mcall, "arguments");
    char idbuf[32];
    if (!id || !*id) { /* "call_N" */
        char digits[12];
        int d = 0;
        for (unsigned u = (unsigned)(r->total_calls + 1); u || !d; u /= 10)
            digits[d++] = (char)('0' + u % 10);
        memcpy(idbuf, "call_", 5);
        int len = 5;
        while (d)
            idbuf[len++] = digits[--d];
        idbuf[len] = '\0';
        id = idbuf;
    }
    if (!name)
        name = "";
    cJSON *args = cJSON_IsObject(margs) ? cJSON_Duplicate(margs, 1) : cJSON_CreateObject();
    if (r->on_event) {
        cJSON *e = call_event(id, name);
        forge_json_add_item(e, "args", cJSON_Duplicate(args, 1));
        emit(r, "tool_call", e);
    }
    r->total_calls++;
    cJSON *rec = cJSON_CreateObject();
    forge_json_add_str(rec, "id", id);
    forge_json_add_str(rec, "name", name);
    forge_json_add_item(rec, "arguments", args);
    cJSON_AddItemToArray(r->calls, rec);

    const struct forge_policy *p = r->policy;
    const struct forge_tool *tool = r->a->tools ? forge_toolset_find(r->a->tools, name) : NULL;
    const char *server = tool ? forge_json_str(tool->def, "mcp_server") : NULL;
    if (server) /* the trajectory says which MCP server answered */
        forge_json_add_str(rec, "mcp_server", server);
    const cJSON *stub = cJSON_IsObject(r->stubs) ? forge_json_get(r->stubs, name)
                                                 : NULL;
    cJSON *result = NULL;
    char *error = NULL;
    const char *policy_hit = NULL;
    const char *tc = p->tool_choice ? (cJSON_IsString(p->tool_choice)
                                           ? p->tool_choice->valuestring
                                           : forge_json_str(p->tool_choice, "name"))
                                    : NULL;
    int identical = seen_bump(&r->seen, name, args);

    const char *aerr = forge_json_str(mcall, "arguments_error");
    if (aerr) {
        /* the provider could not decode the model's argument text */
        const char *atext = forge_json_str(mcall, "arguments_text");
        forge_json_add_str(rec, "arguments_text", atext ? atext : "");
        error = forge_strdupf("invalid arguments for tool '%s': %s", name, aerr);
        policy_hit = "invalid_arguments";
    } else if (!margs || !cJSON_IsObject(margs)) {
        char *got = margs ? forge_json_print(margs, 0) : NULL;
        error = forge_strdupf("invalid arguments for tool '%s': expected a JSON object, got %s", name,
                     got ? got : "nothing");
        forge_free(got);
        policy_hit = "invalid_arguments";
    } else if (!tool && !stub) {
        error = r->stubs ? forge_strdupf("no stub for \"%s\"", name)
                         : forge_strdupf("unknown tool '%s'", name);
        policy_hit = "unknown_tool";
    } else if (tc && !strcmp(tc, "none") && round == 1) {
        error = forge_strdupf("tool '%s' was called although tool_choice is \"none\"", name);
        policy_hit = "tool_choice";
    } else if (forge_policy_blocked(p, name)) {
        error = forge_strdupf("Tool %s is blocked by policy", name);
        policy_hit = "blocklist";
    } else if (p->max_calls_per_turn >= 0 && nth_in_response > p->max_calls_per_turn) {
        error = forge_strdupf("call not executed: more than max_tool_calls_per_turn (%d) calls in one "
                     "response", p->max_calls_per_turn);
        policy_hit = "max_tool_calls_per_turn";
    } else if (p->max_total_calls >= 0 && r->total_calls > p->max_total_calls) {
        error = forge_strdupf("call not executed: more than max_total_tool_calls (%d) calls in this case",
                     p->max_total_calls);
        policy_hit = "max_total_tool_calls";
    } else if (p->max_identical >= 0 && identical > p->max_identical) {
        error = forge_strdupf("Repeated call ignored: %s was called %d times with the same arguments "
                     "(max_identical_calls %d)", name, identical, p->max_identical);
        policy_hit = "max_identical_calls";
        if (identical > p->max_identical + 1)
            r->identical_stop = 1;
    }
    if (policy_hit)
        forge_json_add_str(rec, "policy", policy_hit);

    if (!error && tool && forge_policy_needs_approval(p, tool) && r->pause_mode) {
        if (!r->decide_id || strcmp(r->decide_id, id) != 0) {
            /* the turn waits for a person: the call is not made, nor recorded yet */
            r->paused = 1;
            r->total_calls--;
            cJSON_Delete(cJSON_DetachItemFromArray(r->calls, cJSON_GetArraySize(r->calls) - 1));
            return 0;
        }
        r->decide_id = NULL;
        cJSON *approval = cJSON_CreateObject();
        forge_json_add_str(approval, "level", forge_approval_level_name(p->level));
        forge_json_add_str(approval, "decision", r->approved ? "approved" : "denied");
        forge_json_add_lit(approval, "by", "user");
        if (r->approved)
            r->approvals++;
        else
            error = forge_strdupf("the user declined the call to %s", name);
        forge_json_add_item(rec, "approval", approval);
    } else if (!error && tool && forge_policy_needs_approval(p, tool)) {
        cJSON *ask = cJSON_CreateObject();
        forge_json_add_str(ask, "id", id);
        forge_json_add_str(ask, "name", name);
        forge_json_add_item(ask, "arguments", cJSON_Duplicate(args, 1));
        cJSON *approval = forge_policy_ask(p, ask);
        cJSON_Delete(ask);
        const char *dec = forge_json_str(approval, "decision");
        if (dec && !strcmp(dec, "denied")) {
            const char *why = forge_json_str(approval, "reason");
            error = forge_strdupf("call to %s denied by the approval policy%s%s", name, why ? ": " : "",
                         why ? why : "");
        }
        forge_json_add_item(rec, "approval", approval);
    }
    if (!error && tool && tool->schema && !stub) {
        if (tool->coerce) {
            cJSON *coercions = NULL;
            int n = forge_coerce_args(args, forge_json_get(tool->def, "parameters"),
                                      &coercions, err);
            if (n < 0)
                return n;
            if (n > 0)
                forge_json_add_item(rec, "coercions", coercions);
            else
                cJSON_Delete(coercions);
        }
        cJSON *verrs = NULL;
        int ok = forge_schema_validate(tool->schema, args, &verrs);
        if (ok < 0) {
            cJSON_Delete(verrs);
            return forge_err_set(err, ok, "validating arguments of '%s' failed: %s", name,
                                 ok == FORGE_ELIMIT ? forge_schema_limit_message()
                                                    : forge_rc_name(ok));
        }
        if (ok == 0) {
            const cJSON *e = verrs ? verrs->child : NULL;
            const char *loc = e ? forge_json_str(e, "instanceLocation") : "";
            error = forge_strdupf("invalid arguments for tool '%s': %s%s%s", name,
                         e ? forge_json_str(e, "error") : "not valid against the schema",
                         loc && *loc ? " at " : "", loc && *loc ? loc : "");
            forge_json_add_item(rec, "validation", verrs ? verrs : cJSON_CreateArray());
            verrs = NULL;
        }
        cJSON_Delete(verrs);
    }

    if (!error && r->gate) {
        cJSON *g = cJSON_CreateObject();
        forge_json_add_str(g, "id", id);
        forge_json_add_str(g, "name", name);
        forge_json_add_item(g, "arguments", cJSON_Duplicate(args, 1));
        char *deny = NULL;
        r->gate(r->gate_ctx, g, &deny);
        cJSON_Delete(g);
        if (deny) {
            error = deny;
            forge_json_add_lit(rec, "policy", "hook");
        }
    }
    double t0 = forge_clock_ms();
    if (!error) {
        if (stub) {
            result = cJSON_Duplicate(stub, 1);
        } else {
            struct forge_tool_call call = {.id = id, .index = r->total_calls, .round = round,
                                           .arguments = args, .messages = r->messages};
            int rc = forge_tool_execute(tool, &call, &result, &error, err);
            if (rc)
                return rc;
        }
    }
    /* every result stays in the conversation until the case ends: together they are an input
     * of the run, bounded as one (a tool may answer each of thousands of calls with megabytes) */
    if (result && (r->result_bytes += forge_json_tree_bytes(result, sizeof *result)) > forge_file_input_limit()) {
        cJSON_Delete(result);
        forge_free(error);
        size_t max = forge_file_input_limit();
        if (max % ((size_t)1 << 20) == 0)
            return forge_err_set(err, FORGE_ELIMIT, "the tool results of one case take more than %zu MiB (the "
                                 "input limit; raise it with --max-file-mb)", max >> 20);
        return forge_err_set(err, FORGE_ELIMIT, "the tool results of one case take more than %zu bytes (the "
                             "input limit; raise it with --max-file-mb)", max);
    }
    forge_json_add_item(rec, "result", result ? result : cJSON_CreateNull());
    forge_json_add_item(rec, "error", error ? cJSON_CreateString(error) : cJSON_CreateNull());
    forge_json_add_num(rec, "latency_ms", (double)(long long)((forge_clock_ms() - t0) * 1000) / 1000);
    forge_json_add_num(rec, "round", round);

    if (!error && r->a->verifiers) {
        cJSON *verdict;
        if (forge_verifiers_run(r->a->verifiers, tool, rec, &verdict))
            return forge_err_set(err, FORGE_ENOMEM, "out of memory running the verifiers of '%s'", name);
        if (verdict) {
            const char *o = forge_json_str(verdict, "outcome");
            if (o && !strcmp(o, "block")) {
                const char *vn = forge_json_str(verdict, "verifier");
                const char *vm = forge_json_str(verdict, "message");
                error = forge_strdupf("result blocked by verifier %s%s%s", vn ? vn : "?", vm ? ": " : "",
                             vm ? vm : "");
                cJSON_ReplaceItemInObjectCaseSensitive(rec, "error", cJSON_CreateString(error));
            }
            forge_json_add_item(rec, "verifier", verdict);
        }
    }
    if (r->on_event) {
        cJSON *e = call_event(id, name);
        forge_json_add_item(e, "result", cJSON_Duplicate(forge_json_get(rec, "result"), 1));
        forge_json_add_item(e, "error", error ? cJSON_CreateString(error) : cJSON_CreateNull());
        emit(r, "tool_result", e);
        const cJSON *v = forge_json_get(rec, "verifier");
        const char *o = forge_json_str(v, "outcome");
        if (o && !strcmp(o, "warn")) {
            r->warnings++;
            cJSON *w = call_event(id, name);
            const char *vm = forge_json_str(v, "message");
            const char *vn = forge_json_str(v, "verifier");
            forge_json_add_item(w, "message", vm ? cJSON_CreateString(vm) : cJSON_CreateNull());
            forge_json_add_item(w, "verifier", vn ? cJSON_CreateString(vn) : cJSON_CreateNull());
            emit(r, "tool_warning", w);
        }
    }

    cJSON *tm = cJSON_CreateObject();
    forge_json_add_lit(tm, "role", "tool");
    forge_json_add_str(tm, "tool_call_id", id);
    forge_json_add_str(tm, "name", name);
    if (error) {
        forge_json_add_str(tm, "content", error);
        forge_json_add_bool(tm, "is_error", 1);
    } else {
        char *text = result_text(forge_json_get(rec, "result"));
        forge_json_add_str(tm, "content", text ? text : "null");
        forge_free(text);
        forge_json_add_bool(tm, "is_error", 0);
    }
    cJSON_AddItemToArray(r->messages, tm);
    forge_free(error);
    return 0;
}

static cJSON *make_request(const struct run *r, int round)
{
    const struct forge_agent *a = r->a;
    cJSON *req = cJSON_CreateObject();
    if (a->system && *a->system)
        forge_json_add_str(req, "system", a->system);
    cJSON_AddItemReferenceToObject(req, "messages", r->messages);
    cJSON *tools = forge_json_add_arr(req, "tools");
    for (int i = 0; a->tools && i < a->tools->n; i++) {
        if (!forge_policy_blocked(r->policy, a->tools->v[i]->name))
            cJSON_AddItemToArray(tools, forge_tool_model_def(a->tools->v[i]));
    }
    if (r->policy->tool_choice && round == 1)
        forge_json_add_item(req, "tool_choice", cJSON_Duplicate(r->policy->tool_choice, 1));
    if (a->params)
        forge_json_add_item(req, "params", cJSON_Duplicate(a->params, 1));
    if (a->stream)
        forge_json_add_true(req, "stream");
    return req;
}

int forge_agent_run(const struct forge_agent *a, const cJSON *kase, cJSON **trajectory,
                    struct forge_err *err)
{
    *trajectory = NULL;
    const char *id = forge_json_str(kase, "id");
    const char *message = forge_json_str(forge_json_get(kase, "input"), "message");
    if (!message)
        return forge_err_set(err, FORGE_EINVAL, "case '%s' has no input.message", id ? id : "?");
    struct forge_policy policy;
    struct forge_policy defaults;
    forge_policy_init(&defaults);
    if (forge_policy_copy(&policy, a->policy ? a->policy : &defaults))
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char where[300] = "";
    const cJSON *case_policy = forge_json_get(kase, "policy");
    if (case_policy) /* the place in its messages */
        snprintf(where, sizeof where, "case '%s'", id ? id : "?");
    int rc = forge_policy_apply(&policy, case_policy, where, err);
    const cJSON *mt = forge_json_get(kase, "maxTurns");
    if (!rc && cJSON_IsNumber(mt) && mt->valuedouble >= 1 && mt->valuedouble < policy.max_rounds)
        policy.max_rounds = (int)mt->valuedouble;

    struct run r = {.a = a, .policy = &policy,
                    .stubs = forge_json_get(kase, "stubs")};
    forge_buf_init(&r.seen.key, 0);
    if (r.stubs && !cJSON_IsObject(r.stubs))
        r.stubs = NULL;
    r.messages = cJSON_CreateArray();
    r.calls = cJSON_CreateArray();
    cJSON *um = cJSON_CreateObject();
    forge_json_add_lit(um, "role", "user");
    forge_json_add_str(um, "content", message);
    cJSON_AddItemToArray(r.messages, um);

    char started[40];
    forge_clock_iso(started, sizeof started);
    double t0 = forge_clock_ms();
    double in_tok = 0, out_tok = 0, cost = 0, model_ms = 0;
    const char *stop = "max_rounds";
    char *final = NULL;
    int rounds = 0;
    cJSON *last_finish = NULL, *timings = cJSON_CreateArray();
    for (int round = 1; !rc && round <= policy.max_rounds; round++) {
        cJSON *req = make_request(&r, round);
        /* The scripted model matches rules by case. */
        if (id)
            forge_json_add_str(req, "case_id", id);
        cJSON *resp = NULL;
        rc = forge_model_complete(a->model, req, &resp, err);
        cJSON_Delete(req);
        if (rc)
            break;
        rounds = round;
        const cJSON *usage = forge_json_get(resp, "usage");
        in_tok += forge_json_num(usage, "input_tokens", 0);
        out_tok += forge_json_num(usage, "output_tokens", 0);
        cost += forge_json_num(resp, "cost_usd", 0);
        model_ms += forge_json_num(resp, "latency_ms", 0);
        cJSON_Delete(last_finish);
        last_finish = cJSON_Duplicate(forge_json_get(resp, "finish_reason"), 1);
        /* a streamed answer says when its first byte, token and call came */
        cJSON *timing = cJSON_DetachItemFromObjectCaseSensitive(resp, "timing");
        if (cJSON_IsObject(timing)) {
            forge_json_add_num(timing, "round", round);
            cJSON_AddItemToArray(timings, timing);
        } else {
            cJSON_Delete(timing);
        }
        cJSON *msg = cJSON_DetachItemFromObjectCaseSensitive(resp, "message");
        cJSON_Delete(resp);
        if (!cJSON_IsObject(msg)) {
            cJSON_Delete(msg);
            rc = forge_err_set(err, FORGE_ENET, "the model's response has no message");
            break;
        }
        cJSON_ReplaceItemInObjectCaseSensitive(msg, "role", cJSON_CreateStringReference("assistant"));
        const char *text = forge_json_str(msg, "content");
        const cJSON *tcs = forge_json_get(msg, "tool_calls");
        forge_free(final);
        final = forge_strdup(text ? text : "");
        cJSON_AddItemToArray(r.messages, msg);
        if (!cJSON_IsArray(tcs) || !tcs->child) {
            stop = "final";
            break;
        }
        int nth = 0;
        for (const cJSON *c = tcs->child; c && !rc; c = c->next)
            rc = handle_call(&r, c, round, ++nth, err);
        if (r.identical_stop) {
            stop = "identical_calls";
            break;
        }
    }
    double elapsed = forge_clock_ms() - t0;
    if (!rc) {
        cJSON *t = cJSON_CreateObject();
        forge_json_add_str(t, "trajectory_id", id ? id : "");
        cJSON *turns = forge_json_add_arr(t, "turns");
        cJSON *ut = cJSON_CreateObject();
        forge_json_add_num(ut, "turn_id", 1);
        forge_json_add_lit(ut, "role", "user");
        forge_json_add_str(ut, "content", message);
        forge_json_add_str(ut, "timestamp", started);
        cJSON_AddItemToArray(turns, ut);
        cJSON *at = cJSON_CreateObject();
        char ended[40];
        forge_clock_iso(ended, sizeof ended);
        forge_json_add_num(at, "turn_id", 1);
        forge_json_add_lit(at, "role", "agent");
        forge_json_add_str(at, "content", final ? final : "");
        forge_json_add_str(at, "timestamp", ended);
        forge_json_add_num(at, "latency_ms", (double)(long long)(elapsed * 1000) / 1000);
        forge_json_add_item(at, "tool_calls", r.calls);
        r.calls = NULL;
        if (cJSON_GetArraySize(timings) > 0) {
            forge_json_add_item(at, "model_timings", timings);
            timings = NULL;
        }
        cJSON_AddItemToArray(turns, at);
        cJSON *md = forge_json_add_obj(t, "metadata");
        forge_json_add_str(md, "model", a->model->name ? a->model->name : "");
        forge_json_add_str(md, "provider", a->model->provider ? a->model->provider : "");
        forge_json_add_num(md, "input_tokens", in_tok);
        forge_json_add_num(md, "output_tokens", out_tok);
        forge_json_add_num(md, "cost_usd", cost);
        forge_json_add_num(md, "latency_ms", (double)(long long)(elapsed * 1000) / 1000);
        forge_json_add_num(md, "model_latency_ms", model_ms);
        forge_json_add_num(md, "rounds", rounds);
        forge_json_add_item(md, "stop_reason", cJSON_CreateStringReference(stop)); /* a literal */
        if (last_finish)
            forge_json_add_item(md, "finish_reason", last_finish);
        last_finish = NULL;
        *trajectory = t;
    }
    cJSON_Delete(last_finish);
    cJSON_Delete(timings);
    forge_free(final);
    cJSON_Delete(r.messages);
    cJSON_Delete(r.calls);
    seen_free(&r.seen);
    forge_policy_free(&policy);
    forge_policy_free(&defaults);
    return rc;
}

/* Answers the calls of the history's assistant messages that have no tool message (a turn that
 * paused and was never resumed, or was stopped): every provider wants each call answered. */
static void close_dangling(cJSON *messages)
{
    cJSON *m = messages->child;
    while (m) {
        const cJSON *tcs = forge_json_get(m, "tool_calls");
        cJSON *next = m->next;
        if (cJSON_IsArray(tcs)) {
            cJSON *after = m;
            for (const cJSON *c = tcs->child; c; c = c->next) {
                const char *id = forge_json_str(c, "id");
                int answered = 0;
                for (cJSON *t = m->next; t && !answered; t = t->next) {
                    const char *tid = forge_json_str(t, "tool_call_id");
                    answered = tid && id && !strcmp(tid, id);
                }
                if (answered || !id)
                    continue;
                cJSON *tm = cJSON_CreateObject();
                forge_json_add_lit(tm, "role", "tool");
                forge_json_add_str(tm, "tool_call_id", id);
                forge_json_add_str(tm, "name", forge_json_str(c, "name") ? forge_json_str(c, "name") : "");
                forge_json_add_lit(tm, "content", "call not executed: the user did not approve it");
                forge_json_add_bool(tm, "is_error", 1);
                /* after the tool messages already there */
                while (after->next && forge_json_str(after->next, "tool_call_id"))
                    after = after->next;
                tm->prev = after;
                tm->next = after->next;
                if (after->next)
                    after->next->prev = tm;
                else
                    messages->child->prev = tm;
                after->next = tm;
                after = tm;
            }
        }
        m = next;
    }
}

/* The remaining calls of a response from <c> on, as a paused state. */
static cJSON *paused_state(const cJSON *c, int round, int total, int nth)
{
    cJSON *st = cJSON_CreateObject();
    cJSON *calls = forge_json_add_arr(st, "calls");
    for (; c; c = c->next)
        cJSON_AddItemToArray(calls, cJSON_Duplicate(c, 1));
    forge_json_add_num(st, "round", round);
    forge_json_add_num(st, "total", total);
    forge_json_add_num(st, "nth", nth);
    return st;
}

static cJSON *pending_of(const cJSON *c)
{
    cJSON *p = cJSON_CreateObject();
    const char *id = forge_json_str(c, "id"), *name = forge_json_str(c, "name");
    forge_json_add_str(p, "id", id ? id : "");
    forge_json_add_str(p, "name", name ? name : "");
    const cJSON *args = forge_json_get(c, "arguments");
    forge_json_add_item(p, "arguments", cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
    return p;
}

/* Runs the calls from <c> on (the <nth> of their response first); stops at a pause. */
static int run_calls(struct run *r, struct forge_agent_chat *ch, const cJSON *c, int round, int nth,
                     struct forge_err *err)
{
    int rc = 0;
    for (; c && !rc; c = c->next, nth++) {
        if (ch->stop && ch->stop(ch->stop_ctx)) {
            ch->status = "stopped";
            return 0;
        }
        int total = r->total_calls;
        rc = handle_call(r, c, round, nth, err);
        if (!rc && r->paused) {
            ch->status = "paused";
            ch->paused = paused_state(c, round, total, nth);
            ch->pending_call = pending_of(c);
            return 0;
        }
    }
    return rc;
}

/* Forwards a streamed model's text pieces as text_delta events. */
struct deltas {
    forge_agent_event_fn on_event;
    void *ctx;
    int n; /* pieces forwarded for the current model response */
};

static void forward_text(void *ud, const char *piece, size_t len)
{
    struct deltas *d = ud;
    char *text = forge_malloc(len + 1);
    cJSON *e = cJSON_CreateObject();
    if (text && e) {
        memcpy(text, piece, len);
        text[len] = '\0';
        forge_json_add_str(e, "content", text);
        d->on_event(d->ctx, "text_delta", e);
        d->n++;
    }
    cJSON_Delete(e);
    forge_free(text);
}

int forge_agent_chat_run(const struct forge_agent *a, struct forge_agent_chat *c, struct forge_err *err)
{
    c->status = "final";
    c->paused = c->pending_call = c->calls = NULL;
    c->text = NULL;
    c->input_tokens = c->output_tokens = 0;
    c->rounds = c->warnings = c->approvals = 0;
    struct forge_policy policy, defaults;
    forge_policy_init(&defaults);
    if (forge_policy_copy(&policy, a->policy ? a->policy : &defaults)) {
        forge_policy_free(&defaults);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    struct run r = {.a = a, .policy = &policy, .on_event = c->on_event, .event_ctx = c->event_ctx,
                    .pause_mode = 1, .gate = c->gate, .gate_ctx = c->gate_ctx};
    forge_buf_init(&r.seen.key, 0);
    r.messages = cJSON_IsArray(c->messages) ? c->messages : cJSON_CreateArray();
    if (r.messages != c->messages)
        cJSON_Delete(c->messages);
    c->messages = NULL;
    r.calls = cJSON_CreateArray();
    /* a stop also cuts short an HTTP request in flight on this thread (the model's, an HTTP
     * tool's): the client gone or the deadline passed need not wait for the answer */
    forge_http_cancel_fn prev_cancel = NULL;
    void *prev_cancel_ctx = NULL;
    if (c->stop)
        forge_http_cancel_set(c->stop, c->stop_ctx, &prev_cancel, &prev_cancel_ctx);
    /* a streaming model's text goes out piece by piece as it arrives */
    struct deltas deltas = {.on_event = c->on_event, .ctx = c->event_ctx};
    forge_model_text_fn prev_text = NULL;
    void *prev_text_ctx = NULL;
    if (c->on_event)
        forge_model_text_set(forward_text, &deltas, &prev_text, &prev_text_ctx);
    int rc = 0, round = 1;
    char *final = forge_strdup("");
    const cJSON *pending = NULL;
    int nth = 1;
    if (c->resume) {
        round = (int)forge_json_num(c->resume, "round", 1);
        r.total_calls = (int)forge_json_num(c->resume, "total", 0);
        nth = (int)forge_json_num(c->resume, "nth", 1);
        const cJSON *calls = forge_json_get(c->resume, "calls");
        pending = cJSON_IsArray(calls) ? calls->child : NULL;
        r.decide_id = pending ? forge_json_str(pending, "id") : NULL;
        r.approved = c->approved;
        if (round < 1)
            round = 1;
    } else {
        close_dangling(r.messages);
        cJSON *um = cJSON_CreateObject();
        forge_json_add_lit(um, "role", "user");
        forge_json_add_str(um, "content", c->message ? c->message : "");
        cJSON_AddItemToArray(r.messages, um);
    }
    if (pending) {
        rc = run_calls(&r, c, pending, round, nth, err);
        if (rc || r.paused || strcmp(c->status, "final"))
            goto out;
        round++;
    }
    c->status = "max_rounds";
    for (; !rc && round <= policy.max_rounds; round++) {
        if (c->stop && c->stop(c->stop_ctx)) {
            c->status = "stopped";
            break;
        }
        cJSON *req = make_request(&r, round);
        if (c->case_id)
            forge_json_add_str(req, "case_id", c->case_id);
        cJSON *resp = NULL;
        deltas.n = 0;
        rc = forge_model_complete(a->model, req, &resp, err);
        cJSON_Delete(req);
        if (rc && c->stop && c->stop(c->stop_ctx)) {
            /* the request was cancelled (or failed as the turn was ending): a stop, not a
             * model failure */
            rc = 0;
            c->status = "stopped";
            break;
        }
        if (rc)
            break;
        c->rounds++;
        const cJSON *usage = forge_json_get(resp, "usage");
        c->input_tokens += forge_json_num(usage, "input_tokens", 0);
        c->output_tokens += forge_json_num(usage, "output_tokens", 0);
        cJSON *msg = cJSON_DetachItemFromObjectCaseSensitive(resp, "message");
        cJSON_Delete(resp);
        if (!cJSON_IsObject(msg)) {
            cJSON_Delete(msg);
            rc = forge_err_set(err, FORGE_ENET, "the model's response has no message");
            break;
        }
        cJSON_ReplaceItemInObjectCaseSensitive(msg, "role", cJSON_CreateStringReference("assistant"));
        const char *text = forge_json_str(msg, "content");
        forge_free(final);
        final = forge_strdup(text ? text : "");
        if (text && *text && r.on_event) {
            cJSON *e = cJSON_CreateObject();
            forge_json_add_str(e, "content", text);
            if (!deltas.n) /* a model that does not stream: its text in one piece */
                r.on_event(r.event_ctx, "text_delta", e);
            r.on_event(r.event_ctx, "text", e);
            cJSON_Delete(e);
        }
        const cJSON *tcs = forge_json_get(msg, "tool_calls");
        cJSON_AddItemToArray(r.messages, msg);
        if (!cJSON_IsArray(tcs) || !tcs->child) {
            c->status = "final";
            break;
        }
        rc = run_calls(&r, c, tcs->child, round, 1, err);
        if (rc || r.paused || !strcmp(c->status, "stopped"))
            break;
        c->status = "max_rounds";
        if (r.identical_stop) {
            c->status = "identical_calls";
            break;
        }
    }
out:
    if (c->stop)
        forge_http_cancel_set(prev_cancel, prev_cancel_ctx, NULL, NULL);
    if (c->on_event)
        forge_model_text_set(prev_text, prev_text_ctx, NULL, NULL);
    c->messages = r.messages;
    c->calls = r.calls;
    c->text = final ? final : forge_strdup("");
    c->warnings = r.warnings;
    c->approvals = r.approvals;
    seen_free(&r.seen);
    forge_policy_free(&policy);
    forge_policy_free(&defaults);
    return rc;
}

void forge_agent_chat_free(struct forge_agent_chat *c)
{
    cJSON_Delete(c->messages);
    cJSON_Delete(c->paused);
    cJSON_Delete(c->pending_call);
    cJSON_Delete(c->calls);
    forge_free(c->text);
    c->messages = c->paused = c->pending_call = c->calls = NULL;
    c->text = NULL;
}
