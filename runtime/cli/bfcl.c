/* forge bfcl: BFCL-compatible scoring of result files. */
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/file.h"
#include "data/json.h"
#include "model/provider.h"
#include "score/bfcl.h"

#include <dirent.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char forge_usage_bfcl[] =
    "usage: forge bfcl score --data DIR --results DIR [options]\n"
    "       forge bfcl run --model PROVIDER:MODEL --data DIR --category NAME... --out DIR [options]\n"
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
    "Exit status: 0 when scoring completed (whatever the accuracy), 2 on bad usage or input.\n"
    "\n"
    "forge bfcl run asks a model each question of the categories, with the question's functions\n"
    "as tools (converted as BFCL's function-calling handlers do, '.' in names written '_'), and\n"
    "writes BFCL result files that 'forge bfcl score --underscore-to-dot' reads:\n"
    "DIR/<model name>/<live|non_live>/BFCL_v4_<category>_result.json.\n"
    "\n"
    "  --data DIR            BFCL's data folder (question files)\n"
    "  --category NAME...    categories to ask (repeatable; 'all' for every one)\n"
    "  --out DIR             where the result files go\n"
    "  --model-name NAME     the result folder's name (default: the spec, ':' and '/' as '_')\n"
    "  -j N                  requests in flight (default 4)\n"
    "  --temperature T       sampling temperature (default 0.001, as BFCL)\n"
    "  --limit N             ask only the first N questions of each category (score with --partial)\n"
    "  --max-file-mb N       largest question file read, in MiB (default 256)\n"
    FORGE_PROVIDER_OPTS_USAGE
    "Exit status: 0 when every question was answered, 2 on bad usage or input, 3 when a request\n"
    "failed after retries (its result holds the error, as BFCL writes it).\n";

static const char *const categories_all[] = {
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "live_irrelevance", "live_relevance", NULL,
};

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
            forge_file_set_input_limit(limit);
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

static void run_progress(void *ctx, size_t done, size_t ok, size_t total)
{
    if (*(int *)ctx)
        fprintf(stderr, "\rforge: %zu/%zu answered (%zu failed)", done, total, done - ok);
}

