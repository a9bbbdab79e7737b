/* Drafting eval cases with a model and writing verifier stubs (gen.h, docs/coverage.md). */
#include "eval/gen.h"
#include "base/alloc.h"
#include "data/json.h"
#include "eval/evalfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void safe_name(struct forge_buf *b, const char *s)
{
    if (!s || !*s || *s == '.')
        forge_buf_addc(b, '_');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                  *p == '_' || *p == '-' || *p == '.';
        forge_buf_addc(b, ok ? (char)*p : '_');
    }
}

static bool kind_is(const cJSON *gap, const char *k)
{
    const char *g = forge_json_str(gap, "kind");
    return g && strcmp(g, k) == 0;
}

static bool golden_gap(const cJSON *gap)
{
    return kind_is(gap, "golden") || kind_is(gap, "called") || kind_is(gap, "enum") ||
           kind_is(gap, "optional");
}

static bool draftable(const cJSON *gap)
{
    return golden_gap(gap) || kind_is(gap, "labeled") || kind_is(gap, "not_called") ||
           kind_is(gap, "overlap") || kind_is(gap, "cluster");
}

char *forge_gen_target(const char *out_dir, const cJSON *gap)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (out_dir && *out_dir) {
        forge_buf_adds(&b, out_dir);
        if (out_dir[strlen(out_dir) - 1] != '/')
            forge_buf_addc(&b, '/');
    }
    safe_name(&b, forge_json_str(gap, "tool"));
    forge_buf_adds(&b, golden_gap(gap) ? ".golden.json" : ".labeled.json");
    return forge_buf_take(&b);
}

/* ---- prompts ------------------------------------------------------------------------------- */

static const char system_intro[] =
    "You write test cases for a tool-calling AI agent, in forge's eval-file format.\n"
    "Answer with exactly one JSON object and nothing else:\n"
    "{\"description\": \"what the case checks\", \"difficulty\": \"straightforward\" | \"ambiguous\" | \"edge\",\n"
    " \"input\": {\"message\": \"what the user writes to the agent\"},\n"
    " \"expect\": {assertions}}\n"
    "Assertions you may use in expect: toolsCalled (array of the tool names the agent must call, "
    "compared as a set), toolsNotCalled (tools it must not call), toolsAcceptable (array of "
    "acceptable sets of tool names), toolParams ([{\"tool\", \"paramName\", \"assertion\": "
    "\"equals\" | \"contains\" | \"oneOf\" | \"exists\" | \"notExists\" | \"matches\", \"value\"}]), "
    "responseNonEmpty (true), responseContains (array of strings). Use only the tools below and "
    "only argument values their schemas allow. Do not write an id.\n\nThe tools:\n";

static void quoted(struct forge_buf *b, const char *s)
{
    cJSON *n = cJSON_CreateString(s ? s : "");
    forge_json_write(b, n, 0);
    cJSON_Delete(n);
}

