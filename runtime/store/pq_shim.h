/* libpq is loaded on first use (see store/pq_shim.c and base/dl.h). Code calls the libpq API as
 * usual once forge_pq_load has succeeded. */
#ifndef FORGE_STORE_PQ_SHIM_H
#define FORGE_STORE_PQ_SHIM_H
#include "base/err.h"

/* Loads libpq once (thread-safe). Returns 0, or FORGE_EIO with a message naming the library and
 * the package to install. No other libpq function may be called before it has succeeded. */
int forge_pq_load(struct forge_err *err);
#endif
