/* A run's statistics counted as its results come (forge_suite_count, in case order), so that
 * its report does not read every record back from the results file to count it. */
#ifndef FORGE_EVAL_TALLY_H
#define FORGE_EVAL_TALLY_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "eval/suite.h"
#include "report/results.h"

/* Results that may wait for the places before them (a run with -j N finishes cases out of
 * order). */
#define FORGE_TALLY_WINDOW 256

struct forge_tally;

/* A tally counting into <suite> (borrowed; its baseline, if any, already set). NULL when out of
 * memory. */
struct forge_tally *forge_tally_new(struct forge_suite *suite);

/* The result of place <pos> (borrowed; places from 0, each given once, in any order): counted
 * now when every place before it has been, else what counting reads of it waits (a copy: its
 * numbers, booleans, id and suite, and whether it has an error) until they have. A result the
 * tally cannot take as the results file would give it back (a number that is not finite, an id
 * or suite that is not UTF-8), one that would wait with an id or suite over 1 KiB, or one that
 * finds the window full, stops it: it counts nothing more, and the report counts the records
 * from the first place it did not count on, read back. */
void forge_tally_add(struct forge_tally *t, size_t pos, const cJSON *result);

/* At the run's end: counts the waiting results whose places before them are counted or absent
 * from <res> (a recorded run's cases without a transcript), and sets *from to the first place
 * not counted (forge_results_size(res) when all were). Returns 0, or FORGE_ENOMEM when counting
 * failed (the suite is then no longer to be reported). */
int forge_tally_finish(struct forge_tally *t, const struct forge_results *res, size_t *from,
                       struct forge_err *err);

void forge_tally_free(struct forge_tally *t);
#endif
