/* Suite statistics: pass rate with its Wilson interval, and latency percentiles. */
#ifndef FORGE_SCORE_STATS_H
#define FORGE_SCORE_STATS_H
#include <stddef.h>

/* Wilson score interval for <passed> successes out of <n> trials at normal quantile <z> (1.96 for
 * 95%), clamped to [0, 1]; n = 0 gives [0, 0]. As agent-tool-forge's run comparison computes it. */
void forge_stats_wilson(long passed, long n, double z, double *lo, double *hi);

/* The <q> quantile (0..1) of <v> (n values, reordered in place) the way agent-tool-forge picks
 * p95: sorted[floor((n - 1) * q)]; 0 when n is 0. Never allocates. */
double forge_stats_quantile(double *v, size_t n, double q);
#endif
