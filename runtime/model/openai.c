/* OpenAI chat completions (POST {base}/chat/completions), also spoken by vLLM, llama.cpp
 * server, LM Studio, OpenRouter, Groq and other compatible servers. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/jscan.h"
#include "data/json.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRY(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building the request"); goto out; } } while (0)

static int add_result(cJSON *out, const cJSON *r, struct forge_err *err)
{
    int rc = 0;
    char *text = NULL;
    cJSON *m = cJSON_CreateObject();
    TRY(m);
    TRY(cJSON_AddStringToObject(m, "role", "tool"));
    TRY(cJSON_AddStringToObject(m, "tool_call_id", forge_json_str(r, "tool_call_id")));
    TRY(text = forge_wire_result_text(r));
    TRY(cJSON_AddStringToObject(m, "content", text));
    cJSON_AddItemToArray(out, m);
    m = NULL;
out:
    forge_free(text);
    cJSON_Delete(m);
    return rc;
}

static int build(const cJSON *req, const char *model, cJSON **body, struct forge_err *err)
{
    int rc = 0;
    char *args = NULL;
    cJSON *b = cJSON_CreateObject(), *msgs;
    TRY(b);
    TRY(cJSON_AddStringToObject(b, "model", model));
    TRY(msgs = cJSON_AddArrayToObject(b, "messages"));
    const char *sys = forge_json_str(req, "system");
    if (sys) {
        cJSON *m = cJSON_CreateObject();
        TRY(m);
        cJSON_AddItemToArray(msgs, m);
        TRY(cJSON_AddStringToObject(m, "role", "system"));
        TRY(cJSON_AddStringToObject(m, "content", sys));
    }
    const cJSON *nm;
    cJSON_ArrayForEach(nm, cJSON_GetObjectItemCaseSensitive(req, "messages")) {
        const char *role = forge_json_str(nm, "role");
        if (strcmp(role, "tool") == 0)
            continue; /* sent right after the call it answers */
        cJSON *m = cJSON_CreateObject();
        TRY(m);
        cJSON_AddItemToArray(msgs, m);
        TRY(cJSON_AddStringToObject(m, "role", role));
        const char *content = forge_json_str(nm, "content");
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(nm, "tool_calls"), *c;
        /* null content is only valid beside tool calls */
        if (!content && cJSON_GetArraySize(calls) == 0)
            content = "";
        TRY(content ? cJSON_AddStringToObject(m, "content", content) : cJSON_AddNullToObject(m, "content"));
        if (cJSON_GetArraySize(calls) == 0)
            continue;
        cJSON *tc;
        TRY(tc = cJSON_AddArrayToObject(m, "tool_calls"));
        cJSON_ArrayForEach(c, calls) {
            cJSON *w = cJSON_CreateObject(), *f;
            TRY(w);
            cJSON_AddItemToArray(tc, w);
            TRY(cJSON_AddStringToObject(w, "id", forge_json_str(c, "id")));
            TRY(cJSON_AddStringToObject(w, "type", "function"));
            TRY(f = cJSON_AddObjectToObject(w, "function"));
            TRY(cJSON_AddStringToObject(f, "name", forge_json_str(c, "name")));
            TRY(args = forge_wire_args_text(cJSON_GetObjectItemCaseSensitive(c, "arguments")));
            TRY(cJSON_AddStringToObject(f, "arguments", args));
            FORGE_FREE(args);
        }
        cJSON_ArrayForEach(c, calls)
            if ((rc = add_result(msgs, forge_wire_result(req, forge_json_str(c, "id")), err)))
                goto out;
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(req, "tools"), *t;
    if (cJSON_GetArraySize(tools) > 0) {
        cJSON *wt;
        TRY(wt = cJSON_AddArrayToObject(b, "tools"));
        cJSON_ArrayForEach(t, tools) {
            cJSON *w = cJSON_CreateObject(), *f;
            TRY(w);
            cJSON_AddItemToArray(wt, w);
            TRY(cJSON_AddStringToObject(w, "type", "function"));
            TRY(f = cJSON_AddObjectToObject(w, "function"));
            TRY(cJSON_AddStringToObject(f, "name", forge_json_str(t, "name")));
            const char *d = forge_json_str(t, "description");
            if (d)
                TRY(cJSON_AddStringToObject(f, "description", d));
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(t, "parameters");
            cJSON *pd = p ? cJSON_Duplicate(p, 1) : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
            TRY(forge_wire_put(f, "parameters", pd));
        }
        const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
        if (cJSON_IsString(choice)) {
            TRY(cJSON_AddStringToObject(b, "tool_choice", choice->valuestring));
        } else if (choice) {
            cJSON *w, *f;
            TRY(w = cJSON_AddObjectToObject(b, "tool_choice"));
            TRY(cJSON_AddStringToObject(w, "type", "function"));
            TRY(f = cJSON_AddObjectToObject(w, "function"));
            TRY(cJSON_AddStringToObject(f, "name", forge_json_str(choice, "name")));
        }
        const cJSON *ptc = cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls");
        if (ptc)
            TRY(cJSON_AddBoolToObject(b, "parallel_tool_calls", cJSON_IsTrue(ptc)));
    }
    if (forge_wire_copy_params(b, cJSON_GetObjectItemCaseSensitive(req, "params"), NULL))
        TRY(0);
