/* The callable interface: how C code outside runtime/lua calls user code (a Lua function, or a
 * test double) without knowing Lua. Arguments and results are JSON. */
#ifndef FORGE_DATA_CALLABLE_H
#define FORGE_DATA_CALLABLE_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include "base/err.h"

struct forge_callable {
    /* Calls the user function with <args> (borrowed). On success sets *out to a new tree (or
     * NULL for no value) and returns 0; on failure fills <err> (FORGE_ELUA for a script error,
     * FORGE_ELIMIT for a broken limit) and returns its code. */
    int (*call)(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err);
    void *ctx;
    const char *name; /* for messages; borrowed */
    /* The function reads its first argument only (a Lua function declared with at most one
     * parameter and no "..."): a caller may leave out the arguments after the first, which
     * it would otherwise build and convert for nothing. False when unknown. */
    bool one_arg;
};
#endif
