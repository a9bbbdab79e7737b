/* ECMA-262 regular expressions on PCRE2: a translation of the syntax where the two differ
 * (\s, \S, \v, ., \u escapes, [^] and []) and compilation with JavaScript's semantics for
 * $ (end only) and ASCII \d \w \b. Regular patterns are also compiled into automata of their
 * own (a fixed string, a DFA, or a bit-parallel position automaton), which answer every test
 * without PCRE2 and without backtracking. */
#define _GNU_SOURCE /* memmem */
#include "data/schema_int.h"
#include "base/alloc.h"
#include "data/re_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Regular patterns (characters, classes, \d \w \s and their negations, '.', groups, '|', and
 * every greedy or lazy quantifier, with an optional leading ^ and trailing $) of at most 63
 * positions once counted quantifiers are expanded are matched by a Glushkov automaton instead
 * of PCRE2 (bit-parallel: a few word operations per character; or its DFA). Only the
 * verdict matters for `pattern`, so captures and laziness are irrelevant. A position is one
 * character set; bit p of the state says "the last character read matched position p". */
struct nfa {
    uint64_t ascii[128];   /* positions whose set holds the ASCII character */
    int nk;                /* non-ASCII code points fall into nk intervals, */
    uint32_t kstart[64];   /* the k-th from kstart[k] (kstart[0] is 0x80) to the next start */
    uint64_t kmask[64];    /* positions whose set holds the k-th interval */
    uint64_t first;        /* positions a match can start with at the start of the subject */
    uint64_t first_any;    /* ... anywhere (not after a ^) */
    uint64_t last;         /* positions a match can end with at the end of the subject */
    uint64_t last_any;     /* ... anywhere (not before a $) */
    uint64_t sh;           /* positions followed by the next one (p -> p + 1) */
    uint64_t self;         /* positions followed by themselves */
    uint64_t exc;          /* positions with other followers, in fx[] */
    uint64_t fx[63];       /* those other followers */
    bool bol, eol;         /* every branch anchored at the start (first_any 0) / at the end */
    bool nullable;         /* the pattern matches in every subject (an empty match) */
    bool nullable_empty;   /* ... in the empty subject (^$) */
    int n;                 /* positions */
    int litn;              /* > 0: the pattern is this many literal ASCII characters, in lit */
    char lit[64];
    struct dfa *dfa;       /* NULL: the subset automaton would be too large */
};

/* The deterministic automaton of a struct nfa (subsets of its positions), when it has at most
 * 256 states: one table lookup per character. Characters are grouped into classes that every
 * position treats alike; a state is the offset of its row (state number times classes). Rows
 * from <stop> on end the search: those from <accept> on accept (unless anchored at the end,
 * acceptance is known as soon as a match ends), the others are dead (anchored at the start,
 * no match can follow). */
struct dfa {
    uint8_t cls[128];      /* the class of each ASCII character */
    uint8_t ncls;          /* classes: those of ASCII characters, then one per non-ASCII interval */
    uint8_t nac;           /* ASCII classes */
    uint16_t start, stop, accept;
    uint8_t *end;          /* per state: 1 when it accepts at the end of the subject */
    uint16_t *t;           /* t[row + class]: the next state's row */
    /* For DFAs of at most BT_STATES states without a pair table (t2, below), the same
     * transitions indexed by byte: bt[state * 256 + byte] is the next state * 256, or BT_NUL
     * for NUL and BT_ESC for non-ASCII bytes (decided on t), so an ASCII character costs one
     * load and one comparison; NULL otherwise. */
    uint16_t *bt;
    uint16_t bstart, bstop, baccept;
    /* The same transitions two ASCII characters at a time (half the loads that wait on each
     * other): with b bits for a class and nac < 2^b, a state is its number << 2b, and
     * t2[state + pc[c1] + cls[c2]] is the state after c1 c2 (the state after c1 when that one
     * ends the search), t2[state + pc[c1] + nac] the state after c1 alone; pc[c] is cls[c] <<
     * b, b2 is 2b. NULL when the table would pass T2_MAX entries. */
    uint16_t *t2;
    uint16_t pc[128];
    uint16_t start2, stop2, accept2;
    uint8_t b2;
};
enum { T2_MAX = 8192 };
enum { BT_STATES = 64, BT_NUL = 0xFFFE, BT_ESC = 0xFFFF };

struct ecmare {
    pcre2_code *code;
    bool jit;
    struct nfa *nfa; /* NULL: PCRE2 only */
    /* forge_ecmare_test's and forge_ecmare_test_str's usual path, decided once: the DFA's pair
     * table when the pattern is neither a literal nor nullable (pairs_empty: it matches the
     * empty subject), else NULL */
    const struct dfa *pairs;
    bool pairs_empty;
};

/* One character set: ASCII bits and sorted, disjoint ranges of non-ASCII code points. */
enum { MAXR = 24 };
struct cset {
    uint64_t lo, hi;
    int nr;
    bool over; /* more than MAXR ranges: use PCRE2 */
    uint32_t r[MAXR][2];
};

static void ranges_add(struct cset *c, uint32_t a, uint32_t b)
{
    uint32_t out[MAXR + 1][2];
    int n = 0;
    bool placed = false;
    for (int k = 0; k < c->nr; k++) {
        uint32_t x = c->r[k][0], y = c->r[k][1];
        if (y + 1 < a) {
            out[n][0] = x;
            out[n++][1] = y;
        } else if (b + 1 < x) {
            if (!placed) {
                out[n][0] = a;
                out[n++][1] = b;
                placed = true;
            }
            out[n][0] = x;
            out[n++][1] = y;
        } else {
            a = x < a ? x : a;
            b = y > b ? y : b;
        }
    }
    if (!placed) {
        out[n][0] = a;
        out[n++][1] = b;
    }
    if (n > MAXR) {
        c->over = true;
        return;
    }
    memcpy(c->r, out, (size_t)n * sizeof *out);
    c->nr = n;
}

static void cset_range(struct cset *c, uint32_t a, uint32_t b)
{
    for (uint32_t ch = a; ch <= b && ch < 128; ch++) {
        if (ch < 64)
            c->lo |= (uint64_t)1 << ch;
        else
            c->hi |= (uint64_t)1 << (ch - 64);
    }
    if (b >= 128)
        ranges_add(c, a < 128 ? 128 : a, b);
}

static void cset_add(struct cset *c, uint32_t ch)
{
    cset_range(c, ch, ch);
}

static void cset_or(struct cset *c, const struct cset *d)
{
    c->lo |= d->lo;
    c->hi |= d->hi;
    c->over |= d->over;
    for (int k = 0; k < d->nr; k++)
        ranges_add(c, d->r[k][0], d->r[k][1]);
}

static void cset_not(struct cset *c)
{
    c->lo = ~c->lo;
    c->hi = ~c->hi;
    uint32_t out[MAXR + 1][2], next = 0x80;
    int n = 0;
    for (int k = 0; k < c->nr; k++) {
        if (c->r[k][0] > next) {
            out[n][0] = next;
            out[n++][1] = c->r[k][0] - 1;
        }
        next = c->r[k][1] + 1;
    }
    if (next <= 0x10FFFF) {
        out[n][0] = next;
        out[n++][1] = 0x10FFFF;
    }
    if (n > MAXR) {
        c->over = true;
        return;
    }
    memcpy(c->r, out, (size_t)n * sizeof *out);
    c->nr = n;
}