out:
    forge_free(args);
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

static const char *finish(const char *f, int has_calls)
{
    if (!f)
        return has_calls ? "tool_calls" : "stop";
    if (strcmp(f, "function_call") == 0)
        return "tool_calls";
    return f;
}

#define NOMEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response"); goto out; } } while (0)

static int parse(const cJSON *req, const cJSON *body, cJSON **resp, struct forge_err *err)
{
    int rc = 0;
    cJSON *calls = NULL, *r = NULL;
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "choices"), 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
    if (!cJSON_IsObject(msg)) {
        rc = forge_err_set(err, FORGE_ENET, "openai: the response has no choices[0].message");
        goto out;
    }
    const cJSON *wc = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"), *c;
    int i = 0;
    if (cJSON_GetArraySize(wc) > 0) {
        NOMEM(calls = cJSON_CreateArray());
        cJSON_ArrayForEach(c, wc) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "function");
            const char *name = forge_json_str(f, "name"), *id = forge_json_str(c, "id");
            if (!name) {
                rc = forge_err_set(err, FORGE_ENET, "openai: choices[0].message.tool_calls[%d] has no function.name", i);
                goto out;
            }
            char gen[32];
            if (!id || !*id) {
                forge_wire_call_id(req, i, gen, sizeof gen);
                id = gen;
            }
            cJSON *call = forge_wire_call_new(id, name);
            NOMEM(call);
            cJSON_AddItemToArray(calls, call);
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "arguments");
            if (cJSON_IsObject(a))
                NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(a, 1)));
            else if (forge_wire_set_args_text(call, cJSON_IsString(a) ? a->valuestring : NULL))
                NOMEM(0);
            i++;
        }
    }
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
    const char *content = forge_json_str(msg, "content");
    if (!content)
        content = forge_json_str(msg, "refusal");
    r = forge_wire_response_new(content, calls, finish(forge_json_str(choice, "finish_reason"), i > 0),
                                forge_json_num(usage, "prompt_tokens", 0), forge_json_num(usage, "completion_tokens", 0));
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
#define MEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the request"); goto out; } } while (0)

/* The text of a message's "content": a string, null, or an array of text parts joined. Sets
 * *text to a new string (NULL for null or absent content). */
static int content_text(const cJSON *m, const char *path, char **text, struct forge_err *err)
{
    *text = NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content"), *part;
    if (!c || cJSON_IsNull(c))
        return 0;
    if (cJSON_IsString(c))
        return (*text = forge_strdup(c->valuestring)) ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    if (!cJSON_IsArray(c))
        return forge_err_set(err, FORGE_EINVAL, "%s.content: must be a string or an array of content parts", path);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int i = 0;
    cJSON_ArrayForEach(part, c) {
        const char *type = forge_json_str(part, "type"), *t = forge_json_str(part, "text");
        if (!type || (strcmp(type, "text") && strcmp(type, "refusal")) || (!t && !(t = forge_json_str(part, "refusal")))) {
            forge_buf_free(&b);
            return forge_err_set(err, FORGE_EINVAL, "%s.content[%d]: only text parts are supported (type '%s')", path, i,
                                 type ? type : "?");
        }
        if (forge_buf_adds(&b, t)) {
            forge_buf_free(&b);
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        i++;
    }
    *text = forge_buf_take(&b);
    return *text ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
}

/* One assistant message's tool calls in normalized form, added to <m>. */
static int accept_calls(const cJSON *wc, const char *path, cJSON *m, struct forge_err *err)
{
    int rc = 0, i = 0;
    const cJSON *c;
    if (!cJSON_IsArray(wc))
        return forge_err_set(err, FORGE_EINVAL, "%s.tool_calls: must be an array", path);
    cJSON *calls = cJSON_AddArrayToObject(m, "tool_calls");
    MEM(calls);
    cJSON_ArrayForEach(c, wc) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "function");
        const char *id = forge_json_str(c, "id"), *name = forge_json_str(f, "name");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "arguments");
        if (!id || !*id)
            BAD("%s.tool_calls[%d].id: must be a non-empty string", path, i);
        if (!name)
            BAD("%s.tool_calls[%d].function.name: must be a string", path, i);
        if (a && !cJSON_IsString(a))
            BAD("%s.tool_calls[%d].function.arguments: must be a string of JSON", path, i);
        cJSON *call = forge_wire_call_new(id, name);
        MEM(call);
        cJSON_AddItemToArray(calls, call);
        MEM(!forge_wire_set_args_text(call, a ? a->valuestring : NULL));
        if (cJSON_GetObjectItemCaseSensitive(call, "arguments_error"))
            BAD("%s.tool_calls[%d].function.arguments: not a JSON object", path, i);
        i++;
    }
