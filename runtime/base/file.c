/* Whole-file reads, atomic writes, path helpers. */
#include "base/file.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int forge_file_read(const char *path, size_t limit, char **out, size_t *len, struct forge_err *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return forge_err_set(err, FORGE_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return forge_err_set(err, FORGE_EIO, "%s: is a directory", path);
    }
    size_t cap = 4096, n = 0;
    char *buf = forge_malloc(cap);
    int rc = 0;
    if (!buf) {
        rc = forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > limit + 1) {
                rc = forge_err_set(err, FORGE_ELIMIT,
                                   "%s: file is larger than the %zu-byte limit", path, limit);
                goto out;
            }
            char *p = forge_realloc(buf, cap * 2);
            if (!p) {
                rc = forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
                goto out;
            }
            buf = p;
            cap *= 2;
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

int forge_file_write_atomic(const char *path, const void *data, size_t len, struct forge_err *err)
{
    size_t n = strlen(path) + 32;
    char *tmp = forge_malloc(n);
    if (!tmp)
        return forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int rc = 0;
    FILE *f = fopen(tmp, "wb");
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
    char *p = forge_strdup(path);
    if (!p)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
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
