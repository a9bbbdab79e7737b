/* Unit tests for data/re. */
#include "test.h"
#include "data/re.h"

#include <string.h>

TEST(flags_parse)
{
    struct forge_err err = {0};
    CHECK_INT(forge_re_flags("ims", &err), FORGE_RE_CASELESS | FORGE_RE_MULTILINE | FORGE_RE_DOTALL);
    CHECK_INT(forge_re_flags("", &err), 0);
    CHECK_INT(forge_re_flags("iz", &err), -1);
    CHECK_STR(err.msg, "unknown regex flag 'z' (flags are i, m, s, x, A (anchored), b (bytes))");
}

TEST(exec_captures_and_offsets)
{
    struct forge_err err = {0};
    const struct forge_re *re = forge_re_cached("(\\w+)@(\\w+)?", 12, 0, &err);
    CHECK(re != NULL);
    CHECK_INT(forge_re_groups(re), 2);
    size_t ov[6];
    const char *s = "mail: bob@ and x";
    CHECK_INT(forge_re_exec(re, s, strlen(s), 0, ov, 3, &err), 3);
    CHECK_INT(ov[0], 6);
    CHECK_INT(ov[1], 10);
    CHECK_INT(ov[2], 6);
    CHECK_INT(ov[3], 9);
    CHECK(ov[4] == (size_t)-1);
    CHECK(forge_re_cached("(\\w+)@(\\w+)?", 12, 0, &err) == re); /* cached */
    CHECK(forge_re_cached("(\\w+)@(\\w+)?", 12, FORGE_RE_CASELESS, &err) != re);
}

TEST(test_helper_and_unicode)
{
    struct forge_err err = {0};
    CHECK_INT(forge_re_test("^caf.$", 0, "café", &err), 1);
    CHECK_INT(forge_re_test("^caf.$", FORGE_RE_BYTES, "café", &err), 0);
    CHECK_INT(forge_re_test("ÉCOLE", FORGE_RE_CASELESS, "école", &err), 1);
    CHECK_INT(forge_re_test("x", 0, "abc", &err), 0);
}

TEST(errors)
{
    struct forge_err err = {0};
    CHECK(forge_re_compile("a(b", 3, 0, &err) == NULL);
    CHECK_STR(err.msg, "invalid regex 'a(b' at offset 3: missing closing parenthesis");
    forge_re_set_limits(1000, 100000);
    const char *s = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";
    CHECK_INT(forge_re_test("^(a|a)+$", 0, s, &err), FORGE_ELIMIT);
    CHECK(strstr(err.msg, "hit the PCRE2 match limit") != NULL);
    CHECK(strstr(err.msg, "--regex-match-limit") != NULL);
    forge_re_set_limits(10000000, 100000);
    CHECK_INT(forge_re_test("a", 0, "\xff\xfe", &err), FORGE_EINVAL);
}

int main(void)
{
    RUN(flags_parse);
    RUN(exec_captures_and_offsets);
    RUN(test_helper_and_unicode);
    RUN(errors);
    forge_re_cache_clear();
    return TEST_DONE();
}
