/* Console, JSON, JSONL, JUnit and Markdown reports. */
#include "report/report.h"
#include "base/alloc.h"
#include "base/file.h"
#include "report/html.h"
#include "report/results.h"
#include "data/json.h"
#include "data/utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *status(const cJSON *r)
{
    /* one pass over the result's members instead of three lookups */
    bool passed = false, skipped = false;
    const cJSON *it;
    cJSON_ArrayForEach(it, r) {
        const char *k = it->string;
        if (k[0] == 'e' && strcmp(k, "error") == 0) return "error";
        if (k[0] == 's' && strcmp(k, "skipped") == 0) skipped = cJSON_IsTrue(it);
        else if (k[0] == 'p' && strcmp(k, "passed") == 0) passed = cJSON_IsTrue(it);
    }
    if (skipped) return "skipped";
    return passed ? "passed" : "failed";
}

static const char *str(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = forge_json_str(o, key);
    return s ? s : dflt;
}

static char *num(double d, char *out) { return forge_json_number(d, out); }

int forge_report_console_case(struct forge_buf *out, const cJSON *r)
{
    const char *st = status(r), *id = str(r, "id", "");
    int rc = 0;
    if (strcmp(st, "error") == 0) return forge_buf_addf(out, "! %s: error: %s\n", id, str(r, "error", ""));
    if (strcmp(st, "skipped") == 0) return forge_buf_addf(out, "- %s: skipped: %s\n", id, str(r, "reason", ""));
    rc = forge_buf_addf(out, "%s %s\n", strcmp(st, "passed") == 0 ? "\xe2\x9c\x93" : "\xe2\x9c\x97", id);
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(r, "assertions")) {
        if (rc || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "passed"))) continue;
        rc = forge_buf_addf(out, "    %s: %s\n", str(a, "type", ""), str(a, "reason", ""));
    }
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(r, "warnings"))
        if (!rc && cJSON_IsString(a)) rc = forge_buf_addf(out, "    warning: %s\n", a->valuestring);
    return rc;
}

/* The records of a report, in case order: from its results file or its "cases" array. */
struct cases {
    const struct forge_report_src *src;
    const cJSON *next;
    struct forge_results_iter it;
};

/* light: records hold their summary members only (cases_full gives the rest); LIGHT_FAILING:
 * only those of cases that did not pass or were not skipped, as far as the results know. */
enum { WHOLE, LIGHT, LIGHT_FAILING };

static void cases_init(struct cases *c, const struct forge_report_src *src, int light)
{
    c->src = src;
    c->next = NULL;
    if (src->results && light == LIGHT_FAILING) forge_results_iter_init_failing(&c->it, src->results);
    else if (src->results && light) forge_results_iter_init_light(&c->it, src->results);
    else if (src->results) forge_results_iter_init(&c->it, src->results);
    else {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(src->report, "cases");
        c->next = a ? a->child : NULL;
    }
}

/* 1 with the next record (borrowed until the next call), 0 at the end, or an error. */
static int cases_next(struct cases *c, const cJSON **r, struct forge_err *err)
{
    if (c->src->results) return forge_results_next(&c->it, r, err);
    if (!c->next) return 0;
    *r = c->next;
    c->next = c->next->next;
    return 1;
}

/* The whole record of the one cases_next returned last (a light one holds only its summary). */
static int cases_full(struct cases *c, const cJSON **r, struct forge_err *err)
{
    return c->src->results ? forge_results_iter_full(&c->it, r, err) : 0;
}

static void cases_done(struct cases *c)
{
    if (c->src->results) forge_results_iter_done(&c->it);
}

int forge_report_sink_flush(struct forge_report_sink *s, struct forge_err *err)
{
    if (!s->f || !s->buf.len) return 0;
    if (fwrite(s->buf.data, 1, s->buf.len, s->f) != s->buf.len)
        return forge_err_set(err, FORGE_EIO, "%s: write error: %s", s->name ? s->name : "report", strerror(errno));
    forge_buf_reset(&s->buf);
    return 0;
}

