/* Unit tests for data/ecmare: ECMA-262 semantics of the translation, and the fast matcher for
 * simple patterns checked against PCRE2 on many generated subjects. */
#include "test.h"
#include "data/schema_int.h"

#include <stdint.h>
#include <stdlib.h>

static int test1(const char *pat, const char *subject)
{
    struct forge_err err;
    void *re = forge_ecmare_compile(pat, strlen(pat), &err);
    if (!re) {
        fprintf(stderr, "compile '%s': %s\n", pat, err.msg);
        return -99;
    }
    int r = forge_ecmare_test(re, subject, strlen(subject));
    forge_ecmare_free(re);
    return r;
}

TEST(ecma_semantics)
{
    CHECK_INT(test1("^\\d$", "\xd9\xa1"), 0);           /* ARABIC-INDIC ONE is not \d */
    CHECK_INT(test1("^\\w$", "\xc3\xa9"), 0);           /* é is not \w */
    CHECK_INT(test1("^\\s$", "\xc2\xa0"), 1);           /* NBSP is \s */
    CHECK_INT(test1("^\\s$", "\xef\xbb\xbf"), 1);       /* BOM is \s */
    CHECK_INT(test1("^\\S$", "\xc2\xa0"), 0);
    CHECK_INT(test1("^.$", "\n"), 0);
    CHECK_INT(test1("^.$", "\xe2\x80\xa8"), 0);         /* LINE SEPARATOR */
    CHECK_INT(test1("^.$", "\xf0\x9f\x98\x80"), 1);     /* one character, four bytes */
    CHECK_INT(test1("^abc$", "abc\n"), 0);              /* $ only at the very end */
    CHECK_INT(test1("^[^]$", "\n"), 1);
    CHECK_INT(test1("[]", "a"), 0);
    CHECK_INT(test1("^\\u00e9\\u{1F600}$", "\xc3\xa9\xf0\x9f\x98\x80"), 1);
    CHECK_INT(test1("^\\ud83d\\ude00$", "\xf0\x9f\x98\x80"), 1); /* a surrogate pair */
    CHECK_INT(test1("^\\p{Letter}+$", "\xc3\xa9t\xc3\xa9"), 1);
    CHECK_INT(test1("^\\p{Script=Greek}$", "\xce\xb1"), 1);
    CHECK_INT(test1("^\\cJ$", "\n"), 1);
    CHECK_INT(test1("a(?=b)", "ab"), 1);
    CHECK_INT(test1("(?<n>x)\\k<n>", "xx"), 1);
    /* an empty group repeated thousands of times matches at once, as in JavaScript, also where
     * PCRE2's JIT answers (a lookahead keeps the pattern from the automata): its backtracking
     * once ran out of PCRE2's default JIT stack, which read as "no match" */
    CHECK_INT(test1("^(?=a)((){87}){87}a$", "a"), 1);
    CHECK_INT(test1("(?=x)(){6001,}", "x"), 1);
    CHECK_INT(test1("^(?=a)((){87}){87}b$", "a"), 0);
    struct forge_err err;
    void *re = forge_ecmare_compile("(){6001,}", 9, &err);
    CHECK(re != NULL);
    CHECK_INT(forge_ecmare_test(re, "", 0), 1);
    CHECK_INT(forge_ecmare_test_pcre2(re, "", 0), 1); /* the automaton and PCRE2 agree */
    forge_ecmare_free(re);
    CHECK(forge_ecmare_compile("\\a", 2, &err) == NULL);
    CHECK_STR(err.msg, "invalid regex '\\a': invalid escape '\\a'");
    CHECK(forge_ecmare_compile("(?i)a", 5, &err) == NULL);
    CHECK(forge_ecmare_compile("[a", 2, &err) == NULL);
}


