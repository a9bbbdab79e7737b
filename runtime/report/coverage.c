/* Terminal and Markdown forms of the coverage report (coverage.h). */
#include "report/coverage.h"
#include "base/alloc.h"
#include "data/json.h"

#include <stdbool.h>
#include <string.h>

enum { TEXT, MD };

/* Appends <s> made safe for the form: control characters become '?' (both forms); in Markdown
 * '|', '\\' and '`' are escaped with a backslash and '<', '>', '&' become entities. */
static void put(struct forge_buf *b, const char *s, int form)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            forge_buf_addc(b, '?');
        else if (form == MD && (*p == '<' || *p == '>' || *p == '&'))
            forge_buf_adds(b, *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : "&amp;");
        else if (form == MD && (*p == '|' || *p == '\\' || *p == '`'))
            forge_buf_addc(b, '\\'), forge_buf_addc(b, (char)*p);
        else
            forge_buf_addc(b, (char)*p);
    }
}

/* Display width of <s> as put() writes it: UTF-8 lead bytes count one column. */
static int width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        w += (*p & 0xc0) != 0x80;
    return w;
}

static void pad(struct forge_buf *b, const char *s, int w)
{
    put(b, s, TEXT);
    for (int n = width(s); n < w; n++)
        forge_buf_addc(b, ' ');
}

static void put_json(struct forge_buf *b, const cJSON *v, int form)
{
    char *s = forge_json_print(v, 0);
    put(b, s, form);
    forge_free(s);
}

static void names(struct forge_buf *b, const cJSON *arr, const char *none, int form)
{
    if (!cJSON_GetArraySize(arr)) {
        forge_buf_adds(b, none);
        return;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        if (e != arr->child)
            forge_buf_adds(b, ", ");
        put(b, e->valuestring, form);
    }
}

static int num(const cJSON *o, const char *k)
{
    return (int)forge_json_num(o, k, 0);
}

/* " (N more)" when the count <key> is above the ids listed in <list>. */
static void more(struct forge_buf *b, const cJSON *o, const char *list, const char *key)
{
    int shown = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, list)), n = num(o, key);
    if (n > shown)
        forge_buf_addf(b, " (%d more)", n - shown);
}

static void gap_words(struct forge_buf *b, const cJSON *g, int form)
{
    const char *k = forge_json_str(g, "kind");
    const char *tool = forge_json_str(g, "tool");
    const char *arg = forge_json_str(g, "argument");
    if (!k)
        return;
    if (!strcmp(k, "cluster")) {
        names(b, cJSON_GetObjectItemCaseSensitive(g, "tools"), "-", form);
        forge_buf_adds(b, ": a cluster, and no labeled case names all of its tools");
        return;
    }
    if (!strcmp(k, "overlap")) {
        put(b, tool, form);
        forge_buf_adds(b, " ~ ");
        put(b, forge_json_str(g, "other"), form);
        forge_buf_adds(b, ": similar, and no labeled case separates them");
        return;
    }
    put(b, tool, form);
    if (arg) {
        forge_buf_addc(b, '.');
        put(b, arg, form);
    }
    if (!strcmp(k, "golden"))
        forge_buf_adds(b, ": no golden case expects it to be called");
    else if (!strcmp(k, "labeled"))
        forge_buf_adds(b, ": no labeled case names it");
    else if (!strcmp(k, "called"))
        forge_buf_adds(b, ": no case expects it to be called");
    else if (!strcmp(k, "not_called"))
        forge_buf_adds(b, ": no case expects it not to be called");
    else if (!strcmp(k, "verifier"))
        forge_buf_adds(b, ": no verifier runs on its results");
    else if (!strcmp(k, "enum")) {
        forge_buf_adds(b, ": no case expects the value ");
        put_json(b, cJSON_GetObjectItemCaseSensitive(g, "value"), form);
    } else if (!strcmp(k, "optional"))
        forge_buf_adds(b, ": optional, and no case names it");
}

int forge_report_coverage_gap(struct forge_buf *out, const cJSON *gap)
{
    gap_words(out, gap, TEXT);
    return 0;
}

