#include "test.h"
#include <stdio.h>
#include "data/jarena.h"
#include "data/json.h"
#include <stdlib.h>
#include <string.h>

/* Trees parsed in the arena, mixed with nodes from malloc, freed in any order and reset, over
 * more than one chunk: the sanitizer build catches a stray free or a leak. */
static void trees_in_the_arena(void)
{
    struct forge_err err = {0};
    forge_jarena_install();
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    for (int line = 0; line < 50; line++) {
        forge_jarena_reset();
        forge_jarena_on(true);
        char text[3200], want[16];
        snprintf(text, sizeof text, "{\"id\":\"c%d\",\"s\":\"%s\",\"a\":[1,2,{\"b\":true}]}", line, big);
        snprintf(want, sizeof want, "c%d", line);
        cJSON *r = forge_json_parse(text, strlen(text), "t", &err);
        /* another tree past a chunk: a line larger than 1 MiB */
        size_t n = (1 << 20) + 100;
        char *huge = malloc(n + 8);
        CHECK(huge != NULL);
        huge[0] = '"';
        memset(huge + 1, 'y', n);
        huge[n + 1] = '"';
        cJSON *h = forge_json_parse(huge, n + 2, "t", &err);
        free(huge);
        forge_jarena_on(false);
        CHECK(r && h);
        CHECK_STR(forge_json_str(r, "id"), want);
        CHECK_INT(strlen(forge_json_str(r, "s")), sizeof big - 1);
        CHECK(strlen(cJSON_GetStringValue(h)) == n);
        /* a malloc'd node added to an arena tree, a node detached and freed alone */
        cJSON_AddItemToObject(r, "kept", cJSON_CreateString("from malloc"));
        cJSON *a = cJSON_DetachItemFromObjectCaseSensitive(r, "a");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "kept")), "from malloc");
        cJSON_Delete(a);
        cJSON_Delete(r);
        cJSON_Delete(h);
    }
    /* off: plain malloc and free */
    cJSON *o = cJSON_CreateObject();
    forge_jarena_reset();
    cJSON_AddNumberToObject(o, "n", 1);
    CHECK(cJSON_GetObjectItemCaseSensitive(o, "n") != NULL);
    cJSON_Delete(o);
    forge_jarena_release();
}

/* Without the hooks the arena stays off: a parsed tree is plain malloc memory, freed whole. */
static void off_until_installed(void)
{
    struct forge_err err = {0};
    forge_jarena_on(true);
    CHECK(!forge_jarena_is_on());
    cJSON *v = forge_json_parse("{\"a\":[1,\"x\"]}", 13, "t", &err);
    CHECK(v != NULL);
    cJSON_Delete(v);
    forge_jarena_on(false);
}

int main(void)
{
    RUN(off_until_installed);
    RUN(trees_in_the_arena);
    RUN(off_until_installed); /* after forge_jarena_release */
    return TEST_DONE();
}
