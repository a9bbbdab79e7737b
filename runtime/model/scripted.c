/* The offline scripted model. */
#include "model/scripted.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/re.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rules answered in C ----
 *
 * The rules as data (forge_scripted_set_plan): what lua/forge/scripted.lua does for a rule that
 * holds no function, done here without entering Lua. Whatever this code is not sure to answer
 * exactly as the Lua engine would (a rule with `when`, a step that is a function, a template
 * path into a table, an odd request), it leaves to the Lua engine, which then answers the whole
 * request: evaluating data rules has no effects, so starting over is the same answer. */

enum { STEP_NONE, STEP_CALLS, STEP_REPLY, STEP_LUA };

struct pcall {
    const char *name;
    const cJSON *args; /* an object whose string values are templates */
};

struct pstep {
    int kind;
    int ncalls;
    struct pcall *calls;
    const char *reply; /* STEP_CALLS: NULL for no text (null content) */
};

struct prule {
    bool lua;  /* the Lua engine decides this rule */
    bool when; /* a function decides, after case and match */
    bool has_case;
    int ncases;
    const char **cases;
    struct forge_re *re;
    int nsteps;
    struct pstep *steps;
};

struct plan {
    cJSON *doc; /* owns the strings and arguments the rules point into */
    int n;
    struct prule *rules;
};

#define MAX_PAIRS 33                 /* as forge.re.find: the whole match and 32 groups */
#define MAX_TEXT ((size_t)1 << 20)   /* a longer answer is left to Lua and its memory cap */
#define MAX_DECODE ((size_t)8 << 10) /* a longer tool result is decoded by Lua, under its cap */

static void plan_free(struct plan *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        struct prule *r = &p->rules[i];
        forge_free(r->cases);
        forge_re_free(r->re);
        for (int j = 0; j < r->nsteps; j++)
            forge_free(r->steps[j].calls);
        forge_free(r->steps);
    }
    forge_free(p->rules);
    cJSON_Delete(p->doc);
    forge_free(p);
}

static int count(const cJSON *a)
{
    int n = 0;
    for (const cJSON *c = a ? a->child : NULL; c; c = c->next)
        n++;
    return n;
}

