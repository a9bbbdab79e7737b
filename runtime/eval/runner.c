/* Live suite runs on worker threads. */
#include "eval/runner.h"
#include "base/alloc.h"
#include "data/json.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

struct shared {
    const struct forge_run_spec *spec;
    const cJSON **cases; /* by index: cJSON_GetArrayItem is linear */
    int n;
    _Atomic int next;
    cJSON **results;
    pthread_mutex_t lock; /* serializes on_case */
    int infra;
    int failed_rc;        /* first fatal error (out of memory) */
    struct forge_err err;
};

static void run_case(struct shared *sh, int i)
{
    const struct forge_run_spec *spec = sh->spec;
    const cJSON *kase = sh->cases[i];
    cJSON *traj = NULL;
    struct forge_err err = {0};
    int rc = forge_agent_run(&spec->agent, kase, &traj, &err);
    cJSON *result = NULL;
    struct forge_err eerr = {0};
    int erc = forge_eval_case(kase, rc ? NULL : traj, &spec->eval, &result, &eerr);
    pthread_mutex_lock(&sh->lock);
    if (erc) {
        if (!sh->failed_rc) {
            sh->failed_rc = erc;
            sh->err = eerr;
        }
    } else {
        if (rc) {
            char msg[FORGE_ERR_MAX + 32];
            snprintf(msg, sizeof msg, "%s: %s", rc == FORGE_ENET ? "model error" : "run error",
                     err.msg);
            cJSON_ReplaceItemInObjectCaseSensitive(result, "error", cJSON_CreateString(msg));
            if (rc == FORGE_ENET)
                sh->infra++;
        }
        if (spec->suite_name)
            cJSON_AddStringToObject(result, "suite", spec->suite_name);
        if (spec->on_case)
            spec->on_case(spec->ud, result, traj);
        sh->results[i] = result;
    }
    pthread_mutex_unlock(&sh->lock);
    cJSON_Delete(traj);
}

static void *worker(void *arg)
{
    struct shared *sh = arg;
    for (;;) {
        int i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->n || sh->failed_rc)
            break;
        run_case(sh, i);
    }
    return NULL;
}

int forge_run_suite(const struct forge_run_spec *spec, struct forge_suite *suite,
                    struct forge_run_stats *stats, struct forge_err *err)
{
    struct shared sh = {.spec = spec, .n = cJSON_GetArraySize(spec->cases)};
    atomic_init(&sh.next, 0);
    pthread_mutex_init(&sh.lock, NULL);
    sh.results = forge_calloc((size_t)sh.n + 1, sizeof *sh.results);
    sh.cases = forge_calloc((size_t)sh.n + 1, sizeof *sh.cases);
    int ci = 0;
    for (const cJSON *c = sh.cases ? spec->cases->child : NULL; c; c = c->next)
        sh.cases[ci++] = c;
    if (!sh.results || !sh.cases) {
        forge_free(sh.results);
        forge_free(sh.cases);
        pthread_mutex_destroy(&sh.lock);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    int jobs = spec->jobs < 1 ? 1 : spec->jobs;
    if (jobs > sh.n)
        jobs = sh.n ? sh.n : 1;
    if (jobs == 1) {
        worker(&sh);
    } else {
        pthread_t *t = forge_calloc((size_t)jobs, sizeof *t);
        int started = 0;
        for (int i = 0; t && i < jobs; i++)
            if (pthread_create(&t[i], NULL, worker, &sh) == 0)
                started++;
        if (!started)
            worker(&sh);
        for (int i = 0; i < started; i++)
            pthread_join(t[i], NULL);
        forge_free(t);
    }
    int rc = sh.failed_rc;
    if (rc && err)
        *err = sh.err;
    for (int i = 0; i < sh.n; i++) {
        if (!rc && sh.results[i]) {
            rc = forge_suite_add(suite, sh.results[i], err);
            sh.results[i] = NULL;
        }
        cJSON_Delete(sh.results[i]);
    }
    if (stats) {
        stats->cases = sh.n;
        stats->infra_errors = sh.infra;
    }
    forge_free(sh.results);
    forge_free(sh.cases);
    pthread_mutex_destroy(&sh.lock);
    return rc;
}