/* Writes one category's result file from the batch's responses. */
static int write_results(const char *path, struct forge_bfcl_data *d, size_t n, cJSON **resps,
                         struct forge_err *errs, struct forge_err *err)
{
    struct forge_arena a;
    forge_arena_init(&a, 0);
    struct forge_buf out;
    forge_buf_init(&out, 0);
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const struct forge_pyval *q = forge_bfcl_data_question(d, i);
        struct forge_pyval *line = forge_py_dict(&a, 5);
        struct forge_pyval *result;
        double in = 0, outn = 0, latency = 0;
        if (resps[i]) {
            result = forge_bfcl_result_value(&a, resps[i]);
            const cJSON *usage = cJSON_GetObjectItemCaseSensitive(resps[i], "usage");
            in = forge_json_num(usage, "input_tokens", 0);
            outn = forge_json_num(usage, "output_tokens", 0);
            latency = forge_json_num(resps[i], "latency_ms", 0) / 1000.0;
        } else {
            char text[FORGE_ERR_MAX + 64];
            snprintf(text, sizeof text, "Error during inference: %s", errs[i].msg);
            result = forge_py_strz(&a, text);
        }
        struct forge_pyval *id = forge_py_getz(q, "id");
        if (!line || !result || !id || forge_py_set(&a, line, "id", 2, id) ||
            forge_py_set(&a, line, "result", 6, result) ||
            forge_py_set(&a, line, "input_token_count", 17, forge_py_int(&a, (long long)in)) ||
            forge_py_set(&a, line, "output_token_count", 18, forge_py_int(&a, (long long)outn)) ||
            forge_py_set(&a, line, "latency", 7, forge_py_float(&a, latency)))
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        else if ((rc = forge_py_dumps(&out, line)) != 0 || (rc = forge_buf_addc(&out, '\n')) != 0)
            forge_err_set(err, rc, "result output: %s", forge_rc_name(rc));
    }
    if (!rc)
        rc = forge_file_write_atomic(path, out.data ? out.data : "", out.len, err);
    forge_buf_free(&out);
    forge_arena_free(&a);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    struct forge_provider_opts po;
    forge_provider_opts_init(&po);
    struct forge_err err;
    forge_err_clear(&err);
    const char *data_dir = NULL, *out = NULL, *model_name = NULL;
    long jobs = 4, limit = 0;
    double temperature = 0.001;
    size_t file_limit = FORGE_FILE_LIMIT;
    /* room for every argument plus 'all' expanded */
    const char **cats = forge_calloc((size_t)argc + 16, sizeof(*cats));
    size_t ncats = 0;
    int code = FORGE_EXIT_USAGE;
    struct forge_model *m = NULL;
    char *folder = NULL;
    if (!cats) {
        forge_cli_error("out of memory");
        return FORGE_EXIT_INFRA;
    }
    for (int i = 0; i < argc;) {
        int r = forge_provider_opts_arg(&po, argc, argv, &i, &err);
        if (r < 0) {
            forge_cli_error("bfcl run: %s", err.msg);
            goto out;
        }
        if (r > 0)
            continue;
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        char *end = NULL;
        if (!strcmp(a, "--data") && has_next) {
            data_dir = argv[i + 1];
            i += 2;
        } else if (!strcmp(a, "--out") && has_next) {
            out = argv[i + 1];
            i += 2;
        } else if (!strcmp(a, "--model-name") && has_next) {
            model_name = argv[i + 1];
            i += 2;
        } else if ((!strcmp(a, "-j") || !strcmp(a, "--limit")) && has_next) {
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1 || v > 100000) {
                forge_cli_error("bfcl run: %s takes a number from 1 to 100000, not '%s'", a, argv[i + 1]);
                goto out;
            }
            *(a[1] == 'j' ? &jobs : &limit) = v;
            i += 2;
        } else if (!strcmp(a, "--temperature") && has_next) {
            temperature = strtod(argv[i + 1], &end);
            if (*end || temperature < 0 || temperature > 2) {
                forge_cli_error("bfcl run: --temperature takes a number from 0 to 2, not '%s'", argv[i + 1]);
                goto out;
            }
            i += 2;
        } else if (!strcmp(a, "--max-file-mb") && has_next) {
            long mb = strtol(argv[i + 1], &end, 10);
            if (*end || mb <= 0 || mb > 4000) {
                forge_cli_error("bfcl run: --max-file-mb takes a number of MiB from 1 to 4000, not '%s'", argv[i + 1]);
                goto out;
            }
            file_limit = (size_t)mb << 20;
            forge_file_set_input_limit(file_limit);
            i += 2;
        } else if (!strcmp(a, "--category") && has_next) {
            i++;
            while (i < argc && argv[i][0] != '-') {
                const char *c = argv[i++];
                if (!strcmp(c, "all")) {
                    ncats = 0;
                    for (int k = 0; categories_all[k]; k++)
                        cats[ncats++] = categories_all[k];
                    break;
                }
                if (!forge_bfcl_category_known(c)) {
                    forge_cli_error("bfcl run: unknown category '%s' (run 'forge help bfcl' for the list)", c);
                    goto out;
                }
                cats[ncats++] = c;
            }
        } else {
            forge_cli_error("bfcl run: unknown or incomplete option '%s' (run 'forge help bfcl')", a);
            goto out;
        }
    }
    if (!po.model || !data_dir || !out || ncats == 0) {
        forge_cli_error("bfcl run: needs --model PROVIDER:MODEL, --data DIR, --category NAME... and --out DIR");
        goto out;
    }
    folder = forge_strdup(model_name ? model_name : po.model);
    if (!folder) {
        forge_cli_error("out of memory");
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    if (!model_name)
        for (char *p = folder; *p; p++)
            if (*p == ':' || *p == '/')
                *p = '_';
    m = forge_provider_open(po.model, &po, &err);
    if (!m) {
        forge_cli_error("bfcl run: %s", err.msg);
        code = forge_cli_exit_code(err.code);
        goto out;
    }
    int tty = isatty(2);
    size_t asked = 0, failed = 0;
    double t0 = forge_clock_ms();
    code = FORGE_EXIT_OK;
    for (size_t c = 0; c < ncats && code != FORGE_EXIT_USAGE; c++) {
        const char *cat = cats[c];
        char qname[256], rname[256];
        snprintf(qname, sizeof qname, "BFCL_v4_%s.json", cat);
        snprintf(rname, sizeof rname, "%s/%s/BFCL_v4_%s_result.json", folder,
                 strncmp(cat, "live_", 5) == 0 ? "live" : "non_live", cat);
        char *qpath = forge_path_join(data_dir, qname);
        char *rpath = forge_path_join(out, rname);
        char *rdir = rpath ? forge_path_dir(rpath) : NULL;
        struct forge_bfcl_data *d = NULL;
        cJSON **reqs = NULL, **resps = NULL;
        struct forge_err *errs = NULL;
        size_t n = 0;
        int rc = qpath && rpath && rdir ? 0 : forge_err_set(&err, FORGE_ENOMEM, "out of memory");
        if (!rc)
            rc = forge_bfcl_data_load(cat, qpath, NULL, file_limit, &d, &err);
        if (!rc) {
            n = forge_bfcl_data_count(d);
            if (limit && (size_t)limit < n)
                n = (size_t)limit;
            reqs = forge_calloc(n + 1, sizeof(*reqs));
            resps = forge_calloc(n + 1, sizeof(*resps));
            errs = forge_calloc(n + 1, sizeof(*errs));
            if (!reqs || !resps || !errs)
                rc = forge_err_set(&err, FORGE_ENOMEM, "out of memory");
        }
        for (size_t i = 0; !rc && i < n; i++) {
            reqs[i] = forge_bfcl_request(forge_bfcl_data_question(d, i), cat, temperature, &err);
            if (!reqs[i]) {
                forge_err_prefix(&err, "%s: question %zu", qpath, i + 1);
                rc = err.code;
            }
        }
        if (!rc && forge_provider_run_batch(m, (const cJSON *const *)reqs, n, (int)jobs, resps, errs,
                                            run_progress, &tty) != 0)
            rc = forge_err_set(&err, FORGE_EINTERNAL, "could not start the request workers");
        if (tty && !rc)
            fputc('\n', stderr);
        for (size_t i = 0; !rc && i < n; i++)
            if (!resps[i]) {
                if (failed++ < 5)
                    forge_cli_error("bfcl run: %s: %s", cat, errs[i].msg);
            }
        if (!rc && (rc = forge_mkdir_p(rdir, &err)) == 0)
            rc = write_results(rpath, d, n, resps, errs, &err);
        if (!rc) {
            printf("%s\t%zu questions\t%s\n", cat, n, rpath);
            asked += n;
        } else {
            forge_cli_error("bfcl run: %s", err.msg);
            code = err.code == FORGE_ENOMEM || err.code == FORGE_EINTERNAL ? FORGE_EXIT_INFRA : FORGE_EXIT_USAGE;
        }
        for (size_t i = 0; reqs && i < n; i++)
            cJSON_Delete(reqs[i]);
        for (size_t i = 0; resps && i < n; i++)
            cJSON_Delete(resps[i]);
        forge_free(reqs);
        forge_free(resps);
        forge_free(errs);
        forge_bfcl_data_free(d);
        forge_free(qpath);
        forge_free(rpath);
        forge_free(rdir);
    }
    fprintf(stderr, "forge: asked %zu questions in %.1f s, %zu failed; score with: forge bfcl score "
                    "--data %s --results %s --underscore-to-dot%s\n",
            asked, (forge_clock_ms() - t0) / 1000.0, failed, data_dir, out, limit ? " --partial" : "");
    if (code == FORGE_EXIT_OK && failed)
        code = FORGE_EXIT_INFRA;
out:
    forge_model_free(m);
    forge_free(folder);
    forge_free(cats);
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
    if (!strcmp(argv[0], "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help")) {
        fputs(forge_usage_bfcl, stdout);
        return FORGE_EXIT_OK;
    }
    forge_cli_error("bfcl: unknown subcommand '%s' ('score' or 'run'; see 'forge help bfcl')",
                    argv[0]);
    return FORGE_EXIT_USAGE;
}
