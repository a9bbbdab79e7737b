/* forge run EVAL.json... [options]: validate eval files, score recorded transcripts, report. */
#include "cli/cli.h"
#include "cli/live.h"
#include "cli/luaopts.h"
#include "mcp/client.h"
#include "eval/shard.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/file.h"
#include "base/lines.h"
#include "data/jarena.h"
#include "data/json.h"
#include "eval/cases.h"
#include "data/yaml.h"
#include "eval/evalfile.h"
#include "eval/registry.h"
#include "eval/suite.h"
#include "eval/tally.h"
#include "lua/l_eval.h"
#include "lua/vm.h"
#include "tools/promptkit.h"
#include "tools/tool.h"
#include "report/report.h"
#include "report/results.h"

#define FORGE_CJSON_DROP(p) do { cJSON_Delete(p); (p) = NULL; } while (0)

#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char forge_usage_run[] =
    "usage: forge run EVAL.json... [OPTIONS]\n"
    "\n"
    "Validates eval files (agent-tool-forge's format plus forge's assertions; JSON, or YAML when\n"
    "named .yaml or .yml) and scores the trajectory each case produced: recorded ones\n"
    "(--transcripts), or live ones (--model): every case then goes through the agent loop with\n"
    "the tools of --tools, and each eval file is a suite of the run.\n"
    "\n"
    "options:\n"
    "  --dry-run               check the eval files (and the other input files) only\n"
    "  --transcripts FILE      recorded trajectories, one forge-format JSON object per line,\n"
    "                          matched to cases by trajectory_id = case id ('-': stdin)\n"
    "  --seed FILE             JSON for {{seed:path}} templates\n"
    "  --snapshot FILE         JSON for {{snapshot:path}} templates\n"
    "  --tools FILE            tool definitions in JSON or YAML ([{name, schema|parameters|\n"
    "                          input_schema}], OpenAI tools, MCP tools/list, {name: schema},\n"
    "                          PromptKit tool descriptors: docs/tools.md), or a Lua file returning\n"
    "                          forge.tool{...} values (live runs); their schemas serve\n"
    "                          argsMatchSchema\n"
    "  --shard I/N             run only shard I of N: the cases whose id hashes to I (stable when\n"
    "                          cases are added); the jsonl report starts with a header that\n"
    "                          forge report merge checks (docs/ci.md)\n"
    "  --shards N              the same, with I from JOB_COMPLETION_INDEX (a Kubernetes Indexed\n"
    "                          Job, from 0) or FORGE_SHARD_INDEX (from 1)\n"
    "  --mcp NAME=URL|'NAME=COMMAND ARGS'\n"
    "                          live runs: the tools of an MCP server (Streamable HTTP, or a command\n"
    "                          spoken to over stdio) join --tools (repeatable; docs/mcp.md)\n"
    "  --mcp-token-env VAR     send Authorization: Bearer $VAR to the HTTP MCP servers\n"
    "  --mcp-timeout-ms N      time limit of one MCP request (default 30000)\n"
    "  --model SPEC            run the cases live: scripted:RULES.lua or provider:model\n"
    "  -j, --jobs N            live runs: cases in flight at once (default 1)\n"
    "  --save-transcripts FILE live runs: write every trajectory, one JSON object per line\n"
    "  --report FORMAT=PATH    also write a report: json, jsonl, junit, md or html (repeatable;\n"
    "                          one jsonl, one html: docs/reports.md)\n"
    "  --min-pass-rate X       gate: pass rate (0..1) must be >= X\n"
    "  --max-cost USD          gate: total cost must be <= USD\n"
    "  --max-p95-ms MS         gate: p95 latency must be <= MS\n"
    "  --baseline FILE         a previous JSON report: list regressions and new passes\n"
    "  --max-line-bytes N      longest transcript line accepted (default 67108864)\n"
    "  --max-file-mb MIB       largest eval, tools, seed, snapshot or baseline file, in MiB\n"
    "                          (default 256)\n"
    "  --max-json-nodes N      most JSON values in one input file or transcript line\n"
    "                          (default 10000000)\n"
    "  --schema-steps N        most schema nodes evaluated to validate one value: tool\n"
    "                          arguments, argsMatchSchema, responseSchema (default 10000000)\n"
    "  --regex-timeout MS      time limit of one regex match: assertions, verifiers, scripted\n"
    "                          rules, schema patterns (default 1000; 0 = none)\n"
    "  --approval-level LEVEL  live runs: which calls need approval: autonomous, cautious\n"
    "                          (default), standard or paranoid (docs/tools.md)\n"
    "  --approve, --deny       live runs: the answer to calls that need approval (default approve)\n"
    "  --assertions FILE.lua   a Lua script that registers custom assertions with\n"
    "                          forge.assertion(name, fn) (repeatable)\n"
    "  -q, --quiet             print only failing cases and the summary\n"
    "  --allow-read PATH, --lua-instructions N, --lua-memory MIB, --lua-timeout MS\n"
    "                          sandbox limits of the --assertions scripts (as for forge script)\n"
    "\n"
    "Live runs also take the model options of 'forge help model' (--base-url, --header,\n"
    "--record, --replay, --no-cache, ...).\n"
    "\n"
    "Exit codes: 0 every case passed and every gate was met; 1 a case or gate failed or a case\n"
    "had no transcript; 2 bad usage or input; 3 a model could not be reached.\n";

#define MAX_REPORTS 16
#define MAX_ASSERTION_FILES 16

struct opts {
    const char **files;
    int nfiles;
    const char *transcripts, *seed, *snapshot, *tools, *baseline;
    const char *rformat[MAX_REPORTS], *rpath[MAX_REPORTS];
    int nreports;
    const char *afiles[MAX_ASSERTION_FILES];
    int nafiles;
    struct forge_vm_opts vm;
    struct forge_live_opts live;
    bool dry_run, quiet;
    const char *approval_level;  /* --approval-level */
    const char *approval_answer; /* "approve" (--approve) or "deny" (--deny) */
    size_t max_line;
    struct forge_gates gates;
    const char *mcp[16];          /* --mcp NAME=SPEC */
    int nmcp;
    const char *mcp_token_env;
    long mcp_timeout_ms;
    struct forge_mcp_client *mcp_clients[16]; /* closed after the suites are freed */
    const char *shard_spec;
    long shards;
};

