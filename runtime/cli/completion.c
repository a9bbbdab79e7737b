/* forge completion SHELL: prints the completion script for bash or zsh. */
#include "cli/cli.h"
#include "cli/init.h"

#include <stdio.h>
#include <string.h>

const char forge_usage_completion[] =
    "usage: forge completion bash|zsh\n"
    "\n"
    "Prints the shell completion script (the one make install puts in the standard folders):\n"
    "  source <(forge completion bash)           in ~/.bashrc\n"
    "  forge completion zsh > ~/.zfunc/_forge    with ~/.zfunc on $fpath, then compinit\n"
    "It completes commands, options, provider: prefixes and files by extension, reading the\n"
    "options from forge help, so it follows the installed version.\n";

int forge_cmd_completion(int argc, char **argv)
{
    if (argc == 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
        fputs(forge_usage_completion, stdout);
        return 0;
    }
    const char *file = argc != 1 ? NULL : !strcmp(argv[0], "bash") ? "forge.bash"
                                        : !strcmp(argv[0], "zsh") ? "_forge" : NULL;
    if (!file) {
        if (argc == 1)
            forge_cli_error("completion: unknown shell '%s': the shells are bash and zsh", argv[0]);
        else
            forge_cli_error("completion: name one shell: bash or zsh (run 'forge help completion')");
        return FORGE_EXIT_USAGE;
    }
    for (const struct forge_embedded_file *f = forge_completion_files; f->path; f++)
        if (!strcmp(f->path, file)) {
            fwrite(f->text, 1, f->len, stdout);
            return 0;
        }
    forge_cli_error("completion: the %s script is missing from this build", argv[0]);
    return FORGE_EXIT_INFRA;
}
