/* Regular expressions over PCRE2 with a compiled-pattern cache and match limits. */
#include "data/re_int.h"
#include "base/alloc.h"
#include "base/clock.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

struct forge_re {
    pcre2_code *code;
    int flags;
    char *pattern; /* owned, for messages and cache lookup */
    size_t len;
    struct forge_re *next; /* cache chain */
    struct forge_re_mem mem; /* where this came from; alloc NULL: forge_malloc */
};

struct forge_re_ctx {
    struct forge_re_mem mem;
    pcre2_general_context *gctx;
    pcre2_compile_context *cctx;
    pcre2_match_context *mctx;
    pcre2_match_data *mdata;
    uint32_t mdata_pairs;
};

static unsigned long match_limit = 10000000;
static unsigned long depth_limit = 100000;
static unsigned long timeout_ms = FORGE_RE_DEFAULT_TIMEOUT_MS;

void forge_re_set_limits(unsigned long m, unsigned long d)
{
    match_limit = m;
    depth_limit = d;
}

void forge_re_set_timeout(unsigned long ms)
{
    timeout_ms = ms;
}

unsigned long forge_re_timeout_ms(void)
{
    return timeout_ms;
}

/* ---- the time limit: a callout at the start of each attempt ---- */

/* The length of the start-of-pattern items that must stay first: (*UTF), (*LIMIT_MATCH=9),
 * (*CRLF), ... (the verbs without an argument, such as (*ACCEPT), may come first too: they end
 * the run and go after the callout, as any other item). */
static size_t leading_options(const char *pat, size_t len)
{
    static const char *const verbs[] = {"ACCEPT", "FAIL", "F", "COMMIT", "PRUNE", "SKIP", "THEN"};
    size_t i = 0;
    while (i + 2 < len && pat[i] == '(' && pat[i + 1] == '*') {
        size_t j = i + 2, name = j;
        while (j < len && ((pat[j] >= 'A' && pat[j] <= 'Z') || pat[j] == '_'))
            j++;
        size_t nlen = j - name;
        if (nlen == 0)
            break;
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++)
            if (strlen(verbs[v]) == nlen && memcmp(verbs[v], pat + name, nlen) == 0)
                return i;
        if (j < len && pat[j] == '=') {
            j++;
            while (j < len && pat[j] >= '0' && pat[j] <= '9')
                j++;
        }
        if (j >= len || pat[j] != ')')
            break;
        i = j + 1;
    }
    return i;
}

pcre2_code *forge_re_pcre2_compile(const char *pat, size_t len, uint32_t opts,
                                   pcre2_compile_context *cctx, const struct forge_re_mem *mem,
                                   int *ec, PCRE2_SIZE *off)
{
    /* The callout goes first, after the items that must stay first: an attempt begins with
     * the first branch, so it passes the callout whatever the pattern holds (a callout cannot
     * be quantified, so nothing after it can change its meaning). */
    static const char head[] = "(?C255)";
    size_t lead = leading_options(pat, len), n = len + sizeof head - 1;
    char *w = mem && mem->alloc ? mem->alloc(n, mem->ud) : forge_malloc(n);
    if (!w) {
        *ec = PCRE2_ERROR_NOMEMORY;
        *off = 0;
        return NULL;
    }
    memcpy(w, pat, lead);
    memcpy(w + lead, head, sizeof head - 1);
    memcpy(w + lead + sizeof head - 1, pat + lead, len - lead);
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)w, n, opts, ec, off, cctx);
    mem && mem->alloc ? mem->free(w, mem->ud) : forge_free(w);
    if (code || *ec == PCRE2_ERROR_NOMEMORY)
        return code;
    /* the error and its offset in the pattern as written */
    return pcre2_compile((PCRE2_SPTR)pat, len, opts, ec, off, cctx);
}

struct clock {
    uint64_t deadline;
    unsigned attempts;
};

