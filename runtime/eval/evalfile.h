/* Eval files: agent-tool-forge's bare JSON array of cases (its `expect` form and its `checks`
 * form) with forge's additions in `expect`. Loading validates every key: a bad file fails with
 * "<file>:<line>:<col>: <key path>: <what is wrong>", an unknown key gets a did-you-mean, a wrong
 * type names the expected one. docs/eval-format.md lists every key. */
#ifndef FORGE_EVAL_EVALFILE_H
#define FORGE_EVAL_EVALFILE_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* Reads, parses and validates the eval file at <path> (JSON, or YAML when it ends in .yaml or .yml) (capped at the input limit of
 * forge_file_read_input). On success sets *cases to a new cJSON array of the cases (free with
 * cJSON_Delete) and returns 0; on failure returns FORGE_EINVAL (or the file error) with the
 * message described above. */
int forge_evalfile_load(const char *path, cJSON **cases, struct forge_err *err);

/* The same over <len> bytes of <text>; <name> labels messages. A <name> ending in .yaml or .yml
 * reads the text as YAML (runtime/data/yaml.h): the same cases, the same checks, messages at the
 * line and column of the offending YAML node. */
int forge_evalfile_parse(const char *text, size_t len, const char *name, cJSON **cases,
                         struct forge_err *err);

/* Validates one case given as a tree (from Lua or an agent loop, without positions): returns 0
 * or FORGE_EINVAL with "<key path>: <what is wrong>". */
int forge_evalfile_check_case(const cJSON *kase, struct forge_err *err);

/* Writes into <out> (<n> bytes) the known key closest to <key> among the NULL-terminated
 * <known>, or "" when none is close. Returns <out>. */
char *forge_evalfile_suggest(const char *key, const char *const *known, char *out, size_t n);
#endif
