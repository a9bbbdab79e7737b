/* Running one tool-calling probe against a model, and classifying what happened. */
#include "eval/probe.h"
#include "base/alloc.h"
#include "data/json.h"

#include <stdio.h>
#include <string.h>

const char *forge_probe_outcome_name(enum forge_probe_outcome o)
{
    static const char *const names[] = {"pass", "fail", "blocked", "truncated", "error"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "error";
}

void forge_probe_free(struct forge_probe *p)
{
    if (!p)
        return;
    forge_free(p->name);
    forge_free(p->description);
    cJSON_Delete(p->request);
    cJSON_Delete(p->roundtrip);
    if (p->free_ctx) {
        if (p->check.ctx)
            p->free_ctx(p->check.ctx);
        if (p->preflight.ctx)
            p->free_ctx(p->preflight.ctx);
    }
    memset(p, 0, sizeof *p);
}

static void set(struct forge_probe_result *out, enum forge_probe_outcome o, const char *reason)
{
    out->outcome = o;
    snprintf(out->reason, sizeof out->reason, "%.*s", (int)sizeof out->reason - 1, reason ? reason : "");
}

/* A model error as an outcome: 429 and 503 are transient (blocked); another HTTP status is the
 * model or provider refusing the request (fail); no answer at all is no verdict (error). */
static void classify_error(int rc, const struct forge_err *err, struct forge_probe_result *out)
{
    const char *http = strstr(err->msg, "HTTP ");
    if (rc == FORGE_ENET && http && (!strncmp(http, "HTTP 429", 8) || !strncmp(http, "HTTP 503", 8)))
        set(out, FORGE_PROBE_BLOCKED, err->msg);
    else if ((rc == FORGE_ENET && http) || rc == FORGE_EINVAL)
        set(out, FORGE_PROBE_FAIL, err->msg);
    else
        set(out, FORGE_PROBE_ERROR, err->msg);
}

/* Calls the probe's check on <resp> for <round>; returns 1 when it passed (else fills <out>). */
static int checked(const struct forge_probe *p, const cJSON *resp, int round, const cJSON *first, const char *dialect,
                   struct forge_probe_result *out)
{
    const char *fin = forge_json_str(resp, "finish_reason");
    if (fin && !strcmp(fin, "length")) {
        set(out, FORGE_PROBE_TRUNCATED, "the answer was cut by the token limit");
        return 0;
    }
    if (fin && strcmp(fin, "stop") && strcmp(fin, "tool_calls")) {
        char why[96];
        snprintf(why, sizeof why, "the answer stopped for '%.60s'", fin);
        set(out, FORGE_PROBE_FAIL, why);
        return 0;
    }
    cJSON *args = cJSON_CreateArray(), *info = cJSON_CreateObject(), *res = NULL;
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(resp, "timing");
    if (!args || !info || !cJSON_AddItemReferenceToArray(args, (cJSON *)resp)) {
        cJSON_Delete(args);
        cJSON_Delete(info);
        set(out, FORGE_PROBE_ERROR, "out of memory");
        return 0;
    }
    cJSON_AddItemToArray(args, info);
    if (!cJSON_AddNumberToObject(info, "round", round) || !cJSON_AddStringToObject(info, "dialect", dialect) ||
        (first && !cJSON_AddItemReferenceToObject(info, "first", (cJSON *)first)) ||
        (timing && !cJSON_AddItemReferenceToObject(info, "timing", (cJSON *)timing))) {
        cJSON_Delete(args);
        set(out, FORGE_PROBE_ERROR, "out of memory");
        return 0;
    }
    struct forge_err err = {0};
    int rc = p->check.call(p->check.ctx, args, &res, &err);
    cJSON_Delete(args);
    if (rc) {
        set(out, FORGE_PROBE_ERROR, err.msg);
        return 0;
    }
    /* true, or [false, reason] */
    const cJSON *verdict = cJSON_IsArray(res) ? cJSON_GetArrayItem(res, 0) : res;
    const cJSON *why = cJSON_IsArray(res) ? cJSON_GetArrayItem(res, 1) : NULL;
    int pass = cJSON_IsTrue(verdict);
    if (!pass) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s%s", round == 2 ? "round 2: " : "",
                 cJSON_IsString(why) ? why->valuestring : cJSON_IsBool(verdict) ? "the check failed" : "the check returned no verdict");
        set(out, cJSON_IsBool(verdict) ? FORGE_PROBE_FAIL : FORGE_PROBE_ERROR, msg);
    }
    cJSON_Delete(res);
    return pass;
}

