/* Subcommands of the forge binary. Each takes the arguments after its own name and returns the
 * process exit code (DESIGN.md): 0 passed, 1 failed, 2 bad usage or input, 3 infrastructure. */
#ifndef FORGE_CLI_H
#define FORGE_CLI_H

enum { FORGE_EXIT_OK = 0, FORGE_EXIT_FAIL = 1, FORGE_EXIT_USAGE = 2, FORGE_EXIT_INFRA = 3 };

struct forge_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line for `forge help` */
    const char *usage;   /* full text for `forge help <name>` */
};

/* The table of subcommands, terminated by a NULL name (cli/main.c). */
extern const struct forge_command forge_commands[];

/* Maps an enum forge_rc to an exit code. */
int forge_cli_exit_code(int rc);

/* Prints "forge: <msg>" to stderr. */
void forge_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The value <v> of <flag> as a number from <lo> to <hi> (never NaN or infinite; <hi> may be
 * INFINITY for "no upper bound"), or -1 after printing "<cmd>: <flag> takes a number from <lo>
 * to <hi>, not '<v>'". forge_cli_whole does the same for a whole number. */
int forge_cli_number(const char *cmd, const char *flag, const char *v, double lo, double hi, double *out);
int forge_cli_whole(const char *cmd, const char *flag, const char *v, long lo, long hi, long *out);

/* The value of --report, FORMAT=PATH with FORMAT json, jsonl, junit, md or html: adds the format
 * (a static string) and path at rformat[*n] and rpath[*n] (at most <max>), or returns -1 after
 * printing "<cmd>: --report ...". */
int forge_cli_report_opt(const char *cmd, const char *v, const char **rformat, const char **rpath, int *n, int max);

/* --min-pass-rate (0 to 1), --max-cost and --max-p95-ms (0 or more): 1 when <flag> is one of
 * them (set in <g>), 0 when it is not, -1 after printing "<cmd>: ..." for a bad value. */
struct forge_gates;
int forge_cli_gate_opt(const char *cmd, const char *flag, const char *v, struct forge_gates *g);

/* The input limits every command that reads files takes:
 *   --max-file-mb MIB   the largest file read whole (forge_file_set_input_limit; default 256)
 *   --max-json-nodes N  the most JSON values in one input (forge_json_set_node_limit)
 *   --schema-steps N    the schema nodes one validation may enter (forge_schema_set_max_steps)
 *   --regex-timeout MS  the time one regex match may take (forge_re_set_timeout; 0: none)
 * Also as --flag=VALUE. Returns 1 when argv[*i] is one of them (*i then indexes its value), 0
 * when it is not, -1 after printing "<cmd>: ..." (<cmd> NULL: no prefix) for a bad value. */
int forge_cli_input_opt(const char *cmd, int argc, char **argv, int *i);

/* Usage lines of those options, for the commands' help. */
extern const char forge_cli_input_usage[];

/* For the serving commands (cli/listen.c): blocks SIGINT, SIGTERM and SIGPIPE in every thread,
 * starts the embedded server with handler <h> (server/server.h) into *http, and writes its port
 * to <port_file> when not NULL. Returns 0, or the exit code after printing "<who>: ..." (*http
 * may then be set: stop it). */
struct forge_server;
struct forge_server_opts;
struct forge_server_request;
struct forge_server_response;
int forge_cli_listen(const char *who, const struct forge_server_opts *o,
                     void (*h)(void *ctx, const struct forge_server_request *req,
                               struct forge_server_response *resp),
                     void *ctx, const char *port_file, struct forge_server **http);
/* The model options (model/provider.h) and Lua limits (cli/luaopts.h) both serve modes take:
 * 1 when argv[*i] is one of them (*i then indexes its last word), 0 when it is not, -1 after
 * printing the error. */
struct forge_provider_opts;
struct forge_vm_opts;
int forge_cli_serve_common_opt(struct forge_provider_opts *prov, struct forge_vm_opts *vm, int argc, char **argv,
                               int *i);
/* The embedded server's options of the serving commands: --listen, --port-file, --max-body-mb,
 * --threads, --max-connections and --idle-timeout, with <v> the value of <flag>. 1 when <flag>
 * is one of them (set in *o, or *port_file), 0 when it is not, -1 after printing "<cmd>: ...". */
int forge_cli_server_opt(const char *cmd, const char *flag, const char *v, struct forge_server_opts *o,
                         const char **port_file);

/* Waits for SIGINT or SIGTERM (blocked by forge_cli_listen). */
void forge_cli_wait_signal(void);

int forge_cmd_completion(int argc, char **argv);
extern const char forge_usage_completion[];
int forge_cmd_doctor(int argc, char **argv);
extern const char forge_usage_doctor[];
int forge_cmd_init(int argc, char **argv);
extern const char forge_usage_init[];
int forge_cmd_script(int argc, char **argv);
extern const char forge_usage_script[];

int forge_cmd_run(int argc, char **argv);
extern const char forge_usage_run[];
int forge_cmd_schema(int argc, char **argv);
extern const char forge_usage_schema[];
int forge_cmd_model(int argc, char **argv);
extern const char forge_usage_model[];
int forge_cmd_bfcl(int argc, char **argv);
extern const char forge_usage_bfcl[];
int forge_cmd_check(int argc, char **argv);
extern const char forge_usage_check[];
/* forge report merge (docs/ci.md). */
int forge_cmd_report(int argc, char **argv);
extern const char forge_usage_report[];
/* forge mcp serve|list|call (docs/mcp.md). */
int forge_cmd_mcp(int argc, char **argv);
extern const char forge_usage_mcp[];
/* forge probe: tool-calling probes of models (docs/probe.md). */
int forge_cmd_probe(int argc, char **argv);
extern const char forge_usage_probe[];
/* forge serve: model endpoints in every provider's wire format (docs/serve.md). */
int forge_cmd_serve(int argc, char **argv);
/* forge serve --agent (serve_agent.c). */
int forge_cmd_serve_agent(int argc, char **argv);
extern const char forge_usage_serve[];
/* forge coverage and forge gen evals|verifiers (docs/coverage.md). */
int forge_cmd_coverage(int argc, char **argv);
extern const char forge_usage_coverage[];
int forge_cmd_gen(int argc, char **argv);
extern const char forge_usage_gen[];
#endif