static int plan_step(const cJSON *s, struct pstep *st)
{
    st->kind = STEP_NONE;
    if (cJSON_IsNull(s))
        return 0;
    if (!cJSON_IsObject(s) || cJSON_IsTrue(forge_json_get(s, "lua"))) {
        st->kind = STEP_LUA;
        return 0;
    }
    const cJSON *calls = forge_json_get(s, "calls");
    const cJSON *reply = forge_json_get(s, "reply");
    st->reply = cJSON_IsString(reply) ? reply->valuestring : NULL;
    if (!cJSON_IsArray(calls)) {
        st->kind = STEP_REPLY;
        if (!st->reply)
            st->reply = "";
        return 0;
    }
    st->kind = STEP_CALLS;
    st->ncalls = count(calls);
    st->calls = forge_calloc((size_t)st->ncalls + 1, sizeof *st->calls);
    if (!st->calls)
        return FORGE_ENOMEM;
    int i = 0;
    for (const cJSON *c = calls->child; c; c = c->next, i++) {
        st->calls[i].name = forge_json_str(c, "name");
        st->calls[i].args = forge_json_get(c, "arguments");
        if (!st->calls[i].name || !cJSON_IsObject(st->calls[i].args))
            st->kind = STEP_LUA;
    }
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int plan_rule(const cJSON *r, struct prule *pr, struct forge_err *err)
{
    if (!cJSON_IsObject(r) || cJSON_IsTrue(forge_json_get(r, "lua"))) {
        pr->lua = true;
        return 0;
    }
    pr->when = cJSON_IsTrue(forge_json_get(r, "when"));
    const cJSON *cases = forge_json_get(r, "case");
    if (cases) {
        pr->has_case = true;
        pr->cases = forge_calloc((size_t)count(cases) + 1, sizeof *pr->cases);
        if (!pr->cases)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        for (const cJSON *c = cases->child; c; c = c->next)
            if (cJSON_IsString(c))
                pr->cases[pr->ncases++] = c->valuestring;
        /* sorted: each request looks its case up by bisection in every rule's list */
        qsort(pr->cases, (size_t)pr->ncases, sizeof *pr->cases, cmp_id);
    }
    const char *match = forge_json_str(r, "match");
    if (match) {
        FORGE_ERR_LOCAL(e);
        pr->re = forge_re_compile(match, strlen(match), FORGE_RE_CASELESS, &e);
        if (!pr->re) { /* Lua raises the pattern's error when the rule is reached */
            if (e.code == FORGE_ENOMEM)
                return forge_err_set(err, FORGE_ENOMEM, "out of memory");
            pr->lua = true;
            return 0;
        }
    }
    const cJSON *steps = forge_json_get(r, "steps");
    pr->nsteps = count(steps);
    pr->steps = forge_calloc((size_t)pr->nsteps + 1, sizeof *pr->steps);
    if (!pr->steps)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int i = 0;
    for (const cJSON *s = steps ? steps->child : NULL; s; s = s->next, i++)
        if (plan_step(s, &pr->steps[i]))
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    return 0;
}

/* ---- the rules' context, read from the request on demand ---- */

struct rres {
    const cJSON *m;    /* the tool message */
    const cJSON *call; /* the call it answers, or NULL */
    cJSON *decoded;    /* its content decoded, once asked for */
    int state;         /* 0 not decoded yet, 1 decoded, 2 not JSON (the text is the result) */
};

struct rctx {
    const cJSON *req, *msgs;
    const char *message;
    size_t message_len;
    int round, turn;
    const size_t *ov; /* the captures of the rule's match */
    int pairs;
    bool have_results;
    struct rres *res; /* every result of the case (history); the round's are the last nres */
    struct rres few[8]; /* res for short conversations */
    int nhist, nres;
    size_t rendered; /* bytes rendered for this answer so far: past MAX_TEXT, Lua answers */
};

static void rctx_free(struct rctx *c)
{
    for (int i = 0; i < c->nhist; i++)
        cJSON_Delete(c->res[i].decoded);
    if (c->res != c->few)
        forge_free(c->res);
}

/* What the Lua engine builds from the messages: the round, the turn and the user's message.
 * Returns 0 when the request is one Lua must look at (it may raise on it). */
static int scan(struct rctx *c)
{
    c->round = 1;
    c->turn = 0;
    c->message = "";
    const cJSON *msgs = forge_json_get(c->req, "messages");
    if (msgs && !cJSON_IsArray(msgs))
        return 0;
    c->msgs = msgs;
    for (const cJSON *m = msgs ? msgs->child : NULL; m; m = m->next) {
        if (!cJSON_IsObject(m))
            return 0;
        const char *role = forge_json_str(m, "role");
        if (!role)
            continue;
        if (!strcmp(role, "user")) {
            const cJSON *content = forge_json_get(m, "content");
            if (content && !cJSON_IsString(content))
                return 0;
            c->message = content ? content->valuestring : "";
            c->turn++;
            c->round = 1;
        } else if (!strcmp(role, "assistant")) {
            c->round++;
            const cJSON *tcs = forge_json_get(m, "tool_calls");
            if (tcs && !cJSON_IsArray(tcs))
                return 0;
            for (const cJSON *t = tcs ? tcs->child : NULL; t; t = t->next)
                if (!cJSON_IsObject(t) || !forge_json_str(t, "id"))
                    return 0;
        } else if (!strcmp(role, "tool")) {
            const cJSON *content = forge_json_get(m, "content");
            if (content && !cJSON_IsString(content))
                return 0;
        }
    }
    c->message_len = strlen(c->message);
    return 1;
}

/* Lists the results as the Lua engine does: each tool message with the call it answers (the
 * latest call of that id so far). Returns 0 or FORGE_ENOMEM. */
static int results(struct rctx *c)
{
    if (c->have_results)
        return 0;
    c->have_results = true;
    int n = 0;
    for (const cJSON *m = c->msgs ? c->msgs->child : NULL; m; m = m->next)
        n++;
    if ((size_t)n + 1 <= sizeof c->few / sizeof c->few[0]) {
        c->res = c->few;
        memset(c->few, 0, sizeof c->few);
    } else if (!(c->res = forge_calloc((size_t)n + 1, sizeof *c->res))) {
        return FORGE_ENOMEM;
    }
    for (const cJSON *m = c->msgs ? c->msgs->child : NULL; m; m = m->next) {
        const char *role = forge_json_str(m, "role");
        if (!role)
            continue;
        if (!strcmp(role, "user") || !strcmp(role, "assistant")) {
            c->nres = 0;
        } else if (!strcmp(role, "tool")) {
            struct rres *r = &c->res[c->nhist++];
            c->nres++;
            r->m = m;
            const char *want = forge_json_str(m, "tool_call_id");
            /* the first item's prev is the array's last: stop at the first */
            for (const cJSON *a = m->prev; want && m != c->msgs->child; a = a->prev) {
                const cJSON *tcs = forge_json_get(a, "tool_calls");
                for (const cJSON *t = cJSON_IsArray(tcs) ? tcs->child : NULL; t; t = t->next) {
                    const char *id = forge_json_str(t, "id");
                    if (id && !strcmp(id, want))
                        r->call = t;
                }
                if (r->call || a == c->msgs->child)
                    break;
            }
        }
    }
    return 0;
}

/* A value of the rules' context as the Lua engine would see it. */
enum { V_NIL, V_JSON, V_STR, V_INT, V_FALSE, V_CTX, V_LIST, V_HIST, V_RES, V_CALLS, V_CALL, V_MATCH };

struct val {
    int k;
    const cJSON *j;  /* V_JSON, V_CALL */
    const char *s;   /* V_STR */
    size_t len;      /* V_STR */
    long long i;     /* V_INT */
    struct rres *r;  /* V_RES */
};

static int is_error(const struct rres *r)
{
    const cJSON *e = forge_json_get(r->m, "is_error");
    return e && !cJSON_IsFalse(e);
}

/* r.result: the content decoded, or the content when it is not JSON. 1, or 0 for Lua. */
static int result_of(struct rres *r, struct val *v)
{
    const cJSON *content = forge_json_get(r->m, "content");
    if (!content) { /* json.decode("") fails: the result is the missing content */
        v->k = V_NIL;
        return 1;
    }
    size_t len = strlen(content->valuestring);
    if (r->state == 0) {
        if (len > MAX_DECODE)
            return 0;
        FORGE_ERR_LOCAL(err);
        r->decoded = forge_json_parse(content->valuestring, len, "<input>", &err);
        /* "ok and v or m.content": a decoded false leaves the text, as does a \u0000 */
        if (r->decoded && (cJSON_IsFalse(r->decoded) ||
                           forge_json_nul_escape(content->valuestring, len) < len)) {
            cJSON_Delete(r->decoded);
            r->decoded = NULL;
        }
        if (!r->decoded && err.code == FORGE_ENOMEM)
            return 0;
        r->state = r->decoded ? 1 : 2;
    }
    v->k = V_JSON;
    v->j = r->state == 1 ? r->decoded : content;
    return 1;
}

/* The last member named <key> (a later duplicate wins, as in Lua), or NULL. */
static const cJSON *member(const cJSON *obj, const char *key, size_t len)
{
    const cJSON *found = NULL;
    for (const cJSON *c = cJSON_IsObject(obj) ? obj->child : NULL; c; c = c->next)
        if (c->string && strlen(c->string) == len && !memcmp(c->string, key, len))
            found = c;
    return found;
}

static void json_val(const cJSON *j, struct val *v)
{
    v->k = j ? V_JSON : V_NIL;
    v->j = j;
}

static bool is(const char *p, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(p, word, n);
}

/* One step of a {{path}}: v = v[part]. 1, 0 for Lua, or -1 out of memory. */
static int step(struct rctx *c, struct val *v, const char *p, size_t n, bool num, long long idx)
{
    struct val out = {.k = V_NIL};
    switch (v->k) {
    case V_CTX:
        if (num)
            break;
        if (is(p, n, "message")) {
            out.k = V_STR;
            out.s = c->message;
            out.len = c->message_len;
        } else if (is(p, n, "round") || is(p, n, "turn")) {
            out.k = V_INT;
            out.i = *p == 'r' ? c->round : c->turn;
        } else if (is(p, n, "case_id") || is(p, n, "tool_choice")) {
            json_val(forge_json_get(c->req, *p == 'c' ? "case_id" : "tool_choice"), &out);
        } else if (is(p, n, "messages")) {
            if (!c->msgs)
                return 0;
            json_val(c->msgs, &out);
        } else if (is(p, n, "results") || is(p, n, "history") || is(p, n, "result")) {
            if (results(c))
                return -1;
            out.k = *p == 'h' ? V_HIST : V_LIST;
            if (n == 6) { /* result: the round's first result, or its error */
                out.k = V_NIL;
                if (c->nres > 0) {
                    struct rres *r = &c->res[c->nhist - c->nres];
                    if (is_error(r)) {
                        json_val(forge_json_get(r->m, "content"), &out);
                    } else {
                        if (!result_of(r, &out))
                            return 0;
                    }
                }
            }
        } else if (is(p, n, "calls")) {
            out.k = V_CALLS;
        } else if (is(p, n, "match")) {
            out.k = V_MATCH;
        } else if (is(p, n, "tool_names")) {
            return 0;
        }
        break;
    case V_JSON:
        if (cJSON_IsObject(v->j) && !num)
            json_val(member(v->j, p, n), &out);
        else if (cJSON_IsArray(v->j) && num && idx >= 1) {
            const cJSON *e = v->j->child;
            for (long long i = 1; e && i < idx; i++)
                e = e->next;
            json_val(e, &out);
        }
        break;
    case V_LIST:
    case V_HIST: {
        int len = v->k == V_HIST ? c->nhist : c->nres;
        if (num && idx >= 1 && idx <= len) {
            out.k = V_RES;
            out.r = &c->res[(v->k == V_HIST ? 0 : c->nhist - c->nres) + idx - 1];
        }
        break;
    }
    case V_RES: {
        struct rres *r = v->r;
        if (num)
            break;
        if (is(p, n, "name")) {
            const cJSON *cn = r->call ? forge_json_get(r->call, "name") : NULL;
            json_val(cn && !cJSON_IsFalse(cn) ? cn : forge_json_get(r->m, "name"), &out);
        } else if (is(p, n, "arguments")) {
            json_val(r->call ? forge_json_get(r->call, "arguments") : NULL, &out);
        } else if (is(p, n, "result")) {
            if (!is_error(r) && !result_of(r, &out))
                return 0;
        } else if (is(p, n, "error")) {
            if (is_error(r))
                json_val(forge_json_get(r->m, "content"), &out);
        }
        break;
    }
    case V_CALLS: {
        if (!num || idx < 1)
            break;
        long long i = 0;
        for (const cJSON *m = c->msgs ? c->msgs->child : NULL; m && out.k == V_NIL; m = m->next) {
            const char *role = forge_json_str(m, "role");
            if (!role || strcmp(role, "assistant"))
                continue;
            const cJSON *tcs = forge_json_get(m, "tool_calls");
            for (const cJSON *t = tcs ? tcs->child : NULL; t; t = t->next)
                if (++i == idx) {
                    out.k = V_CALL;
                    out.j = t;
                    break;
                }
        }
        break;
    }
    case V_CALL:
        if (!num && (is(p, n, "id") || is(p, n, "name") || is(p, n, "arguments"))) {
            char key[16];
            memcpy(key, p, n);
            key[n] = '\0';
            json_val(forge_json_get(v->j, key), &out);
        }
        break;
    case V_MATCH:
        if (num && idx >= 1 && idx < c->pairs) {
            if (c->ov[2 * idx] == (size_t)-1) {
                out.k = V_FALSE;
            } else {
                out.k = V_STR;
                out.s = c->message + c->ov[2 * idx];
                out.len = c->ov[2 * idx + 1] - c->ov[2 * idx];
            }
        }
        break;
    default: /* a string, a number, a boolean or nil has no fields */
        break;
    }
    *v = out;
    return 1;
}

/* tostring() of a number decoded from JSON (forge_lua_push_scalar makes whole numbers up to
 * 2^53 integers). */
static int add_number(struct forge_buf *b, double d)
{
    if (d == floor(d) && fabs(d) <= 9007199254740992.0 && !(d == 0 && signbit(d)))
        return forge_buf_addf(b, "%lld", (long long)d);
    char t[64];
    snprintf(t, sizeof t - 2, "%.14g", d);
    if (t[strspn(t, "-0123456789")] == '\0')
        strcat(t, ".0");
    return forge_buf_adds(b, t);
}

static bool word_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static bool space(char ch)
{
    return ch == ' ' || (ch >= '\t' && ch <= '\r');
}

/* Appends the value of {{path}}. 1, 0 for Lua, or a negative code. */
static int add_path(struct rctx *c, const char *path, size_t plen, struct forge_buf *b)
{
    struct val v = {.k = V_CTX};
    bool any = false;
    for (size_t i = 0; i < plen;) {
        if (path[i] == '.' || path[i] == '[' || path[i] == ']') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < plen && word_char(path[j]))
            j++;
        const char *p = path + i;
        size_t n = j - i;
        i = j;
        any = true;
        bool num = *p >= '0' && *p <= '9';
        long long idx = 0;
        if (num) { /* tonumber(part): whole decimal numbers only here */
            if (n > 18)
                return 0;
            for (size_t k = 0; k < n; k++) {
                if (p[k] < '0' || p[k] > '9')
                    return 0;
                idx = idx * 10 + (p[k] - '0');
            }
        }
        int rc = step(c, &v, p, n, num, idx);
        if (rc <= 0)
            return rc;
    }
    if (!any)
        return 0;
    switch (v.k) {
    case V_NIL:
        return 1;
    case V_STR:
        return forge_buf_add(b, v.s, v.len) ? -1 : 1;
    case V_INT:
        return forge_buf_addf(b, "%lld", v.i) ? -1 : 1;
    case V_FALSE:
        return forge_buf_adds(b, "false") ? -1 : 1;
    case V_JSON:
        if (cJSON_IsString(v.j))
            return forge_buf_adds(b, v.j->valuestring) ? -1 : 1;
        if (cJSON_IsNumber(v.j))
            return add_number(b, v.j->valuedouble) ? -1 : 1;
        if (cJSON_IsBool(v.j))
            return forge_buf_adds(b, cJSON_IsTrue(v.j) ? "true" : "false") ? -1 : 1;
        if (cJSON_IsNull(v.j))
            return 1;
        return 0; /* a table: json.encode in Lua */
    default:
        return 0;
    }
}

