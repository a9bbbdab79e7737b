/* forge.schema: JSON Schema validation and tool-argument coercion for scripts.
 *
 *   local v = forge.schema.compile(schema [, opts])   -- raises on a bad schema
 *   local ok, errors = v:validate(value)              -- true | false, {{instanceLocation=...}, ...}
 *   local args, coercions = forge.schema.coerce(args, schema)
 *
 * opts: draft ("4", "6", "7", "2019-09", "2020-12"; used when the schema has no $schema),
 * formats (boolean), all_errors (boolean), ref_dirs ({["https://x/"] = "folder"}; folders
 * must be readable under the sandbox rules). */
#include "lua/bind.h"
#include "lua/vm.h"
#include "data/coerce.h"
#include "data/schema.h"
#include "base/alloc.h"

#include <string.h>

#define SCHEMA_MT "forge.Schema"
#define MAX_REFDIRS 32

struct l_schema {
    struct forge_schema *s;
    size_t held; /* bytes counted against --lua-memory for the compiled form */
};

/* Temporaries a binding holds while it calls functions that may raise: freed by __gc if the
 * call raises, or by tmp_free on the normal path. */
#define TMP_MT "forge.schema.tmp"
struct tmp {
    cJSON *json[2];
    char *strs[MAX_REFDIRS];
    int nstrs;
};

static void tmp_free(struct tmp *t)
{
    for (int i = 0; i < 2; i++) {
        cJSON_Delete(t->json[i]);
        t->json[i] = NULL;
    }
    for (int i = 0; i < t->nstrs; i++)
        forge_free(t->strs[i]);
    t->nstrs = 0;
}

/* (a finalizer: what it frees is not the measured work's it may run inside, see
 * forge_alloc_measure_pause) */
static int l_tmp_gc(lua_State *L)
{
    int paused = forge_alloc_measure_pause();
    tmp_free(luaL_checkudata(L, 1, TMP_MT));
    forge_alloc_measure_resume(paused);
    return 0;
}

static struct tmp *push_tmp(lua_State *L)
{
    struct tmp *t = lua_newuserdatauv(L, sizeof *t, 0);
    memset(t, 0, sizeof *t);
    luaL_setmetatable(L, TMP_MT);
    return t;
}

static struct l_schema *check_schema(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, SCHEMA_MT);
}

static int parse_draft(const char *s)
{
    if (!strncmp(s, "draft", 5))
        s += 5;
    if (!strcmp(s, "4")) return FORGE_DRAFT_4;
    if (!strcmp(s, "6")) return FORGE_DRAFT_6;
    if (!strcmp(s, "7")) return FORGE_DRAFT_7;
    if (!strcmp(s, "2019-09")) return FORGE_DRAFT_2019_09;
    if (!strcmp(s, "2020-12")) return FORGE_DRAFT_2020_12;
    return -1;
}

/* The string at <idx> for C, or NULL when it is not one or holds a NUL byte (C would see a
 * shorter name or path). */
static const char *cstr(lua_State *L, int idx)
{
    size_t len;
    if (lua_type(L, idx) != LUA_TSTRING)
        return NULL;
    const char *s = lua_tolstring(L, idx, &len);
    return strlen(s) == len ? s : NULL;
}

/* Pushes opts[key], read raw: no metamethod of the script's runs here. */
static void opt(lua_State *L, int idx, const char *key)
{
    lua_pushstring(L, key);
    lua_rawget(L, idx);
}

