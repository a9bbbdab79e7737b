/* What reading a stream costs beside reading the whole answer, parsing only (no network): per
 * dialect, the answer forge serve would send whole (dialect->answer) and streamed
 * (dialect->stream, 16-byte deltas), read N times each: JSON parse + parse, against assemble +
 * parse. Prints microseconds per answer and the ratio.
 * usage: bench_stream [N [DIALECT ANSWER]]   (ANSWER: text or calls)
 * With DIALECT and ANSWER it reads only that pair, in the functions read_whole and read_stream,
 * so that `valgrind --tool=callgrind` can count their instructions (tests/bench/probe/run.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "data/json.h"
#include "model/dialect.h"

static const char *const answers[][2] = {
    {"text", "{\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},\"finish_reason\":\"stop\","
             "\"usage\":{\"input_tokens\":10,\"output_tokens\":600}}"},
    {"calls", "{\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
              "{\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"unit\":\"celsius\",\"days\":5}},"
              "{\"id\":\"c2\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"London\",\"unit\":\"celsius\",\"days\":5}}]},"
              "\"finish_reason\":\"tool_calls\",\"usage\":{\"input_tokens\":10,\"output_tokens\":40}}"},
};

static const cJSON *req;

__attribute__((noinline)) static int read_whole(const struct forge_dialect *d, const char *wt, size_t wl, long n)
{
    struct forge_err err;
    for (long i = 0; i < n; i++) {
        cJSON *b = forge_json_parse(wt, wl, "body", &err), *r = NULL;
        if (!b || d->parse(req, b, &r, &err)) {
            fprintf(stderr, "%s: %s\n", d->name, err.msg);
            return 1;
        }
        cJSON_Delete(b);
        cJSON_Delete(r);
    }
    return 0;
}

__attribute__((noinline)) static int read_stream(const struct forge_dialect *d, const char *st, size_t sl, long n)
{
    struct forge_err err;
    for (long i = 0; i < n; i++) {
        struct forge_stream_marks mk;
        cJSON *b = NULL, *r = NULL;
        if (d->assemble(st, sl, &b, &mk, &err) || d->parse(req, b, &r, &err)) {
            fprintf(stderr, "%s: %s\n", d->name, err.msg);
            return 1;
        }
        cJSON_Delete(b);
        cJSON_Delete(r);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000;
    const char *only_d = argc > 3 ? argv[2] : NULL, *only_a = argc > 3 ? argv[3] : NULL;
    const struct forge_dialect *ds[] = {&forge_dialect_openai, &forge_dialect_openai_responses, &forge_dialect_anthropic,
                                        &forge_dialect_gemini, &forge_dialect_ollama};
    struct forge_buf text;
    forge_buf_init(&text, 0);
    for (int i = 0; i < 40; i++)
        forge_buf_adds(&text, "The weather in Paris is mild with a light breeze from the west. ");
    struct forge_err err;
    cJSON *rq = forge_json_parse("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                                 "\"stream_options\":{\"include_usage\":true}}", 78, "req", &err);
    req = rq;
    struct forge_answer_info info = {.model = "m", .id = "id1", .created = 1};
    if (!only_d) {
        printf("parsing only, %ld answers each: microseconds per answer\n", n);
        printf("%-18s %-6s %8s %8s %10s %10s %7s\n", "dialect", "answer", "whole B", "stream B", "whole us",
               "stream us", "ratio");
    }
    int rc = 0;
    for (size_t a = 0; a < 2; a++) {
        if (only_a && strcmp(only_a, answers[a][0]))
            continue;
        char *rt = forge_strdupf(answers[a][1], text.data);
        cJSON *resp = forge_json_parse(rt, strlen(rt), "resp", &err);
        for (size_t k = 0; k < 5; k++) {
            const struct forge_dialect *d = ds[k];
            if (only_d && strcmp(only_d, d->name))
                continue;
            cJSON *whole = NULL;
            struct forge_buf sb;
            forge_buf_init(&sb, 0);
            d->answer(req, resp, &info, &whole, &err);
            d->stream(req, resp, &info, &sb, &err);
            char *wt = cJSON_PrintUnformatted(whole);
            size_t wl = strlen(wt);
            double t0 = forge_clock_ms();
            rc |= read_whole(d, wt, wl, n);
            double t1 = forge_clock_ms();
            rc |= read_stream(d, sb.data, sb.len, n);
            double t2 = forge_clock_ms();
            double w = (t1 - t0) * 1000 / (double)n, s = (t2 - t1) * 1000 / (double)n;
            if (only_d)
                printf("%zu %zu\n", wl, sb.len);
            else
                printf("%-18s %-6s %8zu %8zu %10.1f %10.1f %6.2fx\n", d->name, answers[a][0], wl, sb.len, w, s,
                       s / w);
            cJSON_free(wt);
            cJSON_Delete(whole);
            forge_buf_free(&sb);
        }
        cJSON_Delete(resp);
        forge_free(rt);
    }
    cJSON_Delete(rq);
    forge_buf_free(&text);
    return rc;
}