/* --approval-level and --approve/--deny: the approval policy a suite sets with
 * policy = {approval = {level =, answer =}}, applied through the same code. */
static int apply_approval(const struct opts *o, struct forge_policy *p)
{
    if (!o->approval_level && !o->approval_answer)
        return 0;
    cJSON *j = cJSON_CreateObject(), *a = cJSON_AddObjectToObject(j, "approval");
    if (!a || (o->approval_level && !cJSON_AddStringToObject(a, "level", o->approval_level)) ||
        (o->approval_answer && !cJSON_AddStringToObject(a, "answer", o->approval_answer))) {
        cJSON_Delete(j);
        forge_cli_error("out of memory");
        return -1;
    }
    struct forge_err err = {0};
    int rc = forge_policy_apply(p, j, "--approval-level/--approve/--deny", &err);
    cJSON_Delete(j);
    if (rc)
        forge_cli_error("run: %s", err.msg);
    return rc;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    o->files = forge_calloc((size_t)argc + 1, sizeof *o->files);
    if (!o->files) return -1;
    o->max_line = (size_t)64 << 20;
    bool only_files = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            o->files[o->nfiles++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) { only_files = true; continue; }
        if (strcmp(a, "--dry-run") == 0) { o->dry_run = true; continue; }
        if (strcmp(a, "--approve") == 0 || strcmp(a, "--deny") == 0) {
            if (o->approval_answer && strcmp(o->approval_answer, a + 2) != 0) {
                forge_cli_error("run: --approve and --deny cannot be used together");
                return -1;
            }
            o->approval_answer = a + 2;
            continue;
        }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) { o->quiet = true; continue; }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(forge_usage_run, stdout);
            return 1;
        }
        /* options with a value: --flag VALUE or --flag=VALUE */
        const char *val = NULL;
        char flag[64];
        const char *eq = strchr(a, '=');
        if (eq && (size_t)(eq - a) < sizeof flag) {
            memcpy(flag, a, (size_t)(eq - a));
            flag[eq - a] = 0;
            val = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", a);
        }
        static const char *const valued[] = {"--transcripts", "--seed", "--snapshot", "--tools", "--report",
                                             "--min-pass-rate", "--max-cost", "--max-p95-ms", "--baseline",
                                             "--max-line-bytes", "--assertions", "--approval-level", "--mcp",
                                             "--mcp-token-env", "--mcp-timeout-ms", "--shard", "--shards", NULL};
        bool known = false;
        for (const char *const *v = valued; *v && !known; v++) known = strcmp(*v, flag) == 0;
        if (!known) {
            int r = forge_cli_input_opt("run", argc, argv, &i);
            if (r == 0) r = forge_luaopts_parse(argc, argv, &i, &o->vm);
            if (r == 0) r = forge_live_parse("run", argc, argv, &i, &o->live);
            if (r < 0) return -1;
            if (r > 0) continue;
            forge_cli_error("run: unknown option '%s' (run 'forge help run')", a);
            return -1;
        }
        if (!val) {
            if (i + 1 >= argc) {
                forge_cli_error("run: %s needs a value", flag);
                return -1;
            }
            val = argv[++i];
        }
        if (strcmp(flag, "--transcripts") == 0) o->transcripts = val;
        else if (strcmp(flag, "--seed") == 0) o->seed = val;
        else if (strcmp(flag, "--snapshot") == 0) o->snapshot = val;
        else if (strcmp(flag, "--tools") == 0) o->tools = val;
        else if (strcmp(flag, "--mcp") == 0) {
            if (o->nmcp == 16 || !strchr(val, '=') || val[0] == '=') {
                forge_cli_error("run: --mcp: expected NAME=URL or 'NAME=COMMAND ARGS' (at most 16), got '%s'", val);
                return -1;
            }
            o->mcp[o->nmcp++] = val;
        }
        else if (strcmp(flag, "--mcp-token-env") == 0) o->mcp_token_env = val;
        else if (strcmp(flag, "--shard") == 0) o->shard_spec = val;
        else if (strcmp(flag, "--shards") == 0) {
            char *end;
            o->shards = strtol(val, &end, 10);
            if (*end || o->shards < 1 || o->shards > 100000) {
                forge_cli_error("run: --shards: expected 1 to 100000, got '%s'", val);
                return -1;
            }
        }
        else if (strcmp(flag, "--mcp-timeout-ms") == 0) {
            char *end;
            o->mcp_timeout_ms = strtol(val, &end, 10);
            if (*end || o->mcp_timeout_ms < 1) {
                forge_cli_error("run: --mcp-timeout-ms: expected a positive whole number, got '%s'", val);
                return -1;
            }
        }
        else if (strcmp(flag, "--baseline") == 0) o->baseline = val;
        else if (strcmp(flag, "--approval-level") == 0) {
            if (strcmp(val, "autonomous") && strcmp(val, "cautious") && strcmp(val, "standard") &&
                strcmp(val, "paranoid")) {
                forge_cli_error("run: --approval-level must be autonomous, cautious, standard or "
                                "paranoid, not '%s'", val);
                return -1;
            }
            o->approval_level = val;
        }
        else if (strcmp(flag, "--assertions") == 0) {
            if (o->nafiles == MAX_ASSERTION_FILES) {
                forge_cli_error("run: at most %d --assertions files", MAX_ASSERTION_FILES);
                return -1;
            }
            o->afiles[o->nafiles++] = val;
        }
        else if (strcmp(flag, "--report") == 0) {
            if (forge_cli_report_opt("run", val, o->rformat, o->rpath, &o->nreports, MAX_REPORTS)) return -1;
        } else if (strcmp(flag, "--max-line-bytes") == 0) {
            double d;
            if (forge_cli_number("run", flag, val, 1, 1e15, &d)) return -1;
            o->max_line = (size_t)d;
        } else if (forge_cli_gate_opt("run", flag, val, &o->gates) < 0) {
            return -1;
        }
    }
    if (o->nfiles == 0) {
        forge_cli_error("run: no eval file given (usage: forge run EVAL.json... [OPTIONS])");
        return -1;
    }
    return 0;
}

