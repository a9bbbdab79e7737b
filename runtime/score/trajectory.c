/* Trajectory importers (see trajectory.h). */
#include "score/trajectory.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "base/strtab.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *const forge_trajectory_formats[] = {
    "forge", "agent-eval-harness", "turns", "openai", "openai-responses", "anthropic", "gemini", NULL};

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *gets(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *json_kind(const cJSON *v)
{
    return cJSON_IsArray(v)    ? "an array"
           : cJSON_IsString(v) ? "a string"
           : cJSON_IsNumber(v) ? "a number"
           : cJSON_IsBool(v)   ? "a boolean"
           : cJSON_IsNull(v)   ? "null"
                               : "an object";
}

static bool is(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Detection                                                                                 */

static bool block_type(const cJSON *content, const char *const *types)
{
    if (!cJSON_IsArray(content))
        return false;
    for (const cJSON *b = content->child; b; b = b->next)
        for (int i = 0; types[i]; i++)
            if (is(gets(b, "type"), types[i]))
                return true;
    return false;
}

static const char *detect_list(const cJSON *a)
{
    static const char *const anth[] = {"tool_use", "tool_result", "thinking", NULL};
    static const char *const resp_parts[] = {"input_text", "output_text", NULL};
    static const char *const resp_items[] = {"function_call", "function_call_output", "message",
                                             "reasoning", NULL};
    const cJSON *first = a->child;
    if (!first)
        return "openai";
    if (get(first, "turn_id") && get(first, "role"))
        return "turns";
    if (get(first, "turns"))
        return NULL; /* a list of trajectories: the caller's business */
    for (const cJSON *m = a->child; m; m = m->next)
        if (cJSON_IsArray(get(m, "parts")))
            return "gemini";
    for (const cJSON *m = a->child; m; m = m->next) {
        const char *type = gets(m, "type");
        for (int i = 0; type && resp_items[i]; i++)
            if (is(type, resp_items[i]))
                return "openai-responses";
        const char *role = gets(m, "role");
        if (is(role, "tool") || is(role, "function") || get(m, "tool_calls") ||
            get(m, "function_call"))
            return "openai";
        if (block_type(get(m, "content"), anth))
            return "anthropic";
        if (block_type(get(m, "content"), resp_parts))
            return "openai-responses";
    }
    for (const cJSON *m = a->child; m; m = m->next)
        if (!gets(m, "role"))
            return NULL;
    return "openai";
}

const char *forge_trajectory_detect(const cJSON *doc)
{
    if (cJSON_IsArray(doc))
        return detect_list(doc);
    if (!cJSON_IsObject(doc))
        return NULL;
    if (cJSON_IsArray(get(doc, "turns")))
        return "forge";
    const cJSON *msgs = get(doc, "messages");
    if (cJSON_IsArray(msgs)) {
        const char *f = detect_list(msgs);
        if (is(f, "openai") && cJSON_IsString(get(doc, "system")))
            return "anthropic";
        return f;
    }
    if (cJSON_IsArray(get(doc, "input")) || cJSON_IsArray(get(doc, "output")))
        return "openai-responses";
    if (cJSON_IsArray(get(doc, "contents")))
        return "gemini";
    if (get(doc, "turn_id") && get(doc, "role"))
        return "turns";
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Builder                                                                                   */

struct tb {
    const char *format;
    struct forge_err *err;
    cJSON *traj, *turns;
    cJSON *agent;     /* the open agent turn, or NULL */
    int turn_id;      /* id of the current exchange */
    int round;        /* model responses in the open agent turn */
    bool new_round;   /* the next agent item starts a new model response */
    int rc;
    /* the calls by id (the last of each id) and by name (in order), for results: a search of
     * every call for each result made n calls cost n^2 / 2 */
    struct forge_strtab ids, names;
    cJSON **by_id;
    struct callstack *by_name;
    size_t cap_id, cap_name;
};

struct callstack {
    cJSON **c;
    size_t n, cap;
};

static void index_free(struct tb *b)
{
    for (size_t i = 0; i < b->names.n; i++)
        forge_free(b->by_name[i].c);
    forge_free(b->by_name);
    forge_free(b->by_id);
    forge_strtab_free(&b->ids);
    forge_strtab_free(&b->names);
}

static bool grow_to(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *q = forge_realloc(*p, nc * elem);
    if (!q)
        return false;
    memset((char *)q + *cap * elem, 0, (nc - *cap) * elem);
    *p = q;
    *cap = nc;
    return true;
}

/* Indexes a new call <c> by its id (when it has one) and its name. False when out of memory. */
static bool index_call(struct tb *b, cJSON *c)
{
    const char *id = gets(c, "id"), *name = gets(c, "name");
    if (id) {
        long i = forge_strtab_find(&b->ids, id);
        if (i < 0 && (i = forge_strtab_add(&b->ids, id)) < 0)
            return false;
        if (!grow_to((void **)&b->by_id, &b->cap_id, (size_t)i + 1, sizeof *b->by_id))
            return false;
        b->by_id[i] = c; /* the last call of that id */
    }
    if (!name)
        return true;
    long i = forge_strtab_find(&b->names, name);
    if (i < 0 && (i = forge_strtab_add(&b->names, name)) < 0)
        return false;
    if (!grow_to((void **)&b->by_name, &b->cap_name, (size_t)i + 1, sizeof *b->by_name))
        return false;
    struct callstack *st = &b->by_name[i];
    if (!grow_to((void **)&st->c, &st->cap, st->n + 1, sizeof *st->c))
        return false;
    st->c[st->n++] = c;
    return true;
}

static int oom(struct tb *b)
{
    if (!b->rc)
        b->rc = forge_err_set(b->err, FORGE_ENOMEM, "%s: out of memory", b->format);
    return b->rc;
}

static int bad(struct tb *b, const char *where, int i, const char *what)
{
    if (!b->rc)
        b->rc = forge_err_set(b->err, FORGE_EINVAL, "%s: %s[%d]: %s", b->format, where, i, what);
    return b->rc;
}

static void put(struct tb *b, cJSON *obj, const char *k, cJSON *v)
{
    if (!v || !cJSON_AddItemToObject(obj, k, v)) {
        cJSON_Delete(v);
        oom(b);
    }
}

/* Text of a content value: a string, or the texts of its parts joined by newlines. */
static int content_text(const cJSON *c, struct forge_buf *out)
{
    if (cJSON_IsString(c))
        return forge_buf_adds(out, c->valuestring);
    int rc = 0;
    bool first = true;
    for (const cJSON *p = cJSON_IsArray(c) ? c->child : NULL; p && !rc; p = p->next) {
        const char *t = cJSON_IsString(p) ? p->valuestring : NULL;
        const char *type = gets(p, "type");
        if (!t && (!type || is(type, "text") || is(type, "input_text") || is(type, "output_text")))
            t = gets(p, "text");
        if (!t && is(type, "refusal"))
            t = gets(p, "refusal");
        if (!t)
            continue;
        if (!first)
            rc = forge_buf_addc(out, '\n');
        if (!rc)
            rc = forge_buf_adds(out, t);
        first = false;
    }
    return rc;
}

static void user_turn(struct tb *b, const char *text)
{
    b->agent = NULL;
    b->turn_id++;
    b->new_round = true;
    cJSON *t = cJSON_CreateObject();
    if (!t || !cJSON_AddItemToArray(b->turns, t)) {
        cJSON_Delete(t);
        oom(b);
        return;
    }
    put(b, t, "turn_id", cJSON_CreateNumber(b->turn_id));
    put(b, t, "role", cJSON_CreateString("user"));
    put(b, t, "content", cJSON_CreateString(text));
}

/* Opens (or continues) the agent turn; <response> starts a new model response (round). */
static cJSON *agent_turn(struct tb *b)
{
    if (!b->agent) {
        if (b->turn_id == 0)
            b->turn_id = 1;
        cJSON *t = cJSON_CreateObject();
        if (!t || !cJSON_AddItemToArray(b->turns, t)) {
            cJSON_Delete(t);
            oom(b);
            return NULL;
        }
        put(b, t, "turn_id", cJSON_CreateNumber(b->turn_id));
        put(b, t, "role", cJSON_CreateString("agent"));
        put(b, t, "content", cJSON_CreateString(""));
        put(b, t, "tool_calls", cJSON_CreateArray());
        b->agent = t;
        b->round = 0;
        b->new_round = true;
    }
    if (b->new_round) {
        b->round++;
        b->new_round = false;
    }
    return b->agent;
}

static void agent_text(struct tb *b, const char *text)
{
    cJSON *t = agent_turn(b);
    if (!t || !text || !*text)
        return;
    cJSON *c = cJSON_GetObjectItemCaseSensitive(t, "content");
    struct forge_buf buf;
    forge_buf_init(&buf, 0);
    if ((c->valuestring[0] && (forge_buf_adds(&buf, c->valuestring) || forge_buf_addc(&buf, '\n'))) ||
        forge_buf_adds(&buf, text)) {
        forge_buf_free(&buf);
        oom(b);
        return;
    }
    cJSON *n = cJSON_CreateString(buf.data);
    forge_buf_free(&buf);
    if (!n || !cJSON_ReplaceItemInObjectCaseSensitive(t, "content", n)) {
        cJSON_Delete(n);
        oom(b);
    }
}

/* A JSON-text argument or result: parsed when it holds an object or array, else kept. */
static cJSON *maybe_json(const char *s)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p == '{' || *p == '[') {
        cJSON *v = cJSON_ParseWithOpts(p, NULL, 1);
        if (v)
            return v;
    }
    return cJSON_CreateString(s);
}

/* A tool's text output as a result: JSON text holding an object or array becomes that value;
 * other text becomes {"content": text}, so result checks read it as one value (a bare string
 * result would be read character by character, as agent-eval-harness does). */
static cJSON *text_result(const char *s)
{
    cJSON *v = maybe_json(s);
    if (!cJSON_IsString(v))
        return v;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToObject(o, "content", v)) {
        cJSON_Delete(o);
        cJSON_Delete(v);
        return NULL;
    }
    return o;
}

