/* The MCP client: a server over stdio (a child process, line-delimited JSON) or Streamable HTTP
 * (POST, JSON or SSE answers, Mcp-Session-Id), the initialize handshake with version
 * negotiation, tools/list with pagination and tools/call with a timeout per call. */
#ifndef FORGE_MCP_CLIENT_H
#define FORGE_MCP_CLIENT_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_mcp_client_opts {
    const char *name;             /* the server's name, for messages */
    const char *url;              /* Streamable HTTP endpoint; or */
    char *const *argv;            /* a command to spawn (argv[0] searched in PATH), NULL-terminated */
    const char *token_env;        /* HTTP: send "Authorization: Bearer $VAR" */
    long timeout_ms;              /* per request (default 30000) */
    size_t max_message;           /* the largest message read (default 16 MiB) */
};

struct forge_mcp_client;

/* Connects and completes the handshake: initialize (offering forge's newest protocol version;
 * the server's answer must be one forge speaks), then notifications/initialized. FORGE_ENET
 * names the server and what went wrong (with the child's stderr for stdio). */
int forge_mcp_connect(const struct forge_mcp_client_opts *o, struct forge_mcp_client **out, struct forge_err *err);
/* The initialize result (borrowed). */
const cJSON *forge_mcp_server_info(const struct forge_mcp_client *c);
/* Every tool of the server (all pages of tools/list), a new array. */
int forge_mcp_list_tools(struct forge_mcp_client *c, cJSON **tools, struct forge_err *err);
/* Calls <tool> with <args> (an object, borrowed); *result is the CallToolResult (new tree):
 * content, structuredContent, isError. A JSON-RPC error is FORGE_ENET with its code and message. */
int forge_mcp_call(struct forge_mcp_client *c, const char *tool, const cJSON *args, cJSON **result,
                   struct forge_err *err);
/* Sends one request and returns its result (a new tree); for ping and debugging. */
int forge_mcp_request(struct forge_mcp_client *c, const char *method, const cJSON *params, cJSON **result,
                      struct forge_err *err);
/* Ends the session (HTTP DELETE; stdin closed, then SIGTERM and SIGKILL for a child that
 * lingers) and frees the client. NULL is a no-op. */
void forge_mcp_close(struct forge_mcp_client *c);

struct forge_toolset;
/* Adds the tools of the connected server <c> (borrowed: it must outlive the tools' calls) to
 * <ts> as forge tools: named <prefix> + their name (prefix may be NULL), only those listed in
 * the array <only> when given, with their inputSchema as parameters and outputSchema as
 * output_schema. A call goes to the server; its result is the CallToolResult as the server sent
 * it, and an isError result is the tool's error (its text). <server> names the server in
 * messages. Returns 0, FORGE_ENET when the server fails, FORGE_EINVAL for a name in <only> the
 * server lacks or a tool name that clashes. */
int forge_mcp_tools_add(struct forge_mcp_client *c, const char *server, const char *prefix, const cJSON *only,
                        struct forge_toolset *ts, struct forge_err *err);

struct forge_tool;
/* Makes <t> a call to <remote> on the server <c> (borrowed), named <server> in messages; the
 * tool's definition gains "mcp_server". 0 or FORGE_ENOMEM. */
int forge_mcp_tool_bind(struct forge_tool *t, struct forge_mcp_client *c, const char *server, const char *remote,
                        struct forge_err *err);
#endif