/* "tool.argument" or "tool.argument = value" (a new string). */
static char *arg_label(const cJSON *a)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    forge_buf_adds(&b, forge_json_str(a, "tool"));
    forge_buf_addc(&b, '.');
    forge_buf_adds(&b, forge_json_str(a, "argument"));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
    if (v) {
        char *s = forge_json_print(v, 0);
        forge_buf_adds(&b, " = ");
        forge_buf_adds(&b, s ? s : "");
        forge_free(s);
    }
    return forge_buf_take(&b);
}

static const char *const heads[] = {"tool", "golden", "labeled", "called", "not called", "verifiers"};
static const char *const keys[] = {NULL, "golden", "labeled", "called", "not_called", NULL};

int forge_report_coverage_text(struct forge_buf *out, const cJSON *r)
{
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(r, "tools"), *t;
    int w = 4;
    cJSON_ArrayForEach(t, tools) {
        int n = width(forge_json_str(t, "name"));
        w = n > w ? n : w;
    }
    if (w > 48)
        w = 48;
    pad(out, heads[0], w);
    for (int c = 1; c < 6; c++)
        forge_buf_addf(out, "  %s", heads[c]);
    forge_buf_addc(out, '\n');
    cJSON_ArrayForEach(t, tools) {
        pad(out, forge_json_str(t, "name"), w);
        for (int c = 1; c < 5; c++)
            forge_buf_addf(out, "  %*d", (int)strlen(heads[c]), num(t, keys[c]));
        forge_buf_adds(out, "  ");
        names(out, cJSON_GetObjectItemCaseSensitive(t, "verifiers"), "-", TEXT);
        forge_buf_addc(out, '\n');
    }
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(r, "overlaps"), *p;
    if (cJSON_GetArraySize(ov)) {
        forge_buf_addf(out, "\noverlapping tools (Jaccard >= %g)\n", forge_json_num(r, "overlap_threshold", 0));
        cJSON_ArrayForEach(p, ov) {
            const cJSON *two = cJSON_GetObjectItemCaseSensitive(p, "tools");
            forge_buf_adds(out, "  ");
            put(out, two->child->valuestring, TEXT);
            forge_buf_adds(out, " ~ ");
            put(out, two->child->next->valuestring, TEXT);
            forge_buf_addf(out, "  %.3f%s  shared: ", forge_json_num(p, "similarity", 0),
                           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "declared")) ? " (declared)" : "");
            names(out, cJSON_GetObjectItemCaseSensitive(p, "shared"), "-", TEXT);
            forge_buf_adds(out, "  separated by: ");
            names(out, cJSON_GetObjectItemCaseSensitive(p, "separated_by"), "none", TEXT);
            more(out, p, "separated_by", "separating");
            forge_buf_addc(out, '\n');
        }
    }
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(r, "clusters"), *cl;
    if (cJSON_GetArraySize(cls)) {
        forge_buf_adds(out, "\nclusters\n");
        cJSON_ArrayForEach(cl, cls) {
            forge_buf_adds(out, "  ");
            names(out, cJSON_GetObjectItemCaseSensitive(cl, "tools"), "-", TEXT);
            forge_buf_adds(out, "  covered by: ");
            names(out, cJSON_GetObjectItemCaseSensitive(cl, "covered_by"), "none", TEXT);
            more(out, cl, "covered_by", "covering");
            forge_buf_addc(out, '\n');
        }
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(r, "arguments"), *a;
    if (cJSON_GetArraySize(args)) {
        forge_buf_adds(out, "\narguments\n");
        int aw = 0;
        cJSON_ArrayForEach(a, args) {
            char *l = arg_label(a);
            int n = width(l);
            aw = n > aw ? n : aw;
            forge_free(l);
        }
        aw = aw > 60 ? 60 : aw;
        cJSON_ArrayForEach(a, args) {
            char *l = arg_label(a);
            forge_buf_adds(out, "  ");
            pad(out, l, aw);
            forge_free(l);
            int n = num(a, "cases");
            forge_buf_addf(out, "  %-8s  %d case%s\n", forge_json_str(a, "kind"), n, n == 1 ? "" : "s");
        }
    }
    const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(r, "gaps"), *g;
    forge_buf_addf(out, "\ngaps (%d)\n", cJSON_GetArraySize(gaps));
    cJSON_ArrayForEach(g, gaps) {
        forge_buf_adds(out, "  ");
        gap_words(out, g, TEXT);
        forge_buf_addc(out, '\n');
    }
    forge_buf_addf(out, "\ncoverage: %d/%d items (%.1f%%)\n", num(r, "covered"), num(r, "items"),
                   forge_json_num(r, "coverage", 0) * 100);
    return 0;
}

