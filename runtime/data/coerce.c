/* Tool-call argument coercion (see coerce.h for the rules). */
#include "data/coerce.h"
#include "data/json.h"
#include "base/alloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cctx {
    cJSON *log; /* NULL: not reporting */
    int count;
    int rc;
};

/* The declared type to coerce to: the type name, or the first non-null one of a type array
 * that does not allow strings. NULL when strings are allowed or no type is declared. */
static const char *target_type(const cJSON *prop)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(prop, "type");
    if (cJSON_IsString(t))
        return t->valuestring;
    if (!cJSON_IsArray(t))
        return NULL;
    const char *first = NULL;
    const cJSON *x;
    cJSON_ArrayForEach(x, t) {
        if (!cJSON_IsString(x))
            continue;
        if (!strcmp(x->valuestring, "string"))
            return "string";
        if (!first && strcmp(x->valuestring, "null") != 0)
            first = x->valuestring;
    }
    return first;
}

static void note(struct cctx *c, const char *path, const cJSON *from, const cJSON *to, const char *rule)
{
    c->count++;
    if (!c->log || c->rc)
        return;
    cJSON *e = cJSON_CreateObject();
    cJSON *f = from ? cJSON_Duplicate(from, 1) : NULL;
    cJSON *t = to ? cJSON_Duplicate(to, 1) : NULL;
    if (!e || (from && !f) || (to && !t) || !cJSON_AddStringToObject(e, "path", path)) {
        cJSON_Delete(e);
        cJSON_Delete(f);
        cJSON_Delete(t);
        c->rc = FORGE_ENOMEM;
        return;
    }
    if (f)
        cJSON_AddItemToObject(e, "from", f);
    if (t)
        cJSON_AddItemToObject(e, "to", t);
    if (!cJSON_AddStringToObject(e, "rule", rule))
        c->rc = FORGE_ENOMEM;
    cJSON_AddItemToArray(c->log, e);
}

static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "true", "yes"};
    static const char *const no[] = {"0", "f", "false", "no"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = true;
            return true;
        }
        if (!strcasecmp(s, no[i])) {
            *out = false;
            return true;
        }
    }
    return false;
}