static int on_attempt(pcre2_callout_block *b, void *data)
{
    (void)b;
    struct clock *c = data;
    /* a clock read is some 20 ns: on the first attempt, then every 16th */
    if (c->attempts++ % 16)
        return 0;
    uint64_t now = forge_clock_ns();
    if (c->attempts == 1) {
        c->deadline = now + (uint64_t)timeout_ms * 1000000u;
        return 0;
    }
    return now > c->deadline ? PCRE2_ERROR_CALLOUT : 0;
}

int forge_re_pcre2_match(const pcre2_code *code, bool jit, const char *s, size_t n, size_t start,
                         uint32_t opts, pcre2_match_data *md, pcre2_match_context *mctx)
{
    struct clock c = {0, 0};
    pcre2_set_callout(mctx, timeout_ms ? on_attempt : NULL, &c);
    int rc = jit ? pcre2_jit_match(code, (PCRE2_SPTR)s, n, start, opts, md, mctx)
                 : pcre2_match(code, (PCRE2_SPTR)s, n, start, opts, md, mctx);
    pcre2_set_callout(mctx, NULL, NULL); /* <c> is gone */
    return rc;
}

int forge_re_flags(const char *letters, struct forge_err *err)
{
    int f = 0;
    for (const char *p = letters ? letters : ""; *p; p++) {
        switch (*p) {
        case 'i': f |= FORGE_RE_CASELESS; break;
        case 'm': f |= FORGE_RE_MULTILINE; break;
        case 's': f |= FORGE_RE_DOTALL; break;
        case 'x': f |= FORGE_RE_EXTENDED; break;
        case 'A': f |= FORGE_RE_ANCHORED; break;
        case 'b': f |= FORGE_RE_BYTES; break;
        default:
            forge_err_set(err, FORGE_EINVAL,
                          "unknown regex flag '%c' (flags are i, m, s, x, A (anchored), b (bytes))", *p);
            return -1;
        }
    }
    return f;
}

static struct forge_re *compile(const char *pattern, size_t len, int flags,
                                struct forge_re_ctx *ctx, struct forge_err *err)
{
    uint32_t opts = 0;
    if (!(flags & FORGE_RE_BYTES))
        opts |= PCRE2_UTF | PCRE2_UCP;
    if (flags & FORGE_RE_CASELESS)
        opts |= PCRE2_CASELESS;
    if (flags & FORGE_RE_MULTILINE)
        opts |= PCRE2_MULTILINE;
    if (flags & FORGE_RE_DOTALL)
        opts |= PCRE2_DOTALL;
    if (flags & FORGE_RE_EXTENDED)
        opts |= PCRE2_EXTENDED;
    if (flags & FORGE_RE_ANCHORED)
        opts |= PCRE2_ANCHORED;
    int code;
    PCRE2_SIZE off;
    pcre2_code *c = forge_re_pcre2_compile(pattern, len, opts, ctx ? ctx->cctx : NULL,
                                           ctx ? &ctx->mem : NULL, &code, &off);
    if (!c && ctx && code == PCRE2_ERROR_NOMEMORY) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a regex");
        return NULL;
    }
    if (!c) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        forge_err_set(err, FORGE_EINVAL, "invalid regex '%.*s' at offset %zu: %s",
                      (int)(len > 200 ? 200 : len), pattern, (size_t)off, (char *)msg);
        return NULL;
    }
    if (!ctx && forge_alloc_measuring) { /* PCRE2 allocated the code itself: measured work counts it */
        size_t size = 0;
        pcre2_pattern_info(c, PCRE2_INFO_SIZE, &size);
        if (forge_alloc_measure_add(size)) {
            pcre2_code_free(c);
            forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a regex");
            return NULL;
        }
    }
    struct forge_re_mem mem = ctx ? ctx->mem : (struct forge_re_mem){0};
    struct forge_re *re = mem.alloc ? mem.alloc(sizeof *re, mem.ud) : forge_malloc(sizeof *re);
    char *copy = mem.alloc ? mem.alloc(len + 1, mem.ud) : forge_malloc(len + 1);
    if (!re || !copy) {
        pcre2_code_free(c);
        if (mem.alloc) {
            if (re)
                mem.free(re, mem.ud);
            if (copy)
                mem.free(copy, mem.ud);
        } else {
            forge_free(re);
            forge_free(copy);
        }
        forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a regex");
        return NULL;
    }
    memcpy(copy, pattern, len);
    copy[len] = '\0';
    memset(re, 0, sizeof *re);
    re->code = c;
    re->flags = flags;
    re->pattern = copy;
    re->len = len;
    re->mem = mem;
    return re;
}

