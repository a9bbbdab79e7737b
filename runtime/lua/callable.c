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

/* The conversion of a call's results (the values from index 2 on), protected as the push is:
 * pushing a long key to look it up allocates, and a memory error outside a protected call
 * would end the process. A tree cut short by such an error is lost (the VM is then stopped for
 * memory). */
struct results {
    cJSON *out;
    int rc;
    struct forge_err *err;
};

static int convert_results(lua_State *L)
{
    struct results *x = lua_touserdata(L, 1);
    int nres = lua_gettop(L) - 1;
    if (nres == 1) {
        if (!lua_isnil(L, 2)) {
            x->out = forge_lua_to_json(L, 2, x->err);
            if (!x->out)
                x->rc = x->err->code ? x->err->code : FORGE_ELUA;
        } else {
            x->out = cJSON_CreateNull();
        }
    } else if (nres > 1) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 2; i <= nres + 1 && !x->rc; i++) {
            cJSON *v = forge_lua_to_json(L, i, x->err);
            if (!v)
                x->rc = x->err->code ? x->err->code : FORGE_ELUA;
            else
                cJSON_AddItemToArray(arr, v);
        }
        if (x->rc)
            cJSON_Delete(arr);
        else
            x->out = arr;
    }
    return 0;
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
    struct results x = {NULL, 0, err};
    if (nres > 0) {
        if (!lua_checkstack(L, 2)) {
            rc = forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", c->name);
            goto out;
        }
        lua_pushcfunction(L, convert_results);
        lua_insert(L, top + 1);
        lua_pushlightuserdata(L, &x);
        lua_insert(L, top + 2);
        status = lua_pcall(L, nres + 1, 0, 0);
        if (status != LUA_OK) {
            rc = forge_vm_pcall_error(c->vm, status, c->name, err);
            goto out;
        }
        rc = x.rc;
        *out = x.out;
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
