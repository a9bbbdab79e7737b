/* forge mcp serve|list|call: forge tools as an MCP server, and a client for debugging. */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/schema.h"
#include "lua/l_suite.h"
#include "report/report.h"
#include "mcp/client.h"
#include "mcp/mcp.h"
#include "server/server.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

const char forge_usage_mcp[] =
    "usage: forge mcp serve TOOLS.lua|TOOLS.json [--listen HOST:PORT] [--token-env VAR] [--require-auth]\n"
    "       forge mcp list SERVER [--json]\n"
    "       forge mcp call TOOL [ARGUMENTS.json|'{...}'] SERVER\n"
    "       forge mcp check SERVER [--calls CALLS.json] [--format table|json|junit]\n"
    "\n"
    "serve: forge's tools (Lua run functions, mocks, templates, canned responses, HTTP) as an MCP\n"
    "server, over stdio, or Streamable HTTP at /mcp with --listen. Calls validate their arguments\n"
    "against the tool's schema, run in the sandbox and its limits, and pass the verifiers the\n"
    "tools file defines (a block is an error result; a warning an extra text block).\n"
    "list and call talk to any MCP server (for debugging): SERVER is an http(s):// URL, or '--'\n"
    "followed by the command that starts it (stdio).\n"
    "check is a conformance and quality check of any MCP server: the handshake and capabilities;\n"
    "every tool's name (valid, unique, and portable to the providers' limits), description,\n"
    "inputSchema and outputSchema (they compile under forge's JSON Schema) and annotations\n"
    "(consistent); with --calls, smoke calls ([{\"tool\", \"arguments\", \"expect_error\"}]) whose\n"
    "results must not be errors and whose structuredContent must match the tool's outputSchema.\n"
    "\n"
    "serve options:\n"
    "  --listen HOST:PORT   serve Streamable HTTP instead of stdio (port 0 picks one)\n"
    "  --port-file FILE     write the port listened on\n"
    "  --token-env VAR      HTTP: clients must send Authorization: Bearer $VAR (401 otherwise)\n"
    "  --require-auth       HTTP: with no token set, refuse everyone (401) rather than fail to start\n"
    "  --max-message-mb N   the largest message (default 16)\n"
    "client options:\n"
    "  --token-env VAR      send Authorization: Bearer $VAR to an HTTP server\n"
    "  --timeout-ms N       time limit of one request (default 30000)\n"
    "  --repeat N           call: make the call N times in one session and print a timing summary\n"
    "                       on stderr (calls, wall_ms, calls_per_s, cpu_ms_per_call)\n"
    "  --json               list: print the tools as JSON\n"
    "  --calls FILE         check: smoke calls to make\n"
    "  --format F           check: table (default), json or junit\n"
    "\n"
    "Exit codes: 0 ok, 1 a call returned isError or a check failed, 2 bad usage, 3 the server failed\n"
    "or did not answer.\n";

