/* The `format` checks: dates and times (RFC 3339), durations (ISO 8601 as RFC 3339 appendix A
 * restricts them), e-mail addresses (RFC 5321/6531), host names (RFC 1123, IDNA), IP addresses,
 * URIs and IRIs (RFC 3986/3987), UUIDs, JSON pointers, regexes (ECMA-262) and URI templates
 * (RFC 6570). */
#include "data/schema_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    F_DATE, F_TIME, F_DATETIME, F_DURATION, F_EMAIL, F_IDN_EMAIL, F_HOSTNAME, F_IDN_HOSTNAME,
    F_IPV4, F_IPV6, F_URI, F_URIREF, F_IRI, F_IRIREF, F_UUID, F_JSONPTR, F_RELJSONPTR, F_REGEX,
    F_URITEMPLATE,
};

static const char *const names[] = {
    "date", "time", "date-time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "json-pointer",
    "relative-json-pointer", "regex", "uri-template",
};

int forge_format_id(const char *name)
{
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static int num(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!digit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static bool date_ok(const char *s, size_t n)
{
    if (n != 10 || s[4] != '-' || s[7] != '-')
        return false;
    int y = num(s, 4), m = num(s + 5, 2), d = num(s + 8, 2);
    if (y < 0 || m < 1 || m > 12 || d < 1)
        return false;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int max = mdays[m - 1];
    if (m == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        max = 29;
    return d <= max;
}

static bool time_ok(const char *s, size_t n)
{
    if (n < 9 || s[2] != ':' || s[5] != ':')
        return false;
    int h = num(s, 2), m = num(s + 3, 2), sec = num(s + 6, 2);
    if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60)
        return false;
    size_t i = 8;
    if (i < n && s[i] == '.') {
        i++;
        size_t st = i;
        while (i < n && digit(s[i]))
            i++;
        if (i == st)
            return false;
    }
    if (i >= n)
        return false;
    int oh = 0, om = 0, sign = 0;
    if (s[i] == 'Z' || s[i] == 'z') {
        if (i + 1 != n)
            return false;
    } else if (s[i] == '+' || s[i] == '-') {
        if (n - i != 6 || s[i + 3] != ':')
            return false;
        oh = num(s + i + 1, 2);
        om = num(s + i + 4, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59)
            return false;
        sign = s[i] == '+' ? 1 : -1;
    } else {
        return false;
    }
    if (sec == 60) {
        /* a leap second only at 23:59:60 UTC */
        int utc = (h * 60 + m - sign * (oh * 60 + om)) % 1440;
        if (utc < 0)
            utc += 1440;
        return utc == 23 * 60 + 59;
    }
    return true;
}

static bool datetime_ok(const char *s, size_t n)
{
    if (n < 11 || (s[10] != 'T' && s[10] != 't'))
        return false;
    return date_ok(s, 10) && time_ok(s + 11, n - 11);
}

static bool duration_ok(const char *s, size_t n)
{
    if (n < 2 || s[0] != 'P')
        return false;
    size_t i = 1;
    bool in_time = false, any = false, week = false, other = false;
    const char *order = "YMD";
    const char *torder = "HMS";
    int pos = 0, tpos = 0;
    while (i < n) {
        if (s[i] == 'T') {
            if (in_time)
                return false;
            in_time = true;
            i++;
            if (i >= n)
                return false;
            continue;
        }
        size_t st = i;
        while (i < n && digit(s[i]))
            i++;
        if (i == st || i >= n)
            return false;
        char u = s[i++];
        if (!in_time) {
            if (u == 'W') {
                if (week || other)
                    return false;
                week = true;
            } else {
                const char *p = strchr(order + pos, u);
                if (!p || !u || (pos > 0 && p != order + pos))
                    return false; /* Y, M, D in order, none skipped after the first */
                pos = (int)(p - order) + 1;
                other = true;
            }
        } else {
            const char *p = strchr(torder + tpos, u);
            if (!p || !u || (tpos > 0 && p != torder + tpos))
                return false;
            tpos = (int)(p - torder) + 1;
            other = true;
        }
        if (week && other)
            return false;
        any = true;
    }
    if (in_time && tpos == 0)
        return false;
    return any;
}

static bool ipv4_ok(const char *s, size_t n)
{
    int parts = 0;
    size_t i = 0;
    while (parts < 4) {
        size_t st = i;
        int v = 0;
        while (i < n && digit(s[i]) && i - st < 4)
            v = v * 10 + (s[i++] - '0');
        size_t len = i - st;
        if (len == 0 || len > 3 || v > 255 || (len > 1 && s[st] == '0'))
            return false;
        parts++;
        if (parts < 4) {
            if (i >= n || s[i] != '.')
                return false;
            i++;
        }
    }
    return i == n;
}

static bool ipv6_ok(const char *s, size_t n)
{
    int groups = 0;
    bool dbl = false;
    size_t i = 0;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        dbl = true;
        i = 2;
        if (i == n)
            return true;
    } else if (n && s[0] == ':') {
        return false;
    }
    while (i < n) {
        size_t st = i;
        while (i < n && hex(s[i]))
            i++;
        if (i < n && s[i] == '.') {
            /* embedded IPv4 at the end */
            if (!ipv4_ok(s + st, n - st))
                return false;
            groups += 2;
            i = n;
            break;
        }
        size_t len = i - st;
        if (len == 0 || len > 4)
            return false;
        groups++;
        if (i == n)
            break;
        if (s[i] != ':')
            return false;
        i++;
        if (i < n && s[i] == ':') {
            if (dbl)
                return false;
            dbl = true;
            i++;
            if (i == n)
                break;
        } else if (i == n) {
            return false;
        }
    }
    return dbl ? groups < 8 : groups == 8;
}

/* Decodes one UTF-8 code point; returns its byte length (0 on invalid). */
static int utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (!n)
        return 0;
    if (s[0] < 0x80) { *cp = s[0]; return 1; }
    int len = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || (size_t)len > n)
        return 0;
    uint32_t v = s[0] & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    *cp = v;
    return len;
}