/* Writes the sink's text out once it holds enough (after each case). */
static int spill(struct forge_report_sink *s, struct forge_err *err)
{
    return s->f && s->buf.len > ((size_t)64 << 10) ? forge_report_sink_flush(s, err) : 0;
}

/* An error code with a message: a buffer's code carries none. */
static int oom(int rc, struct forge_err *err)
{
    if (rc && err && !err->msg[0]) forge_err_set(err, rc, "report: out of memory");
    return rc;
}

int forge_report_stream_summary(struct forge_report_sink *sink, const struct forge_report_src *src,
                                struct forge_err *err)
{
    const cJSON *rep = src->report;
    struct forge_buf *out = &sink->buf;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "summary");
    double passed = forge_json_num(s, "passed", 0), failed = forge_json_num(s, "failed", 0);
    double errors = forge_json_num(s, "errors", 0), skipped = forge_json_num(s, "skipped", 0);
    double rate = forge_json_num(s, "passRate", 0), p95 = forge_json_num(s, "p95LatencyMs", 0);
    double cost = forge_json_num(s, "estimatedCostUsd", 0);
    bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "passed"));
    char a[40], b[40], c[40];
    int rc = forge_buf_addf(out, "\n%s %s/%s passed (%.1f%%)", ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97", num(passed, a),
                            num(passed + failed, b), rate * 100);
    if (!rc && errors > 0) rc = forge_buf_addf(out, ", %s error%s", num(errors, a), errors == 1 ? "" : "s");
    if (!rc && skipped > 0) rc = forge_buf_addf(out, ", %s skipped", num(skipped, a));
    if (!rc && p95 > 0) rc = forge_buf_addf(out, ", p95 latency: %sms", num(p95, a));
    if (!rc && cost > 0) rc = forge_buf_addf(out, ", est. cost: $%.6f", cost);
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(s, "passRateInterval");
    double lo = cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) ? cJSON_GetArrayItem(ci, 0)->valuedouble : 0;
    double hi = cJSON_IsNumber(cJSON_GetArrayItem(ci, 1)) ? cJSON_GetArrayItem(ci, 1)->valuedouble : 0;
    double sa = forge_json_num(s, "skippedAssertions", 0);
    if (!rc) rc = forge_buf_addf(out, "\n  pass rate 95%% interval %.1f%%-%.1f%%, score %.3f, %s skipped assertion%s\n",
                                 lo * 100, hi * 100, forge_json_num(s, "score", 0), num(sa, c), sa == 1 ? "" : "s");
    (void)b;
    bool header = false;
    const cJSON *r;
    struct cases cs;
    cases_init(&cs, src, LIGHT_FAILING);
    int got;
    /* nothing failed: no record needs reading */
    while (!rc && (!src->results || failed > 0 || errors > 0) && (got = cases_next(&cs, &r, err)) != 0) {
        if (got < 0) {
            rc = got;
            break;
        }
        const char *st = status(r);
        if (strcmp(st, "passed") == 0 || strcmp(st, "skipped") == 0) continue;
        if (!header) rc = forge_buf_adds(out, "\nFailing cases:\n"), header = true;
        if (!rc) rc = forge_buf_addf(out, "  \xe2\x9c\x97 %s: %s\n", str(r, "id", ""),
                                     strcmp(st, "error") == 0 ? str(r, "error", "") : str(r, "reason", ""));
        if (!rc) rc = spill(sink, err);
    }
    cases_done(&cs);
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(rep, "gates")) {
        if (rc) break;
        const char *name = str(g, "gate", "");
        const char *op = strcmp(name, "passRate") == 0 ? ">=" : "<=";
        bool p = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "pass"));
        rc = forge_buf_addf(out, "gate %s %s %s: actual %s %s\n", name, op, num(forge_json_num(g, "threshold", 0), a),
                            num(forge_json_num(g, "actual", 0), c), p ? "pass" : "FAIL");
    }
    const char *lists[2] = {"regressions", "newPasses"};
    const char *titles[2] = {"Regressions (passed in the baseline, fail now)", "New passes"};
    for (int i = 0; i < 2 && !rc; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(rep, lists[i]);
        if (cJSON_GetArraySize(l) == 0) continue;
        rc = forge_buf_addf(out, "%s:\n", titles[i]);
        cJSON_ArrayForEach(g, l)
            if (!rc) rc = forge_buf_addf(out, "  %s\n", g->valuestring);
    }
    if (!rc) rc = forge_report_sink_flush(sink, err);
    return oom(rc, err);
}

