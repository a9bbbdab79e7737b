/* Interim implementation of data/re.h for the eval branch until the real one lands on main;
 * removed at that merge. Compiles per call (no cache), UTF + UCP mode, default match limits. */
#include "data/re.h"
#include "base/alloc.h"

#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

struct forge_re {
    pcre2_code *code;
};

int forge_re_flags(const char *letters, struct forge_err *err)
{
    int f = 0;
    for (const char *p = letters; p && *p; p++) {
        switch (*p) {
        case 'i': f |= FORGE_RE_CASELESS; break;
        case 'm': f |= FORGE_RE_MULTILINE; break;
        case 's': f |= FORGE_RE_DOTALL; break;
        case 'x': f |= FORGE_RE_EXTENDED; break;
        default: forge_err_set(err, FORGE_EINVAL, "unknown regex flag '%c'", *p); return -1;
        }
    }
    return f;
}

struct forge_re *forge_re_compile(const char *pattern, size_t len, int flags, struct forge_err *err)
{
    uint32_t opt = 0;
    if (!(flags & FORGE_RE_BYTES)) opt |= PCRE2_UTF | PCRE2_UCP;
    if (flags & FORGE_RE_CASELESS) opt |= PCRE2_CASELESS;
    if (flags & FORGE_RE_MULTILINE) opt |= PCRE2_MULTILINE;
    if (flags & FORGE_RE_DOTALL) opt |= PCRE2_DOTALL;
    if (flags & FORGE_RE_EXTENDED) opt |= PCRE2_EXTENDED;
    if (flags & FORGE_RE_ANCHORED) opt |= PCRE2_ANCHORED;
    int ec = 0;
    PCRE2_SIZE off = 0;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, len, opt, &ec, &off, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        forge_err_set(err, FORGE_EINVAL, "invalid regex '%.*s' at offset %zu: %s", (int)len, pattern,
                      (size_t)off, (char *)msg);
        return NULL;
    }
    struct forge_re *re = forge_malloc(sizeof *re);
    if (!re) {
        pcre2_code_free(code);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    re->code = code;
    return re;
}

const struct forge_re *forge_re_cached(const char *pattern, size_t len, int flags,
                                       struct forge_err *err)
{
    (void)pattern; (void)len; (void)flags;
    forge_err_set(err, FORGE_EINTERNAL, "regex cache not available");
    return NULL;
}

int forge_re_exec(const struct forge_re *re, const char *subject, size_t len, size_t start,
                  size_t *ovec, int npairs, struct forge_err *err)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, start, 0, md, NULL);
    int out;
    if (rc == PCRE2_ERROR_NOMATCH) {
        out = 0;
    } else if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
        out = forge_err_set(err, FORGE_ELIMIT, "regex match limit reached");
    } else if (rc < 0) {
        out = forge_err_set(err, FORGE_EINVAL, "regex match failed (%d)", rc);
    } else {
        PCRE2_SIZE *v = pcre2_get_ovector_pointer(md);
        int n = rc < npairs ? rc : npairs;
        for (int i = 0; i < n; i++) {
            ovec[2 * i] = v[2 * i];
            ovec[2 * i + 1] = v[2 * i + 1];
        }
        out = n > 0 ? n : 1;
    }
    pcre2_match_data_free(md);
    return out;
}

int forge_re_groups(const struct forge_re *re)
{
    uint32_t n = 0;
    pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &n);
    return (int)n;
}

int forge_re_test(const char *pattern, int flags, const char *subject, struct forge_err *err)
{
    struct forge_re *re = forge_re_compile(pattern, strlen(pattern), flags, err);
    if (!re) return err ? err->code : FORGE_EINVAL;
    int rc = forge_re_exec(re, subject, strlen(subject), 0, NULL, 0, err);
    forge_re_free(re);
    return rc > 0 ? 1 : rc;
}

void forge_re_set_limits(unsigned long match_limit, unsigned long depth_limit)
{
    (void)match_limit; (void)depth_limit;
}

void forge_re_free(struct forge_re *re)
{
    if (!re) return;
    pcre2_code_free(re->code);
    forge_free(re);
}

void forge_re_cache_clear(void) {}
