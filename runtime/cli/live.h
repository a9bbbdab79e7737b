/* Running suites live (through the agent loop) from the command line: the options shared by
 * `forge script` and `forge run`, and the reporting of one run. */
#ifndef FORGE_CLI_LIVE_H
#define FORGE_CLI_LIVE_H
#include <stdbool.h>
#include "eval/suite.h"
#include "lua/l_suite.h"
#include "lua/vm.h"
#include "model/provider.h"

#define FORGE_LIVE_MAX_REPORTS 16

struct forge_live_opts {
    int jobs;                     /* -j N */
    struct forge_provider_opts prov; /* --model SPEC (overrides the suites' models), --base-url,
                                        --record, --replay, ... */
    const char *rformat[FORGE_LIVE_MAX_REPORTS], *rpath[FORGE_LIVE_MAX_REPORTS];
    int nreports;
    const char *save_transcripts; /* --save-transcripts FILE.jsonl */
    const char *baseline;
    struct forge_gates gates;     /* from flags; override the suites' gates */
    const cJSON *seed, *snapshot; /* {{seed:}} / {{snapshot:}} sources (borrowed), may be NULL */
    const cJSON *shard_header;    /* the first line of the jsonl report of a shard, or NULL */
    bool quiet;
};

extern const char forge_live_usage[];

/* Sets the defaults. */
void forge_live_opts_init(struct forge_live_opts *o);

/* Parses one option at argv[*i] (and its value). Returns 1 when consumed, 0 when it is not a
 * run option, -1 after printing an error. */
int forge_live_parse(const char *cmd, int argc, char **argv, int *i, struct forge_live_opts *o);

struct forge_results;
struct forge_results_iter;
struct forge_suite;
struct forge_tally;
/* A run's statistics counted as its results are written (eval/tally): the suite, comparing with
 * <baseline> (borrowed; may be NULL), and its tally, which takes each result with
 * forge_tally_add(c->tally, place, result). forge_live_count_init returns 0, or -1 when out of
 * memory (after printing it). */
struct forge_live_count {
    struct forge_suite *suite;
    struct forge_tally *tally;
};
int forge_live_count_init(struct forge_live_count *c, const cJSON *baseline);
void forge_live_count_free(struct forge_live_count *c);
/* Reports a run whose case records are in <res> (report/results.h): counts them in case order
 * (a pass over the file, from the first place <count> did not count when it is given), prints
 * the console summary, writes the --report files <rformat>/<rpath> from the file (a jsonl report
 * is copied from it, unless <res> writes that very file, which is then committed), and closes
 * <res> (always). <baseline> is borrowed (<count>'s, when given). Sets *passed when the run
 * passed. Returns 0, or an exit code after printing the error. */
int forge_live_report(struct forge_results *res, bool res_is_jsonl, const struct forge_gates *gates,
                      const cJSON *baseline, const char *const *rformat, const char *const *rpath, int nreports,
                      struct forge_live_count *count, bool *passed);
/* The same, calling <each> (may be NULL) with every record (borrowed; a light record, see
 * forge_results_iter_init_light: forge_results_iter_full(<it>) gives the whole) in case order,
 * then with NULL, before the summary is printed: forge report merge prints the case lines there. */
int forge_live_report_each(struct forge_results *res, bool res_is_jsonl, const struct forge_gates *gates,
                           const cJSON *baseline, const char *const *rformat, const char *const *rpath,
                           int nreports, void (*each)(void *ud, const cJSON *rec, struct forge_results_iter *it),
                           void *ud, bool *passed);

/* Runs <n> suites (borrowed) in <vm> and reports them as one run: a console line per case as it
 * finishes, the summary, the --report files, --save-transcripts. Returns the exit code. */
int forge_live_run(const struct forge_live_opts *o, struct forge_vm *vm,
                   struct forge_lua_suite *suites, int n);
#endif
