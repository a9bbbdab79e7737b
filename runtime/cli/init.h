/* Files embedded by cmake/embed_files.cmake: the scaffold of forge init (share/init/) and the
 * shell completions (completions/). */
#ifndef FORGE_CLI_INIT_H
#define FORGE_CLI_INIT_H
#include <stddef.h>

struct forge_embedded_file {
    const char *path; /* relative: "suite.lua", "evals/golden.json" */
    const char *text;
    size_t len;
};

/* Ended by an entry whose path is NULL: share/init/ and completions/. */
extern const struct forge_embedded_file forge_init_files[];
extern const struct forge_embedded_file forge_completion_files[];
#endif
