/* Anthropic messages (POST {base}/v1/messages): content blocks, tool_use / tool_result with
 * is_error, tool_choice auto/any/tool/none, disable_parallel_tool_use. Thinking blocks travel in
 * provider_data and are sent back first in the assistant turn, as the API requires. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/jscan.h"
#include "data/json.h"

#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define TRY(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building the request"); goto out; } } while (0)

/* Default when the request sets no params.max_tokens: the API requires one. */
#define DEFAULT_MAX_TOKENS 4096

static cJSON *block(cJSON *content, const char *type)
{
    cJSON *b = cJSON_CreateObject();
    if (!b)
        return NULL;
    cJSON_AddItemToArray(content, b);
    return cJSON_AddStringToObject(b, "type", type) ? b : NULL;
}

static int build(const cJSON *req, const char *model, cJSON **body, struct forge_err *err)
{
    int rc = 0;
    cJSON *b = cJSON_CreateObject(), *msgs;
    TRY(b);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    TRY(cJSON_AddStringToObject(b, "model", model));
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(params, "max_tokens");
    TRY(cJSON_AddNumberToObject(b, "max_tokens", cJSON_IsNumber(mt) ? mt->valuedouble : DEFAULT_MAX_TOKENS));
    const char *sys = forge_json_str(req, "system");
    if (sys)
        TRY(cJSON_AddStringToObject(b, "system", sys));
    TRY(msgs = cJSON_AddArrayToObject(b, "messages"));
    const cJSON *nm;
    cJSON_ArrayForEach(nm, cJSON_GetObjectItemCaseSensitive(req, "messages")) {
        const char *role = forge_json_str(nm, "role");
        const char *content = forge_json_str(nm, "content");
        cJSON *c, *bl;
        if (strcmp(role, "tool") == 0)
            continue;
        if (strcmp(role, "user") == 0) {
            TRY(c = forge_wire_turn(msgs, "user", "content"));
            TRY(bl = block(c, "text"));
            TRY(cJSON_AddStringToObject(bl, "text", content));
            continue;
        }
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(nm, "tool_calls"), *call;
        const cJSON *pd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(nm, "provider_data"), "anthropic");
        const cJSON *thinking = cJSON_GetObjectItemCaseSensitive(pd, "thinking"), *t;
        if (!(content && *content) && cJSON_GetArraySize(calls) == 0 && cJSON_GetArraySize(thinking) == 0)
            continue; /* the API rejects empty assistant turns */
        TRY(c = forge_wire_turn(msgs, "assistant", "content"));
        cJSON_ArrayForEach(t, thinking) {
            cJSON *d = cJSON_Duplicate(t, 1);
            TRY(d);
            cJSON_AddItemToArray(c, d);
        }
        if (content && *content) {
            TRY(bl = block(c, "text"));
            TRY(cJSON_AddStringToObject(bl, "text", content));
        }
        cJSON_ArrayForEach(call, calls) {
            TRY(bl = block(c, "tool_use"));
            TRY(cJSON_AddStringToObject(bl, "id", forge_json_str(call, "id")));
            TRY(cJSON_AddStringToObject(bl, "name", forge_json_str(call, "name")));
            TRY(forge_wire_put(bl, "input", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(call, "arguments"), 1)));
        }
        if (cJSON_GetArraySize(calls) == 0)
            continue;
        TRY(c = forge_wire_turn(msgs, "user", "content"));
        cJSON_ArrayForEach(call, calls) {
            const cJSON *r = forge_wire_result(req, forge_json_str(call, "id"));
            TRY(bl = block(c, "tool_result"));
            TRY(cJSON_AddStringToObject(bl, "tool_use_id", forge_json_str(call, "id")));
            TRY(cJSON_AddStringToObject(bl, "content", forge_json_str(r, "content")));
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "is_error")))
                TRY(cJSON_AddTrueToObject(bl, "is_error"));
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
            TRY(cJSON_AddStringToObject(w, "name", forge_json_str(t, "name")));
            const char *d = forge_json_str(t, "description");
            if (d)
                TRY(cJSON_AddStringToObject(w, "description", d));
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(t, "parameters");
            cJSON *pd = p ? cJSON_Duplicate(p, 1) : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
            TRY(forge_wire_put(w, "input_schema", pd));
        }
        const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
        const cJSON *ptc = cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls");
        int no_parallel = cJSON_IsFalse(ptc);
        if (choice || no_parallel) {
            cJSON *w;
            TRY(w = cJSON_AddObjectToObject(b, "tool_choice"));
            const char *type = "auto";
            if (cJSON_IsString(choice))
                type = strcmp(choice->valuestring, "required") == 0 ? "any" : choice->valuestring;
            else if (choice)
                type = "tool";
            TRY(cJSON_AddStringToObject(w, "type", type));
            if (strcmp(type, "tool") == 0)
                TRY(cJSON_AddStringToObject(w, "name", forge_json_str(choice, "name")));
            if (no_parallel && strcmp(type, "none") != 0)
                TRY(cJSON_AddTrueToObject(w, "disable_parallel_tool_use"));
        }
    }
    static const char *const skip[] = {"max_tokens", NULL};
    if (forge_wire_copy_params(b, params, skip))
        TRY(0);
