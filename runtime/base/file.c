/* Whole-file reads, atomic writes, path helpers. */
#include "base/file.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

static size_t input_limit = FORGE_FILE_LIMIT;

size_t forge_file_input_limit(void)
{
    return input_limit;
}

void forge_file_set_input_limit(size_t bytes)
{
    input_limit = bytes ? bytes : FORGE_FILE_LIMIT;
}

int forge_file_read(const char *path, size_t limit, char **out, size_t *len, struct forge_err *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return forge_err_set(err, FORGE_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    bool regular = false;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(f);
            return forge_err_set(err, FORGE_EIO, "%s: is a directory", path);
        }
        regular = S_ISREG(st.st_mode);
    }
    /* a regular file's size is known: refuse it before reading a byte; other files (pipes,
     * devices) are read up to limit + 1 bytes */
    if (regular && (unsigned long long)st.st_size > limit) {
        fclose(f);
        return forge_err_set(err, FORGE_ELIMIT, "%s: file is larger than the %zu-byte limit", path,
                             limit);
    }
    size_t most = limit + 2 < limit ? limit : limit + 2; /* limit + 1 bytes and the NUL */
    size_t cap = regular && (size_t)st.st_size + 2 <= most ? (size_t)st.st_size + 2 : 4096;
    if (cap > most)
        cap = most;
    size_t n = 0;
    char *buf = forge_malloc(cap);
    int rc = 0;
    if (!buf) {
        rc = forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (;;) {
        if (n + 1 >= cap) {
            size_t want = cap * 2 < most ? cap * 2 : most;
            char *p = want > cap ? forge_realloc(buf, want) : NULL;
            if (!p) {
                rc = forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
                goto out;
            }
            buf = p;
            cap = want;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > limit) {
            rc = forge_err_set(err, FORGE_ELIMIT,
                               "%s: file is larger than the %zu-byte limit", path, limit);
            goto out;
        }
        if (got == 0) {
            if (ferror(f))
                rc = forge_err_set(err, FORGE_EIO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
out:
    fclose(f);
    if (rc) {
        forge_free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int forge_file_read_input(const char *path, char **out, size_t *len, struct forge_err *err)
{
    int rc = forge_file_read(path, input_limit, out, len, err);
    if (rc == FORGE_ELIMIT)
        forge_file_limit_error(path, err);
    return rc;
}

int forge_file_limit_error(const char *name, struct forge_err *err)
{
    if (input_limit % ((size_t)1 << 20) == 0)
        return forge_err_set(err, FORGE_ELIMIT, "%s: file is larger than the %zu MiB input limit "
                             "(raise it with --max-file-mb)", name, input_limit >> 20);
    return forge_err_set(err, FORGE_ELIMIT, "%s: file is larger than the %zu-byte input limit "
                         "(raise it with --max-file-mb)", name, input_limit);
}

int forge_file_write_atomic(const char *path, const void *data, size_t len, struct forge_err *err)
{
    return forge_file_write_atomic_mode(path, data, len, 0666, err);
}

int forge_file_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode,
                                 struct forge_err *err)
{
    size_t n = strlen(path) + 32;
    char *tmp = forge_malloc(n);
    if (!tmp)
        return forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int rc = 0;
    /* The mode is set at creation: the file is never readable by others, not even briefly. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (!f) {
        rc = forge_err_set(err, FORGE_EIO, "%s: cannot write: %s", path, strerror(errno));
        goto out;
    }
    if (fwrite(data, 1, len, f) != len || fflush(f) != 0) {
        rc = forge_err_set(err, FORGE_EIO, "%s: write error: %s", path, strerror(errno));
        fclose(f);
        remove(tmp);
        goto out;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        rc = forge_err_set(err, FORGE_EIO, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
    }
out:
    forge_free(tmp);
    return rc;
}

char *forge_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return forge_strdup(".");
    if (slash == path)
        return forge_strdup("/");
    return forge_strndup(path, (size_t)(slash - path));
}

char *forge_path_join(const char *base, const char *rel)
{
    if (rel[0] == '/' || !base || !base[0])
        return forge_strdup(rel);
    size_t n = strlen(base) + strlen(rel) + 2;
    char *p = forge_malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", base, rel);
    return p;
}

int forge_mkdir_p(const char *path, struct forge_err *err)
{
    return forge_mkdir_p_mode(path, 0755, err);
}

int forge_mkdir_p_mode(const char *path, unsigned mode, struct forge_err *err)
{
    char *p = forge_strdup(path);
    if (!p)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
                rc = forge_err_set(err, FORGE_EIO, "%s: cannot create folder: %s", p,
                                   strerror(errno));
                break;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    forge_free(p);
    return rc;
}