/* render(s, ctx) of the Lua engine: $1..$9, then {{path}}. Sets *out to a new string. 1, 0 for
 * Lua, or a negative code. */
static int render(struct rctx *c, const char *s, char **out)
{
    struct forge_buf a, b;
    forge_buf_init(&a, MAX_TEXT);
    forge_buf_init(&b, MAX_TEXT);
    int rc = 1;
    const char *t = s;
    size_t n = strlen(s);
    if (memchr(s, '$', n)) {
        for (const char *p = s; *p && rc > 0;) {
            const char *d = strchr(p, '$');
            size_t run = d ? (size_t)(d - p) : strlen(p);
            if (run && forge_buf_add(&a, p, run))
                rc = -1;
            p += run;
            if (!d || rc < 0)
                break;
            if (p[1] >= '0' && p[1] <= '9') {
                int k = p[1] - '0';
                if (k >= 1 && k < c->pairs && c->ov[2 * k] != (size_t)-1 &&
                    forge_buf_add(&a, c->message + c->ov[2 * k], c->ov[2 * k + 1] - c->ov[2 * k]))
                    rc = -1;
                p += 2;
            } else {
                if (forge_buf_addc(&a, '$'))
                    rc = -1;
                p++;
            }
        }
        t = a.data ? a.data : "";
        n = a.len;
    }
    for (size_t i = 0; i < n && rc > 0;) {
        const char *o = memchr(t + i, '{', n - i);
        size_t run = o ? (size_t)(o - (t + i)) : n - i;
        if (run && forge_buf_add(&b, t + i, run))
            rc = -1;
        i += run;
        if (i >= n || rc < 0)
            break;
        if (i + 1 < n && t[i + 1] == '{') {
            size_t j = i + 2;
            while (j < n && space(t[j]))
                j++;
            size_t k = j;
            while (k < n && (word_char(t[k]) || t[k] == '.' || t[k] == '[' || t[k] == ']'))
                k++;
            size_t e = k;
            while (e < n && space(t[e]))
                e++;
            if (k > j && e + 1 < n && t[e] == '}' && t[e + 1] == '}') {
                rc = add_path(c, t + j, k - j, &b);
                i = e + 2;
                continue;
            }
        }
        if (forge_buf_addc(&b, t[i]))
            rc = -1;
        i++;
    }
    forge_buf_free(&a);
    c->rendered += b.len;
    if (rc > 0 && c->rendered > MAX_TEXT)
        rc = 0; /* strings of the arguments add up past the cap: Lua answers, under its own */
    if (rc > 0) {
        *out = forge_buf_take(&b);
        if (!*out)
            rc = -1;
    }
    forge_buf_free(&b);
    return rc < 0 ? 0 : rc;
}

