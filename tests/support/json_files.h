/* The names of the .json files directly in a folder, sorted (for the conformance runners that
 * walk the JSON Schema Test Suite's folders). */
#ifndef FORGE_TESTS_JSON_FILES_H
#define FORGE_TESTS_JSON_FILES_H
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int json_files_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fills <names> (at most <max>, each to free()) and returns how many; 0 when <dir> cannot be
 * read. */
static inline int json_files(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json") && (names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, json_files_cmp);
    return n;
}
#endif