struct forge_re *forge_re_compile(const char *pattern, size_t len, int flags, struct forge_err *err)
{
    return compile(pattern, len, flags, NULL, err);
}

struct forge_re *forge_re_compile_in(struct forge_re_ctx *ctx, const char *pattern, size_t len,
                                     int flags, struct forge_err *err)
{
    return compile(pattern, len, flags, ctx, err);
}

void forge_re_free(struct forge_re *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code); /* through the allocator it was made with */
    if (re->mem.alloc) {
        struct forge_re_mem mem = re->mem;
        mem.free(re->pattern, mem.ud);
        mem.free(re, mem.ud);
    } else {
        forge_free(re->pattern);
        forge_free(re);
    }
}

int forge_re_groups(const struct forge_re *re)
{
    uint32_t n = 0;
    pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &n);
    return (int)n;
}

/* Per-thread match context and data, reused across matches. */
static _Thread_local pcre2_match_context *tl_mctx;
static _Thread_local pcre2_match_data *tl_mdata;
static _Thread_local uint32_t tl_mdata_pairs;
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

/* Frees a thread's match context and data when the thread ends. */
static void tl_free(void *unused)
{
    (void)unused;
    pcre2_match_data_free(tl_mdata);
    pcre2_match_context_free(tl_mctx);
    tl_mdata = NULL;
    tl_mctx = NULL;
    tl_mdata_pairs = 0;
}

static void tl_key_init(void)
{
    pthread_key_create(&tl_key, tl_free);
}

int forge_re_exec(const struct forge_re *re, const char *subject, size_t len, size_t start,
                  size_t *ovec, int npairs, struct forge_err *err)
{
    return forge_re_exec_checked(re, subject, len, start, ovec, npairs, 0, err);
}

/* One match with the given context and data (which hold at least the pattern's pairs). */
static int exec(const struct forge_re *re, pcre2_match_context *mctx, pcre2_match_data *mdata,
                const char *subject, size_t len, size_t start, size_t *ovec, int npairs,
                int checked, struct forge_err *err)
{
    pcre2_set_match_limit(mctx, (uint32_t)match_limit);
    pcre2_set_depth_limit(mctx, (uint32_t)depth_limit);
    uint32_t need = (uint32_t)forge_re_groups(re) + 1;
    uint32_t mopts = checked && !(re->flags & FORGE_RE_BYTES) ? PCRE2_NO_UTF_CHECK : 0;
    int rc = forge_re_pcre2_match(re->code, false, subject, len, start, mopts, mdata, mctx);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_CALLOUT)
        return forge_err_set(err, FORGE_ELIMIT,
                             "regex '%.100s' ran past the %lu ms time limit of one match "
                             "(catastrophic backtracking?); simplify the pattern or raise "
                             "--regex-timeout", re->pattern, timeout_ms);
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT)
        return forge_err_set(err, FORGE_ELIMIT,
                             "regex '%.100s' hit the PCRE2 %s limit (catastrophic backtracking?); "
                             "simplify the pattern or raise --regex-match-limit",
                             re->pattern,
                             rc == PCRE2_ERROR_MATCHLIMIT ? "match" :
                             rc == PCRE2_ERROR_DEPTHLIMIT ? "depth" : "heap");
    if (rc == PCRE2_ERROR_NOMEMORY)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory matching regex '%.100s'",
                             re->pattern);
    if (rc < 0) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(rc, msg, sizeof msg);
        return forge_err_set(err, FORGE_EINVAL, "regex '%.100s': %s", re->pattern, (char *)msg);
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(mdata);
    int pairs = (int)need < npairs ? (int)need : npairs;
    for (int i = 0; i < pairs; i++) {
        ovec[2 * i] = ov[2 * i] == PCRE2_UNSET ? (size_t)-1 : ov[2 * i];
        ovec[2 * i + 1] = ov[2 * i + 1] == PCRE2_UNSET ? (size_t)-1 : ov[2 * i + 1];
    }
    return pairs > 0 ? pairs : 1;
}

