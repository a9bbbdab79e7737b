/* Packed trees (runtime/data/jpack.c), which carry a forge.suite's cases through a temporary
 * file. Properties: unpacking any bytes gives a tree or NULL and never reads past them; a JSON
 * text that parses packs (or is refused, for the text to be used instead) and unpacks to the tree
 * its printed text parses to, node for node, with the printed text's length reported. */
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "data/jpack.h"
#include "data/json.h"
#include "fuzz.h"
#include "../support/same_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    /* any bytes: a copy of exactly their length, so a read past them is caught */
    char *raw = malloc(size ? size : 1);
    FUZZ_CHECK(raw, "alloc");
    memcpy(raw, data, size);
    cJSON_Delete(forge_junpack(raw, size));
    free(raw);

    cJSON *v = forge_json_parse((const char *)data, size, "input", NULL);
    if (!v)
        return 0;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    size_t json_len = 0;
    int rc = forge_jpack(v, &b, &json_len);
    FUZZ_CHECK(rc == 0 || rc == 1, "forge_jpack returned %d", rc);
    if (rc == 0) {
        char *text = cJSON_PrintUnformatted(v);
        FUZZ_CHECK(text, "print");
        FUZZ_CHECK(json_len == strlen(text), "packed length %zu, printed %zu", json_len, strlen(text));
        cJSON *want = forge_json_parse(text, strlen(text), "printed", NULL);
        cJSON *got = forge_junpack(b.data, b.len);
        FUZZ_CHECK(got, "a packed tree did not unpack");
        FUZZ_CHECK(want && same_tree(want, got), "unpacked tree differs from the printed text's: %s", text);
        /* a record cut short is refused */
        if (b.len > 1)
            FUZZ_CHECK(!forge_junpack(b.data, b.len - 1) || b.len - 1 == 0, "a cut record unpacked");
        cJSON_Delete(want);
        cJSON_Delete(got);
        cJSON_free(text);
    } else {
        FUZZ_CHECK(b.len == 0, "a refused tree left %zu bytes", b.len);
    }
    forge_buf_free(&b);
    cJSON_Delete(v);
    return 0;
}
