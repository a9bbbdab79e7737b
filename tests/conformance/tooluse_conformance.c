/* Conformance runner (C API) for ../shared/testdata/tool-use-conformance/cases.jsonl: every case
 * runs through runtime/score/tooluse and its output, reduced to the fields the case lists, must
 * equal the case's `expect` exactly (scores bit for bit).
 * usage: tooluse_conformance DIR   (the folder holding cases.jsonl and fixtures.json) */
#include "base/err.h"
#include "base/file.h"
#include "base/alloc.h"
#include "data/json.h"
#include "score/tooluse.h"

#include <stdio.h>
#include <string.h>

static cJSON *fixtures;

static cJSON *fixture(const cJSON *name)
{
    if (!cJSON_IsString(name))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(fixtures, name->valuestring);
}

static cJSON *schema_map(const cJSON *names)
{
    cJSON *m = cJSON_CreateObject();
    for (const cJSON *n = names ? names->child : NULL; n; n = n->next)
        cJSON_AddItemToObject(m, n->valuestring, cJSON_Duplicate(fixture(n), 1));
    return m;
}

/* [[type, severity(, path)]...] from an issues array */
static cJSON *pairs(const cJSON *issues, int with_path)
{
    cJSON *a = cJSON_CreateArray();
    for (const cJSON *i = issues ? issues->child : NULL; i; i = i->next) {
        cJSON *p = cJSON_CreateArray();
        cJSON_AddItemToArray(p, cJSON_CreateString(forge_json_str(i, "type")));
        cJSON_AddItemToArray(p, cJSON_CreateString(forge_json_str(i, "severity")));
        if (with_path)
            cJSON_AddItemToArray(p, cJSON_CreateString(forge_json_str(i, "path")));
        cJSON_AddItemToArray(a, p);
    }
    return a;
}

static void copy(cJSON *dst, const cJSON *src, const char *key)
{
    cJSON_AddItemToObject(dst, key, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(src, key), 1));
}

static cJSON *reduce_validation(const cJSON *r, const cJSON *expect)
{
    cJSON *o = cJSON_CreateObject();
    copy(o, r, "valid");
    copy(o, r, "score");
    cJSON_AddItemToObject(o, "issues", pairs(cJSON_GetObjectItemCaseSensitive(r, "issues"), 0));
    if (cJSON_GetObjectItemCaseSensitive(expect, "suggestions"))
        copy(o, r, "suggestions");
    return o;
}

