/* forge.mcp{...}: the tools of an MCP server for a suite. The server is started (or reached)
 * when the script runs; its tools come back as forge.tool tables that call it. Servers live
 * until the VM is freed. Starting a command needs --allow-exec, reaching a URL --allow-net. */
#include "lua/bind.h"
#include "lua/l_suite.h"
#include "lua/vm.h"
#include "base/alloc.h"
#include "data/json.h"
#include "mcp/client.h"
#include "tools/tool.h"

#include <lauxlib.h>
#include <string.h>

#define MAX_SERVERS 16
#define REGISTRY "forge.mcp.servers"

struct servers {
    struct forge_mcp_client *c[MAX_SERVERS];
    char *name[MAX_SERVERS];
    int n;
};

static void close_all(void *ctx)
{
    struct servers *s = ctx;
    for (int i = 0; i < s->n; i++) {
        forge_mcp_close(s->c[i]);
        forge_free(s->name[i]);
    }
    forge_free(s);
}

static struct servers *servers(lua_State *L, struct forge_vm *vm)
{
    lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY);
    struct servers *s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (s)
        return s;
    if (!(s = forge_calloc(1, sizeof *s)) || forge_vm_at_free(vm, close_all, s)) {
        forge_free(s);
        return NULL;
    }
    lua_pushlightuserdata(L, s);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY);
    return s;
}

struct forge_mcp_client *forge_lua_mcp_client(struct forge_vm *vm, const char *name)
{
    lua_State *L = forge_vm_state(vm);
    lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY);
    struct servers *s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    for (int i = 0; s && i < s->n; i++)
        if (!strcmp(s->name[i], name))
            return s->c[i];
    return NULL;
}

/* A string field of the table at 1 (raw), or NULL. */
static const char *field_str(lua_State *L, const char *key)
{
    lua_pushstring(L, key);
    lua_rawget(L, 1);
    const char *v = NULL;
    if (lua_type(L, -1) == LUA_TSTRING)
        v = forge_lua_checkcstr(L, -1);
    else if (!lua_isnil(L, -1))
        luaL_error(L, "forge.mcp: %s must be a string", key);
    lua_pop(L, 1); /* the string stays reachable from the table */
    return v;
}

/* Whether the table at 1 has a list of strings at <key> (raises when it is not one: before
 * anything is allocated for it). */
static bool list_check(lua_State *L, const char *key)
{
    lua_pushstring(L, key);
    lua_rawget(L, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "forge.mcp: %s must be a list of strings", key);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        size_t len = 0;
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!v)
            luaL_error(L, "forge.mcp: %s[%d] must be a string", key, (int)i);
        if (memchr(v, 0, len))
            luaL_error(L, "forge.mcp: %s[%d] contains a NUL byte", key, (int)i);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return true;
}

/* The list at <key> (list_check passed) as a cJSON array (new; NULL when out of memory).
 * Raises nothing. */
