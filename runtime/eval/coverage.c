/* Coverage of tools by eval cases (coverage.h, docs/coverage.md). */
#include "eval/coverage.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "data/json.h"
#include "data/re.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const forge_coverage_kinds[FORGE_COV_NKINDS] = {
    "golden", "labeled", "called", "not_called", "verifier", "overlap", "cluster", "enum", "optional",
};

/* Add <v> to <arr> / to <obj> under <key>, freeing <v> when that fails (no container, or no
 * memory), so a NULL-tolerant build never leaks. */
static bool arr_add(cJSON *arr, cJSON *v)
{
    if (cJSON_AddItemToArray(arr, v))
        return true;
    cJSON_Delete(v);
    return false;
}

static void obj_add(cJSON *obj, const char *key, cJSON *v)
{
    if (!cJSON_AddItemToObject(obj, key, v))
        cJSON_Delete(v);
}

/* ---- tokens and similarity ---------------------------------------------------------------- */

/* Common English words and the words of agent-tool-forge's description contract ("Use when the
 * user asks ..."), which every description shares. Sorted, for bsearch. */
static const char *const stop_words[] = {
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "ask", "asked", "asking", "asks", "at", "be", "been", "before", "being", "below", "between",
    "both", "but", "by", "call", "calls", "can", "could", "did", "do", "does", "doing", "down",
    "during", "each", "either", "else", "etc", "few", "for", "from", "further", "get", "gets",
    "given", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "like", "may", "me", "might",
    "more", "most", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "one",
    "only", "or", "other", "our", "out", "over", "own", "per", "return", "returns", "same",
    "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "through", "to", "too", "tool", "tools",
    "under", "until", "up", "upon", "use", "used", "user", "users", "uses", "using", "very",
    "via", "want", "wants", "was", "we", "were", "what", "when", "where", "whether", "which",
    "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "would", "you",
    "your",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_stop(const char *w)
{
    return bsearch(&w, stop_words, sizeof stop_words / sizeof *stop_words, sizeof *stop_words,
                   cmp_str) != NULL;
}

struct tokens {
    char **v;
    int n, cap;
};

static void tokens_free(struct tokens *t)
{
    for (int i = 0; i < t->n; i++)
        forge_free(t->v[i]);
    forge_free(t->v);
    memset(t, 0, sizeof *t);
}

static int tokens_push(struct tokens *t, const char *w, size_t n)
{
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 16;
        char **v = forge_realloc(t->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v, t->cap = cap;
    }
    if (!(t->v[t->n] = forge_strndup(w, n)))
        return -1;
    t->n++;
    return 0;
}

static bool word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* Adds the words of <s>: runs of letters and digits (bytes >= 0x80 count as letters), split at
 * a lower-to-upper case change, lower-cased (ASCII); stop words and one-letter words dropped;
 * a trailing "s" dropped from words of four letters or more not ending in "ss". */
static int add_words(struct tokens *t, const char *s)
{
    char w[128];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s;; p++) {
        bool in = *p && word_byte(*p);
        bool split = in && n && *p >= 'A' && *p <= 'Z' && w[n - 1] >= 'a' && w[n - 1] <= 'z';
        if ((!in || split) && n) {
            w[n] = '\0';
            if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's')
                w[--n] = '\0';
            if (n > 1 && !is_stop(w) && tokens_push(t, w, n))
                return -1;
            n = 0;
        }
        if (!*p)
            break;
        if (in && n < sizeof w - 1)
            w[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    }
    return 0;
}

/* The sorted, deduplicated tokens of a tool's name, description and trigger phrases. */
static int tool_tokens(const cJSON *tool, struct tokens *t)
{
    memset(t, 0, sizeof *t);
    const char *name = forge_json_str(tool, "name"), *desc = forge_json_str(tool, "description");
    if ((name && add_words(t, name)) || (desc && add_words(t, desc)))
        goto fail;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(tool, "triggerPhrases"))
        if (cJSON_IsString(p) && add_words(t, p->valuestring))
            goto fail;
    if (t->n)
        qsort(t->v, (size_t)t->n, sizeof *t->v, cmp_str);
    int k = 0;
    for (int i = 0; i < t->n; i++) {
        if (k && strcmp(t->v[k - 1], t->v[i]) == 0)
            forge_free(t->v[i]);
        else
            t->v[k++] = t->v[i];
    }
    t->n = k;
    return 0;
fail:
    tokens_free(t);
    return -1;
}

