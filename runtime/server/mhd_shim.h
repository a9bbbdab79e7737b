/* libmicrohttpd is loaded on first use (see server/mhd_shim.c and base/dl.h). Code calls the
 * library's API as usual once forge_mhd_load has succeeded. */
#ifndef FORGE_SERVER_MHD_SHIM_H
#define FORGE_SERVER_MHD_SHIM_H
#include "base/err.h"

/* Loads libmicrohttpd once (thread-safe). Returns 0, or FORGE_EIO with a message naming the
 * library and the package to install. No other libmicrohttpd function may be called before it
 * has succeeded. */
int forge_mhd_load(struct forge_err *err);
#endif
