/* Tool-use validation: forge's port of agent-eval-harness's tool-use semantics (see tooluse.h).
 *
 * Every score is accumulated in the order upstream accumulates it, with the same double
 * weights, so sums such as 1 - 0.7 come out bit-identical. JavaScript helpers (truthiness,
 * typeof, String(), Object.entries order, toLowerCase, includes) are file-local below. */
#define _GNU_SOURCE /* memmem, newlocale, towlower_l */
#include "score/tooluse.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/strtab.h"
#include "data/json.h"
#include "data/schema.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

/* ---------------------------------------------------------------------------------------- */
/* JavaScript value helpers                                                                  */

static bool truthy(const cJSON *v)
{
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
        return false;
    if (cJSON_IsNumber(v))
        return !(v->valuedouble == 0 || isnan(v->valuedouble));
    if (cJSON_IsString(v))
        return v->valuestring && v->valuestring[0];
    return true;
}

static const char *js_typeof(const cJSON *v)
{
    if (!v)
        return "undefined";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNumber(v))
        return "number";
    if (cJSON_IsString(v))
        return "string";
    return "object";
}

static const char *sval(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static int js_num(struct forge_buf *b, double d)
{
    char tmp[40];
    return forge_buf_adds(b, forge_json_number(d, tmp));
}

/* String(v), appended. Missing is "undefined". */
static int js_str(struct forge_buf *b, const cJSON *v)
{
    if (!v)
        return forge_buf_adds(b, "undefined");
    if (cJSON_IsNull(v))
        return forge_buf_adds(b, "null");
    if (cJSON_IsTrue(v))
        return forge_buf_adds(b, "true");
    if (cJSON_IsFalse(v))
        return forge_buf_adds(b, "false");
    if (cJSON_IsNumber(v))
        return js_num(b, v->valuedouble);
    if (cJSON_IsString(v))
        return forge_buf_adds(b, v->valuestring ? v->valuestring : "");
    if (cJSON_IsArray(v)) {
        int rc = 0;
        for (const cJSON *c = v->child; c && !rc; c = c->next) {
            if (c != v->child)
                rc = forge_buf_addc(b, ',');
            if (!rc && !cJSON_IsNull(c))
                rc = js_str(b, c);
        }
        return rc;
    }
    return forge_buf_adds(b, "[object Object]");
}

/* Object.entries(v): objects in JavaScript property order (array-index keys ascending first,
 * then the others in insertion order), arrays by index. Strings yield one-character values,
 * which no detector can use (all are shorter than every length threshold), so they are left out;
 * other primitives have no entries. */
struct entry {
    const char *key;
    const cJSON *val;
    char idx[24];
};

static bool index_key(const char *k, unsigned long *out)
{
    if (!k[0] || (k[0] == '0' && k[1]) || strlen(k) > 10)
        return false;
    unsigned long n = 0;
    for (const char *p = k; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        n = n * 10 + (unsigned long)(*p - '0');
    }
    if (n >= 4294967295UL)
        return false;
    *out = n;
    return true;
}

static int entry_cmp(const void *a, const void *b)
{
    unsigned long x = 0, y = 0;
    index_key(((const struct entry *)a)->key, &x);
    index_key(((const struct entry *)b)->key, &y);
    return x < y ? -1 : x > y;
}

/* Returns the number of entries (new array in *out, free with forge_free), or -1 on ENOMEM. */
static int entries(const cJSON *v, struct entry **out, struct entry *stack, int nstack)
{
    *out = NULL;
    if (!v || !(cJSON_IsObject(v) || cJSON_IsArray(v)))
        return 0;
    int n = cJSON_GetArraySize(v);
    if (n == 0)
        return 0;
    struct entry *e = n <= nstack ? stack : forge_malloc(sizeof *e * (size_t)n);
    if (!e)
        return -1;
    int i = 0, nidx = 0;
    unsigned long u;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        e[i].val = c;
        if (cJSON_IsArray(v)) {
            snprintf(e[i].idx, sizeof e[i].idx, "%d", i);
            e[i].key = e[i].idx;
        } else {
            e[i].key = c->string ? c->string : "";
            if (index_key(e[i].key, &u))
                nidx++;
        }
    }
    if (nidx) {
        /* Stable partition: index keys first (sorted numerically), the rest in order. */
        struct entry *t = forge_malloc(sizeof *t * (size_t)n);
        if (!t) {
            if (e != stack)
                forge_free(e);
            return -1;
        }
        int a = 0, b = nidx;
        for (int j = 0; j < n; j++) {
            if (index_key(e[j].key, &u))
                t[a++] = e[j];
            else
                t[b++] = e[j];
        }
        qsort(t, (size_t)nidx, sizeof *t, entry_cmp);
        if (e != stack)
            forge_free(e);
        e = t;
    }
    *out = e;
    return n;
}

static const char *const object_proto[] = {
    "constructor", "__defineGetter__", "__defineSetter__", "hasOwnProperty", "__lookupGetter__",
    "__lookupSetter__", "isPrototypeOf", "propertyIsEnumerable", "toString", "valueOf",
    "__proto__", "toLocaleString", NULL};

static bool proto_key(const char *k)
{
    for (int i = 0; object_proto[i]; i++)
        if (strcmp(object_proto[i], k) == 0)
            return true;
    return false;
}

/* `key in obj` for a JSON object or array (inherited Object.prototype members included). */
static bool js_in(const char *key, const cJSON *obj)
{
    if (cJSON_IsArray(obj)) {
        unsigned long u;
        if (strcmp(key, "length") == 0 || proto_key(key))
            return true;
        return index_key(key, &u) && u < (unsigned long)cJSON_GetArraySize(obj);
    }
    if (!cJSON_IsObject(obj))
        return false;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && strcmp(c->string, key) == 0)
            return true;
    return proto_key(key);
}

/* obj[key] for an own property (inherited members are treated as absent). */
static const cJSON *own(const cJSON *obj, const char *key)
{
    if (!cJSON_IsObject(obj))
        return NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    return NULL;
}

/* Lookups by name among an object's own members: a scan for a small object, a table of its names
 * (forge_json_names) for a large one (a script's arguments and schemas may hold 100,000 names,
 * and a scan for each of them would take minutes). The first of duplicate names wins, as in
 * own. */
#define MEMBERS_SCAN 16
static _Thread_local int members_scan = MEMBERS_SCAN;

void forge_tooluse_test_members_scan(int n)
{
    members_scan = n < 0 ? MEMBERS_SCAN : n;
}

struct members {
    const cJSON *obj;
    bool indexed; /* false: scanned */
    struct forge_json_names ix;
    int n;        /* an array's size */
};

/* Returns 0, or -1 when out of memory. */
static int members_open(struct members *m, const cJSON *obj)
{
    memset(m, 0, sizeof *m);
    m->obj = obj;
    if (cJSON_IsArray(obj)) /* (an array's members are its indices: its size is kept) */
        m->n = cJSON_GetArraySize(obj);
    if (!cJSON_IsObject(obj))
        return 0;
    int n = 0;
    for (const cJSON *c = obj->child; c && n <= members_scan; c = c->next)
        n += c->string != NULL;
    if (n <= members_scan)
        return 0;
    if (forge_json_names_build(&m->ix, obj))
        return -1;
    m->indexed = true;
    return 0;
}

static const cJSON *members_own(const struct members *m, const char *key)
{
    return m->indexed ? forge_json_names_find(&m->ix, key) : own(m->obj, key);
}

/* js_in for the object or array of <m>. */
static bool members_in(const struct members *m, const char *key)
{
    if (cJSON_IsArray(m->obj)) {
        unsigned long u;
        if (strcmp(key, "length") == 0 || proto_key(key))
            return true;
        return index_key(key, &u) && u < (unsigned long)m->n;
    }
    if (!m->indexed)
        return js_in(key, m->obj);
    return members_own(m, key) || proto_key(key);
}

static void members_close(struct members *m)
{
    forge_json_names_free(&m->ix);
    m->indexed = false;
}

/* Array.prototype.includes (SameValueZero: objects never equal a parsed value). */
static bool same_value_zero(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return !a && !b;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble ||
               (isnan(a->valuedouble) && isnan(b->valuedouble));
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsBool(a) && cJSON_IsBool(b))
        return cJSON_IsTrue(a) == cJSON_IsTrue(b);
    if (cJSON_IsNull(a) && cJSON_IsNull(b))
        return true;
    return false;
}

