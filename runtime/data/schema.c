/* JSON Schema validator: compiles a schema into a graph of nodes (one per schema object, refs
 * resolved to node pointers, patterns compiled), then validates instances by walking that
 * graph. The valid path allocates nothing unless an instance is larger than the inline
 * annotation bitmaps (unevaluated* over more than 256 members or items). */
#include "data/schema.h"
#include "data/schema_int.h"
#include "data/json.h"
#include "data/re.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "base/hash.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <float.h>
#include <limits.h>
#include <string.h>

#define MAX_DEPTH 512 /* nested schema evaluations per validation */
#define TRAIL_NODES 3   /* see forge_schema.trail */
#define TRAIL_MEMBERS 8 /* see trail_pays */
#define ENUM_SCAN 16    /* the verdict walk scans an enum of at most this many strings */
#define ROOT_URI "forge:/root.json" /* the URI of a schema without one; never reported */

/* ---------- names compared a word at a time ----------
 * The walk compares instance strings (member names, enum and const strings) with the schema's
 * in 8-byte words instead of strcmp, whose call and set-up cost about 25 instructions for the
 * short names of tool arguments. The schema's side is a "padded name" (pname_put): a copy at an
 * 8-byte boundary, zero-filled past its NUL to a whole word, a header in the word before it.
 * The instance's side is any NUL-terminated string: when it starts at an 8-byte boundary (every
 * string forge's readers and cJSON's allocate does) it is read a word at a time, each word only
 * after the one before matched the name's, which holds no NUL; so every word read holds at
 * least one byte of the string, and an aligned word never crosses into another page or past an
 * allocator's 8-byte granule (strlen's own technique). The bytes past the string's NUL are
 * masked off, never compared. AddressSanitizer, which tracks single bytes, is told not to check
 * those loads; other strings are compared with strcmp. */

/* A padded name's header, the word before it: the name's whole words (its length / 8), and how
 * far its last word is shifted left to keep the bytes up to its NUL (56 - 8 * (length % 8)). */
static inline void pname_head(const char *pad, uint32_t *words, uint32_t *shift)
{
    uint64_t h;
    memcpy(&h, pad - 8, 8);
    *words = (uint32_t)h;
    *shift = (uint32_t)(h >> 32);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NAME_WORDS 1
typedef uint64_t __attribute__((may_alias)) nword;

/* Whether <key> (8-byte aligned) is the padded name <pad>. */
static inline __attribute__((no_sanitize("address"))) bool words_eq(const char *key, const char *pad)
{
    const nword *a = (const nword *)(const void *)key, *b = (const nword *)(const void *)pad;
    uint32_t words, shift;
    pname_head(pad, &words, &shift);
    /* (the first word holds a byte of the key, if only its NUL) */
    uint64_t d = a[0] ^ b[0];
    if (!words) /* a name of up to 7 bytes */
        return (d << shift) == 0;
    if (d)
        return false;
    for (uint32_t i = 1; i < words; i++)
        if (a[i] != b[i])
            return false;
    /* the last word up to the name's NUL, which the key must have there too */
    return ((a[words] ^ b[words]) << shift) == 0;
}
#endif

/* Whether the string <key> equals the padded name <pad>. */
static inline bool pname_eq(const char *key, const char *pad)
{
#ifdef NAME_WORDS
    if (!((uintptr_t)key & 7))
        return words_eq(key, pad);
#endif
    return !strcmp(key, pad);
}

/* The bytes a padded copy of a name of <len> bytes takes, with its header. */
static inline size_t pname_size(size_t len)
{
    return 8 + ((len + 8) & ~(size_t)7);
}

/* Writes the padded copy of <name> (<len> bytes) at <at> (8-byte aligned, pname_size(len)
 * bytes): returns the padded name (at + 8). */
static char *pname_put(char *at, const char *name, size_t len)
{
    uint64_t h = (uint64_t)(len >> 3) | (uint64_t)(56 - 8 * (len & 7)) << 32;
    memcpy(at, &h, 8);
    memset(at + 8 + (len & ~(size_t)7), 0, 8);
    memcpy(at + 8, name, len);
    return at + 8;
}

/* Name tables: hashed lookup of property names (properties, required). A name is summarized
 * by its length and its first and last 8 bytes (overlapping when shorter than 16; for shorter
 * names, first and last 4, or its bytes), which decide equality outright for names of up to
 * 16 bytes. */
struct ntab {
    uint32_t mask;
    int32_t *slots;    /* index into the names, -1 when empty */
    uint32_t *hashes;  /* per name */
    uint32_t *lens;
    uint64_t *heads, *tails;
    const char **names;
    const char **pads; /* per name, its padded copy (pname_put), in one block at pads[0] - 8 */
    int n;
    /* A perfect hash, when one was found: a name of length l maps to pslots[(mix(name, l) *
     * pseed) >> pshift], the only candidate, compared with one memcmp. */
    int32_t *pslots;
    uint32_t pseed;
    int pshift;
    unsigned char first[8]; /* the first bytes of the first names, for the scan */
    /* by a key's first byte, the index + 1 of the only name that starts with it, 0 when none
     * does, CAND_SCAN when several do; then the same by cand2_of the first two bytes, for keys
     * whose first byte is shared (cand_build; no names: cand_none; more than CAND_MAX: cand_all) */
    const unsigned char *cand;
};
#define CAND_SCAN 255
#define CAND_MAX 254
static const unsigned char cand_all[512] = {[0 ... 511] = CAND_SCAN};
static const unsigned char cand_none[256];

/* The second table's slot for a name whose first two bytes are <a> (not NUL) and <b>. */
static inline unsigned cand2_of(unsigned char a, unsigned char b)
{
    return 256 + ((a * 31u + b) & 255);
}

/* The bytes of a name that the perfect hash reads: its length, its first two, middle and last
 * two bytes. */
static inline uint32_t pmix(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (!len)
        return 0x9E3779B9u;
    return (uint32_t)len ^ (uint32_t)u[0] << 8 ^ (uint32_t)u[len - 1] << 16 ^
           (uint32_t)(len > 1 ? u[1] : 0) << 24 ^ (uint32_t)(len > 2 ? u[len - 2] : 0) * 0x2F1u ^
           (uint32_t)u[len >> 1] * 0x01000193u;
}

struct nkey {
    uint64_t head, tail;
    uint32_t len, hash;
};

static inline void name_key(const char *s, struct nkey *k)
{
    size_t len = strlen(s);
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + len - 8, 8);
    } else if (len >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + len - 4, 4);
        a = x | ((uint64_t)y << 32);
    } else if (len) {
        /* with the length, these three bytes are the whole name */
        a = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
            (uint64_t)(unsigned char)s[len - 1] << 16;
    }
    uint64_t h = (a ^ ((uint64_t)len << 56)) * 0x9E3779B97F4A7C15ull;
    h ^= (b + len) * 0xC2B2AE3D27D4EB4Full;
    k->head = a;
    k->tail = b;
    k->len = (uint32_t)len;
    k->hash = (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* Index of <key> among the table's names by its hash, or -1. */
static inline int ntab_hfind(const struct ntab *t, const char *key)
{
    struct nkey k;
    name_key(key, &k);
    for (uint32_t i = k.hash & t->mask;; i = (i + 1) & t->mask) {
        int32_t x = t->slots[i];
        if (x < 0)
            return -1;
        if (t->hashes[x] == k.hash && t->lens[x] == k.len && t->heads[x] == k.head &&
            t->tails[x] == k.tail && (k.len <= 16 || !memcmp(t->names[x] + 8, key + 8, k.len - 16)))
            return x;
    }
}

#define NTAB_SCAN 6 /* tables of at most this many names are searched without hashing */
_Static_assert(NTAB_SCAN <= (int)sizeof ((struct ntab *)0)->first, "ntab.first holds the scanned names");

/* ntab_find for tables of more than NTAB_SCAN names (kept out of line, so that the scan of
 * small tables inlines without saving registers for it). */
static __attribute__((noinline)) int ntab_find_hashed(const struct ntab *t, const char *key)
{
    if (t->pslots) {
        size_t len = strlen(key);
        int32_t x = t->pslots[(pmix(key, len) * t->pseed) >> t->pshift];
        if (x < 0 || t->lens[x] != len)
            return -1;
        /* both strings have len + 1 readable bytes: compare them in words */
        const char *nm = t->names[x];
        if (len >= 8) {
            uint64_t a, b, p, q;
            memcpy(&a, key, 8);
            memcpy(&p, nm, 8);
            memcpy(&b, key + len - 8, 8);
            memcpy(&q, nm + len - 8, 8);
            return a == p && b == q && (len <= 16 || !memcmp(key + 8, nm + 8, len - 16)) ? x : -1;
        }
        if (len >= 4) {
            uint32_t a, b, p, q;
            memcpy(&a, key, 4);
            memcpy(&p, nm, 4);
            memcpy(&b, key + len - 4, 4);
            memcpy(&q, nm + len - 4, 4);
            return a == p && b == q ? x : -1;
        }
        for (size_t i = 0; i < len; i++)
            if (key[i] != nm[i])
                return -1;
        return x;
    }
    return ntab_hfind(t, key);
}

/* The first-bytes table of struct ntab (cand) over <n> names (n <= CAND_MAX): returns a new
 * one (256 bytes, or 512 when names share a first byte), or NULL. */
static unsigned char *cand_build(const char *const *names, int n)
{
    /* the second table is read only after a first byte several names share */
    uint64_t seen[4] = {0};
    bool shared = false;
    for (int j = 0; j < n; j++) {
        unsigned char b = (unsigned char)names[j][0];
        shared = shared || (seen[b >> 6] >> (b & 63) & 1);
        seen[b >> 6] |= (uint64_t)1 << (b & 63);
    }
    unsigned char *cand = forge_calloc(shared ? 512 : 256, 1);
    if (!cand)
        return NULL;
    for (int j = 0; j < n; j++) {
        const unsigned char *u = (const unsigned char *)names[j];
        unsigned char *c = &cand[u[0]];
        *c = *c ? CAND_SCAN : (unsigned char)(j + 1);
        if (!u[0] || !shared)
            continue; /* keys that reach the second table are not empty */
        c = &cand[cand2_of(u[0], u[1])];
        *c = *c ? CAND_SCAN : (unsigned char)(j + 1);
    }
    return cand;
}

/* Index of <key> among the table's names, or -1. */
static inline int ntab_find(const struct ntab *t, const char *key)
{
    /* the one name that starts with the key's first byte, if only one does */
    unsigned char k0 = (unsigned char)key[0];
    int c = t->cand[k0];
    if (c != CAND_SCAN) {
        if (!c)
            return -1;
        return pname_eq(key, t->pads[c - 1]) ? c - 1 : -1;
    }
    if (k0 && (c = t->cand[cand2_of(k0, (unsigned char)key[1])]) != CAND_SCAN) {
        if (!c)
            return -1;
        return pname_eq(key, t->pads[c - 1]) ? c - 1 : -1;
    }
    if (t->n > NTAB_SCAN)
        return ntab_find_hashed(t, key);
    /* a few names: compared in turn (the first of duplicates wins, as in the table) */
    for (int j = 0; j < t->n; j++) {
        if (t->first[j] == k0 && pname_eq(key, t->pads[j]))
            return j;
    }
    return -1;
}

static void ntab_free(struct ntab *t)
{
    if (t->cand != cand_all && t->cand != cand_none)
        forge_free((void *)t->cand);
    if (t->pads)
        forge_free((char *)t->pads[0] - 8);
    forge_free(t->pads);
    forge_free(t->pslots);
    forge_free(t->slots);
    forge_free(t->hashes);
    forge_free(t->lens);
    forge_free(t->heads);
    forge_free(t->tails);
}

/* Builds a table over <names> (borrowed, <n> of them). Returns 0 or FORGE_ENOMEM. */
static int ntab_build(struct ntab *t, const char **names, int n)
{
    uint32_t size = 8;
    while (size < (uint32_t)n * 2 + 2)
        size *= 2;
    t->mask = size - 1;
    t->names = names;
    t->n = n;
    for (int j = 0; j < n && j < (int)sizeof t->first; j++)
        t->first[j] = (unsigned char)names[j][0];
    if (!n) {
        t->cand = cand_none;
    } else if (n <= CAND_MAX) {
        if (!(t->cand = cand_build(names, n)))
            return FORGE_ENOMEM;
    } else {
        t->cand = cand_all;
    }
    t->slots = forge_malloc(size * sizeof *t->slots);
    t->hashes = forge_malloc(((size_t)n + 1) * sizeof *t->hashes);
    t->lens = forge_malloc(((size_t)n + 1) * sizeof *t->lens);
    t->heads = forge_malloc(((size_t)n + 1) * sizeof *t->heads);
    t->tails = forge_malloc(((size_t)n + 1) * sizeof *t->tails);
    if (!t->slots || !t->hashes || !t->lens || !t->heads || !t->tails)
        return FORGE_ENOMEM;
    if (n) {
        size_t total = 0;
        for (int j = 0; j < n; j++)
            total += pname_size(strlen(names[j]));
        char *blob = forge_malloc(total);
        if (!blob || !(t->pads = forge_malloc((size_t)n * sizeof *t->pads))) {
            forge_free(blob);
            return FORGE_ENOMEM;
        }
        for (int j = 0; j < n; j++) {
            size_t len = strlen(names[j]);
            t->pads[j] = pname_put(blob, names[j], len);
            blob += pname_size(len);
        }
    }
    for (uint32_t i = 0; i < size; i++)
        t->slots[i] = -1;
    for (int j = 0; j < n; j++) {
        struct nkey k;
        name_key(names[j], &k);
        t->hashes[j] = k.hash;
        t->lens[j] = k.len;
        t->heads[j] = k.head;
        t->tails[j] = k.tail;
        if (ntab_hfind(t, names[j]) >= 0)
            continue; /* a duplicate name: the first wins */
        uint32_t i = t->hashes[j] & t->mask;
        while (t->slots[i] >= 0)
            i = (i + 1) & t->mask;
        t->slots[i] = j;
    }
    /* A perfect hash over the distinct names (the first of duplicates wins): multipliers are
     * tried for tables of 2 to 16 slots per name; names too alike for it keep the table above. */
    if (n == 0 || n > 4096)
        return 0;
    int bits = 1;
    while ((1 << bits) < 2 * n)
        bits++;
    uint32_t *mixes = forge_malloc((size_t)n * sizeof *mixes);
    if (!mixes)
        return FORGE_ENOMEM;
    for (int j = 0; j < n; j++)
        mixes[j] = pmix(names[j], t->lens[j]);
    uint64_t rng = 0x853C49E6748FEA9Bull;
    for (int b = bits; b <= bits + 3 && !t->pslots; b++) {
        int32_t *ps = forge_malloc(((size_t)1 << b) * sizeof *ps);
        if (!ps) {
            forge_free(mixes);
            return FORGE_ENOMEM;
        }
        for (int attempt = 0; attempt < 200; attempt++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t seed = (uint32_t)(rng >> 32) | 1;
            for (size_t i = 0; i < ((size_t)1 << b); i++)
                ps[i] = -1;
            bool ok = true;
            for (int j = 0; j < n && ok; j++) {
                if (ntab_hfind(t, names[j]) != j)
                    continue; /* a duplicate */
                uint32_t h = (mixes[j] * seed) >> (32 - b);
                if (ps[h] >= 0)
                    ok = false;
                else
                    ps[h] = j;
            }
            if (ok) {
                t->pslots = ps;
                t->pseed = seed;
                t->pshift = 32 - b;
                break;
            }
        }
        if (!t->pslots)
            forge_free(ps);
    }
    forge_free(mixes);
    return 0;
}

enum op {
    OP_TYPE, OP_ENUM, OP_CONST, OP_MULTOF, OP_MAX, OP_XMAX, OP_MIN, OP_XMIN, OP_MAXLEN,
    OP_MINLEN, OP_PATTERN, OP_FORMAT, OP_MAXITEMS, OP_MINITEMS, OP_UNIQUE, OP_PREFIX, OP_ITEMS,
    OP_ADDITEMS, OP_CONTAINS, OP_MAXPROPS, OP_MINPROPS, OP_REQUIRED, OP_PROPS, OP_PATPROPS,
    OP_ADDPROPS, OP_PROPNAMES, OP_DEPREQ, OP_DEPSCHEMAS, OP_DEPS, OP_ALLOF, OP_ANYOF, OP_ONEOF,
    OP_NOT, OP_IF, OP_REF, OP_DYNREF, OP_RECREF, OP_UNEVALPROPS, OP_UNEVALITEMS,
};

/* Type bits. */
enum { T_NULL = 1, T_BOOL = 2, T_OBJECT = 4, T_ARRAY = 8, T_NUMBER = 16, T_STRING = 32,
       T_INTEGER = 64 };

/* Kinds of instance, for type dispatch. */
enum { K_NULL, K_BOOL, K_NUMBER, K_STRING, K_ARRAY, K_OBJECT };

/* The kind of each cJSON type (Raw and Invalid are K_OBJECT, as Object is): every byte set,
 * so that kind_of is one load. */
_Static_assert(cJSON_False == 1 && cJSON_True == 2 && cJSON_NULL == 4 && cJSON_Number == 8 &&
               cJSON_String == 16 && cJSON_Array == 32, "cJSON's type bits");
static const unsigned char kinds_of[256] = {
    [0] = K_OBJECT, [1 ... 2] = K_BOOL, [3] = K_OBJECT, [4] = K_NULL, [5 ... 7] = K_OBJECT,
    [8] = K_NUMBER, [9 ... 15] = K_OBJECT, [16] = K_STRING, [17 ... 31] = K_OBJECT,
    [32] = K_ARRAY, [33 ... 255] = K_OBJECT,
};

static inline int kind_of(const cJSON *v)
{
    return kinds_of[v->type & 0xFF];
}

/* Vocabulary bits (2019-09 and later); older drafts have all. */
enum { V_CORE = 1, V_APPLICATOR = 2, V_VALIDATION = 4, V_UNEVALUATED = 8, V_FORMAT = 16,
       V_ALL = 31, V_FORMAT_ASSERT = 32 /* the format-assertion vocabulary: formats asserted */ };

struct node;

/* Instructions of the verdict walk's flat form (built by lower, run by fnode and fleaf): one
 * for each keyword of a node's per-kind list, in its order, or for adjacent bounds folded into
 * one; operands inline. FI_TYPE to FI_KW are "pure": they read the instance alone (fpure). */
enum fop {
    FI_END,    /* the end of the list */
    FI_TYPE,   /* type_ok(t, x); t = 0: always fails */
    FI_NUM,    /* a number in [lo, hi] (lo excluded when t & 1, hi when t & 2) */
    FI_MULOF,  /* a number multiple of lo */
    FI_SLEN,   /* a string of lo to hi characters */
    FI_NONEMPTY, /* a string of at least one character */
    FI_PAT,    /* a string matching the pattern p (negative: a match limit) */
    FI_ENUMS,  /* a string among the n padded strings (pname_put) at p: enum w's table's */
    FI_ENUMD,  /* a number among the n numbers at p */
    FI_CONSTS, /* the padded string p */
    FI_REQ1,   /* an object with a member named p (padded) */
    FI_REQ,    /* an object with every name of "required" w */
    FI_REQN,   /* an object with each of the n padded names at p (a few) */
    FI_COUNT,  /* an array of lo to hi items */
    FI_PCOUNT, /* an object of lo to hi members */
    FI_UNIQUE, /* an array of distinct items (p: a name table that tells its strings apart, see
                * unique_table, or NULL) */
    FI_DEPREQ, /* dependentRequired w: the names each present member's array lists are there */
    FI_KW,     /* keyword w: quick_pass, else (not in leaves) fkw */
    FI_PROPS,  /* properties w, with its fused siblings */
    FI_ITEMS,  /* items or additionalItems w: the items from index n on against node p */
    FI_REF,    /* node p, on the same instance */
    FI_ANYOF,  /* anyOf or oneOf w */
    FI_ALLOF,  /* allOf w */
    FI_NOT,    /* not: node p */
    FI_NOTL,   /* not: the leaf p, whose flat list is exact (lexact): its verdict inverted */
    FI_IF,     /* if w, with its then and else */
    /* if w on an object, whose subschema is "properties" of one name alone (the padded name)
     * with a leaf p whose flat list is exact: that name's members against the leaf decide the
     * branch (a discriminator: "if": {"properties": {"kind": {"const": "x"}}}) */
    FI_IFM,
    FI_PNAMES, /* propertyNames: each member's name against node p */
    /* the items of an array all strings of the enum table p (its leaf's one instruction for
     * strings), none twice: the items and uniqueItems instructions just after it then pass
     * both, and are skipped; else they run (see enum_set) */
    FI_ENUMSET,
};

struct fi {
    unsigned char op, t;
    bool last; /* the last instruction of its list (FI_END only in an empty list) */
    int n;
    double lo, hi;
    const void *p;
    const struct kw *w;
    union {
        const unsigned char *cand; /* FI_ENUMS: the strings' table by first bytes (see ntab;
                                    * NULL for an empty enum) */
        const char *name;          /* FI_IFM: the padded name */
    };
};

/* The name of every $ref keyword, and of every items keyword whose subschema starts a region,
 * one string each in one array: a keyword link whose segment is one of them is the first member
 * of a struct sitelink, which names the keyword (and the item's index: see ref_sites). */
static const char site_names[] = "$ref\0items";
static const char *const ref_name = site_names, *const items_name = site_names + 5;
/* Whether the segment <seg> of a keyword link is a site's name (a struct sitelink's). */
static inline bool site_name(const char *seg)
{
    return (uintptr_t)seg - (uintptr_t)site_names <= 5;
}

struct kw {
    int op;
    const char *name;          /* the keyword, for locations (borrowed from the schema copy) */
    /* the keyword's and each map key's length + 1 as a location segment (0: it holds "~" or
     * "/" and is measured when written); the walk passes them down in its klocs */
    long seglen;
    long *seglens;
    /* an error's keyword location and absolute one when the walk reached the node through
     * subschemas alone (kptr + "/" + name, abs + "/" + name), or NULL */
    const char *kloc, *kabs;
    size_t kloc_len, kabs_len;
    /* with kloc, its node's iptr when it has one: an error's instance location then (reached
     * through subschemas alone), or NULL; with it, its node's rbase */
    const char *iloc;
    size_t iloc_len;
    const struct node *rbase;
    /* iloc is from a region's start other than the root (a reference's target, an items'
     * subschema), every way into which ref_sites may follow */
    bool rref;
    double num, num2;          /* limits; contains: min/max */
    const cJSON *json;         /* enum, const, required, dependentRequired (borrowed) */
    struct node *sub;          /* single subschema; if: the condition */
    struct node *then_, *else_;
    struct node **subs;        /* arrays and maps of subschemas */
    const char **names;        /* map keys (borrowed) */
    const cJSON **arrs;        /* dependencies: string arrays where subs[i] is NULL */
    void **res;                /* compiled patterns (patternProperties) */
    void *re;                  /* pattern */
    int n;
    int fmt;
    int ntuple;                /* additionalItems: length of the sibling items array (-1: none) */
    const struct kw *props, *patprops; /* additionalProperties: siblings */
    const char *anchor;        /* $dynamicRef: the fragment when it names an anchor */
    struct ntab tab;           /* properties, required: names; slots NULL when not built */
    /* properties may do the work of its siblings required and additionalProperties in its one
     * pass over the members (each name hashed once); the siblings are then marked fused */
    bool fused;
    const struct kw *freq, *fadd;
    uint64_t *reqbits;         /* per property: the bits of the required names it satisfies
                                * (properties: never NULL, see fuse) */
    bool all_strings;          /* enum: every value is a string */
    const char *text;          /* enum, const: the value(s) as short JSON, for messages */
    size_t text_len;
    const char *ltext;         /* a bound's num as messages write it (String(num)), or NULL */
    size_t ltext_len;
    /* enum, const, pattern, format: the whole message of their error (its format kmsgf, whose
     * one operand is the text above); anyOf, oneOf: that of none matching (the count of
     * subschemas); made at compile time, rendering points at it */
    const char *kmsg;
    const struct efmt *kmsgf;
    size_t kmsg_len;
    /* required (of at most REQ_MADE names): the message of each name missing, made at
     * compile time (FAIL_MISSING), or NULL */
    struct made { const char *s; size_t len; } *reqmsgs;
    /* the bounds (shows_bound): the end of their message after the instance's figure (the
     * literal, ltext, the literal after it) when their format is ktailf, made at compile time */
    const char *ktail;
    const struct efmt *ktailf;
    size_t ktail_len;
    const char *ref;           /* the reference text, for messages */
    /* anyOf, oneOf: a discriminator. Branch i (through $ref-only nodes) has properties/<disc>
     * with "const": discv[i] (a padded string; NULL: no such const), so an object whose member <disc>
     * is not that string certainly fails branch i, which is then not evaluated. */
    const char *disc;
    const char **discv;
};

struct dynanchor {
    const char *name;
    struct node *node;
    struct dynanchor *next;
};

struct node {
    const cJSON *json;
    bool is_bool, bval;
    int draft;
    unsigned vocab;
    unsigned types;        /* 0: no type keyword */
    bool has_uneval;       /* has unevaluatedProperties/Items: collects annotations */
    bool leaf;             /* only keywords about the value itself (no subschemas, no refs) */
    bool lexact;           /* a leaf whose quick tests (leaf_pass_rec, its flat list) are exact:
                            * false means invalid (no limit, no keyword they leave to the full
                            * evaluation) */
    bool recursive_anchor; /* $recursiveAnchor: true */
    /* a node of one "$ref" and nothing else, in a schema without dynamic references: entered
     * by vnode_body without the keyword loop */
    const struct kw *refonly;
    /* the verdict walk's list for objects is one FI_PROPS: fchild enters it by fpnode */
    bool pnode;
    const char *dyn_anchor;
    struct dynanchor *dynanchors; /* on resource roots: every $dynamicAnchor in the resource */
    struct node *resource; /* the root of the schema resource this node belongs to */
    char *abs;             /* absolute location: base URI '#' JSON pointer, or NULL */
    size_t abs_len;
    char *kptr;            /* JSON pointer from the root schema (see cctx), or NULL */
    char *iptr;            /* the instance location it applies to, when fixed (see cctx), or NULL */
    /* the node iptr starts from (see ref_sites): the root schema, a node compiled as a
     * reference's target, or an items' subschema; kptr starts from the nearest of the first
     * two (an items' subschema continues its parent's) */
    const struct node *rbase;
    /* a region's start that some reference or items reaches from a place whose locations the
     * schema does not fix (under additionalProperties, a $dynamicRef...): its region's errors
     * are not tried by ref_sites */
    bool ref_mixed;
    bool abs_shown;        /* abs is reported (not the internal URI of a schema without one) */
    struct kw *kws;
    int nkws;
    /* Type dispatch: per kind of instance (K_*), the keywords that can apply to it, in
     * evaluation order; fused keywords and a "type" the kind always satisfies are left out.
     * One allocation (kinds[0]). */
    const struct kw **kinds[6];
    int nkinds[6];
    /* A leaf's keywords folded into one check (leaf_fast), when lspec: the type bits (0: no
     * type), numeric bounds (infinite when absent), multipleOf (0: none), length bounds in
     * characters, the pattern, and the few other keywords, which go through quick_pass. */
    bool lspec, lnum, lstr;
    unsigned ltypes;
    double nmin, nxmin, nmax, nxmax, nmul, slo, shi;
    void *lre;
    const struct kw *lrest[4];
    int nlrest;
    /* The verdict walk's flat form (see lower): per kind of instance, the keywords of kinds[]
     * as instructions, ended by FI_END; NULL on boolean schemas, nodes that collect
     * annotations and schemas with dynamic references. One allocation (fprog). */
    const struct fi *fk[6];
    struct fi *fprog;
};

/* The registry of identified locations: resources ($id, document roots) and anchors. */
struct ent {
    char *uri;       /* absolute URI, with '#anchor' for anchors */
    const cJSON *json;
    char *parent_base; /* the base in effect before json's own $id */
    char *ptr;       /* JSON pointer of json within the parent resource */
    int draft;
    unsigned vocab;
    char *resuri;    /* anchors: the URI of the resource holding them */
    bool dynamic;    /* a $dynamicAnchor */
    bool resource;
};

struct pending {
    struct node **slot;
    char *uri;
    const char *ref;
    char *where;
};

/* A hash map from addresses to addresses. */
struct pmap {
    const void **keys;
    void **vals;
    size_t cap, count;
};

struct forge_schema {
    struct forge_schema_opts opts;
    struct forge_schema_refdir *refdirs;
    cJSON **docs;
    int ndocs, capdocs;
    struct ent *ents;
    int nents, capents;
    struct node **nodes; /* all nodes, for freeing */
    int nnodes, capnodes;
    struct pmap nodemap; /* json -> its node */
    struct pmap objtabs; /* a large object $ref's JSON pointers walk through -> its names
                            (struct forge_json_names): n references into a $defs of n
                            entries are n lookups, not n scans */
    struct forge_strtab enttab; /* ents[i].uri -> i */
    struct pending *pend;
    int npend, cappend;
    struct node *root;
    char **strs; /* owned strings */
    int nstrs, capstrs;
    /* some member name in a document has "~" or "/": keyword locations (built from names in
     * the documents) then need escaping looked for; without, they are copied as they are */
    bool escaped_names;
    /* some node uses $dynamicRef or $recursiveRef: results then depend on the dynamic scope and
     * are not memoised */
    bool dynamic;
    /* first-error checks with an arena run the verdict walk and replay its trail (see replay):
     * for schemas with subschemas below their top level (at least TRAIL_NODES nodes that are
     * not leaves), where a failure usually comes after a valid part that the verdict walk
     * checks faster; in a flat or tiny schema the failing keyword is near the top, replaying
     * it repeats most of the walk, and the recording walk runs from the root instead */
    bool trail;
};

/* ---------- small helpers ---------- */

static int grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *p = forge_realloc(*arr, (size_t)nc * elem);
    if (!p)
        return FORGE_ENOMEM;
    *arr = p;
    *cap = nc;
    return 0;
}

static char *keep(struct forge_schema *s, char *str)
{
    if (!str)
        return NULL;
    if (grow((void **)&s->strs, &s->capstrs, s->nstrs + 1, sizeof *s->strs)) {
        forge_free(str);
        return NULL;
    }
    s->strs[s->nstrs++] = str;
    return str;
}

/* A padded copy of <name> (pname_put), kept with the schema; NULL when out of memory. */
static const char *pname_keep(struct forge_schema *s, const char *name)
{
    size_t len = strlen(name);
    char *block = keep(s, forge_malloc(pname_size(len)));
    return block ? pname_put(block, name, len) : NULL;
}

static char *xstrcat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *r = forge_malloc(la + lb + lc + 1);
    if (!r)
        return NULL;
    memcpy(r, a, la);
    memcpy(r + la, b, lb);
    memcpy(r + la + lb, c, lc + 1);
    return r;
}

/* Appends "/" + <seg> escaped as a JSON pointer token. */
static int ptr_add(struct forge_buf *b, const char *seg)
{
    int rc = forge_buf_addc(b, '/');
    const char *p = seg;
    while (!rc && *p) {
        size_t run = strcspn(p, "~/");
        if (run)
            rc = forge_buf_add(b, p, run);
        p += run;
        if (!rc && *p) {
            rc = forge_buf_adds(b, *p == '~' ? "~0" : "~1");
            p++;
        }
    }
    return rc;
}

static char *ptr_join(const char *ptr, const char *seg)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (forge_buf_adds(&b, ptr) || ptr_add(&b, seg)) {
        forge_buf_free(&b);
        return NULL;
    }
    return forge_buf_take(&b);
}

static char *ptr_joini(const char *ptr, int i)
{
    char num[24];
    snprintf(num, sizeof num, "%d", i);
    return ptr_join(ptr, num);
}

/* ---------- URIs (RFC 3986 reference resolution) ---------- */

struct uri {
    const char *scheme, *auth, *path, *query, *frag;
    size_t ls, la, lp, lq, lf;
    bool has_scheme, has_auth, has_query, has_frag;
};

