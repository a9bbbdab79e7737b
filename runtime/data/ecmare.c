/* ECMA-262 regular expressions on PCRE2: a translation of the syntax where the two differ
 * (\s, \S, \v, ., \u escapes, [^] and []) and compilation with JavaScript's semantics for
 * $ (end only) and ASCII \d \w \b. */
#include "data/schema_int.h"
#include "base/alloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Simple patterns (an optional ^, a sequence of characters, classes, \d \w \s and their
 * negations, and . each with a quantifier, an optional $) are matched by a bit-parallel NFA of
 * at most 63 positions instead of PCRE2: no call setup, one table lookup per character. */
struct simple {
    uint64_t ascii[128]; /* positions whose set holds the ASCII character */
    uint64_t na;         /* ... holds non-ASCII characters other than the cases below */
    uint64_t naws;       /* ... holds non-ASCII JavaScript whitespace (U+00A0, U+2000, ...) */
    uint64_t lsps;       /* ... holds U+2028 and U+2029 */
    uint64_t opt;        /* positions that may be skipped */
    uint64_t loop;       /* positions that may repeat */
    int n;               /* positions; bit n is "matched" */
    bool bol, eol;       /* anchored at the start / at the end */
};

struct ecmare {
    pcre2_code *code;
    bool jit;
    struct simple *simple; /* NULL: PCRE2 only */
};

/* One character set of a simple pattern. */
struct cset {
    uint64_t lo, hi; /* ASCII bits */
    bool na, naws, lsps;
};

static void cset_add(struct cset *c, int ch)
{
    if (ch < 64)
        c->lo |= (uint64_t)1 << ch;
    else
        c->hi |= (uint64_t)1 << (ch - 64);
}

static void cset_range(struct cset *c, int a, int b)
{
    for (int ch = a; ch <= b; ch++)
        cset_add(c, ch);
}

static void cset_or(struct cset *c, const struct cset *d)
{
    c->lo |= d->lo;
    c->hi |= d->hi;
    c->na |= d->na;
    c->naws |= d->naws;
    c->lsps |= d->lsps;
}

static void cset_not(struct cset *c)
{
    c->lo = ~c->lo;
    c->hi = ~c->hi;
    c->na = !c->na;
    c->naws = !c->naws;
    c->lsps = !c->lsps;
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
        cset_range(&t, 9, 13);
        cset_add(&t, ' ');
        t.naws = t.lsps = true;
        break;
    default:
        return false;
    }
    if (e >= 'A' && e <= 'Z')
        cset_not(&t);
    cset_or(c, &t);
    return true;
}

/* An ASCII character escaped or not; -1 when <e> is not a plain escapable character. */
static int escaped_char(char e)
{
    switch (e) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'f': return '\f';
    case 'v': return 11;
    }
    if (strchr("^$\\.*+?()[]{}|/-", e))
        return e;
    return -1;
}

