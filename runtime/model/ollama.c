/* Ollama's native chat API (POST {host}/api/chat, stream off): arguments as JSON objects,
 * tool results carry tool_name. The API has no tool_choice: "none" sends no tools, a named
 * tool sends only that tool, "required" cannot be expressed. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/jscan.h"
#include "data/json.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define TRY(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building the request"); goto out; } } while (0)

static cJSON *obj(cJSON *arr)
{
    cJSON *o = cJSON_CreateObject();
    if (o)
        cJSON_AddItemToArray(arr, o);
    return o;
}

static int build(const cJSON *req, const char *model, cJSON **body, struct forge_err *err)
{
    int rc = 0;
    char *text = NULL;
    cJSON *b = cJSON_CreateObject(), *msgs, *m;
    TRY(b);
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
    if (cJSON_IsString(choice) && strcmp(choice->valuestring, "required") == 0) {
        rc = forge_err_set(err, FORGE_EINVAL,
                           "request: tool_choice: ollama's chat API cannot force a tool call ('required'); "
                           "use auto or name one tool");
        goto out;
    }
    TRY(cJSON_AddStringToObject(b, "model", model));
    TRY(msgs = cJSON_AddArrayToObject(b, "messages"));
    const char *sys = forge_json_str(req, "system");
    if (sys) {
        TRY(m = obj(msgs));
        TRY(cJSON_AddStringToObject(m, "role", "system"));
        TRY(cJSON_AddStringToObject(m, "content", sys));
    }
    const cJSON *nm;
    cJSON_ArrayForEach(nm, cJSON_GetObjectItemCaseSensitive(req, "messages")) {
        const char *role = forge_json_str(nm, "role");
        const char *content = forge_json_str(nm, "content");
        if (strcmp(role, "tool") == 0)
            continue;
        TRY(m = obj(msgs));
        TRY(cJSON_AddStringToObject(m, "role", role));
        TRY(cJSON_AddStringToObject(m, "content", content ? content : ""));
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(nm, "tool_calls"), *c;
        if (cJSON_GetArraySize(calls) == 0)
            continue;
        cJSON *tc;
        TRY(tc = cJSON_AddArrayToObject(m, "tool_calls"));
        cJSON_ArrayForEach(c, calls) {
            cJSON *w, *f, *a;
            TRY(w = obj(tc));
            TRY(f = cJSON_AddObjectToObject(w, "function"));
            TRY(cJSON_AddStringToObject(f, "name", forge_json_str(c, "name")));
            TRY(a = forge_wire_put(f, "arguments", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(c, "arguments"), 1)));
        }
        cJSON_ArrayForEach(c, calls) {
            const cJSON *r = forge_wire_result(req, forge_json_str(c, "id"));
            TRY(m = obj(msgs));
            TRY(cJSON_AddStringToObject(m, "role", "tool"));
            TRY(cJSON_AddStringToObject(m, "tool_name", forge_json_str(c, "name")));
            TRY(text = forge_wire_result_text(r));
            TRY(cJSON_AddStringToObject(m, "content", text));
            FORGE_FREE(text);
        }
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(req, "tools"), *t;
    const char *only = cJSON_IsObject(choice) ? forge_json_str(choice, "name") : NULL;
    int send_tools = cJSON_GetArraySize(tools) > 0 && !(cJSON_IsString(choice) && strcmp(choice->valuestring, "none") == 0);
    if (send_tools) {
        cJSON *wt;
        TRY(wt = cJSON_AddArrayToObject(b, "tools"));
        cJSON_ArrayForEach(t, tools) {
            const char *name = forge_json_str(t, "name");
            if (only && strcmp(only, name) != 0)
                continue;
            cJSON *w, *f;
            TRY(w = obj(wt));
            TRY(cJSON_AddStringToObject(w, "type", "function"));
            TRY(f = cJSON_AddObjectToObject(w, "function"));
            TRY(cJSON_AddStringToObject(f, "name", name));
            const char *d = forge_json_str(t, "description");
            if (d)
                TRY(cJSON_AddStringToObject(f, "description", d));
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(t, "parameters");
            cJSON *pd = p ? cJSON_Duplicate(p, 1) : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
            TRY(forge_wire_put(f, "parameters", pd));
        }
    }
    TRY(cJSON_AddFalseToObject(b, "stream"));
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params"), *pp;
    if (cJSON_GetArraySize(params) > 0) {
        static const char *const top[] = {"think", "format", "keep_alive", NULL};
        cJSON *opts = NULL;
        cJSON_ArrayForEach(pp, params) {
            const char *key = pp->string;
            int is_top = 0;
            for (int k = 0; top[k]; k++)
                is_top |= strcmp(key, top[k]) == 0;
            if (strcmp(key, "max_tokens") == 0)
                key = "num_predict";
            if (is_top) {
                TRY(forge_wire_put(b, key, cJSON_Duplicate(pp, 1)));
                continue;
            }
            if (!opts)
                TRY(opts = cJSON_AddObjectToObject(b, "options"));
            TRY(forge_wire_put(opts, key, cJSON_Duplicate(pp, 1)));
        }
    }
out:
    forge_free(text);
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

#define NOMEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response"); goto out; } } while (0)

static int parse(const cJSON *req, const cJSON *body, cJSON **resp, struct forge_err *err)
{
    int rc = 0;
    cJSON *calls = NULL, *r = NULL;
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(body, "message");
    if (!cJSON_IsObject(msg)) {
        rc = forge_err_set(err, FORGE_ENET, "ollama: the response has no message");
        goto out;
    }
    const cJSON *wc = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"), *c;
    int i = 0;
    cJSON_ArrayForEach(c, wc) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "function");
        const char *name = forge_json_str(f, "name"), *id = forge_json_str(c, "id");
        char gen[32];
        if (!name) {
            rc = forge_err_set(err, FORGE_ENET, "ollama: message.tool_calls[%d] has no function.name", i);
            goto out;
        }
        if (!id || !*id) {
            forge_wire_call_id(req, i, gen, sizeof gen);
            id = gen;
        }
        if (!calls)
            NOMEM(calls = cJSON_CreateArray());
        cJSON *call = forge_wire_call_new(id, name);
        NOMEM(call);
        cJSON_AddItemToArray(calls, call);
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "arguments");
        if (cJSON_IsObject(a))
            NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(a, 1)));
        else if (cJSON_IsString(a)) {
            NOMEM(forge_wire_set_args_text(call, a->valuestring) == 0);
        }
        i++;
    }
    const char *content = forge_json_str(msg, "content");
    const char *dr = forge_json_str(body, "done_reason");
    const char *fin = i > 0 ? "tool_calls" : (dr && strcmp(dr, "stop") != 0 ? dr : "stop");
    r = forge_wire_response_new(content && (*content || i == 0) ? content : NULL, calls, fin,
                                forge_json_num(body, "prompt_eval_count", 0), forge_json_num(body, "eval_count", 0));
    calls = NULL;
    NOMEM(r);
out:
    cJSON_Delete(calls);
    if (rc) {
        cJSON_Delete(r);
        r = NULL;
    }
    *resp = r;
    return rc;
}

/* ---- the server side ---- */

