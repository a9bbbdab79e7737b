/* data/jsnum: the fast formatter writes exactly what forge_json_number writes. */
#include "test.h"
#include "data/json.h"
#include "data/jsnum.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static void same(double d)
{
    char a[40], b[40];
    forge_json_number(d, a);
    forge_jsnum_format(d, b);
    test_checks++;
    if (strcmp(a, b) != 0) {
        test_failures++;
        if (test_failures < 20)
            fprintf(stderr, "%.17g: forge_json_number %s, forge_jsnum_format %s\n", d, a, b);
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
    CHECK_STR(forge_jsnum_format(0.1 + 0.2, b), "0.30000000000000004");
    CHECK_STR(forge_jsnum_format(1e21, b), "1e+21");
    CHECK_STR(forge_jsnum_format(-42, b), "-42");
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

int main(void)
{
    RUN(fixed_values);
    RUN(random_doubles);
    return TEST_DONE();
}
