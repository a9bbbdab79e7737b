/* Coverage: what a set of eval cases does not test about a set of tools (docs/coverage.md).
 *
 * Items, each covered or a gap:
 *   golden      per tool: a golden case expects it to be called
 *   labeled     per tool: a labeled case names it (expected, acceptable or excluded)
 *   called      per tool: some case expects it to be called
 *   not_called  per tool: some case expects it not to be called (toolsNotCalled,
 *               tool_calls.forbidden_tools, or a case that expects no tool call at all)
 *   verifier    per tool: a verifier is bound to it (by name or "*")
 *   overlap     per pair of tools whose texts are similar (token-set Jaccard >= threshold) or
 *               that the overlap map declares: a labeled case separates them
 *   cluster     per group of tools the overlap map declares used together: a labeled case
 *               names every tool of the group
 *   enum        per enum value of a top-level argument: a case expects that value
 *   optional    per optional top-level argument: a case names it
 * A case is golden or labeled by its `label` key, its file name (.golden. / .labeled.) or its
 * id (gs- / ls-), in that order; other cases count for called, not_called, enum and optional.
 * The coverage figure is covered items / items over the kinds not ignored. */
#ifndef FORGE_EVAL_COVERAGE_H
#define FORGE_EVAL_COVERAGE_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

enum forge_cov_kind {
    FORGE_COV_GOLDEN,
    FORGE_COV_LABELED,
    FORGE_COV_CALLED,
    FORGE_COV_NOT_CALLED,
    FORGE_COV_VERIFIER,
    FORGE_COV_OVERLAP,
    FORGE_COV_CLUSTER,
    FORGE_COV_ENUM,
    FORGE_COV_OPTIONAL,
    FORGE_COV_NKINDS
};

/* The kinds' names as the report spells them ("golden", ..., "optional"). */
extern const char *const forge_coverage_kinds[FORGE_COV_NKINDS];

#define FORGE_COV_OVERLAP_DEFAULT 0.3
/* Most case ids a pair's separated_by (a cluster's covered_by) lists; the count is beside it. */
#define FORGE_COV_MAX_IDS 10

struct forge_cov_opts {
    double overlap;            /* similarity threshold of an overlapping pair (0..1] */
    bool ignore[FORGE_COV_NKINDS]; /* kinds left out of the report and the figure */
    const cJSON *overlap_map;  /* agent-tool-forge's overlap map, checked with
                                  forge_coverage_check_map (borrowed), or NULL */
};

/* Checks an overlap map {tool: {"overlaps": [tool...], "clusters": [[tool...]...], "reason"}}
 * against <tools>: every key and name must be a tool, a cluster has at least two distinct
 * tools. Returns 0, or FORGE_EINVAL with "<key path>: <what is wrong>". */
int forge_coverage_check_map(const cJSON *map, const cJSON *tools, struct forge_err *err);

/* Kind of a case: 1 golden, 2 labeled, 0 neither (rules above). <file> may be NULL. */
int forge_coverage_case_kind(const char *file, const cJSON *kase);

/* Computes the coverage report of <cases> (array of {"file": path, "case": validated case},
 * borrowed) over <tools> (array of tool definitions {name, description, parameters,
 * triggerPhrases, tags}, borrowed). <guards> maps a tool name to the array of verifier names
 * that run on it (NULL: no verifiers at all). Returns a new tree:
 *   {"coverage": covered/items (1 when there are no items), "covered", "items",
 *    "kinds": {kind: {"covered", "items"}}, "overlap_threshold",
 *    "tools": [{"name", "golden", "labeled", "called", "not_called" (case counts),
 *               "verifiers": [names], "groups": [output groups]}],
 *    "overlaps": [{"tools": [a, b], "similarity", "declared", "shared": [tokens],
 *                  "separated_by": [first ids], "separating": count}],
 *    "clusters": [{"tools": [sorted names], "covered_by": [first ids], "covering": count}],
 *    "arguments": [{"tool", "argument", "kind": "enum"|"optional", "value"?, "cases": n}],
 *    "gaps": [{"kind", "tool", "other"?, "tools"? (cluster), "argument"?, "value"?}],
 *    "warnings": [text]}
 * or NULL when out of memory. */
cJSON *forge_coverage_compute(const cJSON *tools, const cJSON *guards, const cJSON *cases,
                              const struct forge_cov_opts *o, struct forge_err *err);

/* The output groups of a tool (agent-tool-forge's keyword table over its description, tags and
 * name): a new array of names, ["unknown"] when no keyword matches. */
cJSON *forge_coverage_groups(const cJSON *tool);

/* Similarity of two tools' texts: token-set Jaccard (0..1). *shared (may be NULL) receives a new
 * array of the shared tokens. */
double forge_coverage_similarity(const cJSON *a, const cJSON *b, cJSON **shared);
#endif
