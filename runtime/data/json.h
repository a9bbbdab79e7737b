/* JSON helpers over cJSON: loading with file:line:col errors, path access, deep equality,
 * JavaScript-compatible output (number formatting, escaping, key order) and UTF-16 lengths.
 * cJSON is forge's JSON value type across modules (STYLE.md). */
#ifndef FORGE_DATA_JSON_H
#define FORGE_DATA_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "base/err.h"
#include "base/strtab.h"

/* cJSON's type tests are library calls (validation makes millions of them, a case of the agent
 * loop some hundreds): inline for every file that includes this one. */
static inline bool forge_json_type_is(const cJSON *v, int t)
{
    return v && (v->type & 0xFF) == t;
}
#define cJSON_IsNumber(v) forge_json_type_is((v), cJSON_Number)
#define cJSON_IsString(v) forge_json_type_is((v), cJSON_String)
#define cJSON_IsObject(v) forge_json_type_is((v), cJSON_Object)
#define cJSON_IsArray(v) forge_json_type_is((v), cJSON_Array)
#define cJSON_IsNull(v) forge_json_type_is((v), cJSON_NULL)
#define cJSON_IsTrue(v) forge_json_type_is((v), cJSON_True)
#define cJSON_IsFalse(v) forge_json_type_is((v), cJSON_False)
static inline bool forge_json_is_bool(const cJSON *v)
{
    return v && ((v->type & 0xFF) == cJSON_True || (v->type & 0xFF) == cJSON_False);
}
#define cJSON_IsBool(v) forge_json_is_bool(v)

/* Default cap on the values (cJSON nodes) of one parsed input: 10 million, about 800 MB of
 * nodes; `--max-json-nodes` changes it for the process (forge_json_set_node_limit). */
#define FORGE_JSON_NODE_LIMIT ((size_t)10000000)

/* The offset of the first "\u0000" escape in the JSON text <text> (cJSON cuts a string there),
 * or <len> when there is none. For callers that must carry strings whole or refuse them. */
size_t forge_json_nul_escape(const char *text, size_t len);

/* Parses <len> bytes of <text> as one JSON value (whitespace around it allowed, nothing else:
 * any other byte after the value, a NUL included, is an error). The text must be valid UTF-8
 * without NUL bytes, and hold at most forge_json_node_limit() values (arrays and objects count
 * one each, plus one per element; counted before any node is made). Returns a new tree (free
 * with cJSON_Delete) or NULL with <err> = FORGE_EINVAL (FORGE_ELIMIT for the value limit) and a
 * message "<name>:<line>:<col>: <what>", e.g. "x.json:3:9: invalid UTF-8 (byte 0xFF)" or
 * "x.json:1:20000002: more than 10000000 JSON values in one input (the limit; raise it with
 * --max-json-nodes)". <name> is the file name or a label such as "<argument>". */
cJSON *forge_json_parse(const char *text, size_t len, const char *name, struct forge_err *err);

/* The tree cJSON_ParseWithLengthOpts(text, len, &end, 0) would build, built faster, with *end =
 * the offset just past the value; or NULL where cJSON might read the text differently (rare
 * escapes and number forms, a byte order mark) or fails, so the caller then asks cJSON (which
 * also words the error). No checks of UTF-8 or of the value limit: forge_json_parse makes them
 * first. Allocates from the calling thread's line arena while it is on (data/jarena), else
 * through cJSON's allocator. */
cJSON *forge_json_parse_fast(const char *text, size_t len, size_t *end);

/* Counts the values of <text> as forge_json_parse counts them for its limit (the root and every
 * element of every array and object; strings skipped). Returns the count, or <limit> + 1 with
 * *past = the offset where value number <limit> + 1 starts (*past = <len> when within). */
size_t forge_json_count_values(const char *text, size_t len, size_t limit, size_t *past);

/* The value limit of forge_json_parse, and its setter (0 restores the default; set it before
 * any thread starts). */
size_t forge_json_node_limit(void);
void forge_json_set_node_limit(size_t n);

/* Reads and parses the file at <path> under the input file limit (forge_file_read_input): YAML
 * when the name ends in .yaml or .yml, else JSON. Errors as above, or the file errors of
 * forge_file_read_input. */
cJSON *forge_json_load(const char *path, struct forge_err *err);

