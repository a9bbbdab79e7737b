/* forge_json_parse_fast against cJSON_ParseWithLengthOpts: whenever the fast reader returns a
 * tree it is cJSON's tree (types, values bit for bit, keys, order, prev links) and ends where
 * cJSON ends; it gives up (NULL) on every text cJSON refuses. Fixed cases plus many generated
 * texts near JSON (tokens glued at random), in the line arena and through malloc. */
#include "test.h"
#include "data/jarena.h"
#include "data/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "same_tree.h"


static long fast_ok, fast_gave_up;

/* Compares both readers on <text>; returns whether the fast one built a tree. */
static bool compare(const char *text, size_t len)
{
    const char *end = NULL;
    size_t fend = 0;
    cJSON *c = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    cJSON *f = forge_json_parse_fast(text, len, &fend);
    if (f) {
        fast_ok++;
        CHECK(c != NULL);
        if (c) {
            bool same = same_tree(f, c);
            CHECK(same);
            CHECK_INT(fend, end - text);
            if (!same)
                fprintf(stderr, "  differs on: %.*s\n", (int)len, text);
        } else {
            fprintf(stderr, "  cJSON refuses: %.*s\n", (int)len, text);
        }
    } else {
        fast_gave_up++;
    }
    if (!forge_jarena_is_on())
        cJSON_Delete(f);
    cJSON_Delete(c);
    return f != NULL;
}

static bool cmp_s(const char *s) { return compare(s, strlen(s)); }

TEST(fixed_cases)
{
    /* read by the fast path */
    static const char *fast[] = {
        "0", "-0", "1", "-1", "12345678901234567", "9007199254740993", "0.1", "-0.0", "1e22",
        "1e23", "1.5e-300", "2.2250738585072014e-308", "4.9e-324", "1e400", "-1e400",
        "123456789012345678901234567890", "0.30000000000000004", "1E+2", "1e-2", "2147483647",
        "2147483648", "-2147483648", "-2147483649", "3.99", "-3.99", "0.000001234",
        "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u00e9\\u20AC\\ud83d\\ude00\"",
        "\"caf\xc3\xa9 \x01 raw\"", "[]", "{}", "[ ]", "{ }", "[1,2,3]", "{\"a\":1,\"a\":2}",
        " \t\r\n{\"k\" : [true,false,null,{\"x\":{}}], \"\":\"\"}", "[[[[[]]]]]", "\x01[1]",
        "[1]  x", "0x10", "{\"a\":[1,{\"b\":\"c\"}],\"d\":-12.5e3}", "true", "false", "null",
    };
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++) {
        bool ok = cmp_s(fast[i]);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  gave up on: %s\n", fast[i]);
    }
    /* left to cJSON (it reads them in its own way, or refuses them) */
    static const char *slow[] = {
        "01", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "1.5.5", "1+2",
        "\"\\u0000x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\uZZZZ\"", "\"\\q\"",
        "\"abc", "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "nul", "tru",
        "\xef\xbb\xbf{}", "", "   ", "[", "{", "\"\\", ("1234567890123456789012345678901234567890"
        "12345678901234567890123"), /* (one string: 63 digits) */
    };
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
        bool ok = cmp_s(slow[i]);
        CHECK(!ok);
        if (ok)
            fprintf(stderr, "  read: %s\n", slow[i]);
    }
    /* nesting: cJSON's limit is 1000 levels */
    static char deep[2100];
    for (int n = 999; n <= 1001; n++) {
        memset(deep, '[', (size_t)n);
        memset(deep + n, ']', (size_t)n);
        bool ok = compare(deep, 2 * (size_t)n);
        CHECK(ok == (n <= 1000));
    }
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

