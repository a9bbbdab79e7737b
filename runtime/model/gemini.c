/* Gemini generateContent (POST {base}/v1beta/models/<model>:generateContent): contents with
 * user/model roles, functionDeclarations, functionCallingConfig with allowedFunctionNames,
 * functionResponse parts. The model's own parts (with their thought signatures) travel in
 * provider_data and are sent back verbatim. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/jscan.h"
#include "data/json.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRY(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory building the request"); goto out; } } while (0)

static cJSON *part(cJSON *parts)
{
    cJSON *p = cJSON_CreateObject();
    if (p)
        cJSON_AddItemToArray(parts, p);
    return p;
}

/* The functionCall part of <echo> that carries the <index>th call, or NULL. */
static const cJSON *echoed_call(const cJSON *echo, int index)
{
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, echo) {
        const cJSON *fc = cJSON_GetObjectItemCaseSensitive(p, "functionCall");
        if (fc && i++ == index)
            return fc;
    }
    return NULL;
}

static int build(const cJSON *req, const char *model, cJSON **body, struct forge_err *err)
{
    int rc = 0;
    cJSON *b = cJSON_CreateObject(), *contents;
    (void)model; /* the model is in the URL */
    TRY(b);
    const char *sys = forge_json_str(req, "system");
    if (sys) {
        cJSON *si, *parts, *p;
        TRY(si = cJSON_AddObjectToObject(b, "systemInstruction"));
        TRY(parts = cJSON_AddArrayToObject(si, "parts"));
        TRY(p = part(parts));
        TRY(cJSON_AddStringToObject(p, "text", sys));
    }
    TRY(contents = cJSON_AddArrayToObject(b, "contents"));
    const cJSON *nm;
    cJSON_ArrayForEach(nm, cJSON_GetObjectItemCaseSensitive(req, "messages")) {
        const char *role = forge_json_str(nm, "role");
        const char *content = forge_json_str(nm, "content");
        cJSON *parts, *p;
        if (strcmp(role, "tool") == 0)
            continue;
        if (strcmp(role, "user") == 0) {
            TRY(parts = forge_wire_turn(contents, "user", "parts"));
            TRY(p = part(parts));
            TRY(cJSON_AddStringToObject(p, "text", content));
            continue;
        }
        const cJSON *calls = cJSON_GetObjectItemCaseSensitive(nm, "tool_calls"), *call;
        const cJSON *echo = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(nm, "provider_data"), "gemini"), "parts");
        if (cJSON_IsArray(echo) && cJSON_GetArraySize(echo) > 0) {
            TRY(parts = forge_wire_turn(contents, "model", "parts"));
            const cJSON *e;
            cJSON_ArrayForEach(e, echo) {
                cJSON *d = cJSON_Duplicate(e, 1);
                TRY(d);
                cJSON_AddItemToArray(parts, d);
            }
        } else {
            if (!(content && *content) && cJSON_GetArraySize(calls) == 0)
                continue;
            TRY(parts = forge_wire_turn(contents, "model", "parts"));
            if (content && *content) {
                TRY(p = part(parts));
                TRY(cJSON_AddStringToObject(p, "text", content));
            }
            cJSON_ArrayForEach(call, calls) {
                cJSON *fc;
                TRY(p = part(parts));
                TRY(fc = cJSON_AddObjectToObject(p, "functionCall"));
                TRY(cJSON_AddStringToObject(fc, "id", forge_json_str(call, "id")));
                TRY(cJSON_AddStringToObject(fc, "name", forge_json_str(call, "name")));
                TRY(forge_wire_put(fc, "args", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(call, "arguments"), 1)));
            }
        }
        if (cJSON_GetArraySize(calls) == 0)
            continue;
        TRY(parts = forge_wire_turn(contents, "user", "parts"));
        int i = 0;
        cJSON_ArrayForEach(call, calls) {
            const cJSON *r = forge_wire_result(req, forge_json_str(call, "id"));
            cJSON *fr, *resp, *v;
            TRY(p = part(parts));
            TRY(fr = cJSON_AddObjectToObject(p, "functionResponse"));
            /* An id goes back only when the call carried one (forge names id-less calls). */
            const cJSON *orig = echoed_call(echo, i++);
            if (!cJSON_IsArray(echo) || cJSON_GetArraySize(echo) == 0 || forge_json_str(orig, "id"))
                TRY(cJSON_AddStringToObject(fr, "id", forge_json_str(call, "id")));
            TRY(cJSON_AddStringToObject(fr, "name", forge_json_str(call, "name")));
            TRY(resp = cJSON_AddObjectToObject(fr, "response"));
            v = forge_wire_result_value(forge_json_str(r, "content"));
            TRY(forge_wire_put(resp, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "is_error")) ? "error" : "output", v));
        }
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(req, "tools"), *t;
    if (cJSON_GetArraySize(tools) > 0) {
        cJSON *wt, *holder, *decls;
        TRY(wt = cJSON_AddArrayToObject(b, "tools"));
        TRY(holder = part(wt));
        TRY(decls = cJSON_AddArrayToObject(holder, "functionDeclarations"));
        cJSON_ArrayForEach(t, tools) {
            cJSON *w = part(decls);
            TRY(w);
            TRY(cJSON_AddStringToObject(w, "name", forge_json_str(t, "name")));
            const char *d = forge_json_str(t, "description");
            if (d)
                TRY(cJSON_AddStringToObject(w, "description", d));
            const cJSON *ps = cJSON_GetObjectItemCaseSensitive(t, "parameters");
            if (ps)
                TRY(forge_wire_put(w, "parametersJsonSchema", cJSON_Duplicate(ps, 1)));
        }
        const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
        if (choice) {
            cJSON *tc, *fcc;
            TRY(tc = cJSON_AddObjectToObject(b, "toolConfig"));
            TRY(fcc = cJSON_AddObjectToObject(tc, "functionCallingConfig"));
            const char *mode = "ANY";
            if (cJSON_IsString(choice))
                mode = strcmp(choice->valuestring, "auto") == 0 ? "AUTO" : strcmp(choice->valuestring, "none") == 0 ? "NONE" : "ANY";
            TRY(cJSON_AddStringToObject(fcc, "mode", mode));
            if (!cJSON_IsString(choice)) {
                cJSON *names, *n;
                TRY(names = cJSON_AddArrayToObject(fcc, "allowedFunctionNames"));
                TRY(n = cJSON_CreateString(forge_json_str(choice, "name")));
                cJSON_AddItemToArray(names, n);
            }
        }
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params"), *pp;
    if (cJSON_GetArraySize(params) > 0) {
        static const struct { const char *from, *to; } names[] = {
            {"max_tokens", "maxOutputTokens"}, {"top_p", "topP"}, {"top_k", "topK"},
            {"stop", "stopSequences"}, {"presence_penalty", "presencePenalty"},
            {"frequency_penalty", "frequencyPenalty"}, {NULL, NULL}};
        cJSON *gc;
        TRY(gc = cJSON_AddObjectToObject(b, "generationConfig"));
        cJSON_ArrayForEach(pp, params) {
            const char *key = pp->string;
            for (int k = 0; names[k].from; k++)
                if (strcmp(key, names[k].from) == 0)
                    key = names[k].to;
            TRY(forge_wire_put(gc, key, cJSON_Duplicate(pp, 1)));
        }
    }
out:
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

#define NOMEM(x) do { if (!(x)) { rc = forge_err_set(err, FORGE_ENOMEM, "out of memory reading the response"); goto out; } } while (0)

static void finish(const char *s, int has_calls, char *out, size_t n)
{
    static const char *const filtered[] = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
                                           "SPII", "IMAGE_SAFETY", NULL};
    if (!s || strcmp(s, "STOP") == 0) {
        snprintf(out, n, "%s", has_calls ? "tool_calls" : "stop");
        return;
    }
    if (strcmp(s, "MAX_TOKENS") == 0) {
        snprintf(out, n, "length");
        return;
    }
    for (int i = 0; filtered[i]; i++)
        if (strcmp(s, filtered[i]) == 0) {
            snprintf(out, n, "content_filter");
            return;
        }
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = '\0';
}

