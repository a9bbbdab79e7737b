/* JSON Schema validation (drafts 4, 6, 7, 2019-09, 2020-12). A schema is compiled once
 * (parsed, references resolved, patterns compiled) and then validates many instances.
 * The validator is immutable after compilation and may be shared between threads. */
#ifndef FORGE_DATA_SCHEMA_H
#define FORGE_DATA_SCHEMA_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

enum forge_schema_draft {
    FORGE_DRAFT_DEFAULT = 0, /* from $schema, else 2020-12 */
    FORGE_DRAFT_4,
    FORGE_DRAFT_6,
    FORGE_DRAFT_7,
    FORGE_DRAFT_2019_09,
    FORGE_DRAFT_2020_12,
};

/* A URL prefix served from a local folder: "$ref": "http://localhost:1234/x.json" reads
 * <dir>/x.json when prefix is "http://localhost:1234/". forge never fetches over the network. */
struct forge_schema_refdir {
    const char *prefix;
    const char *dir;
};

struct forge_schema_opts {
    enum forge_schema_draft draft; /* applies when the schema has no $schema */
    bool formats;                  /* format as an assertion (default: annotation only) */
    bool all_errors;               /* collect every error (default: stop at the first) */
    const struct forge_schema_refdir *refdirs;
    int nrefdirs;
};

struct forge_schema;

/* Compiles <schema> (borrowed; the validator keeps its own copy). <opts> may be NULL for the
 * defaults. Returns a new validator (free with forge_schema_free) or NULL with <err> naming the
 * problem (FORGE_EINVAL: the keyword location and what is wrong). */
struct forge_schema *forge_schema_compile(const cJSON *schema, const struct forge_schema_opts *opts,
                                          struct forge_err *err);

/* Validates <instance> (borrowed). Returns 1 when valid, 0 when invalid, negative FORGE_E* on
 * failure (out of memory, a limit). When <errors> is not NULL and the instance is invalid,
 * *errors is set to a new cJSON array of {"instanceLocation", "keywordLocation",
 * "absoluteKeywordLocation", "error"} objects (one, or all with opts.all_errors); free with
 * cJSON_Delete. The strings of one error object share one allocation: read them, copy them
 * (cJSON_Duplicate makes independent copies), detach or delete whole error objects, but do not
 * give their string members new, longer values in place. Validation of a valid instance
 * allocates nothing (unevaluated* over an object or array of more than 256 members excepted). */
int forge_schema_validate(const struct forge_schema *s, const cJSON *instance, cJSON **errors);

/* One error of a validation, in the standard output format (see forge_schema_errors_render;
 * absolute_keyword_location is NULL when the schema has no absolute URI). */
struct forge_schema_error {
    const char *instance_location;
    const char *keyword_location;
    const char *absolute_keyword_location;
    const char *message;
};

/* The errors of one validation, in memory that the caller reuses from validation to
 * validation: after the first few validations, recording an error allocates nothing. A
 * validation records each error compactly (the failing keyword, the message's operands, the
 * instance and keyword paths as arrays of names and indexes); their text is made only when
 * asked for, by forge_schema_errors_render or forge_schema_errors_json.
 *
 * Lifetime: until then the recorded errors borrow from the instance (its member names) and
 * from the compiled schema, so both must stay alive and unchanged between forge_schema_check
 * and the rendering (forge_schema_validate renders before it returns, so its callers need not
 * care). Zero it (or use FORGE_SCHEMA_ERRORS_INIT) before the first use;
 * forge_schema_errors_free releases the memory. Not thread-safe: one per thread. */
struct forge_schema_errors {
    int n;                           /* errors recorded by the last validation */
    struct forge_schema_error *list; /* n errors once rendered, valid until the next validation
                                      * and while the schema lives (text that depends on the
                                      * schema alone is the compiled schema's own) */
    /* internal */
    void *recs, *segs;
    int caprecs, nsegs, capsegs, caplist;
    bool plain_names, rendered;
    char *text;
    size_t len, size;
};
#define FORGE_SCHEMA_ERRORS_INIT {0}
void forge_schema_errors_free(struct forge_schema_errors *e);

/* Validates <instance> (borrowed) like forge_schema_validate, with the errors recorded in
 * <errors> (emptied first; NULL: no errors wanted, the fastest). In first-error mode
 * validation stops at the first failing keyword. Returns 1, 0 or negative FORGE_E*. */
int forge_schema_check(const struct forge_schema *s, const cJSON *instance,
                       struct forge_schema_errors *errors);

/* Writes the text of the errors of the last forge_schema_check into <e> and points e->list at
 * it (the instance and schema it checked must still be alive). Locations and messages that
 * depend on the schema alone are not copied: they point into the compiled schema, which made
 * them once. Returns 0, or FORGE_ENOMEM
 * (also when one error's strings would pass 16 MiB). Rendering twice does the work once. */
int forge_schema_errors_render(struct forge_schema_errors *e);

/* The errors of the last forge_schema_check as a new cJSON array of {"instanceLocation",
 * "keywordLocation", "absoluteKeywordLocation", "error"} objects (the shape
 * forge_schema_validate returns), or NULL when out of memory. The instance and schema it
 * checked must still be alive. */
cJSON *forge_schema_errors_json(const struct forge_schema_errors *e);

/* Like forge_schema_compile, with <base_uri> as the schema's own URI (its retrieval URI, such
 * as file:///path/tool.json): a schema without an absolute $id resolves relative references
 * against it, and it appears in absoluteKeywordLocation. forge_schema_compile uses an internal
 * URI that never appears in output. */
struct forge_schema *forge_schema_compile_uri(const cJSON *schema, const struct forge_schema_opts *opts,
                                              const char *base_uri, struct forge_err *err);

void forge_schema_free(struct forge_schema *s);

/* Each validation may enter at most this many schema nodes (a budget against schemas whose
 * evaluation is exponential, such as anyOf over chains of $ref); past it forge_schema_validate
 * returns FORGE_ELIMIT. Process-wide; 0 restores the default. */
#define FORGE_SCHEMA_DEFAULT_STEPS 10000000ul
void forge_schema_set_max_steps(unsigned long n);

/* The message of the limit that the calling thread's last forge_schema_validate returned
 * FORGE_ELIMIT for (the step budget with its flag, the nesting depth, or a pattern's match
 * limit). Borrowed, valid until the thread's next validation. */
const char *forge_schema_limit_message(void);
#endif