/* The request for one gap, and (in *want) what the case must contain, in words. */
static void task(struct forge_buf *b, const cJSON *gap)
{
    const char *t = forge_json_str(gap, "tool");
    const char *arg = forge_json_str(gap, "argument");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(gap, "value");
    if (kind_is(gap, "golden") || kind_is(gap, "called")) {
        forge_buf_adds(b, "Write a golden case: a clear, direct user request for which the agent must call the tool ");
        quoted(b, t);
        forge_buf_adds(b, " (and no other). Its expect must contain \"toolsCalled\": [");
        quoted(b, t);
        forge_buf_adds(b, "].");
    } else if (kind_is(gap, "labeled") || kind_is(gap, "not_called")) {
        forge_buf_adds(b, "Write a labeled case: a user request that sounds related to the tool ");
        quoted(b, t);
        forge_buf_adds(b, " but for which the agent must not call it. Its expect must contain \"toolsNotCalled\": [");
        quoted(b, t);
        forge_buf_adds(b, "].");
    } else if (kind_is(gap, "overlap")) {
        const char *o = forge_json_str(gap, "other");
        forge_buf_adds(b, "Write a labeled case that tells the tools ");
        quoted(b, t);
        forge_buf_adds(b, " and ");
        quoted(b, o);
        forge_buf_adds(b, " apart (their descriptions are similar): a user request for which ");
        quoted(b, t);
        forge_buf_adds(b, " is the right tool and ");
        quoted(b, o);
        forge_buf_adds(b, " is wrong. Its expect must contain \"toolsCalled\": [");
        quoted(b, t);
        forge_buf_adds(b, "] and \"toolsNotCalled\": [");
        quoted(b, o);
        forge_buf_adds(b, "].");
    } else if (kind_is(gap, "cluster")) {
        const cJSON *tools = cJSON_GetObjectItemCaseSensitive(gap, "tools"), *x;
        forge_buf_adds(b, "Write a labeled case: a user request that needs all of these tools together: ");
        forge_json_write(b, tools, 0);
        forge_buf_adds(b, ". Its expect must contain \"toolsCalled\": [");
        cJSON_ArrayForEach(x, tools) {
            if (x != tools->child)
                forge_buf_adds(b, ", ");
            quoted(b, x->valuestring);
        }
        forge_buf_adds(b, "].");
    } else if (kind_is(gap, "enum")) {
        forge_buf_adds(b, "Write a golden case: a user request for which the agent must call ");
        quoted(b, t);
        forge_buf_adds(b, " with the argument ");
        quoted(b, arg);
        forge_buf_adds(b, " set to ");
        forge_json_write(b, v, 0);
        forge_buf_adds(b, ". Its expect must contain \"toolsCalled\": [");
        quoted(b, t);
        forge_buf_adds(b, "] and \"toolParams\": [{\"tool\": ");
        quoted(b, t);
        forge_buf_adds(b, ", \"paramName\": ");
        quoted(b, arg);
        forge_buf_adds(b, ", \"assertion\": \"equals\", \"value\": ");
        forge_json_write(b, v, 0);
        forge_buf_adds(b, "}].");
    } else { /* optional */
        forge_buf_adds(b, "Write a golden case: a user request for which the agent must call ");
        quoted(b, t);
        forge_buf_adds(b, " and pass its optional argument ");
        quoted(b, arg);
        forge_buf_adds(b, ". Its expect must contain \"toolsCalled\": [");
        quoted(b, t);
        forge_buf_adds(b, "] and \"toolParams\": [{\"tool\": ");
        quoted(b, t);
        forge_buf_adds(b, ", \"paramName\": ");
        quoted(b, arg);
        forge_buf_adds(b, ", \"assertion\": \"exists\"}].");
    }
}

static cJSON *make_request(const cJSON *tools, const cJSON *gap)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, system_intro);
    cJSON *list = cJSON_CreateArray();
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        cJSON *d = cJSON_CreateObject();
        static const char *const keys[] = {"name", "description", "parameters", "triggerPhrases"};
        for (int k = 0; k < 4; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, keys[k]);
            if (v)
                cJSON_AddItemToObject(d, keys[k], cJSON_Duplicate(v, 1));
        }
        cJSON_AddItemToArray(list, d);
    }
    forge_json_write(&b, list, FORGE_JSON_PRETTY);
    cJSON_Delete(list);
    char *system = forge_buf_take(&b);
    task(&b, gap);
    char *user = forge_buf_take(&b);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "system", system);
    cJSON *msgs = cJSON_AddArrayToObject(req, "messages");
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "user");
    cJSON_AddStringToObject(m, "content", user);
    cJSON_AddItemToArray(msgs, m);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(req, "params"), "temperature", 0);
    forge_free(system);
    forge_free(user);
    return req;
}

/* ---- answers ------------------------------------------------------------------------------ */

static bool id_taken(const cJSON *all, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, all) {
        const char *x = forge_json_str(cJSON_GetObjectItemCaseSensitive(e, "case"), "id");
        if (x && strcmp(x, id) == 0)
            return true;
    }
    return false;
}