static int parse(const cJSON *req, const cJSON *body, cJSON **resp, struct forge_err *err)
{
    int rc = 0;
    cJSON *calls = NULL, *r = NULL;
    char *text = NULL;
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usageMetadata");
    double in = forge_json_num(usage, "promptTokenCount", 0);
    double outt = forge_json_num(usage, "candidatesTokenCount", 0) + forge_json_num(usage, "thoughtsTokenCount", 0);
    const cJSON *cand = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "candidates"), 0);
    if (!cand) {
        const char *block = forge_json_str(cJSON_GetObjectItemCaseSensitive(body, "promptFeedback"), "blockReason");
        if (!block) {
            rc = forge_err_set(err, FORGE_ENET, "gemini: the response has no candidates");
            goto out;
        }
        NOMEM(r = forge_wire_response_new(NULL, NULL, "content_filter", in, outt));
        goto out;
    }
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cand, "content"), "parts"), *p;
    size_t tlen = 0;
    int have_text = 0, i = 0;
    cJSON_ArrayForEach(p, parts) {
        const char *s = forge_json_str(p, "text");
        const cJSON *fc = cJSON_GetObjectItemCaseSensitive(p, "functionCall");
        if (s && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought"))) {
            size_t n = strlen(s);
            char *nt = forge_realloc(text, tlen + n + 1);
            NOMEM(nt);
            text = nt;
            memcpy(text + tlen, s, n + 1);
            tlen += n;
            have_text = 1;
        } else if (cJSON_IsObject(fc)) {
            const char *name = forge_json_str(fc, "name"), *id = forge_json_str(fc, "id");
            char gen[32];
            if (!name) {
                rc = forge_err_set(err, FORGE_ENET, "gemini: a functionCall part has no name");
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
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(fc, "args");
            if (cJSON_IsObject(args))
                NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(args, 1)));
            i++;
        }
    }
    char fin[48];
    finish(forge_json_str(cand, "finishReason"), i > 0, fin, sizeof fin);
    r = forge_wire_response_new(have_text ? text : NULL, calls, fin, in, outt);
    calls = NULL;
    NOMEM(r);
    int echo = 0;
    cJSON_ArrayForEach(p, parts)
        echo |= cJSON_HasObjectItem(p, "functionCall") || cJSON_HasObjectItem(p, "thoughtSignature") ||
                cJSON_HasObjectItem(p, "thought");
    /* Kept when sending the turn back verbatim matters: signatures, thoughts, calls. */
    if (echo) {
        cJSON *pd = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(r, "message"), "provider_data"), *g;
        NOMEM(pd);
        NOMEM(g = cJSON_AddObjectToObject(pd, "gemini"));
        NOMEM(forge_wire_put(g, "parts", cJSON_Duplicate(parts, 1)));
    }
