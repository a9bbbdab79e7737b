/* The MCP server: JSON-RPC 2.0 messages in, replies out; tools/call runs forge tools with their
 * argument schema, executor and verifiers. */
#include "mcp/mcp.h"
#include "base/alloc.h"
#include "data/coerce.h"
#include "data/json.h"
#include "data/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const forge_mcp_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL};

#define PAGE 100

int forge_mcp_version_known(const char *v)
{
    for (const char *const *p = forge_mcp_versions; v && *p; p++)
        if (!strcmp(*p, v))
            return 1;
    return 0;
}

cJSON *forge_rpc_error(const cJSON *id, int code, const char *message)
{
    cJSON *o = cJSON_CreateObject(), *e;
    if (!o || !cJSON_AddStringToObject(o, "jsonrpc", "2.0") ||
        !cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull()) ||
        !(e = cJSON_AddObjectToObject(o, "error")) || !cJSON_AddNumberToObject(e, "code", code) ||
        !cJSON_AddStringToObject(e, "message", message)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *result(const cJSON *id, cJSON *res)
{
    if (!res)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "jsonrpc", "2.0") || !cJSON_AddItemToObject(o, "id", cJSON_Duplicate(id, 1)) ||
        !cJSON_AddItemToObject(o, "result", res)) {
        if (!cJSON_GetObjectItemCaseSensitive(o, "result"))
            cJSON_Delete(res);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* agent-tool-forge's mapping of its tool fields to MCP annotations. */
static cJSON *annotations(const struct forge_tool *t)
{
    const char *cat = forge_json_str(t->def, "category"), *level = forge_json_str(t->def, "consequenceLevel");
    int confirm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t->def, "requiresConfirmation"));
    if (!cat && !level && !confirm && t->kind != FORGE_TOOL_HTTP)
        return NULL;
    cJSON *a = cJSON_CreateObject();
    if (!a)
        return NULL;
    int read = cat && (!strcmp(cat, "read") || !strcmp(cat, "analysis"));
    if (cat)
        cJSON_AddBoolToObject(a, "readOnlyHint", read);
    if (cat && !read)
        cJSON_AddBoolToObject(a, "destructiveHint",
                              confirm || (level && !strcmp(level, "high") && !strcmp(cat, "write")) || !strcmp(cat, "delete"));
    else if (confirm)
        cJSON_AddTrueToObject(a, "destructiveHint");
    if (cat)
        cJSON_AddBoolToObject(a, "idempotentHint", read);
    if (t->kind == FORGE_TOOL_HTTP)
        cJSON_AddTrueToObject(a, "openWorldHint"); /* it calls an outside API */
    return a;
}

cJSON *forge_mcp_tool_entry(const struct forge_tool *t)
{
    cJSON *e = cJSON_CreateObject(), *a;
    const char *d = forge_json_str(t->def, "description");
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(t->def, "parameters");
    const cJSON *os = cJSON_GetObjectItemCaseSensitive(t->def, "output_schema");
    if (!e || !cJSON_AddStringToObject(e, "name", t->name) || (d && !cJSON_AddStringToObject(e, "description", d)) ||
        !cJSON_AddItemToObject(e, "inputSchema", ps ? cJSON_Duplicate(ps, 1)
                                                   : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}")) ||
        (cJSON_IsObject(os) && !cJSON_AddItemToObject(e, "outputSchema", cJSON_Duplicate(os, 1)))) {
        cJSON_Delete(e);
        return NULL;
    }
    if ((a = annotations(t)))
        cJSON_AddItemToObject(e, "annotations", a);
    return e;
}

