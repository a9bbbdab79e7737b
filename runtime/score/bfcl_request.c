/* Asking BFCL's questions: the chat request BFCL's function-calling handlers send for a question,
 * and the result value they store for an answer. */
#include "score/bfcl.h"
#include "base/alloc.h"
#include "data/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *to_cjson(const struct forge_pyval *v)
{
    switch (v->kind) {
    case FORGE_PY_NONE: return cJSON_CreateNull();
    case FORGE_PY_BOOL: return cJSON_CreateBool(v->u.b);
    case FORGE_PY_INT: return cJSON_CreateNumber((double)v->u.i);
    case FORGE_PY_BIGINT: return cJSON_CreateNumber(strtod(v->u.s, NULL));
    case FORGE_PY_FLOAT: return cJSON_CreateNumber(v->u.f);
    case FORGE_PY_STR:
    case FORGE_PY_RAW: return cJSON_CreateString(v->u.s);
    case FORGE_PY_LIST: {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < v->n; i++) {
            cJSON *x = to_cjson(v->u.items[i]);
            if (!x || !cJSON_AddItemToArray(a, x)) {
                cJSON_Delete(x);
                cJSON_Delete(a);
                return NULL;
            }
        }
        return a;
    }
    case FORGE_PY_DICT: {
        cJSON *o = cJSON_CreateObject();
        for (size_t i = 0; o && i < v->n; i++) {
            cJSON *x = to_cjson(v->u.pairs[i].val);
            if (!x || !cJSON_AddItemToObject(o, v->u.pairs[i].key, x)) {
                cJSON_Delete(x);
                cJSON_Delete(o);
                return NULL;
            }
        }
        return o;
    }
    }
    return NULL;
}

/* GORILLA_TO_OPENAPI */
static const char *openapi_type(const char *t)
{
    static const char *const map[][2] = {
        {"integer", "integer"}, {"number", "number"},   {"float", "number"},   {"string", "string"},
        {"boolean", "boolean"}, {"bool", "boolean"},    {"array", "array"},    {"list", "array"},
        {"dict", "object"},     {"object", "object"},   {"tuple", "array"},    {"any", "string"},
        {"byte", "integer"},    {"short", "integer"},   {"long", "integer"},   {"double", "number"},
        {"char", "string"},     {"ArrayList", "array"}, {"Array", "array"},    {"HashMap", "object"},
        {"Hashtable", "object"}, {"Queue", "array"},    {"Stack", "array"},    {"Any", "string"},
        {"String", "string"},   {"Bigint", "integer"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], t) == 0)
            return map[i][1];
    return NULL;
}

static int set_string(cJSON *o, const char *key, const char *value)
{
    cJSON *s = cJSON_CreateString(value);
    if (!s)
        return FORGE_ENOMEM;
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        return cJSON_ReplaceItemInObjectCaseSensitive(o, key, s) ? 0 : FORGE_ENOMEM;
    return cJSON_AddItemToObject(o, key, s) ? 0 : (cJSON_Delete(s), FORGE_ENOMEM);
}

static int append_description(cJSON *o, const char *text)
{
    const char *d = forge_json_str(o, "description");
    size_t n = (d ? strlen(d) : 0) + strlen(text) + 1;
    char *s = forge_malloc(n);
    if (!s)
        return FORGE_ENOMEM;
    snprintf(s, n, "%s%s", d ? d : "", text);
    int rc = set_string(o, "description", s);
    forge_free(s);
    return rc;
}

/* An items.type through the table; BFCL raises on a type it lacks. */
static int map_items_type(cJSON *items, struct forge_err *err)
{
    const char *t = forge_json_str(items, "type");
    const char *m = t ? openapi_type(t) : NULL;
    if (!m)
        return forge_err_set(err, FORGE_EINVAL, "items type '%s' has no JSON Schema equivalent",
                             t ? t : "(none)");
    return set_string(items, "type", m);
}

