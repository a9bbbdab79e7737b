/* YAML to JSON on libyaml: one document, scalars resolved by YAML 1.2's core schema. */
#include "data/json.h"
#include "base/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct conv {
    yaml_document_t *doc;
    size_t nodes, limit;
    const char *name;
    struct forge_err *err;
    int depth;
};

static int match(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(s, *set))
            return 1;
    return 0;
}

/* A plain scalar's value under the core schema: null, a boolean, a number, else a string. */
static cJSON *plain(const char *s)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    if (match(s, nulls))
        return cJSON_CreateNull();
    if (match(s, trues))
        return cJSON_CreateTrue();
    if (match(s, falses))
        return cJSON_CreateFalse();
    char *end;
    const char *p = s + (*s == '-' || *s == '+');
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o') && p[2]) {
        long long v = strtoll(p + 2, &end, p[1] == 'x' ? 16 : 8);
        if (!*end)
            return cJSON_CreateNumber((double)(*s == '-' ? -v : v));
    }
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF") || !strcmp(s, ".nan") || !strcmp(s, ".NaN"))
        return cJSON_CreateString(s); /* JSON has no infinities or NaN: kept as the text */
    /* digits, an optional fraction and exponent, as the core schema's int and float */
    const char *q = p;
    int digits = 0;
    while (*q >= '0' && *q <= '9')
        q++, digits++;
    if (*q == '.') {
        q++;
        while (*q >= '0' && *q <= '9')
            q++, digits++;
    }
    if (digits && (*q == 'e' || *q == 'E')) {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return cJSON_CreateString(s);
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (digits && !*q) {
        double v = strtod(s, &end);
        if (!*end && isfinite(v))
            return cJSON_CreateNumber(v);
    }
    return cJSON_CreateString(s);
}

static cJSON *node(struct conv *c, yaml_node_t *n)
{
    if (++c->nodes > c->limit) {
        forge_err_set(c->err, FORGE_ELIMIT, "%s:%lu:%lu: more than %zu values in one input (the limit; raise it with "
                      "--max-json-nodes)", c->name, (unsigned long)n->start_mark.line + 1,
                      (unsigned long)n->start_mark.column + 1, c->limit);
        return NULL;
    }
    if (c->depth > 1000) {
        forge_err_set(c->err, FORGE_EINVAL, "%s:%lu:%lu: nested more than 1000 levels", c->name,
                      (unsigned long)n->start_mark.line + 1, (unsigned long)n->start_mark.column + 1);
        return NULL;
    }
    const char *tag = n->tag ? (const char *)n->tag : "";
    if (n->type == YAML_SCALAR_NODE) {
        const char *v = (const char *)n->data.scalar.value;
        if (strlen(v) != n->data.scalar.length) {
            forge_err_set(c->err, FORGE_EINVAL, "%s:%lu:%lu: a string with a NUL character", c->name,
                          (unsigned long)n->start_mark.line + 1, (unsigned long)n->start_mark.column + 1);
            return NULL;
        }
        cJSON *out;
        if (!strcmp(tag, YAML_STR_TAG) && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            out = plain(v); /* the implicit tag of a plain scalar: resolved */
        else if (!strcmp(tag, YAML_STR_TAG))
            out = cJSON_CreateString(v);
        else if (!strcmp(tag, YAML_INT_TAG) || !strcmp(tag, YAML_FLOAT_TAG) || !strcmp(tag, YAML_BOOL_TAG) ||
                 !strcmp(tag, YAML_NULL_TAG))
            out = plain(v);
        else
            out = cJSON_CreateString(v);
        if (!out)
            forge_err_set(c->err, FORGE_ENOMEM, "out of memory");
        return out;
    }
    c->depth++;
    cJSON *out = n->type == YAML_SEQUENCE_NODE ? cJSON_CreateArray() : cJSON_CreateObject();
    if (!out) {
        forge_err_set(c->err, FORGE_ENOMEM, "out of memory");
        goto fail;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            cJSON *v = node(c, yaml_document_get_node(c->doc, *it));
            if (!v)
                goto fail;
            cJSON_AddItemToArray(out, v);
        }
    } else {
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
            if (k->type != YAML_SCALAR_NODE) {
                forge_err_set(c->err, FORGE_EINVAL, "%s:%lu:%lu: a key that is not a scalar (JSON keys are strings)",
                              c->name, (unsigned long)k->start_mark.line + 1, (unsigned long)k->start_mark.column + 1);
                goto fail;
            }
            const char *key = (const char *)k->data.scalar.value;
            if (cJSON_GetObjectItemCaseSensitive(out, key)) {
                forge_err_set(c->err, FORGE_EINVAL, "%s:%lu:%lu: the key \"%s\" appears twice", c->name,
                              (unsigned long)k->start_mark.line + 1, (unsigned long)k->start_mark.column + 1, key);
                goto fail;
            }
            cJSON *v = node(c, yaml_document_get_node(c->doc, p->value));
            if (!v)
                goto fail;
            if (!cJSON_AddItemToObject(out, key, v)) {
                cJSON_Delete(v);
                forge_err_set(c->err, FORGE_ENOMEM, "out of memory");
                goto fail;
            }
        }
    }
    c->depth--;
    return out;
fail:
    c->depth--;
    cJSON_Delete(out);
    return NULL;
}

cJSON *forge_yaml_parse(const char *text, size_t len, const char *name, struct forge_err *err)
{
    yaml_parser_t p;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&p)) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    cJSON *out = NULL;
    if (!yaml_parser_load(&p, &doc)) {
        forge_err_set(err, FORGE_EINVAL, "%s:%lu:%lu: %s%s%s", name, (unsigned long)p.problem_mark.line + 1,
                      (unsigned long)p.problem_mark.column + 1, p.problem ? p.problem : "invalid YAML",
                      p.context ? " " : "", p.context ? p.context : "");
        yaml_parser_delete(&p);
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        forge_err_set(err, FORGE_EINVAL, "%s: an empty YAML document", name);
    } else {
        yaml_document_t next;
        /* one document only: a second one would be silently lost */
        if (yaml_parser_load(&p, &next)) {
            if (yaml_document_get_root_node(&next))
                forge_err_set(err, FORGE_EINVAL, "%s:%lu:1: a second YAML document (a file holds one)", name,
                              (unsigned long)p.mark.line);
            else {
                struct conv c = {&doc, 0, forge_json_node_limit(), name, err, 0};
                out = node(&c, root);
            }
            yaml_document_delete(&next);
        } else {
            forge_err_set(err, FORGE_EINVAL, "%s:%lu:%lu: %s", name, (unsigned long)p.problem_mark.line + 1,
                          (unsigned long)p.problem_mark.column + 1, p.problem ? p.problem : "invalid YAML");
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    return out;
}