static int serve(int argc, char **argv)
{
    const char *tools_path = NULL, *listen = NULL, *token_env = NULL, *port_file = NULL;
    int require_auth = 0;
    long mb = 16;
    struct forge_vm_opts vo;
    forge_vm_opts_init(&vo);
    int code = FORGE_EXIT_USAGE;
    struct forge_vm *vm = NULL;
    struct forge_toolset tools = {0};
    struct forge_verifiers verifiers = {0};
    struct forge_err err = {0};
    char *dir = NULL;
    struct forge_mcp_http *mh = NULL;
    struct forge_server *http = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = !strcmp(a, "--listen") ? &listen : !strcmp(a, "--token-env") ? &token_env
                          : !strcmp(a, "--port-file") ? &port_file : NULL;
        if (slot || !strcmp(a, "--max-message-mb")) {
            if (i + 1 >= argc) {
                forge_cli_error("mcp serve: %s needs a value", a);
                goto out;
            }
            if (slot) {
                *slot = argv[++i];
            } else {
                char *end;
                mb = strtol(argv[++i], &end, 10);
                if (*end || mb < 1 || mb > 4096) {
                    forge_cli_error("mcp serve: --max-message-mb: expected 1 to 4096, got '%s'", argv[i]);
                    goto out;
                }
            }
        } else if (!strcmp(a, "--require-auth")) {
            require_auth = 1;
        } else if (a[0] != '-' && !tools_path) {
            tools_path = a;
        } else {
            int r = forge_luaopts_parse(argc, argv, &i, &vo);
            if (r < 0)
                goto out;
            if (r == 0) {
                forge_cli_error("mcp serve: unknown option '%s' (see forge help mcp)", a);
                goto out;
            }
        }
    }
    if (!tools_path) {
        forge_cli_error("mcp serve: give the tools to serve: forge mcp serve TOOLS.lua|TOOLS.json");
        goto out;
    }
    const char *token = token_env ? getenv(token_env) : NULL;
    if (token_env && (!token || !*token)) {
        if (!require_auth) {
            forge_cli_error("mcp serve: --token-env %s: the variable is not set or empty (with --require-auth every "
                            "request is refused instead)", token_env);
            goto out;
        }
        token = NULL;
    }
    if (require_auth && !token && listen)
        fprintf(stderr, "forge mcp serve: no token set: every request will be refused (--require-auth)\n");
    size_t len = strlen(tools_path);
    int is_lua = len > 4 && !strcmp(tools_path + len - 4, ".lua");
    dir = forge_path_dir(tools_path);
    vo.script_dir = dir;
    if (!dir || !(vm = forge_vm_new(&vo, &err))) {
        forge_cli_error("mcp serve: %s", dir ? err.msg : "out of memory");
        goto out;
    }
    if ((is_lua ? forge_lua_tools_load(vm, tools_path, &tools, &err) : forge_toolset_load_file(&tools, tools_path, &err)) ||
        (is_lua && forge_lua_registered_verifiers(vm, tools_path, &verifiers, &err))) {
        forge_cli_error("%s", err.msg);
        code = forge_cli_exit_code(err.code);
        goto out;
    }
    struct forge_mcp_server srv = {.tools = &tools, .verifiers = &verifiers};
    if (!listen) {
        code = forge_mcp_serve_stdio(&srv, stdin, stdout, (size_t)mb << 20) ? FORGE_EXIT_INFRA : FORGE_EXIT_OK;
        goto out;
    }
    /* a refusal for everyone: a token no client can send */
    if (!(mh = forge_mcp_http_new(&srv, token ? token : (require_auth ? "\x01" : NULL), 0))) {
        forge_cli_error("out of memory");
        goto out;
    }
    struct forge_server_opts so;
    forge_server_opts_init(&so);
    so.listen = listen;
    so.max_body = (size_t)mb << 20;
    if ((code = forge_cli_listen("mcp serve", &so, forge_mcp_http_handle, mh, port_file, &http)) != 0)
        goto out;
    fprintf(stderr, "forge mcp serve: %d tool%s at http://%s/mcp (port %d)\n", tools.n, tools.n == 1 ? "" : "s", listen,
            forge_server_port(http));
    forge_cli_wait_signal();
    code = FORGE_EXIT_OK;
out:
    forge_server_stop(http);
    forge_mcp_http_free(mh);
    forge_toolset_free(&tools);
    forge_verifiers_free(&verifiers);
    forge_vm_free(vm);
    forge_free(dir);
    forge_luaopts_free(&vo);
    return code;
}

/* Client options and the SERVER (a URL, or "--" and a command) of list and call. */
struct client_args {
    struct forge_mcp_client_opts o;
    const char *pos[4];
    int npos, json;
    const char *calls, *format;
    long repeat;
};

