/* BFCL's AST checker and relevance checks (see bfcl.h), rule for rule. */
#include "score/bfcl.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- categories ---- */

static const char *const categories[] = {
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance", NULL,
};

bool forge_bfcl_category_known(const char *category)
{
    for (int i = 0; categories[i]; i++)
        if (strcmp(categories[i], category) == 0)
            return true;
    return false;
}

bool forge_bfcl_category_is_relevance(const char *category)
{
    return strstr(category, "relevance") != NULL;
}

enum forge_bfcl_lang forge_bfcl_category_lang(const char *category)
{
    if (strstr(category, "javascript"))
        return FORGE_BFCL_JAVASCRIPT;
    if (strstr(category, "java"))
        return FORGE_BFCL_JAVA;
    return FORGE_BFCL_PYTHON;
}

/* ---- Python types as BFCL's tables name them ---- */

enum pt { T_NONE = 0, T_STR, T_INT, T_FLOAT, T_BOOL, T_LIST, T_DICT, T_SET, T_NONETYPE };

static const char *class_name(enum pt t)
{
    switch (t) {
    case T_STR: return "<class 'str'>";
    case T_INT: return "<class 'int'>";
    case T_FLOAT: return "<class 'float'>";
    case T_BOOL: return "<class 'bool'>";
    case T_LIST: return "<class 'list'>";
    case T_DICT: return "<class 'dict'>";
    case T_SET: return "<class 'set'>";
    case T_NONETYPE: return "<class 'NoneType'>";
    default: return "None";
    }
}

static enum pt type_of(const struct forge_pyval *v)
{
    switch (v->kind) {
    case FORGE_PY_NONE: return T_NONETYPE;
    case FORGE_PY_BOOL: return T_BOOL;
    case FORGE_PY_INT:
    case FORGE_PY_BIGINT: return T_INT;
    case FORGE_PY_FLOAT: return T_FLOAT;
    case FORGE_PY_STR: return T_STR;
    case FORGE_PY_LIST: return T_LIST;
    case FORGE_PY_DICT: return T_DICT;
    case FORGE_PY_RAW: return T_STR;
    }
    return T_NONE;
}

struct tmap {
    const char *name;
    enum pt t;
};

static const struct tmap python_types[] = {
    {"string", T_STR}, {"integer", T_INT}, {"float", T_FLOAT}, {"boolean", T_BOOL},
    {"array", T_LIST}, {"tuple", T_LIST}, {"dict", T_DICT}, {"any", T_STR}, {NULL, T_NONE},
};
static const struct tmap java_types[] = {
    {"byte", T_INT}, {"short", T_INT}, {"integer", T_INT}, {"float", T_FLOAT},
    {"double", T_FLOAT}, {"long", T_INT}, {"boolean", T_BOOL}, {"char", T_STR},
    {"Array", T_LIST}, {"ArrayList", T_LIST}, {"Set", T_SET}, {"HashMap", T_DICT},
    {"Hashtable", T_DICT}, {"Queue", T_LIST}, {"Stack", T_LIST}, {"String", T_STR},
    {"any", T_STR}, {NULL, T_NONE},
};
static const struct tmap js_types[] = {
    {"String", T_STR}, {"integer", T_INT}, {"float", T_FLOAT}, {"Bigint", T_INT},
    {"Boolean", T_BOOL}, {"dict", T_DICT}, {"array", T_LIST}, {"any", T_STR}, {NULL, T_NONE},
};

static enum pt lookup_type(enum forge_bfcl_lang lang, const char *name)
{
    const struct tmap *m = lang == FORGE_BFCL_JAVA ? java_types
                           : lang == FORGE_BFCL_JAVASCRIPT ? js_types
                                                           : python_types;
    for (; m->name; m++)
        if (strcmp(m->name, name) == 0)
            return m->t;
    return T_NONE;
}

/* ---- checking context and results ---- */

struct ctx {
    struct forge_bfcl *b;
    struct forge_arena *a;
    enum forge_bfcl_lang lang;
    bool u2d;
    struct forge_err *err;
    struct forge_buf msg;
    int rc; /* first hard error (FORGE_ENOMEM / FORGE_EINVAL) */
};

struct res {
    bool valid;
    bool is_variable;
    const char *etype;
    struct forge_pyval *errors; /* list, NULL until the first message */
};

static struct res ok(void)
{
    struct res r = {true, false, NULL, NULL};
    return r;
}

static int set_rc(struct ctx *c, int rc)
{
    if (!c->rc)
        c->rc = rc;
    if (rc == FORGE_ENOMEM && c->err && !c->err->code)
        forge_err_set(c->err, FORGE_ENOMEM, "out of memory");
    return rc;
}

static int bad(struct ctx *c, const char *fmt, const char *arg)
{
    if (!c->rc) {
        c->rc = FORGE_EINVAL;
        forge_err_set(c->err, FORGE_EINVAL, fmt, arg);
    }
    return FORGE_EINVAL;
}

/* Message building: m_begin, then m_s / m_r / m_str pieces, then m_end appends it to r->errors. */
static void m_begin(struct ctx *c) { forge_buf_reset(&c->msg); }
static void m_s(struct ctx *c, const char *s)
{
    if (forge_buf_adds(&c->msg, s))
        set_rc(c, FORGE_ENOMEM);
}
static void m_r(struct ctx *c, const struct forge_pyval *v)
{
    if (forge_py_repr(&c->msg, v))
        set_rc(c, FORGE_ENOMEM);
}
static void m_rs(struct ctx *c, const char *s, size_t n)
{
    struct forge_pyval tmp = {FORGE_PY_STR, (uint32_t)n, {.s = s}};
    m_r(c, &tmp);
}
static void m_raw(struct ctx *c, const char *s, size_t n)
{
    if (forge_buf_add(&c->msg, s, n))
        set_rc(c, FORGE_ENOMEM);
}
static struct forge_pyval *m_take(struct ctx *c)
{
    struct forge_pyval *v = forge_py_str(c->a, c->msg.data ? c->msg.data : "", c->msg.len);
    if (!v)
        set_rc(c, FORGE_ENOMEM);
    return v;
}
static void add_error(struct ctx *c, struct res *r, struct forge_pyval *e)
{
    if (!e)
        return;
    if (!r->errors && !(r->errors = forge_py_list(c->a, 2))) {
        set_rc(c, FORGE_ENOMEM);
        return;
    }
    if (forge_py_append(c->a, r->errors, e))
        set_rc(c, FORGE_ENOMEM);
}
static void m_end(struct ctx *c, struct res *r) { add_error(c, r, m_take(c)); }

/* Ends BFCL's "Invalid value for parameter P" message (P already written):
 * ": <value>. Expected one of <answers><tail>", and records it on <r>. */
static void m_expected(struct ctx *c, struct res *r, const struct forge_pyval *value,
                       const struct forge_pyval *answers, const char *tail)
{
    m_s(c, ": ");
    m_r(c, value);
    m_s(c, ". Expected one of ");
    m_r(c, answers);
    m_s(c, tail);
    m_end(c, r);
}

static struct res fail1(struct ctx *c, const char *etype, const char *text)
{
    struct res r = {false, false, etype, NULL};
    add_error(c, &r, forge_py_strz(c->a, text));
    return r;
}

