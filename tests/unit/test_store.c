/* Unit tests for store/ on SQLite: conversations, one-time pending approvals, audit,
 * preferences, and the schema surviving a reopen. */
#define _GNU_SOURCE
#include "test.h"
#include "base/alloc.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(conversations)
{
    struct forge_store *s = NULL;
    struct forge_err err = {0};
    CHECK_INT(forge_store_open("sqlite::memory:", &s, &err), 0);
    cJSON *m = cJSON_Parse("[{\"role\":\"user\",\"content\":\"hi\"}]");
    CHECK_INT(forge_store_conv_put(s, "c1", "alice", "a", m, &err), 0);
    CHECK_INT(forge_store_conv_put(s, "c2", "bob", "a", m, &err), 0);
    char *user, *agent;
    cJSON *got;
    CHECK_INT(forge_store_conv_get(s, "c1", &user, &agent, &got, &err), 0);
    CHECK_STR(user, "alice");
    CHECK_STR(agent, "a");
    CHECK(cJSON_Compare(got, m, 1));
    forge_free(user);
    forge_free(agent);
    cJSON_Delete(got);
    CHECK_INT(forge_store_conv_get(s, "nope", &user, &agent, &got, &err), 1);
    CHECK(!user && !agent && !got);
    cJSON *list;
    CHECK_INT(forge_store_conv_list(s, "alice", &list, &err), 0);
    CHECK_INT(cJSON_GetArraySize(list), 1);
    CHECK_STR(cJSON_GetObjectItem(list->child, "id")->valuestring, "c1");
    CHECK_INT(cJSON_GetObjectItem(list->child, "messageCount")->valueint, 1);
    cJSON_Delete(list);
    CHECK_INT(forge_store_pending_put(s, "t1", "c1", m, 1e12, &err), 0);
    CHECK_INT(forge_store_conv_delete(s, "c1", &err), 0);
    CHECK_INT(forge_store_conv_delete(s, "c1", &err), 1);
    CHECK_INT(forge_store_pending_take(s, "t1", 0, &got, &err), 1); /* went with its conversation */
    cJSON_Delete(m);
    forge_store_close(s);
}

TEST(pending_once)
{
    struct forge_store *s = NULL;
    struct forge_err err = {0};
    CHECK_INT(forge_store_open(":memory:", &s, &err), 0);
    cJSON *st = cJSON_Parse("{\"x\":1}");
    CHECK_INT(forge_store_pending_put(s, "tok", "c", st, 100, &err), 0);
    CHECK(forge_store_pending_put(s, "tok", "c", st, 100, &err) == FORGE_EIO); /* tokens are unique */
    cJSON *got = NULL;
    CHECK_INT(forge_store_pending_take(s, "tok", 50, &got, &err), 0);
    CHECK(cJSON_Compare(got, st, 1));
    cJSON_Delete(got);
    CHECK_INT(forge_store_pending_take(s, "tok", 50, &got, &err), 1);
    CHECK(got == NULL);
    /* expired: refused, and gone */
    CHECK_INT(forge_store_pending_put(s, "old", "c", st, 100, &err), 0);
    CHECK_INT(forge_store_pending_take(s, "old", 100, &got, &err), 1);
    CHECK_INT(forge_store_pending_put(s, "old", "c", st, 1000, &err), 0);
    /* dropping a session's approvals, and every expired one */
    CHECK_INT(forge_store_pending_put(s, "a", "s1", st, 1000, &err), 0);
    CHECK_INT(forge_store_pending_put(s, "b", "s2", st, 10, &err), 0);
    CHECK_INT(forge_store_pending_put(s, "c", "s3", st, 1000, &err), 0);
    CHECK_INT(forge_store_pending_drop(s, "s1", 20, &err), 0);
    CHECK_INT(forge_store_pending_take(s, "a", 0, &got, &err), 1);
    CHECK_INT(forge_store_pending_take(s, "b", 0, &got, &err), 1);
    CHECK_INT(forge_store_pending_take(s, "c", 0, &got, &err), 0);
    cJSON_Delete(got);
    cJSON_Delete(st);
    forge_store_close(s);
}