out:
    return rc;
}

/* The name of the call <id> among the assistant messages of <msgs>, or NULL. */
static const char *call_name(const cJSON *msgs, const char *id)
{
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, msgs)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
            const char *cid = forge_json_str(c, "id");
            if (cid && strcmp(cid, id) == 0)
                return forge_json_str(c, "name");
        }
    return NULL;
}

static int accept_tools(const cJSON *wt, cJSON *req, struct forge_err *err)
{
    int rc = 0, i = 0;
    const cJSON *t;
    if (!cJSON_IsArray(wt))
        return forge_err_set(err, FORGE_EINVAL, "tools: must be an array");
    cJSON *tools = cJSON_AddArrayToObject(req, "tools");
    MEM(tools);
    cJSON_ArrayForEach(t, wt) {
        const char *type = forge_json_str(t, "type");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(t, "function");
        if (!type || strcmp(type, "function") || !cJSON_IsObject(f))
            BAD("tools[%d]: only {\"type\": \"function\", \"function\": {...}} tools are supported", i);
        const char *name = forge_json_str(f, "name"), *d = forge_json_str(f, "description");
        if (!name)
            BAD("tools[%d].function.name: must be a string", i);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(f, "parameters");
        if (p && !cJSON_IsObject(p))
            BAD("tools[%d].function.parameters: must be a JSON Schema object", i);
        cJSON *nt = cJSON_CreateObject();
        MEM(nt);
        cJSON_AddItemToArray(tools, nt);
        MEM(cJSON_AddStringToObject(nt, "name", name));
        if (d)
            MEM(cJSON_AddStringToObject(nt, "description", d));
        if (p)
            MEM(forge_wire_put(nt, "parameters", cJSON_Duplicate(p, 1)));
        i++;
    }
out:
    return rc;
}

static int accept_choice(const cJSON *ch, cJSON *req, struct forge_err *err)
{
    if (cJSON_IsString(ch))
        return cJSON_AddStringToObject(req, "tool_choice", ch->valuestring) ? 0 : FORGE_ENOMEM;
    const char *name = forge_json_str(cJSON_GetObjectItemCaseSensitive(ch, "function"), "name");
    if (!name)
        return forge_err_set(err, FORGE_EINVAL, "tool_choice: must be auto, none, required or "
                             "{\"type\": \"function\", \"function\": {\"name\": ...}}");
    cJSON *c = cJSON_AddObjectToObject(req, "tool_choice");
    return c && cJSON_AddStringToObject(c, "name", name) ? 0 : FORGE_ENOMEM;
}

