/* Whole-file reads with a size cap, atomic writes, and path helpers. */
#ifndef FORGE_BASE_FILE_H
#define FORGE_BASE_FILE_H
#include <stddef.h>
#include "base/err.h"

/* Default cap for files forge reads whole (eval files, schemas, trajectories): 256 MiB. */
#define FORGE_FILE_LIMIT ((size_t)256 << 20)

/* The input limit: the cap on every input file forge reads whole (eval files, transcripts
 * given as one document, tool definitions, schemas, seeds, baselines). FORGE_FILE_LIMIT unless
 * the command line set it (--max-file-mb); set it before any thread starts. 0 restores the
 * default. */
size_t forge_file_input_limit(void);
void forge_file_set_input_limit(size_t bytes);

/* Reads <path> whole into a new NUL-terminated buffer (*out, free with forge_free) of *len bytes.
 * Fails with FORGE_EIO (message names the path and the OS error) or FORGE_ELIMIT when the file
 * is larger than <limit> bytes: a regular file is refused from its size before it is read, a
 * pipe or device after limit + 1 bytes (so the buffer never passes limit + 2 bytes). A folder
 * is FORGE_EIO "<path>: is a directory". */
int forge_file_read(const char *path, size_t limit, char **out, size_t *len, struct forge_err *err);

/* forge_file_read under the input limit; over it, the message names the limit and its flag:
 * "<path>: file is larger than the 256 MiB input limit (raise it with --max-file-mb)". */
int forge_file_read_input(const char *path, char **out, size_t *len, struct forge_err *err);

/* Sets <err> to that message for <name> and returns FORGE_ELIMIT. */
int forge_file_limit_error(const char *name, struct forge_err *err);

/* Writes <len> bytes to <path> through a temporary file and rename, so readers never see a
 * partial file. */
int forge_file_write_atomic(const char *path, const void *data, size_t len, struct forge_err *err);
/* The same with the file created with permission bits <mode> (before the umask), e.g. 0600. */
int forge_file_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode,
                                 struct forge_err *err);

/* Returns a new string: the folder part of <path> ("." when it has none). */
char *forge_path_dir(const char *path);
/* Returns a new string: <base>/<rel>, or a copy of <rel> when it is absolute. */
char *forge_path_join(const char *base, const char *rel);
/* Creates <path> and its parents (mode 0755). */
int forge_mkdir_p(const char *path, struct forge_err *err);
/* The same with the folders it creates given permission bits <mode>, e.g. 0700. */
int forge_mkdir_p_mode(const char *path, unsigned mode, struct forge_err *err);
#endif
