/* {{seed:}} / {{snapshot:}} templates. */
#include "score/template.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool forge_template_has(const char *s)
{
    /* each "{{" found from its first brace (strchr scans many bytes at a time): most strings
     * hold none, and one pass replaces a search for each prefix */
    if (!s)
        return false;
    for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{'))
        if (p[1] == '{' && (strncmp(p + 2, "seed:", 5) == 0 || strncmp(p + 2, "snapshot:", 9) == 0))
            return true;
    return false;
}

const cJSON *forge_template_lookup(const cJSON *root, const char *path)
{
    const cJSON *cur = root;
    const char *p = path;
    char seg[256];
    while (cur && !cJSON_IsNull(cur)) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n == 0 || n >= sizeof seg) return NULL;
        memcpy(seg, p, n);
        seg[n] = 0;
        /* key[N]: a key then an array index */
        char *br = strchr(seg, '[');
        long idx = -1;
        if (br && n > 0 && seg[n - 1] == ']' && br != seg) {
            char *end = NULL;
            idx = strtol(br + 1, &end, 10);
            if (end != seg + n - 1 || !isdigit((unsigned char)br[1])) idx = -1, br = NULL;
            else *br = 0;
        } else {
            br = NULL;
        }
        if (!cJSON_IsObject(cur)) return NULL;
        cur = cJSON_GetObjectItemCaseSensitive(cur, seg);
        if (br) {
            if (!cJSON_IsArray(cur) || idx < 0 || idx >= cJSON_GetArraySize(cur)) return NULL;
            cur = cJSON_GetArrayItem(cur, (int)idx);
        }
        if (!dot) break;
        p = dot + 1;
    }
    if (!cur || cJSON_IsNull(cur)) return NULL;
    return cur;
}

/* Appends the text form of <v> (String(v) / JSON.stringify(v)). */
static int add_text(struct forge_buf *b, const cJSON *v)
{
    if (cJSON_IsString(v)) return forge_buf_adds(b, v->valuestring);
    if (cJSON_IsNumber(v)) {
        char num[40];
        return forge_buf_adds(b, forge_json_number(v->valuedouble, num));
    }
    if (cJSON_IsBool(v)) return forge_buf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
    return forge_json_write(b, v, 0);
}

/* Finds the next token at or after <s>: sets kind (0 seed, 1 snapshot), the path span and the
 * token's end. Returns the token start or NULL. */
static const char *next_token(const char *s, int *kind, const char **path, size_t *plen,
                              const char **end)
{
    for (const char *t = strstr(s, "{{"); t; t = strstr(t + 2, "{{")) {
        const char *q;
        if (strncmp(t + 2, "seed:", 5) == 0) *kind = 0, q = t + 7;
        else if (strncmp(t + 2, "snapshot:", 9) == 0) *kind = 1, q = t + 11;
        else continue;
        const char *close = strstr(q, "}}");
        if (!close) return NULL;
        *path = q;
        *plen = (size_t)(close - q);
        *end = close + 2;
        return t;
    }
    return NULL;
}

int forge_template_resolve(const char *s, const cJSON *seed, const cJSON *snapshot, cJSON **out,
                           char *why, struct forge_err *err)
{
    *out = NULL;
    why[0] = 0;
    int kind;
    const char *path, *end;
    size_t plen;
    char pbuf[1024];
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int rc = 0;
    /* Two passes: seed tokens first, then snapshot tokens on the result, as upstream documents. */
    char *cur = forge_strdup(s);
    if (!cur) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        const char *p = cur;
        const char *t;
        int whole = 0;
        const cJSON *whole_val = NULL;
        forge_buf_reset(&b);
        while ((t = next_token(p, &kind, &path, &plen, &end))) {
            if (kind != pass) {
                if ((rc = forge_buf_add(&b, p, (size_t)(end - p)))) goto nomem;
                p = end;
                continue;
            }
            if ((rc = forge_buf_add(&b, p, (size_t)(t - p)))) goto nomem;
            if (plen >= sizeof pbuf) plen = sizeof pbuf - 1;
            memcpy(pbuf, path, plen);
            pbuf[plen] = 0;
            const cJSON *v = forge_template_lookup(pass == 0 ? seed : snapshot, pbuf);
            if (!v) {
                snprintf(why, 256, "{{%s:%.200s}}", pass == 0 ? "seed" : "snapshot", pbuf);
                goto unresolved;
            }
            if (t == cur && *end == 0) whole = 1, whole_val = v;
            if ((rc = add_text(&b, v))) goto nomem;
            p = end;
        }
        if (whole) {
            /* the string is exactly one token: keep the value's JSON type */
            cJSON *dup = cJSON_Duplicate(whole_val, 1);
            if (!dup) goto nomem;
            forge_free(cur);
            forge_buf_free(&b);
            if (pass == 0 && cJSON_IsString(dup) && forge_template_has(dup->valuestring)) {
                /* a seed value that itself holds snapshot tokens */
                int r = forge_template_resolve(dup->valuestring, NULL, snapshot, out, why, err);
                cJSON_Delete(dup);
                return r;
            }
            *out = dup;
            return 0;
        }
        if ((rc = forge_buf_adds(&b, p))) goto nomem;
        forge_free(cur);
        cur = forge_buf_take(&b);
    }
    *out = cJSON_CreateString(cur);
    forge_free(cur);
    if (!*out) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    return 0;
unresolved:
    forge_free(cur);
    forge_buf_free(&b);
    return 0;
nomem:
    forge_free(cur);
    forge_buf_free(&b);
    return forge_err_set(err, FORGE_ENOMEM, "out of memory");
}