out:
    forge_free(text);
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

/* <obj>'s member <camel>, or its snake_case spelling (the REST API takes both). */
static const cJSON *member(const cJSON *obj, const char *camel, const char *snake)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, camel);
    return v ? v : cJSON_GetObjectItemCaseSensitive(obj, snake);
}

/* The id of the first call named <name> in <msgs> with no tool message yet, or NULL. */
static const char *unanswered(const cJSON *msgs, const char *name)
{
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, msgs)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
            const char *id = forge_json_str(c, "id"), *n = forge_json_str(c, "name");
            if (id && n && !strcmp(n, name) && !forge_wire_result_in(msgs, id))
                return id;
        }
    return NULL;
}

/* A tool result's text from a functionResponse's response: {"output": v} or {"error": v} as
 * build() writes them (v a string: itself; else its JSON), any other object as its JSON. */
static char *response_text(const cJSON *resp, int *is_error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(resp, "output");
    *is_error = 0;
    if (!v && (v = cJSON_GetObjectItemCaseSensitive(resp, "error")))
        *is_error = 1;
    if (!v || cJSON_GetArraySize(resp) != 1)
        v = resp;
    if (cJSON_IsString(v))
        return forge_strdup(v->valuestring);
    char *t = cJSON_PrintUnformatted(v), *c = t ? forge_strdup(t) : NULL;
    cJSON_free(t);
    return c;
}

static int accept_turn(const cJSON *turn, const char *path, cJSON *req, cJSON *msgs, struct forge_err *err)
{
    int rc = 0, i = 0, has_text = 0, echo = 0;
    char *rt = NULL;
    struct forge_buf text;
    forge_buf_init(&text, 0);
    const char *role = forge_json_str(turn, "role");
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(turn, "parts"), *p;
    int model = role && !strcmp(role, "model");
    if (role && !model && strcmp(role, "user"))
        BAD("%s.role: must be user or model", path);
    if (!cJSON_IsArray(parts))
        BAD("%s.parts: must be an array", path);
    cJSON *m = NULL, *calls = NULL;
    if (model) {
        NOMEM((m = cJSON_CreateObject()) && cJSON_AddItemToArray(msgs, m) && cJSON_AddStringToObject(m, "role", "assistant") &&
              cJSON_AddNullToObject(m, "content"));
    }
    cJSON_ArrayForEach(p, parts) {
        char pp[96];
        snprintf(pp, sizeof pp, "%s.parts[%d]", path, i++);
        const char *t = forge_json_str(p, "text");
        const cJSON *fc = member(p, "functionCall", "function_call"), *fr = member(p, "functionResponse", "function_response");
        echo |= cJSON_HasObjectItem(p, "thoughtSignature") || cJSON_HasObjectItem(p, "thought");
        if (t) {
            if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought"))) {
                has_text = 1;
                NOMEM(!forge_buf_adds(&text, t));
            }
        } else if (fc && model) {
            const char *name = forge_json_str(fc, "name"), *id = forge_json_str(fc, "id");
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(fc, "args");
            char gen[32];
            if (!name)
                BAD("%s.functionCall.name: must be a string", pp);
            if (args && !cJSON_IsObject(args))
                BAD("%s.functionCall.args: must be an object", pp);
            if (!id || !*id) {
                forge_wire_call_id(req, 0, gen, sizeof gen); /* the calls added so far are in req */
                id = gen;
            }
            if (!calls)
                NOMEM(calls = cJSON_AddArrayToObject(m, "tool_calls"));
            cJSON *call = forge_wire_call_new(id, name);
            NOMEM(call);
            cJSON_AddItemToArray(calls, call);
            if (args)
                NOMEM(forge_wire_put(call, "arguments", cJSON_Duplicate(args, 1)));
        } else if (fr && !model) {
            const char *name = forge_json_str(fr, "name"), *id = forge_json_str(fr, "id");
            const cJSON *resp = cJSON_GetObjectItemCaseSensitive(fr, "response");
            if (!name)
                BAD("%s.functionResponse.name: must be a string", pp);
            if (!cJSON_IsObject(resp))
                BAD("%s.functionResponse.response: must be an object", pp);
            if (!id || !*id)
                id = unanswered(msgs, name);
            if (!id)
                BAD("%s.functionResponse: no earlier call of '%s' is left to answer", pp, name);
            int is_error;
            NOMEM(rt = response_text(resp, &is_error));
            cJSON *tm = cJSON_CreateObject();
            NOMEM(tm && cJSON_AddItemToArray(msgs, tm) && cJSON_AddStringToObject(tm, "role", "tool") &&
                  cJSON_AddStringToObject(tm, "tool_call_id", id) && cJSON_AddStringToObject(tm, "name", name) &&
                  cJSON_AddStringToObject(tm, "content", rt) && cJSON_AddBoolToObject(tm, "is_error", is_error));
            FORGE_FREE(rt);
        } else {
            BAD("%s: only text, functionCall (model turns) and functionResponse (user turns) parts are supported", pp);
        }
    }
    if (model) {
        if (has_text)
            NOMEM(cJSON_ReplaceItemInObjectCaseSensitive(m, "content", cJSON_CreateString(text.data ? text.data : "")));
        /* signatures and thoughts must go back verbatim to a real Gemini: kept as build() wants */
        if (echo) {
            cJSON *pd, *g;
            NOMEM((pd = cJSON_AddObjectToObject(m, "provider_data")) && (g = cJSON_AddObjectToObject(pd, "gemini")) &&
                  forge_wire_put(g, "parts", cJSON_Duplicate(parts, 1)));
        }
    } else if (has_text) {
        NOMEM((m = cJSON_CreateObject()) && cJSON_AddItemToArray(msgs, m) && cJSON_AddStringToObject(m, "role", "user") &&
              cJSON_AddStringToObject(m, "content", text.data ? text.data : ""));
    }
