/* Sandbox options shared by the subcommands that run Lua. */
#include "cli/luaopts.h"
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/log.h"
#include "data/re.h"
#include "tools/tool_http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char forge_luaopts_usage[] =
    "sandbox options:\n"
    "  --allow-read PATH        let scripts read files under PATH (repeatable); by default they\n"
    "                           read only under their own folder and the current folder\n"
    "  --allow-net              let scripts use forge.http\n"
    "  --allow-exec             let scripts start MCP servers (forge.mcp{command = ...})\n"
    "  --allow-env NAME         let HTTP tools' headers_from_env read the environment variable\n"
    "                           NAME (repeatable); none is readable otherwise, API keys included\n"
    "  --lua-instructions N     instruction budget per call into Lua (default 1000000000; 0 = none)\n"
    "  --lua-memory MIB         memory cap of a Lua state in MiB (default 256; 0 = none)\n"
    "  --lua-timeout MS         wall-clock deadline per call into Lua (default 5000; 0 = none)\n"
    "  --regex-match-limit N    PCRE2 match limit per regex match (default 10000000)\n"
    "  --regex-timeout MS       time limit of one regex match: forge.re, assertions, verifiers,\n"
    "                           scripted rules, schema patterns (default 1000; 0 = none)\n"
    "  -v, --verbose            show debug messages (forge.log.debug)\n"
    "  -q, --quiet              only errors on stderr\n";

static int number(const char *flag, const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-') {
        forge_cli_error("%s needs a non-negative integer, got '%s'", flag, s ? s : "");
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) {
        forge_cli_error("%s needs a non-negative integer, got '%s'", flag, s);
        return -1;
    }
    *out = v;
    return 0;
}

int forge_luaopts_parse(int argc, char **argv, int *i, struct forge_vm_opts *o)
{
    const char *a = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    unsigned long long v;
    if (strcmp(a, "--allow-net") == 0) {
        o->allow_net = true;
        return 1;
    }
    if (strcmp(a, "--allow-exec") == 0) {
        o->allow_exec = true;
        return 1;
    }
    if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
        o->verbose = 1;
        forge_log_set_level(FORGE_LOG_DEBUG);
        return 1;
    }
    if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
        o->verbose = -1;
        forge_log_set_level(FORGE_LOG_ERROR);
        return 1;
    }
    if (strcmp(a, "--regex-timeout") == 0) /* also an input option (forge schema, forge check) */
        return forge_cli_input_opt(NULL, argc, argv, i);
    int takes = strcmp(a, "--allow-read") == 0 || strcmp(a, "--allow-env") == 0 ||
                strcmp(a, "--lua-instructions") == 0 ||
                strcmp(a, "--lua-memory") == 0 || strcmp(a, "--lua-timeout") == 0 ||
                strcmp(a, "--regex-match-limit") == 0;
    if (!takes)
        return 0;
    if (!val) {
        forge_cli_error("%s needs a value", a);
        return -1;
    }
    (*i)++;
    if (strcmp(a, "--allow-env") == 0) {
        if (!*val || strchr(val, '=')) {
            forge_cli_error("--allow-env takes an environment variable's name, not '%s'", val);
            return -1;
        }
        if (forge_tool_http_allow_env(val)) {
            forge_cli_error("--allow-env: at most 64 variables");
            return -1;
        }
        return 1;
    }
    if (strcmp(a, "--allow-read") == 0) {
        const char **p = forge_realloc((void *)o->allow_read, sizeof *p * (size_t)(o->nallow_read + 1));
        if (!p)
            return -1;
        p[o->nallow_read++] = val;
        o->allow_read = p;
        return 1;
    }
    if (number(a, val, &v))
        return -1;
    if (strcmp(a, "--lua-instructions") == 0)
        o->limits.instructions = v;
    else if (strcmp(a, "--lua-memory") == 0) {
        if (v > ((unsigned long long)1 << 40) >> 20) {
            forge_cli_error("--lua-memory %s: more than 1 TiB", val);
            return -1;
        }
        o->limits.memory = (size_t)v << 20;
    } else if (strcmp(a, "--lua-timeout") == 0)
        o->limits.timeout_ms = v;
    else
        forge_re_set_limits(v ? (unsigned long)v : 10000000ul, 100000ul);
    return 1;
}

void forge_luaopts_free(struct forge_vm_opts *o)
{
    forge_free((void *)o->allow_read);
    o->allow_read = NULL;
    o->nallow_read = 0;
}
