/* JSON <-> Lua conversion and the forge.json module. */
#include "lua/bind.h"
#include "lua/vm.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "data/json.h"
#include "data/yaml.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 1000

/* Registry keys. */
static const char NULL_KEY[] = "forge.json.null";
static const char ARRAY_MT[] = "forge.json.array";
static const char OBJECT_MT[] = "forge.json.object";
static const char ORDER_KEY[] = "forge.json.order";

/* Pushes the weak-keyed table mapping an object table to its key order: order[i] = key,
 * order[key] = i. */
static void push_order_table(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, ORDER_KEY) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, ORDER_KEY);
}

/* Iterator for objects decoded from JSON: keys in document order, then keys added since. */
static int object_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    push_order_table(L);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    int order = lua_gettop(L); /* may be nil */
    int has_order = lua_istable(L, order);
    lua_Integer pos = 0;
    int in_rest = 0;
    if (!lua_isnil(L, 2)) {
        if (has_order) {
            lua_pushvalue(L, 2);
            lua_rawget(L, order);
            if (lua_isinteger(L, -1))
                pos = lua_tointeger(L, -1);
            else
                in_rest = 1;
            lua_pop(L, 1);
        } else {
            in_rest = 1;
        }
    }
    if (!in_rest && has_order) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, order);
        for (lua_Integer i = pos + 1; i <= n; i++) {
            lua_rawgeti(L, order, i);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, 1) != LUA_TNIL)
                return 2;
            lua_pop(L, 2);
        }
        lua_pushnil(L); /* start the rest from the beginning */
    } else {
        lua_pushvalue(L, 2);
    }
    while (lua_next(L, 1)) {
        int listed = 0;
        if (has_order && lua_type(L, -2) == LUA_TSTRING) {
            lua_pushvalue(L, -2);
            listed = lua_rawget(L, order) != LUA_TNIL;
            lua_pop(L, 1);
        }
        if (!listed)
            return 2;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    return 1;
}

static int object_pairs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushcfunction(L, object_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int null_tostring(lua_State *L)
{
    lua_pushliteral(L, "null");
    return 1;
}

/* Creates the null sentinel and the array/object metatables once per state. */
static void ensure_types(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_newuserdatauv(L, 0, 0);
    lua_newtable(L);
    lua_pushcfunction(L, null_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "forge.json.null");
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, NULL_KEY);
    lua_newtable(L);
    lua_pushliteral(L, "array");
    lua_setfield(L, -2, "__jsontype");
    lua_setfield(L, LUA_REGISTRYINDEX, ARRAY_MT);
    lua_newtable(L);
    lua_pushliteral(L, "object");
    lua_setfield(L, -2, "__jsontype");
    lua_pushcfunction(L, object_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_setfield(L, LUA_REGISTRYINDEX, OBJECT_MT);
}

/* Sets the shared metatable ARRAY_MT or OBJECT_MT (<key>) on the table on top. Scripts reach
 * these through getmetatable and may add a __gc to them; lua_setmetatable from C would then
 * register a finalizer, which runs with hooks off (a loop in it could never be stopped), so a
 * __gc found there is dropped first. */
static void set_tag_mt(lua_State *L, const char *key)
{
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, -2) != LUA_TNIL) {
        lua_pushliteral(L, "__gc");
        lua_pushnil(L);
        lua_rawset(L, -4);
    }
    lua_pop(L, 1);
    lua_setmetatable(L, -2);
}

void forge_lua_push_scalar(lua_State *L, const cJSON *v)
{
    int type = v->type & 0xFF;
    if (type == cJSON_True || type == cJSON_False) {
        lua_pushboolean(L, type == cJSON_True);
    } else if (type == cJSON_Number) {
        double d = v->valuedouble;
        if (d == floor(d) && fabs(d) <= 9007199254740992.0 && !(d == 0 && signbit(d)))
            lua_pushinteger(L, (lua_Integer)d);
        else
            lua_pushnumber(L, d);
    } else if (type == cJSON_String) {
        /* with its length: lua_pushstring would first look the address up in Lua's cache of
         * C strings, comparing two entries byte by byte */
        const char *s = v->valuestring ? v->valuestring : "";
        lua_pushlstring(L, s, strlen(s));
    } else { /* null, and anything cJSON could not parse */
        lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY);
    }
}

/* One JSON -> Lua conversion: the array and object metatables (and the key-order table, when
 * ordered) sit on the stack at these indices for its whole length, looked up once. */
struct push {
    lua_State *L;
    int ordered;
    int amt, omt, order;
};

