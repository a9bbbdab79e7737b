/* Pass-rate interval and percentiles. */
#include "score/stats.h"

#include <math.h>
#include <stdlib.h>

void forge_stats_wilson(long passed, long n, double z, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = *hi = 0;
        return;
    }
    double p = (double)passed / (double)n, nn = (double)n, z2 = z * z;
    double denom = 1 + z2 / nn;
    double center = (p + z2 / (2 * nn)) / denom;
    double margin = z / denom * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    *lo = center - margin < 0 ? 0 : center - margin;
    *hi = center + margin > 1 ? 1 : center + margin;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double forge_stats_quantile(double *v, size_t n, double q)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)floor((double)(n - 1) * q);
    return v[i < n ? i : n - 1];
}
