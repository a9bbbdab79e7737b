/* Per-model token prices. */
#include "model/prices.h"
#include "base/alloc.h"
#include "data/json.h"

#include <string.h>

struct entry {
    char *key;
    double in, out; /* USD per million tokens */
};

struct forge_prices {
    struct entry *e;
    int n;
};

/* USD per million tokens, from the providers' public price lists. */
static const struct { const char *key; double in, out; } builtin[] = {
    {"openai:gpt-4o-mini", 0.15, 0.60},      {"openai:gpt-4o", 2.50, 10.00},
    {"openai:gpt-4.1", 2.00, 8.00},          {"openai:gpt-4.1-mini", 0.40, 1.60},
    {"openai:gpt-4.1-nano", 0.10, 0.40},     {"openai:gpt-5", 1.25, 10.00},
    {"openai:gpt-5-mini", 0.25, 2.00},       {"openai:gpt-5-nano", 0.05, 0.40},
    {"openai:o3", 2.00, 8.00},               {"openai:o4-mini", 1.10, 4.40},
    {"openai-responses:gpt-4o-mini", 0.15, 0.60}, {"openai-responses:gpt-4o", 2.50, 10.00},
    {"openai-responses:gpt-4.1", 2.00, 8.00},     {"openai-responses:gpt-4.1-mini", 0.40, 1.60},
    {"openai-responses:gpt-5", 1.25, 10.00},      {"openai-responses:gpt-5-mini", 0.25, 2.00},
    {"openai-responses:gpt-5-nano", 0.05, 0.40},  {"openai-responses:o3", 2.00, 8.00},
    {"openai-responses:o4-mini", 1.10, 4.40},
    {"anthropic:claude-opus-4-1", 15.00, 75.00},  {"anthropic:claude-opus-4", 15.00, 75.00},
    {"anthropic:claude-sonnet-4-5", 3.00, 15.00}, {"anthropic:claude-sonnet-4", 3.00, 15.00},
    {"anthropic:claude-haiku-4-5", 1.00, 5.00},   {"anthropic:claude-3-5-haiku", 0.80, 4.00},
    {"gemini:gemini-2.5-pro", 1.25, 10.00},       {"gemini:gemini-2.5-flash", 0.30, 2.50},
    {"gemini:gemini-2.5-flash-lite", 0.10, 0.40}, {"gemini:gemini-2.0-flash", 0.10, 0.40},
};

void forge_prices_free(struct forge_prices *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        forge_free(p->e[i].key);
    forge_free(p->e);
    forge_free(p);
}

int forge_prices_load(const char *path, struct forge_prices **out, struct forge_err *err)
{
    int rc = 0;
    cJSON *doc = NULL;
    struct forge_prices *p = forge_calloc(1, sizeof *p);
    *out = NULL;
    if (!p)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory loading prices");
    if (!path)
        goto out;
    doc = forge_json_load(path, err);
    if (!doc) {
        rc = err ? err->code : FORGE_EINVAL;
        goto out;
    }
    if (!cJSON_IsObject(doc)) {
        rc = forge_err_set(err, FORGE_EINVAL, "%s: prices must be an object of \"model\": {\"input\", \"output\"}", path);
        goto out;
    }
    int n = cJSON_GetArraySize(doc);
    p->e = forge_calloc((size_t)n + 1, sizeof *p->e);
    if (!p->e) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory loading prices");
        goto out;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, doc) {
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(v, "input");
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(v, "output");
        if (!cJSON_IsNumber(in) || !cJSON_IsNumber(o) || in->valuedouble < 0 || o->valuedouble < 0) {
            rc = forge_err_set(err, FORGE_EINVAL,
                               "%s: key '%s': expected {\"input\": N, \"output\": N} in USD per million tokens",
                               path, v->string);
            goto out;
        }
        struct entry *e = &p->e[p->n];
        if (!(e->key = forge_strdup(v->string))) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory loading prices");
            goto out;
        }
        e->in = in->valuedouble;
        e->out = o->valuedouble;
        p->n++;
    }
out:
    cJSON_Delete(doc);
    if (rc)
        forge_prices_free(p);
    else
        *out = p;
    return rc;
}

/* How well <key> matches: 0 no match, else its length + 1 (longer keys are more specific). */
static size_t match(const char *key, const char *provider, const char *model)
{
    const char *colon = strchr(key, ':');
    const char *km = key;
    if (colon) {
        size_t pl = strlen(provider);
        if ((size_t)(colon - key) != pl || strncmp(key, provider, pl) != 0) {
            /* "ollama:qwen3" style bare names may carry a colon too: try it as a model. */
            if (strcmp(key, model) == 0)
                return strlen(key) + 1;
            return 0;
        }
        km = colon + 1;
    }
    size_t n = strlen(km);
    if (strncmp(model, km, n) != 0)
        return 0;
    if (model[n] == '\0' || model[n] == '-' || model[n] == '@')
        return strlen(key) + 1;
    return 0;
}

double forge_prices_cost(const struct forge_prices *p, const char *provider, const char *model,
                         double in, double out, bool *known)
{
    size_t best = 0;
    double pin = 0, pout = 0;
    for (int i = 0; p && i < p->n; i++) {
        size_t m = match(p->e[i].key, provider, model);
        if (m > best) {
            best = m;
            pin = p->e[i].in;
            pout = p->e[i].out;
        }
    }
    if (!best)
        for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
            size_t m = match(builtin[i].key, provider, model);
            if (m > best) {
                best = m;
                pin = builtin[i].in;
                pout = builtin[i].out;
            }
        }
    if (known)
        *known = best > 0;
    return (in * pin + out * pout) / 1e6;
}
