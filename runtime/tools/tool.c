/* Tools: definitions, registry, executors. */
#include "tools/tool.h"
#include "tools/tool_http.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/schema.h"
#include "data/yaml.h"
#include "base/file.h"
#include "tools/promptkit.h"

#include <stdio.h>
#include <string.h>

/* Keys of forge's tool JSON, for the did-you-mean of unknown keys. */
static const char *const known_keys[] = {
    "name", "description", "parameters", "schema", "input_schema", "inputSchema",
    "outputSchema", "output_schema", "annotations", "title", "strict",
    "mock", "responses", "fallback", "template", "http", "timeout", "timeout_ms", "coerce",
    "category", "consequenceLevel", "requiresConfirmation", "triggerPhrases", "tags",
    "version", "status", "dependsOn", "mcpRouting", "type", "function",
    "run", "mock_template", NULL,
};

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    size_t d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

static const char *suggest(const char *key)
{
    const char *best = NULL;
    size_t bd = 3;
    for (const char *const *k = known_keys; *k; k++) {
        size_t d = edit_distance(key, *k);
        if (d < bd) {
            bd = d;
            best = *k;
        }
    }
    return best;
}

/* agent-tool-forge's flat schema: every value an object with a "type" and no JSON Schema
 * keyword at the top. */
static int is_flat_schema(const cJSON *s)
{
    if (!cJSON_IsObject(s) || !s->child)
        return 0;
    if (forge_json_get(s, "type") && cJSON_IsString(forge_json_get(s, "type")))
        return 0;
    if (forge_json_get(s, "properties") || forge_json_get(s, "$ref"))
        return 0;
    for (const cJSON *c = s->child; c; c = c->next)
        if (!cJSON_IsObject(c) || !cJSON_IsString(forge_json_get(c, "type")))
            return 0;
    return 1;
}

/* {"city": {"type": "string", "optional": true}} -> {"type": "object", "properties": {...},
 * "required": [...]} (optional dropped from the property). */
static cJSON *from_flat(const cJSON *s)
{
    cJSON *out = cJSON_CreateObject();
    forge_json_add_str(out, "type", "object");
    cJSON *props = forge_json_add_obj(out, "properties");
    cJSON *req = cJSON_CreateArray();
    for (const cJSON *c = s->child; c; c = c->next) {
        cJSON *p = cJSON_Duplicate(c, 1);
        cJSON *opt = cJSON_DetachItemFromObjectCaseSensitive(p, "optional");
        if (!cJSON_IsTrue(opt))
            cJSON_AddItemToArray(req, cJSON_CreateString(c->string));
        cJSON_Delete(opt);
        cJSON_AddItemToObject(props, c->string, p);
    }
    if (req->child)
        forge_json_add_item(out, "required", req);
    else
        cJSON_Delete(req);
    return out;
}