/* `enum.includes(value)`: 1 yes, 0 no, -1 when upstream would throw (enum not a list). */
static int enum_includes(const cJSON *en, const cJSON *v, struct forge_buf *tmp)
{
    if (cJSON_IsArray(en)) {
        for (const cJSON *c = en->child; c; c = c->next)
            if (same_value_zero(c, v))
                return 1;
        return 0;
    }
    if (cJSON_IsString(en)) {
        forge_buf_reset(tmp);
        if (js_str(tmp, v))
            return 0;
        return tmp->len == 0 || strstr(en->valuestring, tmp->data) != NULL;
    }
    return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Unicode lowercase (String.prototype.toLowerCase)                                          */

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_init(void)
{
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    size_t k = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (!k || k > n) {
        *len = 1;
        return UINT32_MAX;
    }
    uint32_t cp = c & (0x7F >> k);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return UINT32_MAX;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = k;
    return cp;
}

static int encode(struct forge_buf *b, uint32_t cp)
{
    char t[4];
    size_t n;
    if (cp < 0x80) {
        t[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        t[0] = (char)(0xC0 | (cp >> 6));
        t[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        t[0] = (char)(0xE0 | (cp >> 12));
        t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        t[0] = (char)(0xF0 | (cp >> 18));
        t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        t[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return forge_buf_add(b, t, n);
}

static bool is_letter(uint32_t cp)
{
    return cp != UINT32_MAX && iswalpha_l((wint_t)cp, utf8_locale);
}

int forge_tooluse_lower(struct forge_buf *out, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    int rc = 0;
    while (i < n && !rc) {
        /* ASCII run: found, then lowered, eight bytes at a time */
        size_t j = i;
        while (j + 8 <= n) {
            uint64_t w;
            memcpy(&w, u + j, 8);
            if (w & 0x8080808080808080ull)
                break;
            j += 8;
        }
        while (j < n && u[j] < 0x80)
            j++;
        if (j > i) {
            size_t at = out->len;
            rc = forge_buf_add(out, s + i, j - i);
            if (rc)
                break;
            char *d = out->data;
            size_t k = at;
            for (; k + 8 <= out->len; k += 8) {
                uint64_t w;
                memcpy(&w, d + k, 8);
                /* per byte (all below 0x80): bit 7 of w + (0x80 - 'A') is set from 'A' up, of
                 * w + (0x7F - 'Z') from past 'Z' up; their difference marks 'A'..'Z' */
                uint64_t ge_a = w + 0x3F3F3F3F3F3F3F3Full, gt_z = w + 0x2525252525252525ull;
                w |= ((ge_a ^ gt_z) & 0x8080808080808080ull) >> 2;
                memcpy(d + k, &w, 8);
            }
            for (; k < out->len; k++)
                if (d[k] >= 'A' && d[k] <= 'Z')
                    d[k] = (char)(d[k] + 32);
            i = j;
            continue;
        }
        size_t len;
        uint32_t cp = decode(u + i, n - i, &len);
        if (cp == UINT32_MAX) {
            rc = forge_buf_add(out, s + i, len);
        } else if (cp == 0x130) { /* İ -> i + combining dot above */
            rc = forge_buf_adds(out, "i\xcc\x87");
        } else if (cp == 0x3A3) { /* Σ: final sigma after a letter and not before one */
            pthread_once(&utf8_once, utf8_init);
            uint32_t prev = UINT32_MAX, next = UINT32_MAX;
            if (i > 0) {
                size_t b = i - 1, pl;
                while (b > 0 && (u[b] & 0xC0) == 0x80)
                    b--;
                prev = decode(u + b, n - b, &pl);
            }
            size_t nl;
            if (i + len < n)
                next = decode(u + i + len, n - i - len, &nl);
            bool final = utf8_locale && is_letter(prev) && !is_letter(next);
            rc = encode(out, final ? 0x3C2 : 0x3C3);
        } else {
            pthread_once(&utf8_once, utf8_init);
            uint32_t lc = utf8_locale ? (uint32_t)towlower_l((wint_t)cp, utf8_locale) : cp;
            rc = encode(out, lc);
        }
        i += len;
    }
    return rc;
}

/* JavaScript's s.length compared with a small bound, counting UTF-16 units only when the byte
 * length leaves it open (a character is 1 to 4 bytes and 1 or 2 units). */
static size_t u16len(const char *s, size_t n, size_t bound)
{
    /* every unit takes at most 3 bytes (a 4-byte character is 2 units): 3(bound+1) bytes or
     * more hold more than <bound> units */
    if (n >= 3 * (bound + 1))
        return n;
    return forge_utf16_len(s, n);
}

static bool includes(const char *hay, size_t hn, const char *needle, size_t nn)
{
    if (nn == 0)
        return true;
    if (nn > hn)
        return false;
    if (hn > 2048) /* long texts: glibc's memmem scales better */
        return memmem(hay, hn, needle, nn) != NULL;
    /* short texts (a turn's answer): first byte by memchr, then the rest */
    const char *p = hay, *last = hay + (hn - nn);
    char c0 = needle[0];
    while (p <= last) {
        p = memchr(p, c0, (size_t)(last - p) + 1);
        if (!p)
            return false;
        if (memcmp(p + 1, needle + 1, nn - 1) == 0)
            return true;
        p++;
    }
    return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Output building with one out-of-memory flag                                              */

struct out {
    bool oom;
    struct forge_buf tmp; /* scratch */
};

static cJSON *add(struct out *o, cJSON *obj, const char *key, cJSON *item)
{
    if (!item) {
        o->oom = true;
        return NULL;
    }
    if (cJSON_IsArray(obj)) {
        if (!cJSON_AddItemToArray(obj, item)) {
            cJSON_Delete(item);
            o->oom = true;
            return NULL;
        }
    } else if (!cJSON_AddItemToObjectCS(obj, key, item)) {
        cJSON_Delete(item);
        o->oom = true;
        return NULL;
    }
    return item;
}

/* add() for a key that does not outlive the call (copied; add() keeps literal keys as they are). */
static cJSON *add_k(struct out *o, cJSON *obj, const char *key, cJSON *item)
{
    if (!item) {
        o->oom = true;
        return NULL;
    }
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        o->oom = true;
        return NULL;
    }
    return item;
}

static void add_str(struct out *o, cJSON *obj, const char *key, const char *s)
{
    add(o, obj, key, cJSON_CreateString(s));
}

static void add_num(struct out *o, cJSON *obj, const char *key, double d)
{
    add(o, obj, key, cJSON_CreateNumber(d));
}

static void add_bool(struct out *o, cJSON *obj, const char *key, bool b)
{
    add(o, obj, key, cJSON_CreateBool(b));
}

static void add_dup(struct out *o, cJSON *obj, const char *key, const cJSON *v)
{
    if (v)
        add(o, obj, key, cJSON_Duplicate(v, 1));
}

/* printf into a new string item */
static void add_fmt(struct out *o, cJSON *obj, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_fmt(struct out *o, cJSON *obj, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        o->oom = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        add_str(o, obj, key, small);
        return;
    }
    char *big = forge_malloc((size_t)n + 1);
    if (!big) {
        o->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    add_str(o, obj, key, big);
    forge_free(big);
}

/* String(v) as a new heap string (NULL on ENOMEM, which sets o->oom). */
static char *strv(struct out *o, const cJSON *v)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (js_str(&b, v)) {
        forge_buf_free(&b);
        o->oom = true;
        return NULL;
    }
    return forge_buf_take(&b);
}

/* An issue object {type, severity, description, turnId, toolName}; details added by caller. */
static cJSON *issue_new(struct out *o, cJSON *issues, const char *type, const char *severity,
                        const cJSON *turn)
{
    cJSON *is = add(o, issues, NULL, cJSON_CreateObject());
    if (!is)
        return NULL;
    add_str(o, is, "type", type);
    add_str(o, is, "severity", severity);
    (void)turn;
    return is;
}

static void add_copy(struct out *o, cJSON *obj, const char *key, const cJSON *v)
{
    if (cJSON_IsNumber(v))
        add_num(o, obj, key, v->valuedouble);
    else if (cJSON_IsString(v))
        add_str(o, obj, key, v->valuestring);
    else
        add_dup(o, obj, key, v);
}

static void issue_tail(struct out *o, cJSON *is, const cJSON *turn, const cJSON *name)
{
    if (!is)
        return;
    add_copy(o, is, "turnId", forge_json_get(turn, "turn_id"));
    if (name)
        add_copy(o, is, "toolName", name);
}

static double issue_weight(const char *sev, double c, double h, double m, double l, double other)
{
    if (strcmp(sev, "critical") == 0)
        return c;
    if (strcmp(sev, "high") == 0)
        return h;
    if (strcmp(sev, "medium") == 0)
        return m;
    if (strcmp(sev, "low") == 0)
        return l;
    return other;
}

static bool has_critical(const cJSON *issues)
{
    for (const cJSON *c = issues->child; c; c = c->next) {
        const char *s = forge_json_str(c, "severity");
        if (s && strcmp(s, "critical") == 0)
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Trajectory context: turns and their lowered contents, computed once                      */

struct lowtext {
    char *s;
    size_t n;
    bool done;
    int words; /* response-side contradiction words found (WORDS_*), -1 until computed */
};

struct tctx {
    const cJSON *traj; /* NULL when the caller gave no trajectory */
    const cJSON **turns;
    struct lowtext *low;
    int n;
    struct forge_buf lb, rs, kb, tmp; /* scratch reused across calls */
    struct forge_buf all; /* every turn's lowered content, NUL-separated */
    bool all_done;
    uint64_t *tri;        /* trigrams present in `all` (a filter before memmem) */
    struct later *later;  /* built on first use */
    struct numfirst *numfirst; /* built on first use */
    struct callidx *calls; /* built on first use */
    int hint;              /* the turn tctx_index found last */
    /* the tool schemas map, looked up for every call: scanned for the first SCHEMA_SCANS
     * calls, then through a sorted index of its names */
    struct members schemas_ix;
    int schema_asks;
};

/* The turns in the order of their ids, for "a later turn contains": the turns whose id is
 * greater than a given one (id_gt, JavaScript's >) are a suffix of one of two orders, and their
 * lowered contents a suffix of that order's text. Numeric ids (numbers, null as 0, booleans)
 * and string ids (by code units) are the two orders; no other id is greater than anything. */
struct later_order {
    int n;
    double *num;          /* the sorted ids: numeric order */
    const char **str;     /* string order */
    size_t *start;        /* where each position's content starts in text */
    struct forge_buf text; /* the contents in this order, NUL-separated */
};
struct later {
    struct later_order num, str;
};

static const char *content_of(const cJSON *turn, size_t *n)
{
    const char *s = sval(forge_json_get(turn, "content"));
    if (!s)
        s = "";
    *n = strlen(s);
    return s;
}

static int tctx_init(struct tctx *t, const cJSON *traj)
{
    memset(t, 0, sizeof *t);
    t->traj = traj;
    forge_buf_init(&t->lb, 0);
    forge_buf_init(&t->rs, 0);
    forge_buf_init(&t->kb, 0);
    forge_buf_init(&t->tmp, 0);
    forge_buf_init(&t->all, 0);
    const cJSON *turns = forge_json_get(traj, "turns");
    if (!cJSON_IsArray(turns))
        return 0;
    int n = cJSON_GetArraySize(turns);
    if (!n)
        return 0;
    t->turns = forge_calloc((size_t)n, sizeof *t->turns);
    t->low = forge_calloc((size_t)n, sizeof *t->low);
    if (!t->turns || !t->low)
        return FORGE_ENOMEM;
    int i = 0;
    for (const cJSON *c = turns->child; c; c = c->next)
        t->turns[i++] = c;
    t->n = n;
    return 0;
}

static void later_free(struct later *l)
{
    if (!l)
        return;
    struct later_order *o[2] = {&l->num, &l->str};
    for (int i = 0; i < 2; i++) {
        forge_free(o[i]->num);
        forge_free(o[i]->str);
        forge_free(o[i]->start);
        forge_buf_free(&o[i]->text);
    }
    forge_free(l);
}

struct numfirst;
static void numfirst_free(struct numfirst *f);
struct callidx;
static void callidx_free(struct callidx *c);

static void tctx_free(struct tctx *t)
{
    later_free(t->later);
    numfirst_free(t->numfirst);
    callidx_free(t->calls);
    members_close(&t->schemas_ix);
    forge_buf_free(&t->lb);
    forge_buf_free(&t->rs);
    forge_buf_free(&t->kb);
    forge_buf_free(&t->tmp);
    forge_buf_free(&t->all);
    forge_free(t->tri);
    if (t->low)
        for (int i = 0; i < t->n; i++)
            forge_free(t->low[i].s);
    forge_free(t->low);
    forge_free(t->turns);
}

static int lower_into(struct lowtext *lt, const char *s, size_t n)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    if (forge_tooluse_lower(&b, s, n)) {
        forge_buf_free(&b);
        return FORGE_ENOMEM;
    }
    lt->n = b.len;
    lt->s = forge_buf_take(&b);
    lt->done = true;
    lt->words = -1;
    return 0;
}

/* The lowered content of turn index <i>, or NULL on ENOMEM. */
static const struct lowtext *tctx_low(struct tctx *t, int i)
{
    if (!t->low[i].done) {
        size_t n;
        const char *s = content_of(t->turns[i], &n);
        if (lower_into(&t->low[i], s, n))
            return NULL;
    }
    return &t->low[i];
}

#define TRI_BITS 15

static unsigned trigram(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return ((unsigned)u[0] * 1031u + (unsigned)u[1] * 37u + (unsigned)u[2]) & ((1u << TRI_BITS) - 1);
}

/* Whether any turn's lowered content contains <needle> (which holds no NUL): one search over
 * the NUL-separated concatenation, after a trigram filter that rules most misses out without
 * scanning. Returns 1, 0, or -1 on ENOMEM. */
static int tctx_any_turn(struct tctx *t, const char *needle, size_t nn)
{
    if (!t->all_done) {
        for (int i = 0; i < t->n; i++) {
            const struct lowtext *lt = tctx_low(t, i);
            if (!lt || forge_buf_add(&t->all, lt->s, lt->n) || forge_buf_addc(&t->all, '\0'))
                return -1;
        }
        t->all_done = true;
        if (t->all.len >= 3) {
            t->tri = forge_calloc((size_t)1 << (TRI_BITS - 6), sizeof *t->tri);
            if (!t->tri)
                return -1;
            for (size_t i = 0; i + 3 <= t->all.len; i++) {
                unsigned h = trigram(t->all.data + i);
                t->tri[h >> 6] |= (uint64_t)1 << (h & 63);
            }
        }
    }
    if (nn == 0)
        return t->n > 0;
    if (t->all.len < nn)
        return 0;
    if (t->tri && nn >= 3)
        for (size_t i = 0; i + 3 <= nn; i++) {
            unsigned h = trigram(needle + i);
            if (!(t->tri[h >> 6] & ((uint64_t)1 << (h & 63))))
                return 0;
        }
    return memmem(t->all.data, t->all.len, needle, nn) != NULL;
}

/* JavaScript `a > b` for turn ids (numbers; strings compare by code units; else false). */
static bool id_gt(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble > b->valuedouble;
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) > 0;
    double x = NAN, y = NAN;
    if (cJSON_IsNumber(a))
        x = a->valuedouble;
    else if (cJSON_IsNull(a))
        x = 0;
    else if (cJSON_IsBool(a))
        x = cJSON_IsTrue(a);
    if (cJSON_IsNumber(b))
        y = b->valuedouble;
    else if (cJSON_IsNull(b))
        y = 0;
    else if (cJSON_IsBool(b))
        y = cJSON_IsTrue(b);
    return x > y;
}

/* A turn id as id_gt sees it: 1 numeric (*d its value), 2 a string, 0 neither. */
static int id_kind(const cJSON *id, double *d)
{
    if (cJSON_IsNumber(id))
        *d = id->valuedouble;
    else if (cJSON_IsNull(id))
        *d = 0;
    else if (cJSON_IsBool(id))
        *d = cJSON_IsTrue(id);
    else
        return cJSON_IsString(id) ? 2 : 0;
    return 1;
}

struct later_sort {
    int turn;
    double d;
    const char *s;
};

static int later_cmp(const void *a, const void *b)
{
    const struct later_sort *x = a, *y = b;
    int c = x->s ? strcmp(x->s, y->s) : (x->d > y->d) - (x->d < y->d);
    return c ? c : (x->turn > y->turn) - (x->turn < y->turn);
}

static int later_build_order(struct tctx *t, struct later_order *o, int kind)
{
    struct later_sort *v = forge_malloc(sizeof *v * (size_t)(t->n ? t->n : 1));
    if (!v)
        return FORGE_ENOMEM;
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        const cJSON *id = forge_json_get(t->turns[i], "turn_id");
        double d = 0;
        if (id_kind(id, &d) == kind)
            v[n++] = (struct later_sort){i, d, kind == 2 ? id->valuestring : NULL};
    }
    qsort(v, (size_t)n, sizeof *v, later_cmp);
    o->n = n;
    o->start = forge_malloc(sizeof *o->start * (size_t)(n ? n : 1));
    if (kind == 1)
        o->num = forge_malloc(sizeof *o->num * (size_t)(n ? n : 1));
    else
        o->str = forge_malloc(sizeof *o->str * (size_t)(n ? n : 1));
    int rc = !o->start || (kind == 1 ? !o->num : !o->str) ? FORGE_ENOMEM : 0;
    for (int p = 0; p < n && !rc; p++) {
        const struct lowtext *lt = tctx_low(t, v[p].turn);
        if (!lt)
            rc = FORGE_ENOMEM;
        else {
            o->start[p] = o->text.len;
            if (kind == 1)
                o->num[p] = v[p].d;
            else
                o->str[p] = v[p].s;
            if (forge_buf_add(&o->text, lt->s, lt->n) || forge_buf_addc(&o->text, '\0'))
                rc = FORGE_ENOMEM;
        }
    }
    forge_free(v);
    return rc;
}

static _Thread_local bool scan_turns;

void forge_tooluse_test_scan_turns(bool on)
{
    scan_turns = on;
}

/* tctx_later_has as the definition reads, turn by turn (for the tests). */
static int later_has_scan(struct tctx *t, const cJSON *tid, const char *needle, size_t nn)
{
    for (int k = 0; k < t->n; k++) {
        if (!id_gt(forge_json_get(t->turns[k], "turn_id"), tid))
            continue;
        const struct lowtext *lt = tctx_low(t, k);
        if (!lt)
            return -1;
        if (includes(lt->s, lt->n, needle, nn))
            return 1;
    }
    return 0;
}

/* Whether a turn whose id is greater than <tid> (id_gt) contains <needle> (no NUL) in its
 * lowered content: one search over a suffix of one text. 1, 0, or -1 on ENOMEM. */
static int tctx_later_has(struct tctx *t, const cJSON *tid, const char *needle, size_t nn)
{
    if (scan_turns)
        return later_has_scan(t, tid, needle, nn);
    if (!t->later) {
        t->later = forge_calloc(1, sizeof *t->later);
        if (!t->later)
            return -1;
        forge_buf_init(&t->later->num.text, 0);
        forge_buf_init(&t->later->str.text, 0);
        if (later_build_order(t, &t->later->num, 1) || later_build_order(t, &t->later->str, 2)) {
            later_free(t->later);
            t->later = NULL;
            return -1;
        }
    }
    double y = 0;
    int kind = id_kind(tid, &y);
    if (!kind)
        return 0;
    const struct later_order *o = kind == 1 ? &t->later->num : &t->later->str;
    int lo = 0, hi = o->n; /* the first position whose id is greater than tid */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        bool gt = kind == 1 ? o->num[mid] > y : strcmp(o->str[mid], tid->valuestring) > 0;
        if (gt)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == o->n)
        return 0;
    size_t from = o->start[lo];
    return memmem(o->text.data + from, o->text.len - from, needle, nn) != NULL;
}

/* The index of <turn> among <t>'s turns, or -1. Turns are checked in order, so the turn last
 * found and the next one are tried first (a scan from the start each time made n turns cost
 * n^2 / 2). */
static int tctx_index(struct tctx *t, const cJSON *turn)
{
    for (int i = t->hint; i < t->n && i <= t->hint + 1; i++)
        if (t->turns[i] == turn)
            return t->hint = i;
    for (int i = 0; i < t->n; i++)
        if (t->turns[i] == turn)
            return t->hint = i;
    return -1;
}


/* ---------------------------------------------------------------------------------------- */
/* validator.ts                                                                              */

void forge_tooluse_opts_init(struct forge_tooluse_opts *o)
{
    memset(o, 0, sizeof *o);
    o->validate_schemas = true;
    o->check_result_usage = true;
    o->detect_hallucination = true;
}

void forge_verify_opts_init(struct forge_verify_opts *o)
{
    memset(o, 0, sizeof *o);
    o->check_usage = true;
    o->detect_hallucination = true;
    o->check_contradictions = true;
    o->hallucination_threshold = 0.3;
}

static void opt_bool(const cJSON *obj, const char *key, bool *out)
{
    const cJSON *v = own(obj, key);
    if (v)
        *out = truthy(v);
}

void forge_tooluse_opts_json(const cJSON *obj, struct forge_tooluse_opts *o)
{
    forge_tooluse_opts_init(o);
    if (!cJSON_IsObject(obj))
        return;
    opt_bool(obj, "allowUnknownTools", &o->allow_unknown_tools);
    opt_bool(obj, "validateSchemas", &o->validate_schemas);
    opt_bool(obj, "checkResultUsage", &o->check_result_usage);
    opt_bool(obj, "detectHallucination", &o->detect_hallucination);
    opt_bool(obj, "strict", &o->strict);
    opt_bool(obj, "deep", &o->deep);
}

void forge_verify_opts_json(const cJSON *obj, struct forge_verify_opts *o)
{
    forge_verify_opts_init(o);
    if (!cJSON_IsObject(obj))
        return;
    opt_bool(obj, "checkUsage", &o->check_usage);
    opt_bool(obj, "detectHallucination", &o->detect_hallucination);
    opt_bool(obj, "checkContradictions", &o->check_contradictions);
    opt_bool(obj, "deep", &o->deep);
    const cJSON *t = own(obj, "hallucinationThreshold");
    if (t) {
        /* `score > threshold` with JavaScript's numeric coercion */
        if (cJSON_IsNumber(t))
            o->hallucination_threshold = t->valuedouble;
        else if (cJSON_IsNull(t) || cJSON_IsFalse(t))
            o->hallucination_threshold = 0;
        else if (cJSON_IsTrue(t))
            o->hallucination_threshold = 1;
        else if (cJSON_IsString(t)) {
            char *end;
            const char *s = t->valuestring;
            while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
                s++;
            double d = *s ? strtod(s, &end) : 0;
            if (*s && *end && strspn(end, " \t\r\n") != strlen(end))
                d = NAN;
            o->hallucination_threshold = d;
        } else {
            o->hallucination_threshold = NAN;
        }
    }
}

/* The typeMap lookup `typeMap[expectedType]`: the JS type name to compare against, "" when the
 * key resolves to an Object.prototype member (never equal to a typeof result), NULL when absent. */
static const char *type_map(const char *t)
{
    static const char *const names[] = {"string", "number", "boolean", "object", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(t, names[i]) == 0)
            return names[i];
    if (strcmp(t, "array") == 0)
        return "object";
    if (proto_key(t))
        return "";
    return NULL;
}

static void validate_param_type(struct out *o, cJSON *issues, const char *name, const cJSON *value,
                                const cJSON *ps, const cJSON *turn, const cJSON *tool_name)
{
    const char *actual = js_typeof(value);
    const cJSON *tj = cJSON_IsObject(ps) ? own(ps, "type") : NULL;
    const char *ts = sval(tj);
    if (ts && strcmp(ts, "array") == 0) {
        if (!cJSON_IsArray(value)) {
            cJSON *is = issue_new(o, issues, "type_mismatch", "high", turn);
            if (!is)
                return;
            add_fmt(o, is, "description", "Parameter \"%s\" expected array, got %s", name, actual);
            issue_tail(o, is, turn, tool_name);
            cJSON *d = add(o, is, "details", cJSON_CreateObject());
            if (d) {
                add_str(o, d, "parameter", name);
                add_str(o, d, "expected", "array");
                add_str(o, d, "actual", actual);
            }
            return;
        }
    } else {
        char *tstr = strv(o, tj); /* property key conversion of the type value */
        if (!tstr)
            return;
        const char *mapped = type_map(tstr);
        if (mapped && strcmp(actual, mapped) != 0) {
            cJSON *is = issue_new(o, issues, "type_mismatch", "high", turn);
            if (is) {
                add_fmt(o, is, "description", "Parameter \"%s\" expected %s, got %s", name, tstr,
                        actual);
                issue_tail(o, is, turn, tool_name);
                cJSON *d = add(o, is, "details", cJSON_CreateObject());
                if (d) {
                    add_str(o, d, "parameter", name);
                    add_dup(o, d, "expected", tj);
                    add_str(o, d, "actual", actual);
                }
            }
            forge_free(tstr);
            return;
        }
        forge_free(tstr);
    }
    const cJSON *en = cJSON_IsObject(ps) ? own(ps, "enum") : NULL;
    if (truthy(en) && enum_includes(en, value, &o->tmp) == 0) {
        cJSON *is = issue_new(o, issues, "invalid_arguments", "medium", turn);
        if (!is)
            return;
        char *enjs = forge_json_print(en, 0);
        if (!enjs) {
            o->oom = true;
            return;
        }
        add_fmt(o, is, "description", "Parameter \"%s\" value not in allowed values: %s", name,
                enjs);
        forge_free(enjs);
        issue_tail(o, is, turn, tool_name);
        cJSON *d = add(o, is, "details", cJSON_CreateObject());
        if (d) {
            add_str(o, d, "parameter", name);
            add_dup(o, d, "value", value);
            add_dup(o, d, "allowed", en);
        }
    }
}

/* for (const x of iterable): arrays by element, strings by code point. Calls fn(x as string). */
static void validate_arguments(struct out *o, cJSON *issues, const cJSON *call, const cJSON *schema,
                               const cJSON *turn, const cJSON *tool_name, const char *name)
{
    const cJSON *params = own(schema, "parameters");
    const cJSON *args = forge_json_get(call, "arguments");
    const cJSON *req = own(params, "required");
    struct members am;
    if (members_open(&am, truthy(args) ? args : NULL)) {
        o->oom = true;
        return;
    }
    if (truthy(req)) {
        /* iterate `required` (an array; a string iterates its characters) */
        const cJSON *it = cJSON_IsArray(req) ? req->child : NULL;
        const char *sp = cJSON_IsString(req) ? req->valuestring : NULL;
        for (;;) {
            char *key = NULL;
            if (cJSON_IsArray(req)) {
                if (!it)
                    break;
                key = strv(o, it);
                it = it->next;
            } else if (sp && *sp) {
                size_t l;
                decode((const unsigned char *)sp, strlen(sp), &l);
                key = forge_strndup(sp, l);
                if (!key)
                    o->oom = true;
                sp += l;
            } else {
                break;
            }
            if (!key) {
                o->oom = true;
                break;
            }
            if (!truthy(args) || !members_in(&am, key)) {
                cJSON *is = issue_new(o, issues, "missing_required_param", "high", turn);
                if (is) {
                    add_fmt(o, is, "description",
                            "Missing required parameter \"%s\" for tool \"%s\"", key, name);
                    issue_tail(o, is, turn, tool_name);
                    cJSON *d = add(o, is, "details", cJSON_CreateObject());
                    if (d)
                        add_str(o, d, "parameter", key);
                }
            }
            forge_free(key);
        }
    }
    members_close(&am);
    if (o->oom)
        return;
    const cJSON *props = own(params, "properties");
    if (truthy(args) && truthy(props)) {
        struct entry *e;
        struct members pm;
        int n = entries(args, &e, NULL, 0);
        if (n < 0 || members_open(&pm, props)) {
            if (n > 0)
                forge_free(e);
            o->oom = true;
            return;
        }
        for (int i = 0; i < n; i++) {
            const cJSON *ps = members_own(&pm, e[i].key);
            if (!ps || !truthy(ps))
                continue;
            validate_param_type(o, issues, e[i].key, e[i].val, ps, turn, tool_name);
        }
        members_close(&pm);
        forge_free(e);
    }
}

static double validator_score(const cJSON *issues, bool strict)
{
    if (!issues->child)
        return 1.0;
    double total = 0;
    bool hi = false;
    for (const cJSON *c = issues->child; c; c = c->next) {
        const char *s = forge_json_str(c, "severity");
        s = s ? s : "";
        total += issue_weight(s, 1.0, 0.7, 0.4, 0.1, 0.2);
        if (strcmp(s, "high") == 0 || strcmp(s, "critical") == 0)
            hi = true;
    }
    if (strict && hi)
        return 0.0;
    return fmax(0, 1 - total);
}

/* Deep detectors ------------------------------------------------------------------------- */

static bool ci_contains(const char *hay, const char *needle)
{
    size_t hn = strlen(hay), nn = strlen(needle);
    for (size_t i = 0; i + nn <= hn; i++) {
        size_t k = 0;
        while (k < nn) {
            char a = hay[i + k];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a + 32);
            if (a != needle[k])
                break;
            k++;
        }
        if (k == nn)
            return true;
    }
    return false;
}

/* The message of a call's recorded error: call.error (a string or {message}) or result.error. */
static const char *call_error_text(const cJSON *call)
{
    const cJSON *e = forge_json_get(call, "error");
    if (cJSON_IsString(e))
        return e->valuestring;
    if (cJSON_IsObject(e) && sval(own(e, "message")))
        return sval(own(e, "message"));
    const cJSON *r = forge_json_get(call, "result");
    if (cJSON_IsObject(r) && sval(own(r, "error")))
        return sval(own(r, "error"));
    return NULL;
}

static const char *const not_found_phrases[] = {
    "unknown tool", "tool not found", "no such tool", "not a valid tool", "unknown function",
    "function not found", "no tool named", "tool does not exist", NULL};

static void deep_tool_not_found(struct out *o, cJSON *issues, const cJSON *call, const cJSON *turn,
                                const cJSON *tool_name, const char *name)
{
    const char *msg = call_error_text(call);
    if (!msg)
        return;
    for (int i = 0; not_found_phrases[i]; i++) {
        if (ci_contains(msg, not_found_phrases[i])) {
            cJSON *is = issue_new(o, issues, "tool_not_found", "high", turn);
            if (!is)
                return;
            add_fmt(o, is, "description", "Tool \"%s\" was not found when called", name);
            issue_tail(o, is, turn, tool_name);
            cJSON *d = add(o, is, "details", cJSON_CreateObject());
            if (d)
                add_str(o, d, "error", msg);
            return;
        }
    }
}

/* The tool_misuse issue of a call that repeats call <idx> of <twin_turn>. */
static void misuse_issue(struct out *o, cJSON *issues, const cJSON *turn, const cJSON *tool_name,
                         const char *name, const cJSON *twin_turn, int idx)
{
    cJSON *is = issue_new(o, issues, "tool_misuse", "medium", turn);
    if (!is)
        return;
    add_fmt(o, is, "description", "Tool \"%s\" was called again with the same arguments", name);
    issue_tail(o, is, turn, tool_name);
    cJSON *d = add(o, is, "details", cJSON_CreateObject());
    if (d) {
        add_dup(o, d, "repeatOfTurn", forge_json_get(twin_turn, "turn_id"));
        add_num(o, d, "repeatOfCall", idx);
    }
}

/* The agent turns' calls of a trajectory, in order, grouped by a hash of name and arguments:
 * a call's earlier twin is looked for among the calls of its hash, not among all of them
 * (20,000 calls with different arguments took 20,000^2 / 2 comparisons). */
struct callidx {
    const cJSON *single; /* without a trajectory: the turn it holds */
    int n;
    const cJSON **call, **turn;
    int *idx;    /* position in its turn's tool_calls */
    uint64_t *h;
    int *order;  /* positions by hash, then position */
};

static void callidx_free(struct callidx *c)
{
    if (!c)
        return;
    forge_free(c->call);
    forge_free(c->turn);
    forge_free(c->idx);
    forge_free(c->h);
    forge_free(c->order);
    forge_free(c);
}

static bool call_hash(const cJSON *call, uint64_t *h)
{
    const cJSON *nm = forge_json_get(call, "name"), *args = forge_json_get(call, "arguments");
    uint64_t a = 0x51ed27;
    if (args && !forge_json_hash(args, &a))
        return false;
    *h = (sval(nm) ? forge_hash_str(nm->valuestring) : 0x7a11) * 0x9E3779B97F4A7C15ull ^ a;
    return true;
}

static int order_by_hash(const void *x, const void *y, void *ctx)
{
    const uint64_t *h = ctx;
    int a = *(const int *)x, b = *(const int *)y;
    if (h[a] != h[b])
        return h[a] < h[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* The calls of <t>'s trajectory, or of <turn> alone when there is none (<t> then serves that
 * one turn). */
static const struct callidx *tctx_calls(struct tctx *t, const cJSON *turn)
{
    if (t->calls && (t->traj || t->calls->single == turn))
        return t->calls;
    callidx_free(t->calls);
    t->calls = NULL;
    struct callidx *c = forge_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->single = t->traj ? NULL : turn;
    const cJSON *turns = forge_json_get(t->traj, "turns");
    const cJSON *first = t->traj ? (cJSON_IsArray(turns) ? turns->child : NULL) : turn;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (const cJSON *tu = first; tu; tu = t->traj ? tu->next : NULL) {
            const cJSON *calls = forge_json_get(tu, "tool_calls");
            const char *role = forge_json_str(tu, "role");
            if (!cJSON_IsArray(calls) || !role || strcmp(role, "agent") != 0)
                continue;
            int idx = 0;
            for (const cJSON *k = calls->child; k; k = k->next, idx++, n++) {
                if (!pass)
                    continue;
                c->call[n] = k;
                c->turn[n] = tu;
                c->idx[n] = idx;
                c->order[n] = n;
                if (!call_hash(k, &c->h[n]))
                    goto oom;
            }
        }
        if (!pass) {
            size_t m = (size_t)(n ? n : 1);
            c->call = forge_malloc(m * sizeof *c->call);
            c->turn = forge_malloc(m * sizeof *c->turn);
            c->idx = forge_malloc(m * sizeof *c->idx);
            c->h = forge_malloc(m * sizeof *c->h);
            c->order = forge_malloc(m * sizeof *c->order);
            if (!c->call || !c->turn || !c->idx || !c->h || !c->order)
                goto oom;
        }
    }
    c->n = n;
    qsort_r(c->order, (size_t)n, sizeof *c->order, order_by_hash, c->h);
    return t->calls = c;
oom:
    callidx_free(c);
    return NULL;
}

/* tool_misuse: the call repeats an earlier call (same name, equal arguments) of the trajectory
 * (or of the turn when no trajectory is given). */
static void deep_tool_misuse(struct out *o, cJSON *issues, const cJSON *call, const cJSON *turn,
                             struct tctx *tc, const cJSON *tool_name, const char *name)
{
    const cJSON *args = forge_json_get(call, "arguments");
    const cJSON *traj = tc ? tc->traj : NULL;
    if (tc && !scan_turns) {
        const struct callidx *ci = tctx_calls(tc, turn);
        uint64_t h;
        if (!ci || !call_hash(call, &h)) {
            o->oom = true;
            return;
        }
        int lo = 0, hi = ci->n; /* the first of hash h */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (ci->h[ci->order[mid]] < h)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int p = lo; p < ci->n && ci->h[ci->order[p]] == h; p++) {
            int k = ci->order[p];
            const cJSON *c = ci->call[k];
            if (c == call)
                return; /* reached the call itself: no earlier twin */
            const cJSON *cn = forge_json_get(c, "name"), *ca = forge_json_get(c, "arguments");
            if (!sval(cn) || strcmp(cn->valuestring, name) != 0)
                continue;
            if ((!args && !ca) || (args && ca && forge_json_equal(args, ca))) {
                misuse_issue(o, issues, turn, tool_name, name, ci->turn[k], ci->idx[k]);
                return;
            }
        }
        return;
    }
    /* without a trajectory (the turn's calls), or for the tests: the calls in order */
    const cJSON *turns = forge_json_get(traj, "turns");
    const cJSON *only[1] = {turn};
    const cJSON *tl = cJSON_IsArray(turns) ? turns->child : NULL;
    bool single = !tl;
    for (int k = 0;; k++) {
        const cJSON *t = single ? (k == 0 ? only[0] : NULL) : tl;
        if (!t)
            break;
        const cJSON *calls = forge_json_get(t, "tool_calls");
        const char *role = forge_json_str(t, "role");
        int idx = 0;
        if (cJSON_IsArray(calls) && role && strcmp(role, "agent") == 0) {
            for (const cJSON *c = calls->child; c; c = c->next, idx++) {
                if (c == call)
                    return; /* reached the call itself: no earlier twin */
                const cJSON *cn = forge_json_get(c, "name");
                const cJSON *ca = forge_json_get(c, "arguments");
                if (!sval(cn) || strcmp(cn->valuestring, name) != 0)
                    continue;
                if ((!args && !ca) || (args && ca && forge_json_equal(args, ca))) {
                    misuse_issue(o, issues, turn, tool_name, name, t, idx);
                    return;
                }
            }
        }
        if (single)
            break;
        tl = tl->next;
    }
}

/* result_unused: upstream's checkForHallucination as it would run with the trajectory: a result
 * string longer than 3 that neither this turn nor a later one mentions. */
static void deep_result_unused(struct out *o, cJSON *issues, const cJSON *call, const cJSON *turn,
                               struct tctx *t, const struct lowtext *own_low,
                               const cJSON *tool_name, const char *name)
{
    if (!t || t->n <= 1)
        return;
    const cJSON *result = forge_json_get(call, "result");
    struct entry *e;
    int n = entries(result, &e, NULL, 0);
    if (n < 0) {
        o->oom = true;
        return;
    }
    const cJSON *tid = forge_json_get(turn, "turn_id");
    struct forge_buf lb;
    forge_buf_init(&lb, 0);
    for (int i = 0; i < n && !o->oom; i++) {
        const char *v = sval(e[i].val);
        if (!v || u16len(v, strlen(v), 3) <= 3)
            continue;
        forge_buf_reset(&lb);
        if (forge_tooluse_lower(&lb, v, strlen(v))) {
            o->oom = true;
            break;
        }
        if (includes(own_low->s, own_low->n, lb.data, lb.len))
            continue;
        /* in no turn at all (a filter that usually answers at once), or in a later one */
        int found = tctx_any_turn(t, lb.data, lb.len);
        if (found > 0)
            found = tctx_later_has(t, tid, lb.data, lb.len);
        if (found < 0)
            o->oom = true;
        if (found || o->oom)
            continue;
        cJSON *is = issue_new(o, issues, "result_unused", "low", turn);
        if (!is)
            break;
        add_fmt(o, is, "description", "Result field \"%s\" from tool \"%s\" may not be used in response",
                e[i].key, name);
        issue_tail(o, is, turn, tool_name);
        cJSON *d = add(o, is, "details", cJSON_CreateObject());
        if (d)
            add_str(o, d, "field", e[i].key);
    }
    forge_buf_free(&lb);
    forge_free(e);
}

/* Numbers for hallucinated_result: those an answer states (digit runs with an optional decimal
 * part and thousands separators, at least two digits, not part of a word) and those its sources
 * hold, compared by value. */
struct numlist {
    char (*v)[40];
    int n, cap;
};

static int index_by_text(const void *a, const void *b, void *ctx)
{
    const struct numlist *l = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(l->v[x], l->v[y]);
    return c ? c : (x > y) - (x < y);
}

/* Keeps the first of each text, in order: one sort, not a scan per number. 0 or FORGE_ENOMEM. */
static int numlist_unique(struct numlist *l)
{
    if (l->n < 2)
        return 0;
    int *ix = forge_malloc(sizeof *ix * (size_t)l->n);
    bool *dup = forge_calloc((size_t)l->n, sizeof *dup);
    if (!ix || !dup) {
        forge_free(ix);
        forge_free(dup);
        return FORGE_ENOMEM;
    }
    for (int i = 0; i < l->n; i++)
        ix[i] = i;
    qsort_r(ix, (size_t)l->n, sizeof *ix, index_by_text, l);
    for (int i = 1; i < l->n; i++)
        if (!strcmp(l->v[ix[i]], l->v[ix[i - 1]]))
            dup[ix[i]] = true;
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (!dup[i])
            memmove(l->v[k++], l->v[i], sizeof *l->v);
    l->n = k;
    forge_free(ix);
    forge_free(dup);
    return 0;
}

/* Appends a number as written. Repeats are dropped whenever the list fills (and at the end,
 * by numlist_unique), so it holds at most twice the distinct numbers. */
static int numlist_add(void *ctx, const char *s, size_t n)
{
    struct numlist *l = ctx;
    if (n >= 40)
        n = 39;
    if (l->n == l->cap) {
        if (numlist_unique(l))
            return FORGE_ENOMEM;
        if (l->cap == 0 || l->n * 2 > l->cap) { /* still more than half full: grow */
            int cap = l->cap ? l->cap * 2 : 8;
            void *p = forge_realloc(l->v, sizeof *l->v * (size_t)cap);
            if (!p)
                return FORGE_ENOMEM;
            l->v = p;
            l->cap = cap;
        }
    }
    memcpy(l->v[l->n], s, n);
    l->v[l->n][n] = '\0';
    l->n++;
    return 0;
}

/* Calls <add> for each number written in <s> (separators dropped); <min_digits> filters. */
static int scan_numbers(const char *s, int min_digits, int (*add)(void *, const char *, size_t),
                        void *ctx)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        if (s[i] < '0' || s[i] > '9') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && ((s[j] >= '0' && s[j] <= '9') || s[j] == ',' || s[j] == '.')) {
            if ((s[j] == ',' || s[j] == '.') && !(j + 1 < n && s[j + 1] >= '0' && s[j + 1] <= '9'))
                break;
            j++;
        }
        char t[40];
        size_t k = 0;
        int digits = 0;
        for (size_t q = i; q < j && k < sizeof t - 1; q++) {
            if (s[q] == ',')
                continue;
            if (s[q] != '.')
                digits++;
            t[k++] = s[q];
        }
        bool word = (i > 0 && (((s[i - 1] | 32) >= 'a' && (s[i - 1] | 32) <= 'z') || s[i - 1] == '_')) ||
                    (j < n && (((s[j] | 32) >= 'a' && (s[j] | 32) <= 'z') || s[j] == '_'));
        if (digits >= min_digits && !word && add(ctx, t, k))
            return FORGE_ENOMEM;
        i = j;
    }
    return 0;
}