static int accept(const cJSON *body, cJSON **out, int *stream, struct forge_err *err)
{
    static const char *const mapped[] = {"model", "messages", "tools", "tool_choice", "parallel_tool_calls",
                                         "stream", "stream_options", NULL};
    int rc = 0;
    char *text = NULL;
    struct forge_buf sys;
    forge_buf_init(&sys, 0);
    cJSON *req = cJSON_CreateObject(), *msgs;
    MEM(req);
    const cJSON *wm = cJSON_GetObjectItemCaseSensitive(body, "messages"), *m;
    if (!cJSON_IsArray(wm))
        BAD("messages: must be an array");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(body, "stream");
    if (st && !cJSON_IsBool(st) && !cJSON_IsNull(st))
        BAD("stream: must be true or false");
    *stream = cJSON_IsTrue(st);
    MEM(msgs = cJSON_AddArrayToObject(req, "messages"));
    int i = 0;
    cJSON_ArrayForEach(m, wm) {
        char path[32];
        snprintf(path, sizeof path, "messages[%d]", i++);
        const char *role = forge_json_str(m, "role");
        if (!role)
            BAD("%s.role: must be a string", path);
        if ((rc = content_text(m, path, &text, err)))
            goto out;
        if (!strcmp(role, "system") || !strcmp(role, "developer")) {
            if (!text)
                BAD("%s.content: must be text", path);
            MEM(!(sys.len && forge_buf_adds(&sys, "\n\n")) && !forge_buf_adds(&sys, text));
            FORGE_FREE(text);
            continue;
        }
        if (strcmp(role, "user") && strcmp(role, "assistant") && strcmp(role, "tool"))
            BAD("%s.role: '%s' is not system, developer, user, assistant or tool", path, role);
        cJSON *nm = cJSON_CreateObject();
        MEM(nm);
        cJSON_AddItemToArray(msgs, nm);
        MEM(cJSON_AddStringToObject(nm, "role", role));
        if (!strcmp(role, "tool")) {
            const char *id = forge_json_str(m, "tool_call_id"), *name;
            if (!id)
                BAD("%s.tool_call_id: must be a string", path);
            MEM(cJSON_AddStringToObject(nm, "tool_call_id", id));
            if ((name = call_name(msgs, id)))
                MEM(cJSON_AddStringToObject(nm, "name", name));
            MEM(cJSON_AddStringToObject(nm, "content", text ? text : ""));
            MEM(cJSON_AddFalseToObject(nm, "is_error"));
        } else if (!strcmp(role, "user")) {
            if (!text)
                BAD("%s.content: must be text", path);
            MEM(cJSON_AddStringToObject(nm, "content", text));
        } else {
            MEM(text ? cJSON_AddStringToObject(nm, "content", text) : cJSON_AddNullToObject(nm, "content"));
            const cJSON *wc = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
            if (wc && !cJSON_IsNull(wc) && cJSON_GetArraySize(wc) > 0 && (rc = accept_calls(wc, path, nm, err)))
                goto out;
        }
        FORGE_FREE(text);
    }
    if (sys.len)
        MEM(cJSON_AddStringToObject(req, "system", sys.data));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, "tools");
    if (v && !cJSON_IsNull(v) && (rc = accept_tools(v, req, err)))
        goto out;
    v = cJSON_GetObjectItemCaseSensitive(body, "tool_choice");
    if (v && !cJSON_IsNull(v) && (rc = accept_choice(v, req, err)))
        goto out;
    v = cJSON_GetObjectItemCaseSensitive(body, "parallel_tool_calls");
    if (v && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            BAD("parallel_tool_calls: must be true or false");
        MEM(cJSON_AddBoolToObject(req, "parallel_tool_calls", cJSON_IsTrue(v)));
    }
    v = cJSON_GetObjectItemCaseSensitive(body, "stream_options");
    if (cJSON_IsObject(v))
        MEM(forge_wire_put(req, "stream_options", cJSON_Duplicate(v, 1)));
    cJSON *params = cJSON_CreateObject();
    MEM(forge_wire_put(req, "params", params));
    MEM(!forge_wire_copy_params(params, body, mapped));
    if (!params->child)
        cJSON_DeleteItemFromObjectCaseSensitive(req, "params");
    rc = forge_wire_check(req, err);
out:
    forge_free(text);
    forge_buf_free(&sys);
    if (rc) {
        cJSON_Delete(req);
        req = NULL;
    }
    *out = req;
    return rc;
}

#undef MEM
#define MEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory writing the answer"); goto out; } } while (0)

static const char *wire_finish(const cJSON *resp)
{
    const char *f = forge_json_str(resp, "finish_reason");
    if (f && (!strcmp(f, "length") || !strcmp(f, "content_filter") || !strcmp(f, "tool_calls")))
        return f;
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(resp, "message"), "tool_calls");
    return cJSON_GetArraySize(calls) > 0 ? "tool_calls" : "stop";
}

static int add_usage(cJSON *o, const cJSON *resp)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "usage");
    double in = forge_json_num(u, "input_tokens", 0), outt = forge_json_num(u, "output_tokens", 0);
    cJSON *w = cJSON_AddObjectToObject(o, "usage");
    return w && cJSON_AddNumberToObject(w, "prompt_tokens", in) && cJSON_AddNumberToObject(w, "completion_tokens", outt) &&
           cJSON_AddNumberToObject(w, "total_tokens", in + outt);
}