static double jaccard(const struct tokens *a, const struct tokens *b, cJSON *shared)
{
    int i = 0, j = 0, common = 0;
    while (i < a->n && j < b->n) {
        int c = strcmp(a->v[i], b->v[j]);
        if (c == 0) {
            common++;
            if (shared)
                arr_add(shared, cJSON_CreateString(a->v[i]));
            i++, j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    int uni = a->n + b->n - common;
    return uni ? (double)common / uni : 0;
}

double forge_coverage_similarity(const cJSON *a, const cJSON *b, cJSON **shared)
{
    struct tokens ta, tb;
    if (shared)
        *shared = cJSON_CreateArray();
    if (tool_tokens(a, &ta))
        return 0;
    if (tool_tokens(b, &tb)) {
        tokens_free(&ta);
        return 0;
    }
    double s = jaccard(&ta, &tb, shared ? *shared : NULL);
    tokens_free(&ta);
    tokens_free(&tb);
    return s;
}

/* ---- output groups (agent-tool-forge's keyword table) ------------------------------------- */

static const struct {
    const char *group;
    const char *keys[5];
} groups[] = {
    {"holdings", {"holdings", "positions", "allocation", "portfolio", NULL}},
    {"dividends", {"dividends", "income", "yield", "dividend", NULL}},
    {"performance", {"performance", "p&l", "returns", "net worth", NULL}},
    {"transactions", {"transactions", "orders", "trades", NULL}},
    {"quotes", {"quotes", "prices", "market data", "market_data", NULL}},
    {"weather", {"weather", "temperature", "humidity", "conditions", NULL}},
    {"forecast", {"forecast", "prediction", "outlook", "precipitation", NULL}},
};

cJSON *forge_coverage_groups(const cJSON *tool)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    const char *d = forge_json_str(tool, "description"), *n = forge_json_str(tool, "name");
    forge_buf_adds(&b, d ? d : "");
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(tool, "tags"))
        if (cJSON_IsString(t)) {
            forge_buf_addc(&b, ' ');
            forge_buf_adds(&b, t->valuestring);
        }
    forge_buf_addc(&b, ' ');
    forge_buf_adds(&b, n ? n : "");
    char *text = forge_buf_take(&b);
    if (!text)
        return NULL;
    for (char *p = text; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p + 32);
    cJSON *out = cJSON_CreateArray();
    for (size_t g = 0; out && g < sizeof groups / sizeof *groups; g++)
        for (int k = 0; groups[g].keys[k]; k++)
            if (strstr(text, groups[g].keys[k])) {
                arr_add(out, cJSON_CreateString(groups[g].group));
                break;
            }
    if (out && !out->child)
        arr_add(out, cJSON_CreateString("unknown"));
    forge_free(text);
    return out;
}

/* ---- what a case expects ------------------------------------------------------------------ */

struct argref {
    const char *tool;  /* a name, or a regex when <regex> */
    bool regex;
    const char *arg;   /* argument name; only its first <arglen> bytes (the top-level name) */
    size_t arglen;
    const cJSON *value; /* the value the case expects, or NULL when it only names the argument */
};

struct caseinfo {
    const char *id, *file;
    int kind;
    const char **req, **forb; /* borrowed names */
    int nreq, nforb;
    bool none_only;           /* the case expects no tool call at all */
    const cJSON *acceptable;  /* expect.toolsAcceptable (array of arrays) or NULL */
    struct argref *args;
    int nargs;
};