static void uri_parse(const char *s, struct uri *u)
{
    memset(u, 0, sizeof *u);
    const char *p = s;
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
        const char *q = p;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
               *q == '+' || *q == '-' || *q == '.')
            q++;
        if (*q == ':') {
            u->has_scheme = true;
            u->scheme = p;
            u->ls = (size_t)(q - p);
            p = q + 1;
        }
    }
    if (p[0] == '/' && p[1] == '/') {
        p += 2;
        u->has_auth = true;
        u->auth = p;
        while (*p && *p != '/' && *p != '?' && *p != '#')
            p++;
        u->la = (size_t)(p - u->auth);
    }
    u->path = p;
    while (*p && *p != '?' && *p != '#')
        p++;
    u->lp = (size_t)(p - u->path);
    if (*p == '?') {
        u->has_query = true;
        u->query = ++p;
        while (*p && *p != '#')
            p++;
        u->lq = (size_t)(p - u->query);
    }
    if (*p == '#') {
        u->has_frag = true;
        u->frag = p + 1;
        u->lf = strlen(u->frag);
    }
}

/* RFC 3986 5.2.4, into <out> (at least n+1 bytes). */
static void remove_dots(const char *in, size_t n, char *out)
{
    size_t o = 0, i = 0;
    while (i < n) {
        const char *p = in + i;
        size_t left = n - i;
        if (left >= 3 && !strncmp(p, "../", 3)) { i += 3; continue; }
        if (left >= 2 && !strncmp(p, "./", 2)) { i += 2; continue; }
        if (left >= 3 && !strncmp(p, "/./", 3)) { i += 2; continue; }
        if (left == 2 && !strncmp(p, "/.", 2)) { out[o++] = '/'; i += 2; continue; }
        if ((left >= 4 && !strncmp(p, "/../", 4)) || (left == 3 && !strncmp(p, "/..", 3))) {
            i += 3;
            if (left == 3) {
                while (o > 0 && out[o - 1] != '/')
                    o--;
                if (o > 0)
                    o--;
                out[o++] = '/';
                continue;
            }
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
            continue;
        }
        if ((left == 1 && *p == '.') || (left == 2 && !strncmp(p, "..", 2))) { i = n; continue; }
        /* move the first segment */
        size_t j = 0;
        if (p[0] == '/')
            j = 1;
        while (j < left && p[j] != '/')
            j++;
        memcpy(out + o, p, j);
        o += j;
        i += j;
    }
    out[o] = 0;
}

/* Resolves <ref> against <base>; returns a new string without an empty trailing '#'. */
static char *uri_resolve(const char *base, const char *ref)
{
    struct uri b, r;
    uri_parse(base ? base : "", &b);
    uri_parse(ref, &r);
    struct forge_buf out;
    forge_buf_init(&out, 0);
    size_t cap = strlen(base ? base : "") + strlen(ref) + 4;
    char *tmp = forge_malloc(cap * 2);
    char *merged = forge_malloc(cap * 2);
    int rc = (!tmp || !merged) ? FORGE_ENOMEM : 0;
    const struct uri *S = &r, *A = &r, *Q = &r;
    const char *path = "";
    size_t lpath = 0;
    if (rc)
        goto out;
    if (r.has_scheme) {
        remove_dots(r.path, r.lp, tmp);
        path = tmp;
        lpath = strlen(tmp);
    } else {
        S = &b;
        if (r.has_auth) {
            remove_dots(r.path, r.lp, tmp);
            path = tmp;
            lpath = strlen(tmp);
        } else {
            A = &b;
            if (r.lp == 0) {
                path = b.path;
                lpath = b.lp;
                if (!r.has_query)
                    Q = &b;
            } else {
                if (r.path[0] == '/') {
                    remove_dots(r.path, r.lp, tmp);
                } else {
                    size_t m = 0;
                    if (b.has_auth && b.lp == 0) {
                        merged[m++] = '/';
                    } else {
                        const char *slash = NULL;
                        for (size_t i = 0; i < b.lp; i++)
                            if (b.path[i] == '/')
                                slash = b.path + i;
                        if (slash) {
                            memcpy(merged, b.path, (size_t)(slash - b.path) + 1);
                            m = (size_t)(slash - b.path) + 1;
                        }
                    }
                    memcpy(merged + m, r.path, r.lp);
                    m += r.lp;
                    remove_dots(merged, m, tmp);
                    /* a relative base without a leading slash: keep it relative */
                }
                path = tmp;
                lpath = strlen(tmp);
            }
        }
    }
    if (S->has_scheme) {
        rc = rc ? rc : forge_buf_add(&out, S->scheme, S->ls);
        rc = rc ? rc : forge_buf_addc(&out, ':');
    }
    if (A->has_auth) {
        rc = rc ? rc : forge_buf_adds(&out, "//");
        rc = rc ? rc : forge_buf_add(&out, A->auth, A->la);
    }
    rc = rc ? rc : forge_buf_add(&out, path, lpath);
    if (Q->has_query) {
        rc = rc ? rc : forge_buf_addc(&out, '?');
        rc = rc ? rc : forge_buf_add(&out, Q->query, Q->lq);
    }
    if (r.has_frag && r.lf) {
        rc = rc ? rc : forge_buf_addc(&out, '#');
        rc = rc ? rc : forge_buf_add(&out, r.frag, r.lf);
    }
    rc = rc ? rc : forge_buf_adds(&out, "");
out:
    forge_free(tmp);
    forge_free(merged);
    if (rc) {
        forge_buf_free(&out);
        return NULL;
    }
    return forge_buf_take(&out);
}

/* Percent-decodes <s> into a new string. */
static char *pct_decode(const char *s, size_t n)
{
    char *r = forge_malloc(n + 1);
    if (!r)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
            isxdigit((unsigned char)s[i + 2])) {
            char h[3] = {s[i + 1], s[i + 2], 0};
            r[o++] = (char)strtol(h, NULL, 16);
            i += 2;
        } else {
            r[o++] = s[i];
        }
    }
    r[o] = 0;
    return r;
}

/* ---------- drafts ---------- */

static int draft_of_uri(const char *u)
{
    static const struct { const char *uri; int draft; } known[] = {
        {"http://json-schema.org/draft-04/schema", FORGE_DRAFT_4},
        {"http://json-schema.org/draft-06/schema", FORGE_DRAFT_6},
        {"http://json-schema.org/draft-07/schema", FORGE_DRAFT_7},
        {"https://json-schema.org/draft/2019-09/schema", FORGE_DRAFT_2019_09},
        {"https://json-schema.org/draft/2020-12/schema", FORGE_DRAFT_2020_12},
    };
    size_t n = strlen(u);
    if (n && u[n - 1] == '#')
        n--;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        const char *k = known[i].uri;
        size_t kl = strlen(k);
        if (n == kl && !strncmp(u, k, n))
            return known[i].draft;
        /* http and https spellings of the same URI */
        if (!strncmp(k, "http://", 7) && n == kl + 1 && !strncmp(u, "https://", 8) &&
            !strncmp(u + 8, k + 7, kl - 7))
            return known[i].draft;
        if (!strncmp(k, "https://", 8) && n + 1 == kl && !strncmp(u, "http://", 7) &&
            !strncmp(u + 7, k + 8, kl - 8))
            return known[i].draft;
    }
    return 0;
}

static const char *id_key(int draft)
{
    return draft == FORGE_DRAFT_4 ? "id" : "$id";
}

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* ---------- registry and documents ---------- */

static struct ent *find_ent(struct forge_schema *s, const char *uri)
{
    long i = forge_strtab_find(&s->enttab, uri);
    return i >= 0 ? &s->ents[i] : NULL;
}

static int add_ent(struct forge_schema *s, const char *uri, const cJSON *json, const char *parent_base,
                   const char *ptr, int draft, unsigned vocab, bool resource, bool dynamic,
                   const char *resuri)
{
    struct ent *e = find_ent(s, uri);
    if (e) {
        if (e->json == json) {
            e->dynamic |= dynamic;
            return 0;
        }
        return 0; /* first definition wins */
    }
    if (grow((void **)&s->ents, &s->capents, s->nents + 1, sizeof *s->ents))
        return FORGE_ENOMEM;
    e = &s->ents[s->nents];
    memset(e, 0, sizeof *e);
    e->uri = forge_strdup(uri);
    e->parent_base = forge_strdup(parent_base ? parent_base : "");
    e->ptr = forge_strdup(ptr);
    e->resuri = resuri ? forge_strdup(resuri) : NULL;
    if (!e->uri || !e->parent_base || !e->ptr || (resuri && !e->resuri) ||
        forge_strtab_add(&s->enttab, e->uri) != s->nents) {
        forge_free(e->resuri);
        forge_free(e->uri);
        forge_free(e->parent_base);
        forge_free(e->ptr);
        return FORGE_ENOMEM;
    }
    e->json = json;
    e->draft = draft;
    e->vocab = vocab;
    e->resource = resource;
    e->dynamic = dynamic;
    s->nents++;
    return 0;
}

static int load_doc(struct forge_schema *s, const char *uri, struct forge_err *err);

/* The vocabularies a meta-schema declares (bits), loading it if needed. */
static unsigned vocab_of_meta(struct forge_schema *s, const char *metauri, int *draft,
                              struct forge_err *err)
{
    char *u = uri_resolve("", metauri);
    unsigned v = V_ALL;
    if (!u)
        return V_ALL;
    struct ent *e = find_ent(s, u);
    if (!e && load_doc(s, u, err) == 0)
        e = find_ent(s, u);
    forge_free(u);
    if (!e || !cJSON_IsObject(e->json))
        return V_ALL;
    const cJSON *ms = get(e->json, "$schema");
    if (cJSON_IsString(ms) && draft_of_uri(ms->valuestring))
        *draft = draft_of_uri(ms->valuestring);
    const cJSON *voc = get(e->json, "$vocabulary");
    if (!cJSON_IsObject(voc))
        return V_ALL;
    v = 0;
    for (const cJSON *c = voc->child; c; c = c->next) {
        const char *k = c->string;
        const char *slash = strrchr(k, '/');
        const char *name = slash ? slash + 1 : k;
        if (!strcmp(name, "core"))
            v |= V_CORE;
        else if (!strcmp(name, "applicator"))
            v |= V_APPLICATOR;
        else if (!strcmp(name, "validation"))
            v |= V_VALIDATION;
        else if (!strcmp(name, "unevaluated"))
            v |= V_UNEVALUATED;
        else if (!strcmp(name, "format-assertion"))
            v |= V_FORMAT | V_FORMAT_ASSERT;
        else if (!strncmp(name, "format", 6))
            v |= V_FORMAT;
    }
    /* 2019-09 has unevaluated* inside the applicator vocabulary */
    if (*draft == FORGE_DRAFT_2019_09 && (v & V_APPLICATOR))
        v |= V_UNEVALUATED;
    return v;
}

/* Applies $schema of resource root <o>: sets *draft and *vocab. */
static void apply_dialect(struct forge_schema *s, const cJSON *o, int *draft, unsigned *vocab,
                          struct forge_err *err)
{
    const cJSON *ms = get(o, "$schema");
    if (!cJSON_IsString(ms))
        return;
    int d = draft_of_uri(ms->valuestring);
    if (d) {
        *draft = d;
        *vocab = V_ALL;
        return;
    }
    int md = *draft;
    struct forge_err e2;
    forge_err_clear(&e2);
    *vocab = vocab_of_meta(s, ms->valuestring, &md, &e2);
    *draft = md;
    (void)err;
}

enum { SK_NONE, SK_ONE, SK_ARRAY, SK_MAP, SK_ITEMS, SK_DEPS };

static int subschema_kind(const char *k, int draft)
{
    static const struct { const char *k; int kind; int from, to; } tab[] = {
        {"additionalItems", SK_ONE, FORGE_DRAFT_4, FORGE_DRAFT_2019_09},
        {"additionalProperties", SK_ONE, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"contains", SK_ONE, FORGE_DRAFT_6, FORGE_DRAFT_2020_12},
        {"not", SK_ONE, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"propertyNames", SK_ONE, FORGE_DRAFT_6, FORGE_DRAFT_2020_12},
        {"if", SK_ONE, FORGE_DRAFT_7, FORGE_DRAFT_2020_12},
        {"then", SK_ONE, FORGE_DRAFT_7, FORGE_DRAFT_2020_12},
        {"else", SK_ONE, FORGE_DRAFT_7, FORGE_DRAFT_2020_12},
        {"unevaluatedItems", SK_ONE, FORGE_DRAFT_2019_09, FORGE_DRAFT_2020_12},
        {"unevaluatedProperties", SK_ONE, FORGE_DRAFT_2019_09, FORGE_DRAFT_2020_12},
        {"contentSchema", SK_ONE, FORGE_DRAFT_2019_09, FORGE_DRAFT_2020_12},
        {"items", SK_ITEMS, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"allOf", SK_ARRAY, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"anyOf", SK_ARRAY, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"oneOf", SK_ARRAY, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"prefixItems", SK_ARRAY, FORGE_DRAFT_2020_12, FORGE_DRAFT_2020_12},
        {"properties", SK_MAP, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"patternProperties", SK_MAP, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"definitions", SK_MAP, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
        {"$defs", SK_MAP, FORGE_DRAFT_2019_09, FORGE_DRAFT_2020_12},
        {"dependentSchemas", SK_MAP, FORGE_DRAFT_2019_09, FORGE_DRAFT_2020_12},
        {"dependencies", SK_DEPS, FORGE_DRAFT_4, FORGE_DRAFT_2020_12},
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (!strcmp(tab[i].k, k))
            return draft >= tab[i].from && draft <= tab[i].to ? tab[i].kind : SK_NONE;
    return SK_NONE;
}

static bool ref_overrides(int draft, const cJSON *o)
{
    return draft <= FORGE_DRAFT_7 && cJSON_IsString(get(o, "$ref"));
}

/* Registers every $id and anchor under <json>. */
static int scan(struct forge_schema *s, const cJSON *json, const char *base, int draft,
                unsigned vocab, const char *ptr, int depth, struct forge_err *err)
{
    if (!cJSON_IsObject(json) || depth > 200)
        return 0;
    int rc = 0;
    char *mybase = NULL;
    const char *pbase = base;
    const cJSON *id = get(json, id_key(draft));
    if (!cJSON_IsString(id) && draft >= FORGE_DRAFT_6 && draft <= FORGE_DRAFT_7)
        id = NULL;
    if (cJSON_IsString(id) && !ref_overrides(draft, json)) {
        if (draft <= FORGE_DRAFT_7 && id->valuestring[0] == '#') {
            /* a plain-name fragment: an anchor */
            char *a = uri_resolve(base, id->valuestring);
            rc = a ? add_ent(s, a, json, base, ptr, draft, vocab, false, false, base) : FORGE_ENOMEM;
            forge_free(a);
            if (rc)
                goto out;
        } else {
            apply_dialect(s, json, &draft, &vocab, err);
            mybase = uri_resolve(base, id->valuestring);
            if (!mybase) {
                rc = FORGE_ENOMEM;
                goto out;
            }
            char *hash = strchr(mybase, '#');
            if (hash && draft <= FORGE_DRAFT_7) {
                /* "http://x/y.json#foo" in old drafts: resource y.json plus anchor */
                char *a = forge_strdup(mybase);
                *hash = 0;
                rc = a ? add_ent(s, a, json, base, ptr, draft, vocab, false, false, NULL) : FORGE_ENOMEM;
                forge_free(a);
                if (rc)
                    goto out;
            } else if (hash) {
                *hash = 0;
            }
            rc = add_ent(s, mybase, json, base, ptr, draft, vocab, true, false, NULL);
            if (rc)
                goto out;
            base = mybase;
            ptr = "";
        }
    }
    if (draft >= FORGE_DRAFT_2019_09) {
        const cJSON *a = get(json, "$anchor");
        const cJSON *da = draft >= FORGE_DRAFT_2020_12 ? get(json, "$dynamicAnchor") : NULL;
        for (int k = 0; k < 2; k++) {
            const cJSON *x = k ? da : a;
            if (!cJSON_IsString(x) || !x->valuestring[0])
                continue; /* an empty name is no anchor (its URI would have no fragment) */
            char *f = xstrcat3("#", x->valuestring, "");
            char *u = f ? uri_resolve(base, f) : NULL;
            rc = u ? add_ent(s, u, json, pbase, ptr, draft, vocab, false, k == 1, mybase ? NULL : base) : FORGE_ENOMEM;
            forge_free(f);
            forge_free(u);
            if (rc)
                goto out;
        }
    }
    for (const cJSON *c = json->child; c; c = c->next) {
        int kind = subschema_kind(c->string, draft);
        if (kind == SK_NONE)
            continue;
        char *p1 = ptr_join(ptr, c->string);
        if (!p1) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        if (kind == SK_ONE || (kind == SK_ITEMS && !cJSON_IsArray(c))) {
            rc = scan(s, c, base, draft, vocab, p1, depth + 1, err);
        } else if (kind == SK_ARRAY || kind == SK_ITEMS) {
            int i = 0;
            for (const cJSON *x = c->child; x && !rc; x = x->next, i++) {
                char *p2 = ptr_joini(p1, i);
                rc = p2 ? scan(s, x, base, draft, vocab, p2, depth + 1, err) : FORGE_ENOMEM;
                forge_free(p2);
            }
        } else if (cJSON_IsObject(c)) {
            for (const cJSON *x = c->child; x && !rc; x = x->next) {
                char *p2 = ptr_join(p1, x->string);
                rc = p2 ? scan(s, x, base, draft, vocab, p2, depth + 1, err) : FORGE_ENOMEM;
                forge_free(p2);
            }
        }
        forge_free(p1);
        if (rc)
            goto out;
    }
out:
    forge_free(mybase);
    return rc;
}

/* Takes <doc>; registers it as a document with retrieval URI <uri>. */
/* Whether a member name anywhere in <j> contains "~" or "/". */
static bool names_need_escape(const cJSON *j)
{
    for (const cJSON *c = j->child; c; c = c->next) {
        if (c->string && strpbrk(c->string, "~/"))
            return true;
        if (c->child && names_need_escape(c))
            return true;
    }
    return false;
}

static int add_doc(struct forge_schema *s, cJSON *doc, const char *uri, int draft,
                   struct forge_err *err)
{
    if (grow((void **)&s->docs, &s->capdocs, s->ndocs + 1, sizeof *s->docs)) {
        cJSON_Delete(doc);
        return FORGE_ENOMEM;
    }
    s->docs[s->ndocs++] = doc;
    if (!s->escaped_names && names_need_escape(doc))
        s->escaped_names = true;
    unsigned vocab = V_ALL;
    if (cJSON_IsObject(doc)) {
        apply_dialect(s, doc, &draft, &vocab, err);
        /* a document's own $id may override the retrieval URI; register both */
    }
    int rc = add_ent(s, uri, doc, uri, "", draft, vocab, true, false, NULL);
    if (rc)
        return rc;
    return scan(s, doc, uri, draft, vocab, "", 0, err);
}

static int load_doc(struct forge_schema *s, const char *uri, struct forge_err *err)
{
    const char *text = forge_schema_meta(uri);
    cJSON *doc = NULL;
    if (text) {
        doc = forge_json_parse(text, strlen(text), uri, err);
        if (!doc)
            return FORGE_EINTERNAL;
        return add_doc(s, doc, uri, FORGE_DRAFT_2020_12, err); /* each meta-schema names its draft */
    }
    for (int i = 0; i < s->opts.nrefdirs; i++) {
        const char *pre = s->opts.refdirs[i].prefix;
        size_t lp = strlen(pre);
        if (strncmp(uri, pre, lp) != 0)
            continue;
        const char *rest = uri + lp;
        if (lp && pre[lp - 1] != '/' && *rest == '/')
            rest++; /* a prefix given without its trailing slash */
        if (strstr(rest, "..") || strchr(rest, '?') || strchr(rest, '%') || rest[0] == '/')
            return forge_err_set(err, FORGE_EINVAL, "cannot resolve '%s': the path after '%s' must "
                                 "stay inside its --ref-dir folder", uri, pre);
        char *path = forge_path_join(s->opts.refdirs[i].dir, rest);
        if (!path)
            return FORGE_ENOMEM;
        /* Real paths: a symbolic link inside the folder that points outside it is outside. */
        char real[PATH_MAX], root[PATH_MAX];
        if (realpath(path, real) && realpath(s->opts.refdirs[i].dir, root)) {
            size_t lr = strlen(root);
            if (strcmp(root, "/") != 0 &&
                (strncmp(real, root, lr) != 0 || (real[lr] != '/' && real[lr] != '\0'))) {
                forge_free(path);
                return forge_err_set(err, FORGE_EINVAL, "cannot resolve '%s': its file is outside "
                                     "the --ref-dir folder '%s' (a symbolic link?)", uri,
                                     s->opts.refdirs[i].dir);
            }
        }
        doc = forge_json_load(path, err);
        forge_free(path);
        if (!doc)
            return err->code ? err->code : FORGE_EINVAL;
        int d = s->opts.draft ? (int)s->opts.draft : FORGE_DRAFT_2020_12;
        return add_doc(s, doc, uri, d, err);
    }
    return forge_err_set(err, FORGE_EINVAL,
                         "cannot resolve '%s': no --ref-dir maps its URL prefix to a folder", uri);
}

/* ---------- compilation ---------- */

struct cctx {
    const char *base;  /* base URI before the schema's own $id */
    const char *ptr;   /* JSON pointer within the current resource */
    int draft;
    unsigned vocab;
    struct node *resource;
    /* JSON pointer from the root schema, when compiling what the root reaches through
     * subschemas alone (the keyword location of any error there); NULL elsewhere */
    const char *kptr;
    /* the instance location of the values such a subschema applies to when the schema alone
     * fixes it (the root's subschemas in place and under properties, their names joined), from
     * the region's start; "" at an items' subschema, which starts a region of its own (the
     * item's index is the walk's); NULL elsewhere (under additionalProperties and the like, and
     * wherever kptr is NULL) */
    const char *iptr;
    /* the node iptr starts from, and kptr unless it is an items' subschema (NULL: the node
     * compiled with this context) */
    struct node *rbase;
};

static void *pmap_get(const struct pmap *m, const void *key)
{
    if (!m->cap)
        return NULL;
    size_t h = ((uintptr_t)key >> 4) & (m->cap - 1);
    while (m->keys[h]) {
        if (m->keys[h] == key)
            return m->vals[h];
        h = (h + 1) & (m->cap - 1);
    }
    return NULL;
}

/* Adds <key> (not in the map). */
static int pmap_put(struct pmap *m, const void *key, void *val)
{
    if ((m->count + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        const void **k = forge_calloc(nc, sizeof *k);
        void **v = forge_calloc(nc, sizeof *v);
        if (!k || !v) {
            forge_free(k);
            forge_free(v);
            return FORGE_ENOMEM;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i])
                continue;
            size_t h = ((uintptr_t)m->keys[i] >> 4) & (nc - 1);
            while (k[h])
                h = (h + 1) & (nc - 1);
            k[h] = m->keys[i];
            v[h] = m->vals[i];
        }
        forge_free(m->keys);
        forge_free(m->vals);
        m->keys = k;
        m->vals = v;
        m->cap = nc;
    }
    size_t h = ((uintptr_t)key >> 4) & (m->cap - 1);
    while (m->keys[h])
        h = (h + 1) & (m->cap - 1);
    m->keys[h] = key;
    m->vals[h] = val;
    m->count++;
    return 0;
}

static void pmap_free(struct pmap *m)
{
    forge_free(m->keys);
    forge_free(m->vals);
    memset(m, 0, sizeof *m);
}

/* The member <name> of object <o> for a JSON pointer's walk (the first of that name, as
 * cJSON's lookup finds): an object of 16 members or more through a table of its names, made on
 * its first lookup; a smaller one (or out of memory) by a scan. NULL when absent. */
static const cJSON *pointer_member(struct forge_schema *s, const cJSON *o, const char *name)
{
    struct forge_json_names *ix = pmap_get(&s->objtabs, o);
    if (ix)
        return forge_json_names_find(ix, name);
    int n = 0;
    for (const cJSON *x = o->child; x && n < 16; x = x->next)
        n++;
    if (n < 16 || !(ix = forge_malloc(sizeof *ix)))
        return get(o, name);
    if (forge_json_names_build(ix, o)) {
        forge_free(ix);
        return get(o, name);
    }
    if (pmap_put(&s->objtabs, o, ix)) {
        forge_json_names_free(ix);
        forge_free(ix);
        return get(o, name);
    }
    return forge_json_names_find(ix, name);
}

static int compile(struct forge_schema *s, const cJSON *json, const struct cctx *cx,
                   struct node **out, struct forge_err *err);

static int add_pending(struct forge_schema *s, struct node **slot, const char *base,
                       const char *ref, const char *where)
{
    if (grow((void **)&s->pend, &s->cappend, s->npend + 1, sizeof *s->pend))
        return FORGE_ENOMEM;
    struct pending *p = &s->pend[s->npend];
    p->slot = slot;
    p->ref = ref;
    p->uri = uri_resolve(base, ref);
    p->where = forge_strdup(where);
    if (!p->uri || !p->where) {
        forge_free(p->uri);
        forge_free(p->where);
        return FORGE_ENOMEM;
    }
    s->npend++;
    return 0;
}

static unsigned type_bit(const char *t)
{
    static const char *names[] = {"null", "boolean", "object", "array", "number", "string", "integer"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(t, names[i]))
            return 1u << i;
    return 0;
}

static int bad(struct forge_err *err, const struct cctx *cx, const char *kw, const char *what)
{
    return forge_err_set(err, FORGE_EINVAL, "invalid schema at '%s/%s': %s", cx->ptr, kw, what);
}

/* Whether the subschemas of keyword <k> apply to the instance their node applies to. */
static bool in_place(const char *k)
{
    static const char *const kws[] = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
                                      "dependentSchemas", "dependencies"};
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (!strcmp(k, kws[i]))
            return true;
    return false;
}

/* The cctx.iptr of the subschema of keyword <k> (under its map key <name>, or NULL) of a node
 * compiled with <cx>: a new string, or NULL (none, or out of memory: *<nomem>). */
static char *sub_iptr(const struct cctx *cx, const char *k, const char *name, bool *nomem)
{
    char *ip = NULL;
    if (cx->iptr && in_place(k))
        ip = forge_strdup(cx->iptr);
    else if (cx->iptr && name && !strcmp(k, "properties"))
        ip = ptr_join(cx->iptr, name);
    else
        return NULL;
    *nomem = !ip;
    return ip;
}

static int sub1(struct forge_schema *s, const cJSON *j, const struct cctx *cx, const char *seg,
                struct node **out, struct forge_err *err)
{
    char *p = ptr_join(cx->ptr, seg);
    char *kp = cx->kptr ? ptr_join(cx->kptr, seg) : NULL;
    bool nomem = false;
    char *ip = sub_iptr(cx, seg, NULL, &nomem);
    int rc = FORGE_ENOMEM;
    if (p && (kp || !cx->kptr) && !nomem) {
        struct cctx c2 = *cx;
        c2.ptr = p;
        c2.kptr = kp;
        c2.iptr = kp ? ip : NULL;
        if (kp && !strcmp(seg, "items")) { /* (every item's schema: a region of instance locations) */
            c2.iptr = "";
            c2.rbase = NULL;
        }
        rc = compile(s, j, &c2, out, err);
    }
    forge_free(p);
    forge_free(kp);
    forge_free(ip);
    return rc;
}

static int sub2(struct forge_schema *s, const cJSON *j, const struct cctx *cx, const char *seg,
                const char *seg2, int idx, struct node **out, struct forge_err *err)
{
    char *p = ptr_join(cx->ptr, seg);
    char *p2 = p ? (seg2 ? ptr_join(p, seg2) : ptr_joini(p, idx)) : NULL;
    char *kp = cx->kptr ? ptr_join(cx->kptr, seg) : NULL;
    char *kp2 = kp ? (seg2 ? ptr_join(kp, seg2) : ptr_joini(kp, idx)) : NULL;
    bool nomem = false;
    char *ip = sub_iptr(cx, seg, seg2, &nomem);
    int rc = FORGE_ENOMEM;
    if (p2 && (kp2 || !cx->kptr) && !nomem) {
        struct cctx c2 = *cx;
        c2.ptr = p2;
        c2.kptr = kp2;
        c2.iptr = kp2 ? ip : NULL;
        rc = compile(s, j, &c2, out, err);
    }
    forge_free(p);
    forge_free(p2);
    forge_free(kp);
    forge_free(kp2);
    forge_free(ip);
    return rc;
}

/* <v> as compact JSON, shortened to about 200 bytes; a new string or NULL. */
static char *short_json(const cJSON *v)
{
    char *p = forge_json_print(v, 0);
    if (p && strlen(p) > 200)
        strcpy(p + 196, "...");
    return p;
}

static bool is_schema(const cJSON *j, int draft)
{
    return cJSON_IsObject(j) || (draft >= FORGE_DRAFT_6 && cJSON_IsBool(j));
}

static int compile_re(struct forge_schema *s, const char *pat, void **out, const struct cctx *cx,
                      const char *kw, struct forge_err *err)
{
    struct forge_err e2;
    forge_err_clear(&e2);
    *out = forge_ecmare_compile(pat, strlen(pat), &e2);
    (void)s;
    if (!*out)
        return forge_err_set(err, e2.code == FORGE_ENOMEM ? FORGE_ENOMEM : FORGE_EINVAL,
                             "invalid schema at '%s/%s': %s", cx->ptr, kw, e2.msg);
    return 0;
}

