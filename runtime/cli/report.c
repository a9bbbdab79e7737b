/* forge report merge SHARD.jsonl...: one set of reports from the shards of a run.
 * forge report html RESULTS.jsonl -o PATH: the offline HTML report of a run's JSONL results. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/lines.h"
#include "data/jarena.h"
#include "data/json.h"
#include "data/utf8.h"
#include "eval/suite.h"
#include "report/html.h"
#include "report/report.h"
#include "report/results.h"
#include "cli/live.h"

#include <stdint.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char forge_usage_report[] =
    "usage: forge report merge SHARD.jsonl... [--report FORMAT=PATH]... [--min-pass-rate X] [--max-cost USD]\n"
    "                          [--max-p95-ms MS] [--baseline FILE] [-q]\n"
    "       forge report html RESULTS.jsonl -o PATH [--min-pass-rate X] [--max-cost USD] [--max-p95-ms MS]\n"
    "                         [--baseline FILE]\n"
    "\n"
    "merge: the JSONL results of the shards of one run (forge run --shard I/N --report jsonl=FILE),\n"
    "checked to be every shard of one suite exactly once, whole and without overlap, put back in\n"
    "the suite's order and reported as one run: the console summary, --report json, junit, md,\n"
    "jsonl or html, gates and the exit code computed over the whole (docs/ci.md).\n"
    "Exit codes: 0 every case passed and the gates hold, 1 a case or gate failed, 2 bad usage or\n"
    "shards that do not make one run (the message names the file and what is wrong).\n"
    "\n"
    "html: the offline HTML report of the results a run wrote with --report jsonl=FILE (a case per\n"
    "line, with its trajectory): one self-contained file that opens from disk and fetches nothing,\n"
    "with the summary, gates, baseline diff and latency chart, and a table of the cases (filter,\n"
    "search, pages) with each case's timeline (docs/reports.md). The file is read once and the\n"
    "page written as it goes. Exit codes: 0 the report was written (whatever the run's verdict),\n"
    "2 bad usage or a line that is no case result (named by file:line), 3 the file cannot be\n"
    "written.\n";

#define MAX_REPORTS 8

struct shard {
    const char *path;
    int index, of;
    char suite[32];
    long total;
    long cases, results; /* the header's cases, the records read */
};

struct place {
    const char *id;
    long at;
};

static int by_id(const void *a, const void *b)
{
    return strcmp(((const struct place *)a)->id, ((const struct place *)b)->id);
}

/* Places the record of case <id> at <at> of source <src>. */
static int place(struct shard *s, const struct place *pl, struct forge_results *res, int src, uint64_t at,
                 const char *id, const char *path, struct forge_err *err)
{
    struct place key = {id, 0};
    s->results++;
    const struct place *p = bsearch(&key, pl, (size_t)s->cases, sizeof *pl, by_id);
    long pos = p ? p->at : -1;
    if (p && pos >= 0 && pos < s->total) {
        int taken = forge_results_place(res, (size_t)pos, src, at, err);
        if (taken < 0)
            return FORGE_ENOMEM;
        if (!taken)
            return 0;
    }
    return forge_err_set(err, FORGE_EINVAL, "report merge: %s: case \"%s\" %s", path, id,
                         !p ? "is not among the shard's cases" : "overlaps another shard's");
}

/* The case id of a record line as forge writes it ({"id":"...", ... } with an id without
 * escapes, brackets balanced to the end of the line, valid UTF-8): copied to <id>; false when the
 * line is anything else (it is then parsed whole, which finds what is wrong). */
static bool quick_id(const char *p, size_t n, char *id, size_t idn)
{
    static const char head[] = "{\"id\":\"";
    if (n < sizeof head || memcmp(p, head, sizeof head - 1) != 0)
        return false;
    const char *s = p + sizeof head - 1, *e = p + n, *q = s;
    while (q < e && *q != '"' && *q != '\\')
        q++;
    if (q >= e || *q != '"' || (size_t)(q - s) >= idn)
        return false;
    memcpy(id, s, (size_t)(q - s));
    id[q - s] = 0;
    int depth = 0;
    for (const char *c = p; c < e; c++) {
        if (*c == '"') {
            for (c++; c < e && *c != '"'; c++)
                if (*c == '\\')
                    c++;
            if (c >= e)
                return false;
        } else if (*c == '{' || *c == '[') {
            if (++depth > 512) /* deep nesting: the full parse says what is wrong */
                return false;
        } else if ((*c == '}' || *c == ']') && --depth == 0 && c + 1 != e) {
            return false;
        }
    }
    return depth == 0 && forge_utf8_check(p, n, true) == n;
}

