/* Record/replay of provider exchanges for hermetic runs. A cassette is a JSONL file, one
 * exchange per line:
 *   {"key": "<sha256>", "provider": "openai", "model": "gpt-4o-mini",
 *    "request": {<wire body sent>}, "status": 200, "response": {<wire body received>}}
 * ("response" is a string when the provider's body was not JSON). Keys are cache keys
 * (cache.h) computed with an empty base URL, so a cassette replays whatever URL it was recorded
 * against, and a replayed request must match a recorded one in everything it would send.
 * No header, API key or URL is written. */
#ifndef FORGE_MODEL_CASSETTE_H
#define FORGE_MODEL_CASSETTE_H
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_cassette;

/* Opens <path> for recording (created or truncated) or, with <replay>, loads it whole. Replay
 * fails with FORGE_EIO when the file is missing and FORGE_EINVAL ("<path>:<line>:<col>: ...")
 * on a malformed line. */
int forge_cassette_open(const char *path, int replay, struct forge_cassette **out, struct forge_err *err);
void forge_cassette_free(struct forge_cassette *c);

/* Appends one exchange (thread-safe; the line is flushed at once). <request> is borrowed;
 * <body> is the raw response body. Every string in the NULL-terminated <secrets> is replaced by
 * "[REDACTED]" in the written line. */
int forge_cassette_record(struct forge_cassette *c, const char *key, const char *provider,
                          const char *model, const cJSON *request, long status, const char *body,
                          const char *const *secrets, struct forge_err *err);

/* Finds the answer recorded for <key> (thread-safe). When the key was recorded several times
 * the answers are served in order, the last one repeating. Returns 0 with *status and *body
 * (a new string, free with forge_free) or FORGE_ENET when the cassette has no answer. */
int forge_cassette_find(struct forge_cassette *c, const char *key, long *status, char **body,
                        struct forge_err *err);
#endif
