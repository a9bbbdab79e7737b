/* A run's statistics counted as its results come: see tally.h. */
#include "eval/tally.h"
#include "base/alloc.h"
#include "data/json.h"
#include "data/utf8.h"

#include <math.h>
#include <string.h>

struct forge_tally {
    struct forge_suite *suite;
    size_t next;                         /* the place counted next */
    cJSON *wait[FORGE_TALLY_WINDOW];     /* place p (next < p < next + WINDOW) at p % WINDOW */
    bool stopped;                        /* counts nothing more (see forge_tally_add) */
    bool failed;                         /* a count ran out of memory */
};

struct forge_tally *forge_tally_new(struct forge_suite *suite)
{
    struct forge_tally *t = forge_calloc(1, sizeof *t);
    if (t)
        t->suite = suite;
    return t;
}

static void drop_waiting(struct forge_tally *t)
{
    for (int i = 0; i < FORGE_TALLY_WINDOW; i++) {
        cJSON_Delete(t->wait[i]);
        t->wait[i] = NULL;
    }
}

/* Stops the tally where it is: the places from t->next on are read back. */
static void stop(struct forge_tally *t)
{
    t->stopped = true;
    drop_waiting(t);
}

/* Whether the results file gives <r>'s members back as they are, for what counting reads: its
 * numbers are printed exactly unless they are not finite (NaN is written as a bare word), and
 * strings that are not UTF-8 are written with U+FFFD in place of their bad bytes (the id and
 * the suite are read by value). */
static bool as_read_back(const cJSON *r)
{
    for (const cJSON *m = cJSON_IsObject(r) ? r->child : NULL; m; m = m->next) {
        if (!m->string)
            return false;
        if (cJSON_IsNumber(m) && !isfinite(m->valuedouble))
            return false;
        if (cJSON_IsString(m) && m->valuestring && (!strcmp(m->string, "id") || !strcmp(m->string, "suite"))) {
            size_t n = strlen(m->valuestring);
            if (forge_utf8_check(m->valuestring, n, false) != n)
                return false;
        }
    }
    return cJSON_IsObject(r);
}

/* Longest id or suite name a waiting result keeps: a longer one stops the tally (the window then
 * holds at most FORGE_TALLY_WINDOW times this much text). */
#define WAIT_TEXT 1024

/* What waits of <r>, in order: what counting reads (forge_suite_count, the baseline's status):
 * its members that are numbers, booleans or null, its id and suite, and whether it has an
 * "error" (an empty string in its place: only its presence is read). A reason, an error's text
 * and the arrays are left out, so a waiting result stays small whatever a scorer wrote. NULL
 * when out of memory or for an id or suite longer than WAIT_TEXT. */
static cJSON *summary_of(const cJSON *r)
{
    cJSON *o = cJSON_CreateObject();
    for (const cJSON *m = o ? r->child : NULL; m; m = m->next) {
        if (cJSON_IsArray(m) || cJSON_IsObject(m))
            continue;
        cJSON *c;
        if (!cJSON_IsString(m)) {
            c = cJSON_Duplicate(m, 0);
        } else if (!strcmp(m->string, "error")) {
            c = cJSON_CreateString("");
        } else if (!strcmp(m->string, "id") || !strcmp(m->string, "suite")) {
            if (m->valuestring && strlen(m->valuestring) > WAIT_TEXT) {
                cJSON_Delete(o);
                return NULL;
            }
            c = cJSON_Duplicate(m, 0);
        } else {
            continue;
        }
        if (!c || !cJSON_AddItemToObject(o, m->string, c)) {
            cJSON_Delete(c);
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

static void count(struct forge_tally *t, const cJSON *r)
{
    FORGE_ERR_LOCAL(err);
    if (forge_suite_count(t->suite, r, &err)) {
        t->failed = true;
        stop(t);
        return;
    }
    t->next++;
}

/* Counts the waiting results that follow the counted places. */
static void drain(struct forge_tally *t)
{
    cJSON **slot;
    while (!t->stopped && *(slot = &t->wait[t->next % FORGE_TALLY_WINDOW])) {
        cJSON *r = *slot;
        *slot = NULL;
        count(t, r);
        cJSON_Delete(r);
    }
}

void forge_tally_add(struct forge_tally *t, size_t pos, const cJSON *result)
{
    if (!t || t->stopped || pos < t->next)
        return;
    if (!as_read_back(result) || pos - t->next >= FORGE_TALLY_WINDOW) {
        stop(t);
        return;
    }
    if (pos == t->next) {
        count(t, result);
        drain(t);
        return;
    }
    cJSON **slot = &t->wait[pos % FORGE_TALLY_WINDOW];
    if (*slot || !(*slot = summary_of(result))) /* (a place given twice: not for the tally) */
        stop(t);
}

int forge_tally_finish(struct forge_tally *t, const struct forge_results *res, size_t *from,
                       struct forge_err *err)
{
    size_t end = forge_results_size(res);
    while (!t->stopped && t->next < end) {
        if (t->wait[t->next % FORGE_TALLY_WINDOW])
            drain(t);
        else if (!forge_results_has(res, t->next))
            t->next++; /* a place without a record: the reader skips it too */
        else
            break; /* a record the tally never saw: read back from here */
    }
    drop_waiting(t);
    *from = t->next;
    if (t->failed)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    return 0;
}

void forge_tally_free(struct forge_tally *t)
{
    if (!t)
        return;
    drop_waiting(t);
    forge_free(t);
}
