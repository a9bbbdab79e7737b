/* Parse-only ceiling for `forge check`: reads a JSONL file and parses (then frees) every line
 * with cJSON, nothing else, on N threads (each takes a newline-aligned slice of the file).
 * usage: parse_only FILE.jsonl [THREADS] */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

struct slice {
    const char *p, *end;
    long lines;
};

static void *run(void *arg)
{
    struct slice *s = arg;
    const char *p = s->p;
    while (p < s->end) {
        const char *nl = memchr(p, '\n', (size_t)(s->end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(s->end - p);
        cJSON *j = cJSON_ParseWithLength(p, n);
        if (j)
            s->lines++;
        cJSON_Delete(j);
        p += n + 1;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int nt = argc > 2 ? atoi(argv[2]) : 1;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st))
        return 2;
    const char *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
        return 2;
    struct slice sl[64];
    pthread_t th[64];
    const char *p = base, *end = base + st.st_size;
    for (int i = 0; i < nt && i < 64; i++) {
        const char *e = i == nt - 1 ? end : base + (size_t)st.st_size * (size_t)(i + 1) / (size_t)nt;
        if (e < p)
            e = p;
        const char *nl = e < end ? memchr(e, '\n', (size_t)(end - e)) : NULL;
        e = nl ? nl + 1 : end;
        sl[i] = (struct slice){p, e, 0};
        p = e;
        pthread_create(&th[i], NULL, run, &sl[i]);
    }
    long total = 0;
    for (int i = 0; i < nt && i < 64; i++) {
        pthread_join(th[i], NULL);
        total += sl[i].lines;
    }
    printf("%ld\n", total);
    return 0;
}