static cJSON *list_tools(const struct forge_mcp_server *s, const cJSON *id, const cJSON *params)
{
    const cJSON *cur = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    long start = 0;
    if (cur && !cJSON_IsNull(cur)) {
        char *end = NULL;
        start = cJSON_IsString(cur) ? strtol(cur->valuestring, &end, 10) : -1;
        if (start < 0 || !end || *end || start > s->tools->n)
            return forge_rpc_error(id, FORGE_RPC_INVALID_PARAMS, "Invalid params: unknown cursor");
    }
    cJSON *res = cJSON_CreateObject(), *arr = res ? cJSON_AddArrayToObject(res, "tools") : NULL;
    int i = (int)start;
    for (; arr && i < s->tools->n && i < start + PAGE; i++) {
        cJSON *e = forge_mcp_tool_entry(s->tools->v[i]);
        if (!e || !cJSON_AddItemToArray(arr, e)) {
            cJSON_Delete(e);
            arr = NULL;
        }
    }
    if (arr && i < s->tools->n) {
        char next[24];
        snprintf(next, sizeof next, "%d", i);
        cJSON_AddStringToObject(res, "nextCursor", next);
    }
    if (!arr) {
        cJSON_Delete(res);
        return forge_rpc_error(id, FORGE_RPC_INTERNAL_ERROR, "out of memory");
    }
    return result(id, res);
}

/* True when <v> is already a CallToolResult: {"content": [{"type": ...}, ...], ...}, as a tool
 * that wants to send images, audio or resources returns, and as an MCP tool's result is. */
static int is_call_result(const cJSON *v)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "content"), *b;
    if (!cJSON_IsObject(v) || !cJSON_IsArray(c) || !c->child)
        return 0;
    cJSON_ArrayForEach(b, c)
        if (!forge_json_str(b, "type"))
            return 0;
    for (const cJSON *k = v->child; k; k = k->next)
        if (strcmp(k->string, "content") && strcmp(k->string, "structuredContent") && strcmp(k->string, "isError") &&
            strcmp(k->string, "_meta"))
            return 0;
    return 1;
}

/* The content of a tool result: the text of <text> and, for an object, structuredContent. */
static cJSON *call_result(const cJSON *value, const char *error, const cJSON *verdict)
{
    const char *vo = forge_json_str(verdict, "outcome");
    if (!error && is_call_result(value) && !(vo && !strcmp(vo, "warn"))) {
        cJSON *r = cJSON_Duplicate(value, 1);
        if (r && !cJSON_HasObjectItem(r, "isError"))
            cJSON_AddFalseToObject(r, "isError");
        return r;
    }
    cJSON *r = cJSON_CreateObject(), *content = r ? cJSON_AddArrayToObject(r, "content") : NULL, *b;
    char *text = NULL;
    if (!content)
        goto fail;
    if (error) {
        text = forge_strdupf("Error: %s", error);
    } else if (cJSON_IsString(value)) {
        text = forge_strdup(value->valuestring);
    } else {
        text = forge_json_print(value, cJSON_IsObject(value) || cJSON_IsArray(value) ? FORGE_JSON_PRETTY : 0);
    }
    if (!text || !(b = cJSON_CreateObject()) || !cJSON_AddItemToArray(content, b) || !cJSON_AddStringToObject(b, "type", "text") ||
        !cJSON_AddStringToObject(b, "text", text))
        goto fail;
    const char *outcome = forge_json_str(verdict, "outcome");
    if (!error && outcome && !strcmp(outcome, "warn")) {
        /* a warning travels beside the result, as agent-tool-forge's server sends it */
        const char *vn = forge_json_str(verdict, "verifier"), *vm = forge_json_str(verdict, "message");
        forge_free(text);
        text = forge_strdupf("Warning from verifier %s: %s", vn ? vn : "?", vm ? vm : "(no message)");
        if (!text || !(b = cJSON_CreateObject()) || !cJSON_AddItemToArray(content, b) ||
            !cJSON_AddStringToObject(b, "type", "text") || !cJSON_AddStringToObject(b, "text", text))
            goto fail;
    }
    if (!error && cJSON_IsObject(value) && !cJSON_AddItemToObject(r, "structuredContent", cJSON_Duplicate(value, 1)))
        goto fail;
    if (!cJSON_AddBoolToObject(r, "isError", error != NULL))
        goto fail;
    forge_free(text);
    return r;
fail:
    forge_free(text);
    cJSON_Delete(r);
    return NULL;
}