/* "gs-<tool>-NNN" / "ls-<tool>-NNN" above every number in use with that prefix. */
static char *new_id(const cJSON *all, const cJSON *gap)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, golden_gap(gap) ? "gs-" : "ls-");
    safe_name(&b, forge_json_str(gap, "tool"));
    forge_buf_addc(&b, '-');
    char *prefix = forge_buf_take(&b);
    size_t pl = strlen(prefix);
    long most = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, all) {
        const char *x = forge_json_str(cJSON_GetObjectItemCaseSensitive(e, "case"), "id");
        if (!x || strncmp(x, prefix, pl) != 0 || !x[pl] || strlen(x + pl) > 9 ||
            strspn(x + pl, "0123456789") != strlen(x + pl))
            continue;
        long n = strtol(x + pl, NULL, 10);
        most = n > most ? n : most;
    }
    char *id = NULL;
    do {
        forge_free(id);
        id = forge_strdupf("%s%03ld", prefix, ++most);
    } while (id && id_taken(all, id));
    forge_free(prefix);
    return id;
}

/* The first gap of <report> equal to <gap>, or NULL. */
static const cJSON *find_gap(const cJSON *report, const cJSON *gap)
{
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(report, "gaps"))
        if (forge_json_equal(g, gap))
            return g;
    return NULL;
}

/* Turns the model's answer into a case that closes <gap>, or sets <why>. */
static cJSON *accept(const char *text, const cJSON *gap, const cJSON *tools, const cJSON *all,
                     const char *file, const struct forge_gen_opts *o, char *why, size_t nwhy)
{
    const char *l = strchr(text, '{'), *r = strrchr(text, '}');
    if (!l || !r || r < l) {
        snprintf(why, nwhy, "the answer holds no JSON object");
        return NULL;
    }
    struct forge_err e = {0};
    cJSON *obj = forge_json_parse(l, (size_t)(r - l + 1), "answer", &e);
    if (!obj || !cJSON_IsObject(obj)) {
        snprintf(why, nwhy, "the answer is not a JSON object: %.900s", obj ? "another kind of value" : e.msg);
        cJSON_Delete(obj);
        return NULL;
    }
    cJSON *kase = cJSON_CreateObject();
    char *id = new_id(all, gap);
    cJSON_AddStringToObject(kase, "id", id ? id : "");
    forge_free(id);
    while (obj->child) {
        cJSON *c = cJSON_DetachItemViaPointer(obj, obj->child);
        if (c->string && strcmp(c->string, "id") == 0)
            cJSON_Delete(c);
        else
            cJSON_AddItemToObject(kase, c->string, c);
    }
    cJSON_Delete(obj);
    if (!cJSON_GetObjectItemCaseSensitive(kase, "difficulty"))
        cJSON_AddStringToObject(kase, "difficulty", kind_is(gap, "overlap") ? "ambiguous"
                                                    : golden_gap(gap)      ? "straightforward"
                                                                           : "edge");
    const char *msg = forge_json_str(cJSON_GetObjectItemCaseSensitive(kase, "input"), "message");
    if (forge_evalfile_check_case(kase, &e)) {
        snprintf(why, nwhy, "the case is not valid: %.900s", e.msg);
    } else if (!msg || !*msg) {
        snprintf(why, nwhy, "input.message is missing or empty");
    } else {
        cJSON *with = cJSON_CreateArray(), *entry = cJSON_CreateObject();
        const cJSON *x;
        cJSON_ArrayForEach(x, all)
            cJSON_AddItemReferenceToArray(with, (cJSON *)x);
        cJSON_AddStringToObject(entry, "file", file);
        cJSON_AddItemReferenceToObject(entry, "case", kase);
        cJSON_AddItemToArray(with, entry);
        cJSON *rep = forge_coverage_compute(tools, NULL, with, o->cov, &e);
        bool open = !rep || find_gap(rep, gap);
        cJSON_Delete(rep);
        cJSON_Delete(with);
        if (!open)
            return kase;
        snprintf(why, nwhy, "the case does not contain what the request asked for");
    }
    cJSON_Delete(kase);
    return NULL;
}

static void add_msg(cJSON *req, const char *role, const char *content)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", role);
    cJSON_AddStringToObject(m, "content", content);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(req, "messages"), m);
}