/* Tool schemas from --tools: {name: schema} as it is, or [{name, schema|parameters|input_schema|
 * inputSchema}] turned into that object; PromptKit descriptors (and YAML files of several
 * documents) are loaded as tools and give their input_schema. */
static cJSON *load_tools(const char *path, struct forge_err *err)
{
    cJSON *doc = NULL;
    bool tools = false;
    if (forge_yaml_is_path(path)) {
        char *text = NULL;
        size_t len = 0;
        if (forge_file_read_input(path, &text, &len, err)) return NULL;
        cJSON *docs = forge_yaml_parse_all(text, len, path, NULL, err);
        forge_free(text);
        if (!docs) return NULL;
        tools = cJSON_GetArraySize(docs) != 1;
        for (const cJSON *d = docs->child; d && !tools; d = d->next)
            tools = forge_promptkit_is_manifest(d) || (cJSON_IsArray(d) && forge_promptkit_is_manifest(d->child));
        if (!tools) doc = cJSON_DetachItemFromArray(docs, 0);
        cJSON_Delete(docs);
    }
    if (tools) {
        /* YAML tool files with PromptKit descriptors or several documents: loaded and checked,
         * with positions, as tools */
        struct forge_toolset ts = {0};
        if (forge_toolset_load_file(&ts, path, err)) {
            forge_toolset_free(&ts);
            return NULL;
        }
        cJSON *out = cJSON_CreateObject();
        for (int i = 0; out && i < ts.n; i++)
            cJSON_AddItemToObject(out, ts.v[i]->name,
                                  cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ts.v[i]->def, "parameters"), 1));
        forge_toolset_free(&ts);
        if (!out) forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return out;
    }
    if (!doc && !(doc = forge_json_load(path, err))) return NULL;
    if (forge_promptkit_is_manifest(doc)) {
        /* a PromptKit descriptor in JSON: its input_schema, checked as a tool */
        struct forge_toolset ts = {0};
        cJSON *out = NULL;
        if (!forge_toolset_load_file(&ts, path, err) && (out = cJSON_CreateObject()))
            cJSON_AddItemToObject(out, ts.v[0]->name,
                                  cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ts.v[0]->def, "parameters"), 1));
        forge_toolset_free(&ts);
        cJSON_Delete(doc);
        return out;
    }
    if (cJSON_IsObject(doc)) return doc;
    cJSON *out = cJSON_CreateObject();
    if (!cJSON_IsArray(doc) || !out) {
        forge_err_set(err, FORGE_EINVAL, "%s: expected an array of tool definitions or an object of schemas", path);
        goto fail;
    }
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, doc) {
        const cJSON *def = t;
        const char *name = forge_json_str(def, "name");
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(def, "function"); /* OpenAI's wrapper */
        if (!name && fn) name = forge_json_str(fn, "name"), def = fn;
        const cJSON *s = NULL;
        static const char *const keys[] = {"schema", "parameters", "input_schema", "inputSchema", NULL};
        for (const char *const *k = keys; *k && !s; k++) s = cJSON_GetObjectItemCaseSensitive(def, *k);
        if (!name || !s) {
            forge_err_set(err, FORGE_EINVAL, "%s: [%d]: a tool definition needs \"name\" and \"schema\" (or parameters, input_schema)", path, i);
            goto fail;
        }
        cJSON_AddItemToObject(out, name, cJSON_Duplicate(s, 1));
        i++;
    }
    cJSON_Delete(doc);
    return out;
fail:
    cJSON_Delete(doc);
    cJSON_Delete(out);
    return NULL;
}

static bool is_lua(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".lua") == 0;
}

/* The suite name of an eval file: its name without folder and .json (.yaml, .yml). */
static void suite_name(const char *file, char *out, size_t n)
{
    const char *f = strrchr(file, '/');
    f = f ? f + 1 : file;
    size_t fl = strlen(f);
    if (fl > 5 && strcmp(f + fl - 5, ".json") == 0)
        fl -= 5;
    else if (fl > 5 && strcmp(f + fl - 5, ".yaml") == 0)
        fl -= 5;
    else if (fl > 4 && strcmp(f + fl - 4, ".yml") == 0)
        fl -= 4;
    if (fl >= n)
        fl = n - 1;
    memcpy(out, f, fl); /* (as snprintf's "%.*s" would, at a tenth of its cost a case) */
    out[fl] = '\0';
}

/* A live run: each eval file is a suite sharing the tools of --tools and the verifiers its Lua
 * defines, run through the agent loop with --model. */
/* An eval file of the run: read a case at a time (forge_cases), or whole (YAML, stdin). Its
 * cases hold places [first, first + n) of the run. */
struct evalsrc {
    const char *path;
    struct forge_cases *rd;
    cJSON *tree;
    const cJSON **elems; /* the tree's cases by index */
    size_t first, n, kept;
    /* as a live run's case source */
    const cJSON *next;
    const struct forge_shard *shard; /* NULL: every case */
};

