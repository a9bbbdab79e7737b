/* forge report merge SHARD.jsonl...: one set of reports from the shards of a run.
 * forge report html RESULTS.jsonl -o PATH: the offline HTML report of a run's JSONL results. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/lines.h"
#include "data/json.h"
#include "eval/suite.h"
#include "report/html.h"
#include "report/report.h"

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
    cJSON *positions, *ids, *results; /* owned */
};

struct place {
    const char *id;
    long at;
};

static int by_id(const void *a, const void *b)
{
    return strcmp(((const struct place *)a)->id, ((const struct place *)b)->id);
}

static int load(const char *path, struct shard *s, struct forge_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return forge_err_set(err, FORGE_EINVAL, "%s: cannot read: %s", path, strerror(errno));
    struct forge_lines lr;
    forge_lines_init(&lr, f, (size_t)256 << 20);
    s->path = path;
    s->results = cJSON_CreateArray();
    int rc = s->results ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
    const char *line;
    size_t n;
    int got, header = 0;
    while (!rc && (got = forge_lines_next(&lr, &line, &n)) != 0) {
        if (got < 0) {
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: %s", path, lr.lineno,
                               got == FORGE_ELIMIT ? "a line longer than 256 MiB" : "cannot read");
            break;
        }
        if (n == 0)
            continue;
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
            if (!h || !suite || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(h, "positions"))) {
                cJSON_Delete(v);
                rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: not the results of a shard (the first line is no "
                                   "forge_shard header: run forge run --shard I/N --report jsonl=FILE)", path, lr.lineno);
                break;
            }
            s->index = (int)forge_json_num(h, "index", 0);
            s->of = (int)forge_json_num(h, "of", 0);
            s->total = (long)forge_json_num(h, "total", 0);
            snprintf(s->suite, sizeof s->suite, "%s", suite);
            s->positions = cJSON_DetachItemFromObjectCaseSensitive(h, "positions");
            s->ids = cJSON_DetachItemFromObjectCaseSensitive(h, "ids");
            cJSON_Delete(v);
            if (cJSON_GetArraySize(s->ids) != cJSON_GetArraySize(s->positions)) {
                rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: the forge_shard header's ids and positions differ", path,
                                   lr.lineno);
                break;
            }
            header = 1;
            continue;
        }
        if (!forge_json_str(v, "id")) {
            cJSON_Delete(v);
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%ld: not a case result (no id)", path, lr.lineno);
            break;
        }
        cJSON_AddItemToArray(s->results, v);
    }
    forge_lines_free(&lr);
    fclose(f);
    if (!rc && !header)
        rc = forge_err_set(err, FORGE_EINVAL, "%s: empty: no forge_shard header and no results", path);
    if (!rc && cJSON_GetArraySize(s->results) != cJSON_GetArraySize(s->positions))
        rc = forge_err_set(err, FORGE_EINVAL, "%s: %d results for the shard's %d cases: the file is cut short (or its "
                           "run stopped before the end)", path, cJSON_GetArraySize(s->results),
                           cJSON_GetArraySize(s->positions));
    return rc;
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
        char *end;
        if (!strcmp(a, "--report")) {
            const char *eq = strchr(v, '=');
            static const char *const formats[] = {"json", "jsonl", "junit", "md", "html", NULL};
            int ok = eq && nreports < MAX_REPORTS;
            for (const char *const *f = formats; ok && *f; f++)
                if (strlen(*f) == (size_t)(eq - v) && !strncmp(*f, v, (size_t)(eq - v)))
                    ok = 2;
            if (ok != 2 || !eq[1]) {
                forge_cli_error("report merge: --report '%s': expected FORMAT=PATH with FORMAT json, jsonl, junit, md or html", v);
                return FORGE_EXIT_USAGE;
            }
            static char fmts[MAX_REPORTS][8];
            snprintf(fmts[nreports], sizeof fmts[0], "%.*s", (int)(eq - v), v);
            rformat[nreports] = fmts[nreports];
            rpath[nreports++] = eq + 1;
        } else if (!strcmp(a, "--baseline")) {
            baseline_path = v;
        } else if (!strcmp(a, "--min-pass-rate") || !strcmp(a, "--max-cost") || !strcmp(a, "--max-p95-ms")) {
            double d = strtod(v, &end);
            if (*end || d < 0 || (!strcmp(a, "--min-pass-rate") && d > 1)) {
                forge_cli_error("report merge: %s: '%s' is not a valid value", a, v);
                return FORGE_EXIT_USAGE;
            }
            if (!strcmp(a, "--min-pass-rate")) {
                gates.has_min_pass_rate = true;
                gates.min_pass_rate = d;
            } else if (!strcmp(a, "--max-cost")) {
                gates.has_max_cost = true;
                gates.max_cost = d;
            } else {
                gates.has_max_p95_ms = true;
                gates.max_p95_ms = d;
            }
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
    cJSON **slot = NULL, **trajs = NULL, *baseline = NULL, *report = NULL;
    struct forge_html *hl = NULL;
    long added = 0, total = 0;
    int moved = 0;
    struct forge_suite *suite = NULL;
    struct forge_buf out;
    forge_buf_init(&out, 0);
    if (!sh)
        goto oom;
    for (int i = 0; i < nfiles; i++)
        if (load(files[i], &sh[i], &err)) {
            forge_cli_error("%s", err.msg);
            goto out;
        }
    /* one suite, every shard once */
    for (int i = 0; i < nfiles; i++) {
        if (sh[i].of != sh[0].of || strcmp(sh[i].suite, sh[0].suite) || sh[i].total != sh[0].total) {
            forge_cli_error("report merge: %s is shard %d/%d of another run than %s (shard %d/%d): the suites differ "
                            "(case ids hash to %s and %s)", sh[i].path, sh[i].index, sh[i].of, sh[0].path, sh[0].index,
                            sh[0].of, sh[i].suite, sh[0].suite);
            goto out;
        }
        for (int j = 0; j < i; j++)
            if (sh[j].index == sh[i].index) {
                forge_cli_error("report merge: %s and %s are both shard %d/%d", sh[j].path, sh[i].path, sh[i].index,
                                sh[i].of);
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
    /* back in the suite's order; each place filled once */
    total = sh[0].total;
    if (!(slot = forge_calloc((size_t)total + 1, sizeof *slot)))
        goto oom;
    for (int i = 0; i < nfiles; i++) {
        /* a result finds its place by its case id (a shard writes error cases last) */
        int n = cJSON_GetArraySize(sh[i].ids);
        struct place *pl = forge_calloc((size_t)n + 1, sizeof *pl);
        if (!pl)
            goto oom;
        int k = 0;
        for (cJSON *id = sh[i].ids->child, *p = sh[i].positions->child; id && p; id = id->next, p = p->next, k++) {
            pl[k].id = cJSON_IsString(id) ? id->valuestring : "";
            pl[k].at = (long)p->valuedouble;
        }
        qsort(pl, (size_t)n, sizeof *pl, by_id);
        for (cJSON *r = sh[i].results->child; r; r = r->next) {
            struct place key = {forge_json_str(r, "id"), 0};
            struct place *f = bsearch(&key, pl, (size_t)n, sizeof *pl, by_id);
            long at = f ? f->at : -1;
            if (!f || at < 0 || at >= total || slot[at]) {
                forge_cli_error("report merge: %s: case \"%s\" %s", sh[i].path, key.id,
                                !f ? "is not among the shard's cases" : "overlaps another shard's");
                forge_free(pl);
                goto out;
            }
            slot[at] = r;
        }
        forge_free(pl);
    }
    for (long k = 0; k < total; k++)
        if (!slot[k]) {
            forge_cli_error("report merge: no shard holds the case at place %ld of %ld", k + 1, total);
            goto out;
        }
    if (baseline_path && (!(baseline = forge_json_load(baseline_path, &err)) ||
                          !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(baseline, "cases")))) {
        forge_cli_error("%s", baseline ? "--baseline: not a forge JSON report (no \"cases\")" : err.msg);
        goto out;
    }
    if (!(suite = forge_suite_new()) || forge_suite_reserve(suite, (size_t)total, &err))
        goto oom;
    if (!(trajs = forge_calloc((size_t)total + 1, sizeof *trajs)))
        goto oom;
    for (int i = 0; i < nreports; i++) {
        if (strcmp(rformat[i], "html"))
            continue;
        if (hl) {
            forge_cli_error("report merge: only one html report");
            goto out;
        }
        if (!(hl = forge_html_open(rpath[i], &err))) {
            forge_cli_error("%s", err.msg);
            code = FORGE_EXIT_INFRA;
            goto out;
        }
    }
    /* the results leave their shards' arrays: the suite takes them, in order */
    for (int i = 0; i < nfiles; i++)
        sh[i].results->child = NULL;
    moved = 1;
    for (long k = 0; k < total; k++)
        slot[k]->prev = slot[k]->next = NULL;
    for (added = 0; added < total; added++) {
        cJSON *r = slot[added];
        if (!quiet || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed"))) {
            if (forge_report_console_case(&out, r))
                goto oom;
        }
        slot[added] = NULL;
        /* trajectories ride in the jsonl and html reports only: the others equal a single run's */
        trajs[added] = cJSON_DetachItemFromObjectCaseSensitive(r, "trajectory");
        if (hl && forge_html_case(hl, r, trajs[added], &err)) {
            cJSON_Delete(r);
            forge_cli_error("%s", err.msg);
            code = FORGE_EXIT_INFRA;
            goto out;
        }
        if (forge_suite_add(suite, r, &err))
            goto oom;
    }
    if (forge_suite_report(suite, &gates, baseline, &report, &err) || forge_report_console_summary(&out, report))
        goto oom;
    fputs(out.data ? out.data : "", stdout);
    fflush(stdout);
    for (int i = 0; i < nreports; i++) {
        int rc = 0;
        if (!strcmp(rformat[i], "jsonl")) {
            struct forge_jsonl *jl = forge_jsonl_open(rpath[i], &err);
            const cJSON *c;
            long k = 0;
            rc = jl ? 0 : -1;
            cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "cases"))
                if (!rc)
                    rc = forge_jsonl_add_case(jl, c, k < total ? trajs[k++] : NULL, &err);
            if (jl && forge_jsonl_close(jl, rc == 0, &err))
                rc = -1;
        } else if (!strcmp(rformat[i], "html")) {
            rc = forge_html_close(hl, report, true, &err);
            hl = NULL;
        } else {
            rc = forge_report_write(rformat[i], rpath[i], report, &err);
        }
        if (rc) {
            forge_cli_error("%s", err.msg);
            code = FORGE_EXIT_INFRA;
            goto out;
        }
    }
    code = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(report, "passed")) ? FORGE_EXIT_OK : FORGE_EXIT_FAIL;
    goto out;