/* {"id", "object", "created", "model"} of an answer or chunk. */
static cJSON *head(const struct forge_answer_info *info, const char *object)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "id", info->id) || !cJSON_AddStringToObject(o, "object", object) ||
        !cJSON_AddNumberToObject(o, "created", (double)info->created) || !cJSON_AddStringToObject(o, "model", info->model)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int answer(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, cJSON **out,
                  struct forge_err *err)
{
    (void)req;
    int rc = 0;
    char *args = NULL;
    cJSON *o = head(info, "chat.completion"), *choices, *ch, *m;
    MEM(o);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message"), *c;
    MEM(choices = cJSON_AddArrayToObject(o, "choices"));
    MEM(ch = cJSON_CreateObject());
    cJSON_AddItemToArray(choices, ch);
    MEM(cJSON_AddNumberToObject(ch, "index", 0));
    MEM(m = cJSON_AddObjectToObject(ch, "message"));
    MEM(cJSON_AddStringToObject(m, "role", "assistant"));
    const char *content = forge_json_str(msg, "content");
    MEM(content ? cJSON_AddStringToObject(m, "content", content) : cJSON_AddNullToObject(m, "content"));
    MEM(cJSON_AddNullToObject(m, "refusal"));
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
    if (cJSON_GetArraySize(calls) > 0) {
        cJSON *tc;
        MEM(tc = cJSON_AddArrayToObject(m, "tool_calls"));
        cJSON_ArrayForEach(c, calls) {
            cJSON *w = cJSON_CreateObject(), *f;
            MEM(w);
            cJSON_AddItemToArray(tc, w);
            MEM(cJSON_AddStringToObject(w, "id", forge_json_str(c, "id")));
            MEM(cJSON_AddStringToObject(w, "type", "function"));
            MEM(f = cJSON_AddObjectToObject(w, "function"));
            MEM(cJSON_AddStringToObject(f, "name", forge_json_str(c, "name")));
            MEM(args = forge_wire_args_text(cJSON_GetObjectItemCaseSensitive(c, "arguments")));
            MEM(cJSON_AddStringToObject(f, "arguments", args));
            FORGE_FREE(args);
        }
    }
    MEM(cJSON_AddNullToObject(ch, "logprobs"));
    MEM(cJSON_AddStringToObject(ch, "finish_reason", wire_finish(resp)));
    MEM(add_usage(o, resp));
out:
    forge_free(args);
    if (rc) {
        cJSON_Delete(o);
        o = NULL;
    }
    *out = o;
    return rc;
}

/* Appends "data: <chunk>\n\n" for a chunk whose only choice has <delta> (taken) and <finish>
 * (NULL: null); <usage_null> adds "usage": null as OpenAI does when usage is streamed. */
static int chunk(struct forge_buf *b, const struct forge_answer_info *info, cJSON *delta, const char *finish,
                 int usage_null)
{
    cJSON *o = head(info, "chat.completion.chunk"), *choices, *ch;
    int ok = o && (choices = cJSON_AddArrayToObject(o, "choices")) && (ch = cJSON_CreateObject()) &&
             cJSON_AddItemToArray(choices, ch) && cJSON_AddNumberToObject(ch, "index", 0) &&
             forge_wire_put(ch, "delta", delta) && cJSON_AddNullToObject(ch, "logprobs") &&
             (finish ? cJSON_AddStringToObject(ch, "finish_reason", finish) : cJSON_AddNullToObject(ch, "finish_reason")) &&
             (!usage_null || cJSON_AddNullToObject(o, "usage"));
    if (!o)
        cJSON_Delete(delta);
    int rc = ok ? forge_wire_sse(b, NULL, o) : FORGE_ENOMEM;
    cJSON_Delete(o);
    return rc;
}

static cJSON *delta_text(const char *key, const char *s, size_t n)
{
    cJSON *d = cJSON_CreateObject();
    char *t = forge_strndup(s, n);
    if (!d || !t || !cJSON_AddStringToObject(d, key, t)) {
        cJSON_Delete(d);
        d = NULL;
    }
    forge_free(t);
    return d;
}

/* A delta for call <index>: the head (id, type, name, empty arguments) when <c> is given, else
 * a piece of its arguments. */
static cJSON *delta_call(int index, const cJSON *c, const char *piece, size_t n)
{
    cJSON *d = cJSON_CreateObject(), *tc, *w, *f;
    char *t = forge_strndup(piece, n);
    int ok = d && t && (tc = cJSON_AddArrayToObject(d, "tool_calls")) && (w = cJSON_CreateObject()) &&
             cJSON_AddItemToArray(tc, w) && cJSON_AddNumberToObject(w, "index", index) &&
             (!c || (cJSON_AddStringToObject(w, "id", forge_json_str(c, "id")) &&
                     cJSON_AddStringToObject(w, "type", "function"))) &&
             (f = cJSON_AddObjectToObject(w, "function")) &&
             (!c || cJSON_AddStringToObject(f, "name", forge_json_str(c, "name"))) &&
             cJSON_AddStringToObject(f, "arguments", t);
    forge_free(t);
    if (!ok) {
        cJSON_Delete(d);
        d = NULL;
    }
    return d;
}