static int compile_kw(struct forge_schema *s, struct node *n, const cJSON *o, const cJSON *c,
                      const struct cctx *cx, struct forge_err *err)
{
    const char *k = c->string;
    int d = n->draft;
    unsigned v = n->vocab;
    bool val = v & V_VALIDATION, app = v & V_APPLICATOR;
    struct kw *w = &n->kws[n->nkws];
    memset(w, 0, sizeof *w);
    w->name = k;
    w->op = -1;
    int rc = 0;

    if (!strcmp(k, "type") && val) {
        unsigned t = 0;
        if (cJSON_IsString(c)) {
            t = type_bit(c->valuestring);
            if (!t)
                return bad(err, cx, k, "unknown type name");
        } else if (cJSON_IsArray(c)) {
            for (const cJSON *x = c->child; x; x = x->next) {
                unsigned b = cJSON_IsString(x) ? type_bit(x->valuestring) : 0;
                if (!b)
                    return bad(err, cx, k, "type names must be strings among null, boolean, object, array, number, string, integer");
                t |= b;
            }
        } else {
            return bad(err, cx, k, "must be a string or an array of strings");
        }
        n->types = t;
        w->op = OP_TYPE;
        w->num = t;
    } else if (!strcmp(k, "enum") && val) {
        if (!cJSON_IsArray(c))
            return bad(err, cx, k, "must be an array");
        w->op = OP_ENUM;
        w->json = c;
        if (!(w->text = keep(s, short_json(c))))
            return FORGE_ENOMEM;
        w->all_strings = true;
        int cnt = 0;
        for (const cJSON *x = c->child; x; x = x->next, cnt++)
            w->all_strings &= cJSON_IsString(x);
        if (w->all_strings && cnt) { /* a table of the strings (w->tab.cand set) */
            if (!(w->names = forge_calloc((size_t)cnt + 1, sizeof *w->names)))
                return FORGE_ENOMEM;
            int i = 0;
            for (const cJSON *x = c->child; x; x = x->next)
                w->names[i++] = x->valuestring;
            if ((rc = ntab_build(&w->tab, w->names, cnt)))
                return rc;
        }
    } else if (!strcmp(k, "const") && val && d >= FORGE_DRAFT_6) {
        w->op = OP_CONST;
        w->json = c;
        if (!(w->text = keep(s, short_json(c))))
            return FORGE_ENOMEM;
    } else if (val && (!strcmp(k, "multipleOf") || !strcmp(k, "maximum") || !strcmp(k, "minimum") ||
                       !strcmp(k, "exclusiveMaximum") || !strcmp(k, "exclusiveMinimum"))) {
        if (d == FORGE_DRAFT_4 && k[0] == 'e') {
            if (!cJSON_IsBool(c))
                return bad(err, cx, k, "must be a boolean in draft 4");
            return 0; /* modifies maximum/minimum */
        }
        if (!cJSON_IsNumber(c))
            return bad(err, cx, k, "must be a number");
        w->num = c->valuedouble;
        if (k[0] == 'm' && k[1] == 'u') {
            if (!(w->num > 0))
                return bad(err, cx, k, "must be greater than 0");
            w->op = OP_MULTOF;
        } else if (!strcmp(k, "maximum")) {
            w->op = d == FORGE_DRAFT_4 && cJSON_IsTrue(get(o, "exclusiveMaximum")) ? OP_XMAX : OP_MAX;
        } else if (!strcmp(k, "minimum")) {
            w->op = d == FORGE_DRAFT_4 && cJSON_IsTrue(get(o, "exclusiveMinimum")) ? OP_XMIN : OP_MIN;
        } else {
            w->op = k[9] == 'M' && k[10] == 'a' ? OP_XMAX : OP_XMIN;
        }
    } else if (val && (!strcmp(k, "maxLength") || !strcmp(k, "minLength") || !strcmp(k, "maxItems") ||
                       !strcmp(k, "minItems") || !strcmp(k, "maxProperties") ||
                       !strcmp(k, "minProperties"))) {
        if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble != floor(c->valuedouble))
            return bad(err, cx, k, "must be a non-negative integer");
        w->num = c->valuedouble;
        w->op = !strcmp(k, "maxLength") ? OP_MAXLEN : !strcmp(k, "minLength") ? OP_MINLEN
              : !strcmp(k, "maxItems") ? OP_MAXITEMS : !strcmp(k, "minItems") ? OP_MINITEMS
              : !strcmp(k, "maxProperties") ? OP_MAXPROPS : OP_MINPROPS;
    } else if (!strcmp(k, "pattern") && val) {
        if (!cJSON_IsString(c))
            return bad(err, cx, k, "must be a string");
        rc = compile_re(s, c->valuestring, &w->re, cx, k, err);
        if (rc)
            return rc;
        w->op = OP_PATTERN;
        w->text = c->valuestring;
    } else if (!strcmp(k, "format") && (v & V_FORMAT)) {
        if (!cJSON_IsString(c))
            return bad(err, cx, k, "must be a string");
        w->fmt = forge_format_id(c->valuestring);
        if (w->fmt < 0 || !(s->opts.formats || (v & V_FORMAT_ASSERT)))
            return 0;
        w->op = OP_FORMAT;
        w->text = c->valuestring;
    } else if (!strcmp(k, "uniqueItems") && val) {
        if (!cJSON_IsBool(c))
            return bad(err, cx, k, "must be a boolean");
        if (cJSON_IsFalse(c))
            return 0;
        w->op = OP_UNIQUE;
    } else if (!strcmp(k, "required") && val) {
        if (!cJSON_IsArray(c))
            return d == FORGE_DRAFT_4 && cJSON_IsBool(c) ? 0 : bad(err, cx, k, "must be an array of strings");
        for (const cJSON *x = c->child; x; x = x->next)
            if (!cJSON_IsString(x))
                return bad(err, cx, k, "must be an array of strings");
        w->op = OP_REQUIRED;
        w->json = c;
        w->n = cJSON_GetArraySize(c);
        w->names = forge_calloc((size_t)w->n + 1, sizeof *w->names);
        if (!w->names)
            return FORGE_ENOMEM;
        int i = 0;
        for (const cJSON *x = c->child; x; x = x->next)
            w->names[i++] = x->valuestring;
        if ((rc = ntab_build(&w->tab, w->names, w->n)))
            return rc;
    } else if (!strcmp(k, "dependentRequired") && val && d >= FORGE_DRAFT_2019_09) {
        if (!cJSON_IsObject(c))
            return bad(err, cx, k, "must be an object");
        w->op = OP_DEPREQ;
        w->json = c;
    } else if ((!strcmp(k, "prefixItems") && d >= FORGE_DRAFT_2020_12 && app) ||
               (!strcmp(k, "items") && d < FORGE_DRAFT_2020_12 && cJSON_IsArray(c) && app)) {
        if (!cJSON_IsArray(c))
            return bad(err, cx, k, "must be an array of schemas");
        w->op = OP_PREFIX;
        goto list;
    } else if (app && (!strcmp(k, "allOf") || !strcmp(k, "anyOf") || !strcmp(k, "oneOf"))) {
        if (!cJSON_IsArray(c) || !c->child)
            return bad(err, cx, k, "must be a non-empty array of schemas");
        w->op = k[0] == 'a' ? (k[1] == 'l' ? OP_ALLOF : OP_ANYOF) : OP_ONEOF;
    list:
        w->n = cJSON_GetArraySize(c);
        w->subs = forge_calloc((size_t)w->n + 1, sizeof *w->subs);
        if (!w->subs)
            return FORGE_ENOMEM;
        int i = 0;
        for (const cJSON *x = c->child; x; x = x->next, i++) {
            if (!is_schema(x, d))
                return bad(err, cx, k, "items must be schemas");
            rc = sub2(s, x, cx, k, NULL, i, &w->subs[i], err);
            if (rc)
                return rc;
        }
    } else if (app && (!strcmp(k, "items") || !strcmp(k, "additionalItems") ||
                       !strcmp(k, "contains") || !strcmp(k, "not") || !strcmp(k, "propertyNames") ||
                       !strcmp(k, "additionalProperties") || !strcmp(k, "if"))
               && subschema_kind(k, d) != SK_NONE) {
        if (!is_schema(c, d) && !(cJSON_IsBool(c) && k[0] == 'a' && k[1] == 'd'))
            return bad(err, cx, k, "must be a schema");
        rc = sub1(s, c, cx, k, &w->sub, err);
        if (rc)
            return rc;
        if (!strcmp(k, "items")) {
            w->op = OP_ITEMS;
        } else if (!strcmp(k, "additionalItems")) {
            const cJSON *it = get(o, "items");
            if (!cJSON_IsArray(it))
                return 0; /* ignored without a tuple */
            w->op = OP_ADDITEMS;
            w->ntuple = cJSON_GetArraySize(it);
        } else if (!strcmp(k, "contains")) {
            w->op = OP_CONTAINS;
            w->num = 1;
            w->num2 = -1;
            if (d >= FORGE_DRAFT_2019_09 && val) {
                const cJSON *mn = get(o, "minContains"), *mx = get(o, "maxContains");
                if (mn) {
                    if (!cJSON_IsNumber(mn) || mn->valuedouble < 0)
                        return bad(err, cx, "minContains", "must be a non-negative integer");
                    w->num = mn->valuedouble;
                }
                if (mx) {
                    if (!cJSON_IsNumber(mx) || mx->valuedouble < 0)
                        return bad(err, cx, "maxContains", "must be a non-negative integer");
                    w->num2 = mx->valuedouble;
                }
            }
        } else if (!strcmp(k, "not")) {
            w->op = OP_NOT;
        } else if (!strcmp(k, "propertyNames")) {
            w->op = OP_PROPNAMES;
        } else if (!strcmp(k, "additionalProperties")) {
            w->op = OP_ADDPROPS;
        } else {
            const cJSON *t = get(o, "then"), *e = get(o, "else");
            if (t && is_schema(t, d) && (rc = sub1(s, t, cx, "then", &w->then_, err)))
                return rc;
            if (e && is_schema(e, d) && (rc = sub1(s, e, cx, "else", &w->else_, err)))
                return rc;
            w->op = OP_IF;
        }
    } else if (app && (!strcmp(k, "properties") || !strcmp(k, "patternProperties") ||
                       (!strcmp(k, "dependentSchemas") && d >= FORGE_DRAFT_2019_09) ||
                       !strcmp(k, "dependencies"))) {
        if (!cJSON_IsObject(c))
            return bad(err, cx, k, "must be an object");
        w->op = k[0] == 'p' ? (k[1] == 'r' ? OP_PROPS : OP_PATPROPS) : k[10] == 'S' ? OP_DEPSCHEMAS : OP_DEPS;
        w->n = cJSON_GetArraySize(c);
        w->subs = forge_calloc((size_t)w->n + 1, sizeof *w->subs);
        w->names = forge_calloc((size_t)w->n + 1, sizeof *w->names);
        w->arrs = forge_calloc((size_t)w->n + 1, sizeof *w->arrs);
        w->res = forge_calloc((size_t)w->n + 1, sizeof *w->res);
        if (!w->subs || !w->names || !w->arrs || !w->res)
            return FORGE_ENOMEM;
        int i = 0;
        for (const cJSON *x = c->child; x; x = x->next, i++) {
            w->names[i] = x->string;
            if (w->op == OP_DEPS && cJSON_IsArray(x)) {
                w->arrs[i] = x;
                continue;
            }
            if (!is_schema(x, d))
                return bad(err, cx, k, "values must be schemas");
            if (w->op == OP_PATPROPS && (rc = compile_re(s, x->string, &w->res[i], cx, k, err)))
                return rc;
            rc = sub2(s, x, cx, k, x->string, 0, &w->subs[i], err);
            if (rc)
                return rc;
        }
        if (w->op == OP_PROPS && (rc = ntab_build(&w->tab, w->names, w->n)))
            return rc;
    } else if ((!strcmp(k, "unevaluatedProperties") || !strcmp(k, "unevaluatedItems")) &&
               d >= FORGE_DRAFT_2019_09 && (v & V_UNEVALUATED)) {
        if (!is_schema(c, d))
            return bad(err, cx, k, "must be a schema");
        rc = sub1(s, c, cx, k, &w->sub, err);
        if (rc)
            return rc;
        w->op = k[11] == 'P' ? OP_UNEVALPROPS : OP_UNEVALITEMS;
        n->has_uneval = true;
    } else if (!strcmp(k, "$ref") || (!strcmp(k, "$dynamicRef") && d >= FORGE_DRAFT_2020_12) ||
               (!strcmp(k, "$recursiveRef") && d == FORGE_DRAFT_2019_09)) {
        if (!cJSON_IsString(c))
            return bad(err, cx, k, "must be a string");
        w->op = !strcmp(k, "$ref") ? OP_REF : k[1] == 'd' ? OP_DYNREF : OP_RECREF;
        if (w->op != OP_REF)
            s->dynamic = true;
        w->ref = c->valuestring;
        const char *hash = strchr(c->valuestring, '#');
        if (w->op == OP_DYNREF && hash && hash[1] && hash[1] != '/')
            w->anchor = hash + 1;
        char *where = ptr_join(cx->ptr, k);
        if (!where)
            return FORGE_ENOMEM;
        /* the base for a reference is the node's own base (after its $id) */
        rc = add_pending(s, &w->sub, n->abs ? n->abs : "", w->op == OP_RECREF ? "#" : c->valuestring, where);
        forge_free(where);
        if (rc)
            return rc;
    } else {
        return 0;
    }
    if (w->op >= 0)
        n->nkws++;
    return 0;
}

/* Keyword evaluation order: unevaluated* last, additionalProperties after its siblings. */
static int kw_rank(const char *k)
{
    if (!strcmp(k, "unevaluatedProperties") || !strcmp(k, "unevaluatedItems"))
        return 2;
    return 0;
}

/* Lets "properties" check its siblings "required" (when every required name is a property)
 * and "additionalProperties" (when there is no "patternProperties") in its own pass. */
static int fuse(struct node *n)
{
    struct kw *p = NULL, *r = NULL, *a = NULL;
    bool pat = false;
    for (int i = 0; i < n->nkws; i++) {
        struct kw *w = &n->kws[i];
        /* every "properties" has its reqbits (zero without a fused "required"), so that the
         * member loops take them without a test */
        if (w->op == OP_PROPS && !(w->reqbits = forge_calloc((size_t)w->n + 1, sizeof *w->reqbits)))
            return FORGE_ENOMEM;
        if (w->op == OP_PROPS) p = w;
        else if (w->op == OP_REQUIRED) r = w;
        else if (w->op == OP_ADDPROPS) a = w;
        else if (w->op == OP_PATPROPS) pat = true;
    }
    if (!p)
        return 0;
    if (a && !pat) {
        a->fused = true;
        p->fadd = a;
    }
    if (!r || r->n > 64)
        return 0;
    for (int j = 0; j < r->n; j++)
        if (ntab_find(&p->tab, r->names[j]) < 0)
            return 0;
    for (int j = 0; j < r->n; j++)
        p->reqbits[ntab_find(&p->tab, r->names[j])] |= (uint64_t)1 << j;
    r->fused = true;
    p->freq = r;
    return 0;
}

/* Folds the keywords of the leaf <n> into its lspec fields, when each keyword appears once and
 * at most four need quick_pass. */
static void leaf_spec(struct node *n)
{
    uint64_t seen = 0;
    n->ltypes = 0;
    n->nmin = n->nxmin = -INFINITY;
    n->nmax = n->nxmax = INFINITY;
    n->nmul = 0;
    n->slo = 0;
    n->shi = INFINITY;
    n->lre = NULL;
    n->lnum = n->lstr = false;
    n->nlrest = 0;
    for (int i = 0; i < n->nkws; i++) {
        const struct kw *w = &n->kws[i];
        if (seen & ((uint64_t)1 << w->op))
            return; /* a keyword twice (duplicate member names) */
        seen |= (uint64_t)1 << w->op;
        switch (w->op) {
        case OP_TYPE:
            n->ltypes = (unsigned)w->num;
            if (!n->ltypes)
                return; /* allows nothing: left to the loop */
            break;
        case OP_MIN: n->nmin = w->num; n->lnum = true; break;
        case OP_XMIN: n->nxmin = w->num; n->lnum = true; break;
        case OP_MAX: n->nmax = w->num; n->lnum = true; break;
        case OP_XMAX: n->nxmax = w->num; n->lnum = true; break;
        case OP_MULTOF:
            if (w->num == 0)
                return;
            n->nmul = w->num;
            n->lnum = true;
            break;
        case OP_MINLEN: n->slo = w->num; n->lstr = true; break;
        case OP_MAXLEN: n->shi = w->num; n->lstr = true; break;
        case OP_PATTERN: n->lre = w->re; break;
        default:
            if (n->nlrest == (int)(sizeof n->lrest / sizeof *n->lrest))
                return;
            n->lrest[n->nlrest++] = w;
        }
    }
    n->lspec = true;
}

static int compile(struct forge_schema *s, const cJSON *json, const struct cctx *cx,
                   struct node **out, struct forge_err *err)
{
    struct node *n = pmap_get(&s->nodemap, json);
    if (n) {
        *out = n;
        return 0;
    }
    if (!cJSON_IsObject(json) && !cJSON_IsBool(json))
        return forge_err_set(err, FORGE_EINVAL, "invalid schema at '%s': a schema must be an object%s",
                             cx->ptr[0] ? cx->ptr : "(root)", cx->draft >= FORGE_DRAFT_6 ? " or a boolean" : "");
    int rc = 0;
    char *base = NULL;
    if (grow((void **)&s->nodes, &s->capnodes, s->nnodes + 1, sizeof *s->nodes))
        return FORGE_ENOMEM;
    n = forge_calloc(1, sizeof *n);
    if (!n)
        return FORGE_ENOMEM;
    s->nodes[s->nnodes++] = n;
    if ((rc = pmap_put(&s->nodemap, json, n)))
        return rc;
    *out = n;
    n->json = json;
    n->draft = cx->draft;
    n->vocab = cx->vocab;
    n->resource = cx->resource ? cx->resource : n;
    struct cctx c2 = *cx;
    if (cJSON_IsBool(json)) {
        n->is_bool = true;
        n->bval = cJSON_IsTrue(json);
    } else {
        const cJSON *id = get(json, id_key(cx->draft));
        bool newres = false;
        if (cJSON_IsString(id) && !ref_overrides(cx->draft, json) &&
            !(cx->draft <= FORGE_DRAFT_7 && id->valuestring[0] == '#')) {
            apply_dialect(s, json, &c2.draft, &c2.vocab, err);
            n->draft = c2.draft;
            n->vocab = c2.vocab;
            base = uri_resolve(cx->base, id->valuestring);
            if (!base)
                return FORGE_ENOMEM;
            char *hash = strchr(base, '#');
            if (hash)
                *hash = 0;
            c2.base = base;
            c2.ptr = "";
            newres = true;
        } else if (!cx->resource) {
            newres = true;
        }
        if (newres) {
            n->resource = n;
            c2.resource = n;
        }
        n->abs = keep(s, xstrcat3(c2.base, "#", c2.ptr));
        if (!n->abs) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        n->abs_len = strlen(n->abs);
        if (cx->kptr && !(n->kptr = keep(s, forge_strdup(cx->kptr)))) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        if (cx->iptr && !(n->iptr = keep(s, forge_strdup(cx->iptr)))) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        if (cx->kptr)
            n->rbase = c2.rbase = cx->rbase ? cx->rbase : n;
        n->abs_shown = strncmp(n->abs, ROOT_URI, sizeof ROOT_URI - 1) != 0;
        if (n->draft >= FORGE_DRAFT_2019_09) {
            if (n->draft == FORGE_DRAFT_2019_09 && cJSON_IsTrue(get(json, "$recursiveAnchor")))
                n->recursive_anchor = true;
            const cJSON *da = get(json, "$dynamicAnchor");
            if (n->draft >= FORGE_DRAFT_2020_12 && cJSON_IsString(da))
                n->dyn_anchor = da->valuestring;
        }
        int nk = cJSON_GetArraySize(json);
        n->kws = forge_calloc((size_t)nk + 1, sizeof *n->kws);
        if (!n->kws) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        if (ref_overrides(n->draft, json)) {
            rc = compile_kw(s, n, json, get(json, "$ref"), &c2, err);
            goto out;
        }
        for (int rank = 0; rank <= 2 && !rc; rank++)
            for (const cJSON *c = json->child; c && !rc; c = c->next)
                if (kw_rank(c->string) == rank)
                    rc = compile_kw(s, n, json, c, &c2, err);
        if (rc)
            goto out;
        /* additionalProperties consults properties and patternProperties */
        for (int i = 0; i < n->nkws; i++) {
            if (n->kws[i].op != OP_ADDPROPS && n->kws[i].op != OP_ITEMS)
                continue;
            for (int j = 0; j < n->nkws; j++) {
                if (n->kws[j].op == OP_PROPS)
                    n->kws[i].props = &n->kws[j];
                if (n->kws[j].op == OP_PATPROPS)
                    n->kws[i].patprops = &n->kws[j];
                if (n->kws[j].op == OP_PREFIX && n->kws[i].op == OP_ITEMS)
                    n->kws[i].ntuple = n->kws[j].n;
            }
        }
        if ((rc = fuse(n)))
            goto out;
        n->leaf = !n->has_uneval;
        for (int i = 0; i < n->nkws && n->leaf; i++) {
            switch (n->kws[i].op) {
            case OP_TYPE: case OP_ENUM: case OP_CONST: case OP_MULTOF: case OP_MAX: case OP_XMAX:
            case OP_MIN: case OP_XMIN: case OP_MAXLEN: case OP_MINLEN: case OP_PATTERN: case OP_FORMAT:
            case OP_MAXITEMS: case OP_MINITEMS: case OP_MAXPROPS: case OP_MINPROPS: case OP_REQUIRED:
                break;
            default:
                n->leaf = false;
            }
        }
        if (n->leaf)
            leaf_spec(n);
        n->lexact = n->leaf;
        for (int i = 0; i < n->nkws && n->lexact; i++) {
            const struct kw *w = &n->kws[i];
            if (w->op == OP_FORMAT || w->op == OP_MAXPROPS || w->op == OP_MINPROPS ||
                (w->op == OP_REQUIRED && w->n > 64) ||
                (w->op == OP_PATTERN && !forge_ecmare_is_simple(w->re)))
                n->lexact = false; /* quick tests that say "maybe", or a match limit */
        }
    }
out:
    /* compile_kw copied c2.base where it needed it (add_pending resolves against n->abs) */
    forge_free(base);
    return rc;
}

/* Finds the location <uri> names, loading documents as needed, and compiles it. */
static int resolve(struct forge_schema *s, const char *uri, struct node **out, struct forge_err *err)
{
    int rc = 0;
    char *docuri = forge_strdup(uri);
    char *frag = NULL, *walkbase = NULL;
    struct forge_buf ptr;
    forge_buf_init(&ptr, 0);
    if (!docuri)
        return FORGE_ENOMEM;
    char *hash = strchr(docuri, '#');
    if (hash) {
        *hash = 0;
        frag = pct_decode(hash + 1, strlen(hash + 1));
        if (!frag) {
            rc = FORGE_ENOMEM;
            goto out;
        }
    }
    struct ent *e = find_ent(s, docuri);
    if (!e) {
        if ((rc = load_doc(s, docuri, err)))
            goto out;
        e = find_ent(s, docuri);
        if (!e) {
            rc = forge_err_set(err, FORGE_EINVAL, "cannot resolve '%s'", uri);
            goto out;
        }
    }
    if (frag && frag[0] && frag[0] != '/') {
        char *a = xstrcat3(docuri, "#", frag);
        if (!a) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        e = find_ent(s, a);
        forge_free(a);
        if (!e) {
            rc = forge_err_set(err, FORGE_EINVAL, "cannot resolve '%s': no anchor '%s' in '%s'", uri,
                               frag, docuri);
            goto out;
        }
    }
    struct ent ec = *e; /* the registry may grow (and move) while compiling */
    e = &ec;
    struct node *resnode = NULL, *holder = NULL;
    if (e->resuri) {
        /* an anchor: its node belongs to the resource that holds it */
        if ((rc = resolve(s, e->resuri, &holder, err)))
            goto out;
        holder = holder->resource;
    }
    struct cctx cx = {e->parent_base, e->ptr, e->draft, e->vocab, holder, "", "", NULL};
    if ((rc = compile(s, e->json, &cx, &resnode, err)))
        goto out;
    if (!frag || frag[0] != '/') {
        *out = resnode;
        goto out;
    }
    /* walk the JSON pointer from the resource root */
    const cJSON *cur = e->json;
    struct node *resource = resnode->resource;
    walkbase = forge_strdup(e->uri);
    int draft = resnode->draft;
    unsigned vocab = resnode->vocab;
    if (!walkbase) {
        rc = FORGE_ENOMEM;
        goto out;
    }
    const char *p = frag;
    while (*p == '/') {
        p++;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char tok[512];
        size_t t = 0;
        for (size_t i = 0; i < len && t < sizeof tok - 1; i++) {
            if (p[i] == '~' && i + 1 < len && p[i + 1] == '0') { tok[t++] = '~'; i++; }
            else if (p[i] == '~' && i + 1 < len && p[i + 1] == '1') { tok[t++] = '/'; i++; }
            else tok[t++] = p[i];
        }
        tok[t] = 0;
        const cJSON *next = NULL;
        if (cJSON_IsArray(cur)) {
            char *endp;
            long i = strtol(tok, &endp, 10);
            if (*tok && !*endp && i >= 0)
                next = cJSON_GetArrayItem(cur, (int)i);
        } else if (cJSON_IsObject(cur)) {
            next = pointer_member(s, cur, tok);
        }
        if (!next) {
            rc = forge_err_set(err, FORGE_EINVAL, "cannot resolve '%s': no value at '%s'", uri, frag);
            goto out;
        }
        p += len;
        if (*p == '/' && cJSON_IsObject(next)) {
            const cJSON *id = pointer_member(s, next, id_key(draft));
            if (cJSON_IsString(id) && !ref_overrides(draft, next) &&
                !(draft <= FORGE_DRAFT_7 && id->valuestring[0] == '#')) {
                struct cctx c3 = {walkbase, ptr.data ? ptr.data : "", draft, vocab, resource, "", "", NULL};
                struct node *rn;
                if ((rc = compile(s, next, &c3, &rn, err)))
                    goto out;
                resource = rn;
                draft = rn->draft;
                vocab = rn->vocab;
                char *nb = uri_resolve(walkbase, id->valuestring);
                if (!nb) {
                    rc = FORGE_ENOMEM;
                    goto out;
                }
                char *h2 = strchr(nb, '#');
                if (h2)
                    *h2 = 0;
                forge_free(walkbase);
                walkbase = nb;
                forge_buf_reset(&ptr);
                cur = next;
                continue;
            }
        }
        if ((rc = ptr_add(&ptr, tok)))
            goto out;
        cur = next;
    }
    struct cctx c4 = {walkbase, ptr.data ? ptr.data : "", draft, vocab, resource, "", "", NULL};
    rc = compile(s, cur, &c4, out, err);
out:
    forge_buf_free(&ptr);
    forge_free(walkbase);
    forge_free(frag);
    forge_free(docuri);
    return rc;
}

static int resolve_all(struct forge_schema *s, struct forge_err *err)
{
    int rc = 0;
    int done_dyn = 0;
    for (;;) {
        while (s->npend) {
            struct pending p = s->pend[--s->npend];
            rc = resolve(s, p.uri, p.slot, err);
            if (rc)
                forge_err_prefix(err, "invalid schema at '%s': $ref '%s'", p.where, p.ref);
            forge_free(p.uri);
            forge_free(p.where);
            if (rc)
                return rc;
        }
        /* attach every $dynamicAnchor to its resource root */
        int n0 = s->nents;
        for (; done_dyn < n0; done_dyn++) {
            struct ent *e = &s->ents[done_dyn];
            if (!e->dynamic)
                continue;
            char *u = forge_strdup(e->uri);
            struct node *an = NULL;
            if (!u)
                return FORGE_ENOMEM;
            rc = resolve(s, u, &an, err);
            forge_free(u);
            if (rc)
                return rc;
            struct dynanchor *da = forge_calloc(1, sizeof *da);
            if (!da)
                return FORGE_ENOMEM;
            da->name = strchr(s->ents[done_dyn].uri, '#') + 1;
            da->node = an;
            da->next = an->resource->dynanchors;
            an->resource->dynanchors = da;
        }
        if (!s->npend && done_dyn >= s->nents)
            break;
    }
    return 0;
}

/* The kinds of instance keyword <w> can apply to, as a bit set of 1 << K_*. */
static unsigned kw_kinds(const struct kw *w)
{
    const unsigned all = 63;
    switch (w->op) {
    case OP_TYPE: {
        /* left out for the kinds it always accepts */
        unsigned t = (unsigned)w->num, ok = 0;
        if (t & T_NULL) ok |= 1u << K_NULL;
        if (t & T_BOOL) ok |= 1u << K_BOOL;
        if (t & T_NUMBER) ok |= 1u << K_NUMBER;
        if (t & T_STRING) ok |= 1u << K_STRING;
        if (t & T_ARRAY) ok |= 1u << K_ARRAY;
        if (t & T_OBJECT) ok |= 1u << K_OBJECT;
        return all & ~ok;
    }
    case OP_MULTOF: case OP_MAX: case OP_XMAX: case OP_MIN: case OP_XMIN:
        return 1u << K_NUMBER;
    case OP_MAXLEN: case OP_MINLEN: case OP_PATTERN: case OP_FORMAT:
        return 1u << K_STRING;
    case OP_MAXITEMS: case OP_MINITEMS: case OP_UNIQUE: case OP_PREFIX: case OP_ITEMS:
    case OP_ADDITEMS: case OP_CONTAINS: case OP_UNEVALITEMS:
        return 1u << K_ARRAY;
    case OP_MAXPROPS: case OP_MINPROPS: case OP_REQUIRED: case OP_PROPS: case OP_PATPROPS:
    case OP_ADDPROPS: case OP_PROPNAMES: case OP_DEPREQ: case OP_DEPSCHEMAS: case OP_DEPS:
    case OP_UNEVALPROPS:
        return 1u << K_OBJECT;
    default:
        return all;
    }
}

/* <n> through nodes that hold nothing but a $ref (at most 8 of them). */
static const struct node *deref(const struct node *n)
{
    for (int hops = 0; n && !n->is_bool && n->nkws == 1 && n->kws[0].op == OP_REF && hops < 8; hops++)
        n = n->kws[0].sub;
    return n;
}

/* The string const of <n>'s own keywords (through $ref-only nodes), or NULL. */
static const char *const_string(const struct node *n)
{
    n = deref(n);
    if (!n || n->is_bool)
        return NULL;
    for (int i = 0; i < n->nkws; i++)
        if (n->kws[i].op == OP_CONST && cJSON_IsString(n->kws[i].json))
            return n->kws[i].json->valuestring;
    return NULL;
}

/* Finds the discriminator of anyOf/oneOf <w> (the first property with a string const in a
 * branch; kept when at least two branches have one). Returns 0 or FORGE_ENOMEM. */
static int find_disc(struct forge_schema *s, struct kw *w)
{
    const char *name = NULL;
    int found = 0;
    const char **v = forge_calloc((size_t)w->n, sizeof *v);
    if (!v)
        return FORGE_ENOMEM;
    for (int i = 0; i < w->n; i++) {
        const struct node *b = deref(w->subs[i]);
        if (!b || b->is_bool)
            continue;
        for (int k = 0; k < b->nkws && !v[i]; k++) {
            const struct kw *p = &b->kws[k];
            if (p->op != OP_PROPS)
                continue;
            for (int j = 0; j < p->n && !v[i]; j++) {
                if ((name && strcmp(name, p->names[j])) || ntab_find(&p->tab, p->names[j]) != j)
                    continue; /* another name, or a duplicate name (the first one applies) */
                const char *cv = const_string(p->subs[j]);
                if (!cv)
                    continue;
                name = p->tab.pads[j]; /* (the padded copy: the same text) */
                if (!(v[i] = pname_keep(s, cv))) {
                    forge_free(v);
                    return FORGE_ENOMEM;
                }
                found++;
            }
        }
    }
    if (found < 2) {
        forge_free(v);
        return 0;
    }
    w->disc = name;
    w->discv = v;
    return 0;
}

/* Fills every node's per-kind keyword lists and the discriminators of anyOf and oneOf.
 * Returns 0 or FORGE_ENOMEM. */
/* A name's length + 1 as a JSON pointer token that needs no escaping, or 0 when it holds "~"
 * or "/". */
static long seg_len(const char *name)
{
    return strpbrk(name, "~/") ? 0 : (long)strlen(name) + 1;
}

static const char *num_text(double d, char *buf, size_t *len);

/* Whether keyword <w>'s messages show its num (the 'L' conversion of struct efmt). */
static bool shows_bound(const struct kw *w)
{
    switch (w->op) {
    case OP_MULTOF: case OP_MAX: case OP_XMAX: case OP_MIN: case OP_XMIN: case OP_MAXLEN:
    case OP_MINLEN: case OP_MAXITEMS: case OP_MINITEMS: case OP_CONTAINS: case OP_MAXPROPS:
    case OP_MINPROPS:
        return true;
    default:
        return false;
    }
}

static int kw_message(struct forge_schema *s, struct kw *w);

static int build_kinds(struct forge_schema *s)
{
    for (int i = 0; i < s->nnodes; i++) /* (ref_mixed, before the keywords' rref) */
        for (int j = 0; j < s->nodes[i]->nkws; j++) {
            const struct kw *w = &s->nodes[i]->kws[j];
            bool dynamic = w->op == OP_DYNREF || w->op == OP_RECREF;
            if (w->sub && (dynamic || ((w->op == OP_REF || w->op == OP_ITEMS) && !s->nodes[i]->iptr)))
                w->sub->ref_mixed = true;
        }
    for (int i = 0; i < s->nnodes; i++) {
        struct node *n = s->nodes[i];
        if (!n->nkws)
            continue;
        const struct kw **all = forge_malloc((size_t)n->nkws * 6 * sizeof *all);
        if (!all)
            return FORGE_ENOMEM;
        for (int k = 0; k < 6; k++) {
            n->kinds[k] = all + (size_t)k * (size_t)n->nkws;
            n->nkinds[k] = 0;
        }
        for (int j = 0; j < n->nkws; j++) {
            struct kw *w = &n->kws[j];
            if ((w->op == OP_ANYOF || w->op == OP_ONEOF) && find_disc(s, w))
                return FORGE_ENOMEM;
            if (w->op == OP_REF)
                w->name = ref_name;
            else if (w->op == OP_ITEMS && w->sub && w->sub->rbase == w->sub)
                w->name = items_name;
            w->seglen = seg_len(w->name);
            if (w->text)
                w->text_len = strlen(w->text);
            if (shows_bound(w)) {
                char buf[96];
                const char *t = num_text(w->num, buf, &w->ltext_len);
                char *copy = forge_malloc(w->ltext_len + 1);
                if (!keep(s, copy))
                    return FORGE_ENOMEM;
                memcpy(copy, t, w->ltext_len);
                copy[w->ltext_len] = 0;
                w->ltext = copy;
            }
            if (kw_message(s, w))
                return FORGE_ENOMEM;
            if (w->seglen > 0 && n->kptr) {
                if (!(w->kloc = keep(s, xstrcat3(n->kptr, "/", w->name))))
                    return FORGE_ENOMEM;
                w->kloc_len = strlen(w->kloc);
                if ((w->iloc = n->iptr)) {
                    w->iloc_len = strlen(w->iloc);
                    w->rbase = n->rbase;
                    w->rref = n->rbase != s->root && !n->rbase->ref_mixed;
                }
            }
            if (w->seglen > 0 && n->abs_shown) {
                if (!(w->kabs = keep(s, xstrcat3(n->abs, "/", w->name))))
                    return FORGE_ENOMEM;
                w->kabs_len = strlen(w->kabs);
            }
            if (w->names && w->n > 0) {
                w->seglens = forge_malloc((size_t)w->n * sizeof *w->seglens);
                if (!w->seglens)
                    return FORGE_ENOMEM;
                for (int k = 0; k < w->n; k++)
                    w->seglens[k] = seg_len(w->names[k]);
            }
            if (w->fused)
                continue;
            unsigned m = kw_kinds(w);
            for (int k = 0; k < 6; k++)
                if (m >> k & 1)
                    n->kinds[k][n->nkinds[k]++] = w;
        }
        if (!s->dynamic && !n->is_bool && !n->leaf && !n->has_uneval && n->nkws == 1 &&
            n->kws[0].op == OP_REF)
            n->refonly = &n->kws[0];
    }
    return 0;
}

