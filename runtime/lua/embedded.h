/* The lua/ modules embedded into the binary by cmake/embed.cmake. */
#ifndef FORGE_LUA_EMBEDDED_H
#define FORGE_LUA_EMBEDDED_H
#include <stddef.h>

struct forge_embedded {
    const char *module; /* "forge", "forge.json", ... */
    const char *chunkname; /* "@lua/forge/init.lua" */
    const char *text;
    size_t len;
};

/* Terminated by an entry whose module is NULL. */
extern const struct forge_embedded forge_embedded_lua[];
#endif
