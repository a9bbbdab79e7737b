/* A pull scanner over one JSON text, for the hot events of streamed answers: it walks the text
 * in place, allocates nothing, and validates as it goes, so a caller that finds the shape it
 * expects knows the text is one forge_json_parse would accept, with the same values.
 *
 * It accepts a strict subset of what forge_json_parse accepts: whitespace is space, tab, CR and
 * LF only; numbers follow RFC 8259 (at most 40 characters); strings are valid UTF-8 without NUL
 * bytes, with the escapes of RFC 8259 (\uXXXX with four hex digits, surrogates in pairs, never
 * \u0000, which cJSON cuts a string at); nesting at most FORGE_JSCAN_DEPTH; at most
 * forge_json_node_limit() values. Raw control characters inside strings are accepted, as cJSON
 * accepts them. Anything else makes the scanner fail (-1), and the caller reads the text with
 * forge_json_parse instead, which gives the same result or the clear error. Keys are compared
 * raw, so a key written with escapes fails too (cJSON would decode it).
 *
 * Every function returns -1 on failure and the scanner then stays failed. */
#ifndef FORGE_DATA_JSCAN_H
#define FORGE_DATA_JSCAN_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "base/buf.h"

#define FORGE_JSCAN_DEPTH 32

struct forge_jscan {
    const char *p, *end;
    size_t values;   /* values seen so far */
    unsigned long kinds; /* bit d: the container at depth d + 1 is an array */
    int depth;
    int first;       /* the innermost container has no element yet */
    int failed;
    int no_breaks;   /* set by the caller: raw CR and LF inside strings fail too (SSE lines) */
};

/* A string token: its raw text between the quotes (borrowed from the scanned text). */
struct forge_jstr {
    const char *s;
    size_t n;
    int esc; /* nonzero when it holds escapes */
};

void forge_jscan_init(struct forge_jscan *j, const char *text, size_t len);
/* Enters the object ('{') or array ('[') that is the next value. 0 or -1. */
int forge_jscan_open(struct forge_jscan *j, char c);
/* In an object: 1 with the next member's key in <k> (its colon read, its value next), 0 when
 * the object ended (its '}' read), -1. Keys with escapes fail. */
int forge_jscan_key(struct forge_jscan *j, struct forge_jstr *k);
/* In an array: 1 when another element follows (it is next), 0 when the array ended, -1. */
int forge_jscan_item(struct forge_jscan *j);
/* The next value as a string. 0 or -1 (not a string, or not valid). */
int forge_jscan_string(struct forge_jscan *j, struct forge_jstr *v);
/* The next value as null. 0 or -1. */
int forge_jscan_null(struct forge_jscan *j);
/* The next value as a non-negative integer below 10^9 without fraction or exponent. 0 or -1. */
int forge_jscan_int(struct forge_jscan *j, long *v);
/* The first byte of the next value (after whitespace), or 0 at the end. */
int forge_jscan_peek(struct forge_jscan *j);
/* Validates and skips the next value. 0 or -1. */
int forge_jscan_skip(struct forge_jscan *j);
/* Skips the rest of the current container (validating it) and leaves it. 0 or -1. */
int forge_jscan_leave(struct forge_jscan *j);
/* 0 when the whole text was one value: only whitespace after it and no more values than the
 * limit; -1 otherwise. */
int forge_jscan_end(struct forge_jscan *j);

/* Nonzero when the key or string <k> is exactly the string literal <lit>. */
#define forge_jstr_is(k, lit) ((k)->n == sizeof(lit) - 1 && !memcmp((k)->s, lit, sizeof(lit) - 1))
/* 0 when the <n> bytes at <s> are exactly one string token (quotes included) that
 * forge_jscan_string accepts, with it in <v>; -1 otherwise. */
int forge_jstr_scan(const char *s, size_t n, struct forge_jstr *v);

/* The four hex digits at <p> (any case) as a number, or -1 when one is not a hex digit. */
int forge_json_hex4(const char *p);
/* Appends the decoded string <v> (one that forge_jscan_string accepted) to <b>: 0, or the
 * buffer's FORGE_ENOMEM / FORGE_ELIMIT. */
int forge_jstr_append(const struct forge_jstr *v, struct forge_buf *b);

#ifdef __SSE2__
/* The bits of the bytes of <x> that are '"' or '\\' (bit i for byte i). */
static inline int forge_json_quote_or_escape16(__m128i x)
{
    return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
}
#endif

/* The first '"' or '\\' in [q, end), or end; sixteen bytes at a time where SSE2 is, eight
 * elsewhere. */
static inline const unsigned char *forge_json_quote_or_escape(const unsigned char *q, const unsigned char *end)
{
#ifdef __SSE2__
    while (end - q >= 16) {
        int m = forge_json_quote_or_escape16(_mm_loadu_si128((const __m128i *)(const void *)q));
        if (m)
            return q + __builtin_ctz((unsigned)m);
        q += 16;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    while (end - q >= 8) {
        uint64_t w;
        memcpy(&w, q, 8);
        uint64_t a = w ^ 0x2222222222222222ull, b = w ^ 0x5c5c5c5c5c5c5c5cull;
        /* a zero byte of a or b; the lowest flag is exact (borrows only reach higher bytes) */
        uint64_t m = ((a - ones) & ~a & high) | ((b - ones) & ~b & high);
        if (m)
            return q + (__builtin_ctzll(m) >> 3);
        q += 8;
    }
#endif
    while (q < end && *q != '"' && *q != '\\')
        q++;
    return q;
}
#endif
