/* Fast JavaScript number formatting (see jsnum.h).
 *
 * The shortest digit string that reads back as d, as ECMA-262 asks for, is found by trying 15,
 * 16 and 17 significant digits: when a decimal of k <= 15 digits reads back as d, d lies within
 * half an ulp of it, which is less than half the spacing of 15-digit decimals, so the correctly
 * rounded 15-digit form is that decimal padded with zeros; at 16 digits the correctly rounded
 * form is the closest of its length, which is the one ECMA-262 picks. */
#include "data/jsnum.h"
#include "data/json.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *forge_jsnum_format(double d, char *out)
{
    /* subnormals have fewer significant bits: the argument above needs a full mantissa */
    if (isnan(d) || isinf(d) || d == 0 || fabs(d) < DBL_MIN)
        return forge_json_number(d, out);
    if (d == floor(d) && fabs(d) < 1e21) {
        if (fabs(d) < 9007199254740992.0) {
            char t[24], *p = t + sizeof t;
            double a = fabs(d);
            unsigned long long u = (unsigned long long)a;
            *--p = '\0';
            do {
                *--p = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            if (d < 0)
                *--p = '-';
            return strcpy(out, p);
        }
    }
    char tmp[40];
    int prec;
    for (prec = 15; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    if (prec == 17)
        snprintf(tmp, sizeof tmp, "%.16e", d);
    char digits[24];
    int k = 0;
    const char *p = tmp;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    int n = atoi(p + 1) + 1; /* decimal point position, as in Number::toString */
    char *o = out;
    if (neg)
        *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = 0; i < n - k; i++)
            *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -n; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *o = '\0';
    return out;
}
