/* Tool definitions for tool-use checks, read from any of the formats agents declare tools in,
 * into one internal form: a cJSON object mapping each tool's name to an agent-eval-harness
 * ToolSchema {"name", "description"?, "parameters", "deprecated"?, "replacedBy"?} whose
 * `parameters` is the tool's JSON Schema as written (so deep checks can validate against it in
 * full). Accepted inputs (a single definition, an array of them, or an object wrapping them):
 *   forge tool JSON           {"name", "description", "schema": {...}}
 *   OpenAI tools              [{"type": "function", "function": {"name", "parameters"}}] (also
 *                             the flat responses form {"type": "function", "name", "parameters"})
 *   Anthropic tools           [{"name", "description", "input_schema"}]
 *   MCP tools/list result     {"tools": [{"name", "inputSchema"}]} or the JSON-RPC response
 *                             {"result": {"tools": [...]}}
 *   agent-eval-harness        ToolSchema [{"name", "parameters", "deprecated", "replacedBy"}] or
 *                             its Record<string, ToolSchema> {"name": {...}}
 *   PromptKit descriptors     {"apiVersion", "kind": "Tool", "metadata": {"name"}, "spec":
 *                             {"description", "input_schema", ...}} */
#ifndef FORGE_SCORE_TOOLDEFS_H
#define FORGE_SCORE_TOOLDEFS_H
#include <cjson/cJSON.h>
#include "base/err.h"

/* Converts <doc> (borrowed) to a new name -> ToolSchema object (free with cJSON_Delete).
 * Fails with FORGE_EINVAL naming the entry ("tools[2]: a tool needs a name", "tool 'x' is
 * defined twice") or FORGE_ENOMEM. */
cJSON *forge_tooldefs_import(const cJSON *doc, struct forge_err *err);

/* Reads and converts the JSON file at <path> (YAML when it ends in .yaml or .yml, whose
 * documents, when several, are a list of definitions); errors carry the path. */
cJSON *forge_tooldefs_load(const char *path, struct forge_err *err);
#endif
