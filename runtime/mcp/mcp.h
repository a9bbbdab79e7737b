/* The Model Context Protocol on JSON-RPC 2.0: the server side of `forge mcp serve` (transport
 * free: each message in, its reply out) and the protocol versions forge speaks. */
#ifndef FORGE_MCP_MCP_H
#define FORGE_MCP_MCP_H
#include <stdio.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "tools/tool.h"
#include "tools/verify.h"

/* The protocol versions forge speaks, newest first (NULL-terminated). */
extern const char *const forge_mcp_versions[];
/* True when <v> is one of them. */
int forge_mcp_version_known(const char *v);

/* JSON-RPC error codes. */
enum {
    FORGE_RPC_PARSE_ERROR = -32700,
    FORGE_RPC_INVALID_REQUEST = -32600,
    FORGE_RPC_METHOD_NOT_FOUND = -32601,
    FORGE_RPC_INVALID_PARAMS = -32602,
    FORGE_RPC_INTERNAL_ERROR = -32603,
};

/* A new error response {"jsonrpc": "2.0", "id": <id> (copied; null when NULL), "error": {code,
 * message}}; NULL when out of memory. */
cJSON *forge_rpc_error(const cJSON *id, int code, const char *message);

/* What a server serves. */
struct forge_mcp_server {
    const struct forge_toolset *tools;         /* borrowed */
    const struct forge_verifiers *verifiers;   /* borrowed; may be NULL */
    const char *instructions;                  /* may be NULL */
};

/* One client's session: the handshake's state. */
struct forge_mcp_session {
    int initialized;       /* initialize answered */
    char version[16];      /* the protocol version agreed */
    int log_level;         /* logging/setLevel: index in debug..emergency (0, everything, by default) */
};

/* Where the notifications a request causes go: a tool's progress (notifications/progress, when
 * the request's _meta carries a progressToken) and log messages (notifications/message at or
 * above the session's level), sent before the reply. At most FORGE_MCP_NOTES_MAX of them per
 * call; each message is cut to FORGE_MCP_NOTE_BYTES bytes. */
struct forge_mcp_sink {
    void (*send)(void *ctx, cJSON *note); /* takes <note> */
    void *ctx;
};
#define FORGE_MCP_NOTES_MAX 1000
#define FORGE_MCP_NOTE_BYTES 8192

/* Handles one message (a parsed JSON value, borrowed) of <sess>. Returns the reply, a new tree,
 * or NULL for a notification (and for a response the client sent, which forge never asks
 * for). Malformed messages get the JSON-RPC error the spec names: -32600 for a batch, a
 * missing "jsonrpc": "2.0", a bad id or method, or a request before initialize; -32601 for an
 * unknown method; -32602 for bad params or an unknown tool. A tool that fails, is blocked by a
 * verifier or gets arguments its schema refuses answers with isError. Notifications go to <sink>
 * (NULL: nowhere). */
cJSON *forge_mcp_handle(const struct forge_mcp_server *s, struct forge_mcp_session *sess, const cJSON *msg,
                        const struct forge_mcp_sink *sink);

/* The tools/list entry for <t>: name, description, inputSchema, outputSchema when declared,
 * and annotations mapped from agent-tool-forge's category and consequenceLevel. */
cJSON *forge_mcp_tool_entry(const struct forge_tool *t);

/* Serves <s> over stdio: one JSON-RPC message per line on <in>, one reply per line on <out>,
 * until <in> ends. Lines longer than <max_line> bytes get a -32600 error and are skipped.
 * Returns 0, or FORGE_EIO when <out> cannot be written. */
int forge_mcp_serve_stdio(const struct forge_mcp_server *s, FILE *in, FILE *out, size_t max_line);

/* The Streamable HTTP side: a request handler for server/server.h serving <s> at /mcp, with
 * sessions (Mcp-Session-Id), the MCP-Protocol-Version check, Origin checks against DNS
 * rebinding, and the bearer token <token> when not NULL. */
struct forge_mcp_http;
struct forge_mcp_http *forge_mcp_http_new(const struct forge_mcp_server *s, const char *token, long max_sessions);
void forge_mcp_http_free(struct forge_mcp_http *h);
struct forge_server_request;
struct forge_server_response;
void forge_mcp_http_handle(void *ctx, const struct forge_server_request *req, struct forge_server_response *resp);
#endif