/* The arguments of a call: a copy of the rule's with every string value rendered. 1, 0 for Lua. */
static int render_tree(struct rctx *c, cJSON *v)
{
    for (cJSON *e = v->child; e; e = e->next) {
        if (cJSON_IsString(e) && strpbrk(e->valuestring, "${")) {
            char *s = NULL;
            if (!render(c, e->valuestring, &s))
                return 0;
            bool ok = cJSON_SetValuestring(e, s) != NULL;
            forge_free(s);
            if (!ok)
                return 0;
        } else if ((cJSON_IsObject(e) || cJSON_IsArray(e)) && !render_tree(c, e)) {
            return 0;
        }
    }
    return 1;
}

/* Writes "_<v>" at <at> of <buf> (room for it), returns the new end. */
static size_t add_int(char *buf, size_t at, int v)
{
    char digits[12];
    int n = 0;
    unsigned u = (unsigned)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) && n < 11);
    buf[at++] = '_';
    while (n)
        buf[at++] = digits[--n];
    buf[at] = '\0';
    return at;
}

static cJSON *answer_msg(const char *finish, cJSON *content, cJSON *calls)
{
    cJSON *out = cJSON_CreateObject();
    cJSON *msg = cJSON_CreateObject();
    if (!out || !msg || !content) {
        cJSON_Delete(out);
        cJSON_Delete(msg);
        cJSON_Delete(content);
        cJSON_Delete(calls);
        return NULL;
    }
    forge_json_add_item(out, "finish_reason", cJSON_CreateStringReference(finish)); /* a literal */
    forge_json_add_item(out, "message", msg);
    forge_json_add_item(msg, "content", content);
    forge_json_add_lit(msg, "role", "assistant");
    if (calls)
        forge_json_add_item(msg, "tool_calls", calls);
    return out;
}

