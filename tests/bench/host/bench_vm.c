/* Cost of creating (and freeing) one sandboxed Lua state, and of one forge_vm_call into a
 * trivial Lua function, compared with a bare luaL_newstate + the same libraries. */
#include "base/clock.h"
#include "lua/vm.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
    struct forge_err err = {0};

    uint64_t t0 = forge_clock_ns();
    for (int i = 0; i < n; i++) {
        struct forge_vm *vm = forge_vm_new(&o, &err);
        if (!vm) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        forge_vm_free(vm);
    }
    double sandboxed = (double)(forge_clock_ns() - t0) / n / 1000.0;

    t0 = forge_clock_ns();
    for (int i = 0; i < n; i++) {
        lua_State *L = luaL_newstate();
        luaL_requiref(L, "_G", luaopen_base, 1);
        luaL_requiref(L, "string", luaopen_string, 1);
        luaL_requiref(L, "table", luaopen_table, 1);
        luaL_requiref(L, "math", luaopen_math, 1);
        luaL_requiref(L, "utf8", luaopen_utf8, 1);
        luaL_requiref(L, "coroutine", luaopen_coroutine, 1);
        lua_close(L);
    }
    double bare = (double)(forge_clock_ns() - t0) / n / 1000.0;

    struct forge_vm *vm = forge_vm_new(&o, &err);
    const char *src = "return function(x) return x + 1 end";
    if (forge_vm_load_string(vm, src, strlen(src), "=bench", &err) ||
        forge_vm_call(vm, 0, 1, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    lua_State *L = forge_vm_state(vm);
    int calls = n * 50;
    t0 = forge_clock_ns();
    for (int i = 0; i < calls; i++) {
        lua_pushvalue(L, -1);
        lua_pushinteger(L, i);
        forge_vm_call(vm, 1, 1, &err);
        lua_pop(L, 1);
    }
    double call = (double)(forge_clock_ns() - t0) / calls;
    forge_vm_free(vm);

    printf("sandboxed state (create + free): %.1f us   bare luaL_newstate + same libs: %.1f us   "
           "ratio %.2f\n", sandboxed, bare, sandboxed / bare);
    printf("forge_vm_call into a trivial function: %.0f ns\n", call);
    return 0;
}