/* The numbers an answer states, each marked once a source holds it. */
struct said {
    struct numlist text; /* as written */
    double *v;           /* by value */
    bool *found;
    int left;            /* not found yet */
    int *order;          /* indexes by value: a source's number finds its equals by bisection */
};

static int index_by_value(const void *a, const void *b, void *ctx)
{
    const double *v = ctx;
    double x = v[*(const int *)a], y = v[*(const int *)b];
    return (x > y) - (x < y);
}

static void said_mark(struct said *sd, double d)
{
    /* the first position whose value is not below d; values equal to d follow it, and are
     * all marked at once (so a marked first one means the rest are) */
    int lo = 0, hi = sd->text.n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sd->v[sd->order[mid]] < d)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == sd->text.n || sd->v[sd->order[lo]] != d || sd->found[sd->order[lo]])
        return;
    for (int i = lo; i < sd->text.n && sd->v[sd->order[i]] == d; i++) {
        sd->found[sd->order[i]] = true;
        sd->left--;
    }
}

/* Where the numbers of a source go: put(ctx, value), which returns nonzero to stop the walk. */
struct numsink {
    int (*put)(void *ctx, double d);
    void *ctx;
};

static int sink_text(void *w, const char *s, size_t n)
{
    char t[40];
    if (n >= sizeof t)
        n = sizeof t - 1;
    memcpy(t, s, n);
    t[n] = '\0';
    const struct numsink *k = w;
    return k->put(k->ctx, strtod(t, NULL));
}