out:
    forge_free(rt);
    forge_buf_free(&text);
    return rc;
}

static int accept_tools(const cJSON *wt, cJSON *req, struct forge_err *err)
{
    int rc = 0, i = 0;
    const cJSON *t, *d;
    if (!cJSON_IsArray(wt))
        return forge_err_set(err, FORGE_EINVAL, "tools: must be an array");
    cJSON *tools = NULL;
    cJSON_ArrayForEach(t, wt) {
        const cJSON *decls = member(t, "functionDeclarations", "function_declarations");
        if (!cJSON_IsArray(decls))
            BAD("tools[%d]: only functionDeclarations are supported", i);
        int j = 0;
        cJSON_ArrayForEach(d, decls) {
            const char *name = forge_json_str(d, "name"), *desc = forge_json_str(d, "description");
            const cJSON *ps = member(d, "parametersJsonSchema", "parameters_json_schema");
            if (!ps)
                ps = cJSON_GetObjectItemCaseSensitive(d, "parameters");
            if (!name)
                BAD("tools[%d].functionDeclarations[%d].name: must be a string", i, j);
            if (ps && !cJSON_IsObject(ps))
                BAD("tools[%d].functionDeclarations[%d].parameters: must be a schema object", i, j);
            if (!tools)
                NOMEM(tools = cJSON_AddArrayToObject(req, "tools"));
            cJSON *nt = cJSON_CreateObject();
            NOMEM(nt && cJSON_AddItemToArray(tools, nt) && cJSON_AddStringToObject(nt, "name", name));
            if (desc)
                NOMEM(cJSON_AddStringToObject(nt, "description", desc));
            if (ps)
                NOMEM(forge_wire_put(nt, "parameters", cJSON_Duplicate(ps, 1)));
            j++;
        }
        i++;
    }
out:
    return rc;
}

static int accept_config(const cJSON *tc, cJSON *req, struct forge_err *err)
{
    int rc = 0;
    const cJSON *fcc = member(tc, "functionCallingConfig", "function_calling_config");
    if (!fcc)
        return 0;
    const char *mode = forge_json_str(fcc, "mode");
    const cJSON *names = member(fcc, "allowedFunctionNames", "allowed_function_names");
    if (!mode || (strcmp(mode, "AUTO") && strcmp(mode, "ANY") && strcmp(mode, "NONE") && strcmp(mode, "VALIDATED") &&
                  strcmp(mode, "MODE_UNSPECIFIED")))
        BAD("toolConfig.functionCallingConfig.mode: must be AUTO, ANY, NONE or VALIDATED");
    if (!strcmp(mode, "ANY") && cJSON_GetArraySize(names) == 1 && cJSON_IsString(cJSON_GetArrayItem(names, 0))) {
        cJSON *c = cJSON_AddObjectToObject(req, "tool_choice");
        NOMEM(c && cJSON_AddStringToObject(c, "name", cJSON_GetArrayItem(names, 0)->valuestring));
    } else if (strcmp(mode, "MODE_UNSPECIFIED")) {
        NOMEM(cJSON_AddStringToObject(req, "tool_choice", !strcmp(mode, "ANY") ? "required"
                                                          : !strcmp(mode, "NONE") ? "none" : "auto"));
    }
out:
    return rc;
}