int forge_re_exec_checked(const struct forge_re *re, const char *subject, size_t len, size_t start,
                          size_t *ovec, int npairs, int checked, struct forge_err *err)
{
    if (!tl_mctx) {
        pthread_once(&tl_once, tl_key_init);
        pthread_setspecific(tl_key, &tl_key); /* any non-NULL value: the destructor runs */
        tl_mctx = pcre2_match_context_create(NULL);
        if (!tl_mctx)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory matching a regex");
    }
    uint32_t need = (uint32_t)forge_re_groups(re) + 1;
    if (!tl_mdata || tl_mdata_pairs < need) {
        pcre2_match_data_free(tl_mdata);
        tl_mdata = pcre2_match_data_create(need < 16 ? 16 : need, NULL);
        tl_mdata_pairs = need < 16 ? 16 : need;
        if (!tl_mdata) {
            tl_mdata_pairs = 0;
            return forge_err_set(err, FORGE_ENOMEM, "out of memory matching a regex");
        }
    }
    return exec(re, tl_mctx, tl_mdata, subject, len, start, ovec, npairs, checked, err);
}

/* ---- contexts with their own allocator ---- */

static void *ctx_alloc(PCRE2_SIZE n, void *ud)
{
    const struct forge_re_mem *mem = ud;
    return mem->alloc(n, mem->ud);
}

static void ctx_free(void *p, void *ud)
{
    const struct forge_re_mem *mem = ud;
    if (p)
        mem->free(p, mem->ud);
}