#define BAD(...) do { rc = forge_err_set(err, FORGE_EINVAL, __VA_ARGS__); goto out; } while (0)
#undef NOMEM
#define NOMEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory"); goto out; } } while (0)

/* The call a tool message answers: by tool_call_id, else the first unanswered call named
 * tool_name, else the first unanswered call. */
static const cJSON *answered_call(const cJSON *msgs, const char *id, const char *name)
{
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, msgs)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
            const char *cid = forge_json_str(c, "id"), *n = forge_json_str(c, "name");
            if (id ? !strcmp(cid, id) : !forge_wire_result_in(msgs, cid) && (!name || !strcmp(n, name)))
                return c;
        }
    return NULL;
}

static int accept_message(const cJSON *wm, const char *path, cJSON *req, cJSON *msgs, struct forge_buf *sys,
                          struct forge_err *err)
{
    int rc = 0;
    const char *role = forge_json_str(wm, "role");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(wm, "content");
    const char *text = cJSON_IsString(content) ? content->valuestring : NULL;
    if (content && !cJSON_IsNull(content) && !text)
        BAD("%s.content: must be a string", path);
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(wm, "images")) > 0)
        BAD("%s.images: only text is supported", path);
    if (!role)
        BAD("%s.role: must be a string", path);
    if (!strcmp(role, "system")) {
        NOMEM(!(sys->len && forge_buf_adds(sys, "\n\n")) && !forge_buf_adds(sys, text ? text : ""));
        return 0;
    }
    cJSON *m = cJSON_CreateObject();
    NOMEM(m && cJSON_AddItemToArray(msgs, m));
    if (!strcmp(role, "user")) {
        NOMEM(cJSON_AddStringToObject(m, "role", "user") && cJSON_AddStringToObject(m, "content", text ? text : ""));
    } else if (!strcmp(role, "assistant")) {
        const cJSON *wc = cJSON_GetObjectItemCaseSensitive(wm, "tool_calls"), *c;
        int n = cJSON_GetArraySize(wc), i = 0;
        NOMEM(cJSON_AddStringToObject(m, "role", "assistant"));
        /* build() sends "" beside calls, where the normalized content is null */
        NOMEM(text && (*text || n == 0) ? cJSON_AddStringToObject(m, "content", text) : cJSON_AddNullToObject(m, "content"));
        if (n > 0) {
            cJSON *calls = cJSON_AddArrayToObject(m, "tool_calls");
            NOMEM(calls);
            cJSON_ArrayForEach(c, wc) {
                const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "function");
                const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "arguments");
                const char *name = forge_json_str(f, "name"), *id = forge_json_str(c, "id");
                char gen[32];
                if (!name)
                    BAD("%s.tool_calls[%d].function.name: must be a string", path, i);
                if (a && !cJSON_IsObject(a) && !cJSON_IsString(a))
                    BAD("%s.tool_calls[%d].function.arguments: must be an object", path, i);
                if (!id || !*id) {
                    forge_wire_call_id(req, 0, gen, sizeof gen); /* the calls added so far are in req */
                    id = gen;
                }
                cJSON *call = forge_wire_call_new(id, name);
                NOMEM(call && cJSON_AddItemToArray(calls, call));
                if (cJSON_IsObject(a))
                    NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(a, 1)));
                else if (a)
                    NOMEM(!forge_wire_set_args_text(call, a->valuestring));
                if (cJSON_GetObjectItemCaseSensitive(call, "arguments_error"))
                    BAD("%s.tool_calls[%d].function.arguments: not a JSON object", path, i);
                i++;
            }
        }
    } else if (!strcmp(role, "tool")) {
        const char *name = forge_json_str(wm, "tool_name");
        if (!name)
            name = forge_json_str(wm, "name");
        const cJSON *call = answered_call(msgs, forge_json_str(wm, "tool_call_id"), name);
        if (!call)
            BAD("%s: a tool result that answers no earlier call%s%s", path, name ? " of " : "", name ? name : "");
        NOMEM(cJSON_AddStringToObject(m, "role", "tool") &&
              cJSON_AddStringToObject(m, "tool_call_id", forge_json_str(call, "id")) &&
              cJSON_AddStringToObject(m, "name", forge_json_str(call, "name")) &&
              cJSON_AddStringToObject(m, "content", text ? text : "") && cJSON_AddFalseToObject(m, "is_error"));
    } else {
        BAD("%s.role: '%s' is not system, user, assistant or tool", path, role);
    }
