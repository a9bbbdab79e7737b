/* forge schema validate [OPTIONS] SCHEMA INSTANCE...  |  --jsonl FILE */
#include "cli/cli.h"
#include "data/coerce.h"
#include "data/jarena.h"
#include "data/json.h"
#include "data/schema.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/lines.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char forge_usage_schema[] =
    "usage: forge schema validate [OPTIONS] SCHEMA INSTANCE...\n"
    "       forge schema validate [OPTIONS] --jsonl FILE SCHEMA\n"
    "\n"
    "Validates JSON instances against a JSON Schema (drafts 4, 6, 7, 2019-09, 2020-12).\n"
    "\n"
    "options:\n"
    "  --draft D          4, 6, 7, 2019-09 or 2020-12: the dialect when the schema has no\n"
    "                     $schema (default 2020-12)\n"
    "  --ref-dir URL=DIR  serve references under the URL prefix from the folder DIR\n"
    "                     (repeatable; forge never fetches schemas over the network)\n"
    "  --formats          assert \"format\" (default: an annotation only)\n"
    "  --all-errors       report every error (default: the first one)\n"
    "  --coerce           coerce tool-call arguments toward the schema first and report each\n"
    "                     coercion (numeric strings, yes/no, one-item arrays, enum case)\n"
    "  --json             print one JSON object per instance instead of text\n"
    "  --jsonl FILE       validate every line of FILE (one JSON instance per line, '-' for\n"
    "                     stdin) and print one JSON verdict line per instance; from a pipe,\n"
    "                     each line as it arrives\n"
    "  --max-line-bytes N longest accepted --jsonl line (default 16777216); a longer line\n"
    "                     ends the reading (--max-line is the same option)\n"
    "  --max-file-mb MIB  largest schema or instance file, in MiB (default 256)\n"
    "  --max-json-nodes N most JSON values in one file or line (default 10000000)\n"
    "  --schema-steps N   most schema nodes evaluated to validate one instance\n"
    "                     (default 10000000)\n"
    "  --regex-timeout MS time limit of one pattern match (default 1000; 0 = none)\n"
    "\n"
    "Exit status: 0 all valid, 1 some instance invalid, 2 bad usage, a bad schema or bad JSON\n"
    "(reported as file:line:col).\n";

#define MAX_REFDIRS 64

struct opts {
    struct forge_schema_opts so;
    struct forge_schema_refdir refdirs[MAX_REFDIRS];
    bool json, coerce;
    const char *jsonl;
    size_t max_line;
};

static int parse_draft(const char *s)
{
    if (!strncmp(s, "draft", 5))
        s += 5;
    if (!strcmp(s, "4") || !strcmp(s, "04")) return FORGE_DRAFT_4;
    if (!strcmp(s, "6") || !strcmp(s, "06")) return FORGE_DRAFT_6;
    if (!strcmp(s, "7") || !strcmp(s, "07")) return FORGE_DRAFT_7;
    if (!strcmp(s, "2019-09")) return FORGE_DRAFT_2019_09;
    if (!strcmp(s, "2020-12")) return FORGE_DRAFT_2020_12;
    return -1;
}

