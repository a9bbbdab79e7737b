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

/* Parses and validates one case of an eval file read a case at a time: <text> (<len> bytes) is
 * element <index> of the file's array and starts at <line>:<col> of the file <name>. Errors read
 * exactly as forge_evalfile_parse's on the whole file ("<name>:<line>:<col>: [<index>].key:
 * ..."), but for what needs the other cases (duplicate ids: forge_evalfile_case_error). Sets
 * *kase to a new tree. Returns 0 or FORGE_EINVAL / FORGE_ELIMIT. */
int forge_evalfile_parse_case(const char *text, size_t len, const char *name, int index, int line, int col,
                              cJSON **kase, struct forge_err *err);
/* The same for a case already parsed from <text> by forge_json_parse's rules: takes <doc>, and
 * sets *kase to it when it is valid, or frees it. */
int forge_evalfile_take_case(cJSON *doc, const char *text, size_t len, const char *name, int index, int line,
                             int col, cJSON **kase, struct forge_err *err);

/* Sets <err> to "<name>:<line>:<col>: [<index>].<key>: <what>" placed at <key>'s value in the
 * case's text (as forge_evalfile_parse_case takes it). Returns FORGE_EINVAL. */
int forge_evalfile_case_error(const char *text, size_t len, const char *name, int index, int line, int col,
                              const char *key, struct forge_err *err, const char *what);

/* Validates one case given as a tree (from Lua or an agent loop, without positions): returns 0
 * or FORGE_EINVAL with "<key path>: <what is wrong>". */
int forge_evalfile_check_case(const cJSON *kase, struct forge_err *err);

/* Writes into <out> (<n> bytes) the known key closest to <key> among the NULL-terminated
 * <known>, or "" when none is close. Returns <out>. */
char *forge_evalfile_suggest(const char *key, const char *const *known, char *out, size_t n);
#endif