/* The live run's case source over one eval file: its cases in order (this shard's). */
static int next_case(void *ctx, cJSON **kase, struct forge_err *err)
{
    struct evalsrc *e = ctx;
    for (;;) {
        *kase = NULL;
        if (e->rd) {
            int index;
            uint64_t off;
            int rc = forge_cases_next(e->rd, kase, &index, &off, err);
            if (rc <= 0) return rc;
        } else {
            if (!e->next) return 0;
            *kase = cJSON_Duplicate(e->next, 1);
            e->next = e->next->next;
            if (!*kase) return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
        if (!e->shard || forge_shard_of(forge_json_str(*kase, "id"), e->shard->of) == e->shard->index) return 1;
        cJSON_Delete(*kase);
    }
}

static int run_live(struct opts *o, struct evalsrc *src, struct forge_vm **vmp, const cJSON *seed,
                    const cJSON *snapshot)
{
    struct forge_err err = {0};
    int code = FORGE_EXIT_USAGE;
    char *dir = NULL;
    struct forge_lua_suite *suites = forge_calloc((size_t)o->nfiles, sizeof *suites);
    if (!suites) {
        forge_cli_error("out of memory");
        return FORGE_EXIT_INFRA;
    }
    if (!*vmp) {
        dir = forge_path_dir(o->tools && is_lua(o->tools) ? o->tools : ".");
        o->vm.script_dir = dir;
        if (!dir || !(*vmp = forge_vm_new(&o->vm, &err))) {
            forge_cli_error("%s", dir ? err.msg : "out of memory");
            goto out;
        }
    }
    struct forge_lua_suite *first = &suites[0];
    forge_policy_init(&first->policy);
    if (o->tools) {
        int rc = is_lua(o->tools) ? forge_lua_tools_load(*vmp, o->tools, &first->tools, &err)
                                  : forge_toolset_load_file(&first->tools, o->tools, &err);
        if (rc) {
            forge_cli_error("%s", err.msg);
            if (err.trace[0])
                fprintf(stderr, "%s\n", err.trace);
            goto out;
        }
    }
    for (int i = 0; i < o->nmcp; i++) {
        /* NAME=URL, or NAME=COMMAND ARGS... split on white space */
        const char *eq = strchr(o->mcp[i], '=');
        char name[64], *words = forge_strdup(eq + 1), *argvv[64];
        int n = 0;
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->mcp[i]), o->mcp[i]);
        for (char *save = NULL, *w = words ? strtok_r(words, " \t", &save) : NULL; w && n < 63; w = strtok_r(NULL, " \t", &save))
            argvv[n++] = w;
        argvv[n] = NULL;
        int http = n == 1 && (!strncmp(argvv[0], "http://", 7) || !strncmp(argvv[0], "https://", 8));
        struct forge_mcp_client_opts mo = {.name = name, .url = http ? argvv[0] : NULL, .argv = http ? NULL : argvv,
                                           .token_env = http ? o->mcp_token_env : NULL, .timeout_ms = o->mcp_timeout_ms};
        int rc = !words || !n ? forge_err_set(&err, FORGE_EINVAL, "--mcp %s: no URL or command", o->mcp[i])
                              : forge_mcp_connect(&mo, &o->mcp_clients[i], &err);
        if (!rc)
            rc = forge_mcp_tools_add(o->mcp_clients[i], name, NULL, NULL, &first->tools, &err);
        forge_free(words);
        if (rc) {
            forge_cli_error("%s", err.msg);
            code = forge_cli_exit_code(err.code);
            goto out;
        }
    }
    if (forge_lua_registered_verifiers(*vmp, o->tools ? o->tools : "verifiers", &first->verifiers,
                                       &err)) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    for (int i = 0; i < o->nfiles; i++) {
        char name[512];
        suite_name(o->files[i], name, sizeof name);
        if (i)
            forge_policy_init(&suites[i].policy);
        if (apply_approval(o, &suites[i].policy))
            goto out;
        suites[i].name = forge_strdup(name);
        suites[i].next_case = next_case; /* read a case at a time */
        suites[i].case_ctx = &src[i];
        suites[i].ncases = (long)src[i].kept;
        if (i) { /* the tools and verifiers are the first suite's (not owned here) */
            suites[i].tools = first->tools;
            suites[i].verifiers = first->verifiers;
        }
    }
    struct forge_live_opts *l = &o->live;
    for (int i = 0; i < o->nreports; i++) {
        l->rformat[i] = o->rformat[i];
        l->rpath[i] = o->rpath[i];
    }
    l->nreports = o->nreports;
    l->baseline = o->baseline;
    l->gates = o->gates;
    l->quiet = o->quiet || o->vm.verbose < 0;
    l->seed = seed;
    l->snapshot = snapshot;
    code = forge_live_run(l, *vmp, suites, o->nfiles);
out:
    for (int i = o->nfiles - 1; i >= 0; i--) {
        if (i) {
            memset(&suites[i].tools, 0, sizeof suites[i].tools);
            memset(&suites[i].verifiers, 0, sizeof suites[i].verifiers);
        }
        forge_lua_suite_free(&suites[i]);
    }
    forge_free(suites);
    forge_free(dir);
    return code;
}

/* Rewrites a one-line parse error "NAME:1:COL: ..." to carry the file's line number. */
static void fix_line(struct forge_err *e, const char *name, long lineno)
{
    size_t n = strlen(name);
    if (strncmp(e->msg, name, n) != 0 || e->msg[n] != ':') return;
    char *rest = NULL;
    long l = strtol(e->msg + n + 1, &rest, 10);
    char tail[FORGE_ERR_MAX];
    snprintf(tail, sizeof tail, "%s", rest);
    snprintf(e->msg + n, sizeof e->msg - n, ":%ld%s", lineno + l - 1, tail);
}