static cJSON *list_make(lua_State *L, const char *key)
{
    lua_pushstring(L, key);
    lua_rawget(L, 1);
    cJSON *arr = cJSON_CreateArray();
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; arr && i <= n; i++) {
        lua_rawgeti(L, -1, i);
        cJSON *v = cJSON_CreateString(lua_tostring(L, -1));
        lua_pop(L, 1);
        if (!v || !cJSON_AddItemToArray(arr, v)) {
            cJSON_Delete(v);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    lua_pop(L, 1);
    return arr;
}

static int l_connect(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    struct forge_vm *vm = forge_vm_of(L);
    const char *name = field_str(L, "name"), *url = field_str(L, "url"), *token_env = field_str(L, "token_env");
    const char *prefix = field_str(L, "prefix");
    if (!name || !*name)
        return luaL_error(L, "forge.mcp: name must be a non-empty string");
    /* everything that can raise is checked before the lists are copied into C */
    bool has_command = list_check(L, "command"), has_only = list_check(L, "tools");
    if (has_command == (url != NULL))
        return luaL_error(L, "forge.mcp %s: give command = {...} (stdio) or url = \"...\" (Streamable HTTP)", name);
    if (has_command && !forge_vm_allow_exec(vm))
        return luaL_error(L, "forge.mcp %s: starting a server needs --allow-exec", name);
    if (url && !forge_vm_allow_net(vm))
        return luaL_error(L, "forge.mcp %s: reaching a server needs --allow-net", name);
    /* from here on nothing raises until the JSON made below is freed; it is made within what
     * the memory cap leaves */
    forge_vm_work_begin(vm, 0);
    cJSON *command = has_command ? list_make(L, "command") : NULL;
    cJSON *only = has_only ? list_make(L, "tools") : NULL;
    int over = forge_vm_work_end(vm, NULL);
    if (over || (has_command && !command) || (has_only && !only)) {
        cJSON_Delete(command);
        cJSON_Delete(only);
        return luaL_error(L, "forge.mcp %s: %s", name, over ? forge_vm_limit_message(vm) : "out of memory");
    }
    lua_pushliteral(L, "timeout_ms");
    lua_rawget(L, 1);
    long timeout = lua_isinteger(L, -1) ? (long)lua_tointeger(L, -1) : 30000;
    lua_pop(L, 1);
    struct servers *s = servers(L, vm);
    char msg[FORGE_ERR_MAX];
    msg[0] = '\0';
    char *argv[65];
    int argc = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, command)
        if (argc < 64)
            argv[argc++] = w->valuestring;
    argv[argc] = NULL;
    struct forge_err err = {0};
    struct forge_mcp_client *c = NULL;
    cJSON *tools = NULL;
    if (!s) {
        snprintf(msg, sizeof msg, "forge.mcp %s: out of memory", name);
    } else if (s->n == MAX_SERVERS) {
        snprintf(msg, sizeof msg, "forge.mcp %s: more than %d servers", name, MAX_SERVERS);
    } else if (forge_lua_mcp_client(vm, name)) {
        snprintf(msg, sizeof msg, "forge.mcp %s: a server of that name is already open", name);
    } else {
        /* the handshake never outlives the script's own deadline */
        long left = forge_vm_remaining_ms(vm);
        struct forge_mcp_client_opts o = {.name = name, .url = url, .argv = command ? argv : NULL,
                                          .token_env = token_env,
                                          .timeout_ms = left >= 0 && left < timeout ? (left > 0 ? left : 1) : timeout};
        if (forge_mcp_connect(&o, &c, &err) || forge_mcp_list_tools(c, &tools, &err)) {
            snprintf(msg, sizeof msg, "%s", err.msg);
            forge_mcp_close(c);
            c = NULL;
        }
    }
    cJSON_Delete(command);
    if (!c) {
        cJSON_Delete(only);
        return luaL_error(L, "%s", msg);
    }
    s->c[s->n] = c;
    if (!(s->name[s->n] = forge_strdup(name))) {
        forge_mcp_close(c);
        cJSON_Delete(only);
        cJSON_Delete(tools);
        return luaL_error(L, "forge.mcp %s: out of memory", name);
    }
    s->n++;
    /* the tool tables: name, description, schema, output_schema, and where they are served */
    lua_newtable(L);
    int out = lua_gettop(L), k = 0;
    const cJSON *t, *o;
    cJSON_ArrayForEach(o, only) {
        int found = 0;
        cJSON_ArrayForEach(t, tools)
            found |= forge_json_str(t, "name") && !strcmp(forge_json_str(t, "name"), o->valuestring);
        if (!found) {
            snprintf(msg, sizeof msg, "forge.mcp %s: the server has no tool '%s'", name, o->valuestring);
            cJSON_Delete(only);
            cJSON_Delete(tools);
            return luaL_error(L, "%s", msg);
        }
    }
    cJSON_ArrayForEach(t, tools) {
        const char *tn = forge_json_str(t, "name");
        int keep = tn != NULL;
        if (only && keep) {
            keep = 0;
            cJSON_ArrayForEach(o, only)
                keep |= !strcmp(o->valuestring, tn);
        }
        if (!keep)
            continue;
        lua_newtable(L);
        lua_pushfstring(L, "%s%s", prefix ? prefix : "", tn);
        lua_setfield(L, -2, "name");
        if (forge_json_str(t, "description")) {
            lua_pushstring(L, forge_json_str(t, "description"));
            lua_setfield(L, -2, "description");
        }
        const cJSON *v;
        if ((v = cJSON_GetObjectItemCaseSensitive(t, "inputSchema"))) {
            forge_lua_push_json(L, v);
            lua_setfield(L, -2, "schema");
        }
        if ((v = cJSON_GetObjectItemCaseSensitive(t, "outputSchema"))) {
            forge_lua_push_json(L, v);
            lua_setfield(L, -2, "output_schema");
        }
        lua_newtable(L);
        lua_pushstring(L, name);
        lua_setfield(L, -2, "server");
        lua_pushstring(L, tn);
        lua_setfield(L, -2, "tool");
        lua_setfield(L, -2, "mcp");
        lua_rawseti(L, out, ++k);
    }
    cJSON_Delete(only);
    cJSON_Delete(tools);
    return 1;
}

int forge_luaopen_mcp(lua_State *L)
{
    lua_newtable(L);
    lua_pushcfunction(L, l_connect);
    lua_setfield(L, -2, "connect");
    return 1;
}