static int push_name(const char ***v, int *n, const char *s)
{
    if (!s)
        return 0;
    for (int i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return 0;
    const char **nv = forge_realloc(*v, (size_t)(*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nv[(*n)++] = s;
    *v = nv;
    return 0;
}

/* Names from a string, an array of strings, or (split) a comma-separated string is not borrowed
 * here: toolCallF1's string form is skipped. */
static int push_names(const char ***v, int *n, const cJSON *x)
{
    if (cJSON_IsString(x))
        return push_name(v, n, x->valuestring);
    const cJSON *e;
    cJSON_ArrayForEach(e, x) {
        if (cJSON_IsString(e)) {
            if (push_name(v, n, e->valuestring))
                return -1;
        } else if (cJSON_IsArray(e) && push_names(v, n, e)) {
            return -1;
        }
    }
    return 0;
}

static int push_arg(struct caseinfo *c, const char *tool, bool regex, const char *arg,
                    const cJSON *value)
{
    if (!tool || !arg)
        return 0;
    struct argref *v = forge_realloc(c->args, (size_t)(c->nargs + 1) * sizeof *v);
    if (!v)
        return -1;
    c->args = v;
    size_t len = strcspn(arg, ".[");
    v[c->nargs++] = (struct argref){tool, regex, arg, len, value};
    return 0;
}

int forge_coverage_case_kind(const char *file, const cJSON *kase)
{
    if (cJSON_GetObjectItemCaseSensitive(kase, "label"))
        return 2;
    if (file) {
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        if (strstr(base, ".golden."))
            return 1;
        if (strstr(base, ".labeled."))
            return 2;
    }
    const char *id = forge_json_str(kase, "id");
    if (id && strncmp(id, "gs-", 3) == 0)
        return 1;
    if (id && strncmp(id, "ls-", 3) == 0)
        return 2;
    return 0;
}

static void caseinfo_free(struct caseinfo *c)
{
    forge_free(c->req);
    forge_free(c->forb);
    forge_free(c->args);
}

static int case_info(const cJSON *entry, struct caseinfo *c)
{
    memset(c, 0, sizeof *c);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(entry, "case");
    c->file = forge_json_str(entry, "file");
    c->id = forge_json_str(k, "id");
    c->kind = forge_coverage_case_kind(c->file, k);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(k, "expect");
    const char *et = forge_json_str(k, "expectedTool");
    int rc = push_names(&c->req, &c->nreq, cJSON_GetObjectItemCaseSensitive(ex, "toolsCalled"));
    rc |= push_name(&c->req, &c->nreq, et);
    rc |= push_names(&c->req, &c->nreq, cJSON_GetObjectItemCaseSensitive(k, "expectedTools"));
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(ex, "tool_calls");
    rc |= push_names(&c->req, &c->nreq, cJSON_GetObjectItemCaseSensitive(tc, "required_tools"));
    rc |= push_names(&c->req, &c->nreq,
                     cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ex, "toolSequence"), "steps"));
    const cJSON *f1 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ex, "toolCallF1"), "expected");
    if (cJSON_IsArray(f1))
        rc |= push_names(&c->req, &c->nreq, f1);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(ex, "toolArgs")) {
        const char *tool = forge_json_str(e, "tool");
        rc |= push_name(&c->req, &c->nreq, tool);
        const cJSON *a;
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "args"))
            rc |= push_arg(c, tool, false, a->string, a);
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(k, "checks")) {
        const char *type = forge_json_str(e, "type"), *tool = forge_json_str(e, "tool");
        if (type && strcmp(type, "tool_called") == 0)
            rc |= push_name(&c->req, &c->nreq, tool ? tool : et);
        else if (type && strcmp(type, "arg_equals") == 0)
            rc |= push_arg(c, tool ? tool : et, false, forge_json_str(e, "arg"),
                           cJSON_GetObjectItemCaseSensitive(e, "value"));
    }
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(k, "expectedArgs"))
        rc |= push_arg(c, et, false, a->string, a);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(ex, "toolParams")) {
        const char *as = forge_json_str(e, "assertion"), *tool = forge_json_str(e, "tool");
        const char *pn = forge_json_str(e, "paramName");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "value");
        if (as && strcmp(as, "equals") == 0) {
            rc |= push_arg(c, tool, false, pn, v);
        } else if (as && strcmp(as, "oneOf") == 0 && cJSON_IsArray(v)) {
            const cJSON *x;
            cJSON_ArrayForEach(x, v)
                rc |= push_arg(c, tool, false, pn, x);
        } else {
            rc |= push_arg(c, tool, false, pn, NULL);
        }
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(tc, "expect")) {
        const char *tool = forge_json_str(e, "tool");
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "args"))
            rc |= push_arg(c, tool ? tool : "", true, a->string,
                           cJSON_GetObjectItemCaseSensitive(a, "equals"));
    }
    rc |= push_names(&c->forb, &c->nforb, cJSON_GetObjectItemCaseSensitive(ex, "toolsNotCalled"));
    rc |= push_names(&c->forb, &c->nforb, cJSON_GetObjectItemCaseSensitive(tc, "forbidden_tools"));
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(ex, "toolsAcceptable");
    if (cJSON_IsArray(acc) && acc->child) {
        c->acceptable = acc;
        bool only_none = true;
        cJSON_ArrayForEach(e, acc) {
            const cJSON *n;
            cJSON_ArrayForEach(n, e)
                if (!cJSON_IsString(n) || strcmp(n->valuestring, "__none__") != 0)
                    only_none = false;
        }
        c->none_only = only_none;
    }
    const cJSON *mx = cJSON_GetObjectItemCaseSensitive(ex, "maxToolCalls");
    const cJSON *mc = cJSON_GetObjectItemCaseSensitive(tc, "max_calls");
    if ((cJSON_IsNumber(mx) && mx->valuedouble == 0) || (cJSON_IsNumber(mc) && mc->valuedouble == 0))
        c->none_only = true;
    return rc ? -1 : 0;
}

static bool has(const char *const *v, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static bool set_has(const cJSON *set, const char *s)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, set)
        if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
            return true;
    return false;
}

static bool acceptable_has(const struct caseinfo *c, const char *s)
{
    const cJSON *set;
    cJSON_ArrayForEach(set, c->acceptable)
        if (set_has(set, s))
            return true;
    return false;
}

/* The case expects <s> to be called: required, or a member of an acceptable set. */
static bool expects(const struct caseinfo *c, const char *s)
{
    return has(c->req, c->nreq, s) || acceptable_has(c, s);
}


/* <t> equals <s> with a and b swapped, as sets. */
static bool swapped_equal(const cJSON *s, const cJSON *t, const char *a, const char *b)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, s) {
        if (!cJSON_IsString(e))
            continue;
        const char *w = e->valuestring;
        w = strcmp(w, a) == 0 ? b : strcmp(w, b) == 0 ? a : w;
        if (!set_has(t, w))
            return false;
    }
    cJSON_ArrayForEach(e, t) {
        if (!cJSON_IsString(e))
            continue;
        const char *w = e->valuestring;
        w = strcmp(w, a) == 0 ? b : strcmp(w, b) == 0 ? a : w;
        if (!set_has(s, w))
            return false;
    }
    return true;
}

/* The case tells <a> from <b>: it expects one of them to be called and its expectations change
 * when the two names are swapped (required tools, excluded tools or acceptable sets). */
static bool separates(const struct caseinfo *c, const char *a, const char *b)
{
    if (!expects(c, a) && !expects(c, b))
        return false;
    if (has(c->req, c->nreq, a) != has(c->req, c->nreq, b))
        return true;
    if (has(c->forb, c->nforb, a) != has(c->forb, c->nforb, b))
        return true;
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, c->acceptable) {
        bool found = false;
        cJSON_ArrayForEach(t, c->acceptable)
            if (swapped_equal(s, t, a, b)) {
                found = true;
                break;
            }
        if (!found)
            return true;
    }
    return false;
}

static bool ref_is_tool(const struct argref *r, const char *tool)
{
    if (!r->regex)
        return strcmp(r->tool, tool) == 0;
    struct forge_err e = {0};
    return forge_re_test(r->tool, FORGE_RE_CASELESS, tool, &e) == 1;
}

