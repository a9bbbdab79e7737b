/* YAML input (runtime/data/yaml.c, on libyaml): YAML read into the same cJSON trees as JSON, so
 * every file forge reads as JSON it also reads as YAML.
 *
 * - Plain scalars resolve by YAML 1.2's core schema: null (`null`, `Null`, `NULL`, `~`, empty),
 *   booleans (`true`/`True`/`TRUE`, `false`/...), integers (`[-+]?[0-9]+`, `0o[0-7]+`,
 *   `0x[0-9a-fA-F]+`) and floats become JSON values; `.inf`, `-.inf`, `.nan` and numbers too
 *   large for a double (JSON has no such numbers) stay their text; everything else, and every quoted scalar, is a string.
 *   `!!str`, `!!int`, `!!float`, `!!bool`, `!!null` tags are honoured (a value that does not
 *   fit its tag is an error); other tags are ignored.
 * - Aliases are expanded. The expanded size counts against forge_json_node_limit()
 *   (--max-json-nodes) before any tree is built, so an alias bomb is refused without
 *   allocating it; an alias inside the node it names (a recursive alias) is an error.
 * - Mapping keys are scalars, taken as their text; a key given twice, a collection or alias as
 *   a key, a NUL character in a scalar and nesting deeper than 1000 levels are errors.
 * Errors are FORGE_EINVAL (FORGE_ELIMIT for the value limit) with "<name>:<line>:<col>: ...";
 * lines and columns count from 1, columns in characters. */
#ifndef FORGE_DATA_YAML_H
#define FORGE_DATA_YAML_H
#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* Where each node of a parsed tree came from: the start of its value and, for a member of an
 * object, of its key. Keyed by node address: valid while the tree is neither freed nor
 * changed. A node copied from an alias has the alias's position; its children have none. */
struct forge_yaml_marks;

/* Parses a YAML stream holding exactly one document. Returns a new tree (free with
 * cJSON_Delete) or NULL with <err>; an input with no document or with a second one is an
 * error. */
cJSON *forge_yaml_parse(const char *text, size_t len, const char *name, struct forge_err *err);

/* forge_yaml_parse that also returns the positions of the nodes: on success *marks is new (free
 * with forge_yaml_marks_free); <marks> may be NULL. */
cJSON *forge_yaml_parse_marked(const char *text, size_t len, const char *name,
                               struct forge_yaml_marks **marks, struct forge_err *err);

/* Parses every document of a YAML stream (separated by `---`): returns a new array with one
 * element per document, empty for an empty stream. The value limit counts over the whole
 * input; anchors are per document, as YAML says. <marks> as above, may be NULL. */
cJSON *forge_yaml_parse_all(const char *text, size_t len, const char *name,
                            struct forge_yaml_marks **marks, struct forge_err *err);

/* Counts the values every document of the stream expands to (aliases included) without
 * building anything: what a parse would allocate, for callers that charge memory first.
 * Returns 0 with *values set, or the error a parse would give. */
int forge_yaml_count(const char *text, size_t len, const char *name, size_t *values, struct forge_err *err);

/* The 1-based position of <node>'s value (or, with <key>, of its key). Returns false, leaving
 * *line and *col alone, when the node has no recorded position. */
bool forge_yaml_mark(const struct forge_yaml_marks *marks, const cJSON *node, bool key, int *line,
                     int *col);

void forge_yaml_marks_free(struct forge_yaml_marks *marks);

/* Whether <path> names a YAML file (it ends in .yaml or .yml). */
bool forge_yaml_is_path(const char *path);
#endif
