/* Clocks. */
#include "base/clock.h"

#include <stdio.h>
#include <time.h>

uint64_t forge_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double forge_clock_ms(void)
{
    return (double)forge_clock_ns() / 1e6;
}

void forge_clock_iso(char *out, size_t n)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    int year = tm.tm_year + 1900;
    if (n < 25 || year < 0 || year > 9999) {
        snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", year, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
        return;
    }
    /* every case stamps its turns: digits by hand, not a formatted print */
    int ms = (int)(ts.tv_nsec / 1000000);
    const int parts[] = {year / 100, year % 100, tm.tm_mon + 1, tm.tm_mday,
                         tm.tm_hour, tm.tm_min, tm.tm_sec};
    const char seps[] = {0, 0, '-', '-', 'T', ':', ':'};
    char *p = out;
    for (int i = 0; i < 7; i++) {
        if (seps[i])
            *p++ = seps[i];
        *p++ = (char)('0' + parts[i] / 10);
        *p++ = (char)('0' + parts[i] % 10);
    }
    *p++ = '.';
    *p++ = (char)('0' + ms / 100);
    *p++ = (char)('0' + ms / 10 % 10);
    *p++ = (char)('0' + ms % 10);
    *p++ = 'Z';
    *p = '\0';
}
