/* OpenAI chat completions (POST {base}/chat/completions), also spoken by vLLM, llama.cpp
 * server, LM Studio, OpenRouter, Groq and other compatible servers. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/json.h"

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

const struct forge_dialect forge_dialect_openai = {
    .name = "openai", .build = build, .parse = parse, .error_message = forge_wire_error_text,
};