TEST(simple_matcher_agrees_with_pcre2)
{
    static const char *const simple[] = {
        "^[A-Z]{3}$", "^\\d{4}-\\d{2}-\\d{2}$", "[a-z]+", "^cus_[A-Za-z0-9]{2,6}$", "^tok_[a-z0-9]+$",
        "^https://", "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", "a*b?c{2,}", "^.?$", "x.y", "^[\\w.-]+$",
        "\\S+\\s\\S", "^[^/\\\\]+$", "^[0-7]{3,4}$", "colou?r", "^$", "", "^a{0}b$", "[-a]", "[a-]",
        "\\.", "^\\D*$", "^[^\\d\\W]+$", "ab+?c", "^[\\s\\S]{2}$", "^[a-c][^a-c]*[a-c]$", "c$",
        "^x{2,3}y{0,2}$", "\\t", "[^\\n]", "^[^a]{2,}", "9{3}", "^[a-z]{2,20}$", "^a{0,5}b{0,5}c$",
        "^x?y?z?$", "a?b?c?d", "^[a-c]{0,4}[b-d]{1,3}$", "^.{0,8}$",
        /* groups, alternation, quantified groups */
        "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?(Z|[+-]\\d{2}:\\d{2})$", "(ab)+", "a|b", "^(a|b)*c$",
        "x(y|z){2,3}", "^(?:cus|tok)_[a-z0-9]+$", "(a|)+b", "^(a*)*$", "((a|b)c?)+$", "^(|a)(|b)$",
        "^(https?|ftp)://[^\\s/$.?#].[^\\s]*$", "(?:a|b|c){0,3}d{1,2}?", "^(\\w+\\.)*\\w+@\\w+$", "()",
        "^()$", "(a?){2}b", "[^]", "[]|a", "^[^]*$", "(\\x41|\\u0062|\\cJ)+", "^(?:[a-c]|\\d{2})+$",
        "^(a{0}|b)$", "^(a|b){0}$", "((((a))))", "(a|b)(c|d)|e", "^https://", "tok_$", "cus_",
        /* characters beyond ASCII in the pattern */
        "^[a-z\xc3\xa0-\xc3\xbf]+$", "\xc3\xa9", "[\\u00e9]", "\\u{61}", "^\\u{1F600}+$", "\\ud83d\\ude00",
        "^[^\\u00a0-\\u00ff]*$", "[a-\xc3\xa9]{2}", "^(\xe2\x82\xac|\\x80|\\s)+$", "[\\S\\s\xc3\xa9]", "[^\\s\xc3\xa9]+",
        "\xf0\x9f\x98\x80.", "^.\xc2\xa0.$",
        /* anchors per top-level branch */
        "^a|b", "a|b$", "^$|^[a-z]+$", "^a$|b", "^(a|b)$|^c", "x|^y$|z$", "^|a", "$|a", "^$", "^a|^b|^$",
    };
    static const char *const atoms[] = {
        "a", "b", "c", "x", "y", "A", "Z", "0", "7", "9", "-", ".", "@", "/", "\\", "_", " ", "\t",
        "\n", "\r", "\xc3\xa9", "\xc2\xa0", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "k", "t", "o", "u", "d", "z",
        "s", "h", "p", ":", "r", "cus_", "tok_", "https://", "T", "+", "2026-11-23", "T09:00", "Z", "e",
        "ftp", "A", "\x80", "\xc3", "\xc3\xa0", "\xc3\xbf", "\xc3\x80", "\xe2\x82\xac", "\xc2\x80",
        "\xe2\x80\xaf", "\xef\xbb\xbf", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf",
    };
    int disagreements = 0;
    for (size_t p = 0; p < sizeof simple / sizeof *simple; p++) {
        struct forge_err err;
        void *re = forge_ecmare_compile(simple[p], strlen(simple[p]), &err);
        CHECK(re != NULL);
        if (!re)
            continue;
        CHECK(forge_ecmare_is_simple(re));
        for (int k = 0; k < 4000; k++) {
            char subject[256] = "";
            int len = (int)(test_rand() % 10);
            for (int i = 0; i < len; i++)
                strcat(subject, atoms[test_rand() % (sizeof atoms / sizeof *atoms)]);
            size_t n = strlen(subject);
            int fast = forge_ecmare_test(re, subject, n);
            int slow = forge_ecmare_test_pcre2(re, subject, n);
            int bits = forge_ecmare_test_nfa(re, subject, n);
            int str = forge_ecmare_test_str(re, subject);
            if (bits >= 0 && bits != slow)
                fast = bits; /* report it */
            if (str != slow)
                fast = str;
            if (fast != slow && disagreements++ < 10)
                fprintf(stderr, "pattern '%s' on '%s': fast %d, pcre2 %d\n", simple[p], subject, fast, slow);
        }
        forge_ecmare_free(re);
    }
    CHECK_INT(disagreements, 0);
    /* patterns outside the simple subset go to PCRE2 */
    static const char *const complex[] = {
        "^\\p{L}$", "\\bx", "[\\p{L}]", "a{1,100}", "(?=a)", "(a)\\1", "(?<n>a)", "a^b", "a$b", "(^a)",
        "(a$)", "(a{8}){8}", "\\B",
    };
    for (size_t p = 0; p < sizeof complex / sizeof *complex; p++) {
        struct forge_err err;
        void *re = forge_ecmare_compile(complex[p], strlen(complex[p]), &err);
        CHECK(re != NULL && !forge_ecmare_is_simple(re));
        forge_ecmare_free(re);
    }
}

