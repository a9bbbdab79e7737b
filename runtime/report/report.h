/* Reports of a suite run: the console text, JSON (agent-tool-forge's EvalSuiteResult shape plus
 * forge's fields), JSONL (a case per line, written as cases finish), JUnit XML and Markdown.
 * Builders append text to a buffer (the CLI prints it); file writers are atomic (a reader never
 * sees a half-written report). The report tree is the one forge_suite_report returns. */
#ifndef FORGE_REPORT_REPORT_H
#define FORGE_REPORT_REPORT_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include "base/buf.h"
#include "base/err.h"
#include "eval/suite.h"
#include "report/results.h"

/* Appends the console line of one case result, with the reasons of its failed assertions and its
 * warnings on the lines under it:
 *   "✓ <id>" | "✗ <id>" + "    <type>: <reason>" lines | "! <id>: error: <error>" | "- <id>: skipped: <reason>"
 * Returns 0 or the buffer's error. */
int forge_report_console_case(struct forge_buf *out, const cJSON *result);

/* Appends the console summary of <report>: the totals line as agent-tool-forge prints it
 * ("✓ 5/5 passed (100.0%)[, N skipped][, p95 latency: Xms][, est. cost: $x.xxxxxx]"), the
 * Wilson interval, the failing cases, the gates, regressions and new passes. */
int forge_report_console_summary(struct forge_buf *out, const cJSON *report);

/* Appends the report as pretty JSON. */
int forge_report_json(struct forge_buf *out, const cJSON *report);
/* Appends JUnit XML: one <testsuite> per case "suite" (in first-seen order), a <testcase> per
 * case with <failure>, <error> or <skipped>. */
int forge_report_junit(struct forge_buf *out, const cJSON *report);
/* Appends a Markdown summary fit for a CI job page. */
int forge_report_md(struct forge_buf *out, const cJSON *report);

/* Appends <s> as XML text (markup escaped; what XML 1.0 cannot carry becomes U+FFFD). */
int forge_xml_text(struct forge_buf *out, const char *s);

/* Writes the report in <format> ("json", "junit", "md" or "html") to <path> atomically. */
int forge_report_write(const char *format, const char *path, const cJSON *report, struct forge_err *err);

/* Streaming reports: the report tree of a run whose records live in a results file holds an
 * empty "cases"; the writers read the records from <results> in case order, one at a time, so a
 * report of a million cases takes the memory of one. Output is byte for byte that of the tree
 * functions above given the same cases. */
struct forge_report_src {
    const cJSON *report;                   /* forge_suite_report's tree (borrowed) */
    struct forge_results *results;         /* the records; NULL: report's "cases" */
    const struct forge_suite_group *groups; /* JUnit's suites (forge_suite_groups); NULL: counted
                                            * from the records */
    int ngroups;
};

/* Where a streaming writer's text goes: appended to <buf>, which is written out to <f> (when not
 * NULL) whenever it holds more than 64 KiB and at the end (forge_report_sink_flush). */
struct forge_report_sink {
    struct forge_buf buf;
    FILE *f;
    const char *name; /* for write errors */
};
/* Writes out what <s> holds to its file. Returns 0 or FORGE_EIO with <err>. */
int forge_report_sink_flush(struct forge_report_sink *s, struct forge_err *err);

/* The console summary, JSON, JUnit and Markdown reports from <src> into <sink>. Return 0 or an
 * error with <err> (out of memory, a record that cannot be read back, a write error). */
int forge_report_stream_summary(struct forge_report_sink *sink, const struct forge_report_src *src,
                                struct forge_err *err);
int forge_report_stream(const char *format, struct forge_report_sink *sink, const struct forge_report_src *src,
                        struct forge_err *err);

/* Writes the report in <format> ("json", "junit", "md" or "html") from <src> to <path>
 * atomically (a temporary file beside it, renamed). The HTML report takes each record's
 * trajectory from the results file (forge_results_put_case); from a tree it has none. */
int forge_report_write_src(const char *format, const char *path, const struct forge_report_src *src,
                           struct forge_err *err);

/* Writes every record of <results> in case order to <path> as a JSONL report, each line as it
 * is in its file, atomically. */
int forge_report_write_jsonl(const char *path, struct forge_results *results, struct forge_err *err);

/* A JSONL report written as cases finish: lines go to a temporary file beside <path>, which is
 * renamed over <path> when the run closes it with commit = true (removed otherwise). */
struct forge_jsonl;
/* Opens the temporary file; returns a new writer or NULL with <err> (FORGE_EIO naming the path). */
struct forge_jsonl *forge_jsonl_open(const char *path, struct forge_err *err);
/* Appends <result> as one line and flushes it. */
int forge_jsonl_add(struct forge_jsonl *j, const cJSON *result, struct forge_err *err);
/* Appends the case <result> as one line carrying its trajectory <traj> (borrowed; NULL: none) as
 * a last member "trajectory", and flushes it. */
int forge_jsonl_add_case(struct forge_jsonl *j, const cJSON *result, const cJSON *traj, struct forge_err *err);
/* Finishes (rename when <commit>, else remove) and frees <j>; NULL is a no-op. */
int forge_jsonl_close(struct forge_jsonl *j, bool commit, struct forge_err *err);
#endif