/* Reads opts at <idx> into <o>; folder strings are new copies listed in <owned>. */
static void read_opts(lua_State *L, int idx, struct forge_schema_opts *o,
                      struct forge_schema_refdir *rd, struct tmp *t)
{
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    opt(L, idx, "draft");
    if (!lua_isnil(L, -1)) {
        const char *d = lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : cstr(L, -1);
        int v = d ? parse_draft(d) : -1;
        if (v < 0)
            luaL_error(L, "forge.schema.compile: opts.draft must be \"4\", \"6\", \"7\", \"2019-09\" or \"2020-12\"");
        o->draft = (enum forge_schema_draft)v;
    }
    lua_pop(L, 1);
    opt(L, idx, "formats");
    o->formats = lua_toboolean(L, -1);
    lua_pop(L, 1);
    opt(L, idx, "all_errors");
    o->all_errors = lua_toboolean(L, -1);
    lua_pop(L, 1);
    opt(L, idx, "ref_dirs");
    if (lua_istable(L, -1)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            if (o->nrefdirs >= MAX_REFDIRS)
                luaL_error(L, "forge.schema.compile: at most %d ref_dirs", MAX_REFDIRS);
            if (!cstr(L, -2) || !cstr(L, -1))
                luaL_error(L, "forge.schema.compile: ref_dirs maps URL prefixes (strings) to "
                              "folders (strings), without NUL bytes");
            struct forge_err err = {0};
            char *real = NULL;
            if (forge_vm_resolve_read(forge_vm_of(L), lua_tostring(L, -1), &real, &err))
                luaL_error(L, "forge.schema.compile: ref_dirs: %s", err.msg);
            t->strs[t->nstrs++] = real;
            rd[o->nrefdirs].prefix = lua_tostring(L, -2); /* anchored in the opts table */
            rd[o->nrefdirs].dir = real;
            o->nrefdirs++;
            lua_pop(L, 1);
        }
        o->refdirs = rd;
    } else if (!lua_isnil(L, -1)) {
        luaL_error(L, "forge.schema.compile: opts.ref_dirs must be a table");
    }
    lua_pop(L, 1);
}

static int l_compile(lua_State *L)
{
    struct forge_schema_opts o;
    struct forge_schema_refdir rd[MAX_REFDIRS];
    memset(&o, 0, sizeof o);
    luaL_checkany(L, 1);
    lua_settop(L, 2);
    struct tmp *t = push_tmp(L);                                   /* 3 */
    struct l_schema *u = lua_newuserdatauv(L, sizeof *u, 0);      /* 4 */
    u->s = NULL;
    u->held = 0;
    luaL_setmetatable(L, SCHEMA_MT);
    read_opts(L, 2, &o, rd, t);
    struct forge_err err = {0};
    t->json[0] = forge_lua_to_json(L, 1, &err);
    /* The compiled form (a copy of the schema, its nodes, name tables and patterns, PCRE2's
     * code) lives in C as long as the validator: it is held against --lua-memory until the
     * validator is collected. Four times the schema's own tree is held before compiling (so a
     * schema far past the cap is refused unbuilt); then what compiling kept, measured, when it is
     * more (patterns' automata and code can be many times their text). The compile runs within
     * what the cap leaves (forge_vm_work_begin): one that would pass it fails there, not after
     * it has taken what it wanted. */
    struct forge_vm *vm = forge_vm_of(L);
    size_t need = t->json[0] ? 4 * forge_lua_tree_cost(t->json[0]) : 0;
    if (t->json[0] && forge_vm_hold(vm, need)) {
        tmp_free(t);
        return luaL_error(L, "forge.schema.compile: %s", forge_vm_limit_message(vm));
    }
    u->held = need;
    if (t->json[0]) {
        size_t kept;
        forge_vm_work_begin(vm, need);
        u->s = forge_schema_compile(t->json[0], &o, &err);
        if (forge_vm_work_end(vm, &kept) || (u->s && kept > need && forge_vm_hold(vm, kept - need))) {
            forge_schema_free(u->s);
            u->s = NULL;
            tmp_free(t);
            return luaL_error(L, "forge.schema.compile: %s", forge_vm_limit_message(vm));
        }
        if (u->s && kept > need)
            u->held = kept;
    }
    tmp_free(t);
    if (!u->s)
        return luaL_error(L, "forge.schema.compile: %s", err.msg);
    return 1;
}

