/* The offline HTML report: one self-contained file (no external fetch; a Content-Security-Policy
 * that allows only its own inline script and style and data: images) with the run's summary,
 * gates, baseline diff and latency chart as plain HTML, and every case (result and trajectory,
 * capped) as JSON inside <script type="application/json"> for the embedded viewer (filter,
 * search, pagination, a timeline per case).
 *
 * The writer streams: cases are written to a temporary file beside the target as they come, and
 * only fixed-size aggregates (counts, token totals, a latency histogram, the first failing cases)
 * stay in memory, so a run of any size is reported in constant memory. The summary is written
 * last (the page shows it first: the case data above it is not rendered). */
#ifndef FORGE_REPORT_HTML_H
#define FORGE_REPORT_HTML_H
#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "base/err.h"

/* Size bounds of one case in the page (bytes of embedded JSON, after escaping). A text (a
 * message, an argument or result rendered as JSON, a reason) longer than FORGE_HTML_TEXT_MAX is
 * cut with a marker "… [+N bytes]"; a trajectory whose turns and calls pass
 * FORGE_HTML_TRAJ_MAX is cut after the last call that fits, with a count of what was left out;
 * at most FORGE_HTML_ASSERT_MAX assertions are listed (failed first). A case record is therefore
 * at most FORGE_HTML_CASE_MAX bytes. */
#define FORGE_HTML_TEXT_MAX 1024
#define FORGE_HTML_TRAJ_MAX 8192
#define FORGE_HTML_ASSERT_MAX 12
#define FORGE_HTML_CASE_MAX 16384

struct forge_html;

/* Opens a report to be written to <path> (borrowed; copied): creates the temporary file beside
 * it. Returns a new writer, or NULL with <err> (FORGE_EIO naming the path, FORGE_ENOMEM). */
struct forge_html *forge_html_open(const char *path, struct forge_err *err);

/* Appends one case: <result> is a case result (forge_eval_case's shape: id, description, passed,
 * skipped, error, score, weight, latencyMs, costUsd, reason, assertions, warnings, suite,
 * label; borrowed), <traj> its forge-format trajectory (borrowed; NULL when it has none).
 * Returns 0, or FORGE_EIO / FORGE_ENOMEM with <err>. */
int forge_html_case(struct forge_html *h, const cJSON *result, const cJSON *traj, struct forge_err *err);

/* Finishes the report with <report> (borrowed; forge_suite_report's shape, whose "cases" are not
 * read: summary, gates, passed, runId, timestamp, baselineRunId, regressions, newPasses) and
 * renames it over the target when <commit>; removes it otherwise (then <report> may be NULL).
 * Frees <h>; NULL is a no-op. Returns 0 or FORGE_EIO with <err>. */
int forge_html_close(struct forge_html *h, const cJSON *report, bool commit, struct forge_err *err);

/* Appends <s> (<n> bytes) as HTML text: & < > " ' escaped as &amp; &lt; &gt; &quot; &#39;,
 * control characters other than tab, LF and CR, DEL and bytes that are not UTF-8 as U+FFFD. */
int forge_html_text(struct forge_buf *out, const char *s, size_t n);

/* Appends <s> (<n> bytes) as a JSON string literal safe inside an HTML <script> element:
 * besides JSON's escapes, < > & U+2028 U+2029 as \u003c \u003e \u0026 \u2028 \u2029 and bytes
 * that are not UTF-8 as \ufffd. When the literal would pass <cap> bytes (0: no cap) it is cut at
 * a character boundary and ends with "… [+N bytes]" (N: the source bytes left out). */
int forge_html_json_string(struct forge_buf *out, const char *s, size_t n, size_t cap);
#endif