/* Parses <pat> as a simple pattern into a new struct, or returns NULL (use PCRE2). */
static struct simple *simple_compile(const char *pat, size_t len)
{
    struct simple *sp = forge_calloc(1, sizeof *sp);
    if (!sp)
        return NULL;
    size_t i = 0;
    if (i < len && pat[i] == '^') {
        sp->bol = true;
        i++;
    }
    while (i < len) {
        if (pat[i] == '$' && i + 1 == len) {
            sp->eol = true;
            break;
        }
        struct cset c;
        memset(&c, 0, sizeof c);
        unsigned char ch = (unsigned char)pat[i];
        if (ch >= 0x80)
            goto no;
        if (ch == '\\') {
            if (i + 1 >= len)
                goto no;
            char e = pat[i + 1];
            int lit = escaped_char(e);
            if (lit >= 0)
                cset_add(&c, lit);
            else if (!cset_class(&c, e))
                goto no;
            i += 2;
        } else if (ch == '.') {
            cset_range(&c, 0, 127);
            c.lo &= ~(((uint64_t)1 << '\n') | ((uint64_t)1 << '\r'));
            c.na = c.naws = true;
            i++;
        } else if (ch == '[') {
            i++;
            bool neg = i < len && pat[i] == '^';
            if (neg)
                i++;
            if (i < len && pat[i] == ']')
                goto no; /* [] and [^] */
            while (i < len && pat[i] != ']') {
                int a;
                if ((unsigned char)pat[i] >= 0x80 || pat[i] == '[')
                    goto no;
                if (pat[i] == '\\') {
                    if (i + 1 >= len)
                        goto no;
                    if (cset_class(&c, pat[i + 1])) {
                        i += 2;
                        continue;
                    }
                    a = escaped_char(pat[i + 1]);
                    if (a < 0)
                        goto no;
                    i += 2;
                } else {
                    a = pat[i++];
                }
                if (i + 1 < len && pat[i] == '-' && pat[i + 1] != ']') {
                    int b;
                    if ((unsigned char)pat[i + 1] >= 0x80 || pat[i + 1] == '[')
                        goto no;
                    if (pat[i + 1] == '\\') {
                        if (i + 2 >= len || (b = escaped_char(pat[i + 2])) < 0)
                            goto no;
                        i += 3;
                    } else {
                        b = pat[i + 1];
                        i += 2;
                    }
                    if (b < a)
                        goto no;
                    cset_range(&c, a, b);
                } else {
                    cset_add(&c, a);
                }
            }
            if (i >= len)
                goto no;
            i++; /* ] */
            if (neg)
                cset_not(&c);
        } else if (strchr("()|*+?{}]$^", ch)) {
            goto no;
        } else {
            cset_add(&c, ch);
            i++;
        }
        /* quantifier */
        long min = 1, max = 1;
        if (i < len && (pat[i] == '*' || pat[i] == '+' || pat[i] == '?')) {
            min = pat[i] == '+' ? 1 : 0;
            max = pat[i] == '?' ? 1 : -1;
            i++;
        } else if (i < len && pat[i] == '{') {
            size_t j = i + 1;
            min = 0;
            if (j >= len || pat[j] < '0' || pat[j] > '9')
                goto no;
            while (j < len && pat[j] >= '0' && pat[j] <= '9' && min < 1000)
                min = min * 10 + (pat[j++] - '0');
            max = min;
            if (j < len && pat[j] == ',') {
                j++;
                max = -1;
                if (j < len && pat[j] >= '0' && pat[j] <= '9') {
                    max = 0;
                    while (j < len && pat[j] >= '0' && pat[j] <= '9' && max < 1000)
                        max = max * 10 + (pat[j++] - '0');
                }
            }
            if (j >= len || pat[j] != '}' || (max >= 0 && max < min))
                goto no;
            i = j + 1;
        }
        if (i < len && pat[i] == '?')
            i++; /* lazy: the same verdict */
        if (i < len && strchr("*+?{", pat[i]))
            goto no;
        long copies = max < 0 ? (min > 0 ? min : 1) : max;
        if (sp->n + copies > 63)
            goto no;
        for (long k = 0; k < copies; k++) {
            int p = sp->n++;
            uint64_t bit = (uint64_t)1 << p;
            for (int a = 0; a < 128; a++)
                if ((a < 64 ? c.lo >> a : c.hi >> (a - 64)) & 1)
                    sp->ascii[a] |= bit;
            if (c.na) sp->na |= bit;
            if (c.naws) sp->naws |= bit;
            if (c.lsps) sp->lsps |= bit;
            if (k >= min)
                sp->opt |= bit;
            if (max < 0 && k == copies - 1)
                sp->loop |= bit;
        }
    }
    return sp;
no:
    forge_free(sp);
    return NULL;
}

/* The positions reachable from <s> by skipping optional ones. Within a run of optional
 * positions a..b, an active position k reaches k..b+1; adding the active optional bits to the
 * optional mask carries from the lowest of them through the run into b+1, so
 * ((opt + f) ^ opt) | f is exactly that fill, for every run at once. */
static inline uint64_t closure(const struct simple *sp, uint64_t s)
{
    uint64_t f = s & sp->opt;
    return s | ((sp->opt + f) ^ sp->opt) | f;
}

