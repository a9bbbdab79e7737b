/* Validations per second of forge's JSON Schema validator on the benchmark cases: each case
 * file holds a schema and "valid" and "invalid" instances. Instances are parsed once; the timed
 * loop is validation only (with error objects built for invalid instances, as ajv builds its
 * errors array). Prints one JSON line per case and set:
 *   {"case": NAME, "set": "valid"|"invalid", "per_sec": N}
 * usage: bench_schema first|all SECONDS CASE.json... */
#include "data/schema.h"
#include "data/json.h"
#include "base/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_schema first|all SECONDS CASE.json...\n");
        return 2;
    }
    bool all = !strcmp(argv[1], "all");
    double seconds = atof(argv[2]);
    for (int a = 3; a < argc; a++) {
        struct forge_err err;
        cJSON *c = forge_json_load(argv[a], &err);
        if (!c) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        struct forge_schema_opts o = {0};
        o.all_errors = all;
        struct forge_schema *s = forge_schema_compile(cJSON_GetObjectItem(c, "schema"), &o, &err);
        if (!s) {
            fprintf(stderr, "%s: %s\n", argv[a], err.msg);
            return 2;
        }
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        for (int set = 0; set < 2; set++) {
            const cJSON *insts = cJSON_GetObjectItem(c, set ? "invalid" : "valid");
            int n = cJSON_GetArraySize(insts);
            const cJSON *x;
            cJSON_ArrayForEach(x, insts) {
                int r = forge_schema_validate(s, x, NULL);
                if (r != !set) {
                    fprintf(stderr, "%s: an instance of the %s set validated as %d\n", name,
                            set ? "invalid" : "valid", r);
                    return 1;
                }
            }
            long long done = 0;
            uint64_t t0 = forge_clock_ns(), limit = (uint64_t)(seconds * 1e9), el;
            do {
                for (int rep = 0; rep < 200; rep++) {
                    cJSON_ArrayForEach(x, insts) {
                        cJSON *errors = NULL;
                        forge_schema_validate(s, x, set ? &errors : NULL);
                        cJSON_Delete(errors);
                    }
                    done += n;
                }
                el = forge_clock_ns() - t0;
            } while (el < limit);
            printf("{\"case\": \"%s\", \"set\": \"%s\", \"per_sec\": %.0f}\n", name,
                   set ? "invalid" : "valid", (double)done / ((double)el / 1e9));
        }
        forge_schema_free(s);
        cJSON_Delete(c);
    }
    return 0;
}