/* ---------- the verdict walk's flat form ---------- */

/* For FI_UNIQUE on node <n>: the name table of the "enum" of at most 64 strings of its "items"
 * subschema (through $ref-only nodes), or NULL. An item among those strings is known by its
 * index in the table: equal strings have the same one (see unique_in_table). */
static const struct ntab *unique_table(const struct node *n)
{
    for (int i = 0; i < n->nkws; i++) {
        const struct kw *w = &n->kws[i];
        if (w->op != OP_ITEMS || !w->sub)
            continue;
        const struct node *b = deref(w->sub);
        if (!b || b->is_bool)
            return NULL;
        for (int k = 0; k < b->nkws; k++) {
            const struct kw *e = &b->kws[k];
            if (e->op == OP_ENUM && e->all_strings && e->tab.pads && e->tab.n <= 64)
                return &e->tab;
        }
    }
    return NULL;
}

/* Whether <n> is a leaf whose flat list is built and exact (its verdict is the list's). */
static bool exact_leaf(const struct node *n)
{
    return n && !n->is_bool && n->leaf && n->lexact && n->fprog;
}

/* Appends to <f> (at <o>, the list of kind <k> of node <n> starting at <start>) the
 * instruction for keyword <w>: bounds next to bounds of their kind join them, a keyword that
 * can only fail on this kind becomes FI_TYPE 0. Returns the new end, or -1 (no memory). */
static int lower_kw(struct forge_schema *s, const struct node *n, struct fi *f, int start, int o,
                    int k, const struct kw *w)
{
    struct fi *prev = o > start ? &f[o - 1] : NULL;
    struct fi *x = &f[o];
    *x = (struct fi){.op = FI_KW, .w = w};
    switch (w->op) {
    case OP_TYPE:
        x->op = FI_TYPE;
        x->t = (unsigned char)(unsigned)w->num;
        break;
    case OP_MIN: case OP_XMIN: case OP_MAX: case OP_XMAX:
        if (isnan(w->num))
            break; /* no bound to fold: left to quick_pass */
        if (prev && prev->op == FI_NUM)
            x = prev, o--;
        else
            *x = (struct fi){.op = FI_NUM, .lo = -INFINITY, .hi = INFINITY, .w = w};
        /* x >= a && x > b is x > b when b >= a, else x >= a (likewise above) */
        if (w->op == OP_MIN && w->num > x->lo)
            x->lo = w->num, x->t &= (unsigned char)~1u;
        else if (w->op == OP_XMIN && w->num >= x->lo)
            x->lo = w->num, x->t |= 1;
        else if (w->op == OP_MAX && w->num < x->hi)
            x->hi = w->num, x->t &= (unsigned char)~2u;
        else if (w->op == OP_XMAX && w->num <= x->hi)
            x->hi = w->num, x->t |= 2;
        break;
    case OP_MULTOF:
        x->op = FI_MULOF;
        x->lo = w->num;
        break;
    case OP_MINLEN: case OP_MAXLEN: case OP_MINITEMS: case OP_MAXITEMS: case OP_MINPROPS:
    case OP_MAXPROPS: {
        if (isnan(w->num))
            break; /* no bound to fold: left to quick_pass */
        /* a count (characters, items, members) in [lo, hi], joined to the bounds before it */
        int op = w->op == OP_MINLEN || w->op == OP_MAXLEN     ? FI_SLEN
                 : w->op == OP_MINITEMS || w->op == OP_MAXITEMS ? FI_COUNT
                                                                : FI_PCOUNT;
        if (prev && (prev->op == op || (op == FI_SLEN && prev->op == FI_NONEMPTY)))
            x = prev, o--;
        else
            *x = (struct fi){.op = (unsigned char)op, .lo = op == FI_SLEN ? 0 : -INFINITY,
                             .hi = INFINITY, .w = w};
        if (w->op == OP_MINLEN || w->op == OP_MINITEMS || w->op == OP_MINPROPS)
            x->lo = fmax(x->lo, w->num);
        else
            x->hi = fmin(x->hi, w->num);
        if (op == FI_SLEN) /* minLength 1 alone needs no strlen */
            x->op = x->lo > 0 && x->lo <= 1 && x->hi == INFINITY ? FI_NONEMPTY : FI_SLEN;
        break;
    }
    case OP_UNIQUE:
        x->op = FI_UNIQUE;
        x->p = unique_table(n);
        break;
    case OP_DEPREQ:
        x->op = FI_DEPREQ;
        break;
    case OP_ANYOF: case OP_ONEOF:
        x->op = FI_ANYOF;
        break;
    case OP_ALLOF:
        x->op = FI_ALLOF;
        break;
    case OP_NOT:
        x->op = exact_leaf(w->sub) ? FI_NOTL : FI_NOT;
        x->p = w->sub;
        break;
    case OP_IF: {
        x->op = FI_IF;
        const struct node *m = w->sub;
        const struct kw *props = m && !m->is_bool && !m->has_uneval && m->nkws == 1 ? &m->kws[0] : NULL;
        if (k == K_OBJECT && props && props->op == OP_PROPS && !props->freq && !props->fadd &&
            props->tab.n == 1 && exact_leaf(props->subs[0]))
            x->op = FI_IFM, x->p = props->subs[0], x->name = props->tab.pads[0];
        break;
    }
    case OP_PROPNAMES:
        x->op = FI_PNAMES;
        x->p = w->sub;
        break;
    case OP_PATTERN:
        x->op = FI_PAT;
        x->p = w->re;
        break;
    case OP_ENUM: {
        bool nums = true;
        int cnt = 0;
        for (const cJSON *v = w->json->child; v; v = v->next, cnt++)
            nums = nums && cJSON_IsNumber(v);
        if (!w->all_strings && !nums)
            break;
        if (k != (w->all_strings ? K_STRING : K_NUMBER)) {
            *x = (struct fi){.op = FI_TYPE, .t = 0, .w = w};
            break;
        }
        x->n = cnt;
        if (w->all_strings) { /* the strings' table (compile_kw): its padded names, first bytes */
            x->op = FI_ENUMS;
            x->p = w->tab.pads;
            x->cand = w->tab.cand;
            break;
        }
        double *vals = (double *)keep(s, forge_malloc((size_t)(cnt ? cnt : 1) * sizeof *vals));
        if (!vals)
            return -1;
        int i = 0;
        for (const cJSON *v = w->json->child; v; v = v->next)
            vals[i++] = v->valuedouble;
        x->op = FI_ENUMD;
        x->p = vals;
        break;
    }
    case OP_CONST:
        if (!cJSON_IsString(w->json))
            break;
        if (k != K_STRING)
            *x = (struct fi){.op = FI_TYPE, .t = 0, .w = w};
        else if (!(x->p = pname_keep(s, w->json->valuestring)))
            return -1;
        else
            x->op = FI_CONSTS;
        break;
    case OP_REQUIRED: /* (the names' table has their padded copies) */
        if (w->n == 1)
            x->op = FI_REQ1, x->p = w->tab.pads[0];
        else if (w->n <= 4)
            x->op = FI_REQN, x->n = w->n, x->p = w->tab.pads;
        else if (w->n <= 64)
            x->op = FI_REQ;
        break;
    case OP_PROPS:
        x->op = FI_PROPS;
        break;
    case OP_ITEMS: case OP_ADDITEMS:
        if (!w->sub)
            break;
        x->op = FI_ITEMS;
        x->p = w->sub;
        x->n = w->op == OP_ITEMS ? (w->ntuple > 0 ? w->ntuple : 0) : w->ntuple;
        break;
    case OP_REF:
        x->op = FI_REF;
        x->p = w->sub;
        break;
    default:
        break;
    }
    return o + 1;
}

/* In the array list f[start, o): an FI_ENUMSET before an items instruction (from the first
 * item) whose subschema is a leaf whose one instruction for strings is an enum of strings, next
 * to the uniqueItems instruction that tells items apart by that enum's table (weekdays, tags,
 * scopes): one pass over the items, each looked up once, decides both when they pass. Returns
 * the list's new end. */
static int enum_set(struct fi *f, int start, int o)
{
    for (int i = start; i + 1 < o; i++) {
        const struct fi *a = &f[i], *b = &f[i + 1];
        const struct fi *it = a->op == FI_ITEMS ? a : b, *u = a->op == FI_ITEMS ? b : a;
        if (it->op != FI_ITEMS || u->op != FI_UNIQUE || !u->p || it->n)
            continue;
        const struct node *leaf = it->p; /* (a leaf is entered without a step or depth) */
        const struct fi *e = leaf->leaf && leaf->fprog ? leaf->fk[K_STRING] : NULL;
        if (!e || e->op != FI_ENUMS || !e->last || e->p != ((const struct ntab *)u->p)->pads)
            continue;
        struct fi set = {.op = FI_ENUMSET, .p = u->p, .w = u->w};
        memmove(f + i + 1, f + i, (size_t)(o - i) * sizeof *f);
        f[i] = set;
        return o + 1;
    }
    return o;
}

/* Builds the flat form of every node the verdict walk enters (see struct fi). Returns 0 or
 * FORGE_ENOMEM. */
static int lower_all(struct forge_schema *s)
{
    if (s->dynamic)
        return 0; /* the verdict walk never runs */
    /* leaves first: an array's list may look at its items' leaf (enum_set) */
    for (int i = 0; i < 2 * s->nnodes; i++) {
        struct node *n = s->nodes[i % s->nnodes];
        if (n->is_bool || n->has_uneval || (i < s->nnodes) != n->leaf)
            continue;
        int total = 7; /* the ends, and room for an FI_ENUMSET */
        for (int k = 0; k < 6; k++)
            total += n->nkinds[k];
        if (!(n->fprog = forge_malloc((size_t)total * sizeof *n->fprog)))
            return FORGE_ENOMEM;
        int o = 0;
        for (int k = 0; k < 6; k++) {
            int start = o;
            for (int j = 0; j < n->nkinds[k]; j++)
                if ((o = lower_kw(s, n, n->fprog, start, o, k, n->kinds[k][j])) < 0)
                    return FORGE_ENOMEM;
            if (k == K_ARRAY)
                o = enum_set(n->fprog, start, o);
            if (o > start)
                n->fprog[o - 1].last = true;
            n->fprog[o++] = (struct fi){.op = FI_END, .last = true};
            n->fk[k] = n->fprog + start;
        }
        n->pnode = !n->leaf && !n->refonly && n->fk[K_OBJECT]->op == FI_PROPS && n->fk[K_OBJECT]->last;
    }
    return 0;
}

void forge_schema_free(struct forge_schema *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nnodes; i++) {
        struct node *n = s->nodes[i];
        for (int j = 0; j < n->nkws; j++) {
            struct kw *w = &n->kws[j];
            if (w->res)
                for (int k = 0; k < w->n; k++)
                    forge_ecmare_free(w->res[k]);
            forge_ecmare_free(w->re);
            ntab_free(&w->tab);
            forge_free(w->reqbits);
            forge_free(w->discv);
            forge_free(w->subs);
            forge_free(w->names);
            forge_free(w->seglens);
            forge_free(w->arrs);
            forge_free(w->res);
        }
        /* keywords not counted (a failed compile_kw) may hold allocations too */
        if (n->kws) {
            struct kw *w = &n->kws[n->nkws];
            if (w->res)
                for (int k = 0; k < w->n; k++)
                    forge_ecmare_free(w->res[k]);
            forge_ecmare_free(w->re);
            ntab_free(&w->tab);
            forge_free(w->reqbits);
            forge_free(w->discv);
            forge_free(w->subs);
            forge_free(w->names);
            forge_free(w->seglens);
            forge_free(w->arrs);
            forge_free(w->res);
        }
        while (n->dynanchors) {
            struct dynanchor *d = n->dynanchors;
            n->dynanchors = d->next;
            forge_free(d);
        }
        forge_free(n->kws);
        forge_free(n->kinds[0]);
        forge_free(n->fprog);
        forge_free(n);
    }
    for (int i = 0; i < s->npend; i++) {
        forge_free(s->pend[i].uri);
        forge_free(s->pend[i].where);
    }
    for (int i = 0; i < s->nents; i++) {
        forge_free(s->ents[i].uri);
        forge_free(s->ents[i].parent_base);
        forge_free(s->ents[i].ptr);
        forge_free(s->ents[i].resuri);
    }
    for (int i = 0; i < s->ndocs; i++)
        cJSON_Delete(s->docs[i]);
    for (int i = 0; i < s->nstrs; i++)
        forge_free(s->strs[i]);
    if (s->refdirs)
        for (int i = 0; i < s->opts.nrefdirs; i++) {
            forge_free((char *)s->refdirs[i].prefix);
            forge_free((char *)s->refdirs[i].dir);
        }
    forge_free(s->refdirs);
    forge_free(s->strs);
    forge_free(s->docs);
    forge_free(s->ents);
    forge_free(s->nodes);
    pmap_free(&s->nodemap);
    for (size_t i = 0; i < s->objtabs.cap; i++) {
        struct forge_json_names *ix = s->objtabs.vals[i];
        if (ix)
            forge_json_names_free(ix);
        forge_free(ix);
    }
    pmap_free(&s->objtabs);
    forge_strtab_free(&s->enttab);
    forge_free(s->pend);
    forge_free(s);
}

/* The internal base URI of a schema without $id: relative references resolve against it
 * and it never appears in output. */

struct forge_schema *forge_schema_compile(const cJSON *schema, const struct forge_schema_opts *opts,
                                          struct forge_err *err)
{
    return forge_schema_compile_uri(schema, opts, NULL, err);
}

struct forge_schema *forge_schema_compile_uri(const cJSON *schema, const struct forge_schema_opts *opts,
                                              const char *base_uri, struct forge_err *err)
{
    struct forge_schema *s = forge_calloc(1, sizeof *s);
    int rc = 0;
    if (!s) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory compiling a schema");
        return NULL;
    }
    if (opts)
        s->opts = *opts;
    s->opts.refdirs = NULL;
    if (opts && opts->nrefdirs > 0) {
        s->refdirs = forge_calloc((size_t)opts->nrefdirs, sizeof *s->refdirs);
        if (!s->refdirs) {
            rc = FORGE_ENOMEM;
            goto out;
        }
        for (int i = 0; i < opts->nrefdirs; i++) {
            s->refdirs[i].prefix = forge_strdup(opts->refdirs[i].prefix);
            s->refdirs[i].dir = forge_strdup(opts->refdirs[i].dir);
            if (!s->refdirs[i].prefix || !s->refdirs[i].dir) {
                s->opts.nrefdirs = i + 1;
                rc = FORGE_ENOMEM;
                goto out;
            }
        }
        s->opts.refdirs = s->refdirs;
    } else {
        s->opts.nrefdirs = 0;
    }
    cJSON *doc = cJSON_Duplicate(schema, 1);
    if (!doc) {
        rc = FORGE_ENOMEM;
        goto out;
    }
    int draft = s->opts.draft ? (int)s->opts.draft : FORGE_DRAFT_2020_12;
    if (!is_schema(doc, draft)) {
        cJSON_Delete(doc);
        rc = forge_err_set(err, FORGE_EINVAL, "invalid schema: a schema must be an object%s",
                           draft >= FORGE_DRAFT_6 ? " or a boolean" : "");
        goto out;
    }
    const char *root = ROOT_URI;
    if (base_uri && base_uri[0]) {
        char *r = keep(s, uri_resolve("", base_uri));
        if (!r) {
            cJSON_Delete(doc);
            rc = FORGE_ENOMEM;
            goto out;
        }
        char *hash = strchr(r, '#');
        if (hash)
            *hash = 0;
        root = r;
    }
    if ((rc = add_doc(s, doc, root, draft, err)))
        goto out;
    struct ent *e = find_ent(s, root);
    struct cctx cx = {root, "", e->draft, e->vocab, NULL, "", "", NULL};
    if ((rc = compile(s, doc, &cx, &s->root, err)))
        goto out;
    if ((rc = resolve_all(s, err)))
        goto out;
    if (!(rc = build_kinds(s)))
        rc = lower_all(s);
    int inner = 0;
    for (int i = 0; i < s->nnodes && !rc; i++)
        inner += !s->nodes[i]->is_bool && !s->nodes[i]->leaf;
    s->trail = inner >= TRAIL_NODES;
out:
    if (rc) {
        if (rc == FORGE_ENOMEM)
            forge_err_set(err, rc, "out of memory compiling a schema");
        forge_schema_free(s);
        return NULL;
    }
    return s;
}

/* ---------- validation ---------- */

struct iloc {
    const struct iloc *up;
    const char *key; /* NULL: index */
    long idx;
};

struct kloc {
    const struct kloc *up;
    const char *seg; /* NULL: index; ref_name, items_name: a struct sitelink's */
    long idx;
};

/* The link of a keyword whose subschema starts a region: a $ref the walk followed (idx -1), or
 * an item of an items keyword named items_name (idx: the item's index). */
struct sitelink {
    struct kloc k;
    const struct kw *site;
    long idx;
};

/* Annotations: which members (objects) or items (arrays) of one instance were evaluated. */
#define ANN_INLINE 4
struct ann {
    uint64_t *bits;
    size_t n;
    uint64_t inl[ANN_INLINE];
};

static int ann_init(struct ann *a, const cJSON *inst)
{
    size_t n = 0;
    if (cJSON_IsObject(inst) || cJSON_IsArray(inst))
        for (const cJSON *c = inst->child; c; c = c->next)
            n++;
    a->n = n;
    size_t words = (n + 63) / 64;
    if (words <= ANN_INLINE) {
        a->bits = a->inl;
        memset(a->inl, 0, sizeof a->inl);
    } else {
        a->bits = forge_calloc(words, sizeof *a->bits);
        if (!a->bits)
            return FORGE_ENOMEM;
    }
    return 0;
}

static void ann_done(struct ann *a)
{
    if (a->bits != a->inl)
        forge_free(a->bits);
}

static inline void ann_set(struct ann *a, size_t i)
{
    if (a && i < a->n)
        a->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

static inline bool ann_get(const struct ann *a, size_t i)
{
    return (a->bits[i / 64] >> (i % 64)) & 1;
}

static void ann_merge(struct ann *to, const struct ann *from)
{
    if (!to)
        return;
    size_t words = (to->n + 63) / 64;
    for (size_t i = 0; i < words; i++)
        to->bits[i] |= from->bits[i];
}

static void ann_all(struct ann *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        ann_set(a, i);
}

/* The evaluation budget: schema nodes entered per validation (forge_schema_set_max_steps). The
 * count lives in each validation's own context, so a compiled schema stays shareable. */
static unsigned long max_steps = FORGE_SCHEMA_DEFAULT_STEPS;

/* Which limit the calling thread's last validation broke, for forge_schema_limit_message. */
enum { LIM_NONE, LIM_DEPTH, LIM_STEPS, LIM_PATTERN };
static _Thread_local int last_limit;

void forge_schema_set_max_steps(unsigned long n)
{
    max_steps = n ? n : FORGE_SCHEMA_DEFAULT_STEPS;
}

const char *forge_schema_limit_message(void)
{
    static _Thread_local char msg[200];
    switch (last_limit) {
    case LIM_STEPS:
        snprintf(msg, sizeof msg, "schema evaluation limit exceeded: more than %lu steps "
                 "validating one instance; raise it with --schema-steps N", max_steps);
        return msg;
    case LIM_DEPTH:
        /* (the C stack's bound: a fixed limit, as the JSON reader's nesting is) */
        return "schema evaluation limit exceeded: evaluation nested deeper than 512 schemas, a "
               "fixed limit (a reference cycle that consumes no input, or an instance nested "
               "deeper than its recursive schema can follow)";
    case LIM_PATTERN:
        if (forge_ecmare_timed_out()) {
            snprintf(msg, sizeof msg, "a pattern ran past the %lu ms time limit of one match "
                     "(catastrophic backtracking?); simplify the pattern or raise --regex-timeout",
                     forge_re_timeout_ms());
            return msg;
        }
        return "a pattern hit its PCRE2 match limit (catastrophic backtracking?); simplify the "
               "pattern";
    default:
        return "no schema limit was exceeded";
    }
}

/* Results of probes (a subschema evaluated for its verdict alone, as anyOf branches are) by
 * (node, instance): anyOf over chains of $ref evaluates the same pairs again and again. Sound
 * when the verdict depends on nothing else: no annotations are being collected and the schema
 * has no dynamic references. Made only once a validation has taken many steps, so ordinary
 * validations allocate nothing. */
#define MEMO_AFTER 4096
#define MEMO_MAX ((size_t)1 << 20)
struct memo_ent {
    const void *node, *inst;
    int verdict; /* 0 or 1 */
};
struct memo {
    struct memo_ent *e;
    size_t cap, n;
};

struct vctx {
    const struct forge_schema *s;
    unsigned long steps; /* schema nodes entered so far */
    struct memo memo;
    bool all;
    int quiet;       /* > 0: inside a probe (anyOf branch, not, if, contains): no error output */
    int names;       /* > 0: inside propertyNames, whose instance (each name) is one stack cJSON:
                      * no probe verdict is memoised by its address */
    struct forge_schema_errors *out; /* NULL: errors are not wanted */
    struct trail *tr; /* the verdict walk leaves a trail as it fails (see replay), or NULL */
    /* recording walk: references followed from the root to here, and items (named items_name)
     * entered (none: an error's locations are its keyword's, made at compile time; see fail),
     * plus one when no location may be taken as made at compile time
     * (forge_schema_test_segments) */
    int refs;
    int rc;          /* a failure other than "invalid" */
    int depth;
    const struct node *scope[MAX_DEPTH + 1];
    int nscope;
};

/* After the verdict <r> of a subschema or keyword, in a loop of either walk: a failure (negative)
 * is returned; "invalid" clears <ok> and, unless every error is wanted outside a probe, returns
 * 0 (the walk stops at the first failure). */
#define TALLY(c, r, ok)                  \
    do {                                 \
        if ((r) < 0)                     \
            return (r);                  \
        if (!(r)) {                      \
            (ok) = 0;                    \
            if (!(c)->all || (c)->quiet) \
                return 0;                \
        }                                \
    } while (0)

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "boolean";
    if (cJSON_IsNumber(v)) return (isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble)) ? "integer" : "number";
    if (cJSON_IsString(v)) return "string";
    if (cJSON_IsArray(v)) return "array";
    return "object";
}

/* ---------- errors ----------
 * A failing keyword records its error compactly in the caller's forge_schema_errors: the
 * message's format and operands, the node and keyword, and the instance and keyword paths as
 * arrays of segments (a name pointer, or an index) copied from the walk's stack. Nothing is
 * measured, formatted or escaped then: the text (JSON pointers, absolute location, message) is
 * made only when a caller asks (forge_schema_errors_render, forge_schema_errors_json). Names
 * are borrowed from the instance (member names) and the compiled schema. */

/* One operand of an error message (see struct efmt). */
union earg {
    const char *s;
    long long i;
    double d;
    unsigned u;
};
#define EA_S(x) ((union earg){.s = (x)})
#define EA_I(x) ((union earg){.i = (long long)(x)})
#define EA_D(x) ((union earg){.d = (x)})
#define EA_U(x) ((union earg){.u = (unsigned)(x)})
#define EA_NONE ((union earg){.i = 0})

/* One path segment: a member name, or an index when s is NULL. iloc and kloc have this shape
 * after their link. */
struct eseg {
    union {
        const char *s;
        const struct kw *site; /* a record's ISEG_REF segments (idx: an item's, or -1) */
    };
    long idx;
};

/* A message format split at compile time into its literal pieces (with their lengths) and up
 * to three conversions between them: s a string, d an integer, g a number (JavaScript's
 * String(n)), T a set of type bits ("integer or string"), K the keyword's text (kw.text, whose
 * length is known; its operand is not read), L the keyword's bound, num, as g writes it (kw.ltext,
 * made at compile time; its operand is not read). */
#define EFMT_LIT 64
struct efmt {
    unsigned char nconv;
    char conv[3];
    unsigned char len[4];
    char lit[4][EFMT_LIT];
};
#define EF0(a) {0, {0}, {sizeof a - 1}, {a}}
#define EF1(a, x, b) {1, {x}, {sizeof a - 1, sizeof b - 1}, {a, b}}
#define EF2(a, x, b, y, c) {2, {x, y}, {sizeof a - 1, sizeof b - 1, sizeof c - 1}, {a, b, c}}
#define EF3(a, x, b, y, c, z, d) \
    {3, {x, y, z}, {sizeof a - 1, sizeof b - 1, sizeof c - 1, sizeof d - 1}, {a, b, c, d}}

static const struct efmt
    M_NOT_ALLOWED = EF1("property '", 's', "' is not allowed"),
    M_MISSING = EF1("missing required property '", 's', "'"),
    /* a message made at compile time (its text, then its length as the second operand) */
    M_MADE = EF1("", 's', ""),
    M_TYPE = EF2("expected ", 'T', ", got ", 's', ""),
    M_ENUM = EF1("value must be one of ", 'K', ""),
    M_CONST = EF1("value must be ", 'K', ""),
    M_MULTIPLE = EF2("", 'g', " is not a multiple of ", 'L', ""),
    M_MAXIMUM = EF2("", 'g', " is greater than the maximum ", 'L', ""),
    M_XMAXIMUM = EF2("", 'g', " is not less than the exclusive maximum ", 'L', ""),
    M_MINIMUM = EF2("", 'g', " is less than the minimum ", 'L', ""),
    M_XMINIMUM = EF2("", 'g', " is not greater than the exclusive minimum ", 'L', ""),
    M_MAXLEN = EF2("string has ", 'd', " characters, more than the maximum ", 'L', ""),
    M_MINLEN = EF2("string has ", 'd', " characters, fewer than the minimum ", 'L', ""),
    M_PATTERN = EF1("string does not match the pattern ", 'K', ""),
    M_FORMAT = EF1("string is not a valid ", 'K', ""),
    M_MAXITEMS = EF2("array has ", 'd', " items, more than the maximum ", 'L', ""),
    M_MINITEMS = EF2("array has ", 'd', " items, fewer than the minimum ", 'L', ""),
    M_UNIQUE = EF2("items ", 'd', " and ", 'd', " are equal"),
    M_CONTAINS = EF0("no item matches the contains schema"),
    M_MINCONTAINS = EF2("", 'd', " items match the contains schema, fewer than minContains ", 'L', ""),
    M_MAXCONTAINS = EF2("", 'd', " items match the contains schema, more than maxContains ", 'g', ""),
    M_MAXPROPS = EF2("object has ", 'd', " properties, more than the maximum ", 'L', ""),
    M_MINPROPS = EF2("object has ", 'd', " properties, fewer than the minimum ", 'L', ""),
    M_DEPENDENT = EF2("property '", 's', "' requires property '", 's', "'"),
    M_ANYOF = EF1("value matches none of the ", 'd', " anyOf schemas"),
    M_ONEOF_NONE = EF1("value matches none of the ", 'd', " oneOf schemas"),
    M_ONEOF_MANY = EF2("value matches oneOf schemas ", 'd', " and ", 'd', "; exactly one must match"),
    M_NOT = EF0("value must not match the 'not' schema"),
    M_FALSE = EF0("no value is allowed here (schema false)");

/* The format of the error of bound keyword <op> (contains: too few matches), or NULL. */
static inline const struct efmt *bound_fmt(int op)
{
    switch (op) {
    case OP_MULTOF: return &M_MULTIPLE;
    case OP_MAX: return &M_MAXIMUM;
    case OP_XMAX: return &M_XMAXIMUM;
    case OP_MIN: return &M_MINIMUM;
    case OP_XMIN: return &M_XMINIMUM;
    case OP_MAXLEN: return &M_MAXLEN;
    case OP_MINLEN: return &M_MINLEN;
    case OP_MAXITEMS: return &M_MAXITEMS;
    case OP_MINITEMS: return &M_MINITEMS;
    case OP_CONTAINS: return &M_MINCONTAINS;
    case OP_MAXPROPS: return &M_MAXPROPS;
    case OP_MINPROPS: return &M_MINPROPS;
    default: return NULL;
    }
}

#define KSEG_FIXED UINT32_MAX
#define ISEG_FIXED UINT32_MAX
#define ISEG_REF (UINT32_MAX - 1)
struct erec {
    const struct efmt *fmt;
    const struct node *n;     /* its absolute location */
    const struct kw *kw;      /* the keyword (NULL: a false schema) */
    const char *sub;          /* a segment after it */
    uint32_t iseg, kseg;      /* the first segment of each path in segs, from the leaf up */
    /* nks KSEG_FIXED: the keyword location is kw's kloc (no segments); nis ISEG_FIXED (with
     * KSEG_FIXED): the instance location is kw's iloc; nis ISEG_REF: nks segments from iseg
     * are the sites of the references followed and items entered (innermost first), kseg of
     * them items, and each location is theirs then kw's, joined (see ref_sites) */
    uint32_t nis, nks;
    union earg a[3];
};

static const char *num_text(double d, char *buf, size_t *len);
static size_t type_list(unsigned t, char *out);

/* Records an error. Returns 0 (the keyword failed), or FORGE_ENOMEM. Use FAIL. */
static int fail(struct vctx *c, const struct node *n, const struct iloc *il, const struct kloc *kl,
                const struct kw *kw, const char *sub, const struct efmt *fmt, union earg a0, union earg a1,
                union earg a2);
static inline __attribute__((always_inline)) int
fail_quick(struct vctx *c, const struct node *n, const struct iloc *il, const struct kloc *kl,
           const struct kw *kw, const struct efmt *fmt, union earg a0, union earg a1);
#define FAIL_ARGS(fmt, a0, a1, a2, ...) fmt, a0, a1, a2
/* FAIL(c, n, il, kl, kw, sub, fmt, operands...): up to three operands (EA_*). */
#define FAIL(c, n, il, kl, kw, sub, ...) \
    fail(c, n, il, kl, kw, sub, FAIL_ARGS(__VA_ARGS__, EA_NONE, EA_NONE, EA_NONE, EA_NONE))
/* FAIL of keyword <kw> (not NULL) with up to two operands and no segment after it, its usual
 * case recorded inline: for the keywords of leaves. */
#define FAIL_ARGS2(fmt, a0, a1, ...) fmt, a0, a1
#define FAIL_KW(c, n, il, kl, kw, ...) \
    fail_quick(c, n, il, kl, kw, FAIL_ARGS2(__VA_ARGS__, EA_NONE, EA_NONE, EA_NONE))
/* FAIL of required <w> missing its name <j>, with the message made at compile time when it has
 * one (a required of at most REQ_MADE names: kw_message) */
#define REQ_MADE 64
#define FAIL_MISSING(c, n, il, kl, w, j)                                                            \
    ((w)->reqmsgs ? FAIL(c, n, il, kl, w, NULL, &M_MADE, EA_S((w)->reqmsgs[j].s), EA_I((w)->reqmsgs[j].len)) \
                  : FAIL(c, n, il, kl, w, NULL, &M_MISSING, EA_S((w)->names[j])))

/* Copies <n> bytes from <s> to <d>: the short strings of error text (names, message pieces)
 * in a few loads and stores that stay within both, without a call. */
