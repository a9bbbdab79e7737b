/* The on-disk response cache. One file per answer under <dir>/<2 hex>/<64 hex>.json holding
 * the normalized response; the name is the SHA-256 of everything that decides the answer
 * (provider, base URL, model and the exact request body). Only successful answers are stored.
 * Writes go through a temporary file and a rename, so concurrent runs never see half a file.
 * Keys and headers are never part of what is stored. */
#ifndef FORGE_MODEL_CACHE_H
#define FORGE_MODEL_CACHE_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* Writes the lowercase hex SHA-256 of <len> bytes of <data> into <hex> (65 bytes). */
void forge_sha256_hex(const void *data, size_t len, char hex[65]);

/* Writes the cache key of one request into <hex> (65 bytes). */
void forge_cache_key(const char *provider, const char *base_url, const char *model,
                     const char *body, char hex[65]);

/* Returns the default cache folder as a new string: $XDG_CACHE_HOME/forge/models, else
 * $HOME/.cache/forge/models; NULL when neither variable is set or out of memory. */
char *forge_cache_default_dir(void);

/* Looks <key> up in <dir>: returns a new response tree, or NULL on a miss (an unreadable or
 * corrupt entry counts as a miss). */
cJSON *forge_cache_get(const char *dir, const char *key);

/* Stores <resp> (borrowed) under <key>, creating folders as needed. Fails with FORGE_EIO. */
int forge_cache_put(const char *dir, const char *key, const cJSON *resp, struct forge_err *err);
#endif
