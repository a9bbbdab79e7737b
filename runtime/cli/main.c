/* forge: entry point and subcommand dispatch. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "data/jcache.h"
#include "data/json.h"
#include "data/re.h"
#include "data/schema.h"
#include "eval/suite.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const char usage_version[] =
    "usage: forge version [--json]\n"
    "\n"
    "Prints forge's version and the versions of the libraries it runs on.\n"
    "\n"
    "options:\n"
    "  --json    the same as JSON, with the compiler and build options (for bug reports)\n";
static const char usage_help[] = "usage: forge help [COMMAND]\n\nLists the commands, or shows one command's usage.\n";

const struct forge_command forge_commands[] = {
    {"script", forge_cmd_script, "run a Lua suite or script", forge_usage_script},
    {"run", forge_cmd_run, "run eval files: score recorded transcripts, or run live with --model", forge_usage_run},
    {"schema", forge_cmd_schema, "validate JSON instances against a JSON Schema", forge_usage_schema},
    {"model", forge_cmd_model, "send chat requests to a model provider (debugging)", forge_usage_model},
    {"bfcl", forge_cmd_bfcl, "BFCL-compatible scoring; ask a model BFCL's questions", forge_usage_bfcl},
    {"report", forge_cmd_report, "merge the results of sharded runs into one set of reports", forge_usage_report},
    {"mcp", forge_cmd_mcp, "MCP: serve forge tools to MCP clients; list and call any MCP server", forge_usage_mcp},
    {"probe", forge_cmd_probe, "which models call tools, on which wire, and how fast", forge_usage_probe},
    {"serve", forge_cmd_serve, "serve model endpoints to agents in any language; --agent: agents as a service",
     forge_usage_serve},
    {"check", forge_cmd_check, "tool-use validation of recorded trajectories", forge_usage_check},
    {"coverage", forge_cmd_coverage, "what the eval files do not test about the tools", forge_usage_coverage},
    {"gen", forge_cmd_gen, "draft eval cases (with a model) and verifier stubs for coverage gaps", forge_usage_gen},
    {"init", forge_cmd_init, "write a working suite to start from", forge_usage_init},
    {"completion", forge_cmd_completion, "print the bash or zsh completion script", forge_usage_completion},
    {"doctor", forge_cmd_doctor, "check the environment runs need, and say what to fix", forge_usage_doctor},
    {"version", cmd_version, "print version information", usage_version},
    {"help", cmd_help, "show help for a command", usage_help},
    {NULL, NULL, NULL, NULL},
};

void forge_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("forge: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int forge_cli_number(const char *cmd, const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(d) || !(d >= lo && d <= hi)) {
        if (isinf(hi))
            forge_cli_error("%s: %s takes a number of %g or more, not '%s'", cmd, flag, lo, v);
        else
            forge_cli_error("%s: %s takes a number from %g to %g, not '%s'", cmd, flag, lo, hi, v);
        return -1;
    }
    *out = d;
    return 0;
}

int forge_cli_whole(const char *cmd, const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < lo || n > hi) {
        forge_cli_error("%s: %s takes a whole number from %ld to %ld, not '%s'", cmd, flag, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

int forge_cli_report_opt(const char *cmd, const char *v, const char **rformat, const char **rpath, int *n, int max)
{
    static const char *const formats[] = {"json", "jsonl", "junit", "md", "html", NULL};
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1]) {
        forge_cli_error("%s: --report '%s': expected FORMAT=PATH (json, jsonl, junit, md, html)", cmd, v);
        return -1;
    }
    size_t fl = (size_t)(eq - v);
    const char *fmt = NULL;
    for (const char *const *f = formats; *f && !fmt; f++)
        if (strlen(*f) == fl && !strncmp(*f, v, fl))
            fmt = *f;
    if (!fmt) {
        forge_cli_error("%s: --report '%s': unknown format '%.*s' (json, jsonl, junit, md, html)", cmd, v, (int)fl, v);
        return -1;
    }
    if (*n == max) {
        forge_cli_error("%s: at most %d --report options", cmd, max);
        return -1;
    }
    rformat[*n] = fmt;
    rpath[(*n)++] = eq + 1;
    return 0;
}

int forge_cli_gate_opt(const char *cmd, const char *flag, const char *v, struct forge_gates *g)
{
    double *at;
    bool *has;
    double hi = INFINITY;
    if (!strcmp(flag, "--min-pass-rate")) {
        at = &g->min_pass_rate, has = &g->has_min_pass_rate, hi = 1;
    } else if (!strcmp(flag, "--max-cost")) {
        at = &g->max_cost, has = &g->has_max_cost;
    } else if (!strcmp(flag, "--max-p95-ms")) {
        at = &g->max_p95_ms, has = &g->has_max_p95_ms;
    } else {
        return 0;
    }
    if (forge_cli_number(cmd, flag, v, 0, hi, at))
        return -1;
    *has = true;
    return 1;
}

int forge_cli_exit_code(int rc)
{
    switch (rc) {
    case FORGE_OK: return FORGE_EXIT_OK;
    case FORGE_EFAIL: return FORGE_EXIT_FAIL;
    case FORGE_ENET: return FORGE_EXIT_INFRA;
    default: return FORGE_EXIT_USAGE;
    }
}

const char forge_cli_input_usage[] =
    "  --max-file-mb MIB      largest input file read whole, in MiB (default 256)\n"
    "  --max-json-nodes N     most JSON values in one input file or line (default 10000000)\n"
    "  --schema-steps N       most schema nodes evaluated to validate one instance\n"
    "                         (default 10000000)\n";

int forge_cli_input_opt(const char *cmd, int argc, char **argv, int *i)
{
    static const char *const names[] = {"--max-file-mb", "--max-json-nodes", "--schema-steps",
                                        "--regex-timeout"};
    const char *a = argv[*i], *val = NULL;
    int which = -1;
    for (int k = 0; k < 4 && which < 0; k++) {
        size_t n = strlen(names[k]);
        if (strncmp(a, names[k], n) == 0 && (a[n] == '\0' || a[n] == '='))
            which = k, val = a[n] == '=' ? a + n + 1 : NULL;
    }
    if (which < 0)
        return 0;
    const char *sep = cmd ? ": " : "";
    if (!cmd)
        cmd = "";
    if (!val) {
        if (*i + 1 >= argc) {
            forge_cli_error("%s%s%s needs a value", cmd, sep, names[which]);
            return -1;
        }
        val = argv[++*i];
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    unsigned long long most = which == 0 ? 1048576ull : which == 3 ? 86400000ull : 1000000000000ull;
    unsigned long long least = which == 3 ? 0 : 1;
    if (!*val || *val == '-' || *end || errno || v < least || v > most) {
        forge_cli_error("%s%s%s takes a whole number from %llu to %llu, not '%s'", cmd, sep,
                        names[which], least, most, val);
        return -1;
    }
    if (which == 0)
        forge_file_set_input_limit((size_t)v << 20);
    else if (which == 1)
        forge_json_set_node_limit((size_t)v);
    else if (which == 2)
        forge_schema_set_max_steps((unsigned long)v);
    else
        forge_re_set_timeout((unsigned long)v);
    return 1;
}

static const struct forge_command *find(const char *name)
{
    for (const struct forge_command *c = forge_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static void overview(FILE *out)
{
    fputs("forge - test tool-calling LLM agents\n\nusage: forge COMMAND [ARGS...]\n\ncommands:\n", out);
    for (const struct forge_command *c = forge_commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fputs("\nRun 'forge help COMMAND' for a command's options.\n"
          "Exit codes: 0 passed, 1 a case, check or gate failed, 2 bad usage or input,\n"
          "3 infrastructure error.\n", out);
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 1) {
        overview(stdout);
        return 0;
    }
    const struct forge_command *c = find(argv[0]);
    if (!c) {
        forge_cli_error("help: unknown command '%s' (run 'forge help' for the list)", argv[0]);
        return FORGE_EXIT_USAGE;
    }
    fputs(c->usage, stdout);
    return 0;
}

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <lua.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

static int cmd_version(int argc, char **argv)
{
    bool json = argc == 1 && strcmp(argv[0], "--json") == 0;
    if (argc > 0 && !json) {
        forge_cli_error("version: unexpected argument '%s'", argv[0]);
        return FORGE_EXIT_USAGE;
    }
    char pcre[64] = "";
    pcre2_config(PCRE2_CONFIG_VERSION, pcre);
    const char *curl = curl_version_info(CURLVERSION_NOW)->version;
    if (!json) {
        printf("forge %s\n%s, cJSON %s, libcurl %s, PCRE2 %s\n", FORGE_VERSION, LUA_RELEASE,
               cJSON_Version(), curl, pcre);
        return 0;
    }
    /* For bug reports: what this binary was built with and runs on. */
    cJSON *v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "forge", FORGE_VERSION);
    cJSON *lib = cJSON_AddObjectToObject(v, "libraries");
    cJSON_AddStringToObject(lib, "lua", LUA_RELEASE);
    cJSON_AddStringToObject(lib, "cjson", cJSON_Version());
    cJSON_AddStringToObject(lib, "libcurl", curl);
    cJSON_AddStringToObject(lib, "pcre2", pcre);
    cJSON *build = cJSON_AddObjectToObject(v, "build");
#ifdef __VERSION__
    cJSON_AddStringToObject(build, "compiler", __VERSION__);
#endif
#ifdef FORGE_SANITIZE
    cJSON_AddBoolToObject(build, "sanitizers", 1);
#else
    cJSON_AddBoolToObject(build, "sanitizers", 0);
#endif
    char *text = forge_json_print(v, FORGE_JSON_PRETTY);
    cJSON_Delete(v);
    if (!text) {
        forge_cli_error("out of memory");
        return FORGE_EXIT_INFRA;
    }
    puts(text);
    forge_free(text);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        overview(stderr);
        return FORGE_EXIT_USAGE;
    }
    forge_jcache_install();
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        name = "version";
    else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        name = "help";
    const struct forge_command *c = find(name);
    if (!c) {
        forge_cli_error("unknown command '%s' (run 'forge help' for the list)", argv[1]);
        return FORGE_EXIT_USAGE;
    }
    return c->run(argc - 2, argv + 2);
}
