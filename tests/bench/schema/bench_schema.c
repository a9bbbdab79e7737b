/* Validations per second of forge's JSON Schema validator on the benchmark cases. A case file
 * holds a schema and "valid" and "invalid" instances, or "groups" of them (a mixed set: each
 * group its own schema, as the JSON Schema Test Suite's tests are). Instances are parsed once;
 * the timed loop is validation only, with the errors of invalid instances written out (into a
 * reused forge_schema_errors, as ajv fills its errors array). Prints one JSON line per case and
 * set:
 *   {"case": NAME, "set": "valid"|"invalid", "per_sec": N}
 * usage: bench_schema first|all|first-text|all-text[-verdict] SECONDS CASE.json...
 * Valid instances are checked with the error arena too, as forge_schema_validate (and so every
 * caller in forge: the CLI, the Lua binding, tool calls) checks every instance; with -verdict
 * they are checked without one (forge_schema_check(s, x, NULL), the C interface's verdict
 * alone). The -text modes also render each invalid instance's errors as text
 * (forge_schema_errors_render, what forge_schema_validate returns), as ajv builds its messages.
 * SECONDS may be xN: exactly N rounds of 200 passes (for instruction counts under callgrind);
 * CASE.json:valid or CASE.json:invalid runs one set only.
 * SECONDS "serve" (one CASE.json) runs on request, for a driver that alternates it with ajv's
 * process in short slices (run.sh): after checking the instances it prints "ready", then reads
 * lines "SET PASSES" (SET 0 valid, 1 invalid) and answers each with the nanoseconds that many
 * passes over the set took. */
#include "data/schema.h"
#include "data/json.h"
#include "base/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
    struct forge_schema *s;
    const cJSON *sets[2];
};

struct mode {
    bool text, arena;
    struct forge_schema_errors errs;
};

/* <passes> passes over set <set> (0 valid, 1 invalid) of the <ng> groups <g>. */
static void run(struct mode *m, const struct group *g, int ng, int set, long passes)
{
    const cJSON *x;
    for (long rep = 0; rep < passes; rep++)
        for (int i = 0; i < ng; i++)
            cJSON_ArrayForEach(x, g[i].sets[set]) {
                forge_schema_check(g[i].s, x, set || m->arena ? &m->errs : NULL);
                if (m->text)
                    forge_schema_errors_render(&m->errs);
            }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_schema first|all|first-text|all-text SECONDS|xROUNDS|serve CASE.json...\n");
        return 2;
    }
    bool all = !strncmp(argv[1], "all", 3);
    struct mode m = {strstr(argv[1], "-text") != NULL, strstr(argv[1], "-verdict") == NULL,
                     FORGE_SCHEMA_ERRORS_INIT};
    bool serve = !strcmp(argv[2], "serve");
    double seconds = atof(argv[2]);
    long rounds = argv[2][0] == 'x' ? atol(argv[2] + 1) : 0;
    if (serve && argc != 4) {
        fprintf(stderr, "bench_schema: serve takes one case file\n");
        return 2;
    }
    for (int a = 3; a < argc; a++) {
        struct forge_err err;
        char *colon = strrchr(argv[a], ':');
        int only = -1;
        if (colon && (!strcmp(colon, ":valid") || !strcmp(colon, ":invalid"))) {
            only = !strcmp(colon, ":invalid");
            *colon = 0;
        }
        cJSON *c = forge_json_load(argv[a], &err);
        if (!c) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        const cJSON *gs = cJSON_GetObjectItem(c, "groups");
        int ng = gs ? cJSON_GetArraySize(gs) : 1;
        struct group *g = calloc((size_t)ng, sizeof *g);
        if (!g)
            return 3;
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        for (int i = 0; i < ng; i++) {
            const cJSON *gc = gs ? cJSON_GetArrayItem(gs, i) : c;
            struct forge_schema_opts o = {0};
            o.all_errors = all;
            g[i].s = forge_schema_compile(cJSON_GetObjectItem(gc, "schema"), &o, &err);
            if (!g[i].s) {
                fprintf(stderr, "%s: group %d: %s\n", argv[a], i, err.msg);
                return 2;
            }
            g[i].sets[0] = cJSON_GetObjectItem(gc, "valid");
            g[i].sets[1] = cJSON_GetObjectItem(gc, "invalid");
        }
        for (int set = 0; set < 2; set++) {
            if (only >= 0 && set != only)
                continue;
            long n = 0;
            const cJSON *x;
            for (int i = 0; i < ng; i++) {
                n += cJSON_GetArraySize(g[i].sets[set]);
                cJSON_ArrayForEach(x, g[i].sets[set]) {
                    int r = forge_schema_check(g[i].s, x, set || m.arena ? &m.errs : NULL);
                    if (r != !set || (set && m.errs.n < 1)) {
                        fprintf(stderr, "%s: group %d: an instance of the %s set validated as %d\n",
                                name, i, set ? "invalid" : "valid", r);
                        return 1;
                    }
                }
            }
            if (serve)
                continue;
            long long done = 0;
            uint64_t t0 = forge_clock_ns(), limit = (uint64_t)(seconds * 1e9), el;
            long round = 0;
            do {
                run(&m, g, ng, set, 200);
                done += 200 * n;
                el = forge_clock_ns() - t0;
            } while (rounds ? ++round < rounds : el < limit);
            printf("{\"case\": \"%s\", \"set\": \"%s\", \"per_sec\": %.0f}\n", name,
                   set ? "invalid" : "valid", (double)done / ((double)el / 1e9));
        }
        if (serve) {
            char line[64];
            int set;
            long passes;
            printf("ready\n");
            fflush(stdout);
            while (fgets(line, sizeof line, stdin) && sscanf(line, "%d %ld", &set, &passes) == 2 &&
                   (set == 0 || set == 1) && passes > 0) {
                uint64_t t0 = forge_clock_ns();
                run(&m, g, ng, set, passes);
                printf("%llu\n", (unsigned long long)(forge_clock_ns() - t0));
                fflush(stdout);
            }
        }
        for (int i = 0; i < ng; i++)
            forge_schema_free(g[i].s);
        free(g);
        cJSON_Delete(c);
    }
    forge_schema_errors_free(&m.errs);
    return 0;
}