static int draft_one(struct forge_model *m, const cJSON *tools, const cJSON *gap, const cJSON *all,
                     const char *file, const struct forge_gen_opts *o, cJSON **kase, char *why,
                     size_t nwhy, struct forge_err *err)
{
    *kase = NULL;
    cJSON *req = make_request(tools, gap);
    int rc = 0;
    for (int a = 0; a < o->attempts && !*kase; a++) {
        cJSON *resp = NULL;
        if (o->progress)
            o->progress(o->progress_ctx, gap, a + 1);
        if ((rc = forge_model_complete(m, req, &resp, err)))
            break;
        const char *text = forge_json_str(cJSON_GetObjectItemCaseSensitive(resp, "message"), "content");
        *kase = accept(text ? text : "", gap, tools, all, file, o, why, nwhy);
        if (!*kase) {
            char next[1400];
            snprintf(next, sizeof next, "That answer cannot be used: %s. Answer again with one JSON object only.", why);
            add_msg(req, "assistant", text ? text : "");
            add_msg(req, "user", next);
        }
        cJSON_Delete(resp);
    }
    cJSON_Delete(req);
    return rc;
}

int forge_gen_evals(struct forge_model *m, const cJSON *tools, const cJSON *cases,
                    const struct forge_gen_opts *o, cJSON **drafts, cJSON **failed, cJSON **notes,
                    struct forge_err *err)
{
    *drafts = cJSON_CreateArray();
    *failed = cJSON_CreateArray();
    *notes = cJSON_CreateArray();
    cJSON *all = cJSON_CreateArray(), *tried = cJSON_CreateArray();
    int rc = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cases)
        cJSON_AddItemReferenceToArray(all, (cJSON *)e);
    for (;;) {
        cJSON *rep = forge_coverage_compute(tools, NULL, all, o->cov, err);
        if (!rep) {
            rc = err->code;
            break;
        }
        const cJSON *g, *gap = NULL;
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(rep, "gaps")) {
            bool seen = false;
            const cJSON *t;
            cJSON_ArrayForEach(t, tried)
                seen = seen || forge_json_equal(t, g);
            if (draftable(g) && !seen) {
                gap = g;
                break;
            }
        }
        if (!gap) {
            cJSON_Delete(rep);
            break;
        }
        if (cJSON_GetArraySize(*drafts) >= o->max_drafts) {
            char note[200];
            snprintf(note, sizeof note, "stopped after %d drafted cases, the limit (raise it with --max-drafts)",
                     o->max_drafts);
            cJSON_AddItemToArray(*notes, cJSON_CreateString(note));
            cJSON_Delete(rep);
            break;
        }
        cJSON *gapc = cJSON_Duplicate(gap, 1);
        cJSON_Delete(rep);
        char *file = forge_gen_target(o->out_dir, gapc);
        char why[1024] = "";
        cJSON *kase = NULL;
        rc = draft_one(m, tools, gapc, all, file, o, &kase, why, sizeof why, err);
        if (kase) {
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "file", file);
            cJSON_AddItemToObject(d, "case", kase);
            cJSON_AddItemToObject(d, "gap", gapc);
            cJSON_AddItemToArray(*drafts, d);
            cJSON_AddItemReferenceToArray(all, d);
        } else {
            cJSON_AddItemToArray(tried, cJSON_Duplicate(gapc, 1));
            if (!rc) {
                cJSON *f = cJSON_CreateObject();
                cJSON_AddItemToObject(f, "gap", gapc);
                cJSON_AddStringToObject(f, "reason", why);
                cJSON_AddItemToArray(*failed, f);
            } else {
                cJSON_Delete(gapc);
            }
        }
        forge_free(file);
        if (rc)
            break;
    }
    cJSON_Delete(all);
    cJSON_Delete(tried);
    return rc;
}

/* ---- verifier stubs ----------------------------------------------------------------------- */

/* A Lua string literal of <s>: printable ASCII as is, the rest as decimal escapes. */
static void lua_str(struct forge_buf *b, const char *s)
{
    forge_buf_addc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            forge_buf_addc(b, '\\'), forge_buf_addc(b, (char)*p);
        else if (*p >= 0x20 && *p < 0x7f)
            forge_buf_addc(b, (char)*p);
        else
            forge_buf_addf(b, "\\%03u", *p);
    }
    forge_buf_addc(b, '"');
}