/* ---- helpers on possible answers ---- */

static bool is_empty_str(const struct forge_pyval *v) { return v->kind == FORGE_PY_STR && v->n == 0; }

/* get_possible_answer_type: the type of the first answer that is not "" (T_NONE if none). */
static enum pt answer_type(const struct forge_pyval *answers)
{
    if (answers->kind != FORGE_PY_LIST)
        return T_NONE;
    for (size_t i = 0; i < answers->n; i++)
        if (!is_empty_str(answers->u.items[i]))
            return type_of(answers->u.items[i]);
    return T_NONE;
}

/* Python's `"" in x` for the shapes a possible answer takes. */
static bool has_optional_marker(const struct forge_pyval *x)
{
    if (x->kind == FORGE_PY_STR)
        return true; /* "" is a substring of every string */
    if (x->kind == FORGE_PY_DICT)
        return forge_py_get(x, "", 0) != NULL;
    if (x->kind != FORGE_PY_LIST)
        return false;
    for (size_t i = 0; i < x->n; i++)
        if (is_empty_str(x->u.items[i]))
            return true;
    return false;
}

static struct forge_pyval *std_str(struct ctx *c, const struct forge_pyval *s)
{
    struct forge_pyval *v = forge_bfcl_standardize(c->a, s->u.s, s->n);
    if (!v)
        set_rc(c, FORGE_ENOMEM);
    return v;
}

/* [standardize(x) if str else x for x in seq]; a string iterates as its characters. */
static struct forge_pyval *std_items(struct ctx *c, const struct forge_pyval *seq)
{
    struct forge_pyval *out = forge_py_list(c->a, seq->n);
    if (!out) {
        set_rc(c, FORGE_ENOMEM);
        return NULL;
    }
    if (seq->kind == FORGE_PY_LIST) {
        for (size_t i = 0; i < seq->n; i++) {
            struct forge_pyval *x = seq->u.items[i];
            struct forge_pyval *y = x->kind == FORGE_PY_STR ? std_str(c, x) : x;
            if (!y || forge_py_append(c->a, out, y)) {
                set_rc(c, FORGE_ENOMEM);
                return NULL;
            }
        }
    } else if (seq->kind == FORGE_PY_STR) {
        for (size_t i = 0; i < seq->n;) {
            size_t j = i + 1;
            while (j < seq->n && ((unsigned char)seq->u.s[j] & 0xC0) == 0x80)
                j++;
            struct forge_pyval *y = forge_bfcl_standardize(c->a, seq->u.s + i, j - i);
            if (!y || forge_py_append(c->a, out, y)) {
                set_rc(c, FORGE_ENOMEM);
                return NULL;
            }
            i = j;
        }
    }
    return out;
}

/* ---- the checkers ---- */

static struct res type_checker(struct ctx *c, const struct forge_pyval *param,
                               const struct forge_pyval *value, const struct forge_pyval *answers,
                               const char *desc, enum pt expected, enum pt nested, bool messages)
{
    struct res r = {true, false, "type_error:simple", NULL};
    enum pt pat = answer_type(answers);
    bool is_variable = pat != T_NONE && pat != expected;
    enum pt vt = type_of(value);
    if (vt == expected) {
        if (nested == T_NONE) {
            r.is_variable = is_variable;
            return r;
        }
        for (size_t i = 0; answers->kind == FORGE_PY_LIST && i < answers->n; i++) {
            const struct forge_pyval *item = answers->u.items[i];
            bool flag = true;
            if (item->kind == FORGE_PY_LIST) {
                for (size_t k = 0; k < value->n; k++) {
                    struct res sub = type_checker(c, param, value->u.items[k], item,
                                                  class_name(nested), nested, T_NONE, false);
                    if (!sub.valid) {
                        flag = false;
                        break;
                    }
                }
            }
            if (flag) {
                struct res v = ok();
                v.is_variable = is_variable;
                return v;
            }
        }
        r.valid = false;
        r.etype = "type_error:nested";
        if (messages) {
            m_begin(c);
            m_s(c, "Nested type checking failed for parameter ");
            m_r(c, param);
            m_s(c, ". Expected outer type ");
            m_s(c, desc);
            m_s(c, " with inner type ");
            m_s(c, class_name(nested));
            m_s(c, ". Parameter value: ");
            m_r(c, value);
            m_s(c, ".");
            m_end(c, &r);
        }
    }
    if (pat != T_NONE && vt == pat) {
        r.is_variable = true;
        return r;
    }
    r.valid = false;
    if (messages) {
        m_begin(c);
        m_s(c, "Incorrect type for parameter ");
        m_r(c, param);
        m_s(c, ". Expected type ");
        m_s(c, desc);
        m_s(c, ", got ");
        m_s(c, forge_py_type_name(value));
        m_s(c, ". Parameter value: ");
        m_r(c, value);
        m_s(c, ".");
        m_end(c, &r);
    }
    r.etype = "type_error:simple";
    return r;
}

static struct res string_checker(struct ctx *c, const struct forge_pyval *param,
                                 const struct forge_pyval *value, const struct forge_pyval *answers)
{
    struct forge_pyval *sv = std_str(c, value);
    if (!sv)
        return ok();
    for (size_t i = 0; answers->kind == FORGE_PY_LIST && i < answers->n; i++) {
        const struct forge_pyval *x = answers->u.items[i];
        if (x->kind != FORGE_PY_STR)
            continue;
        struct forge_pyval *sx = std_str(c, x);
        if (sx && forge_py_eq(sv, sx))
            return ok();
    }
    struct res r = {false, false, "value_error:string", NULL};
    m_begin(c);
    m_s(c, "Invalid value for parameter ");
    m_r(c, param);
    m_expected(c, &r, value, answers, ". Case insensitive.");
    return r;
}

static struct res list_checker(struct ctx *c, const struct forge_pyval *param,
                               const struct forge_pyval *value, const struct forge_pyval *answers)
{
    struct forge_pyval *sv = std_items(c, value);
    if (!sv)
        return ok();
    for (size_t i = 0; answers->kind == FORGE_PY_LIST && i < answers->n; i++) {
        const struct forge_pyval *alt = answers->u.items[i];
        if (alt->kind != FORGE_PY_LIST && alt->kind != FORGE_PY_STR &&
            !(alt->kind == FORGE_PY_DICT && alt->n == 0))
            continue; /* BFCL would raise on these; they never match */
        struct forge_pyval *sa = alt->kind == FORGE_PY_DICT ? forge_py_list(c->a, 0) : std_items(c, alt);
        if (!sa)
            return ok();
        if (forge_py_eq(sv, sa))
            return ok();
    }
    struct res r = {false, false, "value_error:list/tuple", NULL};
    m_begin(c);
    m_s(c, "Invalid value for parameter ");
    m_r(c, param);
    m_expected(c, &r, value, answers, ".");
    return r;
}

static bool contains(const char *hay, size_t n, const char *needle, size_t m)
{
    if (m == 0)
        return true;
    for (size_t i = 0; i + m <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, m) == 0)
            return true;
    return false;
}