/* A tree function over a streaming writer: the text goes to <out>. */
static int to_buf(struct forge_buf *out, const cJSON *report, const char *format)
{
    struct forge_report_sink sink = {.buf = *out};
    struct forge_report_src src = {.report = report};
    struct forge_err err = {0};
    int rc = format ? forge_report_stream(format, &sink, &src, &err) : forge_report_stream_summary(&sink, &src, &err);
    *out = sink.buf;
    return rc;
}

int forge_report_console_summary(struct forge_buf *out, const cJSON *rep) { return to_buf(out, rep, NULL); }

/* Appends <v> as pretty JSON with <ind> after each line break: a value nested in the report. */
static int nested(struct forge_buf *out, struct forge_buf *tmp, const cJSON *v, const char *ind)
{
    forge_buf_reset(tmp);
    int rc = forge_json_write(tmp, v, FORGE_JSON_PRETTY);
    const char *p = tmp->data, *end = p + tmp->len;
    while (!rc && p < end) {
        /* JSON text holds no raw line break inside a string */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        rc = forge_buf_add(out, p, n);
        if (!rc && nl) rc = forge_buf_adds(out, ind);
        p += n;
    }
    return rc;
}

/* The report as JSON.stringify(report, null, 2) writes it, "cases" read one at a time. */
static int stream_json(struct forge_report_sink *sink, const struct forge_report_src *src, struct forge_err *err)
{
    struct forge_buf *out = &sink->buf, tmp;
    forge_buf_init(&tmp, 0);
    const cJSON *m;
    int rc = 0, first = 1;
    if (!src->report || !src->report->child) rc = forge_buf_adds(out, "{}");
    else rc = forge_buf_adds(out, "{\n");
    for (m = src->report ? src->report->child : NULL; m && !rc; m = m->next) {
        if (!first) rc = forge_buf_adds(out, ",\n");
        first = 0;
        cJSON *key = cJSON_CreateString(m->string ? m->string : "");
        if (!key) rc = FORGE_ENOMEM;
        if (!rc) rc = forge_buf_adds(out, "  ");
        if (!rc) rc = forge_json_write(out, key, 0);
        cJSON_Delete(key);
        if (!rc) rc = forge_buf_adds(out, ": ");
        if (rc) break;
        if (strcmp(m->string ? m->string : "", "cases") != 0 || !cJSON_IsArray(m)) {
            rc = nested(out, &tmp, m, "  ");
            continue;
        }
        struct cases cs;
        cases_init(&cs, src, WHOLE);
        const cJSON *r;
        long n = 0;
        int got;
        while (!rc && (got = cases_next(&cs, &r, err)) != 0) {
            if (got < 0) {
                rc = got;
                break;
            }
            rc = forge_buf_adds(out, n++ ? ",\n    " : "[\n    ");
            if (!rc) rc = nested(out, &tmp, r, "    ");
            if (!rc) rc = spill(sink, err);
        }
        cases_done(&cs);
        if (!rc) rc = forge_buf_adds(out, n ? "\n  ]" : "[]");
    }
    if (!rc && src->report && src->report->child) rc = forge_buf_adds(out, "\n}");
    if (!rc) rc = forge_buf_addc(out, '\n');
    forge_buf_free(&tmp);
    return rc;
}

int forge_report_json(struct forge_buf *out, const cJSON *report) { return to_buf(out, report, "json"); }

/* XML text: escapes markup; what XML 1.0 cannot carry (control characters other than tab, LF
 * and CR, bytes that are not UTF-8) and the Unicode noncharacters (U+FFFE and U+FFFF, which XML
 * forbids, and the 64 others, for consistency) become U+FFFD, one per invalid byte. */