static bool ref_is_arg(const struct argref *r, const char *arg)
{
    return strlen(arg) == r->arglen && strncmp(r->arg, arg, r->arglen) == 0;
}

/* A case's value exercises enum value <v>: equal to it, or an array holding it. */
static bool value_hits(const cJSON *got, const cJSON *v)
{
    if (!got)
        return false;
    if (forge_json_equal(got, v))
        return true;
    if (cJSON_IsArray(got)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, got)
            if (forge_json_equal(e, v))
                return true;
    }
    return false;
}

/* ---- the overlap map ---------------------------------------------------------------------- */

static bool is_tool(const cJSON *tools, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        const char *n = forge_json_str(t, "name");
        if (n && name && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

int forge_coverage_check_map(const cJSON *map, const cJSON *tools, struct forge_err *err)
{
    if (!cJSON_IsObject(map))
        return forge_err_set(err, FORGE_EINVAL, "an overlap map is an object: {tool: {overlaps, clusters, reason}}");
    const cJSON *e;
    cJSON_ArrayForEach(e, map) {
        if (!is_tool(tools, e->string))
            return forge_err_set(err, FORGE_EINVAL, "%.200s: not a tool of TOOLS", e->string);
        if (!cJSON_IsObject(e))
            return forge_err_set(err, FORGE_EINVAL, "%.200s: expected an object {overlaps, clusters, reason}", e->string);
        const cJSON *k;
        cJSON_ArrayForEach(k, e) {
            bool ov = !strcmp(k->string, "overlaps"), cl = !strcmp(k->string, "clusters");
            if (!strcmp(k->string, "reason")) {
                if (!cJSON_IsString(k))
                    return forge_err_set(err, FORGE_EINVAL, "%.200s.reason: expected a string", e->string);
                continue;
            }
            if (!ov && !cl)
                return forge_err_set(err, FORGE_EINVAL, "%.200s: unknown key \"%.100s\" (overlaps, clusters, reason)",
                                     e->string, k->string);
            if (!cJSON_IsArray(k))
                return forge_err_set(err, FORGE_EINVAL, "%.200s.%s: expected an array", e->string, k->string);
            int i = 0;
            const cJSON *x;
            cJSON_ArrayForEach(x, k) {
                if (ov && (!cJSON_IsString(x) || !is_tool(tools, x->valuestring)))
                    return forge_err_set(err, FORGE_EINVAL, "%.200s.overlaps[%d]: %s", e->string, i,
                                         cJSON_IsString(x) ? "not a tool of TOOLS" : "expected a tool name");
                if (cl) {
                    if (!cJSON_IsArray(x))
                        return forge_err_set(err, FORGE_EINVAL, "%.200s.clusters[%d]: expected an array of tool names",
                                             e->string, i);
                    int j = 0, distinct = 0;
                    const cJSON *y;
                    cJSON_ArrayForEach(y, x) {
                        if (!cJSON_IsString(y) || !is_tool(tools, y->valuestring))
                            return forge_err_set(err, FORGE_EINVAL, "%.200s.clusters[%d][%d]: %s", e->string, i, j,
                                                 cJSON_IsString(y) ? "not a tool of TOOLS" : "expected a tool name");
                        bool seen = false;
                        for (const cJSON *z = x->child; z != y; z = z->next)
                            seen = seen || !strcmp(z->valuestring, y->valuestring);
                        distinct += !seen;
                        j++;
                    }
                    if (distinct < 2)
                        return forge_err_set(err, FORGE_EINVAL, "%.200s.clusters[%d]: a cluster needs two tools or more",
                                             e->string, i);
                }
                i++;
            }
        }
    }
    return 0;
}

static bool declared(const cJSON *map, const char *a, const char *b)
{
    return set_has(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(map, a), "overlaps"), b) ||
           set_has(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(map, b), "overlaps"), a);
}

static int cmp_json_str(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->valuestring, (*(const cJSON *const *)b)->valuestring);
}

/* The clusters of the map as sorted, deduplicated name arrays, each once (a new array). */
static cJSON *map_clusters(const cJSON *map)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *e, *c;
    cJSON_ArrayForEach(e, map) {
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(e, "clusters")) {
            int n = cJSON_GetArraySize(c), k = 0;
            const cJSON **v = forge_calloc((size_t)n + 1, sizeof *v);
            if (!v)
                continue;
            const cJSON *x;
            cJSON_ArrayForEach(x, c)
                v[k++] = x;
            qsort(v, (size_t)n, sizeof *v, cmp_json_str);
            cJSON *set = cJSON_CreateArray();
            for (int i = 0; i < n; i++)
                if (!i || strcmp(v[i - 1]->valuestring, v[i]->valuestring))
                    arr_add(set, cJSON_CreateString(v[i]->valuestring));
            forge_free(v);
            bool dup = false;
            cJSON_ArrayForEach(x, out)
                dup = dup || forge_json_equal(x, set);
            if (dup || !set || !set->child)
                cJSON_Delete(set);
            else
                arr_add(out, set);
        }
    }
    return out;
}

/* ---- the index: tool names, and the cases and argument references of each tool ------------ */

struct ref {
    int c, k; /* case, argument reference of that case */
};