/* `key in alt` for a dict alternative (other shapes follow Python's `in`). */
static bool alt_has_key(const struct forge_pyval *alt, const struct forge_pyitem *kv)
{
    if (alt->kind == FORGE_PY_DICT)
        return forge_py_get(alt, kv->key, kv->klen) != NULL;
    if (alt->kind == FORGE_PY_STR)
        return contains(alt->u.s, alt->n, kv->key, kv->klen);
    if (alt->kind == FORGE_PY_LIST) {
        struct forge_pyval k = {FORGE_PY_STR, (uint32_t)kv->klen, {.s = kv->key}};
        return forge_py_in(&k, alt);
    }
    return false;
}

/* dict_checker over <nanswers> alternatives. */
static struct res dict_checker(struct ctx *c, const struct forge_pyval *value, size_t nanswers,
                               struct forge_pyval *const *answer_items)
{
    struct res r = {false, false, "dict_checker:unclear", NULL};
    for (size_t i = 0; i < nanswers; i++) {
        const struct forge_pyval *alt = answer_items[i];
        if (is_empty_str(alt))
            continue;
        r = (struct res){false, false, "dict_checker:unclear", NULL};
        bool flag = true;
        for (size_t k = 0; value->kind == FORGE_PY_DICT && k < value->n; k++) {
            const struct forge_pyitem *kv = &value->u.pairs[k];
            if (!alt_has_key(alt, kv)) {
                m_begin(c);
                m_s(c, "Unexpected dict key parameter: '");
                m_raw(c, kv->key, kv->klen);
                m_s(c, "'.");
                m_end(c, &r);
                r.etype = "value_error:dict_key";
                flag = false;
                break;
            }
            const struct forge_pyval *sv = kv->val;
            if (sv->kind == FORGE_PY_STR && !(sv = std_str(c, sv)))
                return ok();
            const struct forge_pyval *accepted = forge_py_get(alt, kv->key, kv->klen);
            struct forge_pyval *sa = accepted ? std_items(c, accepted) : forge_py_list(c->a, 0);
            if (!sa)
                return ok();
            if (!forge_py_in(sv, sa)) {
                m_begin(c);
                m_s(c, "Invalid value for parameter ");
                m_rs(c, kv->key, kv->klen);
                m_expected(c, &r, kv->val, sa, ".");
                r.etype = "value_error:dict_value";
                flag = false;
                break;
            }
        }
        for (size_t k = 0; alt->kind == FORGE_PY_DICT && k < alt->n; k++) {
            const struct forge_pyitem *kv = &alt->u.pairs[k];
            if (!forge_py_get(value, kv->key, kv->klen) && !has_optional_marker(kv->val)) {
                m_begin(c);
                m_s(c, "Missing dict key parameter: '");
                m_raw(c, kv->key, kv->klen);
                m_s(c, "'.");
                m_end(c, &r);
                r.etype = "value_error:dict_key";
                flag = false;
                break;
            }
        }
        if (flag)
            return ok();
    }
    return r;
}

/* len() and [k] of a list-of-dicts alternative. */
static size_t alt_len(const struct forge_pyval *alt)
{
    if (alt->kind == FORGE_PY_LIST || alt->kind == FORGE_PY_DICT)
        return alt->n;
    if (alt->kind == FORGE_PY_STR) {
        size_t n = 0;
        for (size_t i = 0; i < alt->n; i++)
            if (((unsigned char)alt->u.s[i] & 0xC0) != 0x80)
                n++;
        return n;
    }
    return (size_t)-1;
}

static struct res list_dict_checker(struct ctx *c, const struct forge_pyval *param,
                                    const struct forge_pyval *value, const struct forge_pyval *answers)
{
    struct res r = {false, false, "list_dict_checker:unclear", NULL};
    for (size_t i = 0; answers->kind == FORGE_PY_LIST && i < answers->n; i++) {
        const struct forge_pyval *alt = answers->u.items[i];
        bool flag = true;
        if (value->n != alt_len(alt)) {
            r = fail1(c, "value_error:list_dict_count", "Wrong number of dictionaries in the list.");
            continue;
        }
        for (size_t k = 0; k < value->n; k++) {
            struct forge_pyval *one = alt->kind == FORGE_PY_LIST ? alt->u.items[k] : NULL;
            if (!one) {
                /* BFCL raises here (it indexes a string answer) */
                bad(c, "parameter '%s' has a string where its possible answer needs a list of dicts",
                    param->u.s);
                return ok();
            }
            r = dict_checker(c, value->u.items[k], 1, &one);
            if (!r.valid) {
                flag = false;
                break;
            }
        }
        if (flag)
            return ok();
    }
    return r;
}

static const char *func_name_of(const struct forge_pyval *fdesc)
{
    const struct forge_pyval *n = forge_py_getz(fdesc, "name");
    return n && n->kind == FORGE_PY_STR ? n->u.s : NULL;
}