static int stream(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, struct forge_buf *b,
                  struct forge_err *err)
{
    int rc = 0;
    char *args = NULL;
    int with_usage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(req, "stream_options"), "include_usage"));
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message"), *c;
    cJSON *d = cJSON_CreateObject();
    MEM(d && cJSON_AddStringToObject(d, "role", "assistant") && cJSON_AddStringToObject(d, "content", ""));
    MEM(!chunk(b, info, d, NULL, with_usage));
    const char *content = forge_json_str(msg, "content");
    for (size_t at = 0, n = content ? strlen(content) : 0, k; at < n; at += k) {
        k = forge_wire_piece(content + at, n - at, FORGE_WIRE_PIECE);
        MEM(!chunk(b, info, delta_text("content", content + at, k), NULL, with_usage));
    }
    int i = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
        MEM(args = forge_wire_args_text(cJSON_GetObjectItemCaseSensitive(c, "arguments")));
        MEM(!chunk(b, info, delta_call(i, c, "", 0), NULL, with_usage));
        for (size_t at = 0, n = strlen(args), k; at < n; at += k) {
            k = forge_wire_piece(args + at, n - at, FORGE_WIRE_PIECE);
            MEM(!chunk(b, info, delta_call(i, NULL, args + at, k), NULL, with_usage));
        }
        FORGE_FREE(args);
        i++;
    }
    MEM(!chunk(b, info, cJSON_CreateObject(), wire_finish(resp), with_usage));
    if (with_usage) {
        cJSON *o = head(info, "chat.completion.chunk");
        int ok = o && cJSON_AddArrayToObject(o, "choices") && add_usage(o, resp) && !forge_wire_sse(b, NULL, o);
        cJSON_Delete(o);
        MEM(ok);
    }
    MEM(!forge_buf_adds(b, "data: [DONE]\n\n"));
out:
    forge_free(args);
    return rc;
}