struct index {
    const char **names; /* tool names in definition order */
    int n;
    int *slots;         /* open addressing: tool index + 1, 0 empty */
    size_t cap;
    int **mention;      /* per tool: the cases naming it (expected, acceptable, excluded), ascending */
    int *nmention, *capmention;
    unsigned char **expect; /* per tool, per mention: the case expects the tool to be called */
    struct ref **refs;  /* per tool: the argument references to it, in case order */
    int *nrefs, *caprefs;
};

/* Seeded per process (base/hash.h): names crafted to collide in one run do not in the next. */
static size_t hash_name(const char *s)
{
    return (size_t)forge_hash_str(s);
}

static int tool_index(const struct index *ix, const char *name)
{
    if (!name || !ix->cap)
        return -1;
    for (size_t h = hash_name(name) & (ix->cap - 1);; h = (h + 1) & (ix->cap - 1)) {
        int v = ix->slots[h];
        if (!v)
            return -1;
        if (!strcmp(ix->names[v - 1], name))
            return v - 1;
    }
}

static void index_free(struct index *ix)
{
    for (int t = 0; t < ix->n; t++) {
        if (ix->mention)
            forge_free(ix->mention[t]);
        if (ix->refs)
            forge_free(ix->refs[t]);
        if (ix->expect)
            forge_free(ix->expect[t]);
    }
    forge_free(ix->expect);
    forge_free(ix->names);
    forge_free(ix->slots);
    forge_free(ix->mention);
    forge_free(ix->nmention);
    forge_free(ix->capmention);
    forge_free(ix->refs);
    forge_free(ix->nrefs);
    forge_free(ix->caprefs);
}

static int grow(void **v, int *cap, int n, size_t size)
{
    if (n < *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 8;
    void *nv = forge_realloc(*v, (size_t)nc * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}

static int mention(struct index *ix, int t, int c)
{
    if (t < 0 || (ix->nmention[t] && ix->mention[t][ix->nmention[t] - 1] == c))
        return 0;
    if (grow((void **)&ix->mention[t], &ix->capmention[t], ix->nmention[t], sizeof(int)))
        return -1;
    ix->mention[t][ix->nmention[t]++] = c;
    return 0;
}

static int add_ref(struct index *ix, int t, int c, int k)
{
    if (ix->nrefs[t] && ix->refs[t][ix->nrefs[t] - 1].c == c && ix->refs[t][ix->nrefs[t] - 1].k == k)
        return 0;
    if (grow((void **)&ix->refs[t], &ix->caprefs[t], ix->nrefs[t], sizeof(struct ref)))
        return -1;
    ix->refs[t][ix->nrefs[t]++] = (struct ref){c, k};
    return 0;
}

static int index_build(struct index *ix, const cJSON *tools, const struct caseinfo *ci, int ncases)
{
    memset(ix, 0, sizeof *ix);
    int n = cJSON_GetArraySize(tools);
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap *= 2;
    ix->names = forge_calloc((size_t)n + 1, sizeof *ix->names);
    ix->slots = forge_calloc(cap, sizeof *ix->slots);
    ix->mention = forge_calloc((size_t)n + 1, sizeof *ix->mention);
    ix->nmention = forge_calloc((size_t)n + 1, sizeof(int));
    ix->capmention = forge_calloc((size_t)n + 1, sizeof(int));
    ix->refs = forge_calloc((size_t)n + 1, sizeof *ix->refs);
    ix->expect = forge_calloc((size_t)n + 1, sizeof *ix->expect);
    ix->nrefs = forge_calloc((size_t)n + 1, sizeof(int));
    ix->caprefs = forge_calloc((size_t)n + 1, sizeof(int));
    if (!ix->names || !ix->slots || !ix->mention || !ix->nmention || !ix->capmention || !ix->refs ||
        !ix->nrefs || !ix->caprefs || !ix->expect)
        return -1;
    ix->cap = cap;
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        const char *name = forge_json_str(t, "name");
        if (!name || tool_index(ix, name) >= 0)
            continue;
        ix->names[ix->n] = name;
        size_t h = hash_name(name) & (cap - 1);
        while (ix->slots[h])
            h = (h + 1) & (cap - 1);
        ix->slots[h] = ++ix->n;
    }
    for (int c = 0; c < ncases; c++) {
        const struct caseinfo *k = &ci[c];
        for (int i = 0; i < k->nreq; i++)
            if (mention(ix, tool_index(ix, k->req[i]), c))
                return -1;
        for (int i = 0; i < k->nforb; i++)
            if (mention(ix, tool_index(ix, k->forb[i]), c))
                return -1;
        const cJSON *set, *x;
        cJSON_ArrayForEach(set, k->acceptable)
            cJSON_ArrayForEach(x, set)
                if (cJSON_IsString(x) && mention(ix, tool_index(ix, x->valuestring), c))
                    return -1;
        for (int i = 0; i < k->nargs; i++) {
            const struct argref *r = &k->args[i];
            if (!r->regex) {
                int ti = tool_index(ix, r->tool);
                if (ti >= 0 && add_ref(ix, ti, c, i))
                    return -1;
                continue;
            }
            for (int ti = 0; ti < ix->n; ti++)
                if (ref_is_tool(r, ix->names[ti]) && add_ref(ix, ti, c, i))
                    return -1;
        }
    }
    /* mentions were pushed in case order but a case can repeat after another tool's: dedupe */
    for (int ti = 0; ti < ix->n; ti++) {
        int w = 0;
        for (int i = 0; i < ix->nmention[ti]; i++)
            if (!w || ix->mention[ti][w - 1] != ix->mention[ti][i])
                ix->mention[ti][w++] = ix->mention[ti][i];
        ix->nmention[ti] = w;
        if (!(ix->expect[ti] = forge_malloc((size_t)w + 1)))
            return -1;
        for (int i = 0; i < w; i++)
            ix->expect[ti][i] = expects(&ci[ix->mention[ti][i]], ix->names[ti]);
    }
    return 0;
}

struct pair {
    int a, b;
    double s;
    bool decl;
};

static int cmp_pair(const void *x, const void *y)
{
    const struct pair *p = x, *q = y;
    if (p->s != q->s)
        return p->s > q->s ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* ---- the report --------------------------------------------------------------------------- */

struct acc {
    cJSON *gaps, *kinds;
    int covered[FORGE_COV_NKINDS], items[FORGE_COV_NKINDS];
    const struct forge_cov_opts *o;
};

static cJSON *gap(struct acc *a, enum forge_cov_kind k, const char *tool)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "kind", forge_coverage_kinds[k]);
    cJSON_AddStringToObject(g, "tool", tool);
    return arr_add(a->gaps, g) ? g : NULL;
}