/* Every `custom` name the cases use must be registered: a typo is bad input, not a failure. */
static int check_custom_names(const cJSON *const *cases, const char *const *case_file, size_t n,
                              const struct forge_assertions *reg)
{
    for (size_t i = 0; i < n; i++) {
        const cJSON *c = forge_json_get(forge_json_get(cases[i], "expect"), "custom");
        const cJSON *it;
        cJSON_ArrayForEach(it, c) {
            if (forge_assertions_find(reg, it->string)) continue;
            const char *known[65];
            size_t nk = 0;
            for (; nk < forge_assertions_count(reg) && nk < 64; nk++) known[nk] = forge_assertions_name(reg, nk);
            known[nk] = NULL;
            char sug[128];
            forge_evalfile_suggest(it->string, known, sug, sizeof sug);
            if (sug[0])
                forge_cli_error("%s: case \"%s\": expect.custom.%s: no custom assertion named \"%s\" is registered "
                                "(did you mean \"%s\"?)", case_file[i], forge_json_str(cases[i], "id"), it->string,
                                it->string, sug);
            else
                forge_cli_error("%s: case \"%s\": expect.custom.%s: no custom assertion named \"%s\" is registered "
                                "(register it with forge.assertion in a file given with --assertions)",
                                case_file[i], forge_json_str(cases[i], "id"), it->string, it->string);
            return -1;
        }
    }
    return 0;
}

static void print_buf(struct forge_buf *b)
{
    if (b->len) fwrite(b->data, 1, b->len, stdout);
    forge_buf_reset(b);
}


/* The run's cases: every id with its place, where each case's text is, and (sharded) which
 * places this shard runs. */
struct runcases {
    struct forge_idset *ids;
    uint64_t *where;  /* per place: byte offset (read a case at a time) or index in its tree */
    uint32_t *local;  /* sharded: per place, its place among the shard's cases, or UINT32_MAX;
                         NULL when not sharded (each case's place is its own) */
    size_t n, cap, kept;
    int keep_where;   /* recorded runs read cases again */
    int sharded;
};

#define NOT_KEPT UINT32_MAX

/* The place of <place> among the cases this shard runs, or NOT_KEPT. */
static size_t local_of(const struct runcases *rc, size_t place)
{
    return rc->local ? rc->local[place] : place;
}

static int runcases_grow(struct runcases *rc)
{
    if (rc->n < rc->cap) return 0;
    size_t cap = rc->cap ? rc->cap * 2 : 1024;
    if (rc->keep_where) {
        uint64_t *w = forge_realloc(rc->where, cap * sizeof *w);
        if (!w) return -1;
        rc->where = w;
    }
    if (rc->sharded) {
        uint32_t *l = forge_realloc(rc->local, cap * sizeof *l);
        if (!l) return -1;
        rc->local = l;
    }
    rc->cap = cap;
    return 0;
}

/* The file a place belongs to. */
static const struct evalsrc *file_of(const struct evalsrc *src, int nfiles, size_t place)
{
    int i = 0;
    while (i + 1 < nfiles && place >= src[i + 1].first) i++;
    return &src[i];
}

/* Reads the case of <place> again (a new tree). */
static int case_at(const struct evalsrc *src, int nfiles, const struct runcases *rcs, size_t place, const char *id,
                   cJSON **kase, struct forge_err *err)
{
    const struct evalsrc *e = file_of(src, nfiles, place);
    if (e->rd) return forge_cases_read_at(e->rd, rcs->where[place], (int)(place - e->first), id, kase, err);
    *kase = cJSON_Duplicate(e->elems[rcs->where[place]], 1);
    return *kase ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
}

/* Cases and transcripts read by a recorded run are parsed into the thread's arena (data/jarena)
 * while cJSON's hooks allow it, and scoring only reads them: a case's trees are dropped whole
 * when the next one is read, instead of a free per node. Frees a tree that is not in the arena. */
static void tree_free(cJSON *t)
{
    if (!forge_jarena_owns(t)) cJSON_Delete(t);
}

/* Tells the id set whether the case of <place> has a given id (the set keeps hashes only): reads
 * the id back from the tree, or the eval file at the case's offset, or (a live run keeps no
 * offsets; only when two hashes are equal) by reading the file again up to the case. A match
 * read from the file is kept in <kase> for the caller. */
struct idctx {
    const struct evalsrc *src;
    int nfiles;
    const struct runcases *rcs;
    cJSON *kase;
    struct forge_err err;
};

/* An idctx with an empty error, set field by field (a case's lookup must not clear the error's
 * 4 KiB each time, as `= {0}` would). */
static void idctx_init(struct idctx *x, const struct evalsrc *src, int nfiles, const struct runcases *rcs)
{
    x->src = src;
    x->nfiles = nfiles;
    x->rcs = rcs;
    x->kase = NULL;
    x->err.code = 0;
    x->err.msg[0] = 0;
    x->err.trace[0] = 0;
}

static int same_id(void *ctx, size_t place, const char *id)
{
    struct idctx *x = ctx;
    const struct evalsrc *e = file_of(x->src, x->nfiles, place);
    size_t k = place - e->first;
    tree_free(x->kase);
    x->kase = NULL;
    if (e->tree) {
        const char *got = forge_json_str(e->elems[k], "id");
        return got && strcmp(got, id) == 0;
    }
    cJSON *kase = NULL;
    if (x->rcs->keep_where) {
        if (forge_cases_read_at(e->rd, x->rcs->where[place], (int)k, NULL, &kase, &x->err)) return -1;
    } else {
        struct forge_cases *rd = forge_cases_open(e->path, &x->err);
        if (!rd) return -1;
        for (size_t i = 0; i <= k; i++) {
            int index;
            uint64_t off;
            tree_free(kase);
            kase = NULL;
            int got = forge_cases_next(rd, &kase, &index, &off, &x->err);
            if (got <= 0) {
                if (!got) forge_err_set(&x->err, FORGE_EIO, "%s: case [%zu] is gone (was the file changed?)", e->path, k);
                forge_cases_close(rd);
                return -1;
            }
        }
        forge_cases_close(rd);
    }
    const char *got = forge_json_str(kase, "id");
    if (got && strcmp(got, id) == 0) {
        x->kase = kase;
        return 1;
    }
    tree_free(kase);
    return 0;
}

/* Reads every eval file once: checks each case (and its custom assertion names), gives each id
 * its place, builds the shard's header. Prints the error and returns -1 on bad input, -2 when
 * out of memory. */
