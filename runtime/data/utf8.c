/* UTF-8 validation and decoding. */
#include "data/utf8.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

int forge_utf8_decode(const char *s, size_t n, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    unsigned min, v;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, min = 0x80, v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, min = 0x800, v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, min = 0x10000, v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

size_t forge_utf8_check(const char *s, size_t n, bool no_nul)
{
    const uint64_t high = 0x8080808080808080ull, ones = 0x0101010101010101ull;
    size_t i = 0;
    while (i < n) {
#ifdef __SSE2__
        /* sixteen ASCII bytes (and no NUL among them) at a time */
        while (i + 16 <= n) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            int bad = _mm_movemask_epi8(x);
            if (no_nul)
                bad |= _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));
            if (bad)
                break;
            i += 16;
        }
        if (i == n)
            break;
#endif
        /* eight ASCII bytes (and no NUL among them) at a time */
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t bad = w & high;
            if (no_nul)
                bad |= (w - ones) & ~w & high;
            if (!bad) {
                i += 8;
                continue;
            }
        }
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (!c && no_nul)
                return i;
            i++;
            continue;
        }
        unsigned cp;
        int len = forge_utf8_decode(s + i, n - i, &cp);
        if (!len)
            return i;
        i += (size_t)len;
    }
    return n;
}

bool forge_utf8_noncharacter(unsigned cp)
{
    return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
}
