/* forge bfcl: BFCL-compatible scoring of result files. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/file.h"
#include "score/bfcl.h"

#include <dirent.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char forge_usage_bfcl[] =
    "usage: forge bfcl score --data DIR --results DIR [options]\n"
    "\n"
    "Scores BFCL result files with the Berkeley Function Calling Leaderboard's AST checker\n"
    "rules and prints the accuracy per category.\n"
    "\n"
    "  --data DIR            BFCL's data folder: BFCL_v4_<category>.json and possible_answer/\n"
    "  --results DIR         searched recursively for BFCL_v4_<category>_result.json\n"
    "  --out DIR             write BFCL_v4_<category>_score.json files here, mirroring the\n"
    "                        result files' folders under --results\n"
    "  --underscore-to-dot   the models' tool names spell '.' as '_' (OpenAI-style FC models)\n"
    "  --underscore-to-dot-for MODEL\n"
    "                        the same for one model folder only (repeatable)\n"
    "  --category NAME...    only these categories (repeatable; 'all' for every one)\n"
    "  --model-name NAME     model name written into score records (default: the result\n"
    "                        file's folder, skipping a live/non_live group folder)\n"
    "  --partial             score only the questions that have a result\n"
    "  --max-file-mb N       largest input file read, in MiB (default 256, at most 4000)\n"
    "\n"
    "Categories: simple_python simple_java simple_javascript multiple parallel\n"
    "parallel_multiple live_simple live_multiple live_parallel live_parallel_multiple\n"
    "irrelevance live_irrelevance live_relevance.\n"
    "Exit status: 0 when scoring completed (whatever the accuracy), 2 on bad usage or input.\n";

struct found {
    char *path;     /* result file */
    char *rel_dir;  /* its folder relative to --results ("" for the top) */
    char *prefix;   /* "BFCL_v4_" */
    char *category;
};

struct list {
    struct found *v;
    size_t n, cap;
};

static void list_free(struct list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        forge_free(l->v[i].path);
        forge_free(l->v[i].rel_dir);
        forge_free(l->v[i].prefix);
        forge_free(l->v[i].category);
    }
    forge_free(l->v);
}

/* Splits "BFCL_v4_<category>_result.json" into prefix and category. */
static bool parse_name(const char *name, char **prefix, char **category)
{
    if (strncmp(name, "BFCL_v", 6) != 0)
        return false;
    const char *p = name + 6;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == name + 6 || *p != '_')
        return false;
    p++;
    const char *suffix = "_result.json";
    size_t n = strlen(p), sl = strlen(suffix);
    if (n <= sl || strcmp(p + n - sl, suffix) != 0)
        return false;
    *prefix = forge_strndup(name, (size_t)(p - name));
    *category = forge_strndup(p, n - sl);
    return *prefix && *category;
}

static int walk(const char *dir, const char *rel, struct list *l, int depth)
{
    if (depth > 16)
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        forge_cli_error("bfcl: cannot open folder %s", dir);
        return FORGE_EIO;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = forge_path_join(dir, e->d_name);
        if (!path) {
            rc = FORGE_ENOMEM;
            break;
        }
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            char *sub = rel[0] ? forge_path_join(rel, e->d_name) : forge_strdup(e->d_name);
            rc = sub ? walk(path, sub, l, depth + 1) : FORGE_ENOMEM;
            forge_free(sub);
            forge_free(path);
            continue;
        }
        char *prefix = NULL, *cat = NULL;
        if (S_ISREG(st.st_mode) && parse_name(e->d_name, &prefix, &cat)) {
            if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 16;
                struct found *v = forge_realloc(l->v, cap * sizeof(*v));
                if (!v) {
                    rc = FORGE_ENOMEM;
                    forge_free(prefix);
                    forge_free(cat);
                    forge_free(path);
                    break;
                }
                l->v = v;
                l->cap = cap;
            }
            l->v[l->n++] = (struct found){path, forge_strdup(rel), prefix, cat};
            continue;
        }
        forge_free(prefix);
        forge_free(cat);
        forge_free(path);
    }
    closedir(d);
    return rc;
}

static int by_category(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    int c = strcmp(x->prefix, y->prefix);
    if (!c)
        c = strcmp(x->category, y->category);
    return c ? c : strcmp(x->path, y->path);
}

struct row {
    char *model;
    const char *category;
    struct forge_bfcl_file_score score;
};

static int category_rank(const char *c)
{
    static const char *const order[] = {
        "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
        "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel",
        "live_parallel_multiple", "live_irrelevance", "live_relevance", NULL,
    };
    for (int i = 0; order[i]; i++)
        if (!strcmp(order[i], c))
            return i;
    return 99;
}

