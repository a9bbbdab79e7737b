/* JavaScript number formatting: forge_json_number's shortcuts (whole numbers, few decimals, 15 to 17 digits)
 * give exactly what the plain search over every digit count gives. */
#include "test.h"
#include "data/json.h"

#include <stdio.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The reference: the shortest of 1..17 significant digits that reads back, laid out by the
 * ECMA-262 rules. */
static char *reference(double d, char *out)
{
    if (isnan(d))
        return strcpy(out, "NaN");
    if (isinf(d))
        return strcpy(out, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0)
        return strcpy(out, "0");
    char tmp[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    char digits[24];
    int k = 0, neg = 0;
    const char *p = tmp;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    int n = atoi(p + 1) + 1;
    char *o = out;
    if (neg)
        *o++ = '-';
    if (k <= n && n <= 21) {
        o += sprintf(o, "%.*s%0*d", k, digits, n - k, 0);
        if (n == k)
            o[-1] = '\0', o--; /* %0*d with width 0 still prints one 0 */
    } else if (0 < n && n <= 21) {
        o += sprintf(o, "%.*s.%.*s", n, digits, k - n, digits + n);
    } else if (-6 < n && n <= 0) {
        o += sprintf(o, "0.%0*d%.*s", -n, 0, k, digits);
        if (n == 0) { /* no leading zeros wanted */
            o = out + neg;
            o += sprintf(o, "0.%.*s", k, digits);
        }
    } else {
        o += sprintf(o, "%c%s%.*se%c%d", digits[0], k > 1 ? "." : "", k - 1, digits + 1,
                     n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    return out;
}

static void same(double d)
{
    char a[40], b[40];
    reference(d, a);
    forge_json_number(d, b);
    test_checks++;
    if (strcmp(a, b) != 0) {
        test_failures++;
        if (test_failures < 20)
            fprintf(stderr, "%.17g: reference %s, forge_json_number %s\n", d, a, b);
    }
}

TEST(fixed_values)
{
    const double v[] = {0.1, 0.2, 0.30000000000000004, 0.7, 1 - 0.7, 0.10000000000000009, 1e21,
                        1e-7, 1.5e-7, 123456789012345680000.0, 1e300, -2.5, 5e-324, 1.7976931348623157e308,
                        9007199254740993.0, 0.8899999999999999, 100, -0.0, NAN, INFINITY, -INFINITY,
                        1e-6, 0.000001234, 4.35, 2.675, 1.005, 0.1 + 0.2, 1.0 / 3,
                        4.9406564584124654e-324, -5.828994249469882e-310, 2.2250738585072014e-308};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        same(v[i]);
    char b[40];
    CHECK_STR(forge_json_number(0.1 + 0.2, b), "0.30000000000000004");
    CHECK_STR(forge_json_number(1e21, b), "1e+21");
    CHECK_STR(forge_json_number(-42, b), "-42");
}

TEST(random_doubles)
{
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        if (i % 3 == 0) {
            memcpy(&d, &x, sizeof d); /* any bit pattern */
        } else if (i % 3 == 1) {
            d = (double)(x % 100000) / 1000.0; /* short decimals */
        } else {
            d = (double)(x % 1000) / (double)(1 + x % 97); /* ratios, like scores */
        }
        same(d);
    }
}

/* The few-decimals shortcut (m / 10^k, k <= 8, m below 10^15): such decimals, their
 * neighbours one ulp away (which it must leave to the search) and the edges of its range. */
TEST(short_decimals)
{
    static const double p10[9] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int k = (int)(x % 9);
        uint64_t m = (x >> 8) % (i % 2 ? 1000000000000000ULL : 100000ULL);
        double d = (double)m / p10[k];
        if (x & 1 << 4)
            d = -d;
        same(d);
        same(nextafter(d, INFINITY));
        same(nextafter(d, -INFINITY));
    }
    const double edge[] = {1e-8, 1.1e-8, 9.99999999e-9, 999999999999999.9, 99999999999999.99,
                           999999999999999.0, 1e15 - 0.5, 12345678.12345678, 0.00000001,
                           0.99999999, 1.00000001, 123456.7890123};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        same(edge[i]);
        same(-edge[i]);
    }
}

/* The exact shortest-digit path covers normal doubles from 2^-66 to 2^52 that are not powers of
 * two: every binary exponent of that range, with random mantissas, odd and even (which decides
 * whether the margin's ends read back), and their neighbours. */
TEST(exact_range)
{
    uint64_t x = 0x2545F4914F6CDD1DULL;
    for (uint64_t be = 950; be <= 1080; be++) {
        for (int i = 0; i < 1500; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t bits = be << 52 | (x & ((1ULL << 52) - 1));
            double d;
            memcpy(&d, &bits, sizeof d);
            same(d);
            same(-d);
            same(nextafter(d, 0));
        }
    }
}

int main(void)
{
    RUN(fixed_values);
    RUN(short_decimals);
    RUN(random_doubles);
    RUN(exact_range);
    return TEST_DONE();
}