/* Whether the <len> bytes of <text> are one JSON text as RFC 8259 and JavaScript's JSON.parse
 * define it, which is stricter than forge_json_parse (cJSON's reading): whitespace is space,
 * tab, LF and CR only; no leading zeros, no "1." or ".5"; no raw control characters (U+0000 to
 * U+001F) in strings; the escapes of RFC 8259 only. Bytes from 0x80 up are taken as they are
 * inside strings (where JSON.parse would see the characters they decode to) and are errors
 * outside them. Nesting has no limit (an explicit stack, grown as needed). Builds nothing.
 * Returns 1 when valid; 0 when not, with *at (when not NULL) the offset of the first byte in
 * error (<len> when the text ends too soon) and *what (when not NULL) what is wrong there;
 * FORGE_ENOMEM when out of memory. */
int forge_json_syntax(const char *text, size_t len, size_t *at, const char **what);

/* Computes the 1-based line and column (in characters, not bytes) of byte <offset> in <text>. */
void forge_json_position(const char *text, size_t offset, int *line, int *col);

/* Borrows the value at <path> under <root>: "a.b[0].c", "[2]", "" (root itself). Keys may be
 * quoted with ["..."] when they contain dots. Returns NULL when absent. */
cJSON *forge_json_at(const cJSON *root, const char *path);

/* Deep equality: numbers by value (1 == 1.0), objects as key sets (order ignored), arrays in
 * order, strings byte for byte. */
bool forge_json_equal(const cJSON *a, const cJSON *b);

/* The bytes the tree <v> stands for: <per_node> a node, plus its name's and string's lengths
 * (children below 1,000 levels, the reader's own limit, are not counted). 0 for NULL. */
size_t forge_json_tree_bytes(const cJSON *v, size_t per_node);

/* A member of an object and its position among the object's members. */
struct forge_json_member {
    const cJSON *c;
    size_t pos;
};
/* The named members of the object <o>, sorted by name and then position (so that the first of
 * a repeated name comes first): in <buf> when its <cap> entries hold them, else in a new array
 * (to free when it is not <buf>). Sets *<n>; returns the array, or NULL when out of memory. */
struct forge_json_member *forge_json_members_sorted(const cJSON *o, struct forge_json_member *buf,
                                                    size_t cap, size_t *n);

/* A hash of <v> under which values forge_json_equal calls equal hash alike: numbers by value
 * (-0 as 0), strings by forge_hash_str (seeded per process), arrays in order, objects by the
 * sum over their names of the name's and its first value's hash (a repeated name counts once,
 * with its first value). Deeper than 64 levels a container hashes by its kind. Returns false
 * when out of memory. */
bool forge_json_hash(const cJSON *v, uint64_t *out);

/* The members of an object found by name through a hash table (base/strtab): each name once,
 * at its first member, as cJSON's lookup finds it. For objects looked into many times (a $defs
 * of thousands, the properties of a 40,000-member schema). The names are borrowed from the
 * object, which must outlive the index. */
struct forge_json_names {
    struct forge_strtab t;
    const cJSON **members; /* by index in t */
};
/* Builds <ix> over the members of object <o>. 0, or FORGE_ENOMEM (<ix> is then empty). */
int forge_json_names_build(struct forge_json_names *ix, const cJSON *o);
/* The first member of that name, or NULL. */
const cJSON *forge_json_names_find(const struct forge_json_names *ix, const char *name);
void forge_json_names_free(struct forge_json_names *ix);

/* Output flags. */
enum {
    FORGE_JSON_PRETTY = 1, /* two-space indentation, as JSON.stringify(v, null, 2) */
    FORGE_JSON_SORTED = 2, /* object keys in byte order (canonical); default keeps input order */
};

/* Appends <v> as JSON text to <b>, the way JavaScript's JSON.stringify writes it (numbers per
 * Number.prototype.toString, non-finite numbers as null, same escapes). The output is always
 * valid UTF-8: each byte of a string or key that is not part of a valid UTF-8 sequence is
 * written as U+FFFD. Returns 0 or the
 * buffer's FORGE_ENOMEM / FORGE_ELIMIT. */
int forge_json_write(struct forge_buf *b, const cJSON *v, int flags);

/* Appends the NUL-terminated <s> as a JSON string, escaped as forge_json_write escapes strings.
 * Returns 0 or the buffer's error. */
int forge_json_write_string(struct forge_buf *b, const char *s);

/* Returns <v> as a new JSON string (free with forge_free), or NULL when out of memory. */
char *forge_json_print(const cJSON *v, int flags);