int forge_xml_text(struct forge_buf *b, const char *s)
{
    int rc = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && !rc; p++) {
        switch (*p) {
        case '&': rc = forge_buf_adds(b, "&amp;"); break;
        case '<': rc = forge_buf_adds(b, "&lt;"); break;
        case '>': rc = forge_buf_adds(b, "&gt;"); break;
        case '"': rc = forge_buf_adds(b, "&quot;"); break;
        case '\'': rc = forge_buf_adds(b, "&apos;"); break;
        case '\n': rc = forge_buf_adds(b, "&#10;"); break;
        case '\t': case '\r': rc = forge_buf_addc(b, (char)*p); break;
        default:
            if (*p < 0x20) {
                rc = forge_buf_adds(b, FORGE_UTF8_REPLACEMENT);
            } else if (*p < 0x80) {
                rc = forge_buf_addc(b, (char)*p);
            } else {
                unsigned cp;
                int n = forge_utf8_decode((const char *)p, 4, &cp); /* stops at the NUL */
                if (!n || forge_utf8_noncharacter(cp)) {
                    rc = forge_buf_adds(b, FORGE_UTF8_REPLACEMENT);
                    if (n)
                        p += n - 1;
                } else {
                    rc = forge_buf_add(b, p, (size_t)n);
                    p += n - 1;
                }
            }
        }
    }
    return rc;
}

/* Seconds with three decimals from milliseconds. */
static int secs(struct forge_buf *b, double ms) { return forge_buf_addf(b, "%.3f", ms / 1000.0); }

static int testcase(struct forge_buf *out, const cJSON *r, const char *suite)
{
    const char *st = status(r);
    int rc = forge_buf_adds(out, "    <testcase name=\"");
    if (!rc) rc = forge_xml_text(out, str(r, "id", ""));
    if (!rc) rc = forge_buf_adds(out, "\" classname=\"");
    if (!rc) rc = forge_xml_text(out, suite);
    if (!rc) rc = forge_buf_adds(out, "\" time=\"");
    if (!rc) rc = secs(out, forge_json_num(r, "durationMs", 0));
    if (!rc && strcmp(st, "passed") == 0) return forge_buf_adds(out, "\"/>\n");
    if (!rc) rc = forge_buf_adds(out, "\">\n");
    if (!rc && strcmp(st, "error") == 0) {
        rc = forge_buf_adds(out, "      <error type=\"error\" message=\"");
        if (!rc) rc = forge_xml_text(out, str(r, "error", ""));
        if (!rc) rc = forge_buf_adds(out, "\"/>\n");
    } else if (!rc && strcmp(st, "skipped") == 0) {
        rc = forge_buf_adds(out, "      <skipped message=\"");
        if (!rc) rc = forge_xml_text(out, str(r, "reason", ""));
        if (!rc) rc = forge_buf_adds(out, "\"/>\n");
    } else if (!rc) {
        rc = forge_buf_adds(out, "      <failure type=\"assertion\" message=\"");
        if (!rc) rc = forge_xml_text(out, str(r, "reason", ""));
        if (!rc) rc = forge_buf_adds(out, "\">");
        const cJSON *as;
        cJSON_ArrayForEach(as, cJSON_GetObjectItemCaseSensitive(r, "assertions")) {
            if (rc || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(as, "passed"))) continue;
            rc = forge_xml_text(out, str(as, "type", ""));
            if (!rc) rc = forge_buf_adds(out, ": ");
            if (!rc) rc = forge_xml_text(out, str(as, "reason", ""));
            if (!rc) rc = forge_buf_adds(out, "&#10;");
        }
        if (!rc) rc = forge_buf_adds(out, "</failure>\n");
    }
    if (!rc) rc = forge_buf_adds(out, "    </testcase>\n");
    return rc;
}