out:
    return rc;
}

static int accept(const cJSON *body, cJSON **out, int *stream, struct forge_err *err)
{
    static const char *const top[] = {"think", "format", "keep_alive", NULL};
    int rc = 0;
    struct forge_buf sys;
    forge_buf_init(&sys, 0);
    cJSON *req = cJSON_CreateObject(), *msgs, *params = NULL;
    NOMEM(req);
    const cJSON *wm = cJSON_GetObjectItemCaseSensitive(body, "messages"), *m;
    if (!cJSON_IsArray(wm))
        BAD("messages: must be an array");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(body, "stream");
    if (st && !cJSON_IsBool(st))
        BAD("stream: must be true or false");
    *stream = !cJSON_IsFalse(st); /* Ollama streams unless told not to */
    NOMEM(msgs = cJSON_AddArrayToObject(req, "messages"));
    int i = 0;
    cJSON_ArrayForEach(m, wm) {
        char path[32];
        snprintf(path, sizeof path, "messages[%d]", i++);
        if ((rc = accept_message(m, path, req, msgs, &sys, err)))
            goto out;
    }
    if (sys.len)
        NOMEM(cJSON_AddStringToObject(req, "system", sys.data));
    const cJSON *wt = cJSON_GetObjectItemCaseSensitive(body, "tools"), *t;
    if (wt && !cJSON_IsArray(wt) && !cJSON_IsNull(wt))
        BAD("tools: must be an array");
    cJSON *tools = NULL;
    i = 0;
    const cJSON *tlist = cJSON_IsArray(wt) ? wt : NULL;
    cJSON_ArrayForEach(t, tlist) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(t, "function"), *ps;
        const char *name = forge_json_str(f, "name"), *d = forge_json_str(f, "description");
        if (!name)
            BAD("tools[%d].function.name: must be a string", i);
        if (!tools)
            NOMEM(tools = cJSON_AddArrayToObject(req, "tools"));
        cJSON *nt = cJSON_CreateObject();
        NOMEM(nt && cJSON_AddItemToArray(tools, nt) && cJSON_AddStringToObject(nt, "name", name));
        if (d)
            NOMEM(cJSON_AddStringToObject(nt, "description", d));
        if (cJSON_IsObject(ps = cJSON_GetObjectItemCaseSensitive(f, "parameters")))
            NOMEM(forge_wire_put(nt, "parameters", cJSON_Duplicate(ps, 1)));
        i++;
    }
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(body, "options"), *o;
    if (opts && !cJSON_IsObject(opts) && !cJSON_IsNull(opts))
        BAD("options: must be an object");
    const cJSON *olist = cJSON_IsObject(opts) ? opts : NULL;
    cJSON_ArrayForEach(o, olist) {
        if (!params)
            NOMEM(params = cJSON_AddObjectToObject(req, "params"));
        NOMEM(forge_wire_put(params, !strcmp(o->string, "num_predict") ? "max_tokens" : o->string, cJSON_Duplicate(o, 1)));
    }
    for (int k = 0; top[k]; k++)
        if ((o = cJSON_GetObjectItemCaseSensitive(body, top[k]))) {
            if (!params)
                NOMEM(params = cJSON_AddObjectToObject(req, "params"));
            NOMEM(forge_wire_put(params, top[k], cJSON_Duplicate(o, 1)));
        }
    rc = forge_wire_check(req, err);
