/* Anthropic messages (POST {base}/v1/messages): content blocks, tool_use / tool_result with
 * is_error, tool_choice auto/any/tool/none, disable_parallel_tool_use. Thinking blocks travel in
 * provider_data and are sent back first in the assistant turn, as the API requires. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/json.h"

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

const struct forge_dialect forge_dialect_anthropic = {
    .name = "anthropic", .build = build, .parse = parse, .error_message = forge_wire_error_text,
};