out:
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

#define NOMEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response"); goto out; } } while (0)

static const char *finish(const char *s)
{
    if (!s)
        return "stop";
    if (strcmp(s, "end_turn") == 0 || strcmp(s, "stop_sequence") == 0)
        return "stop";
    if (strcmp(s, "tool_use") == 0)
        return "tool_calls";
    if (strcmp(s, "max_tokens") == 0)
        return "length";
    if (strcmp(s, "refusal") == 0)
        return "content_filter";
    return s;
}

static int parse(const cJSON *req, const cJSON *body, cJSON **resp, struct forge_err *err)
{
    int rc = 0;
    cJSON *calls = NULL, *r = NULL, *thinking = NULL;
    char *text = NULL;
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(body, "content"), *bl;
    if (!cJSON_IsArray(content)) {
        rc = forge_err_set(err, FORGE_ENET, "anthropic: the response has no content array");
        goto out;
    }
    size_t tlen = 0;
    int have_text = 0, i = 0;
    cJSON_ArrayForEach(bl, content) {
        const char *type = forge_json_str(bl, "type");
        if (!type)
            continue;
        if (strcmp(type, "text") == 0) {
            const char *s = forge_json_str(bl, "text");
            if (!s)
                continue;
            size_t n = strlen(s);
            char *nt = forge_realloc(text, tlen + n + 1);
            NOMEM(nt);
            text = nt;
            memcpy(text + tlen, s, n + 1);
            tlen += n;
            have_text = 1;
        } else if (strcmp(type, "tool_use") == 0) {
            const char *id = forge_json_str(bl, "id"), *name = forge_json_str(bl, "name");
            const cJSON *input = cJSON_GetObjectItemCaseSensitive(bl, "input");
            if (!id || !name) {
                rc = forge_err_set(err, FORGE_ENET, "anthropic: a tool_use block lacks id or name");
                goto out;
            }
            if (!calls)
                NOMEM(calls = cJSON_CreateArray());
            cJSON *call = forge_wire_call_new(id, name);
            NOMEM(call);
            cJSON_AddItemToArray(calls, call);
            if (cJSON_IsObject(input))
                NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(input, 1)));
            i++;
        } else if (strcmp(type, "thinking") == 0 || strcmp(type, "redacted_thinking") == 0) {
            if (!thinking)
                NOMEM(thinking = cJSON_CreateArray());
            cJSON *d = cJSON_Duplicate(bl, 1);
            NOMEM(d);
            cJSON_AddItemToArray(thinking, d);
        }
    }
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
    const char *fin = finish(forge_json_str(body, "stop_reason"));
    r = forge_wire_response_new(have_text ? text : NULL, calls, fin, forge_json_num(usage, "input_tokens", 0),
                                forge_json_num(usage, "output_tokens", 0));
    calls = NULL;
    NOMEM(r);
    if (thinking) {
        cJSON *pd = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(r, "message"), "provider_data"), *o;
        NOMEM(pd);
        NOMEM(o = cJSON_AddObjectToObject(pd, "anthropic"));
        cJSON *t = thinking;
        thinking = NULL;
        NOMEM(forge_wire_put(o, "thinking", t));
    }
    (void)req;
out:
    forge_free(text);
    cJSON_Delete(calls);
    cJSON_Delete(thinking);
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

/* Appends the text of <c> (a string, or an array of text blocks) to <b>. */
static int text_of(const cJSON *c, const char *path, struct forge_buf *b, struct forge_err *err)
{
    if (cJSON_IsString(c))
        return forge_buf_adds(b, c->valuestring) ? forge_err_set(err, FORGE_ENOMEM, "out of memory") : 0;
    if (!cJSON_IsArray(c))
        return forge_err_set(err, FORGE_EINVAL, "%s: must be a string or an array of text blocks", path);
    const cJSON *bl;
    int i = 0;
    cJSON_ArrayForEach(bl, c) {
        const char *type = forge_json_str(bl, "type"), *t = forge_json_str(bl, "text");
        if (!type || strcmp(type, "text") || !t)
            return forge_err_set(err, FORGE_EINVAL, "%s[%d]: only text blocks are supported here (type '%s')", path, i,
                                 type ? type : "?");
        if (forge_buf_adds(b, t))
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        i++;
    }
    return 0;
}

/* The name of call <id> in the history so far, or NULL. */
static const char *call_name(const cJSON *msgs, const char *id)
{
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, msgs)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
            const char *cid = forge_json_str(c, "id");
            if (cid && !strcmp(cid, id))
                return forge_json_str(c, "name");
        }
    return NULL;
}