int forge_report_coverage_md(struct forge_buf *out, const cJSON *r)
{
    forge_buf_addf(out, "## Coverage: %.1f%% (%d/%d items)\n\n", forge_json_num(r, "coverage", 0) * 100,
                   num(r, "covered"), num(r, "items"));
    forge_buf_adds(out, "| kind | covered | items |\n|---|---:|---:|\n");
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(r, "kinds"))
        forge_buf_addf(out, "| %s | %d | %d |\n", k->string, num(k, "covered"), num(k, "items"));
    forge_buf_adds(out, "\n### Tools\n\n| tool | golden | labeled | called | not called | verifiers | groups |\n"
                        "|---|---:|---:|---:|---:|---|---|\n");
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(r, "tools")) {
        forge_buf_adds(out, "| ");
        put(out, forge_json_str(t, "name"), MD);
        for (int c = 1; c < 5; c++)
            forge_buf_addf(out, " | %d", num(t, keys[c]));
        forge_buf_adds(out, " | ");
        names(out, cJSON_GetObjectItemCaseSensitive(t, "verifiers"), "-", MD);
        forge_buf_adds(out, " | ");
        names(out, cJSON_GetObjectItemCaseSensitive(t, "groups"), "-", MD);
        forge_buf_adds(out, " |\n");
    }
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(r, "overlaps"), *p;
    if (cJSON_GetArraySize(ov)) {
        forge_buf_addf(out, "\n### Overlapping tools (Jaccard >= %g)\n\n| tools | similarity | shared | separated by |\n"
                            "|---|---:|---|---|\n", forge_json_num(r, "overlap_threshold", 0));
        cJSON_ArrayForEach(p, ov) {
            const cJSON *two = cJSON_GetObjectItemCaseSensitive(p, "tools");
            forge_buf_adds(out, "| ");
            put(out, two->child->valuestring, MD);
            forge_buf_adds(out, " ~ ");
            put(out, two->child->next->valuestring, MD);
            forge_buf_addf(out, " | %.3f%s | ", forge_json_num(p, "similarity", 0),
                           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "declared")) ? " (declared)" : "");
            names(out, cJSON_GetObjectItemCaseSensitive(p, "shared"), "-", MD);
            forge_buf_adds(out, " | ");
            names(out, cJSON_GetObjectItemCaseSensitive(p, "separated_by"), "none", MD);
            more(out, p, "separated_by", "separating");
            forge_buf_adds(out, " |\n");
        }
    }
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(r, "clusters"), *cl;
    if (cJSON_GetArraySize(cls)) {
        forge_buf_adds(out, "\n### Clusters\n\n| tools | covered by |\n|---|---|\n");
        cJSON_ArrayForEach(cl, cls) {
            forge_buf_adds(out, "| ");
            names(out, cJSON_GetObjectItemCaseSensitive(cl, "tools"), "-", MD);
            forge_buf_adds(out, " | ");
            names(out, cJSON_GetObjectItemCaseSensitive(cl, "covered_by"), "none", MD);
            more(out, cl, "covered_by", "covering");
            forge_buf_adds(out, " |\n");
        }
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(r, "arguments"), *a;
    if (cJSON_GetArraySize(args)) {
        forge_buf_adds(out, "\n### Arguments\n\n| argument | kind | value | cases |\n|---|---|---|---:|\n");
        cJSON_ArrayForEach(a, args) {
            forge_buf_adds(out, "| ");
            put(out, forge_json_str(a, "tool"), MD);
            forge_buf_addc(out, '.');
            put(out, forge_json_str(a, "argument"), MD);
            forge_buf_addf(out, " | %s | ", forge_json_str(a, "kind"));
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
            if (v)
                put_json(out, v, MD);
            forge_buf_addf(out, " | %d |\n", num(a, "cases"));
        }
    }
    const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(r, "gaps"), *g;
    forge_buf_addf(out, "\n### Gaps (%d)\n\n", cJSON_GetArraySize(gaps));
    cJSON_ArrayForEach(g, gaps) {
        forge_buf_adds(out, "- ");
        gap_words(out, g, MD);
        forge_buf_addc(out, '\n');
    }
    return 0;
}
