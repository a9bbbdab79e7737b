/* OpenAI responses (POST {base}/responses): "instructions", input items, function_call and
 * function_call_output items. Reasoning items the model returns travel in provider_data and are
 * sent back before the calls they preceded. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/jscan.h"
#include "data/json.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRY(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building the request"); goto out; } } while (0)

static cJSON *item(cJSON *input)
{
    cJSON *it = cJSON_CreateObject();
    if (it)
        cJSON_AddItemToArray(input, it);
    return it;
}

static int build(const cJSON *req, const char *model, cJSON **body, struct forge_err *err)
{
    int rc = 0;
    char *args = NULL;
    cJSON *b = cJSON_CreateObject(), *input;
    TRY(b);
    TRY(cJSON_AddStringToObject(b, "model", model));
    const char *sys = forge_json_str(req, "system");
    if (sys)
        TRY(cJSON_AddStringToObject(b, "instructions", sys));
    TRY(input = cJSON_AddArrayToObject(b, "input"));
    const cJSON *nm;
    cJSON_ArrayForEach(nm, cJSON_GetObjectItemCaseSensitive(req, "messages")) {
        const char *role = forge_json_str(nm, "role");
        const char *content = forge_json_str(nm, "content");
        cJSON *it;
        if (strcmp(role, "tool") == 0)
            continue;
        if (strcmp(role, "user") == 0) {
            TRY(it = item(input));
            TRY(cJSON_AddStringToObject(it, "role", "user"));
            TRY(cJSON_AddStringToObject(it, "content", content));
            continue;
        }
        const cJSON *pd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(nm, "provider_data"), "openai_responses");
        const cJSON *ri;
        cJSON_ArrayForEach(ri, cJSON_GetObjectItemCaseSensitive(pd, "reasoning")) {
            cJSON *d = cJSON_Duplicate(ri, 1);
            TRY(d);
            cJSON_AddItemToArray(input, d);
        }
        if (content && *content) {
            TRY(it = item(input));
            TRY(cJSON_AddStringToObject(it, "role", "assistant"));
            TRY(cJSON_AddStringToObject(it, "content", content));
        }
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(nm, "tool_calls"), *c;
        cJSON_ArrayForEach(c, calls) {
            TRY(it = item(input));
            TRY(cJSON_AddStringToObject(it, "type", "function_call"));
            TRY(cJSON_AddStringToObject(it, "call_id", forge_json_str(c, "id")));
            TRY(cJSON_AddStringToObject(it, "name", forge_json_str(c, "name")));
            TRY(args = forge_wire_args_text(cJSON_GetObjectItemCaseSensitive(c, "arguments")));
            TRY(cJSON_AddStringToObject(it, "arguments", args));
            FORGE_FREE(args);
        }
        cJSON_ArrayForEach(c, calls) {
            const cJSON *r = forge_wire_result(req, forge_json_str(c, "id"));
            TRY(it = item(input));
            TRY(cJSON_AddStringToObject(it, "type", "function_call_output"));
            TRY(cJSON_AddStringToObject(it, "call_id", forge_json_str(c, "id")));
            TRY(args = forge_wire_result_text(r));
            TRY(cJSON_AddStringToObject(it, "output", args));
            FORGE_FREE(args);
        }
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(req, "tools"), *t;
    if (cJSON_GetArraySize(tools) > 0) {
        cJSON *wt;
        TRY(wt = cJSON_AddArrayToObject(b, "tools"));
        cJSON_ArrayForEach(t, tools) {
            cJSON *w = cJSON_CreateObject();
            TRY(w);
            cJSON_AddItemToArray(wt, w);
            TRY(cJSON_AddStringToObject(w, "type", "function"));
            TRY(cJSON_AddStringToObject(w, "name", forge_json_str(t, "name")));
            const char *d = forge_json_str(t, "description");
            if (d)
                TRY(cJSON_AddStringToObject(w, "description", d));
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(t, "parameters");
            cJSON *pd = p ? cJSON_Duplicate(p, 1) : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
            TRY(forge_wire_put(w, "parameters", pd));
            /* Without this the API would default to strict schemas, which reject optional
             * properties that ordinary JSON Schemas have. */
            TRY(cJSON_AddFalseToObject(w, "strict"));
        }
        const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
        if (cJSON_IsString(choice)) {
            TRY(cJSON_AddStringToObject(b, "tool_choice", choice->valuestring));
        } else if (choice) {
            cJSON *w;
            TRY(w = cJSON_AddObjectToObject(b, "tool_choice"));
            TRY(cJSON_AddStringToObject(w, "type", "function"));
            TRY(cJSON_AddStringToObject(w, "name", forge_json_str(choice, "name")));
        }
        const cJSON *ptc = cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls");
        if (ptc)
            TRY(cJSON_AddBoolToObject(b, "parallel_tool_calls", cJSON_IsTrue(ptc)));
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(params, "max_tokens");
    if (mt)
        TRY(forge_wire_put(b, "max_output_tokens", cJSON_Duplicate(mt, 1)));
    static const char *const skip[] = {"max_tokens", NULL};
    if (forge_wire_copy_params(b, params, skip))
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

