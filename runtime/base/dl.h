/* Libraries loaded on first use. A library linked to the binary costs every forge run the
 * dynamic loader's work at start-up: mapping and relocating it and every library it depends
 * on. libcurl, libpq and libmicrohttpd bring about thirty such dependencies (TLS, Kerberos,
 * LDAP, SASL), which cost a run that never touches the network, PostgreSQL or the server
 * several milliseconds, most of its start-up. Their shims (net/curl_shim, store/pq_shim,
 * server/mhd_shim) define the functions forge calls and forward them to the library, opened
 * here the first time one is needed. */
#ifndef FORGE_BASE_DL_H
#define FORGE_BASE_DL_H
#include "base/err.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* One library: its file, the names in messages, and the functions to look up (<names>[i] into
 * the function pointer that <slots>[i] points to). <after>, when set, runs once after a
 * successful load. The rest is the loader's. Define one statically with FORGE_DL_INIT. */
struct forge_dl {
    const char *soname, *what, *package;
    const char *const *names;
    void *const *slots;
    size_t n;
    void (*after)(void);
    pthread_mutex_t mu;
    atomic_int state; /* 0 not tried, 1 loaded, -1 failed */
    char msg[512];
};
#define FORGE_DL_INIT(soname, what, package, names, slots, after) \
    {soname, what, package, names, slots, sizeof(names) / sizeof(names)[0], after, PTHREAD_MUTEX_INITIALIZER, 0, ""}

/* A shim lists its functions as X(ret, name, params, args) (returning a value) and
 * V(name, params, args) (returning nothing), keeps their addresses in a struct named fn, and
 * builds the rest from the list with these: fn's fields, the names and slots for FORGE_DL_INIT,
 * and forwarders that call through fn (for libraries loaded before any such call). */
#define FORGE_DL_FIELD(ret, name, params, args) ret(*name) params;
#define FORGE_DL_VFIELD(name, params, args) void(*name) params;
#define FORGE_DL_NAME(ret, name, params, args) #name,
#define FORGE_DL_VNAME(name, params, args) #name,
#define FORGE_DL_SLOT(ret, name, params, args) (void *)&fn.name,
#define FORGE_DL_VSLOT(name, params, args) (void *)&fn.name,
#define FORGE_DL_FWD(ret, name, params, args) \
    ret name params { return fn.name args; }
#define FORGE_DL_VFWD(name, params, args) \
    void name params { fn.name args; }

/* Loads <d> the first time (thread-safe; the library stays open for the life of the process).
 * Returns 0 when it is loaded, or FORGE_EIO with a message saying what could not be loaded, why,
 * and which Debian package provides it; a failure is remembered and reported again. */
int forge_dl_load(struct forge_dl *d, struct forge_err *err);

/* Whether <d> is loaded, loading it the first time: forge_dl_load without the message. */
static inline int forge_dl_ready(struct forge_dl *d)
{
    if (atomic_load_explicit(&d->state, memory_order_acquire) == 1)
        return 1;
    return forge_dl_load(d, NULL) == 0;
}
#endif
