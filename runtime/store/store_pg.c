/* The store on PostgreSQL: not in this build yet. */
#include "store/store.h"

int forge_store_pg_open(const char *uri, struct forge_store **out, struct forge_err *err)
{
    (void)uri;
    *out = NULL;
    return forge_err_set(err, FORGE_EINVAL, "--store postgres://...: PostgreSQL stores are not supported by this "
                         "build; use a SQLite file");
}