#define NOMEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response"); goto out; } } while (0)

static int parse(const cJSON *req, const cJSON *body, cJSON **resp, struct forge_err *err)
{
    int rc = 0;
    cJSON *calls = NULL, *r = NULL, *reasoning = NULL;
    char *text = NULL;
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(body, "output"), *it;
    const char *status = forge_json_str(body, "status");
    if (!cJSON_IsArray(output)) {
        rc = forge_err_set(err, FORGE_ENET, "openai-responses: the response has no output array");
        goto out;
    }
    if (status && strcmp(status, "failed") == 0) {
        char msg[512];
        forge_wire_error_text(body, msg, sizeof msg);
        rc = forge_err_set(err, FORGE_ENET, "openai-responses: the response failed: %s", msg[0] ? msg : "(no message)");
        goto out;
    }
    size_t tlen = 0;
    int have_text = 0, i = 0;
    cJSON_ArrayForEach(it, output) {
        const char *type = forge_json_str(it, "type");
        if (!type)
            continue;
        if (strcmp(type, "message") == 0) {
            const cJSON *part;
            cJSON_ArrayForEach(part, cJSON_GetObjectItemCaseSensitive(it, "content")) {
                const char *pt = forge_json_str(part, "type");
                const char *s = pt && strcmp(pt, "refusal") == 0 ? forge_json_str(part, "refusal") : forge_json_str(part, "text");
                if (!s)
                    continue;
                size_t n = strlen(s);
                char *nt = forge_realloc(text, tlen + n + 1);
                NOMEM(nt);
                text = nt;
                memcpy(text + tlen, s, n + 1);
                tlen += n;
                have_text = 1;
            }
        } else if (strcmp(type, "function_call") == 0) {
            const char *name = forge_json_str(it, "name"), *id = forge_json_str(it, "call_id");
            if (!name || !id) {
                rc = forge_err_set(err, FORGE_ENET, "openai-responses: a function_call item lacks name or call_id");
                goto out;
            }
            if (!calls)
                NOMEM(calls = cJSON_CreateArray());
            cJSON *call = forge_wire_call_new(id, name);
            NOMEM(call);
            cJSON_AddItemToArray(calls, call);
            NOMEM(forge_wire_set_args_text(call, forge_json_str(it, "arguments")) == 0);
            i++;
        } else if (strcmp(type, "reasoning") == 0) {
            if (!reasoning)
                NOMEM(reasoning = cJSON_CreateArray());
            cJSON *d = cJSON_Duplicate(it, 1);
            NOMEM(d);
            cJSON_AddItemToArray(reasoning, d);
        }
    }
    const char *fin = i > 0 ? "tool_calls" : "stop";
    if (status && strcmp(status, "incomplete") == 0) {
        const char *why = forge_json_str(cJSON_GetObjectItemCaseSensitive(body, "incomplete_details"), "reason");
        fin = !why ? "length" : strcmp(why, "max_output_tokens") == 0 ? "length" : why;
    }
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
    r = forge_wire_response_new(have_text ? text : NULL, calls, fin, forge_json_num(usage, "input_tokens", 0),
                                forge_json_num(usage, "output_tokens", 0));
    calls = NULL;
    NOMEM(r);
    if (reasoning) {
        cJSON *pd = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(r, "message"), "provider_data"), *o;
        NOMEM(pd);
        NOMEM(o = cJSON_AddObjectToObject(pd, "openai_responses"));
        cJSON *t = reasoning;
        reasoning = NULL;
        NOMEM(forge_wire_put(o, "reasoning", t));
    }
out:
    forge_free(text);
    cJSON_Delete(calls);
    cJSON_Delete(reasoning);
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

/* Appends the text of a message's content (a string or an array of text parts) to <b>. */
static int text_of(const cJSON *c, const char *path, struct forge_buf *b, struct forge_err *err)
{
    if (cJSON_IsString(c))
        return forge_buf_adds(b, c->valuestring) ? forge_err_set(err, FORGE_ENOMEM, "out of memory") : 0;
    if (!cJSON_IsArray(c))
        return forge_err_set(err, FORGE_EINVAL, "%s: must be a string or an array of text parts", path);
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, c) {
        const char *type = forge_json_str(p, "type"), *t = forge_json_str(p, "text");
        if (!type || (strcmp(type, "input_text") && strcmp(type, "output_text") && strcmp(type, "text")) || !t) {
            if (type && !strcmp(type, "refusal") && (t = forge_json_str(p, "refusal"))) {
                /* a refusal the model gave, sent back: its text */
            } else {
                return forge_err_set(err, FORGE_EINVAL, "%s[%d]: only text parts are supported (type '%s')", path, i,
                                     type ? type : "?");
            }
        }
        if (forge_buf_adds(b, t))
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        i++;
    }
    return 0;
}

