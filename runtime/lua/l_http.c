/* forge.http: HTTP requests from scripts, only with --allow-net.
 *   local res, err = forge.http.request{url =, method =, headers = {...}, body = string|table,
 *                                       timeout_ms =, max_bytes =}
 *   forge.http.get(url [, opts]), forge.http.post(url, body [, opts])
 * res = {status, body, content_type, json = decoded body when it is JSON}. A request that gets
 * no response returns nil, message; misuse (no --allow-net, a bad argument) raises. A request
 * never outlives the deadline of the Lua call it runs in. */
#include "lua/bind.h"
#include "lua/vm.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/json.h"
#include "net/fetch.h"

#include <string.h>

#define MAX_HEADERS 64

static void free_result(void *p)
{
    forge_fetch_result_free(p);
    forge_free(p);
}

static void free_json(void *p)
{
    cJSON_Delete(p);
}

static int request(lua_State *L, int opts)
{
    struct forge_vm *vm = forge_vm_of(L);
    if (!forge_vm_allow_net(vm))
        return luaL_error(L, "forge.http: network access is off; run forge with --allow-net");
    luaL_checktype(L, opts, LUA_TTABLE);
    lua_getfield(L, opts, "url");
    const char *url = luaL_optstring(L, -1, NULL);
    if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
        return luaL_error(L, "forge.http: url must be an http:// or https:// URL");
    lua_getfield(L, opts, "method");
    const char *method = luaL_optstring(L, -1, "GET");
    lua_getfield(L, opts, "timeout_ms");
    long timeout = (long)luaL_optinteger(L, -1, 30000);
    lua_getfield(L, opts, "max_bytes");
    lua_Integer max_bytes = luaL_optinteger(L, -1, 1 << 20);
    if (timeout <= 0 || max_bytes <= 0)
        return luaL_error(L, "forge.http: timeout_ms and max_bytes must be positive");
    /* The body is buffered in C before Lua sees it: bound it by the memory cap too. */
    size_t cap = forge_vm_get_limits(vm).memory;
    if (cap && (lua_Unsigned)max_bytes > cap)
        max_bytes = (lua_Integer)cap;
    long left = forge_vm_remaining_ms(vm);
    if (left >= 0 && left < timeout)
        timeout = left > 0 ? left : 1;
    /* headers and body: strings stay on the Lua stack while the request runs */
    const char *headers[MAX_HEADERS + 2];
    int nh = 0;
    lua_getfield(L, opts, "headers");
    int hidx = lua_gettop(L);
    if (lua_istable(L, hidx)) {
        lua_pushnil(L);
        while (lua_next(L, hidx)) {
            if (nh == MAX_HEADERS)
                return luaL_error(L, "forge.http: more than %d headers", MAX_HEADERS);
            /* Each header keeps a line on the stack: grow it, or 64 headers write past its
             * end. A number key would be turned into a string in place and break lua_next. */
            luaL_checkstack(L, 3, "forge.http: too many headers");
            if (lua_type(L, -2) != LUA_TSTRING || !lua_isstring(L, -1))
                return luaL_error(L, "forge.http: headers must map names to strings");
            const char *k = lua_tostring(L, -2);
            const char *v = lua_tostring(L, -1);
            lua_pop(L, 1);
            lua_pushfstring(L, "%s: %s", k, v);
            lua_insert(L, -2); /* keep the line below the key */
            headers[nh++] = lua_tostring(L, -2);
        }
    }
    lua_getfield(L, opts, "body");
    size_t blen = 0;
    const char *body = NULL;
    if (lua_istable(L, -1)) {
        cJSON *j = forge_lua_check_json(L, -1, "forge.http: body");
        char *text = forge_json_print(j, 0);
        cJSON_Delete(j);
        if (!text)
            return luaL_error(L, "forge.http: out of memory");
        forge_lua_box(L, text, forge_free);
        lua_pushstring(L, text);
        forge_lua_unbox(L, -2);
        headers[nh++] = "Content-Type: application/json";
    }
    if (!lua_isnil(L, -1))
        body = luaL_checklstring(L, -1, &blen);
    headers[nh] = NULL;
    struct forge_fetch req = {.method = method, .url = url, .headers = headers, .body = body,
                              .body_len = blen, .timeout_ms = timeout,
                              .max_bytes = (size_t)max_bytes};
    struct forge_fetch_result res;
    struct forge_err err = {0};
    int rc = forge_fetch(&req, &res, &err);
    forge_vm_check_killed(L);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    struct forge_fetch_result *boxed = forge_malloc(sizeof *boxed);
    if (!boxed) {
        forge_fetch_result_free(&res);
        return luaL_error(L, "forge.http: out of memory");
    }
    *boxed = res;
    forge_lua_box(L, boxed, free_result);
    int box = lua_gettop(L);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, boxed->status);
    lua_setfield(L, -2, "status");
    lua_pushlstring(L, boxed->body, boxed->len);
    lua_setfield(L, -2, "body");
    if (boxed->content_type) {
        lua_pushstring(L, boxed->content_type);
        lua_setfield(L, -2, "content_type");
    }
    if (boxed->len && forge_lua_charge_json(L, boxed->body, boxed->len))
        return luaL_error(L, "forge.http: %s", forge_vm_limit_message(vm));
    cJSON *j = boxed->len ? forge_json_parse(boxed->body, boxed->len, "response", NULL) : NULL;
    if (j) {
        forge_lua_box(L, j, free_json);
        forge_lua_push_json(L, j);
        lua_setfield(L, -3, "json");
        forge_lua_unbox(L, -1);
        lua_pop(L, 1);
    }
    forge_lua_unbox(L, box);
    lua_remove(L, box);
    return 1;
}

static int l_request(lua_State *L)
{
    return request(L, 1);
}

static int l_get(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 2);
    if (lua_isnil(L, 2)) {
        lua_newtable(L);
        lua_replace(L, 2);
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_pushvalue(L, 1);
    lua_setfield(L, 2, "url");
    lua_pushliteral(L, "GET");
    lua_setfield(L, 2, "method");
    return request(L, 2);
}

static int l_post(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_pushvalue(L, 1);
    lua_setfield(L, 3, "url");
    lua_pushvalue(L, 2);
    lua_setfield(L, 3, "body");
    lua_pushliteral(L, "POST");
    lua_setfield(L, 3, "method");
    return request(L, 3);
}

int forge_luaopen_http(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"request", l_request}, {"get", l_get}, {"post", l_post}, {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