static int accept_user(const cJSON *content, const char *path, cJSON *msgs, struct forge_err *err)
{
    int rc = 0;
    struct forge_buf text, res;
    forge_buf_init(&text, 0);
    forge_buf_init(&res, 0);
    int has_text = 0, i = 0;
    char p[96];
    const cJSON *bl;
    if (cJSON_IsString(content)) {
        has_text = 1;
        NOMEM(!forge_buf_adds(&text, content->valuestring));
    } else if (!cJSON_IsArray(content)) {
        BAD("%s.content: must be a string or an array of content blocks", path);
    }
    const cJSON *blocks = cJSON_IsArray(content) ? content : NULL;
    cJSON_ArrayForEach(bl, blocks) {
        const char *type = forge_json_str(bl, "type");
        snprintf(p, sizeof p, "%s.content[%d]", path, i++);
        if (type && !strcmp(type, "text") && forge_json_str(bl, "text")) {
            has_text = 1;
            NOMEM(!forge_buf_adds(&text, forge_json_str(bl, "text")));
        } else if (type && !strcmp(type, "tool_result")) {
            /* results come first in a user turn; text beside them follows them */
            const char *id = forge_json_str(bl, "tool_use_id"), *name;
            if (!id)
                BAD("%s.tool_use_id: must be a string", p);
            const cJSON *rc_ = cJSON_GetObjectItemCaseSensitive(bl, "content"), *ie = cJSON_GetObjectItemCaseSensitive(bl, "is_error");
            forge_buf_reset(&res);
            if (rc_ && !cJSON_IsNull(rc_)) {
                char cp[112];
                snprintf(cp, sizeof cp, "%s.content", p);
                if ((rc = text_of(rc_, cp, &res, err)))
                    goto out;
            }
            if (ie && !cJSON_IsBool(ie))
                BAD("%s.is_error: must be true or false", p);
            cJSON *m = cJSON_CreateObject();
            NOMEM(m);
            cJSON_AddItemToArray(msgs, m);
            NOMEM(cJSON_AddStringToObject(m, "role", "tool") && cJSON_AddStringToObject(m, "tool_call_id", id));
            if ((name = call_name(msgs, id)))
                NOMEM(cJSON_AddStringToObject(m, "name", name));
            NOMEM(cJSON_AddStringToObject(m, "content", res.data ? res.data : "") &&
                  cJSON_AddBoolToObject(m, "is_error", cJSON_IsTrue(ie)));
        } else {
            BAD("%s: only text and tool_result blocks are supported in user turns (type '%s')", p, type ? type : "?");
        }
    }
    if (has_text) {
        cJSON *m = cJSON_CreateObject();
        NOMEM(m);
        cJSON_AddItemToArray(msgs, m);
        NOMEM(cJSON_AddStringToObject(m, "role", "user") && cJSON_AddStringToObject(m, "content", text.data ? text.data : ""));
    }
out:
    forge_buf_free(&text);
    forge_buf_free(&res);
    return rc;
}

static int accept_assistant(const cJSON *content, const char *path, cJSON *msgs, struct forge_err *err)
{
    int rc = 0, i = 0, has_text = 0;
    struct forge_buf text;
    forge_buf_init(&text, 0);
    cJSON *m = cJSON_CreateObject(), *calls = NULL, *thinking = NULL;
    NOMEM(m);
    cJSON_AddItemToArray(msgs, m);
    /* content first (null until text is seen), as the normalized shape orders its keys */
    NOMEM(cJSON_AddStringToObject(m, "role", "assistant") && cJSON_AddNullToObject(m, "content"));
    char p[96];
    const cJSON *bl;
    if (cJSON_IsString(content)) {
        has_text = 1;
        NOMEM(!forge_buf_adds(&text, content->valuestring));
    } else if (!cJSON_IsArray(content)) {
        BAD("%s.content: must be a string or an array of content blocks", path);
    }
    const cJSON *blocks = cJSON_IsArray(content) ? content : NULL;
    cJSON_ArrayForEach(bl, blocks) {
        const char *type = forge_json_str(bl, "type");
        snprintf(p, sizeof p, "%s.content[%d]", path, i++);
        if (type && !strcmp(type, "text") && forge_json_str(bl, "text")) {
            has_text = 1;
            NOMEM(!forge_buf_adds(&text, forge_json_str(bl, "text")));
        } else if (type && !strcmp(type, "tool_use")) {
            const char *id = forge_json_str(bl, "id"), *name = forge_json_str(bl, "name");
            const cJSON *input = cJSON_GetObjectItemCaseSensitive(bl, "input");
            if (!id || !*id)
                BAD("%s.id: must be a non-empty string", p);
            if (!name)
                BAD("%s.name: must be a string", p);
            if (!cJSON_IsObject(input))
                BAD("%s.input: must be an object", p);
            if (!calls)
                NOMEM(calls = cJSON_AddArrayToObject(m, "tool_calls"));
            cJSON *call = forge_wire_call_new(id, name);
            NOMEM(call);
            cJSON_AddItemToArray(calls, call);
            NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(input, 1)));
        } else if (type && (!strcmp(type, "thinking") || !strcmp(type, "redacted_thinking"))) {
            if (!thinking) {
                cJSON *pd, *a;
                NOMEM((pd = cJSON_AddObjectToObject(m, "provider_data")) && (a = cJSON_AddObjectToObject(pd, "anthropic")) &&
                      (thinking = cJSON_AddArrayToObject(a, "thinking")));
            }
            cJSON *d = cJSON_Duplicate(bl, 1);
            NOMEM(d);
            cJSON_AddItemToArray(thinking, d);
        } else {
            BAD("%s: only text, tool_use and thinking blocks are supported in assistant turns (type '%s')", p,
                type ? type : "?");
        }
    }
    if (has_text) {
        cJSON *c = cJSON_CreateString(text.data ? text.data : "");
        NOMEM(c);
        cJSON_ReplaceItemInObjectCaseSensitive(m, "content", c);
    }
