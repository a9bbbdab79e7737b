/* Unit tests for data/re. */
#include "test.h"
#include "data/re.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
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

/* 1 when <pattern> with <flags> matches <s>, 0 when not, the error code otherwise */
static int match(const char *pattern, int flags, const char *s)
{
    struct forge_err err = {0};
    struct forge_re *re = forge_re_compile(pattern, strlen(pattern), flags, &err);
    if (!re)
        return err.code;
    size_t ov[2];
    int rc = forge_re_exec(re, s, strlen(s), 0, ov, 1, &err);
    forge_re_free(re);
    return rc > 0 ? 1 : rc;
}

TEST(callout_in_front_means_the_same)
{
    /* every pattern is compiled with a callout in front (the time limit's check): what comes
     * first in a pattern, and what could reach back to its start, means the same */
    CHECK_INT(match("a|b", 0, "b"), 1);             /* both alternatives */
    CHECK_INT(match("^a|b$", 0, "xb"), 1);
    CHECK_INT(match("ab\\Q(", 0, "ab("), 1);      /* \Q without \E */
    CHECK_INT(match("ab\\Q(", 0, "ab"), 0);
    CHECK_INT(match("a b # comment", FORGE_RE_EXTENDED, "ab"), 1);
    CHECK_INT(match("(?x)a b # comment", 0, "ab"), 1); /* extended mode turned on inside */
    CHECK_INT(match("(?x)a b #", 0, "ab"), 1);
    CHECK_INT(match("(?x)ab\\Q#", 0, "ab#"), 1);
    CHECK_INT(match("(?x)ab\\Q#", 0, "ab"), 0);
    CHECK_INT(match("(*UTF)(*LIMIT_MATCH=1000)(*CRLF)a.$", 0, "xa\xc3\xa9"), 1);
    CHECK_INT(match("(*ACCEPT)x|y", 0, "q"), 1);
    CHECK_INT(match("(?i)a|B", 0, "b"), 1);
    CHECK_INT(match("(a)(?:b)(c)\\2", 0, "abcc"), 1); /* group numbers */
    CHECK_INT(match("a(?R)?b", 0, "xaabb"), 1); /* recursion into the whole pattern */
    /* errors and their offsets are those of the pattern as written */
    struct forge_err err = {0};
    CHECK(forge_re_compile("a)b", 3, 0, &err) == NULL);
    CHECK_STR(err.msg, "invalid regex 'a)b' at offset 1: unmatched closing parenthesis");
    /* nesting: the deepest the pattern allows still compiles, one more does not */
    char deep[1200];
    int n = 250;
    for (int i = 0; i < n; i++) deep[i] = '(';
    deep[n] = 'a';
    for (int i = 0; i < n; i++) deep[n + 1 + i] = ')';
    deep[2 * n + 1] = '\0';
    CHECK_INT(match(deep, 0, "a"), 1);
    memmove(deep + 1, deep, strlen(deep) + 1);
    deep[0] = '(';
    strcat(deep, ")");
    CHECK(forge_re_compile(deep, strlen(deep), 0, &err) == NULL);
    CHECK(strstr(err.msg, "parentheses are too deeply nested") != NULL);
}

static unsigned rnd(unsigned n)
{
    return (unsigned)(test_rand() % n);
}

