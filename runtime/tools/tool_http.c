/* The HTTP tool executor, on libcurl (loaded on first use, see net/curl_shim.h). */
#include "tools/tool_http.h"
#include "tools/tool.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "net/fetch.h"
#include "net/http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_MAX_BYTES ((size_t)1 << 20)
#define DEFAULT_TIMEOUT_MS 30000L

static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", NULL};

/* The environment variables headers_from_env may read (--allow-env): none unless named. */
#define MAX_ALLOWED_ENV 64
static const char *allowed_env[MAX_ALLOWED_ENV];
static int nallowed_env;

int forge_tool_http_allow_env(const char *name)
{
    if (nallowed_env == MAX_ALLOWED_ENV)
        return FORGE_ELIMIT;
    allowed_env[nallowed_env++] = name;
    return 0;
}

static int env_allowed(const char *name)
{
    for (int i = 0; i < nallowed_env; i++)
        if (strcmp(allowed_env[i], name) == 0)
            return 1;
    return 0;
}

int forge_tool_http_check(const cJSON *http, const char *tool, const char *where,
                          struct forge_err *err)
{
    if (!cJSON_IsObject(http))
        return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http must be an object with a "
                             "url", where, tool);
    const char *url = forge_json_str(http, "url");
    if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
        return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.url must be an http:// or "
                             "https:// URL", where, tool);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(http, "method");
    if (m) {
        int ok = 0;
        for (const char *const *p = methods; *p && cJSON_IsString(m); p++)
            ok |= strcasecmp(m->valuestring, *p) == 0;
        if (!ok)
            return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.method must be GET, "
                                 "POST, PUT, PATCH, DELETE or HEAD", where, tool);
    }
    const char *args = forge_json_str(http, "args");
    if (cJSON_GetObjectItemCaseSensitive(http, "args") &&
        (!args || (strcmp(args, "query") && strcmp(args, "body"))))
        return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.args must be \"query\" or "
                             "\"body\"", where, tool);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(http, "headers_from_env");
    for (const cJSON *c = h ? h->child : NULL; c; c = c->next) {
        const char *eq = cJSON_IsString(c) ? strchr(c->valuestring, '=') : NULL;
        if (!eq || !eq[1] || !forge_fetch_is_token(c->valuestring, (size_t)(eq - c->valuestring)))
            return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.headers_from_env "
                                 "entries are \"Header-Name=ENV_VAR\" (a header name made of "
                                 "letters, digits and !#$%%&'*+-.^_`|~)", where, tool);
    }
    const cJSON *hs = cJSON_GetObjectItemCaseSensitive(http, "headers");
    if (hs && !cJSON_IsObject(hs))
        return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.headers must be an object "
                             "of strings", where, tool);
    for (const cJSON *c = hs ? hs->child : NULL; c; c = c->next) {
        struct forge_err herr = {0};
        if (!cJSON_IsString(c))
            return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.headers.%s must be a "
                                 "string", where, tool, c->string);
        if (forge_fetch_check_header(c->string, strlen(c->string), c->valuestring,
                                     strlen(c->valuestring), &herr))
            return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.headers: %s", where,
                                 tool, herr.msg);
    }
    return 0;
}

/* Text of a query or URL value: strings as they are, other values as JSON. */
static char *value_text(const cJSON *v)
{
    if (cJSON_IsString(v))
        return forge_strdup(v->valuestring);
    return forge_json_print(v, 0);
}

