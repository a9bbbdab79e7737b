/* Error codes and the error struct every fallible function fills. */
#ifndef FORGE_BASE_ERR_H
#define FORGE_BASE_ERR_H

/* Return codes: 0 is success, failures are negative. runtime/cli maps them to exit codes
 * (DESIGN.md): EINVAL/ELIMIT/ELUA -> 2, ENET -> 3, EFAIL (a verdict "failed") -> 1. */
enum forge_rc {
    FORGE_OK = 0,
    FORGE_EINVAL = -1,   /* bad input: file, key, flag or value; message names it */
    FORGE_ENOMEM = -2,   /* allocation failed */
    FORGE_EIO = -3,      /* file system error */
    FORGE_ELIMIT = -4,   /* a configured limit was hit; message names the limit and its flag */
    FORGE_ELUA = -5,     /* a Lua script raised an error */
    FORGE_ENET = -6,     /* network or provider failure (after retries) */
    FORGE_EFAIL = -7,    /* a check or verdict failed (not an error of forge or its input) */
    FORGE_EINTERNAL = -8 /* a bug in forge */
};

#define FORGE_ERR_MAX 2048

/* Caller-owned error: code plus a message a person can act on, and an optional traceback. */
struct forge_err {
    int code;
    char msg[FORGE_ERR_MAX];
    char trace[FORGE_ERR_MAX];
};

/* Declares an empty forge_err <e> on the stack of a hot path: `= {0}` would clear all its 4 KiB
 * for each call. Readers look at code, msg and trace as C strings only. */
#define FORGE_ERR_LOCAL(e) \
    struct forge_err e;    \
    (e).code = 0;          \
    (e).msg[0] = 0;        \
    (e).trace[0] = 0

/* Sets code and message (printf format); returns code so callers can `return forge_err_set(...)`.
 * <e> may be NULL. */
int forge_err_set(struct forge_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes the existing message with "<prefix>: " (for adding file or key context). */
void forge_err_prefix(struct forge_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void forge_err_clear(struct forge_err *e);

/* A short name for a code ("invalid input", "limit exceeded", ...). */
const char *forge_rc_name(int code);

#endif
