/* BFCL-compatible scoring: the Berkeley Function Calling Leaderboard's AST checker and
 * relevance checks, with the same verdicts, error types and error messages.
 *
 * Inputs are BFCL's own files (JSON Lines): questions (`BFCL_v4_<category>.json`, with the
 * function docs under "function"), possible answers (`possible_answer/BFCL_v4_<category>.json`,
 * "ground_truth") and a model's results (`{"id", "result"}` per line, where an FC model's
 * result is a list of `{"<function name>": "<arguments as a JSON string>"}`). Values are handled
 * as Python values (score/pyval.h) because the verdicts depend on Python's types and equality.
 *
 * Categories handled: simple_python, simple_java, simple_javascript, multiple, parallel,
 * parallel_multiple, live_simple, live_multiple, live_parallel, live_parallel_multiple
 * (AST checks) and irrelevance, live_irrelevance, live_relevance (relevance checks). As in
 * BFCL the category name selects the path: "relevance" in the name -> relevance check
 * ("irrelevance" -> no call expected); "parallel" -> order-free matching of every call;
 * "multiple" -> exactly one call, checked against the expected function's doc; otherwise exactly
 * one call against the first doc. "javascript" -> JavaScript literals, "java" -> Java literals. */
#ifndef FORGE_SCORE_BFCL_H
#define FORGE_SCORE_BFCL_H
#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "base/err.h"
#include "score/pyval.h"

enum forge_bfcl_lang { FORGE_BFCL_PYTHON, FORGE_BFCL_JAVA, FORGE_BFCL_JAVASCRIPT };

/* Compiled patterns and scratch space shared by all checks; one per thread. */
struct forge_bfcl;

/* Returns a new checker context or NULL with <err> (FORGE_ENOMEM, or FORGE_EINTERNAL when a
 * pattern does not compile). Free with forge_bfcl_free (NULL is a no-op). */
struct forge_bfcl *forge_bfcl_new(struct forge_err *err);
void forge_bfcl_free(struct forge_bfcl *b);

/* True for the 13 categories above. */
bool forge_bfcl_category_known(const char *category);
/* True when <category> is scored by the relevance path (no possible-answer file). */
bool forge_bfcl_category_is_relevance(const char *category);
/* The language BFCL picks for <category>. */
enum forge_bfcl_lang forge_bfcl_category_lang(const char *category);

/* One checker verdict. <error> is a Python list (strings, or for parallel matching a leading
 * string followed by {"Model Result Index N": {...}} dicts) in the arena given to the call;
 * <error_type> is a static string such as "value_error:string". Both unset when valid. */
struct forge_bfcl_verdict {
    bool valid;
    const char *error_type;
    struct forge_pyval *error;
};

/* BFCL's ast_checker: <functions> (the question's "function" list), <decoded> (a list of
 * {name: {arg: value}} calls), <ground_truth> (the possible answer's list). With
 * <underscore_to_dot> the expected names have '.' replaced by '_' before lookup. Fails only on
 * input BFCL itself cannot check (an unknown parameter type, a function doc without
 * "parameters", an answer naming a function the question lacks): FORGE_EINVAL with a message;
 * FORGE_ENOMEM when the arena runs out. */
int forge_bfcl_check(struct forge_bfcl *b, struct forge_arena *a, const char *category,
                     bool underscore_to_dot, const struct forge_pyval *functions,
                     const struct forge_pyval *decoded, const struct forge_pyval *ground_truth,
                     struct forge_bfcl_verdict *out, struct forge_err *err);

/* Decodes an FC model's "result" as BFCL's OpenAI-style handlers do. Returns 0 with *decoded (a
 * new list in <a>), 1 when Python would raise (msg holds str(exception), e.g. "'str' object has
 * no attribute 'keys'" or "Expecting value: line 1 column 1 (char 0)"), or FORGE_ENOMEM. */
int forge_bfcl_decode(struct forge_arena *a, const struct forge_pyval *result,
                      struct forge_pyval **decoded, char *msg, size_t msgsize);

/* BFCL's is_function_calling_format_output and is_empty_output. */
bool forge_bfcl_is_fc_format(const struct forge_pyval *decoded);
bool forge_bfcl_is_empty_output(const struct forge_pyval *decoded);

/* Evaluates one result line. <question> is the question entry, <answer> the possible-answer
 * entry (NULL for relevance categories). On a failing verdict *failure is the score-file record
 * BFCL writes (id, model_name, test_category, valid, error, error_type and context), else NULL.
 * Errors as forge_bfcl_check, prefixed with the entry id. */
int forge_bfcl_entry(struct forge_bfcl *b, struct forge_arena *a, const char *category,
                     const char *model_name, bool underscore_to_dot,
                     const struct forge_pyval *result_entry, const struct forge_pyval *question,
                     const struct forge_pyval *answer, struct forge_pyval **failure,
                     struct forge_err *err);

