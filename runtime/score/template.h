/* {{seed:path}} and {{snapshot:path}} templates in eval-file values (agent-tool-forge's
 * documented, never-implemented templates). A path is split on '.', a segment "key[N]" is a key
 * then an array index; a missing or null step leaves the token unresolved. */
#ifndef FORGE_SCORE_TEMPLATE_H
#define FORGE_SCORE_TEMPLATE_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* True when <s> contains a "{{seed:" or "{{snapshot:" token. */
bool forge_template_has(const char *s);

/* Borrows the value at dotted <path> ("a.b[2].c") in <root>; NULL when a step is missing or null
 * or <root> is NULL. */
const cJSON *forge_template_lookup(const cJSON *root, const char *path);

/* Resolves the tokens in the string <s>. <seed> and <snapshot> are borrowed and may be NULL (then
 * every token of that kind is unresolved). Seed tokens resolve before snapshot tokens. When <s> is
 * exactly one token the result is a copy of the resolved JSON value itself (a number stays a
 * number); otherwise every token is replaced by its text (numbers as JavaScript's String(n),
 * strings as they are, booleans, objects and arrays as JSON) and the result is a string.
 * Returns 0 and sets *out to a new value (free with cJSON_Delete), or sets *out to NULL when a
 * token is unresolved and writes the first unresolved token into <why> (at least 256 bytes).
 * Fails only with FORGE_ENOMEM. */
int forge_template_resolve(const char *s, const cJSON *seed, const cJSON *snapshot, cJSON **out,
                           char *why, struct forge_err *err);
#endif
