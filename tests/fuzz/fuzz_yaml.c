/* YAML input (runtime/data/yaml.h) and YAML eval files (runtime/eval/evalfile.h). Properties:
 * a failed parse names the input with a line and column inside it and a known code; a parsed
 * tree prints as JSON that parses back to an equal value; forge_yaml_parse_all agrees with
 * forge_yaml_parse on one-document inputs; every node's recorded position lies inside the
 * input; YAML eval-file errors name the file with a position. The value limit is lowered so that
 * alias expansions stay cheap to explore. */
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "data/json.h"
#include "data/yaml.h"
#include "eval/evalfile.h"
#include "fuzz.h"

static int last_line;

/* Checks the positions of <v> and its children; returns how many nodes had one. */
static size_t check_marks(const struct forge_yaml_marks *m, const cJSON *v, int depth)
{
    size_t n = 0;
    int line = 0, col = 0;
    if (forge_yaml_mark(m, v, false, &line, &col)) {
        FUZZ_CHECK(line >= 1 && line <= last_line && col >= 1, "position %d:%d (input has %d lines)", line, col,
                   last_line);
        n++;
    }
    if (forge_yaml_mark(m, v, true, &line, &col))
        FUZZ_CHECK(line >= 1 && line <= last_line && col >= 1, "key position %d:%d", line, col);
    if (depth < 1100)
        for (const cJSON *c = v->child; c; c = c->next)
            n += check_marks(m, c, depth + 1);
    return n;
}

static void check_error(const struct forge_err *err, const char *name)
{
    size_t nl = strlen(name);
    FUZZ_CHECK(err->code == FORGE_EINVAL || err->code == FORGE_ELIMIT || err->code == FORGE_ENOMEM, "code %d: %s",
               err->code, err->msg);
    FUZZ_CHECK(strncmp(err->msg, name, nl) == 0 && err->msg[nl] == ':', "message does not name the input: %s",
               err->msg);
    int l = 0, c = 0;
    FUZZ_CHECK(sscanf(err->msg + nl + 1, "%d:%d:", &l, &c) == 2 && l >= 1 && c >= 1 && l <= last_line,
               "message has no position inside the input (%d lines): %s", last_line, err->msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    forge_json_set_node_limit(20000);
    const char *text = (const char *)data;
    last_line = 1;
    for (size_t i = 0; i < size; i++)
        last_line += text[i] == '\n' || (text[i] == '\r' && (i + 1 == size || text[i + 1] != '\n'));
    last_line += 1; /* libyaml may point just past the last line break */

    struct forge_err err = {0};
    struct forge_yaml_marks *marks = NULL;
    cJSON *v = forge_yaml_parse_marked(text, size, "<fuzz>", &marks, &err);
    struct forge_err err2 = {0};
    cJSON *all = forge_yaml_parse_all(text, size, "<fuzz>", NULL, &err2);
    if (!v) {
        FUZZ_CHECK(!marks, "marks set on failure");
        check_error(&err, "<fuzz>");
        if (all) /* parse_all accepts what parse refuses only for a document count other than one */
            FUZZ_CHECK(cJSON_GetArraySize(all) != 1, "parse refused a one-document input parse_all took: %s",
                       err.msg);
    } else {
        FUZZ_CHECK(all && cJSON_GetArraySize(all) == 1, "parse_all disagrees: %s", all ? "count" : err2.msg);
        FUZZ_CHECK(forge_json_equal(v, all->child), "parse_all gives another value");
        FUZZ_CHECK(check_marks(marks, v, 0) >= 1, "the root has no position");
        char *out = forge_json_print(v, 0);
        FUZZ_CHECK(out, "print failed");
        struct forge_err e3 = {0};
        cJSON *back = forge_json_parse(out, strlen(out), "<printed>", &e3);
        FUZZ_CHECK(back, "printed YAML value does not parse as JSON: %s\n%s", e3.msg, out);
        FUZZ_CHECK(forge_json_equal(v, back), "round trip changed the value:\n%s", out);
        cJSON_Delete(back);
        forge_free(out);
    }
    if (!all)
        check_error(&err2, "<fuzz>");
    cJSON_Delete(v);
    cJSON_Delete(all);
    forge_yaml_marks_free(marks);

    cJSON *cases = NULL;
    struct forge_err e4 = {0};
    int rc = forge_evalfile_parse(text, size, "<fuzz>.yaml", &cases, &e4);
    if (rc) {
        FUZZ_CHECK(!cases, "cases set on failure");
        check_error(&e4, "<fuzz>.yaml");
    } else {
        FUZZ_CHECK(cJSON_IsArray(cases), "cases is not an array");
        for (const cJSON *k = cases->child; k; k = k->next) {
            struct forge_err e5 = {0};
            FUZZ_CHECK(forge_evalfile_check_case(k, &e5) == 0, "a loaded case fails check_case: %s", e5.msg);
        }
    }
    cJSON_Delete(cases);
    return 0;
}
