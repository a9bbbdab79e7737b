/* Lua functions as callables. */
#include "lua/callable.h"
#include "lua/bind.h"
#include "base/alloc.h"

#include <lauxlib.h>
#include <string.h>

struct lcall {
    struct forge_vm *vm;
    int ref;
    long timeout_ms;
    char *name;
};

/* Pushes the function and the arguments (protected: conversion may raise on memory). */
static int push_call(lua_State *L)
{
    struct lcall *c = lua_touserdata(L, 1);
    const cJSON *args = lua_touserdata(L, 2);
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
    int n = 0;
    for (const cJSON *a = cJSON_IsArray(args) ? args->child : NULL; a; a = a->next, n++) {
        luaL_checkstack(L, 2, "too many arguments");
        forge_lua_push_json_unordered(L, a);
    }
    return n + 1;
}

static int call(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    struct lcall *c = ctx;
    *out = NULL;
    forge_vm_lock(c->vm);
    lua_State *L = forge_vm_state(c->vm);
    int top = lua_gettop(L);
    int rc = 0;
    lua_pushcfunction(L, push_call);
    lua_pushlightuserdata(L, c);
    lua_pushlightuserdata(L, (void *)args);
    int status = lua_pcall(L, 2, LUA_MULTRET, 0);
    if (status != LUA_OK) {
        rc = forge_vm_pcall_error(c->vm, status, c->name, err);
        goto out;
    }
    int nargs = lua_gettop(L) - top - 1;
    struct forge_vm_limits lim = forge_vm_get_limits(c->vm);
    /* A tool's own timeout may tighten --lua-timeout, never lift it: the stricter wins. */
    if (c->timeout_ms > 0 && (lim.timeout_ms == 0 || (uint64_t)c->timeout_ms < lim.timeout_ms))
        lim.timeout_ms = (uint64_t)c->timeout_ms;
    rc = forge_vm_call_limited(c->vm, nargs, LUA_MULTRET, &lim, err);
    if (rc)
        goto out;
    int nres = lua_gettop(L) - top;
    if (nres == 1) {
        if (!lua_isnil(L, -1)) {
            *out = forge_lua_to_json(L, -1, err);
            if (!*out)
                rc = err->code ? err->code : FORGE_ELUA;
        } else {
            *out = cJSON_CreateNull();
        }
    } else if (nres > 1) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = top + 1; i <= top + nres && !rc; i++) {
            cJSON *v = forge_lua_to_json(L, i, err);
            if (!v)
                rc = err->code ? err->code : FORGE_ELUA;
            else
                cJSON_AddItemToArray(arr, v);
        }
        if (rc)
            cJSON_Delete(arr);
        else
            *out = arr;
    }
    if (rc)
        forge_err_prefix(err, "%s returned a value JSON cannot hold", c->name);
out:
    lua_settop(L, top);
    forge_vm_unlock(c->vm);
    return rc;
}

int forge_lua_callable_new(struct forge_vm *vm, int idx, long timeout_ms, const char *name,
                           struct forge_callable *out)
{
    lua_State *L = forge_vm_state(vm);
    struct lcall *c = forge_calloc(1, sizeof *c);
    if (!c)
        return FORGE_ENOMEM;
    c->name = forge_strdup(name ? name : "function");
    if (!c->name) {
        forge_free(c);
        return FORGE_ENOMEM;
    }
    c->vm = vm;
    c->timeout_ms = timeout_ms;
    idx = lua_absindex(L, idx);
    out->one_arg = false;
    if (lua_isfunction(L, idx)) {
        lua_Debug ar;
        lua_pushvalue(L, idx); /* lua_getinfo pops it; a C function counts as variadic */
        out->one_arg = lua_getinfo(L, ">u", &ar) && !ar.isvararg && ar.nparams <= 1;
    }
    lua_pushvalue(L, idx);
    c->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    out->call = call;
    out->ctx = c;
    out->name = c->name;
    return 0;
}

void forge_lua_callable_free(void *ctx)
{
    struct lcall *c = ctx;
    if (!c)
        return;
    /* The state may already be closed when the VM went first; references die with it. */
    forge_free(c->name);
    forge_free(c);
}
