/* Diagnostics to stderr. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static enum forge_log_level current = FORGE_LOG_WARN;

void forge_log_set_level(enum forge_log_level level)
{
    current = level;
}

enum forge_log_level forge_log_get_level(void)
{
    return current;
}

void forge_log(enum forge_log_level level, const char *fmt, ...)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    if (level > current)
        return;
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "forge: %s: %s\n", names[level], msg);
}
