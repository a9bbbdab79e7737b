/* forge probe MODEL...: which models call tools, on which wire, and how fast. */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "data/json.h"
#include "eval/probe.h"
#include "lua/l_suite.h"
#include "model/provider.h"
#include "score/stats.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char forge_usage_probe[] =
    "usage: forge probe MODEL... [--probe NAME]... [--probes FILE.lua] [--repeat N] [-j N]\n"
    "                   [--require NAME]... [--json FILE] [--md FILE] [--format table|json|md] [OPTIONS]\n"
    "\n"
    "Asks each model (provider:model, or scripted:RULES.lua) the tool-calling probes and prints a\n"
    "table of models by probes: the outcome (pass, fail, blocked on 429/503, truncated by the token\n"
    "limit, error when no verdict could be had) and the median latency. The probes: auto, required\n"
    "(with a check that the request really forces the call in the dialect's terms) and roundtrip\n"
    "(a canned result, whose facts the answer must quote, with no second call) are big-AGI's;\n"
    "parallel, named, none, irrelevance, strict, nested and stream are forge's (docs/probe.md).\n"
    "Probes are Lua: --probes FILE.lua adds a file's list to the built-in ones.\n"
    "\n"
    "options:\n"
    "  --probe NAME        run this probe (repeatable; default: all)\n"
    "  --probes FILE.lua   more probes, defined in Lua\n"
    "  --repeat N          run each probe N times: pass rate with its 95% Wilson interval (default 1)\n"
    "  -j N                probe N models at once (default 4)\n"
    "  --require NAME      exit 1 unless every run of this probe passes on every model (repeatable)\n"
    "  --json FILE         write the results as JSON: big-AGI's sweep ({model: {\"fn\": [...]}}) and\n"
    "                      forge's full record (outcomes, intervals, latencies, reasons, request bodies)\n"
    "  --md FILE           write the table as Markdown (for a pull request comment)\n"
    "  --format F          what goes to stdout: table (default), json or md\n"
    "\n"
    "Exit codes: 0 probed (the outcomes are data), 1 a --require'd probe did not pass, 2 bad usage.\n"
    "\n" FORGE_PROVIDER_OPTS_USAGE;

#define MAX_ITEMS 64

struct cell {
    long runs, counts[5];
    double *lat;             /* the latency of each run */
    char reason[512];        /* the last reason a run did not pass */
    cJSON *request;          /* the first run's wire body */
};

struct opts {
    const char *models[MAX_ITEMS], *pick[MAX_ITEMS], *require[MAX_ITEMS];
    int nmodels, npick, nrequire;
    const char *probes_file, *json_path, *md_path, *format;
    long repeat, jobs;
    struct forge_provider_opts prov;
    struct forge_vm_opts vm;
};

struct job {
    struct opts *o;
    struct forge_vm *vm;
    struct forge_probe *probes;
    int nprobes;
    struct forge_model **models;
    const char **dialects;
    struct cell *cells; /* [model * nprobes + probe] */
    int next;
    pthread_mutex_t lock;
};