static int suite_open(struct forge_buf *out, const struct forge_suite_group *g)
{
    int rc = forge_buf_adds(out, "  <testsuite name=\"");
    if (!rc) rc = forge_xml_text(out, g->name);
    if (!rc) rc = forge_buf_addf(out, "\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\" skipped=\"%ld\" time=\"",
                                 g->tests, g->failed, g->errors, g->skipped);
    if (!rc) rc = secs(out, g->ms);
    if (!rc) rc = forge_buf_adds(out, "\">\n");
    return rc;
}

static int stream_junit(struct forge_report_sink *sink, const struct forge_report_src *src, struct forge_err *err)
{
    struct forge_buf *out = &sink->buf;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(src->report, "summary");
    char a[40];
    int rc = forge_buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"forge\"");
    if (!rc) rc = forge_buf_addf(out, " tests=\"%s\"", num(forge_json_num(s, "totalCases", 0), a));
    if (!rc) rc = forge_buf_addf(out, " failures=\"%s\"", num(forge_json_num(s, "failed", 0), a));
    if (!rc) rc = forge_buf_addf(out, " errors=\"%s\"", num(forge_json_num(s, "errors", 0), a));
    if (!rc) rc = forge_buf_addf(out, " skipped=\"%s\" time=\"", num(forge_json_num(s, "skipped", 0), a));
    if (!rc) rc = secs(out, forge_json_num(s, "totalDurationMs", 0));
    if (!rc) rc = forge_buf_adds(out, "\">\n");
    /* test suites in first-seen order, with their counts: the run's, or counted here */
    const struct forge_suite_group *groups = src->groups;
    int ng = src->ngroups;
    struct forge_suite *tmp = NULL;
    struct cases cs;
    const cJSON *r;
    int got;
    if (!rc && !groups) {
        if (!(tmp = forge_suite_new())) rc = FORGE_ENOMEM;
        cases_init(&cs, src, LIGHT);
        while (!rc && (got = cases_next(&cs, &r, err)) != 0)
            rc = got < 0 ? got : forge_suite_count(tmp, r, err);
        cases_done(&cs);
        if (!rc) groups = forge_suite_groups(tmp, &ng);
    }
    /* each suite's cases in one run of places (one suite per eval file): one pass */
    bool runs = true;
    for (int i = 0; i < ng; i++) runs = runs && groups[i].last - groups[i].first + 1 == groups[i].tests;
    for (int i = 0; !rc && i < (runs ? (ng > 0) : ng); i++) {
        cases_init(&cs, src, LIGHT);
        int g = runs ? -1 : i;
        long k = 0;
        if (!runs) rc = suite_open(out, &groups[g]);
        while (!rc && (got = cases_next(&cs, &r, err)) != 0) {
            if (got < 0) {
                rc = got;
                break;
            }
            if (runs) {
                while (!rc && (g < 0 || k > groups[g].last) && g + 1 < ng) {
                    if (g >= 0) rc = forge_buf_adds(out, "  </testsuite>\n");
                    g++;
                    if (!rc) rc = suite_open(out, &groups[g]);
                }
                k++;
            } else if (strcmp(str(r, "suite", "forge"), groups[g].name) != 0) {
                continue;
            }
            /* a failure lists its assertions: the whole record */
            if (!rc && strcmp(status(r), "failed") == 0) rc = cases_full(&cs, &r, err);
            if (!rc) rc = testcase(out, r, groups[g].name);
            if (!rc) rc = spill(sink, err);
        }
        cases_done(&cs);
        if (!rc && g >= 0) rc = forge_buf_adds(out, "  </testsuite>\n");
    }
    forge_suite_free(tmp);
    if (!rc) rc = forge_buf_adds(out, "</testsuites>\n");
    return rc;
}

int forge_report_junit(struct forge_buf *out, const cJSON *rep) { return to_buf(out, rep, "junit"); }

/* Markdown table cell text: pipes escaped, new lines as spaces. */
static int md(struct forge_buf *b, const char *s)
{
    int rc = 0;
    for (; *s && !rc; s++) {
        if (*s == '|') rc = forge_buf_adds(b, "\\|");
        else if (*s == '\n' || *s == '\r') rc = forge_buf_addc(b, ' ');
        else rc = forge_buf_addc(b, *s);
    }
    return rc;
}

