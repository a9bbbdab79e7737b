/* forge script FILE.lua [ARGS...]: runs a Lua script in the sandbox. */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/file.h"
#include "lua/vm.h"

#include <stdio.h>
#include <string.h>

const char forge_usage_script[] =
    "usage: forge script [OPTIONS] FILE.lua [ARGS...] [-- ARGS...]\n"
    "\n"
    "Runs FILE.lua in forge's Lua sandbox. ARGS are given to the script as forge.args; forge's\n"
    "own options may come before or after FILE.lua, and everything after -- goes to the script.\n"
    "\n";

/* Prints a script error: "file:line: message" and its traceback. */
static void report(const struct forge_err *err)
{
    fprintf(stderr, "forge: %s\n", err->msg);
    if (err->trace[0])
        fprintf(stderr, "%s\n", err->trace);
}

int forge_cmd_script(int argc, char **argv)
{
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
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
            fputs(forge_luaopts_usage, stdout);
            rc = 0;
            goto out;
        }
        int r = forge_luaopts_parse(argc, argv, &i, &o);
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
    if (forge_vm_call(vm, 0, 0, &err)) {
        report(&err);
        rc = FORGE_EXIT_USAGE;
        goto out;
    }
    rc = FORGE_EXIT_OK;
out:
    forge_vm_free(vm);
    forge_free(dir);
    forge_free(args);
    forge_luaopts_free(&o);
    return rc;
}
