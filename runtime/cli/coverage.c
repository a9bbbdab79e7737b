/* forge coverage: what the evals do not cover; forge gen evals|verifiers: drafts for the gaps
 * (docs/coverage.md). */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/file.h"
#include "data/json.h"
#include "eval/coverage.h"
#include "eval/evalfile.h"
#include "eval/gen.h"
#include "lua/l_suite.h"
#include "model/provider.h"
#include "report/coverage.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char forge_usage_coverage[] =
    "usage: forge coverage TOOLS [EVALS...] [OPTIONS]\n"
    "\n"
    "Reports what the eval files do not test about the tools: tools no golden case expects, no\n"
    "labeled case names, never expected to be called or not to be called; pairs of tools with\n"
    "similar descriptions that no labeled case tells apart; tools without a verifier; enum values\n"
    "and optional arguments no case exercises. TOOLS is a Lua tools file (its verifiers count), or\n"
    "JSON/YAML tool definitions (forge's, OpenAI's, or an MCP tools/list result). The coverage\n"
    "figure is covered items / items (docs/coverage.md).\n"
    "\n"
    "options:\n"
    "  --format F               text (default), json or md\n"
    "  --min-coverage X         exit 1 when the coverage figure is below X (0 to 1)\n"
    "  --overlap-threshold X    similarity (token-set Jaccard) from which two tools overlap\n"
    "                           (default 0.3; 0 < X <= 1)\n"
    "  --ignore KINDS           leave kinds out of the report and the figure (comma-separated:\n"
    "                           golden, labeled, called, not_called, verifier, overlap, cluster,\n"
    "                           enum, optional)\n"
    "  --verifiers FILE.lua     a Lua script whose forge.verifier{...} count beside those of a Lua\n"
    "                           tools file (for JSON tools, which have none)\n"
    "  --overlap-map FILE       agent-tool-forge's overlap map (JSON or YAML): {tool: {overlaps:\n"
    "                           [tools], clusters: [[tools]]}}; declared pairs overlap whatever\n"
    "                           their similarity, and each cluster needs a labeled case naming\n"
    "                           all of its tools\n"
    "  --max-file-mb MIB        largest tools or eval file, in MiB (default 256)\n"
    "  --max-json-nodes N       most JSON values in one input file (default 10000000)\n"
    "  --allow-read PATH, --lua-instructions N, --lua-memory MIB, --lua-timeout MS\n"
    "                           sandbox limits of a Lua tools file (as for forge script)\n"
    "\n"
    "Exit codes: 0 reported, 1 below --min-coverage, 2 bad usage or input.\n";

const char forge_usage_gen[] =
    "usage: forge gen evals --tools TOOLS --model SPEC [--out DIR] [EVALS...] [OPTIONS]\n"
    "       forge gen verifiers --tools TOOLS [--verifiers FILE.lua] [--out FILE] [OPTIONS]\n"
    "\n"
    "evals asks a model (scripted:RULES.lua or provider:model) for a golden or labeled case for\n"
    "each gap forge coverage finds in TOOLS and EVALS (and in the files it would add to), checks\n"
    "each answer against the eval-file format and that it closes its gap (else tells the model why\n"
    "and asks again), and appends the new cases, with new ids, to <DIR>/<tool>.golden.json or\n"
    "<tool>.labeled.json: existing files keep every byte of their cases; no case is replaced.\n"
    "verifiers writes Lua verifier stubs (forge.verifier, passing until edited) for the tools\n"
    "without a verifier, one per output group; it never overwrites FILE.\n"
    "\n"
    "options:\n"
    "  --tools FILE             the tools (Lua, JSON or YAML), as forge coverage takes them\n"
    "  --out PATH               evals: folder of the eval files (default .); verifiers: the Lua\n"
    "                           file to write (default: standard output)\n"
    "  --verifiers FILE.lua     verifiers: those the script defines guard their tools too\n"
    "  --dry-run                evals: print the drafted cases as JSON, write nothing\n"
    "  --max-drafts N           evals: most cases drafted in one run (default 50)\n"
    "  --attempts N             evals: answers asked per gap before giving up (default 3)\n"
    "  --overlap-threshold X    as in forge coverage (default 0.3)\n"
    "  --ignore KINDS           as in forge coverage: gaps of these kinds are not drafted\n"
    "  --overlap-map FILE       as in forge coverage\n"
    "  -q, --quiet              evals: no progress lines (shown on a terminal: the gap being drafted)\n"
    "  --max-file-mb MIB        largest tools or eval file, in MiB (default 256)\n"
    "  --max-json-nodes N       most JSON values in one input file (default 10000000)\n"
    "  --allow-read PATH, --lua-instructions N, --lua-memory MIB, --lua-timeout MS\n"
    "                           sandbox limits of a Lua tools file (as for forge script)\n"
    "\n" FORGE_PROVIDER_OPTS_USAGE
    "\n"
    "Exit codes: 0 done, 1 a gap no answer closed, 2 bad usage or input, 3 the model failed.\n";

