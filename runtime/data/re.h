/* Regular expressions over PCRE2 (UTF + UCP mode): compiled-pattern cache and match limits, so
 * a catastrophic pattern fails with a clear error instead of running away. Thread-safe. */
#ifndef FORGE_DATA_RE_H
#define FORGE_DATA_RE_H
#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

enum {
    FORGE_RE_CASELESS = 1,  /* i */
    FORGE_RE_MULTILINE = 2, /* m */
    FORGE_RE_DOTALL = 4,    /* s */
    FORGE_RE_EXTENDED = 8,  /* x */
    FORGE_RE_ANCHORED = 16, /* match only at the start position */
    FORGE_RE_BYTES = 32,    /* no UTF/UCP: bytes, not characters */
};

struct forge_re;

/* Parses a flag string such as "ims" into FORGE_RE_* bits; returns -1 (with <err>) on an unknown
 * letter. */
int forge_re_flags(const char *letters, struct forge_err *err);

/* Compiles <pattern> (<len> bytes). Returns a new regex (free with forge_re_free) or NULL with
 * FORGE_EINVAL and "invalid regex '<pattern>' at offset N: <reason>". */
struct forge_re *forge_re_compile(const char *pattern, size_t len, int flags, struct forge_err *err);

/* Returns the compiled form of <pattern> from a process-wide cache (borrowed; valid until
 * forge_re_cache_clear), compiling it on first use. */
const struct forge_re *forge_re_cached(const char *pattern, size_t len, int flags,
                                       struct forge_err *err);

/* Like forge_re_cached, but once the cache holds 4096 patterns a new pattern is compiled for the
 * caller alone: then *own receives it (free with forge_re_free) and it is also the result. For
 * callers (scripts) that may make up any number of patterns. */
const struct forge_re *forge_re_get(const char *pattern, size_t len, int flags,
                                    struct forge_re **own, struct forge_err *err);

/* Matches at or after byte offset <start> of <subject>. On a match returns the number of
 * captured pairs written to <ovec> (ovec[2i], ovec[2i+1] = start/end byte offsets; unset groups
 * are (size_t)-1), at most <npairs>. Returns 0 on no match, or FORGE_ELIMIT when the match or
 * depth limit was hit (message names the limit), FORGE_EINVAL on invalid UTF-8 subject. */
int forge_re_exec(const struct forge_re *re, const char *subject, size_t len, size_t start,
                  size_t *ovec, int npairs, struct forge_err *err);

/* forge_re_exec for repeated matches over one subject: with <checked> set, the subject's UTF-8
 * is not validated again (an earlier call on the same subject did it, from a character
 * boundary), which keeps global matching linear. */
int forge_re_exec_checked(const struct forge_re *re, const char *subject, size_t len, size_t start,
                          size_t *ovec, int npairs, int checked, struct forge_err *err);

/* Number of capture groups in <re>. */
int forge_re_groups(const struct forge_re *re);

/* Convenience: 1 when <pattern> matches anywhere in <subject>, 0 when not, negative on error.
 * The pattern is cached while the cache holds fewer than 4096 patterns, then compiled for the
 * call only. */
int forge_re_test(const char *pattern, int flags, const char *subject, struct forge_err *err);

/* Match limits applied to every match (PCRE2 match_limit / depth_limit). Defaults: 10,000,000
 * and 100,000. */
void forge_re_set_limits(unsigned long match_limit, unsigned long depth_limit);

/* The time limit of one match, in milliseconds (0: none): checked at the start of each match
 * attempt (every 16th), so it bounds what the match limit cannot, a pattern that costs the
 * limit's worth at each start position. Past it a match fails with FORGE_ELIMIT naming
 * --regex-timeout. Applies to JSON Schema patterns matched by PCRE2 too. */
#define FORGE_RE_DEFAULT_TIMEOUT_MS 1000
void forge_re_set_timeout(unsigned long ms);
unsigned long forge_re_timeout_ms(void);

void forge_re_free(struct forge_re *re);
void forge_re_cache_clear(void);

/* Where a context's memory comes from: compiled patterns, match data and PCRE2's match heap. */
struct forge_re_mem {
    void *(*alloc)(size_t n, void *ud); /* NULL when refused */
    void (*free)(void *p, void *ud);
    void *ud;
};

/* A matching context with its own allocator, for an owner that must account for every byte
 * (a Lua state under its memory cap). Not thread-safe: one user at a time. */
struct forge_re_ctx;

/* Returns a new context drawing from <mem> (copied), or NULL when out of memory. */
struct forge_re_ctx *forge_re_ctx_new(const struct forge_re_mem *mem);
void forge_re_ctx_free(struct forge_re_ctx *ctx);

/* Caps the match heap of the next matches at <bytes> (0: PCRE2's default). */
void forge_re_ctx_set_heap(struct forge_re_ctx *ctx, size_t bytes);

/* forge_re_compile with every allocation (the regex included) from <ctx>'s allocator; the
 * result is freed with forge_re_free and may outlive <ctx>. FORGE_ENOMEM when the allocator
 * refuses. */
struct forge_re *forge_re_compile_in(struct forge_re_ctx *ctx, const char *pattern, size_t len,
                                     int flags, struct forge_err *err);

/* forge_re_exec_checked with <ctx>'s match context and data. A refused allocation is
 * FORGE_ENOMEM; the heap cap, FORGE_ELIMIT. */
int forge_re_exec_in(struct forge_re_ctx *ctx, const struct forge_re *re, const char *subject,
                     size_t len, size_t start, size_t *ovec, int npairs, int checked,
                     struct forge_err *err);
#endif
