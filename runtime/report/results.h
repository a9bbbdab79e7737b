/* The results file of a run: its case records (one JSON object a line) on disk, so that a run
 * holds no result trees. Records are appended as cases finish, in any order, each with its place
 * in the run (its position in case order); reports read them back in case order, one at a time,
 * through an iterator (forge_results_iter). A results set can also index records that already
 * sit in other files (`forge report merge` places the lines of its shards without copying them).
 *
 * Memory: 8 bytes a place (a file offset), whatever the records hold. */
#ifndef FORGE_REPORT_RESULTS_H
#define FORGE_REPORT_RESULTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_results;

/* Creates a results set that writes its records to a file: <path>.tmp.<pid> renamed over <path>
 * by forge_results_close(commit = true) (the JSONL report), or, when <path> is NULL, an anonymous
 * temporary file in $TMPDIR (or /tmp) that is gone when the set is freed. Returns a new set (free
 * with forge_results_close) or NULL with <err> (FORGE_EIO naming the path, FORGE_ENOMEM). */
struct forge_results *forge_results_create(const char *path, struct forge_err *err);

/* Creates a results set that writes nothing: its records are placed in files added with
 * forge_results_source. Returns NULL when out of memory. */
struct forge_results *forge_results_index(void);

/* Appends <line> (a JSON value that is no case record, such as a shard's header) to the file.
 * Returns 0 or FORGE_EIO / FORGE_ENOMEM. */
int forge_results_write_line(struct forge_results *r, const cJSON *line, struct forge_err *err);

/* Appends <rec> as the record of place <pos> (from 0) and flushes it, so that a reader of the
 * file sees every finished case. A place is written once: a second record for it is
 * FORGE_EINTERNAL. Returns 0 or an error naming the file. */
int forge_results_put(struct forge_results *r, size_t pos, const cJSON *rec, struct forge_err *err);
/* The same, the record carrying the case's trajectory <traj> (borrowed; NULL: none) as its last
 * member "trajectory" (the JSONL report's line: the result's members, then the trajectory).
 * Readers take it apart again: an iterator hands the trajectory out separately
 * (forge_results_iter's traj), so a record read back is the case result alone. */
int forge_results_put_case(struct forge_results *r, size_t pos, const cJSON *rec, const cJSON *traj,
                           struct forge_err *err);

/* Opens <path> (borrowed; must outlive the set) read-only as a source of records; returns its
 * number (>= 0) or a negative error naming the path. */
int forge_results_source(struct forge_results *r, const char *path, struct forge_err *err);

/* Places the record that starts at byte <offset> of source <src> (a line) at <pos>. Returns 0,
 * 1 when <pos> already holds a record (nothing changed), or FORGE_ENOMEM. */
int forge_results_place(struct forge_results *r, size_t pos, int src, uint64_t offset, struct forge_err *err);

/* Number of places: one more than the highest place given a record (places between may be
 * empty). */
size_t forge_results_size(const struct forge_results *r);
/* True when place <pos> holds a record. */
bool forge_results_has(const struct forge_results *r, size_t pos);

/* Reads back the record of place <pos>: sets *rec to a new tree (free with cJSON_Delete), or to
 * NULL when the place is empty. Returns 0 or an error naming the file (FORGE_EIO, FORGE_EINVAL
 * when the line is no JSON). */
int forge_results_read(struct forge_results *r, size_t pos, cJSON **rec, struct forge_err *err);

/* Copies the line of place <pos> (without its '\n') to <out> as it is in the file (empty place:
 * nothing). Returns 0 or an error. */
struct forge_buf;
int forge_results_copy(struct forge_results *r, size_t pos, struct forge_buf *out, struct forge_err *err);

/* Iterates over the records in case order, skipping empty places. A run's reports each take a
 * fresh iterator over the same set: records are parsed one at a time. */
struct forge_results_iter {
    struct forge_results *r; /* borrowed */
    size_t pos;              /* next place to read */
    cJSON *cur;              /* the record last returned (owned by the iterator) */
    bool light;              /* records hold only their summary members (below) */
    bool cur_full;           /* cur is the whole record */
    bool failing;            /* passes over the records known to have passed or been skipped */
    cJSON *traj;             /* the whole record's "trajectory", taken out of cur (owned; NULL:
                              * none, or cur is light) */
};
void forge_results_iter_init(struct forge_results_iter *it, struct forge_results *r);
/* The same, for records read "light": only the members a summary reads (id, passed, skipped,
 * error, reason, score, weight, durationMs, latencyMs, costUsd, skippedAssertions, suite),
 * without building the rest (assertions, tool calls); forge_results_iter_full gives the whole
 * record when a reader needs it (a failing case's assertions). */
void forge_results_iter_init_light(struct forge_results_iter *it, struct forge_results *r);
/* The same, passing over the records that forge_results_put_case wrote for cases that passed or
 * were skipped (without reading them): what remains are the failures and errors, and any record
 * placed from another file (forge_results_place), whose outcome the set does not know. */
void forge_results_iter_init_failing(struct forge_results_iter *it, struct forge_results *r);
/* The whole record of the place forge_results_next returned last (borrowed until the next
 * call; the light record it returned is freed). Returns 0 or an error. */
int forge_results_iter_full(struct forge_results_iter *it, const cJSON **rec, struct forge_err *err);
/* Returns 1 with the next record in *rec (borrowed: valid until the next call or
 * forge_results_iter_done), 0 at the end, or a negative error. */
int forge_results_next(struct forge_results_iter *it, const cJSON **rec, struct forge_err *err);
void forge_results_iter_done(struct forge_results_iter *it);

/* Closes the set: with a path and <commit>, renames the file over its path; otherwise removes
 * it. Frees <r> (NULL is a no-op). Returns 0 or an error naming the path. */
int forge_results_close(struct forge_results *r, bool commit, struct forge_err *err);
#endif