/* ---- shared: tools, verifiers, evals ------------------------------------------------------- */

struct src {
    struct forge_vm_opts vo;
    struct forge_vm *vm;
    char *dir;
    struct forge_toolset tools;
    struct forge_verifiers ver;
    cJSON *defs;    /* tool definitions */
    cJSON *guards;  /* tool name -> verifier names */
    cJSON *taken;   /* every verifier name */
    cJSON *cases;   /* [{file, case}] */
    cJSON *map;     /* --overlap-map */
    const cJSON **ids; /* hash set of the cases' entries by id (open addressing) */
    size_t nids, capids;
    const char *map_path;
    const char *verifiers_path; /* --verifiers FILE.lua */
    struct forge_cov_opts cov;
};

static void src_free(struct src *s)
{
    forge_verifiers_free(&s->ver);
    forge_toolset_free(&s->tools);
    forge_vm_free(s->vm);
    forge_free(s->dir);
    cJSON_Delete(s->defs);
    cJSON_Delete(s->guards);
    cJSON_Delete(s->taken);
    cJSON_Delete(s->cases);
    cJSON_Delete(s->map);
    forge_free(s->ids);
    forge_luaopts_free(&s->vo);
}

static bool is_lua(const char *p)
{
    size_t n = strlen(p);
    return n > 4 && strcmp(p + n - 4, ".lua") == 0;
}

static int open_vm(struct src *s, const char *near, const char *cmd)
{
    if (s->vm)
        return 0;
    struct forge_err err = {0};
    s->dir = forge_path_dir(near);
    s->vo.script_dir = s->dir;
    if (!s->dir || !(s->vm = forge_vm_new(&s->vo, &err))) {
        forge_cli_error("%s: %s", cmd, s->dir ? err.msg : "out of memory");
        return FORGE_EXIT_USAGE;
    }
    return 0;
}