static int parse(int argc, char **argv, struct opts *o)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        static const char *const valued[] = {"--probe", "--probes", "--repeat", "-j", "--require", "--json", "--md",
                                             "--format", NULL};
        const char *flag = NULL, *val = NULL;
        for (const char *const *v = valued; *v && !flag; v++) {
            size_t n = strlen(*v);
            if (!strncmp(a, *v, n) && (a[n] == '\0' || (a[n] == '=' && a[1] == '-'))) {
                flag = *v;
                if (a[n] == '=')
                    val = a + n + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else {
                    forge_cli_error("probe: %s needs a value", flag);
                    return -1;
                }
            }
        }
        if (!flag && a[0] != '-') {
            if (o->nmodels == MAX_ITEMS) {
                forge_cli_error("probe: at most %d models", MAX_ITEMS);
                return -1;
            }
            o->models[o->nmodels++] = a;
            continue;
        }
        if (!flag) {
            struct forge_err err = {0};
            int r = forge_provider_opts_arg(&o->prov, argc, argv, &i, &err);
            if (r < 0) {
                forge_cli_error("probe: %s", err.msg);
                return -1;
            }
            if (r == 1) {
                i--;
                continue;
            }
            if ((r = forge_luaopts_parse(argc, argv, &i, &o->vm)) < 0)
                return -1;
            if (r == 0) {
                forge_cli_error("probe: unknown option '%s' (see forge help probe)", a);
                return -1;
            }
            continue;
        }
        if ((!strcmp(flag, "--probe") && o->npick == MAX_ITEMS) || (!strcmp(flag, "--require") && o->nrequire == MAX_ITEMS)) {
            forge_cli_error("probe: at most %d %s", MAX_ITEMS, flag);
            return -1;
        }
        if (!strcmp(flag, "--probe"))
            o->pick[o->npick++] = val;
        else if (!strcmp(flag, "--require"))
            o->require[o->nrequire++] = val;
        else if (!strcmp(flag, "--probes"))
            o->probes_file = val;
        else if (!strcmp(flag, "--json"))
            o->json_path = val;
        else if (!strcmp(flag, "--md"))
            o->md_path = val;
        else if (!strcmp(flag, "--format")) {
            if (strcmp(val, "table") && strcmp(val, "json") && strcmp(val, "md")) {
                forge_cli_error("probe: --format: '%s' is not table, json or md", val);
                return -1;
            }
            o->format = val;
        } else if (!strcmp(flag, "--repeat") ? forge_cli_whole("probe", flag, val, 1, 10000, &o->repeat) : forge_cli_whole("probe", flag, val, 1, 256, &o->jobs))
            return -1;
    }
    return 0;
}

static int wire(struct forge_model *m, const cJSON *req, cJSON **body, struct forge_err *err)
{
    return forge_provider_wire(m, req, body, err);
}