static struct res simple_checker(struct ctx *c, const struct forge_pyval *fdesc,
                                 const struct forge_pyval *call, const struct forge_pyval *expected)
{
    struct res r = ok();
    if (expected->kind != FORGE_PY_DICT || expected->n == 0) {
        bad(c, "a possible answer call is not a {name: {param: [values]}} object%s", "");
        return r;
    }
    const struct forge_pyval *answer = expected->u.pairs[0].val;
    const char *fname = func_name_of(fdesc);
    const struct forge_pyval *params = forge_py_getz(fdesc, "parameters");
    const struct forge_pyval *props = forge_py_getz(params, "properties");
    const struct forge_pyval *required = forge_py_getz(params, "required");
    if (!fname || !props || props->kind != FORGE_PY_DICT || answer->kind != FORGE_PY_DICT) {
        bad(c, "function doc %s lacks a name or parameters.properties, or its answer is not an object",
            fname ? fname : "(unnamed)");
        return r;
    }
    /* convert_func_name */
    size_t flen = strlen(fname);
    char *name = forge_arena_alloc(c->a, flen + 1);
    if (!name) {
        set_rc(c, FORGE_ENOMEM);
        return r;
    }
    memcpy(name, fname, flen + 1);
    if (c->u2d)
        for (char *p = name; *p; p++)
            if (*p == '.')
                *p = '_';
    const struct forge_pyval *model_params = forge_py_get(call, name, flen);
    if (!model_params) {
        r = (struct res){false, false, "simple_function_checker:wrong_func_name", NULL};
        m_begin(c);
        m_s(c, "Function name ");
        m_rs(c, name, flen);
        m_s(c, " not found in model output.");
        m_end(c, &r);
        return r;
    }
    for (size_t i = 0; required && required->kind == FORGE_PY_LIST && i < required->n; i++) {
        const struct forge_pyval *p = required->u.items[i];
        if (p->kind == FORGE_PY_STR && forge_py_get(model_params, p->u.s, p->n))
            continue;
        r = (struct res){false, false, "simple_function_checker:missing_required", NULL};
        m_begin(c);
        m_s(c, "Missing required parameter: ");
        m_r(c, p);
        m_s(c, ".");
        m_end(c, &r);
        return r;
    }
    for (size_t i = 0; i < model_params->n; i++) {
        const struct forge_pyitem *kv = &model_params->u.pairs[i];
        struct forge_pyval pname = {FORGE_PY_STR, (uint32_t)kv->klen, {.s = kv->key}};
        const struct forge_pyval *pd = forge_py_get(props, kv->key, kv->klen);
        const struct forge_pyval *accepted = forge_py_get(answer, kv->key, kv->klen);
        if (!pd || !accepted) {
            r = (struct res){false, false, "simple_function_checker:unexpected_param", NULL};
            m_begin(c);
            m_s(c, "Unexpected parameter: ");
            m_r(c, &pname);
            m_s(c, ".");
            m_end(c, &r);
            return r;
        }
        const struct forge_pyval *tdesc = forge_py_getz(pd, "type");
        if (!tdesc || tdesc->kind != FORGE_PY_STR) {
            bad(c, "parameter '%s' has no \"type\" in the function doc", kv->key);
            return ok();
        }
        const char *desc = tdesc->u.s;
        enum pt expected_t = lookup_type(c->lang, desc);
        if (expected_t == T_NONE) {
            bad(c, "parameter type '%s' is not one BFCL knows for this language", desc);
            return ok();
        }
        enum pt nested_t = T_NONE;
        const char *nested_desc = NULL;
        const struct forge_pyval *value = kv->val;
        bool wants_items = c->lang == FORGE_BFCL_PYTHON
                               ? (!strcmp(desc, "array") || !strcmp(desc, "tuple"))
                               : (!strcmp(desc, "Array") || !strcmp(desc, "ArrayList") ||
                                  !strcmp(desc, "array"));
        if (wants_items) {
            const struct forge_pyval *it = forge_py_getz(forge_py_getz(pd, "items"), "type");
            if (!it || it->kind != FORGE_PY_STR) {
                bad(c, "array parameter '%s' has no items.type in the function doc", kv->key);
                return ok();
            }
            nested_desc = it->u.s;
            nested_t = lookup_type(c->lang, nested_desc);
            if (nested_t == T_NONE) {
                bad(c, "items type '%s' is not one BFCL knows for this language", nested_desc);
                return ok();
            }
        }
        if (c->lang != FORGE_BFCL_PYTHON) {
            if (value->kind != FORGE_PY_STR) {
                r = (struct res){false, false,
                                 c->lang == FORGE_BFCL_JAVA ? "type_error:java" : "type_error:js", NULL};
                m_begin(c);
                m_s(c, "Incorrect type for parameter ");
                m_r(c, &pname);
                m_s(c, ". Expected type String, got ");
                m_s(c, forge_py_type_name(value));
                m_s(c, ". Parameter value: ");
                m_r(c, value);
                m_s(c, ".");
                m_end(c, &r);
                return r;
            }
            value = c->lang == FORGE_BFCL_JAVA
                        ? forge_bfcl_java_value(c->b, c->a, value->u.s, value->n, desc, nested_desc)
                        : forge_bfcl_js_value(c->b, c->a, value->u.s, value->n, desc, nested_desc);
            if (!value) {
                set_rc(c, FORGE_ENOMEM);
                return ok();
            }
        } else if (!strcmp(desc, "float") &&
                   (value->kind == FORGE_PY_INT || value->kind == FORGE_PY_BIGINT)) {
            value = forge_py_float(c->a, value->kind == FORGE_PY_INT ? (double)value->u.i
                                                                     : strtod(value->u.s, NULL));
            if (!value) {
                set_rc(c, FORGE_ENOMEM);
                return ok();
            }
        }
        struct res tc = type_checker(c, &pname, value, accepted, desc, expected_t, nested_t, true);
        if (!tc.valid)
            return tc;
        if (!tc.is_variable) {
            struct res vr;
            bool handled = true;
            if (expected_t == T_DICT)
                vr = dict_checker(c, value, accepted->kind == FORGE_PY_LIST ? accepted->n : 0,
                                  accepted->kind == FORGE_PY_LIST ? accepted->u.items : NULL);
            else if (expected_t == T_LIST && nested_t == T_DICT)
                vr = list_dict_checker(c, &pname, value, accepted);
            else if (expected_t == T_STR)
                vr = string_checker(c, &pname, value, accepted);
            else if (expected_t == T_LIST)
                vr = list_checker(c, &pname, value, accepted);
            else
                handled = false;
            if (handled) {
                if (!vr.valid)
                    return vr;
                continue;
            }
        }
        if (!forge_py_in(value, accepted)) {
            r = (struct res){false, false, "value_error:others", NULL};
            m_begin(c);
            m_s(c, "Invalid value for parameter ");
            m_r(c, &pname);
            m_expected(c, &r, value, accepted, ".");
            return r;
        }
    }
    for (size_t i = 0; i < answer->n; i++) {
        const struct forge_pyitem *kv = &answer->u.pairs[i];
        if (forge_py_get(model_params, kv->key, kv->klen) || has_optional_marker(kv->val))
            continue;
        r = (struct res){false, false, "simple_function_checker:missing_optional", NULL};
        m_begin(c);
        m_s(c, "Optional parameter ");
        m_rs(c, kv->key, kv->klen);
        m_s(c, " not provided and not marked as optional.");
        m_end(c, &r);
        return r;
    }
    return r;
}

/* find_description: the doc named <name>, or the doc itself when <functions> is one object. */
static const struct forge_pyval *find_description(struct ctx *c, const struct forge_pyval *functions,
                                                  const struct forge_pyitem *expected)
{
    if (functions->kind == FORGE_PY_DICT)
        return functions;
    for (size_t i = 0; functions->kind == FORGE_PY_LIST && i < functions->n; i++) {
        const struct forge_pyval *n = forge_py_getz(functions->u.items[i], "name");
        if (n && n->kind == FORGE_PY_STR && n->n == expected->klen &&
            memcmp(n->u.s, expected->key, n->n) == 0)
            return functions->u.items[i];
    }
    bad(c, "the possible answer calls '%s', which the question's functions do not define", expected->key);
    return NULL;
}

static const struct forge_pyitem *first_pair(struct ctx *c, const struct forge_pyval *call)
{
    if (call->kind != FORGE_PY_DICT || call->n == 0) {
        bad(c, "a possible answer call is not a {name: {param: [values]}} object%s", "");
        return NULL;
    }
    return &call->u.pairs[0];
}

