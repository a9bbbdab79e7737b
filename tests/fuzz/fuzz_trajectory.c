/* Trajectory import of every format (runtime/score/trajectory.h). The input JSON is imported
 * with detection and as each named format. Properties: a detected format imports the same as
 * naming it; failures carry FORGE_EINVAL and a message; an imported trajectory imports again
 * as "forge" to an equal tree; adopt agrees with import; the tool-use check of the imported
 * trajectory (deep mode), and of each of its turns alone, is the same with its indexes (turns in
 * id order, numbers' first turns, calls by hash) as answered turn by turn and call by call. */
#include <cjson/cJSON.h>
#include "data/json.h"
#include "base/alloc.h"
#include "score/tooluse.h"
#include "score/trajectory.h"
#include "fuzz.h"
#include "../support/deep_check.h"

/* <r> printed (NULL stays NULL), and deleted. */
static char *printed(cJSON *r)
{
    char *s = r ? forge_json_print(r, 0) : NULL;
    cJSON_Delete(r);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    struct forge_err err = {0};
    cJSON *doc = forge_json_parse((const char *)data, size, "<fuzz>", &err);
    if (!doc)
        return 0;
    const char *detected = forge_trajectory_detect(doc);
    cJSON *auto_t = forge_trajectory_import(doc, NULL, &err);
    if (!auto_t)
        FUZZ_CHECK(err.code == FORGE_EINVAL && err.msg[0], "detect import: %d %s", err.code,
                   err.msg);
    for (int i = 0; forge_trajectory_formats[i]; i++) {
        const char *fmt = forge_trajectory_formats[i];
        struct forge_err e2 = {0};
        cJSON *t = forge_trajectory_import(doc, fmt, &e2);
        if (!t) {
            FUZZ_CHECK(e2.code == FORGE_EINVAL && e2.msg[0], "%s: %d %s", fmt, e2.code, e2.msg);
            continue;
        }
        FUZZ_CHECK(cJSON_IsObject(t) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(t, "turns")),
                   "%s: result without turns", fmt);
        if (detected && strcmp(detected, fmt) == 0)
            FUZZ_CHECK(auto_t && forge_json_equal(auto_t, t), "%s: detected import differs", fmt);
        cJSON *again = forge_trajectory_import(t, "forge", &e2);
        FUZZ_CHECK(again, "%s: imported trajectory does not import as forge: %s", fmt, e2.msg);
        FUZZ_CHECK(forge_json_equal(again, t), "%s: forge import of a trajectory changes it", fmt);
        cJSON_Delete(again);
        cJSON *copy = cJSON_Duplicate(doc, 1);
        FUZZ_CHECK(copy, "dup");
        cJSON *adopted = forge_trajectory_adopt(copy, fmt, &e2);
        FUZZ_CHECK(adopted && forge_json_equal(adopted, t), "%s: adopt differs from import", fmt);
        cJSON_Delete(adopted);
        char *fast = printed(deep_check(t, false)), *slow = printed(deep_check(t, true));
        FUZZ_CHECK((!fast && !slow) || (fast && slow && strcmp(fast, slow) == 0),
                   "%s: the check with indexes differs from the check turn by turn", fmt);
        forge_free(fast);
        forge_free(slow);
        const cJSON *turns = cJSON_GetObjectItemCaseSensitive(t, "turns");
        for (const cJSON *tu = turns->child; tu; tu = tu->next) {
            fast = printed(deep_check_turn(tu, false));
            slow = printed(deep_check_turn(tu, true));
            FUZZ_CHECK((!fast && !slow) || (fast && slow && strcmp(fast, slow) == 0),
                       "%s: a turn checked alone differs with indexes", fmt);
            forge_free(fast);
            forge_free(slow);
        }
        cJSON_Delete(t);
    }
    cJSON_Delete(auto_t);
    cJSON_Delete(doc);
    return 0;
}