/* The round 2 request: round 1's, the model's message, and the canned result for each call. */
static cJSON *second_request(const struct forge_probe *p, const cJSON *first)
{
    cJSON *req = cJSON_Duplicate(p->request, 1), *msgs = cJSON_GetObjectItemCaseSensitive(req, "messages");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(first, "message"), *c;
    char *text = cJSON_PrintUnformatted(p->roundtrip);
    int ok = req && msgs && text && cJSON_AddItemToArray(msgs, cJSON_Duplicate(msg, 1));
    /* the choice forced round 1's call; round 2 is free to answer */
    cJSON_DeleteItemFromObjectCaseSensitive(req, "tool_choice");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
        cJSON *t = cJSON_CreateObject();
        ok = ok && t && cJSON_AddItemToArray(msgs, t) && cJSON_AddStringToObject(t, "role", "tool") &&
             cJSON_AddStringToObject(t, "tool_call_id", forge_json_str(c, "id")) &&
             cJSON_AddStringToObject(t, "name", forge_json_str(c, "name")) && cJSON_AddStringToObject(t, "content", text);
    }
    cJSON_free(text);
    if (!ok) {
        cJSON_Delete(req);
        return NULL;
    }
    return req;
}

int forge_probe_run(const struct forge_probe *p, struct forge_model *m, const char *dialect, forge_probe_wire_fn wire,
                    struct forge_probe_result *out)
{
    memset(out, 0, sizeof *out);
    struct forge_err err = {0};
    cJSON *r1 = NULL, *r2 = NULL, *req2 = NULL;
    if (wire) {
        int rc = wire(m, p->request, &out->request, &err);
        if (rc) {
            /* the dialect cannot express what the probe asks (Ollama cannot force a call) */
            classify_error(rc, &err, out);
            return rc == FORGE_ENOMEM ? rc : 0;
        }
        if (p->preflight.call) {
            cJSON *args = cJSON_CreateArray(), *res = NULL, *d = NULL;
            int rc2 = FORGE_ENOMEM;
            if (args && cJSON_AddItemReferenceToArray(args, out->request) && (d = cJSON_CreateString(dialect))) {
                cJSON_AddItemToArray(args, d);
                rc2 = p->preflight.call(p->preflight.ctx, args, &res, &err);
            }
            cJSON_Delete(args);
            if (rc2) {
                set(out, FORGE_PROBE_ERROR, rc2 == FORGE_ENOMEM ? "out of memory" : err.msg);
                return 0;
            }
            const cJSON *why = cJSON_IsArray(res) ? cJSON_GetArrayItem(res, 0) : res;
            if (cJSON_IsString(why)) {
                set(out, FORGE_PROBE_FAIL, why->valuestring);
                cJSON_Delete(res);
                return 0;
            }
            cJSON_Delete(res);
        }
    }
    int rc = forge_model_complete(m, p->request, &r1, &err);
    if (rc) {
        classify_error(rc, &err, out);
        return 0;
    }
    out->latency_ms = forge_json_num(r1, "latency_ms", 0);
    if (!checked(p, r1, 1, NULL, dialect, out))
        goto out;
    if (p->roundtrip) {
        if (!(req2 = second_request(p, r1))) {
            set(out, FORGE_PROBE_ERROR, "out of memory");
            goto out;
        }
        if ((rc = forge_model_complete(m, req2, &r2, &err))) {
            classify_error(rc, &err, out);
            goto out;
        }
        out->latency_ms += forge_json_num(r2, "latency_ms", 0);
        if (!checked(p, r2, 2, r1, dialect, out))
            goto out;
    }
    set(out, FORGE_PROBE_PASS, NULL);
out:
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cJSON_Delete(req2);
    return 0;
}
