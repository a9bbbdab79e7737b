/* Drafting what coverage finds missing (docs/coverage.md): eval cases asked of a model, and Lua
 * verifier stubs. Nothing here touches files; the CLI writes what these functions return. */
#ifndef FORGE_EVAL_GEN_H
#define FORGE_EVAL_GEN_H
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "base/err.h"
#include "eval/coverage.h"
#include "model/model.h"

struct forge_gen_opts {
    const struct forge_cov_opts *cov;
    const char *out_dir;  /* folder of the files drafts go to (their "file") */
    int max_drafts;       /* most cases drafted in one run (--max-drafts) */
    int attempts;         /* answers asked of the model per gap before giving up (--attempts) */
    /* called before each request to the model (may be NULL): the gap, and the attempt (1..) */
    void (*progress)(void *ctx, const cJSON *gap, int attempt);
    void *progress_ctx;
};

/* The file a gap's case goes to: "<out_dir>/<tool>.golden.json" (golden, called, enum,
 * optional) or "<out_dir>/<tool>.labeled.json" (labeled, not_called, overlap); characters of
 * the tool name other than letters, digits, '_', '-' and '.' become '_'. A new string. */
char *forge_gen_target(const char *out_dir, const cJSON *gap);

/* Drafts cases for the gaps that coverage of <cases> ({"file", "case"} entries, borrowed) over
 * <tools> finds, one gap at a time (coverage is computed again after each accepted draft, so
 * one case can close several gaps). For each gap the model gets the tools and a request naming
 * the gap; its answer must be one JSON object that passes the eval-file validation and closes
 * that gap, else the model is told why and asked again, up to o->attempts answers. Ids are new
 * (gs-<tool>-NNN / ls-<tool>-NNN above every id in use).
 * On return *drafts is a new array of {"file", "case", "gap"}, *failed a new array of
 * {"gap", "reason"} for gaps no answer closed, and *notes a new array of texts (limits hit).
 * Returns 0, or a model error (FORGE_ENET, FORGE_ELUA, ...) with the drafts made until then
 * still set. */
int forge_gen_evals(struct forge_model *m, const cJSON *tools, const cJSON *cases,
                    const struct forge_gen_opts *o, cJSON **drafts, cJSON **failed, cJSON **notes,
                    struct forge_err *err);

/* Appends a Lua file of verifier stubs to <out>: one forge.verifier per output group of the
 * tools without a verifier (bound to that group's unguarded tools), and one per unguarded tool
 * of no known group. Each stub's verify returns "pass" until edited; the file returns the list
 * of its verifiers. <report> is a coverage report (its "tools" entries with "verifiers" and
 * "groups"); <taken> holds verifier names already in use (array of strings, may be NULL).
 * Returns the number of stubs written (0: nothing unguarded, nothing appended). */
int forge_gen_verifiers(struct forge_buf *out, const cJSON *report, const cJSON *taken);
#endif
