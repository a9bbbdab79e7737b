/* forge script FILE.lua [ARGS...] */
#include "cli/cli.h"

#include <stdio.h>

const char forge_usage_script[] =
    "usage: forge script [OPTIONS] FILE.lua [ARGS...]\n";

int forge_cmd_script(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    forge_cli_error("script: the Lua host is being built");
    return FORGE_EXIT_USAGE;
}
