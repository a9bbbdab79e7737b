/* Diagnostics to stderr, filtered by level. Library code logs; it never prints to stdout. */
#ifndef FORGE_BASE_LOG_H
#define FORGE_BASE_LOG_H

enum forge_log_level { FORGE_LOG_ERROR = 0, FORGE_LOG_WARN, FORGE_LOG_INFO, FORGE_LOG_DEBUG };

/* Messages above <level> are dropped. Default: FORGE_LOG_WARN. */
void forge_log_set_level(enum forge_log_level level);
enum forge_log_level forge_log_get_level(void);
/* Writes "forge: <level>: <message>\n" to stderr. */
void forge_log(enum forge_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
