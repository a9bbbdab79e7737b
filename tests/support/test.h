/* A minimal table-driven test harness: TEST(name) functions listed in main via RUN(name).
 * CHECK(cond) records a failure with file:line and goes on; main returns nonzero on any failure. */
#ifndef FORGE_TEST_H
#define FORGE_TEST_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond) do { test_checks++; if (!(cond)) { test_failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); test_checks++; \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) { test_failures++; \
    fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got:      %s\n  expected: %s\n", \
            __FILE__, __LINE__, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); test_checks++; \
    if (a_ != b_) { test_failures++; fprintf(stderr, "%s:%d: CHECK_INT failed: %s = %lld, expected %lld\n", \
            __FILE__, __LINE__, #a, a_, b_); } } while (0)
#define TEST(name) static void name(void)
#define RUN(name) do { name(); } while (0)
/* xorshift64: reproducible random numbers for randomized tests (a sequence per test file). */
static inline uint64_t test_rand(void)
{
    static uint64_t s = 88172645463325252ull;
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}
#define TEST_DONE() (fprintf(stderr, "%d checks, %d failed\n", test_checks, test_failures), \
                     test_failures ? 1 : 0)
#endif
