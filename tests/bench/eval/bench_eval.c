/* In-process figures of the eval engine: cases scored per second without file parsing, and the
 * extra cost of one Lua custom assertion call. The cost of the call is measured in pairs of
 * short blocks (a block of cases without the assertion, then one with it, BLOCK cases each,
 * about 10 ms), so that a load that comes and goes on a shared machine falls on both sides of a
 * pair alike: it prints the median of the pairs' differences with their tenth and ninetieth
 * percentiles, and the difference of the two sides' fastest blocks. Prints figures; asserts
 * nothing.
 * usage: bench_eval [N] */
#include "eval/registry.h"
#include "eval/suite.h"
#include "lua/l_eval.h"
#include "lua/vm.h"
#include "data/jarena.h"
#include "data/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of the process: the machine is shared, and wall time would measure the neighbours. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *case_builtin =
    "{\"id\":\"gs-get_weather-000001\",\"input\":{\"message\":\"Weather in Paris?\"},\"expect\":{"
    "\"toolsCalled\":[\"get_weather\"],"
    "\"toolParams\":[{\"tool\":\"get_weather\",\"paramName\":\"city\",\"assertion\":\"equals\",\"value\":\"Paris\"}],"
    "\"responseNonEmpty\":true,\"responseContains\":[\"Paris\",\"cloudy\"],\"responseNotContains\":[\"temp_c\",\"as an ai\"],"
    "\"maxLatencyMs\":30000,\"maxToolCalls\":3,\"regexPattern\":\"-?\\\\d+°C\"}}";
static const char *case_custom =
    "{\"id\":\"gs-get_weather-000001\",\"input\":{\"message\":\"Weather in Paris?\"},\"expect\":{"
    "\"toolsCalled\":[\"get_weather\"],"
    "\"toolParams\":[{\"tool\":\"get_weather\",\"paramName\":\"city\",\"assertion\":\"equals\",\"value\":\"Paris\"}],"
    "\"responseNonEmpty\":true,\"responseContains\":[\"Paris\",\"cloudy\"],\"responseNotContains\":[\"temp_c\",\"as an ai\"],"
    "\"maxLatencyMs\":30000,\"maxToolCalls\":3,\"regexPattern\":\"-?\\\\d+°C\","
    "\"custom\":{\"mentions_city\":\"Paris\"}}}";
static const char *trajectory =
    "{\"trajectory_id\":\"gs-get_weather-000001\",\"turns\":["
    "{\"turn_id\":1,\"role\":\"user\",\"content\":\"Weather in Paris?\"},"
    "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"It is 18°C and cloudy in Paris.\",\"latency_ms\":812,"
    "\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"units\":\"celsius\"},"
    "\"result\":{\"temp_c\":18,\"condition\":\"cloudy\"},\"error\":null,\"latency_ms\":12,\"round\":1}]}],"
    "\"metadata\":{\"model\":\"scripted\",\"cost_usd\":0.0003,\"latency_ms\":812}}";
static const char *script =
    "local forge = require 'forge'\n"
    "forge.assertion('mentions_city', function(run, expected)\n"
    "  return run.response:find(expected, 1, true) ~= nil\n"
    "end)\n";

#define BLOCK 2000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double time_cases(const cJSON *kase, const cJSON *traj, const struct forge_eval_opts *o, long n)
{
    struct forge_err err = {0};
    uint64_t t0 = cpu_ns();
    for (long i = 0; i < n; i++) {
        cJSON *r = NULL;
        if (forge_eval_case(kase, traj, o, &r, &err)) {
            fprintf(stderr, "bench_eval: %s\n", err.msg);
            exit(1);
        }
        cJSON_Delete(r);
    }
    return (double)(cpu_ns() - t0) / 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    struct forge_err err = {0};
    struct forge_vm_opts vo;
    forge_vm_opts_init(&vo);
    vo.script_dir = ".";
    struct forge_vm *vm = forge_vm_new(&vo, &err);
    if (!vm || forge_vm_load_string(vm, script, __builtin_strlen(script), "=bench", &err) ||
        forge_vm_call(vm, 0, 0, &err)) {
        fprintf(stderr, "bench_eval: %s\n", err.msg);
        return 1;
    }
    struct forge_eval_opts o = {.custom = forge_lua_assertions(vm)};
    cJSON *kb = cJSON_Parse(case_builtin), *kc = cJSON_Parse(case_custom), *t = cJSON_Parse(trajectory);
    time_cases(kb, t, &o, n / 10); /* warm up the regex cache and the allocator */
    time_cases(kc, t, &o, n / 10);
    double tb = time_cases(kb, t, &o, n), tc = time_cases(kc, t, &o, n);
    /* pairs of blocks, without and with the assertion, in turn */
    long pairs = n / BLOCK < 20 ? 20 : n / BLOCK;
    double *d = malloc((size_t)pairs * sizeof *d), fastest_b = 1e9, fastest_c = 1e9;
    if (!d)
        return 1;
    for (long i = 0; i < pairs; i++) {
        double b = time_cases(kb, t, &o, BLOCK), c = time_cases(kc, t, &o, BLOCK);
        d[i] = (c - b) / BLOCK * 1e6;
        fastest_b = b < fastest_b ? b : fastest_b;
        fastest_c = c < fastest_c ? c : fastest_c;
    }
    qsort(d, (size_t)pairs, sizeof *d, cmp_double);
    /* parsing the trajectory text each time, as an offline run does (forge's reader, into the
     * thread's arena; the result outside it) */
    forge_jarena_install();
    uint64_t t0 = cpu_ns();
    for (long i = 0; i < n; i++) {
        forge_jarena_on(true);
        cJSON *tt = forge_json_parse(trajectory, __builtin_strlen(trajectory), "trajectory", &err), *r = NULL;
        forge_jarena_on(false);
        if (!tt || forge_eval_case(kb, tt, &o, &r, &err)) {
            fprintf(stderr, "bench_eval: %s\n", err.msg);
            return 1;
        }
        cJSON_Delete(r);
        forge_jarena_reset();
    }
    double tp = (double)(cpu_ns() - t0) / 1e9;
    printf("in-process (CPU time), %ld cases, 9 built-in assertions each:\n", n);
    printf("  scoring only:              %.0f cases/s (%.2f us per case)\n", n / tb, tb / n * 1e6);
    printf("  trajectory parse + score:  %.0f cases/s (%.2f us per case)\n", n / tp, tp / n * 1e6);
    printf("  + one Lua custom assertion: %.0f cases/s; extra per Lua call: %.2f us\n", n / tc, (tc - tb) / n * 1e6);
    printf("  extra per Lua call, %ld pairs of %d-case blocks: median %.2f us (p10 %.2f, p90 %.2f); "
           "fastest blocks %.2f us\n", pairs, BLOCK, d[pairs / 2], d[pairs / 10], d[pairs - 1 - pairs / 10],
           (fastest_c - fastest_b) / BLOCK * 1e6);
    free(d);
    cJSON_Delete(kb);
    cJSON_Delete(kc);
    cJSON_Delete(t);
    forge_vm_free(vm);
    return 0;
}
