/* forge script FILE.lua [ARGS...]: runs a Lua script in the sandbox. */
#include "cli/cli.h"
#include "cli/live.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/file.h"
#include "lua/l_suite.h"
#include "lua/vm.h"

#include <stdio.h>
#include <string.h>

const char forge_usage_script[] =
    "usage: forge script [OPTIONS] FILE.lua [ARGS...] [-- ARGS...]\n"
    "\n"
    "Runs FILE.lua in forge's Lua sandbox. ARGS are given to the script as forge.args; forge's\n"
    "own options may come before or after FILE.lua, and everything after -- goes to the script.\n"
    "When the script returns a suite (forge.suite{...}) or a list of suites, forge runs them\n"
    "through the agent loop and the eval engine and reports them as `forge run` does; the exit\n"
    "code is then the run's (0 passed, 1 a case or gate failed, 3 a model was unreachable).\n"
    "\n";

/* Prints a script error: "file:line: message" and its traceback. */
static void report(const struct forge_err *err)
{
    fprintf(stderr, "forge: %s\n", err->msg);
    if (err->trace[0])
        fprintf(stderr, "%s\n", err->trace);
}

/* The suites the script returned (the value on top of the stack, popped): a suite, a list of
 * suites, or anything else (no suites). */
static int collect_suites(struct forge_vm *vm, const char *file, struct forge_lua_suite **out,
                          int *n, struct forge_err *err)
{
    lua_State *L = forge_vm_state(vm);
    int top = lua_gettop(L);
    int rc = 0;
    *out = NULL;
    *n = 0;
    if (forge_lua_is_kind(L, top, "suite")) {
        *out = forge_calloc(1, sizeof **out);
        rc = *out ? forge_lua_suite_load(vm, top, &(*out)[0], err) : FORGE_ENOMEM;
        if (!rc)
            *n = 1;
    } else if (lua_type(L, top) == LUA_TTABLE) {
        lua_Integer len = (lua_Integer)lua_rawlen(L, top);
        lua_rawgeti(L, top, 1);
        int list = len > 0 && forge_lua_is_kind(L, -1, "suite");
        lua_pop(L, 1);
        if (list) {
            *out = forge_calloc((size_t)len, sizeof **out);
            for (lua_Integer i = 1; *out && i <= len && !rc; i++) {
                lua_rawgeti(L, top, i);
                if (!forge_lua_is_kind(L, -1, "suite"))
                    rc = forge_err_set(err, FORGE_EINVAL, "%s: returned list item %lld is not a "
                                       "suite (forge.suite{...})", file, (long long)i);
                else if (!(rc = forge_lua_suite_load(vm, -1, &(*out)[i - 1], err)))
                    (*n)++;
                lua_pop(L, 1);
            }
            if (!*out)
                rc = FORGE_ENOMEM;
        }
    }
    lua_settop(L, top - 1);
    lua_gc(L, LUA_GCCOLLECT);
    return rc;
}

int forge_cmd_script(int argc, char **argv)
{
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
    struct forge_live_opts live;
    forge_live_opts_init(&live);
    struct forge_lua_suite *suites = NULL;
    int nsuites = 0;
    const char *file = NULL;
    const char **args = forge_calloc((size_t)argc + 1, sizeof *args);
    int nargs = 0, rc = FORGE_EXIT_USAGE;
    struct forge_vm *vm = NULL;
    char *dir = NULL;
    if (!args)
        goto out;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                args[nargs++] = argv[i];
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(forge_usage_script, stdout);
            fputs(forge_live_usage, stdout);
            fputs(forge_provider_opts_usage, stdout);
            fputs(forge_luaopts_usage, stdout);
            fputs(forge_cli_input_usage, stdout);
            rc = 0;
            goto out;
        }
        int r = forge_cli_input_opt("script", argc, argv, &i);
        if (r == 0)
            r = forge_luaopts_parse(argc, argv, &i, &o);
        if (r == 0)
            r = forge_live_parse("script", argc, argv, &i, &live);
        if (r < 0)
            goto out;
        if (r > 0)
            continue;
        if (a[0] == '-' && a[1] && !file) {
            forge_cli_error("script: unknown option '%s' (see 'forge help script')", a);
            goto out;
        }
        if (!file)
            file = a;
        else
            args[nargs++] = a;
    }
    live.quiet = live.quiet || o.verbose < 0;
    if (!file) {
        forge_cli_error("script: no script given (usage: forge script FILE.lua [ARGS...])");
        goto out;
    }
    dir = forge_path_dir(file);
    o.script_dir = dir;
    o.args = args;
    o.nargs = nargs;
    struct forge_err err = {0};
    vm = forge_vm_new(&o, &err);
    if (!vm) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    if (forge_vm_load_file(vm, file, &err)) {
        forge_cli_error("%s", err.msg);
        rc = forge_cli_exit_code(err.code);
        goto out;
    }
    if (forge_vm_call(vm, 0, 1, &err)) {
        report(&err);
        rc = FORGE_EXIT_USAGE;
        goto out;
    }
    if (collect_suites(vm, file, &suites, &nsuites, &err)) {
        forge_cli_error("%s", err.msg);
        rc = forge_cli_exit_code(err.code);
        goto out;
    }
    rc = nsuites ? forge_live_run(&live, vm, suites, nsuites) : FORGE_EXIT_OK;
out:
    for (int i = 0; i < nsuites; i++)
        forge_lua_suite_free(&suites[i]);
    forge_free(suites);
    forge_vm_free(vm);
    forge_free(dir);
    forge_free(args);
    forge_luaopts_free(&o);
    return rc;
}
