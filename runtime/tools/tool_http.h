/* The HTTP tool executor. A tool's `http` table:
 *   url              "http://host/path/{param}": {param} is replaced by the URL-encoded
 *                    argument, which is then not sent again in the query or body
 *   method           GET (default), POST, PUT, PATCH, DELETE
 *   args             "query" or "body" (default: body for POST/PUT/PATCH, query otherwise);
 *                    query values that are objects or arrays are sent as JSON text
 *   headers          {"Name": "value"} sent as given
 *   headers_from_env ["Header-Name=ENV_VAR", ...]: set when the variable is non-empty
 *   timeout_ms       per request (default: the tool's timeout, else 30000)
 *   redact           top-level keys of a JSON object response replaced by "[REDACTED]"
 *   max_bytes        response size cap (default 1 MiB)
 * A JSON response is the result; other text becomes {"result": text}. A non-2xx status, a
 * timeout, a connection failure or a response over the cap is the call's error result. */
#ifndef FORGE_TOOLS_TOOL_HTTP_H
#define FORGE_TOOLS_TOOL_HTTP_H
#include <cjson/cJSON.h>
#include "base/err.h"

struct forge_tool;
struct forge_tool_call;

/* Checks an `http` table at definition time (FORGE_EINVAL naming the key). */
int forge_tool_http_check(const cJSON *http, const char *tool, const char *where,
                          struct forge_err *err);

/* Executes the call; tool failures go to *error (see forge_tool_execute). */
int forge_tool_http_execute(const struct forge_tool *t, const struct forge_tool_call *call,
                            cJSON **result, char **error, struct forge_err *err);
/* Lets headers_from_env read the environment variable <name> (borrowed: it must live as long as
 * the process; --allow-env NAME). No variable is readable unless named, provider keys
 * included. Process-wide; call before tools run. FORGE_ELIMIT past 64 names. */
int forge_tool_http_allow_env(const char *name);
#endif