static int client_args(int argc, char **argv, struct client_args *c, const char *cmd)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            if (i + 1 >= argc) {
                forge_cli_error("mcp %s: '--' must be followed by the server's command", cmd);
                return -1;
            }
            c->o.argv = argv + i + 1;
            break;
        }
        if (!strcmp(a, "--json")) {
            c->json = 1;
        } else if (!strcmp(a, "--repeat")) {
            char *end;
            c->repeat = i + 1 < argc ? strtol(argv[++i], &end, 10) : 0;
            if (c->repeat < 1 || *end) {
                forge_cli_error("mcp %s: --repeat: expected a positive whole number", cmd);
                return -1;
            }
        } else if (!strcmp(a, "--calls") || !strcmp(a, "--format")) {
            if (i + 1 >= argc) {
                forge_cli_error("mcp %s: %s needs a value", cmd, a);
                return -1;
            }
            *(!strcmp(a, "--calls") ? &c->calls : &c->format) = argv[++i];
        } else if (!strcmp(a, "--token-env") || !strcmp(a, "--timeout-ms")) {
            if (i + 1 >= argc) {
                forge_cli_error("mcp %s: %s needs a value", cmd, a);
                return -1;
            }
            if (!strcmp(a, "--token-env")) {
                c->o.token_env = argv[++i];
            } else {
                char *end;
                c->o.timeout_ms = strtol(argv[++i], &end, 10);
                if (*end || c->o.timeout_ms < 1) {
                    forge_cli_error("mcp %s: --timeout-ms: expected a positive whole number", cmd);
                    return -1;
                }
            }
        } else if (a[0] == '-' && a[1]) {
            forge_cli_error("mcp %s: unknown option '%s' (see forge help mcp)", cmd, a);
            return -1;
        } else if (!strncmp(a, "http://", 7) || !strncmp(a, "https://", 8)) {
            c->o.url = a;
        } else if (c->npos < 4) {
            c->pos[c->npos++] = a;
        }
    }
    if (!c->o.url && !c->o.argv) {
        forge_cli_error("mcp %s: no server: give its URL, or '--' and the command that starts it", cmd);
        return -1;
    }
    return 0;
}

static int list(int argc, char **argv)
{
    struct client_args ca;
    if (client_args(argc, argv, &ca, "list"))
        return FORGE_EXIT_USAGE;
    struct forge_err err = {0};
    struct forge_mcp_client *c = NULL;
    cJSON *tools = NULL;
    if (forge_mcp_connect(&ca.o, &c, &err) || forge_mcp_list_tools(c, &tools, &err)) {
        forge_cli_error("%s", err.msg);
        forge_mcp_close(c);
        return forge_cli_exit_code(err.code);
    }
    if (ca.json) {
        char *t = forge_json_print(tools, FORGE_JSON_PRETTY);
        printf("%s\n", t ? t : "[]");
        forge_free(t);
    } else {
        const cJSON *info = cJSON_GetObjectItemCaseSensitive(forge_mcp_server_info(c), "serverInfo"), *t;
        printf("%s %s, protocol %s, %d tool%s\n", forge_json_str(info, "name") ? forge_json_str(info, "name") : "?",
               forge_json_str(info, "version") ? forge_json_str(info, "version") : "",
               forge_json_str(forge_mcp_server_info(c), "protocolVersion"), cJSON_GetArraySize(tools),
               cJSON_GetArraySize(tools) == 1 ? "" : "s");
        cJSON_ArrayForEach(t, tools)
            printf("  %-28s %s\n", forge_json_str(t, "name") ? forge_json_str(t, "name") : "?",
                   forge_json_str(t, "description") ? forge_json_str(t, "description") : "");
    }
    cJSON_Delete(tools);
    forge_mcp_close(c);
    return FORGE_EXIT_OK;
}

