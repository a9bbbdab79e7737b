/* Suite accumulation, summary statistics, gates and baseline comparison. */
#include "eval/suite.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/strtab.h"
#include "data/json.h"
#include "score/assert.h"
#include "score/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int forge_eval_case(const cJSON *kase, const cJSON *traj, const struct forge_eval_opts *opts,
                    cJSON **result, struct forge_err *err)
{
    struct forge_assert_opts ao = {0};
    if (opts) {
        ao.seed = opts->seed;
        ao.snapshot = opts->snapshot;
        ao.tools = opts->tools;
        ao.lean = opts->lean;
        if (opts->custom) {
            ao.custom = forge_assertions_lookup;
            ao.custom_ctx = (void *)opts->custom;
        }
    }
    return forge_assert_case(kase, traj, &ao, result, err);
}

/* The counts are taken as results arrive, while each result is still in cache: a pass over a
 * hundred thousand results at the end would wait on memory. */
struct forge_suite {
    cJSON *cases;
    long passed, failed, errors, skipped, skipped_assert;
    double cost, duration, wsum, wscore;
    double *lat; /* measured latencies of passed and failed cases */
    size_t nlat, cap;
    long counted;
    struct forge_suite_group *groups;
    int ngroups, gcap, glast;
    /* baseline: its cases by id (a seeded hash table: ids crafted to collide under a fixed hash
     * made a baseline of n cases cost n^2), the last of a repeated id; the comparison's lists */
    const cJSON *base;
    struct forge_strtab ids;
    const cJSON **tab; /* by index in ids */
    cJSON *reg, *np;
};

static const char *status(const cJSON *r);

struct forge_suite *forge_suite_new(void)
{
    struct forge_suite *s = forge_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->cases = cJSON_CreateArray();
    s->reg = cJSON_CreateArray();
    s->np = cJSON_CreateArray();
    if (!s->cases || !s->reg || !s->np) {
        forge_suite_free(s);
        return NULL;
    }
    return s;
}

int forge_suite_reserve(struct forge_suite *s, size_t n, struct forge_err *err)
{
    if (n <= s->cap) return 0;
    double *lat = forge_realloc(s->lat, n * sizeof *lat);
    if (!lat) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    s->lat = lat;
    s->cap = n;
    return 0;
}