/* Validates one instance; prints its verdict. Returns 1 valid, 0 invalid, negative on error. */
static int check(const struct forge_schema *s, const cJSON *schema, cJSON *inst, const struct opts *o,
                 const char *label, long line)
{
    struct forge_err err;
    cJSON *coercions = NULL, *errors = NULL;
    forge_err_clear(&err);
    if (o->coerce && forge_coerce_args(inst, schema, &coercions, &err) < 0) {
        forge_cli_error("%s", err.msg);
        return FORGE_ENOMEM;
    }
    int r = forge_schema_validate(s, inst, &errors);
    if (r < 0) {
        forge_cli_error("schema validate: %s: %s", label,
                        r == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(r));
        cJSON_Delete(coercions);
        return r;
    }
    if (o->json || o->jsonl) {
        cJSON *out = cJSON_CreateObject();
        if (!out)
            goto oom;
        if (o->jsonl)
            cJSON_AddNumberToObject(out, "line", (double)line);
        else
            cJSON_AddStringToObject(out, "instance", label);
        cJSON_AddBoolToObject(out, "valid", r == 1);
        cJSON_AddItemToObject(out, "errors", errors ? errors : cJSON_CreateArray());
        errors = NULL;
        if (o->coerce) {
            cJSON_AddItemToObject(out, "coercions", coercions ? coercions : cJSON_CreateArray());
            cJSON_AddItemToObject(out, "coerced", cJSON_Duplicate(inst, 1));
            coercions = NULL;
        }
        char *text = forge_json_print(out, 0);
        cJSON_Delete(out);
        if (!text)
            goto oom;
        puts(text);
        forge_free(text);
    } else {
        for (const cJSON *c = coercions ? coercions->child : NULL; c; c = c->next) {
            char *from = forge_json_print(cJSON_GetObjectItem(c, "from"), 0);
            const cJSON *to = cJSON_GetObjectItem(c, "to");
            char *tos = to ? forge_json_print(to, 0) : NULL;
            printf("%s: coerced %s: %s -> %s (%s)\n", label, forge_json_str(c, "path"),
                   from ? from : "?", to ? (tos ? tos : "?") : "(dropped)", forge_json_str(c, "rule"));
            forge_free(from);
            forge_free(tos);
        }
        printf("%s: %s\n", label, r == 1 ? "valid" : "invalid");
        for (const cJSON *e = errors ? errors->child : NULL; e; e = e->next) {
            const char *il = forge_json_str(e, "instanceLocation");
            printf("  %s: %s (at %s)\n", il && *il ? il : "(root)", forge_json_str(e, "error"),
                   forge_json_str(e, "keywordLocation"));
        }
    }
    cJSON_Delete(errors);
    cJSON_Delete(coercions);
    if (!o->jsonl)
        fflush(stdout);
    return r;
oom:
    cJSON_Delete(errors);
    cJSON_Delete(coercions);
    forge_cli_error("schema validate: out of memory");
    return FORGE_ENOMEM;
}

static int run_jsonl(const struct forge_schema *s, const cJSON *schema, const struct opts *o,
                     bool *any_invalid, bool *any_bad)
{
    struct stat st;
    bool from_stdin = !strcmp(o->jsonl, "-");
    const char *fname = from_stdin ? "<stdin>" : o->jsonl;
    if (!from_stdin && stat(o->jsonl, &st) == 0 && S_ISDIR(st.st_mode)) {
        forge_cli_error("schema validate: %s: is a directory", o->jsonl);
        return FORGE_EXIT_USAGE;
    }
    FILE *f = from_stdin ? stdin : fopen(o->jsonl, "r");
    if (!f) {
        forge_cli_error("schema validate: cannot open '%s': %s", o->jsonl, strerror(errno));
        return FORGE_EXIT_USAGE;
    }
    struct forge_lines lines;
    forge_lines_init(&lines, f, o->max_line);
    /* a pipe, terminal or socket: lines are validated as they arrive */
    lines.stream = fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode);
    const char *line;
    size_t n;
    int got;
    int rc = 0;
    for (;;) {
        /* the verdicts go out whenever the next line is not here yet: at once for input that
         * comes a line at a time, a block at a time from a file */
        if (!forge_lines_ready(&lines))
            fflush(stdout);
        if (!(got = forge_lines_next(&lines, &line, &n)))
            break;
        long lineno = lines.lineno;
        if (got < 0)
            fflush(stdout); /* verdicts and errors stay in order */
        if (got == FORGE_ELIMIT) {
            forge_cli_error("%s:%ld: line longer than %zu bytes (the limit; raise it with "
                            "--max-line-bytes); the rest of the file is not read", fname,
                            lineno, o->max_line);
            rc = FORGE_EXIT_USAGE;
            break;
        }
        if (got < 0) {
            forge_cli_error("schema validate: %s: read error: %s", fname, strerror(errno));
            rc = FORGE_EXIT_USAGE;
            break;
        }
        while (n > 0 && line[n - 1] == '\r')
            n--;
        size_t i = 0;
        while (i < n && strchr(" \t\r\n", line[i]))
            i++;
        if (i == n)
            continue; /* blank line */
        char name[512];
        snprintf(name, sizeof name, "%s:%ld", fname, lineno);
        struct forge_err err;
        forge_err_clear(&err);
        forge_jarena_on(true);
        cJSON *inst = forge_json_parse(line, n, fname, &err);
        if (!inst) {
            forge_jarena_on(false);
            forge_jarena_reset();
            fflush(stdout);
            /* "<file>:1:<col>: ..." for the line alone becomes "<file>:<line>:<col>: ..." */
            const char *rest = err.msg;
            size_t fl = strlen(fname);
            if (!strncmp(rest, fname, fl) && !strncmp(rest + fl, ":1:", 3))
                forge_cli_error("%s:%s", name, rest + fl + 3);
            else
                forge_cli_error("%s", err.msg);
            *any_bad = true;
            continue;
        }
        int r = check(s, schema, inst, o, name, lineno);
        forge_jarena_on(false);
        forge_jarena_reset();
        if (r < 0) {
            rc = FORGE_EXIT_USAGE;
            break;
        }
        if (r == 0)
            *any_invalid = true;
    }
    forge_lines_free(&lines);
    if (f != stdin)
        fclose(f);
    return rc;
}

