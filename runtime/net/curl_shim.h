/* libcurl is loaded on first use (see curl_shim.c). Code calls the libcurl API as usual; this
 * reports whether the library could be loaded, with a message saying how to fix it. */
#ifndef FORGE_NET_CURL_SHIM_H
#define FORGE_NET_CURL_SHIM_H
#include "base/err.h"

/* Loads and initialises libcurl once (thread-safe). Returns 0, or FORGE_ENET with a message
 * naming the library and the package to install. */
int forge_curl_load(struct forge_err *err);
#endif