/* Random simple patterns: anchors, literals, classes (plain, ranges, negated, \d \w \s and
 * their negations), '.', and every quantifier form, against PCRE2 on random subjects. */
TEST(random_simple_patterns_agree_with_pcre2)
{
    static const char *const atoms[] = {
        "a", "b", "c", "-", ".", "\\.", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "[ab]", "[^ab]",
        "[a-c0-9]", "[^\\s@]", "[\\d-]", "[.]", "x",
    };
    static const char *const quants[] = {"", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,3}", "{2,}", "+?"};
    static const char *const subj[] = {"a", "b", "c", "x", "-", ".", "0", "5", " ", "\t", "@", "_", "\xc3\xa9",
                                       "\xc2\xa0", "\n", "\xe2\x80\xa8", "Z"};
    int disagreements = 0, simple = 0;
    for (int p = 0; p < 400; p++) {
        char pat[256] = "";
        if (test_rand() % 2)
            strcat(pat, "^");
        int natoms = 1 + (int)(test_rand() % 4);
        for (int k = 0; k < natoms; k++) {
            strcat(pat, atoms[test_rand() % (sizeof atoms / sizeof *atoms)]);
            strcat(pat, quants[test_rand() % (sizeof quants / sizeof *quants)]);
        }
        if (test_rand() % 2)
            strcat(pat, "$");
        struct forge_err err;
        void *re = forge_ecmare_compile(pat, strlen(pat), &err);
        CHECK(re != NULL);
        if (!re)
            continue;
        simple += forge_ecmare_is_simple(re);
        for (int k = 0; k < 300; k++) {
            char subject[256] = "";
            /* up to 24 characters: the pair table's steps eight ASCII bytes at a time, then
             * pairs, and non-ASCII characters anywhere in or after a block of eight */
            int len = (int)(test_rand() % (k % 2 ? 8 : 24));
            for (int i = 0; i < len; i++)
                strcat(subject, subj[test_rand() % (sizeof subj / sizeof *subj)]);
            size_t n = strlen(subject);
            int fast = forge_ecmare_test(re, subject, n);
            int slow = forge_ecmare_test_pcre2(re, subject, n);
            int bits = forge_ecmare_test_nfa(re, subject, n);
            int str = forge_ecmare_test_str(re, subject);
            if (bits >= 0 && bits != slow)
                fast = bits; /* report it */
            if (str != slow)
                fast = str;
            if (fast != slow && disagreements++ < 10)
                fprintf(stderr, "pattern '%s' on '%s': fast %d, pcre2 %d\n", pat, subject, fast, slow);
        }
        forge_ecmare_free(re);
    }
    CHECK_INT(disagreements, 0);
    CHECK(simple > 350); /* nearly all of them take the fast path */
}