/* Adds a call; takes <args>. */
static void agent_call(struct tb *b, const char *id, const char *name, cJSON *args)
{
    cJSON *t = agent_turn(b);
    if (!t) {
        cJSON_Delete(args);
        return;
    }
    cJSON *calls = cJSON_GetObjectItemCaseSensitive(t, "tool_calls");
    cJSON *c = cJSON_CreateObject();
    if (!c || !cJSON_AddItemToArray(calls, c)) {
        cJSON_Delete(c);
        cJSON_Delete(args);
        oom(b);
        return;
    }
    if (id)
        put(b, c, "id", cJSON_CreateString(id));
    put(b, c, "name", cJSON_CreateString(name ? name : ""));
    put(b, c, "arguments", args ? args : cJSON_CreateNull());
    put(b, c, "round", cJSON_CreateNumber(b->round));
    if (!b->rc && !index_call(b, c))
        oom(b);
}

/* Finds the last call with <id> (or, when id is NULL, the last call named <name> without a
 * result or an error). A call that has one keeps it (a result or error may be replaced, never
 * removed), so the calls of a name are dropped from the top of its stack as they get one. */
static cJSON *find_call(struct tb *b, const char *id, const char *name)
{
    if (id) {
        long i = forge_strtab_find(&b->ids, id);
        return i >= 0 ? b->by_id[i] : NULL;
    }
    long i = name ? forge_strtab_find(&b->names, name) : -1;
    if (i < 0)
        return NULL;
    struct callstack *st = &b->by_name[i];
    while (st->n && (get(st->c[st->n - 1], "result") || get(st->c[st->n - 1], "error")))
        st->n--;
    return st->n ? st->c[st->n - 1] : NULL;
}

