/* The HTTP tool executor, on libcurl (loaded on first use, see net/curl_shim.h). */
#include "tools/tool_http.h"
#include "tools/tool.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "net/curl_shim.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_MAX_BYTES ((size_t)1 << 20)
#define DEFAULT_TIMEOUT_MS 30000L

static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", NULL};

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
    for (const cJSON *c = h ? h->child : NULL; c; c = c->next)
        if (!cJSON_IsString(c) || !strchr(c->valuestring, '='))
            return forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': http.headers_from_env "
                                 "entries are \"Header-Name=ENV_VAR\"", where, tool);
    return 0;
}

struct sink {
    struct forge_buf buf;
    int over;
};

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    struct sink *s = ud;
    if (forge_buf_add(&s->buf, p, size * n)) {
        s->over = 1;
        return 0;
    }
    return size * n;
}

static char *new_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *new_message(const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return forge_strdup(tmp);
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
    struct forge_err lerr = {0};
    if (forge_curl_load(&lerr)) {
        *error = forge_strdup(lerr.msg);
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

    CURL *h = curl_easy_init();
    if (!h)
        return forge_err_set(err, FORGE_ENOMEM, "cannot create an HTTP handle");
    cJSON *rest = call->arguments ? cJSON_Duplicate(call->arguments, 1) : cJSON_CreateObject();
    struct forge_buf url;
    forge_buf_init(&url, 0);
    struct curl_slist *headers = NULL;
    char *body = NULL;
    struct sink sink;
    forge_buf_init(&sink.buf, cap);
    sink.over = 0;

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
            char *esc = txt ? curl_easy_escape(h, txt, 0) : NULL;
            forge_buf_adds(&url, esc ? esc : "");
            curl_free(esc);
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
            char *k = curl_easy_escape(h, c->string, 0);
            char *v = txt ? curl_easy_escape(h, txt, 0) : NULL;
            forge_buf_addf(&url, "%s%s=%s", first ? "" : "&", k ? k : "", v ? v : "");
            first = 0;
            curl_free(k);
            curl_free(v);
            forge_free(txt);
        }
    }
    if (as_body) {
        body = forge_json_print(rest, 0);
        headers = curl_slist_append(headers, "Content-Type: application/json");
    }
    headers = curl_slist_append(headers, "Accept: application/json");
    const cJSON *hs = cJSON_GetObjectItemCaseSensitive(http, "headers");
    for (const cJSON *c = hs ? hs->child : NULL; c; c = c->next) {
        if (!cJSON_IsString(c))
            continue;
        struct forge_buf line;
        forge_buf_init(&line, 0);
        forge_buf_addf(&line, "%s: %s", c->string, c->valuestring);
        headers = curl_slist_append(headers, line.data);
        forge_buf_free(&line);
    }
    const cJSON *he = cJSON_GetObjectItemCaseSensitive(http, "headers_from_env");
    for (const cJSON *c = he ? he->child : NULL; c; c = c->next) {
        const char *eq = strchr(c->valuestring, '=');
        const char *val = getenv(eq + 1);
        if (!val || !*val)
            continue;
        struct forge_buf line;
        forge_buf_init(&line, 0);
        forge_buf_add(&line, c->valuestring, (size_t)(eq - c->valuestring));
        forge_buf_addf(&line, ": %s", val);
        headers = curl_slist_append(headers, line.data);
        forge_buf_free(&line);
    }

    curl_easy_setopt(h, CURLOPT_URL, url.data);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
    if (!strcmp(m, "HEAD"))
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (sink.over) {
        *error = new_message("HTTP response larger than the tool's max_bytes cap of %zu bytes "
                             "(raise http.max_bytes)", cap);
    } else if (cc == CURLE_OPERATION_TIMEDOUT) {
        *error = new_message("HTTP request timed out after %ld ms (raise http.timeout_ms)",
                             timeout);
    } else if (cc != CURLE_OK) {
        *error = new_message("HTTP request failed: %s", curl_easy_strerror(cc));
    } else if (status < 200 || status > 299) {
        *error = new_message("HTTP %ld: %.200s", status, sink.buf.data ? sink.buf.data : "");
    } else {
        const char *text = sink.buf.data ? sink.buf.data : "";
        cJSON *v = sink.buf.len ? forge_json_parse(text, sink.buf.len, "response", NULL) : NULL;
        if (!v) {
            v = cJSON_CreateObject();
            cJSON_AddStringToObject(v, "result", text);
        }
        const cJSON *red = cJSON_GetObjectItemCaseSensitive(http, "redact");
        for (const cJSON *c = red ? red->child : NULL; c && cJSON_IsObject(v); c = c->next)
            if (cJSON_IsString(c) && cJSON_GetObjectItemCaseSensitive(v, c->valuestring))
                cJSON_ReplaceItemInObjectCaseSensitive(v, c->valuestring,
                                                       cJSON_CreateString("[REDACTED]"));
        *result = v;
    }
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    forge_free(body);
    forge_buf_free(&url);
    forge_buf_free(&sink.buf);
    cJSON_Delete(rest);
    return 0;
}