static bool name_used(const cJSON *taken, const cJSON *mine, const char *n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, taken)
        if (cJSON_IsString(e) && strcmp(e->valuestring, n) == 0)
            return true;
    cJSON_ArrayForEach(e, mine)
        if (strcmp(e->valuestring, n) == 0)
            return true;
    return false;
}

int forge_gen_verifiers(struct forge_buf *out, const cJSON *report, const cJSON *taken)
{
    /* stubs: [{"name", "group", "tools": [...]}] */
    cJSON *stubs = cJSON_CreateArray(), *names = cJSON_CreateArray();
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(report, "tools")) {
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "verifiers")))
            continue;
        const char *tool = forge_json_str(t, "name");
        const cJSON *gs = cJSON_GetObjectItemCaseSensitive(t, "groups");
        const char *group = gs && gs->child && cJSON_IsString(gs->child) ? gs->child->valuestring : "unknown";
        cJSON *stub = NULL, *s;
        if (strcmp(group, "unknown") != 0)
            cJSON_ArrayForEach(s, stubs) {
                const char *sg = forge_json_str(s, "group");
                if (sg && strcmp(sg, group) == 0)
                    stub = s;
            }
        if (!stub) {
            struct forge_buf b;
            forge_buf_init(&b, 0);
            safe_name(&b, strcmp(group, "unknown") ? group : tool);
            for (char *p = b.data; p && *p; p++)
                if (*p == '.' || *p == '-')
                    *p = '_';
            forge_buf_adds(&b, "_verifier");
            char *base = forge_buf_take(&b), *name = forge_strdup(base);
            for (int k = 2; name && name_used(taken, names, name); k++) {
                forge_free(name);
                name = forge_strdupf("%s_%d", base, k);
            }
            stub = cJSON_CreateObject();
            cJSON_AddStringToObject(stub, "name", name ? name : base);
            cJSON_AddItemToArray(names, cJSON_CreateString(name ? name : base));
            if (strcmp(group, "unknown"))
                cJSON_AddStringToObject(stub, "group", group);
            cJSON_AddArrayToObject(stub, "tools");
            cJSON_AddItemToArray(stubs, stub);
            forge_free(base);
            forge_free(name);
        }
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(stub, "tools"), cJSON_CreateString(tool));
    }
    int n = cJSON_GetArraySize(stubs);
    if (n) {
        forge_buf_adds(out,
            "-- Verifier stubs for the tools `forge coverage` found without a verifier (forge gen\n"
            "-- verifiers). Each stub passes every result until you edit it: return \"warn\" or\n"
            "-- \"block\" and a message for results that must not reach the model as they are.\n"
            "-- Load the file from a tools file or suite with require; it returns its verifiers.\n"
            "local forge = require \"forge\"\n\nlocal verifiers = {}\n");
        int k = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, stubs) {
            const char *group = forge_json_str(s, "group");
            forge_buf_adds(out, group ? "\n-- output group: " : "\n-- a tool of no known output group\n");
            if (group) {
                forge_buf_adds(out, group);
                forge_buf_addc(out, '\n');
            }
            forge_buf_adds(out, "verifiers[#verifiers + 1] = forge.verifier {\n  name = ");
            lua_str(out, forge_json_str(s, "name"));
            forge_buf_adds(out, ",\n  tools = {");
            const cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "tools")) {
                forge_buf_adds(out, x == cJSON_GetObjectItemCaseSensitive(s, "tools")->child ? " " : ", ");
                lua_str(out, x->valuestring);
            }
            forge_buf_addf(out, " },\n  order = \"U-%04d\",\n", ++k);
            forge_buf_adds(out,
                "  verify = function(call)\n"
                "    -- call.name, call.arguments and call.result (the tool's result) are here.\n"
                "    -- For example:\n"
                "    -- if type(call.result) ~= \"table\" then return \"warn\", \"the result is not an object\" end\n"
                "    return \"pass\"\n"
                "  end,\n"
                "}\n");
        }
        forge_buf_adds(out, "\nreturn verifiers\n");
    }
    cJSON_Delete(stubs);
    cJSON_Delete(names);
    return n;
}
