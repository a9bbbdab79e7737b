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
};

/* Calls the function with run and expected: run (and expected, when a table) as read-only views
 * of the C trees, so an assertion that reads two fields pays for two fields. Runs under
 * forge_vm_call (its limits cover the views' memory too); returns the function's first two
 * results. */
static int run_assertion(lua_State *L)
{
    struct lfn *f = lua_touserdata(L, 1);
    const cJSON *run = lua_touserdata(L, 2), *expected = lua_touserdata(L, 3);
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->ref);
    forge_lua_views_begin(L);
    forge_lua_push_view(L, run);
    forge_lua_push_view(L, expected);
    lua_call(L, 2, 2);
    return 2;
}

static int call_locked(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err);

/* Cases may run on several threads; the VM serves one at a time. */
static int call(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    struct lfn *f = ctx;
    forge_vm_lock(f->vm);
    int rc = call_locked(ctx, args, out, err);
    /* The views die with the call (the value returned, which may be one, is converted by now):
     * a script that kept one gets an error, never the freed tree. */
    forge_lua_views_end(forge_vm_state(f->vm));
    forge_vm_unlock(f->vm);
    return rc;
}

static int call_locked(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    struct lfn *f = ctx;
    lua_State *L = forge_vm_state(f->vm);
    int top = lua_gettop(L);
    *out = NULL;
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(args, "run");
    const cJSON *expected = cJSON_GetObjectItemCaseSensitive(args, "expected");
    if (!run || !expected)
        return forge_err_set(err, FORGE_EINVAL, "a custom assertion is called with {run, expected}");
    lua_pushcfunction(L, run_assertion);
    lua_pushlightuserdata(L, f);
    lua_pushlightuserdata(L, (void *)run);
    lua_pushlightuserdata(L, (void *)expected);
    int rc = forge_vm_call(f->vm, 3, 2, err);
    if (rc) {
        lua_settop(L, top);
        return rc;
    }
    /* value at -2, optional reason at -1 */
    cJSON *v = lua_isnil(L, -2) ? NULL : forge_lua_to_json(L, -2, err);
    if (!v && !lua_isnil(L, -2)) {
        forge_err_prefix(err, "the custom assertion returned a value JSON cannot hold");
        lua_settop(L, top);
        return FORGE_ELUA;
    }
    if (v && lua_type(L, -1) == LUA_TSTRING) {
        size_t rlen;
        const char *reason = lua_tolstring(L, -1, &rlen);
        if (strlen(reason) != rlen) {
            cJSON_Delete(v);
            lua_settop(L, top);
            return forge_err_set(err, FORGE_ELUA, "the custom assertion's reason contains a NUL "
                                 "byte");
        }
        cJSON *pair = cJSON_CreateArray();
        if (!pair) {
            cJSON_Delete(v);
            lua_settop(L, top);
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        cJSON_AddItemToArray(pair, v);
        cJSON_AddItemToArray(pair, cJSON_CreateString(lua_tostring(L, -1)));
        v = pair;
    }
    lua_settop(L, top);
    *out = v;
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
    struct forge_assertions *r = forge_assertions_new();
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
    struct lfn *f = forge_malloc(sizeof *f);
    if (!f)
        return luaL_error(L, "out of memory");
    f->vm = forge_vm_of(L);
    lua_pushvalue(L, base + 1);
    f->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    struct forge_callable fn = {call, f, NULL, false};
    struct forge_err err = {0};
    if (forge_assertions_add(r, name, &fn, free_lfn, &err)) {
        luaL_unref(L, LUA_REGISTRYINDEX, f->ref);
        forge_free(f);
        return luaL_error(L, "forge.assertion: %s", err.msg);
    }
    return 0;
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
    if (forge_evalfile_parse(s, len, name, &cases, &err))
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