out:
    forge_buf_free(&sys);
    if (rc) {
        cJSON_Delete(req);
        req = NULL;
    }
    *out = req;
    return rc;
}

/* {"model", "created_at", "message": {"role": "assistant", "content": <text>}, "done"} with the
 * calls of <calls> when given. */
static cJSON *line(const struct forge_answer_info *info, const char *text, size_t n, const cJSON *calls, int done)
{
    char when[32];
    time_t t = (time_t)info->created;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char *piece = forge_strndup(text ? text : "", text ? n : 0);
    cJSON *o = cJSON_CreateObject(), *m, *tc;
    int ok = piece && o && cJSON_AddStringToObject(o, "model", info->model) && cJSON_AddStringToObject(o, "created_at", when) &&
             (m = cJSON_AddObjectToObject(o, "message")) && cJSON_AddStringToObject(m, "role", "assistant") &&
             cJSON_AddStringToObject(m, "content", piece);
    forge_free(piece);
    const cJSON *c;
    if (ok && cJSON_GetArraySize(calls) > 0 && (ok = (tc = cJSON_AddArrayToObject(m, "tool_calls")) != NULL))
        cJSON_ArrayForEach(c, calls) {
            cJSON *w = obj(tc), *f;
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arguments");
            ok = ok && w && (f = cJSON_AddObjectToObject(w, "function")) &&
                 cJSON_AddStringToObject(f, "name", forge_json_str(c, "name")) &&
                 forge_wire_put(f, "arguments", a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject());
        }
    ok = ok && cJSON_AddBoolToObject(o, "done", done);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The counts Ollama ends an answer with. */
static int finish_line(cJSON *o, const cJSON *resp)
{
    const char *f = forge_json_str(resp, "finish_reason");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "usage");
    double ns = forge_json_num(resp, "latency_ms", 0) * 1e6;
    return cJSON_AddStringToObject(o, "done_reason", f && !strcmp(f, "length") ? "length" : "stop") &&
           cJSON_AddNumberToObject(o, "total_duration", (double)(long long)ns) && cJSON_AddNumberToObject(o, "load_duration", 0) &&
           cJSON_AddNumberToObject(o, "prompt_eval_count", forge_json_num(u, "input_tokens", 0)) &&
           cJSON_AddNumberToObject(o, "prompt_eval_duration", 0) &&
           cJSON_AddNumberToObject(o, "eval_count", forge_json_num(u, "output_tokens", 0)) &&
           cJSON_AddNumberToObject(o, "eval_duration", (double)(long long)ns);
}

