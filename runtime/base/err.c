/* Error struct helpers. */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int forge_err_set(struct forge_err *e, int code, const char *fmt, ...)
{
    if (!e)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
    e->trace[0] = '\0';
    return code;
}

void forge_err_prefix(struct forge_err *e, const char *fmt, ...)
{
    if (!e)
        return;
    char pre[FORGE_ERR_MAX];
    char old[FORGE_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    size_t n = strlen(pre);
    if (n > sizeof e->msg - 3)
        n = sizeof e->msg - 3;
    memcpy(e->msg, pre, n);
    memcpy(e->msg + n, ": ", 2);
    size_t room = sizeof e->msg - n - 3;
    size_t m = strlen(old);
    if (m > room)
        m = room;
    memcpy(e->msg + n + 2, old, m);
    e->msg[n + 2 + m] = '\0';
}

void forge_err_clear(struct forge_err *e)
{
    if (!e)
        return;
    e->code = 0;
    e->msg[0] = '\0';
    e->trace[0] = '\0';
}

const char *forge_rc_name(int code)
{
    switch (code) {
    case FORGE_OK: return "ok";
    case FORGE_EINVAL: return "invalid input";
    case FORGE_ENOMEM: return "out of memory";
    case FORGE_EIO: return "i/o error";
    case FORGE_ELIMIT: return "limit exceeded";
    case FORGE_ELUA: return "script error";
    case FORGE_ENET: return "network error";
    case FORGE_EFAIL: return "failed";
    default: return "internal error";
    }
}
