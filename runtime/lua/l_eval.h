/* forge.assertion(name, fn): custom eval assertions written in Lua, registered into the eval
 * engine's registry (eval/registry.h) of the VM that runs the script. */
#ifndef FORGE_LUA_L_EVAL_H
#define FORGE_LUA_L_EVAL_H
#include "eval/registry.h"
#include "lua/vm.h"

/* The custom-assertion registry of <vm>: created on first use, owned by the VM and freed with it.
 * Every forge.assertion call of a script run in <vm> lands here. NULL when out of memory. */
struct forge_assertions *forge_lua_assertions(struct forge_vm *vm);
#endif