/* The answer of the step: the table the Lua engine returns, as forge_lua_to_json converts it
 * (keys sorted). NULL when Lua must answer. */
static cJSON *answer_step(struct rctx *c, const struct pstep *st)
{
    char *text = NULL;
    if (st->kind == STEP_NONE)
        return answer_msg("stop", cJSON_CreateString(""), NULL);
    if (st->kind == STEP_REPLY) {
        if (!render(c, st->reply, &text))
            return NULL;
        cJSON *r = answer_msg("stop", cJSON_CreateString(text), NULL);
        forge_free(text);
        return r;
    }
    /* an empty list of calls is an empty Lua table, which converts to {} */
    cJSON *calls = st->ncalls ? cJSON_CreateArray() : cJSON_CreateObject();
    for (int i = 0; calls && i < st->ncalls; i++) {
        cJSON *call = cJSON_CreateObject();
        cJSON *args = cJSON_Duplicate(st->calls[i].args, 1);
        char id[64] = "call";
        size_t at = 4;
        if (c->turn > 1)
            at = add_int(id, at, c->turn);
        at = add_int(id, at, c->round);
        add_int(id, at, i + 1);
        if (!call || !args || !render_tree(c, args)) {
            cJSON_Delete(call);
            cJSON_Delete(args);
            cJSON_Delete(calls);
            return NULL;
        }
        forge_json_add_item(call, "arguments", args);
        forge_json_add_str(call, "id", id);
        forge_json_add_str(call, "name", st->calls[i].name);
        cJSON_AddItemToArray(calls, call);
    }
    if (!calls)
        return NULL;
    cJSON *content;
    if (st->reply) {
        if (!render(c, st->reply, &text)) {
            cJSON_Delete(calls);
            return NULL;
        }
        content = cJSON_CreateString(text);
        forge_free(text);
    } else {
        content = cJSON_CreateNull();
    }
    return answer_msg("tool_calls", content, calls);
}