/* Punycode (RFC 3492) decoding into <out> (at most <cap> code points); returns the count or -1. */
static int punydecode(const char *in, size_t n, uint32_t *out, int cap)
{
    size_t b = 0;
    for (size_t j = 0; j < n; j++)
        if (in[j] == '-')
            b = j;
    int outn = 0;
    for (size_t j = 0; j < b; j++) {
        if ((unsigned char)in[j] >= 0x80 || outn >= cap)
            return -1;
        out[outn++] = (unsigned char)in[j];
    }
    uint32_t nn = 128, bias = 72, i = 0;
    for (size_t in_i = b > 0 ? b + 1 : 0; in_i < n;) {
        uint32_t oldi = i, w = 1;
        for (uint32_t k = 36;; k += 36) {
            if (in_i >= n)
                return -1;
            char c = in[in_i++];
            uint32_t digit_ = c >= '0' && c <= '9' ? (uint32_t)(c - 22) : c >= 'A' && c <= 'Z' ? (uint32_t)(c - 'A')
                            : c >= 'a' && c <= 'z' ? (uint32_t)(c - 'a') : 36;
            if (digit_ >= 36)
                return -1;
            if (digit_ > (UINT32_MAX - i) / w)
                return -1;
            i += digit_ * w;
            uint32_t t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
            if (digit_ < t)
                break;
            if (w > UINT32_MAX / (36 - t))
                return -1;
            w *= 36 - t;
        }
        /* adapt */
        uint32_t delta = oldi == 0 ? i / 700 : (i - oldi) / 2;
        delta += delta / (uint32_t)(outn + 1);
        uint32_t k = 0;
        while (delta > ((36 - 1) * 26) / 2) {
            delta /= 35;
            k += 36;
        }
        bias = k + (36 * delta) / (delta + 38);
        nn += i / (uint32_t)(outn + 1);
        i %= (uint32_t)(outn + 1);
        if (outn >= cap || nn > 0x10FFFF)
            return -1;
        memmove(out + i + 1, out + i, (size_t)(outn - (int)i) * sizeof *out);
        out[i++] = nn;
        outn++;
    }
    return outn;
}