static int by_model(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(x->model, y->model);
    return c ? c : category_rank(x->category) - category_rank(y->category);
}

static void free_rows(struct row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        forge_free(rows[i].model);
    forge_free(rows);
}

static bool is_group(const char *name)
{
    return !strcmp(name, "live") || !strcmp(name, "non_live") || !strcmp(name, "multi_turn") ||
           !strcmp(name, "agentic") || !strcmp(name, "format_sensitivity");
}

/* The model name BFCL would use: the folder under result/ that holds the file. */
static char *model_from_path(const char *path)
{
    char *dir = forge_path_dir(path);
    if (!dir)
        return NULL;
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = '\0';
        char *slash = strrchr(dir, '/');
        const char *base = slash ? slash + 1 : dir;
        if (k == 0 && is_group(base) && slash) {
            *slash = '\0';
            continue;
        }
        char *name = forge_strdup(base);
        forge_free(dir);
        return name;
    }
    char *name = forge_strdup(dir);
    forge_free(dir);
    return name;
}

static int cmd_score(int argc, char **argv)
{
#ifdef __GLIBC__
    /* Each category loads, checks and frees megabytes of small values; keeping freed memory in
     * the heap (instead of returning it to the kernel and faulting in fresh zeroed pages for the
     * next file) halves the run time. */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    const char *data_dir = NULL, *results = NULL, *out = NULL, *model_name = NULL;
    bool u2d = false, partial = false;
    size_t limit = FORGE_FILE_LIMIT;
    const char **cats = forge_calloc((size_t)argc + 1, sizeof(*cats));
    size_t ncats = 0;
    const char **u2d_models = forge_calloc((size_t)argc + 1, sizeof(*u2d_models));
    size_t nu2d = 0;
    int code = FORGE_EXIT_USAGE;
    struct list found = {0};
    struct forge_bfcl *b = NULL;
    struct forge_err err = {0};
    if (!cats || !u2d_models) {
        forge_free(cats);
        forge_free(u2d_models);
        forge_cli_error("out of memory");
        return FORGE_EXIT_INFRA;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "--data") && has_next) {
            data_dir = argv[++i];
        } else if (!strcmp(a, "--results") && has_next) {
            results = argv[++i];
        } else if (!strcmp(a, "--out") && has_next) {
            out = argv[++i];
        } else if (!strcmp(a, "--model-name") && has_next) {
            model_name = argv[++i];
        } else if (!strcmp(a, "--underscore-to-dot")) {
            u2d = true;
        } else if (!strcmp(a, "--underscore-to-dot-for") && has_next) {
            u2d_models[nu2d++] = argv[++i];
        } else if (!strcmp(a, "--partial")) {
            partial = true;
        } else if (!strcmp(a, "--max-file-mb") && has_next) {
            char *end;
            long mb = strtol(argv[++i], &end, 10);
            if (*end || mb <= 0 || mb > 4000) {
                forge_cli_error("bfcl score: --max-file-mb takes a number of MiB from 1 to 4000, not '%s'", argv[i]);
                goto out;
            }
            limit = (size_t)mb << 20;
        } else if (!strcmp(a, "--category") && has_next) {
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                const char *c = argv[++i];
                if (strcmp(c, "all") != 0 && !forge_bfcl_category_known(c)) {
                    forge_cli_error("bfcl score: unknown category '%s' (run 'forge help bfcl' for the list)", c);
                    goto out;
                }
                cats[ncats++] = c;
            }
        } else {
            forge_cli_error("bfcl score: unknown or incomplete option '%s' (run 'forge help bfcl')", a);
            goto out;
        }
    }
    if (!data_dir || !results) {
        forge_cli_error("bfcl score: --data DIR and --results DIR are required");
        goto out;
    }
    for (size_t k = 0; k < ncats; k++)
        if (!strcmp(cats[k], "all"))
            ncats = 0;
    int rc = walk(results, "", &found, 0);
    if (rc) {
        if (rc == FORGE_ENOMEM)
            forge_cli_error("out of memory");
        goto out;
    }
    b = forge_bfcl_new(&err);
    if (!b) {
        forge_cli_error("%s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    uint64_t t0 = forge_clock_ns();
    size_t entries = 0, nrows = 0;
    struct row *rows = forge_calloc(found.n + 1, sizeof(*rows));
    if (!rows) {
        forge_cli_error("out of memory");
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    /* files of one category share the loaded questions and answers */
    qsort(found.v, found.n, sizeof(*found.v), by_category);
    struct forge_bfcl_data *data = NULL;
    char loaded[256] = "";
    for (size_t i = 0; i < found.n; i++) {
        struct found *f = &found.v[i];
        if (ncats) {
            bool want = false;
            for (size_t k = 0; k < ncats; k++)
                want |= strcmp(cats[k], f->category) == 0;
            if (!want)
                continue;
        }
        if (!forge_bfcl_category_known(f->category)) {
            fprintf(stderr, "forge: bfcl score: skipping %s (category '%s' is not scored by the AST "
                            "or relevance checker)\n", f->path, f->category);
            continue;
        }
        char qname[256], aname[300], sname[256];
        snprintf(qname, sizeof qname, "%s%s.json", f->prefix, f->category);
        snprintf(aname, sizeof aname, "possible_answer/%s%s.json", f->prefix, f->category);
        snprintf(sname, sizeof sname, "%s%s_score.json", f->prefix, f->category);
        char *qpath = forge_path_join(data_dir, qname);
        char *apath = forge_path_join(data_dir, aname);
        char *odir = out ? (f->rel_dir[0] ? forge_path_join(out, f->rel_dir) : forge_strdup(out)) : NULL;
        char *spath = odir ? forge_path_join(odir, sname) : NULL;
        char *mname = model_name ? forge_strdup(model_name) : model_from_path(f->path);
        if (!qpath || !apath || (out && (!odir || !spath)) || !mname) {
            forge_cli_error("out of memory");
            rc = FORGE_ENOMEM;
        }
        if (!rc && strcmp(loaded, qname) != 0) {
            forge_bfcl_data_free(data);
            data = NULL;
            loaded[0] = '\0';
            rc = forge_bfcl_data_load(f->category, qpath,
                                      forge_bfcl_category_is_relevance(f->category) ? NULL : apath,
                                      limit, &data, &err);
            if (!rc)
                snprintf(loaded, sizeof loaded, "%s", qname);
        }
        if (!rc && odir)
            rc = forge_mkdir_p(odir, &err);
        struct forge_bfcl_file_score sc = {0};
        if (!rc) {
            bool model_u2d = u2d;
            for (size_t k = 0; k < nu2d; k++)
                model_u2d |= strcmp(u2d_models[k], mname) == 0;
            struct forge_bfcl_file_opts o = {
                .category = f->category, .model_name = mname, .underscore_to_dot = model_u2d,
                .partial = partial, .results = f->path, .score_out = spath, .file_limit = limit,
            };
            rc = forge_bfcl_score_results(b, data, &o, &sc, &err);
        }
        if (rc) {
            if (err.code)
                forge_cli_error("bfcl score: %s", err.msg);
            forge_free(mname);
        } else {
            rows[nrows++] = (struct row){mname, f->category, sc};
            entries += sc.total;
        }
        forge_free(qpath);
        forge_free(apath);
        forge_free(odir);
        forge_free(spath);
        if (rc) {
            code = rc == FORGE_ENOMEM ? FORGE_EXIT_INFRA : FORGE_EXIT_USAGE;
            forge_bfcl_data_free(data);
            free_rows(rows, nrows);
            goto out;
        }
    }
    forge_bfcl_data_free(data);
    if (nrows == 0) {
        forge_cli_error("bfcl score: no result files named BFCL_v4_<category>_result.json%s under %s",
                        ncats ? " for the requested categories" : "", results);
        free_rows(rows, nrows);
        goto out;
    }
    qsort(rows, nrows, sizeof(*rows), by_model);
    printf("%-28s %-24s %9s %8s %8s\n", "model", "category", "accuracy", "correct", "total");
    for (size_t i = 0; i < nrows; i++)
        printf("%-28s %-24s %8.2f%% %8zu %8zu\n", rows[i].model, rows[i].category,
               rows[i].score.accuracy * 100.0, rows[i].score.correct, rows[i].score.total);
    free_rows(rows, nrows);
    double secs = (double)(forge_clock_ns() - t0) / 1e9;
    fprintf(stderr, "forge: scored %zu entries in %zu files in %.3f s\n", entries, nrows, secs);
    code = FORGE_EXIT_OK;
out:
    forge_bfcl_free(b);
    list_free(&found);
    forge_free(cats);
    forge_free(u2d_models);
    return code;
}

int forge_cmd_bfcl(int argc, char **argv)
{
    if (argc < 1) {
        fputs(forge_usage_bfcl, stderr);
        return FORGE_EXIT_USAGE;
    }
    if (!strcmp(argv[0], "score"))
        return cmd_score(argc - 1, argv + 1);
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help")) {
        fputs(forge_usage_bfcl, stdout);
        return FORGE_EXIT_OK;
    }
    forge_cli_error("bfcl: unknown subcommand '%s' (only 'score' is available; see 'forge help bfcl')",
                    argv[0]);
    return FORGE_EXIT_USAGE;
}