/* Random regular patterns: nested groups (capturing or not), alternation, quantifiers on atoms
 * and groups, anchors, against PCRE2 on random subjects. */
static void gen_alt(char *out, int depth);

static void gen_seq(char *out, int depth)
{
    static const char *const atoms[] = {
        "a", "b", "c", "x", "-", ".", "\\.", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "[ab]", "[^ab]",
        "[a-c0-9]", "[^\\s@]", "[\\d-]", "[]", "[^]", "\\x61", "\\u0063", "\\/", "\xc3\xa9",
        "[\xc3\xa0-\xc3\xbf]", "\\u00e9", "[^\\u00a0-\\u00ff]", "\\u{1F600}", "[a-\xc3\xa9]", "\\xe9",
        "[\\S\xc3\xa9]",
    };
    static const char *const quants[] = {"", "", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,3}", "{2,}",
                                         "+?", "??", "{0}", "{1}", "{0,}"};
    int items = (int)(test_rand() % 4);
    for (int k = 0; k < items; k++) {
        if (depth < 3 && test_rand() % 3 == 0) {
            strcat(out, test_rand() % 2 ? "(" : "(?:");
            gen_alt(out, depth + 1);
            strcat(out, ")");
        } else {
            strcat(out, atoms[test_rand() % (sizeof atoms / sizeof *atoms)]);
        }
        strcat(out, quants[test_rand() % (sizeof quants / sizeof *quants)]);
    }
}

static void gen_alt(char *out, int depth)
{
    gen_seq(out, depth);
    while (test_rand() % 3 == 0) {
        strcat(out, "|");
        gen_seq(out, depth);
    }
}

/* A pattern of top-level branches, each with its own anchors or none. */
static void gen_top(char *out)
{
    do {
        if (out[0])
            strcat(out, "|");
        if (test_rand() % 2)
            strcat(out, "^");
        gen_seq(out, 0);
        if (test_rand() % 2)
            strcat(out, "$");
    } while (test_rand() % 3 == 0);
}

TEST(random_regular_patterns_agree_with_pcre2)
{
    static const char *const subj[] = {"a", "b", "c", "x", "-", ".", "0", "5", " ", "\t", "@", "_", "/",
                                       "\xc3\xa9", "\xc2\xa0", "\n", "\xe2\x80\xa8", "Z", "ab", "abc",
                                       "\xc3\xa0", "\xc3\xbf", "\xc4\x80", "\xf0\x9f\x98\x80", "\xe2\x80\x80"};
    int disagreements = 0, fast_path = 0, compiled = 0, limited = 0, engines[128] = {0}, tables[4] = {0};
    for (int p = 0; p < 3000; p++) {
        char pat[8192] = "";
        gen_top(pat);
        struct forge_err err;
        void *re = forge_ecmare_compile(pat, strlen(pat), &err);
        if (!re)
            continue; /* e.g. PCRE2's "quantifier does not follow a repeatable item" */
        compiled++;
        fast_path += forge_ecmare_is_simple(re);
        engines[forge_ecmare_engine(re)]++;
        tables[forge_ecmare_dfa_tables(re)]++;
        for (int k = 0; k < 200; k++) {
            char subject[256] = "";
            int len = (int)(test_rand() % 9);
            for (int i = 0; i < len; i++)
                strcat(subject, subj[test_rand() % (sizeof subj / sizeof *subj)]);
            size_t n = strlen(subject);
            if (test_rand() % 50 == 0 && n)
                subject[test_rand() % n] = (char)0xff; /* invalid UTF-8 matches nothing */
            int fast = forge_ecmare_test(re, subject, n);
            int slow = forge_ecmare_test_pcre2(re, subject, n);
            int bits = forge_ecmare_test_nfa(re, subject, n);
            int str = forge_ecmare_test_str(re, subject);
            if (str != fast && disagreements++ < 10)
                fprintf(stderr, "pattern '%s' on '%s': fast %d, to the NUL %d\n", pat, subject, fast, str);
            if (bits >= 0 && bits != fast && disagreements++ < 10)
                fprintf(stderr, "pattern '%s' on '%s': fast %d, bit-parallel %d\n", pat, subject, fast, bits);
            if (slow == FORGE_ELIMIT) {
                limited++; /* PCRE2 backtracks exponentially; the automaton answers */
                CHECK(fast >= 0 || !forge_ecmare_is_simple(re));
                break;
            }
            if (fast != slow && disagreements++ < 10)
                fprintf(stderr, "pattern '%s' on '%s': fast %d, pcre2 %d\n", pat, subject, fast, slow);
        }
        forge_ecmare_free(re);
    }
    CHECK_INT(disagreements, 0);
    CHECK(compiled > 2500);
    /* most take the automaton (the rest: over 63 positions) */
    CHECK(fast_path > compiled * 9 / 10);
    CHECK(engines['d'] > 1000 && engines['n'] > 20 && engines['l'] > 20);
    /* DFAs on their pair table, and (classes too many for one) on their byte table alone */
    CHECK(tables[1] + tables[3] > 1000 && tables[2] > 20);
    fprintf(stderr, "%d patterns compiled: %d DFA (%d on a pair table, %d on a byte table), %d bit-parallel, "
            "%d literal, %d PCRE2; %d hit PCRE2's match limit\n", compiled, engines['d'], tables[1] + tables[3],
            tables[2], engines['n'], engines['l'], engines['p'], limited);
}