/* Loads the tools (and the verifiers of a Lua tools file). Returns 0 or an exit code. */
static int load_tools(struct src *s, const char *path, const char *cmd)
{
    struct forge_err err = {0};
    int rc;
    if (is_lua(path)) {
        if ((rc = open_vm(s, path, cmd)))
            return rc;
        rc = forge_lua_tools_load(s->vm, path, &s->tools, &err);
    } else {
        rc = forge_toolset_load_file(&s->tools, path, &err);
    }
    if (!rc && s->verifiers_path) {
        if (!is_lua(s->verifiers_path)) {
            forge_cli_error("%s: --verifiers %s: expected a Lua file (forge.verifier{...})", cmd, s->verifiers_path);
            return FORGE_EXIT_USAGE;
        }
        if ((rc = open_vm(s, s->verifiers_path, cmd)))
            return rc;
        rc = forge_vm_load_file(s->vm, s->verifiers_path, &err);
        if (!rc)
            rc = forge_vm_call(s->vm, 0, 0, &err);
    }
    if (!rc && (is_lua(path) || s->verifiers_path))
        rc = forge_lua_registered_verifiers(s->vm, s->verifiers_path ? s->verifiers_path : path, &s->ver, &err);
    if (rc) {
        forge_cli_error("%s: %s", cmd, err.msg);
        if (err.trace[0])
            fprintf(stderr, "%s\n", err.trace);
        return forge_cli_exit_code(rc) == FORGE_EXIT_INFRA ? FORGE_EXIT_INFRA : FORGE_EXIT_USAGE;
    }
    s->defs = cJSON_CreateArray();
    s->guards = cJSON_CreateObject();
    s->taken = cJSON_CreateArray();
    for (int i = 0; i < s->tools.n; i++) {
        const struct forge_tool *t = s->tools.v[i];
        cJSON_AddItemToArray(s->defs, cJSON_Duplicate(t->def, 1));
        cJSON *g = cJSON_AddArrayToObject(s->guards, t->name);
        for (int k = 0; k < s->ver.n; k++) {
            const struct forge_verifier *v = s->ver.v[k];
            for (int j = 0; j < v->ntools; j++)
                if (!strcmp(v->tools[j], t->name) || !strcmp(v->tools[j], "*")) {
                    cJSON_AddItemToArray(g, cJSON_CreateString(v->name));
                    break;
                }
        }
    }
    for (int k = 0; k < s->ver.n; k++)
        cJSON_AddItemToArray(s->taken, cJSON_CreateString(s->ver.v[k]->name));
    if (s->map_path) {
        if (!(s->map = forge_json_load(s->map_path, &err))) {
            forge_cli_error("%s: --overlap-map %s", cmd, err.msg);
            return FORGE_EXIT_USAGE;
        }
        if (forge_coverage_check_map(s->map, s->defs, &err)) {
            forge_cli_error("%s: --overlap-map %s: %s", cmd, s->map_path, err.msg);
            return FORGE_EXIT_USAGE;
        }
        s->cov.overlap_map = s->map;
    }
    return 0;
}

static const char *entry_id(const cJSON *entry)
{
    return forge_json_str(cJSON_GetObjectItemCaseSensitive(entry, "case"), "id");
}

/* Seeded per process (base/hash.h): names crafted to collide in one run do not in the next. */
static size_t hash_id(const char *s)
{
    return (size_t)forge_hash_str(s);
}

/* The entry already holding <id>, after adding <entry> when there is none. NULL when added;
 * <entry> itself when out of memory. */
static const cJSON *claim_id(struct src *s, const char *id, const cJSON *entry)
{
    if ((s->nids + 1) * 2 > s->capids) {
        size_t cap = s->capids ? s->capids * 2 : 1024;
        const cJSON **v = forge_calloc(cap, sizeof *v);
        if (!v)
            return entry;
        for (size_t i = 0; i < s->capids; i++)
            if (s->ids[i]) {
                size_t h = hash_id(entry_id(s->ids[i])) & (cap - 1);
                while (v[h])
                    h = (h + 1) & (cap - 1);
                v[h] = s->ids[i];
            }
        forge_free(s->ids);
        s->ids = v;
        s->capids = cap;
    }
    size_t h = hash_id(id) & (s->capids - 1);
    for (; s->ids[h]; h = (h + 1) & (s->capids - 1))
        if (!strcmp(entry_id(s->ids[h]), id))
            return s->ids[h];
    s->ids[h] = entry;
    s->nids++;
    return NULL;
}

