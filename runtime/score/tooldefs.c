/* Tool definitions in every supported format -> name -> ToolSchema (see tooldefs.h). */
#include "score/tooldefs.h"
#include "data/json.h"
#include "data/yaml.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/strtab.h"

#include <stdbool.h>
#include <string.h>

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *gets(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Converts one definition <d> and adds it to <out>, whose names are in <names> (a table, so
 * that the check for a name defined twice is not a scan of every tool). <label> names it in
 * errors. */
static int add_one(cJSON *out, struct forge_strtab *names, const cJSON *d, const char *fallback_name,
                   const char *label, int i, struct forge_err *err)
{
    if (!cJSON_IsObject(d))
        return forge_err_set(err, FORGE_EINVAL, "%s[%d]: a tool definition must be an object",
                             label, i);
    const cJSON *src = d;
    const cJSON *fn = get(d, "function");
    if (cJSON_IsObject(fn)) /* OpenAI chat completions */
        src = fn;
    const char *name = gets(src, "name");
    if (get(d, "apiVersion") && cJSON_IsObject(get(d, "spec"))) { /* a PromptKit tool descriptor */
        src = get(d, "spec");
        name = gets(get(d, "metadata"), "name");
    }
    if (!name)
        name = fallback_name;
    if (!name || !*name)
        return forge_err_set(err, FORGE_EINVAL, "%s[%d]: a tool needs a \"name\"", label, i);
    if (forge_strtab_find(names, name) >= 0)
        return forge_err_set(err, FORGE_EINVAL, "%s[%d]: tool '%s' is defined twice", label, i,
                             name);
    const cJSON *params = get(src, "parameters");
    if (!params)
        params = get(src, "input_schema");
    if (!params)
        params = get(src, "inputSchema");
    if (!params)
        params = get(src, "schema");
    if (params && !cJSON_IsObject(params))
        return forge_err_set(err, FORGE_EINVAL,
                             "%s[%d]: the parameters of tool '%s' must be a JSON Schema object",
                             label, i, name);
    cJSON *ts = cJSON_CreateObject();
    if (!ts)
        goto oom;
    if (!cJSON_AddItemToObject(out, name, ts)) {
        cJSON_Delete(ts);
        goto oom;
    }
    const cJSON *own = cJSON_AddStringToObject(ts, "name", name);
    if (!own || forge_strtab_add(names, own->valuestring) < 0)
        goto oom;
    const cJSON *desc = get(src, "description");
    if (desc && !cJSON_AddItemToObject(ts, "description", cJSON_Duplicate(desc, 1)))
        goto oom;
    cJSON *p = params ? cJSON_Duplicate(params, 1) : NULL;
    if (!p) {
        p = cJSON_CreateObject();
        if (p && (!cJSON_AddStringToObject(p, "type", "object") ||
                  !cJSON_AddObjectToObject(p, "properties"))) {
            cJSON_Delete(p);
            p = NULL;
        }
    }
    if (!p || !cJSON_AddItemToObject(ts, "parameters", p)) {
        cJSON_Delete(p);
        goto oom;
    }
    const char *keys[] = {"deprecated", "replacedBy"};
    for (int k = 0; k < 2; k++) {
        const cJSON *v = get(src, keys[k]);
        if (!v)
            v = get(d, keys[k]);
        if (v && !cJSON_AddItemToObject(ts, keys[k], cJSON_Duplicate(v, 1)))
            goto oom;
    }
    return 0;
oom:
    return forge_err_set(err, FORGE_ENOMEM, "out of memory reading tool definitions");
}

static bool looks_like_def(const cJSON *d)
{
    return cJSON_IsObject(d) && (cJSON_IsString(get(d, "name")) || cJSON_IsObject(get(d, "function")) ||
                                 (get(d, "apiVersion") && cJSON_IsObject(get(d, "spec"))));
}

cJSON *forge_tooldefs_import(const cJSON *doc, struct forge_err *err)
{
    cJSON *out = cJSON_CreateObject();
    if (!out) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory reading tool definitions");
        return NULL;
    }
    int rc = 0;
    struct forge_strtab names = FORGE_STRTAB_INIT;
    const cJSON *list = doc;
    const char *label = "tools";
    /* unwrap JSON-RPC {"result": {"tools": [...]}} and {"tools": [...]} */
    if (cJSON_IsObject(list) && cJSON_IsObject(get(list, "result")))
        list = get(list, "result");
    if (cJSON_IsObject(list) && cJSON_IsArray(get(list, "tools")))
        list = get(list, "tools");
    if (cJSON_IsArray(list)) {
        int i = 0;
        for (const cJSON *d = list->child; d && !rc; d = d->next, i++)
            rc = add_one(out, &names, d, NULL, label, i, err);
    } else if (looks_like_def(list)) {
        rc = add_one(out, &names, list, NULL, label, 0, err);
    } else if (cJSON_IsObject(list)) {
        /* agent-eval-harness Record<string, ToolSchema> */
        int i = 0;
        for (const cJSON *d = list->child; d && !rc; d = d->next, i++)
            rc = add_one(out, &names, d, d->string, label, i, err);
    } else {
        rc = forge_err_set(err, FORGE_EINVAL,
                           "tool definitions must be an object or an array of objects");
    }
    forge_strtab_free(&names);
    if (rc) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

cJSON *forge_tooldefs_load(const char *path, struct forge_err *err)
{
    cJSON *doc = NULL;
    if (forge_yaml_is_path(path)) {
        /* YAML: several documents (---) are read as a list of definitions */
        char *text = NULL;
        size_t len = 0;
        if (forge_file_read_input(path, &text, &len, err))
            return NULL;
        doc = forge_yaml_parse_all(text, len, path, NULL, err);
        forge_free(text);
        if (doc && cJSON_GetArraySize(doc) == 1) {
            cJSON *one = cJSON_DetachItemFromArray(doc, 0);
            cJSON_Delete(doc);
            doc = one;
        }
    } else {
        doc = forge_json_load(path, err);
    }
    if (!doc)
        return NULL;
    cJSON *r = forge_tooldefs_import(doc, err);
    if (!r)
        forge_err_prefix(err, "%s", path);
    cJSON_Delete(doc);
    return r;
}