/* Which matcher a pattern gets. */
TEST(engines)
{
    static const struct {
        const char *pat;
        int engine;
    } cases[] = {
        {"^https://", 'l'}, {"tok_$", 'l'}, {"cus_", 'l'}, {"^(ab)c$", 'l'}, {"^a{3}$", 'l'},
        {"^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?(Z|[+-]\\d{2}:\\d{2})$", 'd'},
        {"^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", 'd'}, {"(a|b)*c", 'd'}, {"a+", 'd'},
        {"a[ab]{8}$", 'n'}, /* 2^9 subsets: over 256 DFA states */
        {"^[a-z\xc3\xa0-\xc3\xbf]+$", 'd'}, {"^\\u{1F600}\\s$", 'd'}, {"\xe2\x82\xac", 'd'},
        {"a{64}", 'p'}, {"^(a|b)\\1$", 'p'}, {"\\bx", 'p'}, {"^\\p{L}+$", 'p'},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct forge_err err;
        void *re = forge_ecmare_compile(cases[k].pat, strlen(cases[k].pat), &err);
        CHECK(re != NULL);
        if (!re)
            continue;
        if (forge_ecmare_engine(re) != cases[k].engine)
            fprintf(stderr, "'%s': engine %c, expected %c\n", cases[k].pat, forge_ecmare_engine(re), cases[k].engine);
        CHECK_INT(forge_ecmare_engine(re), cases[k].engine);
        forge_ecmare_free(re);
    }
    CHECK_INT(test1("^[a-z\xc3\xa0-\xc3\xbf]+$", "\xc3\xa9t\xc3\xa9"), 1);   /* été */
    CHECK_INT(test1("^[a-z\xc3\xa0-\xc3\xbf]+$", "\xc4\x81"), 0);                /* ā */
    CHECK_INT(test1("^\\u{1F600}\\s$", "\xf0\x9f\x98\x80\xe3\x80\x80"), 1);  /* U+3000 is \s */
    CHECK_INT(test1("^\\u{1F600}\\s$", "\xf0\x9f\x98\x81 "), 0);
    /* the bit-parallel matcher where the DFA would be too large */
    CHECK_INT(test1("a[ab]{8}$", "bbbabbbbbbbb"), 1);
    CHECK_INT(test1("a[ab]{8}$", "bbbabbbbbbbba"), 0);
    CHECK_INT(test1("a[ab]{8}$", "bbbabbbbabbbb"), 0);
    CHECK_INT(test1("a[ab]{8}$", "bbbbabbbbbbbbb"), 0);
    CHECK_INT(test1("^(a|b)*a(a|b){7}c$", "abababaabaaaaaac"), 1);
    CHECK_INT(test1("^(a|b)*a(a|b){7}c$", "ababababbbbbbbbc"), 0);
    /* no backtracking: where PCRE2 gives up, the automaton answers */
    struct forge_err err;
    void *re = forge_ecmare_compile("^(a|a)*$", 8, &err);
    CHECK(re != NULL);
    const char *subject = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab";
    CHECK_INT(forge_ecmare_test_pcre2(re, subject, strlen(subject)), FORGE_ELIMIT);
    CHECK_INT(forge_ecmare_test(re, subject, strlen(subject)), 0);
    CHECK_INT(forge_ecmare_test(re, subject, strlen(subject) - 1), 1);
    forge_ecmare_free(re);
}

