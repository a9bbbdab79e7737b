/* Tool-use validation of trajectories: forge's port of agent-eval-harness's tool-use package
 * (validateToolCall, validateTurn, validateTrajectory, validateSchema, createToolSchema,
 * verifyResult, verifyTurnResults, summarizeResultVerification), plus forge's deep detectors.
 *
 * Inputs and outputs are cJSON trees with upstream's field names, so forge's output and
 * upstream's can be diffed: a ValidationResult is {valid, issues, suggestions, score}; a
 * validator issue {type, severity, description, turnId, toolName, details}; a schema issue
 * {type, severity, path, message, expected, actual}; a ResultVerificationResult
 * {valid, issues, score, hallucinated, integrated}. Scores are the same IEEE doubles upstream
 * computes (0.30000000000000004 included). Inputs are borrowed; every returned tree is new
 * (free with cJSON_Delete). The functions are pure and thread-safe.
 *
 * JavaScript semantics reproduced: truthiness (`!call.result` is true for null, false, 0, ""),
 * `key in obj` presence (null counts as present), typeof (null and arrays are "object"),
 * String(value) and JSON.stringify formatting, UTF-16 lengths, full Unicode toLowerCase, and
 * the upstream regular expressions. Where upstream would throw a TypeError (a turn whose
 * `content` is not a string, a schema without `parameters`), forge treats the missing value as
 * empty and goes on.
 *
 * Deep mode (opts.deep) adds detectors that upstream declares but never emits; it never changes
 * what the upstream detectors report, only adds issues (and so lowers scores). */
#ifndef FORGE_SCORE_TOOLUSE_H
#define FORGE_SCORE_TOOLUSE_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* Checks the arguments of a call against a full JSON Schema in deep mode (schema_violation).
 * Returns 1 valid, 0 invalid (then *errors may be set to a new array of {instanceLocation,
 * error} objects), negative on failure. <ctx> is the validate_schema_ctx below. */
typedef int (*forge_tooluse_schema_fn)(void *ctx, const char *tool, const cJSON *args,
                                       cJSON **errors);

/* ValidateOptions. forge_tooluse_opts_init sets upstream's defaults. */
struct forge_tooluse_opts {
    bool allow_unknown_tools;  /* allowUnknownTools (false) */
    bool validate_schemas;     /* validateSchemas (true) */
    bool check_result_usage;   /* checkResultUsage (true) */
    bool detect_hallucination; /* detectHallucination (true) */
    bool strict;               /* strict (false) */
    bool deep;                 /* deep (false): forge's extra detectors */
    forge_tooluse_schema_fn schema_check; /* deep schema_violation; NULL = not checked */
    void *schema_ctx;
};

/* VerifyOptions. forge_verify_opts_init sets upstream's defaults. */
struct forge_verify_opts {
    bool check_usage;               /* checkUsage (true) */
    bool detect_hallucination;      /* detectHallucination (true) */
    bool check_contradictions;      /* checkContradictions (true) */
    double hallucination_threshold; /* hallucinationThreshold (0.3); flags when score > it */
    bool deep;                      /* deep (false) */
};

void forge_tooluse_opts_init(struct forge_tooluse_opts *o);
void forge_verify_opts_init(struct forge_verify_opts *o);

/* Reads upstream option names from the JSON object <obj> (NULL or null: defaults) into <o>,
 * starting from the defaults. JavaScript rules: a key set to null or false is off, any truthy
 * value is on. Unknown keys are ignored (upstream ignores them too). Cannot fail. */
void forge_tooluse_opts_json(const cJSON *obj, struct forge_tooluse_opts *o);
void forge_verify_opts_json(const cJSON *obj, struct forge_verify_opts *o);

/* validateTurn(turn, toolSchemas, options). <schemas> is an object name -> ToolSchema (NULL:
 * none). <traj> (may be NULL) is the trajectory holding the turn, used only by deep detectors.
 * Returns a new ValidationResult, or NULL with FORGE_ENOMEM. */
cJSON *forge_tooluse_validate_turn(const cJSON *turn, const cJSON *schemas, const cJSON *traj,
                                   const struct forge_tooluse_opts *o, struct forge_err *err);