/* Attaches a result (taken) or an error text to the call. */
static void call_result(struct tb *b, const char *where, int i, const char *id, const char *name,
                        cJSON *result, const char *error)
{
    cJSON *c = find_call(b, id, name);
    if (!c) {
        cJSON_Delete(result);
        char msg[512];
        snprintf(msg, sizeof msg, "tool result for unknown call %s '%.200s'", id ? "id" : "name",
                 id ? id : name ? name : "");
        bad(b, where, i, msg);
        return;
    }
    if (error) {
        cJSON_Delete(result);
        cJSON_DeleteItemFromObjectCaseSensitive(c, "error");
        put(b, c, "error", cJSON_CreateString(error));
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(c, "result");
        put(b, c, "result", result ? result : cJSON_CreateNull());
    }
    b->new_round = true;
}

/* ---------------------------------------------------------------------------------------- */
/* Formats                                                                                   */

static void import_openai(struct tb *b, const cJSON *msgs)
{
    int i = 0;
    struct forge_buf txt;
    forge_buf_init(&txt, 0);
    for (const cJSON *m = msgs->child; m && !b->rc; m = m->next, i++) {
        const char *role = gets(m, "role");
        forge_buf_reset(&txt);
        if (content_text(get(m, "content"), &txt)) {
            oom(b);
            break;
        }
        const char *text = txt.data ? txt.data : "";
        if (!role) {
            bad(b, "messages", i, "message without a role");
        } else if (is(role, "system") || is(role, "developer")) {
            continue;
        } else if (is(role, "user")) {
            user_turn(b, text);
        } else if (is(role, "assistant")) {
            b->new_round = true;
            agent_turn(b);
            agent_text(b, text);
            const cJSON *tcs = get(m, "tool_calls");
            for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc && !b->rc; tc = tc->next) {
                const cJSON *fn = get(tc, "function");
                const char *args = gets(fn, "arguments");
                const cJSON *argv = get(fn, "arguments");
                cJSON *a = args ? maybe_json(args) : argv ? cJSON_Duplicate(argv, 1) : NULL;
                if ((args || argv) && !a) {
                    oom(b);
                    break;
                }
                agent_call(b, gets(tc, "id"), gets(fn, "name"), a);
            }
            const cJSON *fc = get(m, "function_call");
            if (fc) {
                const char *args = gets(fc, "arguments");
                agent_call(b, NULL, gets(fc, "name"), args ? maybe_json(args) : NULL);
            }
        } else if (is(role, "tool")) {
            const char *id = gets(m, "tool_call_id");
            if (!id) {
                bad(b, "messages", i, "tool message without tool_call_id");
                break;
            }
            call_result(b, "messages", i, id, NULL, text_result(text), NULL);
        } else if (is(role, "function")) {
            call_result(b, "messages", i, NULL, gets(m, "name"), text_result(text), NULL);
        } else {
            char msg[160];
            snprintf(msg, sizeof msg, "unknown role '%.100s'", role);
            bad(b, "messages", i, msg);
        }
    }
    forge_buf_free(&txt);
}