static struct res parallel_checker(struct ctx *c, const struct forge_pyval *functions,
                                   const struct forge_pyval *output, const struct forge_pyval *answers)
{
    if (output->n != answers->n)
        return fail1(c, "parallel_function_checker_no_order:wrong_count", "Wrong number of functions.");
    bool *matched = forge_arena_alloc(c->a, output->n + 1);
    if (!matched) {
        set_rc(c, FORGE_ENOMEM);
        return ok();
    }
    memset(matched, 0, output->n + 1);
    struct res result = ok();
    for (size_t i = 0; i < answers->n; i++) {
        const struct forge_pyitem *exp = first_pair(c, answers->u.items[i]);
        const struct forge_pyval *fdesc = exp ? find_description(c, functions, exp) : NULL;
        if (!fdesc)
            return ok();
        struct forge_pyval *all_errors = forge_py_list(c->a, 4);
        if (!all_errors) {
            set_rc(c, FORGE_ENOMEM);
            return ok();
        }
        for (size_t idx = 0; idx < output->n; idx++) {
            if (matched[idx])
                continue;
            result = simple_checker(c, fdesc, output->u.items[idx], answers->u.items[i]);
            if (c->rc)
                return ok();
            if (result.valid) {
                matched[idx] = true;
                break;
            }
            /* {"Model Result Index <idx>": {sub_error, sub_error_type, model_output_item,
             *  possible_answer_item}} */
            struct forge_pyval *inner = forge_py_dict(c->a, 4);
            struct forge_pyval *outer = forge_py_dict(c->a, 1);
            struct forge_pyval *et = forge_py_strz(c->a, result.etype);
            char key[64];
            int kn = snprintf(key, sizeof key, "Model Result Index %zu", idx);
            char *k = forge_arena_alloc(c->a, (size_t)kn + 1);
            struct forge_pyval *errs = result.errors ? result.errors : forge_py_list(c->a, 0);
            if (!inner || !outer || !et || !k || !errs) {
                set_rc(c, FORGE_ENOMEM);
                return ok();
            }
            memcpy(k, key, (size_t)kn + 1);
            if (forge_py_set(c->a, inner, "sub_error", 9, errs) ||
                forge_py_set(c->a, inner, "sub_error_type", 14, et) ||
                forge_py_set(c->a, inner, "model_output_item", 17, output->u.items[idx]) ||
                forge_py_set(c->a, inner, "possible_answer_item", 20, answers->u.items[i]) ||
                forge_py_set(c->a, outer, k, (size_t)kn, inner) ||
                forge_py_append(c->a, all_errors, outer)) {
                set_rc(c, FORGE_ENOMEM);
                return ok();
            }
        }
        if (!result.valid) {
            struct res r = {false, false, "parallel_function_checker_no_order:cannot_find_match", NULL};
            m_begin(c);
            m_s(c, "Could not find a matching function among index [");
            bool first = true;
            for (size_t k = 0; k < output->n; k++) {
                if (matched[k])
                    continue;
                char num[32];
                snprintf(num, sizeof num, first ? "%zu" : ", %zu", k);
                m_s(c, num);
                first = false;
            }
            char tail[96];
            snprintf(tail, sizeof tail, "] of model output for index %zu of possible answers.", i);
            m_s(c, tail);
            struct forge_pyval *head = m_take(c);
            struct forge_pyval *list = forge_py_list(c->a, all_errors->n + 1);
            if (!head || !list || forge_py_append(c->a, list, head)) {
                set_rc(c, FORGE_ENOMEM);
                return ok();
            }
            for (size_t k = 0; k < all_errors->n; k++)
                if (forge_py_append(c->a, list, all_errors->u.items[k])) {
                    set_rc(c, FORGE_ENOMEM);
                    return ok();
                }
            r.errors = list;
            return r;
        }
    }
    return ok();
}

int forge_bfcl_check(struct forge_bfcl *b, struct forge_arena *a, const char *category,
                     bool underscore_to_dot, const struct forge_pyval *functions,
                     const struct forge_pyval *decoded, const struct forge_pyval *ground_truth,
                     struct forge_bfcl_verdict *out, struct forge_err *err)
{
    struct ctx c = {b, a, forge_bfcl_category_lang(category), underscore_to_dot, err, {0}, 0};
    forge_buf_init(&c.msg, 0);
    struct res r = ok();
    if (!functions || !decoded || !ground_truth || decoded->kind != FORGE_PY_LIST ||
        ground_truth->kind != FORGE_PY_LIST ||
        (functions->kind != FORGE_PY_LIST && functions->kind != FORGE_PY_DICT)) {
        bad(&c, "the question's \"function\", the decoded output and \"ground_truth\" must be lists%s", "");
    } else if (strstr(category, "parallel")) {
        r = parallel_checker(&c, functions, decoded, ground_truth);
    } else if (strstr(category, "multiple")) {
        if (decoded->n != ground_truth->n) {
            r = fail1(&c, "multiple_function_checker:wrong_count", "Wrong number of functions.");
        } else if (ground_truth->n == 0) {
            bad(&c, "the possible answer lists no call%s", "");
        } else {
            const struct forge_pyitem *exp = first_pair(&c, ground_truth->u.items[0]);
            const struct forge_pyval *fdesc = exp ? find_description(&c, functions, exp) : NULL;
            if (fdesc)
                r = simple_checker(&c, fdesc, decoded->u.items[0], ground_truth->u.items[0]);
        }
    } else {
        if (decoded->n != 1) {
            r = fail1(&c, "simple_function_checker:wrong_count", "Wrong number of functions.");
        } else if (ground_truth->n == 0 ||
                   (functions->kind == FORGE_PY_LIST && functions->n == 0)) {
            bad(&c, "the question has no function or the possible answer no call%s", "");
        } else {
            const struct forge_pyval *fdesc =
                functions->kind == FORGE_PY_LIST ? functions->u.items[0] : functions;
            r = simple_checker(&c, fdesc, decoded->u.items[0], ground_truth->u.items[0]);
        }
    }
    forge_buf_free(&c.msg);
    if (c.rc)
        return c.rc;
    out->valid = r.valid;
    out->error_type = r.valid ? NULL : r.etype;
    out->error = r.valid ? NULL : r.errors;
    if (!r.valid && !out->error) {
        out->error = forge_py_list(a, 0);
        if (!out->error)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    return 0;
}

/* ---- decoding ---- */

int forge_bfcl_decode(struct forge_arena *a, const struct forge_pyval *result,
                      struct forge_pyval **decoded, char *msg, size_t msgsize)
{
    *decoded = NULL;
    struct forge_pyval *out = forge_py_list(a, result->kind == FORGE_PY_LIST ? result->n : 0);
    if (!out)
        return FORGE_ENOMEM;
    switch (result->kind) {
    case FORGE_PY_STR:
    case FORGE_PY_DICT:
        if (result->n) {
            /* iterating a string yields strings; iterating a dict yields its (string) keys */
            snprintf(msg, msgsize, "'str' object has no attribute 'keys'");
            return 1;
        }
        *decoded = out;
        return 0;
    case FORGE_PY_LIST: break;
    default:
        snprintf(msg, msgsize, "'%s' object is not iterable", forge_py_type_name(result));
        return 1;
    }
    for (size_t i = 0; i < result->n; i++) {
        const struct forge_pyval *call = result->u.items[i];
        if (call->kind != FORGE_PY_DICT) {
            snprintf(msg, msgsize, "'%s' object has no attribute 'keys'", forge_py_type_name(call));
            return 1;
        }
        if (call->n == 0) {
            snprintf(msg, msgsize, "list index out of range");
            return 1;
        }
        const struct forge_pyitem *kv = &call->u.pairs[0];
        if (kv->val->kind != FORGE_PY_STR) {
            snprintf(msg, msgsize, "the JSON object must be str, bytes or bytearray, not %s",
                     forge_py_type_name(kv->val));
            return 1;
        }
        struct forge_pyval *args;
        int rc = forge_py_loads(a, kv->val->u.s, kv->val->n, &args, msg, msgsize);
        if (rc == FORGE_ENOMEM)
            return rc;
        if (rc)
            return 1;
        struct forge_pyval *one = forge_py_dict(a, 1);
        if (!one || forge_py_set(a, one, kv->key, kv->klen, args) || forge_py_append(a, out, one))
            return FORGE_ENOMEM;
    }
    *decoded = out;
    return 0;
}

bool forge_bfcl_is_fc_format(const struct forge_pyval *d)
{
    if (d->kind != FORGE_PY_LIST)
        return false;
    for (size_t i = 0; i < d->n; i++) {
        const struct forge_pyval *item = d->u.items[i];
        if (item->kind != FORGE_PY_DICT || item->n != 1 || item->u.pairs[0].val->kind != FORGE_PY_DICT)
            return false;
    }
    return true;
}

bool forge_bfcl_is_empty_output(const struct forge_pyval *d)
{
    if (!forge_bfcl_is_fc_format(d))
        return true;
    if (d->n == 0)
        return true;
    return d->n == 1 && d->u.items[0]->n == 0;
}

/* ---- entries ---- */

struct rec {
    struct forge_arena *a;
    struct forge_pyval *d;
    int rc;
};

static void put(struct rec *r, const char *key, struct forge_pyval *v)
{
    if (r->rc)
        return;
    if (!v || forge_py_set(r->a, r->d, key, strlen(key), v))
        r->rc = FORGE_ENOMEM;
}

static struct forge_pyval *repr_str(struct forge_arena *a, const struct forge_pyval *v)
{
    struct forge_buf b;
    forge_buf_init(&b, 0);
    struct forge_pyval *s = NULL;
    if (forge_py_str_of(&b, v) == 0)
        s = forge_py_str(a, b.data ? b.data : "", b.len);
    forge_buf_free(&b);
    return s;
}

static struct forge_pyval *strlist1(struct forge_arena *a, const char *s)
{
    struct forge_pyval *l = forge_py_list(a, 1);
    struct forge_pyval *v = forge_py_strz(a, s);
    if (!l || !v || forge_py_append(a, l, v))
        return NULL;
    return l;
}

int forge_bfcl_entry(struct forge_bfcl *b, struct forge_arena *a, const char *category,
                     const char *model_name, bool underscore_to_dot,
                     const struct forge_pyval *result_entry, const struct forge_pyval *question,
                     const struct forge_pyval *answer, struct forge_pyval **failure,
                     struct forge_err *err)
{
    *failure = NULL;
    struct forge_pyval *id = forge_py_getz(result_entry, "id");
    struct forge_pyval *raw = forge_py_getz(result_entry, "result");
    if (!id || !raw)
        return forge_err_set(err, FORGE_EINVAL, "a result line lacks \"id\" or \"result\"");
    char msg[512];
    struct forge_pyval *decoded = NULL;
    int drc = forge_bfcl_decode(a, raw, &decoded, msg, sizeof msg);
    if (drc < 0)
        return forge_err_set(err, drc, "out of memory");
    struct rec r = {a, forge_py_dict(a, 10), 0};
    if (!r.d)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    put(&r, "id", id);
    put(&r, "model_name", forge_py_strz(a, model_name));
    put(&r, "test_category", forge_py_strz(a, category));
    put(&r, "valid", forge_py_bool(a, false));