/* Validates (and coerces) the arguments against the tool's schema; a message when they fail. */
static char *check_args(const struct forge_tool *t, cJSON *args, struct forge_err *err)
{
    if (!t->schema)
        return NULL;
    if (t->coerce) {
        cJSON *coercions = NULL;
        int n = forge_coerce_args(args, cJSON_GetObjectItemCaseSensitive(t->def, "parameters"), &coercions, err);
        cJSON_Delete(coercions);
        if (n < 0)
            return forge_strdupf("coercing the arguments failed: %s", err->msg);
    }
    cJSON *verrs = NULL;
    int ok = forge_schema_validate(t->schema, args, &verrs);
    char *msg = NULL;
    if (ok < 0) {
        msg = forge_strdupf("validating the arguments failed: %s",
                            ok == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(ok));
    } else if (ok == 0) {
        const cJSON *e = verrs ? verrs->child : NULL;
        const char *loc = e ? forge_json_str(e, "instanceLocation") : "";
        msg = forge_strdupf("invalid arguments for tool '%s': %s%s%s", t->name,
                            e ? forge_json_str(e, "error") : "not valid against the schema", loc && *loc ? " at " : "",
                            loc && *loc ? loc : "");
    }
    cJSON_Delete(verrs);
    return msg;
}

static const char *const levels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
                                     NULL};

/* What a tool call's notifier needs: the sink, the client's progress token and logging level. */
struct notes {
    const struct forge_mcp_sink *sink;
    const cJSON *token; /* _meta.progressToken, borrowed; NULL: no progress asked for */
    const char *logger;
    int level, sent;
};

static int note_room(struct notes *n)
{
    return n->sink && n->sink->send && n->sent < FORGE_MCP_NOTES_MAX;
}

static void note_send(struct notes *n, const char *method, cJSON *params)
{
    cJSON *note = cJSON_CreateObject();
    if (!note || !cJSON_AddStringToObject(note, "jsonrpc", "2.0") || !cJSON_AddStringToObject(note, "method", method) ||
        !cJSON_AddItemToObject(note, "params", params)) {
        cJSON_Delete(note);
        cJSON_Delete(params);
        return;
    }
    n->sent++;
    n->sink->send(n->sink->ctx, note);
}

static cJSON *note_text(const char *text, size_t len)
{
    char buf[FORGE_MCP_NOTE_BYTES + 1];
    size_t n = strnlen(text, len < FORGE_MCP_NOTE_BYTES ? len : FORGE_MCP_NOTE_BYTES);
    /* a cut never splits a UTF-8 sequence */
    if (n < len)
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return cJSON_CreateString(buf);
}

static void on_progress(void *ctx, double progress, double total, const char *message)
{
    struct notes *n = ctx;
    if (!n->token || !note_room(n))
        return;
    cJSON *p = cJSON_CreateObject();
    if (!p || !cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(n->token, 0)) ||
        !cJSON_AddNumberToObject(p, "progress", progress) || (!isnan(total) && !cJSON_AddNumberToObject(p, "total", total)) ||
        (message && !cJSON_AddItemToObject(p, "message", note_text(message, strlen(message))))) {
        cJSON_Delete(p);
        return;
    }
    note_send(n, "notifications/progress", p);
}

static void on_log(void *ctx, const char *level, const char *text, size_t len)
{
    struct notes *n = ctx;
    int l = 0;
    while (levels[l] && strcmp(levels[l], level))
        l++;
    if (!levels[l] || l < n->level || !note_room(n))
        return;
    cJSON *p = cJSON_CreateObject();
    if (!p || !cJSON_AddStringToObject(p, "level", level) || !cJSON_AddStringToObject(p, "logger", n->logger) ||
        !cJSON_AddItemToObject(p, "data", note_text(text, len))) {
        cJSON_Delete(p);
        return;
    }
    note_send(n, "notifications/message", p);
}