static int answer(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, cJSON **out,
                  struct forge_err *err)
{
    (void)req;
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message");
    const char *text = forge_json_str(msg, "content");
    cJSON *o = line(info, text, text ? strlen(text) : 0, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"), 1);
    if (!o || !finish_line(o, resp)) {
        cJSON_Delete(o);
        *out = NULL;
        return forge_err_set(err, FORGE_ENOMEM, "out of memory writing the answer");
    }
    *out = o;
    return 0;
}

static int add_line(struct forge_buf *b, cJSON *o)
{
    char *t = o ? cJSON_PrintUnformatted(o) : NULL;
    int rc = t ? forge_buf_addf(b, "%s\n", t) : FORGE_ENOMEM;
    cJSON_free(t);
    cJSON_Delete(o);
    return rc;
}

/* NDJSON: the text in pieces, the calls whole in one line, then the closing line with counts. */
static int stream(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, struct forge_buf *b,
                  struct forge_err *err)
{
    (void)req;
    int rc = 0;
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message");
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
    const char *text = forge_json_str(msg, "content");
    for (size_t at = 0, n = text ? strlen(text) : 0, k; at < n; at += k) {
        k = forge_wire_piece(text + at, n - at, FORGE_WIRE_PIECE);
        NOMEM(!add_line(b, line(info, text + at, k, NULL, 0)));
    }
    if (cJSON_GetArraySize(calls) > 0)
        NOMEM(!add_line(b, line(info, "", 0, calls, 0)));
    cJSON *last = line(info, "", 0, NULL, 1);
    if (last && !finish_line(last, resp)) {
        cJSON_Delete(last);
        last = NULL;
    }
    NOMEM(!add_line(b, last));
out:
    return rc;
}

static cJSON *error_body(int status, const char *message)
{
    (void)status;
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, "error", message)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- streamed answers (client side) ---- */

/* The next NDJSON line of [*p, end) (without its newline) and its offset; 0 at the end. A last
 * line without its newline counts: Ollama ends the stream with the done line. */
static int next_line(const char **p, const char *end, const char **line, size_t *n)
{
    while (*p < end && (**p == '\n' || **p == '\r'))
        (*p)++;
    if (*p >= end)
        return 0;
    const char *e = memchr(*p, '\n', (size_t)(end - *p));
    *line = *p;
    *n = (size_t)((e ? e : end) - *p);
    *p = e ? e + 1 : end;
    return 1;
}

static int stream_complete(const char *text, size_t len)
{
    const char *p = text, *line, *last = NULL;
    size_t n, lastn = 0;
    while (next_line(&p, text + len, &line, &n)) {
        last = line;
        lastn = n;
    }
    struct forge_err e;
    cJSON *v = last ? forge_json_parse(last, lastn, "line", &e) : NULL;
    int end = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "done")) || cJSON_GetObjectItemCaseSensitive(v, "error");
    cJSON_Delete(v);
    return end;
}

/* Reads a line in place when it is hot: a piece of the message's text, not done, no calls, no
 * error. 0 with the piece in <v>, 1 when it is anything else (the caller reads it with cJSON). */