static void import_responses(struct tb *b, const cJSON *items)
{
    int i = 0;
    struct forge_buf txt;
    forge_buf_init(&txt, 0);
    for (const cJSON *m = items->child; m && !b->rc; m = m->next, i++) {
        const char *type = gets(m, "type");
        const char *role = gets(m, "role");
        if (!type && role)
            type = "message";
        if (is(type, "message")) {
            forge_buf_reset(&txt);
            if (content_text(get(m, "content"), &txt)) {
                oom(b);
                break;
            }
            const char *text = txt.data ? txt.data : "";
            if (is(role, "user"))
                user_turn(b, text);
            else if (is(role, "assistant"))
                agent_text(b, text);
        } else if (is(type, "function_call")) {
            const char *args = gets(m, "arguments");
            agent_call(b, gets(m, "call_id") ? gets(m, "call_id") : gets(m, "id"), gets(m, "name"),
                       args ? maybe_json(args) : NULL);
        } else if (is(type, "function_call_output")) {
            const char *id = gets(m, "call_id");
            if (!id) {
                bad(b, "items", i, "function_call_output without call_id");
                break;
            }
            const cJSON *out = get(m, "output");
            cJSON *r;
            if (cJSON_IsString(out))
                r = text_result(out->valuestring);
            else {
                forge_buf_reset(&txt);
                if (content_text(out, &txt)) {
                    oom(b);
                    break;
                }
                r = text_result(txt.data ? txt.data : "");
            }
            call_result(b, "items", i, id, NULL, r, NULL);
        }
        /* reasoning and other item types carry nothing tool-use checks read */
    }
    forge_buf_free(&txt);
}