static int index_cases(struct evalsrc *src, int nfiles, struct runcases *rcs, struct forge_shard_hdr *hdr,
                       const struct forge_assertions *registry)
{
    struct forge_err err = {0};
    for (int fi = 0; fi < nfiles; fi++) {
        struct evalsrc *e = &src[fi];
        e->first = rcs->n;
        if (!forge_cases_lazy(e->path)) {
            if (forge_evalfile_load(e->path, &e->tree, &err)) {
                forge_cli_error("%s", err.msg);
                return -1;
            }
            e->elems = forge_calloc((size_t)cJSON_GetArraySize(e->tree) + 1, sizeof *e->elems);
            if (!e->elems) return -2;
        } else if (!(e->rd = forge_cases_open(e->path, &err))) {
            forge_cli_error("%s", err.msg);
            return -1;
        }
        const cJSON *tk = e->tree ? e->tree->child : NULL;
        for (size_t k = 0;; k++) {
            cJSON *owned = NULL;
            const cJSON *kase;
            uint64_t off = k;
            forge_jarena_reset(); /* the last case's tree */
            if (e->rd) {
                int index;
                forge_jarena_on(true);
                int got = forge_cases_next(e->rd, &owned, &index, &off, &err);
                forge_jarena_on(false);
                if (got < 0) goto bad_file;
                if (!got) break;
                kase = owned;
            } else {
                if (!tk) break;
                kase = e->elems[k] = tk;
                tk = tk->next;
            }
            const char *id = forge_json_str(kase, "id");
            if (!id) id = ""; /* checked: a case has one */
            if (runcases_grow(rcs)) {
                tree_free(owned);
                return -2;
            }
            struct idctx x;
            idctx_init(&x, src, fi + 1, rcs);
            int64_t at = forge_idset_add(rcs->ids, id, same_id, &x);
            tree_free(x.kase);
            if (at == INT64_MIN) {
                tree_free(owned);
                if (!x.err.code) return -2;
                forge_cli_error("%s", x.err.msg);
                return -1;
            }
            if (at < 0) {
                size_t was = (size_t)(-1 - at);
                const struct evalsrc *other = file_of(src, fi + 1, was);
                if (other == e && e->rd) {
                    char what[600];
                    snprintf(what, sizeof what, "duplicate case id \"%s\"", id);
                    forge_cases_fail(e->rd, "id", what, &err);
                    tree_free(owned);
                    goto bad_file;
                }
                forge_cli_error("%s: case id \"%s\" is also used in %s (ids must be unique across the run)", e->path, id,
                                other->path);
                tree_free(owned);
                return -1;
            }
            int keep = 1;
            if (hdr->s.of) {
                keep = forge_shard_hdr_add(hdr, id);
                if (keep < 0) {
                    tree_free(owned);
                    return -2;
                }
            }
            if (keep && check_custom_names(&kase, (const char *const *)&e->path, 1, registry)) {
                tree_free(owned);
                return -1;
            }
            if (rcs->keep_where) rcs->where[rcs->n] = off;
            if (rcs->local) rcs->local[rcs->n] = keep ? (uint32_t)rcs->kept : NOT_KEPT;
            rcs->kept += keep != 0;
            e->kept += keep != 0;
            rcs->n++;
            tree_free(owned);
        }
        e->n = rcs->n - e->first;
        if (e->rd && forge_cases_rewind(e->rd, &err)) {
            forge_cli_error("%s", err.msg);
            return -1;
        }
        continue;
bad_file:
        /* the message of record is the whole file's, when it can be read whole */
        if (err.code != FORGE_ENOMEM && err.code != FORGE_EIO) {
            struct forge_err whole = {0};
            cJSON *t = NULL;
            if (forge_evalfile_load(e->path, &t, &whole) && whole.code != FORGE_ELIMIT) err = whole;
            cJSON_Delete(t);
        }
        forge_cli_error("%s", err.msg);
        return err.code == FORGE_ENOMEM ? -2 : -1;
    }
    return 0;
}

