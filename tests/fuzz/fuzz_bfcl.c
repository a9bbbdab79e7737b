/* BFCL result decoding and checking (runtime/score/bfcl.h). Input: one byte choosing the
 * category (and, with its high bit, a Java/JavaScript literal conversion instead), then as
 * Python-json texts: the result line, NUL, the question entry, NUL, the possible-answer entry.
 * Properties: forge_bfcl_entry succeeds or fails with FORGE_EINVAL and a message; a failure
 * record serializes; decoding alone answers 0 or 1 with a message. */
#include "base/buf.h"
#include "score/bfcl.h"
#include "score/pyval.h"
#include "fuzz.h"

static struct forge_bfcl *ctx;

static const char *const categories[] = {
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance"};
#define NCAT (sizeof categories / sizeof categories[0])

static const char *const types[] = {"any",      "boolean", "Boolean", "int",    "integer",
                                    "long",     "float",   "double",  "String", "string",
                                    "char",     "byte",    "short",   "array",  "Array",
                                    "ArrayList", "List",   "HashMap", "Map",    "dict",
                                    "object",   "Object",  "Hashtable", "Set",  "Date",
                                    "Integer",  "Long",    "Double",  "Float"};
#define NTYPES (sizeof types / sizeof types[0])

static struct forge_pyval *load(struct forge_arena *a, const struct fuzz_part *p)
{
    struct forge_pyval *v = NULL;
    char msg[256];
    if (forge_py_loads(a, p->p, p->n, &v, msg, sizeof msg) != 0)
        return NULL;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    struct forge_err err = {0};
    if (!ctx) {
        ctx = forge_bfcl_new(&err);
        FUZZ_CHECK(ctx, "bfcl_new: %s", err.msg);
    }
    struct forge_arena a;
    forge_arena_init(&a, (size_t)64 << 20);
    uint8_t sel = data[0];
    struct fuzz_part part[3];
    fuzz_split(data + 1, size - 1, part, 3);

    if (sel & 0x80) {
        /* Literal conversion: part 0 is the literal, the byte picks type and item type. */
        const char *type = types[sel % NTYPES];
        const char *nested = (sel & 0x40) ? types[(sel >> 1) % NTYPES] : NULL;
        struct forge_pyval *v = (sel & 0x20)
                                    ? forge_bfcl_js_value(ctx, &a, part[0].p, part[0].n, type, nested)
                                    : forge_bfcl_java_value(ctx, &a, part[0].p, part[0].n, type, nested);
        FUZZ_CHECK(v, "literal conversion returned NULL");
        struct forge_buf b;
        forge_buf_init(&b, 0);
        FUZZ_CHECK(forge_py_repr(&b, v) == 0, "repr");
        forge_buf_free(&b);
        forge_arena_free(&a);
        return 0;
    }

    const char *category = categories[sel % NCAT];
    struct forge_pyval *entry = load(&a, &part[0]);
    struct forge_pyval *question = load(&a, &part[1]);
    struct forge_pyval *answer = load(&a, &part[2]);
    if (entry) {
        struct forge_pyval *raw = forge_py_getz(entry, "result");
        if (raw) {
            struct forge_pyval *decoded = NULL;
            char msg[512];
            int rc = forge_bfcl_decode(&a, raw, &decoded, msg, sizeof msg);
            FUZZ_CHECK(rc == 0 || rc == 1, "decode: %d", rc);
            if (rc == 0) {
                FUZZ_CHECK(decoded, "decoded is NULL");
                (void)forge_bfcl_is_fc_format(decoded);
                (void)forge_bfcl_is_empty_output(decoded);
            } else {
                FUZZ_CHECK(memchr(msg, 0, sizeof msg), "decode message unterminated");
            }
        }
    }
    if (entry && question) {
        struct forge_pyval *failure = NULL;
        int rc = forge_bfcl_entry(ctx, &a, category, "fuzz-model", (sel & 0x40) != 0, entry,
                                  question, answer, &failure, &err);
        if (rc == 0) {
            if (failure) {
                struct forge_buf b;
                forge_buf_init(&b, 0);
                FUZZ_CHECK(forge_py_dumps(&b, failure) == 0, "dumps");
                forge_buf_free(&b);
            }
        } else {
            FUZZ_CHECK(rc == FORGE_EINVAL && err.msg[0], "%s: entry: %d %s", category, rc, err.msg);
        }
    }
    forge_arena_free(&a);
    return 0;
}
