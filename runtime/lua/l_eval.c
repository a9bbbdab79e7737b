/* forge.eval / forge.assertion: Lua custom assertions behind the eval engine's registry.
 *
 *   forge.assertion("mentions_number", function(run, expected)
 *     return run.response:find("%d") ~= nil, "the answer has no number"
 *   end)
 *
 * The function gets run = {response, tool_calls, trajectory, latency_ms, cost_usd} and the
 * expected value from the eval file; it returns a boolean, a score, or {pass, score, reason},
 * optionally followed by a reason string. Each call runs under the VM's limits through
 * forge_vm_call, so an error or a runaway fails that assertion and the run goes on. */
#include "lua/l_eval.h"
#include "lua/bind.h"
#include "base/alloc.h"
#include "data/json.h"
#include "data/yaml.h"
#include "eval/evalfile.h"
#include "lua/vm.h"

#include <string.h>

#define REGISTRY_KEY "forge.eval.registry"

struct lfn {
    struct forge_vm *vm;
    int ref; /* the function in the Lua registry */
    struct forge_lua_view_slots *slots; /* of its closure's view state, which lives as long */
};

/* One call's inputs and outputs, shared between call and run_assertion. */
struct call_io {
    const cJSON *run, *expected;
    struct forge_lua_view_slots *slots;
    cJSON *out;           /* the converted result */
    int rc;               /* the conversion's failure */
    struct forge_err *err;
    bool ended;           /* the views of the call are gone */
};

#define NODES_UP lua_upvalueindex(1)
#define PROXIES_UP lua_upvalueindex(2)
#define MT_UP lua_upvalueindex(3)
/* upvalue 4 is the view slots (the closure keeps them alive; calls find them in struct lfn) */
#define FN_UP lua_upvalueindex(5)

/* The result at -2 (value) and -1 (optional reason) as the registry's contract wants it: the
 * value, or [value, reason]. Never raises. */
static int convert_result(lua_State *L, struct call_io *io)
{
    io->out = NULL;
    int vt = lua_type(L, -2);
    if (vt == LUA_TNIL)
        return 0;
    cJSON *v;
    if (vt == LUA_TBOOLEAN) {
        v = cJSON_CreateBool(lua_toboolean(L, -2));
        if (!v)
            return forge_err_set(io->err, FORGE_ENOMEM, "out of memory");
    } else {
        v = forge_lua_to_json(L, -2, io->err);
        if (!v) {
            forge_err_prefix(io->err, "the custom assertion returned a value JSON cannot hold");
            return FORGE_ELUA;
        }
    }
    if (lua_type(L, -1) == LUA_TSTRING) {
        size_t rlen;
        const char *reason = lua_tolstring(L, -1, &rlen);
        if (strlen(reason) != rlen) {
            cJSON_Delete(v);
            return forge_err_set(io->err, FORGE_ELUA, "the custom assertion's reason contains a NUL "
                                 "byte");
        }
        cJSON *pair = cJSON_CreateArray();
        cJSON *why = pair ? cJSON_CreateString(reason) : NULL;
        if (!why) {
            cJSON_Delete(pair);
            cJSON_Delete(v);
            return forge_err_set(io->err, FORGE_ENOMEM, "out of memory");
        }
        cJSON_AddItemToArray(pair, v);
        cJSON_AddItemToArray(pair, why);
        v = pair;
    }
    io->out = v;
    return 0;
}

/* The closure a registered assertion is called through (upvalues: the view state and the
 * function). Runs under forge_vm_call, whose limits cover the views' memory too: calls the
 * function with run and expected, run (and expected, when a table) as read-only views of the C
 * trees, so an assertion that reads two fields pays for two fields; converts what it returns
 * while the views live (it may be one), then ends them. */
static int run_assertion(lua_State *L)
{
    struct call_io *io = lua_touserdata(L, 1);
    struct forge_lua_view_slots *sl = io->slots;
    /* the stack: io, then the function and its two arguments (a C function has room for 20) */
    lua_pushvalue(L, FN_UP);
    forge_lua_push_arg_view(L, io->run, MT_UP, sl, 0);
    forge_lua_push_arg_view(L, io->expected, MT_UP, sl, 1);
    lua_call(L, 2, 2);
    io->rc = convert_result(L, io);
    forge_lua_views_end_at(L, NODES_UP, PROXIES_UP, sl);
    io->ended = true;
    return 0;
}

/* Cases may run on several threads; the VM serves one at a time. */
static int call(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    struct lfn *f = ctx;
    *out = NULL;
    struct call_io io = {forge_json_get(args, "run"), forge_json_get(args, "expected"), f->slots, NULL, 0, err,
                         false};
    if (!io.run || !io.expected)
        return forge_err_set(err, FORGE_EINVAL, "a custom assertion is called with {run, expected}");
    forge_vm_lock(f->vm);
    lua_State *L = forge_vm_state(f->vm);
    int top = lua_gettop(L);
    forge_vm_push_handler(f->vm);
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->ref);
    lua_pushlightuserdata(L, &io);
    int rc = forge_vm_call_handled(f->vm, 1, 0, err);
    if (!rc)
        rc = io.rc;
    /* The views die with the call (what it returned is converted by now): a script that kept
     * one gets an error, never the freed tree. */
    if (!io.ended)
        forge_lua_views_end(L);
    lua_settop(L, top);
    forge_vm_unlock(f->vm);
    if (rc) {
        cJSON_Delete(io.out);
        return rc;
    }
    *out = io.out;
    return 0;
}

static void free_lfn(void *p)
{
    forge_free(p);
}

