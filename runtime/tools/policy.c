/* Tool policy and human approval. */
#include "tools/policy.h"
#include "tools/tool.h"
#include "base/alloc.h"
#include "data/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[] = {"autonomous", "cautious", "standard", "paranoid"};

const char *forge_approval_level_name(enum forge_approval_level l)
{
    return level_names[l];
}

void forge_policy_init(struct forge_policy *p)
{
    memset(p, 0, sizeof *p);
    p->max_rounds = 10;
    p->max_calls_per_turn = -1;
    p->max_total_calls = -1;
    p->max_identical = 3;
    p->level = FORGE_APPROVE_CAUTIOUS;
}

static int count_of(const cJSON *v, const char *key, const char *where, int min, int *out,
                    struct forge_err *err)
{
    if (cJSON_IsNull(v)) {
        *out = -1;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble ||
        v->valuedouble < min)
        return forge_err_set(err, FORGE_EINVAL, "%s: policy.%s must be an integer >= %d", where,
                             key, min);
    *out = (int)v->valuedouble;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int forge_policy_apply(struct forge_policy *p, const cJSON *json, const char *where,
                       struct forge_err *err)
{
    if (!json || cJSON_IsNull(json))
        return 0;
    if (!cJSON_IsObject(json))
        return forge_err_set(err, FORGE_EINVAL, "%s: policy must be an object", where);
    for (const cJSON *c = json->child; c; c = c->next) {
        const char *k = c->string;
        int rc = 0;
        if (!strcmp(k, "tool_choice")) {
            if (!cJSON_IsString(c) && !(cJSON_IsObject(c) &&
                                        cJSON_IsString(forge_json_get(c, "name"))))
                return forge_err_set(err, FORGE_EINVAL, "%s: policy.tool_choice must be \"auto\", "
                                     "\"none\", \"required\", a tool name or {\"name\": ...}", where);
            cJSON_Delete(p->tool_choice);
            p->tool_choice = cJSON_Duplicate(c, 1);
        } else if (!strcmp(k, "max_rounds")) {
            rc = count_of(c, k, where, 1, &p->max_rounds, err);
            if (!rc && p->max_rounds < 0)
                p->max_rounds = 10;
        } else if (!strcmp(k, "max_tool_calls_per_turn")) {
            rc = count_of(c, k, where, 0, &p->max_calls_per_turn, err);
        } else if (!strcmp(k, "max_total_tool_calls")) {
            rc = count_of(c, k, where, 0, &p->max_total_calls, err);
        } else if (!strcmp(k, "max_identical_calls")) {
            rc = count_of(c, k, where, 1, &p->max_identical, err);
        } else if (!strcmp(k, "blocklist")) {
            if (!cJSON_IsArray(c))
                return forge_err_set(err, FORGE_EINVAL, "%s: policy.blocklist must be an array "
                                     "of tool names", where);
            for (int i = 0; i < p->nblock; i++)
                forge_free(p->blocklist[i]);
            forge_free(p->blocklist);
            p->nblock = 0;
            p->blocklist = forge_calloc((size_t)cJSON_GetArraySize(c) + 1, sizeof *p->blocklist);
            if (!p->blocklist)
                return forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", where);
            for (const cJSON *e = c->child; e; e = e->next) {
                if (!cJSON_IsString(e))
                    return forge_err_set(err, FORGE_EINVAL, "%s: policy.blocklist must be an "
                                         "array of tool names", where);
                if (!(p->blocklist[p->nblock] = forge_strdup(e->valuestring)))
                    return forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", where);
                p->nblock++;
            }
            /* sorted: a call's tool is looked up by bisection (a policy may list thousands) */
            qsort(p->blocklist, (size_t)p->nblock, sizeof *p->blocklist, cmp_name);
        } else if (!strcmp(k, "approval")) {
            if (!cJSON_IsObject(c))
                return forge_err_set(err, FORGE_EINVAL, "%s: policy.approval must be an object "
                                     "{\"level\", \"answer\"}", where);
            for (const cJSON *a = c->child; a; a = a->next) {
                if (!strcmp(a->string, "level")) {
                    int found = -1;
                    for (int i = 0; i < 4 && cJSON_IsString(a); i++)
                        if (!strcmp(a->valuestring, level_names[i]))
                            found = i;
                    if (found < 0)
                        return forge_err_set(err, FORGE_EINVAL, "%s: policy.approval.level must "
                                             "be autonomous, cautious, standard or paranoid",
                                             where);
                    p->level = (enum forge_approval_level)found;
                } else if (!strcmp(a->string, "answer")) {
                    const char *ans = cJSON_IsString(a) ? a->valuestring : "";
                    if (strcmp(ans, "approve") && strcmp(ans, "deny"))
                        return forge_err_set(err, FORGE_EINVAL, "%s: policy.approval.answer must "
                                             "be \"approve\" or \"deny\" (or a Lua function)",
                                             where);
                    p->deny = !strcmp(ans, "deny");
                } else {
                    return forge_err_set(err, FORGE_EINVAL, "%s: unknown key policy.approval.%s "
                                         "(level, answer)", where, a->string);
                }
            }
        } else {
            return forge_err_set(err, FORGE_EINVAL, "%s: unknown policy key '%s' (tool_choice, "
                                 "max_rounds, max_tool_calls_per_turn, max_total_tool_calls, "
                                 "blocklist, max_identical_calls, approval)", where, k);
        }
        if (rc)
            return rc;
    }
    return 0;
}

int forge_policy_copy(struct forge_policy *dst, const struct forge_policy *src)
{
    *dst = *src;
    dst->approve_free = NULL; /* shared with src */
    dst->nblock = 0;
    dst->tool_choice = src->tool_choice ? cJSON_Duplicate(src->tool_choice, 1) : NULL;
    dst->blocklist = forge_calloc((size_t)src->nblock + 1, sizeof *dst->blocklist);
    if (!dst->blocklist)
        return FORGE_ENOMEM;
    for (int i = 0; i < src->nblock; i++, dst->nblock++)
        if (!(dst->blocklist[i] = forge_strdup(src->blocklist[i])))
            return FORGE_ENOMEM;
    return 0;
}

void forge_policy_free(struct forge_policy *p)
{
    cJSON_Delete(p->tool_choice);
    for (int i = 0; i < p->nblock; i++)
        forge_free(p->blocklist[i]);
    forge_free(p->blocklist);
    if (p->approve_free)
        p->approve_free(p->approve.ctx);
    memset(p, 0, sizeof *p);
}

bool forge_policy_blocked(const struct forge_policy *p, const char *tool)
{
    return p->nblock && bsearch(&tool, p->blocklist, (size_t)p->nblock, sizeof *p->blocklist,
                                cmp_name) != NULL;
}

bool forge_policy_needs_approval(const struct forge_policy *p, const struct forge_tool *tool)
{
    switch (p->level) {
    case FORGE_APPROVE_AUTONOMOUS:
        return false;
    case FORGE_APPROVE_PARANOID:
        return true;
    case FORGE_APPROVE_CAUTIOUS:
        return tool && cJSON_IsTrue(forge_json_get(tool->def,
                                                                      "requiresConfirmation"));
    case FORGE_APPROVE_STANDARD: {
        if (!tool)
            return false;
        const char *cat = forge_json_str(tool->def, "category");
        if (cat && (!strcmp(cat, "write") || !strcmp(cat, "delete") || !strcmp(cat, "side_effect")))
            return true;
        if (tool->kind == FORGE_TOOL_HTTP) {
            const char *m = forge_json_str(tool->data, "method");
            return m && strcasecmp(m, "GET") && strcasecmp(m, "HEAD");
        }
        return false;
    }
    }
    return false;
}

cJSON *forge_policy_ask(const struct forge_policy *p, const cJSON *call)
{
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "level", level_names[p->level]);
    if (!p->approve.call) {
        cJSON_AddStringToObject(rec, "decision", p->deny ? "denied" : "approved");
        cJSON_AddStringToObject(rec, "by", "policy");
        return rec;
    }
    cJSON *args = cJSON_CreateArray();
    cJSON_AddItemToArray(args, cJSON_Duplicate(call, 1));
    cJSON *out = NULL;
    FORGE_ERR_LOCAL(ferr);
    int rc = p->approve.call(p->approve.ctx, args, &out, &ferr);
    cJSON_Delete(args);
    cJSON_AddStringToObject(rec, "by", "function");
    if (rc) {
        /* A failing approval function cannot approve anything. */
        cJSON_AddStringToObject(rec, "decision", "denied");
        char msg[FORGE_ERR_MAX + 64];
        snprintf(msg, sizeof msg, "approval function failed: %s", ferr.msg);
        cJSON_AddStringToObject(rec, "reason", msg);
        return rec;
    }
    /* true/false, "approve"/"deny", or [answer, reason] */
    const cJSON *a = cJSON_IsArray(out) ? out->child : out;
    const cJSON *why = cJSON_IsArray(out) && out->child ? out->child->next : NULL;
    int ok = cJSON_IsTrue(a) || (cJSON_IsString(a) && (!strcmp(a->valuestring, "approve") ||
                                                       !strcmp(a->valuestring, "approved")));
    cJSON_AddStringToObject(rec, "decision", ok ? "approved" : "denied");
    if (cJSON_IsString(why))
        cJSON_AddStringToObject(rec, "reason", why->valuestring);
    cJSON_Delete(out);
    return rec;
}