static inline __attribute__((always_inline)) void copy_short(char *d, const char *s, size_t n)
{
    if (n >= 8) {
        if (n > 64) {
            memcpy(d, s, n);
        } else if (n > 32) {
            memcpy(d, s, 32);
            memcpy(d + n - 32, s + n - 32, 32);
        } else if (n > 16) {
            memcpy(d, s, 16);
            memcpy(d + n - 16, s + n - 16, 16);
        } else {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        }
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* Whether the <n> bytes at <s> hold a "~" or a "/" (eight at a time). */
static inline bool has_esc(const char *s, size_t n)
{
    if (n < 8) {
        if (n < 4) {
            for (size_t i = 0; i < n; i++)
                if (s[i] == '~' || s[i] == '/')
                    return true;
            return false;
        }
        const uint32_t ones = 0x01010101u, highs = 0x80808080u;
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4); /* overlaps the first */
        uint32_t ta = a ^ (ones * '~'), la = a ^ (ones * '/'), tb = b ^ (ones * '~'), lb = b ^ (ones * '/');
        return (((ta - ones) & ~ta) | ((la - ones) & ~la) | ((tb - ones) & ~tb) | ((lb - ones) & ~lb)) & highs;
    }
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    for (size_t i = 0;; i += 8) {
        if (i + 8 > n)
            i = n - 8; /* the last word overlaps the one before */
        uint64_t w, t, l;
        memcpy(&w, s + i, 8);
        t = w ^ (ones * '~');
        l = w ^ (ones * '/');
        if (((t - ones) & ~t & highs) | ((l - ones) & ~l & highs))
            return true;
        if (i + 8 == n)
            return false;
    }
}

#define ERR_TEXT_MAX ((size_t)16 << 20) /* one error's strings: 16 MiB at most */
#define MSG_MAX 1024                     /* one error's message, with its NUL */
#define MSG_SLACK EFMT_LIT               /* room after a message for whole-piece copies */

/* Text being written: <size> bytes at <p>. The writers keep their cursor and its limit in
 * local variables (o, lim), which a byte written through them cannot alias. */
struct wbuf {
    char *p;
    size_t size;
};

/* The slow path of wb_room: grows <b>, of which <used> bytes are written, to hold <need>
 * more. */
static __attribute__((noinline)) int wb_grow(struct wbuf *b, size_t used, size_t need)
{
    if (need > SIZE_MAX / 4 - used)
        return FORGE_ENOMEM;
    size_t ns = b->size ? b->size * 2 : 1024;
    while (ns - used < need)
        ns *= 2;
    char *t = forge_realloc(b->p, ns);
    if (!t)
        return FORGE_ENOMEM;
    b->p = t;
    b->size = ns;
    return 0;
}

/* Room for <need> more bytes at the cursor *<o> of <b> (limit *<lim>), which move when <b>
 * grows. Returns 0 or FORGE_ENOMEM. */
static inline __attribute__((always_inline)) int wb_room(struct wbuf *b, char **o, char **lim,
                                                         size_t need)
{
    if ((size_t)(*lim - *o) >= need)
        return 0;
    size_t used = (size_t)(*o - b->p);
    if (wb_grow(b, used, need))
        return FORGE_ENOMEM;
    *o = b->p + used;
    *lim = b->p + b->size;
    return 0;
}

/* Appends "/" + the name <s> as a JSON pointer token: <seglen> is its length + 1 when known
 * to need no escaping, -1 when it needs none and is to be measured, else 0 (<plain>: known to
 * hold neither "~" nor "/"). Returns 0 or FORGE_ENOMEM. */
static inline __attribute__((always_inline)) int name_put(struct wbuf *b, char **o, char **lim,
                                                          const char *s, long seglen, bool plain)
{
    size_t len = seglen > 0 ? (size_t)seglen - 1 : strlen(s);
    if (seglen != 0 || plain || !has_esc(s, len)) {
        if (wb_room(b, o, lim, len + 1))
            return FORGE_ENOMEM;
        char *d = *o;
        *d = '/';
        copy_short(d + 1, s, len);
        *o = d + len + 1;
        return 0;
    }
    size_t esc = 0;
    for (const char *p = s; *p; p++)
        esc += (*p == '~') | (*p == '/');
    if (wb_room(b, o, lim, len + esc + 1))
        return FORGE_ENOMEM;
    char *d = *o;
    *d++ = '/';
    for (const char *p = s; *p; p++) {
        if (*p == '~' || *p == '/') {
            *d++ = '~';
            *d++ = *p == '~' ? '0' : '1';
        } else {
            *d++ = *p;
        }
    }
    *o = d;
    return 0;
}

/* Writes the decimal digits of <u> so that they end just before <end>; returns the first. */
static inline char *digits_back(char *end, unsigned long long u)
{
    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    return end;
}

/* digits_back of <v> with its sign. */
static inline char *int_back(char *end, long long v)
{
    char *d = digits_back(end, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
    if (v < 0)
        *--d = '-';
    return d;
}

/* Appends the JSON pointer of the <n> segments at <g> (leaf first). Returns 0 or
 * FORGE_ENOMEM. */
static inline __attribute__((always_inline)) int path_put(struct wbuf *b, char **o, char **lim,
                                                          const struct eseg *g, uint32_t n,
                                                          bool plain)
{
    for (uint32_t i = n; i-- > 0;) {
        if (g[i].s) {
            if (name_put(b, o, lim, g[i].s, g[i].idx, plain))
                return FORGE_ENOMEM;
            continue;
        }
        if (wb_room(b, o, lim, 24))
            return FORGE_ENOMEM;
        char tmp[24], *d = digits_back(tmp + sizeof tmp, (unsigned long)(g[i].idx < 0 ? 0 : g[i].idx));
        size_t l = (size_t)(tmp + sizeof tmp - d);
        **o = '/';
        copy_short(*o + 1, d, l);
        *o += l + 1;
    }
    return 0;
}

/* Appends <l> bytes of <s> to the message <out> of <o> bytes, as many as fit in MSG_MAX - 1. */
static inline size_t msg_put(char *out, size_t o, const char *s, size_t l)
{
    if (l > MSG_MAX - 1 - o)
        l = MSG_MAX - 1 - o;
    copy_short(out + o, s, l);
    return o + l;
}

/* The text of operand <k> of format <f>: its bytes (in <num>, 96 bytes, unless a string) and
 * their length. */
static inline __attribute__((always_inline)) const char *
arg_text(const struct efmt *f, int k, union earg a, const struct kw *kw, char *num, size_t *l)
{
    char c = f->conv[k];
    if (c == 'K') {
        *l = kw->text_len;
        return kw->text;
    }
    if (c == 'L') {
        *l = kw->ltext_len;
        return kw->ltext;
    }
    if (c == 's') {
        *l = strlen(a.s);
        return a.s;
    }
    if (c == 'T') {
        *l = type_list(a.u, num);
        return num;
    }
    if (c == 'g' && !(fabs(a.d) < 1e15 && (double)(long long)a.d == a.d)) {
        return num_text(a.d, num, l);
    }
    /* 'd', and 'g' of an integer (-0 as "0", as String(-0)) */
    char *d = int_back(num + 24, c == 'd' ? a.i : (long long)a.d);
    *l = (size_t)(num + 24 - d);
    return d;
}

/* Writes the message of format <f> with operands <args> (and the text of keyword <kw>) at <out>
 * (MSG_MAX + MSG_SLACK bytes), cut to MSG_MAX - 1 bytes, with its NUL. Returns its length. */
static inline __attribute__((always_inline)) size_t
msg_write(char *out, const struct efmt *f, const union earg *args, const struct kw *kw)
{
    /* each literal piece is copied as its whole array, in a few wide moves (the next piece
     * overwrites the excess), while the message is known to fit */
    char num[96];
    memcpy(out, f->lit[0], EFMT_LIT);
    size_t o = f->len[0], l;
    for (int k = 0; k < f->nconv; k++) {
        const char *s = arg_text(f, k, args[k], kw, num, &l);
        if (l + f->len[k + 1] >= MSG_MAX - o)
            goto cut;
        copy_short(out + o, s, l);
        o += l;
        memcpy(out + o, f->lit[k + 1], EFMT_LIT);
        o += f->len[k + 1];
    }
    out[o] = 0;
    return o;
cut: /* (rare) again, each piece cut to what fits */
    o = msg_put(out, 0, f->lit[0], f->len[0]);
    for (int k = 0; k < f->nconv; k++) {
        const char *s = arg_text(f, k, args[k], kw, num, &l);
        o = msg_put(out, o, s, l);
        o = msg_put(out, o, f->lit[k + 1], f->len[k + 1]);
    }
    out[o] = 0;
    return o;
}

/* Keyword <w>'s message when it depends on the schema alone (a format whose one operand is the
 * keyword's text: enum, const, pattern, format; or the count of anyOf's and oneOf's subschemas,
 * when none matched), made once (build_kinds): an error of <w> is rendered by pointing at it.
 * Of a bound's message, the part after the instance's figure (w->ktail); of required's, that
 * of each name (w->reqmsgs). Returns 0 or FORGE_ENOMEM. */
static int kw_message(struct forge_schema *s, struct kw *w)
{
    if (w->op == OP_REQUIRED && w->n > 0 && w->n <= REQ_MADE) {
        struct made *m = (struct made *)(void *)keep(s, forge_malloc((size_t)w->n * sizeof *m));
        if (!m)
            return FORGE_ENOMEM;
        for (int j = 0; j < w->n; j++) {
            char buf[MSG_MAX + MSG_SLACK];
            union earg args[3] = {EA_S(w->names[j]), EA_NONE, EA_NONE};
            size_t l = msg_write(buf, &M_MISSING, args, w);
            char *t = keep(s, forge_malloc(l + 1));
            if (!t)
                return FORGE_ENOMEM;
            memcpy(t, buf, l + 1);
            m[j] = (struct made){t, l};
        }
        w->reqmsgs = m;
        return 0;
    }
    const struct efmt *f = w->op == OP_ENUM      ? &M_ENUM
                           : w->op == OP_CONST   ? &M_CONST
                           : w->op == OP_PATTERN ? &M_PATTERN
                           : w->op == OP_FORMAT  ? &M_FORMAT
                           : w->op == OP_ANYOF   ? &M_ANYOF
                           : w->op == OP_ONEOF   ? &M_ONEOF_NONE
                                                 : NULL;
    if (!f && w->ltext) {
        /* a bound's: the pieces after the instance's figure */
        if (!(f = bound_fmt(w->op)) || f->nconv != 2 || f->conv[1] != 'L')
            return 0;
        size_t l = f->len[1] + w->ltext_len + f->len[2];
        char *t = keep(s, forge_malloc(l + 1));
        if (!t)
            return FORGE_ENOMEM;
        memcpy(t, f->lit[1], f->len[1]);
        memcpy(t + f->len[1], w->ltext, w->ltext_len);
        memcpy(t + f->len[1] + w->ltext_len, f->lit[2], f->len[2] + 1);
        w->ktail = t;
        w->ktail_len = l;
        w->ktailf = f;
        return 0;
    }
    if (!f || (f->conv[0] == 'K' && !w->text))
        return 0;
    char buf[MSG_MAX + MSG_SLACK];
    union earg args[3] = {EA_NONE, EA_NONE, EA_NONE};
    if (f->conv[0] == 'd') /* (the same operand as the walk's FAIL) */
        args[0] = EA_I(w->n);
    size_t l = msg_write(buf, f, args, w);
    char *m = keep(s, forge_malloc(l + 1));
    if (!m)
        return FORGE_ENOMEM;
    memcpy(m, buf, l + 1);
    w->kmsg = m;
    w->kmsg_len = l;
    w->kmsgf = f;
    return 0;
}

/* The message of record <r> when it is text made beforehand (a format without operands, or
 * the keyword's own message), with its length in *<l>; else NULL. */
static inline const char *msg_fixed(const struct erec *r, size_t *l)
{
    const struct efmt *f = r->fmt;
    if (!f->nconv) {
        *l = f->len[0];
        return f->lit[0];
    }
    if (r->kw && r->kw->kmsgf == f) {
        *l = r->kw->kmsg_len;
        return r->kw->kmsg;
    }
    if (f == &M_MADE) {
        *l = (size_t)r->a[1].i;
        return r->a[0].s;
    }
    return NULL;
}

/* Appends record <r>'s locations to <b>, of which <used> bytes are written, each with its
 * NUL: the instance location at offset o[0], the keyword location at o[1], the absolute one
 * at o[2] (SIZE_MAX: none). With <by_ref>, locations made at compile time are not copied:
 * o[0], o[1] and o[2] are then LOCS_KW (the keyword's iloc, kloc, kabs). Returns the bytes then
 * written, or SIZE_MAX when out of memory (also when its strings and message could pass
 * ERR_TEXT_MAX). */
#define LOCS_KW (SIZE_MAX - 1)

/* locs_put's end once keyword <w>'s location is written at <o>: the absolute one, w's kabs
 * (copied, its room made, or with <by_ref> pointed at). Returns what locs_put does. */
static inline __attribute__((always_inline)) size_t kabs_end(struct wbuf *b, char *o, const struct kw *w,
                                                             size_t offs[3], bool by_ref)
{
    offs[2] = SIZE_MAX;
    if (w->kabs && by_ref) {
        offs[2] = LOCS_KW;
    } else if (w->kabs) {
        offs[2] = (size_t)(o - b->p);
        memcpy(o, w->kabs, w->kabs_len + 1);
        o += w->kabs_len + 1;
    }
    size_t used = (size_t)(o - b->p);
    if (used - offs[0] + MSG_MAX > ERR_TEXT_MAX)
        return SIZE_MAX;
    return used;
}

static inline __attribute__((always_inline)) size_t
locs_put(struct wbuf *b, size_t used, const struct erec *r, const struct eseg *segs, bool plain,
         size_t offs[3], bool by_ref)
{
    char *o = b->p + used, *lim = b->p + b->size;
    const struct kw *w = r->kw;
    offs[0] = used;
    if (r->nis == ISEG_FIXED && by_ref) {
        offs[0] = offs[1] = offs[2] = LOCS_KW;
        return used;
    }
    if (r->nis == ISEG_REF) {
        /* the sites' instance locations, the outermost first (an item's with its index), then
         * kw's; the keyword locations of the $refs among them, then kw's (an items' subschema
         * starts no region of keyword locations: with no $ref, it is kw's own) */
        const struct eseg *g = segs + r->iseg;
        size_t li = w->iloc_len, lk = w->kloc_len, la = w->kabs && !by_ref ? w->kabs_len + 1 : 0;
        for (uint32_t i = 0; i < r->nks; i++) {
            li += g[i].site->iloc_len;
            lk += g[i].site->kloc_len;
        }
        /* (room for each item's "/" and index) */
        if (wb_room(b, &o, &lim, li + lk + 2 + la + 21 * (size_t)r->kseg))
            return SIZE_MAX;
        for (uint32_t i = r->nks; i-- > 0;) {
            copy_short(o, g[i].site->iloc, g[i].site->iloc_len);
            o += g[i].site->iloc_len;
            if (g[i].idx >= 0) {
                char tmp[24], *d = digits_back(tmp + sizeof tmp, (unsigned long)g[i].idx);
                size_t l = (size_t)(tmp + sizeof tmp - d);
                *o = '/';
                copy_short(o + 1, d, l);
                o += l + 1;
            }
        }
        copy_short(o, w->iloc, w->iloc_len + 1);
        o += w->iloc_len + 1;
        if (r->kseg == r->nks && by_ref) { /* (items alone) */
            offs[1] = LOCS_KW;
            return kabs_end(b, o, w, offs, true);
        }
        offs[1] = (size_t)(o - b->p);
        for (uint32_t i = r->nks; i-- > 0;) {
            size_t l = g[i].idx < 0 ? g[i].site->kloc_len : 0;
            copy_short(o, g[i].site->kloc, l);
            o += l;
        }
        copy_short(o, w->kloc, w->kloc_len + 1);
        return kabs_end(b, o + w->kloc_len + 1, w, offs, by_ref);
    }
    if (r->nis == ISEG_FIXED) {
        if (wb_room(b, &o, &lim, w->iloc_len + 1))
            return SIZE_MAX;
        memcpy(o, w->iloc, w->iloc_len);
        o += w->iloc_len;
    } else if (path_put(b, &o, &lim, segs + r->iseg, r->nis, false) || wb_room(b, &o, &lim, 1)) {
        return SIZE_MAX;
    }
    *o++ = 0;
    offs[1] = (size_t)(o - b->p);
    if (r->nks == KSEG_FIXED) {
        /* both locations made at compile time */
        if (by_ref) {
            offs[1] = offs[2] = LOCS_KW;
            used = (size_t)(o - b->p);
            if (used - offs[0] + MSG_MAX > ERR_TEXT_MAX)
                return SIZE_MAX;
            return used;
        }
        size_t lk = w->kloc_len + 1, la = w->kabs ? w->kabs_len + 1 : 0;
        if (wb_room(b, &o, &lim, lk + la))
            return SIZE_MAX;
        copy_short(o, w->kloc, lk);
        return kabs_end(b, o + lk, w, offs, false);
    }
    if (path_put(b, &o, &lim, segs + r->kseg, r->nks, plain))
        return SIZE_MAX;
    size_t tail = (size_t)(o - b->p);
    if ((r->kw && name_put(b, &o, &lim, r->kw->name, r->kw->seglen, plain)) ||
        (r->sub && name_put(b, &o, &lim, r->sub, 0, plain)) || wb_room(b, &o, &lim, 1))
        return SIZE_MAX;
    *o++ = 0;
    size_t ltail = (size_t)(o - b->p) - tail; /* with the NUL */
    offs[2] = SIZE_MAX;
    if (w && w->kabs && !r->sub && by_ref) { /* made at compile time */
        offs[2] = LOCS_KW;
    } else if (w && w->kabs && !r->sub) {
        size_t la = w->kabs_len + 1;
        if (wb_room(b, &o, &lim, la))
            return SIZE_MAX;
        offs[2] = (size_t)(o - b->p);
        memcpy(o, w->kabs, la);
        o += la;
    } else if (r->n->abs_shown) {
        size_t lbase = r->n->abs_len;
        if (wb_room(b, &o, &lim, lbase + ltail))
            return SIZE_MAX;
        offs[2] = (size_t)(o - b->p);
        memcpy(o, r->n->abs, lbase);
        memcpy(o + lbase, b->p + tail, ltail);
        o += lbase + ltail;
    }
    used = (size_t)(o - b->p);
    if (used - offs[0] + MSG_MAX > ERR_TEXT_MAX)
        return SIZE_MAX;
    return used;
}

/* Room for <need> more segments. */
static int seg_reserve(struct forge_schema_errors *e, size_t need)
{
    size_t want = (size_t)e->nsegs + need;
    if (want <= (size_t)e->capsegs && e->segs) /* (made with the first record: never NULL) */
        return 0;
    if (want > (size_t)INT_MAX / 2)
        return FORGE_ENOMEM;
    size_t nc = e->capsegs ? (size_t)e->capsegs * 2 : 64;
    while (nc < want)
        nc *= 2;
    struct eseg *g = forge_realloc(e->segs, nc * sizeof *g);
    if (!g)
        return FORGE_ENOMEM;
    e->segs = g;
    e->capsegs = (int)nc;
    return 0;
}

/* The slow path of fail: room for one more record and <need> segments. */
static __attribute__((noinline)) int err_grow(struct forge_schema_errors *e, size_t need)
{
    if (e->n == e->caprecs) {
        int nc = e->caprecs ? e->caprecs * 2 : 8;
        struct erec *l = forge_realloc(e->recs, (size_t)nc * sizeof *l);
        if (!l)
            return FORGE_ENOMEM;
        e->recs = l;
        e->caprecs = nc;
    }
    return seg_reserve(e, need);
}

/* A record's message, node, keyword, sub-segment and first segment. */
static inline __attribute__((always_inline)) void rec_set(struct erec *r, const struct efmt *fmt,
                                                          const struct node *n, const struct kw *kw,
                                                          const char *sub, union earg a0,
                                                          union earg a1, union earg a2, uint32_t iseg)
{
    r->fmt = fmt;
    r->n = n;
    r->kw = kw;
    r->sub = sub;
    r->a[0] = a0;
    r->a[1] = a1;
    r->a[2] = a2;
    r->iseg = iseg;
}

/* fail's usual case for a keyword of a leaf, inline: reached through subschemas alone, at a
 * place that the schema fixes, both locations were made at compile time and the record has no
 * segments. */
static inline __attribute__((always_inline)) int
fail_quick(struct vctx *c, const struct node *n, const struct iloc *il, const struct kloc *kl,
           const struct kw *kw, const struct efmt *fmt, union earg a0, union earg a1)
{
    struct forge_schema_errors *e = c->out;
    if (kw->iloc && !c->refs && !c->quiet && e && e->n < e->caprecs) {
        struct erec *r = (struct erec *)e->recs + e->n++;
        rec_set(r, fmt, n, kw, NULL, a0, a1, EA_NONE, (uint32_t)e->nsegs);
        r->nis = ISEG_FIXED;
        r->nks = KSEG_FIXED;
        return 0;
    }
    return fail(c, n, il, kl, kw, NULL, fmt, a0, a1, EA_NONE);
}

static _Thread_local unsigned long ref_records; /* (for tests: see forge_schema_test_ref_records) */

/* For fail: when each site the walk went through to keyword <kw> (kl's sitelinks, c->refs of
 * them: the $refs it followed and the items it entered) is in a place whose locations its region
 * fixes (its keyword's iloc), and leads into the region of the place the walk went on to (the
 * site's subschema is that place's rbase; the first site's is in the root's region), appends
 * their keywords to e's segments (after e->nsegs), the innermost first, each with its item's
 * index (-1 for a $ref), and returns the new count of segments; else (or out of memory)
 * UINT32_MAX. The walk from a region's start to the next site, or to <kw>, took the path its iloc
 * and kloc were made along: the schema's own, through no other site. */
static inline __attribute__((always_inline)) uint32_t
ref_sites(const struct vctx *c, struct forge_schema_errors *e, const struct kloc *kl, const struct kw *kw,
          uint32_t *items)
{
    if ((size_t)e->nsegs + (size_t)c->refs > (size_t)e->capsegs && seg_reserve(e, (size_t)c->refs))
        return UINT32_MAX;
    struct eseg *g = e->segs;
    uint32_t k = (uint32_t)e->nsegs;
    const struct node *want = kw->rbase;
    int found = 0;
    for (; kl; kl = kl->up) {
        if (!site_name(kl->seg))
            continue;
        const struct sitelink *l = (const struct sitelink *)(const void *)kl;
        const struct kw *site = l->site;
        if (site->sub != want || !site->iloc)
            return UINT32_MAX;
        g[k].site = site;
        g[k++].idx = l->idx;
        *items += l->idx >= 0;
        want = site->rbase;
        if (++found == c->refs) /* (the last: the links above hold no other) */
            return want == c->s->root ? k : UINT32_MAX;
    }
    return UINT32_MAX;
}

static int fail(struct vctx *c, const struct node *n, const struct iloc *il, const struct kloc *kl,
                const struct kw *kw, const char *sub, const struct efmt *fmt, union earg a0, union earg a1,
                union earg a2)
{
    if (c->quiet || !c->out)
        return 0;
    struct forge_schema_errors *e = c->out;
    if (e->n == e->caprecs && err_grow(e, 0))
        goto nomem;
    struct erec *r = (struct erec *)e->recs + e->n;
    struct eseg *g = e->segs;
    uint32_t k = (uint32_t)e->nsegs, cap = (uint32_t)e->capsegs;
    rec_set(r, fmt, n, kw, sub, a0, a1, a2, k);
    /* reached through subschemas alone: the keyword location made at compile time, and the
     * instance location too when the schema fixes it */
    bool fixed = kw && kw->kloc && !sub && !c->refs;
    if (fixed && kw->iloc) {
        r->nis = ISEG_FIXED;
        r->nks = KSEG_FIXED;
        e->n++;
        return 0;
    }
    uint32_t items = 0;
    if (kw && kw->rref && !sub && (k = ref_sites(c, e, kl, kw, &items)) != UINT32_MAX) {
        r = (struct erec *)e->recs + e->n; /* (the segments may have moved, not the records) */
        ref_records++;
        r->nis = ISEG_REF;
        r->kseg = items;
        r->nks = k - r->iseg;
        e->nsegs = (int)k;
        e->n++;
        return 0;
    }
    k = r->iseg;
    g = e->segs;
    cap = (uint32_t)e->capsegs;
    for (; il; il = il->up) {
        if (k == cap) {
            e->nsegs = (int)k;
            if (seg_reserve(e, 1))
                goto nomem;
            g = e->segs;
            cap = (uint32_t)e->capsegs;
        }
        g[k++] = (struct eseg){{il->key}, il->idx};
    }
    r->nis = k - r->iseg;
    r->kseg = k;
    if (fixed) {
        r->nks = KSEG_FIXED;
        e->nsegs = (int)k;
        e->n++;
        return 0;
    }
    for (; kl; kl = kl->up) {
        if (k == cap) {
            e->nsegs = (int)k;
            if (seg_reserve(e, 1))
                goto nomem;
            g = e->segs;
            cap = (uint32_t)e->capsegs;
        }
        g[k++] = (struct eseg){{kl->seg}, kl->idx};
    }
    r->nks = k - r->kseg;
    e->nsegs = (int)k;
    e->n++;
    return 0;
nomem:
    c->rc = FORGE_ENOMEM;
    return FORGE_ENOMEM;
}

void forge_schema_errors_free(struct forge_schema_errors *e)
{
    if (!e)
        return;
    forge_free(e->list);
    forge_free(e->recs);
    forge_free(e->segs);
    forge_free(e->text);
    memset(e, 0, sizeof *e);
}

static __attribute__((noinline)) int errors_render(struct forge_schema_errors *e);
static __attribute__((noinline)) int errors_render_from(struct forge_schema_errors *e, int i, size_t len);

int forge_schema_errors_render(struct forge_schema_errors *e)
{
    if (e->rendered)
        return 0;
    if (!e->n) { /* (a valid instance: nothing to write, no frame to set up) */
        e->len = 0;
        e->rendered = true;
        return 0;
    }
    if (e->caplist < e->n || !e->text || ((const struct erec *)e->recs)->nis != ISEG_FIXED)
        return errors_render_from(e, 0, 0);
    return errors_render(e);
}

/* msg_write of format <f>, <kw>'s ktailf: its first piece, the figure <a0> (d or g), then kw's
 * tail. */
static inline __attribute__((always_inline)) size_t
msg_write_tail(char *out, const struct efmt *f, union earg a0, const struct kw *kw)
{
    char num[96];
    const char *s;
    size_t l;
    memcpy(out, f->lit[0], EFMT_LIT);
    size_t o = f->len[0];
    long long v;
    if (f->conv[0] == 'd') {
        v = a0.i;
    } else if (fabs(a0.d) < 1e15 && (double)(long long)a0.d == a0.d) {
        v = (long long)a0.d; /* (-0 as "0", as String(-0)) */
    } else {
        s = num_text(a0.d, num, &l);
        goto put;
    }
    s = int_back(num + 24, v);
    l = (size_t)(num + 24 - s);
put:
    copy_short(out + o, s, l);
    o += l;
    copy_short(out + o, kw->ktail, kw->ktail_len + 1);
    return o + kw->ktail_len;
}

/* errors_render's part for a record whose locations are not all made at compile time: writes
 * them to <b> after its <len> bytes and points <l> at them. Returns the bytes then written, or
 * SIZE_MAX when out of memory. */
static inline __attribute__((always_inline)) size_t render_locs(struct wbuf *b, size_t len, const struct erec *r,
                                                    const struct eseg *segs, bool plain,
                                                    struct forge_schema_error *l)
{
    size_t o[3];
    if ((len = locs_put(b, len, r, segs, plain, o, true)) == SIZE_MAX)
        return SIZE_MAX;
    char *p = b->p;
    l->instance_location = p + o[0];
    l->keyword_location = o[1] == LOCS_KW ? r->kw->kloc : p + o[1];
    l->absolute_keyword_location = o[2] == SIZE_MAX ? NULL : o[2] == LOCS_KW ? r->kw->kabs : p + o[2];
    return len;
}

/* msg_write out of line, for errors_render. */
static __attribute__((noinline)) size_t msg_write_out(char *out, const struct erec *r)
{
    return msg_write(out, r->fmt, r->a, r->kw);
}

/* errors_render from record <i> on, the text's first <len> bytes written (for the records
 * before it, which it writes again if the text moves as it grows): every kind of record. */
static __attribute__((noinline)) int errors_render_from(struct forge_schema_errors *e, int i, size_t len)
{
    if (e->caplist < e->n) {
        struct forge_schema_error *l = forge_realloc(e->list, (size_t)e->n * sizeof *l);
        if (!l)
            return FORGE_ENOMEM;
        e->list = l;
        e->caplist = e->n;
    }
    if (!e->text) { /* (no arithmetic on NULL) */
        struct wbuf b0 = {NULL, 0};
        if (wb_grow(&b0, 0, MSG_MAX + MSG_SLACK))
            return FORGE_ENOMEM;
        e->text = b0.p;
        e->size = b0.size;
    }
    const struct erec *recs = e->recs;
    const struct eseg *segs = e->segs;
    bool plain = e->plain_names;
    struct wbuf b = {e->text, e->size};
again: /* (with i and len 0 when the text moved as it grew: all again, with the room it has now) */
    for (; i < e->n; i++) {
        const struct erec *r = recs + i;
        const struct kw *w = r->kw;
        struct forge_schema_error *l = &e->list[i];
        char *p = b.p;
        if (r->nis == ISEG_FIXED) { /* (every location made at compile time) */
            l->instance_location = w->iloc;
            l->keyword_location = w->kloc;
            l->absolute_keyword_location = w->kabs;
        } else {
            if ((len = render_locs(&b, len, r, segs, plain, l)) == SIZE_MAX)
                goto nomem;
            if (b.p != p) {
                i = 0;
                len = 0;
                goto again;
            }
        }
        size_t lm;
        if ((l->message = msg_fixed(r, &lm)))
            continue;
        if (b.size - len < MSG_MAX + MSG_SLACK) {
            if (wb_grow(&b, len, MSG_MAX + MSG_SLACK))
                goto nomem;
            if (b.p != p) {
                i = 0;
                len = 0;
                goto again;
            }
        }
        l->message = p + len;
        if (w && w->ktailf == r->fmt)
            len += msg_write_tail(p + len, r->fmt, r->a[0], w) + 1;
        else
            len += msg_write_out(p + len, r) + 1;
    }
    e->text = b.p;
    e->size = b.size;
    e->len = len;
    e->rendered = true;
    return 0;
nomem:
    e->text = b.p;
    e->size = b.size;
    e->len = 0;
    return FORGE_ENOMEM;
}

/* The usual records first, in a loop of few variables: each location made at compile time, a
 * message made too or a bound's; errors_render_from from the first other one on. The list
 * and the text have room (forge_schema_errors_render). */
static int errors_render(struct forge_schema_errors *e)
{
    const struct erec *r = e->recs;
    struct forge_schema_error *l = e->list;
    char *p = e->text;
    size_t len = 0;
    for (int i = 0; i < e->n; i++, r++, l++) {
        const struct kw *w = r->kw;
        if (r->nis != ISEG_FIXED)
            return errors_render_from(e, i, len);
        l->instance_location = w->iloc;
        l->keyword_location = w->kloc;
        l->absolute_keyword_location = w->kabs;
        size_t lm;
        if ((l->message = msg_fixed(r, &lm)))
            continue;
        if (w->ktailf != r->fmt || e->size - len < MSG_MAX + MSG_SLACK)
            return errors_render_from(e, i, len);
        l->message = p + len;
        len += msg_write_tail(p + len, r->fmt, r->a[0], w) + 1;
    }
    e->len = len;
    e->rendered = true;
    return 0;
}

/* A string member that references text owned elsewhere (cJSON_Delete frees only the node). */
static cJSON *str_ref(const char *text)
{
    cJSON *v = cJSON_malloc(sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = cJSON_String | cJSON_IsReference;
        v->valuestring = (char *)text;
    }
    return v;
}

/* Appends <item> (a string member named by the constant <key>) to the object <o>, whose last
 * member is *<last>. */
static inline void member_add(cJSON *o, cJSON **last, cJSON *item, const char *key)
{
    item->string = (char *)key;
    item->type |= cJSON_StringIsConst;
    if (!*last) {
        o->child = item;
        item->prev = item;
    } else {
        (*last)->next = item;
        item->prev = *last;
        o->child->prev = item;
    }
    *last = item;
}

cJSON *forge_schema_errors_json(const struct forge_schema_errors *e)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return NULL;
    const struct erec *recs = e->recs;
    struct wbuf b = {NULL, 0};
    char msg[MSG_MAX + MSG_SLACK];
    if (e->n && wb_grow(&b, 0, 256)) { /* (no arithmetic on NULL) */
        cJSON_Delete(arr);
        return NULL;
    }
    for (int i = 0; i < e->n; i++) {
        /* one block holds the four strings; the "error" member owns it, the others reference
         * it (cJSON frees only the owner, and cJSON_Duplicate copies referenced strings) */
        size_t o[3], len = locs_put(&b, 0, recs + i, e->segs, e->plain_names, o, false);
        if (len == SIZE_MAX)
            goto fail;
        size_t lm;
        const char *mt = msg_fixed(recs + i, &lm);
        if (!mt) {
            lm = msg_write(msg, recs[i].fmt, recs[i].a, recs[i].kw);
            mt = msg;
        }
        char *block = cJSON_malloc(lm + 1 + len);
        cJSON *obj = NULL, *vi = NULL, *vk = NULL, *va = NULL, *vm = NULL;
        if (block && (obj = cJSON_malloc(sizeof *obj)) != NULL) {
            memset(obj, 0, sizeof *obj);
            obj->type = cJSON_Object;
            memcpy(block, mt, lm + 1);
            memcpy(block + lm + 1, b.p, len);
            char *locs = block + lm + 1;
            vi = str_ref(locs + o[0]);
            vk = str_ref(locs + o[1]);
            va = o[2] != SIZE_MAX ? str_ref(locs + o[2]) : NULL;
            vm = str_ref(block);
        }
        if (!obj || !vm || !vi || !vk || (o[2] != SIZE_MAX && !va)) {
            void *parts[] = {vm, vi, vk, va, obj, block};
            for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
                if (parts[k])
                    cJSON_free(parts[k]);
            goto fail;
        }
        vm->type &= ~cJSON_IsReference; /* the owner of the block */
        cJSON *last = NULL;
        member_add(obj, &last, vi, "instanceLocation");
        member_add(obj, &last, vk, "keywordLocation");
        if (va)
            member_add(obj, &last, va, "absoluteKeywordLocation");
        member_add(obj, &last, vm, "error");
        cJSON_AddItemToArray(arr, obj);
    }
    forge_free(b.p);
    return arr;
fail:
    forge_free(b.p);
    cJSON_Delete(arr);
    return NULL;
}

static int vnode(struct vctx *c, const struct node *n, const cJSON *inst, const struct iloc *il,
                 const struct kloc *kl, struct ann *ann);
static int vnode_body(struct vctx *c, const struct node *n, const cJSON *inst,
                      const struct iloc *il, const struct kloc *kl, struct ann *ann);

static size_t memo_slot(const struct memo *m, const void *node, const void *inst)
{
    size_t h = ((size_t)(uintptr_t)node * 0x9E3779B97F4A7C15u) ^ ((size_t)(uintptr_t)inst >> 4);
    h ^= h >> 29;
    size_t i = h & (m->cap - 1);
    while (m->e[i].node && (m->e[i].node != node || m->e[i].inst != inst))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void memo_put(struct memo *m, const void *node, const void *inst, int verdict)
{
    if (m->n * 2 >= m->cap) {
        if (m->cap >= MEMO_MAX)
            return;
        size_t cap = m->cap ? m->cap * 2 : 1024;
        struct memo_ent *e = forge_calloc(cap, sizeof *e);
        if (!e)
            return; /* no memo: only slower */
        struct memo old = *m;
        m->e = e;
        m->cap = cap;
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.e[i].node)
                m->e[memo_slot(m, old.e[i].node, old.e[i].inst)] = old.e[i], m->n++;
        forge_free(old.e);
    }
    size_t i = memo_slot(m, node, inst);
    if (!m->e[i].node)
        m->n++;
    m->e[i] = (struct memo_ent){node, inst, verdict};
}

static int fprobe(struct vctx *c, const struct node *n, const cJSON *inst);

/* Runs <n> without reporting errors (a probe); returns 1, 0 or negative. Without annotations
 * or dynamic references, the verdict walk (fprobe, memoised). */
static int probe(struct vctx *c, const struct node *n, const cJSON *inst, const struct iloc *il,
                 const struct kloc *kl, struct ann *ann)
{
    if (!ann && !c->s->dynamic)
        return fprobe(c, n, inst);
    c->quiet++;
    int r = vnode(c, n, inst, il, kl, ann);
    c->quiet--;
    return r;
}

static size_t cp_len(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

static inline bool is_integer(const cJSON *v)
{
    if (!cJSON_IsNumber(v))
        return false;
    /* below 2^52 in magnitude a conversion to an integer tells; above, every finite double is
     * one (NaN fails both tests) */
    double d = v->valuedouble, a = fabs(d);
    return a < 4503599627370496.0 ? d == (double)(long long)d : a <= DBL_MAX;
}

/* The type bit of each cJSON type (a one-hot byte; Raw and Invalid: none). */
static const unsigned char type_bits[256] = {
    [cJSON_False] = T_BOOL, [cJSON_True] = T_BOOL, [cJSON_NULL] = T_NULL,
    [cJSON_Number] = T_NUMBER, [cJSON_String] = T_STRING, [cJSON_Array] = T_ARRAY,
    [cJSON_Object] = T_OBJECT,
};

static inline bool type_ok(unsigned t, const cJSON *v)
{
    unsigned b = type_bits[v->type & 0xFF];
    if (t & b)
        return true;
    return b == T_NUMBER && (t & T_INTEGER) && is_integer(v);
}

/* Writes the names of the type bits <t> ("integer or string") at <out> (80 bytes), with its
 * NUL; returns their length. */
static size_t type_list(unsigned t, char *out)
{
    static const char names[][8] = {"null", "boolean", "object", "array", "number", "string", "integer"};
    static const unsigned char lens[] = {4, 7, 6, 5, 6, 6, 7};
    size_t o = 0;
    for (int i = 0; i < 7; i++) {
        if (!(t & (1u << i)))
            continue;
        if (o) {
            memcpy(out + o, " or ", 4);
            o += 4;
        }
        memcpy(out + o, names[i], lens[i]);
        o += lens[i];
    }
    out[o] = 0;
    return o;
}

/* JavaScript's String(d) (as forge_json_number), written in <buf> (64 bytes), with fast paths
 * for integers and short decimals: returns its first byte, and its length in *<len>. */
static __attribute__((noinline)) const char *num_text(double d, char *buf, size_t *len)
{
    char *out = buf + 24;
    if (fabs(d) < 1e15 && (double)(long long)d == d) {
        char *p = int_back(buf + 24, (long long)d);
        *len = (size_t)(buf + 24 - p);
        return p;
    }
    if (isfinite(d) && fabs(d) >= 1e-6 && fabs(d) < 1e15) {
        /* A decimal of k fractional digits and at most 15 significant ones that reads back as
         * d: I / 10^k, with I = d * 10^k rounded. Both are exact doubles (I < 10^15, 10^k <=
         * 10^15), so their quotient is the correctly rounded value of that decimal, as strtod
         * would read it; the smallest such k gives the shortest form, which is unique at this
         * length. (|d| * 10^k is off from I by far less than 0.5, so rounding finds it.) */
        static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                     1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
        double ad = fabs(d);
        for (int k = 1; k <= 15; k++) {
            /* nearbyint, without a call: below 2^52, adding and taking away 2^52 rounds to
             * an integer (to even, as the default rounding mode does), where doubles are
             * evaluated as doubles */
            double x = ad * p10[k];
            if (x >= 1e15)
                break;
#if FLT_EVAL_METHOD == 0
            double v = (x + 0x1p52) - 0x1p52;
#else
            double v = nearbyint(x);
#endif
            if (v >= 1e15)
                break;
            if (v / p10[k] != ad)
                continue;
            unsigned long long u = (unsigned long long)v;
            char *p = buf + 40;
            int digits = 0;
            while (u || digits <= k) {
                if (digits == k)
                    *--p = '.';
                *--p = (char)('0' + u % 10);
                u /= 10;
                digits++;
            }
            if (d < 0)
                *--p = '-';
            *len = (size_t)(buf + 40 - p);
            return p;
        }
        /* plain decimal notation: the shortest of 15 to 17 digits that reads back */
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(out, 32, "%.*g", prec, d);
            if (!strchr(out, 'e') && strtod(out, NULL) == d) {
                *len = strlen(out);
                return out;
            }
        }
    }
    *len = strlen(forge_json_number(d, out));
    return out;
}

/* forge_json_equal with the scalar cases inline. */
static inline bool json_eq(const cJSON *a, const cJSON *b)
{
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta == cJSON_Number)
        return tb == cJSON_Number && a->valuedouble == b->valuedouble;
    if (ta == cJSON_String) /* the first bytes differ in most unequal pairs: no call then */
        return tb == cJSON_String && a->valuestring[0] == b->valuestring[0] &&
               !strcmp(a->valuestring, b->valuestring);
    if (ta != tb && !((ta == cJSON_True || ta == cJSON_False) && (tb == cJSON_True || tb == cJSON_False)))
        return false;
    return forge_json_equal(a, b);
}