static void import_anthropic(struct tb *b, const cJSON *msgs)
{
    int i = 0;
    struct forge_buf txt, res;
    forge_buf_init(&txt, 0);
    forge_buf_init(&res, 0);
    for (const cJSON *m = msgs->child; m && !b->rc; m = m->next, i++) {
        const char *role = gets(m, "role");
        const cJSON *content = get(m, "content");
        forge_buf_reset(&txt);
        if (cJSON_IsString(content)) {
            if (forge_buf_adds(&txt, content->valuestring)) {
                oom(b);
                break;
            }
        }
        if (is(role, "assistant")) {
            b->new_round = true;
            agent_turn(b);
        }
        for (const cJSON *blk = cJSON_IsArray(content) ? content->child : NULL; blk && !b->rc;
             blk = blk->next) {
            const char *type = gets(blk, "type");
            if (is(type, "text")) {
                const char *t = gets(blk, "text");
                if (t && ((txt.len && forge_buf_addc(&txt, '\n')) || forge_buf_adds(&txt, t)))
                    oom(b);
            } else if (is(type, "tool_use") && is(role, "assistant")) {
                const cJSON *in = get(blk, "input");
                cJSON *a = in ? cJSON_Duplicate(in, 1) : NULL;
                if (in && !a) {
                    oom(b);
                    break;
                }
                agent_call(b, gets(blk, "id"), gets(blk, "name"), a);
            } else if (is(type, "tool_result")) {
                const char *id = gets(blk, "tool_use_id");
                if (!id) {
                    bad(b, "messages", i, "tool_result without tool_use_id");
                    break;
                }
                const cJSON *rc = get(blk, "content");
                forge_buf_reset(&res);
                if (content_text(rc, &res)) {
                    oom(b);
                    break;
                }
                const char *rt = res.data ? res.data : "";
                if (cJSON_IsTrue(get(blk, "is_error")))
                    call_result(b, "messages", i, id, NULL, NULL, rt);
                else
                    call_result(b, "messages", i, id, NULL, text_result(rt), NULL);
            }
        }
        if (b->rc)
            break;
        const char *text = txt.data ? txt.data : "";
        if (is(role, "assistant"))
            agent_text(b, text);
        else if (is(role, "user")) {
            if (txt.len || !cJSON_IsArray(content))
                user_turn(b, text);
        } else {
            bad(b, "messages", i, role ? "unknown role" : "message without a role");
        }
    }
    forge_buf_free(&txt);
    forge_buf_free(&res);
}

