/* Command-line options shared by every subcommand that runs Lua (script, run). */
#ifndef FORGE_CLI_LUAOPTS_H
#define FORGE_CLI_LUAOPTS_H
#include "lua/vm.h"

/* Usage lines for the options below. */
extern const char forge_luaopts_usage[];

/* If argv[*i] is one of the sandbox options (--allow-read PATH, --allow-net,
 * --lua-instructions N, --lua-memory MIB, --lua-timeout MS, --regex-match-limit N,
 * --regex-timeout MS, -v/--verbose, -q/--quiet), applies it to <o> (consuming its value, advancing *i) and returns
 * 1; returns 0 when it is not one; returns -1 after printing an error for a bad value. The
 * --allow-read paths point into argv. */
int forge_luaopts_parse(int argc, char **argv, int *i, struct forge_vm_opts *o);
void forge_luaopts_free(struct forge_vm_opts *o);
#endif