static int accept(const cJSON *body, cJSON **out, int *stream, struct forge_err *err)
{
    static const struct { const char *from, *to; } names[] = {
        {"maxOutputTokens", "max_tokens"}, {"topP", "top_p"}, {"topK", "top_k"}, {"stopSequences", "stop"},
        {"presencePenalty", "presence_penalty"}, {"frequencyPenalty", "frequency_penalty"}, {NULL, NULL}};
    int rc = 0;
    struct forge_buf sys;
    forge_buf_init(&sys, 0);
    *stream = 0; /* decided by the URL */
    cJSON *req = cJSON_CreateObject(), *msgs;
    NOMEM(req);
    const cJSON *contents = cJSON_GetObjectItemCaseSensitive(body, "contents"), *c;
    if (!cJSON_IsArray(contents))
        BAD("contents: must be an array");
    const cJSON *si = member(body, "systemInstruction", "system_instruction");
    if (si) {
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(si, "parts")) {
            const char *t = forge_json_str(p, "text");
            NOMEM(!t || !forge_buf_adds(&sys, t));
        }
        if (cJSON_IsString(si))
            NOMEM(!forge_buf_adds(&sys, si->valuestring));
        NOMEM(cJSON_AddStringToObject(req, "system", sys.data ? sys.data : ""));
    }
    NOMEM(msgs = cJSON_AddArrayToObject(req, "messages"));
    int i = 0;
    cJSON_ArrayForEach(c, contents) {
        char path[32];
        snprintf(path, sizeof path, "contents[%d]", i++);
        if ((rc = accept_turn(c, path, req, msgs, err)))
            goto out;
    }
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(body, "tools")) && (rc = accept_tools(v, req, err)))
        goto out;
    if ((v = member(body, "toolConfig", "tool_config")) && (rc = accept_config(v, req, err)))
        goto out;
    if ((v = member(body, "generationConfig", "generation_config"))) {
        if (!cJSON_IsObject(v))
            BAD("generationConfig: must be an object");
        cJSON *params = cJSON_AddObjectToObject(req, "params");
        NOMEM(params);
        const cJSON *gp;
        cJSON_ArrayForEach(gp, v) {
            const char *key = gp->string;
            for (int k = 0; names[k].from; k++)
                if (!strcmp(key, names[k].from))
                    key = names[k].to;
            NOMEM(forge_wire_put(params, key, cJSON_Duplicate(gp, 1)));
        }
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

static const char *finish_reason(const cJSON *resp)
{
    const char *f = forge_json_str(resp, "finish_reason");
    if (f && !strcmp(f, "length"))
        return "MAX_TOKENS";
    if (f && !strcmp(f, "content_filter"))
        return "SAFETY";
    return "STOP";
}

/* The model's parts for <resp>: its own (provider_data) when it has them, else text and calls. */
static cJSON *answer_parts(const cJSON *resp)
{
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message"), *c;
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "provider_data"), "gemini"), "parts");
    if (cJSON_IsArray(own))
        return cJSON_Duplicate(own, 1);
    cJSON *parts = cJSON_CreateArray(), *p, *fc;
    const char *text = forge_json_str(msg, "content");
    if (!parts || (text && *text && (!(p = part(parts)) || !cJSON_AddStringToObject(p, "text", text))))
        goto fail;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arguments");
        if (!(p = part(parts)) || !(fc = cJSON_AddObjectToObject(p, "functionCall")) ||
            !cJSON_AddStringToObject(fc, "id", forge_json_str(c, "id")) ||
            !cJSON_AddStringToObject(fc, "name", forge_json_str(c, "name")) ||
            !forge_wire_put(fc, "args", a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject()))
            goto fail;
    }
    return parts;
fail:
    cJSON_Delete(parts);
    return NULL;
}

/* A GenerateContentResponse holding <parts> (taken); <last> adds the finish reason and usage. */
static cJSON *response(const cJSON *resp, const struct forge_answer_info *info, cJSON *parts, int last)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "usage");
    double in = forge_json_num(u, "input_tokens", 0), outt = forge_json_num(u, "output_tokens", 0);
    cJSON *o = cJSON_CreateObject(), *cands, *cand, *content, *um;
    int ok = o && (cands = cJSON_AddArrayToObject(o, "candidates")) && (cand = part(cands)) &&
             (content = cJSON_AddObjectToObject(cand, "content")) && cJSON_AddStringToObject(content, "role", "model") &&
             forge_wire_put(content, "parts", parts);
    parts = NULL;
    ok = ok && (!last || cJSON_AddStringToObject(cand, "finishReason", finish_reason(resp))) &&
         cJSON_AddNumberToObject(cand, "index", 0) && (um = cJSON_AddObjectToObject(o, "usageMetadata")) &&
         cJSON_AddNumberToObject(um, "promptTokenCount", in) &&
         (!last || (cJSON_AddNumberToObject(um, "candidatesTokenCount", outt) &&
                    cJSON_AddNumberToObject(um, "totalTokenCount", in + outt))) &&
         cJSON_AddStringToObject(o, "modelVersion", info->model) && cJSON_AddStringToObject(o, "responseId", info->id);
    cJSON_Delete(parts);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int answer(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, cJSON **out,
                  struct forge_err *err)
{
    (void)req;
    cJSON *parts = answer_parts(resp);
    *out = parts ? response(resp, info, parts, 1) : NULL;
    return *out ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory writing the answer");
}