static bool parse_number(const char *s, double *out)
{
    if (!*s || isspace((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    double d = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(d))
        return false;
    /* hex floats, "inf" and "nan" are not JSON numbers */
    for (const char *p = s; *p; p++)
        if (!(isdigit((unsigned char)*p) || strchr("+-.eE", *p)))
            return false;
    *out = d;
    return true;
}

/* Returns a new value for string <s> coerced to <type>, or NULL when it does not convert. */
static cJSON *from_string(const char *s, const char *type, const char **rule)
{
    double d;
    bool b;
    if (!strcmp(type, "integer")) {
        if (parse_number(s, &d) && d == floor(d) && fabs(d) <= 9007199254740992.0) {
            *rule = "string-to-integer";
            return cJSON_CreateNumber(d);
        }
    } else if (!strcmp(type, "number")) {
        if (parse_number(s, &d)) {
            *rule = "string-to-number";
            return cJSON_CreateNumber(d);
        }
    } else if (!strcmp(type, "boolean")) {
        if (parse_bool(s, &b)) {
            *rule = "string-to-boolean";
            return cJSON_CreateBool(b);
        }
    } else if (!strcmp(type, "object") || !strcmp(type, "array")) {
        struct forge_err e;
        cJSON *v = forge_json_parse(s, strlen(s), "<argument>", &e);
        bool obj = !strcmp(type, "object");
        if (v && (obj ? cJSON_IsObject(v) : cJSON_IsArray(v))) {
            *rule = obj ? "string-to-object" : "string-to-array";
            return v;
        }
        cJSON_Delete(v);
        if (!obj) {
            cJSON *arr = cJSON_CreateArray();
            cJSON *str = cJSON_CreateString(s);
            if (!arr || !str) {
                cJSON_Delete(arr);
                cJSON_Delete(str);
                return NULL;
            }
            cJSON_AddItemToArray(arr, str);
            *rule = "wrap-in-array";
            return arr;
        }
    }
    return NULL;
}

/* The enum value matching <s> after trimming, case-insensitively and uniquely, or NULL. */
static const cJSON *enum_match(const cJSON *en, const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    const cJSON *hit = NULL, *x;
    cJSON_ArrayForEach(x, en) {
        if (!cJSON_IsString(x))
            continue;
        if (strlen(x->valuestring) == n && !strncmp(x->valuestring, s, n))
            return x; /* exact after trimming */
    }
    cJSON_ArrayForEach(x, en) {
        if (!cJSON_IsString(x) || strlen(x->valuestring) != n || strncasecmp(x->valuestring, s, n))
            continue;
        if (hit)
            return NULL; /* ambiguous */
        hit = x;
    }
    return hit;
}

static char *child_path(const char *base, const char *key, int idx)
{
    size_t n = strlen(base) + (key ? strlen(key) * 2 : 24) + 3;
    char *p = forge_malloc(n);
    if (!p)
        return NULL;
    char *o = p + strlen(base);
    strcpy(p, base);
    *o++ = '/';
    if (key) {
        for (const char *k = key; *k; k++) {
            if (*k == '~') { *o++ = '~'; *o++ = '0'; }
            else if (*k == '/') { *o++ = '~'; *o++ = '1'; }
            else *o++ = *k;
        }
        *o = 0;
    } else {
        snprintf(o, 24, "%d", idx);
    }
    return p;
}

/* Coerces one value <v> (a member of <parent>, replaced in place) toward <prop>. */
static void coerce_value(struct cctx *c, cJSON *parent, cJSON *v, const cJSON *prop, const char *path)
{
    const char *type = target_type(prop);
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(prop, "enum");
    cJSON *nv = NULL;
    const char *rule = NULL;
    if (cJSON_IsString(v)) {
        if (cJSON_IsArray(en) && (!type || !strcmp(type, "string"))) {
            const cJSON *m = enum_match(en, v->valuestring);
            if (m && strcmp(m->valuestring, v->valuestring) != 0) {
                nv = cJSON_CreateString(m->valuestring);
                rule = "enum-match";
            }
        } else if (type && strcmp(type, "string") != 0) {
            nv = from_string(v->valuestring, type, &rule);
        }
    } else if (cJSON_IsNumber(v) && type && !strcmp(type, "boolean") &&
               (v->valuedouble == 1 || v->valuedouble == 0)) {
        nv = cJSON_CreateBool(v->valuedouble == 1);
        rule = "number-to-boolean";
    } else if (type && !strcmp(type, "array") && !cJSON_IsArray(v) && !cJSON_IsNull(v)) {
        nv = cJSON_CreateArray();
        cJSON *copy = cJSON_Duplicate(v, 1);
        if (!nv || !copy) {
            cJSON_Delete(nv);
            cJSON_Delete(copy);
            c->rc = FORGE_ENOMEM;
            return;
        }
        cJSON_AddItemToArray(nv, copy);
        rule = "wrap-in-array";
    }
    if (nv) {
        note(c, path, v, nv, rule);
        /* in an object the replacement must carry the member's key (and replace this member,
         * not a first one of the same name) */
        if (v->string) {
            size_t kl = strlen(v->string) + 1;
            char *key = cJSON_malloc(kl);
            if (!key) {
                cJSON_Delete(nv);
                c->rc = FORGE_ENOMEM;
                return;
            }
            memcpy(key, v->string, kl);
            nv->string = key;
            nv->type &= ~cJSON_StringIsConst;
        }
        cJSON_ReplaceItemViaPointer(parent, v, nv);
        v = nv;
    }
    /* element-wise coercion of string items toward a non-string item type */
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(prop, "items");
    if (cJSON_IsArray(v) && cJSON_IsObject(items)) {
        const char *it = target_type(items);
        if (!it || !strcmp(it, "string"))
            return;
        int i = 0;
        for (cJSON *x = v->child, *next; x; x = next, i++) {
            next = x->next;
            if (!cJSON_IsString(x))
                continue;
            const char *r2 = NULL;
            cJSON *ne = from_string(x->valuestring, it, &r2);
            if (!ne)
                continue;
            char *p = child_path(path, NULL, i);
            if (!p) {
                cJSON_Delete(ne);
                c->rc = FORGE_ENOMEM;
                return;
            }
            note(c, p, x, ne, r2);
            forge_free(p);
            cJSON_ReplaceItemViaPointer(v, x, ne);
        }
    }
}

int forge_coerce_args(cJSON *args, const cJSON *schema, cJSON **coercions, struct forge_err *err)
{
    struct cctx c = {NULL, 0, 0};
    if (coercions) {
        *coercions = NULL;
        c.log = cJSON_CreateArray();
        if (!c.log)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory coercing arguments");
    }
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
    /* many arguments: their properties and required names found by hash, not by a scan each */
    struct forge_json_names pix = {FORGE_STRTAB_INIT, NULL};
    struct forge_strtab rtab = FORGE_STRTAB_INIT;
    bool big = false;
    if (cJSON_IsObject(args) && cJSON_IsObject(props)) {
        int n = 0;
        for (const cJSON *v = args->child; v && n <= 16; v = v->next)
            n++;
        big = n > 16;
        if (big && forge_json_names_build(&pix, props))
            c.rc = FORGE_ENOMEM;
        const cJSON *r, *names = big ? req : NULL;
        cJSON_ArrayForEach(r, names)
            if (cJSON_IsString(r) && forge_strtab_find(&rtab, r->valuestring) < 0 &&
                forge_strtab_add(&rtab, r->valuestring) < 0)
                c.rc = FORGE_ENOMEM;
    }
    if (cJSON_IsObject(args) && cJSON_IsObject(props)) {
        for (cJSON *v = args->child, *next; v && !c.rc; v = next) {
            next = v->next;
            const cJSON *prop = big ? forge_json_names_find(&pix, v->string)
                                    : cJSON_GetObjectItemCaseSensitive(props, v->string);
            bool required = big && forge_strtab_find(&rtab, v->string) >= 0;
            const cJSON *r, *names = big ? NULL : req;
            cJSON_ArrayForEach(r, names)
                if (cJSON_IsString(r) && !strcmp(r->valuestring, v->string))
                    required = true;
            char *path = child_path("", v->string, 0);
            if (!path) {
                c.rc = FORGE_ENOMEM;
                break;
            }
            const char *type = prop ? target_type(prop) : NULL;
            bool has_enum = prop && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(prop, "enum"));
            if (!required && cJSON_IsNull(v)) {
                note(&c, path, v, NULL, "drop-null");
                cJSON_Delete(cJSON_DetachItemViaPointer(args, v));
            } else if (!required && prop && cJSON_IsString(v) && !v->valuestring[0] &&
                       ((type && strcmp(type, "string") != 0) || has_enum)) {
                note(&c, path, v, NULL, "drop-empty-string");
                cJSON_Delete(cJSON_DetachItemViaPointer(args, v));
            } else if (cJSON_IsObject(prop)) {
                coerce_value(&c, args, v, prop, path);
            }
            forge_free(path);
        }
    }
    forge_json_names_free(&pix);
    forge_strtab_free(&rtab);
    if (c.rc) {
        cJSON_Delete(c.log);
        return forge_err_set(err, c.rc, "out of memory coercing arguments");
    }
    if (coercions)
        *coercions = c.log;
    return c.count;
}