int forge_tool_http_execute(const struct forge_tool *t, const struct forge_tool_call *call,
                            cJSON **result, char **error, struct forge_err *err)
{
    const cJSON *http = t->data;
    if (!t->net_allowed) {
        *error = forge_strdup("HTTP tools defined in scripts need network access: run forge "
                              "with --allow-net");
        return 0;
    }
    const char *method = forge_json_str(http, "method");
    char m[8] = "GET";
    if (method) {
        snprintf(m, sizeof m, "%s", method);
        for (char *p = m; *p; p++)
            *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    }
    int has_body = !strcmp(m, "POST") || !strcmp(m, "PUT") || !strcmp(m, "PATCH");
    const char *args_mode = forge_json_str(http, "args");
    int as_body = args_mode ? strcmp(args_mode, "body") == 0 : has_body;
    long timeout = (long)forge_json_num(http, "timeout_ms", 0);
    if (timeout <= 0)
        timeout = t->timeout_ms > 0 ? t->timeout_ms : DEFAULT_TIMEOUT_MS;
    size_t cap = (size_t)forge_json_num(http, "max_bytes", (double)DEFAULT_MAX_BYTES);

    cJSON *rest = call->arguments ? cJSON_Duplicate(call->arguments, 1) : cJSON_CreateObject();
    struct forge_buf url;
    forge_buf_init(&url, 0);
    char *body = NULL;
    const char *headers[64];
    char *owned[64];
    int nh = 0, no = 0;

    /* URL template: {param} takes the argument, which is then not sent again. */
    const char *u = forge_json_str(http, "url");
    for (const char *p = u; *p;) {
        const char *o = strchr(p, '{');
        const char *c = o ? strchr(o, '}') : NULL;
        if (!o || !c) {
            forge_buf_adds(&url, p);
            break;
        }
        forge_buf_add(&url, p, (size_t)(o - p));
        char key[128];
        size_t kn = (size_t)(c - o - 1) < sizeof key - 1 ? (size_t)(c - o - 1) : sizeof key - 1;
        memcpy(key, o + 1, kn);
        key[kn] = '\0';
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(rest, key);
        if (v) {
            char *txt = value_text(v);
            char *esc = txt ? forge_fetch_escape(txt) : NULL;
            forge_buf_adds(&url, esc ? esc : "");
            forge_free(esc);
            forge_free(txt);
            cJSON_Delete(v);
        }
        p = c + 1;
    }
    if (!as_body && rest->child) {
        forge_buf_addc(&url, strchr(url.data, '?') ? '&' : '?');
        int first = 1;
        for (const cJSON *c = rest->child; c; c = c->next) {
            if (cJSON_IsNull(c))
                continue;
            char *txt = value_text(c);
            char *k = forge_fetch_escape(c->string);
            char *v = txt ? forge_fetch_escape(txt) : NULL;
            forge_buf_addf(&url, "%s%s=%s", first ? "" : "&", k ? k : "", v ? v : "");
            first = 0;
            forge_free(k);
            forge_free(v);
            forge_free(txt);
        }
    }
    if (as_body) {
        body = forge_json_print(rest, 0);
        headers[nh++] = "Content-Type: application/json";
    }
    headers[nh++] = "Accept: application/json";
    const cJSON *hs = cJSON_GetObjectItemCaseSensitive(http, "headers");
    for (const cJSON *c = hs ? hs->child : NULL; c && nh < 62; c = c->next) {
        if (!cJSON_IsString(c))
            continue;
        struct forge_buf line;
        forge_buf_init(&line, 0);
        forge_buf_addf(&line, "%s: %s", c->string, c->valuestring);
        headers[nh++] = owned[no++] = forge_buf_take(&line);
    }
    const cJSON *he = cJSON_GetObjectItemCaseSensitive(http, "headers_from_env");
    const char *secrets[64];
    int nsecrets = 0, rc = 0;
    struct forge_fetch_result res;
    for (const cJSON *c = he ? he->child : NULL; c && nh < 62; c = c->next) {
        const char *eq = strchr(c->valuestring, '=');
        if (!env_allowed(eq + 1)) {
            *error = forge_strdupf("http.headers_from_env: the environment variable %s is not "
                                   "let through; allow it with --allow-env %s", eq + 1, eq + 1);
            goto done;
        }
        const char *val = getenv(eq + 1);
        if (!val || !*val)
            continue;
        if (strpbrk(val, "\r\n")) {
            *error = forge_strdupf("http.headers_from_env: the environment variable %s holds a "
                                   "line break, which would end the header", eq + 1);
            goto done;
        }
        if (strlen(val) >= 4)
            secrets[nsecrets++] = val;
        struct forge_buf line;
        forge_buf_init(&line, 0);
        forge_buf_add(&line, c->valuestring, (size_t)(eq - c->valuestring));
        forge_buf_addf(&line, ": %s", val);
        headers[nh++] = owned[no++] = forge_buf_take(&line);
    }
    headers[nh] = NULL;
    secrets[nsecrets] = NULL;

    struct forge_fetch req = {.method = m, .url = url.data, .headers = headers, .body = body,
                              .body_len = body ? strlen(body) : 0, .timeout_ms = timeout,
                              .max_bytes = cap};
    struct forge_err ferr = {0};
    rc = forge_fetch(&req, &res, &ferr);
    if (!rc) {
        /* A server that echoes a header taken from the environment gives it back redacted. */
        char *clean = forge_http_redact_dup(res.body, secrets);
        if (clean) {
            forge_free(res.body);
            res.body = clean;
            res.len = strlen(clean);
        }
    }
    if (rc == FORGE_ELIMIT) {
        *error = forge_strdupf("HTTP response larger than the tool's max_bytes cap of %zu bytes "
                             "(raise http.max_bytes)", cap);
    } else if (rc == FORGE_ENOMEM) {
        forge_err_set(err, rc, "%s", ferr.msg);
    } else if (rc) {
        *error = forge_strdupf("%s%s", ferr.msg, strstr(ferr.msg, "timed out")
                                                   ? " (raise http.timeout_ms)" : "");
    } else if (res.status < 200 || res.status > 299) {
        *error = forge_strdupf("HTTP %ld: %.200s", res.status, res.body);
    } else {
        cJSON *v = res.len ? forge_json_parse(res.body, res.len, "response", NULL) : NULL;
        if (!v) {
            v = cJSON_CreateObject();
            cJSON_AddStringToObject(v, "result", res.body);
        }
        const cJSON *red = cJSON_GetObjectItemCaseSensitive(http, "redact");
        for (const cJSON *c = red ? red->child : NULL; c && cJSON_IsObject(v); c = c->next)
            if (cJSON_IsString(c) && cJSON_GetObjectItemCaseSensitive(v, c->valuestring))
                cJSON_ReplaceItemInObjectCaseSensitive(v, c->valuestring,
                                                       cJSON_CreateString("[REDACTED]"));
        *result = v;
    }
    if (!rc)
        forge_fetch_result_free(&res);
done:
    for (int i = 0; i < no; i++)
        forge_free(owned[i]);
    forge_free(body);
    forge_buf_free(&url);
    cJSON_Delete(rest);
    return rc == FORGE_ENOMEM ? rc : 0;
}