static int chunk(struct forge_buf *b, const cJSON *resp, const struct forge_answer_info *info, cJSON *parts, int last)
{
    cJSON *o = response(resp, info, parts, last);
    int rc = o ? forge_wire_sse(b, NULL, o) : FORGE_ENOMEM;
    cJSON_Delete(o);
    return rc;
}

/* Text comes in pieces, one chunk each; a function call comes whole in a chunk of its own, as
 * Gemini streams them; the last chunk carries the finish reason and the usage. */
static int stream(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info, struct forge_buf *b,
                  struct forge_err *err)
{
    (void)req;
    int rc = 0;
    cJSON *parts = answer_parts(resp), *pending = NULL;
    NOMEM(parts);
    const cJSON *p;
    cJSON_ArrayForEach(p, parts) {
        const char *t = forge_json_str(p, "text");
        size_t n = t && !cJSON_HasObjectItem(p, "thoughtSignature") ? strlen(t) : 0;
        for (size_t at = 0, k; at < n; at += k) {
            k = forge_wire_piece(t + at, n - at, FORGE_WIRE_PIECE);
            if (pending)
                NOMEM(!chunk(b, resp, info, pending, 0));
            char *piece = forge_strndup(t + at, k);
            cJSON *one = cJSON_CreateArray(), *q = one ? part(one) : NULL;
            int ok = piece && q && cJSON_AddStringToObject(q, "text", piece);
            forge_free(piece);
            pending = ok ? one : NULL;
            if (!ok)
                cJSON_Delete(one);
            NOMEM(pending);
        }
        if (n == 0) {
            if (pending)
                NOMEM(!chunk(b, resp, info, pending, 0));
            cJSON *one = cJSON_CreateArray();
            NOMEM(one);
            if (!cJSON_AddItemToArray(one, cJSON_Duplicate(p, 1))) {
                cJSON_Delete(one);
                NOMEM(0);
            }
            pending = one;
        }
    }
    if (!pending) {
        cJSON *q;
        NOMEM((pending = cJSON_CreateArray()) && (q = part(pending)) && cJSON_AddStringToObject(q, "text", ""));
    }
    rc = chunk(b, resp, info, pending, 1);
    pending = NULL;
    if (rc)
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
out:
    cJSON_Delete(pending);
    cJSON_Delete(parts);
    return rc;
}

static cJSON *error_body(int status, const char *message)
{
    const char *st = status == 400 || status == 413 ? "INVALID_ARGUMENT" : status == 401 ? "UNAUTHENTICATED"
                   : status == 403 ? "PERMISSION_DENIED" : status == 404 ? "NOT_FOUND"
                   : status == 429 ? "RESOURCE_EXHAUSTED" : status == 503 ? "UNAVAILABLE"
                   : status == 501 ? "UNIMPLEMENTED" : status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
    cJSON *o = cJSON_CreateObject(), *e;
    if (!o || !(e = cJSON_AddObjectToObject(o, "error")) || !cJSON_AddNumberToObject(e, "code", status) ||
        !cJSON_AddStringToObject(e, "message", message) || !cJSON_AddStringToObject(e, "status", st)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- streamed answers (client side) ---- */

/* The last event's data, parsed; NULL when none or not JSON. */
static cJSON *last_event(const char *text, size_t len)
{
    struct forge_sse it;
    struct forge_err e;
    cJSON *v = forge_sse_last(&it, text, len) == 1 && it.data ? forge_json_parse(it.data, it.len, "event", &e)
                                                                  : NULL;
    forge_sse_free(&it);
    return v;
}

/* A stream ends with a chunk that gives the candidate's finish reason (or with an error). */
static int stream_complete(const char *text, size_t len)
{
    cJSON *v = last_event(text, len);
    const cJSON *cand = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(v, "candidates"), 0);
    int end = forge_json_str(cand, "finishReason") || cJSON_GetObjectItemCaseSensitive(v, "error") ||
              cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "promptFeedback"), "blockReason");
    cJSON_Delete(v);
    return end;
}

/* A plain text part (no thought, no signature): the kind consecutive chunks split. */
static int plain_text(const cJSON *p)
{
    return forge_json_str(p, "text") && cJSON_GetArraySize((cJSON *)p) == 1;
}

/* The members of a chunk the assembled body keeps, from the last chunk that has each. */
static const char *const keep[] = {"usageMetadata", "promptFeedback", "modelVersion", "responseId"};
#define NKEEP (sizeof keep / sizeof keep[0])