TEST(callout_in_front_against_plain_pcre2)
{
    /* random patterns of the pieces that could interact with an item in front (alternation,
     * \Q, comments, extended mode, start-of-pattern items, quantifiers, recursion, back
     * references): compiled as forge does and as written, they compile alike and match alike,
     * offsets and groups included */
    static const char *const atoms[] = {"a", "b", "|", "(", ")", "(?:", "*", "+", "?", "\\Q", "\\E",
                                        "#", " ", "\n", "(?x)", "(?-x)", "(*UTF)", "(*NOTEMPTY)",
                                        "(?R)", "\\1", "^", "$", ".", "(?i)", "(*ACCEPT)", "\\K",
                                        "(?=a)", "(?<=b)", "[ab]", "{2}"};
    static const char *const subjects[] = {"", "a", "b", "ab", "ba", "aab", "abab", "b a#", "AB",
                                           "a\nb", "bbbaaa"};
    int compiled = 0, matched = 0, compared = 0;
    for (int t = 0; t < 20000; t++) {
        char pat[128];
        size_t n = 0;
        int pieces = 1 + (int)rnd(8);
        for (int k = 0; k < pieces; k++) {
            const char *a = atoms[rnd(sizeof atoms / sizeof *atoms)];
            size_t l = strlen(a);
            memcpy(pat + n, a, l);
            n += l;
        }
        pat[n] = '\0';
        int flags = rnd(4) == 0 ? FORGE_RE_EXTENDED : 0;
        uint32_t opts = PCRE2_UTF | PCRE2_UCP | (flags ? PCRE2_EXTENDED : 0);
        int ec;
        PCRE2_SIZE off;
        pcre2_code *plain = pcre2_compile((PCRE2_SPTR)pat, n, opts, &ec, &off, NULL);
        struct forge_err err = {0};
        struct forge_re *re = forge_re_compile(pat, n, flags, &err);
        CHECK((plain != NULL) == (re != NULL));
        if (!plain || !re) {
            pcre2_code_free(plain);
            forge_re_free(re);
            continue;
        }
        compiled++;
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(plain, NULL);
        for (size_t k = 0; k < sizeof subjects / sizeof *subjects; k++) {
            const char *sj = subjects[k];
            int prc = pcre2_match(plain, (PCRE2_SPTR)sj, strlen(sj), 0, 0, md, NULL);
            size_t ov[20];
            int rc = forge_re_exec(re, sj, strlen(sj), 0, ov, 10, &err);
            compared++;
            if (prc == PCRE2_ERROR_NOMATCH) {
                CHECK_INT(rc, 0);
                continue;
            }
            if (prc < 0) /* a limit: both must fail */
                continue;
            matched++;
            CHECK(rc > 0);
            if (rc <= 0) {
                fprintf(stderr, "pattern %s subject %s\n", pat, sj);
                continue;
            }
            PCRE2_SIZE *pov = pcre2_get_ovector_pointer(md);
            for (int g = 0; g < rc && g < prc; g++) {
                CHECK(ov[2 * g] == (pov[2 * g] == PCRE2_UNSET ? (size_t)-1 : pov[2 * g]));
                CHECK(ov[2 * g + 1] == (pov[2 * g + 1] == PCRE2_UNSET ? (size_t)-1 : pov[2 * g + 1]));
            }
        }
        pcre2_match_data_free(md);
        pcre2_code_free(plain);
        forge_re_free(re);
    }
    /* the generator reaches what it is meant to */
    CHECK(compiled > 5000);
    CHECK(matched > 10000);
    CHECK(compared > 50000);
}

TEST(time_limit_of_one_match)
{
    /* \w*\d costs the match limit's worth at each start position: n^2 steps in all */
    static char s[20002];
    memset(s, 'a', 20000);
    s[20000] = '!';
    forge_re_set_timeout(20);
    struct forge_err err = {0};
    const char *forms[] = {"\\w*\\d", "x|\\w*\\d", "(*UTF)\\w*\\d", "\\w*\\d # c", "\\w*\\d\\Q"};
    for (int i = 0; i < 5; i++) {
        struct forge_re *re = forge_re_compile(forms[i], strlen(forms[i]), i == 3 ? FORGE_RE_EXTENDED : 0, &err);
        CHECK(re != NULL);
        size_t ov[2];
        CHECK_INT(forge_re_exec(re, s, 20001, 0, ov, 1, &err), FORGE_ELIMIT);
        CHECK(strstr(err.msg, "ran past the 20 ms time limit of one match") != NULL);
        CHECK(strstr(err.msg, "raise --regex-timeout") != NULL);
        forge_re_free(re);
    }
    /* the same on a short subject ends well within it; 0 is no limit */
    CHECK_INT(forge_re_test("\\w*\\d", 0, "abc1", &err), 1);
    forge_re_set_timeout(0);
    s[3000] = '\0';
    CHECK_INT(forge_re_test("\\w*\\d", 0, s, &err), 0);
    forge_re_set_timeout(FORGE_RE_DEFAULT_TIMEOUT_MS);
}

int main(void)
{
    RUN(flags_parse);
    RUN(exec_captures_and_offsets);
    RUN(test_helper_and_unicode);
    RUN(errors);
    RUN(callout_in_front_means_the_same);
    RUN(callout_in_front_against_plain_pcre2);
    RUN(time_limit_of_one_match);
    forge_re_cache_clear();
    return TEST_DONE();
}
