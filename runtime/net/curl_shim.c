/* libcurl, loaded on first use (see base/dl.h): linking it would cost every forge run the
 * loading of its dependencies at start-up, for commands that never touch the network. These
 * definitions of the libcurl functions forge uses forward to libcurl.so.4, opened the first
 * time one is called. Code elsewhere uses <curl/curl.h> as usual. */
#define CURL_DISABLE_TYPECHECK
#include "net/curl_shim.h"
#include "base/dl.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CURL_FUNCS(X) \
    X(CURLcode, curl_global_init, (long flags), (flags)) \
    X(void, curl_global_cleanup, (void), ()) \
    X(CURL *, curl_easy_init, (void), ()) \
    X(void, curl_easy_cleanup, (CURL *h), (h)) \
    X(void, curl_easy_reset, (CURL *h), (h)) \
    X(CURL *, curl_easy_duphandle, (CURL *h), (h)) \
    X(CURLcode, curl_easy_perform, (CURL *h), (h)) \
    X(const char *, curl_easy_strerror, (CURLcode c), (c)) \
    X(char *, curl_easy_escape, (CURL *h, const char *s, int n), (h, s, n)) \
    X(char *, curl_easy_unescape, (CURL *h, const char *s, int n, int *o), (h, s, n, o)) \
    X(void, curl_free, (void *p), (p)) \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist *l, const char *s), (l, s)) \
    X(void, curl_slist_free_all, (struct curl_slist *l), (l)) \
    X(CURLM *, curl_multi_init, (void), ()) \
    X(CURLMcode, curl_multi_cleanup, (CURLM *m), (m)) \
    X(CURLMcode, curl_multi_add_handle, (CURLM *m, CURL *h), (m, h)) \
    X(CURLMcode, curl_multi_remove_handle, (CURLM *m, CURL *h), (m, h)) \
    X(CURLMcode, curl_multi_perform, (CURLM *m, int *r), (m, r)) \
    X(CURLMcode, curl_multi_poll, (CURLM *m, struct curl_waitfd *f, unsigned n, int t, int *r), \
      (m, f, n, t, r)) \
    X(CURLMcode, curl_multi_wait, (CURLM *m, struct curl_waitfd *f, unsigned n, int t, int *r), \
      (m, f, n, t, r)) \
    X(CURLMcode, curl_multi_wakeup, (CURLM *m), (m)) \
    X(CURLMsg *, curl_multi_info_read, (CURLM *m, int *q), (m, q)) \
    X(const char *, curl_multi_strerror, (CURLMcode c), (c)) \
    X(char *, curl_version, (void), ()) \
    X(time_t, curl_getdate, (const char *p, const time_t *unused), (p, unused)) \
    X(curl_version_info_data *, curl_version_info, (CURLversion v), (v))

static struct {
#define FIELD(ret, name, params, args) ret(*name) params;
    CURL_FUNCS(FIELD)
#undef FIELD
    CURLcode (*curl_easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*curl_easy_getinfo)(CURL *, CURLINFO, ...);
    CURLMcode (*curl_multi_setopt)(CURLM *, CURLMoption, ...);
} fn;

#define NAME(ret, name, params, args) #name,
static const char *const names[] = {CURL_FUNCS(NAME) "curl_easy_setopt", "curl_easy_getinfo", "curl_multi_setopt"};
#undef NAME
#define SLOT(ret, name, params, args) (void *)&fn.name,
static void *const slots[] = {CURL_FUNCS(SLOT)(void *) & fn.curl_easy_setopt, (void *)&fn.curl_easy_getinfo,
                              (void *)&fn.curl_multi_setopt};
#undef SLOT

static void init(void)
{
    fn.curl_global_init(CURL_GLOBAL_DEFAULT);
}

static struct forge_dl dl = FORGE_DL_INIT("libcurl.so.4", "libcurl", "libcurl4", names, slots, init);

static int ready(void)
{
    return forge_dl_ready(&dl);
}

int forge_curl_load(struct forge_err *err)
{
    int rc = forge_dl_load(&dl, err);
    return rc ? forge_err_set(err, FORGE_ENET, "%s", dl.msg) : 0;
}

/* Forwarders. A function returning a value gives the "failed" value when libcurl is missing:
 * NULL for pointers, CURLE_FAILED_INIT / CURLM_INTERNAL_ERROR for codes. */
static CURLcode fail_code(void) { return CURLE_FAILED_INIT; }

CURLcode curl_global_init(long flags)
{
    (void)flags;
    return ready() ? CURLE_OK : fail_code(); /* initialised once, when loaded */
}

void curl_global_cleanup(void)
{
    /* libcurl stays loaded and initialised for the life of the process. */
}

