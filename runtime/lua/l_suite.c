/* Suites, tools, verifiers and scripted models defined in Lua. */
#include "lua/l_suite.h"
#include "lua/bind.h"
#include "lua/callable.h"
#include "base/alloc.h"
#include "base/file.h"
#include "data/jpack.h"
#include "data/json.h"
#include "eval/evalfile.h"
#include "model/scripted.h"
#include "model/dialect.h"
#include "eval/probe.h"
#include "mcp/client.h"

#include <lauxlib.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* Pushes t[key] of the table at <idx> without metamethods: building a suite never runs code a
 * script attached to its tables. */
static int rawfield(lua_State *L, int idx, const char *key)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, key);
    return lua_rawget(L, idx);
}

bool forge_lua_is_kind(lua_State *L, int idx, const char *kind)
{
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return false;
    rawfield(L, -1, "__forge_kind");
    bool is = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), kind) == 0;
    lua_pop(L, 2);
    return is;
}

/* A new copy of the string at <idx> (the value of <key>), or NULL with <err> when it holds a NUL
 * byte, which C would cut it at. */
static char *dup_text(lua_State *L, int idx, const char *where, const char *key,
                      struct forge_err *err)
{
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    if (strlen(s) != len) {
        forge_err_set(err, FORGE_EINVAL, "%s: %s contains a NUL byte", where, key);
        return NULL;
    }
    char *copy = forge_strdup(s);
    if (!copy)
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
    return copy;
}

/* Converts the table at <idx> to JSON, leaving out its function-valued fields. */
static cJSON *data_of(lua_State *L, int idx, const char *where, struct forge_err *err)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -1) == LUA_TFUNCTION) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    cJSON *v = forge_lua_to_json(L, -1, err);
    lua_pop(L, 1);
    if (!v)
        forge_err_prefix(err, "%s", where);
    return v;
}

/* A callable of the field <key> of the table at <idx> when it is a function. 1 made, 0 no
 * function there, negative on failure. */
static int field_fn(struct forge_vm *vm, int idx, const char *key, long timeout_ms,
                    const char *name, struct forge_callable *out)
{
    lua_State *L = forge_vm_state(vm);
    rawfield(L, idx, key);
    int rc = 0;
    if (lua_type(L, -1) == LUA_TFUNCTION)
        rc = forge_lua_callable_new(vm, -1, timeout_ms, name, out) ? FORGE_ENOMEM : 1;
    lua_pop(L, 1);
    return rc;
}

/* Tools and verifiers (their definitions, compiled schemas, patterns) live in C as long as the
 * run, and so as the VM (suites and tools files are read once; tools may outlive the state, so
 * nothing is given back): what building one keeps is measured, within what the cap leaves
 * (forge_vm_work_begin), and held against --lua-memory for the VM's life (hold_built ends
 * the measure). hold_built returns 0, or FORGE_ELIMIT with <err> naming <what> when the cap cannot hold
 * it or refused part of the build (the caller frees the object). A build that failed
 * otherwise (<built> false) holds nothing. */
static int hold_built(struct forge_vm *vm, bool built, const char *where, const char *what,
                      struct forge_err *err)
{
    size_t kept;
    if (!forge_vm_work_end(vm, &kept) && (!built || !forge_vm_hold(vm, kept)))
        return 0;
    return forge_err_set(err, FORGE_ELIMIT, "%s: %s: %s", where, what, forge_vm_limit_message(vm));
}