static void *worker(void *ud)
{
    struct job *j = ud;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int mi = j->next < j->o->nmodels ? j->next++ : -1;
        pthread_mutex_unlock(&j->lock);
        if (mi < 0)
            return NULL;
        int is_provider = strcmp(j->dialects[mi], "scripted") != 0;
        for (int pi = 0; pi < j->nprobes; pi++) {
            struct cell *c = &j->cells[mi * j->nprobes + pi];
            for (long r = 0; r < j->o->repeat; r++) {
                struct forge_probe_result res;
                forge_probe_run(&j->probes[pi], j->models[mi], j->dialects[mi], is_provider ? wire : NULL, &res);
                c->counts[res.outcome]++;
                if (c->lat)
                    c->lat[c->runs] = res.latency_ms;
                c->runs++;
                if (res.outcome != FORGE_PROBE_PASS)
                    snprintf(c->reason, sizeof c->reason, "%s", res.reason);
                if (!c->request) {
                    c->request = res.request;
                    res.request = NULL;
                }
                cJSON_Delete(res.request);
            }
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const struct cell *c)
{
    if (!c->runs || !c->lat)
        return 0;
    qsort(c->lat, (size_t)c->runs, sizeof *c->lat, cmp_double);
    return c->runs % 2 ? c->lat[c->runs / 2] : (c->lat[c->runs / 2 - 1] + c->lat[c->runs / 2]) / 2;
}

/* The outcome a cell shows: pass when every run passed, else the most frequent other outcome. */
static enum forge_probe_outcome shown(const struct cell *c)
{
    if (c->counts[FORGE_PROBE_PASS] == c->runs)
        return FORGE_PROBE_PASS;
    int best = FORGE_PROBE_FAIL;
    for (int k = FORGE_PROBE_FAIL; k <= FORGE_PROBE_ERROR; k++)
        if (c->counts[k] > c->counts[best])
            best = k;
    return (enum forge_probe_outcome)best;
}

static void cell_text(const struct cell *c, char *out, size_t n)
{
    static const char *const mark[] = {"✓", "✗", "⊘", "…", "!"};
    enum forge_probe_outcome o = shown(c);
    if (c->runs > 1)
        snprintf(out, n, "%s %ld/%ld", mark[o], c->counts[FORGE_PROBE_PASS], c->runs);
    else if (o == FORGE_PROBE_PASS)
        snprintf(out, n, "%s %.0fms", mark[o], median(c));
    else
        snprintf(out, n, "%s %s", mark[o], forge_probe_outcome_name(o));
}

/* The table (md = 0) or Markdown (md = 1) of models by probes, with the reasons after it. */
static int render(const struct job *j, int md, struct forge_buf *b)
{
    int w = 5;
    for (int m = 0; m < j->o->nmodels; m++)
        if ((int)strlen(j->o->models[m]) > w)
            w = (int)strlen(j->o->models[m]);
    int rc = md ? forge_buf_adds(b, "| model |") : forge_buf_addf(b, "%-*s", w + 2, "model");
    for (int p = 0; !rc && p < j->nprobes; p++)
        rc = md ? forge_buf_addf(b, " %s |", j->probes[p].name) : forge_buf_addf(b, "%-13s", j->probes[p].name);
    if (!rc)
        rc = forge_buf_adds(b, "\n");
    if (md && !rc) {
        rc = forge_buf_adds(b, "|---|");
        for (int p = 0; !rc && p < j->nprobes; p++)
            rc = forge_buf_adds(b, "---|");
        if (!rc)
            rc = forge_buf_adds(b, "\n");
    }
    for (int m = 0; !rc && m < j->o->nmodels; m++) {
        rc = md ? forge_buf_addf(b, "| %s |", j->o->models[m]) : forge_buf_addf(b, "%-*s", w + 2, j->o->models[m]);
        for (int p = 0; !rc && p < j->nprobes; p++) {
            char t[64];
            cell_text(&j->cells[m * j->nprobes + p], t, sizeof t);
            /* the marks are 3 bytes and one column wide */
            rc = md ? forge_buf_addf(b, " %s |", t) : forge_buf_addf(b, "%-15s", t);
        }
        if (!rc)
            rc = forge_buf_adds(b, "\n");
    }
    int header = 0;
    for (int m = 0; !rc && m < j->o->nmodels; m++)
        for (int p = 0; !rc && p < j->nprobes; p++) {
            const struct cell *c = &j->cells[m * j->nprobes + p];
            if (c->counts[FORGE_PROBE_PASS] == c->runs)
                continue;
            if (!header++)
                rc = forge_buf_adds(b, md ? "\n" : "\n");
            if (!rc)
                rc = forge_buf_addf(b, "%s%s %s: %s: %s\n", md ? "- " : "", j->o->models[m], j->probes[p].name,
                                    forge_probe_outcome_name(shown(c)), c->reason);
        }
    return rc;
}

static cJSON *report(const struct job *j)
{
    cJSON *o = cJSON_CreateObject(), *sweep = cJSON_AddObjectToObject(o, "sweep"), *full = cJSON_AddArrayToObject(o, "models");
    if (!sweep || !full) {
        cJSON_Delete(o);
        return NULL;
    }
    for (int m = 0; m < j->o->nmodels; m++) {
        cJSON *s = cJSON_AddObjectToObject(sweep, j->o->models[m]), *fn = s ? cJSON_AddArrayToObject(s, "fn") : NULL;
        cJSON *rec = cJSON_CreateObject(), *probes;
        cJSON_AddItemToArray(full, rec);
        cJSON_AddStringToObject(rec, "model", j->o->models[m]);
        cJSON_AddStringToObject(rec, "dialect", j->dialects[m]);
        probes = cJSON_AddObjectToObject(rec, "probes");
        for (int p = 0; p < j->nprobes; p++) {
            const struct cell *c = &j->cells[m * j->nprobes + p];
            const char *name = j->probes[p].name;
            int all = c->counts[FORGE_PROBE_PASS] == c->runs;
            /* big-AGI's sweep lists its three probes, each only when it passed */
            if (all && fn && (!strcmp(name, "auto") || !strcmp(name, "required") || !strcmp(name, "roundtrip")))
                cJSON_AddItemToArray(fn, cJSON_CreateString(name));
            cJSON *r = cJSON_AddObjectToObject(probes, name), *oc;
            double lo, hi;
            forge_stats_wilson(c->counts[FORGE_PROBE_PASS], c->runs, 1.96, &lo, &hi);
            cJSON_AddStringToObject(r, "outcome", forge_probe_outcome_name(shown(c)));
            cJSON_AddNumberToObject(r, "runs", (double)c->runs);
            cJSON_AddNumberToObject(r, "passed", (double)c->counts[FORGE_PROBE_PASS]);
            cJSON_AddNumberToObject(r, "pass_rate", c->runs ? (double)c->counts[FORGE_PROBE_PASS] / (double)c->runs : 0);
            cJSON *iv = cJSON_AddArrayToObject(r, "pass_rate_interval");
            cJSON_AddItemToArray(iv, cJSON_CreateNumber(lo));
            cJSON_AddItemToArray(iv, cJSON_CreateNumber(hi));
            oc = cJSON_AddObjectToObject(r, "outcomes");
            for (int k = 0; k <= FORGE_PROBE_ERROR; k++)
                if (c->counts[k])
                    cJSON_AddNumberToObject(oc, forge_probe_outcome_name((enum forge_probe_outcome)k), (double)c->counts[k]);
            cJSON_AddNumberToObject(r, "latency_ms_median", (double)(long long)(median(c) * 1000) / 1000);
            if (all)
                cJSON_AddNullToObject(r, "reason");
            else
                cJSON_AddStringToObject(r, "reason", c->reason);
            cJSON_AddItemToObject(r, "request", c->request ? cJSON_Duplicate(c->request, 1) : cJSON_CreateNull());
        }
    }
    return o;
}

static int write_out(const char *path, const char *text, const char *what)
{
    struct forge_err err = {0};
    if (forge_file_write_atomic(path, text, strlen(text), &err)) {
        forge_cli_error("probe: %s %s", what, err.msg);
        return -1;
    }
    return 0;
}

int forge_cmd_probe(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof o);
    o.repeat = 1;
    o.jobs = 4;
    o.format = "table";
    forge_provider_opts_init(&o.prov);
    forge_vm_opts_init(&o.vm);
    int code = FORGE_EXIT_USAGE;
    struct forge_err err = {0};
    struct job j;
    memset(&j, 0, sizeof j);
    pthread_mutex_init(&j.lock, NULL);
    j.o = &o;
    char *dir = NULL;
    struct forge_probe *all = NULL, *user = NULL;
    int nall = 0, nuser = 0;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *rep = NULL;
    if (parse(argc, argv, &o))
        goto out;
    if (!o.nmodels) {
        forge_cli_error("probe: no model: give one or more provider:model (see forge help probe)");
        goto out;
    }
    if (o.prov.model) {
        forge_cli_error("probe: models are the arguments (forge probe openai:gpt-4o-mini anthropic:...), not --model");
        goto out;
    }
    dir = forge_path_dir(o.probes_file ? o.probes_file : ".");
    o.vm.script_dir = dir;
    if (!dir || !(j.vm = forge_vm_new(&o.vm, &err))) {
        forge_cli_error("probe: %s", dir ? err.msg : "out of memory");
        goto out;
    }
    if (forge_lua_probes_load(j.vm, NULL, &all, &nall, &err) ||
        (o.probes_file && forge_lua_probes_load(j.vm, o.probes_file, &user, &nuser, &err))) {
        forge_cli_error("%s", err.msg);
        code = forge_cli_exit_code(err.code);
        goto out;
    }
    /* the user's probes after the built-in ones; one of theirs may not take a built-in name */
    struct forge_probe *merged = forge_realloc(all, (size_t)(nall + nuser) * sizeof *all);
    if (!merged && nall + nuser) {
        forge_cli_error("out of memory");
        goto out;
    }
    all = merged;
    for (int i = 0; i < nuser; i++) {
        for (int k = 0; k < nall; k++)
            if (!strcmp(all[k].name, user[i].name)) {
                forge_cli_error("probe: %s: a probe named '%s' is built in: give yours another name", o.probes_file,
                                user[i].name);
                for (int r = i; r < nuser; r++)
                    forge_probe_free(&user[r]);
                goto out;
            }
        all[nall++] = user[i];
    }
    FORGE_FREE(user);
    nuser = 0;
    /* the picked probes, in the order given */
    j.probes = forge_calloc((size_t)(o.npick ? o.npick : nall) + 1, sizeof *j.probes);
    if (!j.probes) {
        forge_cli_error("out of memory");
        goto out;
    }
    for (int i = 0; i < (o.npick ? o.npick : nall); i++) {
        int found = -1;
        for (int k = 0; k < nall && found < 0; k++)
            if (!o.npick || !strcmp(all[k].name, o.pick[i]))
                found = o.npick ? k : i;
        if (found < 0) {
            forge_buf_reset(&b);
            for (int k = 0; k < nall; k++)
                forge_buf_addf(&b, "%s%s", k ? ", " : "", all[k].name);
            forge_cli_error("probe: --probe %s: no such probe (%s)", o.pick[i], b.data ? b.data : "");
            goto out;
        }
        j.probes[j.nprobes++] = all[found];
    }
    for (int i = 0; i < o.nrequire; i++) {
        int found = 0;
        for (int k = 0; k < j.nprobes; k++)
            found |= !strcmp(j.probes[k].name, o.require[i]);
        if (!found) {
            forge_cli_error("probe: --require %s: not among the probes run", o.require[i]);
            goto out;
        }
    }
    j.models = forge_calloc((size_t)o.nmodels, sizeof *j.models);
    j.dialects = forge_calloc((size_t)o.nmodels, sizeof *j.dialects);
    j.cells = forge_calloc((size_t)o.nmodels * (size_t)j.nprobes + 1, sizeof *j.cells);
    if (!j.models || !j.dialects || !j.cells) {
        forge_cli_error("out of memory");
        goto out;
    }
    for (int m = 0; m < o.nmodels; m++) {
        const char *spec = o.models[m];
        if (!strncmp(spec, "scripted:", 9)) {
            if (forge_lua_scripted_load(j.vm, spec + 9, &j.models[m], &err)) {
                forge_cli_error("%s", err.msg);
                goto out;
            }
        } else if (!(j.models[m] = forge_provider_open(spec, &o.prov, &err))) {
            forge_cli_error("probe: %s", err.msg);
            goto out;
        }
        j.dialects[m] = j.models[m]->provider;
        for (int p = 0; p < j.nprobes; p++)
            if (!(j.cells[m * j.nprobes + p].lat = forge_calloc((size_t)o.repeat, sizeof(double)))) {
                forge_cli_error("out of memory");
                goto out;
            }
    }
    int nthreads = (int)(o.jobs < o.nmodels ? o.jobs : o.nmodels), started = 0;
    pthread_t th[256];
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, worker, &j))
            break;
    if (!started)
        worker(&j);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (!(rep = report(&j))) {
        forge_cli_error("out of memory");
        goto out;
    }
    char *json = forge_json_print(rep, FORGE_JSON_PRETTY);
    if (!json) {
        forge_cli_error("out of memory");
        goto out;
    }
    int bad = 0;
    if (o.json_path)
        bad |= write_out(o.json_path, json, "--json");
    forge_buf_reset(&b);
    if (o.md_path && !render(&j, 1, &b))
        bad |= write_out(o.md_path, b.data ? b.data : "", "--md");
    forge_buf_reset(&b);
    if (!strcmp(o.format, "json"))
        printf("%s\n", json);
    else if (!render(&j, !strcmp(o.format, "md"), &b))
        fputs(b.data ? b.data : "", stdout);
    forge_free(json);
    if (bad)
        goto out;
    code = FORGE_EXIT_OK;
    for (int i = 0; i < o.nrequire; i++)
        for (int p = 0; p < j.nprobes; p++)
            for (int m = 0; m < o.nmodels && !strcmp(j.probes[p].name, o.require[i]); m++) {
                const struct cell *c = &j.cells[m * j.nprobes + p];
                if (c->counts[FORGE_PROBE_PASS] != c->runs) {
                    fprintf(stderr, "forge probe: %s did not pass %s (--require)\n", o.models[m], o.require[i]);
                    code = FORGE_EXIT_FAIL;
                }
            }
out:
    cJSON_Delete(rep);
    forge_buf_free(&b);
    for (int m = 0; j.cells && m < o.nmodels; m++)
        for (int p = 0; p < j.nprobes; p++) {
            forge_free(j.cells[m * j.nprobes + p].lat);
            cJSON_Delete(j.cells[m * j.nprobes + p].request);
        }
    forge_free(j.cells);
    for (int m = 0; j.models && m < o.nmodels; m++)
        forge_model_free(j.models[m]);
    forge_free(j.models);
    forge_free(j.dialects);
    forge_free(j.probes);
    for (int i = 0; i < nall; i++)
        forge_probe_free(&all[i]);
    forge_free(all);
    for (int i = 0; i < nuser; i++)
        forge_probe_free(&user[i]);
    forge_free(user);
    forge_vm_free(j.vm);
    forge_free(dir);
    forge_luaopts_free(&o.vm);
    pthread_mutex_destroy(&j.lock);
    return code;
}
