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

/* Pushes opts[key], read raw: no metamethod of the script's runs inside the request. */
static int opt(lua_State *L, int opts, const char *key)
{
    lua_pushstring(L, key);
    return lua_rawget(L, opts);
}

/* The string on top of the stack (or <dflt> when it is nil) for C, raising when it is not a
 * string or holds a NUL byte, which C would cut it at. */
static const char *opt_cstr(lua_State *L, const char *key, const char *dflt)
{
    if (lua_isnil(L, -1))
        return dflt;
    size_t len;
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!s || strlen(s) != len)
        luaL_error(L, "forge.http: %s must be a string without NUL bytes", key);
    return s;
}

static lua_Integer opt_int(lua_State *L, const char *key, lua_Integer dflt)
{
    if (lua_isnil(L, -1))
        return dflt;
    if (!lua_isinteger(L, -1))
        luaL_error(L, "forge.http: %s must be an integer", key);
    return lua_tointeger(L, -1);
}

static int request(lua_State *L, int opts)
{
    struct forge_vm *vm = forge_vm_of(L);
    if (!forge_vm_allow_net(vm))
        return luaL_error(L, "forge.http: network access is off; run forge with --allow-net");
    luaL_checktype(L, opts, LUA_TTABLE);
    opt(L, opts, "url");
    const char *url = opt_cstr(L, "url", NULL);
    if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
        return luaL_error(L, "forge.http: url must be an http:// or https:// URL");
    opt(L, opts, "method");
    const char *method = opt_cstr(L, "method", "GET");
    if (!forge_fetch_is_token(method, strlen(method)))
        return luaL_error(L, "forge.http: method must be an HTTP token such as GET or POST");
    opt(L, opts, "timeout_ms");
    long timeout = (long)opt_int(L, "timeout_ms", 30000);
    opt(L, opts, "max_bytes");
    lua_Integer max_bytes = opt_int(L, "max_bytes", 1 << 20);
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
    opt(L, opts, "headers");
    int hidx = lua_gettop(L);
    if (!lua_isnil(L, hidx) && !lua_istable(L, hidx))
        return luaL_error(L, "forge.http: headers must be a table");
    if (lua_istable(L, hidx)) {
        lua_pushnil(L);
        while (lua_next(L, hidx)) {
            if (nh == MAX_HEADERS)
                return luaL_error(L, "forge.http: more than %d headers", MAX_HEADERS);
            /* Each header keeps a line on the stack: grow it, or 64 headers write past its
             * end. A number key would be turned into a string in place and break lua_next. */
            luaL_checkstack(L, 3, "forge.http: too many headers");
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
                return luaL_error(L, "forge.http: headers must map names to strings");
            size_t kl, vl;
            const char *k = lua_tolstring(L, -2, &kl);
            const char *v = lua_tolstring(L, -1, &vl);
            struct forge_err herr = {0};
            if (forge_fetch_check_header(k, kl, v, vl, &herr))
                return luaL_error(L, "forge.http: %s", herr.msg);
            lua_pop(L, 1);
            lua_pushfstring(L, "%s: %s", k, v);
            lua_insert(L, -2); /* keep the line below the key */
            headers[nh++] = lua_tostring(L, -2);
        }
    }
    opt(L, opts, "body");
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

/* Pushes a new options table: a raw copy of the script's <idx> (or an empty one), then url,
 * method and body set on the copy, never on the script's own table. */
static int copy_opts(lua_State *L, int idx, int url, int body, const char *method)
{
    lua_newtable(L);
    int t = lua_gettop(L);
    if (!lua_isnoneornil(L, idx)) {
        luaL_checktype(L, idx, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, t);
        }
    }
    lua_pushvalue(L, url);
    lua_setfield(L, t, "url");
    if (body) {
        lua_pushvalue(L, body);
        lua_setfield(L, t, "body");
    }
    lua_pushstring(L, method);
    lua_setfield(L, t, "method");
    return t;
}

static int l_get(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 2);
    return request(L, copy_opts(L, 2, 1, 0, "GET"));
}

static int l_post(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 3);
    return request(L, copy_opts(L, 3, 1, 2, "POST"));
}

int forge_luaopen_http(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"request", l_request}, {"get", l_get}, {"post", l_post}, {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
