/* forge.core: the host functions behind the forge module (log, read_file, args, clock). */
#include "lua/bind.h"
#include "lua/vm.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/file.h"
#include "tools/tool.h"

#include <math.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* Builds "a b c" from the arguments (tostring'd) and writes "[level] text" to stderr when
 * <to_stderr>; inside a tool call that `forge mcp serve` serves, it also goes to the client as
 * a log message (the client's logging level decides, not -v). */
static int emit(lua_State *L, const char *level, int start, int to_stderr)
{
    const struct forge_tool_notifier *nt = forge_tool_notifier();
    if (!to_stderr && !(nt && nt->log))
        return 0;
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = start; i <= n; i++) {
        if (i > start)
            luaL_addchar(&b, ' ');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    if (nt && nt->log)
        nt->log(nt->ctx, !strcmp(level, "warn") ? "warning" : level, text, len);
    if (!to_stderr)
        return 0;
    lua_Debug ar;
    char where[256] = "";
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0)
        snprintf(where, sizeof where, "%s:%d: ", ar.short_src, ar.currentline);
    fprintf(stderr, "[%s] %s", level, where);
    fwrite(text, 1, len, stderr); /* whole, NUL bytes included */
    fputc('\n', stderr);
    return 0;
}

static int l_log_info(lua_State *L) { return emit(L, "info", 1, 1); }
static int l_log_warn(lua_State *L) { return emit(L, "warn", 1, 1); }
static int l_log_error(lua_State *L) { return emit(L, "error", 1, 1); }

static int l_log_debug(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "forge.verbose");
    int v = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return emit(L, "debug", 1, v > 0);
}

static int l_log_call(lua_State *L)
{
    return emit(L, "info", 2, 1); /* argument 1 is the log table itself */
}

/* forge.progress(progress [, total [, message]]): inside a tool call that `forge mcp serve`
 * serves for a client that asked for progress, a progress notification; elsewhere nothing. */
static int l_progress(lua_State *L)
{
    lua_Number p = luaL_checknumber(L, 1);
    lua_Number total = luaL_opt(L, luaL_checknumber, 2, NAN);
    size_t mlen = 0;
    const char *msg = luaL_optlstring(L, 3, NULL, &mlen);
    if (!isfinite(p) || p < 0)
        return luaL_argerror(L, 1, "a finite number >= 0");
    if (!lua_isnoneornil(L, 2) && (!isfinite(total) || total <= 0))
        return luaL_argerror(L, 2, "a finite number > 0");
    if (msg && strlen(msg) != mlen)
        return luaL_argerror(L, 3, "the message contains a NUL byte");
    const struct forge_tool_notifier *nt = forge_tool_notifier();
    if (nt && nt->progress)
        nt->progress(nt->ctx, (double)p, (double)total, msg);
    return 0;
}

/* forge.read_file(path): the file's bytes, or nil, message when it cannot be read. Raises when
 * the path is outside the readable trees. */
static int l_read_file(lua_State *L)
{
    size_t plen;
    const char *path = luaL_checklstring(L, 1, &plen);
    if (strlen(path) != plen) /* C would see only the part before the NUL */
        return luaL_error(L, "forge.read_file: the path contains a NUL byte");
    struct forge_vm *vm = forge_vm_of(L);
    char *real = NULL;
    struct forge_err err = {0};
    int rc = forge_vm_resolve_read(vm, path, &real, &err);
    if (rc == FORGE_EINVAL)
        return luaL_error(L, "forge.read_file: %s", err.msg);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    /* Regular files only: opening a FIFO blocks until a writer comes, and a device such as
     * /dev/zero never ends; neither can be interrupted by the limits. */
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        forge_free(real);
        lua_pushnil(L);
        lua_pushfstring(L, "%s: not a regular file", path);
        return 2;
    }
    /* The whole file is held in C before Lua gets it: the memory cap bounds it too. */
    size_t cap = forge_vm_get_limits(vm).memory;
    char *text = NULL;
    size_t len = 0;
    rc = forge_file_read(real, cap && cap < FORGE_FILE_LIMIT ? cap : FORGE_FILE_LIMIT, &text,
                         &len, &err);
    forge_free(real);
    if (rc == FORGE_ELIMIT && cap && cap < FORGE_FILE_LIMIT) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: larger than the memory limit of %d MiB; raise it with "
                        "--lua-memory MIB", path, (int)(cap >> 20));
        return 2;
    }
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    /* The text is held twice for a moment (C's copy and Lua's string): both count. */
    if (forge_vm_charge(vm, len)) {
        forge_free(text);
        return luaL_error(L, "forge.read_file: %s", forge_vm_limit_message(vm));
    }
    forge_lua_box(L, text, forge_free);
    lua_pushlstring(L, text, len);
    forge_lua_unbox(L, -2);
    return 1;
}

/* forge.clock(): monotonic seconds, for measuring durations. */
static int l_clock(lua_State *L)
{
    lua_pushnumber(L, (double)forge_clock_ns() / 1e9);
    return 1;
}

/* forge.script_dir(): the folder of the running script. */
static int l_script_dir(lua_State *L)
{
    lua_pushstring(L, forge_vm_script_dir(forge_vm_of(L)));
    return 1;
}

/* forge.executable(): the path of the running forge, so a suite can start `forge mcp serve`
 * with the same binary. */
static int l_executable(lua_State *L)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return luaL_error(L, "forge.executable: cannot read /proc/self/exe");
    lua_pushlstring(L, path, (size_t)n);
    return 1;
}

int forge_luaopen_core(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"read_file", l_read_file},
        {"clock", l_clock},
        {"script_dir", l_script_dir},
        {"executable", l_executable},
        {"progress", l_progress},
        {NULL, NULL},
    };
    static const luaL_Reg logfns[] = {
        {"info", l_log_info}, {"warn", l_log_warn}, {"error", l_log_error},
        {"debug", l_log_debug}, {NULL, NULL},
    };
    luaL_newlib(L, fns);
    luaL_newlib(L, logfns);
    lua_newtable(L);
    lua_pushcfunction(L, l_log_call);
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "log");
    /* forge.args: a copy, so one script cannot change what another sees. */
    lua_newtable(L);
    lua_getfield(L, LUA_REGISTRYINDEX, "forge.args");
    if (lua_istable(L, -1)) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            lua_rawseti(L, -3, i);
        }
    }
    lua_pop(L, 1);
    lua_setfield(L, -2, "args");
    lua_pushliteral(L, FORGE_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
