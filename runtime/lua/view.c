/* Read-only views of C JSON trees for the duration of one call (see bind.h). */
#include "lua/bind.h"

#include <stdbool.h>
#include <string.h>

/* The live views of the current scope are kept in two tables: nodes (proxy -> node) and proxies
 * (node -> proxy, so a value read twice is the same table). Both sit in the registry under the
 * addresses below, and are the first two upvalues of every metamethod, which so find a proxy's
 * node with one raw lookup. */
static const char NODES_KEY = 0, PROXIES_KEY = 0, MT_KEY = 0, SLOTS_KEY = 0;
static const char VIEW_MT[] = "forge.view";
#define NODES_UP lua_upvalueindex(1)
#define PROXIES_UP lua_upvalueindex(2)
#define MT_UP lua_upvalueindex(3)
#define SLOTS_UP lua_upvalueindex(4)

/* The arguments of a call (forge_lua_push_arg_view) are known by their table's address, kept
 * here (a userdata, the fourth upvalue) instead of in the nodes table: a table that a script
 * still holds is never freed, so no other table can take its address while the slot names it,
 * and ending the call empties the slots. */
struct forge_lua_view_slots {
    const void *proxy[FORGE_LUA_ARG_VIEWS];
    const cJSON *node[FORGE_LUA_ARG_VIEWS];
    bool made; /* a child's proxy was made in this scope: the two tables have entries */
};

/* The node behind the proxy at <idx>, or NULL when it is not a view of the current scope.
 * <nodes> is the index of the nodes table, <sl> the slots. */
static const cJSON *lookup(lua_State *L, int nodes, const struct forge_lua_view_slots *sl, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return NULL;
    const void *p = lua_topointer(L, idx);
    for (int i = 0; i < FORGE_LUA_ARG_VIEWS; i++)
        if (sl->proxy[i] == p)
            return sl->node[i];
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
    lua_rawgetp(L, LUA_REGISTRYINDEX, &SLOTS_KEY);
    const cJSON *v = lookup(L, lua_gettop(L) - 1, lua_touserdata(L, -1), idx);
    lua_pop(L, 2);
    return v;
}

/* The node of the view argument 1 of a metamethod, raising when the scope has ended; *sl is set
 * to the slots. */
static const cJSON *check_view(lua_State *L, struct forge_lua_view_slots **sl)
{
    *sl = lua_touserdata(L, SLOTS_UP);
    const cJSON *v = lookup(L, NODES_UP, *sl, 1);
    if (!v) {
        luaL_checktype(L, 1, LUA_TTABLE);
        luaL_error(L, "this read-only view (of a run record, a case or a call) is valid only "
                      "during the call it was given to; copy what you keep");
    }
    return v;
}

/* Pushes <v>: a scalar as a value, an object or array as its proxy (made on first use). The
 * tables are at <nodes>, <proxies> and the metatable at <mt>; <sl> are the slots. */
static void push_node(lua_State *L, const cJSON *v, int nodes, int proxies, int mt,
                      struct forge_lua_view_slots *sl)
{
    if (!(v->type & (cJSON_Object | cJSON_Array))) {
        forge_lua_push_scalar(L, v);
        return;
    }
    luaL_checkstack(L, 3, "forge.view");
    if (lua_rawgetp(L, proxies, v) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 0);
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    sl->made = true; /* before the entries: a memory error between them leaves the flag up */
    lua_rawsetp(L, proxies, v); /* proxies[node] = proxy */
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
        if (c->string && c->string[0] == k[0] && strcmp(c->string, k) == 0)
            found = c; /* the last duplicate wins, as in decoding */
    return found;
}

static int view_index(lua_State *L)
{
    struct forge_lua_view_slots *sl;
    const cJSON *v = check_view(L, &sl);
    const cJSON *c = child(L, v, 2);
    if (!c)
        return 0;
    push_node(L, c, NODES_UP, PROXIES_UP, MT_UP, sl);
    return 1;
}