out:
    forge_buf_free(&text);
    return rc;
}

static int accept_tools(const cJSON *wt, cJSON *req, struct forge_err *err)
{
    int rc = 0, i = 0;
    const cJSON *t;
    if (!cJSON_IsArray(wt))
        return forge_err_set(err, FORGE_EINVAL, "tools: must be an array");
    cJSON *tools = cJSON_AddArrayToObject(req, "tools");
    NOMEM(tools);
    cJSON_ArrayForEach(t, wt) {
        const char *type = forge_json_str(t, "type"), *name = forge_json_str(t, "name"), *d = forge_json_str(t, "description");
        if (type && strcmp(type, "custom"))
            BAD("tools[%d]: only client tools (name, description, input_schema) are supported (type '%s')", i, type);
        if (!name)
            BAD("tools[%d].name: must be a string", i);
        const cJSON *sch = cJSON_GetObjectItemCaseSensitive(t, "input_schema");
        if (!cJSON_IsObject(sch))
            BAD("tools[%d].input_schema: must be a JSON Schema object", i);
        cJSON *nt = cJSON_CreateObject();
        NOMEM(nt);
        cJSON_AddItemToArray(tools, nt);
        NOMEM(cJSON_AddStringToObject(nt, "name", name));
        if (d)
            NOMEM(cJSON_AddStringToObject(nt, "description", d));
        NOMEM(forge_wire_put(nt, "parameters", cJSON_Duplicate(sch, 1)));
        i++;
    }
out:
    return rc;
}

static int accept_choice(const cJSON *ch, cJSON *req, struct forge_err *err)
{
    int rc = 0;
    const char *type = forge_json_str(ch, "type");
    const cJSON *dp = cJSON_GetObjectItemCaseSensitive(ch, "disable_parallel_tool_use");
    if (!type || (strcmp(type, "auto") && strcmp(type, "any") && strcmp(type, "tool") && strcmp(type, "none")))
        BAD("tool_choice.type: must be auto, any, tool or none");
    if (!strcmp(type, "tool")) {
        const char *name = forge_json_str(ch, "name");
        if (!name)
            BAD("tool_choice.name: required with type 'tool'");
        cJSON *c = cJSON_AddObjectToObject(req, "tool_choice");
        NOMEM(c && cJSON_AddStringToObject(c, "name", name));
    } else {
        NOMEM(cJSON_AddStringToObject(req, "tool_choice", !strcmp(type, "any") ? "required" : type));
    }
    if (cJSON_IsTrue(dp))
        NOMEM(cJSON_AddFalseToObject(req, "parallel_tool_calls"));
out:
    return rc;
}

static int accept(const cJSON *body, cJSON **out, int *stream, struct forge_err *err)
{
    static const char *const mapped[] = {"model", "messages", "system", "tools", "tool_choice", "stream", NULL};
    int rc = 0;
    struct forge_buf sys;
    forge_buf_init(&sys, 0);
    cJSON *req = cJSON_CreateObject(), *msgs;
    NOMEM(req);
    const cJSON *wm = cJSON_GetObjectItemCaseSensitive(body, "messages"), *m;
    if (!cJSON_IsArray(wm))
        BAD("messages: must be an array");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(body, "max_tokens");
    if (!mt)
        BAD("max_tokens: required");
    if (!cJSON_IsNumber(mt) || mt->valuedouble < 1)
        BAD("max_tokens: must be a positive integer");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(body, "stream");
    if (st && !cJSON_IsBool(st))
        BAD("stream: must be true or false");
    *stream = cJSON_IsTrue(st);
    NOMEM(msgs = cJSON_AddArrayToObject(req, "messages"));
    int i = 0;
    cJSON_ArrayForEach(m, wm) {
        char path[32];
        snprintf(path, sizeof path, "messages[%d]", i++);
        const char *role = forge_json_str(m, "role");
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
            BAD("%s.role: must be user or assistant", path);
        if ((rc = !strcmp(role, "user") ? accept_user(content, path, msgs, err)
                                        : accept_assistant(content, path, msgs, err)))
            goto out;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, "system");
    if (v && (rc = text_of(v, "system", &sys, err)))
        goto out;
    if (v)
        NOMEM(cJSON_AddStringToObject(req, "system", sys.data ? sys.data : ""));
    if ((v = cJSON_GetObjectItemCaseSensitive(body, "tools")) && (rc = accept_tools(v, req, err)))
        goto out;
    if ((v = cJSON_GetObjectItemCaseSensitive(body, "tool_choice")) && (rc = accept_choice(v, req, err)))
        goto out;
    cJSON *params = cJSON_CreateObject();
    NOMEM(forge_wire_put(req, "params", params));
    NOMEM(!forge_wire_copy_params(params, body, mapped));
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

static const char *stop_reason(const cJSON *resp)
{
    const char *f = forge_json_str(resp, "finish_reason");
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(resp, "message"), "tool_calls");
    if (f && !strcmp(f, "length"))
        return "max_tokens";
    if (f && !strcmp(f, "content_filter"))
        return "refusal";
    return cJSON_GetArraySize(calls) > 0 ? "tool_use" : "end_turn";
}

