/* Record/replay cassettes (JSONL). */
#include "model/cassette.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "data/json.h"
#include "model/dialect.h"
#include "net/http.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct exchange {
    char key[65];
    long status;
    char *body;
    int served; /* answers already given for this key, counted on the first exchange */
};

struct forge_cassette {
    char *path;
    FILE *out;  /* recording */
    struct exchange *x;
    int n;
    pthread_mutex_t lock;
};

void forge_cassette_free(struct forge_cassette *c)
{
    if (!c)
        return;
    if (c->out)
        fclose(c->out);
    for (int i = 0; i < c->n; i++)
        forge_free(c->x[i].body);
    forge_free(c->x);
    forge_free(c->path);
    pthread_mutex_destroy(&c->lock);
    forge_free(c);
}

static int load(struct forge_cassette *c, struct forge_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = forge_file_read(c->path, FORGE_FILE_LIMIT, &text, &len, err);
    if (rc)
        return rc;
    int lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    c->x = forge_calloc((size_t)lines, sizeof *c->x);
    if (!c->x) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory loading %s", c->path);
        goto out;
    }
    char *p = text;
    int lineno = 0;
    while (p < text + len) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        lineno++;
        size_t k = 0;
        while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < n) {
            cJSON *v = forge_json_parse(p, n, c->path, err);
            if (!v) {
                /* The parser counts lines within this one: put the file's line number in. */
                size_t pl = strlen(c->path);
                if (err && strncmp(err->msg, c->path, pl) == 0 && strncmp(err->msg + pl, ":1:", 3) == 0) {
                    char num[24], rest[FORGE_ERR_MAX];
                    snprintf(rest, sizeof rest, "%s", err->msg + pl + 1);
                    snprintf(num, sizeof num, "%d", lineno);
                    err->msg[pl + 1] = '\0';
                    /* "<path>:" + "<lineno>" + rest without its leading "1" */
                    size_t used = pl + 1, left = sizeof err->msg - used;
                    size_t nl = strlen(num) < left ? strlen(num) : left - 1;
                    memcpy(err->msg + used, num, nl);
                    used += nl;
                    snprintf(err->msg + used, sizeof err->msg - used, "%s", rest + 1);
                }
                rc = err ? err->code : FORGE_EINVAL;
                goto out;
            }
            const char *key = forge_json_str(v, "key");
            const cJSON *resp = cJSON_GetObjectItemCaseSensitive(v, "response");
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(v, "status");
            if (!key || strlen(key) != 64 || !resp || !cJSON_IsNumber(st)) {
                cJSON_Delete(v);
                rc = forge_err_set(err, FORGE_EINVAL, "%s:%d: an exchange needs \"key\" (64 hex), \"status\" and \"response\"",
                                   c->path, lineno);
                goto out;
            }
            struct exchange *x = &c->x[c->n];
            memcpy(x->key, key, 65);
            x->status = (long)st->valuedouble;
            x->body = cJSON_IsString(resp) ? forge_strdup(resp->valuestring) : forge_json_print(resp, 0);
            cJSON_Delete(v);
            if (!x->body) {
                rc = forge_err_set(err, FORGE_ENOMEM, "out of memory loading %s", c->path);
                goto out;
            }
            c->n++;
        }
        p += n + 1;
    }
out:
    forge_free(text);
    return rc;
}

int forge_cassette_open(const char *path, int replay, struct forge_cassette **out, struct forge_err *err)
{
    int rc = 0;
    struct forge_cassette *c = forge_calloc(1, sizeof *c);
    *out = NULL;
    if (!c || !(c->path = forge_strdup(path))) {
        forge_free(c);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory opening %s", path);
    }
    pthread_mutex_init(&c->lock, NULL);
    if (replay) {
        rc = load(c, err);
    } else if (!(c->out = fopen(path, "w"))) {
        rc = forge_err_set(err, FORGE_EIO, "--record %s: cannot create the file", path);
    }
    if (rc)
        forge_cassette_free(c);
    else
        *out = c;
    return rc;
}

int forge_cassette_record(struct forge_cassette *c, const char *key, const char *provider,
                          const char *model, const cJSON *request, long status, const char *body,
                          const char *const *secrets, struct forge_err *err)
{
    int rc = 0;
    char *line = NULL;
    struct forge_err pe;
    cJSON *resp = forge_json_parse(body, strlen(body), "response", &pe);
    cJSON *x = cJSON_CreateObject();
    if (!resp)
        resp = cJSON_CreateString(body);
    cJSON *req = cJSON_Duplicate(request, 1);
    int ok = x && cJSON_AddStringToObject(x, "key", key) && cJSON_AddStringToObject(x, "provider", provider) &&
             cJSON_AddStringToObject(x, "model", model);
    /* A put takes its item, even when it fails; what was not put is freed at out. */
    if (ok) {
        ok = forge_wire_put(x, "request", req) != NULL;
        req = NULL;
    }
    ok = ok && cJSON_AddNumberToObject(x, "status", (double)status);
    if (ok) {
        ok = forge_wire_put(x, "response", resp) != NULL;
        resp = NULL;
    }
    if (!ok) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory recording an exchange");
        goto out;
    }
    if (!(line = forge_json_print(x, 0))) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory recording an exchange");
        goto out;
    }
    if (secrets) {
        /* Redaction only ever grows the line by a few bytes per secret. */
        size_t cap = strlen(line) * 2 + 64;
        char *big = forge_realloc(line, cap);
        if (!big) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory recording an exchange");
            goto out;
        }
        line = big;
        forge_http_redact(line, cap, secrets);
    }
    pthread_mutex_lock(&c->lock);
    if (fputs(line, c->out) < 0 || fputc('\n', c->out) == EOF || fflush(c->out) != 0)
        rc = forge_err_set(err, FORGE_EIO, "--record %s: write failed", c->path);
    pthread_mutex_unlock(&c->lock);
out:
    forge_free(line);
    cJSON_Delete(req);
    cJSON_Delete(resp);
    cJSON_Delete(x);
    return rc;
}

int forge_cassette_find(struct forge_cassette *c, const char *key, long *status, char **body,
                        struct forge_err *err)
{
    int rc = 0;
    *body = NULL;
    pthread_mutex_lock(&c->lock);
    struct exchange *first = NULL, *pick = NULL;
    int seen = 0;
    for (int i = 0; i < c->n; i++) {
        if (strcmp(c->x[i].key, key) != 0)
            continue;
        if (!first)
            first = &c->x[i];
        pick = &c->x[i];
        if (seen++ == first->served)
            break;
    }
    if (!pick) {
        rc = forge_err_set(err, FORGE_ENET,
                           "--replay %s: no recorded answer for this request (key %.12s); record it with --record",
                           c->path, key);
    } else {
        first->served++;
        *status = pick->status;
        if (!(*body = forge_strdup(pick->body)))
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory replaying");
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}
