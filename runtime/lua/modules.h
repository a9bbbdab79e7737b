/* The C modules the sandbox offers to scripts, by require name ("forge.json", ...). */
#ifndef FORGE_LUA_MODULES_H
#define FORGE_LUA_MODULES_H
#include <lua.h>

struct forge_module {
    const char *name;    /* require name */
    lua_CFunction open;  /* pushes the module table */
};

/* The module named <name>, or NULL. */
const struct forge_module *forge_lua_find_module(const char *name);
#endif
