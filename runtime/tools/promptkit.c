/* PromptKit tool descriptors mapped onto forge's tool JSON. */
#include "tools/promptkit.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "data/json.h"
#include "data/yaml.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct ctx {
    const char *file;
    const struct forge_yaml_marks *marks;
    struct forge_err *err;
};

/* Fails at <node> (its key with <at_key>) with "<path>: <what>". */
static cJSON *fail(struct ctx *c, const cJSON *node, bool at_key, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static cJSON *fail(struct ctx *c, const cJSON *node, bool at_key, const char *path, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line, col;
    if (c->marks && (forge_yaml_mark(c->marks, node, at_key, &line, &col) ||
                     forge_yaml_mark(c->marks, node, false, &line, &col)))
        forge_err_set(c->err, FORGE_EINVAL, "%s:%d:%d: %s%s%s", c->file, line, col, path, *path ? ": " : "", what);
    else
        forge_err_set(c->err, FORGE_EINVAL, "%s: %s%s%s", c->file, path, *path ? ": " : "", what);
    return NULL;
}

static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int m = d[i - 1][j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            if (d[i - 1][j] + 1 < m)
                m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m)
                m = d[i][j - 1] + 1;
            d[i][j] = m;
        }
    return d[la][lb];
}

/* Checks the keys of <o> against <known>; <path> names <o> ("" for the top). */
static bool known_keys(struct ctx *c, const cJSON *o, const char *path, const char *const *known)
{
    for (const cJSON *k = o->child; k; k = k->next) {
        bool ok = false;
        for (const char *const *n = known; *n && !ok; n++)
            ok = !strcmp(*n, k->string);
        if (ok)
            continue;
        const char *best = NULL;
        int bd = 3;
        for (const char *const *n = known; *n; n++) {
            int d = distance(k->string, *n);
            if (d < bd)
                bd = d, best = *n;
        }
        char kp[256];
        snprintf(kp, sizeof kp, "%s%s%s", path, *path ? "." : "", k->string);
        if (best)
            fail(c, k, true, kp, "unknown key \"%s\" (did you mean \"%s\"?)", k->string, best);
        else
            fail(c, k, true, kp, "unknown key \"%s\"", k->string);
        return false;
    }
    return true;
}

static bool is_field_path(const char *s, size_t n)
{
    /* "." or ".a.b_c" */
    if (n == 0 || s[0] != '.')
        return false;
    if (n == 1)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (i + 1 >= n || !(isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_'))
                return false;
        } else if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) {
            return false;
        }
    }
    return true;
}

char *forge_promptkit_template(const char *tmpl, struct forge_err *err)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    const char *p = tmpl;
    while (*p) {
        const char *open = strstr(p, "{{");
        if (!open) {
            forge_buf_adds(&b, p);
            break;
        }
        const char *close = strstr(open + 2, "}}");
        if (!close) {
            forge_buf_free(&b);
            forge_err_set(err, FORGE_EINVAL, "an action opened with \"{{\" is never closed");
            return NULL;
        }
        const char *s = open + 2, *e = close;
        bool ltrim = e - s >= 2 && s[0] == '-' && isspace((unsigned char)s[1]);
        bool rtrim = e - s >= 2 && e[-1] == '-' && isspace((unsigned char)e[-2]);
        if (ltrim)
            s += 2;
        if (rtrim)
            e -= 2;
        while (s < e && isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        forge_buf_add(&b, p, (size_t)(open - p));
        if (ltrim) /* {{- trims the white space before the action */
            while (b.len && isspace((unsigned char)b.data[b.len - 1]))
                b.len--;
        if (!is_field_path(s, (size_t)(e - s))) {
            forge_buf_free(&b);
            forge_err_set(err, FORGE_EINVAL, "the action \"%.*s\" is a Go template action forge does not run (a "
                          "template may use field substitutions such as {{.city}}; for logic, give the tool a Lua "
                          "template function)", (int)(close + 2 - open), open);
            return NULL;
        }
        forge_buf_adds(&b, "{{args");
        if (e - s > 1)
            forge_buf_add(&b, s, (size_t)(e - s));
        forge_buf_adds(&b, "}}");
        p = close + 2;
        if (rtrim) /* -}} trims the white space after it */
            while (isspace((unsigned char)*p))
                p++;
    }
    char *out = forge_buf_take(&b);
    if (!out)
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
    return out;
}

