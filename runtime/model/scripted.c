/* The offline scripted model. */
#include "model/scripted.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "data/json.h"

#include <string.h>

struct scripted {
    struct forge_model base;
    struct forge_callable respond;
    void (*free_ctx)(void *);
};

static int complete(struct forge_model *m, const cJSON *req, cJSON **resp, struct forge_err *err)
{
    struct scripted *s = (struct scripted *)m;
    /* The rules see the conversation and the tools' names, not their definitions: leaving the
     * schemas out saves converting them into Lua on every request. */
    cJSON *view = cJSON_CreateObject(), *names = cJSON_AddArrayToObject(view, "tool_names");
    for (const cJSON *c = req->child; c; c = c->next)
        if (strcmp(c->string, "tools") != 0)
            cJSON_AddItemReferenceToObject(view, c->string, (cJSON *)c);
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(req, "tools")) {
        const char *n = forge_json_str(t, "name");
        if (n)
            cJSON_AddItemToArray(names, cJSON_CreateString(n));
    }
    cJSON *args = cJSON_CreateArray();
    cJSON_AddItemToArray(args, view);
    double t0 = forge_clock_ms();
    cJSON *out = NULL;
    int rc = s->respond.call(s->respond.ctx, args, &out, err);
    cJSON_Delete(args);
    if (rc) {
        forge_err_prefix(err, "scripted model");
        return rc;
    }
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(out, "message");
    if (!cJSON_IsObject(out) || !cJSON_IsObject(msg)) {
        cJSON_Delete(out);
        return forge_err_set(err, FORGE_ELUA, "scripted model: the rules returned no message");
    }
    if (!cJSON_GetObjectItemCaseSensitive(out, "usage")) {
        cJSON *u = cJSON_AddObjectToObject(out, "usage");
        cJSON_AddNumberToObject(u, "input_tokens", 0);
        cJSON_AddNumberToObject(u, "output_tokens", 0);
    }
    if (!cJSON_GetObjectItemCaseSensitive(out, "cost_usd"))
        cJSON_AddNumberToObject(out, "cost_usd", 0);
    if (!cJSON_GetObjectItemCaseSensitive(out, "latency_ms"))
        cJSON_AddNumberToObject(out, "latency_ms", (double)(long long)((forge_clock_ms() - t0) * 1000) / 1000);
    cJSON_AddBoolToObject(out, "cached", 0);
    *resp = out;
    return 0;
}

static void free_model(struct forge_model *m)
{
    struct scripted *s = (struct scripted *)m;
    if (s->free_ctx)
        s->free_ctx(s->respond.ctx);
    forge_free(m->provider);
    forge_free(m->name);
    forge_free(s);
}

static const struct forge_model_ops ops = {complete, free_model};

struct forge_model *forge_scripted_new(struct forge_callable respond, void (*free_ctx)(void *),
                                       const char *name, struct forge_err *err)
{
    struct scripted *s = forge_calloc(1, sizeof *s);
    if (!s) {
        if (free_ctx)
            free_ctx(respond.ctx);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    s->base.ops = &ops;
    s->base.provider = forge_strdup("scripted");
    s->base.name = forge_strdup(name ? name : "scripted");
    s->respond = respond;
    s->free_ctx = free_ctx;
    return &s->base;
}