static int stream_md(struct forge_report_sink *sink, const struct forge_report_src *src, struct forge_err *err)
{
    const cJSON *rep = src->report;
    struct forge_buf *out = &sink->buf;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "summary");
    bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "passed"));
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(s, "passRateInterval");
    double lo = cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) ? cJSON_GetArrayItem(ci, 0)->valuedouble : 0;
    double hi = cJSON_IsNumber(cJSON_GetArrayItem(ci, 1)) ? cJSON_GetArrayItem(ci, 1)->valuedouble : 0;
    char a[40], b[40], c[40], d[40], e[40], f[40], g[40];
    int rc = forge_buf_addf(out, "## forge eval: %s\n\n", ok ? "passed" : "failed");
    if (!rc) rc = forge_buf_adds(out, "| cases | passed | failed | errors | skipped | pass rate | 95% interval | score | p50 latency | p95 latency | cost |\n"
                                      "|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
    if (!rc) rc = forge_buf_addf(out, "| %s | %s | %s | %s | %s | %.1f%% | %.1f%% - %.1f%% | %.3f | %s ms | %s ms | $%.6f |\n",
                                 num(forge_json_num(s, "totalCases", 0), a), num(forge_json_num(s, "passed", 0), b),
                                 num(forge_json_num(s, "failed", 0), c), num(forge_json_num(s, "errors", 0), d),
                                 num(forge_json_num(s, "skipped", 0), e), forge_json_num(s, "passRate", 0) * 100,
                                 lo * 100, hi * 100, forge_json_num(s, "score", 0),
                                 num(forge_json_num(s, "p50LatencyMs", 0), f), num(forge_json_num(s, "p95LatencyMs", 0), g),
                                 forge_json_num(s, "estimatedCostUsd", 0));
    const cJSON *gates = cJSON_GetObjectItemCaseSensitive(rep, "gates"), *it;
    if (!rc && cJSON_GetArraySize(gates) > 0) {
        rc = forge_buf_adds(out, "\n### Gates\n\n| gate | threshold | actual | result |\n|---|---:|---:|---|\n");
        cJSON_ArrayForEach(it, gates)
            if (!rc) rc = forge_buf_addf(out, "| %s | %s | %s | %s |\n", str(it, "gate", ""), num(forge_json_num(it, "threshold", 0), a),
                                         num(forge_json_num(it, "actual", 0), b),
                                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "pass")) ? "pass" : "**fail**");
    }
    bool header = false;
    bool any = !src->results || forge_json_num(s, "failed", 0) > 0 || forge_json_num(s, "errors", 0) > 0;
    struct cases cs;
    cases_init(&cs, src, LIGHT_FAILING);
    int got;
    while (!rc && any && (got = cases_next(&cs, &it, err)) != 0) {
        if (got < 0) {
            rc = got;
            break;
        }
        const char *st = status(it);
        if (strcmp(st, "passed") == 0 || strcmp(st, "skipped") == 0) continue;
        if (!header) {
            rc = forge_buf_adds(out, "\n### Failing cases\n\n| case | status | reason |\n|---|---|---|\n");
            header = true;
        }
        if (!rc) rc = forge_buf_adds(out, "| `");
        if (!rc) rc = md(out, str(it, "id", ""));
        if (!rc) rc = forge_buf_addf(out, "` | %s | ", st);
        if (!rc) rc = md(out, strcmp(st, "error") == 0 ? str(it, "error", "") : str(it, "reason", ""));
        if (!rc) rc = forge_buf_adds(out, " |\n");
        if (!rc) rc = spill(sink, err);
    }
    cases_done(&cs);
    const char *lists[2] = {"regressions", "newPasses"};
    const char *titles[2] = {"Regressions", "New passes"};
    for (int i = 0; i < 2 && !rc; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(rep, lists[i]);
        if (cJSON_GetArraySize(l) == 0) continue;
        rc = forge_buf_addf(out, "\n### %s\n\n", titles[i]);
        cJSON_ArrayForEach(it, l) {
            if (!rc) rc = forge_buf_adds(out, "- `");
            if (!rc) rc = md(out, it->valuestring);
            if (!rc) rc = forge_buf_adds(out, "`\n");
        }
    }
    return rc;
}

