/* Unit tests for base/strtab: the string table that registries and per-case counts use, searched
 * in turn while it holds a few strings and by hash past eight. */
#include "test.h"
#include "base/alloc.h"
#include "base/strtab.h"

#include <stdio.h>
#include <string.h>

#define N 300

static char names[N][16];

static void name_all(void)
{
    for (int i = 0; i < N; i++)
        snprintf(names[i], sizeof names[i], "tool_%d", i);
}

/* Every string added gets the next index and is found at it, at every size across the change
 * from the scan to the hash (8 to 9) and across the slots' growth; strings never added, and
 * prefixes of added ones, are not found. */
TEST(indices_in_order_found_at_every_size)
{
    struct forge_strtab t = FORGE_STRTAB_INIT;
    name_all();
    for (int i = 0; i < N; i++) {
        CHECK_INT(forge_strtab_find(&t, names[i]), -1);
        CHECK_INT(forge_strtab_add(&t, names[i]), i);
        for (int j = 0; j <= i; j++) {
            char copy[16]; /* (found by its text, not by its address) */
            memcpy(copy, names[j], sizeof copy);
            if (forge_strtab_find(&t, copy) != j) {
                CHECK_INT(forge_strtab_find(&t, copy), j);
                break;
            }
        }
        CHECK_INT(forge_strtab_find(&t, "tool_"), -1);
        CHECK_INT(forge_strtab_find(&t, "tool_9999"), -1);
        CHECK_INT(forge_strtab_find(&t, ""), -1);
    }
    CHECK_INT(t.n, N);
    forge_strtab_free(&t);
    CHECK_INT(forge_strtab_find(&t, names[0]), -1); /* (freed: empty again) */
}

/* A small table holds its strings alone (no hashes, no slots); the ninth string hashes them. */
TEST(a_few_strings_are_scanned)
{
    struct forge_strtab t = FORGE_STRTAB_INIT;
    name_all();
    for (int i = 0; i < 8; i++)
        CHECK_INT(forge_strtab_add(&t, names[i]), i);
    CHECK(t.hashes == NULL);
    CHECK_INT(t.nslots, 0);
    CHECK_INT(forge_strtab_find(&t, names[7]), 7);
    CHECK_INT(forge_strtab_add(&t, names[8]), 8);
    CHECK(t.hashes != NULL);
    CHECK(t.nslots >= 18);
    for (int i = 0; i <= 8; i++)
        CHECK_INT(forge_strtab_find(&t, names[i]), i);
    forge_strtab_free(&t);
}

/* Out of memory at each allocation of a growth: the add fails and the table keeps what it had,
 * every string still found, and later adds work. */
TEST(out_of_memory_keeps_the_table)
{
    name_all();
    for (int fail = 1; fail <= 7; fail++) {
        struct forge_strtab t = FORGE_STRTAB_INIT;
        int added = 0;
        forge_alloc_fail_at(fail);
        for (int i = 0; i < 40; i++) {
            if (forge_strtab_add(&t, names[added]) == added)
                added++;
        }
        forge_alloc_fail_at(0);
        CHECK(added >= 8);
        CHECK(added < 40);
        for (int i = 0; i < added; i++)
            CHECK_INT(forge_strtab_find(&t, names[i]), i);
        CHECK_INT(forge_strtab_find(&t, names[added]), -1);
        while (added < 60) {
            CHECK_INT(forge_strtab_add(&t, names[added]), added);
            added++;
        }
        for (int i = 0; i < added; i++)
            CHECK_INT(forge_strtab_find(&t, names[i]), i);
        forge_strtab_free(&t);
    }
}

int main(void)
{
    RUN(indices_in_order_found_at_every_size);
    RUN(a_few_strings_are_scanned);
    RUN(out_of_memory_keeps_the_table);
    return TEST_DONE();
}