struct forge_tool *forge_tool_from_json(const cJSON *in, const char *where, struct forge_err *err)
{
    if (!cJSON_IsObject(in)) {
        forge_err_set(err, FORGE_EINVAL, "%s: a tool definition must be an object", where);
        return NULL;
    }
    /* OpenAI's {"type": "function", "function": {name, description, parameters}} keeps forge's
     * own keys (executors, agent-tool-forge fields) beside "function": merge both levels. */
    cJSON *merged = NULL;
    const cJSON *def = in;
    const cJSON *fn = forge_json_get(in, "function");
    if (cJSON_IsObject(fn)) {
        merged = cJSON_Duplicate(fn, 1);
        for (const cJSON *c = in->child; c; c = c->next)
            if (strcmp(c->string, "function") && strcmp(c->string, "type") &&
                !forge_json_get(merged, c->string))
                cJSON_AddItemToObject(merged, c->string, cJSON_Duplicate(c, 1));
        def = merged;
    }
    struct forge_tool *t = NULL;
    for (const cJSON *c = def->child; c; c = c->next) {
        int known = 0;
        for (const char *const *k = known_keys; *k && !known; k++)
            known = strcmp(c->string, *k) == 0;
        if (!known) {
            const char *s = suggest(c->string);
            forge_err_set(err, FORGE_EINVAL, "%s: unknown key '%s' in a tool definition%s%s%s",
                          where, c->string, s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
            goto fail;
        }
    }
    const char *name = forge_json_str(def, "name");
    if (!name || !*name) {
        forge_err_set(err, FORGE_EINVAL, "%s: a tool needs a non-empty string 'name'", where);
        goto fail;
    }
    t = forge_calloc(1, sizeof *t);
    if (!t) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto fail;
    }
    t->name = forge_strdup(name);
    t->def = cJSON_CreateObject();
    forge_json_add_str(t->def, "name", name);
    const char *desc = forge_json_str(def, "description");
    forge_json_add_str(t->def, "description", desc ? desc : "");
    const cJSON *params = NULL;
    static const char *const pkeys[] = {"parameters", "schema", "input_schema", "inputSchema", NULL};
    for (const char *const *k = pkeys; *k && !params; k++)
        params = forge_json_get(def, *k);
    cJSON *schema = NULL;
    if (params && !cJSON_IsNull(params)) {
        if (!cJSON_IsObject(params) && !cJSON_IsBool(params)) {
            forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': parameters must be a JSON Schema object",
                          where, name);
            goto fail;
        }
        schema = is_flat_schema(params) ? from_flat(params) : cJSON_Duplicate(params, 1);
    } else {
        schema = cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
    }
    forge_json_add_item(t->def, "parameters", schema);
    if (params && !cJSON_IsNull(params)) {
        struct forge_schema_opts so = {0};
        so.draft = FORGE_DRAFT_DEFAULT;
        t->schema = forge_schema_compile(schema, &so, err);
        if (!t->schema) {
            forge_err_prefix(err, "%s: tool '%s': parameters", where, name);
            goto fail;
        }
    }
    const cJSON *os = forge_json_get(def, "output_schema");
    if (!os)
        os = forge_json_get(def, "outputSchema");
    if (os && !cJSON_IsNull(os)) {
        if (!cJSON_IsObject(os) && !cJSON_IsBool(os)) {
            forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': output_schema must be a JSON Schema object", where, name);
            goto fail;
        }
        struct forge_schema_opts so = {0};
        so.draft = FORGE_DRAFT_DEFAULT;
        forge_json_add_item(t->def, "output_schema", cJSON_Duplicate(os, 1));
        t->out_schema = forge_schema_compile(forge_json_get(t->def, "output_schema"), &so, err);
        if (!t->out_schema) {
            forge_err_prefix(err, "%s: tool '%s': output_schema", where, name);
            goto fail;
        }
    }
    static const char *const copy[] = {"category", "consequenceLevel", "requiresConfirmation",
                                       "triggerPhrases", "timeout", "tags", "version", "status",
                                       "dependsOn", "annotations", NULL};
    for (const char *const *k = copy; *k; k++) {
        const cJSON *v = forge_json_get(def, *k);
        if (v)
            cJSON_AddItemToObject(t->def, *k, cJSON_Duplicate(v, 1));
    }
    const char *cat = forge_json_str(def, "category");
    if (cat && strcmp(cat, "read") && strcmp(cat, "write") && strcmp(cat, "delete") &&
        strcmp(cat, "side_effect") && strcmp(cat, "analysis")) {
        forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': category must be read, write, delete, "
                      "side_effect or analysis, not '%s'", where, name, cat);
        goto fail;
    }
    const cJSON *to = forge_json_get(def, "timeout_ms");
    if (!to)
        to = forge_json_get(def, "timeout");
    if (to) {
        if (!cJSON_IsNumber(to) || to->valuedouble < 0) {
            forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': timeout must be a number of "
                          "milliseconds", where, name);
            goto fail;
        }
        t->timeout_ms = (long)to->valuedouble;
    }
    t->coerce = cJSON_IsTrue(forge_json_get(def, "coerce"));
    t->net_allowed = true;
    const cJSON *v;
    if ((v = forge_json_get(def, "responses"))) {
        if (!cJSON_IsArray(v)) {
            forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': responses must be an array of "
                          "{\"when\": {...}, \"result\": ...}", where, name);
            goto fail;
        }
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            const cJSON *when = forge_json_get(e, "when");
            if (!cJSON_IsObject(e) || (when && !cJSON_IsObject(when)) ||
                (!forge_json_get(e, "result") &&
                 !cJSON_IsString(forge_json_get(e, "error")))) {
                forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': responses[%d] must be "
                              "{\"when\": {...}, \"result\": ...} or {\"when\": {...}, "
                              "\"error\": \"...\"}", where, name, i);
                goto fail;
            }
        }
        t->kind = FORGE_TOOL_RESPONSES;
        t->data = cJSON_Duplicate(v, 1);
        const cJSON *fb = forge_json_get(def, "fallback");
        if (fb)
            t->fallback = cJSON_Duplicate(fb, 1);
    } else if ((v = forge_json_get(def, "template")) ||
               (v = forge_json_get(def, "mock_template"))) {
        if (!cJSON_IsString(v)) {
            forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': template must be a string (or a Lua "
                          "function)", where, name);
            goto fail;
        }
        t->kind = FORGE_TOOL_TEMPLATE;
        t->data = cJSON_Duplicate(v, 1);
    } else if ((v = forge_json_get(def, "mock"))) {
        t->kind = FORGE_TOOL_MOCK;
        t->data = cJSON_Duplicate(v, 1);
    } else if ((v = forge_json_get(def, "http"))) {
        if (forge_tool_http_check(v, name, where, err))
            goto fail;
        t->kind = FORGE_TOOL_HTTP;
        t->data = cJSON_Duplicate(v, 1);
    }
    cJSON_Delete(merged);
    return t;