/* Counts an item of kind <k>; a gap when <ok> is false. Returns the gap, or NULL. */
static cJSON *item(struct acc *a, enum forge_cov_kind k, bool ok, const char *tool)
{
    if (a->o->ignore[k])
        return NULL;
    a->items[k]++;
    if (ok) {
        a->covered[k]++;
        return NULL;
    }
    return gap(a, k, tool);
}

#define MAX_WARNINGS 100

static void warn_unknown(cJSON *warnings, int *more, const struct caseinfo *c, const struct index *ix,
                         const char *name, const char *what)
{
    if (tool_index(ix, name) >= 0 || strcmp(name, "__none__") == 0)
        return;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: case '%s': %s names '%.200s', which is not a tool of TOOLS",
             c->file ? c->file : "?", c->id ? c->id : "?", what, name);
    for (const cJSON *w = warnings ? warnings->child : NULL; w; w = w->next)
        if (strcmp(w->valuestring, msg) == 0)
            return;
    if (cJSON_GetArraySize(warnings) >= MAX_WARNINGS)
        ++*more;
    else
        arr_add(warnings, cJSON_CreateString(msg));
}

cJSON *forge_coverage_compute(const cJSON *tools, const cJSON *guards, const cJSON *cases,
                              const struct forge_cov_opts *o, struct forge_err *err)
{
    unsigned long failures = forge_alloc_failures();
    int ncases = cJSON_GetArraySize(cases), ntools = cJSON_GetArraySize(tools);
    struct caseinfo *ci = forge_calloc((size_t)ncases + 1, sizeof *ci);
    struct tokens *tok = forge_calloc((size_t)ntools + 1, sizeof *tok);
    cJSON *r = cJSON_CreateObject();
    /* the headline fields first; their values are set at the end */
    cJSON *jcoverage = cJSON_AddNumberToObject(r, "coverage", 0);
    cJSON *jcovered = cJSON_AddNumberToObject(r, "covered", 0);
    cJSON *jitems = cJSON_AddNumberToObject(r, "items", 0);
    cJSON_AddNumberToObject(r, "overlap_threshold", o->overlap);
    cJSON *kinds = cJSON_AddObjectToObject(r, "kinds");
    struct acc a = {.o = o};
    struct index ix = {0};
    struct pair *pairs = NULL;
    int rc = !ci || !tok || !r;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cases) {
        if (rc)
            break;
        rc = case_info(e, &ci[i++]);
    }
    i = 0;
    cJSON_ArrayForEach(e, tools) {
        if (rc)
            break;
        rc = tool_tokens(e, &tok[i++]);
    }
    if (rc)
        goto nomem;
    cJSON *jtools = cJSON_AddArrayToObject(r, "tools");
    cJSON *jover = cJSON_AddArrayToObject(r, "overlaps");
    cJSON *jclusters = cJSON_AddArrayToObject(r, "clusters");
    cJSON *jargs = cJSON_AddArrayToObject(r, "arguments");
    a.gaps = cJSON_AddArrayToObject(r, "gaps");
    cJSON *warnings = cJSON_AddArrayToObject(r, "warnings");

    if (index_build(&ix, tools, ci, ncases))
        goto nomem;
    int none_only = 0;
    for (int c = 0; c < ncases; c++)
        none_only += ci[c].none_only;

    /* per tool */
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        const char *name = forge_json_str(t, "name");
        int ti = tool_index(&ix, name);
        int golden = 0, labeled = 0, called = 0, not_called = none_only;
        for (int i = 0; ti >= 0 && i < ix.nmention[ti]; i++) {
            const struct caseinfo *k = &ci[ix.mention[ti][i]];
            bool ex = expects(k, name), forb = has(k->forb, k->nforb, name);
            called += ex;
            not_called += forb && !k->none_only;
            golden += k->kind == 1 && ex;
            labeled += k->kind == 2 && (ex || forb);
        }
        cJSON *jt = cJSON_CreateObject();
        if (!arr_add(jtools, jt))
            jt = NULL;
        cJSON_AddStringToObject(jt, "name", name);
        cJSON_AddNumberToObject(jt, "golden", golden);
        cJSON_AddNumberToObject(jt, "labeled", labeled);
        cJSON_AddNumberToObject(jt, "called", called);
        cJSON_AddNumberToObject(jt, "not_called", not_called);
        const cJSON *g = guards ? cJSON_GetObjectItemCaseSensitive(guards, name) : NULL;
        obj_add(jt, "verifiers", g ? cJSON_Duplicate(g, 1) : cJSON_CreateArray());
        obj_add(jt, "groups", forge_coverage_groups(t));
        item(&a, FORGE_COV_GOLDEN, golden > 0, name);
        item(&a, FORGE_COV_LABELED, labeled > 0, name);
        item(&a, FORGE_COV_CALLED, called > 0, name);
        item(&a, FORGE_COV_NOT_CALLED, not_called > 0, name);
        item(&a, FORGE_COV_VERIFIER, cJSON_GetArraySize(g) > 0, name);
    }

    /* overlapping pairs, most similar first (then in definition order) */
    int npairs = 0, cappairs = 0;
    for (int x = 0; x < ix.n && ntools == ix.n && !o->ignore[FORGE_COV_OVERLAP]; x++)
        for (int y = x + 1; y < ix.n; y++) {
            double sim = jaccard(&tok[x], &tok[y], NULL);
            bool decl = o->overlap_map && declared(o->overlap_map, ix.names[x], ix.names[y]);
            if ((sim < o->overlap || sim == 0) && !decl)
                continue;
            if (grow((void **)&pairs, &cappairs, npairs, sizeof *pairs))
                goto nomem;
            pairs[npairs++] = (struct pair){x, y, (double)(long)(sim * 1000 + 0.5) / 1000, decl};
        }
    if (npairs)
        qsort(pairs, (size_t)npairs, sizeof *pairs, cmp_pair);
    for (int pi = 0; pi < npairs; pi++) {
        int x = pairs[pi].a, y = pairs[pi].b;
        const char *na = ix.names[x], *nb = ix.names[y];
        cJSON *p = cJSON_CreateObject();
        if (!arr_add(jover, p))
            p = NULL;
        cJSON *names = cJSON_AddArrayToObject(p, "tools");
        arr_add(names, cJSON_CreateString(na));
        arr_add(names, cJSON_CreateString(nb));
        cJSON_AddNumberToObject(p, "similarity", pairs[pi].s);
        cJSON_AddBoolToObject(p, "declared", pairs[pi].decl);
        cJSON *sh = cJSON_AddArrayToObject(p, "shared");
        jaccard(&tok[x], &tok[y], sh);
        cJSON *by = cJSON_AddArrayToObject(p, "separated_by");
        /* the cases that name either tool, in order (a merge of the two ascending lists) */
        int i = 0, j = 0, n = 0;
        while (i < ix.nmention[x] || j < ix.nmention[y]) {
            int cx = i < ix.nmention[x] ? ix.mention[x][i] : ncases;
            int cy = j < ix.nmention[y] ? ix.mention[y][j] : ncases;
            int c = cx < cy ? cx : cy;
            /* a case naming one of the two separates them when it expects that one called */
            bool sep = ci[c].kind == 2 && (cx == cy   ? separates(&ci[c], na, nb)
                                           : cx == c ? ix.expect[x][i]
                                                     : ix.expect[y][j]);
            i += cx == c;
            j += cy == c;
            if (sep && n++ < FORGE_COV_MAX_IDS)
                arr_add(by, cJSON_CreateString(ci[c].id ? ci[c].id : ""));
        }
        cJSON_AddNumberToObject(p, "separating", n);
        cJSON *g = item(&a, FORGE_COV_OVERLAP, n > 0, na);
        if (g)
            cJSON_AddStringToObject(g, "other", nb);
    }

    /* declared clusters: a labeled case names every tool of the group */
    cJSON *clusters = o->overlap_map && !o->ignore[FORGE_COV_CLUSTER] ? map_clusters(o->overlap_map) : NULL;
    cJSON *cl;
    cJSON_ArrayForEach(cl, clusters) {
        cJSON *jc = cJSON_CreateObject();
        obj_add(jc, "tools", cJSON_Duplicate(cl, 1));
        cJSON *by = cJSON_AddArrayToObject(jc, "covered_by");
        int first = tool_index(&ix, cl->child->valuestring), n = 0;
        for (int i = 0; first >= 0 && i < ix.nmention[first]; i++) {
            int c = ix.mention[first][i];
            bool all = ci[c].kind == 2;
            const cJSON *x;
            cJSON_ArrayForEach(x, cl)
                all = all && (expects(&ci[c], x->valuestring) || has(ci[c].forb, ci[c].nforb, x->valuestring));
            if (all && n++ < FORGE_COV_MAX_IDS)
                arr_add(by, cJSON_CreateString(ci[c].id ? ci[c].id : ""));
        }
        cJSON_AddNumberToObject(jc, "covering", n);
        arr_add(jclusters, jc);
        cJSON *g = item(&a, FORGE_COV_CLUSTER, n > 0, cl->child->valuestring);
        if (g)
            obj_add(g, "tools", cJSON_Duplicate(cl, 1));
    }
    cJSON_Delete(clusters);

    /* arguments: enum values and optional fields */
    cJSON_ArrayForEach(t, tools) {
        const char *name = forge_json_str(t, "name");
        int ti = tool_index(&ix, name);
        const struct ref *refs = ti >= 0 ? ix.refs[ti] : NULL;
        int nrefs = ti >= 0 ? ix.nrefs[ti] : 0;
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(t, "parameters");
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(params, "required");
        const cJSON *prop;
        cJSON_ArrayForEach(prop, cJSON_GetObjectItemCaseSensitive(params, "properties")) {
            const cJSON *en = cJSON_GetObjectItemCaseSensitive(prop, "enum");
            if (!en)
                en = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(prop, "items"), "enum");
            const cJSON *v, *values = cJSON_IsArray(en) && !o->ignore[FORGE_COV_ENUM] ? en : NULL;
            cJSON_ArrayForEach(v, values) {
                int n = 0, last = -1;
                for (int i = 0; i < nrefs; i++) {
                    const struct argref *r = &ci[refs[i].c].args[refs[i].k];
                    if (refs[i].c != last && ref_is_arg(r, prop->string) && value_hits(r->value, v)) {
                        n++;
                        last = refs[i].c;
                    }
                }
                cJSON *ja = cJSON_CreateObject();
                cJSON_AddStringToObject(ja, "tool", name);
                cJSON_AddStringToObject(ja, "argument", prop->string);
                cJSON_AddStringToObject(ja, "kind", "enum");
                obj_add(ja, "value", cJSON_Duplicate(v, 1));
                cJSON_AddNumberToObject(ja, "cases", n);
                arr_add(jargs, ja);
                cJSON *g = item(&a, FORGE_COV_ENUM, n > 0, name);
                if (g) {
                    cJSON_AddStringToObject(g, "argument", prop->string);
                    obj_add(g, "value", cJSON_Duplicate(v, 1));
                }
            }
            if (o->ignore[FORGE_COV_OPTIONAL] || set_has(req, prop->string))
                continue;
            int n = 0, last = -1;
            for (int i = 0; i < nrefs; i++)
                if (refs[i].c != last && ref_is_arg(&ci[refs[i].c].args[refs[i].k], prop->string)) {
                    n++;
                    last = refs[i].c;
                }
            cJSON *ja = cJSON_CreateObject();
            cJSON_AddStringToObject(ja, "tool", name);
            cJSON_AddStringToObject(ja, "argument", prop->string);
            cJSON_AddStringToObject(ja, "kind", "optional");
            cJSON_AddNumberToObject(ja, "cases", n);
            arr_add(jargs, ja);
            cJSON *g = item(&a, FORGE_COV_OPTIONAL, n > 0, name);
            if (g)
                cJSON_AddStringToObject(g, "argument", prop->string);
        }
    }

    /* names the cases use that are not tools */
    int more = 0;
    for (int c = 0; c < ncases; c++) {
        for (int k = 0; k < ci[c].nreq; k++)
            warn_unknown(warnings, &more, &ci[c], &ix, ci[c].req[k], "an expected tool");
        for (int k = 0; k < ci[c].nforb; k++)
            warn_unknown(warnings, &more, &ci[c], &ix, ci[c].forb[k], "an excluded tool");
        const cJSON *set;
        cJSON_ArrayForEach(set, ci[c].acceptable) {
            const cJSON *n;
            cJSON_ArrayForEach(n, set)
                if (cJSON_IsString(n))
                    warn_unknown(warnings, &more, &ci[c], &ix, n->valuestring, "toolsAcceptable");
        }
        for (int k = 0; k < ci[c].nargs; k++)
            if (!ci[c].args[k].regex)
                warn_unknown(warnings, &more, &ci[c], &ix, ci[c].args[k].tool, "an argument check");
    }
    if (more) {
        char msg[160];
        snprintf(msg, sizeof msg, "and %d more names that are not tools (only the first %d are listed)", more,
                 MAX_WARNINGS);
        arr_add(warnings, cJSON_CreateString(msg));
    }

    int covered = 0, items = 0;
    for (int k = 0; k < FORGE_COV_NKINDS; k++) {
        if (o->ignore[k] || (k == FORGE_COV_CLUSTER && !o->overlap_map))
            continue;
        covered += a.covered[k];
        items += a.items[k];
        cJSON *jk = cJSON_AddObjectToObject(kinds, forge_coverage_kinds[k]);
        cJSON_AddNumberToObject(jk, "covered", a.covered[k]);
        cJSON_AddNumberToObject(jk, "items", a.items[k]);
    }
    cJSON_SetNumberValue(jcoverage, items ? (double)covered / items : 1);
    cJSON_SetNumberValue(jcovered, covered);
    cJSON_SetNumberValue(jitems, items);
    /* a part lost to an allocation failure would make the report wrong, not just short */
    if (forge_alloc_failures() != failures)
        goto nomem;
    for (int c = 0; c < ncases; c++)
        caseinfo_free(&ci[c]);
    for (int k = 0; k < ntools; k++)
        tokens_free(&tok[k]);
    forge_free(ci);
    forge_free(tok);
    forge_free(pairs);
    index_free(&ix);
    return r;
nomem:
    if (ci)
        for (int c = 0; c < ncases; c++)
            caseinfo_free(&ci[c]);
    if (tok)
        for (int k = 0; k < ntools; k++)
            tokens_free(&tok[k]);
    forge_free(ci);
    forge_free(tok);
    forge_free(pairs);
    index_free(&ix);
    cJSON_Delete(r);
    forge_err_set(err, FORGE_ENOMEM, "out of memory");
    return NULL;
}