/* Adds the cases of the eval file <path>; ids must be unique across the files. */
static int load_evals(struct src *s, const char *path, const char *cmd)
{
    struct forge_err err = {0};
    cJSON *cases = NULL;
    if (!s->cases)
        s->cases = cJSON_CreateArray();
    if (forge_evalfile_load(path, &cases, &err)) {
        forge_cli_error("%s: %s", cmd, err.msg);
        return FORGE_EXIT_USAGE;
    }
    int rc = 0;
    while (cases->child && !rc) {
        cJSON *c = cJSON_DetachItemViaPointer(cases, cases->child);
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddStringToObject(entry, "file", path);
        cJSON_AddItemToObject(entry, "case", c);
        cJSON_AddItemToArray(s->cases, entry);
        const char *id = forge_json_str(c, "id");
        const cJSON *other = id ? claim_id(s, id, entry) : NULL;
        if (other == entry) {
            forge_cli_error("%s: out of memory", cmd);
            rc = FORGE_EXIT_INFRA;
        } else if (other) {
            forge_cli_error("%s: %s: case id \"%s\" is also in %s (ids must be unique across the files)",
                            cmd, path, id, forge_json_str(other, "file"));
            rc = FORGE_EXIT_USAGE;
        }
    }
    cJSON_Delete(cases);
    return rc;
}

static int parse_unit(const char *cmd, const char *flag, const char *val, bool zero_ok, double *out)
{
    char *end = NULL;
    errno = 0;
    double d = val ? strtod(val, &end) : 0;
    if (!val || !*val || *end || errno || !(d >= 0 && d <= 1) || (!zero_ok && d == 0)) {
        forge_cli_error("%s: %s takes a number %s 0 to 1, not '%s'", cmd, flag, zero_ok ? "from" : "above",
                        val ? val : "");
        return -1;
    }
    *out = d;
    return 0;
}

static int parse_ignore(const char *cmd, const char *val, struct forge_cov_opts *o)
{
    const char *p = val;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        int k = 0;
        for (; k < FORGE_COV_NKINDS; k++)
            if (strlen(forge_coverage_kinds[k]) == n && !strncmp(forge_coverage_kinds[k], p, n))
                break;
        if (k == FORGE_COV_NKINDS) {
            forge_cli_error("%s: --ignore: unknown kind '%.*s' (the kinds: golden, labeled, called, not_called, "
                            "verifier, overlap, cluster, enum, optional)", cmd, (int)n, p);
            return -1;
        }
        o->ignore[k] = true;
        p += n + (p[n] == ',');
    }
    return 0;
}

