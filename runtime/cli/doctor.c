/* forge doctor: checks the environment a run needs and says what to fix. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/file.h"
#include "lua/vm.h"
#include "model/cache.h"
#include "net/fetch.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char forge_usage_doctor[] =
    "usage: forge doctor [--offline]\n"
    "\n"
    "Checks what runs need and says what to fix: the provider keys in the environment (whether\n"
    "each is set, never its value), the base URL variables (well formed, and reachable unless\n"
    "--offline), the response cache folder (writable), the Lua sandbox, and the programs that\n"
    "optional features use (python3, node, npm). Each line is ok, warn (a feature you may not\n"
    "need) or FAIL (with what to do).\n"
    "\n"
    "options:\n"
    "  --offline    do not try to reach the base URLs\n"
    "\n"
    "Exit codes: 0 nothing failed; 1 a check failed; 2 bad usage.\n";

static int failed;

static void line(const char *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(const char *status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%-5s", status);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    if (!strcmp(status, "FAIL"))
        failed++;
}

static bool has_control(const char *s)
{
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            return true;
    return false;
}

static void keys(void)
{
    static const struct {
        const char *var, *alt, *provider;
        bool optional;
    } k[] = {
        {"OPENAI_API_KEY", NULL, "openai, openai-responses", false},
        {"ANTHROPIC_API_KEY", NULL, "anthropic", false},
        {"GEMINI_API_KEY", "GOOGLE_API_KEY", "gemini", false},
        {"OLLAMA_API_KEY", NULL, "ollama needs it only behind a server that asks for a key", true},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const char *v = getenv(k[i].var), *name = k[i].var;
        if ((!v || !*v) && k[i].alt && (v = getenv(k[i].alt)) && *v)
            name = k[i].alt;
        if ((!v || !*v) && k[i].optional)
            line("ok", "%s is not set: %s", k[i].var, k[i].provider);
        else if (!v || !*v)
            line("warn", "%s is not set: %s models cannot run (set it to use them; the scripted "
                 "model needs no key)", k[i].var, k[i].provider);
        else if (has_control(v))
            line("FAIL", "%s holds a control character (a stray line break?): %s requests would "
                 "be refused; set it again without it", name, k[i].provider);
        else
            line("ok", "%s is set (%zu characters) for %s", name, strlen(v), k[i].provider);
    }
}

static void base_urls(bool offline)
{
    static const char *const vars[] = {"OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GEMINI_BASE_URL",
                                       "OLLAMA_HOST"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *u = getenv(vars[i]);
        if (!u || !*u)
            continue;
        if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8)) {
            line("FAIL", "%s is '%.100s': it must start with http:// or https://", vars[i], u);
            continue;
        }
        if (offline) {
            line("ok", "%s is well formed (not contacted: --offline)", vars[i]);
            continue;
        }
        struct forge_fetch req = {.method = "GET", .url = u, .timeout_ms = 3000, .max_bytes = 4096};
        struct forge_fetch_result res;
        struct forge_err err = {0};
        int rc = forge_fetch(&req, &res, &err);
        if (rc && rc != FORGE_ELIMIT) {
            line("FAIL", "%s (%.100s) cannot be reached: %s; check the URL and that the server "
                 "runs", vars[i], u, err.msg);
            continue;
        }
        line("ok", "%s (%.100s) answers (HTTP %ld)", vars[i], u, rc ? 0L : res.status);
        if (!rc)
            forge_fetch_result_free(&res);
    }
}

static void cache(void)
{
    char *dir = forge_cache_default_dir();
    if (!dir) {
        line("FAIL", "no cache folder: set XDG_CACHE_HOME or HOME, or run with --no-cache");
        return;
    }
    struct forge_err err = {0};
    char *probe = forge_path_join(dir, ".forge-doctor");
    int rc = forge_mkdir_p_mode(dir, 0700, &err);
    if (!rc && probe)
        rc = forge_file_write_atomic_mode(probe, "ok", 2, 0600, &err);
    if (rc || !probe)
        line("FAIL", "the response cache folder %s is not writable (%s): fix its permissions, "
             "point XDG_CACHE_HOME elsewhere, or run with --cache-dir DIR or --no-cache", dir,
             err.msg[0] ? err.msg : "out of memory");
    else
        line("ok", "the response cache folder %s is writable", dir);
    if (probe)
        unlink(probe);
    forge_free(probe);
    forge_free(dir);
}

static void sandbox(void)
{
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
    o.verbose = -1;
    struct forge_err err = {0};
    struct forge_vm *vm = forge_vm_new(&o, &err);
    int rc = vm ? forge_vm_load_string(vm, "return require('forge').json.encode({1})", 40, "=doctor",
                                       &err)
                : err.code;
    if (!rc)
        rc = forge_vm_call(vm, 0, 0, &err);
    if (rc)
        line("FAIL", "the Lua sandbox does not work: %s; reinstall forge", err.msg);
    else
        line("ok", "the Lua sandbox works (Lua 5.4 with the forge modules)");
    forge_vm_free(vm);
}

/* Whether <prog> is an executable file in a PATH folder. */
static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char *copy = path ? forge_strdup(path) : NULL;
    bool found = false;
    for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char *p = forge_path_join(d, prog);
        found = p && access(p, X_OK) == 0;
        forge_free(p);
    }
    forge_free(copy);
    return found;
}

static void programs(void)
{
    static const struct {
        const char *prog, *why;
    } p[] = {
        {"python3", "the test helpers and benchmarks of a source checkout"},
        {"node", "the benchmarks against other tools"},
        {"npm", "installing the pinned packages tests and benchmarks compare with"},
    };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        line(on_path(p[i].prog) ? "ok" : "warn", "%s %s on PATH (%s)", p[i].prog,
             on_path(p[i].prog) ? "is" : "is not", p[i].why);
}

int forge_cmd_doctor(int argc, char **argv)
{
    bool offline = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--offline")) {
            offline = true;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(forge_usage_doctor, stdout);
            return 0;
        } else {
            forge_cli_error("doctor: unknown argument '%s' (run 'forge help doctor')", argv[i]);
            return FORGE_EXIT_USAGE;
        }
    }
    failed = 0;
    keys();
    base_urls(offline);
    cache();
    sandbox();
    programs();
    printf("\n%s\n", failed ? "forge doctor: some checks failed (see FAIL above)"
                            : "forge doctor: nothing to fix");
    return failed ? FORGE_EXIT_FAIL : FORGE_EXIT_OK;
}
