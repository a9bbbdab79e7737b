/* PromptKit's tool descriptor files as forge tools. A descriptor is a Kubernetes-style manifest
 *
 *   apiVersion: promptkit.altairalabs.ai/v1alpha1
 *   kind: Tool
 *   metadata: {name: get_weather}
 *   spec: {description, input_schema, output_schema, mode, mock_result, mock_template, http, ...}
 *
 * in YAML (the form PromptKit requires for YAML) or JSON, one tool per file as PromptKit reads
 * it. The tool's name is metadata.name. As PromptKit requires, description, input_schema and
 * output_schema must be given. Executors by mode:
 *   mock (or no mode, or client)  mock_template (mock_template_file) -> forge's template mock,
 *                                 else mock_result (mock_result_file) -> a static mock, else
 *                                 PromptKit's placeholder {"result": "mock response"}
 *   live                          http -> forge's HTTP executor (method POST unless given, as
 *                                 PromptKit; url, headers, headers_from_env, timeout_ms, redact)
 * output_schema checks every result (forge_tool_execute). A mock template may use PromptKit's
 * field substitutions ({{.city}}, {{ .a.b }}, {{.}}, with {{- -}} trimming); other Go template
 * actions (if, range, printf, ...) are refused at load. Keys forge does not run (mock_parts, exec,
 * a2a, http.request/response mappings, modes mcp/local/others) are errors, as are unknown keys
 * (with a did-you-mean). File paths resolve against the descriptor's folder. */
#ifndef FORGE_TOOLS_PROMPTKIT_H
#define FORGE_TOOLS_PROMPTKIT_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_yaml_marks;

/* Whether <doc> is a manifest: an object with "apiVersion" and "kind". */
bool forge_promptkit_is_manifest(const cJSON *doc);

/* Converts the manifest <doc> (borrowed) read from <file> into forge's tool JSON (a new tree for
 * forge_tool_from_json). With <marks> (the positions of a YAML file, may be NULL) messages are
 * "<file>:<line>:<col>: <key path>: <what>", else "<file>: <key path>: <what>". Returns NULL with
 * FORGE_EINVAL (or a file error for *_file keys). */
cJSON *forge_promptkit_tool(const cJSON *doc, const char *file, const struct forge_yaml_marks *marks,
                            struct forge_err *err);

/* Turns a PromptKit mock template into forge's template text (a new string, free with
 * forge_free), or NULL with FORGE_EINVAL naming the action forge does not run. */
char *forge_promptkit_template(const char *tmpl, struct forge_err *err);
#endif
