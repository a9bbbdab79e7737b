/* Gemini generateContent (POST {base}/v1beta/models/<model>:generateContent): contents with
 * user/model roles, functionDeclarations, functionCallingConfig with allowedFunctionNames,
 * functionResponse parts. The model's own parts (with their thought signatures) travel in
 * provider_data and are sent back verbatim. */
#include "model/dialect.h"
#include "base/alloc.h"
#include "data/json.h"

#include <ctype.h>
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

const struct forge_dialect forge_dialect_gemini = {
    .name = "gemini", .build = build, .parse = parse, .error_message = forge_wire_error_text,
};