fail:
    cJSON_Delete(merged);
    forge_tool_free(t);
    return NULL;
}

void forge_tool_set_function(struct forge_tool *t, struct forge_callable fn, bool is_template,
                             void (*free_fn)(void *ctx))
{
    if (t->has_fn && t->free_fn)
        t->free_fn(t->fn.ctx);
    t->fn = fn;
    t->has_fn = true;
    t->free_fn = free_fn;
    if (is_template) {
        t->kind = FORGE_TOOL_TEMPLATE;
        cJSON_Delete(t->data);
        t->data = NULL;
    } else {
        t->kind = FORGE_TOOL_RUN;
    }
}

void forge_tool_free(struct forge_tool *t)
{
    if (!t)
        return;
    if (t->has_fn && t->free_fn)
        t->free_fn(t->fn.ctx);
    forge_free(t->name);
    cJSON_Delete(t->def);
    cJSON_Delete(t->data);
    cJSON_Delete(t->fallback);
    forge_schema_free(t->schema);
    forge_schema_free(t->out_schema);
    forge_free(t);
}

/* ---- executors ---- */

/* Every key of <when> is present in <args> with an equal value (numbers by value; nested
 * objects compared as subsets too). */
static int subset(const cJSON *when, const cJSON *args)
{
    if (cJSON_IsObject(when)) {
        if (!cJSON_IsObject(args))
            return 0;
        for (const cJSON *c = when->child; c; c = c->next) {
            const cJSON *a = forge_json_get(args, c->string);
            if (!a || !subset(c, a))
                return 0;
        }
        return 1;
    }
    return forge_json_equal(when, args);
}

static cJSON *call_scope(const struct forge_tool *t, const struct forge_tool_call *call)
{
    cJSON *s = cJSON_CreateObject();
    forge_json_add_str(s, "tool", t->name);
    forge_json_add_str(s, "id", call->id ? call->id : "");
    forge_json_add_num(s, "index", call->index);
    forge_json_add_num(s, "round", call->round);
    forge_json_add_item(s, "args", call->arguments ? cJSON_Duplicate(call->arguments, 1)
                                                     : cJSON_CreateObject());
    forge_json_add_item(s, "messages", call->messages ? cJSON_Duplicate(call->messages, 1)
                                                        : cJSON_CreateArray());
    return s;
}

