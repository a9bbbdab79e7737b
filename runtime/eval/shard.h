/* Sharded runs: which cases a shard runs (by a hash of the case id, so adding cases moves no
 * other case between shards), and the header line a shard's JSONL results start with, which
 * `forge report merge` checks. */
#ifndef FORGE_EVAL_SHARD_H
#define FORGE_EVAL_SHARD_H
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_shard {
    int index, of; /* 1-based; of == 0: not sharded */
};

/* "I/N" into <s>. FORGE_EINVAL naming the flag. */
int forge_shard_parse(const char *spec, struct forge_shard *s, struct forge_err *err);
/* With --shards N: the index from the environment a Kubernetes Indexed Job (JOB_COMPLETION_INDEX,
 * from 0) or a CI matrix (FORGE_SHARD_INDEX, from 1) sets. FORGE_EINVAL when neither is set or
 * the value is out of range. */
int forge_shard_from_env(int of, struct forge_shard *s, struct forge_err *err);
/* The shard (1..of) of case <id>. */
int forge_shard_of(const char *id, int of);

/* Keeps in the eval files <files> (arrays of cases, changed in place) only the cases of shard
 * <s>, and returns the header {"forge_shard": {"index", "of", "suite" (a hash of every case id
 * in order: shards of one suite agree on it), "total" (cases in the whole run), "ids" (the kept
 * cases' ids) and "positions" (their places in the whole run)}} (new), or NULL when out of memory.
 * <all> receives a new array of every case id (for telling another shard's transcript from an
 * unknown one). */
cJSON *forge_shard_select(cJSON **files, int nfiles, const struct forge_shard *s, cJSON **all);
/* The same header built a case at a time (eval files read lazily): init, add every case id of
 * the run in order, finish. */
struct forge_shard_hdr {
    struct forge_shard s;
    unsigned long long suite;
    long total;
    cJSON *ids, *positions; /* the kept cases' */
};
/* Returns 0 or FORGE_ENOMEM. */
int forge_shard_hdr_init(struct forge_shard_hdr *h, const struct forge_shard *s);
/* Adds the next case of the run; returns 1 when it is this shard's, 0 when not, FORGE_ENOMEM. */
int forge_shard_hdr_add(struct forge_shard_hdr *h, const char *id);
/* Returns the header (new; the same shape as forge_shard_select's) or NULL when out of memory;
 * <h> is empty afterwards. */
cJSON *forge_shard_hdr_finish(struct forge_shard_hdr *h);
void forge_shard_hdr_free(struct forge_shard_hdr *h);
#endif
