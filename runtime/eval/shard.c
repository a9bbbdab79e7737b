/* Sharded runs. */
#include "eval/shard.h"
#include "data/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int forge_shard_of(const char *id, int of)
{
    /* a 64-bit hash, then mixed so neighbouring ids spread evenly */
    uint64_t h = fnv(1469598103934665603ull, id ? id : "");
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (int)(h % (uint64_t)of) + 1;
}

static int number(const char *v, long lo, long hi, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

int forge_shard_parse(const char *spec, struct forge_shard *s, struct forge_err *err)
{
    const char *slash = strchr(spec, '/');
    char a[16];
    long i, n;
    if (!slash || (size_t)(slash - spec) >= sizeof a)
        return forge_err_set(err, FORGE_EINVAL, "--shard: expected I/N (e.g. 2/4), got '%s'", spec);
    memcpy(a, spec, (size_t)(slash - spec));
    a[slash - spec] = '\0';
    if (number(slash + 1, 1, 100000, &n) || number(a, 1, n, &i))
        return forge_err_set(err, FORGE_EINVAL, "--shard: expected I/N with 1 <= I <= N <= 100000, got '%s'", spec);
    s->index = (int)i;
    s->of = (int)n;
    return 0;
}

int forge_shard_from_env(int of, struct forge_shard *s, struct forge_err *err)
{
    const char *k8s = getenv("JOB_COMPLETION_INDEX"), *ci = getenv("FORGE_SHARD_INDEX");
    long i;
    if (k8s && *k8s) {
        if (number(k8s, 0, of - 1, &i))
            return forge_err_set(err, FORGE_EINVAL, "--shards %d: JOB_COMPLETION_INDEX is '%s', not 0 to %d", of, k8s,
                                 of - 1);
        s->index = (int)i + 1;
    } else if (ci && *ci) {
        if (number(ci, 1, of, &i))
            return forge_err_set(err, FORGE_EINVAL, "--shards %d: FORGE_SHARD_INDEX is '%s', not 1 to %d", of, ci, of);
        s->index = (int)i;
    } else {
        return forge_err_set(err, FORGE_EINVAL, "--shards %d: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) "
                             "nor FORGE_SHARD_INDEX is set; or give --shard I/%d", of, of);
    }
    s->of = of;
    return 0;
}

cJSON *forge_shard_select(cJSON **files, int nfiles, const struct forge_shard *s, cJSON **all)
{
    cJSON *h = cJSON_CreateObject(), *sh, *ids = cJSON_CreateArray();
    uint64_t suite = 1469598103934665603ull;
    long total = 0;
    if (!h || !ids || !(sh = cJSON_AddObjectToObject(h, "forge_shard")) || !cJSON_AddNumberToObject(sh, "index", s->index) ||
        !cJSON_AddNumberToObject(sh, "of", s->of))
        goto fail;
    cJSON *positions = cJSON_CreateArray(), *kept = cJSON_CreateArray();
    if (!positions || !kept || !cJSON_AddItemToObject(sh, "ids", kept)) {
        cJSON_Delete(positions);
        if (!cJSON_GetObjectItemCaseSensitive(sh, "ids"))
            cJSON_Delete(kept);
        goto fail;
    }
    for (int f = 0; f < nfiles; f++) {
        cJSON *k = files[f] ? files[f]->child : NULL;
        while (k) {
            cJSON *next = k->next;
            const char *id = forge_json_str(k, "id");
            suite = fnv(fnv(suite, id ? id : ""), "\n");
            if (!cJSON_AddItemToArray(ids, cJSON_CreateString(id ? id : ""))) {
                cJSON_Delete(positions);
                goto fail;
            }
            if (forge_shard_of(id, s->of) == s->index) {
                if (!cJSON_AddItemToArray(positions, cJSON_CreateNumber((double)total)) ||
                    !cJSON_AddItemToArray(kept, cJSON_CreateString(id ? id : ""))) {
                    cJSON_Delete(positions);
                    goto fail;
                }
            } else {
                cJSON_Delete(cJSON_DetachItemViaPointer(files[f], k));
            }
            total++;
            k = next;
        }
    }
    char hex[20];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)suite);
    if (!cJSON_AddStringToObject(sh, "suite", hex) || !cJSON_AddNumberToObject(sh, "total", (double)total) ||
        !cJSON_AddItemToObject(sh, "positions", positions))
        goto fail;
    *all = ids;
    return h;
fail:
    cJSON_Delete(h);
    cJSON_Delete(ids);
    *all = NULL;
    return NULL;
}

int forge_shard_hdr_init(struct forge_shard_hdr *h, const struct forge_shard *s)
{
    memset(h, 0, sizeof *h);
    h->s = *s;
    h->suite = 1469598103934665603ull;
    h->ids = cJSON_CreateArray();
    h->positions = cJSON_CreateArray();
    if (!h->ids || !h->positions) {
        forge_shard_hdr_free(h);
        return FORGE_ENOMEM;
    }
    return 0;
}

int forge_shard_hdr_add(struct forge_shard_hdr *h, const char *id)
{
    h->suite = fnv(fnv(h->suite, id ? id : ""), "\n");
    long at = h->total++;
    if (forge_shard_of(id, h->s.of) != h->s.index)
        return 0;
    if (!cJSON_AddItemToArray(h->positions, cJSON_CreateNumber((double)at)) ||
        !cJSON_AddItemToArray(h->ids, cJSON_CreateString(id ? id : "")))
        return FORGE_ENOMEM;
    return 1;
}

cJSON *forge_shard_hdr_finish(struct forge_shard_hdr *h)
{
    cJSON *out = cJSON_CreateObject(), *sh = out ? cJSON_AddObjectToObject(out, "forge_shard") : NULL;
    char hex[20];
    snprintf(hex, sizeof hex, "%016llx", h->suite);
    if (!sh || !cJSON_AddNumberToObject(sh, "index", h->s.index) || !cJSON_AddNumberToObject(sh, "of", h->s.of) ||
        !cJSON_AddItemToObject(sh, "ids", h->ids)) {
        cJSON_Delete(out);
        return NULL;
    }
    h->ids = NULL;
    if (!cJSON_AddStringToObject(sh, "suite", hex) || !cJSON_AddNumberToObject(sh, "total", (double)h->total) ||
        !cJSON_AddItemToObject(sh, "positions", h->positions)) {
        cJSON_Delete(out);
        return NULL;
    }
    h->positions = NULL;
    return out;
}

void forge_shard_hdr_free(struct forge_shard_hdr *h)
{
    cJSON_Delete(h->ids);
    cJSON_Delete(h->positions);
    h->ids = h->positions = NULL;
}