int forge_tool_render(const char *tmpl, const cJSON *scope, size_t max, char **out)
{
    struct forge_buf b;
    forge_buf_init(&b, max);
    *out = NULL;
    int rc = 0;
    const char *p = tmpl;
    while (*p && !rc) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        if (!open || !close) {
            rc = forge_buf_adds(&b, p);
            break;
        }
        rc = forge_buf_add(&b, p, (size_t)(open - p));
        char path[256];
        const char *s = open + 2, *e = close;
        while (s < e && *s == ' ')
            s++;
        while (e > s && e[-1] == ' ')
            e--;
        size_t n = (size_t)(e - s) < sizeof path - 1 ? (size_t)(e - s) : sizeof path - 1;
        memcpy(path, s, n);
        path[n] = '\0';
        const cJSON *v = rc ? NULL : forge_json_at(scope, path);
        if (v) {
            char *q = forge_json_print(v, 0); /* a string escaped, with its quotes */
            if (!q) {
                rc = FORGE_ENOMEM;
            } else {
                size_t ql = strlen(q);
                rc = cJSON_IsString(v) ? forge_buf_add(&b, q + 1, ql >= 2 ? ql - 2 : 0)
                                       : forge_buf_add(&b, q, ql);
                forge_free(q);
            }
        }
        p = close + 2;
    }
    if (rc) {
        forge_buf_free(&b);
        return rc;
    }
    *out = forge_buf_take(&b);
    return *out ? 0 : FORGE_ENOMEM;
}

/* A result given as JSON text, or {"result": text} when it is not JSON. A text whose tree would
 * pass the input limit (each value takes at least a cJSON node; the case's results are bounded
 * by it too) is refused before it is built: NULL with FORGE_ELIMIT in <err>. */
static cJSON *parse_result(const struct forge_tool *t, const char *text, struct forge_err *err)
{
    size_t len = strlen(text), max = forge_file_input_limit(), most = max / sizeof(cJSON);
    size_t past;
    if (len / 2 + 1 > most && forge_json_count_values(text, len, most, &past) > most) {
        forge_err_set(err, FORGE_ELIMIT, "tool '%s': its result takes more than %zu MiB as JSON "
                      "(the input limit; raise it with --max-file-mb)", t->name, max >> 20);
        return NULL;
    }
    cJSON *v = forge_json_parse(text, len, "template", NULL);
    if (v)
        return v;
    v = cJSON_CreateObject();
    forge_json_add_str(v, "result", text);
    return v;
}

static int run_function(const struct forge_tool *t, const struct forge_tool_call *call,
                        cJSON **result, char **error, struct forge_err *err)
{
    cJSON *args = cJSON_CreateArray();
    /* the function reads the arguments, never changes them: no copy for it */
    cJSON_AddItemToArray(args, cJSON_IsObject(call->arguments)
                                   ? cJSON_CreateObjectReference(call->arguments->child)
                                   : call->arguments ? cJSON_Duplicate(call->arguments, 1)
                                                     : cJSON_CreateObject());
    if (!t->fn.one_arg) { /* a function(args) never sees the call: skip converting the history */
        cJSON *scope = call_scope(t, call);
        cJSON_DeleteItemFromObjectCaseSensitive(scope, "args");
        cJSON_AddItemToArray(args, scope);
    }
    cJSON *out = NULL;
    FORGE_ERR_LOCAL(ferr);
    int rc = t->fn.call(t->fn.ctx, args, &out, &ferr);
    cJSON_Delete(args);
    if (rc == FORGE_ENOMEM)
        return forge_err_set(err, rc, "%s", ferr.msg);
    if (rc) {
        *error = forge_strdup(ferr.msg);
        return 0;
    }
    if (t->kind == FORGE_TOOL_TEMPLATE && cJSON_IsString(out)) {
        cJSON *v = parse_result(t, out->valuestring, err);
        cJSON_Delete(out);
        if (!v && err && err->code == FORGE_ELIMIT)
            return err->code;
        out = v;
    }
    *result = out ? out : cJSON_CreateNull();
    return 0;
}

static int execute(const struct forge_tool *t, const struct forge_tool_call *call, cJSON **result, char **error,
                   struct forge_err *err);