static void import_gemini(struct tb *b, const cJSON *contents)
{
    int i = 0;
    struct forge_buf txt;
    forge_buf_init(&txt, 0);
    for (const cJSON *m = contents->child; m && !b->rc; m = m->next, i++) {
        const char *role = gets(m, "role");
        const cJSON *parts = get(m, "parts");
        bool model = is(role, "model");
        if (!model && role && !is(role, "user") && !is(role, "function") && !is(role, "tool")) {
            bad(b, "contents", i, "unknown role");
            break;
        }
        if (model) {
            b->new_round = true;
            agent_turn(b);
        }
        forge_buf_reset(&txt);
        for (const cJSON *p = cJSON_IsArray(parts) ? parts->child : NULL; p && !b->rc; p = p->next) {
            const char *t = gets(p, "text");
            const cJSON *fc = get(p, "functionCall"), *fr = get(p, "functionResponse");
            if (t && !cJSON_IsTrue(get(p, "thought"))) {
                if ((txt.len && forge_buf_addc(&txt, '\n')) || forge_buf_adds(&txt, t))
                    oom(b);
            } else if (fc && model) {
                const cJSON *args = get(fc, "args");
                cJSON *a = args ? cJSON_Duplicate(args, 1) : NULL;
                if (args && !a) {
                    oom(b);
                    break;
                }
                agent_call(b, gets(fc, "id"), gets(fc, "name"), a);
            } else if (fr) {
                const cJSON *resp = get(fr, "response");
                cJSON *r = cJSON_IsString(resp) ? text_result(resp->valuestring)
                                                : resp ? cJSON_Duplicate(resp, 1) : cJSON_CreateObject();
                call_result(b, "contents", i, gets(fr, "id"), gets(fr, "name"), r, NULL);
            }
        }
        if (b->rc)
            break;
        const char *text = txt.data ? txt.data : "";
        if (model)
            agent_text(b, text);
        else if (txt.len)
            user_turn(b, text);
    }
    forge_buf_free(&txt);
}

static cJSON *import_forge(const cJSON *doc, const char *format, struct forge_err *err)
{
    if (cJSON_IsArray(doc)) { /* bare turns: objects, as under "turns" */
        int i = 0;
        for (const cJSON *t = doc->child; t; t = t->next, i++) {
            if (!cJSON_IsObject(t)) {
                forge_err_set(err, FORGE_EINVAL, "%s: turns[%d]: expected an object", format, i);
                return NULL;
            }
        }
        cJSON *t = cJSON_CreateObject(), *turns = cJSON_Duplicate(doc, 1);
        if (!t || !turns || !cJSON_AddItemToObject(t, "turns", turns)) {
            cJSON_Delete(t);
            cJSON_Delete(turns);
            forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", format);
            return NULL;
        }
        return t;
    }
    if (!cJSON_IsObject(doc) || !cJSON_IsArray(get(doc, "turns"))) {
        forge_err_set(err, FORGE_EINVAL, "%s: expected an object with a \"turns\" array", format);
        return NULL;
    }
    int i = 0;
    for (const cJSON *t = get(doc, "turns")->child; t; t = t->next, i++) {
        if (!cJSON_IsObject(t)) {
            forge_err_set(err, FORGE_EINVAL, "%s: turns[%d]: expected an object", format, i);
            return NULL;
        }
    }
    cJSON *d = cJSON_Duplicate(doc, 1);
    if (!d)
        forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", format);
    return d;
}

