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
#endif