int forge_cmd_run(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof o);
    forge_vm_opts_init(&o.vm);
    forge_live_opts_init(&o.live);
    struct forge_vm *vm = NULL;
    char *script_dir = NULL;
    struct forge_err err = {0};
    int exit_code = FORGE_EXIT_USAGE;
    cJSON *seed = NULL, *snapshot = NULL, *tools = NULL, *baseline = NULL;
    struct forge_live_count count = {0}; /* the recorded run's statistics as its results come */
    cJSON *shard_header = NULL, *result = NULL;
    struct evalsrc *src = NULL;
    struct runcases rcs = {0};
    struct forge_shard sh = {0, 0};
    struct forge_shard_hdr hdr;
    memset(&hdr, 0, sizeof hdr);
    struct forge_results *res = NULL;
    const struct forge_assertions *registry = NULL;
    FILE *tf = NULL;
    struct forge_lines lines = {0};
    struct forge_buf out;
    forge_buf_init(&out, 0);

    int pa = parse_args(argc, argv, &o);
    if (pa > 0) {
        exit_code = FORGE_EXIT_OK;
        goto out;
    }
    if (pa) goto out;
    if (o.shard_spec || o.shards) {
        if (o.shard_spec && o.shards) {
            forge_cli_error("run: give --shard I/N or --shards N, not both");
            goto out;
        }
        if (o.shard_spec ? forge_shard_parse(o.shard_spec, &sh, &err) : forge_shard_from_env((int)o.shards, &sh, &err)) {
            forge_cli_error("run: %s", err.msg);
            goto out;
        }
    }
    if (o.nafiles) {
        script_dir = forge_path_dir(o.afiles[0]);
        o.vm.script_dir = script_dir;
        if (!script_dir || !(vm = forge_vm_new(&o.vm, &err))) {
            forge_cli_error("%s", script_dir ? err.msg : "out of memory");
            goto out;
        }
        for (int i = 0; i < o.nafiles; i++) {
            if (forge_vm_load_file(vm, o.afiles[i], &err) || forge_vm_call(vm, 0, 0, &err)) {
                forge_cli_error("%s", err.msg);
                if (err.trace[0]) fprintf(stderr, "%s\n", err.trace);
                goto out;
            }
        }
        if (!(registry = forge_lua_assertions(vm))) goto nomem;
    }
    /* every case read once, checked and given its place; a recorded run remembers where each is */
    src = forge_calloc((size_t)o.nfiles, sizeof *src);
    rcs.ids = forge_idset_new();
    rcs.keep_where = !o.live.prov.model;
    rcs.sharded = sh.of != 0;
    if (!src || !rcs.ids || (sh.of && forge_shard_hdr_init(&hdr, &sh))) goto nomem;
    for (int i = 0; i < o.nfiles; i++) src[i].path = o.files[i];
    int ix = index_cases(src, o.nfiles, &rcs, &hdr, registry);
    if (ix == -2) goto nomem;
    if (ix) goto out;
    size_t nc = rcs.kept;
    if (sh.of) {
        if (!(shard_header = forge_shard_hdr_finish(&hdr))) goto nomem;
        fprintf(stderr, "forge: shard %d/%d: %zu of %zu cases\n", sh.index, sh.of, nc, rcs.n);
        o.live.shard_header = shard_header;
    }
    if ((o.seed && !(seed = forge_json_load(o.seed, &err))) ||
        (o.snapshot && !(snapshot = forge_json_load(o.snapshot, &err))) ||
        (o.tools && !is_lua(o.tools) && !(tools = load_tools(o.tools, &err))) ||
        (o.baseline && !(baseline = forge_json_load(o.baseline, &err)))) {
        forge_cli_error("%s", err.msg);
        goto out;
    }
    if (baseline && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(baseline, "cases"))) {
        forge_cli_error("%s: not a forge JSON report (no \"cases\" array)", o.baseline);
        goto out;
    }
    if (o.dry_run) {
        printf("%zu case%s in %d file%s: ok\n", nc, nc == 1 ? "" : "s", o.nfiles, o.nfiles == 1 ? "" : "s");
        exit_code = FORGE_EXIT_OK;
        goto out;
    }
    if (o.live.prov.model) {
        if (o.transcripts) {
            forge_cli_error("run: --transcripts scores recorded runs and --model makes live ones: give one of them");
            goto out;
        }
        /* the ids were for the checks: a live run reads the cases again, in order */
        forge_idset_free(rcs.ids);
        rcs.ids = NULL;
        FORGE_FREE(rcs.local);
        for (int i = 0; i < o.nfiles; i++) {
            src[i].next = src[i].tree ? src[i].tree->child : NULL;
            src[i].shard = sh.of ? &sh : NULL;
        }
        exit_code = run_live(&o, src, &vm, seed, snapshot);
        goto out;
    }
    if (o.tools && is_lua(o.tools)) {
        forge_cli_error("run: --tools %s: Lua tools run only in live runs (add --model)", o.tools);
        goto out;
    }
    if (o.nmcp) {
        forge_cli_error("run: --mcp %s: MCP tools run only in live runs (add --model)", o.mcp[0]);
        goto out;
    }
    if (!o.transcripts) {
        forge_cli_error("run: nothing to score: give --transcripts FILE (recorded trajectories) or --model SPEC "
                        "(a live run), or check the files with --dry-run");
        goto out;
    }
    const char *jsonl = NULL;
    bool html = false;
    for (int i = 0; i < o.nreports; i++) {
        if (strcmp(o.rformat[i], "html") == 0) {
            if (html) {
                forge_cli_error("run: only one html report per run");
                goto out;
            }
            html = true;
        }
        if (strcmp(o.rformat[i], "jsonl") != 0) continue;
        if (jsonl) {
            forge_cli_error("run: only one jsonl report per run");
            goto out;
        }
        jsonl = o.rpath[i];
    }
    /* the results file: the jsonl report, or a temporary file the reports are read from */
    if (!(res = forge_results_create(jsonl, &err)) || (shard_header && forge_results_write_line(res, shard_header, &err))) {
        forge_cli_error("%s", err.msg);
        exit_code = FORGE_EXIT_INFRA;
        goto out;
    }
    if (forge_live_count_init(&count, baseline)) {
        exit_code = FORGE_EXIT_INFRA;
        goto out;
    }

    /* the JSON, JSONL and HTML reports show every assertion; the others only failures */
    bool full = false;
    for (int i = 0; i < o.nreports; i++)
        full = full || strcmp(o.rformat[i], "json") == 0 || strcmp(o.rformat[i], "jsonl") == 0 ||
               strcmp(o.rformat[i], "html") == 0;
    struct forge_eval_opts eo = {.seed = seed, .snapshot = snapshot, .tools = tools, .custom = registry,
                                 .lean = !full};
    bool from_stdin = strcmp(o.transcripts, "-") == 0;
    const char *tname = from_stdin ? "<stdin>" : o.transcripts;
    struct stat st;
    if (!from_stdin && stat(tname, &st) == 0 && S_ISDIR(st.st_mode)) {
        forge_cli_error("%s: is a directory", tname);
        goto out;
    }
    tf = from_stdin ? stdin : fopen(o.transcripts, "r");
    if (!tf) {
        forge_cli_error("%s: cannot read: %s", tname, strerror(errno));
        goto out;
    }
    forge_lines_init(&lines, tf, o.max_line);
    const char *line;
    size_t len;
    int got;
    long lineno = 0;
    while ((got = forge_lines_next(&lines, &line, &len)) != 0) {
        lineno = lines.lineno;
        if (got == FORGE_ELIMIT) {
            forge_cli_error("%s:%ld: line longer than %zu bytes (the limit; raise it with --max-line-bytes)",
                            tname, lineno, o.max_line);
            goto out;
        }
        if (got < 0) {
            forge_cli_error("%s: read failed: %s", tname, strerror(errno));
            goto out;
        }
        size_t n = len;
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t')) lead++;
        if (lead == n) continue;
        forge_jarena_reset(); /* the last transcript's trees */
        forge_jarena_on(true);
        cJSON *traj = forge_json_parse(line, n, tname, &err);
        forge_jarena_on(false);
        if (!traj) {
            fix_line(&err, tname, lineno);
            forge_cli_error("%s", err.msg);
            goto out;
        }
        const char *tid = forge_json_str(traj, "trajectory_id");
        if (!cJSON_IsObject(traj) || !tid || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(traj, "turns"))) {
            forge_cli_error("%s:%ld: expected a forge-format trajectory (an object with \"trajectory_id\" and \"turns\")",
                            tname, lineno);
            tree_free(traj);
            goto out;
        }
        struct idctx x;
        idctx_init(&x, src, o.nfiles, &rcs);
        forge_jarena_on(true);
        int64_t place = forge_idset_find(rcs.ids, tid, same_id, &x);
        forge_jarena_on(false);
        if (place == INT64_MIN) {
            tree_free(traj);
            forge_cli_error("%s", x.err.msg[0] ? x.err.msg : "out of memory");
            exit_code = FORGE_EXIT_INFRA;
            goto out;
        }
        if (place < 0 || local_of(&rcs, (size_t)place) == NOT_KEPT) {
            tree_free(x.kase);
            /* another shard's case: not this shard's business */
            if (place < 0)
                fprintf(stderr, "forge: warning: %s:%ld: transcript \"%s\" matches no case\n", tname, lineno, tid);
            tree_free(traj);
            continue;
        }
        size_t ci = local_of(&rcs, (size_t)place);
        if (forge_results_has(res, ci)) {
            fprintf(stderr, "forge: warning: %s:%ld: a second transcript for case \"%s\" is ignored\n", tname,
                    lineno, tid);
            tree_free(x.kase);
            tree_free(traj);
            continue;
        }
        /* read from the file while matching its id, or still to be copied from the tree */
        cJSON *kase = x.kase;
        forge_jarena_on(true);
        int rc = kase ? 0 : case_at(src, o.nfiles, &rcs, (size_t)place, tid, &kase, &err);
        forge_jarena_on(false);
        if (!rc) rc = forge_eval_case(kase, traj, &eo, &result, &err);
        tree_free(kase);
        if (rc) {
            tree_free(traj);
            forge_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
            exit_code = FORGE_EXIT_INFRA;
            goto out;
        }
        /* the suite a case belongs to: its eval file's name without folder and extension */
        char sname[512];
        suite_name(file_of(src, o.nfiles, (size_t)place)->path, sname, sizeof sname);
        cJSON_AddStringToObject(result, "suite", sname);
        /* the record carries the trajectory for the jsonl and html reports */
        rc = forge_results_put_case(res, ci, result, jsonl || html ? traj : NULL, &err);
        if (!rc)
            forge_tally_add(count.tally, ci, result);
        tree_free(traj);
        if (rc) {
            forge_cli_error("%s", err.msg);
            exit_code = FORGE_EXIT_INFRA;
            goto out;
        }
        if (!o.quiet || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "passed"))) {
            if (forge_report_console_case(&out, result)) goto nomem;
            print_buf(&out);
        }
        FORGE_CJSON_DROP(result);
    }

    /* cases without a transcript are error cases */
    for (size_t place = 0; place < rcs.n; place++) {
        size_t ci = local_of(&rcs, (size_t)place);
        if (ci == NOT_KEPT || forge_results_has(res, ci)) continue;
        cJSON *kase = NULL;
        int rc = case_at(src, o.nfiles, &rcs, place, NULL, &kase, &err);
        if (!rc) rc = forge_eval_case(kase, NULL, &eo, &result, &err);
        cJSON_Delete(kase);
        if (rc) {
            forge_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
            exit_code = FORGE_EXIT_INFRA;
            goto out;
        }
        char sname[512];
        suite_name(file_of(src, o.nfiles, place)->path, sname, sizeof sname);
        cJSON_AddStringToObject(result, "suite", sname);
        if (forge_results_put(res, ci, result, &err)) {
            forge_cli_error("%s", err.msg);
            exit_code = FORGE_EXIT_INFRA;
            goto out;
        }
        forge_tally_add(count.tally, ci, result);
        if (forge_report_console_case(&out, result)) goto nomem;
        print_buf(&out);
        FORGE_CJSON_DROP(result);
    }
    fflush(stdout);
    bool passed = false;
    int rc = forge_live_report(res, jsonl != NULL, &o.gates, baseline, o.rformat, o.rpath, o.nreports, &count,
                               &passed);
    res = NULL;
    if (rc) {
        exit_code = rc;
        goto out;
    }
    exit_code = passed ? FORGE_EXIT_OK : FORGE_EXIT_FAIL;
    goto out;
nomem:
    forge_cli_error("out of memory");
    exit_code = FORGE_EXIT_INFRA;
out:
    forge_live_count_free(&count);
    forge_jarena_drop();
    forge_buf_free(&out);
    forge_results_close(res, false, NULL);
    if (tf && tf != stdin) fclose(tf);
    forge_lines_free(&lines);
    cJSON_Delete(result);
    for (int i = 0; src && i < o.nfiles; i++) {
        forge_cases_close(src[i].rd);
        cJSON_Delete(src[i].tree);
        forge_free(src[i].elems);
    }
    forge_free(src);
    forge_idset_free(rcs.ids);
    forge_free(rcs.where);
    forge_free(rcs.local);
    forge_shard_hdr_free(&hdr);
    cJSON_Delete(seed);
    cJSON_Delete(snapshot);
    cJSON_Delete(shard_header);
    cJSON_Delete(tools);
    cJSON_Delete(baseline);
    forge_vm_free(vm);
    for (int i = 0; i < o.nmcp; i++)
        forge_mcp_close(o.mcp_clients[i]); /* after the tools that call them are gone */
    forge_free(script_dir);
    forge_luaopts_free(&o.vm);
    forge_free(o.files);
    return exit_code;
}