static void push_value(struct push *p, const cJSON *v, int depth)
{
    lua_State *L = p->L;
    if (depth > MAX_DEPTH)
        luaL_error(L, "JSON value nested deeper than %d levels", MAX_DEPTH);
    int type = v->type & 0xFF;
    if (type != cJSON_Array && type != cJSON_Object) { /* (one slot, which its container checked) */
        forge_lua_push_scalar(L, v);
        return;
    }
    luaL_checkstack(L, 6, "JSON value nested too deeply");
    if (type == cJSON_Array) {
        int n = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        lua_createtable(L, n, 0);
        lua_Integer i = 1;
        for (const cJSON *c = v->child; c; c = c->next) {
            push_value(p, c, depth + 1);
            lua_rawseti(L, -2, i++);
        }
        lua_pushvalue(L, p->amt);
        lua_setmetatable(L, -2);
    } else { /* an object */
        int n = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        lua_createtable(L, 0, n);
        int obj = lua_gettop(L);
        if (!p->ordered || n < 2) {
            for (const cJSON *c = v->child; c; c = c->next) {
                push_value(p, c, depth + 1);
                lua_setfield(L, obj, c->string);
            }
            lua_pushvalue(L, p->omt);
            lua_setmetatable(L, -2);
            return;
        }
        lua_createtable(L, n, n);
        int order = lua_gettop(L);
        lua_Integer i = 1;
        for (const cJSON *c = v->child; c; c = c->next) {
            lua_pushstring(L, c->string);
            if (lua_rawget(L, order) == LUA_TNIL) { /* first occurrence keeps its place */
                lua_pushstring(L, c->string);
                lua_rawseti(L, order, i);
                lua_pushinteger(L, i++);
                lua_setfield(L, order, c->string);
            }
            lua_pop(L, 1);
            push_value(p, c, depth + 1);
            lua_setfield(L, obj, c->string); /* a later duplicate wins, as in JSON.parse */
        }
        lua_pushvalue(L, obj);
        lua_pushvalue(L, order);
        lua_rawset(L, p->order);
        lua_pop(L, 1);
        lua_pushvalue(L, p->omt);
        lua_setmetatable(L, -2);
    }
}

/* Pushes the shared metatable <key> with any __gc a script put there dropped first: scripts
 * reach these through getmetatable, and lua_setmetatable from C would then register a
 * finalizer, which runs with hooks off (a loop in it could never be stopped). */
static void push_tag_mt(lua_State *L, const char *key)
{
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, -2) != LUA_TNIL) {
        lua_pushliteral(L, "__gc");
        lua_pushnil(L);
        lua_rawset(L, -4);
    }
    lua_pop(L, 1);
}

static void push_json(lua_State *L, const cJSON *v, int ordered)
{
    ensure_types(L);
    luaL_checkstack(L, 8, "converting JSON");
    /* nothing during the conversion runs a script, so the metatables stay as checked here */
    struct push p = {L, ordered, 0, 0, 0};
    push_tag_mt(L, ARRAY_MT);
    p.amt = lua_gettop(L);
    push_tag_mt(L, OBJECT_MT);
    p.omt = lua_gettop(L);
    int n = 2;
    if (ordered) {
        push_order_table(L);
        p.order = lua_gettop(L);
        n++;
    }
    push_value(&p, v, 0);
    lua_rotate(L, p.amt, 1); /* the value below the cached tables, then drop them */
    lua_pop(L, n);
}

void forge_lua_push_json(lua_State *L, const cJSON *v)
{
    push_json(L, v, 1);
}

void forge_lua_push_json_unordered(lua_State *L, const cJSON *v)
{
    push_json(L, v, 0);
}

/* ---- Lua -> JSON ---- */

/* (forge_lua_to_json sets each field by name, so that the place text is not cleared: a field
 * added here is set there too) */
struct conv {
    lua_State *L;
    struct forge_err *err;
    size_t spent;   /* estimated C bytes of the tree and its printed form so far */
    size_t charged; /* part of <spent> already checked against the VM's memory cap */
    uint64_t deadline_ns; /* own deadline when converting outside an entry (a returned value) */
    /* A refused value's place ("[2].args.city") is written only on failure, while the
     * conversion unwinds: each level puts its step in front (what == NULL: no place to give). */
    const char *what;
    char whatbuf[64];
    char path[512];
    /* stack indices of the array, object and view metatables and of the key-order table, looked
     * up once per conversion */
    int amt, omt, vmt, order;
};

/* A shared table is converted once per reference, so a small Lua value can stand for an
 * exponential tree ({t, t} nested 40 times); its C size is charged against --lua-memory as it
 * grows, in 64 KiB steps (which also check the deadline). */
#define NODE_COST 96
#define CHARGE_STEP ((size_t)64 << 10)

