/* OpenAI responses (POST {base}/responses): "instructions", input items, function_call and
 * function_call_output items. Reasoning items the model returns travel in provider_data and are
 * sent back before the calls they preceded. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/json.h"

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

const struct forge_dialect forge_dialect_openai_responses = {
    .name = "openai-responses", .build = build, .parse = parse, .error_message = forge_wire_error_text,
};
