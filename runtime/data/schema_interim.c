/* Interim placeholder for data/schema.h on the eval branch until the validator lands on main;
 * removed at that merge. Every compile fails with a clear message. */
#include "data/schema.h"

struct forge_schema *forge_schema_compile(const cJSON *schema, const struct forge_schema_opts *opts,
                                          struct forge_err *err)
{
    (void)schema; (void)opts;
    forge_err_set(err, FORGE_EINTERNAL, "JSON Schema validation is not available in this build");
    return NULL;
}

int forge_schema_validate(const struct forge_schema *s, const cJSON *instance, cJSON **errors)
{
    (void)s; (void)instance;
    if (errors) *errors = NULL;
    return FORGE_EINTERNAL;
}

void forge_schema_free(struct forge_schema *s) { (void)s; }
