/* Verifiers. */
#include "tools/verify.h"
#include "tools/tool.h"
#include "base/alloc.h"
#include "data/json.h"
#include "data/re.h"
#include "data/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const outcome_names[] = {"pass", "warn", "block"};

struct forge_verifier *forge_verifier_from_json(const cJSON *def, const char *where,
                                                struct forge_err *err)
{
    const char *name = forge_json_str(def, "name");
    if (!cJSON_IsObject(def) || !name || !*name) {
        forge_err_set(err, FORGE_EINVAL, "%s: a verifier needs a non-empty string 'name'", where);
        return NULL;
    }
    for (const cJSON *c = def->child; c; c = c->next) {
        static const char *const keys[] = {"name", "tools", "order", "schema", "pattern",
                                           "verify", "description", NULL};
        int ok = 0;
        for (const char *const *k = keys; *k && !ok; k++)
            ok = strcmp(*k, c->string) == 0;
        if (!ok) {
            forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s': unknown key '%s' (keys: name, "
                          "tools, order, verify, schema, pattern)", where, name, c->string);
            return NULL;
        }
    }
    struct forge_verifier *v = forge_calloc(1, sizeof *v);
    if (!v) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    v->name = forge_strdup(name);
    const char *order = forge_json_str(def, "order");
    v->order = forge_strdup(order ? order : "Z-9999");
    const cJSON *tools = forge_json_get(def, "tools");
    if (!tools || cJSON_IsString(tools)) {
        v->tools = forge_calloc(1, sizeof *v->tools);
        v->tools[0] = forge_strdup(tools ? tools->valuestring : "*");
        v->ntools = 1;
    } else if (cJSON_IsArray(tools)) {
        int n = cJSON_GetArraySize(tools);
        v->tools = forge_calloc((size_t)n + 1, sizeof *v->tools);
        for (const cJSON *c = tools->child; c; c = c->next) {
            if (!cJSON_IsString(c)) {
                forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s': tools must be tool names "
                              "or \"*\"", where, name);
                goto fail;
            }
            v->tools[v->ntools++] = forge_strdup(c->valuestring);
        }
    } else {
        forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s': tools must be an array of names or "
                      "\"*\"", where, name);
        goto fail;
    }
    const cJSON *schema = forge_json_get(def, "schema");
    const cJSON *pattern = forge_json_get(def, "pattern");
    if (schema) {
        v->kind = FORGE_VERIFIER_SCHEMA;
        v->schema = forge_schema_compile(schema, NULL, err);
        if (!v->schema) {
            forge_err_prefix(err, "%s: verifier '%s': schema", where, name);
            goto fail;
        }
    } else if (pattern) {
        v->kind = FORGE_VERIFIER_PATTERN;
        const char *m = forge_json_str(pattern, "match"), *r = forge_json_str(pattern, "reject");
        const char *o = forge_json_str(pattern, "outcome");
        if (!m && !r) {
            forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s': pattern needs match or reject",
                          where, name);
            goto fail;
        }
        FORGE_ERR_LOCAL(rerr);
        if ((m && !forge_re_cached(m, strlen(m), 0, &rerr)) ||
            (r && !forge_re_cached(r, strlen(r), 0, &rerr))) {
            forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s': %s", where, name, rerr.msg);
            goto fail;
        }
        v->match = m ? forge_strdup(m) : NULL;
        v->reject = r ? forge_strdup(r) : NULL;
        if (o && strcmp(o, "warn") && strcmp(o, "block")) {
            forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s': pattern.outcome must be \"warn\" "
                          "or \"block\"", where, name);
            goto fail;
        }
        v->pattern_outcome = o && !strcmp(o, "block") ? 2 : 1;
    }
    return v;
fail:
    forge_verifier_free(v);
    return NULL;
}

void forge_verifier_set_function(struct forge_verifier *v, struct forge_callable fn,
                                 void (*free_fn)(void *ctx))
{
    v->kind = FORGE_VERIFIER_FN;
    v->fn = fn;
    v->free_fn = free_fn;
}

void forge_verifier_free(struct forge_verifier *v)
{
    if (!v)
        return;
    if (v->free_fn)
        v->free_fn(v->fn.ctx);
    forge_free(v->name);
    forge_free(v->order);
    for (int i = 0; i < v->ntools; i++)
        forge_free(v->tools[i]);
    forge_free(v->tools);
    forge_schema_free(v->schema);
    forge_free(v->match);
    forge_free(v->reject);
    forge_free(v);
}

/* Binds verifier index <vi> to tool name <tool> (once, however often the verifier lists it). */
static int bind_index(struct forge_verifiers *s, const char *tool, int vi)
{
    long t = forge_strtab_find(&s->tools, tool);
    if (t < 0) {
        if ((t = forge_strtab_add(&s->tools, tool)) < 0)
            return FORGE_ENOMEM;
        if (t >= s->capbound) {
            int cap = s->capbound ? s->capbound * 2 : 8;
            struct forge_verifier_list *b = forge_realloc(s->bound, sizeof *b * (size_t)cap);
            if (!b)
                return FORGE_ENOMEM;
            memset(b + s->capbound, 0, sizeof *b * (size_t)(cap - s->capbound));
            s->bound = b;
            s->capbound = cap;
        }
    }
    struct forge_verifier_list *l = &s->bound[t];
    if (l->n && l->i[l->n - 1] == vi)
        return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        int *x = forge_realloc(l->i, sizeof *x * (size_t)cap);
        if (!x)
            return FORGE_ENOMEM;
        l->i = x;
        l->cap = cap;
    }
    l->i[l->n++] = vi;
    return 0;
}

