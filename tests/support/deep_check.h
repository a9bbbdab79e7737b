/* forge check's deep mode run two ways, for the tests and fuzz targets that compare them: the
 * turns looked at through the tool-use indexes (the default), or scanned as the definitions read
 * (forge_tooluse_test_scan_turns). */
#ifndef FORGE_TESTS_DEEP_CHECK_H
#define FORGE_TESTS_DEEP_CHECK_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "score/tooluse.h"
#include "score/trajectory.h"

/* forge_tooluse_check of the trajectory <t> (no tool definitions), deep, the turns scanned when
 * <scan>; NULL when it failed. */
static inline cJSON *deep_check(const cJSON *t, bool scan)
{
    forge_tooluse_test_scan_turns(scan);
    struct forge_err err = {0};
    struct forge_tooluse_opts vo;
    struct forge_verify_opts ro;
    forge_tooluse_opts_json(NULL, &vo);
    forge_verify_opts_json(NULL, &ro);
    vo.deep = ro.deep = true;
    cJSON *r = forge_tooluse_check(t, NULL, &vo, &ro, &err);
    forge_tooluse_test_scan_turns(false);
    return r;
}

/* forge_tooluse_validate_turn of <turn> alone (no trajectory), deep, the same way. */
static inline cJSON *deep_check_turn(const cJSON *turn, bool scan)
{
    forge_tooluse_test_scan_turns(scan);
    struct forge_err err = {0};
    struct forge_tooluse_opts vo;
    forge_tooluse_opts_json(NULL, &vo);
    vo.deep = true;
    cJSON *r = forge_tooluse_validate_turn(turn, NULL, NULL, &vo, &err);
    forge_tooluse_test_scan_turns(false);
    return r;
}
#endif
