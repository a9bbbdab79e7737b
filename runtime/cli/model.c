/* forge model complete|batch: one or many completions against a provider, for debugging,
 * tests and benchmarks. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "data/json.h"
#include "model/provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const char forge_usage_model[] =
    "usage: forge model complete --model PROVIDER:MODEL [OPTIONS] REQUEST.json\n"
    "       forge model batch --model PROVIDER:MODEL [-n N] [-j N] [OPTIONS] REQUEST.json\n"
    "\n"
    "complete sends one normalized chat request (docs/providers.md) and prints the normalized\n"
    "response as JSON. batch sends the same request N times (default 1) with up to -j N (default 1)\n"
    "in flight, shows a progress line on a terminal, and prints a JSON summary: calls, ok, errors,\n"
    "wall_ms, cpu_ms, cpu_ms_per_call.\n"
    "Exit codes: 0 ok, 2 bad usage or request, 3 a model call failed (provider unreachable or\n"
    "answering with an error after retries).\n"
    "\n" FORGE_PROVIDER_OPTS_USAGE;

struct progress {
    int tty;
    double t0;
};

static void on_progress(void *ctx, size_t done, size_t ok, size_t total)
{
    struct progress *pr = ctx;
    if (!pr->tty)
        return;
    double el = (forge_clock_ms() - pr->t0) / 1000.0;
    double rate = el > 0 ? (double)done / el : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\r%zu/%zu  ok %zu  failed %zu  %.1f/s  ETA %.0fs   ", done, total, ok, done - ok, rate, eta);
    if (done == total)
        fputc('\n', stderr);
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0;
}

int forge_cmd_model(int argc, char **argv)
{
    struct forge_provider_opts o;
    struct forge_err err;
    forge_err_clear(&err);
    forge_provider_opts_init(&o);
    if (argc < 1 || (strcmp(argv[0], "complete") != 0 && strcmp(argv[0], "batch") != 0)) {
        fputs(forge_usage_model, stderr);
        return FORGE_EXIT_USAGE;
    }
    int batch = strcmp(argv[0], "batch") == 0;
    const char *file = NULL;
    long n = 1, jobs = 1;
    for (int i = 1; i < argc;) {
        int r = forge_provider_opts_arg(&o, argc, argv, &i, &err);
        if (r < 0) {
            forge_cli_error("model: %s", err.msg);
            return FORGE_EXIT_USAGE;
        }
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (batch && (strcmp(a, "-n") == 0 || strcmp(a, "-j") == 0) && i + 1 < argc) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1 || v > 100000) {
                forge_cli_error("model: %s: '%s' is not a number from 1 to 100000", a, argv[i + 1]);
                return FORGE_EXIT_USAGE;
            }
            *(a[1] == 'n' ? &n : &jobs) = v;
            i += 2;
        } else if (a[0] == '-' && a[1]) {
            forge_cli_error("model: unknown option '%s' (run 'forge help model')", a);
            return FORGE_EXIT_USAGE;
        } else if (file) {
            forge_cli_error("model: one request file only ('%s' and '%s')", file, a);
            return FORGE_EXIT_USAGE;
        } else {
            file = a;
            i++;
        }
    }
    if (!o.model || !file) {
        forge_cli_error("model: needs --model PROVIDER:MODEL and a REQUEST.json (run 'forge help model')");
        return FORGE_EXIT_USAGE;
    }
    cJSON *req = forge_json_load(file, &err);
    if (!req) {
        forge_cli_error("model: %s", err.msg);
        return FORGE_EXIT_USAGE;
    }
    int code = FORGE_EXIT_OK;
    struct forge_model *m = forge_provider_open(o.model, &o, &err);
    if (!m) {
        forge_cli_error("model: %s", err.msg);
        cJSON_Delete(req);
        return forge_cli_exit_code(err.code);
    }
    if (!batch) {
        cJSON *resp = NULL;
        int rc = forge_model_complete(m, req, &resp, &err);
        if (rc) {
            forge_cli_error("model: %s", err.msg);
            code = forge_cli_exit_code(rc);
        } else {
            char *s = forge_json_print(resp, FORGE_JSON_PRETTY);
            if (s)
                puts(s);
            forge_free(s);
        }
        cJSON_Delete(resp);
    } else {
        const cJSON **reqs = forge_calloc((size_t)n, sizeof *reqs);
        cJSON **resps = forge_calloc((size_t)n, sizeof *resps);
        struct forge_err *errs = forge_calloc((size_t)n, sizeof *errs);
        if (!reqs || !resps || !errs) {
            forge_cli_error("model: out of memory");
            code = FORGE_EXIT_INFRA;
        } else {
            for (long i = 0; i < n; i++)
                reqs[i] = req;
            struct progress pr = {isatty(2), forge_clock_ms()};
            double c0 = cpu_ms();
            int rc = forge_provider_run_batch(m, reqs, (size_t)n, (int)jobs, resps, errs, on_progress, &pr);
            double wall = forge_clock_ms() - pr.t0, cpu = cpu_ms() - c0;
            long ok = 0, shown = 0;
            for (long i = 0; i < n; i++) {
                if (resps[i])
                    ok++;
                else if (shown++ < 5)
                    forge_cli_error("model: call %ld: %s", i + 1, errs[i].msg);
                cJSON_Delete(resps[i]);
            }
            if (rc) {
                forge_cli_error("model: could not start the workers");
                code = FORGE_EXIT_INFRA;
            } else if (ok < n) {
                code = FORGE_EXIT_INFRA;
            }
            printf("{\"calls\": %ld, \"ok\": %ld, \"errors\": %ld, \"jobs\": %ld, \"wall_ms\": %.1f, "
                   "\"cpu_ms\": %.1f, \"cpu_ms_per_call\": %.3f}\n",
                   n, ok, n - ok, jobs, wall, cpu, cpu / (double)n);
        }
        forge_free(reqs);
        forge_free(resps);
        forge_free(errs);
    }
    forge_model_free(m);
    cJSON_Delete(req);
    return code;
}