static int charge(struct conv *c, size_t bytes)
{
    c->spent += bytes;
    if (c->spent - c->charged < CHARGE_STEP)
        return 0;
    c->charged = c->spent;
    struct forge_vm *vm = forge_vm_of(c->L);
    if (c->deadline_ns && forge_clock_ns() > c->deadline_ns) {
        forge_vm_break(vm, FORGE_VM_LIMIT_TIME);
        forge_err_set(c->err, FORGE_ELIMIT, "%s", forge_vm_limit_message(vm));
        return -1;
    }
    if (forge_vm_charge(vm, c->spent) == 0)
        return 0;
    forge_err_set(c->err, FORGE_ELIMIT, "%s", forge_vm_limit_message(vm));
    return -1;
}

static int fail(struct conv *c, const char *what)
{
    c->what = what;
    c->path[0] = '\0';
    return FORGE_EINVAL;
}

/* Puts one step of the failed value's place in front of the path, keeping its first 511
 * characters. */
static void step_back(struct conv *c, const char *key, lua_Integer index)
{
    if (!c->what)
        return;
    char seg[sizeof c->path];
    int n = key ? snprintf(seg, sizeof seg, ".%s", key)
                : snprintf(seg, sizeof seg, "[%lld]", (long long)index);
    if (n < 0)
        return;
    size_t sn = strlen(seg), pn = strlen(c->path);
    if (sn >= sizeof c->path - 1) {
        memcpy(c->path, seg, sizeof c->path - 1);
        c->path[sizeof c->path - 1] = '\0';
        return;
    }
    if (sn + pn > sizeof c->path - 1)
        pn = sizeof c->path - 1 - sn;
    memmove(c->path + sn, c->path, pn);
    memcpy(c->path, seg, sn);
    c->path[sn + pn] = '\0';
}