static int validate(int argc, char **argv)
{
    /* each --jsonl line's trees (the instance, its errors, the verdict) die with the line:
     * they are allocated from the thread's arena (data/jarena), dropped whole after the line */
    forge_jarena_install();
    struct opts o;
    memset(&o, 0, sizeof o);
    o.max_line = 16u << 20;
    const char *files[4096];
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        int r;
        if (!strcmp(a, "--draft")) {
            int d = has_next ? parse_draft(argv[i + 1]) : -1;
            if (d < 0) {
                forge_cli_error("schema validate: --draft takes 4, 6, 7, 2019-09 or 2020-12%s%s%s",
                                has_next ? " (got '" : "", has_next ? argv[i + 1] : "", has_next ? "')" : "");
                return FORGE_EXIT_USAGE;
            }
            o.so.draft = (enum forge_schema_draft)d;
            i++;
        } else if (!strcmp(a, "--ref-dir")) {
            const char *eq = has_next ? strchr(argv[i + 1], '=') : NULL;
            if (!eq || eq == argv[i + 1] || !eq[1]) {
                forge_cli_error("schema validate: --ref-dir takes URL=DIR, for example "
                                "--ref-dir http://localhost:1234/=schemas/remotes");
                return FORGE_EXIT_USAGE;
            }
            if (o.so.nrefdirs >= MAX_REFDIRS) {
                forge_cli_error("schema validate: at most %d --ref-dir options", MAX_REFDIRS);
                return FORGE_EXIT_USAGE;
            }
            *(char *)eq = 0; /* argv is ours to edit */
            o.refdirs[o.so.nrefdirs].prefix = argv[i + 1];
            o.refdirs[o.so.nrefdirs].dir = eq + 1;
            o.so.nrefdirs++;
            i++;
        } else if (!strcmp(a, "--formats")) {
            o.so.formats = true;
        } else if (!strcmp(a, "--all-errors")) {
            o.so.all_errors = true;
        } else if (!strcmp(a, "--json")) {
            o.json = true;
        } else if (!strcmp(a, "--coerce")) {
            o.coerce = true;
        } else if (!strcmp(a, "--jsonl")) {
            if (!has_next) {
                forge_cli_error("schema validate: --jsonl takes a file name ('-' for stdin)");
                return FORGE_EXIT_USAGE;
            }
            o.jsonl = argv[++i];
        } else if ((r = forge_cli_input_opt("schema validate", argc, argv, &i)) != 0) {
            if (r < 0)
                return FORGE_EXIT_USAGE;
        } else if (!strcmp(a, "--max-line") || !strcmp(a, "--max-line-bytes")) {
            char *end = NULL;
            unsigned long long v = has_next ? strtoull(argv[i + 1], &end, 10) : 0;
            if (!has_next || *end || v == 0) {
                forge_cli_error("schema validate: %s takes a positive number of bytes", a);
                return FORGE_EXIT_USAGE;
            }
            o.max_line = (size_t)v;
            i++;
        } else if (!strcmp(a, "--")) {
            for (i++; i < argc && nfiles < 4096; i++)
                files[nfiles++] = argv[i];
        } else if (a[0] == '-' && a[1]) {
            forge_cli_error("schema validate: unknown option '%s' (run 'forge help schema')", a);
            return FORGE_EXIT_USAGE;
        } else if (nfiles < 4096) {
            files[nfiles++] = a;
        } else {
            forge_cli_error("schema validate: more than 4096 files; use --jsonl");
            return FORGE_EXIT_USAGE;
        }
    }
    o.so.refdirs = o.refdirs;
    if (nfiles < 1 || (nfiles < 2 && !o.jsonl) || (o.jsonl && nfiles != 1)) {
        forge_cli_error("schema validate: expected SCHEMA INSTANCE... or --jsonl FILE SCHEMA "
                        "(run 'forge help schema')");
        return FORGE_EXIT_USAGE;
    }
    struct forge_err err;
    forge_err_clear(&err);
    cJSON *schema = forge_json_load(files[0], &err);
    if (!schema) {
        forge_cli_error("%s", err.msg);
        return FORGE_EXIT_USAGE;
    }
    /* The schema file's own URI: relative references without an $id resolve to files beside
     * it, which are served from its folder. */
    char real[PATH_MAX], base[PATH_MAX + 16], prefix[PATH_MAX + 16], dir[PATH_MAX];
    if (realpath(files[0], real) && o.so.nrefdirs < MAX_REFDIRS) {
        snprintf(base, sizeof base, "file://%s", real);
        snprintf(dir, sizeof dir, "%s", real);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir ? 1 : 0] = 0;
        snprintf(prefix, sizeof prefix, "file://%s%s", dir, strcmp(dir, "/") ? "/" : "");
        o.refdirs[o.so.nrefdirs].prefix = prefix;
        o.refdirs[o.so.nrefdirs].dir = dir;
        o.so.nrefdirs++;
    } else {
        base[0] = 0;
    }
    struct forge_schema *s = forge_schema_compile_uri(schema, &o.so, base, &err);
    if (!s) {
        forge_cli_error("%s: %s", files[0], err.msg);
        cJSON_Delete(schema);
        return FORGE_EXIT_USAGE;
    }
    bool any_invalid = false, any_bad = false;
    int rc = 0;
    if (o.jsonl) {
        rc = run_jsonl(s, schema, &o, &any_invalid, &any_bad);
    } else {
        for (int i = 1; i < nfiles && !rc; i++) {
            forge_err_clear(&err);
            cJSON *inst = forge_json_load(files[i], &err);
            if (!inst) {
                forge_cli_error("%s", err.msg);
                any_bad = true;
                continue;
            }
            int r = check(s, schema, inst, &o, files[i], 0);
            cJSON_Delete(inst);
            if (r < 0)
                rc = FORGE_EXIT_USAGE;
            else if (r == 0)
                any_invalid = true;
        }
    }
    forge_schema_free(s);
    cJSON_Delete(schema);
    if (rc)
        return rc;
    if (any_bad)
        return FORGE_EXIT_USAGE;
    return any_invalid ? FORGE_EXIT_FAIL : FORGE_EXIT_OK;
}

int forge_cmd_schema(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        fputs(forge_usage_schema, argc < 1 ? stderr : stdout);
        return argc < 1 ? FORGE_EXIT_USAGE : FORGE_EXIT_OK;
    }
    if (!strcmp(argv[0], "validate"))
        return validate(argc - 1, argv + 1);
    forge_cli_error("schema: unknown subcommand '%s' (expected 'validate')", argv[0]);
    return FORGE_EXIT_USAGE;
}