static int call(int argc, char **argv)
{
    struct client_args ca;
    if (client_args(argc, argv, &ca, "call"))
        return FORGE_EXIT_USAGE;
    if (ca.npos < 1) {
        forge_cli_error("mcp call: name the tool: forge mcp call TOOL [ARGUMENTS] SERVER");
        return FORGE_EXIT_USAGE;
    }
    struct forge_err err = {0};
    cJSON *args = NULL;
    if (ca.npos >= 2) {
        const char *a = ca.pos[1];
        args = a[0] == '{' ? forge_json_parse(a, strlen(a), "arguments", &err) : forge_json_load(a, &err);
        if (!args || !cJSON_IsObject(args)) {
            forge_cli_error("mcp call: %s", args ? "the arguments must be a JSON object" : err.msg);
            cJSON_Delete(args);
            return FORGE_EXIT_USAGE;
        }
    }
    struct forge_mcp_client *c = NULL;
    cJSON *res = NULL;
    int rc = forge_mcp_connect(&ca.o, &c, &err);
    /* --repeat N: N calls in one session, timed, for benchmarks */
    long n = ca.repeat > 0 ? ca.repeat : 1;
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double t0 = forge_clock_ms();
    for (long i = 0; !rc && i < n; i++) {
        cJSON_Delete(res);
        res = NULL;
        rc = forge_mcp_call(c, ca.pos[0], args, &res, &err);
    }
    double wall = forge_clock_ms() - t0;
    getrusage(RUSAGE_SELF, &r1);
    if (rc) {
        forge_cli_error("%s", err.msg);
        forge_mcp_close(c);
        cJSON_Delete(args);
        return forge_cli_exit_code(err.code);
    }
    if (ca.repeat > 0) {
        double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e3 +
                     (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e3;
        fprintf(stderr, "{\"calls\": %ld, \"wall_ms\": %.1f, \"calls_per_s\": %.0f, \"cpu_ms_per_call\": %.4f}\n", n, wall,
                wall > 0 ? (double)n * 1000 / wall : 0, cpu / (double)n);
    }
    char *t = forge_json_print(res, FORGE_JSON_PRETTY);
    printf("%s\n", t ? t : "{}");
    forge_free(t);
    int code = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError")) ? FORGE_EXIT_FAIL : FORGE_EXIT_OK;
    cJSON_Delete(res);
    cJSON_Delete(args);
    forge_mcp_close(c);
    return code;
}

/* ---- forge mcp check ---- */

struct checks {
    cJSON *list; /* [{"check", "status": "pass"|"fail"|"warn", "detail"}] */
    int failed, warned;
};

static void record(struct checks *k, const char *status, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void record(struct checks *k, const char *status, const char *name, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddStringToObject(o, "check", name);
    cJSON_AddStringToObject(o, "status", status);
    cJSON_AddStringToObject(o, "detail", detail);
    cJSON_AddItemToArray(k->list, o);
    k->failed += !strcmp(status, "fail");
    k->warned += !strcmp(status, "warn");
}

static int name_ok(const char *n, size_t max, const char *extra)
{
    size_t len = strlen(n);
    if (len == 0 || len > max)
        return 0;
    for (const char *c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' ||
              (extra && strchr(extra, *c))))
            return 0;
    return 1;
}

/* Compiles <schema> (the <which> of <tool>); a message on failure. */
static struct forge_schema *compile(const cJSON *schema, struct forge_err *err)
{
    struct forge_schema_opts so = {0};
    so.draft = FORGE_DRAFT_2020_12;
    return forge_schema_compile(schema, &so, err);
}

static void check_tool(struct checks *k, const cJSON *t, const cJSON *tools, int index)
{
    const char *name = forge_json_str(t, "name");
    char what[200];
    snprintf(what, sizeof what, "tool %s", name ? name : "?");
    if (!name) {
        record(k, "fail", "tool name", "tools[%d] has no name", index);
        return;
    }
    /* the spec's names: 1 to 128 of letters, digits, _ - . ; the providers': at most 64, no dot */
    if (!name_ok(name, 128, "."))
        record(k, "fail", what, "the name is not 1 to 128 of A-Z a-z 0-9 _ - . (MCP 2025-11-25)");
    else if (!name_ok(name, 64, NULL))
        record(k, "warn", what, "the name has a '.' or more than 64 characters: OpenAI and Anthropic refuse it");
    int dup = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, tools)
        dup += forge_json_str(o, "name") && !strcmp(forge_json_str(o, "name"), name);
    if (dup > 1)
        record(k, "fail", what, "the name is used by %d tools", dup);
    const char *d = forge_json_str(t, "description");
    if (!d || !*d)
        record(k, "fail", what, "no description: a model cannot tell when to use it");
    else if (strlen(d) < 20)
        record(k, "warn", what, "a description of %zu characters says little to a model", strlen(d));
    struct forge_err err = {0};
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(t, "inputSchema");
    if (!cJSON_IsObject(in)) {
        record(k, "fail", what, "inputSchema is missing or not an object");
    } else {
        const char *type = forge_json_str(in, "type");
        if (!type || strcmp(type, "object"))
            record(k, "fail", what, "inputSchema must have \"type\": \"object\"");
        struct forge_schema *s = compile(in, &err);
        if (!s)
            record(k, "fail", what, "inputSchema does not compile: %s", err.msg);
        forge_schema_free(s);
    }
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(t, "outputSchema");
    if (out) {
        const char *type = forge_json_str(out, "type");
        struct forge_schema *s = compile(out, &err);
        if (!cJSON_IsObject(out) || !type || strcmp(type, "object"))
            record(k, "fail", what, "outputSchema must be an object schema with \"type\": \"object\"");
        else if (!s)
            record(k, "fail", what, "outputSchema does not compile: %s", err.msg);
        forge_schema_free(s);
    }
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, "annotations");
    if (a) {
        int ro = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "readOnlyHint"));
        if (ro && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "destructiveHint")))
            record(k, "fail", what, "annotations: readOnlyHint and destructiveHint are both true");
        else if (ro && cJSON_HasObjectItem(a, "destructiveHint"))
            record(k, "warn", what, "annotations: destructiveHint means nothing when readOnlyHint is true");
    }
    record(k, "pass", what, "listed");
}

