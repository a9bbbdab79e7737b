/* Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.c). Each target defines
 * LLVMFuzzerTestOneInput; replay.c (or libFuzzer) calls it. Targets that take several inputs
 * split the bytes at NUL: JSON text never holds a raw NUL, so seeds stay readable. A target
 * reports a broken property with FUZZ_CHECK, which aborts so both libFuzzer and the replay
 * ctest fail loudly. */
#ifndef FORGE_TESTS_FUZZ_H
#define FORGE_TESTS_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                              \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: fuzz property broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* Inputs over this many bytes are ignored: the modules cap their inputs far above what a
 * fuzzer should spend time on. */
#define FUZZ_MAX_INPUT 65536

/* One part of the input: <n> bytes at <p>, copied into a NUL-terminated buffer. */
struct fuzz_part {
    const char *p;
    size_t n;
};

/* Splits <data> at NUL bytes into at most <max> parts (the last part takes the rest, NULs
 * included). Returns the number of parts (at least 1). */
static inline int fuzz_split(const uint8_t *data, size_t size, struct fuzz_part *parts, int max)
{
    int k = 0;
    size_t start = 0;
    for (size_t i = 0; i < size && k < max - 1; i++) {
        if (data[i] == 0) {
            parts[k].p = (const char *)data + start;
            parts[k].n = i - start;
            k++;
            start = i + 1;
        }
    }
    parts[k].p = (const char *)data + start;
    parts[k].n = size - start;
    for (int j = k + 1; j < max; j++) {
        parts[j].p = "";
        parts[j].n = 0;
    }
    return k + 1;
}

/* A NUL-terminated copy of a part (free with free()). */
static inline char *fuzz_strdup(const struct fuzz_part *part)
{
    char *s = malloc(part->n + 1);
    if (!s)
        abort();
    memcpy(s, part->p, part->n);
    s[part->n] = 0;
    return s;
}
#endif
