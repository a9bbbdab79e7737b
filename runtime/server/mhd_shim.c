/* libmicrohttpd, loaded on first use: only forge serve and the MCP and agent servers need it,
 * and linking it would cost every forge run the loading of its TLS dependencies at start-up.
 * These definitions of the functions forge uses forward to libmicrohttpd.so.12; server.c calls
 * forge_mhd_load before any of them. */
#include "server/mhd_shim.h"
#include "base/dl.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>

/* X: functions that return a value; V: functions that return nothing. The two variadic ones
 * are written out below. */
#define MHD_FUNCS(X, V) \
    X(enum MHD_Result, MHD_add_response_header, (struct MHD_Response *r, const char *h, const char *v), \
      (r, h, v)) \
    X(const char *, MHD_lookup_connection_value, \
      (struct MHD_Connection *c, enum MHD_ValueKind k, const char *key), (c, k, key)) \
    X(struct MHD_Response *, MHD_create_response_from_callback, \
      (uint64_t n, size_t block, MHD_ContentReaderCallback crc, void *cls, MHD_ContentReaderFreeCallback crfc), \
      (n, block, crc, cls, crfc)) \
    X(struct MHD_Response *, MHD_create_response_from_buffer_with_free_callback, \
      (size_t n, void *buf, MHD_ContentReaderFreeCallback crfc), (n, buf, crfc)) \
    X(struct MHD_Response *, MHD_create_response_from_buffer, \
      (size_t n, void *buf, enum MHD_ResponseMemoryMode mode), (n, buf, mode)) \
    X(enum MHD_Result, MHD_queue_response, (struct MHD_Connection *c, unsigned int status, struct MHD_Response *r), \
      (c, status, r)) \
    V(MHD_destroy_response, (struct MHD_Response *r), (r)) \
    V(MHD_stop_daemon, (struct MHD_Daemon *d), (d))

static struct {
#define FIELD(ret, name, params, args) ret(*name) params;
#define VFIELD(name, params, args) void(*name) params;
    MHD_FUNCS(FIELD, VFIELD)
    struct MHD_Daemon *(*MHD_start_daemon_va)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                              MHD_AccessHandlerCallback, void *, va_list);
    const union MHD_DaemonInfo *(*MHD_get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *lib;
static char load_error[512];

static void load(void)
{
#define NAME(ret, name, params, args) #name,
#define VNAME(name, params, args) #name,
    static const char *const names[] = {MHD_FUNCS(NAME, VNAME) "MHD_start_daemon_va", "MHD_get_daemon_info"};
#define SLOT(ret, name, params, args) (void *)&fn.name,
#define VSLOT(name, params, args) (void *)&fn.name,
    void *const slots[] = {MHD_FUNCS(SLOT, VSLOT)(void *) & fn.MHD_start_daemon_va,
                           (void *)&fn.MHD_get_daemon_info};
    lib = forge_dl_open("libmicrohttpd.so.12", "libmicrohttpd", "libmicrohttpd12", names, slots,
                        sizeof names / sizeof names[0], load_error, sizeof load_error);
}

int forge_mhd_load(struct forge_err *err)
{
    pthread_once(&once, load);
    return lib ? 0 : forge_err_set(err, FORGE_EIO, "%s", load_error);
}

/* Forwarders: callers have loaded the library (forge_mhd_load) before they start a daemon. */
#define FWD(ret, name, params, args) \
    ret name params { return fn.name args; }
#define VFWD(name, params, args) \
    void name params { fn.name args; }
MHD_FUNCS(FWD, VFWD)

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
    va_list ap;
    va_start(ap, dh_cls);
    struct MHD_Daemon *d = fn.MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
    va_end(ap);
    return d;
}

/* forge asks only for information that takes no further argument (the bound port). */
const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *d, enum MHD_DaemonInfoType type, ...)
{
    return fn.MHD_get_daemon_info(d, type);
}