TEST(generated_texts)
{
    static const char *tok[] = {
        "{", "}", "[", "]", ",", ":", " ", "\n", "\"a\"", "\"key\"", "\"\\n\"", "\"\\u00e9\"",
        "\"\\ud83d\\ude00\"", "\"\\u0000\"", "\"\\ud800\"", "0", "-0", "1", "12", "-3.25", "1e5",
        "1E-7", "0.1", "00", "1.", ".", "e", "+", "-", "true", "false", "null", "nul", "\"",
        "\\", "123456789012345678901", "4.9e-324", "1e308", "1e309", "\x01", "x",
        "9007199254740993", "0.000000000000000000001",
    };
    const size_t ntok = sizeof tok / sizeof tok[0];
    char text[512];
    long built = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            forge_jarena_install();
            forge_jarena_on(true);
        }
        for (int i = 0; i < 100000; i++) {
            size_t len = 0;
            int n = 1 + (int)(next() % 24);
            /* half the texts are made valid-looking: a value in an array or object */
            bool wrap = next() & 1;
            if (wrap)
                text[len++] = '[';
            for (int k = 0; k < n; k++) {
                const char *t = tok[next() % ntok];
                size_t l = strlen(t);
                if (len + l + 2 >= sizeof text)
                    break;
                memcpy(text + len, t, l);
                len += l;
            }
            if (wrap)
                text[len++] = ']';
            built += compare(text, len);
            if (round == 1 && i % 64 == 0)
                forge_jarena_reset();
        }
        /* values of every kind, well formed: the fast path reads nearly all of them */
        for (int i = 0; i < 20000; i++) {
            size_t len = 0;
            text[len++] = '{';
            int n = 1 + (int)(next() % 8);
            for (int k = 0; k < n; k++) {
                len += (size_t)snprintf(text + len, sizeof text - len, "%s\"k%d\":", k ? "," : "", k);
                switch (next() % 5) {
                case 0:
                    len += (size_t)snprintf(text + len, sizeof text - len, "%.17g",
                                            (double)(int64_t)next() / (double)(next() | 1));
                    break;
                case 1:
                    len += (size_t)snprintf(text + len, sizeof text - len, "%lld",
                                            (long long)(int64_t)(next() >> (next() % 64)));
                    break;
                case 2:
                    len += (size_t)snprintf(text + len, sizeof text - len, "%.*f",
                                            (int)(next() % 8), (double)(next() % 100000) / 7);
                    break;
                case 3:
                    len += (size_t)snprintf(text + len, sizeof text - len, "[\"s%llu\",true,null]",
                                            (unsigned long long)(next() % 1000));
                    break;
                default:
                    len += (size_t)snprintf(text + len, sizeof text - len, "%de%d",
                                            (int)(next() % 1000), (int)(next() % 60) - 30);
                    break;
                }
            }
            text[len++] = '}';
            CHECK(compare(text, len));
            if (round == 1 && i % 64 == 0)
                forge_jarena_reset();
        }
        if (round == 1) {
            forge_jarena_on(false);
            forge_jarena_release();
        }
    }
    CHECK(built > 1000);
    fprintf(stderr, "fast reader: %ld trees, %ld left to cJSON\n", fast_ok, fast_gave_up);
}

/* Strings around the 16-byte window the reader compares and copies at once: every length up to
 * 40, with a quote or an escape at each place, the text ending right after the string or going
 * on, as a value and as a key; each text in a block of its own length, so that a read past its
 * end is one the sanitizers and valgrind report. In the arena and through malloc. */
TEST(string_window)
{
    static const char *tails[] = {"", "]", ",1]", "                "};
    char body[48], text[128];
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            forge_jarena_install();
            forge_jarena_on(true);
        }
        long n_ok = 0;
        for (int n = 0; n <= 40; n++) {
            for (int at = -1; at < n; at++) { /* at: where an escape goes (-1: none) */
                for (int esc = 0; esc < 2; esc++) {
                    if (at < 0 && esc)
                        continue;
                    size_t bl = 0;
                    for (int i = 0; i < n; i++) {
                        if (i == at) {
                            const char *e = esc ? "\\\"" : "\\n";
                            memcpy(body + bl, e, 2);
                            bl += 2;
                        } else {
                            body[bl++] = (char)('a' + i % 26);
                        }
                    }
                    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
                        for (int key = 0; key < 2; key++) {
                            /* a value: alone, in arrays, before white space; a key: before its
                             * colon, before white space and a colon, before a longer value */
                            int len;
                            if (key)
                                len = snprintf(text, sizeof text, "{\"%.*s\"%s:%s}", (int)bl, body,
                                               t == 3 ? tails[3] : "", t == 2 ? "\"0123456789abcdefgh\"" : "0");
                            else
                                len = snprintf(text, sizeof text, "%s\"%.*s\"%s", t == 1 || t == 2 ? "[" : "",
                                               (int)bl, body, tails[t]);
                            char *exact = malloc((size_t)len);
                            CHECK(exact != NULL);
                            if (!exact)
                                return;
                            memcpy(exact, text, (size_t)len);
                            bool ok = compare(exact, (size_t)len);
                            CHECK(ok);
                            if (!ok)
                                fprintf(stderr, "  gave up on: %.*s\n", len, text);
                            n_ok += ok;
                            free(exact);
                        }
                    }
                }
            }
            if (round == 1)
                forge_jarena_reset();
        }
        CHECK(n_ok > 5000);
        if (round == 1) {
            forge_jarena_on(false);
            forge_jarena_release();
        }
    }
}

int main(void)
{
    RUN(fixed_cases);
    RUN(generated_texts);
    RUN(string_window);
    return TEST_DONE();
}