    if (forge_bfcl_category_is_relevance(category)) {
        bool contains_call = drc == 0 && !forge_bfcl_is_empty_output(decoded);
        bool irrelevance = strstr(category, "irrelevance") != NULL;
        if (irrelevance ? !contains_call : contains_call)
            return 0;
        put(&r, "prompt", (struct forge_pyval *)question);
        put(&r, "model_result", raw);
        put(&r, "decoded_result", drc == 0 ? decoded : forge_py_none(a));
        if (irrelevance) {
            put(&r, "error", strlist1(a, "Valid syntax. Successfully decode AST when it should not."));
            put(&r, "error_type", forge_py_strz(a, "irrelevance_error:decoder_success"));
        } else {
            char text[700];
            snprintf(text, sizeof text, "Invalid syntax. Failed to decode AST when it should have. %s",
                     drc == 0 ? "None" : msg);
            put(&r, "error", strlist1(a, text));
            put(&r, "error_type", forge_py_strz(a, "relevance_error:decoder_failed"));
        }
        if (r.rc)
            return forge_err_set(err, FORGE_ENOMEM, "out of memory");
        *failure = r.d;
        return 0;
    }

    struct forge_pyval *truth = forge_py_getz(answer, "ground_truth");
    struct forge_pyval *functions = forge_py_getz(question, "function");
    if (!truth || !functions)
        return forge_err_set(err, FORGE_EINVAL,
                             "the question lacks \"function\" or the possible answer \"ground_truth\"");
    if (drc == 1) {
        char text[700];
        snprintf(text, sizeof text, "Invalid syntax. Failed to decode AST. %s", msg);
        put(&r, "error", strlist1(a, text));
        put(&r, "error_type", forge_py_strz(a, "ast_decoder:decoder_failed"));
        put(&r, "prompt", (struct forge_pyval *)question);
        put(&r, "model_result_raw", raw);
        put(&r, "possible_answer", truth);
    } else if (!forge_bfcl_is_fc_format(decoded)) {
        put(&r, "error", strlist1(a, "Did not output in the specified format. Note: the model_result "
                                     "is wrapped in a string to ensure json serializability."));
        put(&r, "error_type", forge_py_strz(a, "ast_decoder:decoder_wrong_output_format"));
        put(&r, "prompt", (struct forge_pyval *)question);
        put(&r, "model_result_raw", repr_str(a, raw));
        put(&r, "model_result_decoded", repr_str(a, decoded));
        put(&r, "possible_answer", truth);
    } else {
        struct forge_bfcl_verdict v;
        int rc = forge_bfcl_check(b, a, category, underscore_to_dot, functions, decoded, truth, &v, err);
        if (rc)
            return rc;
        if (v.valid)
            return 0;
        put(&r, "error", v.error);
        put(&r, "error_type", forge_py_strz(a, v.error_type));
        put(&r, "prompt", (struct forge_pyval *)question);
        put(&r, "model_result_raw", raw);
        put(&r, "model_result_decoded", decoded);
        put(&r, "possible_answer", truth);
    }
    if (r.rc)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    *failure = r.d;
    return 0;
}

/* ---- files ---- */

struct jsonl {
    char *text;
    size_t len;
    struct forge_pyval **lines;
    struct span_info {
        size_t lineno, start, len;
        bool canonical; /* the line is exactly json.dumps of its value */
    } *info;
    size_t n;
};

static void jsonl_free(struct jsonl *j)
{
    forge_free(j->text);
    forge_free(j->lines);
    forge_free(j->info);
    memset(j, 0, sizeof(*j));
}

/* Reads a JSON Lines file into <a>: one value per non-blank line. Values point into j->text. */
static int jsonl_load(struct forge_arena *a, const char *path, size_t limit, struct jsonl *j,
                      struct forge_err *err)
{
    memset(j, 0, sizeof(*j));
    int rc = forge_file_read(path, limit, &j->text, &j->len, err);
    if (rc) {
        if (rc == FORGE_ELIMIT)
            forge_err_set(err, FORGE_ELIMIT,
                          "%s: file is larger than the %zu MiB input limit (raise it with "
                          "--max-file-mb)",
                          path, limit >> 20);
        return rc;
    }
    size_t cap = 64;
    j->lines = forge_malloc(cap * sizeof(*j->lines));
    j->info = forge_malloc(cap * sizeof(*j->info));
    if (!j->lines || !j->info)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    size_t pos = 0, lineno = 0;
    while (pos < j->len) {
        lineno++;
        const char *nl = memchr(j->text + pos, '\n', j->len - pos);
        size_t end = nl ? (size_t)(nl - j->text) : j->len;
        size_t b = pos, e = end;
        while (b < e && (j->text[b] == ' ' || j->text[b] == '\t' || j->text[b] == '\r'))
            b++;
        if (b < e) {
            char msg[200];
            struct forge_pyval *v;
            bool canonical = false;
            rc = forge_py_loads_inplace(a, j->text + pos, end - pos, &v, &canonical, msg, sizeof msg);
            if (rc == FORGE_ENOMEM)
                return forge_err_set(err, rc, "%s: out of memory", path);
            if (rc) {
                /* msg is "<what>: line 1 column C (char N)"; report file:line:col */
                const char *col = strstr(msg, " column ");
                char what[200];
                snprintf(what, sizeof what, "%s", msg);
                char *cut = strstr(what, ": line ");
                if (cut)
                    *cut = '\0';
                return forge_err_set(err, FORGE_EINVAL, "%s:%zu:%d: invalid JSON: %s", path, lineno,
                                     col ? atoi(col + 8) : 1, what);
            }
            if (j->n == cap) {
                cap *= 2;
                struct forge_pyval **nl2 = forge_realloc(j->lines, cap * sizeof(*nl2));
                if (nl2)
                    j->lines = nl2;
                struct span_info *in2 = nl2 ? forge_realloc(j->info, cap * sizeof(*in2)) : NULL;
                if (!in2)
                    return forge_err_set(err, FORGE_ENOMEM, "out of memory");
                j->info = in2;
            }
            j->lines[j->n] = v;
            j->info[j->n] = (struct span_info){lineno, pos, end - pos, canonical};
            j->n++;
        }
        pos = end + 1;
    }
    return 0;
}

/* Open-addressing index from "id" to question index. */
struct idmap {
    const struct forge_pyval **keys;
    size_t *vals;
    size_t cap;
};

static uint64_t hash_val(const struct forge_pyval *v)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)v->kind;
    if (v->kind == FORGE_PY_STR || v->kind == FORGE_PY_BIGINT) {
        for (size_t i = 0; i < v->n; i++)
            h = (h ^ (unsigned char)v->u.s[i]) * 1099511628211ull;
    } else if (v->kind == FORGE_PY_INT) {
        h = (h ^ (uint64_t)v->u.i) * 1099511628211ull;
    }
    return h;
}