/* A hot chunk: one plain text part of candidates[0], no finish reason, no error. Its kept
 * members are remembered as text (in the stream) and become values only when a chunk read by
 * cJSON comes or the stream ends: they are the same values each time. */
struct hot_chunk {
    struct forge_jstr text;
    const char *kv[NKEEP];
    size_t kn[NKEEP];
};

/* Kept members not yet in the body: the text of each and the chunk it came from. */
struct pending {
    const char *s[NKEEP];
    size_t n[NKEEP];
    unsigned long at[NKEEP]; /* 0: none */
    unsigned long count;
};

/* The one part of a hot chunk: {"text": "..."} and nothing else. 0 or 1. */
static int hot_parts(struct forge_jscan *j, struct hot_chunk *h)
{
    struct forge_jstr k;
    if (forge_jscan_open(j, '[') || forge_jscan_item(j) != 1 || forge_jscan_open(j, '{') ||
        forge_jscan_key(j, &k) != 1 || !forge_jstr_is(&k, "text") || forge_jscan_string(j, &h->text) ||
        forge_jscan_key(j, &k) != 0)
        return 1;
    return forge_jscan_item(j) != 0;
}

/* Reads a chunk in place when it is hot: 0 with its fields in <h>, 1 when it is anything else
 * (the caller reads it with cJSON). */
static int hot(const char *data, size_t len, struct hot_chunk *h)
{
    struct forge_jscan j;
    struct forge_jstr k;
    int r, n_cands = 0;
    memset(h, 0, sizeof *h);
    forge_jscan_init(&j, data, len);
    if (forge_jscan_open(&j, '{'))
        return 1;
    while ((r = forge_jscan_key(&j, &k)) == 1) {
        size_t i;
        for (i = 0; i < NKEEP; i++)
            if (k.n == strlen(keep[i]) && !memcmp(k.s, keep[i], k.n))
                break;
        if (i < NKEEP) {
            if (h->kv[i] || !forge_jscan_peek(&j))
                return 1;
            h->kv[i] = j.p;
            if (forge_jscan_skip(&j))
                return 1;
            h->kn[i] = (size_t)(j.p - h->kv[i]);
        } else if (forge_jstr_is(&k, "candidates")) {
            int n_content = 0;
            if (n_cands++ || forge_jscan_open(&j, '[') || forge_jscan_item(&j) != 1 || forge_jscan_open(&j, '{'))
                return 1;
            while ((r = forge_jscan_key(&j, &k)) == 1) {
                if (forge_jstr_is(&k, "content")) {
                    int n_parts = 0;
                    if (n_content++ || forge_jscan_open(&j, '{'))
                        return 1;
                    while ((r = forge_jscan_key(&j, &k)) == 1) {
                        if (forge_jstr_is(&k, "parts")) {
                            if (n_parts++ || hot_parts(&j, h))
                                return 1;
                        } else if (forge_jscan_skip(&j)) {
                            return 1;
                        }
                    }
                    if (r || !n_parts)
                        return 1;
                } else if (forge_jstr_is(&k, "finishReason") || forge_jscan_skip(&j)) {
                    return 1;
                }
            }
            if (r || !n_content || forge_jscan_leave(&j))
                return 1;
        } else if (forge_jstr_is(&k, "error") || forge_jscan_skip(&j)) {
            return 1;
        }
    }
    return r || forge_jscan_end(&j) || !n_cands;
}

/* Puts the pending kept members into <b> in the order cJSON's reading would have: by chunk,
 * then in keep[] order. 0 or FORGE_ENOMEM. */
static int flush_pending(cJSON *b, struct pending *pd)
{
    for (;;) {
        size_t best = NKEEP;
        for (size_t i = 0; i < NKEEP; i++)
            if (pd->at[i] && (best == NKEEP || pd->at[i] < pd->at[best]))
                best = i;
        if (best == NKEEP)
            return 0;
        struct forge_err e;
        pd->at[best] = 0;
        if (!forge_wire_put(b, keep[best], forge_json_parse(pd->s[best], pd->n[best], "event", &e)))
            return FORGE_ENOMEM;
    }
}