static void free_registry(void *p)
{
    forge_assertions_free(p);
}

static int l_registry(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY) == LUA_TUSERDATA) {
        void **box = lua_touserdata(L, -1); /* a forge_lua_box: its first member is the pointer */
        lua_pushlightuserdata(L, *box);
        return 1;
    }
    lua_pop(L, 1);
    /* the registry lives as long as the VM: held against the memory cap (measured, as what it
     * keeps for each entry is) */
    struct forge_vm *vm = forge_vm_of(L);
    size_t kept;
    forge_vm_work_begin(vm, 0);
    struct forge_assertions *r = forge_assertions_new();
    if (forge_vm_work_end(vm, &kept) || (r && forge_vm_hold(vm, kept))) {
        forge_assertions_free(r);
        return luaL_error(L, "forge.assertion: %s", forge_vm_limit_message(vm));
    }
    if (!r)
        return luaL_error(L, "out of memory");
    forge_lua_box(L, r, free_registry);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY);
    lua_pushlightuserdata(L, r);
    return 1;
}

struct forge_assertions *forge_lua_assertions(struct forge_vm *vm)
{
    lua_State *L = forge_vm_state(vm);
    lua_pushcfunction(L, l_registry);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return NULL;
    }
    struct forge_assertions *r = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return r;
}

/* forge.assertion(name, fn) */
static int l_assertion(lua_State *L)
{
    int base = 1;
    const char *name = forge_lua_checkcstr(L, base);
    luaL_checktype(L, base + 1, LUA_TFUNCTION);
    lua_pushcfunction(L, l_registry);
    lua_call(L, 0, 1);
    struct forge_assertions *r = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (forge_assertions_find(r, name))
        return luaL_error(L, "forge.assertion: \"%s\" is already registered", name);
    forge_lua_views_push_state(L);
    struct forge_lua_view_slots *slots = forge_lua_view_slots_at(L, -1);
    lua_pushvalue(L, base + 1);
    lua_pushcclosure(L, run_assertion, 5);
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* what the registry keeps for the entry (the record below, its copy of the name, its share
     * of the entries' array and of the names' table) lives as long as the VM: measured within
     * what the memory cap leaves, and held against it (nothing raises in between) */
    struct forge_vm *vm = forge_vm_of(L);
    struct forge_err err = {0};
    size_t kept;
    forge_vm_work_begin(vm, 0);
    struct lfn *f = forge_malloc(sizeof *f);
    int rc = f ? 0 : forge_err_set(&err, FORGE_ENOMEM, "out of memory");
    if (f) {
        f->vm = vm;
        f->ref = ref;
        f->slots = slots;
        struct forge_callable fn = {call, f, NULL, false};
        if ((rc = forge_assertions_add(r, name, &fn, free_lfn, &err)))
            forge_free(f);
    }
    bool over = forge_vm_work_end(vm, &kept) != 0;
    if (!rc) /* (the ceiling refused nothing: the add would have failed; within it, the hold fits) */
        return forge_vm_hold(vm, kept) ? luaL_error(L, "forge.assertion: %s", forge_vm_limit_message(vm)) : 0;
    luaL_unref(L, LUA_REGISTRYINDEX, ref);
    return luaL_error(L, "forge.assertion: %s", over ? forge_vm_limit_message(vm) : err.msg);
}

/* forge.eval.assertions(): the registered names, in registration order. */
static int l_names(lua_State *L)
{
    lua_pushcfunction(L, l_registry);
    lua_call(L, 0, 1);
    struct forge_assertions *r = lua_touserdata(L, -1);
    lua_pop(L, 1);
    size_t n = forge_assertions_count(r);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, forge_assertions_name(r, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static void free_tree(void *p)
{
    cJSON_Delete(p);
}

/* forge.eval.cases(text, name): the cases of an eval file's text, validated as `forge run`
 * validates them (errors at <name>:line:col); YAML when <name> ends in .yaml or .yml. */
static int l_cases(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = forge_lua_checkcstr(L, 2);
    bool yaml = forge_yaml_is_path(name);
    struct forge_vm *vm = forge_vm_of(L);
    if (yaml ? forge_lua_charge_yaml(L, s, len) : forge_lua_charge_json(L, s, len))
        return luaL_error(L, "%s", forge_vm_limit_message(vm));
    if (!yaml) {
        size_t nul = forge_json_nul_escape(s, len);
        if (nul < len) {
            int line, col;
            forge_json_position(s, nul, &line, &col);
            return luaL_error(L, "%s:%d:%d: a string holds \\u0000 (a NUL character), which forge refuses "
                              "rather than cut the string there", name, line, col);
        }
    }
    struct forge_err err = {0};
    cJSON *cases = NULL;
    /* the cases are built within what the cap leaves (a YAML alias copies its anchor's strings) */
    forge_vm_work_begin(vm, 0);
    int rc = forge_evalfile_parse(s, len, name, &cases, &err);
    if (forge_vm_work_end(vm, NULL)) {
        cJSON_Delete(cases);
        return luaL_error(L, "%s", forge_vm_limit_message(vm));
    }
    if (rc)
        return luaL_error(L, "%s", err.msg);
    if (!lua_checkstack(L, 8)) {
        cJSON_Delete(cases);
        return luaL_error(L, "stack overflow");
    }
    forge_lua_box(L, cases, free_tree);
    forge_lua_push_json(L, cases);
    forge_lua_unbox(L, -2);
    return 1;
}

int forge_luaopen_eval(lua_State *L)
{
    static const luaL_Reg fns[] = {{"assertion", l_assertion}, {"assertions", l_names}, {"cases", l_cases},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