static cJSON *call_tool(const struct forge_mcp_server *s, const struct forge_mcp_session *sess, const cJSON *id,
                        const cJSON *params, const struct forge_mcp_sink *sink)
{
    const char *name = forge_json_str(params, "name");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (!name)
        return forge_rpc_error(id, FORGE_RPC_INVALID_PARAMS, "Invalid params: name must be a string");
    if (a && !cJSON_IsObject(a) && !cJSON_IsNull(a))
        return forge_rpc_error(id, FORGE_RPC_INVALID_PARAMS, "Invalid params: arguments must be an object");
    const struct forge_tool *t = forge_toolset_find(s->tools, name);
    if (!t) {
        char msg[300];
        snprintf(msg, sizeof msg, "Invalid params: unknown tool '%.200s'", name);
        return forge_rpc_error(id, FORGE_RPC_INVALID_PARAMS, msg);
    }
    struct forge_err err = {0};
    cJSON *args = cJSON_IsObject(a) ? cJSON_Duplicate(a, 1) : cJSON_CreateObject(), *value = NULL, *verdict = NULL;
    char *error = args ? check_args(t, args, &err) : NULL;
    cJSON *reply = NULL;
    if (!args)
        goto oom;
    if (!error) {
        char idtext[64] = "mcp";
        if (cJSON_IsString(id))
            snprintf(idtext, sizeof idtext, "%.60s", id->valuestring);
        else if (cJSON_IsNumber(id))
            snprintf(idtext, sizeof idtext, "%.0f", id->valuedouble);
        struct forge_tool_call call = {.id = idtext, .index = 1, .round = 1, .arguments = args, .messages = NULL};
        const cJSON *tok = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                                                            "progressToken");
        struct notes notes = {sink, cJSON_IsString(tok) || cJSON_IsNumber(tok) ? tok : NULL, t->name, sess->log_level, 0};
        struct forge_tool_notifier nt = {on_progress, on_log, &notes};
        forge_tool_notifier_set(&nt);
        int rc = forge_tool_execute(t, &call, &value, &error, &err);
        forge_tool_notifier_set(NULL);
        if (rc)
            goto oom;
    }
    if (!error && s->verifiers) {
        cJSON *rec = cJSON_CreateObject();
        if (!rec || !cJSON_AddStringToObject(rec, "name", name) || !cJSON_AddItemReferenceToObject(rec, "arguments", args) ||
            !(value ? cJSON_AddItemReferenceToObject(rec, "result", value) : cJSON_AddNullToObject(rec, "result") != NULL)) {
            cJSON_Delete(rec);
            goto oom;
        }
        int vrc = forge_verifiers_run(s->verifiers, t, rec, &verdict);
        cJSON_Delete(rec);
        if (vrc)
            goto oom;
        const char *o = forge_json_str(verdict, "outcome");
        if (o && !strcmp(o, "block")) {
            const char *vn = forge_json_str(verdict, "verifier"), *vm = forge_json_str(verdict, "message");
            error = forge_strdupf("result blocked by verifier %s%s%s", vn ? vn : "?", vm ? ": " : "", vm ? vm : "");
        }
    }
    reply = result(id, call_result(value, error, verdict));
    if (!reply)
        goto oom;
    goto out;
oom:
    reply = forge_rpc_error(id, FORGE_RPC_INTERNAL_ERROR, "out of memory");
out:
    cJSON_Delete(args);
    cJSON_Delete(value);
    cJSON_Delete(verdict);
    forge_free(error);
    return reply;
}

static cJSON *initialize(const struct forge_mcp_server *s, struct forge_mcp_session *sess, const cJSON *id,
                         const cJSON *params)
{
    const char *want = forge_json_str(params, "protocolVersion");
    if (!cJSON_IsObject(params) || !want)
        return forge_rpc_error(id, FORGE_RPC_INVALID_PARAMS, "Invalid params: protocolVersion must be a string");
    /* the client's version when forge speaks it, else forge's newest: the client decides */
    const char *v = forge_mcp_version_known(want) ? want : forge_mcp_versions[0];
    snprintf(sess->version, sizeof sess->version, "%s", v);
    sess->initialized = 1;
    cJSON *r = cJSON_CreateObject(), *caps, *tools, *info;
    if (!r || !cJSON_AddStringToObject(r, "protocolVersion", v) || !(caps = cJSON_AddObjectToObject(r, "capabilities")) ||
        !(tools = cJSON_AddObjectToObject(caps, "tools")) || !cJSON_AddFalseToObject(tools, "listChanged") ||
        !cJSON_AddObjectToObject(caps, "logging") ||
        !(info = cJSON_AddObjectToObject(r, "serverInfo")) || !cJSON_AddStringToObject(info, "name", "forge") ||
        !cJSON_AddStringToObject(info, "version", FORGE_VERSION) ||
        (s->instructions && !cJSON_AddStringToObject(r, "instructions", s->instructions))) {
        cJSON_Delete(r);
        return forge_rpc_error(id, FORGE_RPC_INTERNAL_ERROR, "out of memory");
    }
    return result(id, r);
}

