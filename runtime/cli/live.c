/* Live suite runs from the command line. */
#include "cli/live.h"
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "data/json.h"
#include "eval/runner.h"
#include "eval/tally.h"
#include "lua/l_eval.h"
#include "model/model.h"
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char forge_live_usage[] =
    "run options:\n"
    "  -j, --jobs N            cases in flight at once (default 1)\n"
    "  --report FORMAT=PATH    write a report: json, jsonl, junit, md or html (repeatable)\n"
    "  --save-transcripts FILE write every trajectory, one JSON object per line\n"
    "  --min-pass-rate X       gate: pass rate (0..1) must be >= X\n"
    "  --max-cost USD          gate: total cost must be <= USD\n"
    "  --max-p95-ms MS         gate: p95 latency must be <= MS\n"
    "  --baseline FILE         a previous JSON report: list regressions and new passes\n"
    "  -q, --quiet             print only failing cases and the summary\n";

void forge_live_opts_init(struct forge_live_opts *o)
{
    memset(o, 0, sizeof *o);
    forge_provider_opts_init(&o->prov);
}

int forge_live_parse(const char *cmd, int argc, char **argv, int *i, struct forge_live_opts *o)
{
    const char *a = argv[*i];
    struct forge_err perr = {0};
    int pr = forge_provider_opts_arg(&o->prov, argc, argv, i, &perr);
    if (pr < 0) {
        forge_cli_error("%s", perr.msg);
        return -1;
    }
    if (pr > 0) {
        (*i)--; /* it moves past what it took; callers here expect the last item taken */
        return 1;
    }
    if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
        o->quiet = true;
        return 1;
    }
    static const char *const valued[] = {"-j", "--jobs", "--report",
                                         "--save-transcripts", "--min-pass-rate", "--max-cost",
                                         "--max-p95-ms", "--baseline", NULL};
    char flag[64];
    const char *val = NULL;
    const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
    if (eq && (size_t)(eq - a) < sizeof flag) {
        memcpy(flag, a, (size_t)(eq - a));
        flag[eq - a] = '\0';
        val = eq + 1;
    } else {
        snprintf(flag, sizeof flag, "%s", a);
    }
    int known = 0;
    for (const char *const *v = valued; *v && !known; v++)
        known = !strcmp(*v, flag);
    if (!known)
        return 0;
    if (!val) {
        if (*i + 1 >= argc) {
            forge_cli_error("%s needs a value", flag);
            return -1;
        }
        val = argv[++*i];
    }
    if (!strcmp(flag, "-j") || !strcmp(flag, "--jobs")) {
        long n;
        if (forge_cli_whole(cmd, flag, val, 1, 4096, &n))
            return -1;
        o->jobs = (int)n;
    } else if (!strcmp(flag, "--report")) {
        if (forge_cli_report_opt(cmd, val, o->rformat, o->rpath, &o->nreports, FORGE_LIVE_MAX_REPORTS))
            return -1;
    } else if (!strcmp(flag, "--save-transcripts")) {
        o->save_transcripts = val;
    } else if (!strcmp(flag, "--baseline")) {
        o->baseline = val;
    } else if (forge_cli_gate_opt(cmd, flag, val, &o->gates) < 0) {
        return -1;
    }
    return 1;
}

struct sink {
    const struct forge_live_opts *o;
    int progress;              /* stderr is a terminal: keep a progress line there */
    int total, done, passed, failed, errors;
    double started_ms, drawn_ms;
    struct forge_jsonl *tj;
    struct forge_tally *tally;
    struct forge_buf out;
    int io_failed;
    struct forge_err err;
};

/* "[done/total] passed P, failed F, errors E, R cases/s, ETA Ns" on stderr, redrawn in place. */
static void draw_progress(struct sink *s)
{
    double secs = (forge_clock_ms() - s->started_ms) / 1000;
    double rate = secs > 0 ? s->done / secs : 0;
    double eta = rate > 0 ? (s->total - s->done) / rate : 0;
    fprintf(stderr, "\r\033[K[%d/%d] passed %d, failed %d, errors %d, %.1f cases/s, ETA %.0fs",
            s->done, s->total, s->passed, s->failed, s->errors, rate, eta);
    fflush(stderr);
    s->drawn_ms = forge_clock_ms();
}

