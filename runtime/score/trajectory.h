/* The trajectory model (DESIGN.md, "The trajectory") and importers from the transcript formats
 * agents log. A trajectory is a forge-format cJSON tree:
 *   {"trajectory_id"?, "turns": [{"turn_id", "role": "user"|"agent", "content",
 *     "tool_calls"?: [{"id"?, "name", "arguments", "result"?, "error"?, "round"?}], ...}],
 *    "metadata"?: {...}}
 * a superset of agent-eval-harness's Trajectory, so its files load unchanged.
 *
 * Importers pair tool results with their calls by id; a user message starts a new turn (with a
 * new turn_id shared by the agent turn that answers it, as agent-eval-harness numbers them);
 * every assistant message up to the next user message belongs to one agent turn whose content
 * is their texts joined by a newline, and whose calls carry `round` = the index (from 1) of the
 * assistant message that issued them. Tool results that are JSON text holding an object or an
 * array become that value; other text becomes {"content": text}. Arguments that are JSON text
 * are parsed; other argument text stays a string. An Anthropic tool_result with is_error sets
 * the call's "error" to its text (and no result). */
#ifndef FORGE_SCORE_TRAJECTORY_H
#define FORGE_SCORE_TRAJECTORY_H
#include <cjson/cJSON.h>
#include "base/err.h"

/* Format names accepted by forge_trajectory_import and `forge check --input-format`:
 *   "forge"              forge's trajectory JSON (also agent-eval-harness's Trajectory)
 *   "agent-eval-harness" agent-eval-harness's Trajectory (same importer as "forge")
 *   "turns"              agent-eval-harness's turns (an array of Turn, as its JSONL holds)
 *   "openai"             OpenAI chat completions messages (array, or {"messages": [...]})
 *   "openai-responses"   OpenAI responses items (array, or {"input"|"output": [...]})
 *   "anthropic"          Anthropic messages (array, or {"messages": [...], "system"?})
 *   "gemini"             Gemini contents (array, or {"contents": [...]}); functionResponse
 *                        parts pair with calls by id, else by name (the last unanswered) */
extern const char *const forge_trajectory_formats[];

/* Guesses the format of <doc> (borrowed). Returns one of the names above, or NULL when the
 * document is none of them. */
const char *forge_trajectory_detect(const cJSON *doc);

/* Converts <doc> (borrowed) from <format> (a name above; NULL = detect) to a new forge-format
 * trajectory (free with cJSON_Delete). Fails with FORGE_EINVAL and a message naming the format
 * and the offending message or field (e.g. "openai: messages[3]: tool message without
 * tool_call_id"), or FORGE_ENOMEM. */
cJSON *forge_trajectory_import(const cJSON *doc, const char *format_or_NULL,
                               struct forge_err *err);

/* Like forge_trajectory_import but takes ownership of <doc>: a document already in forge's
 * format is returned as it is (no copy), any other is converted and freed. On failure <doc> is
 * freed too. */
cJSON *forge_trajectory_adopt(cJSON *doc, const char *format_or_NULL, struct forge_err *err);
#endif