static void smoke(struct checks *k, struct forge_mcp_client *c, const cJSON *tools, const cJSON *calls)
{
    const cJSON *call;
    int i = 0;
    cJSON_ArrayForEach(call, calls) {
        const char *tool = forge_json_str(call, "tool");
        int expect_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(call, "expect_error"));
        char what[200];
        snprintf(what, sizeof what, "call %d %s", i++, tool ? tool : "?");
        const cJSON *def = NULL, *t;
        cJSON_ArrayForEach(t, tools)
            if (tool && forge_json_str(t, "name") && !strcmp(forge_json_str(t, "name"), tool))
                def = t;
        if (!def) {
            record(k, "fail", what, "no tool of that name");
            continue;
        }
        struct forge_err err = {0};
        cJSON *res = NULL;
        if (forge_mcp_call(c, tool, cJSON_GetObjectItemCaseSensitive(call, "arguments"), &res, &err)) {
            record(k, "fail", what, "%s", err.msg);
            continue;
        }
        int is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError"));
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(res, "structuredContent");
        const cJSON *os = cJSON_GetObjectItemCaseSensitive(def, "outputSchema");
        if (is_error != expect_error) {
            const char *text = forge_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "content"), 0), "text");
            record(k, "fail", what, "%s%.300s", is_error ? "isError: " : "expected an error, got a result",
                   is_error && text ? text : "");
        } else if (!is_error && os && !sc) {
            record(k, "fail", what, "the tool declares an outputSchema but the result has no structuredContent");
        } else if (!is_error && os) {
            struct forge_schema *s = compile(os, &err);
            cJSON *verrs = NULL;
            int ok = s ? forge_schema_validate(s, sc, &verrs) : 0;
            const cJSON *e = verrs ? verrs->child : NULL;
            if (ok == 1)
                record(k, "pass", what, "structuredContent matches outputSchema");
            else
                record(k, "fail", what, "structuredContent does not match outputSchema: %s at '%s'",
                       e ? forge_json_str(e, "error") : s ? "invalid" : err.msg, e ? forge_json_str(e, "instanceLocation") : "");
            cJSON_Delete(verrs);
            forge_schema_free(s);
        } else {
            record(k, "pass", what, is_error ? "an error, as expected" : "answered");
        }
        cJSON_Delete(res);
    }
}

