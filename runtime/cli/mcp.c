/* forge mcp serve|list|call: forge tools as an MCP server, and a client for debugging. */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/file.h"
#include "data/json.h"
#include "lua/l_suite.h"
#include "mcp/client.h"
#include "mcp/mcp.h"
#include "server/server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char forge_usage_mcp[] =
    "usage: forge mcp serve TOOLS.lua|TOOLS.json [--listen HOST:PORT] [--token-env VAR] [--require-auth]\n"
    "       forge mcp list SERVER [--json]\n"
    "       forge mcp call TOOL [ARGUMENTS.json|'{...}'] SERVER\n"
    "\n"
    "serve: forge's tools (Lua run functions, mocks, templates, canned responses, HTTP) as an MCP\n"
    "server, over stdio, or Streamable HTTP at /mcp with --listen. Calls validate their arguments\n"
    "against the tool's schema, run in the sandbox and its limits, and pass the verifiers the\n"
    "tools file defines (a block is an error result; a warning an extra text block).\n"
    "list and call talk to any MCP server (for debugging): SERVER is an http(s):// URL, or '--'\n"
    "followed by the command that starts it (stdio).\n"
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
    "  --json               list: print the tools as JSON\n"
    "\n"
    "Exit codes: 0 ok, 1 a call returned isError, 2 bad usage, 3 the server failed or did not answer.\n";

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
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (forge_server_start(&so, forge_mcp_http_handle, mh, &http, &err)) {
        forge_cli_error("mcp serve: %s", err.msg);
        code = err.code == FORGE_EINVAL ? FORGE_EXIT_USAGE : FORGE_EXIT_INFRA;
        goto out;
    }
    if (port_file) {
        char t[16];
        snprintf(t, sizeof t, "%d\n", forge_server_port(http));
        if (forge_file_write_atomic(port_file, t, strlen(t), &err)) {
            forge_cli_error("mcp serve: --port-file: %s", err.msg);
            goto out;
        }
    }
    fprintf(stderr, "forge mcp serve: %d tool%s at http://%s/mcp (port %d)\n", tools.n, tools.n == 1 ? "" : "s", listen,
            forge_server_port(http));
    sigdelset(&set, SIGPIPE);
    int sig = 0;
    sigwait(&set, &sig);
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
    if (forge_mcp_connect(&ca.o, &c, &err) || forge_mcp_call(c, ca.pos[0], args, &res, &err)) {
        forge_cli_error("%s", err.msg);
        forge_mcp_close(c);
        cJSON_Delete(args);
        return forge_cli_exit_code(err.code);
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
    forge_cli_error("mcp: unknown subcommand '%s' (serve, list, call)", argv[0]);
    return FORGE_EXIT_USAGE;
}