/* Scores one category's result file. */
struct forge_bfcl_file_opts {
    const char *category;
    const char *model_name;   /* written into each failing record */
    bool underscore_to_dot;
    bool partial;             /* score the entries present; otherwise every question needs a result */
    const char *questions;    /* path of BFCL_v4_<category>.json */
    const char *answers;      /* path of possible_answer/BFCL_v4_<category>.json; NULL for relevance */
    const char *results;      /* path of the result file */
    const char *score_out;    /* path to write BFCL_v4_<category>_score.json; NULL: do not write */
    size_t file_limit;        /* cap on each input file's size in bytes */
};
struct forge_bfcl_file_score {
    size_t correct, total;
    double accuracy;
};
/* Reads the three files, checks every result line and writes the score file: the header line
 * {"accuracy", "correct_count", "total_count"} then one line per failing entry, in result order.
 * Results are matched to questions by "id". FORGE_EINVAL for malformed files
 * ("<path>:<line>:<col>: <message>"), a result id without a question, missing results (unless
 * partial), an empty result file; FORGE_ELIMIT when a file is over file_limit; FORGE_EIO. */
int forge_bfcl_score_file(struct forge_bfcl *b, const struct forge_bfcl_file_opts *o,
                          struct forge_bfcl_file_score *out, struct forge_err *err);

/* A category's questions and possible answers, loaded once to score several result files
 * (for example several models). */
struct forge_bfcl_data;
/* Loads <questions> and <answers> (NULL for relevance categories, or to ask the questions only:
 * such data cannot score AST categories). Errors as forge_bfcl_score_file. Free with
 * forge_bfcl_data_free (NULL is a no-op). */
int forge_bfcl_data_load(const char *category, const char *questions, const char *answers,
                         size_t file_limit, struct forge_bfcl_data **out, struct forge_err *err);
/* The number of questions and question <i> (borrowed; NULL past the end). */
size_t forge_bfcl_data_count(const struct forge_bfcl_data *d);
const struct forge_pyval *forge_bfcl_data_question(const struct forge_bfcl_data *d, size_t i);
void forge_bfcl_data_free(struct forge_bfcl_data *d);
/* forge_bfcl_score_file for loaded data: uses o->model_name, underscore_to_dot, partial,
 * results, score_out and file_limit (the category and data paths come from <d>). */
int forge_bfcl_score_results(struct forge_bfcl *b, struct forge_bfcl_data *d,
                             const struct forge_bfcl_file_opts *o, struct forge_bfcl_file_score *out,
                             struct forge_err *err);

/* Value conversion of the Java and JavaScript categories (bfcl_values.c): BFCL's
 * java_type_converter / js_type_converter on the literal <s> of a parameter whose documented type
 * is <type> (and <nested> its items' type, or NULL). Returns the converted value in <a>; a
 * literal that does not parse stays a string, as in BFCL. NULL when out of memory. */
struct forge_pyval *forge_bfcl_java_value(struct forge_bfcl *b, struct forge_arena *a,
                                          const char *s, size_t n, const char *type,
                                          const char *nested);
struct forge_pyval *forge_bfcl_js_value(struct forge_bfcl *b, struct forge_arena *a,
                                        const char *s, size_t n, const char *type,
                                        const char *nested);

/* Asking the questions (forge bfcl run). The chat request (model/model.h's normalized shape)
 * that BFCL's function-calling handlers send for <question>: its first turn's messages (system
 * messages joined into "system"), its function docs as tools with BFCL's tool conversion (types
 * through GORILLA_TO_OPENAPI, floats marked, '.' in names written '_', BFCL's language hint
 * on each function, Java/JavaScript parameter hints for those categories) and "params": {"temperature"}. Returns a new tree, or NULL with
 * FORGE_EINVAL (the question lacks "question" or "function", or a type has no equivalent) or
 * FORGE_ENOMEM. */
cJSON *forge_bfcl_request(const struct forge_pyval *question, const char *category,
                          double temperature, struct forge_err *err);
/* The "result" BFCL stores for a model's normalized response: a list of
 * {"<tool name>": "<arguments as JSON text>"} when it called tools, else its text ("" for none).
 * A new value in <a>, or NULL when out of memory. */
struct forge_pyval *forge_bfcl_result_value(struct forge_arena *a, const cJSON *resp);

/* The context's reusable output buffer (internal to score/bfcl*.c). */
struct forge_buf *forge_bfcl_out_buf(struct forge_bfcl *b);

/* BFCL's standardize_string: removes " ,./-_*^", lowercases, turns ' into ". Result in <a>. */
struct forge_pyval *forge_bfcl_standardize(struct forge_arena *a, const char *s, size_t n);
#endif
