/* Eval files read a case at a time. An eval file is a JSON array of cases; the reader frames the
 * array's elements with a small scanner (strings, escapes and nesting; no values built), parses
 * and validates each alone (forge_evalfile_parse_case: errors keep the file's line:column), and
 * hands it out, so a run holds one case of a file of a million. Each case's byte offset lets a
 * caller read it again later (forge_cases_read_at), which is how recorded transcripts, arriving
 * in any order, find their case.
 *
 * Only regular files whose first value is an array are read this way; forge_cases_lazy says
 * which. Anything the scanner finds wrong (a broken element, a missing comma) is reported with
 * its place, but forge_evalfile_load on the whole file gives the message of record; callers
 * that can afford it (the file is under the input limit) report that one.
 *
 * Also: a set of case ids (forge_idset), which maps each id of a run to its place, in 13 to 19
 * bytes a case whatever the ids' length (their hashes; the text stays in the eval files). */
#ifndef FORGE_EVAL_CASES_H
#define FORGE_EVAL_CASES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_cases;

/* True when <path> can be read a case at a time: a regular file (not "-") whose first
 * non-blank byte is '[' and whose name does not end in .yaml or .yml. */
bool forge_cases_lazy(const char *path);

/* Opens <path> (borrowed; must outlive the reader). Returns a new reader (free with
 * forge_cases_close) or NULL with <err> (FORGE_EIO naming the path). */
struct forge_cases *forge_cases_open(const char *path, struct forge_err *err);

/* The next case: returns 1 with *kase (a new, validated tree), its index in the file and where
 * its text is (*loc, for forge_cases_read_at: the byte offset where it starts and, when both
 * are small enough, its length); 0 at the end of the array; or an error naming file:line:col
 * (FORGE_EINVAL, FORGE_ELIMIT when one case is larger than the input limit). */
int forge_cases_next(struct forge_cases *c, cJSON **kase, int *index, uint64_t *loc, struct forge_err *err);

/* An error about <key> of the case forge_cases_next returned last, placed at its value:
 * "<file>:<line>:<col>: [<index>].<key>: <what>". Returns FORGE_EINVAL. */
int forge_cases_fail(struct forge_cases *c, const char *key, const char *what, struct forge_err *err);

/* Reads again the case at <loc> (as forge_cases_next gave it; element <index>, whose id is
 * <want_id>; NULL: any): parsed, not validated again (forge_cases_next did). Sets *kase to a new
 * tree. Returns 0, or FORGE_EIO when the file changed (not that case any more), or a parse error.
 * Does not disturb forge_cases_next. */
int forge_cases_read_at(struct forge_cases *c, uint64_t loc, int index, const char *want_id, cJSON **kase,
                        struct forge_err *err);

/* Starts over at the first case. Returns 0 or FORGE_EIO. */
int forge_cases_rewind(struct forge_cases *c, struct forge_err *err);

void forge_cases_close(struct forge_cases *c);

/* Case ids of a run, each with its place (0, 1, ...) in the order added. The set keeps a 64-bit
 * hash of each id, not its text; when two hashes are equal it asks same(ctx, place, id): 1 when
 * the id of <place> is <id>, 0 when not, < 0 when it cannot tell (an error the callback keeps). */
typedef int (*forge_idset_same_fn)(void *ctx, size_t place, const char *id);
struct forge_idset;
/* A new, empty set (free with forge_idset_free), or NULL when out of memory. */
struct forge_idset *forge_idset_new(void);
/* The same with another hash function (tests: to make ids collide). */
struct forge_idset *forge_idset_new_hash(uint64_t (*hash)(const char *));
/* Adds <id> with the next place; returns that place (>= 0), or, when <id> is already there,
 * -1 - its place; INT64_MIN when out of memory or when same() failed. */
int64_t forge_idset_add(struct forge_idset *s, const char *id, forge_idset_same_fn same, void *ctx);
/* The place of <id>, or -1; INT64_MIN when same() failed. */
int64_t forge_idset_find(const struct forge_idset *s, const char *id, forge_idset_same_fn same, void *ctx);
/* Number of ids. */
size_t forge_idset_count(const struct forge_idset *s);
void forge_idset_free(struct forge_idset *s);
#endif