/* Reads a shard: checks its header and every line, and places each record (where it is in the
 * file, not a copy) at its place in the whole run. Holds one shard's header at a time. */
static int load(const char *path, struct shard *all, int i, struct forge_results *res, struct forge_err *err)
{
    struct shard *s = &all[i];
    s->path = path;
    int src = forge_results_source(res, path, err);
    if (src < 0)
        return src;
    FILE *f = fopen(path, "r");
    if (!f)
        return forge_err_set(err, FORGE_EINVAL, "%s: cannot read: %s", path, strerror(errno));
    struct forge_lines lr;
    forge_lines_init(&lr, f, (size_t)256 << 20);
    cJSON *hdr = NULL;
    struct place *pl = NULL;
    int rc = 0;
    const char *line;
    size_t n;
    uint64_t off = 0, at;
    int got, header = 0;
    while (!rc && (got = forge_lines_next(&lr, &line, &n)) != 0) {
        if (got < 0) {
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: %s", path, lr.lineno,
                               got == FORGE_ELIMIT ? "a line longer than 256 MiB" : "cannot read");
            break;
        }
        at = off;
        off += n + 1;
        if (n == 0)
            continue;
        char qid[512];
        if (header && quick_id(line, n, qid, sizeof qid)) {
            if ((rc = place(s, pl, res, src, at, qid, path, err)) != 0)
                break;
            continue;
        }
        cJSON *v = forge_json_parse(line, n, path, err);
        if (!v) {
            /* forge_json_parse names the place as path:1:col: the line is this file's */
            char m[FORGE_ERR_MAX];
            const char *col = strchr(err->msg + strlen(path) + 1, ':');
            snprintf(m, sizeof m, "%s:%ld%s (a line cut short? the shard's run may have been stopped)", path, lr.lineno,
                     col ? col : ": invalid JSON");
            rc = forge_err_set(err, FORGE_EINVAL, "%s", m);
            break;
        }
        if (!header) {
            cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "forge_shard");
            const char *suite = forge_json_str(h, "suite");
            const cJSON *ids = cJSON_GetObjectItemCaseSensitive(h, "ids");
            const cJSON *pos = cJSON_GetObjectItemCaseSensitive(h, "positions");
            if (!h || !suite || !cJSON_IsArray(pos)) {
                cJSON_Delete(v);
                rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: not the results of a shard (the first line is no "
                                   "forge_shard header: run forge run --shard I/N --report jsonl=FILE)", path, lr.lineno);
                break;
            }
            s->index = (int)forge_json_num(h, "index", 0);
            s->of = (int)forge_json_num(h, "of", 0);
            s->total = (long)forge_json_num(h, "total", 0);
            snprintf(s->suite, sizeof s->suite, "%s", suite);
            if (cJSON_GetArraySize(ids) != cJSON_GetArraySize(pos)) {
                cJSON_Delete(v);
                rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: the forge_shard header's ids and positions differ", path,
                                   lr.lineno);
                break;
            }
            hdr = v;
            header = 1;
            /* one suite, every shard once */
            if (s->of != all[0].of || strcmp(s->suite, all[0].suite) || s->total != all[0].total) {
                rc = forge_err_set(err, FORGE_EINVAL, "report merge: %s is shard %d/%d of another run than %s (shard "
                                   "%d/%d): the suites differ (case ids hash to %s and %s)", s->path, s->index, s->of,
                                   all[0].path, all[0].index, all[0].of, s->suite, all[0].suite);
                break;
            }
            for (int j = 0; j < i && !rc; j++)
                if (all[j].index == s->index)
                    rc = forge_err_set(err, FORGE_EINVAL, "report merge: %s and %s are both shard %d/%d", all[j].path,
                                       s->path, s->index, s->of);
            if (rc)
                break;
            /* a record finds its place by its case id (a shard writes error cases last) */
            s->cases = cJSON_GetArraySize(pos);
            if (!(pl = forge_calloc((size_t)s->cases + 1, sizeof *pl))) {
                rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
                break;
            }
            long k = 0;
            for (cJSON *id = ids->child, *p = pos->child; id && p; id = id->next, p = p->next, k++) {
                pl[k].id = cJSON_IsString(id) ? id->valuestring : "";
                pl[k].at = cJSON_IsNumber(p) ? (long)p->valuedouble : -1;
            }
            qsort(pl, (size_t)s->cases, sizeof *pl, by_id);
            continue;
        }
        struct place key = {forge_json_str(v, "id"), 0};
        if (!key.id) {
            cJSON_Delete(v);
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: not a case result (no id)", path, lr.lineno);
            break;
        }
        rc = place(s, pl, res, src, at, key.id, path, err);
        cJSON_Delete(v);
    }
    forge_free(pl);
    cJSON_Delete(hdr);
    forge_lines_free(&lr);
    fclose(f);
    if (!rc && !header)
        rc = forge_err_set(err, FORGE_EINVAL, "%s: empty: no forge_shard header and no results", path);
    if (!rc && s->results != s->cases)
        rc = forge_err_set(err, FORGE_EINVAL, "%s: %ld results for the shard's %ld cases: the file is cut short (or its "
                           "run stopped before the end)", path, s->results, s->cases);
    return rc;
}