/* The assistant message items attach to: the last message when it is an assistant message no
 * result has followed, else a new one. */
static cJSON *assistant(cJSON *msgs)
{
    cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
    const char *role = forge_json_str(last, "role");
    if (role && !strcmp(role, "assistant"))
        return last;
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddItemToArray(msgs, m) || !cJSON_AddStringToObject(m, "role", "assistant") ||
        !cJSON_AddNullToObject(m, "content"))
        return NULL;
    return m;
}

static int accept_item(const cJSON *it, const char *path, cJSON *msgs, struct forge_buf *sys, struct forge_err *err)
{
    int rc = 0;
    struct forge_buf text;
    forge_buf_init(&text, 0);
    const char *type = forge_json_str(it, "type"), *role = forge_json_str(it, "role");
    char cp[64];
    snprintf(cp, sizeof cp, "%s.content", path);
    if ((!type || !strcmp(type, "message")) && role) {
        if ((rc = text_of(cJSON_GetObjectItemCaseSensitive(it, "content"), cp, &text, err)))
            goto out;
        const char *t = text.data ? text.data : "";
        if (!strcmp(role, "system") || !strcmp(role, "developer")) {
            NOMEM(!(sys->len && forge_buf_adds(sys, "\n\n")) && !forge_buf_adds(sys, t));
        } else if (!strcmp(role, "user")) {
            cJSON *m = cJSON_CreateObject();
            NOMEM(m && cJSON_AddItemToArray(msgs, m) && cJSON_AddStringToObject(m, "role", "user") &&
                  cJSON_AddStringToObject(m, "content", t));
        } else if (!strcmp(role, "assistant")) {
            cJSON *m = assistant(msgs);
            NOMEM(m);
            const char *had = forge_json_str(m, "content");
            char *joined = had ? forge_strdupf("%s%s", had, t) : forge_strdup(t);
            NOMEM(joined);
            cJSON *v = cJSON_CreateString(joined);
            forge_free(joined);
            NOMEM(v);
            cJSON_ReplaceItemInObjectCaseSensitive(m, "content", v);
        } else {
            BAD("%s.role: must be user, assistant, system or developer", path);
        }
    } else if (type && !strcmp(type, "function_call")) {
        const char *id = forge_json_str(it, "call_id"), *name = forge_json_str(it, "name");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(it, "arguments");
        if (!id || !*id)
            BAD("%s.call_id: must be a non-empty string", path);
        if (!name)
            BAD("%s.name: must be a string", path);
        if (a && !cJSON_IsString(a))
            BAD("%s.arguments: must be a string of JSON", path);
        cJSON *m = assistant(msgs), *calls;
        NOMEM(m);
        if (!(calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls")))
            NOMEM(calls = cJSON_AddArrayToObject(m, "tool_calls"));
        cJSON *call = forge_wire_call_new(id, name);
        NOMEM(call && cJSON_AddItemToArray(calls, call));
        NOMEM(!forge_wire_set_args_text(call, a ? a->valuestring : NULL));
        if (cJSON_GetObjectItemCaseSensitive(call, "arguments_error"))
            BAD("%s.arguments: not a JSON object", path);
    } else if (type && !strcmp(type, "function_call_output")) {
        const char *id = forge_json_str(it, "call_id");
        if (!id)
            BAD("%s.call_id: must be a string", path);
        snprintf(cp, sizeof cp, "%s.output", path);
        if ((rc = text_of(cJSON_GetObjectItemCaseSensitive(it, "output"), cp, &text, err)))
            goto out;
        const char *name = NULL;
        const cJSON *m, *c;
        cJSON_ArrayForEach(m, msgs)
            cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls"))
                if (forge_json_str(c, "id") && !strcmp(forge_json_str(c, "id"), id))
                    name = forge_json_str(c, "name");
        cJSON *tm = cJSON_CreateObject();
        NOMEM(tm && cJSON_AddItemToArray(msgs, tm) && cJSON_AddStringToObject(tm, "role", "tool") &&
              cJSON_AddStringToObject(tm, "tool_call_id", id) && (!name || cJSON_AddStringToObject(tm, "name", name)) &&
              cJSON_AddStringToObject(tm, "content", text.data ? text.data : "") && cJSON_AddFalseToObject(tm, "is_error"));
    } else if (type && !strcmp(type, "reasoning")) {
        /* reasoning precedes the assistant output it led to: kept to be sent back with it */
        cJSON *m = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1), *pd, *o, *r;
        const char *role = forge_json_str(m, "role");
        /* consecutive reasoning items share one message; else a new one begins */
        if (!role || strcmp(role, "assistant") || cJSON_GetObjectItemCaseSensitive(m, "tool_calls") ||
            forge_json_str(m, "content") || !cJSON_GetObjectItemCaseSensitive(m, "provider_data")) {
            NOMEM((m = cJSON_CreateObject()) && cJSON_AddItemToArray(msgs, m) &&
                  cJSON_AddStringToObject(m, "role", "assistant") && cJSON_AddNullToObject(m, "content"));
        }
        pd = cJSON_GetObjectItemCaseSensitive(m, "provider_data");
        if (!pd)
            NOMEM(pd = cJSON_AddObjectToObject(m, "provider_data"));
        if (!(o = cJSON_GetObjectItemCaseSensitive(pd, "openai_responses")))
            NOMEM(o = cJSON_AddObjectToObject(pd, "openai_responses"));
        if (!(r = cJSON_GetObjectItemCaseSensitive(o, "reasoning")))
            NOMEM(r = cJSON_AddArrayToObject(o, "reasoning"));
        NOMEM(cJSON_AddItemToArray(r, cJSON_Duplicate(it, 1)));
    } else {
        BAD("%s: only messages, function_call, function_call_output and reasoning items are supported (type '%s')", path,
            type ? type : "?");
    }
out:
    forge_buf_free(&text);
    return rc;
}

static int accept(const cJSON *body, cJSON **out, int *stream, struct forge_err *err)
{
    static const char *const mapped[] = {"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
                                         "stream", "stream_options", "max_output_tokens", NULL};
    int rc = 0;
    struct forge_buf sys;
    forge_buf_init(&sys, 0);
    cJSON *req = cJSON_CreateObject(), *msgs;
    NOMEM(req);
    if (cJSON_GetObjectItemCaseSensitive(body, "previous_response_id") &&
        !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(body, "previous_response_id")))
        BAD("previous_response_id: forge serve keeps no responses; send the whole conversation in input "
            "(as with store: false)");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(body, "stream");
    if (st && !cJSON_IsBool(st) && !cJSON_IsNull(st))
        BAD("stream: must be true or false");
    *stream = cJSON_IsTrue(st);
    const char *ins = forge_json_str(body, "instructions");
    if (ins)
        NOMEM(!forge_buf_adds(&sys, ins));
    NOMEM(msgs = cJSON_AddArrayToObject(req, "messages"));
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(body, "input"), *it;
    if (cJSON_IsString(input)) {
        cJSON *m = cJSON_CreateObject();
        NOMEM(m && cJSON_AddItemToArray(msgs, m) && cJSON_AddStringToObject(m, "role", "user") &&
              cJSON_AddStringToObject(m, "content", input->valuestring));
    } else if (cJSON_IsArray(input)) {
        int i = 0;
        cJSON_ArrayForEach(it, input) {
            char path[32];
            snprintf(path, sizeof path, "input[%d]", i++);
            if ((rc = accept_item(it, path, msgs, &sys, err)))
                goto out;
        }
    } else {
        BAD("input: must be a string or an array of items");
    }
    if (sys.len)
        NOMEM(cJSON_AddStringToObject(req, "system", sys.data));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, "tools"), *t;
    if (v && !cJSON_IsArray(v))
        BAD("tools: must be an array");
    int i = 0;
    cJSON *tools = NULL;
    cJSON_ArrayForEach(t, v) {
        const char *type = forge_json_str(t, "type"), *name = forge_json_str(t, "name"), *d = forge_json_str(t, "description");
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(t, "parameters");
        if (!type || strcmp(type, "function"))
            BAD("tools[%d]: only function tools are supported (type '%s')", i, type ? type : "?");
        if (!name)
            BAD("tools[%d].name: must be a string", i);
        if (ps && !cJSON_IsObject(ps) && !cJSON_IsNull(ps))
            BAD("tools[%d].parameters: must be a JSON Schema object", i);
        if (!tools)
            NOMEM(tools = cJSON_AddArrayToObject(req, "tools"));
        cJSON *nt = cJSON_CreateObject();
        NOMEM(nt && cJSON_AddItemToArray(tools, nt) && cJSON_AddStringToObject(nt, "name", name));
        if (d)
            NOMEM(cJSON_AddStringToObject(nt, "description", d));
        if (cJSON_IsObject(ps))
            NOMEM(forge_wire_put(nt, "parameters", cJSON_Duplicate(ps, 1)));
        i++;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(body, "tool_choice")) && !cJSON_IsNull(v)) {
        if (cJSON_IsString(v)) {
            NOMEM(cJSON_AddStringToObject(req, "tool_choice", v->valuestring));
        } else {
            const char *name = forge_json_str(v, "name");
            if (!name)
                BAD("tool_choice: must be auto, none, required or {\"type\": \"function\", \"name\": ...}");
            cJSON *c = cJSON_AddObjectToObject(req, "tool_choice");
            NOMEM(c && cJSON_AddStringToObject(c, "name", name));
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(body, "parallel_tool_calls")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            BAD("parallel_tool_calls: must be true or false");
        NOMEM(cJSON_AddBoolToObject(req, "parallel_tool_calls", cJSON_IsTrue(v)));
    }
    cJSON *params = cJSON_CreateObject();
    NOMEM(forge_wire_put(req, "params", params));
    if ((v = cJSON_GetObjectItemCaseSensitive(body, "max_output_tokens")) && !cJSON_IsNull(v))
        NOMEM(forge_wire_put(params, "max_tokens", cJSON_Duplicate(v, 1)));
    NOMEM(!forge_wire_copy_params(params, body, mapped));
    if (!params->child)
        cJSON_DeleteItemFromObjectCaseSensitive(req, "params");
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

/* The output items of <resp>: reasoning (from provider_data), the message, the function calls.
 * <done> gives them their final form; else the form output_item.added shows. */
static cJSON *output_items(const cJSON *resp, const struct forge_answer_info *info)
{
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message"), *c;
    cJSON *out = cJSON_CreateArray(), *it;
    if (!out)
        return NULL;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "provider_data"), "openai_responses"),
        "reasoning");
    cJSON_ArrayForEach(c, r)
        if (!cJSON_AddItemToArray(out, cJSON_Duplicate(c, 1)))
            goto fail;
    const char *text = forge_json_str(msg, "content");
    char id[96];
    if (text) {
        cJSON *content, *part;
        snprintf(id, sizeof id, "msg_%s", info->id);
        if (!(it = item(out)) || !cJSON_AddStringToObject(it, "type", "message") || !cJSON_AddStringToObject(it, "id", id) ||
            !cJSON_AddStringToObject(it, "status", "completed") || !cJSON_AddStringToObject(it, "role", "assistant") ||
            !(content = cJSON_AddArrayToObject(it, "content")) || !(part = item(content)) ||
            !cJSON_AddStringToObject(part, "type", "output_text") || !cJSON_AddStringToObject(part, "text", text) ||
            !cJSON_AddArrayToObject(part, "annotations"))
            goto fail;
    }
    int i = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
        char *args = forge_wire_args_text(cJSON_GetObjectItemCaseSensitive(c, "arguments"));
        snprintf(id, sizeof id, "fc_%s_%d", info->id, i++);
        int ok = args && (it = item(out)) && cJSON_AddStringToObject(it, "type", "function_call") &&
                 cJSON_AddStringToObject(it, "id", id) && cJSON_AddStringToObject(it, "call_id", forge_json_str(c, "id")) &&
                 cJSON_AddStringToObject(it, "name", forge_json_str(c, "name")) &&
                 cJSON_AddStringToObject(it, "arguments", args) && cJSON_AddStringToObject(it, "status", "completed");
        forge_free(args);
        if (!ok)
            goto fail;
    }
    return out;