/* The answer of the first rule that matches, or NULL when Lua must answer. */
static cJSON *answer(const struct plan *p, const cJSON *req)
{
    struct rctx c = {.req = req};
    if (!scan(&c))
        return NULL;
    const cJSON *case_id = forge_json_get(req, "case_id");
    if (case_id && !cJSON_IsString(case_id))
        return NULL;
    size_t ov[2 * MAX_PAIRS];
    cJSON *out = NULL;
    int i;
    for (i = 0; i < p->n; i++) {
        const struct prule *r = &p->rules[i];
        if (r->lua)
            break;
        if (r->has_case) {
            bool found = false;
            const char *id = case_id ? case_id->valuestring : NULL;
            found = id && r->ncases &&
                    bsearch(&id, r->cases, (size_t)r->ncases, sizeof *r->cases, cmp_id);
            if (!found)
                continue;
        }
        c.pairs = 0;
        if (r->re) {
            FORGE_ERR_LOCAL(err);
            int rc = forge_re_exec(r->re, c.message, c.message_len, 0, ov, MAX_PAIRS, &err);
            if (rc < 0) { /* Lua raises it, or its limits differ */
                i = -1;
                break;
            }
            if (rc == 0)
                continue;
            c.ov = ov;
            c.pairs = rc;
        }
        break;
    }
    if (i < 0 || (i < p->n && (p->rules[i].lua || p->rules[i].when))) {
        out = NULL;
    } else if (i == p->n) {
        out = answer_msg("stop", cJSON_CreateString(""), NULL);
    } else {
        const struct prule *r = &p->rules[i];
        struct pstep none = {.kind = STEP_NONE};
        const struct pstep *st = c.round <= r->nsteps ? &r->steps[c.round - 1] : &none;
        out = st->kind == STEP_LUA ? NULL : answer_step(&c, st);
    }
    rctx_free(&c);
    return out;
}