struct lines {
    int quiet, failed;
    struct forge_buf out;
};

/* Each case's console line, in the run's order. */
static void case_line(void *ud, const cJSON *r, struct forge_results_iter *it)
{
    struct lines *l = ud;
    if (!r) { /* the end: before the summary */
        fwrite(l->out.data ? l->out.data : "", 1, l->out.len, stdout);
        forge_buf_reset(&l->out);
        return;
    }
    if (l->quiet && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed")))
        return;
    /* the line shows failed assertions and warnings: the whole record */
    struct forge_err err = {0};
    if (forge_results_iter_full(it, &r, &err)) {
        l->failed = 1;
        return;
    }
    forge_report_console_case(&l->out, r);
    if (l->out.len > ((size_t)64 << 10)) {
        fwrite(l->out.data, 1, l->out.len, stdout);
        forge_buf_reset(&l->out);
    }
}

static int merge(int argc, char **argv)
{
    const char *files[1024], *rformat[MAX_REPORTS], *rpath[MAX_REPORTS], *baseline_path = NULL;
    int nfiles = 0, nreports = 0, quiet = 0;
    struct forge_gates gates;
    memset(&gates, 0, sizeof gates);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (a[0] != '-') {
            if (nfiles == 1024) {
                forge_cli_error("report merge: at most 1024 shards");
                return FORGE_EXIT_USAGE;
            }
            files[nfiles++] = a;
            continue;
        }
        if (i + 1 >= argc) {
            forge_cli_error("report merge: %s needs a value", a);
            return FORGE_EXIT_USAGE;
        }
        const char *v = argv[++i];
        int g;
        if (!strcmp(a, "--report")) {
            if (forge_cli_report_opt("report merge", v, rformat, rpath, &nreports, MAX_REPORTS))
                return FORGE_EXIT_USAGE;
        } else if (!strcmp(a, "--baseline")) {
            baseline_path = v;
        } else if ((g = forge_cli_gate_opt("report merge", a, v, &gates)) != 0) {
            if (g < 0)
                return FORGE_EXIT_USAGE;
        } else {
            forge_cli_error("report merge: unknown option '%s' (see forge help report)", a);
            return FORGE_EXIT_USAGE;
        }
    }
    if (!nfiles) {
        forge_cli_error("report merge: give the shards' JSONL results");
        return FORGE_EXIT_USAGE;
    }
    int code = FORGE_EXIT_USAGE;
    struct forge_err err = {0};
    struct shard *sh = forge_calloc((size_t)nfiles, sizeof *sh);
    struct forge_results *res = forge_results_index();
    cJSON *baseline = NULL;
    struct lines cl = {.quiet = quiet};
    forge_buf_init(&cl.out, 0);
    if (!sh || !res)
        goto oom;
    /* one suite, every shard once: checked on the headers as the shards are read */
    for (int i = 0; i < nfiles; i++) {
        if (load(files[i], sh, i, res, &err)) {
            forge_cli_error("%s", err.msg);
            goto out;
        }
    }
    if (nfiles != sh[0].of) {
        struct forge_buf miss;
        forge_buf_init(&miss, 0);
        for (int k = 1; k <= sh[0].of; k++) {
            int found = 0;
            for (int i = 0; i < nfiles; i++)
                found |= sh[i].index == k;
            if (!found)
                forge_buf_addf(&miss, "%s%d", miss.len ? ", " : "", k);
        }
        forge_cli_error("report merge: %d of %d shards given: shard%s %s missing", nfiles, sh[0].of,
                        strchr(miss.data ? miss.data : "", ',') ? "s" : "", miss.data ? miss.data : "?");
        forge_buf_free(&miss);
        goto out;
    }
    /* every place filled once */
    for (long k = 0; k < sh[0].total; k++)
        if (!forge_results_has(res, (size_t)k)) {
            forge_cli_error("report merge: no shard holds the case at place %ld of %ld", k + 1, sh[0].total);
            goto out;
        }
    if (baseline_path && (!(baseline = forge_json_load(baseline_path, &err)) ||
                          !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(baseline, "cases")))) {
        forge_cli_error("%s", baseline ? "--baseline: not a forge JSON report (no \"cases\")" : err.msg);
        goto out;
    }
    bool passed = false;
    int rc = forge_live_report_each(res, false, &gates, baseline, rformat, rpath, nreports, case_line, &cl, &passed);
    res = NULL;
    code = rc ? rc : passed ? FORGE_EXIT_OK : FORGE_EXIT_FAIL;
    if (!rc && cl.failed) {
        forge_cli_error("report merge: a shard's record could not be read again (was a shard file changed?)");
        code = FORGE_EXIT_INFRA;
    }
    goto out;