int forge_report_md(struct forge_buf *out, const cJSON *rep) { return to_buf(out, rep, "md"); }

int forge_report_stream(const char *format, struct forge_report_sink *sink, const struct forge_report_src *src,
                        struct forge_err *err)
{
    int rc;
    if (strcmp(format, "json") == 0) rc = stream_json(sink, src, err);
    else if (strcmp(format, "junit") == 0) rc = stream_junit(sink, src, err);
    else if (strcmp(format, "md") == 0) rc = stream_md(sink, src, err);
    else return forge_err_set(err, FORGE_EINVAL, "unknown report format '%s' (json, jsonl, junit, md, html)", format);
    if (!rc) rc = forge_report_sink_flush(sink, err);
    return oom(rc, err);
}

/* Opens <path>'s temporary file for an atomic write; sets *tmp (free with forge_free). */
static FILE *open_tmp(const char *path, char **tmp, struct forge_err *err)
{
    *tmp = forge_strdupf("%s.tmp.%ld", path, (long)getpid());
    if (!*tmp) {
        forge_err_set(err, FORGE_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    FILE *f = fopen(*tmp, "wb");
    if (!f) {
        forge_err_set(err, FORGE_EIO, "%s: cannot write: %s", path, strerror(errno));
        FORGE_FREE(*tmp);
    }
    return f;
}

static int close_tmp(FILE *f, char *tmp, const char *path, int rc, struct forge_err *err)
{
    if (fclose(f) != 0 && !rc) rc = forge_err_set(err, FORGE_EIO, "%s: write error: %s", path, strerror(errno));
    if (!rc && rename(tmp, path) != 0) rc = forge_err_set(err, FORGE_EIO, "%s: cannot write: %s", path, strerror(errno));
    if (rc) remove(tmp);
    forge_free(tmp);
    return rc;
}

/* The HTML report: its writer fed each record (the trajectory apart) in case order, then closed
 * with the report. */
static int write_html(const char *path, const struct forge_report_src *src, struct forge_err *err)
{
    struct forge_html *h = forge_html_open(path, err);
    if (!h) return err ? err->code : FORGE_EIO;
    struct cases cs;
    cases_init(&cs, src, WHOLE);
    const cJSON *r;
    int rc = 0, got;
    while (!rc && (got = cases_next(&cs, &r, err)) != 0) {
        if (got < 0) {
            rc = got;
            break;
        }
        rc = forge_html_case(h, r, src->results ? cs.it.traj : NULL, err);
    }
    cases_done(&cs);
    if (rc) {
        forge_html_close(h, NULL, false, NULL);
        return rc;
    }
    return forge_html_close(h, src->report, true, err);
}

int forge_report_write_src(const char *format, const char *path, const struct forge_report_src *src,
                           struct forge_err *err)
{
    if (strcmp(format, "html") == 0) return write_html(path, src, err);
    if (strcmp(format, "json") && strcmp(format, "junit") && strcmp(format, "md"))
        return forge_err_set(err, FORGE_EINVAL, "unknown report format '%s' (json, jsonl, junit, md, html)", format);
    char *tmp;
    FILE *f = open_tmp(path, &tmp, err);
    if (!f) return err ? err->code : FORGE_EIO;
    struct forge_report_sink sink = {.f = f, .name = path};
    forge_buf_init(&sink.buf, 0);
    int rc = forge_report_stream(format, &sink, src, err);
    forge_buf_free(&sink.buf);
    return close_tmp(f, tmp, path, rc, err);
}

int forge_report_write(const char *format, const char *path, const cJSON *report, struct forge_err *err)
{
    struct forge_report_src src = {.report = report};
    return forge_report_write_src(format, path, &src, err);
}

int forge_report_write_jsonl(const char *path, struct forge_results *results, struct forge_err *err)
{
    char *tmp;
    FILE *f = open_tmp(path, &tmp, err);
    if (!f) return err ? err->code : FORGE_EIO;
    struct forge_report_sink sink = {.f = f, .name = path};
    forge_buf_init(&sink.buf, 0);
    int rc = 0;
    size_t n = forge_results_size(results);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!forge_results_has(results, i)) continue;
        rc = forge_results_copy(results, i, &sink.buf, err);
        if (!rc) rc = oom(forge_buf_addc(&sink.buf, '\n'), err);
        if (!rc) rc = spill(&sink, err);
    }
    if (!rc) rc = forge_report_sink_flush(&sink, err);
    forge_buf_free(&sink.buf);
    return close_tmp(f, tmp, path, rc, err);
}