/* The numbers a JSON value holds: number values (without sign: text is scanned without signs,
 * "-4.9" states 4.9), and numbers written in its strings. Nonzero when the sink stopped it. */
static int tree_numbers(const cJSON *v, const struct numsink *k)
{
    if (!v)
        return 0;
    if (cJSON_IsNumber(v))
        return k->put(k->ctx, fabs(v->valuedouble));
    if (cJSON_IsString(v) && v->valuestring)
        return scan_numbers(v->valuestring, 1, sink_text, (void *)k);
    if (cJSON_IsArray(v) || cJSON_IsObject(v))
        for (const cJSON *c = v->child; c; c = c->next)
            if (tree_numbers(c, k))
                return 1;
    return 0;
}

/* A turn as a source: its calls' results and arguments, and (<with_text>: for earlier turns)
 * its text. Nonzero when the sink stopped it. */
static int turn_numbers(const cJSON *turn, bool with_text, const struct numsink *k)
{
    const cJSON *tc = forge_json_get(turn, "tool_calls");
    for (const cJSON *c = cJSON_IsArray(tc) ? tc->child : NULL; c; c = c->next)
        if (tree_numbers(forge_json_get(c, "result"), k) ||
            tree_numbers(forge_json_get(c, "arguments"), k))
            return 1;
    size_t cn;
    return with_text ? scan_numbers(content_of(turn, &cn), 1, sink_text, (void *)k) : 0;
}

static int said_put(void *ctx, double d)
{
    struct said *sd = ctx;
    said_mark(sd, d);
    return sd->left == 0; /* all found */
}

static void turn_mark(const cJSON *turn, bool with_text, struct said *sd)
{
    const struct numsink k = {said_put, sd};
    if (sd->left)
        turn_numbers(turn, with_text, &k);
}

/* Each number the turns hold as sources (their calls' results and arguments, and their text)
 * with the first turn that holds it: a number an answer states is in an earlier turn exactly
 * when that turn comes before the answer's, so each answer asks once per number (a bisection)
 * instead of walking back through every earlier turn. The pairs sorted by value, then turn. */
struct numturn {
    double v;
    int turn;
};
struct numfirst {
    struct numturn *e;
    size_t n, cap;
    int turn; /* while built: the turn being read */
};

static int numturn_cmp(const void *a, const void *b)
{
    const struct numturn *x = a, *y = b;
    int c = (x->v > y->v) - (x->v < y->v);
    return c ? c : (x->turn > y->turn) - (x->turn < y->turn);
}

static void numfirst_free(struct numfirst *f)
{
    if (f)
        forge_free(f->e);
    forge_free(f);
}

static int numfirst_put(void *ctx, double d)
{
    struct numfirst *f = ctx;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        struct numturn *e = forge_realloc(f->e, sizeof *e * cap);
        if (!e)
            return FORGE_ENOMEM; /* stops the walk */
        f->e = e;
        f->cap = cap;
    }
    f->e[f->n++] = (struct numturn){d, f->turn};
    return 0;
}

/* The first turn holding <d>, or -1. */
static int numfirst_turn(const struct numfirst *f, double d)
{
    size_t lo = 0, hi = f->n; /* the first pair whose value is not below d */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->e[mid].v < d)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->n && f->e[lo].v == d ? f->e[lo].turn : -1;
}

/* The table of <t>'s turns (turn_mark with text, for every turn), or NULL when out of memory. */
static const struct numfirst *tctx_numfirst(struct tctx *t)
{
    if (t->numfirst)
        return t->numfirst;
    struct numfirst *f = forge_calloc(1, sizeof *f);
    if (!f)
        return NULL;
    const struct numsink k = {numfirst_put, f};
    for (f->turn = 0; f->turn < t->n; f->turn++)
        if (turn_numbers(t->turns[f->turn], true, &k)) {
            numfirst_free(f);
            return NULL;
        }
    qsort(f->e, f->n, sizeof *f->e, numturn_cmp);
    return t->numfirst = f;
}

/* hallucinated_result: numbers in the agent's answer that no tool result or argument of this or
 * an earlier turn, and no earlier turn's text, contains. Only for turns whose calls returned
 * something. Sources are searched nearest first and the search stops when all are found. */
static void deep_hallucinated_result(struct out *o, cJSON *issues, const cJSON *turn,
                                     struct tctx *t)
{
    const cJSON *calls = forge_json_get(turn, "tool_calls");
    bool any_result = false;
    for (const cJSON *c = cJSON_IsArray(calls) ? calls->child : NULL; c; c = c->next)
        if (truthy(forge_json_get(c, "result")))
            any_result = true;
    size_t cn;
    const char *content = content_of(turn, &cn);
    if (!any_result || !cn)
        return;
    struct said sd = {0};
    int rc = scan_numbers(content, 2, numlist_add, &sd.text);
    if (!rc)
        rc = numlist_unique(&sd.text);
    if (rc || !sd.text.n)
        goto out;
    sd.v = forge_malloc(sizeof *sd.v * (size_t)sd.text.n);
    sd.found = forge_calloc((size_t)sd.text.n, sizeof *sd.found);
    sd.order = forge_malloc(sizeof *sd.order * (size_t)sd.text.n);
    if (!sd.v || !sd.found || !sd.order) {
        rc = FORGE_ENOMEM;
        goto out;
    }
    for (int i = 0; i < sd.text.n; i++) {
        sd.v[i] = strtod(sd.text.v[i], NULL);
        sd.order[i] = i;
    }
    qsort_r(sd.order, (size_t)sd.text.n, sizeof *sd.order, index_by_value, sd.v);
    sd.left = sd.text.n;
    turn_mark(turn, false, &sd);
    int ix = tctx_index(t, turn);
    if (ix < 0 && t->traj) { /* not one of the context's turns: every turn before it by pointer */
        const cJSON *turns = forge_json_get(t->traj, "turns");
        for (const cJSON *p = cJSON_IsArray(turns) ? turns->child : NULL; p && p != turn && sd.left;
             p = p->next)
            turn_mark(p, true, &sd);
    }
    if (scan_turns) /* the definition, for the tests: every earlier turn, nearest first */
        for (int k = ix - 1; k >= 0 && sd.left; k--)
            turn_mark(t->turns[k], true, &sd);
    const struct numfirst *nf = ix > 0 && sd.left ? tctx_numfirst(t) : NULL;
    if (ix > 0 && sd.left && !nf) {
        rc = FORGE_ENOMEM;
        goto out;
    }
    for (int i = 0; nf && i < sd.text.n; i++) { /* in a turn before this one */
        int first = numfirst_turn(nf, sd.v[i]);
        if (!sd.found[i] && first >= 0 && first < ix) {
            sd.found[i] = true;
            sd.left--;
        }
    }
    if (sd.left == 0)
        goto out;
    cJSON *missing = cJSON_CreateArray();
    if (!missing) {
        rc = FORGE_ENOMEM;
        goto out;
    }
    for (int i = 0; i < sd.text.n; i++)
        if (!sd.found[i])
            add_str(o, missing, NULL, sd.text.v[i]);
    cJSON *is = issue_new(o, issues, "hallucinated_result", "high", turn);
    if (!is) {
        cJSON_Delete(missing);
        goto out;
    }
    add_fmt(o, is, "description", "The response states %d number%s that no tool result or earlier turn contains",
            cJSON_GetArraySize(missing), cJSON_GetArraySize(missing) == 1 ? "" : "s");
    issue_tail(o, is, turn, NULL);
    cJSON *d = add(o, is, "details", cJSON_CreateObject());
    if (d)
        add(o, d, "numbers", missing);
    else
        cJSON_Delete(missing);
out:
    if (rc)
        o->oom = true;
    forge_free(sd.text.v);
    forge_free(sd.v);
    forge_free(sd.found);
    forge_free(sd.order);
}