static struct forge_tool *tool_of(struct forge_vm *vm, int idx, const char *where,
                                  struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    idx = lua_absindex(L, idx);
    if (!forge_lua_is_kind(L, idx, "tool") && lua_type(L, idx) != LUA_TTABLE) {
        forge_err_set(err, FORGE_EINVAL, "%s: expected a tool (forge.tool{...})", where);
        return NULL;
    }
    cJSON *def = data_of(L, idx, where, err);
    if (!def)
        return NULL;
    /* a tool of forge.mcp: served by the server it names */
    cJSON *mcp = cJSON_DetachItemFromObjectCaseSensitive(def, "mcp");
    forge_vm_work_begin(vm, 0);
    struct forge_tool *t = forge_tool_from_json(def, where, err);
    if (hold_built(vm, t != NULL, where, "tool definitions", err)) {
        forge_tool_free(t);
        t = NULL;
    }
    cJSON_Delete(def);
    if (!t) {
        cJSON_Delete(mcp);
        return NULL;
    }
    t->net_allowed = forge_vm_allow_net(vm);
    if (mcp) {
        const char *server = forge_json_str(mcp, "server"), *remote = forge_json_str(mcp, "tool");
        struct forge_mcp_client *c = server ? forge_lua_mcp_client(vm, server) : NULL;
        int rc = !c || !remote ? forge_err_set(err, FORGE_EINVAL, "%s: tool '%s': mcp = {server, tool} names no server "
                                               "forge.mcp opened", where, t->name)
                               : forge_mcp_tool_bind(t, c, server, remote, err);
        cJSON_Delete(mcp);
        if (rc) {
            forge_tool_free(t);
            return NULL;
        }
        return t;
    }
    char fname[300];
    struct forge_callable fn;
    snprintf(fname, sizeof fname, "tool '%s'", t->name);
    int r = field_fn(vm, idx, "run", t->timeout_ms, fname, &fn);
    if (r == 1) {
        forge_tool_set_function(t, fn, false, forge_lua_callable_free);
    } else if (r == 0) {
        snprintf(fname, sizeof fname, "template of tool '%s'", t->name);
        r = field_fn(vm, idx, "template", t->timeout_ms, fname, &fn);
        if (r == 0)
            r = field_fn(vm, idx, "mock_template", t->timeout_ms, fname, &fn);
        if (r == 1)
            forge_tool_set_function(t, fn, true, forge_lua_callable_free);
    }
    if (r < 0) {
        forge_tool_free(t);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    return t;
}

static struct forge_verifier *verifier_of(struct forge_vm *vm, int idx, const char *where,
                                          struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) {
        forge_err_set(err, FORGE_EINVAL, "%s: expected a verifier (forge.verifier{...})", where);
        return NULL;
    }
    cJSON *def = data_of(L, idx, where, err);
    if (!def)
        return NULL;
    forge_vm_work_begin(vm, 0);
    struct forge_verifier *v = forge_verifier_from_json(def, where, err);
    if (hold_built(vm, v != NULL, where, "verifier definitions", err)) {
        forge_verifier_free(v);
        v = NULL;
    }
    cJSON_Delete(def);
    if (!v)
        return NULL;
    char fname[300];
    snprintf(fname, sizeof fname, "verifier '%s'", v->name);
    struct forge_callable fn;
    int r = field_fn(vm, idx, "verify", 0, fname, &fn);
    if (r == 1) {
        forge_verifier_set_function(v, fn, forge_lua_callable_free);
    } else if (r == 0 && v->kind == FORGE_VERIFIER_FN) {
        forge_err_set(err, FORGE_EINVAL, "%s: verifier '%s' needs verify = function(call), a "
                      "schema or a pattern", where, v->name);
        forge_verifier_free(v);
        return NULL;
    } else if (r < 0) {
        forge_verifier_free(v);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    return v;
}

/* Iterates the list (array) at field <key> of the table at <idx>, calling <each> for every
 * element with the element on top of the stack. */
static int each_of(struct forge_vm *vm, int idx, const char *key, const char *where,
                   int (*each)(struct forge_vm *, int i, const char *where, void *ud,
                               struct forge_err *),
                   void *ud, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    rawfield(L, idx, key);
    int rc = 0;
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        return forge_err_set(err, FORGE_EINVAL, "%s: %s must be a list", where, key);
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    /* "WHERE: KEY[I]" cut at 511 bytes, the prefix formatted once (a suite has many cases) */
    char w[512 + 24];
    int plen = snprintf(w, 512, "%s: %s[", where, key);
    if (plen < 0)
        plen = 0;
    if (plen > 511)
        plen = 511;
    for (lua_Integer i = 1; i <= n && !rc; i++) {
        char digits[24];
        int d = 0;
        for (unsigned long long u = (unsigned long long)i; u; u /= 10)
            digits[d++] = (char)('0' + u % 10);
        size_t len = (size_t)plen;
        while (d)
            w[len++] = digits[--d];
        w[len++] = ']';
        w[len < 511 ? len : 511] = '\0';
        lua_rawgeti(L, -1, i);
        rc = each(vm, (int)i, w, ud, err);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return rc;
}

static int add_tool(struct forge_vm *vm, int i, const char *where, void *ud, struct forge_err *err)
{
    (void)i;
    struct forge_tool *t = tool_of(vm, -1, where, err);
    return t ? forge_toolset_add(ud, t, err) : err->code;
}

static int add_verifier(struct forge_vm *vm, int i, const char *where, void *ud,
                        struct forge_err *err)
{
    (void)i;
    struct forge_verifier *v = verifier_of(vm, -1, where, err);
    return v ? forge_verifiers_add(ud, v, err) : err->code;
}

/* A suite's cases do not stay in memory: each is checked as it is converted from its Lua table,
 * written as one line of JSON to an anonymous temporary file, and read back when the runner
 * takes it, so a suite of a million cases holds one case at a time (besides the Lua tables the
 * script built, which are let go once converted). */
struct forge_lua_spill {
    FILE *f;
    char *line;
    size_t cap;
    size_t bytes; /* the cases' length as JSON so far: at most the input limit (--max-file-mb) */
    int reading;
    struct forge_buf rec; /* the record being written */
};

/* A record is its length (4 bytes), a kind and its bytes: 'P' a packed tree (data/jpack), which
 * reads back as the tree's JSON text would parse; 'J' the JSON text and a newline, for the rare
 * tree that the packed form does not reproduce (a string that is not UTF-8: reading it fails as
 * parsing the text does). */
#define SPILL_HDR 5

static void spill_free(struct forge_lua_spill *sp)
{
    if (!sp) return;
    if (sp->f) fclose(sp->f);
    forge_free(sp->line);
    forge_buf_free(&sp->rec);
    forge_free(sp);
}

static struct forge_lua_spill *spill_new(struct forge_err *err)
{
    struct forge_lua_spill *sp = forge_calloc(1, sizeof *sp);
    if (!sp) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char *t = forge_strdupf("%s/forge-cases-XXXXXX", dir);
    int fd = t ? mkstemp(t) : -1;
    if (fd < 0 || !(sp->f = fdopen(fd, "w+"))) {
        if (!t) forge_err_set(err, FORGE_ENOMEM, "out of memory");
        else forge_err_set(err, FORGE_EIO, "%s: cannot make the suite's temporary cases file: %s (set TMPDIR to a "
                           "writable folder)", t, strerror(errno));
        if (fd >= 0) close(fd);
        forge_free(t);
        forge_free(sp);
        return NULL;
    }
    forge_buf_init(&sp->rec, 0);
    unlink(t); /* anonymous: gone with the process, however it ends */
    forge_free(t);
    return sp;
}

/* The runner's case source over a spill: the next case, a new tree. */
static int spill_next(void *ctx, cJSON **kase, struct forge_err *err)
{
    struct forge_lua_spill *sp = ctx;
    *kase = NULL;
    if (!sp->reading) {
        if (fflush(sp->f) != 0 || fseeko(sp->f, 0, SEEK_SET) != 0)
            return forge_err_set(err, FORGE_EIO, "the suite's temporary cases file: %s", strerror(errno));
        sp->reading = 1;
    }
    unsigned char hdr[SPILL_HDR];
    size_t got = fread(hdr, 1, sizeof hdr, sp->f);
    if (got != sizeof hdr) {
        if (ferror(sp->f) || got) return forge_err_set(err, FORGE_EIO, "the suite's temporary cases file: %s",
                                                       got ? "cut short" : strerror(errno));
        /* the last case is read: the buffer (as large as the largest case) is not needed */
        forge_free(sp->line);
        sp->line = NULL;
        sp->cap = 0;
        return 0;
    }
    uint32_t n;
    memcpy(&n, hdr, sizeof n);
    if (n + (size_t)1 > sp->cap) {
        char *line = forge_realloc(sp->line, n + (size_t)1);
        if (!line) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        sp->line = line;
        sp->cap = n + (size_t)1;
    }
    if (fread(sp->line, 1, n, sp->f) != n)
        return forge_err_set(err, FORGE_EIO, "the suite's temporary cases file: %s",
                             ferror(sp->f) ? strerror(errno) : "cut short");
    sp->line[n] = '\0';
    if (hdr[4] == 'P') {
        *kase = forge_junpack(sp->line, n);
        return *kase ? 1 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    *kase = forge_json_parse(sp->line, n, "the suite's temporary cases file", err);
    return *kase ? 1 : (err && err->code ? err->code : FORGE_EIO);
}

struct cases {
    struct forge_lua_suite *s;
};

static int add_case(struct forge_vm *vm, int i, const char *where, void *ud, struct forge_err *err)
{
    (void)i;
    struct cases *cs = ud;
    lua_State *L = forge_vm_state(vm);
    cJSON *c = forge_lua_to_json(L, -1, err);
    if (!c) {
        forge_err_prefix(err, "%s", where);
        return FORGE_EINVAL;
    }
    /* the one case held in C while it is checked counts against --lua-memory */
    if (forge_vm_charge(vm, forge_lua_tree_cost(c))) {
        cJSON_Delete(c);
        return forge_err_set(err, FORGE_ELIMIT, "%s: %s", where, forge_vm_limit_message(vm));
    }
    if (forge_evalfile_check_case(c, err)) {
        forge_err_prefix(err, "%s", where);
        cJSON_Delete(c);
        return FORGE_EINVAL;
    }
    /* The record: the tree packed, or its JSON text; either way the limit counts the text. */
    struct forge_lua_spill *sp = cs->s->spill;
    forge_buf_reset(&sp->rec);
    size_t len = 0;
    char *text = NULL;
    int packed = forge_buf_add(&sp->rec, "\0\0\0\0P", SPILL_HDR);
    if (!packed) packed = forge_jpack(c, &sp->rec, &len);
    if (packed < 0) {
        cJSON_Delete(c);
        return forge_err_set(err, packed, "out of memory");
    }
    if (packed == 1) {
        text = cJSON_PrintUnformatted(c);
        if (text) len = strlen(text);
    }
    cJSON_Delete(c);
    if (packed == 1 && !text) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    size_t limit = forge_file_input_limit();
    if (len + 1 > limit - sp->bytes) {
        cJSON_free(text);
        if (limit % ((size_t)1 << 20) == 0)
            return forge_err_set(err, FORGE_ELIMIT, "%s: the suite's cases take more than %zu MiB as JSON (the input "
                                 "limit; raise it with --max-file-mb)", where, limit >> 20);
        return forge_err_set(err, FORGE_ELIMIT, "%s: the suite's cases take more than %zu bytes as JSON (the input "
                             "limit; raise it with --max-file-mb)", where, limit);
    }
    sp->bytes += len + 1;
    if (text) {
        forge_buf_reset(&sp->rec);
        if (forge_buf_add(&sp->rec, "\0\0\0\0J", SPILL_HDR) || forge_buf_add(&sp->rec, text, len) ||
            forge_buf_addc(&sp->rec, '\n')) {
            cJSON_free(text);
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        cJSON_free(text);
    }
    if (sp->rec.len - SPILL_HDR > UINT32_MAX) return forge_err_set(err, FORGE_ELIMIT, "%s: a case too large", where);
    uint32_t n = (uint32_t)(sp->rec.len - SPILL_HDR);
    memcpy(sp->rec.data, &n, sizeof n);
    int bad = fwrite(sp->rec.data, 1, sp->rec.len, sp->f) != sp->rec.len;
    if (bad) return forge_err_set(err, FORGE_EIO, "the suite's temporary cases file: %s", strerror(errno));
    cs->s->ncases++;
    return 0;
}

static int protect(struct forge_vm *vm, int idx,
                   int (*fn)(struct forge_vm *, int, void *, const char *, struct forge_err *),
                   void *out, const char *where, struct forge_err *err);

/* ---- the scripted rules as data (forge_scripted_set_plan) ----
 * Read raw from the rules' copy that __forge_rules made; whatever is not plain data the C engine
 * evaluates exactly as lua/forge/scripted.lua does is marked {"lua": true}. */

/* 1 when the table at <idx> has no metatable or a forge.json one. */
static bool plain_table(lua_State *L, int idx)
{
    if (!lua_getmetatable(L, idx))
        return true;
    bool json = false;
    static const char *const keys[] = {"forge.json.array", "forge.json.object"};
    for (int i = 0; i < 2 && !json; i++) {
        lua_getfield(L, LUA_REGISTRYINDEX, keys[i]);
        json = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return json;
}

/* Values plain_data may still visit while one rules table is planned. The walk runs in C, where
 * no instruction count or deadline reaches it, and a table may hold the same table twice at
 * every level (2^64 visits in 64 levels): past this many the rest is left to the Lua engine,
 * which runs under the script's limits. */
#define PLAN_VALUES (1u << 20)
static _Thread_local unsigned plan_budget;

/* 1 when the value at <idx> is data the C engine copies as the Lua engine would: strings,
 * numbers, booleans, forge.json.null and plain or forge.json tables of these. */
static bool plain_data(lua_State *L, int idx, int depth)
{
    if (!plan_budget)
        return false;
    plan_budget--;
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TSTRING:
    case LUA_TNUMBER:
    case LUA_TBOOLEAN:
        return true;
    case LUA_TUSERDATA: {
        lua_getfield(L, LUA_REGISTRYINDEX, "forge.json.null");
        bool null = lua_rawequal(L, -1, idx);
        lua_pop(L, 1);
        return null;
    }
    case LUA_TTABLE:
        break;
    default:
        return false;
    }
    if (depth > 64 || !plain_table(L, idx) || !lua_checkstack(L, 4))
        return false;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (!plain_data(L, -1, depth + 1)) {
            lua_pop(L, 2);
            return false;
        }
        lua_pop(L, 1);
    }
    return true;
}

static int cmp_member(const void *a, const void *b)
{
    return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string);
}

/* Sorts the keys of every object in <v>, as a table the Lua engine builds converts. */
static int sort_members(cJSON *v)
{
    int n = 0;
    for (cJSON *c = v->child; c; c = c->next, n++)
        if (sort_members(c))
            return FORGE_ENOMEM;
    if (!cJSON_IsObject(v) || n < 2)
        return 0;
    cJSON **a = forge_malloc((size_t)n * sizeof *a);
    if (!a)
        return FORGE_ENOMEM;
    int i = 0;
    for (cJSON *c = v->child; c; c = c->next)
        a[i++] = c;
    qsort(a, (size_t)n, sizeof *a, cmp_member);
    for (i = 0; i < n; i++) {
        a[i]->prev = i ? a[i - 1] : a[n - 1];
        a[i]->next = i + 1 < n ? a[i + 1] : NULL;
    }
    v->child = a[0];
    forge_free(a);
    return 0;
}

/* The arguments of a scripted call (the value at <idx>, or {} when nil) as the Lua engine sends
 * them: json.object of a copy, keys sorted. NULL when it is not plain data or not an object. */
static cJSON *plan_args(lua_State *L, int idx)
{
    if (lua_isnil(L, idx))
        return cJSON_CreateObject();
    if (!lua_istable(L, idx) || !plain_data(L, idx, 0))
        return NULL;
    struct forge_err err = {0};
    cJSON *v = forge_lua_to_json(L, idx, &err);
    if (cJSON_IsArray(v) && !v->child) { /* json.object makes an empty array an object */
        cJSON_Delete(v);
        v = cJSON_CreateObject();
    }
    if (!cJSON_IsObject(v) || sort_members(v)) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

/* A string without a NUL byte at <idx>, or NULL. */
static const char *plan_text(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        return NULL;
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    return strlen(s) == len ? s : NULL;
}

/* One step from its calls (at <calls>, nil for none) and reply (at <reply>), added to <steps>. */
static void plan_step(lua_State *L, int calls, int reply, cJSON *steps)
{
    cJSON *st = cJSON_CreateObject();
    if (!st)
        return;
    cJSON_AddItemToArray(steps, st);
    bool lua = false;
    const char *text = plan_text(L, reply);
    if (lua_toboolean(L, calls)) {
        lua = !lua_istable(L, calls) || !plain_table(L, calls) || (lua_toboolean(L, reply) && !text);
        cJSON *list = lua ? NULL : cJSON_AddArrayToObject(st, "calls");
        for (lua_Integer i = 1; list && !lua && lua_rawgeti(L, calls, i) != LUA_TNIL; i++) {
            int c = lua_gettop(L);
            const char *name = NULL;
            cJSON *args = NULL;
            if (lua_istable(L, c) && plain_table(L, c)) {
                lua_pushliteral(L, "name");
                lua_rawget(L, c);
                name = plan_text(L, -1);
                lua_pushliteral(L, "arguments");
                lua_rawget(L, c);
                args = name ? plan_args(L, lua_gettop(L)) : NULL;
            }
            cJSON *call = cJSON_CreateObject();
            if (call && args) {
                cJSON_AddItemToArray(list, call);
                cJSON_AddStringToObject(call, "name", name);
                cJSON_AddItemToObject(call, "arguments", args);
            } else {
                cJSON_Delete(call);
                cJSON_Delete(args);
                lua = true;
            }
            lua_settop(L, c - 1);
        }
        if (!lua && text)
            cJSON_AddStringToObject(st, "reply", text);
        lua_settop(L, reply > calls ? reply : calls);
    } else if (!lua_toboolean(L, reply)) {
        cJSON_AddStringToObject(st, "reply", "");
    } else if (text) {
        cJSON_AddStringToObject(st, "reply", text);
    } else {
        lua = true;
    }
    if (lua)
        cJSON_AddTrueToObject(st, "lua");
}

static void plan_rule(lua_State *L, int rule, cJSON *rules)
{
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return;
    cJSON_AddItemToArray(rules, r);
    if (!lua_istable(L, rule) || !plain_table(L, rule) || !lua_checkstack(L, 12)) {
        cJSON_AddTrueToObject(r, "lua");
        return;
    }
    int top = lua_gettop(L);
    static const char *const keys[] = {"case", "match", "when", "steps", "calls", "reply"};
    for (int i = 0; i < 6; i++) {
        lua_pushstring(L, keys[i]);
        lua_rawget(L, rule);
    }
    int kcase = top + 1, kmatch = top + 2, kwhen = top + 3, ksteps = top + 4, kcalls = top + 5,
        kreply = top + 6;
    bool lua = false;
    if (!lua_isnil(L, kcase)) {
        cJSON *ids = cJSON_AddArrayToObject(r, "case");
        if (lua_istable(L, kcase)) {
            lua = !plain_table(L, kcase);
            for (lua_Integer i = 1; !lua && lua_rawgeti(L, kcase, i) != LUA_TNIL; i++) {
                if (lua_type(L, -1) == LUA_TSTRING)
                    lua = !plan_text(L, -1) || !cJSON_AddItemToArray(ids, cJSON_CreateString(lua_tostring(L, -1)));
                lua_pop(L, 1);
            }
            lua_settop(L, kreply);
        } else if (lua_type(L, kcase) == LUA_TSTRING) {
            lua = !plan_text(L, kcase) || !cJSON_AddItemToArray(ids, cJSON_CreateString(lua_tostring(L, kcase)));
        }
    }
    if (lua_toboolean(L, kmatch)) {
        if (plan_text(L, kmatch))
            cJSON_AddStringToObject(r, "match", lua_tostring(L, kmatch));
        else
            lua = true;
    }
    if (lua_toboolean(L, kwhen))
        cJSON_AddTrueToObject(r, "when");
    cJSON *steps = cJSON_AddArrayToObject(r, "steps");
    if (lua_toboolean(L, ksteps)) {
        lua_Integer n = 0;
        if (!lua_istable(L, ksteps) || !plain_table(L, ksteps)) {
            lua = true;
        } else {
            lua_pushnil(L);
            while (lua_next(L, ksteps)) {
                lua_pop(L, 1);
                if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > n)
                    n = lua_tointeger(L, -1);
            }
            lua = n > 1000;
        }
        for (lua_Integer i = 1; !lua && i <= n; i++) {
            int t = lua_rawgeti(L, ksteps, i), st = lua_gettop(L);
            if (t == LUA_TNIL) {
                cJSON_AddItemToArray(steps, cJSON_CreateNull());
            } else if (t != LUA_TTABLE || !plain_table(L, st)) {
                cJSON *x = cJSON_CreateObject();
                cJSON_AddItemToArray(steps, x);
                cJSON_AddTrueToObject(x, "lua");
            } else {
                lua_pushliteral(L, "calls");
                lua_rawget(L, st);
                lua_pushliteral(L, "reply");
                lua_rawget(L, st);
                plan_step(L, st + 1, st + 2, steps);
            }
            lua_settop(L, kreply);
        }
    } else {
        if (lua_toboolean(L, kcalls)) {
            lua_pushnil(L);
            plan_step(L, kcalls, lua_gettop(L), steps);
            lua_settop(L, kreply);
        }
        if (!lua_isnil(L, kreply)) {
            lua_pushnil(L);
            plan_step(L, lua_gettop(L), kreply, steps);
        }
    }
    if (lua)
        cJSON_AddTrueToObject(r, "lua");
    lua_settop(L, top);
}

/* Builds *out, the plan of the rules table at <idx> (a raise leaves a partial tree there). */
static int plan_job(struct forge_vm *vm, int idx, void *out, const char *where,
                    struct forge_err *err)
{
    (void)where;
    lua_State *L = forge_vm_state(vm);
    cJSON **plan = out;
    plan_budget = PLAN_VALUES;
    *plan = cJSON_CreateArray();
    if (!*plan)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    if (!lua_istable(L, idx) || !plain_table(L, idx)) { /* no plan: Lua answers */
        cJSON_Delete(*plan);
        *plan = NULL;
        return 0;
    }
    for (lua_Integer i = 1; lua_rawgeti(L, idx, i) != LUA_TNIL; i++) {
        plan_rule(L, lua_gettop(L), *plan);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

/* Gives the scripted model made from the table at <idx> its rules as data, when the table has
 * them (__forge_rules). */
static int model_plan(struct forge_vm *vm, int idx, struct forge_model *model, const char *name,
                      struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    if (!lua_getmetatable(L, idx))
        return 0;
    rawfield(L, -1, "__forge_rules");
    lua_remove(L, -2);
    if (lua_type(L, -1) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return 0;
    }
    int rc = forge_vm_call(vm, 0, 2, err);
    if (rc)
        return rc;
    /* a script that put its own function in `respond` has it answer every request */
    rawfield(L, idx, "respond");
    bool own = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    /* the plan (the rules as data, their compiled patterns) lives in C for the run: made within
     * what the cap leaves and held against --lua-memory for the VM's life, as tools are (the
     * measure ends whether or not planning raised: protect catches it) */
    cJSON *plan = NULL;
    size_t planned = 0;
    forge_vm_work_begin(vm, 0);
    rc = own ? protect(vm, -1, plan_job, &plan, name, err) : 0;
    if (forge_vm_work_end(vm, &planned) || (!rc && plan && forge_vm_hold(vm, planned)))
        rc = forge_err_set(err, FORGE_ELIMIT, "%s: the scripted model's rules: %s", name,
                           forge_vm_limit_message(vm));
    lua_pop(L, 1);
    if (rc || !plan) {
        cJSON_Delete(plan);
        return rc;
    }
    forge_vm_work_begin(vm, 0);
    rc = forge_scripted_set_plan(model, plan, err);
    return hold_built(vm, rc == 0, name, "the scripted model's rules", err) ? FORGE_ELIMIT : rc;
}

static int model_of(struct forge_vm *vm, int idx, const char *name, struct forge_model **model,
                    struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    idx = lua_absindex(L, idx);
    struct forge_callable fn;
    int r = field_fn(vm, idx, "respond", 0, "scripted model", &fn);
    if (r < 0)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    if (r == 0)
        return forge_err_set(err, FORGE_EINVAL, "model: expected forge.scripted{...} or a "
                             "\"provider:model\" string");
    *model = forge_scripted_new(fn, forge_lua_callable_free, name, err);
    if (!*model)
        return err->code;
    int rc = model_plan(vm, idx, *model, name, err);
    if (rc) {
        forge_model_free(*model);
        *model = NULL;
    }
    return rc;
}

static int gate(lua_State *L, int idx, const char *key, bool *has, double *val, double lo,
                double hi, const char *where, struct forge_err *err)
{
    rawfield(L, idx, key);
    int rc = 0;
    if (!lua_isnil(L, -1)) {
        if (!lua_isnumber(L, -1) || lua_tonumber(L, -1) < lo || lua_tonumber(L, -1) > hi)
            rc = forge_err_set(err, FORGE_EINVAL, "%s: gates.%s must be a number between %g and "
                               "%g", where, key, lo, hi);
        *has = true;
        *val = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return rc;
}

/* Runs <fn> on the table at <idx> inside a protected call: building from a script's tables
 * allocates Lua values, and a memory error must not escape as a panic. */
struct job {
    int (*fn)(struct forge_vm *vm, int idx, void *out, const char *where, struct forge_err *err);
    struct forge_vm *vm;
    void *out;
    const char *where;
    struct forge_err *err;
    int rc;
};

static int job_run(lua_State *L)
{
    struct job *j = lua_touserdata(L, 1);
    j->rc = j->fn(j->vm, 2, j->out, j->where, j->err);
    return 0;
}

static int protect(struct forge_vm *vm, int idx,
                   int (*fn)(struct forge_vm *, int, void *, const char *, struct forge_err *),
                   void *out, const char *where, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    idx = lua_absindex(L, idx);
    struct job j = {fn, vm, out, where, err, 0};
    lua_pushcfunction(L, job_run);
    lua_pushlightuserdata(L, &j);
    lua_pushvalue(L, idx);
    int status = lua_pcall(L, 2, 0, 0);
    if (status != LUA_OK)
        return forge_vm_pcall_error(vm, status, where, err);
    return j.rc;
}

static int verifiers_job(struct forge_vm *vm, int idx, void *out, const char *where,
                         struct forge_err *err)
{
    return each_of(vm, idx, "list", where, add_verifier, out, err);
}

int forge_lua_registered_verifiers(struct forge_vm *vm, const char *where,
                                   struct forge_verifiers *out, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    int top = lua_gettop(L);
    int rc = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, "forge.loaded");
    if (lua_istable(L, -1) && rawfield(L, -1, "forge") == LUA_TTABLE &&
        rawfield(L, -1, "verifiers") == LUA_TFUNCTION) {
        rc = forge_vm_call(vm, 0, 1, err); /* a script may have replaced it: run it as user code */
        if (!rc && lua_istable(L, -1)) {
            lua_newtable(L);
            lua_insert(L, -2);
            lua_setfield(L, -2, "list");
            rc = protect(vm, -1, verifiers_job, out, where, err);
        }
    }
    lua_settop(L, top);
    return rc;
}

static int suite_job(struct forge_vm *vm, int idx, void *ud, const char *mode,
                     struct forge_err *err)
{
    /* mode "agent": an agent of the service (forge.agent{...}): an id and no cases */
    int agent = mode && !strcmp(mode, "agent");
    struct forge_lua_suite *out = ud;
    lua_State *L = forge_vm_state(vm);
    idx = lua_absindex(L, idx);
    memset(out, 0, sizeof *out);
    forge_policy_init(&out->policy);
    rawfield(L, idx, agent ? "id" : "name");
    out->name = forge_strdup(lua_isstring(L, -1) ? lua_tostring(L, -1) : agent ? "" : "suite");
    lua_pop(L, 1);
    char where[300];
    snprintf(where, sizeof where, "%s '%s'", agent ? "agent" : "suite", out->name);
    static const char *const keys[] = {"name", "model", "tools", "verifiers", "cases", "policy",
                                       "approve", "system", "params", "gates", "stream", NULL};
    static const char *const agent_keys[] = {"id", "description", "model", "tools", "verifiers",
                                             "policy", "system", "params", "on_request",
                                             "on_tool_call", "on_done", "allow_user_hitl", NULL};
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
        int ok = 0;
        for (const char *const *p = agent ? agent_keys : keys; *p && !ok; p++)
            ok = strcmp(*p, k) == 0;
        if (!ok) {
            lua_pop(L, 1);
            if (agent)
                forge_err_set(err, FORGE_EINVAL, "%s: unknown key '%s' (id, description, model, tools, "
                              "verifiers, policy, system, params, on_request, on_tool_call, on_done, allow_user_hitl)", where, k);
            else
                forge_err_set(err, FORGE_EINVAL, "%s: unknown key '%s' (name, model, tools, verifiers, "
                              "cases, policy, approve, system, params, gates, stream)", where, k);
            goto fail;
        }
    }
    if (agent && (!out->name || !out->name[0] || strlen(out->name) > 64 ||
                  strspn(out->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
                      strlen(out->name))) {
        forge_err_set(err, FORGE_EINVAL, "agent: id must be 1 to 64 letters, digits, '_', '.' or '-'");
        goto fail;
    }
    int rc = each_of(vm, idx, "tools", where, add_tool, &out->tools, err);
    if (!rc) {
        rawfield(L, idx, "verifiers");
        int has = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (has) {
            rc = each_of(vm, idx, "verifiers", where, add_verifier, &out->verifiers, err);
        } else {
            rc = forge_lua_registered_verifiers(vm, where, &out->verifiers, err);
        }
    }
    if (!rc && !agent && !(out->spill = spill_new(err)))
        rc = err->code;
    if (!rc && !agent)
        rc = each_of(vm, idx, "cases", where, add_case, &(struct cases){out}, err);
    if (rc)
        goto fail;
    /* the record buffer served the writing (it holds the largest case): let it go */
    if (out->spill)
        forge_buf_free(&out->spill->rec);
    /* The cases live on in the spill: let Lua's copies go (a suite may hold many thousands). */
    lua_pushliteral(L, "cases");
    lua_pushnil(L);
    lua_rawset(L, idx); /* raw: no __newindex of the script's runs here */
    if (out->spill) {
        out->next_case = spill_next;
        out->case_ctx = out->spill;
    }
    if (!agent && !out->ncases) {
        forge_err_set(err, FORGE_EINVAL, "%s: has no cases (cases = forge.evals(\"...\") or a "
                      "list of case tables)", where);
        goto fail;
    }
    rawfield(L, idx, "policy");
    size_t policy_bytes = 0;
    if (!lua_isnil(L, -1)) {
        cJSON *p = data_of(L, -1, where, err);
        rc = p ? forge_policy_apply(&out->policy, p, where, err) : FORGE_EINVAL;
        policy_bytes = forge_lua_tree_cost(p); /* (what the policy copied, at most) */
        cJSON_Delete(p);
    }
    lua_pop(L, 1);
    if (rc)
        goto fail;
    struct forge_callable fn;
    int r = field_fn(vm, idx, "approve", 0, "approval function", &fn);
    if (r == 1) {
        out->policy.approve = fn;
        out->policy.approve_free = forge_lua_callable_free;
    }
    rawfield(L, idx, "model");
    if (lua_type(L, -1) == LUA_TSTRING) {
        out->model_spec = dup_text(L, -1, where, "model", err);
        if (!out->model_spec)
            rc = err->code;
    } else if (lua_type(L, -1) == LUA_TTABLE) {
        rc = model_of(vm, -1, "scripted", &out->model, err);
        if (rc)
            forge_err_prefix(err, "%s", where);
    } else if (!lua_isnil(L, -1)) {
        rc = forge_err_set(err, FORGE_EINVAL, "%s: model must be forge.scripted{...} or a "
                           "\"provider:model\" string", where);
    }
    lua_pop(L, 1);
    if (rc)
        goto fail;
    rawfield(L, idx, "system");
    if (lua_isstring(L, -1) && !(out->system = dup_text(L, -1, where, "system", err)))
        rc = err->code;
    lua_pop(L, 1);
    if (rc)
        goto fail;
    rawfield(L, idx, "params");
    if (lua_istable(L, -1))
        out->params = data_of(L, -1, where, err);
    lua_pop(L, 1);
    rawfield(L, idx, "stream");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
        rc = forge_err_set(err, FORGE_EINVAL, "%s: stream must be true or false", where);
    out->stream = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (rc)
        goto fail;
    rawfield(L, idx, "gates");
    if (lua_istable(L, -1)) {
        int g = lua_gettop(L);
        rc = gate(L, g, "pass_rate", &out->gates.has_min_pass_rate, &out->gates.min_pass_rate, 0,
                  1, where, err);
        if (!rc)
            rc = gate(L, g, "max_cost", &out->gates.has_max_cost, &out->gates.max_cost, 0, 1e300,
                      where, err);
        if (!rc)
            rc = gate(L, g, "max_p95_ms", &out->gates.has_max_p95_ms, &out->gates.max_p95_ms, 0,
                      1e300, where, err);
    }
    lua_pop(L, 1);
    if (rc)
        goto fail;
    /* the suite's own text and data (name, system prompt, params, policy, model) live in C for
     * the run: held against --lua-memory for the VM's life, as its tools are */
    size_t own = (out->name ? strlen(out->name) : 0) + (out->system ? strlen(out->system) : 0) +
                 (out->model_spec ? strlen(out->model_spec) : 0) + forge_lua_tree_cost(out->params) +
                 policy_bytes;
    if (forge_vm_hold(vm, own)) {
        rc = forge_err_set(err, FORGE_ELIMIT, "%s: %s", where, forge_vm_limit_message(vm));
        goto fail;
    }
    return 0;
fail:
    forge_lua_suite_free(out);
    return err->code ? err->code : FORGE_EINVAL;
}

int forge_lua_suite_load(struct forge_vm *vm, int idx, struct forge_lua_suite *out,
                         struct forge_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = protect(vm, idx, suite_job, out, "suite", err);
    if (rc && rc != FORGE_EINVAL)
        forge_lua_suite_free(out); /* interrupted midway: free what was built */
    return rc;
}

void forge_lua_suite_free(struct forge_lua_suite *s)
{
    forge_free(s->name);
    forge_toolset_free(&s->tools);
    forge_verifiers_free(&s->verifiers);
    forge_policy_free(&s->policy);
    forge_model_free(s->model);
    forge_free(s->model_spec);
    cJSON_Delete(s->cases);
    spill_free(s->spill);
    forge_free(s->system);
    cJSON_Delete(s->params);
    memset(s, 0, sizeof *s);
}

/* Runs <path> and leaves its first result on the stack. */
static int run_file(struct forge_vm *vm, const char *path, struct forge_err *err)
{
    int rc = forge_vm_load_file(vm, path, err);
    if (!rc)
        rc = forge_vm_call(vm, 0, 1, err);
    return rc;
}

static int tools_job(struct forge_vm *vm, int t, void *tools, const char *path,
                     struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    if (lua_type(L, t) != LUA_TTABLE)
        return forge_err_set(err, FORGE_EINVAL, "%s: a tools file returns a list of forge.tool{...}",
                             path);
    if (forge_lua_is_kind(L, t, "tool")) {
        struct forge_tool *tool = tool_of(vm, t, path, err);
        return tool ? forge_toolset_add(tools, tool, err) : err->code;
    }
    lua_newtable(L);
    lua_pushvalue(L, t);
    lua_setfield(L, -2, "tools");
    int rc = each_of(vm, lua_gettop(L), "tools", path, add_tool, tools, err);
    lua_pop(L, 1);
    return rc;
}

int forge_lua_tools_load(struct forge_vm *vm, const char *path, struct forge_toolset *tools,
                         struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    int rc = run_file(vm, path, err);
    if (rc)
        return rc;
    rc = protect(vm, -1, tools_job, tools, path, err);
    lua_pop(L, 1);
    return rc;
}

int forge_lua_scripted_load(struct forge_vm *vm, const char *path, struct forge_model **model,
                            struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    *model = NULL;
    int rc = run_file(vm, path, err);
    if (rc)
        return rc;
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        return forge_err_set(err, FORGE_EINVAL, "%s: a rules file returns forge.scripted{...} or "
                             "a list of rules", path);
    }
    if (!forge_lua_is_kind(L, -1, "model")) {
        /* a plain list of rules: forge.scripted(rules) */
        lua_getfield(L, LUA_REGISTRYINDEX, "forge.require");
        lua_pushliteral(L, "forge.scripted");
        rc = forge_vm_call(vm, 1, 1, err);
        if (rc) {
            lua_pop(L, 1);
            return rc;
        }
        rawfield(L, -1, "new");
        lua_remove(L, -2);
        lua_insert(L, -2);
        rc = forge_vm_call(vm, 1, 1, err);
        if (rc) {
            forge_err_prefix(err, "%s", path);
            return rc;
        }
    }
    rc = model_of(vm, -1, path, model, err);
    lua_pop(L, 1);
    return rc;
}

/* ---- probes (forge probe) ---- */

struct probes {
    struct forge_probe *v;
    int n;
};

/* The normalized request of the probe described by <d>. */
static cJSON *probe_request(const cJSON *d)
{
    cJSON *req = cJSON_CreateObject(), *msgs, *m;
    const char *sys = forge_json_str(d, "system");
    if (!req || (sys && !cJSON_AddStringToObject(req, "system", sys)) || !(msgs = cJSON_AddArrayToObject(req, "messages")) ||
        !(m = cJSON_CreateObject()) || !cJSON_AddItemToArray(msgs, m) || !cJSON_AddStringToObject(m, "role", "user") ||
        !cJSON_AddStringToObject(m, "content", forge_json_str(d, "prompt")))
        goto fail;
    static const char *const keys[] = {"tools", "tool_choice", "parallel_tool_calls", "params", "stream"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, keys[k]);
        if (v && !cJSON_AddItemToObject(req, keys[k], cJSON_Duplicate(v, 1)))
            goto fail;
    }
    return req;
fail:
    cJSON_Delete(req);
    return NULL;
}

static int add_probe(struct forge_vm *vm, int idx, void *ud, const char *where, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    struct probes *ps = ud;
    if (lua_type(L, idx) != LUA_TTABLE)
        return forge_err_set(err, FORGE_EINVAL, "%s: a probe is a table {name, prompt, tools, check, ...}", where);
    cJSON *d = data_of(L, idx, where, err);
    if (!d)
        return err->code;
    struct forge_probe p;
    memset(&p, 0, sizeof p);
    int rc = 0;
    const char *name = forge_json_str(d, "name"), *prompt = forge_json_str(d, "prompt");
    static const char *const known[] = {"name", "description", "prompt", "system", "tools", "tool_choice",
                                        "parallel_tool_calls", "params", "stream", "roundtrip", "check", "preflight", NULL};
    for (const cJSON *k = d->child; k && !rc; k = k->next) {
        int ok = 0;
        for (const char *const *kn = known; *kn && !ok; kn++)
            ok = !strcmp(*kn, k->string);
        if (!ok)
            rc = forge_err_set(err, FORGE_EINVAL, "%s: unknown key '%s' (name, description, prompt, system, tools, "
                               "tool_choice, parallel_tool_calls, params, stream, roundtrip, check, preflight)",
                               where, k->string);
    }
    if (!rc && (!name || !*name))
        rc = forge_err_set(err, FORGE_EINVAL, "%s: name must be a non-empty string", where);
    if (!rc && !prompt)
        rc = forge_err_set(err, FORGE_EINVAL, "%s (%s): prompt must be a string", where, name);
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(d, "roundtrip");
    if (!rc && rt && !cJSON_GetObjectItemCaseSensitive(rt, "result"))
        rc = forge_err_set(err, FORGE_EINVAL, "%s (%s): roundtrip needs a result", where, name);
    if (!rc) {
        char fname[300];
        snprintf(fname, sizeof fname, "probe '%s' check", name);
        int r = field_fn(vm, idx, "check", 0, fname, &p.check);
        if (r == 0)
            rc = forge_err_set(err, FORGE_EINVAL, "%s (%s): check must be a function(response, info)", where, name);
        else if (r < 0)
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        p.free_ctx = forge_lua_callable_free;
    }
    if (!rc) {
        char fname[300];
        snprintf(fname, sizeof fname, "probe '%s' preflight", name);
        if (field_fn(vm, idx, "preflight", 0, fname, &p.preflight) < 0)
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    if (!rc && (!(p.name = forge_strdup(name)) ||
                !(p.description = forge_strdup(forge_json_str(d, "description") ? forge_json_str(d, "description") : "")) ||
                !(p.request = probe_request(d)) ||
                (rt && !(p.roundtrip = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rt, "result"), 1)))))
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
    if (!rc && forge_wire_check(p.request, err))
        rc = err->code, forge_err_prefix(err, "%s (%s)", where, name);
    for (int i = 0; !rc && i < ps->n; i++)
        if (!strcmp(ps->v[i].name, name))
            rc = forge_err_set(err, FORGE_EINVAL, "%s: a second probe named '%s'", where, name);
    cJSON_Delete(d); /* <name> points into it */
    struct forge_probe *v = rc ? NULL : forge_realloc(ps->v, (size_t)(ps->n + 1) * sizeof *v);
    if (!rc && !v)
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
    if (rc) {
        forge_probe_free(&p);
        return rc;
    }
    ps->v = v;
    ps->v[ps->n++] = p;
    return 0;
}

static int probes_job(struct forge_vm *vm, int t, void *ud, const char *where, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    if (lua_type(L, t) != LUA_TTABLE)
        return forge_err_set(err, FORGE_EINVAL, "%s: expected a list of probes", where);
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        char w[320];
        snprintf(w, sizeof w, "%s: probes[%lld]", where, (long long)i);
        lua_rawgeti(L, t, i);
        int rc = add_probe(vm, lua_gettop(L), ud, w, err);
        lua_pop(L, 1);
        if (rc)
            return rc;
    }
    return 0;
}