static cJSON *run(const cJSON *c, struct forge_err *err)
{
    const char *fn = forge_json_str(c, "fn");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(c, "expect");
    const cJSON *call = cJSON_GetObjectItemCaseSensitive(c, "toolCall");
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(c, "options");
    struct forge_tooluse_opts vo;
    struct forge_verify_opts ro;
    forge_tooluse_opts_json(opts, &vo);
    forge_verify_opts_json(opts, &ro);
    cJSON *out = NULL, *r = NULL;
    if (strcmp(fn, "validateToolCall") == 0) {
        r = forge_tooluse_validate_tool_call(call, fixture(cJSON_GetObjectItemCaseSensitive(c, "schema")), &vo, err);
        if (r)
            out = reduce_validation(r, expect);
    } else if (strcmp(fn, "validateTurn") == 0) {
        cJSON *m = schema_map(cJSON_GetObjectItemCaseSensitive(c, "schemas"));
        r = forge_tooluse_validate_turn(cJSON_GetObjectItemCaseSensitive(c, "turn"), m, NULL, &vo, err);
        cJSON_Delete(m);
        if (r)
            out = reduce_validation(r, expect);
    } else if (strcmp(fn, "validateTrajectory") == 0) {
        cJSON *m = schema_map(cJSON_GetObjectItemCaseSensitive(c, "schemas"));
        r = forge_tooluse_validate_trajectory(cJSON_GetObjectItemCaseSensitive(c, "trajectory"), m, &vo, err);
        cJSON_Delete(m);
        if (r) {
            out = cJSON_CreateArray();
            int i = 0;
            for (const cJSON *x = r->child; x; x = x->next, i++)
                cJSON_AddItemToArray(out, reduce_validation(x, cJSON_GetArrayItem(expect, i)));
        }
    } else if (strcmp(fn, "validateSchema") == 0) {
        r = forge_tooluse_validate_schema(call, fixture(cJSON_GetObjectItemCaseSensitive(c, "schema")), err);
        if (r) {
            out = cJSON_CreateObject();
            copy(out, r, "valid");
            copy(out, r, "score");
            cJSON_AddItemToObject(out, "issues", pairs(cJSON_GetObjectItemCaseSensitive(r, "issues"), 1));
        }
    } else if (strcmp(fn, "verifyResult") == 0) {
        const cJSON *traj = cJSON_GetObjectItemCaseSensitive(c, "trajectory");
        cJSON *turn = NULL;
        const cJSON *tp;
        if (cJSON_IsObject(traj)) {
            int ix = (int)forge_json_num(c, "turnIndex", 0);
            tp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(traj, "turns"), ix);
        } else {
            traj = NULL;
            turn = cJSON_CreateObject();
            cJSON_AddNumberToObject(turn, "turn_id", 1);
            cJSON_AddStringToObject(turn, "role", "agent");
            cJSON_AddStringToObject(turn, "content", forge_json_str(c, "turnContent"));
            cJSON_AddStringToObject(turn, "timestamp", "2026-04-17T12:00:00Z");
            cJSON *calls = cJSON_AddArrayToObject(turn, "tool_calls");
            cJSON_AddItemToArray(calls, cJSON_Duplicate(call, 1));
            tp = turn;
        }
        r = forge_tooluse_verify_result(call, tp, traj, &ro, err);
        cJSON_Delete(turn);
        if (r) {
            out = cJSON_CreateObject();
            copy(out, r, "valid");
            copy(out, r, "score");
            copy(out, r, "hallucinated");
            copy(out, r, "integrated");
            const cJSON *issues = cJSON_GetObjectItemCaseSensitive(r, "issues");
            cJSON_AddItemToObject(out, "issues", pairs(issues, 0));
            if (cJSON_GetObjectItemCaseSensitive(expect, "hallucinationScore"))
                for (const cJSON *i = issues->child; i; i = i->next)
                    if (strcmp(forge_json_str(i, "type"), "hallucinated_content") == 0)
                        cJSON_AddItemToObject(out, "hallucinationScore",
                            cJSON_Duplicate(forge_json_at(i, "details.hallucinationScore"), 1));
        }
    } else if (strcmp(fn, "summarizeResultVerification") == 0) {
        r = forge_tooluse_summarize(cJSON_GetObjectItemCaseSensitive(c, "trajectory"), &ro, err);
        if (r) {
            out = cJSON_Duplicate(r, 1);
            cJSON_ReplaceItemInObjectCaseSensitive(out, "issues",
                pairs(cJSON_GetObjectItemCaseSensitive(r, "issues"), 0));
        }
    } else {
        forge_err_set(err, FORGE_EINVAL, "unknown fn '%s'", fn);
    }
    cJSON_Delete(r);
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tooluse_conformance DIR\n");
        return 2;
    }
    struct forge_err err = {0};
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures.json", argv[1]);
    fixtures = forge_json_load(path, &err);
    if (!fixtures) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    snprintf(path, sizeof path, "%s/cases.jsonl", argv[1]);
    char *text;
    size_t len;
    if (forge_file_read(path, FORGE_FILE_LIMIT, &text, &len, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    int pass = 0, fail = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *c = forge_json_parse(line, strlen(line), path, &err);
        if (!c) {
            fprintf(stderr, "%s\n", err.msg);
            fail++;
            continue;
        }
        const char *id = forge_json_str(c, "id");
        cJSON *got = run(c, &err);
        const cJSON *expect = cJSON_GetObjectItemCaseSensitive(c, "expect");
        if (got && forge_json_equal(got, expect)) {
            pass++;
        } else {
            fail++;
            char *g = got ? forge_json_print(got, 0) : NULL;
            char *e = forge_json_print(expect, 0);
            fprintf(stderr, "FAIL %s\n  got:      %s\n  expected: %s\n", id, g ? g : err.msg, e);
            forge_free(g);
            forge_free(e);
        }
        cJSON_Delete(got);
        cJSON_Delete(c);
    }
    printf("tool-use conformance: %d passed, %d failed, %d cases\n", pass, fail, pass + fail);
    forge_free(text);
    cJSON_Delete(fixtures);
    if (pass + fail == 0)
        fprintf(stderr, "%s: no case ran\n", path);
    return fail || pass + fail == 0 ? 1 : 0;
}