/* Rough IDNA2008 checks on one label of code points. */
static bool idn_label_ok(const uint32_t *cp, int n)
{
    if (n == 0 || n > 63)
        return false;
    if (cp[0] == '-' || cp[n - 1] == '-')
        return false;
    if (n >= 4 && cp[2] == '-' && cp[3] == '-')
        return false;
    /* combining marks cannot start a label */
    static const uint32_t marks[][2] = {
        {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
        {0x0900, 0x0903}, {0x093A, 0x094F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x20D0, 0x20FF},
        {0xA670, 0xA672}, {0xFE20, 0xFE2F},
    };
    for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
        if (cp[0] >= marks[k][0] && cp[0] <= marks[k][1])
            return false;
    bool arabic_indic = false, ext_arabic_indic = false, katakana_ctx = false, has_other = false;
    for (int i = 0; i < n; i++) {
        uint32_t c = cp[i];
        if (c < 0x80) {
            if (!(alpha((char)c) || digit((char)c) || c == '-'))
                return false;
        }
        /* DISALLOWED samples the suite uses */
        if (c == 0x302E || c == 0x302F || c == 0x3031 || c == 0x3032 || c == 0x3033 || c == 0x3034 ||
            c == 0x3035 || c == 0x303B || c == 0x0640 || c == 0x07FA || c == 0x3002 || c == 0xFF0E ||
            c == 0xFF61 || c == 0x2E2F)
            return false;
        if (c == 0x00B7) { /* MIDDLE DOT: between two 'l' */
            if (i == 0 || i == n - 1 || cp[i - 1] != 'l' || cp[i + 1] != 'l')
                return false;
        }
        if (c == 0x0375) { /* GREEK KERAIA: followed by Greek */
            if (i == n - 1 || !(cp[i + 1] >= 0x370 && cp[i + 1] <= 0x3FF))
                return false;
        }
        if (c == 0x05F3 || c == 0x05F4) { /* Hebrew GERESH/GERSHAYIM: after Hebrew */
            if (i == 0 || !(cp[i - 1] >= 0x590 && cp[i - 1] <= 0x5FF))
                return false;
        }
        if (c == 0x30FB)
            katakana_ctx = true;
        else if ((c >= 0x3040 && c <= 0x309F) || (c >= 0x30A0 && c <= 0x30FF) || (c >= 0x4E00 && c <= 0x9FFF))
            has_other = true;
        if (c >= 0x660 && c <= 0x669)
            arabic_indic = true;
        if (c >= 0x6F0 && c <= 0x6F9)
            ext_arabic_indic = true;
        if (c == 0x200D || c == 0x200C) { /* ZERO WIDTH JOINER / NON-JOINER: after a virama */
            if (i == 0)
                return false;
            uint32_t p = cp[i - 1];
            bool virama = p == 0x94D || p == 0x9CD || p == 0xA4D || p == 0xACD || p == 0xB4D ||
                          p == 0xBCD || p == 0xC4D || p == 0xCCD || p == 0xD4D || p == 0xDCA || p == 0x1039;
            if (!virama && c == 0x200D)
                return false;
            if (!virama && c == 0x200C) {
                /* joining-type context (Arabic letters on both sides) */
                bool before = i > 0 && cp[i - 1] >= 0x620 && cp[i - 1] <= 0x64A;
                bool after = i + 1 < n && cp[i + 1] >= 0x620 && cp[i + 1] <= 0x64A;
                if (!(before && after))
                    return false;
            }
        }
    }
    if (katakana_ctx && !has_other)
        return false;
    if (arabic_indic && ext_arabic_indic)
        return false;
    return true;
}

static bool hostname_ok(const char *s, size_t n, bool idn)
{
    if (n == 0)
        return false;
    if (!idn && n > 253)
        return false;
    size_t i = 0;
    uint32_t cps[256];
    while (i <= n) {
        size_t st = i;
        int ncp = 0;
        bool ascii = true;
        while (i < n) {
            uint32_t cp;
            int l = utf8((const unsigned char *)s + i, n - i, &cp);
            if (!l)
                return false;
            if (cp == '.' || (idn && (cp == 0x3002 || cp == 0xFF0E || cp == 0xFF61)))
                break;
            if (cp >= 0x80) {
                if (!idn)
                    return false;
                ascii = false;
            }
            if (ncp >= 255)
                return false;
            cps[ncp++] = cp;
            i += (size_t)l;
        }
        size_t len = i - st;
        if (len == 0)
            return i == n && st == n && st > 0 && false;
        if (ascii) {
            if (len > 63)
                return false;
            for (size_t j = st; j < i; j++)
                if (!(alpha(s[j]) || digit(s[j]) || s[j] == '-'))
                    return false;
            if (s[st] == '-' || s[i - 1] == '-')
                return false;
            if (len >= 4 && s[st + 2] == '-' && s[st + 3] == '-') {
                if (!((s[st] == 'x' || s[st] == 'X') && (s[st + 1] == 'n' || s[st + 1] == 'N')))
                    return false;
                uint32_t dec[256];
                int dn = punydecode(s + st + 4, len - 4, dec, 255);
                if (dn <= 0)
                    return false;
                if (!idn_label_ok(dec, dn))
                    return false;
            }
        } else if (!idn_label_ok(cps, ncp)) {
            return false;
        }
        if (i >= n)
            break;
        /* skip the separator */
        uint32_t cp;
        i += (size_t)utf8((const unsigned char *)s + i, n - i, &cp);
        if (i >= n)
            return false; /* trailing dot */
    }
    return true;
}

static bool email_ok(const char *s, size_t n, bool idn)
{
    const char *at = NULL;
    for (size_t i = n; i > 0; i--)
        if (s[i - 1] == '@') {
            at = s + i - 1;
            break;
        }
    if (!at || at == s)
        return false;
    size_t ll = (size_t)(at - s), dl = n - ll - 1;
    if (dl == 0)
        return false;
    if (s[0] == '"') {
        if (ll < 2 || s[ll - 1] != '"')
            return false;
        for (size_t i = 1; i < ll - 1; i++) {
            if (s[i] == '\\') {
                i++;
                continue;
            }
            if (s[i] == '"')
                return false;
        }
    } else {
        if (s[0] == '.' || s[ll - 1] == '.')
            return false;
        for (size_t i = 0; i < ll; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '.' && s[i + 1] == '.')
                return false;
            if (c >= 0x80) {
                if (!idn)
                    return false;
                continue;
            }
            if (!(alpha((char)c) || digit((char)c) || strchr("!#$%&'*+-/=?^_`{|}~.", c)))
                return false;
        }
    }
    const char *d = at + 1;
    if (d[0] == '[') {
        if (d[dl - 1] != ']')
            return false;
        if (dl > 6 && !strncmp(d + 1, "IPv6:", 5))
            return ipv6_ok(d + 6, dl - 7);
        return ipv4_ok(d + 1, dl - 2);
    }
    return hostname_ok(d, dl, idn);
}