static int is_mt(lua_State *L, int idx, const char *key)
{
    if (!lua_getmetatable(L, idx))
        return 0;
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

/* The kind a table's metatable gives it: 0 none, 1 array, 2 object, 3 a read-only view,
 * 4 anything else. */
static int table_tag(struct conv *c, int idx)
{
    lua_State *L = c->L;
    if (!lua_getmetatable(L, idx))
        return 0;
    int tag = lua_rawequal(L, -1, c->amt) ? 1 : lua_rawequal(L, -1, c->omt) ? 2
            : lua_rawequal(L, -1, c->vmt) ? 3 : 4;
    lua_pop(L, 1);
    return tag;
}

struct key {
    const char *s; /* a key string of the table being converted: the table keeps it alive */
    size_t len;
};

static int cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static cJSON *conv_value(struct conv *c, int idx, int depth);

#define KEEP_MAX 32

/* The object whose <n> pairs sit on the stack above <base> (key, value, ...), converted as
 * conv_table does: keys in decoded order first, then the others sorted. Leaves the stack at
 * <base>. */
static cJSON *conv_kept(struct conv *c, int idx, int depth, int base, int n)
{
    lua_State *L = c->L;
    struct key keys[KEEP_MAX];
    int vidx[KEEP_MAX];
    cJSON *obj = cJSON_CreateObject();
    if (!obj) {
        lua_settop(L, base);
        forge_err_set(c->err, FORGE_ENOMEM, "out of memory converting a table to JSON");
        return NULL;
    }
    int nkeys = 0, ordered = 0;
    if (n >= 2) { /* one key has one order */
        lua_pushvalue(L, idx);
        lua_rawget(L, c->order);
        ordered = lua_istable(L, -1);
    } else {
        lua_pushnil(L);
    }
    int order = lua_gettop(L);
    if (ordered) {
        lua_Integer m = (lua_Integer)lua_rawlen(L, order);
        for (lua_Integer i = 1; i <= m && nkeys < n; i++) {
            if (lua_rawgeti(L, order, i) == LUA_TSTRING) {
                for (int j = 0; j < n; j++) {
                    if (lua_rawequal(L, -1, base + 2 * j + 1)) {
                        keys[nkeys].s = lua_tolstring(L, base + 2 * j + 1, &keys[nkeys].len);
                        vidx[nkeys++] = base + 2 * j + 2;
                        break;
                    }
                }
            }
            lua_pop(L, 1);
        }
    }
    int nfirst = nkeys;
    for (int j = 0; j < n && nkeys < n; j++) {
        int k = base + 2 * j + 1;
        if (ordered) {
            lua_pushvalue(L, k);
            int seen = lua_rawget(L, order) != LUA_TNIL;
            lua_pop(L, 1);
            if (seen)
                continue;
        }
        keys[nkeys].s = lua_tolstring(L, k, &keys[nkeys].len);
        vidx[nkeys++] = k + 1;
    }
    /* sort the rest with their values: an insertion sort, n is small */
    for (int i = nfirst + 1; i < nkeys; i++) {
        struct key kx = keys[i];
        int vx = vidx[i], j = i - 1;
        while (j >= nfirst && cmp_key(&keys[j], &kx) > 0) {
            keys[j + 1] = keys[j];
            vidx[j + 1] = vidx[j];
            j--;
        }
        keys[j + 1] = kx;
        vidx[j + 1] = vx;
    }
    for (int i = 0; i < nkeys; i++) {
        if (charge(c, 2 * keys[i].len))
            goto fail;
        cJSON *item = conv_value(c, vidx[i], depth + 1);
        if (!item) {
            step_back(c, keys[i].s, 0);
            goto fail;
        }
        cJSON_AddItemToObject(obj, keys[i].s, item);
    }
    lua_settop(L, base);
    return obj;
fail:
    lua_settop(L, base);
    cJSON_Delete(obj);
    return NULL;
}

static cJSON *conv_table(struct conv *c, int idx, int depth)
{
    lua_State *L = c->L;
    int tag = table_tag(c, idx);
    if (tag >= 3) {
        const cJSON *view = forge_lua_view_node(L, idx);
        if (view) { /* a read-only view: its tree, copied */
            size_t cost = forge_lua_tree_cost(view);
            if (charge(c, cost))
                return NULL;
            cJSON *copy = cJSON_Duplicate(view, 1);
            if (!copy)
                forge_err_set(c->err, FORGE_ENOMEM, "out of memory converting a value to JSON");
            return copy;
        }
        if (tag == 3) {
            fail(c, "a read-only view used after the call it was given to");
            return NULL;
        }
    }
    int tagged_array = tag == 1;
    int tagged_object = tag == 2;
    lua_Integer count = 0, maxint = 0;
    int nonint = 0;
    /* A small table's pairs stay on the stack (key, value, key, value, ...) from this one
     * pass, so its values need no second traversal nor a lookup per key. */
    int base = lua_gettop(L), kept = 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        count++;
        if (kept && count <= KEEP_MAX && lua_checkstack(L, 4)) {
            lua_pushvalue(L, -2); /* the pair stays, a copy of the key goes on */
        } else {
            if (kept) { /* too many: keep only the key */
                lua_pop(L, 1);
                lua_replace(L, base + 1);
                lua_settop(L, base + 1);
                kept = 0;
            } else {
                lua_pop(L, 1);
            }
        }
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) {
            lua_Integer k = lua_tointeger(L, -1);
            if (k > maxint)
                maxint = k;
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            size_t klen;
            const char *k = lua_tolstring(L, -1, &klen);
            if (strlen(k) != klen) {
                lua_settop(L, base);
                fail(c, "a table key with a NUL byte (JSON object keys here cannot hold one)");
                return NULL;
            }
            nonint = 1;
        } else {
            lua_settop(L, base);
            fail(c, "a table key that is neither a string nor a positive integer");
            return NULL;
        }
    }
    int as_array = tagged_array || (!tagged_object && !nonint && count > 0 && maxint == count);
    if (kept && !as_array && nonint && maxint == 0)
        return conv_kept(c, idx, depth, base, (int)count);
    lua_settop(L, base);
    if (as_array) {
        if (nonint) {
            fail(c, "a JSON array (tagged with forge.json.array) has string keys");
            return NULL;
        }
        cJSON *arr = cJSON_CreateArray();
        if (!arr)
            goto nomem;
        lua_Integer n = tagged_array ? (lua_Integer)lua_rawlen(L, idx) : count;
        if (tagged_array && maxint > n)
            n = maxint;
        for (lua_Integer i = 1; i <= n; i++) {
            cJSON *item = lua_rawgeti(L, idx, i) == LUA_TNIL
                              ? cJSON_CreateNull() : conv_value(c, lua_gettop(L), depth + 1);
            lua_pop(L, 1);
            if (!item) {
                step_back(c, NULL, i - 1);
                cJSON_Delete(arr);
                return NULL;
            }
            cJSON_AddItemToArray(arr, item);
        }
        return arr;
    }
    if (count > 0 && !nonint && !tagged_object) {
        fail(c, "a table with integer keys that are not a sequence 1..n (not a JSON array)");
        return NULL;
    }
    if (maxint > 0) {
        fail(c, "a table that mixes integer and string keys");
        return NULL;
    }
    /* Object: keys in decoded order first, then the others sorted. The key strings are the
     * table's own, alive while it holds them; nothing here runs a script or changes a table. */
    struct key small[16];
    struct key *keys = count <= 16 ? small : forge_malloc((size_t)count * sizeof *keys);
    cJSON *obj = cJSON_CreateObject();
    int nkeys = 0, nfirst = 0;
    if (!keys || !obj)
        goto nomem_obj;
    int ordered = 0;
    if (count >= 2) { /* one key has one order */
        lua_pushvalue(L, idx);
        lua_rawget(L, c->order);
        ordered = lua_istable(L, -1);
        if (ordered) {
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            for (lua_Integer i = 1; i <= n && nkeys < count; i++) {
                if (lua_rawgeti(L, -1, i) == LUA_TSTRING) {
                    lua_pushvalue(L, -1);
                    if (lua_rawget(L, idx) != LUA_TNIL) {
                        /* the order table keeps this string alive */
                        keys[nkeys].s = lua_tolstring(L, -2, &keys[nkeys].len);
                        nkeys++;
                    }
                    lua_pop(L, 1);
                }
                lua_pop(L, 1);
            }
        }
    } else {
        lua_pushnil(L);
    }
    nfirst = nkeys;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        int seen = 0;
        if (ordered) {
            lua_pushvalue(L, -1);
            seen = lua_rawget(L, -3) != LUA_TNIL;
            lua_pop(L, 1);
        }
        if (!seen && nkeys < count) {
            keys[nkeys].s = lua_tolstring(L, -1, &keys[nkeys].len);
            nkeys++;
        }
    }
    if (nkeys - nfirst > 1)
        qsort(keys + nfirst, (size_t)(nkeys - nfirst), sizeof *keys, cmp_key);
    for (int i = 0; i < nkeys; i++) {
        if (charge(c, 2 * keys[i].len))
            goto fail_obj;
        lua_pushlstring(L, keys[i].s, keys[i].len);
        lua_rawget(L, idx); /* raw: converting never runs a script's metamethods */
        cJSON *item = conv_value(c, lua_gettop(L), depth + 1);
        lua_pop(L, 1);
        if (!item) {
            step_back(c, keys[i].s, 0);
            goto fail_obj;
        }
        cJSON_AddItemToObject(obj, keys[i].s, item);
    }
    lua_pop(L, 1); /* the order table */
    if (keys != small)
        forge_free(keys);
    return obj;
