/* forge init: the scaffold's files, embedded from share/init/ by cmake/embed_files.cmake. */
#ifndef FORGE_CLI_INIT_H
#define FORGE_CLI_INIT_H
#include <stddef.h>

struct forge_embedded_file {
    const char *path; /* relative: "suite.lua", "evals/golden.json" */
    const char *text;
    size_t len;
};

/* Ended by an entry whose path is NULL. */
extern const struct forge_embedded_file forge_init_files[];
#endif