static int idmap_init(struct idmap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2)
        m->cap *= 2;
    m->keys = forge_calloc(m->cap, sizeof(*m->keys));
    m->vals = forge_calloc(m->cap, sizeof(*m->vals));
    return m->keys && m->vals ? 0 : FORGE_ENOMEM;
}

static void idmap_free(struct idmap *m)
{
    forge_free(m->keys);
    forge_free(m->vals);
}

/* Returns the slot for <k>: occupied by an equal key, or empty. */
static size_t idmap_slot(const struct idmap *m, const struct forge_pyval *k)
{
    size_t i = (size_t)hash_val(k) & (m->cap - 1);
    while (m->keys[i] && !(m->keys[i]->kind == k->kind && forge_py_eq(m->keys[i], k)))
        i = (i + 1) & (m->cap - 1);
    return i;
}

struct forge_bfcl_data {
    char *category;
    char *questions_path;
    struct forge_arena arena;
    struct jsonl q, pa;
    struct idmap map;
    struct forge_pyval **prompt_json; /* per question: its JSON text, made on first use */
    struct forge_pyval **answer_json;
};

void forge_bfcl_data_free(struct forge_bfcl_data *d)
{
    if (!d)
        return;
    forge_free(d->category);
    forge_free(d->questions_path);
    jsonl_free(&d->q);
    jsonl_free(&d->pa);
    idmap_free(&d->map);
    forge_free(d->prompt_json);
    forge_free(d->answer_json);
    forge_arena_free(&d->arena);
    forge_free(d);
}

size_t forge_bfcl_data_count(const struct forge_bfcl_data *d) { return d->q.n; }

const struct forge_pyval *forge_bfcl_data_question(const struct forge_bfcl_data *d, size_t i)
{
    return i < d->q.n ? d->q.lines[i] : NULL;
}

int forge_bfcl_data_load(const char *category, const char *questions, const char *answers,
                         size_t file_limit, struct forge_bfcl_data **out, struct forge_err *err)
{
    *out = NULL;
    struct forge_bfcl_data *d = forge_calloc(1, sizeof(*d));
    if (!d)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    forge_arena_init(&d->arena, 0);
    int rc = 0;
    d->category = forge_strdup(category);
    d->questions_path = forge_strdup(questions);
    if (!d->category || !d->questions_path) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto out;
    }
    bool relevance = forge_bfcl_category_is_relevance(category);
    if ((rc = jsonl_load(&d->arena, questions, file_limit, &d->q, err)) != 0)
        goto out;
    if (!relevance && answers) {
        if ((rc = jsonl_load(&d->arena, answers, file_limit, &d->pa, err)) != 0)
            goto out;
        if (d->pa.n != d->q.n) {
            rc = forge_err_set(err, FORGE_EINVAL,
                               "%s has %zu entries but %s has %zu; they must match line by line",
                               answers, d->pa.n, questions, d->q.n);
            goto out;
        }
    }
    d->prompt_json = forge_calloc(d->q.n + 1, sizeof(*d->prompt_json));
    d->answer_json = forge_calloc(d->q.n + 1, sizeof(*d->answer_json));
    if (!d->prompt_json || !d->answer_json || idmap_init(&d->map, d->q.n)) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < d->q.n; i++) {
        struct forge_pyval *id = forge_py_getz(d->q.lines[i], "id");
        if (!id) {
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%zu: the question has no \"id\"", questions,
                               d->q.info[i].lineno);
            goto out;
        }
        size_t s = idmap_slot(&d->map, id);
        if (!d->map.keys[s]) {
            d->map.keys[s] = id;
            d->map.vals[s] = i;
        }
    }
out:
    if (rc)
        forge_bfcl_data_free(d);
    else
        *out = d;
    return rc;
}

/* The JSON text of <v> as a RAW value in <a>, made once and kept in *slot. A canonical source
 * line is copied back (its NULs were closing quotes) instead of serialized again. */