/* BFCL's _cast_to_openai_type on a "properties" object, in place. */
static int cast_properties(cJSON *props, struct forge_err *err)
{
    cJSON *p;
    cJSON_ArrayForEach(p, props) {
        if (!cJSON_IsObject(p))
            continue;
        int rc;
        const char *t = forge_json_str(p, "type");
        if (!t) {
            rc = set_string(p, "type", "string");
        } else {
            if (strcmp(t, "float") == 0) {
                if ((rc = set_string(p, "format", "float")) != 0 ||
                    (rc = append_description(p, " This is a float type value.")) != 0)
                    return rc;
            }
            const char *m = openapi_type(t);
            rc = set_string(p, "type", m ? m : "string");
        }
        if (rc)
            return rc;
        const char *now = forge_json_str(p, "type");
        if (strcmp(now, "array") != 0 && strcmp(now, "object") != 0)
            continue;
        cJSON *sub = cJSON_GetObjectItemCaseSensitive(p, "properties");
        cJSON *items = cJSON_GetObjectItemCaseSensitive(p, "items");
        if (sub) {
            if ((rc = cast_properties(sub, err)) != 0)
                return rc;
        } else if (cJSON_IsObject(items)) {
            if ((rc = map_items_type(items, err)) != 0)
                return rc;
            const char *it = forge_json_str(items, "type");
            cJSON *inner = cJSON_GetObjectItemCaseSensitive(items, "items");
            cJSON *iprops = cJSON_GetObjectItemCaseSensitive(items, "properties");
            if (strcmp(it, "array") == 0 && cJSON_IsObject(inner))
                rc = map_items_type(inner, err);
            else if (strcmp(it, "object") == 0 && iprops)
                rc = cast_properties(iprops, err);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* BFCL's language hint on every function, and for the Java and JavaScript categories the
 * parameters' (their types become strings). */
static int language_hints(cJSON *fn, const struct forge_pyval *doc, enum forge_bfcl_lang lang)
{
    const struct forge_pyval *pprops = forge_py_getz(forge_py_getz(doc, "parameters"), "properties");
    int rc = append_description(fn, lang == FORGE_BFCL_JAVA ? " Note that the provided function is in Java 8 SDK syntax."
                                     : lang == FORGE_BFCL_JAVASCRIPT
                                         ? " Note that the provided function is in JavaScript syntax."
                                         : " Note that the provided function is in Python 3 syntax.");
    if (rc || lang == FORGE_BFCL_PYTHON)
        return rc;
    cJSON *props = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fn, "parameters"),
                                                    "properties");
    const char *lname = lang == FORGE_BFCL_JAVA ? "Java" : "JavaScript";
    cJSON *p;
    cJSON_ArrayForEach(p, props) {
        const char *t = forge_json_str(p, "type");
        if (!t)
            continue;
        char text[256];
        if (strcmp(t, "any") == 0)
            snprintf(text, sizeof text, " This parameter can be of any type of %s object in string representation.",
                     lname);
        else
            snprintf(text, sizeof text, " This is %s %s type parameter in string representation.", lname, t);
        if ((rc = append_description(p, text)) != 0)
            return rc;
        bool list = lang == FORGE_BFCL_JAVA ? (!strcmp(t, "ArrayList") || !strcmp(t, "Array")) : !strcmp(t, "array");
        if (list) {
            const char *it = forge_json_str(cJSON_GetObjectItemCaseSensitive(p, "items"), "type");
            snprintf(text, sizeof text, " The list elements are of type %s; they are not in string representation.",
                     it ? it : "None");
            if ((rc = append_description(p, text)) != 0)
                return rc;
            cJSON_DeleteItemFromObjectCaseSensitive(p, "items");
        }
        if (lang == FORGE_BFCL_JAVASCRIPT && !strcmp(t, "dict")) {
            const struct forge_pyval *sub = forge_py_getz(forge_py_getz(pprops, p->string), "properties");
            if (sub) {
                struct forge_buf b;
                forge_buf_init(&b, 0);
                /* json.dumps of the sub-schema, as Python writes it */
                rc = forge_buf_adds(&b, " The dictionary entries have the following schema; they are not in "
                                        "string representation. ");
                if (!rc)
                    rc = forge_py_dumps(&b, sub);
                if (!rc)
                    rc = append_description(p, b.data);
                forge_buf_free(&b);
                if (rc)
                    return rc;
                cJSON_DeleteItemFromObjectCaseSensitive(p, "properties");
            }
        }
        if ((rc = set_string(p, "type", "string")) != 0)
            return rc;
    }
    return 0;
}

cJSON *forge_bfcl_request(const struct forge_pyval *question, const char *category,
                          double temperature, struct forge_err *err)
{
    const struct forge_pyval *turns = forge_py_getz(question, "question");
    const struct forge_pyval *functions = forge_py_getz(question, "function");
    if (!turns || turns->kind != FORGE_PY_LIST || turns->n == 0 ||
        turns->u.items[0]->kind != FORGE_PY_LIST || !functions || functions->kind != FORGE_PY_LIST) {
        forge_err_set(err, FORGE_EINVAL, "the question needs \"question\" (a list of turns) and \"function\" (a list)");
        return NULL;
    }
    cJSON *req = cJSON_CreateObject();
    cJSON *messages = cJSON_AddArrayToObject(req, "messages");
    cJSON *tools = cJSON_AddArrayToObject(req, "tools");
    struct forge_buf system;
    forge_buf_init(&system, 0);
    int rc = req && messages && tools ? 0 : FORGE_ENOMEM;
    enum forge_bfcl_lang lang = forge_bfcl_category_lang(category);
    const struct forge_pyval *turn = turns->u.items[0];
    for (size_t i = 0; !rc && i < turn->n; i++) {
        const struct forge_pyval *m = turn->u.items[i];
        const struct forge_pyval *role = forge_py_getz(m, "role");
        const struct forge_pyval *content = forge_py_getz(m, "content");
        if (!role || role->kind != FORGE_PY_STR || !content || content->kind != FORGE_PY_STR) {
            rc = forge_err_set(err, FORGE_EINVAL, "a question message needs a string \"role\" and \"content\"");
            break;
        }
        if (strcmp(role->u.s, "system") == 0) {
            if (system.len)
                rc = forge_buf_adds(&system, "\n\n");
            if (!rc)
                rc = forge_buf_add(&system, content->u.s, content->n);
            continue;
        }
        cJSON *msg = cJSON_CreateObject();
        if (!msg || !cJSON_AddStringToObject(msg, "role", role->u.s) ||
            !cJSON_AddStringToObject(msg, "content", content->u.s) || !cJSON_AddItemToArray(messages, msg)) {
            cJSON_Delete(msg);
            rc = FORGE_ENOMEM;
        }
    }
    for (size_t i = 0; !rc && i < functions->n; i++) {
        cJSON *fn = to_cjson(functions->u.items[i]);
        if (!fn) {
            rc = FORGE_ENOMEM;
            break;
        }
        if (!cJSON_AddItemToArray(tools, fn)) {
            cJSON_Delete(fn);
            rc = FORGE_ENOMEM;
            break;
        }
        const char *name = forge_json_str(fn, "name");
        cJSON *params = cJSON_GetObjectItemCaseSensitive(fn, "parameters");
        if (!name || !cJSON_IsObject(params)) {
            rc = forge_err_set(err, FORGE_EINVAL, "a function doc needs \"name\" and \"parameters\"");
            break;
        }
        if ((rc = language_hints(fn, functions->u.items[i], lang)) != 0)
            break;
        /* the providers' tool names allow no '.' */
        char *fixed = forge_strdup(name);
        if (!fixed) {
            rc = FORGE_ENOMEM;
            break;
        }
        for (char *p = fixed; *p; p++)
            if (*p == '.')
                *p = '_';
        rc = set_string(fn, "name", fixed);
        forge_free(fixed);
        if (!rc)
            rc = set_string(params, "type", "object");
        cJSON *props = cJSON_GetObjectItemCaseSensitive(params, "properties");
        if (!rc && props)
            rc = cast_properties(props, err);
    }
    if (!rc && system.len && !cJSON_AddStringToObject(req, "system", system.data))
        rc = FORGE_ENOMEM;
    cJSON *params = rc ? NULL : cJSON_AddObjectToObject(req, "params");
    if (!rc && (!params || !cJSON_AddNumberToObject(params, "temperature", temperature)))
        rc = FORGE_ENOMEM;
    forge_buf_free(&system);
    if (rc) {
        if (rc == FORGE_ENOMEM && !err->code)
            forge_err_set(err, FORGE_ENOMEM, "out of memory");
        cJSON_Delete(req);
        return NULL;
    }
    return req;
}

struct forge_pyval *forge_bfcl_result_value(struct forge_arena *a, const cJSON *resp)
{
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(resp, "message");
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
    if (cJSON_IsArray(calls) && cJSON_GetArraySize(calls) > 0) {
        struct forge_pyval *list = forge_py_list(a, (size_t)cJSON_GetArraySize(calls));
        const cJSON *c;
        cJSON_ArrayForEach(c, calls) {
            const char *name = forge_json_str(c, "name");
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(c, "arguments");
            char *text = args ? forge_json_print(args, 0) : forge_strdup("{}");
            struct forge_pyval *s = text ? forge_py_strz(a, text) : NULL;
            forge_free(text);
            struct forge_pyval *one = forge_py_dict(a, 1);
            const char *key = NULL;
            if (one && name) {
                size_t n = strlen(name);
                char *k = forge_arena_alloc(a, n + 1);
                if (k) {
                    memcpy(k, name, n + 1);
                    key = k;
                }
            }
            if (!list || !s || !one || !key || forge_py_set(a, one, key, strlen(key), s) ||
                forge_py_append(a, list, one))
                return NULL;
        }
        return list;
    }
    const char *content = forge_json_str(msg, "content");
    return forge_py_strz(a, content ? content : "");
}