int forge_lua_probes_load(struct forge_vm *vm, const char *path, struct forge_probe **out, int *n,
                          struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    struct probes ps = {NULL, 0};
    *out = NULL;
    *n = 0;
    int rc;
    if (path) {
        rc = run_file(vm, path, err);
    } else {
        lua_getfield(L, LUA_REGISTRYINDEX, "forge.require");
        lua_pushliteral(L, "forge.probes");
        rc = forge_vm_call(vm, 1, 1, err);
    }
    if (rc)
        return rc;
    rc = protect(vm, -1, probes_job, &ps, path ? path : "forge.probes", err);
    lua_pop(L, 1);
    if (rc) {
        for (int i = 0; i < ps.n; i++)
            forge_probe_free(&ps.v[i]);
        forge_free(ps.v);
        return rc;
    }
    *out = ps.v;
    *n = ps.n;
    return 0;
}

/* ---- agents (forge serve --agent) ---- */

struct agents {
    struct forge_lua_agent **v;
    int n;
};

static int agent_job(struct forge_vm *vm, int idx, void *ud, const char *where, struct forge_err *err)
{
    struct agents *as = ud;
    lua_State *L = forge_vm_state(vm);
    idx = lua_absindex(L, idx);
    if (!forge_lua_is_kind(L, idx, "agent"))
        return forge_err_set(err, FORGE_EINVAL, "%s: expected forge.agent{...}", where);
    struct forge_lua_agent *a = forge_calloc(1, sizeof *a);
    if (!a)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int rc = suite_job(vm, idx, &a->s, "agent", err);
    if (rc) {
        forge_free(a);
        return rc;
    }
    rawfield(L, idx, "description");
    if (lua_isstring(L, -1))
        a->description = forge_strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    rawfield(L, idx, "allow_user_hitl");
    if (lua_isboolean(L, -1))
        a->allow_user_hitl = lua_toboolean(L, -1);
    else if (!lua_isnil(L, -1))
        rc = forge_err_set(err, FORGE_EINVAL, "agent '%s': allow_user_hitl must be a boolean", a->s.name);
    lua_pop(L, 1);
    static const char *const hooks[] = {"on_request", "on_tool_call", "on_done"};
    for (int i = 0; i < 3 && !rc; i++) {
        rawfield(L, idx, hooks[i]);
        int t = lua_type(L, -1);
        lua_pop(L, 1);
        if (t == LUA_TNIL)
            continue;
        if (t != LUA_TFUNCTION) {
            rc = forge_err_set(err, FORGE_EINVAL, "agent '%s': %s must be a function", a->s.name, hooks[i]);
            break;
        }
        int r = field_fn(vm, idx, hooks[i], 0, hooks[i], &a->hook[i]);
        if (r < 0)
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        a->has_hook[i] = r == 1;
    }
    for (int i = 0; i < as->n && !rc; i++)
        if (!strcmp(as->v[i]->s.name, a->s.name))
            rc = forge_err_set(err, FORGE_EINVAL, "%s: two agents have the id '%s'", where, a->s.name);
    if (!rc && as->n >= 256)
        rc = forge_err_set(err, FORGE_EINVAL, "%s: more than 256 agents", where);
    struct forge_lua_agent **v = rc ? NULL : forge_realloc(as->v, sizeof *v * (size_t)(as->n + 1));
    if (!rc && !v)
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
    if (rc) {
        forge_lua_agent_free(a);
        return rc;
    }
    as->v = v;
    as->v[as->n++] = a;
    return 0;
}

