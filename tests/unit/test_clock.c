/* Unit tests for base/clock: the ISO 8601 timestamps every trajectory carries. */
#define _GNU_SOURCE
#include "test.h"
#include "base/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* The stamp is the UTC time of the call to the millisecond: between two readings of the
 * clock, in the exact shape 2026-11-25T10:37:53.395Z. */
TEST(iso_stamps_are_utc_to_the_millisecond)
{
    for (int round = 0; round < 50; round++) {
        struct timespec a, b;
        char s[40];
        clock_gettime(CLOCK_REALTIME, &a);
        forge_clock_iso(s, sizeof s);
        clock_gettime(CLOCK_REALTIME, &b);
        CHECK_INT(strlen(s), 24);
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
        CHECK(rest && rest[0] == '.' && rest[4] == 'Z');
        if (!rest)
            continue;
        long ms = (rest[1] - '0') * 100 + (rest[2] - '0') * 10 + (rest[3] - '0');
        long long t = (long long)timegm(&tm) * 1000 + ms;
        long long lo = (long long)a.tv_sec * 1000 + a.tv_nsec / 1000000;
        long long hi = (long long)b.tv_sec * 1000 + b.tv_nsec / 1000000;
        CHECK(t >= lo && t <= hi);
        char again[96]; /* the formatted print it replaces gives the same text */
        time_t sec = (time_t)(t / 1000);
        gmtime_r(&sec, &tm);
        snprintf(again, sizeof again, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, t % 1000);
        CHECK_STR(s, again);
    }
    char small[8]; /* a short buffer gets a cut string, never an overflow */
    forge_clock_iso(small, sizeof small);
    CHECK_INT(strlen(small), 7);
}

int main(void)
{
    RUN(iso_stamps_are_utc_to_the_millisecond);
    return TEST_DONE();
}
