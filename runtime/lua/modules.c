/* The list of C modules reachable from scripts. Add one line per binding. */
#include "lua/modules.h"

#include <string.h>

int forge_luaopen_core(lua_State *L);
int forge_luaopen_json(lua_State *L);
int forge_luaopen_yaml(lua_State *L);
int forge_luaopen_re(lua_State *L);
int forge_luaopen_http(lua_State *L);
int forge_luaopen_eval(lua_State *L);
int forge_luaopen_check(lua_State *L);
int forge_luaopen_schema(lua_State *L);
int forge_luaopen_mcp(lua_State *L);

static const struct forge_module modules[] = {
    {"forge.core", forge_luaopen_core},
    {"forge.json", forge_luaopen_json},
    {"forge.yaml", forge_luaopen_yaml},
    {"forge.re", forge_luaopen_re},
    {"forge.http", forge_luaopen_http},
    {"forge.eval", forge_luaopen_eval},
    {"forge.check", forge_luaopen_check},
    {"forge.schema", forge_luaopen_schema},
    {"forge.mcp_host", forge_luaopen_mcp},
    {NULL, NULL},
};

const struct forge_module *forge_lua_find_module(const char *name)
{
    for (const struct forge_module *m = modules; m->name; m++)
        if (strcmp(m->name, name) == 0)
            return m;
    return NULL;
}
