/* Whether two rendered schema errors say the same (forge_schema_error's four strings; an
 * absent absolute keyword location equals only another absent one), and the two paths of a
 * check that wants errors run side by side. For the tests and fuzz targets that compare two ways of
 * validating. */
#ifndef FORGE_TESTS_SAME_ERROR_H
#define FORGE_TESTS_SAME_ERROR_H
#include <stdbool.h>
#include <string.h>
#include "data/schema.h"
#include "data/schema_int.h"

static inline bool same_error_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static inline bool same_error(const struct forge_schema_error *a, const struct forge_schema_error *b)
{
    return same_error_str(a->instance_location, b->instance_location) &&
           same_error_str(a->keyword_location, b->keyword_location) &&
           same_error_str(a->absolute_keyword_location, b->absolute_keyword_location) &&
           same_error_str(a->message, b->message);
}

/* Whether the errors recorded in <a> and <b> say the same once rendered: as many, each the same
 * as its peer. */
static inline bool same_errors(struct forge_schema_errors *a, struct forge_schema_errors *b)
{
    if (a->n != b->n || forge_schema_errors_render(a) || forge_schema_errors_render(b))
        return false;
    for (int i = 0; i < a->n; i++)
        if (!same_error(&a->list[i], &b->list[i]))
            return false;
    return true;
}

/* <inst> checked against <s> both ways: the verdict walk first (in first-error mode its trail
 * replayed, in all-errors mode the recording walk after it; verdict *rt, errors in <et>) and the
 * recording walk from the root (*rr, <er>).
 * Returns false when a replay did not follow its trail (forge_schema_test_trail_misses). */
static inline bool check_both_paths(const struct forge_schema *s, const cJSON *inst,
                                    struct forge_schema_errors *et, int *rt,
                                    struct forge_schema_errors *er, int *rr)
{
    unsigned long misses = forge_schema_test_trail_misses();
    forge_schema_test_path(2);
    *rt = forge_schema_check(s, inst, et);
    forge_schema_test_path(1);
    *rr = forge_schema_check(s, inst, er);
    forge_schema_test_path(0);
    return forge_schema_test_trail_misses() == misses;
}

/* Whether <inst> checked against <s> by the recording walk from the root gives the same verdict
 * and errors as <er> (*<rr>, that walk's) when every error records its paths' segments (no
 * location made at compile time). <es> receives the errors. */
static inline bool same_with_segments(const struct forge_schema *s, const cJSON *inst,
                                      struct forge_schema_errors *er, int rr,
                                      struct forge_schema_errors *es)
{
    forge_schema_test_path(1);
    forge_schema_test_segments(true);
    int r = forge_schema_check(s, inst, es);
    forge_schema_test_segments(false);
    forge_schema_test_path(0);
    return r == rr && es->n == er->n && (r != 0 || same_errors(es, er));
}
#endif