static bool multiple_of(double x, double m)
{
    if (m == floor(m) && x == floor(x) && fabs(x) < 9007199254740992.0 && fabs(m) < 9007199254740992.0)
        return fmod(x, m) == 0;
    double q = x / m;
    if (!isfinite(q))
        return x == floor(x) && fmod(1.0, m) == 0; /* an integer and m divides 1 (0.5, 0.25) */
    return fabs(q - nearbyint(q)) < 1e-9;
}

static int member_count(const cJSON *o)
{
    int n = 0;
    for (const cJSON *c = o->child; c; c = c->next)
        n++;
    return n;
}

struct uent {
    uint64_t h;
    int i;
    const cJSON *v;
};

static int uent_cmp(const void *a, const void *b)
{
    const struct uent *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

#define UNIQUE_SCAN 32 /* arrays of at most this many items are compared pair by pair */

/* Whether the items of the array <a> are unique (uniqueItems). When not, *<pi> and *<pj> are
 * the pair a scan of every pair in order finds first: the least i with an equal later item,
 * and the least such j. Past UNIQUE_SCAN items, only items of equal hashes are compared. */
static bool unique_items(const cJSON *a, int *pi, int *pj)
{
    int n = 0;
    for (const cJSON *x = a->child; x && n <= UNIQUE_SCAN; x = x->next)
        n++;
    if (n > UNIQUE_SCAN)
        n = member_count(a);
    struct uent *e = n > UNIQUE_SCAN ? forge_malloc((size_t)n * sizeof *e) : NULL;
    if (e) {
        int k = 0;
        bool ok = true;
        for (const cJSON *x = a->child; x && ok; x = x->next, k++) {
            e[k] = (struct uent){0, k, x};
            ok = forge_json_hash(x, &e[k].h);
        }
        if (ok) {
            qsort(e, (size_t)n, sizeof *e, uent_cmp);
            int bi = -1, bj = -1;
            for (int r = 0; r < n;) {
                int end = r + 1;
                while (end < n && e[end].h == e[r].h)
                    end++;
                for (int x = r; x < end; x++)
                    for (int y = x + 1; y < end; y++)
                        if (json_eq(e[x].v, e[y].v)) {
                            if (bi < 0 || e[x].i < bi || (e[x].i == bi && e[y].i < bj))
                                bi = e[x].i, bj = e[y].i;
                            break;
                        }
                r = end;
            }
            forge_free(e);
            *pi = bi;
            *pj = bj;
            return bi < 0;
        }
        forge_free(e); /* out of memory: pair by pair */
    }
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        int j = i + 1;
        for (const cJSON *y = x->next; y; y = y->next, j++)
            if (json_eq(x, y)) {
                *pi = i;
                *pj = j;
                return false;
            }
    }
    return true;
}

static __attribute__((noinline)) bool items_unique(const cJSON *a)
{
    int i, j;
    return unique_items(a, &i, &j);
}

/* The items of the array <a> by their strings' indexes in the name table <t> (of at most 64
 * strings, unique_table), where equal strings have one index: 1 when each item is one of those
 * strings and none is there twice, 0 when one is there twice, -1 at an item that is not one of
 * them. */
static inline __attribute__((always_inline)) int table_set(const struct ntab *t, const cJSON *a)
{
    uint64_t seen = 0;
    for (const cJSON *x = a->child; x; x = x->next) {
        int j = cJSON_IsString(x) ? ntab_find(t, x->valuestring) : -1;
        if (j < 0)
            return -1;
        if (seen >> j & 1)
            return 0;
        seen |= (uint64_t)1 << j;
    }
    return 1;
}

/* uniqueItems on the array <a> with the name table <t>: an item that is not one of its strings
 * leaves the array to items_unique. */
static __attribute__((noinline)) bool unique_in_table(const struct ntab *t, const cJSON *a)
{
    int r = table_set(t, a);
    return r < 0 ? items_unique(a) : r;
}

/* FI_ENUMSET: whether every item of the array <a> is a string of the table <t>, none of them
 * twice. (A call with the look-up inline in its loop: inline itself, the look-up would be a
 * call for each item.) */
static __attribute__((noinline, flatten)) bool enum_set_ok(const struct ntab *t, const cJSON *a)
{
    return table_set(t, a) == 1;
}

/* True when the object <inst> has every name of "required" <w> (false: evaluate it fully,
 * which also reports the missing names). */
static inline bool has_member(const cJSON *o, const char *name)
{
    for (const cJSON *m = o->child; m; m = m->next)
        if (m->string[0] == name[0] && !strcmp(m->string, name))
            return true;
    return false;
}

/* Whether the object <o> has a member named by the padded name <pad>. */
static inline bool has_pname(const cJSON *o, const char *pad)
{
    for (const cJSON *m = o->child; m; m = m->next)
        if (m->string[0] == pad[0] && pname_eq(m->string, pad))
            return true;
    return false;
}

/* Whether an instance object has names, for a keyword that may ask about many
 * (dependentRequired, dependencies: each listed name): scans for the first MEMBERS_SCANS
 * questions, then a table of the object's names, built once, so n names of an object of m
 * members cost n + m, not n * m. Out of memory, it keeps scanning. */
enum { MEMBERS_SCANS = 8 };
struct members {
    const cJSON *o;
    int asked;
    bool built;
    struct forge_json_names ix;
};

static bool members_has(struct members *m, const char *name)
{
    if (!m->built && m->asked >= 0 && ++m->asked > MEMBERS_SCANS) {
        m->built = !forge_json_names_build(&m->ix, m->o);
        if (!m->built)
            m->asked = -1; /* out of memory: scan from now on */
    }
    return m->built ? forge_json_names_find(&m->ix, name) != NULL : has_member(m->o, name);
}

/* "required" <w> of more than 64 names on the object <o>: one pass over its members marks the
 * names it has (a repeated name under its first index, as the table keeps it), instead of a
 * scan of the members for each name. Returns 1 when every name is there, 0 when one is not
 * (and, when <missing> is not NULL, calls missing(ctx, name) for each missing name in order
 * until it returns nonzero), or -1 when out of memory. */
struct missing_fn {
    int (*fn)(void *ctx, const char *name);
    void *ctx;
};

static int required_big(const struct kw *w, const cJSON *o, const struct missing_fn *missing)
{
    uint64_t few[64], *bits = few;
    size_t words = ((size_t)w->n + 63) / 64;
    if (words > 64 && !(bits = forge_calloc(words, sizeof *bits)))
        return -1;
    if (bits == few)
        memset(few, 0, sizeof few);
    for (const cJSON *x = o->child; x; x = x->next) {
        int j = ntab_find(&w->tab, x->string);
        if (j >= 0)
            bits[j >> 6] |= (uint64_t)1 << (j & 63);
    }
    int r = 1;
    for (int j = 0; j < w->n; j++) {
        int f = ntab_find(&w->tab, w->names[j]); /* j, or the first of a repeated name */
        if (f >= 0 && (bits[f >> 6] >> (f & 63) & 1))
            continue;
        r = 0;
        if (!missing)
            break;
        if (missing->fn(missing->ctx, w->names[j]))
            break;
    }
    if (bits != few)
        forge_free(bits);
    return r;
}

static __attribute__((noinline)) bool required_ok(const struct kw *w, const cJSON *inst)
{
    if (w->n == 1) /* one name (anyOf branches, then/else): compared member by member */
        return has_pname(inst, w->tab.pads[0]);
    if (w->n > 64) {
        int r = required_big(w, inst, NULL);
        return r == 1;
    }
    /* one hashed pass over the members */
    uint64_t seen = 0, want = w->n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w->n) - 1);
    for (const cJSON *x = inst->child; x && seen != want; x = x->next) {
        int j = ntab_find(&w->tab, x->string);
        if (j >= 0)
            seen |= (uint64_t)1 << j;
    }
    /* duplicate names in "required" map to their first index */
    for (int j = 0; j < w->n && seen != want; j++)
        if (!(seen >> j & 1) && ntab_find(&w->tab, w->names[j]) != j)
            seen |= (uint64_t)1 << j;
    return (seen & want) == want;
}

/* True when the string <v> is one of the values of the all-strings enum <w>. */
static __attribute__((noinline)) bool enum_has(const struct kw *w, const char *v)
{
    return w->tab.cand && ntab_find(&w->tab, v) >= 0; /* (an empty enum has no table) */
}

/* const for quick_pass, a small function of its own (as are enum_has and required_ok). */
static __attribute__((noinline)) bool const_ok(const struct kw *w, const cJSON *inst)
{
    return json_eq(w->json, inst);
}

/* The other cases of quick_pass that call out (kept apart so that the common ones need no
 * saved registers). */
static __attribute__((noinline)) bool quick_pass_call(const struct kw *w, const cJSON *inst, long *slen)
{
    int t = inst->type & 0xFF;
    switch (w->op) {
    case OP_ENUM:
        for (const cJSON *x = w->json->child; x; x = x->next)
            if (json_eq(x, inst))
                return true;
        return false;
    case OP_MAXLEN:
    case OP_MINLEN:
        if (t != cJSON_String)
            return true;
        if (*slen < 0) {
            /* a string of n bytes has between n/4 and n characters: count only when needed */
            size_t bytes = strlen(inst->valuestring);
            if (w->op == OP_MAXLEN ? (double)bytes <= w->num : (double)(bytes / 4) >= w->num)
                return true;
            *slen = (long)cp_len(inst->valuestring);
        }
        return w->op == OP_MAXLEN ? (double)*slen <= w->num : (double)*slen >= w->num;
    default:
        return false;
    }
}

/* True when keyword <w> certainly passes on <inst> by a cheap test; false means "evaluate it
 * fully" (vkw), which also produces the error. <slen> caches the string length (-1: unknown). */
static inline bool quick_pass(const struct kw *w, const cJSON *inst, long *slen)
{
    int t = inst->type & 0xFF;
    switch (w->op) {
    case OP_TYPE:
        return type_ok((unsigned)w->num, inst);
    case OP_ENUM:
        if (w->all_strings)
            return t == cJSON_String && enum_has(w, inst->valuestring);
        return quick_pass_call(w, inst, slen);
    case OP_CONST:
        return const_ok(w, inst);
    case OP_REQUIRED:
        return w->fused || t != cJSON_Object || required_ok(w, inst);
    case OP_MAX: return t != cJSON_Number || inst->valuedouble <= w->num;
    case OP_XMAX: return t != cJSON_Number || inst->valuedouble < w->num;
    case OP_MIN: return t != cJSON_Number || inst->valuedouble >= w->num;
    case OP_XMIN: return t != cJSON_Number || inst->valuedouble > w->num;
    case OP_MAXLEN:
    case OP_MINLEN:
        return t != cJSON_String || quick_pass_call(w, inst, slen);
    case OP_ADDPROPS:
        return w->fused || t != cJSON_Object;
    case OP_PATTERN:
    case OP_FORMAT:
        return t != cJSON_String;
    case OP_MAXITEMS:
    case OP_MINITEMS: {
        if (t != cJSON_Array)
            return true;
        long cnt = 0;
        for (const cJSON *x = inst->child; x; x = x->next)
            cnt++;
        return w->op == OP_MAXITEMS ? cnt <= w->num : cnt >= w->num;
    }
    case OP_UNIQUE: case OP_PREFIX: case OP_ITEMS:
    case OP_ADDITEMS: case OP_CONTAINS:
        return t != cJSON_Array;
    case OP_MAXPROPS: case OP_MINPROPS: case OP_PROPS: case OP_PATPROPS: case OP_PROPNAMES:
    case OP_DEPREQ: case OP_DEPSCHEMAS: case OP_DEPS:
        return t != cJSON_Object;
    default:
        return false;
    }
}

/* The string and other-keyword checks of leaf_fast. */
static inline __attribute__((always_inline)) bool leaf_str_body(const struct node *n, const char *v)
{
    if (!n->lstr)
        return forge_ecmare_test_str(n->lre, v) == 1;
    size_t bytes = strlen(v);
    /* a string of b bytes has between b/4 and b characters: count only when needed */
    if (!((double)bytes <= n->shi && (double)(bytes / 4) >= n->slo)) {
        double len = (double)cp_len(v);
        if (!(len <= n->shi && len >= n->slo))
            return false;
    }
    return !n->lre || forge_ecmare_test(n->lre, v, bytes) == 1;
}

static inline __attribute__((always_inline)) bool leaf_rest_body(const struct node *n, const cJSON *inst)
{
    long slen = -1;
    for (int i = 0; i < n->nlrest; i++)
        if (!quick_pass(n->lrest[i], inst, &slen))
            return false;
    return true;
}

/* leaf_pass_rec for a leaf with lspec: the same answer, without a dispatch per keyword. */
static inline __attribute__((always_inline)) bool leaf_fast(const struct node *n, const cJSON *inst)
{
    int t = inst->type & 0xFF;
    if (n->ltypes && !type_ok(n->ltypes, inst))
        return false;
    if (t == cJSON_String) {
        if ((n->lstr || n->lre) && !leaf_str_body(n, inst->valuestring))
            return false;
    } else if (t == cJSON_Number && n->lnum) {
        double x = inst->valuedouble;
        if (!(x >= n->nmin && x > n->nxmin && x <= n->nmax && x < n->nxmax))
            return false;
        if (n->nmul != 0 && !multiple_of(x, n->nmul))
            return false;
    }
    return !n->nlrest || leaf_rest_body(n, inst);
}

/* leaf_pass_rec for a leaf without lspec: its keywords in turn. */
static inline __attribute__((always_inline)) bool leaf_kws_body(const struct node *n, const cJSON *inst)
{
    long slen = -1;
    int kind = kind_of(inst);
    const struct kw *const *ks = n->kinds[kind];
    for (int i = 0, nk = n->nkinds[kind]; i < nk; i++) {
        const struct kw *w = ks[i];
        if (quick_pass(w, inst, &slen))
            continue;
        if (w->op == OP_PATTERN) {
            if (forge_ecmare_test_str(w->re, inst->valuestring) == 1)
                continue;
        } else if (w->op == OP_MULTOF && cJSON_IsNumber(inst)) {
            if (multiple_of(inst->valuedouble, w->num))
                continue;
        }
        return false;
    }
    return true;
}

/* A leaf's keywords on <inst>, for the walk that records errors: true when all certainly pass
 * (false: a keyword fails, or a pattern hit its limit, which the full evaluation then reports
 * without matching again: see forge_ecmare_epoch). Inlined whole, as one body (the verdict walk
 * has its flat form, fleaf). */
static inline __attribute__((always_inline)) bool leaf_pass_rec(const struct node *n, const cJSON *inst)
{
    return n->lspec ? leaf_fast(n, inst) : leaf_kws_body(n, inst);
}

static int pattern_failed(struct vctx *c, int r);

/* The error keyword <w> records when it fails on <inst>, for the keywords whose failure is one
 * record that needs nothing measured: "type", "enum", "const", "pattern", "multipleOf", and a
 * "required" of one name (vkw_value's records, and leaf_failed_at's, which knows the keyword
 * failed). */
static inline __attribute__((always_inline)) int kw_failed(struct vctx *c, const struct node *n,
                                                           const struct kw *w, const cJSON *inst,
                                                           const struct iloc *il,
                                                           const struct kloc *kl)
{
    switch (w->op) {
    case OP_TYPE:
        return FAIL_KW(c, n, il, kl, w, &M_TYPE, EA_U(w->num), EA_S(type_name(inst)));
    case OP_ENUM:
        return FAIL_KW(c, n, il, kl, w, &M_ENUM, EA_S(w->text));
    case OP_CONST:
        return FAIL_KW(c, n, il, kl, w, &M_CONST, EA_S(w->text));
    case OP_PATTERN:
        return FAIL_KW(c, n, il, kl, w, &M_PATTERN, EA_S(w->text));
    case OP_MULTOF:
        return FAIL_KW(c, n, il, kl, w, bound_fmt(OP_MULTOF), EA_D(inst->valuedouble), EA_D(w->num));
    default: /* OP_REQUIRED of one name (whose message kw_message made) */
        return FAIL_KW(c, n, il, kl, w, &M_MADE, EA_S(w->reqmsgs[0].s), EA_I(w->reqmsgs[0].len));
    }
}

/* vkw for the keywords about the value itself (a leaf's: "type", "enum", "const", the bounds,
 * "pattern", "format", the counts of items and properties; not "required"): 1 passes, 0 failed
 * (its error recorded), negative; VKW_OTHER for any other keyword. Inlined whole into vkw and
 * into leaf_failed, which explains a leaf's failure without vkw's call and frame. */
#define VKW_OTHER 2
static inline __attribute__((always_inline)) int vkw_value(struct vctx *c, const struct node *n,
                                                           const struct kw *w, const cJSON *inst,
                                                           const struct iloc *il,
                                                           const struct kloc *kl)
{
    int r;
    switch (w->op) {
    case OP_TYPE:
        return type_ok((unsigned)w->num, inst) ? 1 : kw_failed(c, n, w, inst, il, kl);
    case OP_ENUM:
        if (w->all_strings) {
            if (cJSON_IsString(inst) && enum_has(w, inst->valuestring))
                return 1;
        } else {
            for (const cJSON *x = w->json->child; x; x = x->next)
                if (json_eq(x, inst))
                    return 1;
        }
        return kw_failed(c, n, w, inst, il, kl);
    case OP_CONST:
        return json_eq(w->json, inst) ? 1 : kw_failed(c, n, w, inst, il, kl);
    default:
        break;
    }
    if (cJSON_IsNumber(inst)) {
        double x = inst->valuedouble;
        switch (w->op) {
        case OP_MULTOF:
            return multiple_of(x, w->num) ? 1 : kw_failed(c, n, w, inst, il, kl);
        case OP_MAX:
            if (x <= w->num) return 1;
            return FAIL_KW(c, n, il, kl, w, bound_fmt(OP_MAX), EA_D(x), EA_D(w->num));
        case OP_XMAX:
            if (x < w->num) return 1;
            return FAIL_KW(c, n, il, kl, w, bound_fmt(OP_XMAX), EA_D(x), EA_D(w->num));
        case OP_MIN:
            if (x >= w->num) return 1;
            return FAIL_KW(c, n, il, kl, w, bound_fmt(OP_MIN), EA_D(x), EA_D(w->num));
        case OP_XMIN:
            if (x > w->num) return 1;
            return FAIL_KW(c, n, il, kl, w, bound_fmt(OP_XMIN), EA_D(x), EA_D(w->num));
        default:
            break;
        }
    }
    if (cJSON_IsString(inst)) {
        const char *sv = inst->valuestring;
        switch (w->op) {
        case OP_MAXLEN:
        case OP_MINLEN: {
            size_t len = cp_len(sv);
            if (w->op == OP_MAXLEN ? (double)len <= w->num : (double)len >= w->num)
                return 1;
            return FAIL_KW(c, n, il, kl, w, bound_fmt(w->op), EA_I(len), EA_D(w->num));
        }
        case OP_PATTERN:
            r = forge_ecmare_test(w->re, sv, strlen(sv));
            if (r < 0)
                return pattern_failed(c, r);
            return r ? 1 : kw_failed(c, n, w, inst, il, kl);
        case OP_FORMAT:
            if (forge_format_check(w->fmt, sv, strlen(sv))) return 1;
            return FAIL_KW(c, n, il, kl, w, &M_FORMAT, EA_S(w->text));
        default:
            break;
        }
    }
    /* the counts of an array's items and of an object's members */
    bool arr = cJSON_IsArray(inst);
    if (arr ? w->op == OP_MAXITEMS || w->op == OP_MINITEMS
            : cJSON_IsObject(inst) && (w->op == OP_MAXPROPS || w->op == OP_MINPROPS)) {
        bool max = w->op == OP_MAXITEMS || w->op == OP_MAXPROPS;
        int cnt = member_count(inst);
        if (max ? cnt <= w->num : cnt >= w->num)
            return 1;
        return FAIL_KW(c, n, il, kl, w, bound_fmt(w->op), EA_I(cnt), EA_D(w->num));
    }
    switch (w->op) {
    case OP_MULTOF: case OP_MAX: case OP_XMAX: case OP_MIN: case OP_XMIN: case OP_MAXLEN:
    case OP_MINLEN: case OP_PATTERN: case OP_FORMAT: case OP_MAXITEMS: case OP_MINITEMS:
    case OP_MAXPROPS: case OP_MINPROPS:
        return 1; /* (an instance of another type) */
    default:
        return VKW_OTHER;
    }
}

static int vkw(struct vctx *c, const struct node *n, const struct kw *w, const cJSON *inst,
               const struct iloc *il, const struct kloc *kl, struct ann *ann);

/* The keywords of node <n>'s list for <inst>'s kind from <from> (NULL: the first) up to <to>
 * (not included; NULL: the end), each as vnode_body's loop evaluates them (quick_pass, else
 * vkw, which records the error): 1 all passed, 0 one failed, or negative. */
static inline __attribute__((always_inline)) int vkw_range(struct vctx *c, const struct node *n,
                                                           const cJSON *inst, const struct iloc *il,
                                                           const struct kloc *kl, struct ann *ann,
                                                           const struct kw *from, const struct kw *to)
{
    long slen = -1;
    int kind = kind_of(inst), i = 0, nk = n->nkinds[kind], ok = 1;
    const struct kw *const *ks = n->kinds[kind];
    if (from)
        while (i < nk && ks[i] != from)
            i++;
    for (; i < nk && ks[i] != to; i++) {
        if (quick_pass(ks[i], inst, &slen))
            continue;
        int r = vkw(c, n, ks[i], inst, il, kl, ann);
        TALLY(c, r, ok);
    }
    return ok;
}

/* vnode for a child value: a leaf that passes returns without a call. */
#define VCHILD(c, sub, x, il, kl, ann) \
    ((sub)->leaf ? vleaf((c), (sub), (x), (il), (kl)) : vnode((c), (sub), (x), (il), (kl), (ann)))

/* A leaf whose quick test (leaf_pass_rec, or its flat list) failed: invalid, explained by the
 * full evaluation when errors are wanted (a leaf collects no annotations). <from>: the keyword
 * of its list to start at (those before it passed), or NULL; with <after>, the keyword after it
 * (<from> failed, and its error is recorded). */
static int leaf_failed_kws(struct vctx *c, const struct node *n, const cJSON *inst,
                           const struct iloc *il, const struct kloc *kl, const struct kw *from,
                           bool after)
{
    if (n->lexact && (c->quiet || !c->out))
        return 0;
    /* the keywords in turn, as vnode_body would (a leaf has no subschemas: no nesting, no
     * scope, no annotations, no step), each evaluated once: a leaf's are value keywords, but
     * for "required" */
    int kind = kind_of(inst), ok = 1, i = 0, nk = n->nkinds[kind];
    const struct kw *const *ks = n->kinds[kind];
    if (from) {
        while (i < nk && ks[i] != from)
            i++;
        if (i == nk) /* (not in the list: cannot happen) all of them */
            i = 0;
        else if (after)
            i++;
    }
    for (; i < nk; i++) {
        int r = vkw_value(c, n, ks[i], inst, il, kl);
        if (r == VKW_OTHER)
            r = vkw(c, n, ks[i], inst, il, kl, NULL);
        TALLY(c, r, ok);
    }
    return ok;
}

static int leaf_failed_from(struct vctx *c, const struct node *n, const cJSON *inst,
                            const struct iloc *il, const struct kloc *kl, const struct kw *from)
{
    return leaf_failed_kws(c, n, inst, il, kl, from, false);
}

static int leaf_failed(struct vctx *c, const struct node *n, const cJSON *inst,
                       const struct iloc *il, const struct kloc *kl)
{
    return leaf_failed_from(c, n, inst, il, kl, NULL);
}

static inline __attribute__((always_inline)) int fpure(const struct fi *ip, const cJSON *x);
static int leaf_failed_at(struct vctx *c, const struct node *n, const cJSON *x, const struct iloc *il,
                          const struct kloc *kl, const struct fi *ip);
static int leaf_failed_all_at(struct vctx *c, const struct node *n, const cJSON *x,
                              const struct iloc *il, const struct kloc *kl, const struct fi *ip);

/* The first instruction of the flat list of leaf <n> for <x>'s kind that does not pass (*<v>
 * its verdict: 0, or negative for a pattern's match limit), or NULL when all pass. */
