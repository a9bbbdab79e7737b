/* Clocks. */
#ifndef FORGE_BASE_CLOCK_H
#define FORGE_BASE_CLOCK_H
#include <stddef.h>
#include <stdint.h>

/* Monotonic time in nanoseconds (for durations and deadlines). */
uint64_t forge_clock_ns(void);
/* Monotonic time in milliseconds, as a double with sub-millisecond precision. */
double forge_clock_ms(void);
/* Writes the current UTC time as "YYYY-MM-DDTHH:MM:SS.mmmZ" into out (at least 32 bytes). */
void forge_clock_iso(char *out, size_t n);
#endif
