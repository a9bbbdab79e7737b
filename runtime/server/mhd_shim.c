/* libmicrohttpd, loaded on first use: only forge serve and the MCP and agent servers need it,
 * and linking it would cost every forge run the loading of its TLS dependencies at start-up.
 * These definitions of the functions forge uses forward to libmicrohttpd.so.12; server.c calls
 * forge_mhd_load before any of them. */
#include "server/mhd_shim.h"
#include "base/dl.h"

#include <microhttpd.h>
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
    MHD_FUNCS(FORGE_DL_FIELD, FORGE_DL_VFIELD)
    struct MHD_Daemon *(*MHD_start_daemon_va)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                              MHD_AccessHandlerCallback, void *, va_list);
    const union MHD_DaemonInfo *(*MHD_get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
} fn;

static const char *const names[] = {MHD_FUNCS(FORGE_DL_NAME, FORGE_DL_VNAME) "MHD_start_daemon_va",
                                    "MHD_get_daemon_info"};
static void *const slots[] = {MHD_FUNCS(FORGE_DL_SLOT, FORGE_DL_VSLOT)(void *) & fn.MHD_start_daemon_va,
                              (void *)&fn.MHD_get_daemon_info};
static struct forge_dl dl =
    FORGE_DL_INIT("libmicrohttpd.so.12", "libmicrohttpd", "libmicrohttpd12", names, slots, NULL);

int forge_mhd_load(struct forge_err *err)
{
    return forge_dl_load(&dl, err);
}

/* Forwarders: callers have loaded the library (forge_mhd_load) before they start a daemon. */
MHD_FUNCS(FORGE_DL_FWD, FORGE_DL_VFWD)

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