static inline __attribute__((always_inline)) const struct fi *leaf_fails_at(const struct node *n,
                                                                            const cJSON *x, int *v)
{
    for (const struct fi *ip = n->fk[kind_of(x)];; ip++) {
        if ((*v = fpure(ip, x)) != 1)
            return ip;
        if (ip->last)
            return NULL;
    }
}

/* The recording walk's leaf <n> that failed on <x>: at the instruction <ip> of its flat list,
 * whose verdict was <v> (0, or negative: a pattern's match limit, met again as the keywords meet
 * it), or without a flat list (ip NULL). From the failing instruction's keyword on: in
 * first-error mode that keyword's error alone (leaf_failed_at), in all-errors mode that error
 * and the keywords after it (leaf_failed_all_at). */
static inline __attribute__((always_inline)) int vleaf_failed(struct vctx *c, const struct node *n,
                                                              const cJSON *x, const struct iloc *il,
                                                              const struct kloc *kl,
                                                              const struct fi *ip, int v)
{
    if (!ip || v < 0)
        return leaf_failed(c, n, x, il, kl);
    return c->all ? leaf_failed_all_at(c, n, x, il, kl, ip) : leaf_failed_at(c, n, x, il, kl, ip);
}

/* The recording walk's leaf <n> on <x>: its flat list, as fleaf runs it (leaf_pass_rec without
 * one, in a schema with dynamic references), then vleaf_failed. */
static inline __attribute__((always_inline)) int vleaf(struct vctx *c, const struct node *n,
                                                       const cJSON *x, const struct iloc *il,
                                                       const struct kloc *kl)
{
    if (!n->fprog)
        return leaf_pass_rec(n, x) ? 1 : leaf_failed(c, n, x, il, kl);
    int v;
    const struct fi *ip = leaf_fails_at(n, x, &v);
    return ip ? vleaf_failed(c, n, x, il, kl, ip, v) : 1;
}

/* "properties" with its fused siblings "required" and "additionalProperties": one pass over the
 * members of the object <inst>. */
static int vprops(struct vctx *c, const struct node *n, const struct kw *w, const cJSON *inst,
                  const struct iloc *il, const struct kloc *kl, struct ann *ann)
{
    int ok = 1, r;
    uint64_t seen = 0;
    size_t i = 0;
    struct kloc k1 = {kl, w->name, w->seglen};
    const struct kw *a = w->fadd;
    for (const cJSON *x = inst->child; x; x = x->next, i++) {
        const char *key = x->string;
        int j = ntab_find(&w->tab, key);
        if (j >= 0) {
            seen |= w->reqbits[j];
            const struct node *sub = w->subs[j];
            const struct fi *ip = NULL;
            int v = 0;
            if (sub->leaf && sub->fprog) { /* vleaf's test, before the locations are made */
                if (!(ip = leaf_fails_at(sub, x, &v))) {
                    ann_set(ann, i);
                    continue;
                }
            } else if (sub->leaf && leaf_pass_rec(sub, x)) {
                ann_set(ann, i);
                continue;
            }
            /* key is names[j]: its length is known */
            struct iloc i1 = {il, key, w->seglens[j]};
            struct kloc k2 = {&k1, w->names[j], w->seglens[j]};
            r = sub->leaf ? vleaf_failed(c, sub, x, &i1, &k2, ip, v) : vnode(c, sub, x, &i1, &k2, NULL);
        } else if (a) {
            struct iloc i1 = {il, key, 0};
            if (a->sub->is_bool && !a->sub->bval) {
                r = FAIL(c, n, il, kl, a, NULL, &M_NOT_ALLOWED, EA_S(key));
            } else {
                struct kloc ka = {kl, a->name, a->seglen};
                r = VCHILD(c, a->sub, x, &i1, &ka, NULL);
            }
        } else {
            continue;
        }
        TALLY(c, r, ok);
        ann_set(ann, i);
    }
    const struct kw *q = w->freq;
    if (q) {
        uint64_t want = q->n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << q->n) - 1);
        if ((seen & want) != want) {
            for (int j = 0; j < q->n; j++) {
                if (seen >> j & 1)
                    continue;
                ok = 0;
                if ((r = FAIL_MISSING(c, n, il, kl, q, j)) < 0)
                    return r;
                if (!c->all || c->quiet)
                    return 0;
            }
        }
    }
    return ok;
}

/* prefixItems, items, additionalItems, unevaluatedItems on the array <inst>. */
static int vitems(struct vctx *c, const struct node *n, const struct kw *w, const cJSON *inst,
                  const struct iloc *il, const struct kloc *kl, struct ann *ann)
{
    int r = 1, ok = 1, i = 0;
    if (w->name == items_name) { /* each item's link a site, counted in c->refs (see ref_sites) */
        struct sitelink sl = {{kl, items_name, w->seglen}, w, 0};
        int from = w->ntuple > 0 ? w->ntuple : 0;
        c->refs++;
        for (const cJSON *x = inst->child; x; x = x->next, i++) {
            if (i < from)
                continue;
            struct iloc i1 = {il, NULL, i};
            sl.idx = i;
            r = VCHILD(c, w->sub, x, &i1, &sl.k, NULL);
            if (r < 0 || (!r && (ok = 0, !c->all || c->quiet)))
                break;
            ann_set(ann, (size_t)i);
        }
        c->refs--;
        return r < 0 ? r : ok;
    }
    struct kloc k1 = {kl, w->name, w->seglen};
    int from = w->op == OP_PREFIX ? 0 : w->op == OP_ITEMS ? (w->ntuple > 0 ? w->ntuple : 0)
             : w->op == OP_ADDITEMS ? w->ntuple : 0;
    for (const cJSON *x = inst->child; x; x = x->next, i++) {
        if (i < from)
            continue;
        if (w->op == OP_PREFIX && i >= w->n)
            break;
        if (w->op == OP_UNEVALITEMS && ann_get(ann, (size_t)i))
            continue;
        const struct node *sub = w->op == OP_PREFIX ? w->subs[i] : w->sub;
        struct iloc i1 = {il, NULL, i};
        struct kloc k2 = {&k1, NULL, i};
        r = VCHILD(c, sub, x, &i1, w->op == OP_PREFIX ? &k2 : &k1, NULL);
        TALLY(c, r, ok);
        if (w->op != OP_UNEVALITEMS)
            ann_set(ann, (size_t)i);
    }
    if (ok && w->op == OP_UNEVALITEMS)
        ann_all(ann);
    return ok;
}

/* The error of each name "required" misses, for required_big: stops after the first unless
 * every error is wanted, or when recording fails. */
struct req_fail {
    struct vctx *c;
    const struct node *n;
    const struct iloc *il;
    const struct kloc *kl;
    const struct kw *w;
    int rc;
};

static int req_failed(void *ctx, const char *name)
{
    struct req_fail *f = ctx;
    int r = FAIL(f->c, f->n, f->il, f->kl, f->w, NULL, &M_MISSING, EA_S(name));
    if (r < 0) {
        f->rc = r;
        return 1;
    }
    return !f->c->all || f->c->quiet;
}

/* A limit met on entering a node: recorded for forge_schema_limit_message. */
static __attribute__((noinline, cold)) int limit_hit(struct vctx *c, int which)
{
    last_limit = which;
    c->rc = FORGE_ELIMIT;
    return FORGE_ELIMIT;
}

/* The checks of both walks on entering a node: the nesting depth, and the step budget (anyOf
 * over $ref chains can be exponential). 0, or FORGE_ELIMIT with the limit recorded. */
static inline __attribute__((always_inline)) int enter_node(struct vctx *c)
{
    if (c->depth >= MAX_DEPTH)
        return limit_hit(c, LIM_DEPTH);
    if (++c->steps > max_steps)
        return limit_hit(c, LIM_STEPS);
    return 0;
}

/* A pattern of patternProperties tried on a member name counts as a step: every name against
 * every pattern is the keyword's meaning, n * m tests, which the budget bounds. */
static inline int pattern_step(struct vctx *c)
{
    return ++c->steps > max_steps ? limit_hit(c, LIM_STEPS) : 0;
}

/* A pattern's test that gave no verdict (<r> negative): recorded, the pattern limit's when it
 * was one (for forge_schema_limit_message). */
static __attribute__((noinline, cold)) int pattern_failed(struct vctx *c, int r)
{
    if (r == FORGE_ELIMIT)
        last_limit = LIM_PATTERN;
    c->rc = r;
    return r;
}

/* dependentRequired, dependentSchemas and dependencies for vkw: each name the object has (asked
 * of <m>, which also answers the names a dependency requires) brings its names or subschema. */
static int vdeps(struct vctx *c, const struct node *n, const struct kw *w, const cJSON *inst,
                 const struct iloc *il, const struct kloc *kl, const struct kloc *k1,
                 struct ann *ann, struct members *m)
{
    int ok = 1, r;
    const cJSON *dep = w->op == OP_DEPREQ ? w->json->child : NULL;
    for (int i = 0;; i++) {
        const char *name;
        const cJSON *arr = NULL;
        const struct node *sub = NULL;
        if (w->op == OP_DEPREQ) {
            if (!dep)
                break;
            name = dep->string;
            arr = dep;
            dep = dep->next;
        } else {
            if (i >= w->n)
                break;
            name = w->names[i];
            arr = w->arrs[i];
            sub = w->subs[i];
        }
        if (!members_has(m, name))
            continue;
        if (arr) {
            for (const cJSON *x = arr->child; x; x = x->next)
                if (cJSON_IsString(x) && !members_has(m, x->valuestring)) {
                    ok = 0;
                    if ((r = FAIL(c, n, il, kl, w, name, &M_DEPENDENT, EA_S(name), EA_S(x->valuestring))) < 0)
                        return r;
                    if (!c->all || c->quiet)
                        return 0;
                }
        } else if (sub) {
            struct kloc k2 = {k1, name, 0};
            r = vnode(c, sub, inst, il, &k2, ann);
            TALLY(c, r, ok);
        }
    }
    return ok;
}

/* The recording walk through a reference (<k1> its keyword's link: for a $ref, a struct
 * sitelink's) to the node <t>. */
static inline __attribute__((always_inline)) int vref(struct vctx *c, const struct node *t,
                                                      const cJSON *inst, const struct iloc *il,
                                                      const struct kloc *k1, struct ann *ann)
{
    c->refs++;
    int r = vnode(c, t, inst, il, k1, ann);
    c->refs--;
    return r;
}

/* Evaluates one keyword; returns 1 passed, 0 failed (error recorded), negative on failure. */
static int vkw(struct vctx *c, const struct node *n, const struct kw *w, const cJSON *inst,
               const struct iloc *il, const struct kloc *kl, struct ann *ann)
{
    int r = vkw_value(c, n, w, inst, il, kl);
    if (r != VKW_OTHER)
        return r;
    struct kloc k1 = {kl, w->name, w->seglen};
    if (cJSON_IsArray(inst)) {
        switch (w->op) {
        case OP_UNIQUE: {
            int i, j;
            if (unique_items(inst, &i, &j))
                return 1;
            return FAIL(c, n, il, kl, w, NULL, &M_UNIQUE, EA_I(i), EA_I(j));
        }
        case OP_PREFIX:
        case OP_ITEMS:
        case OP_ADDITEMS:
        case OP_UNEVALITEMS:
            return vitems(c, n, w, inst, il, kl, ann);
        case OP_CONTAINS: {
            int matches = 0, i = 0;
            for (const cJSON *x = inst->child; x; x = x->next, i++) {
                struct iloc i1 = {il, NULL, i};
                r = probe(c, w->sub, x, &i1, &k1, NULL);
                if (r < 0)
                    return r;
                if (r) {
                    matches++;
                    if (n->draft >= FORGE_DRAFT_2020_12)
                        ann_set(ann, (size_t)i);
                    if ((!ann || n->draft < FORGE_DRAFT_2020_12) && w->num2 < 0 && matches >= w->num)
                        break;
                }
            }
            if (matches < w->num) {
                if (w->num == 1)
                    return FAIL(c, n, il, kl, w, NULL, &M_CONTAINS);
                return FAIL(c, n, il, kl, w, NULL, bound_fmt(OP_CONTAINS), EA_I(matches), EA_D(w->num));
            }
            if (w->num2 >= 0 && matches > w->num2)
                return FAIL(c, n, il, kl, w, NULL, &M_MAXCONTAINS, EA_I(matches), EA_D(w->num2));
            return 1;
        }
        default:
            break;
        }
    }
    if (cJSON_IsObject(inst)) {
        switch (w->op) {
        case OP_REQUIRED: {
            int ok = 1;
            if (w->fused)
                return 1; /* (required_ok was tried by quick_pass) */
            if (w->n > 64) {
                struct req_fail rf = {c, n, il, kl, w, 0};
                struct missing_fn mf = {req_failed, &rf};
                int got = required_big(w, inst, &mf);
                if (got >= 0)
                    return rf.rc < 0 ? rf.rc : got;
                /* out of memory for the marks: a scan for each name, as below */
            }
            int j = 0;
            for (const cJSON *x = w->json->child; x; x = x->next, j++)
                if (!get(inst, x->valuestring)) {
                    ok = 0;
                    if ((r = FAIL_MISSING(c, n, il, kl, w, j)) < 0)
                        return r;
                    if (!c->all || c->quiet)
                        return 0;
                }
            return ok;
        }
        case OP_DEPREQ:
        case OP_DEPSCHEMAS:
        case OP_DEPS: {
            struct members m = {inst, 0, false, {FORGE_STRTAB_INIT, NULL}};
            r = vdeps(c, n, w, inst, il, kl, &k1, ann, &m);
            if (m.built)
                forge_json_names_free(&m.ix);
            return r;
        }
        case OP_PROPS:
            if (w->freq || w->fadd)
                return vprops(c, n, w, inst, il, kl, ann);
            /* fall through */
        case OP_PATPROPS:
        case OP_ADDPROPS:
        case OP_UNEVALPROPS:
        case OP_PROPNAMES: {
            int ok = 1;
            size_t i = 0;
            if (w->fused)
                return 1;
            for (const cJSON *x = inst->child; x; x = x->next, i++) {
                const char *key = x->string;
                struct iloc i1 = {il, key, 0};
                if (w->op == OP_PROPS || w->op == OP_PATPROPS) {
                    int from = 0;
                    if (w->op == OP_PROPS) {
                        from = ntab_find(&w->tab, key);
                        if (from < 0)
                            continue;
                    }
                    for (int j = from; j < w->n; j++) {
                        if (w->op == OP_PATPROPS) {
                            if ((r = pattern_step(c)))
                                return r;
                            r = forge_ecmare_test(w->res[j], key, strlen(key));
                            if (r < 0)
                                return pattern_failed(c, r);
                            if (!r)
                                continue;
                        }
                        struct kloc k2 = {&k1, w->names[j], w->seglens[j]};
                        r = VCHILD(c, w->subs[j], x, &i1, &k2, NULL);
                        TALLY(c, r, ok);
                        ann_set(ann, i);
                        if (w->op == OP_PROPS)
                            break;
                    }
                    continue;
                }
                if (w->op == OP_PROPNAMES) {
                    cJSON name;
                    memset(&name, 0, sizeof name);
                    name.type = cJSON_String;
                    name.valuestring = (char *)key;
                    c->names++;
                    r = vnode(c, w->sub, &name, il, &k1, NULL);
                    c->names--;
                } else {
                    if (w->op == OP_UNEVALPROPS) {
                        if (ann_get(ann, i))
                            continue;
                    } else {
                        bool matched = w->props && ntab_find(&w->props->tab, key) >= 0;
                        if (w->patprops)
                            for (int j = 0; j < w->patprops->n && !matched; j++) {
                                if ((r = pattern_step(c)))
                                    return r;
                                r = forge_ecmare_test(w->patprops->res[j], key, strlen(key));
                                if (r < 0)
                                    return pattern_failed(c, r);
                                matched = r;
                            }
                        if (matched)
                            continue;
                    }
                    if (w->sub->is_bool && !w->sub->bval) {
                        r = FAIL(c, n, il, kl, w, NULL, &M_NOT_ALLOWED, EA_S(key));
                        if (r < 0)
                            return r;
                        ok = 0;
                        if (!c->all || c->quiet)
                            return 0;
                        continue;
                    }
                    r = VCHILD(c, w->sub, x, &i1, &k1, NULL);
                }
                TALLY(c, r, ok);
                if (w->op != OP_UNEVALPROPS && w->op != OP_PROPNAMES)
                    ann_set(ann, i);
            }
            if (ok && w->op == OP_UNEVALPROPS)
                ann_all(ann);
            return ok;
        }
        default:
            break;
        }
    }
    switch (w->op) {
    case OP_ALLOF: {
        int ok = 1;
        for (int i = 0; i < w->n; i++) {
            struct kloc k2 = {&k1, NULL, i};
            r = vnode(c, w->subs[i], inst, il, &k2, ann);
            TALLY(c, r, ok);
        }
        return ok;
    }
    case OP_ANYOF:
    case OP_ONEOF: {
        int matched = 0, first = -1, second = -1;
        const cJSON *dm = NULL;
        if (w->disc && cJSON_IsObject(inst))
            for (dm = inst->child; dm && !pname_eq(dm->string, w->disc); dm = dm->next)
                ;
        for (int i = 0; i < w->n; i++) {
            if (dm && w->discv[i] && !(cJSON_IsString(dm) && pname_eq(dm->valuestring, w->discv[i])))
                continue; /* the branch's discriminator const fails */
            struct kloc k2 = {&k1, NULL, i};
            struct ann tmp;
            if (ann && (r = ann_init(&tmp, inst)) < 0)
                return c->rc = r;
            r = probe(c, w->subs[i], inst, il, &k2, ann ? &tmp : NULL);
            if (r > 0 && ann)
                ann_merge(ann, &tmp);
            if (ann)
                ann_done(&tmp);
            if (r < 0)
                return r;
            if (r) {
                matched++;
                if (first < 0)
                    first = i;
                else if (second < 0)
                    second = i;
                if (w->op == OP_ANYOF && !ann)
                    break;
                if (w->op == OP_ONEOF && matched > 1 && !ann)
                    break;
            }
        }
        if (w->op == OP_ANYOF) {
            if (matched)
                return 1;
            return FAIL(c, n, il, kl, w, NULL, &M_ANYOF, EA_I(w->n));
        }
        if (matched == 1)
            return 1;
        if (!matched)
            return FAIL(c, n, il, kl, w, NULL, &M_ONEOF_NONE, EA_I(w->n));
        return FAIL(c, n, il, kl, w, NULL, &M_ONEOF_MANY, EA_I(first), EA_I(second));
    }
    case OP_NOT:
        r = probe(c, w->sub, inst, il, &k1, NULL);
        if (r < 0)
            return r;
        if (!r)
            return 1;
        return FAIL(c, n, il, kl, w, NULL, &M_NOT);
    case OP_IF: {
        struct ann tmp;
        if (!ann && !w->then_ && !w->else_)
            return 1;
        if (ann && (r = ann_init(&tmp, inst)) < 0)
            return c->rc = r;
        r = probe(c, w->sub, inst, il, &k1, ann ? &tmp : NULL);
        if (r > 0 && ann)
            ann_merge(ann, &tmp);
        if (ann)
            ann_done(&tmp);
        if (r < 0)
            return r;
        const struct node *branch = r ? w->then_ : w->else_;
        if (!branch)
            return 1;
        struct kloc k2 = {kl, r ? "then" : "else", 0};
        return vnode(c, branch, inst, il, &k2, ann);
    }
    case OP_REF:
    case OP_DYNREF:
    case OP_RECREF: {
        const struct node *t = w->sub;
        if (w->op == OP_DYNREF && w->anchor && t->dyn_anchor && !strcmp(t->dyn_anchor, w->anchor)) {
            for (int i = 0; i < c->nscope; i++) {
                const struct dynanchor *d;
                for (d = c->scope[i]->dynanchors; d; d = d->next)
                    if (!strcmp(d->name, w->anchor))
                        break;
                if (d) {
                    t = d->node;
                    break;
                }
            }
        } else if (w->op == OP_RECREF && t->recursive_anchor) {
            for (int i = 0; i < c->nscope; i++)
                if (c->scope[i]->recursive_anchor) {
                    t = c->scope[i];
                    break;
                }
        }
        struct sitelink rl = {k1, w, -1}; /* (plain for the others: see ref_sites) */
        return vref(c, t, inst, il, &rl.k, ann);
    }
    default:
        return 1;
    }
}

/* vnode_body for a node whose list for objects is one FI_PROPS (struct node.pnode), on an
 * object: the checks on entering, then that keyword, in a function that saves fewer registers
 * than vnode_body (fpnode's counterpart). */
static __attribute__((noinline)) int vpnode(struct vctx *c, const struct node *n, const cJSON *inst,
                                            const struct iloc *il, const struct kloc *kl,
                                            struct ann *ann)
{
    if (enter_node(c))
        return FORGE_ELIMIT;
    c->depth++;
    const struct kw *w = n->fk[K_OBJECT]->w;
    int r = w->freq || w->fadd ? vprops(c, n, w, inst, il, kl, ann) : vkw(c, n, w, inst, il, kl, ann);
    c->depth--;
    return r;
}

static int vnode(struct vctx *c, const struct node *n, const cJSON *inst, const struct iloc *il,
                 const struct kloc *kl, struct ann *ann)
{
    if (n->leaf)
        return vleaf(c, n, inst, il, kl);
    if (n->pnode && cJSON_IsObject(inst))
        return vpnode(c, n, inst, il, kl, ann);
    return vnode_body(c, n, inst, il, kl, ann);
}

static int vnode_flat(struct vctx *c, const struct node *n, const cJSON *inst,
                      const struct iloc *il, const struct kloc *kl, struct ann *ann);

static int vnode_body(struct vctx *c, const struct node *n, const cJSON *inst, const struct iloc *il,
                      const struct kloc *kl, struct ann *ann)
{
    if (n->is_bool) {
        if (n->bval)
            return 1;
        return FAIL(c, n, il, kl, NULL, NULL, &M_FALSE);
    }
    if (enter_node(c))
        return FORGE_ELIMIT;
    c->depth++;
    if (n->refonly) { /* one $ref (no dynamic scope, no annotations of its own) */
        struct sitelink k1 = {{kl, n->refonly->name, n->refonly->seglen}, n->refonly, -1};
        int r = vref(c, n->refonly->sub, inst, il, &k1.k, ann);
        c->depth--;
        return r;
    }
    if (n->fprog) { /* no dynamic scope, no annotations of its own: its flat form */
        int r = vnode_flat(c, n, inst, il, kl, ann);
        c->depth--;
        return r;
    }
    bool pushed = false;
    /* the dynamic scope matters only to $dynamicRef and $recursiveRef */
    if (c->s->dynamic && (!c->nscope || c->scope[c->nscope - 1] != n->resource)) {
        c->scope[c->nscope++] = n->resource;
        pushed = true;
    }
    struct ann local, *a = ann;
    int ok = 1, r = 0;
    if (n->has_uneval) {
        if ((r = ann_init(&local, inst)) < 0) {
            c->rc = r;
            goto out;
        }
        a = &local;
    }
    long slen = -1;
    int kind = kind_of(inst);
    const struct kw *const *ks = n->kinds[kind];
    for (int i = 0, nk = n->nkinds[kind]; i < nk; i++) {
        const struct kw *w = ks[i];
        if (quick_pass(w, inst, &slen))
            continue;
        /* the two most frequent structural keywords skip the general dispatcher */
        if (w->op == OP_REF) {
            struct sitelink k1 = {{kl, w->name, w->seglen}, w, -1};
            r = vref(c, w->sub, inst, il, &k1.k, a);
        } else if (w->op == OP_PROPS && (w->freq || w->fadd)) {
            r = vprops(c, n, w, inst, il, kl, a);
        } else if (w->op == OP_ITEMS || w->op == OP_PREFIX) {
            r = vitems(c, n, w, inst, il, kl, a);
        } else {
            r = vkw(c, n, w, inst, il, kl, a);
        }
        if (r < 0)
            break;
        if (!r) {
            ok = 0;
            if (!c->all || c->quiet)
                break;
        }
    }
    if (n->has_uneval) {
        if (ok && r >= 0)
            ann_merge(ann, &local);
        ann_done(&local);
    }
out:
    if (pushed)
        c->nscope--;
    c->depth--;
    return r < 0 ? r : ok;
}

/* ---------- the verdict walk ----------
 * Where no error can be recorded (no arena, or inside a probe) and the schema has no dynamic
 * references, the walk below stands in for vnode: the same nodes in the same order, the same
 * steps, depth and memo, the same verdicts, but no instance or keyword locations and no
 * annotations (a node that collects them goes to vnode_body). It runs each node's flat form
 * (struct fi, built by lower_all): the instructions of the instance's kind in turn, each exact
 * (or, for a pattern's match limit and the keywords without an instruction of their own, handed
 * to fkw, which evaluates the keyword as the recording walk does); a leaf's list runs inline in
 * its parent's loop and, where it is not exact, a failure goes to leaf_failed. */

/* The trail of a failing verdict walk (first-error mode with an error arena, see replay): as
 * the walk unwinds from the first failure outside a probe, each level adds what the recording
 * walk would have had in its iloc/kloc links there, from the failure up, linking each new
 * link below the last one; the failure itself (the origin) comes first. The frames: */
enum {
    T_NONE,  /* no origin yet */
    T_NODE,  /* node n on x failed at keyword w (the origin when it comes first) */
    T_PROP,  /* properties w: member x, which is name j, failed its subschema */
    T_ADD,   /* properties w: member x failed the fused additionalProperties' subschema */
    T_ADDF,  /* origin: properties w: member x is not allowed (additionalProperties: false) */
    T_REQ,   /* origin: properties w on the object x: a name of the fused required is missing */
    T_ITEM,  /* prefixItems, items or additionalItems w: item j failed */
    T_REF,   /* $ref w (a $ref-only node's) failed */
    T_ALLOF, /* allOf w: subschema j failed */
    T_THEN,  /* if w: then (j = 1) or else (j = 0) failed */
    T_ANY,   /* origin: anyOf or oneOf w failed (oneOf: j, j2 the first two that matched) */
    T_LEAF,  /* origin: the leaf n on x failed (at the instruction ip, when its verdict was 0) */
    T_BODY,  /* origin: node n on x failed in vnode_body (boolean, or collects annotations) */
};
#define TRAIL_IL 64
#define TRAIL_KL 128
struct trail {
    /* the origin (T_ADDF, T_REQ, T_ANY: n is set by the node's T_NODE) */
    int t, j, j2;
    const struct node *n;
    const struct kw *w;
    const cJSON *x;
    const struct fi *ip;
    /* the links, and where the next one up is to be linked */
    const struct iloc *il0, **iup;
    const struct kloc *kl0, **kup;
    int ni, nk;
    int nrefs; /* the references and sites' items among the links (vctx.refs at the origin) */
    bool over; /* more links than there is room for: the recording walk runs instead */
    struct iloc ils[TRAIL_IL];
    struct sitelink kls[TRAIL_KL]; /* (sitelinks: for the links of sites, see ref_sites) */
};

/* A link above the last one (tr_link checked there is room). */
static inline void tr_il(struct trail *tr, const char *key, long idx)
{
    struct iloc *l = &tr->ils[tr->ni++];
    l->key = key;
    l->idx = idx;
    *tr->iup = l;
    tr->iup = &l->up;
}

static inline void tr_kl(struct trail *tr, const char *seg, long idx)
{
    struct kloc *l = &tr->kls[tr->nk++].k;
    l->seg = seg;
    l->idx = idx;
    *tr->kup = l;
    tr->kup = &l->up;
}

/* The links of a new origin start at it, with no reference among them. */
static inline void tr_links_start(struct trail *tr)
{
    tr->ni = tr->nk = tr->nrefs = 0;
    tr->iup = &tr->il0;
    tr->kup = &tr->kl0;
}

/* The origin of the failure (the first frame); the links start there. */
static __attribute__((noinline)) void tr_origin(struct trail *tr, int t, const struct node *n,
                                                const struct kw *w, const cJSON *x, int j, int j2)
{
    if (tr->t) { /* a second origin: cannot happen */
        tr->over = true;
        return;
    }
    tr->t = t, tr->n = n, tr->w = w, tr->x = x, tr->j = j, tr->j2 = j2;
    tr_links_start(tr);
}

/* A level above the origin (T_NODE past the origin, and the frames that descend). */
static inline __attribute__((always_inline)) void tr_link(struct trail *tr, int t, const struct node *n,
                                                         const struct kw *w, const cJSON *x, int j)
{
    if (!tr->t || tr->ni == TRAIL_IL || tr->nk >= TRAIL_KL - 1) {
        tr->over = true; /* no origin below (cannot happen), or no room */
        return;
    }
    switch (t) {
    case T_NODE:
        if (!tr->n)
            tr->n = n;
        if (w->op == OP_REF) { /* the one structural keyword that leaves no frame of its own */
            tr->kls[tr->nk].site = w;
            tr->kls[tr->nk].idx = -1;
            tr_kl(tr, w->name, w->seglen);
            tr->nrefs++;
        }
        return;
    case T_PROP: /* the member's name is the property's; j as name_put's seglen (-1 or 0) */
        tr_kl(tr, x->string, j);
        tr_kl(tr, w->name, w->seglen);
        tr_il(tr, x->string, j);
        return;
    case T_ADD:
        tr_kl(tr, w->fadd->name, w->fadd->seglen);
        tr_il(tr, x->string, 0);
        return;
    case T_ITEM:
        if (w->op == OP_PREFIX)
            tr_kl(tr, NULL, j);
        if (w->name == items_name) { /* (a site: see ref_sites) */
            tr->kls[tr->nk].site = w;
            tr->kls[tr->nk].idx = j;
            tr->nrefs++;
        }
        tr_kl(tr, w->name, w->seglen);
        tr_il(tr, NULL, j);
        return;
    case T_ALLOF:
        tr_kl(tr, NULL, j);
        tr_kl(tr, w->name, w->seglen);
        return;
    case T_THEN:
        tr_kl(tr, j ? "then" : "else", 0);
        return;
    default: /* T_REF */
        tr->kls[tr->nk].site = w;
        tr->kls[tr->nk].idx = -1;
        tr_kl(tr, w->name, w->seglen);
        tr->nrefs++;
        return;
    }
}

static inline void tr_reset(struct trail *tr)
{
    tr->t = T_NONE;
}

/* The walk's calls, out of its way (a call only when a trail is wanted; the helpers are told
 * little, so the loops keep their registers). */
static __attribute__((noinline, cold)) void tr_first(struct vctx *c, int t, const struct node *n,
                                                     const struct kw *w, const cJSON *x, int j, int j2)
{
    if (!c->quiet)
        tr_origin(c->tr, t, n, w, x, j, j2);
}

/* properties <w>: member <x> failed, a property's subschema (<named>) or additionalProperties'.
 * Called from the branch that knows which, so neither the name's index nor a flag is kept
 * across the child's call (a register: 1 to 2 % more instructions on valid instances) and the
 * name is not looked up again. */
static __attribute__((noinline, cold)) void tr_prop(struct vctx *c, const struct kw *w, const cJSON *x,
                                                    bool named)
{
    if (c->quiet)
        return;
    if (!named && w->fadd->sub->is_bool)
        tr_origin(c->tr, T_ADDF, NULL, w, x, 0, 0);
    else if (!named)
        tr_link(c->tr, T_ADD, NULL, w, x, 0);
    else /* (its length is measured if the text is made; it needs escaping only where a name
          * of the schema does, since it is one of them) */
        tr_link(c->tr, T_PROP, NULL, w, x, c->s->escaped_names ? 0 : -1);
}

/* Node <n> on <x> failed at the instruction <ip>: the origin, or a level that may add a link. */
static __attribute__((noinline, cold)) void tr_node(struct vctx *c, const struct node *n,
                                                    const struct fi *ip, const cJSON *x)
{
    struct trail *tr = c->tr;
    if (c->quiet)
        return;
    if (!tr->t)
        tr_origin(tr, T_NODE, n, ip->w, x, 0, 0);
    else if (ip->op == FI_REF || !tr->n)
        tr_link(tr, T_NODE, n, ip->w, x, 0);
}

#define TRAIL_ORIGIN(c, ...)             \
    do {                                 \
        if ((c)->tr)                     \
            tr_first((c), __VA_ARGS__);  \
    } while (0)
#define TRAIL(c, ...)                           \
    do {                                        \
        if ((c)->tr && !(c)->quiet)             \
            tr_link((c)->tr, __VA_ARGS__);      \
    } while (0)