static int view_newindex(lua_State *L)
{
    struct forge_lua_view_slots *sl;
    check_view(L, &sl);
    return luaL_error(L, "this view is read-only; copy it first (forge.json.decode("
                         "forge.json.encode(v)))");
}

static int view_len(lua_State *L)
{
    struct forge_lua_view_slots *sl;
    const cJSON *v = check_view(L, &sl);
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
    struct forge_lua_view_slots *sl;
    const cJSON *v = check_view(L, &sl);
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
    push_node(L, c, NODES_UP, PROXIES_UP, MT_UP, sl);
    return 2;
}

static int view_pairs(lua_State *L)
{
    struct forge_lua_view_slots *sl;
    check_view(L, &sl);
    lua_pushvalue(L, NODES_UP);
    lua_pushvalue(L, PROXIES_UP);
    lua_pushvalue(L, MT_UP);
    lua_pushvalue(L, SLOTS_UP);
    lua_pushcclosure(L, view_next, 4);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int view_tostring(lua_State *L)
{
    struct forge_lua_view_slots *sl;
    const cJSON *v = check_view(L, &sl);
    lua_pushfstring(L, "forge.view(%s): %p", cJSON_IsArray(v) ? "array" : "object",
                    lua_topointer(L, 1));
    return 1;
}

void forge_lua_views_push_state(lua_State *L)
{
    /* The tables live on from scope to scope (emptied at each end): a call pays for the views
     * it makes, not for a scope. */
    luaL_checkstack(L, 10, "forge.view");
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &NODES_KEY) == LUA_TTABLE) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &PROXIES_KEY);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &MT_KEY);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &SLOTS_KEY);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);
    lua_newtable(L);
    luaL_newmetatable(L, VIEW_MT); /* the registry's name for it, which convert.c looks for */
    struct forge_lua_view_slots *sl = lua_newuserdatauv(L, sizeof *sl, 0);
    memset(sl, 0, sizeof *sl);
    static const luaL_Reg mm[] = {
        {"__index", view_index}, {"__newindex", view_newindex}, {"__len", view_len},
        {"__pairs", view_pairs}, {"__tostring", view_tostring}, {NULL, NULL},
    };
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -5);
    lua_pushvalue(L, -5);
    lua_pushvalue(L, -5);
    lua_pushvalue(L, -5);
    luaL_setfuncs(L, mm, 4); /* upvalues: nodes, proxies, the metatable itself, the slots */
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    lua_pushvalue(L, -4);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &NODES_KEY);
    lua_pushvalue(L, -3);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &PROXIES_KEY);
    lua_pushvalue(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &MT_KEY);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &SLOTS_KEY);
}

struct forge_lua_view_slots *forge_lua_view_slots_at(lua_State *L, int idx)
{
    return lua_touserdata(L, idx);
}

void forge_lua_push_arg_view(lua_State *L, const cJSON *v, int mt, struct forge_lua_view_slots *sl, int i)
{
    if (!(v->type & (cJSON_Object | cJSON_Array))) {
        forge_lua_push_scalar(L, v);
        return;
    }
    lua_createtable(L, 0, 0);
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
    sl->proxy[i] = lua_topointer(L, -1);
    sl->node[i] = v;
}

void forge_lua_views_end_at(lua_State *L, int nodes, int proxies, struct forge_lua_view_slots *sl)
{
    bool made = sl->made;
    memset(sl, 0, sizeof *sl);
    if (!made)
        return; /* only the argument slots were used */
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

void forge_lua_views_end(lua_State *L)
{
    /* Forget every view of the scope. */
    if (!lua_checkstack(L, 7))
        return;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &NODES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &PROXIES_KEY);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &SLOTS_KEY);
    int top = lua_gettop(L);
    forge_lua_views_end_at(L, top - 2, top - 1, lua_touserdata(L, top));
    lua_pop(L, 3);
}