oom:
    forge_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
    code = FORGE_EXIT_INFRA;
out:
    forge_results_close(res, false, NULL);
    forge_buf_free(&cl.out);
    cJSON_Delete(baseline);
    forge_free(sh);
    return code;
}

static int html(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL, *baseline_path = NULL;
    struct forge_gates gates;
    memset(&gates, 0, sizeof gates);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (in) {
                forge_cli_error("report html: one results file (for the shards of a run: forge report merge SHARD... "
                                "--report html=PATH)");
                return FORGE_EXIT_USAGE;
            }
            in = a;
            continue;
        }
        if (i + 1 >= argc) {
            forge_cli_error("report html: %s needs a value", a);
            return FORGE_EXIT_USAGE;
        }
        const char *v = argv[++i];
        int g;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            outp = v;
        } else if (!strcmp(a, "--baseline")) {
            baseline_path = v;
        } else if ((g = forge_cli_gate_opt("report html", a, v, &gates)) != 0) {
            if (g < 0)
                return FORGE_EXIT_USAGE;
        } else {
            forge_cli_error("report html: unknown option '%s' (see forge help report)", a);
            return FORGE_EXIT_USAGE;
        }
    }
    if (!in || !outp) {
        forge_cli_error("report html: give the results file and -o PATH (forge report html RESULTS.jsonl -o report.html)");
        return FORGE_EXIT_USAGE;
    }
    int code = FORGE_EXIT_USAGE;
    struct forge_err err = {0};
    cJSON *baseline = NULL, *report = NULL;
    struct forge_suite *suite = NULL;
    struct forge_html *hl = NULL;
    struct forge_lines lr = {0};
    bool from_stdin = !strcmp(in, "-");
    const char *name = from_stdin ? "<stdin>" : in;
    struct stat st;
    if (!from_stdin && stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
        forge_cli_error("%s: is a directory (give the JSONL results file a run wrote with --report jsonl=FILE)", in);
        return FORGE_EXIT_USAGE;
    }
    FILE *f = from_stdin ? stdin : fopen(in, "r");
    if (!f) {
        forge_cli_error("%s: cannot read: %s", in, strerror(errno));
        return FORGE_EXIT_USAGE;
    }
    if (baseline_path && (!(baseline = forge_json_load(baseline_path, &err)) ||
                          !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(baseline, "cases")))) {
        forge_cli_error("%s", baseline ? "--baseline: not a forge JSON report (no \"cases\")" : err.msg);
        goto out;
    }
    /* the summary is counted as the cases pass (8 bytes a case): no result is kept */
    if (!(suite = forge_suite_new()) || forge_suite_set_baseline(suite, baseline, &err))
        goto oom;
    if (!(hl = forge_html_open(outp, &err))) {
        forge_cli_error("%s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    forge_lines_init(&lr, f, (size_t)256 << 20);
    const char *line;
    size_t n;
    int got;
    long cases = 0;
    /* a line's tree dies with the line: parsed into a bump arena, released at once (what the
     * page and the counts allocate meanwhile comes from malloc, and outlives the line) */
    forge_jarena_install();
    while ((got = forge_lines_next(&lr, &line, &n)) != 0) {
        forge_jarena_reset();
        if (got < 0) {
            forge_cli_error("%s:%ld: %s", name, lr.lineno, got == FORGE_ELIMIT ? "a line longer than 256 MiB" : "cannot read");
            goto out;
        }
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t' || line[lead] == '\r')) lead++;
        if (lead == n)
            continue;
        forge_jarena_on(true);
        cJSON *r = forge_json_parse(line, n, name, &err);
        forge_jarena_on(false);
        if (!r) {
            const char *col = strchr(err.msg + strlen(name) + 1, ':');
            forge_cli_error("%s:%ld%s", name, lr.lineno, col ? col : ": invalid JSON");
            goto out;
        }
        if (cJSON_GetObjectItemCaseSensitive(r, "forge_shard")) { /* a shard's header */
            cJSON_Delete(r);
            continue;
        }
        if (!cJSON_IsObject(r) || !forge_json_str(r, "id")) {
            cJSON_Delete(r);
            forge_cli_error("%s:%ld: not a case result (an object with \"id\": the lines forge run --report jsonl=FILE "
                            "writes)", name, lr.lineno);
            goto out;
        }
        cJSON *traj = cJSON_DetachItemFromObjectCaseSensitive(r, "trajectory");
        int rc = forge_html_case(hl, r, traj, &err);
        cJSON_Delete(traj);
        if (rc) {
            cJSON_Delete(r);
            forge_cli_error("%s", err.msg);
            code = FORGE_EXIT_INFRA;
            goto out;
        }
        rc = forge_suite_count(suite, r, &err);
        cJSON_Delete(r);
        if (rc)
            goto oom;
        cases++;
    }
    if (!cases) {
        forge_cli_error("%s: no case results", name);
        goto out;
    }
    if (forge_suite_report(suite, &gates, NULL, &report, &err))
        goto oom;
    {
        struct forge_html *h = hl;
        hl = NULL;
        if (forge_html_close(h, report, true, &err)) {
            forge_cli_error("%s", err.msg);
            code = FORGE_EXIT_INFRA;
            goto out;
        }
    }
    printf("%s: %ld case%s\n", outp, cases, cases == 1 ? "" : "s");
    code = FORGE_EXIT_OK;
    goto out;
oom:
    forge_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
    code = FORGE_EXIT_INFRA;
out:
    forge_jarena_release();
    forge_html_close(hl, NULL, false, NULL);
    forge_lines_free(&lr);
    if (f != stdin)
        fclose(f);
    cJSON_Delete(baseline);
    cJSON_Delete(report);
    forge_suite_free(suite);
    return code;
}

int forge_cmd_report(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "merge"))
        return merge(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "html"))
        return html(argc - 1, argv + 1);
    forge_cli_error("report: give a subcommand: merge or html (see forge help report)");
    return FORGE_EXIT_USAGE;
}
