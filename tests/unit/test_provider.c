/* model/provider, cache, cassette and prices: options, opening, keys, storage. */
#include "test.h"
#include "base/alloc.h"
#include "base/file.h"
#include "data/json.h"
#include "model/cache.h"
#include "model/cassette.h"
#include "model/dialect.h"
#include "model/prices.h"
#include "model/provider.h"

#include <stdlib.h>
#include <unistd.h>

static char tmpdir[64];

TEST(sha256)
{
    char hex[65];
    forge_sha256_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    forge_sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    forge_sha256_hex(two, strlen(two), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    forge_sha256_hex(million, 1000000, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
}

TEST(cache)
{
    char a[65], b[65], c[65], d[65];
    forge_cache_key("openai", "http://x/v1", "m", "{}", a);
    forge_cache_key("openai", "http://y/v1", "m", "{}", b);
    forge_cache_key("anthropic", "http://x/v1", "m", "{}", c);
    forge_cache_key("openai", "http://x/v1", "m", "{\"a\":1}", d);
    CHECK(strcmp(a, b) && strcmp(a, c) && strcmp(a, d));
    /* Field boundaries matter: ("ab","c") differs from ("a","bc"). */
    char e1[65], e2[65];
    forge_cache_key("ab", "c", "m", "{}", e1);
    forge_cache_key("a", "bc", "m", "{}", e2);
    CHECK(strcmp(e1, e2) != 0);

    char dir[128];
    snprintf(dir, sizeof dir, "%s/cache", tmpdir);
    CHECK(forge_cache_get(dir, a) == NULL);
    struct forge_err err;
    cJSON *resp = cJSON_Parse("{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}");
    CHECK_INT(forge_cache_put(dir, a, resp, &err), 0);
    cJSON *got = forge_cache_get(dir, a);
    CHECK(got && forge_json_equal(got, resp));
    cJSON_Delete(got);
    CHECK(forge_cache_get(dir, b) == NULL);
    /* A corrupt entry is a miss. */
    char path[256];
    snprintf(path, sizeof path, "%s/%.2s/%s.json", dir, a, a);
    CHECK_INT(forge_file_write_atomic(path, "{\"message\":", 11, &err), 0);
    CHECK(forge_cache_get(dir, a) == NULL);
    cJSON_Delete(resp);

    setenv("XDG_CACHE_HOME", "/xdg", 1);
    char *def = forge_cache_default_dir();
    CHECK_STR(def, "/xdg/forge/models");
    forge_free(def);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    def = forge_cache_default_dir();
    CHECK_STR(def, "/home/u/.cache/forge/models");
    forge_free(def);
}

TEST(prices)
{
    bool known;
    double c = forge_prices_cost(NULL, "openai", "gpt-4o-mini", 1e6, 1e6, &known);
    CHECK(known && c > 0.7499 && c < 0.7501);
    c = forge_prices_cost(NULL, "openai", "gpt-4o-2024-08-06", 1e6, 0, &known);
    CHECK(known && c > 2.4999 && c < 2.5001);
    c = forge_prices_cost(NULL, "anthropic", "claude-sonnet-4-5-20250929", 1e6, 1e6, &known);
    CHECK(known && c > 17.999 && c < 18.001);
    c = forge_prices_cost(NULL, "openai", "gpt-4ox", 1e6, 1e6, &known);
    CHECK(!known && c == 0);
    c = forge_prices_cost(NULL, "ollama", "qwen3", 1e6, 1e6, &known);
    CHECK(!known && c == 0);

    char path[128];
    struct forge_err err;
    snprintf(path, sizeof path, "%s/prices.json", tmpdir);
    const char *text = "{\"openai:gpt-4o-mini\": {\"input\": 1, \"output\": 2}, \"qwen3:8b\": {\"input\": 0.5, \"output\": 0.5}}";
    CHECK_INT(forge_file_write_atomic(path, text, strlen(text), &err), 0);
    struct forge_prices *p = NULL;
    CHECK_INT(forge_prices_load(path, &p, &err), 0);
    c = forge_prices_cost(p, "openai", "gpt-4o-mini", 1e6, 1e6, &known);
    CHECK(known && c > 2.999 && c < 3.001);
    c = forge_prices_cost(p, "ollama", "qwen3:8b", 2e6, 0, &known);
    CHECK(known && c > 0.999 && c < 1.001);
    c = forge_prices_cost(p, "gemini", "gemini-2.5-flash", 1e6, 0, &known); /* built-in still there */
    CHECK(known && c > 0.2999 && c < 0.3001);
    forge_prices_free(p);
    text = "{\"m\": {\"input\": -1, \"output\": 2}}";
    CHECK_INT(forge_file_write_atomic(path, text, strlen(text), &err), 0);
    CHECK_INT(forge_prices_load(path, &p, &err), FORGE_EINVAL);
    CHECK(strstr(err.msg, "key 'm'") != NULL);
}

TEST(cassette)
{
    char path[128];
    struct forge_err err;
    snprintf(path, sizeof path, "%s/tape.jsonl", tmpdir);
    struct forge_cassette *c = NULL;
    CHECK_INT(forge_cassette_open(path, 0, &c, &err), 0);
    char k1[65], k2[65];
    forge_sha256_hex("1", 1, k1);
    forge_sha256_hex("2", 1, k2);
    cJSON *req = cJSON_Parse("{\"model\":\"m\",\"note\":\"token SECRET-1\"}");
    const char *secrets[] = {"SECRET-1", NULL};
    CHECK_INT(forge_cassette_record(c, k1, "openai", "m", req, 200, "{\"a\":1}", secrets, &err), 0);
    CHECK_INT(forge_cassette_record(c, k1, "openai", "m", req, 200, "{\"a\":2}", secrets, &err), 0);
    CHECK_INT(forge_cassette_record(c, k2, "openai", "m", req, 502, "<html>bad gateway</html>", secrets, &err), 0);
    forge_cassette_free(c);
    char *text;
    size_t len;
    CHECK_INT(forge_file_read(path, 1 << 20, &text, &len, &err), 0);
    CHECK(strstr(text, "SECRET-1") == NULL && strstr(text, "token [REDACTED]") != NULL);
    forge_free(text);

    CHECK_INT(forge_cassette_open(path, 1, &c, &err), 0);
    long st;
    char *body;
    CHECK_INT(forge_cassette_find(c, k1, &st, &body, &err), 0);
    CHECK_STR(body, "{\"a\":1}");
    forge_free(body);
    CHECK_INT(forge_cassette_find(c, k1, &st, &body, &err), 0);
    CHECK_STR(body, "{\"a\":2}");
    forge_free(body);
    CHECK_INT(forge_cassette_find(c, k1, &st, &body, &err), 0); /* the last one repeats */
    CHECK_STR(body, "{\"a\":2}");
    forge_free(body);
    CHECK_INT(forge_cassette_find(c, k2, &st, &body, &err), 0);
    CHECK_INT(st, 502);
    CHECK_STR(body, "<html>bad gateway</html>");
    forge_free(body);
    char k3[65];
    forge_sha256_hex("3", 1, k3);
    CHECK_INT(forge_cassette_find(c, k3, &st, &body, &err), FORGE_ENET);
    CHECK(strstr(err.msg, "no recorded answer") != NULL && body == NULL);
    forge_cassette_free(c);
    cJSON_Delete(req);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.jsonl", tmpdir);
    CHECK_INT(forge_cassette_open(missing, 1, &c, &err), FORGE_EIO);
}

static int parse_args(struct forge_provider_opts *o, int argc, char **argv, struct forge_err *err)
{
    for (int i = 0; i < argc;) {
        int r = forge_provider_opts_arg(o, argc, argv, &i, err);
        if (r <= 0)
            return r;
    }
    return 1;
}

TEST(options)
{
    struct forge_provider_opts o;
    struct forge_err err;
    forge_provider_opts_init(&o);
    char *argv[] = {"--model", "openai:gpt-4o-mini", "--base-url=http://h/v1", "--header", "X-A: 1", "--header=X-B: 2",
                    "--timeout-ms", "500", "--retries", "0", "--deadline-ms=9000", "--no-cache", "--cache-dir", "/c",
                    "--record", "r.jsonl", "--prices", "p.json", "--max-response-bytes", "1000"};
    CHECK_INT(parse_args(&o, 20, argv, &err), 1);
    CHECK_STR(o.model, "openai:gpt-4o-mini");
    CHECK_STR(o.base_url, "http://h/v1");
    CHECK_INT(o.nheaders, 2);
    CHECK_STR(o.headers[1], "X-B: 2");
    CHECK_INT(o.timeout_ms, 500);
    CHECK_INT(o.retries, 0);
    CHECK_INT(o.deadline_ms, 9000);
    CHECK_INT(o.no_cache, 1);
    CHECK_STR(o.cache_dir, "/c");
    CHECK_STR(o.record_path, "r.jsonl");
    CHECK_STR(o.prices_path, "p.json");
    CHECK_INT(o.max_response_bytes, 1000);

    char *other[] = {"-j", "4"};
    int i = 0;
    CHECK_INT(forge_provider_opts_arg(&o, 2, other, &i, &err), 0);
    CHECK_INT(i, 0);
    char *bad1[] = {"--timeout-ms", "0"};
    i = 0;
    CHECK_INT(forge_provider_opts_arg(&o, 2, bad1, &i, &err), FORGE_EINVAL);
    CHECK(strstr(err.msg, "--timeout-ms") != NULL);
    char *bad2[] = {"--retries"};
    i = 0;
    CHECK_INT(forge_provider_opts_arg(&o, 1, bad2, &i, &err), FORGE_EINVAL);
    CHECK(strstr(err.msg, "needs a value") != NULL);
    char *bad3[] = {"--header", "X-Bad\r\nInjected: 1"};
    i = 0;
    CHECK_INT(forge_provider_opts_arg(&o, 2, bad3, &i, &err), FORGE_EINVAL);
    char *bad4[] = {"--replay", "x.jsonl"};
    i = 0;
    CHECK_INT(forge_provider_opts_arg(&o, 2, bad4, &i, &err), FORGE_EINVAL);
    CHECK(strstr(err.msg, "cannot be used together") != NULL);
}

TEST(open)
{
    struct forge_provider_opts o;
    struct forge_err err;
    forge_provider_opts_init(&o);
    o.no_cache = 1;
    unsetenv("OPENAI_API_KEY");
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("GEMINI_API_KEY");
    unsetenv("GOOGLE_API_KEY");
    CHECK(forge_provider_open("openai:gpt-4o", &o, &err) == NULL);
    CHECK_INT(err.code, FORGE_EINVAL);
    CHECK(strstr(err.msg, "OPENAI_API_KEY") != NULL);
    CHECK(forge_provider_open("gemini:gemini-2.5-flash", &o, &err) == NULL);
    CHECK(strstr(err.msg, "GEMINI_API_KEY or GOOGLE_API_KEY") != NULL);
    CHECK(forge_provider_open("anthropic:claude", &o, &err) == NULL);
    CHECK(strstr(err.msg, "ANTHROPIC_API_KEY") != NULL);
    CHECK(forge_provider_open("bogus:x", &o, &err) == NULL);
    CHECK(strstr(err.msg, "unknown provider 'bogus'") != NULL);
    CHECK(forge_provider_open("openai:", &o, &err) == NULL);
    CHECK(strstr(err.msg, "PROVIDER:MODEL") != NULL);
    CHECK(forge_provider_open("openai-compatible:llama", &o, &err) == NULL);
    CHECK(strstr(err.msg, "needs --base-url") != NULL);

    /* Ollama needs no key; its model names keep their colon. */
    struct forge_model *m = forge_provider_open("ollama:qwen3:8b", &o, &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(m->provider, "ollama");
        CHECK_STR(m->name, "qwen3:8b");
    }
    forge_model_free(m);
    setenv("OPENAI_API_KEY", "sk-unit", 1);
    o.base_url = "not a url";
    CHECK(forge_provider_open("openai:x", &o, &err) == NULL);
    CHECK(strstr(err.msg, "--base-url") != NULL);
    o.base_url = NULL;
    m = forge_provider_open("openai-responses:gpt-5", &o, &err);
    CHECK(m != NULL);
    if (m)
        CHECK_STR(m->provider, "openai-responses");
    forge_model_free(m);
    /* Replay needs no key. */
    unsetenv("OPENAI_API_KEY");
    char path[128];
    snprintf(path, sizeof path, "%s/empty.jsonl", tmpdir);
    CHECK_INT(forge_file_write_atomic(path, "", 0, &err), 0);
    o.replay_path = path;
    m = forge_provider_open("openai:gpt-4o", &o, &err);
    CHECK(m != NULL);
    forge_model_free(m);
}

static void *hook_malloc(size_t n)
{
    return forge_malloc(n);
}

static void hook_free(void *p)
{
    forge_free(p);
}

/* A whole complete() from a replay cassette, and from the cache, with each allocation failing
 * in turn: every failure is FORGE_ENOMEM (or a clean replay miss), never a crash or a leak. */
TEST(complete_faults)
{
    char tape[160], cdir[160];
    struct forge_err err;
    snprintf(tape, sizeof tape, "%s/faults.jsonl", tmpdir);
    snprintf(cdir, sizeof cdir, "%s/faults-cache", tmpdir);
    const char *reqtext = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"tools\":[{\"name\":\"f\"}]}";
    const char *answer = "{\"content\":[{\"type\":\"text\",\"text\":\"Yes\"},{\"type\":\"tool_use\",\"id\":\"t1\","
                         "\"name\":\"f\",\"input\":{\"a\":1}}],\"stop_reason\":\"tool_use\","
                         "\"usage\":{\"input_tokens\":1000000,\"output_tokens\":0}}";
    cJSON *req = cJSON_Parse(reqtext);
    /* Record the exchange under the key complete() will compute. */
    struct forge_provider_opts o;
    forge_provider_opts_init(&o);
    o.no_cache = 1;
    o.replay_path = tape;
    CHECK_INT(forge_file_write_atomic(tape, "", 0, &err), 0);
    struct forge_model *m = forge_provider_open("anthropic:claude-haiku-4-5", &o, &err);
    cJSON *resp = NULL;
    CHECK_INT(forge_model_complete(m, req, &resp, &err), FORGE_ENET);
    const char *k = strstr(err.msg, "(key ");
    CHECK(k != NULL);
    forge_model_free(m);
    if (!k)
        return;
    /* The message shows a prefix of the key; find the full key by building the same body. */
    char *body = NULL;
    {
        const struct forge_dialect *d = forge_dialect_find("anthropic");
        cJSON *wire = NULL;
        CHECK_INT(d->build(req, "claude-haiku-4-5", &wire, &err), 0);
        body = forge_json_print(wire, FORGE_JSON_SORTED);
        cJSON_Delete(wire);
    }
    char key[65];
    forge_cache_key("anthropic", "", "claude-haiku-4-5", body, key);
    forge_free(body);
    CHECK(strncmp(k + 5, key, 12) == 0);
    struct forge_cassette *c = NULL;
    CHECK_INT(forge_cassette_open(tape, 0, &c, &err), 0);
    CHECK_INT(forge_cassette_record(c, key, "anthropic", "claude-haiku-4-5", req, 200, answer, NULL, &err), 0);
    forge_cassette_free(c);

    cJSON_Hooks hooks = {hook_malloc, hook_free};
    cJSON_InitHooks(&hooks);
    int done = 0;
    for (long n = 1; n < 100000 && !done; n++) {
        forge_alloc_fail_at(n);
        m = forge_provider_open("anthropic:claude-haiku-4-5", &o, &err);
        int rc = m ? forge_model_complete(m, req, &resp, &err) : err.code;
        forge_model_free(m);
        long used = forge_alloc_fail_at(0);
        if (rc == 0) {
            CHECK_STR(forge_json_str(forge_json_at(resp, "message"), "content"), "Yes");
            CHECK(forge_json_num(resp, "cost_usd", 0) > 0.999 && forge_json_num(resp, "cost_usd", 0) < 1.001);
            cJSON_Delete(resp);
            resp = NULL;
            done = used < n;
            continue;
        }
        /* A failed key copy is a replay miss (ENET); data/json reports an allocation failure
         * while parsing the cassette as invalid JSON (EINVAL). */
        CHECK(rc == FORGE_ENOMEM || rc == FORGE_ENET || (rc == FORGE_EINVAL && strstr(err.msg, "faults.jsonl:1:")));
        CHECK(resp == NULL);
    }
    CHECK(done);
    /* The cache path: put on a miss, then served. */
    o.replay_path = NULL;
    o.no_cache = 0;
    o.cache_dir = cdir;
    o.base_url = "http://127.0.0.1:9"; /* a miss goes to a closed loopback port, nowhere else */
    o.retries = 0;
    cJSON *stored = cJSON_Parse("{\"message\":{\"role\":\"assistant\",\"content\":\"Cached\"},\"finish_reason\":\"stop\","
                                "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}");
    setenv("ANTHROPIC_API_KEY", "sk-unit-test", 1);
    {
        const struct forge_dialect *d = forge_dialect_find("anthropic");
        cJSON *wire = NULL;
        CHECK_INT(d->build(req, "claude-haiku-4-5", &wire, &err), 0);
        body = forge_json_print(wire, FORGE_JSON_SORTED);
        cJSON_Delete(wire);
        forge_cache_key("anthropic", "http://127.0.0.1:9", "claude-haiku-4-5", body, key);
        forge_free(body);
    }
    CHECK_INT(forge_cache_put(cdir, key, stored, &err), 0);
    done = 0;
    for (long n = 1; n < 100000 && !done; n++) {
        forge_alloc_fail_at(n);
        m = forge_provider_open("anthropic:claude-haiku-4-5", &o, &err);
        int rc = m ? forge_model_complete(m, req, &resp, &err) : err.code;
        forge_model_free(m);
        long used = forge_alloc_fail_at(0);
        if (rc == 0) {
            CHECK_STR(forge_json_str(forge_json_at(resp, "message"), "content"), "Cached");
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(resp, "cached")));
            cJSON_Delete(resp);
            resp = NULL;
            done = used < n;
            continue;
        }
        /* A failing cache read is a miss, which then fails to connect (ENET). */
        if (!(rc == FORGE_ENOMEM || rc == FORGE_ENET))
            fprintf(stderr, "n=%ld rc=%d %s\n", n, rc, err.msg);
        CHECK(rc == FORGE_ENOMEM || rc == FORGE_ENET);
        CHECK(resp == NULL);
    }
    CHECK(done);
    unsetenv("ANTHROPIC_API_KEY");
    cJSON_Hooks plain = {NULL, NULL};
    cJSON_InitHooks(&plain);
    cJSON_Delete(stored);
    cJSON_Delete(req);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/forge-test-provider-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(sha256);
    RUN(cache);
    RUN(prices);
    RUN(cassette);
    RUN(options);
    RUN(open);
    RUN(complete_faults);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return TEST_DONE();
}
