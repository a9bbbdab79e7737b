/* Verifiers: checks run on each tool result before the model sees it (agent-tool-forge's
 * runtime rules). A verifier is bound to tool names or "*", has an `order` key (ACIRU:
 * A-0001 attribution, C compliance, I interface, R risk, U uncertainty; default "Z-9999") and
 * is one of:
 *   - a function verify(call) -> "pass" | "warn" | "block" [, message]   (a callable)
 *   - schema:  the result must be valid against a JSON Schema, else block
 *   - pattern: {match = regex, reject = regex, outcome = "warn" | "block"} on the result's text
 *              (a string result as it is, other results as JSON)
 * For one call: the verifiers bound to the tool, then those bound to "*", deduplicated by name
 * (first wins), stably sorted by order, run in turn; a block stops the run; the worst outcome
 * wins (pass < warn < block; the first of equals keeps its message). A verifier that raises,
 * breaks a limit or returns something else than pass/warn/block gives block when the tool's
 * category is write or delete, and warn otherwise. Verifiers run on results, not on calls that
 * already failed. */
#ifndef FORGE_TOOLS_VERIFY_H
#define FORGE_TOOLS_VERIFY_H
#include <cjson/cJSON.h>
#include "base/err.h"
#include "base/strtab.h"
#include "data/callable.h"

struct forge_schema;
struct forge_tool;

enum forge_verifier_kind { FORGE_VERIFIER_FN = 0, FORGE_VERIFIER_SCHEMA, FORGE_VERIFIER_PATTERN };

struct forge_verifier {
    char *name;
    char *order;
    char **tools;  /* names, or "*" */
    int ntools;
    enum forge_verifier_kind kind;
    struct forge_callable fn;
    void (*free_fn)(void *ctx);
    struct forge_schema *schema;
    char *match, *reject;
    int pattern_outcome; /* 1 warn, 2 block */
};

struct forge_verifier_list {
    int *i; /* verifier indexes, ascending */
    int n, cap;
};

struct forge_verifiers {
    struct forge_verifier **v;
    int n, cap;
    /* built as verifiers are added (a suite may hold thousands, and every call asks which
     * apply): their names -> index, and each tool name they are bound to ("*" included) -> the
     * verifiers bound to it */
    struct forge_strtab names, tools;
    struct forge_verifier_list *bound; /* by index in tools */
    int capbound;
};

/* Builds a data verifier from JSON (borrowed): {"name", "tools": [...] | "*", "order",
 * "schema": {...}} or {"name", "tools", "order", "pattern": {"match", "reject", "outcome"}}.
 * A function verifier is built the same way without schema/pattern and then given its function
 * with forge_verifier_set_function. Returns a new verifier or NULL with FORGE_EINVAL. */
struct forge_verifier *forge_verifier_from_json(const cJSON *def, const char *where,
                                                struct forge_err *err);
void forge_verifier_set_function(struct forge_verifier *v, struct forge_callable fn,
                                 void (*free_fn)(void *ctx));
void forge_verifier_free(struct forge_verifier *v);

/* Adds <v> (taken); a second verifier of the same name is FORGE_EINVAL. */
int forge_verifiers_add(struct forge_verifiers *s, struct forge_verifier *v, struct forge_err *err);
void forge_verifiers_free(struct forge_verifiers *s);

/* Runs the verifiers that apply to <call> ({"id", "name", "arguments", "result"}, borrowed) of
 * <tool> (may be NULL). Sets *verdict to a new {"outcome": "pass"|"warn"|"block", "verifier":
 * name or null, "message": text or null, "checks": [{"verifier", "outcome", "message"}, ...]},
 * or to NULL when no verifier applies, and returns 0; FORGE_ENOMEM (with *verdict NULL) when
 * out of memory. */
int forge_verifiers_run(const struct forge_verifiers *s, const struct forge_tool *tool,
                        const cJSON *call, cJSON **verdict);
#endif