static void deep_schema_violation(struct out *o, cJSON *issues, const cJSON *call, const cJSON *turn,
                                  const struct forge_tooluse_opts *opt, const cJSON *tool_name,
                                  const char *name)
{
    const cJSON *args = forge_json_get(call, "arguments");
    if (!opt->schema_check || !args)
        return;
    cJSON *errors = NULL;
    int r = opt->schema_check(opt->schema_ctx, name, args, &errors);
    if (r < 0) { /* a limit (the step budget, say): reported, never taken for valid */
        cJSON *is = issue_new(o, issues, "schema_violation", "medium", turn);
        if (is) {
            add_fmt(o, is, "description", "Arguments of \"%s\" could not be checked against its "
                    "JSON Schema: %s", name,
                    r == FORGE_ELIMIT ? forge_schema_limit_message() : forge_rc_name(r));
            issue_tail(o, is, turn, tool_name);
        }
    } else if (r == 0) {
        cJSON *is = issue_new(o, issues, "schema_violation", "high", turn);
        if (is) {
            const cJSON *first = cJSON_IsArray(errors) ? errors->child : NULL;
            const char *loc = first ? forge_json_str(first, "instanceLocation") : NULL;
            const char *msg = first ? forge_json_str(first, "error") : NULL;
            add_fmt(o, is, "description", "Arguments of \"%s\" violate its JSON Schema%s%s%s%s", name,
                    msg ? ": " : "", loc && *loc ? loc : "", loc && *loc ? " " : "", msg ? msg : "");
            issue_tail(o, is, turn, tool_name);
            cJSON *d = add(o, is, "details", cJSON_CreateObject());
            if (d && errors) {
                add(o, d, "errors", errors);
                errors = NULL;
            }
        }
    }
    cJSON_Delete(errors);
}

/* own(schemas, name) for the calls of <t>: past SCHEMA_SCANS of them, through a sorted index of
 * the map's names (built once; out of memory, it keeps scanning). */
#define SCHEMA_SCANS 16
static const cJSON *tctx_schema(struct tctx *t, const cJSON *schemas, const char *name)
{
    struct members *m = &t->schemas_ix;
    if (m->obj != schemas) { /* another map: start over */
        members_close(m);
        m->obj = schemas;
        t->schema_asks = 0;
    }
    if (t->schema_asks >= 0 && ++t->schema_asks > SCHEMA_SCANS) {
        members_open(m, schemas); /* a small map, or out of memory: no index, scanned */
        t->schema_asks = -1;      /* decided for this map */
    }
    return members_own(m, name);
}

static cJSON *validate_turn_impl(const cJSON *turn, const cJSON *schemas, struct tctx *t,
                                 const struct forge_tooluse_opts *opt, struct forge_err *err)
{
    struct out o = {0};
    forge_buf_init(&o.tmp, 0);
    cJSON *res = cJSON_CreateObject();
    cJSON *issues = cJSON_CreateArray(), *sugg = cJSON_CreateArray();
    if (!res || !issues || !sugg) {
        cJSON_Delete(issues);
        cJSON_Delete(sugg);
        o.oom = true;
        goto out;
    }
    const cJSON *calls = forge_json_get(turn, "tool_calls");
    const struct lowtext *own_low = NULL;
    struct lowtext tmp_low = {0};
    for (const cJSON *call = cJSON_IsArray(calls) ? calls->child : NULL; call && !o.oom;
         call = call->next) {
        const cJSON *nm = forge_json_get(call, "name");
        if (!truthy(nm)) {
            cJSON *is = issue_new(&o, issues, "missing_tool_name", "critical", turn);
            if (is) {
                add_str(&o, is, "description", "Tool call is missing a name");
                issue_tail(&o, is, turn, NULL);
            }
            continue;
        }
        char *name = strv(&o, nm);
        if (!name)
            break;
        const cJSON *schema = tctx_schema(t, schemas, name);
        if (schema && !truthy(schema))
            schema = NULL;
        if (!schema) {
            if (!opt->allow_unknown_tools) {
                cJSON *is = issue_new(&o, issues, "unknown_tool", opt->strict ? "high" : "medium", turn);
                if (is) {
                    add_fmt(&o, is, "description", "Unknown tool: \"%s\"", name);
                    issue_tail(&o, is, turn, nm);
                }
            }
        } else {
            if (truthy(own(schema, "deprecated"))) {
                const cJSON *rb = own(schema, "replacedBy");
                char *rbs = truthy(rb) ? strv(&o, rb) : NULL;
                cJSON *is = issue_new(&o, issues, "deprecated_tool", "medium", turn);
                if (is) {
                    if (rbs)
                        add_fmt(&o, is, "description", "Tool \"%s\" is deprecated, use \"%s\" instead", name, rbs);
                    else
                        add_fmt(&o, is, "description", "Tool \"%s\" is deprecated", name);
                    issue_tail(&o, is, turn, nm);
                    cJSON *d = add(&o, is, "details", cJSON_CreateObject());
                    if (d)
                        add_dup(&o, d, "replacedBy", rb);
                }
                if (rbs)
                    add_fmt(&o, sugg, NULL, "Replace \"%s\" with \"%s\"", name, rbs);
                else
                    add_fmt(&o, sugg, NULL, "Find alternative to deprecated tool \"%s\"", name);
                forge_free(rbs);
            }
            if (opt->validate_schemas)
                validate_arguments(&o, issues, call, schema, turn, nm, name);
        }
        if (!truthy(forge_json_get(call, "arguments"))) {
            cJSON *is = issue_new(&o, issues, "missing_arguments", "high", turn);
            if (is) {
                add_fmt(&o, is, "description", "Tool \"%s\" has no arguments", name);
                issue_tail(&o, is, turn, nm);
            }
        }
        bool has_result = truthy(forge_json_get(call, "result"));
        if (opt->check_result_usage && !has_result) {
            cJSON *is = issue_new(&o, issues, "missing_result", "medium", turn);
            if (is) {
                add_fmt(&o, is, "description", "Tool \"%s\" was called but has no result", name);
                issue_tail(&o, is, turn, nm);
            }
        }
        /* Upstream's checkForHallucination runs here without a trajectory and so never
         * reports; deep mode runs it with one. */
        if (opt->deep) {
            deep_tool_not_found(&o, issues, call, turn, nm, name);
            deep_tool_misuse(&o, issues, call, turn, t, nm, name);
            if (schema && opt->validate_schemas)
                deep_schema_violation(&o, issues, call, turn, opt, nm, name);
            if (opt->detect_hallucination && has_result && t) {
                if (!own_low) {
                    int ix = tctx_index(t, turn);
                    if (ix >= 0)
                        own_low = tctx_low(t, ix);
                    else {
                        size_t cn;
                        const char *cs = content_of(turn, &cn);
                        own_low = lower_into(&tmp_low, cs, cn) ? NULL : &tmp_low;
                    }
                    if (!own_low)
                        o.oom = true;
                }
                if (own_low)
                    deep_result_unused(&o, issues, call, turn, t, own_low, nm, name);
            }
        }
        forge_free(name);
    }
    forge_free(tmp_low.s);
    if (opt->deep && opt->detect_hallucination && !o.oom)
        deep_hallucinated_result(&o, issues, turn, t);
    add_bool(&o, res, "valid", !has_critical(issues));
    add(&o, res, "issues", issues);
    add(&o, res, "suggestions", sugg);
    add_num(&o, res, "score", validator_score(issues, opt->strict));
out:
    forge_buf_free(&o.tmp);
    if (o.oom) {
        cJSON_Delete(res);
        forge_err_set(err, FORGE_ENOMEM, "out of memory validating a turn");
        return NULL;
    }
    return res;
}

