/* An MCP server's tools as forge tools. */
#include "mcp/client.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "data/callable.h"
#include "data/json.h"
#include "tools/tool.h"

#include <stdio.h>
#include <string.h>

struct remote {
    struct forge_mcp_client *c;
    char *server, *name;
};

static void free_remote(void *ctx)
{
    struct remote *r = ctx;
    if (!r)
        return;
    forge_free(r->server);
    forge_free(r->name);
    forge_free(r);
}

/* args = [arguments, scope]: the call goes to the server as it is. */
static int call_remote(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    struct remote *r = ctx;
    cJSON *res = NULL;
    int rc = forge_mcp_call(r->c, r->name, cJSON_GetArrayItem(args, 0), &res, err);
    if (rc)
        return rc;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError"))) {
        /* the server's own words for what went wrong */
        struct forge_buf b;
        forge_buf_init(&b, 4096);
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(res, "content")) {
            const char *t = forge_json_str(c, "text");
            if (t)
                forge_buf_addf(&b, "%s%s", b.len ? " " : "", t);
        }
        rc = forge_err_set(err, FORGE_ENET, "mcp %s: %s: %s", r->server, r->name, b.data ? b.data : "(no text)");
        forge_buf_free(&b);
        cJSON_Delete(res);
        return rc;
    }
    *out = res;
    return 0;
}

int forge_mcp_tool_bind(struct forge_tool *t, struct forge_mcp_client *c, const char *server, const char *remote,
                        struct forge_err *err)
{
    struct remote *r = forge_calloc(1, sizeof *r);
    if (!r || !(r->server = forge_strdup(server)) || !(r->name = forge_strdup(remote)) ||
        !cJSON_AddStringToObject(t->def, "mcp_server", server)) {
        free_remote(r);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    r->c = c;
    forge_tool_set_function(t, (struct forge_callable){call_remote, r, t->name, false}, false, free_remote);
    return 0;
}

static int wanted(const cJSON *only, const char *name)
{
    if (!only)
        return 1;
    const cJSON *o;
    cJSON_ArrayForEach(o, only)
        if (cJSON_IsString(o) && !strcmp(o->valuestring, name))
            return 1;
    return 0;
}

int forge_mcp_tools_add(struct forge_mcp_client *c, const char *server, const char *prefix, const cJSON *only,
                        struct forge_toolset *ts, struct forge_err *err)
{
    cJSON *tools = NULL;
    int rc = forge_mcp_list_tools(c, &tools, err);
    if (rc)
        return rc;
    const cJSON *o, *t;
    cJSON_ArrayForEach(o, only) {
        int found = 0;
        cJSON_ArrayForEach(t, tools)
            found |= forge_json_str(t, "name") && !strcmp(forge_json_str(t, "name"), o->valuestring);
        if (!found) {
            rc = forge_err_set(err, FORGE_EINVAL, "mcp %s: no tool named '%s' (the server has %d)", server,
                               cJSON_IsString(o) ? o->valuestring : "?", cJSON_GetArraySize(tools));
            goto out;
        }
    }
    cJSON_ArrayForEach(t, tools) {
        const char *name = forge_json_str(t, "name");
        if (!name || !wanted(only, name))
            continue;
        char where[300];
        snprintf(where, sizeof where, "mcp %s: tool '%s'", server, name);
        cJSON *def = cJSON_CreateObject();
        char *full = forge_strdupf("%s%s", prefix ? prefix : "", name);
        const cJSON *v;
        int ok = def && full && cJSON_AddStringToObject(def, "name", full);
        if (ok && (v = cJSON_GetObjectItemCaseSensitive(t, "description")) && cJSON_IsString(v))
            ok = cJSON_AddItemToObject(def, "description", cJSON_Duplicate(v, 1));
        if (ok && (v = cJSON_GetObjectItemCaseSensitive(t, "inputSchema")))
            ok = cJSON_AddItemToObject(def, "parameters", cJSON_Duplicate(v, 1));
        if (ok && (v = cJSON_GetObjectItemCaseSensitive(t, "outputSchema")))
            ok = cJSON_AddItemToObject(def, "output_schema", cJSON_Duplicate(v, 1));
        forge_free(full);
        if (!ok) {
            cJSON_Delete(def);
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
            goto out;
        }
        struct forge_tool *ft = forge_tool_from_json(def, where, err);
        cJSON_Delete(def);
        if (!ft || (rc = forge_mcp_tool_bind(ft, c, server, name, err))) {
            forge_tool_free(ft);
            rc = err->code ? err->code : FORGE_ENOMEM;
            goto out;
        }
        /* the server checks its own arguments: forge only validates what the schema says */
        if ((rc = forge_toolset_add(ts, ft, err)))
            goto out;
    }
out:
    cJSON_Delete(tools);
    return rc;
}