nomem_obj:
    forge_err_set(c->err, FORGE_ENOMEM, "out of memory converting a table to JSON");
    lua_pushnil(L); /* stands for the order table */
fail_obj:
    lua_pop(L, 1);
    if (keys != small)
        forge_free(keys);
    cJSON_Delete(obj);
    return NULL;
nomem:
    forge_err_set(c->err, FORGE_ENOMEM, "out of memory converting a table to JSON");
    return NULL;
}

static cJSON *conv_value(struct conv *c, int idx, int depth)
{
    lua_State *L = c->L;
    if (depth > MAX_DEPTH) {
        fail(c, "nested deeper than 1000 levels (a table that contains itself?)");
        return NULL;
    }
    int type = lua_type(L, idx);
    /* (a table's conversion pushes its pairs, null's test one value; the others push none) */
    if ((type == LUA_TTABLE || type == LUA_TUSERDATA) && !lua_checkstack(L, 8)) {
        fail(c, "nested too deeply");
        return NULL;
    }
    if (charge(c, NODE_COST)) /* strings add their length below */
        return NULL;
    switch (type) {
    case LUA_TNIL:
        return cJSON_CreateNull();
    case LUA_TBOOLEAN:
        return cJSON_CreateBool(lua_toboolean(L, idx));
    case LUA_TNUMBER: {
        if (lua_isinteger(L, idx))
            return cJSON_CreateNumber((double)lua_tointeger(L, idx));
        double d = lua_tonumber(L, idx);
        if (!isfinite(d)) {
            fail(c, "a number JSON cannot hold (NaN or infinity)");
            return NULL;
        }
        return cJSON_CreateNumber(d);
    }
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (charge(c, 2 * len))
            return NULL;
        if (strlen(s) != len) {
            fail(c, "a string with a NUL byte");
            return NULL;
        }
        return cJSON_CreateString(s);
    }
    case LUA_TTABLE:
        return conv_table(c, lua_absindex(L, idx), depth);
    case LUA_TUSERDATA: {
        lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY);
        int is_null = lua_rawequal(L, -1, idx);
        lua_pop(L, 1);
        if (is_null)
            return cJSON_CreateNull();
    } /* fall through */
    default: {
        snprintf(c->whatbuf, sizeof c->whatbuf, "a %s value JSON cannot hold", luaL_typename(L, idx));
        fail(c, c->whatbuf);
        return NULL;
    }
    }
}