static int agents_job(struct forge_vm *vm, int t, void *ud, const char *path, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    if (lua_type(L, t) != LUA_TTABLE)
        return forge_err_set(err, FORGE_EINVAL, "%s: an agent file returns forge.agent{...} or a list of them",
                             path);
    if (forge_lua_is_kind(L, t, "agent"))
        return agent_job(vm, t, ud, path, err);
    int n = (int)lua_rawlen(L, t);
    if (n == 0)
        return forge_err_set(err, FORGE_EINVAL, "%s: an agent file returns forge.agent{...} or a list of them",
                             path);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, t, i);
        char where[300];
        snprintf(where, sizeof where, "%s: agents[%d]", path, i);
        int rc = agent_job(vm, lua_gettop(L), ud, where, err);
        lua_pop(L, 1);
        if (rc)
            return rc;
    }
    return 0;
}

int forge_lua_agents_load(struct forge_vm *vm, const char *path, struct forge_lua_agent ***out, int *n,
                          struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    struct agents as = {0};
    *out = NULL;
    *n = 0;
    int rc = run_file(vm, path, err);
    if (rc)
        return rc;
    rc = protect(vm, -1, agents_job, &as, path, err);
    lua_pop(L, 1);
    if (rc) {
        for (int i = 0; i < as.n; i++)
            forge_lua_agent_free(as.v[i]);
        forge_free(as.v);
        return rc;
    }
    *out = as.v;
    *n = as.n;
    return 0;
}

void forge_lua_agent_free(struct forge_lua_agent *a)
{
    if (!a)
        return;
    forge_lua_suite_free(&a->s);
    forge_free(a->description);
    for (int i = 0; i < 3; i++)
        if (a->has_hook[i])
            forge_lua_callable_free(a->hook[i].ctx);
    forge_free(a);
}