/* Small DFAs run on a table indexed by byte, where NUL and non-ASCII bytes take the class
 * table: a NUL inside a counted subject is a character like any other, and the NUL-terminated
 * entry point (forge_ecmare_test_str) stops at the first one. */
TEST(byte_table_nul_and_non_ascii)
{
    struct forge_err err;
    void *re = forge_ecmare_compile("^a.b$", 5, &err);
    CHECK(re != NULL && forge_ecmare_engine(re) == 'd');
    CHECK_INT(forge_ecmare_test(re, "a\0b", 3), 1);
    CHECK_INT(forge_ecmare_test_pcre2(re, "a\0b", 3), 1);
    CHECK_INT(forge_ecmare_test(re, "a\0bb", 4), 0);
    CHECK_INT(forge_ecmare_test_str(re, "a\0b"), 0); /* the subject is "a" */
    CHECK_INT(forge_ecmare_test_str(re, "a\xc3\xa9" "b"), 1);
    CHECK_INT(forge_ecmare_test_str(re, "a\xc3" "b"), 0); /* invalid UTF-8 */
    CHECK_INT(forge_ecmare_test_str(re, "axb"), 1);
    CHECK_INT(forge_ecmare_test_str(re, ""), 0);
    forge_ecmare_free(re);
    /* an unanchored tail accepts early; the rest of the subject must still be valid UTF-8 */
    re = forge_ecmare_compile("^ab", 3, &err);
    CHECK(re != NULL);
    CHECK_INT(forge_ecmare_test_str(re, "abc\xc3\xa9"), 1);
    CHECK_INT(forge_ecmare_test_str(re, "abc\xc3"), 0);
    forge_ecmare_free(re);
    re = forge_ecmare_compile("^[a-z]+\\d", 9, &err);
    CHECK(re != NULL && forge_ecmare_engine(re) == 'd');
    CHECK_INT(forge_ecmare_test_str(re, "abc1\xc3\xa9"), 1);
    CHECK_INT(forge_ecmare_test_str(re, "abc1\xff"), 0);
    CHECK_INT(forge_ecmare_test_str(re, "ab\xc3\xa9" "1"), 0);
    forge_ecmare_free(re);
    /* the empty subject of a pattern that matches only it */
    re = forge_ecmare_compile("^x*$", 4, &err);
    CHECK(re != NULL);
    CHECK_INT(forge_ecmare_test_str(re, ""), 1);
    CHECK_INT(forge_ecmare_test_str(re, "xx"), 1);
    CHECK_INT(forge_ecmare_test_str(re, "xy"), 0);
    forge_ecmare_free(re);
}

int main(void)
{
    RUN(ecma_semantics);
    RUN(simple_matcher_agrees_with_pcre2);
    RUN(random_simple_patterns_agree_with_pcre2);
    RUN(random_regular_patterns_agree_with_pcre2);
    RUN(engines);
    RUN(byte_table_nul_and_non_ascii);
    return TEST_DONE();
}