TEST(audit_and_prefs_survive_reopen)
{
    char path[] = "/tmp/forge-store-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    unlink(path);
    struct forge_store *s = NULL;
    struct forge_err err = {0};
    CHECK_INT(forge_store_open(path, &s, &err), 0);
    cJSON *row = cJSON_Parse("{\"at\":\"2026-01-01T00:00:00Z\",\"user\":\"u\",\"agentId\":\"a\",\"sessionId\":\"s\","
                             "\"route\":\"chat\",\"status\":\"final\",\"durationMs\":1.5,\"model\":\"m\","
                             "\"toolCount\":2,\"approvals\":1,\"hitl\":true,\"warnings\":3,\"error\":\"e\"}");
    CHECK_INT(forge_store_audit_add(s, row, &err), 0);
    cJSON *p = cJSON_Parse("{\"model\":\"x\"}");
    CHECK_INT(forge_store_prefs_put(s, "u", p, &err), 0);
    forge_store_close(s);
    CHECK_INT(forge_store_open(path, &s, &err), 0); /* the migrated schema is reused */
    cJSON *rows = NULL;
    CHECK_INT(forge_store_audit_list(s, 10, 0, &rows, &err), 0);
    CHECK_INT(cJSON_GetArraySize(rows), 1);
    cJSON *r = rows->child;
    cJSON_DeleteItemFromObject(r, "id");
    CHECK(cJSON_Compare(r, row, 1));
    cJSON_Delete(rows);
    cJSON *got = NULL;
    CHECK_INT(forge_store_prefs_get(s, "u", &got, &err), 0);
    CHECK(cJSON_Compare(got, p, 1));
    cJSON_Delete(got);
    CHECK_INT(forge_store_prefs_get(s, "nobody", &got, &err), 0);
    CHECK(cJSON_IsObject(got) && !got->child);
    cJSON_Delete(got);
    forge_store_close(s);
    cJSON_Delete(row);
    cJSON_Delete(p);
    /* a version-1 database is migrated to version 2 (rate_limits) when opened */
    char cmd0[300];
    snprintf(cmd0, sizeof cmd0, "sqlite3 %s 'DROP TABLE rate_limits; DELETE FROM forge_schema WHERE version = 2' 2>/dev/null",
             path);
    if (system(cmd0) == 0) {
        CHECK_INT(forge_store_open(path, &s, &err), 0);
        long n = 0;
        CHECK_INT(forge_store_rate_hit(s, "u", 60, &n, &err), 0);
        CHECK_INT(n, 1);
        forge_store_close(s);
    }
    /* a schema newer than forge knows is refused */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'INSERT INTO forge_schema VALUES (99)' 2>/dev/null", path);
    if (system(cmd) == 0) {
        CHECK(forge_store_open(path, &s, &err) == FORGE_EIO);
        CHECK(strstr(err.msg, "schema version 99 is newer") != NULL);
    }
    unlink(path);
    snprintf(cmd, sizeof cmd, "%s-wal", path);
    unlink(cmd);
    snprintf(cmd, sizeof cmd, "%s-shm", path);
    unlink(cmd);
}

TEST(rate_counts)
{
    struct forge_store *s = NULL;
    struct forge_err err = {0};
    CHECK_INT(forge_store_open(":memory:", &s, &err), 0);
    CHECK_INT(s->shared, 0);
    long n = 0;
    for (int i = 1; i <= 3; i++) {
        CHECK_INT(forge_store_rate_hit(s, "u", 600, &n, &err), 0);
        CHECK_INT(n, i);
    }
    CHECK_INT(forge_store_rate_hit(s, "v", 600, &n, &err), 0);
    CHECK_INT(n, 1);
    CHECK_INT(forge_store_rate_hit(s, "u", 660, &n, &err), 0); /* a new window */
    CHECK_INT(n, 1);
    forge_store_close(s);
}

TEST(bad_locations)
{
    struct forge_store *s = NULL;
    struct forge_err err = {0};
    CHECK(forge_store_open("", &s, &err) == FORGE_EINVAL);
    CHECK(forge_store_open("sqlite:", &s, &err) == FORGE_EINVAL);
    CHECK(forge_store_open("/nonexistent/dir/x.db", &s, &err) == FORGE_EIO);
    CHECK(strstr(err.msg, "store sqlite:/nonexistent/dir/x.db: cannot open") != NULL);
    CHECK(forge_store_open("postgresql://u:secret@127.0.0.1:1/db?bogus_option=1", &s, &err) == FORGE_EINVAL);
    CHECK(strstr(err.msg, "secret") == NULL);
    CHECK(s == NULL);
}

int main(void)
{
    RUN(conversations);
    RUN(pending_once);
    RUN(audit_and_prefs_survive_reopen);
    RUN(rate_counts);
    RUN(bad_locations);
    return TEST_DONE();
}