cJSON *forge_tooluse_validate_turn(const cJSON *turn, const cJSON *schemas, const cJSON *traj,
                                   const struct forge_tooluse_opts *o, struct forge_err *err)
{
    struct tctx t;
    struct forge_tooluse_opts def;
    if (!o) {
        forge_tooluse_opts_init(&def);
        o = &def;
    }
    if (tctx_init(&t, traj)) {
        tctx_free(&t);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    cJSON *r = validate_turn_impl(turn, schemas, &t, o, err);
    tctx_free(&t);
    return r;
}

cJSON *forge_tooluse_validate_tool_call(const cJSON *call, const cJSON *schema,
                                        const struct forge_tooluse_opts *o, struct forge_err *err)
{
    cJSON *turn = cJSON_CreateObject(), *schemas = cJSON_CreateObject(), *r = NULL;
    cJSON *calls = cJSON_CreateArray();
    struct out oo = {0};
    if (!turn || !schemas || !calls) {
        cJSON_Delete(calls);
        goto out;
    }
    add_num(&oo, turn, "turn_id", 0);
    add_str(&oo, turn, "role", "agent");
    add_str(&oo, turn, "content", "");
    add(&oo, turn, "tool_calls", calls);
    /* The call is referenced, not copied: the synthetic turn borrows it. */
    add(&oo, calls, NULL, cJSON_CreateObjectReference(call ? call->child : NULL));
    if (schema && truthy(schema)) {
        char *nm = strv(&oo, forge_json_get(call, "name"));
        if (nm)
            add_k(&oo, schemas, nm, cJSON_CreateObjectReference(schema->child));
        forge_free(nm);
    }
    if (!oo.oom)
        r = forge_tooluse_validate_turn(turn, schemas, NULL, o, err);
out:
    if (oo.oom || !turn || !schemas)
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
    cJSON_Delete(turn);
    cJSON_Delete(schemas);
    return r;
}

cJSON *forge_tooluse_validate_trajectory(const cJSON *traj, const cJSON *schemas,
                                         const struct forge_tooluse_opts *o,
                                         struct forge_err *err)
{
    struct tctx t;
    struct forge_tooluse_opts def;
    if (!o) {
        forge_tooluse_opts_init(&def);
        o = &def;
    }
    cJSON *arr = cJSON_CreateArray();
    if (!arr || tctx_init(&t, traj)) {
        if (arr)
            tctx_free(&t);
        cJSON_Delete(arr);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < t.n; i++) {
        const cJSON *turn = t.turns[i];
        const char *role = forge_json_str(turn, "role");
        if (!role || strcmp(role, "agent") != 0 ||
            !truthy(forge_json_get(turn, "tool_calls")))
            continue;
        cJSON *r = validate_turn_impl(turn, schemas, &t, o, err);
        if (!r || !cJSON_AddItemToArray(arr, r)) {
            cJSON_Delete(r);
            cJSON_Delete(arr);
            arr = NULL;
            forge_err_set(err, FORGE_ENOMEM, "out of memory");
            break;
        }
    }
    tctx_free(&t);
    return arr;
}

/* ---------------------------------------------------------------------------------------- */
/* schema-checker.ts                                                                         */

static void schema_issue(struct out *o, cJSON *issues, const char *type, const char *sev,
                         const char *path, const char *message, const cJSON *expected,
                         const char *expected_s, const cJSON *actual, const char *actual_s)
{
    cJSON *is = add(o, issues, NULL, cJSON_CreateObject());
    if (!is)
        return;
    add_str(o, is, "type", type);
    add_str(o, is, "severity", sev);
    add_str(o, is, "path", path);
    add_str(o, is, "message", message);
    if (expected)
        add_dup(o, is, "expected", expected);
    else if (expected_s)
        add_str(o, is, "expected", expected_s);
    if (actual)
        add_dup(o, is, "actual", actual);
    else if (actual_s)
        add_str(o, is, "actual", actual_s);
}

/* ^[^\s@]+@[^\s@]+\.[^\s@]+$ with JavaScript's \s (Unicode White_Space plus BOM). */
static bool js_space(uint32_t c)
{
    return c == 9 || c == 10 || c == 11 || c == 12 || c == 13 || c == 32 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

static bool email_ok(const char *s)
{
    size_t n = strlen(s);
    const unsigned char *u = (const unsigned char *)s;
    size_t at = SIZE_MAX, i = 0;
    int ats = 0;
    while (i < n) {
        size_t l;
        uint32_t c = decode(u + i, n - i, &l);
        if (js_space(c))
            return false;
        if (c == '@') {
            ats++;
            at = i;
        }
        i += l;
    }
    if (ats != 1 || at == 0)
        return false;
    /* domain part: [^\s@]+ \. [^\s@]+ -> some '.' with something on both sides */
    const char *d = s + at + 1;
    size_t dn = strlen(d);
    for (size_t k = 1; k + 1 < dn; k++)
        if (d[k] == '.')
            return true;
    return false;
}

static bool digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool date_prefix(const char *s)
{
    return strlen(s) >= 10 && digits(s, 4) && s[4] == '-' && digits(s + 5, 2) && s[7] == '-' &&
           digits(s + 8, 2);
}

static bool datetime_ok(const char *s)
{
    return date_prefix(s) && strlen(s) >= 19 && s[10] == 'T' && digits(s + 11, 2) &&
           s[13] == ':' && digits(s + 14, 2) && s[16] == ':' && digits(s + 17, 2);
}

/* WHATWG `new URL(v)` succeeds: an absolute URL. Checks the scheme, and for special schemes
 * (http, https, ws, wss, ftp, file) a non-empty host without forbidden code points. */
static bool uri_ok(const char *s)
{
    /* leading/trailing C0 control or space are stripped by the parser */
    while (*s && (unsigned char)*s <= 0x20)
        s++;
    size_t n = strlen(s);
    while (n && (unsigned char)s[n - 1] <= 0x20)
        n--;
    if (!n || !((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z'))
        return false;
    size_t i = 1;
    while (i < n && (((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
                     s[i] == '+' || s[i] == '-' || s[i] == '.'))
        i++;
    if (i >= n || s[i] != ':')
        return false;
    char scheme[16];
    size_t sl = i < sizeof scheme ? i : sizeof scheme - 1;
    for (size_t k = 0; k < sl; k++)
        scheme[k] = (char)(s[k] | 32);
    scheme[sl] = '\0';
    bool special = strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0 ||
                   strcmp(scheme, "ws") == 0 || strcmp(scheme, "wss") == 0 ||
                   strcmp(scheme, "ftp") == 0;
    const char *rest = s + i + 1;
    size_t rn = n - i - 1;
    if (strcmp(scheme, "file") == 0)
        return true;
    if (!special) {
        /* opaque or hierarchical; only an authority with a bad host fails */
        if (rn >= 2 && rest[0] == '/' && rest[1] == '/') {
            const char *h = rest + 2;
            size_t hn = rn - 2, k = 0;
            while (k < hn && h[k] != '/' && h[k] != '?' && h[k] != '#')
                k++;
            for (size_t q = 0; q < k; q++)
                if (h[q] == ' ' || h[q] == '<' || h[q] == '>' || h[q] == '^' || h[q] == '|')
                    return false;
        }
        return true;
    }
    /* special: skip any slashes (backslashes count), then the authority */
    size_t k = 0;
    while (k < rn && (rest[k] == '/' || rest[k] == '\\'))
        k++;
    const char *a = rest + k;
    size_t an = rn - k, e = 0;
    while (e < an && a[e] != '/' && a[e] != '\\' && a[e] != '?' && a[e] != '#')
        e++;
    /* userinfo */
    size_t hs = 0;
    for (size_t q = 0; q < e; q++)
        if (a[q] == '@')
            hs = q + 1;
    const char *h = a + hs;
    size_t hn = e - hs;
    /* port */
    size_t hl = hn;
    if (hn && h[0] == '[') {
        const char *rb = memchr(h, ']', hn);
        if (!rb)
            return false;
        hl = (size_t)(rb - h) + 1;
        if (hl < hn && h[hl] != ':')
            return false;
    } else {
        for (size_t q = 0; q < hn; q++)
            if (h[q] == ':') {
                hl = q;
                break;
            }
    }
    if (hl < hn) {
        for (size_t q = hl + 1; q < hn; q++)
            if (h[q] < '0' || h[q] > '9')
                return false;
        if (hn - hl - 1 > 0) {
            long port = strtol(h + hl + 1, NULL, 10);
            if (hn - hl - 1 > 5 || port > 65535)
                return false;
        }
    }
    if (hl == 0)
        return false;
    static const char forbidden[] = " #%/:<>?@[\\]^|\t\n\r";
    if (h[0] != '[')
        for (size_t q = 0; q < hl; q++)
            if (strchr(forbidden, h[q]) || (unsigned char)h[q] < 0x20 || h[q] == 0x7F)
                return false;
    return true;
}

static void validate_value(struct out *o, cJSON *issues, const cJSON *v, const cJSON *s,
                           const char *path);

static void validate_params(struct out *o, cJSON *issues, const cJSON *obj, const cJSON *params,
                            const char *base)
{
    struct forge_buf p;
    forge_buf_init(&p, 0);
    const cJSON *req = own(params, "required");
    if (truthy(req) && cJSON_IsArray(req)) {
        struct members om;
        if (members_open(&om, obj))
            o->oom = true;
        for (const cJSON *r = req->child; r && !o->oom; r = r->next) {
            char *f = strv(o, r);
            if (!f)
                break;
            if (!members_in(&om, f)) {
                forge_buf_reset(&p);
                if ((*base && forge_buf_addf(&p, "%s.%s", base, f)) || (!*base && forge_buf_adds(&p, f)))
                    o->oom = true;
                else {
                    char msg[64 + 1024];
                    snprintf(msg, sizeof msg, "Required field \"%s\" is missing", f);
                    if (strlen(f) > 1024) {
                        struct forge_buf m;
                        forge_buf_init(&m, 0);
                        forge_buf_addf(&m, "Required field \"%s\" is missing", f);
                        schema_issue(o, issues, "required_field_missing", "high", p.data, m.data ? m.data : "", NULL, NULL, NULL, NULL);
                        forge_buf_free(&m);
                    } else
                        schema_issue(o, issues, "required_field_missing", "high", p.data, msg, NULL, NULL, NULL, NULL);
                }
            }
            forge_free(f);
        }
        members_close(&om);
    }
    const cJSON *props = own(params, "properties");
    if (truthy(props) && !o->oom) {
        struct entry *e;
        struct members pm = {0};
        int n = entries(obj, &e, NULL, 0);
        if (n < 0 || members_open(&pm, props))
            o->oom = true;
        for (int i = 0; i < n && !o->oom; i++) {
            const cJSON *ps = members_own(&pm, e[i].key);
            if (!ps || !truthy(ps))
                continue;
            forge_buf_reset(&p);
            if ((*base && forge_buf_addf(&p, "%s.%s", base, e[i].key)) ||
                (!*base && forge_buf_adds(&p, e[i].key))) {
                o->oom = true;
                break;
            }
            char *path = forge_buf_take(&p);
            validate_value(o, issues, e[i].val, ps, path);
            forge_free(path);
        }
        members_close(&pm);
        forge_free(e);
    }
    forge_buf_free(&p);
}

static void type_issue(struct out *o, cJSON *issues, const char *path, const char *expected,
                       const char *actual)
{
    char msg[96];
    snprintf(msg, sizeof msg, "Expected %s, got %s", expected, actual);
    schema_issue(o, issues, "type_error", "high", path, msg, NULL, expected, NULL, actual);
}

static void validate_value(struct out *o, cJSON *issues, const cJSON *v, const cJSON *s,
                           const char *path)
{
    /* whether an issue was added below: the last one changed (cJSON keeps the last item in the
     * first one's prev; counting them would make a call of n arguments take n * n steps) */
    const cJSON *before = issues->child ? issues->child->prev : NULL;
    const char *t = cJSON_IsObject(s) ? sval(own(s, "type")) : NULL;
    const char *actual = js_typeof(v);
    if (t) {
        if (strcmp(t, "string") == 0 && !cJSON_IsString(v))
            type_issue(o, issues, path, "string", actual);
        else if (strcmp(t, "number") == 0 && !cJSON_IsNumber(v))
            type_issue(o, issues, path, "number", actual);
        else if (strcmp(t, "number") == 0 && isnan(v->valuedouble))
            schema_issue(o, issues, "invalid_number", "high", path, "Value is NaN", NULL, NULL, v, NULL);
        else if (strcmp(t, "boolean") == 0 && !cJSON_IsBool(v))
            type_issue(o, issues, path, "boolean", actual);
        else if (strcmp(t, "object") == 0 && !cJSON_IsObject(v))
            type_issue(o, issues, path, "object", cJSON_IsArray(v) ? "array" : actual);
        else if (strcmp(t, "array") == 0 && !cJSON_IsArray(v))
            type_issue(o, issues, path, "array", actual);
    }
    const cJSON *en = cJSON_IsObject(s) ? own(s, "enum") : NULL;
    if (truthy(en) && (issues->child ? issues->child->prev : NULL) == before && enum_includes(en, v, &o->tmp) == 0) {
        char *enjs = forge_json_print(en, 0);
        if (!enjs) {
            o->oom = true;
            return;
        }
        struct forge_buf m;
        forge_buf_init(&m, 0);
        if (forge_buf_addf(&m, "Value must be one of: %s", enjs))
            o->oom = true;
        else
            schema_issue(o, issues, "invalid_enum_value", "high", path, m.data, en, NULL, v, NULL);
        forge_buf_free(&m);
        forge_free(enjs);
    }
    const cJSON *fmt = cJSON_IsObject(s) ? own(s, "format") : NULL;
    if (truthy(fmt) && cJSON_IsString(v) && sval(fmt)) {
        const char *f = fmt->valuestring, *val = v->valuestring;
        const char *msg = NULL;
        if (strcmp(f, "email") == 0 && !email_ok(val))
            msg = "Invalid email format";
        else if (strcmp(f, "uri") == 0 && !uri_ok(val))
            msg = "Invalid URI format";
        else if (strcmp(f, "date") == 0 && !(strlen(val) == 10 && date_prefix(val)))
            msg = "Invalid date format (expected YYYY-MM-DD)";
        else if (strcmp(f, "date-time") == 0 && !datetime_ok(val))
            msg = "Invalid date-time format (expected ISO 8601)";
        if (msg)
            schema_issue(o, issues, "invalid_format", "medium", path, msg, NULL, f, v, NULL);
    }
    if (t && strcmp(t, "object") == 0 && truthy(own(s, "properties")) &&
        (cJSON_IsObject(v) || cJSON_IsArray(v))) {
        /* nested: properties only, the nested `required` is not checked */
        cJSON *sub = cJSON_CreateObject();
        if (!sub || !cJSON_AddItemReferenceToObject(sub, "properties", (cJSON *)own(s, "properties")))
            o->oom = true;
        else
            validate_params(o, issues, v, sub, path);
        cJSON_Delete(sub);
    }
    const cJSON *items = cJSON_IsObject(s) ? own(s, "items") : NULL;
    if (t && strcmp(t, "array") == 0 && truthy(items) && cJSON_IsArray(v)) {
        int i = 0;
        struct forge_buf p;
        forge_buf_init(&p, 0);
        for (const cJSON *c = v->child; c && !o->oom; c = c->next, i++) {
            forge_buf_reset(&p);
            if (forge_buf_addf(&p, "%s[%d]", path, i)) {
                o->oom = true;
                break;
            }
            char *ip = forge_buf_take(&p);
            validate_value(o, issues, c, items, ip);
            forge_free(ip);
        }
        forge_buf_free(&p);
    }
}

cJSON *forge_tooluse_validate_schema(const cJSON *call, const cJSON *schema, struct forge_err *err)
{
    struct out o = {0};
    forge_buf_init(&o.tmp, 0);
    cJSON *res = cJSON_CreateObject(), *issues = cJSON_CreateArray();
    if (!res || !issues) {
        cJSON_Delete(issues);
        o.oom = true;
        goto out;
    }
    const cJSON *args = forge_json_get(call, "arguments");
    if (!truthy(args)) {
        schema_issue(&o, issues, "missing_arguments", "critical", "", "No arguments provided",
                     NULL, NULL, NULL, NULL);
        add_bool(&o, res, "valid", false);
        add(&o, res, "issues", issues);
        add_num(&o, res, "score", 0);
        goto out;
    }
    validate_params(&o, issues, args, own(schema, "parameters"), "");
    double total = 0;
    for (const cJSON *c = issues->child; c; c = c->next) {
        const char *s = forge_json_str(c, "severity");
        total += issue_weight(s ? s : "", 1.0, 0.5, 0.2, 0.05, 0.1);
    }
    add_bool(&o, res, "valid", !has_critical(issues));
    add(&o, res, "issues", issues);
    add_num(&o, res, "score", issues->child ? fmax(0, 1 - total) : 1.0);
out:
    forge_buf_free(&o.tmp);
    if (o.oom) {
        cJSON_Delete(res);
        forge_err_set(err, FORGE_ENOMEM, "out of memory validating arguments");
        return NULL;
    }
    return res;
}

cJSON *forge_tooluse_create_tool_schema(const char *name, const cJSON *json_schema,
                                        const cJSON *description, struct forge_err *err)
{
    struct out o = {0};
    cJSON *ts = cJSON_CreateObject();
    if (!ts) {
        o.oom = true;
        goto out;
    }
    add_str(&o, ts, "name", name);
    if (description)
        add_dup(&o, ts, "description", description);
    cJSON *params = add(&o, ts, "parameters", cJSON_CreateObject());
    if (!params)
        goto out;
    add_str(&o, params, "type", "object");
    cJSON *props = add(&o, params, "properties", cJSON_CreateObject());
    const cJSON *src = own(json_schema, "properties");
    struct entry *e = NULL;
    int n = (src && !cJSON_IsNull(src)) ? entries(src, &e, NULL, 0) : 0;
    if (n < 0)
        o.oom = true;
    for (int i = 0; i < n && props && !o.oom; i++) {
        const cJSON *p = e[i].val;
        cJSON *q = add_k(&o, props, e[i].key, cJSON_CreateObject());
        if (!q)
            break;
        const cJSON *t = own(p, "type");
        if (truthy(t))
            add_dup(&o, q, "type", t);
        else
            add_str(&o, q, "type", "string");
        add_dup(&o, q, "description", own(p, "description"));
        add_dup(&o, q, "enum", own(p, "enum"));
        add_dup(&o, q, "format", own(p, "format"));
    }
    forge_free(e);
    const cJSON *req = own(json_schema, "required");
    if (cJSON_IsArray(req))
        add_dup(&o, params, "required", req);
out:
    if (o.oom) {
        cJSON_Delete(ts);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    return ts;
}

/* ---------------------------------------------------------------------------------------- */
/* result-verifier.ts                                                                        */

/* `.` of a non-unicode JavaScript regex: one UTF-16 unit that is not a line terminator.
 * Returns the byte length of such a character at <s>, or 0. */
static size_t js_dot(const char *s, size_t avail)
{
    if (!avail)
        return 0;
    size_t l;
    uint32_t c = decode((const unsigned char *)s, avail, &l);
    if (c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029 || (c != UINT32_MAX && c > 0xFFFF))
        return 0;
    return l;
}

/* Exact full matches of looksFabricated's patterns. */
static bool all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool looks_fabricated(const char *v)
{
    size_t n = strlen(v);
    /* ^\d{1,2}/\d{1,2}/\d{4}$ */
    {
        const char *a = strchr(v, '/');
        const char *b = a ? strchr(a + 1, '/') : NULL;
        if (a && b) {
            size_t l1 = (size_t)(a - v), l2 = (size_t)(b - a - 1), l3 = n - (size_t)(b - v) - 1;
            if (l1 >= 1 && l1 <= 2 && l2 >= 1 && l2 <= 2 && l3 == 4 && all_digits(v, l1) &&
                all_digits(a + 1, l2) && all_digits(b + 1, 4))
                return true;
        }
    }
    /* ^[A-Z][a-z]+ \d{1,2}, \d{4}$ */
    if (n >= 2 && v[0] >= 'A' && v[0] <= 'Z') {
        size_t i = 1;
        while (i < n && v[i] >= 'a' && v[i] <= 'z')
            i++;
        if (i > 1 && i < n && v[i] == ' ') {
            size_t j = ++i;
            while (j < n && v[j] >= '0' && v[j] <= '9')
                j++;
            if (j - i >= 1 && j - i <= 2 && j + 2 < n && v[j] == ',' && v[j + 1] == ' ' &&
                n - (j + 2) == 4 && all_digits(v + j + 2, 4))
                return true;
        }
    }
    /* ^\$\d+\.\d{2}$ */
    if (n >= 5 && v[0] == '$' && v[n - 3] == '.' && all_digits(v + n - 2, 2) &&
        all_digits(v + 1, n - 4))
        return true;
    /* ^\d+%$ */
    if (n >= 2 && v[n - 1] == '%' && all_digits(v, n - 1))
        return true;
    /* ^ID: [A-Z0-9-]+$ */
    if (n > 4 && strncmp(v, "ID: ", 4) == 0) {
        size_t i = 4;
        while (i < n && ((v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '-'))
            i++;
        if (i == n)
            return true;
    }
    /* ^[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}$ (case-insensitive) */
    if (n == 36) {
        static const int dash[] = {8, 13, 18, 23};
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            bool is_dash = i == 8 || i == 13 || i == 18 || i == 23;
            char c = (char)(v[i] | 32);
            ok = is_dash ? v[i] == '-' : ((c >= 'a' && c <= 'z') || (v[i] >= '0' && v[i] <= '9'));
        }
        (void)dash;
        if (ok)
            return true;
    }
    return false;
}

enum { WORDS_SUCCESS = 1, WORDS_NOTFOUND = 2, WORDS_FAILURE = 4, WORDS_FOUND = 8 };

static bool ci_prefix(const char *p, size_t avail, const char *w)
{
    size_t k = 0;
    for (; w[k]; k++) {
        if (k >= avail)
            return false;
        char c = p[k];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        if (c != w[k])
            return false;
    }
    return true;
}

/* <w1>.?<w2> at <p> (case-insensitive ASCII, `.` one non-line-terminator BMP character). */
static bool gap_at(const char *p, size_t avail, const char *w1, const char *w2)
{
    size_t l1 = strlen(w1);
    if (!ci_prefix(p, avail, w1))
        return false;
    if (ci_prefix(p + l1, avail - l1, w2))
        return true;
    size_t d = js_dot(p + l1, avail - l1);
    return d && ci_prefix(p + l1 + d, avail - l1 - d, w2);
}

/* /success|sent|created|updated/i and /not.?found|no.?result|empty/i in one pass; only the
 * first letters of the wanted rules' words stop the scan. */
static int scan_words(const char *s, size_t n, int want)
{
    /* bit 1: first letter of a success word, bit 2: of a not-found word */
    static const unsigned char firsts[256] = {['s'] = 1, ['S'] = 1, ['c'] = 1, ['C'] = 1,
                                              ['u'] = 1, ['U'] = 1, ['e'] = 2, ['E'] = 2,
                                              ['n'] = 2, ['N'] = 2};
    int f = 0;
    for (size_t i = 0; i < n && (f & want) != want; i++) {
        if (!(firsts[(unsigned char)s[i]] & want))
            continue;
        const char *p = s + i;
        size_t av = n - i;
        switch (s[i] | 32) {
        case 's':
            if (ci_prefix(p, av, "success") || ci_prefix(p, av, "sent"))
                f |= WORDS_SUCCESS;
            break;
        case 'c':
            if (ci_prefix(p, av, "created"))
                f |= WORDS_SUCCESS;
            break;
        case 'u':
            if (ci_prefix(p, av, "updated"))
                f |= WORDS_SUCCESS;
            break;
        case 'e':
            if (ci_prefix(p, av, "empty"))
                f |= WORDS_NOTFOUND;
            break;
        case 'n':
            if (gap_at(p, av, "not", "found") || gap_at(p, av, "no", "result"))
                f |= WORDS_NOTFOUND;
            break;
        default:
            break;
        }
    }
    return f & want;
}

/* One string of the result as JSON.stringify writes it (escapes included; the quotes cannot
 * take part in a match). */
static int scan_string(const char *s, struct forge_buf *scratch, int want)
{
    /* the bytes JSON.stringify escapes, and the end */
    static const unsigned char stop[256] = {
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        0, 0, 1, ['\\'] = 1};
    size_t n = 0;
    while (!stop[(unsigned char)s[n]])
        n++;
    if (!s[n])
        return scan_words(s, n, want);
    forge_buf_reset(scratch);
    cJSON tmp = {0};
    tmp.type = cJSON_String;
    tmp.valuestring = (char *)s;
    if (forge_json_write(scratch, &tmp, 0))
        return -1;
    return scan_words(scratch->data, scratch->len, want);
}

/* The contradiction words of JSON.stringify(v): matches live inside single strings (keys
 * included), since quotes, separators and number characters cannot be part of one. */
static int scan_result(const cJSON *v, struct forge_buf *scratch, int want)
{
    int f = 0;
    if (cJSON_IsString(v))
        return scan_string(v->valuestring ? v->valuestring : "", scratch, want);
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return 0;
    for (const cJSON *c = v->child; c && (f & want) != want; c = c->next) {
        int g;
        if (cJSON_IsObject(v) && c->string) {
            g = scan_string(c->string, scratch, want);
            if (g < 0)
                return -1;
            f |= g;
        }
        g = scan_result(c, scratch, want);
        if (g < 0)
            return -1;
        f |= g;
    }
    return f;
}

static bool any_in(const char *s, size_t n, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (memmem(s, n, words[i], strlen(words[i])))
            return true;
    return false;
}

/* The response-side words of a lowered content, computed once per turn. */
static int content_words(struct lowtext *lt)
{
    if (lt->words < 0) {
        static const char *const failure[] = {"failed", "error", "unable", "could not", "sorry", NULL};
        static const char *const found[] = {"found", "here", "this is", NULL};
        lt->words = (any_in(lt->s, lt->n, failure) ? WORDS_FAILURE : 0) |
                    (any_in(lt->s, lt->n, found) ? WORDS_FOUND : 0);
    }
    return lt->words;
}

/* The first <units> UTF-16 units of <s> as a new string (String.prototype.substring(0, n)). */
static char *utf16_prefix(const char *s, size_t n, size_t units)
{
    size_t b = 0, u = 0;
    while (b < n && u < units) {
        size_t l;
        uint32_t c = decode((const unsigned char *)s + b, n - b, &l);
        size_t w = c != UINT32_MAX && c > 0xFFFF ? 2 : 1;
        if (u + w > units)
            break;
        u += w;
        b += l;
    }
    return forge_strndup(s, b);
}

/* The lowered content of <turn>: from the context when it is one of its turns, else into
 * <scratch>. NULL on ENOMEM. */
static const struct lowtext *turn_low(struct tctx *t, const cJSON *turn, struct lowtext *scratch)
{
    int ix = t ? tctx_index(t, turn) : -1;
    if (ix >= 0)
        return tctx_low(t, ix);
    size_t n;
    const char *s = content_of(turn, &n);
    return lower_into(scratch, s, n) ? NULL : scratch;
}

static cJSON *verify_impl(const cJSON *call, const cJSON *turn, struct tctx *t,
                          const struct forge_verify_opts *opt, struct forge_err *err)
{
    struct out o = {0};
    forge_buf_init(&o.tmp, 0);
    struct lowtext scratch = {0};
    struct entry ebuf[16], *e = NULL;
    int n = 0;
    char mkbuf[64];
    char *matched_keys = NULL; /* per entry: matched flag */
    cJSON *res = cJSON_CreateObject(), *issues = cJSON_CreateArray();
    if (!res || !issues) {
        cJSON_Delete(issues);
        o.oom = true;
        goto out;
    }
    const cJSON *nm = forge_json_get(call, "name");
    char *name_alloc = NULL;
    const char *name = sval(nm);
    if (!name)
        name = name_alloc = strv(&o, nm);
    if (!name) {
        cJSON_Delete(issues);
        goto out;
    }
    const cJSON *result = forge_json_get(call, "result");
    if (!truthy(result)) {
        cJSON *is = issue_new(&o, issues, "missing_result", "medium", turn);
        if (is) {
            add_fmt(&o, is, "description", "Tool \"%s\" has no result", name);
            issue_tail(&o, is, turn, nm);
        }
        add_bool(&o, res, "valid", false);
        add(&o, res, "issues", issues);
        add_num(&o, res, "score", 0.3);
        add_bool(&o, res, "hallucinated", false);
        add_bool(&o, res, "integrated", false);
        forge_free(name_alloc);
        goto out;
    }
    bool has_keys = (cJSON_IsObject(result) || cJSON_IsArray(result)) ? result->child != NULL
                    : cJSON_IsString(result);
    if (!has_keys) {
        cJSON *is = issue_new(&o, issues, "empty_result", "low", turn);
        if (is) {
            add_fmt(&o, is, "description", "Tool \"%s\" returned empty result", name);
            issue_tail(&o, is, turn, nm);
        }
    }
    const cJSON *status = own(result, "status");
    if (sval(status) && strcmp(status->valuestring, "error") == 0) {
        const cJSON *ev = own(result, "error");
        char *es = truthy(ev) ? strv(&o, ev) : NULL;
        cJSON *is = issue_new(&o, issues, "error_result", "high", turn);
        if (is) {
            add_fmt(&o, is, "description", "Tool \"%s\" returned an error: %s", name,
                    es ? es : "Unknown error");
            issue_tail(&o, is, turn, nm);
            cJSON *d = add(&o, is, "details", cJSON_CreateObject());
            if (d)
                add_dup(&o, d, "error", ev);
        }
        forge_free(es);
    }
    const struct lowtext *cl = turn_low(t, turn, &scratch);
    if (!cl) {
        o.oom = true;
        forge_free(name_alloc);
        cJSON_Delete(issues);
        goto out;
    }
    n = entries(result, &e, ebuf, 16);
    if (n < 0) {
        n = 0;
        o.oom = true;
    }
    bool hallucinated = false;
    if (opt->detect_hallucination && !o.oom) {
        double h = 0;
        for (int i = 0; i < n && !o.oom; i++) {
            const cJSON *v = e[i].val;
            const char *s = sval(v);
            if (s && u16len(s, strlen(s), 5) > 5) {
                forge_buf_reset(&t->lb);
                if (forge_tooluse_lower(&t->lb, s, strlen(s))) {
                    o.oom = true;
                    break;
                }
                bool found = includes(cl->s, cl->n, t->lb.data, t->lb.len);
                if (!found && t->traj) {
                    int any = tctx_any_turn(t, t->lb.data, t->lb.len);
                    if (any < 0) {
                        o.oom = true;
                        break;
                    }
                    found = any;
                }
                if (!found)
                    h += looks_fabricated(s) ? 0.3 : 0.1;
            }
            if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1 || v->valuedouble == 100))
                h += 0.05;
        }
        h = fmin(1, h);
        hallucinated = h > opt->hallucination_threshold;
        if (hallucinated) {
            cJSON *is = issue_new(&o, issues, "hallucinated_content", "high", turn);
            if (is) {
                add_fmt(&o, is, "description", "Tool result from \"%s\" may contain hallucinated content", name);
                issue_tail(&o, is, turn, nm);
                cJSON *d = add(&o, is, "details", cJSON_CreateObject());
                if (d)
                    add_num(&o, d, "hallucinationScore", h);
            }
        }
    }
    bool integrated = false;
    int candidates = 0, value_hits = 0;
    if (opt->check_usage && !o.oom) {
        cJSON *matched = cJSON_CreateArray();
        matched_keys = n <= (int)sizeof mkbuf ? memset(mkbuf, 0, sizeof mkbuf)
                                              : forge_calloc((size_t)n, 1);
        if (!matched || !matched_keys) {
            cJSON_Delete(matched);
            o.oom = true;
        }
        bool any = false;
        for (int i = 0; i < n && !o.oom; i++) {
            const cJSON *v = e[i].val;
            if (cJSON_IsNull(v))
                continue;
            forge_buf_reset(&t->tmp);
            forge_buf_reset(&t->lb);
            if (js_str(&t->tmp, v) || forge_tooluse_lower(&t->lb, t->tmp.data ? t->tmp.data : "", t->tmp.len)) {
                o.oom = true;
                break;
            }
            if (u16len(t->lb.data ? t->lb.data : "", t->lb.len, 3) < 3)
                continue;
            if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
                candidates++;
            if (includes(cl->s, cl->n, t->lb.data, t->lb.len)) {
                add_str(&o, matched, NULL, e[i].key);
                matched_keys[i] = 1;
                any = true;
                if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
                    value_hits++;
            }
            /* key words: a space before each capital, lower-cased, split on spaces, > 2 long */
            forge_buf_reset(&t->tmp);
            for (const char *k = e[i].key; *k && !o.oom; k++) {
                if (*k >= 'A' && *k <= 'Z' && forge_buf_addc(&t->tmp, ' '))
                    o.oom = true;
                if (forge_buf_addc(&t->tmp, *k))
                    o.oom = true;
            }
            forge_buf_reset(&t->kb);
            if (o.oom || forge_tooluse_lower(&t->kb, t->tmp.data ? t->tmp.data : "", t->tmp.len)) {
                o.oom = true;
                break;
            }
            /* content.includes(key.toLowerCase()) is part of every word's test */
            bool key_mentioned = false;
            bool keyl_in = false, keyl_done = false;
            const char *w = t->kb.data ? t->kb.data : "";
            while (!key_mentioned) {
                const char *sp = strchr(w, ' ');
                size_t wl = sp ? (size_t)(sp - w) : strlen(w);
                if (u16len(w, wl, 2) > 2) {
                    if (includes(cl->s, cl->n, w, wl))
                        key_mentioned = true;
                    else {
                        if (!keyl_done) {
                            forge_buf_reset(&t->rs);
                            if (forge_tooluse_lower(&t->rs, e[i].key, strlen(e[i].key))) {
                                o.oom = true;
                                break;
                            }
                            keyl_in = includes(cl->s, cl->n, t->rs.data ? t->rs.data : "", t->rs.len);
                            keyl_done = true;
                        }
                        key_mentioned = keyl_in;
                    }
                }
                if (!sp)
                    break;
                w = sp + 1;
            }
            if (key_mentioned && !matched_keys[i]) {
                add_str(&o, matched, NULL, e[i].key);
                matched_keys[i] = 1;
                any = true;
            }
        }
        if (!any && t->traj && !o.oom) {
            const cJSON *tid = forge_json_get(turn, "turn_id");
            for (int i = 0; i < n && !o.oom; i++) {
                const cJSON *v = e[i].val;
                if (cJSON_IsNull(v))
                    continue;
                forge_buf_reset(&t->tmp);
                forge_buf_reset(&t->lb);
                if (js_str(&t->tmp, v) || forge_tooluse_lower(&t->lb, t->tmp.data ? t->tmp.data : "", t->tmp.len)) {
                    o.oom = true;
                    break;
                }
                if (u16len(t->lb.data ? t->lb.data : "", t->lb.len, 3) < 3)
                    continue;
                int found = tctx_any_turn(t, t->lb.data, t->lb.len);
                if (found > 0)
                    found = tctx_later_has(t, tid, t->lb.data, t->lb.len);
                if (found < 0) {
                    o.oom = true;
                    break;
                }
                if (found && !matched_keys[i]) {
                    add_str(&o, matched, NULL, e[i].key);
                    matched_keys[i] = 1;
                    any = true;
                    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
                        value_hits++;
                }
            }
        }
        integrated = any;
        if (!any && !o.oom) {
            cJSON *is = issue_new(&o, issues, "unused_result", "medium", turn);
            if (is) {
                add_fmt(&o, is, "description", "Result from \"%s\" does not appear to be used in response", name);
                issue_tail(&o, is, turn, nm);
                cJSON *d = add(&o, is, "details", cJSON_CreateObject());
                if (d) {
                    add(&o, d, "matchedFields", matched);
                    matched = NULL;
                }
            }
        }
        if (opt->deep && any && candidates >= 2 && value_hits * 2 < candidates && !o.oom) {
            cJSON *is = issue_new(&o, issues, "incomplete_integration", "low", turn);
            if (is) {
                add_fmt(&o, is, "description",
                        "The response uses %d of the %d values returned by \"%s\"", value_hits,
                        candidates, name);
                issue_tail(&o, is, turn, nm);
                cJSON *d = add(&o, is, "details", cJSON_CreateObject());
                if (d) {
                    add(&o, d, "matchedFields", matched);
                    matched = NULL;
                    add_num(&o, d, "usedValues", value_hits);
                    add_num(&o, d, "values", candidates);
                }
            }
        }
        cJSON_Delete(matched);
    }
    size_t cn;
    const char *content = content_of(turn, &cn);
    if (opt->check_contradictions && cn && !o.oom) {
        /* The content is matched in its Unicode lower case: for these ASCII words that is
         * the same as the ASCII-only /i of the upstream regexes (no letter of them has a
         * non-ASCII upper case that lower-cases into it). */
        int cw = content_words((struct lowtext *)cl);
        int want = ((cw & WORDS_FAILURE) ? WORDS_SUCCESS : 0) | ((cw & WORDS_FOUND) ? WORDS_NOTFOUND : 0);
        int rw = want ? scan_result(result, &t->rs, want) : 0;
        if (rw > 0)
            rw &= want; /* the scan may see words of the rule the text does not trigger */
        if (rw < 0) {
            o.oom = true;
        } else {
            bool rule[2] = {(rw & WORDS_SUCCESS) != 0, (rw & WORDS_NOTFOUND) != 0};
            static const char *const desc[2] = {
                "Result indicates success but response suggests failure",
                "Result indicates not found but response suggests found"};
            for (int k = 0; k < 2; k++) {
                if (!rule[k])
                    continue;
                cJSON *is = issue_new(&o, issues, "contradicts_response", "high", turn);
                if (!is)
                    break;
                add_str(&o, is, "description", desc[k]);
                issue_tail(&o, is, turn, nm);
                cJSON *d = add(&o, is, "details", cJSON_CreateObject());
                struct forge_buf js;
                forge_buf_init(&js, 0);
                if (d && !forge_json_write(&js, result, 0)) {
                    const char *rj = js.data ? js.data : "";
                    char *a = utf16_prefix(rj, js.len, 100), *b = utf16_prefix(content, cn, 100);
                    if (!a || !b)
                        o.oom = true;
                    else {
                        add_str(&o, d, "result", a);
                        add_str(&o, d, "response", b);
                    }
                    forge_free(a);
                    forge_free(b);
                } else {
                    o.oom = true;
                }
                forge_buf_free(&js);
            }
        }
    }
    if (opt->deep && !o.oom && cJSON_IsString(result)) {
        const char *s = result->valuestring;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (*s == '{' || *s == '[') {
            cJSON *p = cJSON_ParseWithOpts(s, NULL, 1);
            if (!p) {
                cJSON *is = issue_new(&o, issues, "malformed_result", "medium", turn);
                if (is) {
                    add_fmt(&o, is, "description", "Tool \"%s\" returned text that looks like JSON but does not parse", name);
                    issue_tail(&o, is, turn, nm);
                }
            }
            cJSON_Delete(p);
        }
    }
    double total = 0;
    for (const cJSON *c = issues->child; c; c = c->next) {
        const char *s = forge_json_str(c, "severity");
        total += issue_weight(s ? s : "", 1.0, 0.6, 0.3, 0.1, 0.2);
    }
    add_bool(&o, res, "valid", !has_critical(issues));
    add(&o, res, "issues", issues);
    add_num(&o, res, "score", issues->child ? fmax(0, 1 - total) : 1.0);
    add_bool(&o, res, "hallucinated", hallucinated);
    add_bool(&o, res, "integrated", integrated);
    forge_free(name_alloc);
out:
    if (e != ebuf)
        forge_free(e);
    if (matched_keys != mkbuf)
        forge_free(matched_keys);
    forge_free(scratch.s);
    forge_buf_free(&o.tmp);
    if (o.oom) {
        cJSON_Delete(res);
        forge_err_set(err, FORGE_ENOMEM, "out of memory verifying a result");
        return NULL;
    }
    return res;
}

cJSON *forge_tooluse_verify_result(const cJSON *call, const cJSON *turn, const cJSON *traj,
                                   const struct forge_verify_opts *o, struct forge_err *err)
{
    struct forge_verify_opts def;
    if (!o) {
        forge_verify_opts_init(&def);
        o = &def;
    }
    struct tctx t;
    if (tctx_init(&t, traj)) {
        tctx_free(&t);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    cJSON *r = verify_impl(call, turn, &t, o, err);
    tctx_free(&t);
    return r;
}

cJSON *forge_tooluse_verify_turn_results(const cJSON *turn, const cJSON *traj,
                                         const struct forge_verify_opts *o,
                                         struct forge_err *err)
{
    struct forge_verify_opts def;
    if (!o) {
        forge_verify_opts_init(&def);
        o = &def;
    }
    struct tctx t;
    cJSON *arr = cJSON_CreateArray();
    if (!arr || tctx_init(&t, traj)) {
        if (arr)
            tctx_free(&t);
        cJSON_Delete(arr);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    const cJSON *calls = forge_json_get(turn, "tool_calls");
    if (truthy(calls)) {
        for (const cJSON *c = cJSON_IsArray(calls) ? calls->child : NULL; c; c = c->next) {
            cJSON *r = verify_impl(c, turn, &t, o, err);
            if (!r || !cJSON_AddItemToArray(arr, r)) {
                cJSON_Delete(r);
                cJSON_Delete(arr);
                arr = NULL;
                forge_err_set(err, FORGE_ENOMEM, "out of memory");
                break;
            }
        }
    }
    tctx_free(&t);
    return arr;
}

struct sum {
    int total, valid, halluc, integ;
    double score_sum;
};

static void sum_add(struct sum *s, const cJSON *r)
{
    s->total++;
    s->valid += cJSON_IsTrue(forge_json_get(r, "valid"));
    s->halluc += cJSON_IsTrue(forge_json_get(r, "hallucinated"));
    s->integ += cJSON_IsTrue(forge_json_get(r, "integrated"));
}

static cJSON *sum_json(struct out *o, const struct sum *s, double *scores, cJSON *issues)
{
    cJSON *j = cJSON_CreateObject();
    if (!j) {
        o->oom = true;
        cJSON_Delete(issues);
        return NULL;
    }
    /* reduce((sum, r) => sum + r.score, 0) / length, in call order */
    double total = 0;
    for (int i = 0; i < s->total; i++)
        total += scores[i];
    add_num(o, j, "totalTools", s->total);
    add_num(o, j, "validResults", s->valid);
    add_num(o, j, "hallucinatedResults", s->halluc);
    add_num(o, j, "integratedResults", s->integ);
    add_num(o, j, "averageScore", s->total > 0 ? total / s->total : 1);
    add(o, j, "issues", issues);
    return j;
}

/* Runs verifyResult over every call of every agent turn; fills <per_call> (may be NULL) with
 * each result (turn_id and tool added) and returns the summary. */
static cJSON *summarize_impl(struct tctx *t, const struct forge_verify_opts *opt, cJSON *per_call,
                             struct forge_err *err)
{
    struct out o = {0};
    struct sum s = {0};
    double *scores = NULL;
    int cap = 0;
    cJSON *issues = cJSON_CreateArray();
    if (!issues)
        o.oom = true;
    for (int i = 0; i < t->n && !o.oom; i++) {
        const cJSON *turn = t->turns[i];
        const char *role = forge_json_str(turn, "role");
        const cJSON *calls = forge_json_get(turn, "tool_calls");
        if (!role || strcmp(role, "agent") != 0 || !truthy(calls) || !cJSON_IsArray(calls))
            continue;
        for (const cJSON *c = calls->child; c && !o.oom; c = c->next) {
            cJSON *r = verify_impl(c, turn, t, opt, err);
            if (!r) {
                o.oom = true;
                break;
            }
            if (s.total == cap) {
                cap = cap ? cap * 2 : 16;
                double *p = forge_realloc(scores, sizeof *scores * (size_t)cap);
                if (!p) {
                    cJSON_Delete(r);
                    o.oom = true;
                    break;
                }
                scores = p;
            }
            scores[s.total] = forge_json_num(r, "score", 0);
            sum_add(&s, r);
            cJSON *ri = forge_json_get(r, "issues");
            if (per_call) {
                /* the summary lists the very issue objects of the per-call results */
                for (const cJSON *x = ri ? ri->child : NULL; x; x = x->next)
                    add(&o, issues, NULL, cJSON_CreateObjectReference(x->child));
                add_copy(&o, r, "turn_id", forge_json_get(turn, "turn_id"));
                add_copy(&o, r, "tool", forge_json_get(c, "name"));
                add(&o, per_call, NULL, r);
            } else {
                while (ri && ri->child)
                    add(&o, issues, NULL, cJSON_DetachItemViaPointer(ri, ri->child));
                cJSON_Delete(r);
            }
        }
    }
    cJSON *j = NULL;
    if (!o.oom)
        j = sum_json(&o, &s, scores, issues);
    else
        cJSON_Delete(issues);
    forge_free(scores);
    if (o.oom) {
        cJSON_Delete(j);
        forge_err_set(err, FORGE_ENOMEM, "out of memory summarizing results");
        return NULL;
    }
    return j;
}

cJSON *forge_tooluse_summarize(const cJSON *traj, const struct forge_verify_opts *o,
                               struct forge_err *err)
{
    struct forge_verify_opts def;
    if (!o) {
        forge_verify_opts_init(&def);
        o = &def;
    }
    struct tctx t;
    cJSON *r = NULL;
    if (tctx_init(&t, traj))
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
    else
        r = summarize_impl(&t, o, NULL, err);
    tctx_free(&t);
    return r;
}

cJSON *forge_tooluse_check(const cJSON *traj, const cJSON *schemas,
                           const struct forge_tooluse_opts *vo,
                           const struct forge_verify_opts *ro, struct forge_err *err)
{
    struct forge_tooluse_opts vdef;
    struct forge_verify_opts rdef;
    if (!vo) {
        forge_tooluse_opts_init(&vdef);
        vo = &vdef;
    }
    if (!ro) {
        forge_verify_opts_init(&rdef);
        ro = &rdef;
    }
    struct tctx t;
    struct out o = {0};
    cJSON *out = cJSON_CreateObject();
    if (!out || tctx_init(&t, traj)) {
        if (out)
            tctx_free(&t);
        cJSON_Delete(out);
        forge_err_set(err, FORGE_ENOMEM, "out of memory");
        return NULL;
    }
    cJSON *val = add(&o, out, "validation", cJSON_CreateArray());
    for (int i = 0; i < t.n && val && !o.oom; i++) {
        const cJSON *turn = t.turns[i];
        const char *role = forge_json_str(turn, "role");
        if (!role || strcmp(role, "agent") != 0 ||
            !truthy(forge_json_get(turn, "tool_calls")))
            continue;
        cJSON *r = validate_turn_impl(turn, schemas, &t, vo, err);
        if (!r) {
            o.oom = true;
            break;
        }
        add_copy(&o, r, "turn_id", forge_json_get(turn, "turn_id"));
        add(&o, val, NULL, r);
    }
    cJSON *per = o.oom ? NULL : add(&o, out, "results", cJSON_CreateArray());
    if (per) {
        cJSON *sum = summarize_impl(&t, ro, per, err);
        if (!sum)
            o.oom = true;
        else
            add(&o, out, "summary", sum);
    }
    tctx_free(&t);
    if (o.oom) {
        cJSON_Delete(out);
        if (!err || !err->code)
            forge_err_set(err, FORGE_ENOMEM, "out of memory checking a trajectory");
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* Compiled schemas for the deep schema_violation check                                      */

struct forge_tooluse_schemas {
    int n;
    char **names;
    struct forge_schema **compiled;
    struct forge_strtab tab; /* names -> index (a repeated name's first) */
};

void forge_tooluse_schemas_free(struct forge_tooluse_schemas *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        forge_free(s->names[i]);
        forge_schema_free(s->compiled[i]);
    }
    forge_free(s->names);
    forge_free(s->compiled);
    forge_strtab_free(&s->tab);
    forge_free(s);
}

struct forge_tooluse_schemas *forge_tooluse_schemas_compile(const cJSON *schemas,
                                                            struct forge_err *err)
{
    struct forge_tooluse_schemas *s = forge_calloc(1, sizeof *s);
    int n = cJSON_IsObject(schemas) ? cJSON_GetArraySize(schemas) : 0;
    if (!s || (n && (!(s->names = forge_calloc((size_t)n, sizeof *s->names)) ||
                     !(s->compiled = forge_calloc((size_t)n, sizeof *s->compiled))))) {
        forge_tooluse_schemas_free(s);
        forge_err_set(err, FORGE_ENOMEM, "out of memory compiling tool schemas");
        return NULL;
    }
    struct forge_schema_opts so = {.draft = FORGE_DRAFT_DEFAULT, .all_errors = true};
    for (const cJSON *t = n ? schemas->child : NULL; t; t = t->next) {
        const cJSON *params = own(t, "parameters");
        if (!cJSON_IsObject(params) || !t->string)
            continue;
        struct forge_schema *c = forge_schema_compile(params, &so, err);
        if (!c) {
            forge_err_prefix(err, "the parameters of tool '%s'", t->string);
            forge_tooluse_schemas_free(s);
            return NULL;
        }
        if (forge_strtab_find(&s->tab, t->string) >= 0) { /* a repeated name: the first serves */
            forge_schema_free(c);
            continue;
        }
        s->compiled[s->n] = c;
        s->names[s->n] = forge_strdup(t->string);
        s->n++;
        if (!s->names[s->n - 1] || forge_strtab_add(&s->tab, s->names[s->n - 1]) != s->n - 1) {
            forge_tooluse_schemas_free(s);
            forge_err_set(err, FORGE_ENOMEM, "out of memory compiling tool schemas");
            return NULL;
        }
    }
    return s;
}

int forge_tooluse_schemas_check(void *ctx, const char *tool, const cJSON *args, cJSON **errors)
{
    const struct forge_tooluse_schemas *s = ctx;
    long k = s ? forge_strtab_find(&s->tab, tool) : -1;
    return k >= 0 ? forge_schema_validate(s->compiled[k], args, errors) : 1;
}