static int hot(const char *line, size_t n, struct forge_jstr *v)
{
    struct forge_jscan j;
    struct forge_jstr k;
    int r, n_msg = 0, n_done = 0, n_content = 0;
    forge_jscan_init(&j, line, n);
    if (forge_jscan_open(&j, '{'))
        return 1;
    while ((r = forge_jscan_key(&j, &k)) == 1) {
        if (forge_jstr_is(&k, "message")) {
            if (n_msg++ || forge_jscan_open(&j, '{'))
                return 1;
            while ((r = forge_jscan_key(&j, &k)) == 1) {
                if (forge_jstr_is(&k, "content")) {
                    if (n_content++ || forge_jscan_string(&j, v))
                        return 1;
                } else if (forge_jstr_is(&k, "tool_calls") || forge_jscan_skip(&j)) {
                    return 1;
                }
            }
            if (r)
                return 1;
        } else if (forge_jstr_is(&k, "done")) {
            if (n_done++ || forge_jscan_peek(&j) != 'f' || forge_jscan_skip(&j))
                return 1;
        } else if (forge_jstr_is(&k, "error") || forge_jscan_skip(&j)) {
            return 1;
        }
    }
    return r || forge_jscan_end(&j) || !n_content;
}

static int assemble(const char *text, size_t len, cJSON **body, struct forge_stream_marks *marks, struct forge_err *err)
{
    int rc = 0, done = 0;
    marks->first_token = marks->first_call = SIZE_MAX;
    struct forge_buf content;
    forge_buf_init(&content, 0);
    cJSON *v = NULL, *b = NULL, *calls = cJSON_CreateArray();
    NOMEM(calls);
    const char *p = text, *line;
    size_t n;
    int fast = forge_wire_fast();
    struct forge_wire_tmpl tm = {0};
    while (next_line(&p, text + len, &line, &n)) {
        struct forge_jstr hp;
        int matched = 0;
        if (fast && ((matched = forge_wire_tmpl_match(&tm, line, n, &hp)) || !hot(line, n, &hp))) {
            if (!matched)
                forge_wire_tmpl_set(&tm, line, n, &hp);
            if (hp.n) {
                NOMEM(!forge_jstr_append(&hp, &content));
                if (marks->first_token == SIZE_MAX)
                    marks->first_token = (size_t)(line - text);
            }
            continue;
        }
        struct forge_err pe;
        cJSON_Delete(v);
        if (!(v = forge_json_parse(line, n, "line", &pe))) {
            rc = forge_err_set(err, FORGE_ENET, "ollama: the stream line at byte %zu is not JSON (%s)", (size_t)(line - text),
                               pe.msg);
            goto out;
        }
        const char *e = forge_json_str(v, "error");
        if (e) {
            rc = forge_err_set(err, FORGE_ENET, "ollama: the stream failed: %s", e);
            goto out;
        }
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(v, "message"), *c;
        const char *piece = forge_json_str(msg, "content");
        if (piece && *piece) {
            NOMEM(!forge_buf_adds(&content, piece));
            if (marks->first_token == SIZE_MAX)
                marks->first_token = (size_t)(line - text);
        }
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
            NOMEM(cJSON_AddItemToArray(calls, cJSON_Duplicate(c, 1)));
            if (marks->first_call == SIZE_MAX)
                marks->first_call = (size_t)(line - text);
        }
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "done"))) {
            done = 1;
            break;
        }
    }
    if (!done) {
        rc = forge_err_set(err, FORGE_ENET, "ollama: the stream ended without its \"done\": true line");
        goto out;
    }
    /* the done line with the whole message in it: what Ollama answers without streaming */
    cJSON *m;
    NOMEM(b = cJSON_Duplicate(v, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(b, "message");
    NOMEM((m = cJSON_AddObjectToObject(b, "message")) && cJSON_AddStringToObject(m, "role", "assistant") &&
          cJSON_AddStringToObject(m, "content", content.data ? content.data : ""));
    if (cJSON_GetArraySize(calls) > 0) {
        cJSON *t = calls;
        calls = NULL; /* taken even on failure */
        NOMEM(forge_wire_put(m, "tool_calls", t));
    }
out:
    forge_buf_free(&content);
    cJSON_Delete(v);
    cJSON_Delete(calls);
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

const struct forge_dialect forge_dialect_ollama = {
    .name = "ollama", .build = build, .parse = parse, .error_message = forge_wire_error_text,
    .accept = accept, .answer = answer, .stream = stream, .error_body = error_body,
    .stream_type = "application/x-ndjson", .stream_complete = stream_complete, .assemble = assemble,
};
