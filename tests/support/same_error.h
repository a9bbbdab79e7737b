/* Whether two rendered schema errors say the same (forge_schema_error's four strings; an
 * absent absolute keyword location equals only another absent one). For the tests and fuzz
 * targets that compare two ways of validating. */
#ifndef FORGE_TESTS_SAME_ERROR_H
#define FORGE_TESTS_SAME_ERROR_H
#include <stdbool.h>
#include <string.h>
#include "data/schema.h"

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
#endif