static void clear_progress(struct sink *s)
{
    if (s->progress) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

static void on_case(void *ud, size_t pos, const cJSON *result, const cJSON *traj)
{
    struct sink *s = ud;
    s->done++;
    forge_tally_add(s->tally, pos, result);
    if (forge_json_get(result, "error"))
        s->errors++;
    else if (cJSON_IsTrue(forge_json_get(result, "passed")))
        s->passed++;
    else if (!cJSON_IsTrue(forge_json_get(result, "skipped")))
        s->failed++;
    int line = !s->o->quiet || !cJSON_IsTrue(forge_json_get(result, "passed"));
    if (line)
        clear_progress(s);
    if (s->tj && traj && !s->io_failed && forge_jsonl_add(s->tj, traj, &s->err))
        s->io_failed = 1;
    if (line) {
        forge_report_console_case(&s->out, result);
        fwrite(s->out.data ? s->out.data : "", 1, s->out.len, stdout);
        fflush(stdout);
        forge_buf_reset(&s->out);
    }
    /* redrawn after a case line, else at most ten times a second */
    if (s->progress && (line || forge_clock_ms() - s->drawn_ms >= 100 || s->done == s->total))
        draw_progress(s);
}

int forge_live_count_init(struct forge_live_count *c, const cJSON *baseline)
{
    struct forge_err err = {0};
    c->tally = NULL;
    if (!(c->suite = forge_suite_new()) || forge_suite_set_baseline(c->suite, baseline, &err) ||
        !(c->tally = forge_tally_new(c->suite))) {
        forge_live_count_free(c);
        forge_cli_error("out of memory");
        return -1;
    }
    return 0;
}

void forge_live_count_free(struct forge_live_count *c)
{
    forge_tally_free(c->tally);
    forge_suite_free(c->suite);
    c->tally = NULL;
    c->suite = NULL;
}

static int report(struct forge_results *res, bool res_is_jsonl, const struct forge_gates *gates,
                  const cJSON *baseline, const char *const *rformat, const char *const *rpath, int nreports,
                  void (*each)(void *ud, const cJSON *rec, struct forge_results_iter *it), void *ud,
                  struct forge_live_count *count, bool *passed);

int forge_live_report(struct forge_results *res, bool res_is_jsonl, const struct forge_gates *gates,
                      const cJSON *baseline, const char *const *rformat, const char *const *rpath, int nreports,
                      struct forge_live_count *count, bool *passed)
{
    return report(res, res_is_jsonl, gates, baseline, rformat, rpath, nreports, NULL, NULL, count, passed);
}

int forge_live_report_each(struct forge_results *res, bool res_is_jsonl, const struct forge_gates *gates,
                           const cJSON *baseline, const char *const *rformat, const char *const *rpath,
                           int nreports, void (*each)(void *ud, const cJSON *rec, struct forge_results_iter *it),
                           void *ud, bool *passed)
{
    return report(res, res_is_jsonl, gates, baseline, rformat, rpath, nreports, each, ud, NULL, passed);
}

static int report(struct forge_results *res, bool res_is_jsonl, const struct forge_gates *gates,
                  const cJSON *baseline, const char *const *rformat, const char *const *rpath, int nreports,
                  void (*each)(void *ud, const cJSON *rec, struct forge_results_iter *it), void *ud,
                  struct forge_live_count *count, bool *passed)
{
    struct forge_err err = {0};
    struct forge_suite *suite = NULL;
    cJSON *report = NULL;
    int code = FORGE_EXIT_INFRA;
    *passed = false;
    size_t from = 0; /* the first place the tally did not count */
    if (count && count->suite) { /* (the suite is this function's from here on) */
        suite = count->suite;
        count->suite = NULL;
        int rc = forge_tally_finish(count->tally, res, &from, &err);
        forge_tally_free(count->tally);
        count->tally = NULL;
        if (rc) {
            forge_cli_error("out of memory");
            goto out;
        }
    } else if (!(suite = forge_suite_new()) || forge_suite_set_baseline(suite, baseline, &err) ||
               forge_suite_reserve(suite, forge_results_size(res), &err)) {
        forge_cli_error("out of memory");
        goto out;
    }
    /* the statistics, in case order: sums and percentiles as an in-memory run makes them (the
     * places the tally counted, then the records read back from the file) */
    struct forge_results_iter it;
    forge_results_iter_init_light(&it, res);
    it.pos = from;
    const cJSON *r;
    int got;
    while ((got = forge_results_next(&it, &r, &err)) > 0) {
        if (forge_suite_count(suite, r, &err)) {
            got = -1;
            break;
        }
        if (each)
            each(ud, r, &it);
    }
    forge_results_iter_done(&it);
    if (each)
        each(ud, NULL, NULL);
    if (got < 0 || forge_suite_report(suite, gates, NULL, &report, &err)) {
        forge_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
        goto out;
    }
    struct forge_report_src src = {.report = report, .results = res};
    src.groups = forge_suite_groups(suite, &src.ngroups);
    struct forge_report_sink sink = {.f = stdout, .name = "<stdout>"};
    forge_buf_init(&sink.buf, 0);
    int rc = forge_report_stream_summary(&sink, &src, &err);
    forge_buf_free(&sink.buf);
    fflush(stdout);
    if (rc) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    for (int i = 0; i < nreports; i++) {
        if (!strcmp(rformat[i], "jsonl") ? !res_is_jsonl && forge_report_write_jsonl(rpath[i], res, &err)
                                         : forge_report_write_src(rformat[i], rpath[i], &src, &err) != 0) {
            forge_cli_error("%s", err.msg);
            goto out;
        }
    }
    rc = forge_results_close(res, true, &err);
    res = NULL;
    if (rc) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    *passed = cJSON_IsTrue(forge_json_get(report, "passed"));
    code = 0;
out:
    forge_results_close(res, false, NULL);
    cJSON_Delete(report);
    forge_suite_free(suite);
    return code;
}

/* The strictest of two gate sets. */
static void merge_gates(struct forge_gates *g, const struct forge_gates *s)
{
    if (s->has_min_pass_rate && (!g->has_min_pass_rate || s->min_pass_rate > g->min_pass_rate)) {
        g->has_min_pass_rate = true;
        g->min_pass_rate = s->min_pass_rate;
    }
    if (s->has_max_cost && (!g->has_max_cost || s->max_cost < g->max_cost)) {
        g->has_max_cost = true;
        g->max_cost = s->max_cost;
    }
    if (s->has_max_p95_ms && (!g->has_max_p95_ms || s->max_p95_ms < g->max_p95_ms)) {
        g->has_max_p95_ms = true;
        g->max_p95_ms = s->max_p95_ms;
    }
}

/* The model of a suite: --model, else the suite's own. Sets *owned when the caller frees it. */
static struct forge_model *pick_model(const struct forge_live_opts *o, struct forge_vm *vm,
                                      struct forge_lua_suite *s, int *owned,
                                      struct forge_err *err)
{
    *owned = 0;
    const char *spec = o->prov.model ? o->prov.model : s->model ? NULL : s->model_spec;
    if (!spec && s->model)
        return s->model;
    if (!spec) {
        forge_err_set(err, FORGE_EINVAL, "suite '%s' has no model: set model = forge.scripted{...} "
                      "in the suite or give --model", s->name);
        return NULL;
    }
    if (!strncmp(spec, "scripted:", 9)) {
        struct forge_model *m = NULL;
        if (forge_lua_scripted_load(vm, spec + 9, &m, err))
            return NULL;
        *owned = 1;
        return m;
    }
    if (!strcmp(spec, "scripted")) {
        forge_err_set(err, FORGE_EINVAL, "the scripted model needs rules: --model "
                      "scripted:RULES.lua, or model = forge.scripted{...} in the suite");
        return NULL;
    }
    struct forge_model *m = forge_provider_open(spec, &o->prov, err);
    *owned = m != NULL;
    return m;
}

int forge_live_run(const struct forge_live_opts *o, struct forge_vm *vm,
                   struct forge_lua_suite *suites, int n)
{
    struct forge_err err = {0};
    struct sink sink = {.o = o};
    forge_buf_init(&sink.out, 0);
    int code = FORGE_EXIT_USAGE;
    cJSON *baseline = NULL;
    struct forge_results *res = NULL;
    struct forge_live_count count = {0};
    const char *jsonl = NULL;
    size_t base = 0;
    struct forge_gates gates = o->gates;
    int any_flag_gate = gates.has_min_pass_rate || gates.has_max_cost || gates.has_max_p95_ms;
    int infra = 0;
    if (o->baseline) {
        baseline = forge_json_load(o->baseline, &err);
        if (!baseline || !cJSON_IsArray(forge_json_get(baseline, "cases"))) {
            forge_cli_error("%s", baseline ? "--baseline: not a forge JSON report (no \"cases\")"
                                           : err.msg);
            goto out;
        }
    }
    bool html = false;
    for (int i = 0; i < o->nreports; i++) {
        if (!strcmp(o->rformat[i], "html")) {
            if (html) {
                forge_cli_error("only one html report per run");
                goto out;
            }
            html = true;
        }
        if (strcmp(o->rformat[i], "jsonl"))
            continue;
        if (jsonl) {
            forge_cli_error("only one jsonl report per run");
            goto out;
        }
        jsonl = o->rpath[i];
    }
    /* the results file: the jsonl report, or a temporary file the reports are read from */
    if (!(res = forge_results_create(jsonl, &err)) ||
        (o->shard_header && forge_results_write_line(res, o->shard_header, &err))) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    if (forge_live_count_init(&count, baseline)) {
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    sink.tally = count.tally;
    if (o->save_transcripts && !(sink.tj = forge_jsonl_open(o->save_transcripts, &err))) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    struct forge_assertions *custom = forge_lua_assertions(vm);
    /* the JSON, JSONL and HTML reports show every assertion; the others only failures */
    bool lean = true;
    for (int i = 0; i < o->nreports; i++)
        lean = lean && strcmp(o->rformat[i], "json") != 0 && strcmp(o->rformat[i], "jsonl") != 0 &&
               strcmp(o->rformat[i], "html") != 0;
    sink.progress = isatty(2);
    sink.started_ms = forge_clock_ms();
    for (int i = 0; i < n; i++)
        sink.total += suites[i].cases ? cJSON_GetArraySize(suites[i].cases) : (int)suites[i].ncases;
    for (int i = 0; i < n; i++) {
        struct forge_lua_suite *s = &suites[i];
        int owned = 0;
        struct forge_model *model = pick_model(o, vm, s, &owned, &err);
        if (!model) {
            forge_cli_error("%s", err.msg);
            code = forge_cli_exit_code(err.code);
            goto out;
        }
        if (!any_flag_gate)
            merge_gates(&gates, &s->gates);
        cJSON *schemas = cJSON_CreateObject();
        for (int t = 0; t < s->tools.n; t++)
            cJSON_AddItemToObject(schemas, s->tools.v[t]->name,
                                  cJSON_Duplicate(forge_json_get(
                                                      s->tools.v[t]->def, "parameters"), 1));
        struct forge_run_spec spec = {
            .suite_name = s->name,
            .agent = {.model = model, .tools = &s->tools, .verifiers = &s->verifiers,
                      .policy = &s->policy, .system = s->system, .params = s->params,
                                     .stream = s->stream},
            .cases = s->cases,
            .eval = {.custom = custom, .tools = schemas, .seed = o->seed,
                     .snapshot = o->snapshot, .lean = lean},
            .jobs = o->jobs,
            .next_case = s->next_case,
            .case_ctx = s->case_ctx,
            .results = res,
            .results_traj = jsonl || html,
            .base = base,
            .on_case = on_case,
            .ud = &sink,
        };
        struct forge_run_stats stats = {0};
        int rc = forge_run_suite(&spec, &stats, &err);
        base += (size_t)stats.cases;
        cJSON_Delete(schemas);
        if (owned)
            forge_model_free(model);
        if (rc) {
            forge_cli_error("%s", err.msg);
            code = rc == FORGE_EINVAL ? FORGE_EXIT_USAGE : FORGE_EXIT_INFRA;
            goto out;
        }
        infra += stats.infra_errors;
        if (sink.io_failed) {
            forge_cli_error("%s", sink.err.msg);
            code = FORGE_EXIT_INFRA;
            goto out;
        }
    }
    clear_progress(&sink);
    bool passed = false;
    code = forge_live_report(res, jsonl != NULL, &gates, baseline, o->rformat, o->rpath, o->nreports, &count,
                             &passed);
    res = NULL;
    if (code)
        goto out;
    if (sink.tj && forge_jsonl_close(sink.tj, true, &err)) {
        sink.tj = NULL;
        forge_cli_error("%s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    sink.tj = NULL;
    code = infra ? FORGE_EXIT_INFRA : passed ? FORGE_EXIT_OK : FORGE_EXIT_FAIL;
out:
    forge_live_count_free(&count);
    forge_results_close(res, false, NULL);
    forge_jsonl_close(sink.tj, false, NULL);
    forge_buf_free(&sink.out);
    cJSON_Delete(baseline);
    return code;
}
