/* Ollama's native chat API (POST {host}/api/chat, stream off): arguments as JSON objects,
 * tool results carry tool_name. The API has no tool_choice: "none" sends no tools, a named
 * tool sends only that tool, "required" cannot be expressed. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/json.h"

#include <string.h>

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

const struct forge_dialect forge_dialect_ollama = {
    .name = "ollama", .build = build, .parse = parse, .error_message = forge_wire_error_text,
};
