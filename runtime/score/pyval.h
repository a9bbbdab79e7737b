/* Python-shaped values for reproducing Python tools' verdicts exactly.
 *
 * BFCL's checker runs on what Python's json module produces: ints and floats are different
 * types, bool is not int, dicts keep insertion order and a repeated key keeps its first place
 * with its last value. These values model exactly that, plus the Python behaviours the checker
 * depends on: == (numbers across int/float/bool, containers deeply), repr(), json.dumps() with
 * ensure_ascii=False, and json.loads() including its error messages.
 *
 * Ownership: every value lives in a struct forge_arena; nothing is freed one by one. Strings are
 * UTF-8 (lone surrogates from \uD800-style escapes are kept as 3-byte sequences), not
 * NUL-terminated in general: use len. */
#ifndef FORGE_SCORE_PYVAL_H
#define FORGE_SCORE_PYVAL_H
#include <stdbool.h>
#include <stddef.h>
#include "base/buf.h"
#include "base/err.h"

/* A bump allocator: values and strings of one file or one entry. */
struct forge_arena_chunk;
struct forge_arena {
    struct forge_arena_chunk *head;
    size_t used; /* bytes handed out, for caps */
    size_t limit; /* 0: unbounded */
};
void forge_arena_init(struct forge_arena *a, size_t limit);
/* Returns <n> bytes aligned for any value, or NULL when out of memory or over the limit. */
void *forge_arena_alloc(struct forge_arena *a, size_t n);
/* Forgets everything allocated but keeps the first chunk for reuse. */
void forge_arena_reset(struct forge_arena *a);
void forge_arena_free(struct forge_arena *a);

enum forge_pykind {
    FORGE_PY_NONE,
    FORGE_PY_BOOL,
    FORGE_PY_INT,    /* fits in long long */
    FORGE_PY_BIGINT, /* decimal digits in s (with '-' when negative), outside long long */
    FORGE_PY_FLOAT,
    FORGE_PY_STR,
    FORGE_PY_LIST,
    FORGE_PY_DICT,
    FORGE_PY_RAW,    /* pre-serialized JSON text in s: json.dumps emits it verbatim (output only) */
};

#include <stdint.h>
/* 16 bytes: sizes are capped at 4 GiB (input files are capped well below that). */
struct forge_pyval {
    enum forge_pykind kind;
    uint32_t n;  /* STR/BIGINT: bytes; LIST/DICT: items */
    union {
        bool b;
        long long i;
        double f;
        const char *s;
        struct forge_pyval **items; /* LIST */
        struct forge_pyitem *pairs; /* DICT, insertion order */
    } u;
};

struct forge_pyitem {
    const char *key;
    struct forge_pyval *val;
    size_t klen;
};

/* Constructors (NULL when out of memory). Strings are copied into the arena. */
struct forge_pyval *forge_py_none(struct forge_arena *a);
struct forge_pyval *forge_py_bool(struct forge_arena *a, bool b);
struct forge_pyval *forge_py_int(struct forge_arena *a, long long i);
struct forge_pyval *forge_py_float(struct forge_arena *a, double f);
struct forge_pyval *forge_py_str(struct forge_arena *a, const char *s, size_t n);
struct forge_pyval *forge_py_strz(struct forge_arena *a, const char *s);
/* An empty list or dict with room for <cap> items (it grows on append). */
struct forge_pyval *forge_py_list(struct forge_arena *a, size_t cap);
struct forge_pyval *forge_py_dict(struct forge_arena *a, size_t cap);
/* Appends to a list; 0 or FORGE_ENOMEM. */
int forge_py_append(struct forge_arena *a, struct forge_pyval *list, struct forge_pyval *v);
/* dict[key] = v with Python's rules (an existing key keeps its place). 0 or FORGE_ENOMEM. */
int forge_py_set(struct forge_arena *a, struct forge_pyval *dict, const char *key, size_t klen,
                 struct forge_pyval *v);

/* dict.get(key): borrowed value or NULL (also when <dict> is not a dict). */
struct forge_pyval *forge_py_get(const struct forge_pyval *dict, const char *key, size_t klen);
struct forge_pyval *forge_py_getz(const struct forge_pyval *dict, const char *key);
/* True when <v> is a str equal to the NUL-terminated <s>. */
bool forge_py_is_strz(const struct forge_pyval *v, const char *s);

/* Python's a == b. */
bool forge_py_eq(const struct forge_pyval *a, const struct forge_pyval *b);
/* Python's `x in seq` for a list (== on items); false when <seq> is not a list. */
bool forge_py_in(const struct forge_pyval *x, const struct forge_pyval *seq);
/* The name type(v).__name__ gives: "str", "int", "float", "bool", "list", "dict", "NoneType". */
const char *forge_py_type_name(const struct forge_pyval *v);

/* Appends repr(v) / str(v) / json.dumps(v, ensure_ascii=False) to <b>. 0 or the buffer's
 * FORGE_ENOMEM / FORGE_ELIMIT. */
int forge_py_repr(struct forge_buf *b, const struct forge_pyval *v);
int forge_py_str_of(struct forge_buf *b, const struct forge_pyval *v);
int forge_py_dumps(struct forge_buf *b, const struct forge_pyval *v);
/* Writes repr(d) for a float ("1.0", "1e-05", "1e+16", "inf", "nan") into out[32]. */
char *forge_py_float_repr(double d, char *out);

/* json.loads(text): on success *out is a new value in <a> and the return is 0. On a JSON error
 * returns FORGE_EINVAL, *out is NULL and <msg> (at least 160 bytes) holds Python's message,
 * e.g. "Expecting ',' delimiter: line 1 column 5 (char 4)"; positions count code points as
 * Python does. FORGE_ENOMEM when the arena runs out (msg says so). <depth_limit> caps nesting. */
int forge_py_loads(struct forge_arena *a, const char *text, size_t len, struct forge_pyval **out,
                   char *msg, size_t msgsize);

/* Like forge_py_loads, but strings without escapes point into <text>, whose closing quotes are
 * overwritten with NULs (so every string stays NUL-terminated; turning every NUL of the text back
 * into '"' restores it, as valid JSON text holds no NUL byte). <text> must outlive the values.
 * When <canonical> is not NULL it is set to whether <text> is byte for byte what
 * forge_py_dumps writes for the value. */
int forge_py_loads_inplace(struct forge_arena *a, char *text, size_t len, struct forge_pyval **out,
                           bool *canonical, char *msg, size_t msgsize);

/* Python int(s) and float(s) on a string: 0 and *out set, or -1 when Python raises ValueError. */
int forge_py_parse_int(struct forge_arena *a, const char *s, size_t n, struct forge_pyval **out);
int forge_py_parse_float(const char *s, size_t n, double *out);
#endif