/* Writes <d> as JavaScript's String(d) does ("1e+21", "0.1", "-0" prints "0", "NaN",
 * "Infinity") into <out>, which holds at least 32 bytes. Returns <out>. */
char *forge_json_number(double d, char *out);

/* Number of UTF-16 code units in the UTF-8 string <s> of <n> bytes (JavaScript's .length).
 * Invalid bytes count one unit each. */
size_t forge_utf16_len(const char *s, size_t n);

/* A cheap hash of a member name for tables of known keys: its length and its first and last
 * bytes (0 for ""). Inlined on a string literal it is a constant; equal hashes are confirmed
 * with strcmp. forge_json_name_slot gives its first slot in a table of 2^<bits> slots. */
static inline unsigned forge_json_name_hash(const char *s)
{
    size_t n = strlen(s);
    return n ? (unsigned)n << 16 ^ (unsigned)(unsigned char)s[0] << 8 ^ (unsigned char)s[n - 1] : 0;
}
static inline unsigned forge_json_name_slot(unsigned h, int bits)
{
    return (h * 2654435761u) >> (32 - bits);
}

/* cJSON_GetObjectItemCaseSensitive, inlined, comparing first bytes before strcmp: the first
 * member of <obj> named <key> (borrowed), or NULL (also when a member without a name comes
 * first, as cJSON's lookup stops there, or <obj> or <key> is NULL). */
static inline cJSON *forge_json_get(const cJSON *obj, const char *key)
{
    if (!obj || !key)
        return NULL;
    for (cJSON *c = obj->child; c; c = c->next) {
        if (!c->string)
            return NULL;
        if (c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    }
    return NULL;
}

/* Adds <item> (taken; deleted when it cannot be added) to <obj> as member <key> without copying
 * the name (cJSON_StringIsConst), so <key> must outlive the tree: the macros below take string
 * literals only. The trees built for every case have some hundred such members; a copy and a
 * free of each name cost about 100 instructions. Returns <item> or NULL, as cJSON_Add*ToObject. */
static inline cJSON *forge_json_add_cs(cJSON *obj, const char *key, cJSON *item)
{
    /* cJSON_AddItemToObjectCS, inline (the call and its checks cost about 30 instructions a
     * member): the name, then the item appended through the first child's prev, which points
     * at the last (cJSON's lists, which data/jparse builds too) */
    if (!obj || !item || obj == item) {
        cJSON_Delete(item);
        return NULL;
    }
    if (!(item->type & cJSON_StringIsConst) && item->string)
        cJSON_free(item->string);
    item->string = (char *)(uintptr_t)key;
    item->type |= cJSON_StringIsConst;
    cJSON *first = obj->child;
    if (!first) {
        obj->child = item;
        item->prev = item;
        item->next = NULL;
    } else if (first->prev) {
        first->prev->next = item;
        item->prev = first->prev;
        first->prev = item;
    }
    return item;
}
#define forge_json_add_item(o, k, item) forge_json_add_cs((o), "" k, (item))
#define forge_json_add_str(o, k, s) forge_json_add_cs((o), "" k, cJSON_CreateString(s))
/* A string member whose value is a literal too: referenced, not copied (cJSON_IsReference). */
#define forge_json_add_lit(o, k, lit) forge_json_add_cs((o), "" k, cJSON_CreateStringReference("" lit))
#define forge_json_add_num(o, k, n) forge_json_add_cs((o), "" k, cJSON_CreateNumber(n))
#define forge_json_add_bool(o, k, b) forge_json_add_cs((o), "" k, cJSON_CreateBool(b))
#define forge_json_add_true(o, k) forge_json_add_cs((o), "" k, cJSON_CreateTrue())
#define forge_json_add_false(o, k) forge_json_add_cs((o), "" k, cJSON_CreateFalse())
#define forge_json_add_null(o, k) forge_json_add_cs((o), "" k, cJSON_CreateNull())
#define forge_json_add_obj(o, k) forge_json_add_cs((o), "" k, cJSON_CreateObject())
#define forge_json_add_arr(o, k) forge_json_add_cs((o), "" k, cJSON_CreateArray())

/* cJSON conveniences: the string value of <key> in <obj> (borrowed) or NULL; number or <dflt>. */
const char *forge_json_str(const cJSON *obj, const char *key);
double forge_json_num(const cJSON *obj, const char *key, double dflt);
#endif