int forge_verifiers_add(struct forge_verifiers *s, struct forge_verifier *v, struct forge_err *err)
{
    if (forge_strtab_find(&s->names, v->name) >= 0) {
        int rc = forge_err_set(err, FORGE_EINVAL, "verifier '%s' is defined twice", v->name);
        forge_verifier_free(v);
        return rc;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        struct forge_verifier **nv = forge_realloc(s->v, sizeof *nv * (size_t)cap);
        if (!nv) {
            forge_verifier_free(v);
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        s->v = nv;
        s->cap = cap;
    }
    /* the set owns <v> from here (the tables borrow its strings), out of memory or not */
    s->v[s->n++] = v;
    int rc = forge_strtab_add(&s->names, v->name) == s->n - 1 ? 0 : FORGE_ENOMEM;
    for (int k = 0; k < v->ntools && !rc; k++)
        rc = bind_index(s, v->tools[k], s->n - 1);
    return rc ? forge_err_set(err, rc, "out of memory") : 0;
}

void forge_verifiers_free(struct forge_verifiers *s)
{
    for (int i = 0; i < s->n; i++)
        forge_verifier_free(s->v[i]);
    forge_free(s->v);
    for (size_t t = 0; t < s->tools.n; t++)
        forge_free(s->bound[t].i);
    forge_free(s->bound);
    forge_strtab_free(&s->names);
    forge_strtab_free(&s->tools);
    s->v = NULL;
    s->bound = NULL;
    s->n = s->cap = s->capbound = 0;
}

/* A verifier to run and its place before the sort (ties keep it: a stable sort). */
struct ranked {
    const struct forge_verifier *v;
    int pos;
};

static int by_order(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    int c = strcmp(a->v->order, b->v->order);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* One verifier's outcome (0/1/2) and message (new string or NULL). */
static int run_one(const struct forge_verifier *v, const struct forge_tool *tool,
                   const cJSON *call, char **message)
{
    const cJSON *result = forge_json_get(call, "result");
    const char *cat = tool ? forge_json_str(tool->def, "category") : NULL;
    int failure = cat && (!strcmp(cat, "write") || !strcmp(cat, "delete")) ? 2 : 1;
    char buf[FORGE_ERR_MAX + 256];
    *message = NULL;
    if (v->kind == FORGE_VERIFIER_SCHEMA) {
        cJSON *errors = NULL;
        int ok = forge_schema_validate(v->schema, result, &errors);
        if (ok == 1)
            return 0;
        if (ok < 0) { /* a limit, not a verdict on the result: block with what happened */
            cJSON_Delete(errors);
            snprintf(buf, sizeof buf, "the verifier's schema could not be evaluated: %s",
                     ok == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(ok));
            *message = forge_strdup(buf);
            return 2;
        }
        const cJSON *e = errors ? errors->child : NULL;
        snprintf(buf, sizeof buf, "result does not match the verifier's schema: %s%s%s",
                 e ? forge_json_str(e, "error") : "invalid",
                 e ? " at " : "", e ? forge_json_str(e, "instanceLocation") : "");
        cJSON_Delete(errors);
        *message = forge_strdup(buf);
        return 2;
    }
    if (v->kind == FORGE_VERIFIER_PATTERN) {
        char *text = cJSON_IsString(result) ? forge_strdup(result->valuestring)
                                            : forge_json_print(result, 0);
        FORGE_ERR_LOCAL(rerr);
        int outcome = 0;
        if (v->reject) {
            int r = forge_re_test(v->reject, 0, text, &rerr);
            if (r < 0) {
                outcome = failure;
                snprintf(buf, sizeof buf, "verifier '%s' failed: %s", v->name, rerr.msg);
                *message = forge_strdup(buf);
            } else if (r == 1) {
                outcome = v->pattern_outcome;
                *message = forge_strdup("result matches the reject pattern");
            }
        }
        if (!outcome && v->match) {
            int r = forge_re_test(v->match, 0, text, &rerr);
            if (r < 0) {
                outcome = failure;
                snprintf(buf, sizeof buf, "verifier '%s' failed: %s", v->name, rerr.msg);
                *message = forge_strdup(buf);
            } else if (r == 0) {
                outcome = v->pattern_outcome;
                *message = forge_strdup("result does not match the required pattern");
            }
        }
        forge_free(text);
        return outcome;
    }
    cJSON *args = cJSON_CreateArray(), *ref = cJSON_CreateObjectReference(call->child); /* read only */
    if (!args || !ref) {
        cJSON_Delete(args);
        cJSON_Delete(ref);
        snprintf(buf, sizeof buf, "verifier '%s' failed: out of memory", v->name);
        *message = forge_strdup(buf);
        return failure;
    }
    cJSON_AddItemToArray(args, ref);
    cJSON *out = NULL;
    FORGE_ERR_LOCAL(ferr);
    int rc = v->fn.call(v->fn.ctx, args, &out, &ferr);
    cJSON_Delete(args);
    if (rc) {
        snprintf(buf, sizeof buf, "verifier '%s' failed: %s", v->name, ferr.msg);
        *message = forge_strdup(buf);
        return failure;
    }
    /* The function returns "outcome" or ["outcome", "message"]. */
    const cJSON *o = cJSON_IsArray(out) ? out->child : out;
    const cJSON *m = cJSON_IsArray(out) && out->child ? out->child->next : NULL;
    int outcome = -1;
    for (int i = 0; i < 3 && cJSON_IsString(o); i++)
        if (!strcmp(o->valuestring, outcome_names[i]))
            outcome = i;
    if (outcome < 0) {
        char *got = out ? forge_json_print(o ? o : out, 0) : forge_strdup("nothing");
        snprintf(buf, sizeof buf, "verifier '%s' returned %s, not \"pass\", \"warn\" or \"block\"",
                 v->name, got ? got : "?");
        forge_free(got);
        cJSON_Delete(out);
        *message = forge_strdup(buf);
        return failure;
    }
    if (cJSON_IsString(m))
        *message = forge_strdup(m->valuestring);
    cJSON_Delete(out);
    return outcome;
}

int forge_verifiers_run(const struct forge_verifiers *s, const struct forge_tool *tool,
                        const cJSON *call, cJSON **verdict)
{
    *verdict = NULL;
    const char *name = forge_json_str(call, "name");
    if (!s || !s->n || !name)
        return 0;
    /* Tool-bound verifiers first, then "*" ones not bound to the tool by name, each in
     * registration order; then a stable sort by order. */
    const struct forge_verifier_list none = {NULL, 0, 0};
    long bt = forge_strtab_find(&s->tools, name), wt = forge_strtab_find(&s->tools, "*");
    const struct forge_verifier_list *a = bt >= 0 ? &s->bound[bt] : &none;
    const struct forge_verifier_list *w = wt >= 0 && wt != bt ? &s->bound[wt] : &none;
    struct ranked few[16];
    struct ranked *list = a->n + w->n <= 16 ? few : forge_calloc((size_t)(a->n + w->n), sizeof *list);
    if (!list)
        return FORGE_ENOMEM;
    int n = 0;
    for (int k = 0; k < a->n; k++, n++)
        list[n] = (struct ranked){s->v[a->i[k]], n};
    for (int k = 0, j = 0; k < w->n; k++) { /* both ascending: skip what <a> holds */
        while (j < a->n && a->i[j] < w->i[k])
            j++;
        if (j < a->n && a->i[j] == w->i[k])
            continue;
        list[n] = (struct ranked){s->v[w->i[k]], n};
        n++;
    }
    qsort(list, (size_t)n, sizeof *list, by_order);
    int rc = 0;
    cJSON *out = NULL, *checks = NULL;
    if (!n)
        goto done;
    out = cJSON_CreateObject();
    checks = cJSON_CreateArray();
    if (!out || !checks)
        goto oom;
    int worst = 0;
    const char *worst_name = NULL;
    char *worst_msg = NULL;
    for (int i = 0; i < n; i++) {
        char *msg = NULL;
        int o = run_one(list[i].v, tool, call, &msg);
        cJSON *c = cJSON_CreateObject();
        if (!c || !cJSON_AddItemToArray(checks, c)) {
            cJSON_Delete(c);
            forge_free(msg);
            forge_free(worst_msg);
            goto oom;
        }
        forge_json_add_str(c, "verifier", list[i].v->name);
        forge_json_add_item(c, "outcome", cJSON_CreateStringReference(outcome_names[o]));
        forge_json_add_item(c, "message", msg ? cJSON_CreateString(msg) : cJSON_CreateNull());
        if (o > worst) {
            worst = o;
            worst_name = list[i].v->name;
            forge_free(worst_msg);
            worst_msg = msg;
        } else {
            forge_free(msg);
        }
        if (o == 2)
            break;
    }
    forge_json_add_item(out, "outcome", cJSON_CreateStringReference(outcome_names[worst]));
    forge_json_add_item(out, "verifier", worst_name ? cJSON_CreateString(worst_name) : cJSON_CreateNull());
    forge_json_add_item(out, "message", worst_msg ? cJSON_CreateString(worst_msg) : cJSON_CreateNull());
    forge_json_add_item(out, "checks", checks);
    checks = NULL;
    forge_free(worst_msg);
    /* the outcome decides whether a result is blocked: a verdict without it is no verdict */
    if (!forge_json_str(out, "outcome"))
        goto oom;
    *verdict = out;
    out = NULL;
    goto done;
oom:
    rc = FORGE_ENOMEM;
done:
    cJSON_Delete(checks);
    cJSON_Delete(out);
    if (list != few)
        forge_free(list);
    return rc;
}