int forge_tool_execute(const struct forge_tool *t, const struct forge_tool_call *call,
                       cJSON **result, char **error, struct forge_err *err)
{
    int rc = execute(t, call, result, error, err);
    if (rc || *error || !t->out_schema)
        return rc;
    /* a result is checked against the schema the tool promises (PromptKit's ToolDescriptor,
     * MCP's outputSchema): one that breaks it is the tool's failure */
    cJSON *verrs = NULL;
    int ok = forge_schema_validate(t->out_schema, *result, &verrs);
    if (ok < 0) {
        *error = forge_strdupf("validating the result of tool '%s' failed: %s", t->name,
                               ok == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(ok));
    } else if (ok == 0) {
        const cJSON *e = verrs ? verrs->child : NULL;
        const char *loc = e ? forge_json_str(e, "instanceLocation") : "";
        *error = forge_strdupf("result of tool '%s' does not match its output_schema: %s at '%s'", t->name,
                               e ? forge_json_str(e, "error") : "not valid", loc ? loc : "");
    }
    cJSON_Delete(verrs);
    if (ok <= 0) {
        cJSON_Delete(*result);
        *result = NULL;
        if (!*error)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    return 0;
}

static int execute(const struct forge_tool *t, const struct forge_tool_call *call, cJSON **result, char **error,
                   struct forge_err *err)
{
    *result = NULL;
    *error = NULL;
    switch (t->kind) {
    case FORGE_TOOL_RUN:
        return run_function(t, call, result, error, err);
    case FORGE_TOOL_TEMPLATE: {
        if (t->has_fn)
            return run_function(t, call, result, error, err);
        cJSON *scope = call_scope(t, call);
        char *text;
        /* a placeholder may be the whole conversation ({{messages}}), and a template may hold
         * thousands: the text is an input of the run, bounded as one */
        size_t max = forge_file_input_limit();
        int rc = forge_tool_render(t->data->valuestring, scope, max, &text);
        cJSON_Delete(scope);
        if (rc == FORGE_ELIMIT)
            return forge_err_set(err, FORGE_ELIMIT, "tool '%s': its template's text takes more than %zu MiB (the "
                                 "input limit; raise it with --max-file-mb)", t->name, max >> 20);
        if (rc)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        *result = parse_result(t, text, err);
        forge_free(text);
        return *result || !err || err->code != FORGE_ELIMIT ? 0 : err->code;
    }
    case FORGE_TOOL_RESPONSES:
        for (const cJSON *e = t->data->child; e; e = e->next) {
            const cJSON *when = forge_json_get(e, "when");
            if (when && !subset(when, call->arguments))
                continue;
            const char *emsg = forge_json_str(e, "error");
            if (emsg)
                *error = forge_strdup(emsg);
            else
                *result = cJSON_Duplicate(forge_json_get(e, "result"), 1);
            return 0;
        }
        if (t->fallback) {
            *result = cJSON_Duplicate(t->fallback, 1);
        } else {
            char *a = call->arguments ? forge_json_print(call->arguments, 0) : NULL;
            *error = forge_strdupf("no canned response of tool '%s' matches the arguments %s "
                                   "(and it has no fallback)", t->name, a ? a : "{}");
            forge_free(a);
        }
        return 0;
    case FORGE_TOOL_MOCK:
        *result = cJSON_Duplicate(t->data, 1);
        return 0;
    case FORGE_TOOL_HTTP:
        return forge_tool_http_execute(t, call, result, error, err);
    case FORGE_TOOL_NONE:
    default:
        *error = forge_strdupf("tool '%s' has no implementation (give it run, mock, responses, "
                               "template or http, or a stub in the case)", t->name);
        return 0;
    }
}

cJSON *forge_tool_model_def(const struct forge_tool *t)
{
    cJSON *d = cJSON_CreateObject();
    /* requests are built every round and read only: name, description and schema are the
     * tool's own, referenced, not copied */
    if (t->name)
        forge_json_add_item(d, "name", cJSON_CreateStringReference(t->name));
    const char *desc = forge_json_str(t->def, "description");
    if (desc)
        forge_json_add_item(d, "description", cJSON_CreateStringReference(desc));
    const cJSON *params = forge_json_get(t->def, "parameters");
    if (params)
        cJSON_AddItemReferenceToObject(d, "parameters", (cJSON *)params);
    return d;
}

/* ---- registry ---- */

int forge_toolset_add(struct forge_toolset *s, struct forge_tool *t, struct forge_err *err)
{
    if (forge_toolset_find(s, t->name)) {
        int rc = forge_err_set(err, FORGE_EINVAL, "tool '%s' is defined twice", t->name);
        forge_tool_free(t);
        return rc;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        struct forge_tool **v = forge_realloc(s->v, sizeof *v * (size_t)cap);
        if (!v) {
            forge_tool_free(t);
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        s->v = v;
        s->cap = cap;
    }
    if (forge_strtab_add(&s->names, t->name) != s->n) {
        forge_tool_free(t);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    s->v[s->n++] = t;
    return 0;
}

const struct forge_tool *forge_toolset_find(const struct forge_toolset *s, const char *name)
{
    long i = forge_strtab_find(&s->names, name);
    return i >= 0 ? s->v[i] : NULL;
}

void forge_toolset_free(struct forge_toolset *s)
{
    for (int i = 0; i < s->n; i++)
        forge_tool_free(s->v[i]);
    forge_free(s->v);
    forge_strtab_free(&s->names);
    s->v = NULL;
    s->n = s->cap = 0;
}

/* Adds the tool defined by <def> (borrowed): forge's tool JSON, or a PromptKit manifest. */
static int add_def(struct forge_toolset *s, const cJSON *def, const char *path, const char *where,
                   const struct forge_yaml_marks *marks, struct forge_err *err)
{
    cJSON *pk = NULL;
    char at[1200];
    if (forge_promptkit_is_manifest(def)) {
        if (!(pk = forge_promptkit_tool(def, path, marks, err)))
            return err ? err->code : FORGE_EINVAL;
        int line, col;
        const cJSON *spec = forge_json_get(def, "spec");
        if (forge_yaml_mark(marks, spec, true, &line, &col))
            snprintf(at, sizeof at, "%s:%d:%d: spec", path, line, col);
        else
            snprintf(at, sizeof at, "%s: spec", where);
        where = at;
        def = pk;
    } else if (marks) {
        int line, col;
        if (forge_yaml_mark(marks, def, false, &line, &col)) {
            snprintf(at, sizeof at, "%s:%d:%d", path, line, col);
            where = at;
        }
    }
    struct forge_tool *t = forge_tool_from_json(def, where, err);
    cJSON_Delete(pk);
    if (!t)
        return FORGE_EINVAL;
    int rc = forge_toolset_add(s, t, err);
    if (rc == FORGE_EINVAL)
        forge_err_prefix(err, "%s", where);
    return rc;
}

/* Adds the tools of one document: a definition, an array of them, or {"tools": [...]}. */
static int load_doc(struct forge_toolset *s, const cJSON *doc, const char *path,
                    const struct forge_yaml_marks *marks, struct forge_err *err)
{
    const cJSON *list = doc;
    if (cJSON_IsObject(doc) && cJSON_IsArray(forge_json_get(doc, "tools")))
        list = forge_json_get(doc, "tools"); /* MCP tools/list result */
    if (!cJSON_IsArray(list))
        return add_def(s, doc, path, path, marks, err);
    int rc = 0, i = 0;
    for (const cJSON *c = list->child; c && !rc; c = c->next, i++) {
        char where[1024];
        snprintf(where, sizeof where, "%s: tools[%d]", path, i);
        rc = add_def(s, c, path, where, marks, err);
    }
    return rc;
}

int forge_toolset_load_file(struct forge_toolset *s, const char *path, struct forge_err *err)
{
    if (!forge_yaml_is_path(path)) {
        cJSON *doc = forge_json_load(path, err);
        if (!doc)
            return err ? err->code : FORGE_EINVAL;
        int rc = load_doc(s, doc, path, NULL, err);
        cJSON_Delete(doc);
        return rc;
    }
    /* YAML: each document (separated by ---) is one definition or a list of them */
    struct forge_yaml_marks *marks = NULL;
    char *text = NULL;
    size_t len = 0;
    if (forge_file_read_input(path, &text, &len, err))
        return err ? err->code : FORGE_EIO;
    cJSON *docs = forge_yaml_parse_all(text, len, path, &marks, err);
    forge_free(text);
    if (!docs)
        return err ? err->code : FORGE_EINVAL;
    int rc = 0;
    if (!docs->child)
        rc = forge_err_set(err, FORGE_EINVAL, "%s:1:1: no tool definition (the file is empty)", path);
    for (const cJSON *d = docs->child; d && !rc; d = d->next)
        rc = load_doc(s, d, path, marks, err);
    cJSON_Delete(docs);
    forge_yaml_marks_free(marks);
    return rc;
}

static _Thread_local const struct forge_tool_notifier *notifier;

void forge_tool_notifier_set(const struct forge_tool_notifier *n)
{
    notifier = n;
}

const struct forge_tool_notifier *forge_tool_notifier(void)
{
    return notifier;
}
