/* Read-only views of C JSON trees for the duration of one call (see bind.h). */
#include "lua/bind.h"

#include <string.h>

/* The live views of the current scope are kept in two tables: nodes (proxy -> node) and proxies
 * (node -> proxy, so a value read twice is the same table). Both sit in the registry under the
 * addresses below, and are the first two upvalues of every metamethod, which so find a proxy's
 * node with one raw lookup. */
static const char NODES_KEY = 0, PROXIES_KEY = 0, MT_KEY = 0;
static const char VIEW_MT[] = "forge.view";
#define NODES_UP lua_upvalueindex(1)
#define PROXIES_UP lua_upvalueindex(2)
#define MT_UP lua_upvalueindex(3)

/* The node behind the proxy at <idx>, or NULL when it is not a view of the current scope.
 * <nodes> is the index of the nodes table. */
static const cJSON *lookup(lua_State *L, int nodes, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return NULL;
    lua_pushvalue(L, idx);
    const cJSON *v = lua_rawget(L, nodes) == LUA_TLIGHTUSERDATA ? lua_touserdata(L, -1) : NULL;
    lua_pop(L, 1);
    return v;
}

const cJSON *forge_lua_view_node(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return NULL;
    idx = lua_absindex(L, idx);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &NODES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return NULL;
    }
    const cJSON *v = lookup(L, lua_gettop(L), idx);
    lua_pop(L, 1);
    return v;
}

/* The node of the view argument 1 of a metamethod, raising when the scope has ended. */
static const cJSON *check_view(lua_State *L)
{
    const cJSON *v = lookup(L, NODES_UP, 1);
    if (!v) {
        luaL_checktype(L, 1, LUA_TTABLE);
        luaL_error(L, "this read-only view (of a run record, a case or a call) is valid only "
                      "during the call it was given to; copy what you keep");
    }
    return v;
}

/* Pushes <v>: a scalar as a value, an object or array as its proxy (made on first use). The
 * tables are at <nodes>, <proxies> and the metatable at <mt>; with <proxies> 0 the proxy is a new
 * one, not kept for later reads. */
static void push_node(lua_State *L, const cJSON *v, int nodes, int proxies, int mt)
{
    if (!(v->type & (cJSON_Object | cJSON_Array))) {
        forge_lua_push_scalar(L, v);
        return;
    }
    luaL_checkstack(L, 3, "forge.view");
    if (proxies) {
        if (lua_rawgetp(L, proxies, v) == LUA_TTABLE)
            return;
        lua_pop(L, 1);
    }
    lua_createtable(L, 0, 0);
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
    if (proxies) {
        lua_pushvalue(L, -1);
        lua_rawsetp(L, proxies, v); /* proxies[node] = proxy */
    }
    lua_pushvalue(L, -1);
    lua_pushlightuserdata(L, (void *)v);
    lua_rawset(L, nodes); /* nodes[proxy] = node */
}

/* The child of <v> at the key on top of the stack (popped), or NULL. */
static const cJSON *child(lua_State *L, const cJSON *v, int key)
{
    if (cJSON_IsArray(v)) {
        if (!lua_isinteger(L, key))
            return NULL;
        lua_Integer i = lua_tointeger(L, key);
        if (i < 1)
            return NULL;
        const cJSON *c = v->child;
        for (lua_Integer n = 1; c && n < i; n++)
            c = c->next;
        return c;
    }
    if (lua_type(L, key) != LUA_TSTRING)
        return NULL;
    size_t len;
    const char *k = lua_tolstring(L, key, &len);
    if (strlen(k) != len)
        return NULL; /* no JSON key here holds a NUL */
    const cJSON *found = NULL;
    for (const cJSON *c = v->child; c; c = c->next)
        if (c->string && strcmp(c->string, k) == 0)
            found = c; /* the last duplicate wins, as in decoding */
    return found;
}

static int view_index(lua_State *L)
{
    const cJSON *v = check_view(L);
    const cJSON *c = child(L, v, 2);
    if (!c)
        return 0;
    push_node(L, c, NODES_UP, PROXIES_UP, MT_UP);
    return 1;
}

static int view_newindex(lua_State *L)
{
    check_view(L);
    return luaL_error(L, "this view is read-only; copy it first (forge.json.decode("
                         "forge.json.encode(v)))");
}

static int view_len(lua_State *L)
{
    const cJSON *v = check_view(L);
    lua_Integer n = 0;
    if (cJSON_IsArray(v))
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
    lua_pushinteger(L, n);
    return 1;
}

