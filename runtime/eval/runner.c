/* Live suite runs on worker threads. */
#include "eval/runner.h"
#include "base/alloc.h"
#include "data/json.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct shared {
    const struct forge_run_spec *spec;
    const cJSON *next;    /* the array's next case (spec->cases) */
    int n;                /* cases taken so far */
    int done;             /* the source is exhausted (or failed) */
    pthread_mutex_t lock; /* the source, on_case, the results file */
    int infra;
    int failed_rc;        /* first fatal error (out of memory, the source, the results file) */
    struct forge_err err;
};

static void fail(struct shared *sh, int rc, const struct forge_err *err)
{
    if (!sh->failed_rc) {
        sh->failed_rc = rc;
        sh->err = *err;
    }
}

/* Under the lock: the next case and its index, or NULL at the end. *owned when it is taken. */
static const cJSON *take(struct shared *sh, int *index, cJSON **owned)
{
    *owned = NULL;
    if (sh->done || sh->failed_rc)
        return NULL;
    const struct forge_run_spec *spec = sh->spec;
    const cJSON *k = NULL;
    if (spec->cases) {
        k = sh->next;
        if (k)
            sh->next = k->next;
    } else if (spec->next_case) {
        FORGE_ERR_LOCAL(err);
        int rc = spec->next_case(spec->case_ctx, owned, &err);
        if (rc < 0)
            fail(sh, rc, &err);
        k = rc > 0 ? *owned : NULL;
    }
    if (!k) {
        sh->done = 1;
        return NULL;
    }
    *index = sh->n++;
    return k;
}

static void run_case(struct shared *sh, const cJSON *kase, int i)
{
    const struct forge_run_spec *spec = sh->spec;
    cJSON *traj = NULL;
    FORGE_ERR_LOCAL(err);
    int rc = forge_agent_run(&spec->agent, kase, &traj, &err);
    cJSON *result = NULL;
    FORGE_ERR_LOCAL(eerr);
    int erc = forge_eval_case(kase, rc ? NULL : traj, &spec->eval, &result, &eerr);
    pthread_mutex_lock(&sh->lock);
    if (erc) {
        fail(sh, erc, &eerr);
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
            forge_json_add_str(result, "suite", spec->suite_name);
        if (spec->on_case)
            spec->on_case(spec->ud, spec->base + (size_t)i, result, traj);
        FORGE_ERR_LOCAL(werr);
        int wrc = spec->results ? forge_results_put_case(spec->results, spec->base + (size_t)i, result,
                                                              spec->results_traj ? traj : NULL, &werr) : 0;
        if (wrc)
            fail(sh, wrc, &werr);
    }
    pthread_mutex_unlock(&sh->lock);
    cJSON_Delete(result);
    cJSON_Delete(traj);
}

static void *worker(void *arg)
{
    struct shared *sh = arg;
    for (;;) {
        cJSON *owned;
        int i = 0;
        pthread_mutex_lock(&sh->lock);
        const cJSON *k = take(sh, &i, &owned);
        pthread_mutex_unlock(&sh->lock);
        if (!k)
            break;
        run_case(sh, k, i);
        cJSON_Delete(owned);
    }
    return NULL;
}

int forge_run_suite(const struct forge_run_spec *spec, struct forge_run_stats *stats, struct forge_err *err)
{
    struct shared sh = {.spec = spec, .next = spec->cases ? spec->cases->child : NULL};
    pthread_mutex_init(&sh.lock, NULL);
    int jobs = spec->jobs < 1 ? 1 : spec->jobs;
    if (spec->cases && jobs > cJSON_GetArraySize(spec->cases))
        jobs = cJSON_GetArraySize(spec->cases) ? cJSON_GetArraySize(spec->cases) : 1;
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
    if (stats) {
        stats->cases = sh.n;
        stats->infra_errors = sh.infra;
    }
    pthread_mutex_destroy(&sh.lock);
    return rc;
}