int forge_suite_set_baseline(struct forge_suite *s, const cJSON *baseline, struct forge_err *err)
{
    if (!baseline || s->base) return 0;
    const cJSON *bcases = forge_json_get(baseline, "cases");
    size_t bn = (size_t)cJSON_GetArraySize(bcases);
    const cJSON **tab = forge_malloc((bn ? bn : 1) * sizeof *tab);
    if (!tab) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    const cJSON *b;
    cJSON_ArrayForEach(b, bcases) {
        const char *bcid = forge_json_str(b, "id");
        if (!bcid) continue;
        long i = forge_strtab_find(&s->ids, bcid);
        if (i < 0 && (i = forge_strtab_add(&s->ids, bcid)) < 0) {
            forge_free(tab);
            forge_strtab_free(&s->ids);
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        tab[i] = b; /* the last case of an id */
    }
    s->base = baseline;
    s->tab = tab;
    return 0;
}

static int compare(struct forge_suite *s, const cJSON *r)
{
    const char *cid = forge_json_str(r, "id");
    if (!cid) cid = "";
    long i = forge_strtab_find(&s->ids, cid);
    if (i < 0) return 0;
    const char *now = status(r), *then = status(s->tab[i]);
    cJSON *l = NULL;
    if (strcmp(then, "passed") == 0 && (strcmp(now, "failed") == 0 || strcmp(now, "error") == 0)) l = s->reg;
    else if (strcmp(then, "passed") != 0 && strcmp(now, "passed") == 0) l = s->np;
    if (l && !cJSON_AddItemToArray(l, cJSON_CreateString(cid))) return FORGE_ENOMEM;
    return 0;
}

static int group(struct forge_suite *s, const cJSON *sv, const char *st, double dur)
{
    const char *name = cJSON_IsString(sv) && sv->valuestring ? sv->valuestring : "forge";
    int g = s->glast;
    if (g >= s->ngroups || strcmp(s->groups[g].name, name) != 0) {
        for (g = 0; g < s->ngroups && strcmp(s->groups[g].name, name) != 0; g++) {}
        if (g == s->ngroups) {
            if (s->ngroups == s->gcap) {
                int cap = s->gcap ? s->gcap * 2 : 8;
                struct forge_suite_group *ng = forge_realloc(s->groups, (size_t)cap * sizeof *ng);
                if (!ng) return FORGE_ENOMEM;
                s->groups = ng;
                s->gcap = cap;
            }
            struct forge_suite_group *n = &s->groups[s->ngroups];
            memset(n, 0, sizeof *n);
            if (!(n->name = forge_strdup(name))) return FORGE_ENOMEM;
            n->first = s->counted;
            s->ngroups++;
        }
        s->glast = g;
    }
    struct forge_suite_group *x = &s->groups[g];
    x->tests++;
    x->failed += st[0] == 'f';
    x->errors += st[0] == 'e';
    x->skipped += st[0] == 's';
    x->ms += dur;
    x->last = s->counted;
    return 0;
}

int forge_suite_count(struct forge_suite *s, const cJSON *result, struct forge_err *err)
{
    if (s->nlat == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        double *lat = forge_realloc(s->lat, cap * sizeof *lat);
        if (!lat) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        s->lat = lat;
        s->cap = cap;
    }
    /* one pass over the result's members: lookups by name would scan them six times */
    const cJSON *lat_v = NULL, *cost_v = NULL, *err_v = NULL, *suite_v = NULL, *dur_v = NULL;
    double dur = 0, sa = 0, w = 1, score = 0;
    bool ok = false, skip = false;
    const cJSON *it;
    cJSON_ArrayForEach(it, result) {
        const char *k = it->string;
        switch (k[0]) {
        case 'd': if (strcmp(k, "durationMs") == 0 && cJSON_IsNumber(it)) dur = it->valuedouble, dur_v = it; break;
        case 's':
            if (strcmp(k, "skippedAssertions") == 0 && cJSON_IsNumber(it)) sa = it->valuedouble;
            else if (strcmp(k, "skipped") == 0) skip = cJSON_IsTrue(it);
            else if (strcmp(k, "score") == 0 && cJSON_IsNumber(it)) score = it->valuedouble;
            else if (strcmp(k, "suite") == 0 && !suite_v) suite_v = it;
            break;
        case 'e': if (strcmp(k, "error") == 0 && !err_v) err_v = it; break;
        case 'p': if (strcmp(k, "passed") == 0) ok = cJSON_IsTrue(it); break;
        case 'l': if (strcmp(k, "latencyMs") == 0) lat_v = it; break;
        case 'c': if (strcmp(k, "costUsd") == 0) cost_v = it; break;
        case 'w': if (strcmp(k, "weight") == 0 && cJSON_IsNumber(it)) w = it->valuedouble; break;
        default: break;
        }
    }
    /* JUnit's time sums durationMs as a number or 0 (forge_json_num) */
    if (group(s, suite_v, err_v ? "error" : skip ? "skipped" : ok ? "passed" : "failed", dur_v ? dur : 0) ||
        (s->base && compare(s, result)))
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    s->counted++;
    s->duration += dur;
    if (sa >= 0 && sa <= 1e15) /* results read back from files (report merge, report html) may hold anything */
        s->skipped_assert += (long)sa;
    if (err_v) {
        s->errors++;
        return 0;
    }
    if (skip) {
        s->skipped++;
        return 0;
    }
    if (ok) s->passed++;
    else s->failed++;
    if (cJSON_IsNumber(lat_v)) s->lat[s->nlat++] = lat_v->valuedouble;
    if (cJSON_IsNumber(cost_v)) s->cost += cost_v->valuedouble;
    s->wsum += w;
    s->wscore += w * score;
    return 0;
}

int forge_suite_add(struct forge_suite *s, cJSON *result, struct forge_err *err)
{
    if (forge_suite_count(s, result, err)) {
        cJSON_Delete(result);
        return FORGE_ENOMEM;
    }
    if (!cJSON_AddItemToArray(s->cases, result)) {
        cJSON_Delete(result);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    return 0;
}

const struct forge_suite_group *forge_suite_groups(const struct forge_suite *s, int *n)
{
    *n = s->ngroups;
    return s->groups;
}

/* "passed", "failed", "error" or "skipped". */
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

static void run_id(char *id, size_t n, char *stamp, size_t sn)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    struct tm tm;
    if (sde && *sde) {
        time_t t = (time_t)strtoll(sde, NULL, 10);
        gmtime_r(&t, &tm);
        strftime(stamp, sn, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
    } else {
        forge_clock_iso(stamp, sn);
    }
    /* run-YYYYMMDDTHHMMSSmmmZ from the timestamp */
    char compact[40];
    size_t j = 0;
    for (const char *p = stamp; *p && j < sizeof compact - 1; p++)
        if (*p != '-' && *p != ':' && *p != '.') compact[j++] = *p;
    compact[j] = 0;
    snprintf(id, n, "run-%s", compact);
}

static cJSON *gate_row(const char *gate, double threshold, double actual, bool pass)
{
    cJSON *g = cJSON_CreateObject();
    if (!g) return NULL;
    cJSON_AddStringToObject(g, "gate", gate);
    cJSON_AddNumberToObject(g, "threshold", threshold);
    cJSON_AddNumberToObject(g, "actual", actual);
    cJSON_AddBoolToObject(g, "pass", pass);
    return g;
}

int forge_suite_report(struct forge_suite *s, const struct forge_gates *gates, const cJSON *baseline,
                       cJSON **report, struct forge_err *err)
{
    *report = NULL;
    long n = s->passed + s->failed + s->errors + s->skipped;
    cJSON *rep = cJSON_CreateObject();
    if (!rep) goto nomem;
    long passed = s->passed, failed = s->failed, errors = s->errors, skipped = s->skipped;
    long skipped_assert = s->skipped_assert;
    double cost = s->cost, duration = s->duration, wsum = s->wsum, wscore = s->wscore;
    double *lat = s->lat;
    size_t nlat = s->nlat;
    const cJSON *r;
    long ran = passed + failed;
    double rate = ran ? (double)passed / (double)ran : 0, lo, hi;
    forge_stats_wilson(passed, ran, 1.96, &lo, &hi);
    double p50 = forge_stats_quantile(lat, nlat, 0.5), p95 = forge_stats_quantile(lat, nlat, 0.95);

    char id[64], stamp[40];
    run_id(id, sizeof id, stamp, sizeof stamp);
    cJSON_AddStringToObject(rep, "runId", id);
    cJSON_AddStringToObject(rep, "timestamp", stamp);
    cJSON *okitem = cJSON_AddBoolToObject(rep, "passed", false);
    cJSON_AddItemToObject(rep, "cases", s->cases);
    s->cases = cJSON_CreateArray();
    s->passed = s->failed = s->errors = s->skipped = s->skipped_assert = 0;
    s->cost = s->duration = s->wsum = s->wscore = 0;
    s->nlat = 0;
    cJSON *sum = cJSON_AddObjectToObject(rep, "summary");
    if (!okitem || !sum || !s->cases) goto nomem;
    cJSON_AddNumberToObject(sum, "totalCases", (double)n);
    cJSON_AddNumberToObject(sum, "passed", (double)passed);
    cJSON_AddNumberToObject(sum, "failed", (double)failed);
    cJSON_AddNumberToObject(sum, "errors", (double)errors);
    cJSON_AddNumberToObject(sum, "skipped", (double)skipped);
    cJSON_AddNumberToObject(sum, "skippedAssertions", (double)skipped_assert);
    cJSON_AddNumberToObject(sum, "passRate", rate);
    cJSON *ci = cJSON_AddArrayToObject(sum, "passRateInterval");
    if (!ci) goto nomem;
    cJSON_AddItemToArray(ci, cJSON_CreateNumber(lo));
    cJSON_AddItemToArray(ci, cJSON_CreateNumber(hi));
    cJSON_AddNumberToObject(sum, "score", wsum > 0 ? wscore / wsum : 0);
    cJSON_AddNumberToObject(sum, "totalDurationMs", duration);
    cJSON_AddNumberToObject(sum, "p50LatencyMs", p50);
    cJSON_AddNumberToObject(sum, "p95LatencyMs", p95);
    cJSON_AddNumberToObject(sum, "estimatedCostUsd", cost);

    bool ok = failed == 0 && errors == 0;
    cJSON *g = cJSON_AddArrayToObject(rep, "gates");
    if (!g) goto nomem;
    if (gates && gates->has_min_pass_rate) {
        bool p = rate >= gates->min_pass_rate;
        ok = ok && p;
        cJSON_AddItemToArray(g, gate_row("passRate", gates->min_pass_rate, rate, p));
    }
    if (gates && gates->has_max_cost) {
        bool p = cost <= gates->max_cost;
        ok = ok && p;
        cJSON_AddItemToArray(g, gate_row("maxCost", gates->max_cost, cost, p));
    }
    if (gates && gates->has_max_p95_ms) {
        bool p = p95 <= gates->max_p95_ms;
        ok = ok && p;
        cJSON_AddItemToArray(g, gate_row("p95LatencyMs", gates->max_p95_ms, p95, p));
    }
    okitem->type = ok ? cJSON_True : cJSON_False;

    if (baseline && !s->base) {
        /* the results were added before the baseline was known: compare them now, in order */
        if (forge_suite_set_baseline(s, baseline, err)) goto fail;
        cJSON_ArrayForEach(r, forge_json_get(rep, "cases"))
            if (compare(s, r)) goto nomem;
    }
    if (s->base) {
        const char *bid = forge_json_str(s->base, "runId");
        if (bid) cJSON_AddStringToObject(rep, "baselineRunId", bid);
    }
    cJSON *reg = s->reg, *np = s->np;
    s->reg = cJSON_CreateArray();
    s->np = cJSON_CreateArray();
    if (!s->reg || !s->np) {
        cJSON_Delete(reg);
        cJSON_Delete(np);
        goto nomem;
    }
    cJSON_AddItemToObject(rep, "regressions", reg);
    cJSON_AddItemToObject(rep, "newPasses", np);
    *report = rep;
    return 0;
nomem:
    forge_err_set(err, FORGE_ENOMEM, "out of memory");
fail:
    cJSON_Delete(rep);
    return FORGE_ENOMEM;
}

void forge_suite_free(struct forge_suite *s)
{
    if (!s) return;
    forge_free(s->lat); /* the large block first: freeing it after many small ones is slow */
    cJSON_Delete(s->cases);
    for (int i = 0; i < s->ngroups; i++) forge_free(s->groups[i].name);
    forge_free(s->groups);
    forge_free(s->tab);
    forge_strtab_free(&s->ids);
    cJSON_Delete(s->reg);
    cJSON_Delete(s->np);
    forge_free(s);
}
