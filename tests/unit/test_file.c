/* Unit tests for base/lines (the bounded line reader) and base/file (bounded whole reads). */
#define _GNU_SOURCE
#include "test.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *text(const char *s, size_t n)
{
    return fmemopen((void *)s, n, "r");
}

TEST(lines_split_and_keep_numbers)
{
    const char *s = "a\n\nbc\r\nlast";
    FILE *f = text(s, strlen(s));
    struct forge_lines r;
    forge_lines_init(&r, f, 10);
    const char *p;
    size_t n;
    CHECK_INT(forge_lines_next(&r, &p, &n), 1);
    CHECK(n == 1 && p[0] == 'a');
    CHECK_INT(forge_lines_next(&r, &p, &n), 1);
    CHECK_INT(n, 0);
    CHECK_INT(forge_lines_next(&r, &p, &n), 1);
    CHECK(n == 3 && memcmp(p, "bc\r", 3) == 0);
    CHECK_INT(forge_lines_next(&r, &p, &n), 1);
    CHECK(n == 4 && memcmp(p, "last", 4) == 0);
    CHECK_INT(r.lineno, 4);
    CHECK_INT(forge_lines_next(&r, &p, &n), 0);
    forge_lines_free(&r);
    fclose(f);
}

TEST(lines_refuse_a_long_line_while_reading)
{
    /* exactly the limit passes; one byte more fails, with or without a newline after it */
    const char *s = "12345\n123456\nnever read\n";
    FILE *f = text(s, strlen(s));
    struct forge_lines r;
    forge_lines_init(&r, f, 5);
    const char *p;
    size_t n;
    CHECK_INT(forge_lines_next(&r, &p, &n), 1);
    CHECK_INT(n, 5);
    CHECK_INT(forge_lines_next(&r, &p, &n), FORGE_ELIMIT);
    CHECK_INT(r.lineno, 2);
    CHECK_INT(forge_lines_next(&r, &p, &n), FORGE_ELIMIT);
    CHECK(r.cap <= 6);
    forge_lines_free(&r);
    fclose(f);
    /* an endless line: /dev/zero is refused after limit + 1 bytes */
    f = fopen("/dev/zero", "rb");
    CHECK(f != NULL);
    forge_lines_init(&r, f, 3u << 20);
    CHECK_INT(forge_lines_next(&r, &p, &n), FORGE_ELIMIT);
    CHECK_INT(r.lineno, 1);
    CHECK(r.cap == (3u << 20) + 1);
    forge_lines_free(&r);
    fclose(f);
}

TEST(lines_read_in_blocks)
{
    /* the same lines, numbers and refusals whatever the block size; a line longer than a block
     * still comes whole */
    char s[4000];
    size_t len = 0;
    unsigned x = 12345;
    for (int i = 0; i < 300 && len < sizeof s - 64; i++) {
        x = x * 1103515245u + 12345u;
        int n = (int)(x >> 16) % 23; /* lines of 0 to 22 bytes */
        for (int k = 0; k < n; k++)
            s[len++] = (char)('a' + (i + k) % 26);
        s[len++] = '\n';
    }
    memcpy(s + len, "1234567890123456789012345\nnot read", 35); /* 25 bytes: over the limit */
    len += 35;
    for (size_t block = 0; block <= 40; block += block < 9 ? 1 : 31) {
        FILE *a = text(s, len), *b = text(s, len);
        struct forge_lines ra, rb;
        forge_lines_init(&ra, a, 24);
        forge_lines_init(&rb, b, 24);
        rb.block = block;
        const char *pa, *pb;
        size_t na, nb;
        int ga, gb, lines = 0;
        size_t used = 0;
        do {
            ga = forge_lines_next(&ra, &pa, &na);
            gb = forge_lines_next(&rb, &pb, &nb);
            CHECK_INT(gb, ga);
            CHECK_INT(rb.lineno, ra.lineno);
            if (ga == 1 && gb == 1) {
                CHECK(na == nb && memcmp(pa, pb, na) == 0);
                lines++;
                /* no read went more than a block past the line's end */
                used += nb + 1;
                CHECK(block == 0 || (size_t)ftell(b) <= used + block);
            }
        } while (ga == 1 && gb == 1);
        CHECK_INT(gb, FORGE_ELIMIT);
        CHECK_INT(lines, (int)rb.lineno - 1);
        CHECK(rb.cap == 25);
        forge_lines_free(&ra);
        forge_lines_free(&rb);
        fclose(a);
        fclose(b);
    }
}

TEST(whole_reads_are_bounded)
{
    struct forge_err err = {0};
    char *t = NULL;
    size_t n = 0;
    CHECK_INT(forge_file_read("/dev/zero", 1000, &t, &n, &err), FORGE_ELIMIT);
    CHECK_STR(err.msg, "/dev/zero: file is larger than the 1000-byte limit");
    CHECK(t == NULL);
    CHECK_INT(forge_file_read(".", 1000, &t, &n, &err), FORGE_EIO);
    CHECK_STR(err.msg, ".: is a directory");
    /* a sparse regular file is refused from its size, before it is read */
    char path[] = "/tmp/forge-test-file-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)1 << 40) == 0);
    close(fd);
    CHECK_INT(forge_file_read(path, 1000, &t, &n, &err), FORGE_ELIMIT);
    CHECK_INT(forge_file_read_input(path, &t, &n, &err), FORGE_ELIMIT);
    char want[512];
    snprintf(want, sizeof want, "%s: file is larger than the 256 MiB input limit (raise it with "
             "--max-file-mb)", path);
    CHECK_STR(err.msg, want);
    forge_file_set_input_limit(1500);
    CHECK_INT(forge_file_input_limit(), 1500);
    CHECK_INT(forge_file_read_input("/dev/zero", &t, &n, &err), FORGE_ELIMIT);
    CHECK_STR(err.msg, "/dev/zero: file is larger than the 1500-byte input limit (raise it with "
                       "--max-file-mb)");
    forge_file_set_input_limit(0);
    CHECK_INT(forge_file_input_limit(), FORGE_FILE_LIMIT);
    /* at the limit exactly */
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite("0123456789", 1, 10, f) == 10);
    fclose(f);
    CHECK_INT(forge_file_read(path, 10, &t, &n, &err), 0);
    CHECK(n == 10 && strcmp(t, "0123456789") == 0);
    forge_free(t);
    CHECK_INT(forge_file_read(path, 9, &t, &n, &err), FORGE_ELIMIT);
    remove(path);
}

int main(void)
{
    RUN(lines_split_and_keep_numbers);
    RUN(lines_refuse_a_long_line_while_reading);
    RUN(lines_read_in_blocks);
    RUN(whole_reads_are_bounded);
    return TEST_DONE();
}