/* The content blocks of <resp>'s message: thinking, text, tool_use. */
static cJSON *content_blocks(const cJSON *resp)
{
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message"), *c;
    cJSON *arr = cJSON_CreateArray(), *b;
    if (!arr)
        return NULL;
    const cJSON *th = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "provider_data"), "anthropic"), "thinking");
    cJSON_ArrayForEach(c, th)
        if (!cJSON_AddItemToArray(arr, cJSON_Duplicate(c, 1)))
            goto fail;
    const char *text = forge_json_str(msg, "content");
    if (text && *text && (!(b = block(arr, "text")) || !cJSON_AddStringToObject(b, "text", text)))
        goto fail;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arguments");
        if (!(b = block(arr, "tool_use")) || !cJSON_AddStringToObject(b, "id", forge_json_str(c, "id")) ||
            !cJSON_AddStringToObject(b, "name", forge_json_str(c, "name")) ||
            !forge_wire_put(b, "input", a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject()))
            goto fail;
    }
    return arr;
fail:
    cJSON_Delete(arr);
    return NULL;
}

/* The message object, with <content> (taken) and the stop reason, or null reasons for the
 * stream's message_start. */
static cJSON *message(const cJSON *resp, const struct forge_answer_info *info, cJSON *content, int start)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "usage");
    cJSON *o = cJSON_CreateObject(), *w;
    if (!o || !cJSON_AddStringToObject(o, "id", info->id) || !cJSON_AddStringToObject(o, "type", "message") ||
        !cJSON_AddStringToObject(o, "role", "assistant") || !cJSON_AddStringToObject(o, "model", info->model) ||
        !forge_wire_put(o, "content", content) ||
        !(start ? cJSON_AddNullToObject(o, "stop_reason") : cJSON_AddStringToObject(o, "stop_reason", stop_reason(resp))) ||
        !cJSON_AddNullToObject(o, "stop_sequence") || !(w = cJSON_AddObjectToObject(o, "usage")) ||
        !cJSON_AddNumberToObject(w, "input_tokens", forge_json_num(u, "input_tokens", 0)) ||
        !cJSON_AddNumberToObject(w, "output_tokens", start ? 1 : forge_json_num(u, "output_tokens", 0))) {
        if (!o)
            cJSON_Delete(content);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int answer(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, cJSON **out,
                  struct forge_err *err)
{
    (void)req;
    *out = message(resp, info, content_blocks(resp), 0);
    return *out ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory writing the answer");
}

/* Appends "event: <type>\ndata: <o>\n\n" and frees <o>. */
static int event(struct forge_buf *b, cJSON *o)
{
    int rc = o ? forge_wire_sse(b, forge_json_str(o, "type"), o) : FORGE_ENOMEM;
    cJSON_Delete(o);
    return rc;
}

/* {"type": <type>, "index": i, <key>: <v> (taken)}; v NULL: no third member. */
static cJSON *ev(const char *type, int index, const char *key, cJSON *v)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "type", type) || (index >= 0 && !cJSON_AddNumberToObject(o, "index", index)) ||
        (key && !forge_wire_put(o, key, v))) {
        if (!o)
            cJSON_Delete(v);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *delta(const char *type, const char *key, const char *s, size_t n)
{
    cJSON *d = cJSON_CreateObject();
    char *t = forge_strndup(s, n);
    if (!d || !t || !cJSON_AddStringToObject(d, "type", type) || !cJSON_AddStringToObject(d, key, t)) {
        cJSON_Delete(d);
        d = NULL;
    }
    forge_free(t);
    return d;
}

/* content_block_delta events carrying <s> in pieces under delta <type>.<key>. */
static int pieces(struct forge_buf *b, int index, const char *type, const char *key, const char *s)
{
    for (size_t at = 0, n = strlen(s), k; at < n; at += k) {
        k = forge_wire_piece(s + at, n - at, FORGE_WIRE_PIECE);
        if (event(b, ev("content_block_delta", index, "delta", delta(type, key, s + at, k))))
            return FORGE_ENOMEM;
    }
    return 0;
}

static int stream(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, struct forge_buf *b,
                  struct forge_err *err)
{
    (void)req;
    int rc = 0;
    char *args = NULL;
    cJSON *blocks = content_blocks(resp), *bl;
    NOMEM(blocks);
    NOMEM(!event(b, ev("message_start", -1, "message", message(resp, info, cJSON_CreateArray(), 1))));
    NOMEM(!event(b, ev("ping", -1, NULL, NULL)));
    int i = 0;
    cJSON_ArrayForEach(bl, blocks) {
        const char *type = forge_json_str(bl, "type");
        cJSON *start = cJSON_Duplicate(bl, 1);
        NOMEM(start);
        /* a block starts empty and its contents follow as deltas, as the API streams them */
        if (!strcmp(type, "text")) {
            cJSON_ReplaceItemInObjectCaseSensitive(start, "text", cJSON_CreateString(""));
        } else if (!strcmp(type, "tool_use")) {
            cJSON_ReplaceItemInObjectCaseSensitive(start, "input", cJSON_CreateObject());
        } else if (!strcmp(type, "thinking")) {
            cJSON_ReplaceItemInObjectCaseSensitive(start, "thinking", cJSON_CreateString(""));
            cJSON_DeleteItemFromObjectCaseSensitive(start, "signature");
        }
        NOMEM(!event(b, ev("content_block_start", i, "content_block", start)));
        if (!strcmp(type, "text")) {
            NOMEM(!pieces(b, i, "text_delta", "text", forge_json_str(bl, "text")));
        } else if (!strcmp(type, "tool_use")) {
            NOMEM(args = forge_wire_args_text(cJSON_GetObjectItemCaseSensitive(bl, "input")));
            NOMEM(!pieces(b, i, "input_json_delta", "partial_json", args));
            FORGE_FREE(args);
        } else if (!strcmp(type, "thinking")) {
            const char *t = forge_json_str(bl, "thinking"), *sig = forge_json_str(bl, "signature");
            NOMEM(!pieces(b, i, "thinking_delta", "thinking", t ? t : ""));
            if (sig)
                NOMEM(!event(b, ev("content_block_delta", i, "delta", delta("signature_delta", "signature", sig, strlen(sig)))));
        }
        NOMEM(!event(b, ev("content_block_stop", i, NULL, NULL)));
        i++;
    }
    cJSON *d = cJSON_CreateObject(), *u = cJSON_CreateObject();
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(resp, "usage");
    int ok = d && u && cJSON_AddStringToObject(d, "stop_reason", stop_reason(resp)) && cJSON_AddNullToObject(d, "stop_sequence") &&
             cJSON_AddNumberToObject(u, "output_tokens", forge_json_num(usage, "output_tokens", 0));
    cJSON *md = ok ? ev("message_delta", -1, "delta", d) : NULL;
    if (!ok)
        cJSON_Delete(d);
    NOMEM(md && forge_wire_put(md, "usage", u));
    u = NULL;
    NOMEM(!event(b, md));
    NOMEM(!event(b, ev("message_stop", -1, NULL, NULL)));
out:
    forge_free(args);
    cJSON_Delete(blocks);
    return rc;
}

static cJSON *error_body(int status, const char *message)
{
    const char *type = status == 401 ? "authentication_error" : status == 403 ? "permission_error"
                     : status == 404 ? "not_found_error" : status == 413 ? "request_too_large"
                     : status == 429 ? "rate_limit_error" : status == 503 || status == 529 ? "overloaded_error"
                     : status >= 500 ? "api_error" : "invalid_request_error";
    cJSON *o = cJSON_CreateObject(), *e;
    if (!o || !cJSON_AddStringToObject(o, "type", "error") || !(e = cJSON_AddObjectToObject(o, "error")) ||
        !cJSON_AddStringToObject(e, "type", type) || !cJSON_AddStringToObject(e, "message", message)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- streamed answers (client side) ---- */

static int stream_complete(const char *text, size_t len)
{
    struct forge_sse it;
    int end = forge_sse_last(&it, text, len) == 1 && (!strcmp(it.event, "message_stop") || !strcmp(it.event, "error"));
    forge_sse_free(&it);
    return end;
}

/* A hot event: a content_block_delta with a piece of text (text_delta) or of a tool's input
 * (input_json_delta). */
struct hot_delta {
    struct forge_jstr piece;
    long index;
    int json;     /* input_json_delta */
    char key[24]; /* the index as a key of the open tool_use blocks, for input_json_delta */
};

/* Reads an event in place when it is a hot delta (<named>: its SSE event name is
 * content_block_delta; else its "type" must say so): 0 with its fields, 1 when it is anything
 * else (the caller reads it with cJSON). */
static int hot(const char *data, size_t len, int named, struct hot_delta *h)
{
    struct forge_jscan j;
    struct forge_jstr k, type = {0}, dt = {0}, text = {0}, pj = {0};
    int r, n_type = 0, n_index = 0, n_delta = 0, n_dt = 0, n_text = 0, n_pj = 0;
    forge_jscan_init(&j, data, len);
    if (forge_jscan_open(&j, '{'))
        return 1;
    while ((r = forge_jscan_key(&j, &k)) == 1) {
        if (!named && forge_jstr_is(&k, "type")) {
            if (n_type++ || forge_jscan_string(&j, &type))
                return 1;
        } else if (forge_jstr_is(&k, "index")) {
            if (n_index++ || forge_jscan_int(&j, &h->index))
                return 1;
        } else if (forge_jstr_is(&k, "delta")) {
            if (n_delta++ || forge_jscan_open(&j, '{'))
                return 1;
            while ((r = forge_jscan_key(&j, &k)) == 1) {
                if (forge_jstr_is(&k, "type")) {
                    if (n_dt++ || forge_jscan_string(&j, &dt))
                        return 1;
                } else if (forge_jstr_is(&k, "text")) {
                    if (n_text++ || forge_jscan_string(&j, &text))
                        return 1;
                } else if (forge_jstr_is(&k, "partial_json")) {
                    if (n_pj++ || forge_jscan_string(&j, &pj))
                        return 1;
                } else if (forge_jscan_skip(&j)) {
                    return 1;
                }
            }
            if (r)
                return 1;
        } else if (forge_jscan_skip(&j)) {
            return 1;
        }
    }
    if (r || forge_jscan_end(&j) || !n_index || !n_dt || (!named && !(n_type && forge_jstr_is(&type, "content_block_delta"))))
        return 1;
    if (forge_jstr_is(&dt, "text_delta") && n_text) {
        h->piece = text;
        h->json = 0;
    } else if (forge_jstr_is(&dt, "input_json_delta") && n_pj) {
        h->piece = pj;
        h->json = 1;
        snprintf(h->key, sizeof h->key, "%ld", h->index);
    } else {
        return 1;
    }
    return 0;
}

static int assemble(const char *text, size_t len, cJSON **body, struct forge_stream_marks *marks, struct forge_err *err)
{
    int rc = 0, stopped = 0;
    struct forge_sse it;
    forge_sse_init(&it, text, len);
    marks->first_token = marks->first_call = SIZE_MAX;
    cJSON *ev = NULL, *msg = NULL, *content = NULL, *json = cJSON_CreateObject(); /* tool_use blocks open */
    struct forge_wire_acc acc = {0};
    NOMEM(json);
    int fast = forge_wire_fast();
    struct forge_wire_tmpl tm = {0};
    struct hot_delta th = {0};
    struct forge_jstr rv;
    for (int r = 0, raw; (raw = fast && msg && forge_sse_tmpl_next(&it, &tm, &rv)) || (r = forge_sse_next(&it)) != 0;) {
        NOMEM(raw || r == 1);
        int named = !strcmp(it.event, "content_block_delta");
        if (raw || (fast && msg && it.data && it.data != it.buf.data && (named || !it.event[0]))) {
            struct hot_delta h;
            int is_hot = 0;
            if (raw) {
                h = th;
                h.piece = rv;
                is_hot = 1;
            } else if (!hot(it.data, it.len, named, &h)) {
                forge_sse_tmpl_set(&it, &tm, &h.piece);
                th = h;
                is_hot = 1;
            }
            cJSON *blk = is_hot && h.index <= INT_MAX ? cJSON_GetArrayItem(content, (int)h.index) : NULL;
            if (blk && (!h.json || cJSON_GetObjectItemCaseSensitive(json, h.key))) {
                struct forge_buf *ab = forge_wire_acc_buf(&acc, h.json ? json : blk, h.json ? h.key : "text");
                NOMEM(ab && !forge_jstr_append(&h.piece, ab));
                if (!h.json && marks->first_token == SIZE_MAX)
                    marks->first_token = it.offset;
                continue;
            }
        }
        struct forge_err pe;
        cJSON_Delete(ev);
        if (!(ev = forge_json_parse(it.data ? it.data : "", it.len, "event", &pe))) {
            rc = forge_err_set(err, FORGE_ENET, "anthropic: the stream event at byte %zu is not JSON (%s)", it.offset, pe.msg);
            goto out;
        }
        const char *type = it.event[0] ? it.event : forge_json_str(ev, "type");
        if (!type || !strcmp(type, "ping"))
            continue;
        if (!strcmp(type, "error")) {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "error");
            rc = forge_err_set(err, FORGE_ENET, "anthropic: the stream failed: %s: %s",
                               forge_json_str(e, "type") ? forge_json_str(e, "type") : "error",
                               forge_json_str(e, "message") ? forge_json_str(e, "message") : "(no message)");
            goto out;
        }
        if (!strcmp(type, "message_start")) {
            /* one message per stream: a second would orphan the pieces gathered for the first */
            if (msg) {
                rc = forge_err_set(err, FORGE_ENET, "anthropic: a second message_start at byte %zu", it.offset);
                goto out;
            }
            NOMEM(msg = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ev, "message"), 1));
            if (!cJSON_IsObject(msg)) {
                rc = forge_err_set(err, FORGE_ENET, "anthropic: message_start has no message");
                goto out;
            }
            NOMEM(content = cJSON_CreateArray());
            NOMEM(forge_wire_put(msg, "content", content));
            continue;
        }
        if (!msg) {
            rc = forge_err_set(err, FORGE_ENET, "anthropic: the stream's %s event came before message_start", type);
            goto out;
        }
        int index = forge_wire_index(forge_json_num(ev, "index", -1));
        char ikey[16];
        snprintf(ikey, sizeof ikey, "%d", index);
        cJSON *block = index >= 0 ? cJSON_GetArrayItem(content, index) : NULL;
        if (!strcmp(type, "content_block_start")) {
            const cJSON *cb = cJSON_GetObjectItemCaseSensitive(ev, "content_block");
            if (index != cJSON_GetArraySize(content) || !cJSON_IsObject(cb)) {
                rc = forge_err_set(err, FORGE_ENET, "anthropic: content_block_start for block %d out of order", index);
                goto out;
            }
            NOMEM(cJSON_AddItemToArray(content, cJSON_Duplicate(cb, 1)));
            const char *bt = forge_json_str(cb, "type");
            if (bt && !strcmp(bt, "tool_use")) {
                NOMEM(cJSON_AddStringToObject(json, ikey, ""));
                if (marks->first_call == SIZE_MAX)
                    marks->first_call = it.offset;
            }
        } else if (!strcmp(type, "content_block_delta")) {
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "delta");
            const char *dt = forge_json_str(d, "type");
            if (!block || !dt) {
                rc = forge_err_set(err, FORGE_ENET, "anthropic: a delta for block %d, which has not started", index);
                goto out;
            }
            if (!strcmp(dt, "text_delta")) {
                NOMEM(!forge_wire_acc_add(&acc, block, "text", forge_json_str(d, "text")));
                if (marks->first_token == SIZE_MAX)
                    marks->first_token = it.offset;
            } else if (!strcmp(dt, "input_json_delta")) {
                if (!cJSON_GetObjectItemCaseSensitive(json, ikey)) {
                    rc = forge_err_set(err, FORGE_ENET, "anthropic: input_json_delta for block %d, which is not tool_use", index);
                    goto out;
                }
                NOMEM(!forge_wire_acc_add(&acc, json, ikey, forge_json_str(d, "partial_json")));
            } else if (!strcmp(dt, "thinking_delta")) {
                NOMEM(!forge_wire_acc_add(&acc, block, "thinking", forge_json_str(d, "thinking")));
            } else if (!strcmp(dt, "signature_delta")) {
                NOMEM(!forge_wire_acc_add(&acc, block, "signature", forge_json_str(d, "signature")));
            }
        } else if (!strcmp(type, "content_block_stop")) {
            const char *in = forge_json_str(json, ikey) ? forge_wire_acc_get(&acc, json, ikey) : NULL;
            if (block && forge_json_str(json, ikey)) {
                in = in ? in : "";
                /* the pieces of a tool's input must add up to one JSON object */
                struct forge_err je;
                cJSON *v = *in ? forge_json_parse(in, strlen(in), "input", &je) : cJSON_CreateObject();
                if (!cJSON_IsObject(v)) {
                    cJSON_Delete(v);
                    rc = forge_err_set(err, FORGE_ENET, "anthropic: the streamed input of tool_use block %d is not a JSON "
                                       "object: %.200s", index, in);
                    goto out;
                }
                NOMEM(forge_wire_put(block, "input", v));
                cJSON_DeleteItemFromObjectCaseSensitive(json, ikey);
            }
        } else if (!strcmp(type, "message_delta")) {
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "delta"), *u = cJSON_GetObjectItemCaseSensitive(ev, "usage"), *x;
            /* the blocks streamed so far are the content: a "content" here must not replace them */
            cJSON_ArrayForEach(x, d)
                if (!x->string || strcmp(x->string, "content"))
                    NOMEM(forge_wire_put(msg, x->string, cJSON_Duplicate(x, 1)));
            cJSON *mu = cJSON_GetObjectItemCaseSensitive(msg, "usage");
            if (!mu)
                NOMEM(mu = cJSON_AddObjectToObject(msg, "usage"));
            cJSON_ArrayForEach(x, u)
                if (!cJSON_IsNull(x))
                    NOMEM(forge_wire_put(mu, x->string, cJSON_Duplicate(x, 1)));
        } else if (!strcmp(type, "message_stop")) {
            stopped = 1;
            break;
        }
    }
    if (!stopped)
        rc = forge_err_set(err, FORGE_ENET, "anthropic: the stream ended without message_stop");
    else if (json->child)
        rc = forge_err_set(err, FORGE_ENET, "anthropic: tool_use block %s never stopped", json->child->string);
    else
        NOMEM(!forge_wire_acc_flush(&acc));
out:
    forge_sse_free(&it);
    forge_wire_acc_free(&acc);
    cJSON_Delete(ev);
    cJSON_Delete(json);
    if (rc) {
        cJSON_Delete(msg);
        msg = NULL;
    }
    *body = msg;
    return rc;
}

const struct forge_dialect forge_dialect_anthropic = {
    .name = "anthropic", .build = build, .parse = parse, .error_message = forge_wire_error_text,
    .accept = accept, .answer = answer, .stream = stream, .error_body = error_body,
    .stream_type = "text/event-stream", .stream_complete = stream_complete, .assemble = assemble,
};