cJSON *forge_lua_to_json(lua_State *L, int idx, struct forge_err *err)
{
    ensure_types(L);
    struct conv c; /* (each field set, not the 576 bytes of place text that fail() starts) */
    c.L = L;
    c.err = err;
    c.spent = c.charged = 0;
    c.deadline_ns = 0;
    c.what = NULL;
    c.amt = c.omt = c.vmt = c.order = 0;
    /* A value a tool or assertion returned is converted after its call has ended, out of reach
     * of the call's deadline: give the conversion one of the same length (it matters when
     * --lua-memory 0 lifts the memory cap that otherwise bounds it). */
    struct forge_vm *vm = forge_vm_of(L);
    uint64_t timeout_ms = forge_vm_get_limits(vm).timeout_ms;
    if (timeout_ms && forge_vm_remaining_ms(vm) < 0)
        c.deadline_ns = forge_clock_ns() + timeout_ms * 1000000u;
    idx = lua_absindex(L, idx);
    if (!lua_checkstack(L, 8)) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory converting a value to JSON");
        return NULL;
    }
    cJSON *v;
    if (lua_type(L, idx) != LUA_TTABLE) { /* a verdict, a string: no metatables to look at */
        v = conv_value(&c, idx, 0);
    } else {
        lua_getfield(L, LUA_REGISTRYINDEX, ARRAY_MT);
        c.amt = lua_gettop(L);
        lua_getfield(L, LUA_REGISTRYINDEX, OBJECT_MT);
        c.omt = lua_gettop(L);
        lua_getfield(L, LUA_REGISTRYINDEX, "forge.view");
        c.vmt = lua_gettop(L);
        push_order_table(L);
        c.order = lua_gettop(L);
        v = conv_value(&c, idx, 0);
        lua_pop(L, 4);
    }
    if (!v && c.what)
        forge_err_set(err, FORGE_EINVAL, "%s%s%s", c.path, c.path[0] ? ": " : "", c.what);
    if (!v && err && !err->msg[0]) /* a cJSON allocation failed */
        forge_err_set(err, FORGE_ENOMEM, "out of memory converting a value to JSON");
    return v;
}

cJSON *forge_lua_check_json(lua_State *L, int idx, const char *what)
{
    FORGE_ERR_LOCAL(err);
    cJSON *v = forge_lua_to_json(L, idx, &err);
    if (!v)
        luaL_error(L, "%s: %s", what, err.msg);
    return v;
}

/* ---- boxes: C allocations owned by the Lua stack while a binding may raise ---- */

/* A converted argument kept while a binding works, its bytes held against the cap meanwhile. */
struct kept {
    cJSON *v;
    struct forge_vm *vm;
    size_t held;
};

static void kept_free(void *p)
{
    struct kept *k = p;
    cJSON_Delete(k->v);
    forge_vm_release(k->vm, k->held);
    forge_free(k);
}

struct box {
    void *p;
    void (*free)(void *);
};

static int box_close(lua_State *L)
{
    struct box *b = lua_touserdata(L, 1);
    if (b && b->p && b->free)
        b->free(b->p);
    if (b)
        b->p = NULL;
    return 0;
}

/* (a finalizer: outside the measure of C work the collection step may interrupt, see
 * forge_alloc_measure_pause) */
static int box_gc(lua_State *L)
{
    int paused = forge_alloc_measure_pause();
    box_close(L);
    forge_alloc_measure_resume(paused);
    return 0;
}

static void free_cjson(void *p)
{
    cJSON_Delete(p);
}

static int box_new(lua_State *L)
{
    struct box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->p = NULL;
    b->free = NULL;
    if (luaL_newmetatable(L, "forge.box")) {
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, box_close);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
    return 1;
}

void *forge_lua_box(lua_State *L, void *p, void (*fr)(void *))
{
    /* Making the box allocates, and fails at the memory cap: then <p> is freed before the
     * error goes on, or a script hitting the cap again and again would leak a tree each time. */
    if (!lua_checkstack(L, 2)) {
        if (p && fr)
            fr(p);
        luaL_error(L, "stack overflow");
    }
    lua_pushcfunction(L, box_new);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        if (p && fr)
            fr(p);
        lua_error(L);
    }
    struct box *b = lua_touserdata(L, -1);
    b->p = p;
    b->free = fr;
    return b;
}

void forge_lua_unbox(lua_State *L, int idx)
{
    struct box *b = lua_touserdata(L, idx);
    if (b && b->p && b->free)
        b->free(b->p);
    if (b)
        b->p = NULL;
}

/* ---- forge.json ---- */

/* An upper bound on the number of values in the JSON text <s>: separators and openings outside
 * strings, plus one. */
static size_t count_values(const char *s, size_t len)
{
    size_t n = 1;
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == ',' || ch == '[' || ch == '{') {
            n++;
        }
    }
    return n;
}

int forge_lua_charge_json(lua_State *L, const char *s, size_t len)
{
    size_t nodes = count_values(s, len);
    size_t cost = nodes > (SIZE_MAX - len) / NODE_COST ? SIZE_MAX : nodes * NODE_COST + len;
    return forge_vm_charge(forge_vm_of(L), cost);
}