static struct forge_pyval *cached_json(struct forge_arena *a, struct forge_pyval **slot,
                                       const struct forge_pyval *v, struct forge_buf *tmp,
                                       const struct jsonl *src, size_t line)
{
    if (*slot)
        return *slot;
    if (src && src->info[line].canonical) {
        const struct span_info *in = &src->info[line];
        char *t = forge_arena_alloc(a, in->len + 1);
        struct forge_pyval *raw = t ? forge_arena_alloc(a, sizeof(*raw)) : NULL;
        if (!raw || in->len > UINT32_MAX)
            return NULL;
        memcpy(t, src->text + in->start, in->len);
        for (char *z = memchr(t, '\0', in->len); z; z = memchr(z + 1, '\0', in->len - (size_t)(z + 1 - t)))
            *z = '"';
        t[in->len] = '\0';
        raw->kind = FORGE_PY_RAW;
        raw->n = (uint32_t)in->len;
        raw->u.s = t;
        return *slot = raw;
    }
    forge_buf_reset(tmp);
    if (forge_py_dumps(tmp, v))
        return NULL;
    struct forge_pyval *raw = forge_py_str(a, tmp->data ? tmp->data : "", tmp->len);
    if (raw)
        raw->kind = FORGE_PY_RAW;
    return *slot = raw;
}

static void set_existing(struct forge_pyval *d, const char *key, struct forge_pyval *v)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < d->n; i++)
        if (d->u.pairs[i].klen == n && memcmp(d->u.pairs[i].key, key, n) == 0)
            d->u.pairs[i].val = v;
}

/* Writes a then b to <path> through a temporary file and a rename, like
 * forge_file_write_atomic, without joining them first. */
static int write_two(const char *path, const char *a, size_t an, const char *b, size_t bn,
                     struct forge_err *err)
{
    size_t pn = strlen(path);
    char *tmp = forge_malloc(pn + 16);
    if (!tmp)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    snprintf(tmp, pn + 16, "%s.tmp.%ld", path, (long)getpid());
    int rc = 0;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        rc = forge_err_set(err, FORGE_EIO, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    bool ok = fwrite(a, 1, an, f) == an && (bn == 0 || fwrite(b, 1, bn, f) == bn);
    if (fclose(f) != 0)
        ok = false;
    if (!ok) {
        rc = forge_err_set(err, FORGE_EIO, "cannot write %s: %s", tmp, strerror(errno));
        remove(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        rc = forge_err_set(err, FORGE_EIO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
    }
out:
    forge_free(tmp);
    return rc;
}

int forge_bfcl_score_results(struct forge_bfcl *b, struct forge_bfcl_data *d,
                             const struct forge_bfcl_file_opts *o, struct forge_bfcl_file_score *out,
                             struct forge_err *err)
{
    struct forge_arena rarena, scratch;
    forge_arena_init(&rarena, 0);
    forge_arena_init(&scratch, 0);
    struct jsonl res = {0};
    struct forge_buf tmp;
    struct forge_buf *fails = forge_bfcl_out_buf(b);
    fails->len = 0;
    forge_buf_init(&tmp, 0);
    bool *seen = NULL;
    bool relevance = forge_bfcl_category_is_relevance(d->category);
    size_t correct = 0;
    int rc = 0;
    if (!relevance && d->pa.n != d->q.n) {
        rc = forge_err_set(err, FORGE_EINVAL, "category %s needs its possible-answer file", d->category);
        goto out;
    }
    rc = jsonl_load(&rarena, o->results, o->file_limit, &res, err);
    if (rc)
        goto out;
    if (res.n == 0) {
        rc = forge_err_set(err, FORGE_EINVAL, "%s holds no results", o->results);
        goto out;
    }
    if (!(seen = forge_calloc(d->q.n + 1, 1))) {
        rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < res.n; i++) {
        struct forge_pyval *id = forge_py_getz(res.lines[i], "id");
        if (!id || !forge_py_getz(res.lines[i], "result")) {
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%zu: a result line needs \"id\" and \"result\"",
                               o->results, res.info[i].lineno);
            goto out;
        }
        size_t s = idmap_slot(&d->map, id);
        if (!d->map.keys[s]) {
            forge_buf_reset(&tmp);
            forge_py_repr(&tmp, id);
            rc = forge_err_set(err, FORGE_EINVAL, "%s:%zu: id %.200s is not in %s", o->results,
                               res.info[i].lineno, tmp.data ? tmp.data : "?", d->questions_path);
            goto out;
        }
        size_t qi = d->map.vals[s];
        seen[qi] = true;
        forge_arena_reset(&scratch);
        struct forge_pyval *failure;
        rc = forge_bfcl_entry(b, &scratch, d->category, o->model_name, o->underscore_to_dot,
                              res.lines[i], d->q.lines[qi], relevance ? NULL : d->pa.lines[qi],
                              &failure, err);
        if (rc) {
            forge_err_prefix(err, "%s:%zu", o->results, res.info[i].lineno);
            goto out;
        }
        if (!failure) {
            correct++;
            continue;
        }
        if (!o->score_out)
            continue;
        /* the question and its answer are the bulk of a record: serialize them once */
        struct forge_pyval *pj = cached_json(&d->arena, &d->prompt_json[qi], d->q.lines[qi], &tmp,
                                             &d->q, qi);
        struct forge_pyval *aj = relevance ? NULL
                                           : cached_json(&d->arena, &d->answer_json[qi],
                                                         forge_py_getz(d->pa.lines[qi], "ground_truth"),
                                                         &tmp, NULL, 0);
        if (!pj || (!relevance && !aj)) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory");
            goto out;
        }
        set_existing(failure, "prompt", pj);
        if (aj)
            set_existing(failure, "possible_answer", aj);
        if ((rc = forge_py_dumps(fails, failure)) != 0 || (rc = forge_buf_addc(fails, '\n')) != 0) {
            forge_err_set(err, rc, "score output: %s", forge_rc_name(rc));
            goto out;
        }
    }
    if (!o->partial) {
        for (size_t i = 0; i < d->q.n; i++)
            if (!seen[i]) {
                forge_buf_reset(&tmp);
                forge_py_repr(&tmp, forge_py_getz(d->q.lines[i], "id"));
                rc = forge_err_set(err, FORGE_EINVAL,
                                   "%s has no result for %.200s (line %zu of %s); score only the "
                                   "entries present with --partial",
                                   o->results, tmp.data ? tmp.data : "?", d->q.info[i].lineno, d->questions_path);
                goto out;
            }
    }
    out->correct = correct;
    out->total = res.n;
    out->accuracy = (double)correct / (double)res.n;
    if (o->score_out) {
        char acc[40], head[160];
        int hn = snprintf(head, sizeof head,
                          "{\"accuracy\": %s, \"correct_count\": %zu, \"total_count\": %zu}\n",
                          forge_py_float_repr(out->accuracy, acc), correct, res.n);
        rc = write_two(o->score_out, head, (size_t)hn, fails->data, fails->len, err);
    }
out:
    forge_buf_free(&tmp);
    forge_free(seen);
    jsonl_free(&res);
    forge_arena_free(&rarena);
    forge_arena_free(&scratch);
    return rc;
}

int forge_bfcl_score_file(struct forge_bfcl *b, const struct forge_bfcl_file_opts *o,
                          struct forge_bfcl_file_score *out, struct forge_err *err)
{
    struct forge_bfcl_data *d;
    int rc = forge_bfcl_data_load(o->category, o->questions, o->answers, o->file_limit, &d, err);
    if (rc)
        return rc;
    rc = forge_bfcl_score_results(b, d, o, out, err);
    forge_bfcl_data_free(d);
    return rc;
}