/* Reads <rel> (relative to the descriptor's folder) into a new string. */
static char *read_beside(struct ctx *c, const cJSON *node, const char *path, const char *rel, size_t *len)
{
    char *dir = forge_path_dir(c->file);
    char *full = dir ? forge_path_join(dir, rel) : NULL;
    forge_free(dir);
    char *text = NULL;
    struct forge_err e = {0};
    if (!full) {
        forge_err_set(c->err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    if (forge_file_read_input(full, &text, len, &e)) {
        fail(c, node, false, path, "%s", e.msg);
        if (c->err)
            c->err->code = e.code;
    }
    forge_free(full);
    return text;
}

static const char *const top_keys[] = {"apiVersion", "kind", "metadata", "spec", NULL};
static const char *const metadata_keys[] = {"name", "namespace", "labels", "annotations", NULL};
static const char *const spec_keys[] = {"name", "namespace", "description", "input_schema", "output_schema", "mode",
                                        "timeout_ms", "mock_result", "mock_result_file", "mock_template",
                                        "mock_template_file", "labels", "http", "mock_parts", "a2a", "client", "exec",
                                        NULL};
static const char *const http_keys[] = {"url", "method", "headers", "headers_from_env", "timeout_ms", "redact",
                                        "request", "response", "multimodal", NULL};

bool forge_promptkit_is_manifest(const cJSON *doc)
{
    return cJSON_IsObject(doc) && cJSON_GetObjectItemCaseSensitive(doc, "apiVersion") &&
           cJSON_GetObjectItemCaseSensitive(doc, "kind");
}

static const cJSON *member(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

cJSON *forge_promptkit_tool(const cJSON *doc, const char *file, const struct forge_yaml_marks *marks,
                            struct forge_err *err)
{
    struct ctx c = {file, marks, err};
    if (!cJSON_IsObject(doc))
        return fail(&c, doc, false, "", "a PromptKit tool descriptor is a mapping (apiVersion, kind, metadata, spec)");
    if (!known_keys(&c, doc, "", top_keys))
        return NULL;
    const cJSON *v = member(doc, "apiVersion");
    if (!cJSON_IsString(v))
        return fail(&c, v ? v : doc, false, "apiVersion", "expected a string (such as "
                    "\"promptkit.altairalabs.ai/v1alpha1\")");
    v = member(doc, "kind");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, "Tool"))
        return fail(&c, v, false, "kind", "expected \"Tool\" (a PromptKit tool descriptor), got %s",
                    cJSON_IsString(v) ? v->valuestring : "a value that is not a string");
    const cJSON *meta = member(doc, "metadata"), *spec = member(doc, "spec");
    if (!cJSON_IsObject(meta))
        return fail(&c, meta ? meta : doc, false, "metadata", "missing or not a mapping: the tool's name is "
                    "metadata.name");
    if (!known_keys(&c, meta, "metadata", metadata_keys))
        return NULL;
    const char *name = forge_json_str(meta, "name");
    if (!name || !*name)
        return fail(&c, member(meta, "name") ? member(meta, "name") : meta, false, "metadata.name",
                    "missing: a non-empty string naming the tool");
    if (!cJSON_IsObject(spec))
        return fail(&c, spec ? spec : doc, false, "spec", "missing or not a mapping");
    if (!known_keys(&c, spec, "spec", spec_keys))
        return NULL;
    const char *sname = forge_json_str(spec, "name");
    if (member(spec, "name") && (!sname || strcmp(sname, name)))
        return fail(&c, member(spec, "name"), false, "spec.name", "differs from metadata.name \"%s\" (PromptKit names "
                    "the tool by metadata.name)", name);
    static const char *const unsupported[] = {"mock_parts", "a2a", "exec", NULL};
    for (const char *const *k = unsupported; *k; k++)
        if (member(spec, *k))
            return fail(&c, member(spec, *k), true, "spec", "\"%s\" is not supported by forge (give the tool mock_result, "
                        "mock_template or http, or define it in Lua)", *k);
    const char *desc = forge_json_str(spec, "description");
    if (!desc || !*desc)
        return fail(&c, member(spec, "description") ? member(spec, "description") : spec, false, "spec.description",
                    "missing: PromptKit requires a non-empty description");
    static const char *const schemas[] = {"input_schema", "output_schema", NULL};
    for (const char *const *k = schemas; *k; k++) {
        const cJSON *s = member(spec, *k);
        char kp[64];
        snprintf(kp, sizeof kp, "spec.%s", *k);
        if (!s)
            return fail(&c, spec, false, kp, "missing: PromptKit requires input_schema and output_schema");
        if (!cJSON_IsObject(s) && !cJSON_IsBool(s))
            return fail(&c, s, false, kp, "expected a JSON Schema (a mapping)");
    }
    const cJSON *to = member(spec, "timeout_ms");
    if (to && (!cJSON_IsNumber(to) || to->valuedouble < 0))
        return fail(&c, to, false, "spec.timeout_ms", "expected a number of milliseconds");
    const cJSON *mode = member(spec, "mode");
    const char *m = mode ? (cJSON_IsString(mode) ? mode->valuestring : NULL) : "";
    if (!m)
        return fail(&c, mode, false, "spec.mode", "expected a string: mock or live");
    bool live = !strcmp(m, "live");
    if (!live && *m && strcmp(m, "mock") && strcmp(m, "client"))
        return fail(&c, mode, false, "spec.mode", "\"%s\" is not run by forge: mode is mock or live (connect MCP "
                    "servers with --mcp NAME=COMMAND)", m);

    cJSON *def = cJSON_CreateObject();
    if (!def) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    cJSON_AddStringToObject(def, "name", name);
    cJSON_AddStringToObject(def, "description", desc);
    cJSON_AddItemToObject(def, "input_schema", cJSON_Duplicate(member(spec, "input_schema"), 1));
    cJSON_AddItemToObject(def, "output_schema", cJSON_Duplicate(member(spec, "output_schema"), 1));
    if (to)
        cJSON_AddNumberToObject(def, "timeout_ms", to->valuedouble);
    const cJSON *http = member(spec, "http");
    if (live) {
        if (!cJSON_IsObject(http))
            goto fail_http_missing;
        if (!known_keys(&c, http, "spec.http", http_keys))
            goto fail;
        static const char *const mappings[] = {"request", "response", "multimodal", NULL};
        for (const char *const *k = mappings; *k; k++)
            if (member(http, *k)) {
                fail(&c, member(http, *k), true, "spec.http", "\"%s\" (PromptKit's request/response mappings) is not "
                     "supported by forge: map arguments with {param} in the url or give the tool a Lua run function",
                     *k);
                goto fail;
            }
        cJSON *h = cJSON_Duplicate(http, 1);
        if (h && !member(h, "method"))
            cJSON_AddStringToObject(h, "method", "POST"); /* PromptKit's default */
        cJSON_AddItemToObject(def, "http", h);
    } else {
        if (http) {
            fail(&c, http, true, "spec.http", "is used only with mode: live (this tool's mode is %s)", *m ? m : "mock");
            goto fail;
        }
        const cJSON *tmpl = member(spec, "mock_template"), *tfile = member(spec, "mock_template_file");
        const cJSON *res = member(spec, "mock_result"), *rfile = member(spec, "mock_result_file");
        if (tmpl || tfile) {
            const cJSON *n = tmpl ? tmpl : tfile;
            const char *kp = tmpl ? "spec.mock_template" : "spec.mock_template_file";
            if (!cJSON_IsString(n)) {
                fail(&c, n, false, kp, "expected a string");
                goto fail;
            }
            char *text = NULL;
            size_t len = 0;
            if (!tmpl && !(text = read_beside(&c, n, kp, n->valuestring, &len)))
                goto fail;
            struct forge_err e = {0};
            char *conv = forge_promptkit_template(tmpl ? n->valuestring : text, &e);
            forge_free(text);
            if (!conv) {
                fail(&c, n, false, kp, "%s", e.msg);
                goto fail;
            }
            cJSON_AddStringToObject(def, "template", conv);
            forge_free(conv);
        } else if (res) {
            cJSON_AddItemToObject(def, "mock", cJSON_Duplicate(res, 1));
        } else if (rfile) {
            if (!cJSON_IsString(rfile)) {
                fail(&c, rfile, false, "spec.mock_result_file", "expected a string");
                goto fail;
            }
            size_t len = 0;
            char *text = read_beside(&c, rfile, "spec.mock_result_file", rfile->valuestring, &len);
            if (!text)
                goto fail;
            struct forge_err e = {0};
            cJSON *r = forge_json_parse(text, len, rfile->valuestring, &e);
            forge_free(text);
            if (!r) {
                fail(&c, rfile, false, "spec.mock_result_file", "%s", e.msg);
                goto fail;
            }
            cJSON_AddItemToObject(def, "mock", r);
        } else {
            cJSON *r = cJSON_CreateObject(); /* PromptKit's placeholder */
            cJSON_AddStringToObject(r, "result", "mock response");
            cJSON_AddItemToObject(def, "mock", r);
        }
    }
    return def;
fail_http_missing:
    fail(&c, http ? http : (mode ? mode : spec), false, "spec.http", "mode live needs http (url, method, ...)");
fail:
    cJSON_Delete(def);
    return NULL;
}