/* pairs iterator: the control value is the key; arrays go 1..n, objects in document order. */
static int view_next(lua_State *L)
{
    const cJSON *v = check_view(L);
    const cJSON *c;
    lua_Integer i = 1;
    if (lua_isnoneornil(L, 2)) {
        c = v->child;
    } else if (cJSON_IsArray(v)) {
        i = luaL_checkinteger(L, 2) + 1;
        c = child(L, v, 2);
        c = c ? c->next : NULL;
    } else {
        c = child(L, v, 2);
        if (!c)
            return luaL_error(L, "invalid key to 'next'");
        c = c->next;
    }
    if (!c)
        return 0;
    if (cJSON_IsArray(v))
        lua_pushinteger(L, i);
    else
        lua_pushstring(L, c->string ? c->string : "");
    push_node(L, c, NODES_UP, PROXIES_UP, MT_UP);
    return 2;
}

static int view_pairs(lua_State *L)
{
    check_view(L);
    lua_pushvalue(L, NODES_UP);
    lua_pushvalue(L, PROXIES_UP);
    lua_pushvalue(L, MT_UP);
    lua_pushcclosure(L, view_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int view_tostring(lua_State *L)
{
    const cJSON *v = check_view(L);
    lua_pushfstring(L, "forge.view(%s): %p", cJSON_IsArray(v) ? "array" : "object",
                    lua_topointer(L, 1));
    return 1;
}

void forge_lua_views_push_state(lua_State *L)
{
    /* The tables live on from scope to scope (emptied at each end): a call pays for the views
     * it makes, not for a scope. */
    luaL_checkstack(L, 8, "forge.view");
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &NODES_KEY) == LUA_TTABLE) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &PROXIES_KEY);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &MT_KEY);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);
    lua_newtable(L);
    luaL_newmetatable(L, VIEW_MT); /* the registry's name for it, which convert.c looks for */
    static const luaL_Reg mm[] = {
        {"__index", view_index}, {"__newindex", view_newindex}, {"__len", view_len},
        {"__pairs", view_pairs}, {"__tostring", view_tostring}, {NULL, NULL},
    };
    lua_pushvalue(L, -3);
    lua_pushvalue(L, -3);
    lua_pushvalue(L, -3);
    luaL_setfuncs(L, mm, 3); /* upvalues: nodes, proxies, the metatable itself */
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, -3);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &NODES_KEY);
    lua_pushvalue(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &PROXIES_KEY);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &MT_KEY);
}

void forge_lua_push_view_at(lua_State *L, const cJSON *v, int nodes, int proxies, int mt)
{
    push_node(L, v, nodes, proxies, mt);
}

void forge_lua_view_end_one(lua_State *L, int idx, int nodes)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return;
    lua_pushvalue(L, idx);
    lua_pushnil(L);
    lua_rawset(L, nodes); /* nodes[proxy] = nil: an existing key, so nothing is allocated */
}

void forge_lua_views_end_at(lua_State *L, int nodes, int proxies)
{
    /* Removing entries while traversing is allowed, and nothing here allocates, so this
     * cannot raise. */
    lua_pushnil(L);
    while (lua_next(L, proxies)) {
        lua_pushnil(L);
        lua_rawset(L, nodes); /* nodes[proxy] = nil */
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, proxies); /* proxies[node] = nil */
    }
}

void forge_lua_views_begin(lua_State *L)
{
    forge_lua_views_push_state(L);
    lua_pop(L, 3);
}

void forge_lua_push_view(lua_State *L, const cJSON *v)
{
    if (!(v->type & (cJSON_Object | cJSON_Array))) {
        forge_lua_push_scalar(L, v);
        return;
    }
    forge_lua_views_push_state(L);
    int top = lua_gettop(L);
    push_node(L, v, top - 2, top - 1, top);
    lua_replace(L, top - 2);
    lua_pop(L, 2);
}

void forge_lua_views_end(lua_State *L)
{
    /* Forget every view of the scope. */
    if (!lua_checkstack(L, 4))
        return;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &NODES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &PROXIES_KEY);
    int top = lua_gettop(L);
    forge_lua_views_end_at(L, top - 1, top);
    /* and the views that were not kept in proxies (see forge_lua_view_end_one) */
    lua_pushnil(L);
    while (lua_next(L, top - 1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, top - 1);
    }
    lua_pop(L, 2);
}