struct forge_jsonl {
    FILE *f;
    char *path, *tmp;
};

struct forge_jsonl *forge_jsonl_open(const char *path, struct forge_err *err)
{
    struct forge_jsonl *j = forge_calloc(1, sizeof *j);
    size_t n = strlen(path) + 40;
    if (!j || !(j->path = forge_strdup(path)) || !(j->tmp = forge_malloc(n))) {
        if (j) forge_free(j->path);
        forge_free(j);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(j->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    j->f = fopen(j->tmp, "w");
    if (!j->f) {
        forge_err_set(err, FORGE_EIO, "%s: cannot write the report: %s", path, strerror(errno));
        forge_free(j->tmp);
        forge_free(j->path);
        forge_free(j);
        return NULL;
    }
    return j;
}

int forge_jsonl_add(struct forge_jsonl *j, const cJSON *result, struct forge_err *err)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int rc = forge_json_write(&b, result, 0);
    if (!rc) rc = forge_buf_addc(&b, '\n');
    if (rc) {
        forge_buf_free(&b);
        return forge_err_set(err, rc, "jsonl report: out of memory");
    }
    if (fwrite(b.data, 1, b.len, j->f) != b.len || fflush(j->f) != 0)
        rc = forge_err_set(err, FORGE_EIO, "%s: write failed: %s", j->path, strerror(errno));
    forge_buf_free(&b);
    return rc;
}

int forge_jsonl_add_case(struct forge_jsonl *j, const cJSON *result, const cJSON *traj, struct forge_err *err)
{
    if (!traj) return forge_jsonl_add(j, result, err);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int rc = forge_json_write(&b, result, 0);
    /* the result is an object: its closing brace gives way to the trajectory member */
    if (!rc && b.len && b.data[b.len - 1] == '}') {
        b.len--;
        rc = forge_buf_adds(&b, b.len > 1 ? ",\"trajectory\":" : "\"trajectory\":");
        if (!rc) rc = forge_json_write(&b, traj, 0);
        if (!rc) rc = forge_buf_addc(&b, '}');
    }
    if (!rc) rc = forge_buf_addc(&b, '\n');
    if (rc) {
        forge_buf_free(&b);
        return forge_err_set(err, rc, "jsonl report: out of memory");
    }
    if (fwrite(b.data, 1, b.len, j->f) != b.len || fflush(j->f) != 0)
        rc = forge_err_set(err, FORGE_EIO, "%s: write failed: %s", j->path, strerror(errno));
    forge_buf_free(&b);
    return rc;
}

int forge_jsonl_close(struct forge_jsonl *j, bool commit, struct forge_err *err)
{
    if (!j) return 0;
    int rc = 0;
    if (fclose(j->f) != 0 && commit) rc = forge_err_set(err, FORGE_EIO, "%s: write failed: %s", j->path, strerror(errno));
    if (!rc && commit) {
        if (rename(j->tmp, j->path) != 0) rc = forge_err_set(err, FORGE_EIO, "%s: cannot write the report: %s", j->path, strerror(errno));
    }
    if (rc || !commit) remove(j->tmp);
    forge_free(j->tmp);
    forge_free(j->path);
    forge_free(j);
    return rc;
}