static int check_server(int argc, char **argv)
{
    struct client_args ca;
    if (client_args(argc, argv, &ca, "check"))
        return FORGE_EXIT_USAGE;
    const char *fmt = ca.format ? ca.format : "table";
    if (strcmp(fmt, "table") && strcmp(fmt, "json") && strcmp(fmt, "junit")) {
        forge_cli_error("mcp check: --format: '%s' is not table, json or junit", fmt);
        return FORGE_EXIT_USAGE;
    }
    struct forge_err err = {0};
    cJSON *calls = NULL;
    if (ca.calls && (!(calls = forge_json_load(ca.calls, &err)) || !cJSON_IsArray(calls))) {
        forge_cli_error("mcp check: --calls %s", calls ? "must hold an array of {\"tool\", \"arguments\"}" : err.msg);
        cJSON_Delete(calls);
        return FORGE_EXIT_USAGE;
    }
    struct checks k = {cJSON_CreateArray(), 0, 0};
    struct forge_mcp_client *c = NULL;
    cJSON *tools = NULL;
    if (forge_mcp_connect(&ca.o, &c, &err)) {
        record(&k, "fail", "handshake", "%s", err.msg);
    } else {
        const cJSON *info = forge_mcp_server_info(c), *si = cJSON_GetObjectItemCaseSensitive(info, "serverInfo");
        record(&k, "pass", "handshake", "protocol %s", forge_json_str(info, "protocolVersion"));
        if (!forge_json_str(si, "name") || !forge_json_str(si, "version"))
            record(&k, "fail", "serverInfo", "serverInfo needs a name and a version");
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(info, "capabilities"), "tools")))
            record(&k, "fail", "capabilities", "the server does not declare the tools capability");
        if (forge_mcp_list_tools(c, &tools, &err)) {
            record(&k, "fail", "tools/list", "%s", err.msg);
        } else {
            record(&k, cJSON_GetArraySize(tools) ? "pass" : "warn", "tools/list", "%d tool%s", cJSON_GetArraySize(tools),
                   cJSON_GetArraySize(tools) == 1 ? "" : "s");
            const cJSON *t;
            int i = 0;
            cJSON_ArrayForEach(t, tools)
                check_tool(&k, t, tools, i++);
            if (calls)
                smoke(&k, c, tools, calls);
        }
        cJSON_Delete(tools);
    }
    forge_mcp_close(c);
    cJSON_Delete(calls);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "server", ca.o.url ? ca.o.url : ca.o.argv[0]);
    cJSON_AddNumberToObject(o, "failed", k.failed);
    cJSON_AddNumberToObject(o, "warnings", k.warned);
    cJSON_AddItemToObject(o, "checks", k.list);
    if (!strcmp(fmt, "json")) {
        char *t = forge_json_print(o, FORGE_JSON_PRETTY);
        printf("%s\n", t ? t : "{}");
        forge_free(t);
    } else if (!strcmp(fmt, "junit")) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_buf_addf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"forge mcp check\" tests=\"%d\" "
                       "failures=\"%d\">\n", cJSON_GetArraySize(k.list), k.failed);
        const cJSON *e;
        cJSON_ArrayForEach(e, k.list) {
            const char *st = forge_json_str(e, "status");
            forge_buf_adds(&b, "  <testcase classname=\"mcp\" name=\"");
            forge_xml_text(&b, forge_json_str(e, "check"));
            forge_buf_adds(&b, "\">");
            if (strcmp(st, "pass")) {
                forge_buf_adds(&b, !strcmp(st, "fail") ? "<failure message=\"" : "<system-out>warning: ");
                forge_xml_text(&b, forge_json_str(e, "detail"));
                forge_buf_adds(&b, !strcmp(st, "fail") ? "\"/>" : "</system-out>");
            }
            forge_buf_adds(&b, "</testcase>\n");
        }
        forge_buf_adds(&b, "</testsuite>\n");
        fputs(b.data ? b.data : "", stdout);
        forge_buf_free(&b);
    } else {
        const cJSON *e;
        cJSON_ArrayForEach(e, k.list) {
            const char *st = forge_json_str(e, "status");
            printf("%s %-36s %s\n", !strcmp(st, "pass") ? "✓" : !strcmp(st, "warn") ? "!" : "✗", forge_json_str(e, "check"),
                   forge_json_str(e, "detail"));
        }
        printf("\n%d check%s failed, %d warning%s\n", k.failed, k.failed == 1 ? "" : "s", k.warned, k.warned == 1 ? "" : "s");
    }
    cJSON_Delete(o);
    return k.failed ? FORGE_EXIT_FAIL : FORGE_EXIT_OK;
}

int forge_cmd_mcp(int argc, char **argv)
{
    if (argc < 1) {
        forge_cli_error("mcp: give a subcommand: serve, list or call (see forge help mcp)");
        return FORGE_EXIT_USAGE;
    }
    if (!strcmp(argv[0], "serve"))
        return serve(argc - 1, argv + 1);
    if (!strcmp(argv[0], "list"))
        return list(argc - 1, argv + 1);
    if (!strcmp(argv[0], "call"))
        return call(argc - 1, argv + 1);
    if (!strcmp(argv[0], "check"))
        return check_server(argc - 1, argv + 1);
    forge_cli_error("mcp: unknown subcommand '%s' (serve, list, call, check)", argv[0]);
    return FORGE_EXIT_USAGE;
}