cJSON *forge_wire_openai_error(int status, const char *message)
{
    const char *type = status >= 500 ? "server_error" : "invalid_request_error";
    const char *code = status == 401 ? "invalid_api_key" : status == 404 ? "model_not_found"
                     : status == 429 ? "rate_limit_exceeded" : NULL;
    cJSON *o = cJSON_CreateObject(), *e;
    if (!o || !(e = cJSON_AddObjectToObject(o, "error")) || !cJSON_AddStringToObject(e, "message", message) ||
        !cJSON_AddStringToObject(e, "type", type) || !cJSON_AddNullToObject(e, "param") ||
        !(code ? cJSON_AddStringToObject(e, "code", code) : cJSON_AddNullToObject(e, "code"))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- streamed answers (client side) ---- */

static int stream_complete(const char *text, size_t len)
{
    struct forge_sse it;
    int end = forge_sse_last(&it, text, len) == 1 && it.data &&
              (forge_sse_data_is(&it, "[DONE]") || (it.len >= 8 && !memcmp(it.data, "{\"error\"", 8)));
    forge_sse_free(&it);
    return end;
}

/* The call at <index> in <calls>, made when first seen. */
static cJSON *call_at(cJSON *calls, int index)
{
    cJSON *c;
    cJSON_ArrayForEach(c, calls)
        if (forge_wire_index(forge_json_num(c, "index", -1)) == index)
            return c;
    cJSON *f;
    if (!(c = cJSON_CreateObject()) || !cJSON_AddItemToArray(calls, c) || !cJSON_AddNumberToObject(c, "index", index) ||
        !cJSON_AddStringToObject(c, "type", "function") || !(f = cJSON_AddObjectToObject(c, "function")) ||
        !cJSON_AddStringToObject(f, "arguments", ""))
        return NULL;
    return c;
}

/* The hot chunk: a piece of text or of one call's arguments, and nothing else that assemble
 * reads. Its fields, found by hot(). */
struct hot_chunk {
    struct forge_jstr content, args;
    long index;
    int has_content, has_args;
};

/* The one tool-call delta of a hot chunk: {"index": N, "function": {"arguments": "..."}}, no id
 * or name (a call's first delta goes to cJSON). 0 or 1. */
static int hot_call(struct forge_jscan *j, struct hot_chunk *h)
{
    struct forge_jstr k;
    int r, n_index = 0, n_fn = 0;
    if (forge_jscan_open(j, '[') || forge_jscan_item(j) != 1 || forge_jscan_open(j, '{'))
        return 1;
    while ((r = forge_jscan_key(j, &k)) == 1) {
        if (forge_jstr_is(&k, "index")) {
            if (n_index++ || forge_jscan_int(j, &h->index))
                return 1;
        } else if (forge_jstr_is(&k, "function")) {
            if (n_fn++ || forge_jscan_open(j, '{'))
                return 1;
            while ((r = forge_jscan_key(j, &k)) == 1) {
                if (forge_jstr_is(&k, "arguments")) {
                    if (h->has_args++ || forge_jscan_string(j, &h->args))
                        return 1;
                } else if (forge_jstr_is(&k, "name") || forge_jscan_skip(j)) {
                    return 1;
                }
            }
            if (r)
                return 1;
        } else if (forge_jstr_is(&k, "id") || forge_jscan_skip(j)) {
            return 1;
        }
    }
    return r || !n_index || !h->has_args || forge_jscan_item(j) != 0;
}

/* Reads a chunk in place when it is hot: 0 with its fields in <h>, 1 when it is anything else
 * (the caller reads it with cJSON). */
static int hot(const char *data, size_t len, struct hot_chunk *h)
{
    struct forge_jscan j;
    struct forge_jstr k;
    int r, n_choices = 0, n_usage = 0;
    memset(h, 0, sizeof *h);
    forge_jscan_init(&j, data, len);
    if (forge_jscan_open(&j, '{'))
        return 1;
    while ((r = forge_jscan_key(&j, &k)) == 1) {
        if (forge_jstr_is(&k, "choices")) {
            /* choices[0] only: {"delta": {...}, "finish_reason": null} */
            int n_delta = 0, n_fin = 0, n_calls = 0;
            if (n_choices++ || forge_jscan_open(&j, '[') || forge_jscan_item(&j) != 1 || forge_jscan_open(&j, '{'))
                return 1;
            while ((r = forge_jscan_key(&j, &k)) == 1) {
                if (forge_jstr_is(&k, "delta")) {
                    if (n_delta++ || forge_jscan_open(&j, '{'))
                        return 1;
                    while ((r = forge_jscan_key(&j, &k)) == 1) {
                        if (forge_jstr_is(&k, "content")) {
                            if (h->has_content++ || forge_jscan_string(&j, &h->content))
                                return 1;
                        } else if (forge_jstr_is(&k, "tool_calls")) {
                            if (n_calls++ || hot_call(&j, h))
                                return 1;
                        } else if (forge_jstr_is(&k, "refusal") || forge_jscan_skip(&j)) {
                            return 1;
                        }
                    }
                    if (r)
                        return 1;
                } else if (forge_jstr_is(&k, "finish_reason")) {
                    if (n_fin++ || forge_jscan_null(&j))
                        return 1;
                } else if (forge_jscan_skip(&j)) {
                    return 1;
                }
            }
            if (r || !n_delta || forge_jscan_leave(&j))
                return 1;
        } else if (forge_jstr_is(&k, "usage")) {
            if (n_usage++ || forge_jscan_null(&j))
                return 1;
        } else if (forge_jstr_is(&k, "error") || forge_jscan_skip(&j)) {
            return 1;
        }
    }
    if (r || forge_jscan_end(&j) || !n_choices || h->has_content + h->has_args != 1)
        return 1;
    return 0;
}

static int assemble(const char *text, size_t len, cJSON **body, struct forge_stream_marks *marks, struct forge_err *err)
{
    int rc = 0, done = 0;
    struct forge_sse it;
    forge_sse_init(&it, text, len);
    marks->first_token = marks->first_call = SIZE_MAX;
    cJSON *b = cJSON_CreateObject(), *choices, *choice = NULL, *msg, *calls = cJSON_CreateArray(), *chunk = NULL;
    struct forge_buf content;
    forge_buf_init(&content, 0);
    struct forge_wire_acc acc = {0};
    int has_content = 0;
    NOMEM(b && calls && (choices = cJSON_AddArrayToObject(b, "choices")) && (choice = cJSON_CreateObject()) &&
          cJSON_AddItemToArray(choices, choice) && (msg = cJSON_AddObjectToObject(choice, "message")) &&
          cJSON_AddStringToObject(msg, "role", "assistant"));
    int fast = forge_wire_fast();
    struct forge_wire_tmpl tm = {0};
    struct hot_chunk th;
    struct forge_jstr rv;
    for (int r = 0, raw; (raw = fast && forge_sse_tmpl_next(&it, &tm, &rv)) || (r = forge_sse_next(&it)) != 0;) {
        NOMEM(raw || r == 1);
        if (forge_sse_data_is(&it, "[DONE]")) {
            done = 1;
            break;
        }
        struct hot_chunk h;
        int is_hot = 0;
        if (raw) {
            h = th;
            *(h.has_content ? &h.content : &h.args) = rv;
            is_hot = 1;
        } else if (fast && it.data && it.data != it.buf.data && !hot(it.data, it.len, &h)) {
            forge_sse_tmpl_set(&it, &tm, h.has_content ? &h.content : &h.args);
            th = h;
            is_hot = 1;
        }
        if (is_hot) {
            if (h.has_content) {
                NOMEM(!forge_jstr_append(&h.content, &content));
                has_content = 1;
                if (h.content.n && marks->first_token == SIZE_MAX)
                    marks->first_token = it.offset;
            } else {
                cJSON *c = call_at(calls, (int)h.index), *f = cJSON_GetObjectItemCaseSensitive(c, "function");
                struct forge_buf *ab;
                NOMEM(c && (ab = forge_wire_acc_buf(&acc, f, "arguments")) && !forge_jstr_append(&h.args, ab));
                if (marks->first_call == SIZE_MAX)
                    marks->first_call = it.offset;
            }
            continue;
        }
        struct forge_err pe;
        cJSON_Delete(chunk);
        if (!(chunk = forge_json_parse(it.data ? it.data : "", it.len, "event", &pe))) {
            rc = forge_err_set(err, FORGE_ENET, "openai: a stream event at byte %zu is not JSON (%s)", it.offset, pe.msg);
            goto out;
        }
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(chunk, "error");
        if (e) {
            char m[512];
            forge_wire_error_text(chunk, m, sizeof m);
            rc = forge_err_set(err, FORGE_ENET, "openai: the stream failed: %s", m[0] ? m : "(no message)");
            goto out;
        }
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(chunk, "usage");
        if (cJSON_IsObject(u))
            NOMEM(forge_wire_put(b, "usage", cJSON_Duplicate(u, 1)));
        const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(chunk, "choices"), 0);
        if (!ch)
            continue;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(ch, "delta"), *tc;
        const char *piece = forge_json_str(d, "content"), *refusal = forge_json_str(d, "refusal");
        const char *fin = forge_json_str(ch, "finish_reason");
        if (piece || refusal) {
            NOMEM(!forge_buf_adds(&content, piece ? piece : refusal));
            has_content = 1;
            if ((piece ? *piece : *refusal) && marks->first_token == SIZE_MAX)
                marks->first_token = it.offset;
            if (refusal)
                NOMEM(!forge_wire_acc_add(&acc, msg, "refusal", refusal));
        }
        int k = 0;
        cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(d, "tool_calls")) {
            /* a call's id and name come in its first delta; its arguments in pieces, by index */
            int index = forge_wire_index(forge_json_num(tc, "index", k));
            cJSON *c = call_at(calls, index), *f = cJSON_GetObjectItemCaseSensitive(c, "function");
            NOMEM(c);
            const cJSON *df = cJSON_GetObjectItemCaseSensitive(tc, "function");
            const char *id = forge_json_str(tc, "id"), *name = forge_json_str(df, "name"), *args = forge_json_str(df, "arguments");
            if (id && *id)
                NOMEM(forge_wire_put(c, "id", cJSON_CreateString(id)));
            if (name && *name)
                NOMEM(!forge_wire_acc_add(&acc, f, "name", name));
            if (args)
                NOMEM(!forge_wire_acc_add(&acc, f, "arguments", args));
            if (marks->first_call == SIZE_MAX)
                marks->first_call = it.offset;
            k++;
        }
        if (fin)
            NOMEM(forge_wire_put(choice, "finish_reason", cJSON_CreateString(fin)));
    }
    if (!done) {
        rc = forge_err_set(err, FORGE_ENET, "openai: the stream ended without data: [DONE]");
        goto out;
    }
    NOMEM(!forge_wire_acc_flush(&acc));
    /* the first delta carries "content": "" even before calls, whose whole answer has null */
    if (!content.len && cJSON_GetArraySize(calls) > 0)
        has_content = 0;
    NOMEM(has_content ? cJSON_AddStringToObject(msg, "content", content.data ? content.data : "")
                      : cJSON_AddNullToObject(msg, "content"));
    if (cJSON_GetArraySize(calls) > 0) {
        cJSON *c;
        cJSON_ArrayForEach(c, calls)
            cJSON_DeleteItemFromObjectCaseSensitive(c, "index");
        forge_wire_put(msg, "tool_calls", calls);
        calls = NULL;
    }
out:
    forge_sse_free(&it);
    forge_buf_free(&content);
    forge_wire_acc_free(&acc);
    cJSON_Delete(chunk);
    cJSON_Delete(calls);
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

const struct forge_dialect forge_dialect_openai = {
    .name = "openai", .build = build, .parse = parse, .error_message = forge_wire_error_text,
    .accept = accept, .answer = answer, .stream = stream, .error_body = forge_wire_openai_error,
    .stream_type = "text/event-stream", .stream_complete = stream_complete, .assemble = assemble,
};