struct forge_re_ctx *forge_re_ctx_new(const struct forge_re_mem *mem)
{
    struct forge_re_ctx *ctx = mem->alloc(sizeof *ctx, mem->ud);
    if (!ctx)
        return NULL;
    memset(ctx, 0, sizeof *ctx);
    ctx->mem = *mem;
    /* The general context keeps a pointer to ctx->mem: it lives as long as ctx. Compiled
     * patterns copy the allocator into the code, so they may outlive the context. */
    ctx->gctx = pcre2_general_context_create(ctx_alloc, ctx_free, &ctx->mem);
    if (ctx->gctx)
        ctx->cctx = pcre2_compile_context_create(ctx->gctx);
    if (ctx->cctx)
        ctx->mctx = pcre2_match_context_create(ctx->gctx);
    if (!ctx->mctx) {
        forge_re_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

void forge_re_ctx_free(struct forge_re_ctx *ctx)
{
    if (!ctx)
        return;
    pcre2_match_data_free(ctx->mdata);
    pcre2_match_context_free(ctx->mctx);
    pcre2_compile_context_free(ctx->cctx);
    pcre2_general_context_free(ctx->gctx);
    struct forge_re_mem mem = ctx->mem;
    mem.free(ctx, mem.ud);
}

void forge_re_ctx_set_heap(struct forge_re_ctx *ctx, size_t bytes)
{
    /* PCRE2 counts the heap in KiB; its default is 20,000,000 KiB. */
    size_t kib = bytes ? bytes / 1024 : 20000000;
    pcre2_set_heap_limit(ctx->mctx, (uint32_t)(kib > UINT32_MAX ? UINT32_MAX : kib ? kib : 1));
}

int forge_re_exec_in(struct forge_re_ctx *ctx, const struct forge_re *re, const char *subject,
                     size_t len, size_t start, size_t *ovec, int npairs, int checked,
                     struct forge_err *err)
{
    uint32_t need = (uint32_t)forge_re_groups(re) + 1;
    if (!ctx->mdata || ctx->mdata_pairs < need) {
        pcre2_match_data_free(ctx->mdata);
        uint32_t n = need < 16 ? 16 : need;
        ctx->mdata = pcre2_match_data_create(n, ctx->gctx);
        ctx->mdata_pairs = ctx->mdata ? n : 0;
        if (!ctx->mdata)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory matching a regex");
    }
    return exec(re, ctx->mctx, ctx->mdata, subject, len, start, ovec, npairs, checked, err);
}

/* The cache: a fixed hash table of chains, emptied when it holds too many patterns. */
#define CACHE_SLOTS 256
static struct forge_re *cache[CACHE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int cache_count;
/* forge_re_get (and forge_re_test) stop adding to the cache past this many patterns (a run that
 * tests a new literal per case, or a script making up patterns, must not grow it without
 * bound); forge_re_cached always caches, since its callers keep the pointer. */
#define TEST_CACHE_MAX 4096

static unsigned hash(const char *p, size_t n, int flags)
{
    uint32_t h = 2166136261u ^ (uint32_t)flags;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h % CACHE_SLOTS;
}

static void clear_locked(void)
{
    for (int i = 0; i < CACHE_SLOTS; i++) {
        while (cache[i]) {
            struct forge_re *n = cache[i]->next;
            forge_re_free(cache[i]);
            cache[i] = n;
        }
    }
    cache_count = 0;
}

void forge_re_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    clear_locked();
    pthread_mutex_unlock(&cache_lock);
}

const struct forge_re *forge_re_cached(const char *pattern, size_t len, int flags,
                                       struct forge_err *err)
{
    unsigned h = hash(pattern, len, flags);
    pthread_mutex_lock(&cache_lock);
    for (struct forge_re *r = cache[h]; r; r = r->next) {
        if (r->flags == flags && r->len == len && memcmp(r->pattern, pattern, len) == 0) {
            pthread_mutex_unlock(&cache_lock);
            return r;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    struct forge_re *re = forge_re_compile(pattern, len, flags, err);
    if (!re)
        return NULL;
    pthread_mutex_lock(&cache_lock);
    /* Another thread may have compiled the same pattern meanwhile: keep the first. */
    for (struct forge_re *r = cache[h]; r; r = r->next) {
        if (r->flags == flags && r->len == len && memcmp(r->pattern, pattern, len) == 0) {
            pthread_mutex_unlock(&cache_lock);
            forge_re_free(re);
            return r;
        }
    }
    re->next = cache[h];
    cache[h] = re;
    cache_count++;
    pthread_mutex_unlock(&cache_lock);
    return re;
}

const struct forge_re *forge_re_get(const char *pattern, size_t len, int flags,
                                    struct forge_re **own, struct forge_err *err)
{
    *own = NULL;
    pthread_mutex_lock(&cache_lock);
    int full = cache_count >= TEST_CACHE_MAX;
    const struct forge_re *re = NULL;
    if (full) {
        unsigned h = hash(pattern, len, flags);
        for (struct forge_re *r = cache[h]; r && !re; r = r->next)
            if (r->flags == flags && r->len == len && memcmp(r->pattern, pattern, len) == 0)
                re = r;
    }
    pthread_mutex_unlock(&cache_lock);
    if (re)
        return re;
    if (!full)
        return forge_re_cached(pattern, len, flags, err);
    return *own = forge_re_compile(pattern, len, flags, err);
}

int forge_re_test(const char *pattern, int flags, const char *subject, struct forge_err *err)
{
    struct forge_re *own = NULL;
    const struct forge_re *re = forge_re_get(pattern, strlen(pattern), flags, &own, err);
    if (!re)
        return err ? err->code : FORGE_EINVAL;
    size_t ov[2];
    int rc = forge_re_exec(re, subject, strlen(subject), 0, ov, 1, err);
    forge_re_free(own);
    return rc > 0 ? 1 : rc;
}