/* The position mask of the character at s[*i] (advancing *i), or ~0 on invalid UTF-8. */
static inline uint64_t char_mask(const struct simple *sp, const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    if (c < 0x80) {
        (*i)++;
        return sp->ascii[c];
    }
    uint32_t cp;
    size_t l;
    if (c >= 0xC2 && c <= 0xDF) { l = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { l = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { l = 4; cp = c & 0x07; }
    else return ~(uint64_t)0;
    if (*i + l > n)
        return ~(uint64_t)0;
    for (size_t k = 1; k < l; k++) {
        if ((s[*i + k] & 0xC0) != 0x80)
            return ~(uint64_t)0;
        cp = (cp << 6) | (s[*i + k] & 0x3F);
    }
    if ((l == 3 && cp < 0x800) || (l == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return ~(uint64_t)0;
    *i += l;
    if (cp == 0x2028 || cp == 0x2029)
        return sp->lsps;
    if (cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F ||
        cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)
        return sp->naws;
    return sp->na;
}

/* 1 when <sp> matches in the <n> bytes of <s>, 0 when not (or on invalid UTF-8). */
static int simple_test(const struct simple *sp, const unsigned char *s, size_t n)
{
    const uint64_t done = (uint64_t)1 << sp->n, invalid = ~(uint64_t)0;
    const uint64_t start = closure(sp, 1);
    uint64_t st = start;
    size_t i = 0;
    if (sp->bol) {
        while (i < n) {
            if (!sp->eol && (st & done))
                return 1;
            uint64_t acc = char_mask(sp, s, n, &i);
            if (acc == invalid)
                return 0;
            uint64_t hit = st & acc & ~done;
            if (!hit)
                return 0;
            st = closure(sp, (hit << 1) | (hit & sp->loop));
        }
        return (st & done) != 0;
    }
    for (;;) {
        if ((st & done) && (!sp->eol || i == n))
            return 1;
        if (i >= n)
            return 0;
        uint64_t acc = char_mask(sp, s, n, &i);
        if (acc == invalid)
            return 0;
        uint64_t hit = st & acc & ~done;
        st = closure(sp, (hit << 1) | (hit & sp->loop)) | start;
    }
}

/* JavaScript's WhiteSpace and LineTerminator code points (\s). */
static const char WS[] = "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}"
                         "\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/* Their complement (\S), usable inside a class. */
static const char NWS[] = "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}"
                          "\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}"
                          "\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}"
                          "\\x{ff00}-\\x{10ffff}";

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

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
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)b.data, b.len, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &ec,
                                     &off, NULL);
    forge_buf_free(&b);
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
    re->simple = simple_compile(pat, len);
    /* the interpreter serves when JIT is unavailable */
    re->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    return re;
}

void forge_ecmare_free(void *p)
{
    struct ecmare *re = p;
    if (!re)
        return;
    pcre2_code_free(re->code);
    forge_free(re->simple);
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

bool forge_ecmare_is_simple(const void *p)
{
    return ((const struct ecmare *)p)->simple != NULL;
}

static int pcre2_test(const struct ecmare *re, const char *s, size_t n);

int forge_ecmare_test(const void *p, const char *s, size_t n)
{
    const struct ecmare *re = p;
    if (re->simple) {
        /* an anchored pattern reads every byte, and char_mask rejects invalid UTF-8 */
        if (!(re->simple->bol && re->simple->eol) && !utf8_valid((const unsigned char *)s, n))
            return 0; /* as pcre2_test: an invalid subject matches nothing */
        return simple_test(re->simple, (const unsigned char *)s, n);
    }
    return pcre2_test(re, s, n);
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
    }
    int r;
    if (re->jit) {
        if (!utf8_valid((const unsigned char *)s, n))
            return 0; /* an invalid subject matches nothing */
        r = pcre2_jit_match(re->code, (PCRE2_SPTR)s, n, 0, 0, tl_md, tl_mc);
    } else {
        r = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, tl_md, tl_mc);
    }
    if (r >= 0)
        return 1;
    if (r == PCRE2_ERROR_NOMATCH)
        return 0;
    if (r == PCRE2_ERROR_MATCHLIMIT || r == PCRE2_ERROR_DEPTHLIMIT || r == PCRE2_ERROR_HEAPLIMIT)
        return FORGE_ELIMIT;
    return 0; /* invalid UTF-8 subject: no match */
}