struct scripted {
    struct forge_model base;
    struct forge_callable respond;
    void (*free_ctx)(void *);
    struct plan *plan; /* the rules as data, or NULL: Lua answers every request */
};

int forge_scripted_set_plan(struct forge_model *m, cJSON *plan, struct forge_err *err)
{
    struct scripted *s = (struct scripted *)m;
    struct plan *p = forge_calloc(1, sizeof *p);
    if (!p) {
        cJSON_Delete(plan);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    p->doc = plan;
    p->n = count(plan);
    p->rules = forge_calloc((size_t)p->n + 1, sizeof *p->rules);
    int rc = p->rules ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int i = 0;
    for (const cJSON *r = plan ? plan->child : NULL; r && !rc; r = r->next, i++)
        rc = plan_rule(r, &p->rules[i], err);
    if (rc) {
        plan_free(p);
        return rc;
    }
    plan_free(s->plan);
    s->plan = p;
    return 0;
}

/* The Lua engine's answer to <req>. */
static int lua_answer(struct scripted *s, const cJSON *req, cJSON **out, struct forge_err *err)
{
    /* The rules see the conversation and the tools' names, not their definitions: leaving the
     * schemas out saves converting them into Lua on every request. */
    cJSON *view = cJSON_CreateObject(), *names = forge_json_add_arr(view, "tool_names");
    for (const cJSON *c = req->child; c; c = c->next)
        if (strcmp(c->string, "tools") != 0)
            cJSON_AddItemReferenceToObject(view, c->string, (cJSON *)c);
    const cJSON *t;
    cJSON_ArrayForEach(t, forge_json_get(req, "tools")) {
        const char *n = forge_json_str(t, "name");
        if (n)
            cJSON_AddItemToArray(names, cJSON_CreateString(n));
    }
    cJSON *args = cJSON_CreateArray();
    cJSON_AddItemToArray(args, view);
    *out = NULL;
    int rc = s->respond.call(s->respond.ctx, args, out, err);
    cJSON_Delete(args);
    if (rc)
        forge_err_prefix(err, "scripted model");
    return rc;
}

static int complete(struct forge_model *m, const cJSON *req, cJSON **resp, struct forge_err *err)
{
    struct scripted *s = (struct scripted *)m;
    double t0 = forge_clock_ms();
    cJSON *out = s->plan ? answer(s->plan, req) : NULL;
    if (!out) {
        int rc = lua_answer(s, req, &out, err);
        if (rc)
            return rc;
    }
    const cJSON *msg = forge_json_get(out, "message");
    if (!cJSON_IsObject(out) || !cJSON_IsObject(msg)) {
        cJSON_Delete(out);
        return forge_err_set(err, FORGE_ELUA, "scripted model: the rules returned no message");
    }
    if (!forge_json_get(out, "usage")) {
        cJSON *u = forge_json_add_obj(out, "usage");
        forge_json_add_num(u, "input_tokens", 0);
        forge_json_add_num(u, "output_tokens", 0);
    }
    if (!forge_json_get(out, "cost_usd"))
        forge_json_add_num(out, "cost_usd", 0);
    if (!forge_json_get(out, "latency_ms"))
        forge_json_add_num(out, "latency_ms", (double)(long long)((forge_clock_ms() - t0) * 1000) / 1000);
    forge_json_add_bool(out, "cached", 0);
    *resp = out;
    return 0;
}

static void free_model(struct forge_model *m)
{
    struct scripted *s = (struct scripted *)m;
    if (s->free_ctx)
        s->free_ctx(s->respond.ctx);
    plan_free(s->plan);
    forge_free(m->provider);
    forge_free(m->name);
    forge_free(s);
}

static const struct forge_model_ops ops = {complete, free_model};

struct forge_model *forge_scripted_new(struct forge_callable respond, void (*free_ctx)(void *),
                                       const char *name, struct forge_err *err)
{
    struct scripted *s = forge_calloc(1, sizeof *s);
    if (!s) {
        if (free_ctx)
            free_ctx(respond.ctx);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    s->base.ops = &ops;
    s->base.provider = forge_strdup("scripted");
    s->base.name = forge_strdup(name ? name : "scripted");
    s->respond = respond;
    s->free_ctx = free_ctx;
    return &s->base;
}
