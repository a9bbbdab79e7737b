/* Lua functions as callables (data/callable.h): how tools, verifiers, approval functions and
 * the scripted model's rules are called from C. */
#ifndef FORGE_LUA_CALLABLE_H
#define FORGE_LUA_CALLABLE_H
#include <lua.h>
#include "data/callable.h"
#include "lua/vm.h"

/* Makes <out> call the Lua function at stack index <idx> of <vm>'s state. A call passes each
 * element of its JSON args array as one Lua argument and returns: nothing -> NULL, one value ->
 * that value, several -> an array of them. It holds the VM lock, runs through forge_vm_call
 * (with <timeout_ms> as the deadline when > 0) and fails with the script's error. <name> names
 * the function in messages (copied). Free out->ctx with forge_lua_callable_free. Returns 0 or
 * FORGE_ENOMEM. May be called only while the state is not running another thread's call. */
int forge_lua_callable_new(struct forge_vm *vm, int idx, long timeout_ms, const char *name,
                           struct forge_callable *out);
void forge_lua_callable_free(void *ctx);
#endif