static int fnode(struct vctx *c, const struct node *n, const cJSON *inst);
static int fleaf_failed(struct vctx *c, const struct node *n, const cJSON *x, const struct fi *ip);

/* The number of items of the array <a>. */
static inline long item_count(const cJSON *a)
{
    long cnt = 0;
    for (const cJSON *x = a->child; x; x = x->next)
        cnt++;
    return cnt;
}

/* quick_pass out of line, for the flat form's FI_KW (the keywords without an instruction of
 * their own, which are rare; inlined there, quick_pass costs the common paths registers). */
static __attribute__((noinline)) bool quick_pass_out(const struct kw *w, const cJSON *x)
{
    long slen = -1;
    return quick_pass(w, x, &slen);
}

/* Whether the object <o> has each of the <n> padded names at <names>. */
static __attribute__((noinline)) bool names_present(const char *const *names, int n, const cJSON *o)
{
    for (int i = 0; i < n; i++)
        if (!has_pname(o, names[i]))
            return false;
    return true;
}

/* dependentRequired <w> on the object <o>. */
static __attribute__((noinline)) bool dep_required_ok(const struct kw *w, const cJSON *o)
{
    struct members m = {o, 0, false, {FORGE_STRTAB_INIT, NULL}};
    bool ok = true;
    for (const cJSON *dep = w->json->child; dep && ok; dep = dep->next) {
        if (!members_has(&m, dep->string))
            continue;
        for (const cJSON *x = dep->child; x && ok; x = x->next)
            if (cJSON_IsString(x) && !members_has(&m, x->valuestring))
                ok = false;
    }
    if (m.built) /* (a table is made only past MEMBERS_SCANS questions; a failed one frees itself) */
        forge_json_names_free(&m.ix);
    return ok;
}

/* A pure instruction (FI_TYPE to FI_KW) on <x>, of the kind the list is for: 1 passes, 0
 * fails, negative (FI_PAT) a match limit; FI_KW is quick_pass alone (0: "maybe"). */
static inline __attribute__((always_inline)) int fpure(const struct fi *ip, const cJSON *x)
{
    switch (ip->op) {
    case FI_END:
        return 1;
    case FI_TYPE:
        return type_ok(ip->t, x);
    case FI_NUM: {
        double v = x->valuedouble;
        return (ip->t & 1 ? v > ip->lo : v >= ip->lo) && (ip->t & 2 ? v < ip->hi : v <= ip->hi);
    }
    case FI_MULOF:
        return multiple_of(x->valuedouble, ip->lo);
    case FI_SLEN: {
        /* a string of b bytes has between b/4 and b characters: count only when needed */
        size_t bytes = strlen(x->valuestring);
        if ((double)bytes <= ip->hi && (double)(bytes / 4) >= ip->lo)
            return 1;
        double len = (double)cp_len(x->valuestring);
        return len <= ip->hi && len >= ip->lo;
    }
    case FI_NONEMPTY:
        return x->valuestring[0] != 0;
    case FI_PAT:
        return forge_ecmare_test(ip->p, x->valuestring, strlen(x->valuestring));
    case FI_ENUMS: {
        const char *v = x->valuestring, *const *t = ip->p;
        if (ip->cand) {
            unsigned char k0 = (unsigned char)v[0];
            int k = ip->cand[k0];
            if (k == CAND_SCAN && k0)
                k = ip->cand[cand2_of(k0, (unsigned char)v[1])];
            if (k != CAND_SCAN)
                return k && pname_eq(v, t[k - 1]);
        }
        if (ip->n > ENUM_SCAN) /* many strings alike in their first bytes: their table */
            return ntab_find(&ip->w->tab, v) >= 0;
        for (int i = 0; i < ip->n; i++)
            if (t[i][0] == v[0] && pname_eq(v, t[i]))
                return 1;
        return 0;
    }
    case FI_ENUMD: {
        const double *t = ip->p;
        for (int i = 0; i < ip->n; i++)
            if (t[i] == x->valuedouble)
                return 1;
        return 0;
    }
    case FI_CONSTS: {
        const char *v = x->valuestring, *want = ip->p;
        return v[0] == want[0] && pname_eq(v, want);
    }
    case FI_REQ1:
        return has_pname(x, ip->p);
    case FI_REQ:
        return required_ok(ip->w, x);
    case FI_REQN:
        return names_present(ip->p, ip->n, x);
    case FI_COUNT:
    case FI_PCOUNT: {
        double cnt = (double)item_count(x);
        return cnt >= ip->lo && cnt <= ip->hi;
    }
    case FI_UNIQUE:
        return ip->p ? unique_in_table(ip->p, x) : items_unique(x);
    case FI_DEPREQ:
        return dep_required_ok(ip->w, x);
    case FI_KW:
        return quick_pass_out(ip->w, x);
    default: /* (the callers pass pure instructions alone: no bounds test on the switch) */
        __builtin_unreachable();
    }
}

/* The recording walk's evaluation of the keywords of node <n>'s list for <inst>'s kind that the
 * pure instruction <ip> stands for (one, or the bounds folded into it), which did not pass:
 * each in turn, as vnode_body's loop evaluates them, its errors recorded. */
static __attribute__((noinline)) int vfolded(struct vctx *c, const struct node *n,
                                             const struct fi *ip, const cJSON *inst,
                                             const struct iloc *il, const struct kloc *kl,
                                             struct ann *ann)
{
    /* up to the first keyword of the next instruction (FI_END's: none) */
    return vkw_range(c, n, inst, il, kl, ann, ip->w, ip[1].w);
}

/* vnode_body's loop for a node with a flat form (no dynamic scope, no annotations of its own):
 * the same keywords in the same order with the same errors, the pure ones checked by their
 * instructions (operands inline) and evaluated in full only when they do not pass. */
static int vnode_flat(struct vctx *c, const struct node *n, const cJSON *inst,
                      const struct iloc *il, const struct kloc *kl, struct ann *ann)
{
    long slen = -1;
    int ok = 1, r = 0;
    for (const struct fi *ip = n->fk[kind_of(inst)]; ip->op != FI_END; ip++) {
        const struct kw *w = ip->w;
        switch (ip->op) {
        case FI_PROPS:
            r = w->freq || w->fadd ? vprops(c, n, w, inst, il, kl, ann) : vkw(c, n, w, inst, il, kl, ann);
            break;
        case FI_ITEMS:
            r = vitems(c, n, w, inst, il, kl, ann);
            break;
        case FI_REF: {
            struct sitelink k1 = {{kl, w->name, w->seglen}, w, -1};
            r = vref(c, w->sub, inst, il, &k1.k, ann);
            break;
        }
        case FI_ANYOF: case FI_ALLOF: case FI_IF: case FI_IFM: case FI_NOT: case FI_NOTL:
        case FI_PNAMES: case FI_KW:
            r = quick_pass(w, inst, &slen) ? 1 : vkw(c, n, w, inst, il, kl, ann);
            break;
        case FI_ENUMSET: /* (where annotations are wanted, items runs: it marks the items it evaluated) */
            if (!ann && enum_set_ok(ip->p, inst))
                ip += 2;
            continue;
        default:
            if ((r = fpure(ip, inst)) != 1)
                r = vfolded(c, n, ip, inst, il, kl, ann);
        }
        TALLY(c, r, ok);
    }
    return ok;
}

/* The leaf <n> on <x> (fchild's part for leaves): 1 valid, 0 invalid, or negative. */
static inline __attribute__((always_inline)) int fleaf(struct vctx *c, const struct node *n,
                                                       const cJSON *x)
{
    int v;
    const struct fi *ip = leaf_fails_at(n, x, &v);
    return ip ? fleaf_failed(c, n, x, ip) : 1;
}

/* A leaf whose flat list did not pass: invalid when that list is exact, else the keywords
 * decide in full (leaf_failed). */
static __attribute__((noinline)) int fleaf_failed(struct vctx *c, const struct node *n, const cJSON *x,
                                                  const struct fi *ip)
{
    /* (leaf_failed's own first test, without the call) */
    int r = n->lexact && (c->quiet || !c->out) ? 0 : leaf_failed_from(c, n, x, NULL, NULL, ip->w);
    struct trail *tr = c->tr;
    if (!r && tr && !c->quiet) { /* the origin (as tr_origin, inline) */
        tr->over |= tr->t != T_NONE;
        tr->t = T_LEAF, tr->n = n, tr->x = x;
        /* the instruction that failed (its verdict 0), unless it may have met a pattern's
         * match limit: a pattern left to PCRE2 makes its leaf not lexact */
        tr->ip = ip->op == FI_PAT && !n->lexact ? NULL : ip;
        tr_links_start(tr);
    }
    return r;
}

static int fref(struct vctx *c, const struct node *n, const cJSON *x);
static int fpnode(struct vctx *c, const struct node *n, const cJSON *x);

/* fnode for any node; a leaf's list runs here, inline. Forced inline: left to GCC, whether it
 * is inlined in fref and fkw changed with unrelated edits, and the walk with it by up to 8 %. */
static inline __attribute__((always_inline)) int fchild(struct vctx *c, const struct node *n,
                                                        const cJSON *x)
{
    return n->leaf      ? fleaf(c, n, x)
           : n->pnode   ? fpnode(c, n, x)
           : n->refonly ? fref(c, n, x)
                        : fnode(c, n, x);
}

/* fnode for a node of one $ref and nothing else: the same steps and depth, in a function that
 * saves fewer registers than fnode. */
static __attribute__((noinline)) int fref(struct vctx *c, const struct node *n, const cJSON *x)
{
    if (enter_node(c))
        return FORGE_ELIMIT;
    c->depth++;
    int r = fchild(c, n->refonly->sub, x);
    c->depth--;
    if (!r)
        TRAIL(c, T_REF, n, n->refonly, x, 0);
    return r;
}

/* probe for the verdict walk (no annotations, no dynamic scope). */
static int fprobe(struct vctx *c, const struct node *n, const cJSON *inst)
{
    bool memo = c->steps > MEMO_AFTER && !c->names;
    if (memo && c->memo.cap) {
        size_t i = memo_slot(&c->memo, n, inst);
        if (c->memo.e[i].node)
            return c->memo.e[i].verdict;
    }
    c->quiet++;
    int r = fchild(c, n, inst);
    c->quiet--;
    if (memo && r >= 0)
        memo_put(&c->memo, n, inst, r);
    return r;
}

/* "properties", with its fused siblings when it has them (vprops and vkw's OP_PROPS). */
static inline __attribute__((always_inline)) int fprops(struct vctx *c, const struct kw *w,
                                                        const cJSON *inst)
{
    int ok = 1, r;
    uint64_t seen = 0;
    const struct kw *a = w->fadd;
    for (const cJSON *x = inst->child; x; x = x->next) {
        int j = ntab_find(&w->tab, x->string);
        if (j >= 0) {
            seen |= w->reqbits[j];
            r = fchild(c, w->subs[j], x);
            if (!r && c->tr)
                tr_prop(c, w, x, true);
        } else if (a) {
            r = a->sub->is_bool && !a->sub->bval ? 0 : fchild(c, a->sub, x);
            if (!r && c->tr)
                tr_prop(c, w, x, false);
        } else {
            continue;
        }
        if (r < 0)
            return r;
        if (!r) {
            ok = 0;
            if (!c->all || c->quiet)
                return 0;
        }
    }
    const struct kw *q = w->freq;
    if (q) {
        uint64_t want = q->n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << q->n) - 1);
        if ((seen & want) != want) {
            TRAIL_ORIGIN(c, T_REQ, NULL, w, inst, 0, 0);
            return 0;
        }
    }
    return ok;
}

/* prefixItems, items, additionalItems: the items from index <from> on (prefixItems: up to its
 * length) against <sub> (prefixItems: its own subschemas). */
static int fitems(struct vctx *c, const struct kw *w, const struct node *sub, int from,
                  const cJSON *inst)
{
    int ok = 1, i = 0, r;
    for (const cJSON *x = inst->child; x; x = x->next, i++) {
        if (i < from)
            continue;
        if (!sub && i >= w->n)
            break;
        r = fchild(c, sub ? sub : w->subs[i], x);
        if (r < 0)
            return r;
        if (!r) {
            ok = 0;
            TRAIL(c, T_ITEM, NULL, w, x, i);
            if (!c->all || c->quiet)
                return 0;
        }
    }
    return ok;
}

static int fanyof(struct vctx *c, const struct kw *w, const cJSON *inst)
{
    int matched = 0, first = -1, i, r;
    const cJSON *dm = NULL;
    if (w->disc && cJSON_IsObject(inst))
        for (dm = inst->child; dm && !(dm->string[0] == w->disc[0] && pname_eq(dm->string, w->disc));
             dm = dm->next)
            ;
    for (i = 0; i < w->n; i++) {
        if (dm && w->discv[i] && !(cJSON_IsString(dm) && dm->valuestring[0] == w->discv[i][0] &&
                                   pname_eq(dm->valuestring, w->discv[i])))
            continue;
        if ((r = fprobe(c, w->subs[i], inst)) < 0)
            return r;
        if (r) {
            if (++matched > 1 || w->op == OP_ANYOF)
                break;
            first = i;
        }
    }
    r = w->op == OP_ANYOF ? matched > 0 : matched == 1;
    if (!r) /* oneOf: the first two branches that matched, for the message */
        TRAIL_ORIGIN(c, T_ANY, NULL, w, inst, first, i);
    return r;
}

/* Keyword <w> of the node <n> in full, for the verdict walk (after quick_pass, or for a flat
 * instruction that could not decide). */
static __attribute__((noinline)) int fkw(struct vctx *c, const struct node *n, const struct kw *w,
                                         const cJSON *inst)
{
    int r = 0;
    switch (w->op) {
    case OP_REF:
        return fchild(c, w->sub, inst);
    case OP_PREFIX:
        return fitems(c, w, NULL, 0, inst);
    case OP_ITEMS:
        return fitems(c, w, w->sub, w->ntuple > 0 ? w->ntuple : 0, inst);
    case OP_ADDITEMS:
        return fitems(c, w, w->sub, w->ntuple, inst);
    case OP_ANYOF:
    case OP_ONEOF:
        return fanyof(c, w, inst);
    case OP_ALLOF: {
        int all_ok = 1;
        for (int k = 0; k < w->n; k++) {
            if ((r = fchild(c, w->subs[k], inst)) < 0)
                return r;
            if (!r) {
                all_ok = 0;
                TRAIL(c, T_ALLOF, NULL, w, inst, k);
                if (!c->all || c->quiet)
                    break;
            }
        }
        return all_ok;
    }
    case OP_NOT:
        r = fprobe(c, w->sub, inst);
        return r < 0 ? r : !r;
    case OP_PROPNAMES: {
        int ok = 1;
        for (const cJSON *x = inst->child; x; x = x->next) {
            cJSON name = {.type = cJSON_String, .valuestring = x->string};
            c->names++;
            r = fchild(c, w->sub, &name);
            c->names--;
            TALLY(c, r, ok);
        }
        return ok;
    }
    case OP_IF:
        if (!w->then_ && !w->else_)
            return 1;
        r = fprobe(c, w->sub, inst);
        if (r >= 0) {
            const struct node *b = r ? w->then_ : w->else_;
            int then = r;
            r = b ? fchild(c, b, inst) : 1;
            if (!r)
                TRAIL(c, T_THEN, NULL, w, inst, then);
        }
        return r;
    default:
        return vkw(c, n, w, inst, NULL, NULL, NULL);
    }
}

/* fnode for a node whose list for objects is one FI_PROPS (struct node.pnode), on an object:
 * the same steps, depth and trail, in a function with one loop. Other kinds go to fnode. */
static __attribute__((noinline)) int fpnode(struct vctx *c, const struct node *n, const cJSON *x)
{
    const struct fi *ip = n->fk[K_OBJECT];
    if (!cJSON_IsObject(x))
        return fnode(c, n, x);
    if (enter_node(c))
        return FORGE_ELIMIT;
    c->depth++;
    int r = fprops(c, ip->w, x);
    c->depth--;
    if (!r && c->tr)
        tr_node(c, n, ip, x);
    return r;
}

/* FI_IFM <ip> on the object <inst>: fkw's "if" with the probe of its subschema done here (the
 * step its entry counts, the name's members against the leaf: every one, as fprops looks up
 * each member), then the branch. */
static __attribute__((noinline)) int fif_member(struct vctx *c, const struct fi *ip, const cJSON *inst)
{
    const struct kw *w = ip->w;
    if (!w->then_ && !w->else_)
        return 1;
    if (enter_node(c))
        return FORGE_ELIMIT;
    int v = 1;
    for (const cJSON *m = inst->child; m; m = m->next)
        if (m->string[0] == ip->name[0] && pname_eq(m->string, ip->name) && leaf_fails_at(ip->p, m, &v)) {
            if (v < 0)
                return v;
            break;
        }
    const struct node *b = v ? w->then_ : w->else_;
    int r = b ? fchild(c, b, inst) : 1;
    if (!r)
        TRAIL(c, T_THEN, NULL, w, inst, v);
    return r;
}

/* A keyword without an instruction of its own: quick_pass, else fkw. */
static __attribute__((noinline)) int fkw_quick(struct vctx *c, const struct node *n,
                                               const struct kw *w, const cJSON *inst)
{
    return quick_pass_out(w, inst) ? 1 : fkw(c, n, w, inst);
}

/* A node that is not a leaf (fchild checks those inline): its flat list for the instance's
 * kind, after the step and depth checks. fchild sends $ref-only nodes to fref; fnode takes them
 * too (measured: without that branch GCC lays fnode out worse, 1.5 % more instructions). */
static int fnode(struct vctx *c, const struct node *n, const cJSON *inst)
{
    if (!n->fprog) { /* a boolean schema, or a node that collects annotations */
        int r = n->is_bool ? n->bval : vnode_body(c, n, inst, NULL, NULL, NULL);
        if (!r)
            TRAIL_ORIGIN(c, T_BODY, n, NULL, inst, 0, 0);
        return r;
    }
    if (enter_node(c))
        return FORGE_ELIMIT;
    c->depth++;
    int ok = 1, r = 0;
    if (n->refonly) {
        r = fchild(c, n->refonly->sub, inst);
        c->depth--;
        if (!r)
            TRAIL(c, T_REF, n, n->refonly, inst, 0);
        return r;
    }
    for (const struct fi *ip = n->fk[kind_of(inst)]; ip->op != FI_END; ip++) {
        switch (ip->op) {
        case FI_PROPS:
            r = fprops(c, ip->w, inst);
            break;
        case FI_ITEMS:
            r = fitems(c, ip->w, ip->p, ip->n, inst);
            break;
        case FI_REF:
            r = fchild(c, ip->p, inst);
            break;
        case FI_ANYOF:
            r = fanyof(c, ip->w, inst);
            break;
        case FI_ALLOF:
        case FI_IF:
            r = fkw(c, n, ip->w, inst);
            break;
        case FI_PNAMES:
            /* a trail left inside names the names' stack cJSONs: the keyword is the origin
             * (nothing failed before it, so the trail was empty) */
            if (!(r = fkw(c, n, ip->w, inst)) && c->tr)
                tr_reset(c->tr);
            break;
        case FI_NOT:
            r = fprobe(c, ip->p, inst);
            if (r >= 0)
                r = !r;
            break;
        case FI_NOTL: {
            int v;
            r = !leaf_fails_at(ip->p, inst, &v) ? 0 : v < 0 ? v : 1;
            break;
        }
        case FI_IFM:
            r = fif_member(c, ip, inst);
            break;
        case FI_KW:
            r = fkw_quick(c, n, ip->w, inst);
            break;
        case FI_ENUMSET:
            if (enum_set_ok(ip->p, inst))
                ip += 2;
            continue;
        default:
            if ((r = fpure(ip, inst)) < 0) /* a pattern's match limit: as vkw reports it */
                r = fkw(c, n, ip->w, inst);
        }
        if (r < 0)
            break;
        if (!r) {
            ok = 0;
            if (c->tr)
                tr_node(c, n, ip, inst);
            if (!c->all || c->quiet)
                break;
        }
    }
    c->depth--;
    return r < 0 ? r : ok;
}

/* ---------- the first error from the verdict walk's trail ----------
 * In first-error mode the recording walk and the verdict walk evaluate the same keywords in
 * the same order and stop at the same first failure, so the verdict walk runs (without
 * locations) and, when it fails, leaves a trail as it unwinds (struct trail). replay then
 * builds the iloc/kloc links the recording walk would have had at the failure from the
 * trail, and records the error with the recording walk's own code for that one keyword: the
 * same record, byte for byte. */

/* The recording walk's loop over node <n> (a node with a flat form: no annotations, no
 * dynamic scope) on <inst>, from its keyword <from> on: the keywords before it passed. Returns
 * 0 (the error recorded) or negative; 1 when <from> is not in the list or nothing fails (the
 * trail did not match: the caller runs the recording walk instead). */
static __attribute__((noinline)) int vnode_from(struct vctx *c, const struct node *n,
                                                const cJSON *inst, const struct iloc *il,
                                                const struct kloc *kl, const struct kw *from)
{
    long slen = -1;
    int kind = kind_of(inst), i = 0, nk = n->nkinds[kind];
    const struct kw *const *ks = n->kinds[kind];
    while (i < nk && ks[i] != from)
        i++;
    for (; i < nk; i++) {
        const struct kw *w = ks[i];
        int r;
        if (quick_pass(w, inst, &slen))
            continue;
        if (w->op == OP_REF) {
            struct sitelink k1 = {{kl, w->name, w->seglen}, w, -1};
            r = vref(c, w->sub, inst, il, &k1.k, NULL);
        } else if (w->op == OP_PROPS && (w->freq || w->fadd)) {
            r = vprops(c, n, w, inst, il, kl, NULL);
        } else if (w->op == OP_ITEMS || w->op == OP_PREFIX) {
            r = vitems(c, n, w, inst, il, kl, NULL);
        } else if (w->op == OP_NOT && w == from) {
            r = FAIL(c, n, il, kl, w, NULL, &M_NOT); /* the verdict walk found the match */
        } else {
            r = vkw(c, n, w, inst, il, kl, NULL);
        }
        if (r <= 0)
            return r;
    }
    return 1;
}

/* Whether the failing instruction <ip> stands for its one keyword (kw_failed records it). */
static inline bool fi_direct(const struct fi *ip)
{
    switch (ip->op) {
    case FI_TYPE: /* the type, or an enum or const that only fails on this kind */
        return ip->w->op == OP_TYPE || ip->w->op == OP_ENUM || ip->w->op == OP_CONST;
    case FI_ENUMS: case FI_ENUMD: case FI_CONSTS: case FI_PAT: case FI_REQ1: case FI_MULOF:
        return true;
    default:
        return false;
    }
}

/* The error of the leaf <n> on <x> whose flat list failed at the instruction <ip> (fpure said 0;
 * the instructions before it passed): leaf_failed's, without evaluating again the keywords
 * before it, or the one keyword an instruction of these kinds stands for (kw_failed: the record
 * vkw_value makes when it finds that keyword failing, as fpure did). */
static __attribute__((noinline)) int leaf_failed_at(struct vctx *c, const struct node *n,
                                                    const cJSON *x, const struct iloc *il,
                                                    const struct kloc *kl, const struct fi *ip)
{
    if (fi_direct(ip))
        return kw_failed(c, n, ip->w, x, il, kl);
    return leaf_failed_from(c, n, x, il, kl, ip->w);
}

/* leaf_failed_at in all-errors mode: that keyword's error, then the keywords after it. */
static int leaf_failed_all_at(struct vctx *c, const struct node *n, const cJSON *x,
                              const struct iloc *il, const struct kloc *kl, const struct fi *ip)
{
    if (!fi_direct(ip))
        return leaf_failed_from(c, n, x, il, kl, ip->w);
    int r = kw_failed(c, n, ip->w, x, il, kl), kind = kind_of(x);
    if (r < 0 || c->quiet || n->kinds[kind][n->nkinds[kind] - 1] == ip->w) /* (the last one) */
        return r;
    r = leaf_failed_kws(c, n, x, il, kl, ip->w, true);
    return r < 0 ? r : 0;
}

/* Records the error the recording walk records first, from the trail <tr> of a verdict walk
 * that failed. Returns 0, negative (out of memory), or 1 when the trail cannot be followed. */
static __attribute__((noinline)) int replay(struct vctx *c, struct trail *tr)
{
    if (!tr->t || tr->over) /* no origin (cannot happen), or no room */
        return 1;
    *tr->iup = NULL; /* the links end at the root */
    *tr->kup = NULL;
    const struct iloc *il = tr->il0;
    const struct kloc *kl = tr->kl0;
    const struct node *n = tr->n;
    const struct kw *w = tr->w;
    if (!n)
        return 1;
    switch (tr->t) {
    case T_NODE:
        return vnode_from(c, n, tr->x, il, kl, w);
    case T_ADDF:
        return FAIL(c, n, il, kl, w->fadd, NULL, &M_NOT_ALLOWED, EA_S(tr->x->string));
    case T_REQ: {
        const struct kw *q = w->freq;
        uint64_t seen = 0;
        for (const cJSON *m = tr->x->child; m; m = m->next) {
            int j = ntab_find(&w->tab, m->string);
            if (j >= 0)
                seen |= w->reqbits[j];
        }
        for (int j = 0; j < q->n; j++)
            if (!(seen >> j & 1))
                return FAIL_MISSING(c, n, il, kl, q, j);
        return 1;
    }
    case T_ANY:
        if (w->op == OP_ANYOF)
            return FAIL(c, n, il, kl, w, NULL, &M_ANYOF, EA_I(w->n));
        if (tr->j < 0)
            return FAIL(c, n, il, kl, w, NULL, &M_ONEOF_NONE, EA_I(w->n));
        return FAIL(c, n, il, kl, w, NULL, &M_ONEOF_MANY, EA_I(tr->j), EA_I(tr->j2));
    case T_LEAF:
        return tr->ip ? leaf_failed_at(c, n, tr->x, il, kl, tr->ip) : leaf_failed(c, n, tr->x, il, kl);
    case T_BODY:
        return vnode_body(c, n, tr->x, il, kl, NULL);
    default:
        return 1;
    }
}

/* For tests: 1 runs the recording walk from the root whenever errors are wanted, 2 the verdict
 * walk first (in first-error mode with its trail replayed) whatever the schema, the instance
 * and the thread's recent validations, 0 as they say (see verdict_first); and how many replays
 * did not match their trail. */
static _Thread_local int check_path;
static _Thread_local unsigned long trail_misses, walks[2];
static _Thread_local bool segments_only;

unsigned long forge_schema_test_ref_records(void)
{
    return ref_records;
}

void forge_schema_test_segments(bool on)
{
    segments_only = on;
}

void forge_schema_test_path(int recording)
{
    check_path = recording;
}

unsigned long forge_schema_test_trail_misses(void)
{
    return trail_misses;
}

unsigned long forge_schema_test_walks(int recording)
{
    return walks[recording != 0];
}

/* Whether a first-error check of <inst> takes the verdict walk and its trail: for a schema with
 * subschemas below its top level (forge_schema.trail) and an instance of at least TRAIL_MEMBERS
 * members or items, where a failure usually comes after a valid part that the verdict walk
 * checks faster than the recording walk. A small instance fails near the top, where replaying
 * the failing keyword repeats most of the walk. */
static inline bool trail_pays(const struct forge_schema *s, const cJSON *inst)
{
    if (!s->trail || !(inst->type & (cJSON_Object | cJSON_Array)))
        return false;
    int n = 0;
    for (const cJSON *x = inst->child; x && n < TRAIL_MEMBERS; x = x->next)
        n++;
    return n >= TRAIL_MEMBERS;
}

/* The outcomes of the calling thread's last two validations that wanted errors, a bit each (1:
 * invalid), the last in bit 0: both invalid predict an invalid instance. A valid instance costs
 * least on the verdict walk; an invalid one on the recording walk (in first-error mode: unless
 * trail_pays), which the verdict walk's cost up to the failure, or its trail's, would only
 * precede. What callers check is mostly of one kind in a row (the arguments of tool calls,
 * mostly valid; a test set of invalid instances): the prediction picks the walk that costs least
 * for it. Which walk runs changes the cost alone: both give the same verdict and the same errors
 * (tests/conformance/schema_paths.c). */
static _Thread_local unsigned recent_invalid;

/* Whether a check that wants errors runs the verdict walk first (the recording walk after it
 * only when the instance is invalid, or in first-error mode the trail's replay). */
static inline bool verdict_first(const struct forge_schema *s, const cJSON *inst, bool all)
{
    if (check_path)
        return check_path == 2;
    return recent_invalid != 3 || (!all && trail_pays(s, inst));
}

/* The verdict walk, then (when it finds <inst> invalid) the errors: in first-error mode from its
 * trail (see replay), else, or when the trail cannot be followed, by the recording walk from
 * the root. <c> is set up for the recording walk, in all-errors mode when <all>. */
static inline __attribute__((always_inline)) int verdict_then_errors(struct vctx *c,
                                                                      const cJSON *inst, bool all)
{
    struct forge_schema_errors *errors = c->out;
    struct trail tr;
    tr.over = false;
    tr.nrefs = 0;
    tr_reset(&tr);
    walks[0]++;
    c->out = NULL;
    c->all = false; /* (to the first failure) */
    c->tr = all ? NULL : &tr;
    int r = fchild(c, c->s->root, inst);
    c->tr = NULL;
    c->out = errors;
    c->all = all;
    if (r || c->rc < 0)
        return r;
    r = 1;
    /* past MEMO_AFTER steps probe verdicts may have been memoised, and a part walked again
     * would count its steps differently: the recording walk runs instead */
    if (!all && c->steps <= MEMO_AFTER && !tr.over) {
        c->steps = 0; /* the part walked again takes fewer steps and less depth than */
        c->depth = 0; /* the whole walk did, so no limit can stop it */
        c->refs = tr.nrefs + segments_only;
        r = replay(c, &tr);
        c->refs = segments_only;
        if (r > 0 || (!r && errors->n != 1)) {
            trail_misses++;
            r = 1;
        }
    }
    if (r > 0) {
        errors->n = 0;
        errors->nsegs = 0;
        c->steps = 0;
        c->depth = 0;
        c->rc = 0;
        if (c->memo.e)
            forge_free(c->memo.e);
        c->memo = (struct memo){0};
        walks[1]++;
        r = vnode(c, c->s->root, inst, NULL, NULL, NULL);
    }
    return r;
}

int forge_schema_check(const struct forge_schema *s, const cJSON *instance,
                       struct forge_schema_errors *errors)
{
    struct vctx c;
    c.s = s;
    c.all = s->opts.all_errors;
    c.quiet = 0;
    c.names = 0;
    c.out = errors;
    c.tr = NULL;
    c.refs = segments_only;
    c.rc = 0;
    c.depth = 0;
    c.nscope = 0;
    c.steps = 0;
    c.memo = (struct memo){0};
    last_limit = LIM_NONE;
    forge_ecmare_epoch++; /* (a limit a pattern hit on an earlier instance no longer stands) */
    int r;
    if (!errors) {
        r = s->dynamic ? vnode(&c, s->root, instance, NULL, NULL, NULL) : fchild(&c, s->root, instance);
    } else {
        errors->n = 0;
        errors->nsegs = 0;
        errors->rendered = false;
        errors->plain_names = !s->escaped_names;
        if (s->dynamic || !verdict_first(s, instance, c.all)) {
            walks[1]++;
            r = vnode(&c, s->root, instance, NULL, NULL, NULL);
        } else { /* (each mode its own copy, without the other's tests) */
            r = c.all ? verdict_then_errors(&c, instance, true) : verdict_then_errors(&c, instance, false);
        }
        recent_invalid = (recent_invalid << 1 | (r == 0)) & 3;
    }
    if (c.memo.e)
        forge_free(c.memo.e);
    if (r < 0 || c.rc < 0) {
        if (errors)
            errors->n = 0;
        return c.rc < 0 ? c.rc : r;
    }
    if (errors && r)
        errors->n = 0;
    return r;
}

int forge_schema_validate(const struct forge_schema *s, const cJSON *instance, cJSON **errors)
{
    if (errors)
        *errors = NULL;
    if (!errors)
        return forge_schema_check(s, instance, NULL);
    struct forge_schema_errors e = FORGE_SCHEMA_ERRORS_INIT;
    int r = forge_schema_check(s, instance, &e);
    if (r == 0 && !(*errors = forge_schema_errors_json(&e)))
        r = FORGE_ENOMEM;
    forge_schema_errors_free(&e);
    return r;
}
