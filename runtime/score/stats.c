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

/* Places the k-th smallest of v[0..n) at v[k] (quickselect, in place, no allocation: a sort
 * through qsort would allocate a buffer as large as the input). */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}

double forge_stats_quantile(double *v, size_t n, double q)
{
    if (n == 0) return 0;
    size_t i = (size_t)floor((double)(n - 1) * q);
    return select_kth(v, n, i < n ? i : n - 1);
}