static int valid_id(const cJSON *id)
{
    /* a string, or a whole number (JSON-RPC allows fractions; MCP ids are integers) */
    return cJSON_IsString(id) || (cJSON_IsNumber(id) && isfinite(id->valuedouble) &&
                                  id->valuedouble == floor(id->valuedouble));
}

cJSON *forge_mcp_handle(const struct forge_mcp_server *s, struct forge_mcp_session *sess, const cJSON *msg,
                        const struct forge_mcp_sink *sink)
{
    if (cJSON_IsArray(msg))
        return forge_rpc_error(NULL, FORGE_RPC_INVALID_REQUEST,
                               "Invalid Request: JSON-RPC batches are not part of MCP since 2025-06-18");
    if (!cJSON_IsObject(msg))
        return forge_rpc_error(NULL, FORGE_RPC_INVALID_REQUEST, "Invalid Request: a message is a JSON object");
    const char *jv = forge_json_str(msg, "jsonrpc"), *method = forge_json_str(msg, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id"), *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (!jv || strcmp(jv, "2.0"))
        return forge_rpc_error(valid_id(id) ? id : NULL, FORGE_RPC_INVALID_REQUEST,
                               "Invalid Request: \"jsonrpc\" must be \"2.0\"");
    if (!method) {
        /* a response from the client: forge sends no requests, so there is nothing to match */
        if (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"))
            return NULL;
        return forge_rpc_error(valid_id(id) ? id : NULL, FORGE_RPC_INVALID_REQUEST,
                               "Invalid Request: \"method\" must be a string");
    }
    if (params && !cJSON_IsObject(params))
        return id ? forge_rpc_error(valid_id(id) ? id : NULL, FORGE_RPC_INVALID_PARAMS,
                                    "Invalid params: params must be an object")
                  : NULL;
    if (!id) {
        /* notifications: nothing is answered */
        return NULL;
    }
    if (!valid_id(id))
        return forge_rpc_error(NULL, FORGE_RPC_INVALID_REQUEST, "Invalid Request: the id must be a string or an integer");
    if (!strcmp(method, "initialize"))
        return initialize(s, sess, id, params);
    if (!strcmp(method, "ping"))
        return result(id, cJSON_CreateObject());
    if (!sess->initialized)
        return forge_rpc_error(id, FORGE_RPC_INVALID_REQUEST, "Invalid Request: the session is not initialized "
                                                              "(send initialize first)");
    if (!strcmp(method, "tools/list"))
        return list_tools(s, id, params);
    if (!strcmp(method, "tools/call"))
        return call_tool(s, sess, id, params, sink);
    if (!strcmp(method, "logging/setLevel")) {
        /* the tools' forge.log messages at this level and above go to the client */
        const char *lv = forge_json_str(params, "level");
        for (int l = 0; lv && levels[l]; l++)
            if (!strcmp(levels[l], lv)) {
                sess->log_level = l;
                return result(id, cJSON_CreateObject());
            }
        return forge_rpc_error(id, FORGE_RPC_INVALID_PARAMS, "Invalid params: level must be one of debug, info, notice, "
                                                            "warning, error, critical, alert, emergency");
    }
    char msgtext[300];
    snprintf(msgtext, sizeof msgtext, "Method not found: %.200s", method);
    return forge_rpc_error(id, FORGE_RPC_METHOD_NOT_FOUND, msgtext);
}