/* \d \w \s and their negations into <c>; false for another letter. */
static bool cset_class(struct cset *c, char e)
{
    struct cset t;
    memset(&t, 0, sizeof t);
    switch (e | 0x20) {
    case 'd':
        cset_range(&t, '0', '9');
        break;
    case 'w':
        cset_range(&t, '0', '9');
        cset_range(&t, 'a', 'z');
        cset_range(&t, 'A', 'Z');
        cset_add(&t, '_');
        break;
    case 's':
        /* JavaScript's WhiteSpace and LineTerminator */
        cset_range(&t, 9, 13);
        cset_add(&t, ' ');
        cset_add(&t, 0xA0);
        cset_add(&t, 0x1680);
        cset_range(&t, 0x2000, 0x200A);
        cset_range(&t, 0x2028, 0x2029);
        cset_add(&t, 0x202F);
        cset_add(&t, 0x205F);
        cset_add(&t, 0x3000);
        cset_add(&t, 0xFEFF);
        break;
    default:
        return false;
    }
    if (e >= 'A' && e <= 'Z')
        cset_not(&t);
    cset_or(c, &t);
    return true;
}

/* The code point of the well-formed UTF-8 sequence at s[*i] (advancing *i), or -1. */
static long utf8_next(const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    uint32_t cp;
    size_t l;
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    if (c >= 0xC2 && c <= 0xDF) { l = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { l = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { l = 4; cp = c & 0x07; }
    else return -1;
    if (*i + l > n)
        return -1;
    for (size_t k = 1; k < l; k++) {
        if ((s[*i + k] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[*i + k] & 0x3F);
    }
    if ((l == 3 && cp < 0x800) || (l == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *i += l;
    return cp;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static long hex4at(const char *p, size_t left)
{
    if (left < 4)
        return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The code point of the character escape at pat[*i] (after the backslash), advancing *i past
 * it, as forge_ecmare_translate reads it; -1 when it is not one (a class, a back reference,
 * \b, \p, a lone surrogate: what PCRE2 must see, or reject). */
static long escaped_char(const char *pat, size_t len, size_t *i)
{
    char e = pat[*i];
    long v = -1;
    switch (e) {
    case 'n': v = '\n'; break;
    case 'r': v = '\r'; break;
    case 't': v = '\t'; break;
    case 'f': v = '\f'; break;
    case 'v': v = 11; break;
    case '0':
        if (*i + 1 < len && pat[*i + 1] >= '0' && pat[*i + 1] <= '9')
            return -1;
        v = 0;
        break;
    case 'c':
        if (*i + 1 < len && ((pat[*i + 1] | 0x20) >= 'a' && (pat[*i + 1] | 0x20) <= 'z')) {
            (*i)++;
            v = pat[*i] % 32;
        }
        break;
    case 'x':
        if (*i + 2 < len && hexval(pat[*i + 1]) >= 0 && hexval(pat[*i + 2]) >= 0) {
            v = hexval(pat[*i + 1]) * 16 + hexval(pat[*i + 2]);
            *i += 2;
        }
        break;
    case 'u':
        if (*i + 1 < len && pat[*i + 1] == '{') {
            size_t j = *i + 2;
            long cp = 0;
            while (j < len && hexval(pat[j]) >= 0 && cp <= 0x10FFFF)
                cp = cp * 16 + hexval(pat[j++]);
            if (j >= len || pat[j] != '}' || j == *i + 2 || cp > 0x10FFFF)
                return -1;
            v = cp;
            *i = j;
        } else if ((v = hex4at(pat + *i + 1, len - *i - 1)) >= 0) {
            *i += 4;
            if (v >= 0xD800 && v <= 0xDBFF && *i + 2 < len && pat[*i + 1] == '\\' && pat[*i + 2] == 'u') {
                long lo = hex4at(pat + *i + 3, len - *i - 3);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                    *i += 6;
                }
            }
        }
        break;
    default:
        if (e && strchr("^$\\.*+?()[]{}|/-", e))
            v = e;
    }
    if (v < 0 || (v >= 0xD800 && v <= 0xDFFF))
        return -1;
    (*i)++;
    return v;
}

/* One literal character of the pattern at pat[*i] (UTF-8), advancing *i; -1 if malformed. */
static long pat_char(const char *pat, size_t len, size_t *i)
{
    return utf8_next((const unsigned char *)pat, len, i);
}

/* One subexpression of the automaton under construction. */
struct frag {
    uint64_t first, last;
    bool nullable;
};

struct build {
    const char *pat;
    size_t len;
    int n;                 /* positions so far */
    struct cset set[63];   /* each position's characters */
    uint64_t follow[63];   /* each position's followers */
    long work;             /* atoms parsed (copies re-parse their atom), bounded */
    bool br_bol, br_eol;   /* the top-level branch just parsed has ^ / $ */
    uint64_t first, first_any, last, last_any; /* as in struct nfa, over the branches so far */
    bool nullable, nullable_empty;
    uint32_t bnd[63 * MAXR * 2 + 1]; /* where the sets' non-ASCII ranges start and end */
};

static void follow_add(struct build *b, uint64_t from, uint64_t to)
{
    while (from) {
        b->follow[__builtin_ctzll(from)] |= to;
        from &= from - 1;
    }
}

static struct frag cat(struct build *b, struct frag x, struct frag y)
{
    follow_add(b, x.last, y.first);
    struct frag r = {x.first | (x.nullable ? y.first : 0), y.last | (y.nullable ? x.last : 0),
                     x.nullable && y.nullable};
    return r;
}

static bool parse_alt(struct build *b, size_t *i, int depth, struct frag *out);

/* One member of a class at pat[*i]: a character (its code point), or a class escape added to
 * <c> (-2); -1 when the automaton cannot take it. */
static long class_atom(const char *pat, size_t len, size_t *i, struct cset *c)
{
    if (pat[*i] == '[')
        return -1;
    if (pat[*i] != '\\')
        return pat_char(pat, len, i);
    if (*i + 1 >= len)
        return -1;
    (*i)++;
    if (cset_class(c, pat[*i])) {
        (*i)++;
        return -2;
    }
    if (pat[*i] == 'b') {
        (*i)++;
        return 8;
    }
    return escaped_char(pat, len, i);
}

/* A character class at pat[*i] (after '['), into <c>. */
static bool parse_class(struct build *b, size_t *i, struct cset *c)
{
    const char *pat = b->pat;
    size_t len = b->len;
    bool neg = *i < len && pat[*i] == '^';
    if (neg)
        (*i)++;
    while (*i < len && pat[*i] != ']') {
        long a = class_atom(pat, len, i, c);
        if (a == -1)
            return false;
        if (a == -2)
            continue;
        if (*i + 1 < len && pat[*i] == '-' && pat[*i + 1] != ']') {
            (*i)++;
            long z = class_atom(pat, len, i, c);
            if (z < 0 || z < a)
                return false; /* [a-\d] and reversed ranges: PCRE2 says what is wrong */
            cset_range(c, (uint32_t)a, (uint32_t)z);
        } else {
            cset_add(c, (uint32_t)a);
        }
    }
    if (*i >= len)
        return false;
    (*i)++; /* ] */
    if (neg)
        cset_not(c);
    return !c->over;
}

/* One atom (without its quantifier) at pat[*i]: a new position, or a group. */
static bool parse_atom(struct build *b, size_t *i, int depth, struct frag *out)
{
    const char *pat = b->pat;
    size_t len = b->len;
    if (++b->work > 20000)
        return false;
    unsigned char ch = (unsigned char)pat[*i];
    struct cset c;
    memset(&c, 0, sizeof c);
    if (ch == '(') {
        (*i)++;
        if (*i < len && pat[*i] == '?') {
            if (*i + 1 >= len || pat[*i + 1] != ':')
                return false; /* lookarounds and named groups */
            *i += 2;
        }
        if (depth >= 32 || !parse_alt(b, i, depth + 1, out))
            return false;
        if (*i >= len || pat[*i] != ')')
            return false;
        (*i)++;
        return true;
    }
    if (ch == '\\') {
        if (*i + 1 >= len)
            return false;
        (*i)++;
        if (cset_class(&c, pat[*i])) {
            (*i)++;
        } else {
            long lit = escaped_char(pat, len, i);
            if (lit < 0)
                return false; /* \b \B, back references, \p */
            cset_add(&c, (uint32_t)lit);
        }
    } else if (ch == '.') {
        cset_range(&c, 0, 0x2027);
        cset_range(&c, 0x202A, 0x10FFFF);
        c.lo &= ~(((uint64_t)1 << '\n') | ((uint64_t)1 << '\r'));
        (*i)++;
    } else if (ch == '[') {
        (*i)++;
        if (*i + 1 < len && pat[*i] == '^' && pat[*i + 1] == ']') {
            cset_not(&c); /* [^]: any character */
            *i += 2;
        } else if (*i < len && pat[*i] == ']') {
            (*i)++; /* []: none */
        } else if (!parse_class(b, i, &c)) {
            return false;
        }
    } else if (ch < 0x80 && strchr(")|*+?{}]$^", ch)) {
        return false;
    } else {
        long cp = pat_char(pat, len, i);
        if (cp < 0)
            return false;
        cset_add(&c, (uint32_t)cp);
    }
    if (c.over)
        return false;
    if (b->n >= 63)
        return false;
    int p = b->n++;
    b->set[p] = c;
    b->follow[p] = 0;
    out->first = out->last = (uint64_t)1 << p;
    out->nullable = false;
    return true;
}

/* A quantifier at pat[*i], if any, into [*min, *max] (*max -1: unbounded). */
static bool parse_quant(struct build *b, size_t *i, long *min, long *max)
{
    const char *pat = b->pat;
    size_t len = b->len;
    *min = *max = 1;
    if (*i < len && (pat[*i] == '*' || pat[*i] == '+' || pat[*i] == '?')) {
        *min = pat[*i] == '+' ? 1 : 0;
        *max = pat[*i] == '?' ? 1 : -1;
        (*i)++;
    } else if (*i < len && pat[*i] == '{') {
        size_t j = *i + 1;
        if (j >= len || pat[j] < '0' || pat[j] > '9')
            return false;
        *min = 0;
        while (j < len && pat[j] >= '0' && pat[j] <= '9' && *min < 1000)
            *min = *min * 10 + (pat[j++] - '0');
        *max = *min;
        if (j < len && pat[j] == ',') {
            j++;
            *max = -1;
            if (j < len && pat[j] >= '0' && pat[j] <= '9') {
                *max = 0;
                while (j < len && pat[j] >= '0' && pat[j] <= '9' && *max < 1000)
                    *max = *max * 10 + (pat[j++] - '0');
            }
        }
        if (j >= len || pat[j] != '}' || (*max >= 0 && *max < *min))
            return false;
        *i = j + 1;
    } else {
        return true;
    }
    if (*i < len && pat[*i] == '?')
        (*i)++; /* lazy: the same verdict */
    return !(*i < len && strchr("*+?{", pat[*i])); /* PCRE2 would read a possessive */
}

/* A sequence of quantified atoms, up to '|', ')' or the end. Copies of a quantified atom are
 * made by parsing it again: X{2,3} is X X X?, X{2,} is X X+. */
static bool parse_seq(struct build *b, size_t *i, int depth, struct frag *out)
{
    const char *pat = b->pat;
    size_t len = b->len;
    struct frag r = {0, 0, true};
    if (depth == 0) {
        b->br_bol = *i < len && pat[*i] == '^';
        b->br_eol = false;
        *i += b->br_bol;
    }
    while (*i < len && pat[*i] != '|' && pat[*i] != ')') {
        if (pat[*i] == '$' && depth == 0 && (*i + 1 == len || pat[*i + 1] == '|')) {
            b->br_eol = true;
            (*i)++;
            break;
        }
        size_t at = *i;
        struct frag a;
        if (!parse_atom(b, i, depth, &a))
            return false;
        long min, max;
        if (!parse_quant(b, i, &min, &max))
            return false;
        size_t after = *i;
        long copies = max < 0 ? (min > 0 ? min : 1) : max;
        struct frag q = {0, 0, true};
        for (long k = 0; k < copies; k++) {
            if (k > 0) {
                size_t j = at;
                if (!parse_atom(b, &j, depth, &a))
                    return false;
            }
            if (k >= min)
                a.nullable = true;
            if (max < 0 && k == copies - 1)
                follow_add(b, a.last, a.first);
            q = cat(b, q, a);
        }
        r = cat(b, r, q); /* copies == 0 ({0}): the positions made stay unreachable */
        *i = after;
    }
    *out = r;
    return true;
}

/* Branches separated by '|'. At the top level each branch may have its own ^ and $: its first
 * positions then start a match only at the start of the subject, its last ones end one only at
 * the end. */
static bool parse_alt(struct build *b, size_t *i, int depth, struct frag *out)
{
    memset(out, 0, sizeof *out);
    for (;;) {
        struct frag y;
        if (!parse_seq(b, i, depth, &y))
            return false;
        out->first |= y.first;
        out->last |= y.last;
        out->nullable |= y.nullable;
        if (depth == 0) {
            b->first |= y.first;
            b->first_any |= b->br_bol ? 0 : y.first;
            b->last |= y.last;
            b->last_any |= b->br_eol ? 0 : y.last;
            if (y.nullable && b->br_bol && b->br_eol)
                b->nullable_empty = true;
            else if (y.nullable)
                b->nullable = true;
        }
        if (*i >= b->len || b->pat[*i] != '|')
            return true;
        (*i)++;
    }
}

static void dfa_build(struct nfa *a);

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Builds the automaton of <pat>, or returns NULL (use PCRE2). */
static struct nfa *nfa_compile(const char *pat, size_t len)
{
    struct build *b = forge_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->pat = pat;
    b->len = len;
    size_t i = 0;
    struct frag whole;
    struct nfa *a = NULL;
    if (!parse_alt(b, &i, 0, &whole) || i != len)
        goto out;
    a = forge_calloc(1, sizeof *a);
    if (!a)
        goto out;
    a->n = b->n;
    a->first = b->first;
    a->first_any = b->first_any;
    a->last = b->last;
    a->last_any = b->last_any;
    a->bol = !a->first_any;
    a->eol = !a->last_any;
    a->nullable = b->nullable;
    a->nullable_empty = b->nullable_empty;
    bool lit = b->n > 0 && !a->nullable && !a->nullable_empty && a->first == 1 &&
               a->last == (uint64_t)1 << (b->n - 1);
    for (int p = 0; p < b->n; p++) {
        uint64_t bit = (uint64_t)1 << p, next = bit << 1;
        const struct cset *c = &b->set[p];
        int chars = 0, only = 0;
        for (int ch = 0; ch < 128; ch++)
            if ((ch < 64 ? c->lo >> ch : c->hi >> (ch - 64)) & 1) {
                a->ascii[ch] |= bit;
                chars++;
                only = ch;
            }
        uint64_t f = b->follow[p];
        if (p + 1 < b->n && (f & next)) {
            a->sh |= bit;
            f &= ~next;
        }
        if (f & bit) {
            a->self |= bit;
            f &= ~bit;
        }
        if (f) {
            a->exc |= bit;
            a->fx[p] = f;
        }
        lit = lit && chars == 1 && c->nr == 0 && b->follow[p] == (p + 1 < b->n ? next : 0);
        if (lit)
            a->lit[p] = (char)only;
    }
    /* the non-ASCII intervals: split at every range's start and end */
    int nb = 0;
    b->bnd[nb++] = 0x80;
    for (int p = 0; p < b->n; p++)
        for (int k = 0; k < b->set[p].nr; k++) {
            b->bnd[nb++] = b->set[p].r[k][0];
            if (b->set[p].r[k][1] < 0x10FFFF)
                b->bnd[nb++] = b->set[p].r[k][1] + 1;
        }
    qsort(b->bnd, (size_t)nb, sizeof *b->bnd, cmp_u32);
    int nk = 0;
    for (int k = 0; k < nb; k++)
        if (!nk || b->bnd[k] != a->kstart[nk - 1]) {
            if (nk == 64) {
                forge_free(a);
                a = NULL;
                goto out;
            }
            a->kstart[nk++] = b->bnd[k];
        }
    a->nk = nk;
    for (int k = 0; k < nk; k++)
        for (int p = 0; p < b->n; p++)
            for (int r = 0; r < b->set[p].nr; r++)
                if (b->set[p].r[r][0] <= a->kstart[k] && a->kstart[k] <= b->set[p].r[r][1])
                    a->kmask[k] |= (uint64_t)1 << p;
    if (lit)
        a->litn = b->n;
    else
        dfa_build(a);
out:
    forge_free(b);
    return a;
}

/* The interval of the non-ASCII character at s[*i] (advancing *i), or -1 on invalid UTF-8. */
__attribute__((noinline)) static int char_kind(const struct nfa *a, const unsigned char *s, size_t n,
                                                size_t *i)
{
    long cp = utf8_next(s, n, i);
    if (cp < 0)
        return -1;
    int lo = 0, hi = a->nk - 1; /* the last start <= cp */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (a->kstart[mid] <= (uint32_t)cp)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* One step of the automaton: the positions matched by a character of position mask <acc>
 * after those of <d> (bit 63 of <d>: the start, before any character). */
static inline uint64_t nfa_step(const struct nfa *a, uint64_t d, uint64_t acc)
{
    const uint64_t at_start = (uint64_t)1 << 63;
    uint64_t r = (d & at_start) ? a->first : a->first_any;
    d &= ~at_start;
    r |= ((d & a->sh) << 1) | (d & a->self);
    for (uint64_t x = d & a->exc; x; x &= x - 1)
        r |= a->fx[__builtin_ctzll(x)];
    return r & acc;
}

/* Builds a->dfa by subset construction, or leaves it NULL past 256 states or 16384 table
 * entries. */
static void dfa_build(struct nfa *a)
{
    enum { MAXS = 256 };
    uint64_t cmask[128 + 64]; /* each class's position mask */
    uint8_t cls[128];
    int ncls = 0, nac;
    for (int c = 0; c < 128; c++) {
        int k = 0;
        while (k < ncls && cmask[k] != a->ascii[c])
            k++;
        if (k == ncls)
            cmask[ncls++] = a->ascii[c];
        cls[c] = (uint8_t)k;
    }
    nac = ncls;
    for (int k = 0; k < a->nk; k++)
        cmask[ncls++] = a->kmask[k]; /* each non-ASCII interval its own class */
    uint64_t *sets = forge_malloc(MAXS * sizeof *sets);
    uint16_t *next = forge_malloc((size_t)MAXS * (size_t)ncls * sizeof *next);
    if (!sets || !next)
        goto out;
    int ns = 1;
    int16_t slot[2 * MAXS]; /* open addressing: the state of each set */
    memset(slot, -1, sizeof slot);
    sets[0] = a->first != a->first_any ? (uint64_t)1 << 63 : 0;
    slot[(sets[0] * 0x9E3779B97F4A7C15ull) >> 55] = 0;
    for (int k = 0; k < ns; k++) {
        for (int c = 0; c < ncls; c++) {
            uint64_t d = nfa_step(a, sets[k], cmask[c]);
            unsigned h = (unsigned)((d * 0x9E3779B97F4A7C15ull) >> 55);
            while (slot[h] >= 0 && sets[slot[h]] != d)
                h = (h + 1) & (2 * MAXS - 1);
            int j = slot[h];
            if (j < 0) {
                if (ns == MAXS || (ns + 1) * ncls > 16384)
                    goto out; /* bounds the table and the work of building it */
                j = ns++;
                sets[j] = d;
                slot[h] = (int16_t)j;
            }
            next[k * ncls + c] = (uint16_t)j;
        }
    }
    /* order: running states, then dead ones, then accepting ones */
    int order[MAXS], rank[MAXS], nr = 0, nstop = 0, nacc = 0;
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1)
            nstop = nr;
        if (pass == 2)
            nacc = nr;
        for (int k = 0; k < ns; k++) {
            bool acc = (sets[k] & a->last_any) != 0;
            bool dead = !acc && a->bol && sets[k] == 0;
            if ((pass == 0 && !acc && !dead) || (pass == 1 && dead) || (pass == 2 && acc)) {
                rank[k] = nr;
                order[nr++] = k;
            }
        }
    }
    struct dfa *f = forge_calloc(1, sizeof *f);
    if (!f)
        goto out;
    f->t = forge_malloc((size_t)ns * (size_t)ncls * sizeof *f->t);
    f->end = forge_malloc((size_t)ns);
    if (!f->t || !f->end) {
        forge_free(f->t);
        forge_free(f->end);
        forge_free(f);
        goto out;
    }
    memcpy(f->cls, cls, sizeof cls);
    f->ncls = (uint8_t)ncls;
    f->nac = (uint8_t)nac;
    f->start = (uint16_t)(rank[0] * ncls);
    f->stop = (uint16_t)(nstop * ncls);
    f->accept = (uint16_t)(nacc * ncls);
    for (int r = 0; r < ns; r++) {
        int k = order[r];
        f->end[r] = (sets[k] & a->last) != 0;
        for (int c = 0; c < ncls; c++)
            f->t[r * ncls + c] = (uint16_t)(rank[next[k * ncls + c]] * ncls);
    }
    int b = 1;
    while ((1 << b) <= nac)
        b++;
    if ((ns << 2 * b) <= T2_MAX && (f->t2 = forge_calloc((size_t)ns << 2 * b, sizeof *f->t2))) {
        for (int r = 0; r < ns; r++) {
            int k = order[r];
            for (int c1 = 0; c1 < nac; c1++) {
                int mid = next[k * ncls + c1];
                uint16_t *row = f->t2 + ((size_t)r << 2 * b) + ((size_t)c1 << b);
                row[nac] = (uint16_t)(rank[mid] << 2 * b);
                for (int c2 = 0; c2 < nac; c2++)
                    row[c2] = (uint16_t)((rank[mid] >= nstop ? rank[mid] : rank[next[mid * ncls + c2]]) << 2 * b);
            }
        }
        for (int c = 0; c < 128; c++)
            f->pc[c] = (uint16_t)(cls[c] << b);
        f->b2 = (uint8_t)(2 * b);
        f->start2 = (uint16_t)(rank[0] << 2 * b);
        f->stop2 = (uint16_t)(nstop << 2 * b);
        f->accept2 = (uint16_t)(nacc << 2 * b);
    }
    if (!f->t2 && ns <= BT_STATES && (f->bt = forge_malloc((size_t)ns * 256 * sizeof *f->bt))) {
        for (int r = 0; r < ns; r++) {
            int k = order[r];
            for (int c = 0; c < 256; c++)
                f->bt[r * 256 + c] = c == 0 ? BT_NUL : c >= 0x80 ? BT_ESC
                                   : (uint16_t)(rank[next[k * ncls + cls[c]]] * 256);
        }
        f->bstart = (uint16_t)(rank[0] * 256);
        f->bstop = (uint16_t)(nstop * 256);
        f->baccept = (uint16_t)(nacc * 256);
    }
    a->dfa = f;
out:
    forge_free(sets);
    forge_free(next);
}

static void nfa_free(struct nfa *a)
{
    if (!a)
        return;
    if (a->dfa) {
        forge_free(a->dfa->t);
        forge_free(a->dfa->bt);
        forge_free(a->dfa->t2);
        forge_free(a->dfa->end);
        forge_free(a->dfa);
    }
    forge_free(a);
}

static bool utf8_valid(const unsigned char *s, size_t n);

/* nfa_test on the byte table of the DFA <f> (f->bt): the <n> bytes of <s>, or when <n> is
 * SIZE_MAX, the bytes of <s> up to its NUL (no strlen first). */
static int dfa_bytes(const struct nfa *a, const struct dfa *f, const unsigned char *s, size_t n)
{
    const uint16_t *bt = f->bt;
    const unsigned stop = f->bstop;
    unsigned st = f->bstart, nx;
    size_t i = 0;
    if (n == SIZE_MAX) {
        const unsigned char *p = s;
        const uint16_t *row = bt + st;
        while ((nx = row[*p]) < stop) {
            row = bt + nx;
            p++;
        }
        st = (unsigned)(row - bt);
        i = (size_t)(p - s);
        if (nx == BT_NUL)
            return f->end[st >> 8];
        if (nx != BT_ESC) {
            i++;
            return nx >= f->baccept ? utf8_valid(s + i, strlen((const char *)s + i)) : 0;
        }
        n = i + strlen((const char *)s + i); /* non-ASCII: on with the length known */
    }
    while (i < n) {
        nx = bt[st + s[i]];
        if (__builtin_expect(nx < stop, 1)) {
            st = nx;
            i++;
            continue;
        }
        if (nx >= BT_NUL) { /* NUL or non-ASCII: the class table */
            unsigned cl;
            if (!s[i]) {
                cl = f->cls[0];
                i++;
            } else {
                size_t j = i;
                int k = char_kind(a, s, n, &j);
                if (k < 0)
                    return 0;
                i = j;
                cl = f->nac + (unsigned)k;
            }
            nx = (unsigned)f->t[(st >> 8) * f->ncls + cl] / f->ncls * 256;
            if (nx < stop) {
                st = nx;
                continue;
            }
        } else {
            i++;
        }
        return nx >= f->baccept ? utf8_valid(s + i, n - i) : 0;
    }
    return f->end[st >> 8];
}

/* nfa_test on the class table of the DFA <f> (f->t): the <n> bytes of <s> from <i> on, from
 * the state <st>. */
static int dfa_classes(const struct nfa *a, const struct dfa *f, const unsigned char *s, size_t n,
                       size_t i, unsigned st)
{
    const uint16_t *t = f->t;
    const uint8_t *cls = f->cls;
    const unsigned stop = f->stop;
    if (st >= stop)
        return st >= f->accept ? utf8_valid(s + i, n - i) : 0;
    while (i < n) {
        unsigned c = s[i];
        if (__builtin_expect(c < 0x80, 1)) {
            i++;
            st = t[st + cls[c]];
        } else {
            size_t j = i; /* i stays in a register */
            int k = char_kind(a, s, n, &j);
            if (k < 0)
                return 0;
            i = j;
            st = t[st + f->nac + (unsigned)k];
        }
        if (st >= stop)
            return st >= f->accept ? utf8_valid(s + i, n - i) : 0;
    }
    return f->end[st / f->ncls];
}

/* nfa_test on the pair table of the DFA <f> (f->t2), two ASCII characters a step (a last one
 * alone), and from a non-ASCII character on, on its class table: the <n> bytes of <s> (the
 * caller measures a NUL-terminated subject: no call here keeps the loop's values in registers
 * that must be saved). Each step's state depends on the one before:
 * taking two characters a step halves the loads that wait on each other, which bound the
 * speed of a DFA. */
static int dfa_pairs(const struct nfa *a, const struct dfa *f, const unsigned char *s, size_t n)
{
    const uint16_t *t2 = f->t2, *pc = f->pc;
    const uint8_t *cls = f->cls;
    const unsigned stop = f->stop2, one = f->nac, b2 = f->b2;
    unsigned st = f->start2, c1, c2;
    size_t i = 0;
/* a step: c1 and the column <col> (the second character's class, or `one` for c1 alone) */
#define STEP(col, k)                       \
    do {                                   \
        st = t2[st + pc[c1] + (col)];      \
        i += (k);                          \
        if (st >= stop)                    \
            goto stopped;                  \
    } while (0)
    /* eight ASCII characters (one test of their high bits) in four steps */
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull)
            break;
        c1 = s[i], c2 = s[i + 1];
        STEP(cls[c2], 2);
        c1 = s[i], c2 = s[i + 1];
        STEP(cls[c2], 2);
        c1 = s[i], c2 = s[i + 1];
        STEP(cls[c2], 2);
        c1 = s[i], c2 = s[i + 1];
        STEP(cls[c2], 2);
    }
    if (i + 8 > n && n >= 8) {
        /* the last 0 to 7 characters, when the last eight bytes (which may overlap those read)
         * are ASCII: in pairs, without a test of each */
        uint64_t w;
        memcpy(&w, s + n - 8, 8);
        if (!(w & 0x8080808080808080ull)) {
            while (i + 2 <= n) {
                c1 = s[i], c2 = s[i + 1];
                STEP(cls[c2], 2);
            }
            if (i < n) {
                c1 = s[i];
                STEP(one, 1);
            }
            return f->end[st >> b2];
        }
    }
    for (;;) {
        if (i + 2 <= n && ((c1 = s[i]) | (c2 = s[i + 1])) < 0x80) {
            STEP(cls[c2], 2);
            continue;
        }
        if (i < n && (c1 = s[i]) < 0x80)
            STEP(one, 1);
        if (i == n)
            return f->end[st >> b2];
        break;
    }
#undef STEP
    return dfa_classes(a, f, s, n, i, (st >> b2) * f->ncls);
stopped:
    if (st < f->accept2)
        return 0;
    return utf8_valid(s + i, n - i);
}

/* 1 when the automaton <a> matches in the <n> bytes of <s>, 0 when not (or on invalid UTF-8):
 * by memcmp for a literal, on the DFA when there is one, else on the positions bit-parallel. */
static int nfa_test(const struct nfa *a, const unsigned char *s, size_t n, bool use_dfa)
{
    if (a->litn) {
        size_t m = (size_t)a->litn;
        if (n < m)
            return 0;
        if (a->bol && a->eol)
            return n == m && !memcmp(s, a->lit, m);
        if (a->bol)
            return !memcmp(s, a->lit, m) && utf8_valid(s + m, n - m);
        if (a->eol)
            return !memcmp(s + n - m, a->lit, m) && utf8_valid(s, n - m);
        return memmem(s, n, a->lit, m) != NULL && utf8_valid(s, n);
    }
    if (a->nullable || (a->nullable_empty && n == 0))
        return utf8_valid(s, n);
    const struct dfa *f = use_dfa ? a->dfa : NULL;
    size_t i = 0;
    if (f && f->t2)
        return dfa_pairs(a, f, s, n);
    if (f && f->bt)
        return dfa_bytes(a, f, s, n);
    if (f)
        return dfa_classes(a, f, s, n, 0, f->start);
    uint64_t d = a->first != a->first_any ? (uint64_t)1 << 63 : 0;
    while (i < n) {
        uint64_t acc;
        if (s[i] < 0x80) {
            acc = a->ascii[s[i++]];
        } else {
            size_t j = i;
            int k = char_kind(a, s, n, &j);
            if (k < 0)
                return 0;
            i = j;
            acc = a->kmask[k];
        }
        d = nfa_step(a, d, acc);
        if (d & a->last_any)
            return utf8_valid(s + i, n - i);
        if (!d && a->bol)
            return 0;
    }
    return (d & a->last) != 0;
}

/* JavaScript's WhiteSpace and LineTerminator code points (\s). */
static const char WS[] = "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}"
                         "\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/* Their complement (\S), usable inside a class. */
static const char NWS[] = "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}"
                          "\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}"
                          "\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}"
                          "\\x{ff00}-\\x{10ffff}";

/* Reads \uXXXX at p (pointing after 'u'); returns the code unit or -1. */
static long hex4(const char *p, size_t left)
{
    if (left < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Unicode General_Category long names (ECMA-262 accepts them) and PCRE2's short ones. */
static const char *const gc_names[][2] = {
    {"Letter", "L"}, {"Cased_Letter", "L&"}, {"Uppercase_Letter", "Lu"}, {"Lowercase_Letter", "Ll"},
    {"Titlecase_Letter", "Lt"}, {"Modifier_Letter", "Lm"}, {"Other_Letter", "Lo"}, {"Mark", "M"},
    {"Combining_Mark", "M"}, {"Nonspacing_Mark", "Mn"}, {"Spacing_Mark", "Mc"},
    {"Enclosing_Mark", "Me"}, {"Number", "N"}, {"Decimal_Number", "Nd"}, {"digit", "Nd"},
    {"Letter_Number", "Nl"}, {"Other_Number", "No"}, {"Punctuation", "P"}, {"punct", "P"},
    {"Connector_Punctuation", "Pc"}, {"Dash_Punctuation", "Pd"}, {"Open_Punctuation", "Ps"},
    {"Close_Punctuation", "Pe"}, {"Initial_Punctuation", "Pi"}, {"Final_Punctuation", "Pf"},
    {"Other_Punctuation", "Po"}, {"Symbol", "S"}, {"Math_Symbol", "Sm"}, {"Currency_Symbol", "Sc"},
    {"Modifier_Symbol", "Sk"}, {"Other_Symbol", "So"}, {"Separator", "Z"},
    {"Space_Separator", "Zs"}, {"Line_Separator", "Zl"}, {"Paragraph_Separator", "Zp"},
    {"Other", "C"}, {"Control", "Cc"}, {"cntrl", "Cc"}, {"Format", "Cf"}, {"Surrogate", "Cs"},
    {"Private_Use", "Co"}, {"Unassigned", "Cn"},
};

/* Writes \p{...} for the ECMA-262 property expression <name> (<n> bytes). */
static int property(struct forge_buf *out, char p, const char *name, size_t n, struct forge_err *err)
{
    const char *eq = memchr(name, '=', n);
    const char *val = eq ? eq + 1 : name;
    size_t vl = eq ? n - (size_t)(eq + 1 - name) : n;
    size_t kl = eq ? (size_t)(eq - name) : 0;
    if (!vl)
        return forge_err_set(err, FORGE_EINVAL, "empty Unicode property name");
    if (eq && ((kl == 6 && !strncmp(name, "Script", 6)) || (kl == 2 && !strncmp(name, "sc", 2))))
        return forge_buf_addf(out, "\\%c{sc:%.*s}", p, (int)vl, val);
    if (eq && ((kl == 17 && !strncmp(name, "Script_Extensions", 17)) || (kl == 3 && !strncmp(name, "scx", 3))))
        return forge_buf_addf(out, "\\%c{scx:%.*s}", p, (int)vl, val);
    if (eq && !((kl == 16 && !strncmp(name, "General_Category", 16)) || (kl == 2 && !strncmp(name, "gc", 2))))
        return forge_err_set(err, FORGE_EINVAL, "unknown Unicode property '%.*s'", (int)kl, name);
    for (size_t i = 0; i < sizeof gc_names / sizeof *gc_names; i++)
        if (strlen(gc_names[i][0]) == vl && !strncmp(gc_names[i][0], val, vl))
            return forge_buf_addf(out, "\\%c{%s}", p, gc_names[i][1]);
    return forge_buf_addf(out, "\\%c{%.*s}", p, (int)vl, val);
}

int forge_ecmare_translate(const char *pat, size_t len, struct forge_buf *out, struct forge_err *err)
{
    bool in_class = false;
    int rc = 0;
    for (size_t i = 0; i < len && !rc; i++) {
        char ch = pat[i];
        if (ch == '\\') {
            if (i + 1 >= len)
                return forge_err_set(err, FORGE_EINVAL, "pattern ends with a lone backslash");
            char e = pat[++i];
            switch (e) {
            case 's':
                rc = in_class ? forge_buf_adds(out, WS) : forge_buf_addf(out, "[%s]", WS);
                break;
            case 'S':
                rc = in_class ? forge_buf_adds(out, NWS) : forge_buf_addf(out, "[%s]", NWS);
                break;
            case 'v':
                rc = forge_buf_adds(out, "\\x{0b}");
                break;
            case 'd': case 'D': case 'w': case 'W': case 'f': case 'n': case 'r': case 't':
                rc = forge_buf_addc(out, '\\');
                rc = rc ? rc : forge_buf_addc(out, e);
                break;
            case 'b': case 'B':
                if (in_class && e == 'b')
                    rc = forge_buf_adds(out, "\\x{08}");
                else if (in_class)
                    return forge_err_set(err, FORGE_EINVAL, "\\B is not allowed in a character class");
                else
                    rc = forge_buf_addf(out, "\\%c", e);
                break;
            case 'c':
                if (i + 1 < len && ((pat[i + 1] >= 'a' && pat[i + 1] <= 'z') || (pat[i + 1] >= 'A' && pat[i + 1] <= 'Z'))) {
                    rc = forge_buf_addf(out, "\\x{%x}", pat[i + 1] % 32);
                    i++;
                } else {
                    return forge_err_set(err, FORGE_EINVAL, "invalid \\c escape");
                }
                break;
            case 'x':
                if (i + 2 < len + 0 && hexval(pat[i + 1]) >= 0 && hexval(pat[i + 2]) >= 0) {
                    rc = forge_buf_addf(out, "\\x{%c%c}", pat[i + 1], pat[i + 2]);
                    i += 2;
                } else {
                    return forge_err_set(err, FORGE_EINVAL, "invalid \\x escape");
                }
                break;
            case 'u': {
                long cp;
                if (i + 1 < len && pat[i + 1] == '{') {
                    size_t j = i + 2;
                    cp = 0;
                    while (j < len && hexval(pat[j]) >= 0 && cp <= 0x10FFFF)
                        cp = cp * 16 + hexval(pat[j++]);
                    if (j >= len || pat[j] != '}' || j == i + 2 || cp > 0x10FFFF)
                        return forge_err_set(err, FORGE_EINVAL, "invalid \\u{...} escape");
                    i = j;
                } else {
                    cp = hex4(pat + i + 1, len - i - 1);
                    if (cp < 0)
                        return forge_err_set(err, FORGE_EINVAL, "invalid \\u escape");
                    i += 4;
                    if (cp >= 0xD800 && cp <= 0xDBFF && i + 2 < len && pat[i + 1] == '\\' && pat[i + 2] == 'u') {
                        long lo = hex4(pat + i + 3, len - i - 3);
                        if (lo >= 0xDC00 && lo <= 0xDFFF) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            i += 6;
                        }
                    }
                }
                rc = forge_buf_addf(out, "\\x{%lx}", cp);
                break;
            }
            case 'p': case 'P': {
                const char *close = i + 1 < len && pat[i + 1] == '{' ? memchr(pat + i, '}', len - i) : NULL;
                if (!close)
                    return forge_err_set(err, FORGE_EINVAL, "invalid \\%c escape: expected {name}", e);
                rc = property(out, e, pat + i + 2, (size_t)(close - pat - i - 2), err);
                i = (size_t)(close - pat);
                break;
            }
            case 'k':
                rc = forge_buf_addc(out, '\\');
                rc = rc ? rc : forge_buf_addc(out, e);
                break;
            case '0':
                if (i + 1 < len && pat[i + 1] >= '0' && pat[i + 1] <= '9')
                    return forge_err_set(err, FORGE_EINVAL, "invalid octal escape");
                rc = forge_buf_adds(out, "\\x{0}");
                break;
            default:
                if (e >= '1' && e <= '9') {
                    rc = forge_buf_addc(out, '\\');
                    rc = rc ? rc : forge_buf_addc(out, e);
                } else if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9') || e == '_') {
                    return forge_err_set(err, FORGE_EINVAL, "invalid escape '\\%c'", e);
                } else if (strchr("^$\\.*+?()[]{}|/-", e)) {
                    rc = forge_buf_addc(out, '\\');
                    rc = rc ? rc : forge_buf_addc(out, e);
                } else {
                    return forge_err_set(err, FORGE_EINVAL, "invalid escape '\\%c'", e);
                }
            }
            continue;
        }
        if (in_class) {
            if (ch == ']')
                in_class = false;
            if (ch == '[')
                rc = forge_buf_adds(out, "\\[");
            else
                rc = forge_buf_addc(out, ch);
            continue;
        }
        switch (ch) {
        case '.':
            rc = forge_buf_adds(out, "[^\\n\\r\\x{2028}\\x{2029}]");
            break;
        case '[':
            if (i + 1 < len && pat[i + 1] == ']') {
                rc = forge_buf_adds(out, "(?!)");
                i++;
            } else if (i + 2 < len && pat[i + 1] == '^' && pat[i + 2] == ']') {
                rc = forge_buf_adds(out, "(?s:.)");
                i += 2;
            } else {
                in_class = true;
                rc = forge_buf_addc(out, '[');
                if (i + 1 < len && pat[i + 1] == '^') {
                    rc = rc ? rc : forge_buf_addc(out, '^');
                    i++;
                }
            }
            break;
        case '(':
            if (i + 1 < len && pat[i + 1] == '?') {
                char t = i + 2 < len ? pat[i + 2] : 0;
                if (t != ':' && t != '=' && t != '!' && t != '<')
                    return forge_err_set(err, FORGE_EINVAL, "invalid group '(?%c'", t ? t : ' ');
            }
            rc = forge_buf_addc(out, ch);
            break;
        default:
            rc = forge_buf_addc(out, ch);
        }
    }
    if (!rc && in_class)
        return forge_err_set(err, FORGE_EINVAL, "unterminated character class");
    return rc;
}

void *forge_ecmare_compile(const char *pat, size_t len, struct forge_err *err)
{
    struct forge_buf b;
    forge_buf_init(&b, 1 << 20);
    int rc = forge_ecmare_translate(pat, len, &b, err);
    if (!rc)
        rc = forge_buf_adds(&b, "");
    if (rc) {
        if (rc == FORGE_ENOMEM)
            forge_err_set(err, rc, "out of memory compiling a pattern");
        else if (rc == FORGE_ELIMIT)
            forge_err_set(err, FORGE_EINVAL, "pattern longer than 1 MiB once translated");
        else
            forge_err_prefix(err, "invalid regex '%.*s'", (int)(len > 200 ? 200 : len), pat);
        forge_buf_free(&b);
        return NULL;
    }
    int ec;
    PCRE2_SIZE off;
    pcre2_code *code = forge_re_pcre2_compile(b.data, b.len, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY,
                                              NULL, NULL, &ec, &off);
    forge_buf_free(&b);
    if (!code && ec == PCRE2_ERROR_NOMEMORY) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a pattern");
        return NULL;
    }
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        forge_err_set(err, FORGE_EINVAL, "invalid regex '%.*s': %s", (int)(len > 200 ? 200 : len),
                      pat, (const char *)msg);
        return NULL;
    }
    struct ecmare *re = forge_malloc(sizeof *re);
    if (!re) {
        pcre2_code_free(code);
        forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a pattern");
        return NULL;
    }
    re->code = code;
    re->nfa = nfa_compile(pat, len);
    const struct nfa *a = re->nfa;
    re->pairs = a && !a->litn && !a->nullable && a->dfa && a->dfa->t2 ? a->dfa : NULL;
    re->pairs_empty = re->pairs && a->nullable_empty;
    /* the interpreter serves when JIT is unavailable */
    re->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    if (forge_alloc_measuring) { /* PCRE2 allocates its code and machine code itself */
        size_t size = 0, jit = 0;
        pcre2_pattern_info(code, PCRE2_INFO_SIZE, &size);
        if (re->jit)
            pcre2_pattern_info(code, PCRE2_INFO_JITSIZE, &jit);
        if (forge_alloc_measure_add(size + jit)) { /* past the measure's ceiling */
            forge_ecmare_free(re);
            forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a pattern");
            return NULL;
        }
    }
    return re;
}

void forge_ecmare_free(void *p)
{
    struct ecmare *re = p;
    if (!re)
        return;
    pcre2_code_free(re->code);
    nfa_free(re->nfa);
    forge_free(re);
}

/* True when the <n> bytes of <s> are well-formed UTF-8 (what PCRE2 checks before a match; the
 * JIT entry point skips that check, so it is done here, quickly for ASCII). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            /* eight ASCII bytes at a time */
            while (i + 8 <= n) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
        else return false;
        if (i + len > n)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

/* One match-data block and match context per thread, created on first use, so matching does
 * not allocate. */
static _Thread_local pcre2_match_data *tl_md;
static _Thread_local pcre2_match_context *tl_mc;
static _Thread_local pcre2_jit_stack *tl_js;
static _Thread_local bool tl_timeout; /* the last PCRE2 match ran past the time limit */
static _Thread_local unsigned long tl_matches; /* PCRE2 matches run, for tests */
_Thread_local unsigned long forge_ecmare_epoch;
/* The last match that hit a limit, in its epoch and under its time limit: the same pattern on
 * the same subject is answered from here, not matched again (see forge_ecmare_epoch). */
static _Thread_local struct {
    const struct ecmare *re;
    const char *s;
    size_t n;
    unsigned long epoch, timeout_ms;
    bool timeout;
} tl_limited;

unsigned long forge_ecmare_test_pcre2_matches(void)
{
    return tl_matches;
}

bool forge_ecmare_timed_out(void)
{
    return tl_timeout;
}

int forge_ecmare_engine(const void *p)
{
    const struct nfa *a = ((const struct ecmare *)p)->nfa;
    return !a ? 'p' : a->litn ? 'l' : a->dfa ? 'd' : 'n';
}

int forge_ecmare_dfa_tables(const void *p)
{
    const struct nfa *a = ((const struct ecmare *)p)->nfa;
    const struct dfa *f = a ? a->dfa : NULL;
    return f ? (f->t2 ? 1 : 0) | (f->bt ? 2 : 0) : 0;
}

bool forge_ecmare_is_simple(const void *p)
{
    return ((const struct ecmare *)p)->nfa != NULL;
}

static int pcre2_test(const struct ecmare *re, const char *s, size_t n);

int forge_ecmare_test(const void *p, const char *s, size_t n)
{
    const struct ecmare *re = p;
    if (re->pairs) /* (nfa_test's path to the pair table, decided once) */
        return re->pairs_empty && !n ? 1 : dfa_pairs(re->nfa, re->pairs, (const unsigned char *)s, n);
    if (re->nfa)
        return nfa_test(re->nfa, (const unsigned char *)s, n, true);
    return pcre2_test(re, s, n);
}

int forge_ecmare_test_str(const void *p, const char *s)
{
    const struct ecmare *re = p;
    const struct nfa *a = re->nfa;
    /* (the pair table measures the subject first: forge_ecmare_test's path) */
    if (!re->pairs && a && !a->litn && !a->nullable && a->dfa && a->dfa->bt) {
        if (a->nullable_empty && !*s)
            return 1;
        return dfa_bytes(a, a->dfa, (const unsigned char *)s, SIZE_MAX);
    }
    return forge_ecmare_test(p, s, strlen(s));
}

int forge_ecmare_test_nfa(const void *p, const char *s, size_t n)
{
    const struct ecmare *re = p;
    return re->nfa ? nfa_test(re->nfa, (const unsigned char *)s, n, false) : -1;
}

int forge_ecmare_test_pcre2(const void *p, const char *s, size_t n)
{
    return pcre2_test(p, s, n);
}

static int pcre2_test(const struct ecmare *re, const char *s, size_t n)
{
    if (!tl_md) {
        tl_md = pcre2_match_data_create(1, NULL);
        tl_mc = pcre2_match_context_create(NULL);
        if (!tl_md || !tl_mc)
            return FORGE_ENOMEM;
        pcre2_set_match_limit(tl_mc, 10000000);
        pcre2_set_depth_limit(tl_mc, 100000);
        /* JIT matching keeps its backtracking on a stack of its own: PCRE2's default of 32 KiB
         * runs out on patterns that JavaScript matches at once (an empty group repeated
         * thousands of times); 1 MiB a thread, reserved on first use, as the interpreter's
         * frames may take the same */
        tl_js = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
        if (tl_js)
            pcre2_jit_stack_assign(tl_mc, NULL, tl_js);
    }
    if (re->jit && !utf8_valid((const unsigned char *)s, n))
        return 0; /* an invalid subject matches nothing */
    if (re == tl_limited.re && s == tl_limited.s && n == tl_limited.n &&
        tl_limited.epoch == forge_ecmare_epoch && tl_limited.timeout_ms == forge_re_timeout_ms()) {
        tl_timeout = tl_limited.timeout;
        return FORGE_ELIMIT;
    }
    tl_matches++;
    int r = forge_re_pcre2_match(re->code, re->jit, s, n, 0, 0, tl_md, tl_mc);
    tl_timeout = r == PCRE2_ERROR_CALLOUT;
    if (r >= 0)
        return 1;
    if (r == PCRE2_ERROR_NOMATCH)
        return 0;
    if (r <= PCRE2_ERROR_UTF8_ERR1 && r >= PCRE2_ERROR_UTF8_ERR21)
        return 0; /* an invalid UTF-8 subject matches nothing */
    if (r == PCRE2_ERROR_NOMEMORY)
        return FORGE_ENOMEM;
    /* the match, depth, heap and JIT stack limits, and anything else that left no verdict:
     * never a silent "no match" */
    tl_limited.re = re, tl_limited.s = s, tl_limited.n = n;
    tl_limited.epoch = forge_ecmare_epoch;
    tl_limited.timeout_ms = forge_re_timeout_ms();
    tl_limited.timeout = tl_timeout;
    return FORGE_ELIMIT;
}