int forge_lua_charge_yaml(lua_State *L, const char *s, size_t len)
{
    size_t nodes = 0;
    FORGE_ERR_LOCAL(err);
    if (forge_yaml_count(s, len, "<input>", &nodes, &err))
        nodes = 0;
    size_t cost = nodes > (SIZE_MAX - len) / NODE_COST ? SIZE_MAX : nodes * NODE_COST + len;
    return forge_vm_charge(forge_vm_of(L), cost);
}

/* Bytes the C tree <v> takes, as charged for converted values (a node plus its strings). */
size_t forge_lua_tree_cost(const cJSON *v)
{
    return forge_json_tree_bytes(v, NODE_COST);
}

void forge_lua_unbox_range(lua_State *L, int from, int to)
{
    for (int i = from; i <= to; i++)
        if (luaL_testudata(L, i, "forge.box"))
            forge_lua_unbox(L, i);
}

cJSON *forge_lua_keep_json(lua_State *L, int idx, const char *what)
{
    if (lua_isnoneornil(L, idx))
        return NULL;
    cJSON *v = forge_lua_check_json(L, idx, what);
    struct kept *k = forge_malloc(sizeof *k);
    if (!k) {
        cJSON_Delete(v);
        luaL_error(L, "%s: out of memory", what);
    }
    struct forge_vm *vm = forge_vm_of(L);
    *k = (struct kept){v, vm, 0};
    forge_lua_box(L, k, kept_free);
    size_t cost = forge_lua_tree_cost(v);
    if (forge_vm_hold(vm, cost))
        luaL_error(L, "%s: %s", what, forge_vm_limit_message(vm));
    k->held = cost;
    return v;
}

int forge_lua_charge_tree(lua_State *L, const cJSON *v)
{
    return forge_vm_charge(forge_vm_of(L), forge_lua_tree_cost(v));
}

const char *forge_lua_checkcstr(lua_State *L, int idx)
{
    size_t len;
    const char *s = luaL_checklstring(L, idx, &len);
    if (strlen(s) != len)
        luaL_argerror(L, idx, "contains a NUL byte");
    return s;
}

static int l_decode(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "<input>");
    FORGE_ERR_LOCAL(err);
    /* The cJSON tree lives outside the Lua allocator and is much larger than its text
     * ("[1,1,1,...]" takes ~50 times its size), so charge it against the cap before parsing. */
    if (forge_lua_charge_json(L, s, len))
        return luaL_error(L, "forge.json.decode: %s", forge_vm_limit_message(forge_vm_of(L)));
    cJSON *v = forge_json_parse(s, len, name, &err);
    if (!v)
        return luaL_error(L, "forge.json.decode: %s", err.msg);
    /* cJSON would cut a string at a \u0000 escape: a script would look up a shortened key. */
    size_t nul = forge_json_nul_escape(s, len);
    if (nul < len) {
        cJSON_Delete(v);
        int line, col;
        forge_json_position(s, nul, &line, &col);
        return luaL_error(L, "forge.json.decode: %s:%d:%d: a string holds \\u0000 (a NUL "
                          "character), which forge refuses rather than cut the string there",
                          name, line, col);
    }
    /* The box frees the tree if pushing raises (memory, depth). */
    if (!lua_checkstack(L, 8)) {
        cJSON_Delete(v);
        return luaL_error(L, "forge.json.decode: stack overflow");
    }
    forge_lua_box(L, v, free_cjson);
    forge_lua_push_json(L, v);
    forge_lua_unbox(L, -2);
    return 1;
}

static int l_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    int flags = 0;
    if (lua_istable(L, 2)) {
        lua_pushliteral(L, "pretty");
        lua_rawget(L, 2);
        if (lua_toboolean(L, -1))
            flags |= FORGE_JSON_PRETTY;
        lua_pushliteral(L, "sort_keys");
        lua_rawget(L, 2);
        if (lua_toboolean(L, -1))
            flags |= FORGE_JSON_SORTED;
        lua_pop(L, 2);
    } else if (!lua_isnoneornil(L, 2)) {
        return luaL_typeerror(L, 2, "table of options");
    }
    FORGE_ERR_LOCAL(err);
    cJSON *v = forge_lua_to_json(L, 1, &err);
    if (!v)
        return luaL_error(L, "forge.json.encode: %s", err.msg);
    /* the text is made in C for the script, within what the cap leaves: indentation and
     * escapes can make it many times what its values were charged */
    struct forge_vm *vm = forge_vm_of(L);
    forge_vm_work_begin(vm, 0);
    char *s = forge_json_print(v, flags);
    int over = forge_vm_work_end(vm, NULL);
    cJSON_Delete(v);
    if (over) {
        forge_free(s);
        return luaL_error(L, "forge.json.encode: %s", forge_vm_limit_message(vm));
    }
    if (!s)
        return luaL_error(L, "forge.json.encode: out of memory");
    forge_lua_box(L, s, forge_free);
    lua_pushstring(L, s);
    forge_lua_unbox(L, -2);
    return 1;
}

