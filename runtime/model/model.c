/* Model dispatch. */
#include "model/model.h"

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