cJSON *forge_trajectory_import(const cJSON *doc, const char *format, struct forge_err *err)
{
    if (!format) {
        format = forge_trajectory_detect(doc);
        if (!format) {
            forge_err_set(err, FORGE_EINVAL,
                          "not a trajectory in a known format (forge, agent-eval-harness, turns, "
                          "openai, openai-responses, anthropic, gemini); name it with --input-format");
            return NULL;
        }
    }
    if (is(format, "forge") || is(format, "agent-eval-harness"))
        return import_forge(doc, format, err);
    if (is(format, "turns")) {
        if (cJSON_IsObject(doc) && !get(doc, "turns")) {
            /* a single turn */
            cJSON *arr = cJSON_CreateArray(), *r;
            if (!arr || !cJSON_AddItemReferenceToArray(arr, (cJSON *)doc)) {
                cJSON_Delete(arr);
                forge_err_set(err, FORGE_ENOMEM, "turns: out of memory");
                return NULL;
            }
            r = import_forge(arr, format, err);
            cJSON_Delete(arr);
            return r;
        }
        if (!cJSON_IsArray(doc)) {
            forge_err_set(err, FORGE_EINVAL, "turns: expected an array of turns");
            return NULL;
        }
        return import_forge(doc, format, err);
    }
    struct tb b = {.format = format, .err = err};
    const cJSON *list = doc;
    if (is(format, "openai") || is(format, "anthropic")) {
        if (cJSON_IsObject(doc))
            list = get(doc, "messages");
    } else if (is(format, "gemini")) {
        if (cJSON_IsObject(doc))
            list = get(doc, "contents");
    } else if (is(format, "openai-responses")) {
        if (cJSON_IsObject(doc)) {
            const cJSON *in = get(doc, "input"), *out = get(doc, "output");
            list = cJSON_IsArray(in) ? in : out;
        }
    } else {
        forge_err_set(err, FORGE_EINVAL,
                      "unknown trajectory format '%s' (forge, agent-eval-harness, turns, openai, "
                      "openai-responses, anthropic, gemini)", format);
        return NULL;
    }
    if (!cJSON_IsArray(list)) {
        forge_err_set(err, FORGE_EINVAL, "%s: expected an array of %s", format,
                      is(format, "openai-responses") ? "items"
                      : is(format, "gemini")         ? "contents"
                                                     : "messages");
        return NULL;
    }
    const char *lname = is(format, "openai-responses") ? (list == doc ? "items"
                                                          : list == get(doc, "input") ? "input"
                                                                                      : "output")
                        : is(format, "gemini") ? "contents"
                                               : "messages";
    int k = 0;
    for (const cJSON *m = list->child; m; m = m->next, k++) {
        if (!cJSON_IsObject(m)) {
            forge_err_set(err, FORGE_EINVAL, "%s: %s[%d]: expected an object, got %s", format,
                          lname, k, json_kind(m));
            return NULL;
        }
    }
    b.traj = cJSON_CreateObject();
    b.turns = cJSON_CreateArray();
    if (!b.traj || !b.turns || !cJSON_AddItemToObject(b.traj, "turns", b.turns)) {
        cJSON_Delete(b.traj);
        cJSON_Delete(b.turns);
        forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", format);
        return NULL;
    }
    if (cJSON_IsObject(doc)) {
        const char *id = gets(doc, "trajectory_id") ? gets(doc, "trajectory_id") : gets(doc, "id");
        if (id) {
            cJSON *v = cJSON_CreateString(id);
            if (!v || !cJSON_AddItemToObject(b.traj, "trajectory_id", v)) {
                cJSON_Delete(v);
                oom(&b);
            }
        }
    }
    if (is(format, "openai"))
        import_openai(&b, list);
    else if (is(format, "gemini"))
        import_gemini(&b, list);
    else if (is(format, "anthropic"))
        import_anthropic(&b, list);
    else
        import_responses(&b, list);
    if (!b.rc && cJSON_IsObject(doc)) {
        const cJSON *md = get(doc, "metadata");
        if (cJSON_IsObject(md))
            put(&b, b.traj, "metadata", cJSON_Duplicate(md, 1));
    }
    index_free(&b);
    if (b.rc) {
        cJSON_Delete(b.traj);
        return NULL;
    }
    /* trajectory_id first, as forge writes it */
    return b.traj;
}

cJSON *forge_trajectory_adopt(cJSON *doc, const char *format, struct forge_err *err)
{
    const char *f = format ? format : forge_trajectory_detect(doc);
    if ((is(f, "forge") || is(f, "agent-eval-harness")) && cJSON_IsObject(doc)) {
        /* validate as import_forge does, without the copy */
        const cJSON *turns = get(doc, "turns");
        int i = 0;
        if (!cJSON_IsArray(turns)) {
            forge_err_set(err, FORGE_EINVAL, "%s: expected an object with a \"turns\" array", f);
            cJSON_Delete(doc);
            return NULL;
        }
        for (const cJSON *t = turns->child; t; t = t->next, i++) {
            if (!cJSON_IsObject(t)) {
                forge_err_set(err, FORGE_EINVAL, "%s: turns[%d]: expected an object", f, i);
                cJSON_Delete(doc);
                return NULL;
            }
        }
        return doc;
    }
    cJSON *t = forge_trajectory_import(doc, format, err);
    cJSON_Delete(doc);
    return t;
}