static int tag(lua_State *L, const char *mt)
{
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    ensure_types(L);
    set_tag_mt(L, mt);
    return 1;
}

static int l_array(lua_State *L)
{
    return tag(L, ARRAY_MT);
}

static int l_object(lua_State *L)
{
    return tag(L, OBJECT_MT);
}

/* forge.json.type(v): "null", "boolean", "number", "string", "array", "object", or nil. */
static int l_type(lua_State *L)
{
    ensure_types(L);
    switch (lua_type(L, 1)) {
    case LUA_TNIL: lua_pushliteral(L, "null"); break;
    case LUA_TBOOLEAN: lua_pushliteral(L, "boolean"); break;
    case LUA_TNUMBER: lua_pushliteral(L, "number"); break;
    case LUA_TSTRING: lua_pushliteral(L, "string"); break;
    case LUA_TTABLE: {
        FORGE_ERR_LOCAL(err);
        if (is_mt(L, 1, ARRAY_MT)) {
            lua_pushliteral(L, "array");
            break;
        }
        if (is_mt(L, 1, OBJECT_MT)) {
            lua_pushliteral(L, "object");
            break;
        }
        const cJSON *view = forge_lua_view_node(L, 1);
        if (view) {
            lua_pushstring(L, cJSON_IsArray(view) ? "array" : "object");
            break;
        }
        cJSON *v = forge_lua_to_json(L, 1, &err);
        if (!v) {
            lua_pushnil(L);
            break;
        }
        lua_pushstring(L, cJSON_IsArray(v) ? "array" : "object");
        cJSON_Delete(v);
        break;
    }
    case LUA_TUSERDATA:
        lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY);
        if (lua_rawequal(L, 1, -1)) {
            lua_pushliteral(L, "null");
            break;
        }
        /* fall through */
    default:
        lua_pushnil(L);
    }
    return 1;
}

/* forge.yaml.decode(text [, name]) and forge.yaml.decode_all(text [, name]): YAML read as
 * forge.json.decode reads JSON (runtime/data/yaml.h); decode_all returns an array of the
 * documents. The values the text expands to are charged against the memory cap before the
 * tree is built. */
static int yaml_decode(lua_State *L, bool all)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "<input>");
    const char *fn = all ? "forge.yaml.decode_all" : "forge.yaml.decode";
    FORGE_ERR_LOCAL(err);
    /* charged before parsing, as forge.json.decode does: aliases can make the tree far larger
     * than its text */
    struct forge_vm *vm = forge_vm_of(L);
    if (forge_lua_charge_yaml(L, s, len))
        return luaL_error(L, "%s: %s", fn, forge_vm_limit_message(vm));
    /* and built within what the cap leaves: an alias copies its anchor's strings */
    forge_vm_work_begin(vm, 0);
    cJSON *v = all ? forge_yaml_parse_all(s, len, name, NULL, &err) : forge_yaml_parse(s, len, name, &err);
    if (forge_vm_work_end(vm, NULL)) {
        cJSON_Delete(v);
        return luaL_error(L, "%s: %s", fn, forge_vm_limit_message(vm));
    }
    if (!v)
        return luaL_error(L, "%s: %s", fn, err.msg);
    if (!lua_checkstack(L, 8)) {
        cJSON_Delete(v);
        return luaL_error(L, "%s: stack overflow", fn);
    }
    forge_lua_box(L, v, free_cjson);
    forge_lua_push_json(L, v);
    forge_lua_unbox(L, -2);
    return 1;
}

static int l_yaml_decode(lua_State *L)
{
    return yaml_decode(L, false);
}

static int l_yaml_decode_all(lua_State *L)
{
    return yaml_decode(L, true);
}

int forge_luaopen_yaml(lua_State *L)
{
    static const luaL_Reg fns[] = {{"decode", l_yaml_decode}, {"decode_all", l_yaml_decode_all}, {NULL, NULL}};
    ensure_types(L);
    luaL_newlib(L, fns);
    return 1;
}

int forge_luaopen_json(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"decode", l_decode}, {"encode", l_encode}, {"array", l_array},
        {"object", l_object}, {"type", l_type},     {NULL, NULL},
    };
    ensure_types(L);
    luaL_newlib(L, fns);
    lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY);
    lua_setfield(L, -2, "null");
    return 1;
}
