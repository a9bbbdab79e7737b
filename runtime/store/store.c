/* The store's front: picks the backend by location and dispatches. */
#include "store/store.h"
#include "base/alloc.h"

#include <string.h>

int forge_store_open(const char *location, struct forge_store **out, struct forge_err *err)
{
    *out = NULL;
    if (!location || !*location)
        return forge_err_set(err, FORGE_EINVAL, "--store: expected a file, sqlite:PATH or postgres://...");
    if (!strncmp(location, "postgres://", 11) || !strncmp(location, "postgresql://", 13))
        return forge_store_pg_open(location, out, err);
    if (!strncmp(location, "sqlite:", 7))
        location += 7;
    if (!*location)
        return forge_err_set(err, FORGE_EINVAL, "--store sqlite: needs a path (or :memory:)");
    return forge_store_sqlite_open(location, out, err);
}

void forge_store_close(struct forge_store *s)
{
    if (s)
        s->ops->close(s);
}

int forge_store_conv_get(struct forge_store *s, const char *id, char **user, char **agent, cJSON **messages,
                         struct forge_err *err)
{
    *user = *agent = NULL;
    *messages = NULL;
    return s->ops->conv_get(s, id, user, agent, messages, err);
}

int forge_store_conv_put(struct forge_store *s, const char *id, const char *user, const char *agent,
                         const cJSON *messages, struct forge_err *err)
{
    return s->ops->conv_put(s, id, user, agent, messages, err);
}

int forge_store_conv_list(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err)
{
    *out = NULL;
    return s->ops->conv_list(s, user, out, err);
}

int forge_store_conv_delete(struct forge_store *s, const char *id, struct forge_err *err)
{
    return s->ops->conv_delete(s, id, err);
}

int forge_store_pending_put(struct forge_store *s, const char *token, const char *session, const cJSON *state,
                            double expires, struct forge_err *err)
{
    return s->ops->pending_put(s, token, session, state, expires, err);
}

int forge_store_pending_take(struct forge_store *s, const char *token, double now, cJSON **state,
                             struct forge_err *err)
{
    *state = NULL;
    return s->ops->pending_take(s, token, now, state, err);
}

int forge_store_pending_drop(struct forge_store *s, const char *session, double now, struct forge_err *err)
{
    return s->ops->pending_drop(s, session, now, err);
}

int forge_store_audit_add(struct forge_store *s, const cJSON *row, struct forge_err *err)
{
    return s->ops->audit_add(s, row, err);
}

int forge_store_audit_list(struct forge_store *s, int limit, int offset, cJSON **out, struct forge_err *err)
{
    *out = NULL;
    return s->ops->audit_list(s, limit, offset, out, err);
}

int forge_store_prefs_get(struct forge_store *s, const char *user, cJSON **out, struct forge_err *err)
{
    *out = NULL;
    return s->ops->prefs_get(s, user, out, err);
}

int forge_store_prefs_put(struct forge_store *s, const char *user, const cJSON *prefs, struct forge_err *err)
{
    return s->ops->prefs_put(s, user, prefs, err);
}

int forge_store_rate_hit(struct forge_store *s, const char *user, double window_start, long *count,
                         struct forge_err *err)
{
    *count = 0;
    return s->ops->rate_hit(s, user, window_start, count, err);
}