static int l_validate(lua_State *L)
{
    struct l_schema *u = check_schema(L, 1);
    if (!u->s)
        return luaL_error(L, "forge.Schema: validator is closed");
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    struct tmp *t = push_tmp(L);
    t->json[0] = forge_lua_check_json(L, 2, "validate");
    /* the errors (records, then their tree) are C memory made for the script: made within what
     * the cap leaves (an instance can fail millions of times), then charged */
    struct forge_vm *vm = forge_vm_of(L);
    forge_vm_work_begin(vm, 0);
    int r = forge_schema_validate(u->s, t->json[0], &t->json[1]);
    if (forge_vm_work_end(vm, NULL)) {
        tmp_free(t);
        return luaL_error(L, "forge.Schema:validate: %s", forge_vm_limit_message(vm));
    }
    if (r < 0) {
        tmp_free(t);
        return luaL_error(L, "forge.Schema:validate: %s",
                          r == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(r));
    }
    lua_pushboolean(L, r == 1);
    if (r == 1) {
        tmp_free(t);
        return 1;
    }
    if (forge_lua_charge_tree(L, t->json[1])) {
        tmp_free(t);
        return luaL_error(L, "forge.Schema:validate: %s", forge_vm_limit_message(vm));
    }
    forge_lua_push_json(L, t->json[1]);
    tmp_free(t);
    return 2;
}

/* __close: the validator's schema is freed and its hold given back. */
static int l_close(lua_State *L)
{
    struct l_schema *u = check_schema(L, 1);
    forge_schema_free(u->s);
    u->s = NULL;
    forge_vm_release(forge_vm_of(L), u->held);
    u->held = 0;
    return 0;
}

/* __gc: the same, outside any measure of C work that the collection step running it interrupts
 * (the schema was kept before that work began: taking it off the work's measure would let the
 * work keep more than it is held for) */
static int l_gc(lua_State *L)
{
    int paused = forge_alloc_measure_pause();
    l_close(L);
    forge_alloc_measure_resume(paused);
    return 0;
}

static int l_tostring(lua_State *L)
{
    struct l_schema *u = check_schema(L, 1);
    lua_pushfstring(L, "forge.Schema (%s)", u->s ? "compiled" : "closed");
    return 1;
}

static int l_coerce(lua_State *L)
{
    luaL_checkany(L, 1);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    struct tmp *t = push_tmp(L);
    t->json[0] = forge_lua_check_json(L, 1, "coerce: args");
    struct forge_err err = {0};
    cJSON *schema = forge_lua_to_json(L, 2, &err);
    if (!schema) {
        tmp_free(t);
        return luaL_error(L, "forge.schema.coerce: schema: %s", err.msg);
    }
    /* coercing parses strings into trees and notes each change: C memory made for the script,
     * within what the cap leaves once the two converted arguments are counted */
    struct forge_vm *vm = forge_vm_of(L);
    size_t held = forge_lua_tree_cost(t->json[0]) + forge_lua_tree_cost(schema);
    if (forge_vm_hold(vm, held)) {
        cJSON_Delete(schema);
        tmp_free(t);
        return luaL_error(L, "forge.schema.coerce: %s", forge_vm_limit_message(vm));
    }
    forge_vm_work_begin(vm, 0);
    int n = forge_coerce_args(t->json[0], schema, &t->json[1], &err);
    int over = forge_vm_work_end(vm, NULL);
    forge_vm_release(vm, held);
    if (over) {
        cJSON_Delete(schema);
        tmp_free(t);
        return luaL_error(L, "forge.schema.coerce: %s", forge_vm_limit_message(vm));
    }
    cJSON_Delete(schema);
    if (n < 0) {
        tmp_free(t);
        return luaL_error(L, "forge.schema.coerce: %s", err.msg);
    }
    forge_lua_push_json(L, t->json[0]);
    forge_lua_push_json(L, t->json[1]);
    tmp_free(t);
    return 2;
}

int forge_luaopen_schema(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"validate", l_validate},
        {NULL, NULL},
    };
    static const luaL_Reg meta[] = {
        {"__gc", l_gc},
        {"__close", l_close},
        {"__tostring", l_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg fns[] = {
        {"compile", l_compile},
        {"coerce", l_coerce},
        {NULL, NULL},
    };
    luaL_newmetatable(L, TMP_MT);
    lua_pushcfunction(L, l_tmp_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, SCHEMA_MT);
    luaL_setfuncs(L, meta, 0);
    /* Hidden from getmetatable: a script that replaced __gc here would have its function run
     * as a finalizer, with hooks off, where no limit can stop it. */
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    luaL_newlib(L, fns);
    return 1;
}