oom:
    forge_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
    code = FORGE_EXIT_INFRA;
out:
    forge_html_close(hl, NULL, false, NULL);
    for (long k = 0; trajs && k < total; k++)
        cJSON_Delete(trajs[k]);
    forge_free(trajs);
    forge_buf_free(&out);
    forge_suite_free(suite);
    cJSON_Delete(report);
    cJSON_Delete(baseline);
    for (long k = added; moved && k < total; k++)
        cJSON_Delete(slot[k]); /* taken out of the shards, not yet added */
    forge_free(slot);
    for (int i = 0; sh && i < nfiles; i++) {
        cJSON_Delete(sh[i].positions);
        cJSON_Delete(sh[i].ids);
        cJSON_Delete(sh[i].results);
    }
    forge_free(sh);
    return code;
}

/* Keeps of a result what the summary and the baseline comparison read. */
static void skeleton(cJSON *r)
{
    static const char *const keep[] = {"id", "passed", "skipped", "error", "score", "weight", "durationMs",
                                       "latencyMs", "costUsd", "skippedAssertions", NULL};
    cJSON *it = r->child;
    while (it) { /* one pass: lookups by name would scan the members for every key */
        cJSON *next = it->next;
        const char *const *k = keep;
        while (*k && (!it->string || strcmp(*k, it->string) != 0))
            k++;
        if (!*k)
            cJSON_Delete(cJSON_DetachItemViaPointer(r, it));
        it = next;
    }
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
        char *end;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            outp = v;
        } else if (!strcmp(a, "--baseline")) {
            baseline_path = v;
        } else if (!strcmp(a, "--min-pass-rate") || !strcmp(a, "--max-cost") || !strcmp(a, "--max-p95-ms")) {
            double d = strtod(v, &end);
            if (!*v || *end || d < 0 || (!strcmp(a, "--min-pass-rate") && d > 1)) {
                forge_cli_error("report html: %s: '%s' is not a valid value", a, v);
                return FORGE_EXIT_USAGE;
            }
            if (!strcmp(a, "--min-pass-rate")) {
                gates.has_min_pass_rate = true;
                gates.min_pass_rate = d;
            } else if (!strcmp(a, "--max-cost")) {
                gates.has_max_cost = true;
                gates.max_cost = d;
            } else {
                gates.has_max_p95_ms = true;
                gates.max_p95_ms = d;
            }
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
    if (!(suite = forge_suite_new()))
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
    while ((got = forge_lines_next(&lr, &line, &n)) != 0) {
        if (got < 0) {
            forge_cli_error("%s:%ld: %s", name, lr.lineno, got == FORGE_ELIMIT ? "a line longer than 256 MiB" : "cannot read");
            goto out;
        }
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t' || line[lead] == '\r')) lead++;
        if (lead == n)
            continue;
        cJSON *r = forge_json_parse(line, n, name, &err);
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
        skeleton(r);
        if (forge_suite_add(suite, r, &err))
            goto oom;
        cases++;
    }
    if (!cases) {
        forge_cli_error("%s: no case results", name);
        goto out;
    }
    if (forge_suite_report(suite, &gates, baseline, &report, &err))
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
