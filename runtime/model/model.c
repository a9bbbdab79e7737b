/* Model dispatch. */
#include "model/model.h"

static _Thread_local forge_model_text_fn text_fn;
static _Thread_local void *text_ctx;

void forge_model_text_set(forge_model_text_fn fn, void *ctx, forge_model_text_fn *prev_fn, void **prev_ctx)
{
    if (prev_fn)
        *prev_fn = text_fn;
    if (prev_ctx)
        *prev_ctx = text_ctx;
    text_fn = fn;
    text_ctx = fn ? ctx : NULL;
}

forge_model_text_fn forge_model_text_get(void **ctx)
{
    *ctx = text_ctx;
    return text_fn;
}

int forge_model_complete(struct forge_model *m, const cJSON *req, cJSON **resp,
                         struct forge_err *err)
{
    *resp = NULL;
    return m->ops->complete(m, req, resp, err);
}

void forge_model_free(struct forge_model *m)
{
    if (m)
        m->ops->free(m);
}