static int parse_count(const char *cmd, const char *flag, const char *val, long most, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = val ? strtol(val, &end, 10) : 0;
    if (!val || !*val || *end || errno || v < 1 || v > most) {
        forge_cli_error("%s: %s takes a whole number from 1 to %ld, not '%s'", cmd, flag, most, val ? val : "");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The value of option argv[*i] (its next word, or after '='), or NULL when argv[*i] is not
 * <flag>. Sets *missing when the value is absent. */
static const char *value_of(int argc, char **argv, int *i, const char *flag, bool *missing)
{
    size_t n = strlen(flag);
    const char *a = argv[*i];
    if (strncmp(a, flag, n) != 0 || (a[n] != '\0' && a[n] != '='))
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* ---- forge coverage ----------------------------------------------------------------------- */

int forge_cmd_coverage(int argc, char **argv)
{
    struct src s = {0};
    forge_vm_opts_init(&s.vo);
    s.cov.overlap = FORGE_COV_OVERLAP_DEFAULT;
    const char *format = "text", *tools = NULL;
    double min = -1;
    int code = FORGE_EXIT_USAGE;
    const char **evals = forge_calloc((size_t)argc + 1, sizeof *evals);
    int nevals = 0;
    if (!evals)
        return FORGE_EXIT_INFRA;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(forge_usage_coverage, stdout);
            code = 0;
            goto out;
        }
        if ((v = value_of(argc, argv, &i, "--format", &missing))) {
            if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "md")) {
                forge_cli_error("coverage: --format: '%s' is not text, json or md", v);
                goto out;
            }
            format = v;
        } else if ((v = value_of(argc, argv, &i, "--min-coverage", &missing))) {
            if (parse_unit("coverage", "--min-coverage", v, true, &min))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--overlap-threshold", &missing))) {
            if (parse_unit("coverage", "--overlap-threshold", v, false, &s.cov.overlap))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--ignore", &missing))) {
            if (parse_ignore("coverage", v, &s.cov))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--overlap-map", &missing))) {
            s.map_path = v;
        } else if ((v = value_of(argc, argv, &i, "--verifiers", &missing))) {
            s.verifiers_path = v;
        } else if (missing) {
            forge_cli_error("coverage: %s needs a value", a);
            goto out;
        } else {
            int r = forge_cli_input_opt("coverage", argc, argv, &i);
            if (r == 0)
                r = forge_luaopts_parse(argc, argv, &i, &s.vo);
            if (r < 0)
                goto out;
            if (r > 0)
                continue;
            if (a[0] == '-' && a[1]) {
                forge_cli_error("coverage: unknown option '%s' (run 'forge help coverage')", a);
                goto out;
            }
            if (!tools)
                tools = a;
            else
                evals[nevals++] = a;
        }
    }
    if (!tools) {
        forge_cli_error("coverage: no tools given (usage: forge coverage TOOLS [EVALS...])");
        goto out;
    }
    if ((code = load_tools(&s, tools, "coverage")))
        goto out;
    code = FORGE_EXIT_USAGE;
    s.cases = cJSON_CreateArray();
    for (int i = 0; i < nevals; i++)
        if (load_evals(&s, evals[i], "coverage"))
            goto out;
    struct forge_err err = {0};
    cJSON *rep = forge_coverage_compute(s.defs, s.guards, s.cases, &s.cov, &err);
    if (!rep) {
        forge_cli_error("coverage: %s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rep, "warnings"))
        fprintf(stderr, "forge: coverage: warning: %s\n", w->valuestring);
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (!strcmp(format, "json")) {
        forge_json_write(&b, rep, FORGE_JSON_PRETTY);
        forge_buf_addc(&b, '\n');
    } else if (!strcmp(format, "md")) {
        forge_report_coverage_md(&b, rep);
    } else {
        forge_report_coverage_text(&b, rep);
    }
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    forge_buf_free(&b);
    double got = forge_json_num(rep, "coverage", 0);
    code = FORGE_EXIT_OK;
    if (min >= 0 && got + 1e-12 < min) {
        fprintf(stderr, "forge: coverage: %.1f%% is below --min-coverage %g\n", got * 100, min);
        code = FORGE_EXIT_FAIL;
    }
    cJSON_Delete(rep);
out:
    forge_free(evals);
    src_free(&s);
    return code;
}

/* ---- forge gen ---------------------------------------------------------------------------- */

/* Appends the drafts of one file: a new file, or the existing text with the new cases before its
 * closing bracket (every byte before it kept). The result is validated before it is written. */
static int write_eval_file(const char *path, const cJSON *drafts, struct forge_err *err)
{
    char *old = NULL;
    size_t len = 0;
    struct stat st;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    bool exists = stat(path, &st) == 0;
    if (exists) {
        int rc = forge_file_read_input(path, &old, &len, err);
        if (rc)
            return rc;
        size_t end = len;
        while (end && (old[end - 1] == ' ' || old[end - 1] == '\n' || old[end - 1] == '\r' || old[end - 1] == '\t'))
            end--;
        if (!end || old[end - 1] != ']') {
            forge_free(old);
            return forge_err_set(err, FORGE_EINVAL, "%s: does not end with ']': cannot append cases to it", path);
        }
        end--;
        size_t body = end;
        while (body && (old[body - 1] == ' ' || old[body - 1] == '\n' || old[body - 1] == '\r' || old[body - 1] == '\t'))
            body--;
        forge_buf_add(&b, old, body);
        bool empty = body && old[body - 1] == '[';
        if (!empty)
            forge_buf_addc(&b, ',');
    } else {
        forge_buf_addc(&b, '[');
    }
    const cJSON *d;
    bool first = true;
    cJSON_ArrayForEach(d, drafts) {
        if (strcmp(forge_json_str(d, "file"), path))
            continue;
        if (!first)
            forge_buf_addc(&b, ',');
        first = false;
        char *text = forge_json_print(cJSON_GetObjectItemCaseSensitive(d, "case"), FORGE_JSON_PRETTY);
        forge_buf_adds(&b, "\n  ");
        for (const char *p = text ? text : ""; *p; p++) {
            forge_buf_addc(&b, *p);
            if (*p == '\n')
                forge_buf_adds(&b, "  ");
        }
        forge_free(text);
    }
    forge_buf_adds(&b, "\n]\n");
    forge_free(old);
    cJSON *check = NULL;
    int rc = forge_evalfile_parse(b.data, b.len, path, &check, err);
    cJSON_Delete(check);
    if (!rc)
        rc = forge_file_write_atomic(path, b.data, b.len, err);
    forge_buf_free(&b);
    return rc;
}

/* On a terminal: which gap the model is drafting for. */
static void on_draft(void *ctx, const cJSON *gap, int attempt)
{
    (void)ctx;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_report_coverage_gap(&b, gap);
    fprintf(stderr, "drafting (answer %d): %s\n", attempt, b.data ? b.data : "");
    forge_buf_free(&b);
}

static int gen_evals(int argc, char **argv)
{
    struct src s = {0};
    forge_vm_opts_init(&s.vo);
    s.cov.overlap = FORGE_COV_OVERLAP_DEFAULT;
    struct forge_provider_opts po;
    forge_provider_opts_init(&po);
    struct forge_gen_opts go = {.cov = &s.cov, .out_dir = ".", .max_drafts = 50, .attempts = 3};
    const char *tools = NULL;
    bool dry = false;
    int code = FORGE_EXIT_USAGE;
    struct forge_model *m = NULL;
    cJSON *drafts = NULL, *failed = NULL, *notes = NULL, *files = cJSON_CreateArray();
    const char **evals = forge_calloc((size_t)argc + 1, sizeof *evals);
    int nevals = 0;
    struct forge_err err = {0};
    if (!evals || !files)
        goto out;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if ((v = value_of(argc, argv, &i, "--tools", &missing))) {
            tools = v;
        } else if ((v = value_of(argc, argv, &i, "--out", &missing))) {
            go.out_dir = v;
        } else if ((v = value_of(argc, argv, &i, "--max-drafts", &missing))) {
            if (parse_count("gen evals", "--max-drafts", v, 100000, &go.max_drafts))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--attempts", &missing))) {
            if (parse_count("gen evals", "--attempts", v, 20, &go.attempts))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--overlap-threshold", &missing))) {
            if (parse_unit("gen evals", "--overlap-threshold", v, false, &s.cov.overlap))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--ignore", &missing))) {
            if (parse_ignore("gen evals", v, &s.cov))
                goto out;
        } else if ((v = value_of(argc, argv, &i, "--overlap-map", &missing))) {
            s.map_path = v;
        } else if ((v = value_of(argc, argv, &i, "--verifiers", &missing))) {
            s.verifiers_path = v;
        } else if (missing) {
            forge_cli_error("gen evals: %s needs a value", a);
            goto out;
        } else if (!strcmp(a, "--dry-run")) {
            dry = true;
        } else {
            int r = forge_provider_opts_arg(&po, argc, argv, &i, &err);
            if (r < 0) {
                forge_cli_error("gen evals: %s", err.msg);
                goto out;
            }
            if (r > 0) {
                i--;
                continue;
            }
            r = forge_cli_input_opt("gen evals", argc, argv, &i);
            if (r == 0)
                r = forge_luaopts_parse(argc, argv, &i, &s.vo);
            if (r < 0)
                goto out;
            if (r > 0)
                continue;
            if (a[0] == '-' && a[1]) {
                forge_cli_error("gen evals: unknown option '%s' (run 'forge help gen')", a);
                goto out;
            }
            evals[nevals++] = a;
        }
    }
    if (!tools || !po.model) {
        forge_cli_error("gen evals: needs --tools FILE and --model SPEC (run 'forge help gen')");
        goto out;
    }
    struct stat st;
    if (!dry && (stat(go.out_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        forge_cli_error("gen evals: --out %s: not a folder", go.out_dir);
        goto out;
    }
    if ((code = load_tools(&s, tools, "gen evals")))
        goto out;
    code = FORGE_EXIT_USAGE;
    s.cases = cJSON_CreateArray();
    for (int i = 0; i < nevals; i++)
        if (load_evals(&s, evals[i], "gen evals"))
            goto out;
    /* the files drafts would go to join the cases, unless given already */
    for (int i = 0; i < s.tools.n; i++) {
        for (int k = 0; k < 2; k++) {
            cJSON *g = cJSON_CreateObject();
            cJSON_AddStringToObject(g, "kind", k ? "labeled" : "golden");
            cJSON_AddStringToObject(g, "tool", s.tools.v[i]->name);
            char *path = forge_gen_target(go.out_dir, g);
            cJSON_Delete(g);
            char ra[PATH_MAX], rb[PATH_MAX];
            bool given = false;
            if (path && stat(path, &st) == 0 && realpath(path, ra))
                for (int j = 0; j < nevals && !given; j++)
                    given = realpath(evals[j], rb) && !strcmp(ra, rb);
            int rc = path && stat(path, &st) == 0 && !given ? load_evals(&s, path, "gen evals") : 0;
            forge_free(path);
            if (rc)
                goto out;
        }
    }
    const char *spec = po.model;
    if (!strncmp(spec, "scripted:", 9)) {
        if ((code = open_vm(&s, spec + 9, "gen evals")))
            goto out;
        code = FORGE_EXIT_USAGE;
        if (forge_lua_scripted_load(s.vm, spec + 9, &m, &err)) {
            forge_cli_error("gen evals: %s", err.msg);
            goto out;
        }
    } else if (!(m = forge_provider_open(spec, &po, &err))) {
        forge_cli_error("gen evals: %s", err.msg);
        code = forge_cli_exit_code(err.code);
        goto out;
    }
    if (isatty(2) && s.vo.verbose >= 0)
        go.progress = on_draft;
    int rc = forge_gen_evals(m, s.defs, s.cases, &go, &drafts, &failed, &notes, &err);
    if (rc)
        forge_cli_error("gen evals: the model failed: %s", err.msg);
    const cJSON *d;
    if (dry) {
        char *text = forge_json_print(drafts, FORGE_JSON_PRETTY);
        if (text)
            puts(text);
        forge_free(text);
    } else {
        cJSON_ArrayForEach(d, drafts) {
            const char *f = forge_json_str(d, "file");
            bool seen = false;
            const cJSON *x;
            cJSON_ArrayForEach(x, files)
                seen = seen || !strcmp(x->valuestring, f);
            if (!seen)
                cJSON_AddItemToArray(files, cJSON_CreateString(f));
        }
        const cJSON *f;
        cJSON_ArrayForEach(f, files) {
            struct forge_err we = {0};
            int n = 0;
            cJSON_ArrayForEach(d, drafts)
                n += !strcmp(forge_json_str(d, "file"), f->valuestring);
            if (write_eval_file(f->valuestring, drafts, &we)) {
                forge_cli_error("gen evals: %s", we.msg);
                code = FORGE_EXIT_USAGE;
                goto out;
            }
            printf("%s: %d new case%s\n", f->valuestring, n, n == 1 ? "" : "s");
        }
    }
    const cJSON *x;
    cJSON_ArrayForEach(x, notes)
        fprintf(stderr, "forge: gen evals: %s\n", x->valuestring);
    cJSON_ArrayForEach(x, failed) {
        struct forge_buf b;
        forge_buf_init(&b, 0);
        forge_report_coverage_gap(&b, cJSON_GetObjectItemCaseSensitive(x, "gap"));
        fprintf(stderr, "forge: gen evals: no case drafted for \"%s\": %s\n", b.data ? b.data : "",
                forge_json_str(x, "reason"));
        forge_buf_free(&b);
    }
    code = rc ? forge_cli_exit_code(rc) : cJSON_GetArraySize(failed) ? FORGE_EXIT_FAIL : FORGE_EXIT_OK;
out:
    forge_model_free(m);
    cJSON_Delete(drafts);
    cJSON_Delete(failed);
    cJSON_Delete(notes);
    cJSON_Delete(files);
    forge_free(evals);
    src_free(&s);
    return code;
}

static int gen_verifiers(int argc, char **argv)
{
    struct src s = {0};
    forge_vm_opts_init(&s.vo);
    s.cov.overlap = FORGE_COV_OVERLAP_DEFAULT;
    const char *tools = NULL, *out_path = NULL;
    int code = FORGE_EXIT_USAGE;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if ((v = value_of(argc, argv, &i, "--tools", &missing))) {
            tools = v;
        } else if ((v = value_of(argc, argv, &i, "--out", &missing))) {
            out_path = v;
        } else if ((v = value_of(argc, argv, &i, "--verifiers", &missing))) {
            s.verifiers_path = v;
        } else if (missing) {
            forge_cli_error("gen verifiers: %s needs a value", a);
            goto out;
        } else {
            int r = forge_cli_input_opt("gen verifiers", argc, argv, &i);
            if (r == 0)
                r = forge_luaopts_parse(argc, argv, &i, &s.vo);
            if (r < 0)
                goto out;
            if (r == 0) {
                forge_cli_error("gen verifiers: unexpected argument '%s' (run 'forge help gen')", a);
                goto out;
            }
        }
    }
    if (!tools) {
        forge_cli_error("gen verifiers: needs --tools FILE (run 'forge help gen')");
        goto out;
    }
    struct stat st;
    if (out_path && lstat(out_path, &st) == 0) {
        forge_cli_error("gen verifiers: --out %s: the file exists; forge gen verifiers never overwrites a file "
                        "(choose another path)", out_path);
        goto out;
    }
    if ((code = load_tools(&s, tools, "gen verifiers")))
        goto out;
    code = FORGE_EXIT_USAGE;
    struct forge_err err = {0};
    for (int k = 0; k < FORGE_COV_NKINDS; k++)
        s.cov.ignore[k] = k != FORGE_COV_VERIFIER;
    cJSON *empty = cJSON_CreateArray();
    cJSON *rep = forge_coverage_compute(s.defs, s.guards, empty, &s.cov, &err);
    cJSON_Delete(empty);
    if (!rep) {
        forge_cli_error("gen verifiers: %s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    struct forge_buf b;
    forge_buf_init(&b, 0);
    int n = forge_gen_verifiers(&b, rep, s.taken);
    cJSON_Delete(rep);
    code = FORGE_EXIT_OK;
    if (!n) {
        fprintf(stderr, "forge: gen verifiers: every tool has a verifier: nothing to write\n");
    } else if (!out_path) {
        fwrite(b.data, 1, b.len, stdout);
    } else if (lstat(out_path, &st) == 0 || forge_file_write_atomic(out_path, b.data, b.len, &err)) {
        forge_cli_error("gen verifiers: %s", lstat(out_path, &st) == 0 && !err.msg[0]
                                                 ? "the --out file appeared while writing; not overwritten"
                                                 : err.msg);
        code = FORGE_EXIT_USAGE;
    } else {
        printf("%s: %d verifier stub%s\n", out_path, n, n == 1 ? "" : "s");
    }
    forge_buf_free(&b);
out:
    src_free(&s);
    return code;
}

int forge_cmd_gen(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "evals"))
        return gen_evals(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "verifiers"))
        return gen_verifiers(argc - 1, argv + 1);
    if (argc >= 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
        fputs(forge_usage_gen, stdout);
        return FORGE_EXIT_OK;
    }
    if (argc >= 1)
        forge_cli_error("gen: unknown subcommand '%s': evals or verifiers (run 'forge help gen')", argv[0]);
    else
        forge_cli_error("gen: name what to generate: evals or verifiers (run 'forge help gen')");
    return FORGE_EXIT_USAGE;
}
