/* Whole-file reads with a size cap, atomic writes, and path helpers. */
#ifndef FORGE_BASE_FILE_H
#define FORGE_BASE_FILE_H
#include <stddef.h>
#include "base/err.h"

/* Default cap for files forge reads whole (eval files, schemas, trajectories): 256 MiB. */
#define FORGE_FILE_LIMIT ((size_t)256 << 20)

/* Reads <path> whole into a new NUL-terminated buffer (*out, free with forge_free) of *len bytes.
 * Fails with FORGE_EIO (message names the path and the OS error) or FORGE_ELIMIT when the file
 * is larger than <limit> bytes. */
int forge_file_read(const char *path, size_t limit, char **out, size_t *len, struct forge_err *err);

/* Writes <len> bytes to <path> through a temporary file and rename, so readers never see a
 * partial file. */
int forge_file_write_atomic(const char *path, const void *data, size_t len, struct forge_err *err);

/* Returns a new string: the folder part of <path> ("." when it has none). */
char *forge_path_dir(const char *path);
/* Returns a new string: <base>/<rel>, or a copy of <rel> when it is absolute. */
char *forge_path_join(const char *base, const char *rel);
/* Creates <path> and its parents (mode 0755). */
int forge_mkdir_p(const char *path, struct forge_err *err);
#endif