/* validateToolCall(call, schema?, options): the call alone in a synthetic agent turn with
 * turn_id 0; <schema> (may be NULL) is keyed by the call's name. */
cJSON *forge_tooluse_validate_tool_call(const cJSON *call, const cJSON *schema,
                                        const struct forge_tooluse_opts *o, struct forge_err *err);

/* validateTrajectory(trajectory, toolSchemas, options): an array with one ValidationResult per
 * agent turn that has `tool_calls` (an empty array counts). */
cJSON *forge_tooluse_validate_trajectory(const cJSON *traj, const cJSON *schemas,
                                         const struct forge_tooluse_opts *o,
                                         struct forge_err *err);

/* validateSchema(call, schema): {valid, issues, score} with schema-checker weights. */
cJSON *forge_tooluse_validate_schema(const cJSON *call, const cJSON *schema,
                                     struct forge_err *err);

/* createToolSchema(name, jsonSchema, description?): <description> may be NULL (absent). */
cJSON *forge_tooluse_create_tool_schema(const char *name, const cJSON *json_schema,
                                        const cJSON *description, struct forge_err *err);

/* verifyResult(call, turn, trajectory?, options). <traj> may be NULL. */
cJSON *forge_tooluse_verify_result(const cJSON *call, const cJSON *turn, const cJSON *traj,
                                   const struct forge_verify_opts *o, struct forge_err *err);

/* verifyTurnResults(turn, trajectory?, options): an array of results, one per call. */
cJSON *forge_tooluse_verify_turn_results(const cJSON *turn, const cJSON *traj,
                                         const struct forge_verify_opts *o,
                                         struct forge_err *err);

/* summarizeResultVerification(trajectory, options): {totalTools, validResults,
 * hallucinatedResults, integratedResults, averageScore, issues}. */
cJSON *forge_tooluse_summarize(const cJSON *traj, const struct forge_verify_opts *o,
                               struct forge_err *err);

/* The whole check of one trajectory as `forge check` reports it: {"validation": [...one
 * ValidationResult per agent turn with tool_calls, each with "turn_id"...], "results": [...one
 * ResultVerificationResult per call of an agent turn, each with "turn_id" and "tool"...],
 * "summary": {...summarizeResultVerification...}}. Computes each verification once: the
 * summary's "issues" are cJSON references to the issue objects inside "results", so keep the
 * tree whole (free it with one cJSON_Delete; do not free "results" before "summary"). */
cJSON *forge_tooluse_check(const cJSON *traj, const cJSON *schemas,
                           const struct forge_tooluse_opts *vo,
                           const struct forge_verify_opts *ro, struct forge_err *err);

/* Compiled JSON Schemas of a name -> ToolSchema map, for the deep schema_violation check: each
 * tool's `parameters` is compiled as a full JSON Schema (draft from its $schema, else 2020-12;
 * formats are annotations). Returns a new set (free with forge_tooluse_schemas_free) or NULL
 * with FORGE_EINVAL naming the tool whose schema does not compile. Thread-safe once built. */
struct forge_tooluse_schemas;
struct forge_tooluse_schemas *forge_tooluse_schemas_compile(const cJSON *schemas,
                                                            struct forge_err *err);
void forge_tooluse_schemas_free(struct forge_tooluse_schemas *s);
/* A forge_tooluse_schema_fn over a compiled set (<ctx> is the set); tools not in it pass. */
int forge_tooluse_schemas_check(void *ctx, const char *tool, const cJSON *args, cJSON **errors);

/* JavaScript's String(v).toLowerCase() appended to <out> (a forge_buf): exposed for tests. */
struct forge_buf;
int forge_tooluse_lower(struct forge_buf *out, const char *s, size_t n);

/* For tests, on the calling thread: objects of more than <n> members are looked up through a
 * sorted index of their names (negative: the default, 16). */
void forge_tooluse_test_members_scan(int n);
/* For tests, on the calling thread: "a later turn contains" and "an earlier turn holds the
 * number" answered turn by turn, as the definitions read, instead of by the ordered texts and
 * the table of first turns. */
void forge_tooluse_test_scan_turns(bool on);
#endif