fail:
    cJSON_Delete(out);
    return NULL;
}

/* The Response object; <output> (taken) NULL means an empty output and status in_progress. */
static cJSON *response_object(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, cJSON *output)
{
    const char *f = forge_json_str(resp, "finish_reason");
    int output_given = output != NULL, incomplete = output && f && !strcmp(f, "length");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "usage"), *t;
    double in = forge_json_num(u, "input_tokens", 0), outt = forge_json_num(u, "output_tokens", 0);
    cJSON *o = cJSON_CreateObject(), *w, *tools;
    int ok = o && cJSON_AddStringToObject(o, "id", info->id) && cJSON_AddStringToObject(o, "object", "response") &&
             cJSON_AddNumberToObject(o, "created_at", (double)info->created) &&
             cJSON_AddStringToObject(o, "status", !output ? "in_progress" : incomplete ? "incomplete" : "completed") &&
             cJSON_AddNullToObject(o, "error");
    if (ok && incomplete) {
        ok = (w = cJSON_AddObjectToObject(o, "incomplete_details")) && cJSON_AddStringToObject(w, "reason", "max_output_tokens");
    } else if (ok) {
        ok = cJSON_AddNullToObject(o, "incomplete_details") != NULL;
    }
    const char *sys = forge_json_str(req, "system");
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
    ok = ok && (sys ? cJSON_AddStringToObject(o, "instructions", sys) : cJSON_AddNullToObject(o, "instructions")) &&
         cJSON_AddStringToObject(o, "model", info->model) &&
         forge_wire_put(o, "output", output ? output : cJSON_CreateArray());
    output = NULL;
    ok = ok && cJSON_AddBoolToObject(o, "parallel_tool_calls",
                                     !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls")));
    if (ok && cJSON_IsObject(choice)) {
        ok = (w = cJSON_AddObjectToObject(o, "tool_choice")) && cJSON_AddStringToObject(w, "type", "function") &&
             cJSON_AddStringToObject(w, "name", forge_json_str(choice, "name"));
    } else if (ok) {
        ok = cJSON_AddStringToObject(o, "tool_choice", cJSON_IsString(choice) ? choice->valuestring : "auto") != NULL;
    }
    ok = ok && (tools = cJSON_AddArrayToObject(o, "tools"));
    const cJSON *rtools = ok ? cJSON_GetObjectItemCaseSensitive(req, "tools") : NULL;
    cJSON_ArrayForEach(t, rtools) {
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(t, "parameters");
        const char *d = forge_json_str(t, "description");
        ok = ok && (w = item(tools)) && cJSON_AddStringToObject(w, "type", "function") &&
             cJSON_AddStringToObject(w, "name", forge_json_str(t, "name")) &&
             (d ? cJSON_AddStringToObject(w, "description", d) : cJSON_AddNullToObject(w, "description")) &&
             forge_wire_put(w, "parameters", ps ? cJSON_Duplicate(ps, 1) : cJSON_CreateObject()) &&
             cJSON_AddFalseToObject(w, "strict");
    }
    if (ok && !output_given) {
        ok = cJSON_AddNullToObject(o, "usage") != NULL; /* known once the response is done */
    } else if (ok && (w = cJSON_AddObjectToObject(o, "usage"))) {
        cJSON *d;
        ok = cJSON_AddNumberToObject(w, "input_tokens", in) && (d = cJSON_AddObjectToObject(w, "input_tokens_details")) &&
             cJSON_AddNumberToObject(d, "cached_tokens", 0) && cJSON_AddNumberToObject(w, "output_tokens", outt) &&
             (d = cJSON_AddObjectToObject(w, "output_tokens_details")) && cJSON_AddNumberToObject(d, "reasoning_tokens", 0) &&
             cJSON_AddNumberToObject(w, "total_tokens", in + outt);
    } else {
        ok = 0;
    }
    cJSON_Delete(output);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int answer(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, cJSON **out,
                  struct forge_err *err)
{
    cJSON *items = output_items(resp, info);
    *out = items ? response_object(req, resp, info, items) : NULL;
    return *out ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory writing the answer");
}

struct emitter {
    struct forge_buf *b;
    int seq;
};

/* Writes event <type> with <o>'s members (taken) after "type" and before "sequence_number". */
static int emit(struct emitter *e, const char *type, cJSON *o)
{
    cJSON *ev = cJSON_CreateObject();
    int ok = o && ev && cJSON_AddStringToObject(ev, "type", type);
    while (ok && o->child) {
        cJSON *m = cJSON_DetachItemViaPointer(o, o->child);
        cJSON_AddItemToObject(ev, m->string, m);
    }
    ok = ok && cJSON_AddNumberToObject(ev, "sequence_number", e->seq++);
    int rc = ok ? forge_wire_sse(e->b, type, ev) : FORGE_ENOMEM;
    cJSON_Delete(o);
    cJSON_Delete(ev);
    return rc;
}

/* {<k1>: <v1> (taken), "output_index": i, ...}: the members every item event has. */
static cJSON *at(int output_index, const char *item_id)
{
    cJSON *o = cJSON_CreateObject();
    if (o && ((item_id && !cJSON_AddStringToObject(o, "item_id", item_id)) ||
              !cJSON_AddNumberToObject(o, "output_index", output_index))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *with(cJSON *o, const char *key, cJSON *v)
{
    if (!o || !forge_wire_put(o, key, v)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *with_str(cJSON *o, const char *key, const char *s, size_t n)
{
    char *t = forge_strndup(s, n);
    cJSON *r = t ? with(o, key, cJSON_CreateString(t)) : (cJSON_Delete(o), NULL);
    forge_free(t);
    return r;
}

static cJSON *with_num(cJSON *o, const char *key, double v)
{
    return with(o, key, cJSON_CreateNumber(v));
}

static int stream(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, struct forge_buf *b,
                  struct forge_err *err)
{
    int rc = 0;
    struct emitter e = {b, 0};
    cJSON *items = output_items(resp, info), *it, *start = NULL;
    NOMEM(items);
    NOMEM(start = response_object(req, resp, info, NULL));
    NOMEM(!emit(&e, "response.created", with(cJSON_CreateObject(), "response", cJSON_Duplicate(start, 1))));
    NOMEM(!emit(&e, "response.in_progress", with(cJSON_CreateObject(), "response", cJSON_Duplicate(start, 1))));
    int i = 0;
    cJSON_ArrayForEach(it, items) {
        const char *type = forge_json_str(it, "type"), *id = forge_json_str(it, "id");
        cJSON *added = cJSON_Duplicate(it, 1);
        NOMEM(added);
        if (!strcmp(type, "message")) {
            cJSON_ReplaceItemInObjectCaseSensitive(added, "status", cJSON_CreateString("in_progress"));
            cJSON_ReplaceItemInObjectCaseSensitive(added, "content", cJSON_CreateArray());
        } else if (!strcmp(type, "function_call")) {
            cJSON_ReplaceItemInObjectCaseSensitive(added, "status", cJSON_CreateString("in_progress"));
            cJSON_ReplaceItemInObjectCaseSensitive(added, "arguments", cJSON_CreateString(""));
        }
        NOMEM(!emit(&e, "response.output_item.added", with(at(i, NULL), "item", added)));
        if (!strcmp(type, "message")) {
            const cJSON *part = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(it, "content"), 0);
            const char *text = forge_json_str(part, "text");
            cJSON *empty = cJSON_Duplicate(part, 1);
            NOMEM(empty);
            cJSON_ReplaceItemInObjectCaseSensitive(empty, "text", cJSON_CreateString(""));
            NOMEM(!emit(&e, "response.content_part.added", with(with_num(at(i, id), "content_index", 0), "part", empty)));
            for (size_t p = 0, n = strlen(text), k; p < n; p += k) {
                k = forge_wire_piece(text + p, n - p, FORGE_WIRE_PIECE);
                NOMEM(!emit(&e, "response.output_text.delta",
                            with(with_str(with_num(at(i, id), "content_index", 0), "delta", text + p, k), "logprobs",
                                 cJSON_CreateArray())));
            }
            NOMEM(!emit(&e, "response.output_text.done",
                        with(with_str(with_num(at(i, id), "content_index", 0), "text", text, strlen(text)), "logprobs",
                             cJSON_CreateArray())));
            NOMEM(!emit(&e, "response.content_part.done",
                        with(with_num(at(i, id), "content_index", 0), "part", cJSON_Duplicate(part, 1))));
        } else if (!strcmp(type, "function_call")) {
            const char *args = forge_json_str(it, "arguments");
            for (size_t p = 0, n = strlen(args), k; p < n; p += k) {
                k = forge_wire_piece(args + p, n - p, FORGE_WIRE_PIECE);
                NOMEM(!emit(&e, "response.function_call_arguments.delta", with_str(at(i, id), "delta", args + p, k)));
            }
            NOMEM(!emit(&e, "response.function_call_arguments.done", with_str(at(i, id), "arguments", args, strlen(args))));
        }
        NOMEM(!emit(&e, "response.output_item.done", with(at(i, NULL), "item", cJSON_Duplicate(it, 1))));
        i++;
    }
    cJSON *done = response_object(req, resp, info, items);
    items = NULL;
    NOMEM(done);
    const char *status = forge_json_str(done, "status");
    NOMEM(!emit(&e, !strcmp(status, "incomplete") ? "response.incomplete" : "response.completed",
                with(cJSON_CreateObject(), "response", done)));
out:
    cJSON_Delete(items);
    cJSON_Delete(start);
    return rc;
}

/* ---- streamed answers (client side) ---- */

static int is_end(const char *event)
{
    return !strcmp(event, "response.completed") || !strcmp(event, "response.incomplete") ||
           !strcmp(event, "response.failed") || !strcmp(event, "error");
}

static int stream_complete(const char *text, size_t len)
{
    struct forge_sse it;
    int end = forge_sse_last(&it, text, len) == 1 && is_end(it.event);
    forge_sse_free(&it);
    return end;
}

/* Whether an event of <type> is one assemble reads more of than its type: the first call's
 * item, an error, the end. */
static int special(const char *type, size_t n)
{
    return (n == 26 && !memcmp(type, "response.output_item.added", 26)) || (n == 5 && !memcmp(type, "error", 5)) ||
           (n == 18 && !memcmp(type, "response.completed", 18)) || (n == 19 && !memcmp(type, "response.incomplete", 19)) ||
           (n == 15 && !memcmp(type, "response.failed", 15));
}

/* Reads an event in place when all assemble needs of it is that it is JSON and its type (every
 * event but the special ones): 0 with *text_delta set for response.output_text.delta, 1 when it
 * is anything else (the caller reads it with cJSON). <event> is its SSE event name ("" if none:
 * then its "type" names it). Its top-level "delta" string, if any, is in <delta> (s NULL when none). */
static int hot(const char *event, const char *data, size_t len, int *text_delta, struct forge_jstr *delta)
{
    struct forge_jscan j;
    struct forge_jstr k, type = {event, strlen(event), 0};
    int r, n_type = 0;
    forge_jscan_init(&j, data, len);
    delta->s = NULL;
    if (forge_jscan_open(&j, '{'))
        return 1;
    while ((r = forge_jscan_key(&j, &k)) == 1) {
        if (!*event && forge_jstr_is(&k, "type")) {
            if (n_type++ || forge_jscan_string(&j, &type) || type.esc)
                return 1;
        } else if (j.depth == 1 && forge_jstr_is(&k, "delta") && forge_jscan_peek(&j) == '"') {
            if (forge_jscan_string(&j, delta))
                return 1;
        } else if (forge_jscan_skip(&j)) {
            return 1;
        }
    }
    if (r || forge_jscan_end(&j) || !type.n || special(type.s, type.n))
        return 1;
    *text_delta = forge_jstr_is(&type, "response.output_text.delta");
    return 0;
}

/* The final event carries the whole Response: that is the answer; the deltas only tell when
 * the first text and the first call arrived. */
static int assemble(const char *text, size_t len, cJSON **body, struct forge_stream_marks *marks, struct forge_err *err)
{
    int rc = 0;
    struct forge_sse it;
    forge_sse_init(&it, text, len);
    marks->first_token = marks->first_call = SIZE_MAX;
    cJSON *ev = NULL, *b = NULL;
    int fast = forge_wire_fast();
    struct forge_wire_tmpl tm = {0};
    char tm_event[sizeof it.event] = "";
    int tm_delta = 0;
    for (int r; (r = forge_sse_next(&it)) != 0;) {
        NOMEM(r == 1);
        int text_delta;
        struct forge_jstr v;
        /* a named event like the last delta read, but for its piece and its numbers: the same
         * kind of event, valid JSON */
        if (fast && it.data && it.data != it.buf.data && it.event[0] && !strcmp(it.event, tm_event) &&
            forge_wire_tmpl_match_digits(&tm, it.data, it.len, &v)) {
            if (tm_delta && marks->first_token == SIZE_MAX)
                marks->first_token = it.offset;
            continue;
        }
        if (fast && it.data && !hot(it.event, it.data, it.len, &text_delta, &v)) {
            if (it.event[0] && v.s && it.data != it.buf.data) {
                forge_wire_tmpl_set(&tm, it.data, it.len, &v);
                memcpy(tm_event, it.event, sizeof tm_event);
                tm_delta = text_delta;
            }
            if (text_delta && marks->first_token == SIZE_MAX)
                marks->first_token = it.offset;
            continue;
        }
        struct forge_err pe;
        cJSON_Delete(ev);
        if (!(ev = forge_json_parse(it.data ? it.data : "", it.len, "event", &pe))) {
            rc = forge_err_set(err, FORGE_ENET, "openai-responses: the stream event at byte %zu is not JSON (%s)", it.offset,
                               pe.msg);
            goto out;
        }
        const char *type = it.event[0] ? it.event : forge_json_str(ev, "type");
        if (!type)
            continue;
        if (!strcmp(type, "response.output_text.delta") && marks->first_token == SIZE_MAX)
            marks->first_token = it.offset;
        const char *itype = forge_json_str(cJSON_GetObjectItemCaseSensitive(ev, "item"), "type");
        if (!strcmp(type, "response.output_item.added") && itype && !strcmp(itype, "function_call") &&
            marks->first_call == SIZE_MAX)
            marks->first_call = it.offset;
        if (!strcmp(type, "error")) {
            char m[512];
            forge_wire_error_text(ev, m, sizeof m);
            rc = forge_err_set(err, FORGE_ENET, "openai-responses: the stream failed: %s", m[0] ? m : "(no message)");
            goto out;
        }
        if (is_end(type)) {
            const cJSON *resp = cJSON_GetObjectItemCaseSensitive(ev, "response");
            if (!cJSON_IsObject(resp)) {
                rc = forge_err_set(err, FORGE_ENET, "openai-responses: the %s event has no response", type);
                goto out;
            }
            b = cJSON_DetachItemViaPointer(ev, (cJSON *)resp); /* taken, not copied */
            break;
        }
    }
    if (!b)
        rc = forge_err_set(err, FORGE_ENET, "openai-responses: the stream ended without response.completed");
out:
    forge_sse_free(&it);
    cJSON_Delete(ev);
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

const struct forge_dialect forge_dialect_openai_responses = {
    .name = "openai-responses", .build = build, .parse = parse, .error_message = forge_wire_error_text,
    .accept = accept, .answer = answer, .stream = stream, .error_body = forge_wire_openai_error,
    .stream_type = "text/event-stream", .stream_complete = stream_complete, .assemble = assemble,
};
