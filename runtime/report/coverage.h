/* The coverage report (eval/coverage.h) as a terminal table and as Markdown. Builders append to
 * a buffer; the CLI prints it. */
#ifndef FORGE_REPORT_COVERAGE_H
#define FORGE_REPORT_COVERAGE_H
#include <cjson/cJSON.h>
#include "base/buf.h"

/* Appends the terminal text of <report>: the tools table, the overlapping pairs, the arguments,
 * the gaps in words and the coverage line. Control characters in names are shown as '?'.
 * Returns 0 or the buffer's error. */
int forge_report_coverage_text(struct forge_buf *out, const cJSON *report);

/* Appends the same as Markdown (tables; '|', '\\', '`', '<', '>', '&' escaped, control
 * characters shown as '?'). */
int forge_report_coverage_md(struct forge_buf *out, const cJSON *report);

/* Appends one gap ({"kind", "tool", ...} of the report) in words, without a newline:
 * "get_weather: no golden case expects it to be called". */
int forge_report_coverage_gap(struct forge_buf *out, const cJSON *gap);
#endif