#define FWD_PTR(ret, name, params, args) \
    ret name params { return ready() && fn.name ? fn.name args : NULL; }
#define FWD_VOID(name, params, args) \
    void name params { if (ready() && fn.name) fn.name args; }

FWD_PTR(CURL *, curl_easy_init, (void), ())
FWD_VOID(curl_easy_cleanup, (CURL *h), (h))
FWD_VOID(curl_easy_reset, (CURL *h), (h))
FWD_PTR(CURL *, curl_easy_duphandle, (CURL *h), (h))
FWD_PTR(char *, curl_easy_escape, (CURL *h, const char *s, int n), (h, s, n))
FWD_PTR(char *, curl_easy_unescape, (CURL *h, const char *s, int n, int *o), (h, s, n, o))
FWD_VOID(curl_free, (void *p), (p))
FWD_PTR(struct curl_slist *, curl_slist_append, (struct curl_slist *l, const char *s), (l, s))
FWD_VOID(curl_slist_free_all, (struct curl_slist *l), (l))
FWD_PTR(CURLM *, curl_multi_init, (void), ())
FWD_PTR(CURLMsg *, curl_multi_info_read, (CURLM *m, int *q), (m, q))
FWD_PTR(char *, curl_version, (void), ())
FWD_PTR(curl_version_info_data *, curl_version_info, (CURLversion v), (v))

time_t curl_getdate(const char *p, const time_t *unused)
{
    return ready() && fn.curl_getdate ? fn.curl_getdate(p, unused) : (time_t)-1;
}

CURLcode curl_easy_perform(CURL *h)
{
    return ready() ? fn.curl_easy_perform(h) : fail_code();
}

const char *curl_easy_strerror(CURLcode c)
{
    return ready() ? fn.curl_easy_strerror(c) : dl.msg;
}

const char *curl_multi_strerror(CURLMcode c)
{
    return ready() ? fn.curl_multi_strerror(c) : dl.msg;
}

#define FWD_MULTI(name, params, args) \
    CURLMcode name params { return ready() && fn.name ? fn.name args : CURLM_INTERNAL_ERROR; }
FWD_MULTI(curl_multi_cleanup, (CURLM *m), (m))
FWD_MULTI(curl_multi_add_handle, (CURLM *m, CURL *h), (m, h))
FWD_MULTI(curl_multi_remove_handle, (CURLM *m, CURL *h), (m, h))
FWD_MULTI(curl_multi_perform, (CURLM *m, int *r), (m, r))
FWD_MULTI(curl_multi_poll, (CURLM *m, struct curl_waitfd *f, unsigned n, int t, int *r),
          (m, f, n, t, r))
FWD_MULTI(curl_multi_wait, (CURLM *m, struct curl_waitfd *f, unsigned n, int t, int *r),
          (m, f, n, t, r))
FWD_MULTI(curl_multi_wakeup, (CURLM *m), (m))

/* The option number says the type of the one variadic argument (curl.h CURLOPTTYPE_*). */
CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
    if (!ready())
        return fail_code();
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    if (opt < CURLOPTTYPE_OBJECTPOINT)
        rc = fn.curl_easy_setopt(h, opt, va_arg(ap, long));
    else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
        rc = fn.curl_easy_setopt(h, opt, va_arg(ap, void *));
    else if (opt < CURLOPTTYPE_OFF_T)
        rc = fn.curl_easy_setopt(h, opt, va_arg(ap, void (*)(void)));
    else if (opt < CURLOPTTYPE_BLOB)
        rc = fn.curl_easy_setopt(h, opt, va_arg(ap, curl_off_t));
    else
        rc = fn.curl_easy_setopt(h, opt, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
    if (!ready())
        return fail_code();
    va_list ap;
    va_start(ap, info);
    CURLcode rc = fn.curl_easy_getinfo(h, info, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLMcode curl_multi_setopt(CURLM *m, CURLMoption opt, ...)
{
    if (!ready() || !fn.curl_multi_setopt)
        return CURLM_INTERNAL_ERROR;
    va_list ap;
    va_start(ap, opt);
    CURLMcode rc;
    if (opt < CURLOPTTYPE_OBJECTPOINT)
        rc = fn.curl_multi_setopt(m, opt, va_arg(ap, long));
    else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
        rc = fn.curl_multi_setopt(m, opt, va_arg(ap, void *));
    else if (opt < CURLOPTTYPE_OFF_T)
        rc = fn.curl_multi_setopt(m, opt, va_arg(ap, void (*)(void)));
    else
        rc = fn.curl_multi_setopt(m, opt, va_arg(ap, curl_off_t));
    va_end(ap);
    return rc;
}