static int assemble(const char *text, size_t len, cJSON **body, struct forge_stream_marks *marks, struct forge_err *err)
{
    int rc = 0, ended = 0;
    struct forge_sse it;
    forge_sse_init(&it, text, len);
    marks->first_token = marks->first_call = SIZE_MAX;
    cJSON *ev = NULL, *b = cJSON_CreateObject(), *cands, *cand, *content, *parts;
    struct forge_wire_acc acc = {0};
    NOMEM(b && (cands = cJSON_AddArrayToObject(b, "candidates")) && (cand = part(cands)) &&
          (content = cJSON_AddObjectToObject(cand, "content")) && cJSON_AddStringToObject(content, "role", "model") &&
          (parts = cJSON_AddArrayToObject(content, "parts")));
    int fast = forge_wire_fast();
    struct forge_wire_tmpl tm = {0};
    struct hot_chunk th;
    struct pending pd = {0};
    struct forge_buf scratch;
    forge_buf_init(&scratch, 0);
    struct forge_jstr rv;
    for (int r = 0, raw; (raw = fast && forge_sse_tmpl_next(&it, &tm, &rv)) || (r = forge_sse_next(&it)) != 0;) {
        NOMEM(raw || r == 1);
        if (raw || (fast && it.data && it.data != it.buf.data)) {
            struct hot_chunk h;
            int is_hot = 0;
            if (raw) {
                h = th;
                h.text = rv;
                is_hot = 1;
            } else if (!hot(it.data, it.len, &h)) {
                forge_sse_tmpl_set(&it, &tm, &h.text);
                th = h;
                is_hot = 1;
            }
            if (is_hot) {
                pd.count++;
                for (size_t i = 0; i < NKEEP; i++)
                    if (h.kv[i]) {
                        pd.s[i] = h.kv[i];
                        pd.n[i] = h.kn[i];
                        pd.at[i] = pd.count;
                    }
                if (h.text.n && marks->first_token == SIZE_MAX)
                    marks->first_token = it.offset;
                cJSON *last = cJSON_GetArrayItem(parts, cJSON_GetArraySize(parts) - 1);
                if (last && plain_text(last)) {
                    struct forge_buf *ab = forge_wire_acc_buf(&acc, last, "text");
                    NOMEM(ab && !forge_jstr_append(&h.text, ab));
                } else {
                    cJSON *np = cJSON_CreateObject();
                    forge_buf_reset(&scratch);
                    NOMEM(np && cJSON_AddItemToArray(parts, np) && !forge_jstr_append(&h.text, &scratch) &&
                          cJSON_AddStringToObject(np, "text", scratch.data ? scratch.data : ""));
                }
                continue;
            }
        }
        NOMEM(!flush_pending(b, &pd));
        struct forge_err pe;
        cJSON_Delete(ev);
        if (!(ev = forge_json_parse(it.data ? it.data : "", it.len, "event", &pe))) {
            rc = forge_err_set(err, FORGE_ENET, "gemini: the stream chunk at byte %zu is not JSON (%s)", it.offset, pe.msg);
            goto out;
        }
        if (cJSON_GetObjectItemCaseSensitive(ev, "error")) {
            char m[512];
            forge_wire_error_text(ev, m, sizeof m);
            rc = forge_err_set(err, FORGE_ENET, "gemini: the stream failed: %s", m[0] ? m : "(no message)");
            goto out;
        }
        const cJSON *x, *p;
        const char *keep[] = {"usageMetadata", "promptFeedback", "modelVersion", "responseId"};
        for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
            if ((x = cJSON_GetObjectItemCaseSensitive(ev, keep[k])))
                NOMEM(forge_wire_put(b, keep[k], cJSON_Duplicate(x, 1)));
        const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ev, "candidates"), 0);
        if ((x = cJSON_GetObjectItemCaseSensitive(c, "finishReason"))) {
            NOMEM(forge_wire_put(cand, "finishReason", cJSON_Duplicate(x, 1)));
            ended = 1;
        }
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "content"), "parts")) {
            cJSON *last = cJSON_GetArrayItem(parts, cJSON_GetArraySize(parts) - 1);
            if (forge_json_str(p, "text") && *forge_json_str(p, "text") && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought")) &&
                marks->first_token == SIZE_MAX)
                marks->first_token = it.offset;
            if (cJSON_GetObjectItemCaseSensitive(p, "functionCall") && marks->first_call == SIZE_MAX)
                marks->first_call = it.offset;
            if (plain_text(p) && last && plain_text(last)) {
                /* the pieces of one text, as the whole answer has it */
                NOMEM(!forge_wire_acc_add(&acc, last, "text", forge_json_str(p, "text")));
            } else {
                NOMEM(cJSON_AddItemToArray(parts, cJSON_Duplicate(p, 1)));
            }
        }
        if (!c && cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "promptFeedback"), "blockReason"))
            ended = 1;
    }
    NOMEM(!flush_pending(b, &pd));
    if (!ended)
        rc = forge_err_set(err, FORGE_ENET, "gemini: the stream ended without a finishReason");
    else if (forge_wire_acc_flush(&acc))
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
    else if (!cJSON_GetObjectItemCaseSensitive(cand, "finishReason"))
        cJSON_DeleteItemFromObjectCaseSensitive(b, "candidates"); /* blocked: no candidate, as whole */
out:
    forge_sse_free(&it);
    forge_wire_acc_free(&acc);
    forge_buf_free(&scratch);
    cJSON_Delete(ev);
    if (rc) {
        cJSON_Delete(b);
        b = NULL;
    }
    *body = b;
    return rc;
}

const struct forge_dialect forge_dialect_gemini = {
    .name = "gemini", .build = build, .parse = parse, .error_message = forge_wire_error_text,
    .accept = accept, .answer = answer, .stream = stream, .error_body = error_body,
    .stream_type = "text/event-stream", .stream_complete = stream_complete, .assemble = assemble,
};