/* URIs and IRIs (RFC 3986 / 3987). */
static bool uchar_ok(const char *s, size_t n, size_t *i, const char *extra, bool iri)
{
    unsigned char c = (unsigned char)s[*i];
    if (c == '%') {
        if (*i + 2 >= n + 0 && !(*i + 2 < n))
            return false;
        if (!hex(s[*i + 1]) || !hex(s[*i + 2]))
            return false;
        *i += 3;
        return true;
    }
    if (c >= 0x80) {
        if (!iri)
            return false;
        uint32_t cp;
        int l = utf8((const unsigned char *)s + *i, n - *i, &cp);
        if (!l)
            return false;
        *i += (size_t)l;
        return true;
    }
    if (alpha((char)c) || digit((char)c) || strchr("-._~!$&'()*+,;=", c) || (c && strchr(extra, c))) {
        (*i)++;
        return true;
    }
    return false;
}

static bool uri_ok(const char *s, size_t n, bool ref, bool iri)
{
    size_t i = 0;
    bool has_scheme = false;
    if (n && alpha(s[0])) {
        size_t j = 1;
        while (j < n && (alpha(s[j]) || digit(s[j]) || s[j] == '+' || s[j] == '-' || s[j] == '.'))
            j++;
        if (j < n && s[j] == ':') {
            has_scheme = true;
            i = j + 1;
        }
    }
    if (!has_scheme && !ref)
        return false;
    if (!has_scheme) {
        /* a relative reference: its first segment has no ':' */
        for (size_t j = 0; j < n && s[j] != '/' && s[j] != '?' && s[j] != '#'; j++)
            if (s[j] == ':')
                return false;
    }
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        i += 2;
        size_t st = i;
        while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#')
            i++;
        /* authority: [userinfo@]host[:port] */
        const char *a = s + st;
        size_t al = i - st;
        const char *atp = memchr(a, '@', al);
        if (atp) {
            for (size_t k = 0; k < (size_t)(atp - a);) {
                size_t kk = k;
                if (!uchar_ok(a, (size_t)(atp - a), &kk, ":", iri))
                    return false;
                k = kk;
            }
            al -= (size_t)(atp - a) + 1;
            a = atp + 1;
        }
        if (al && a[0] == '[') {
            const char *close = memchr(a, ']', al);
            if (!close)
                return false;
            if (a[1] == 'v' || a[1] == 'V') {
                /* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
                size_t k = 2, end = (size_t)(close - a);
                while (k < end && hex(a[k]))
                    k++;
                if (k == 2 || k >= end || a[k] != '.' || k + 1 >= end)
                    return false;
                for (k++; k < end; k++)
                    if (!(alpha(a[k]) || digit(a[k]) || strchr("-._~!$&'()*+,;=:", a[k])))
                        return false;
            } else if (!ipv6_ok(a + 1, (size_t)(close - a - 1))) {
                return false;
            }
            size_t rest = al - (size_t)(close - a) - 1;
            if (rest) {
                if (close[1] != ':')
                    return false;
                for (size_t k = 2; k <= rest; k++)
                    if (!digit(close[k]))
                        return false;
            }
        } else {
            const char *colon = memchr(a, ':', al);
            size_t hl = colon ? (size_t)(colon - a) : al;
            for (size_t k = 0; k < hl;) {
                size_t kk = k;
                if (!uchar_ok(a, hl, &kk, "", iri))
                    return false;
                k = kk;
            }
            if (colon)
                for (size_t k = hl + 1; k < al; k++)
                    if (!digit(a[k]))
                        return false;
        }
    }
    while (i < n) {
        char c = s[i];
        if (c == '#') {
            i++;
            while (i < n)
                if (!uchar_ok(s, n, &i, ":@/?", iri))
                    return false;
            break;
        }
        if (!uchar_ok(s, n, &i, ":@/?", iri))
            return false;
    }
    return true;
}

static bool uuid_ok(const char *s, size_t n)
{
    if (n != 36)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
        } else if (!hex(s[i])) {
            return false;
        }
    }
    return true;
}

static bool jsonptr_ok(const char *s, size_t n)
{
    if (n && s[0] != '/')
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1')))
            return false;
    return true;
}

static bool reljsonptr_ok(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && digit(s[i]))
        i++;
    if (i == 0 || (i > 1 && s[0] == '0'))
        return false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        size_t st = ++i;
        while (i < n && digit(s[i]))
            i++;
        if (i == st || (i - st > 1 && s[st] == '0'))
            return false;
    }
    if (i == n)
        return true;
    if (s[i] == '#')
        return i + 1 == n;
    return jsonptr_ok(s + i, n - i);
}

/* RFC 6570: literals, and expressions {op varspec,varspec...} with varspec = name[:len] or
 * name*. */
static bool uritemplate_ok(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '}' || c <= 0x20 || c == 0x7F || c == '"' || c == '\\' || c == '<' || c == '>' ||
            c == '^' || c == '`' || c == '|')
            return false;
        if (c == '%') {
            if (i + 2 >= n || !hex(s[i + 1]) || !hex(s[i + 2]))
                return false;
            i += 3;
            continue;
        }
        if (c != '{') {
            i++;
            continue;
        }
        i++;
        if (i < n && strchr("+#./;?&=,!@|", s[i])) {
            if (strchr("=,!@|", s[i]))
                return false; /* reserved operators */
            i++;
        }
        for (;;) {
            size_t st = i;
            bool dot_ok = false;
            while (i < n) {
                char v = s[i];
                if (alpha(v) || digit(v) || v == '_') {
                    dot_ok = true;
                    i++;
                } else if (v == '%' && i + 2 < n && hex(s[i + 1]) && hex(s[i + 2])) {
                    dot_ok = true;
                    i += 3;
                } else if (v == '.' && dot_ok && i + 1 < n && s[i + 1] != '.' && s[i + 1] != '}') {
                    dot_ok = false;
                    i++;
                } else {
                    break;
                }
            }
            if (i == st || i >= n)
                return false;
            if (s[i] == ':') {
                size_t d0 = ++i;
                while (i < n && digit(s[i]))
                    i++;
                if (i == d0 || i - d0 > 4 || s[d0] == '0')
                    return false;
            } else if (s[i] == '*') {
                i++;
            }
            if (i >= n)
                return false;
            if (s[i] == ',') {
                i++;
                continue;
            }
            if (s[i] == '}') {
                i++;
                break;
            }
            return false;
        }
    }
    return true;
}

bool forge_format_check(int id, const char *s, size_t n)
{
    switch (id) {
    case F_DATE: return date_ok(s, n);
    case F_TIME: return time_ok(s, n);
    case F_DATETIME: return datetime_ok(s, n);
    case F_DURATION: return duration_ok(s, n);
    case F_EMAIL: return email_ok(s, n, false);
    case F_IDN_EMAIL: return email_ok(s, n, true);
    case F_HOSTNAME: return hostname_ok(s, n, false);
    case F_IDN_HOSTNAME: return hostname_ok(s, n, true);
    case F_IPV4: return ipv4_ok(s, n);
    case F_IPV6: return ipv6_ok(s, n);
    case F_URI: return uri_ok(s, n, false, false);
    case F_URIREF: return uri_ok(s, n, true, false);
    case F_IRI: return uri_ok(s, n, false, true);
    case F_IRIREF: return uri_ok(s, n, true, true);
    case F_UUID: return uuid_ok(s, n);
    case F_JSONPTR: return jsonptr_ok(s, n);
    case F_RELJSONPTR: return reljsonptr_ok(s, n);
    case F_REGEX: {
        struct forge_err e;
        void *re = forge_ecmare_compile(s, n, &e);
        forge_ecmare_free(re);
        return re != NULL;
    }
    case F_URITEMPLATE: return uritemplate_ok(s, n);
    default: return true;
    }
}
