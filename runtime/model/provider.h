/* Real model providers over HTTP: opens a struct forge_model (model.h) for a spec
 * "provider:model" with the options below, and parses those options from command lines.
 *
 * Providers: openai (chat completions; also any compatible server with --base-url; alias
 * openai-compatible), openai-responses, anthropic, gemini, ollama. Keys come from the
 * environment: OPENAI_API_KEY (openai, openai-responses), ANTHROPIC_API_KEY, GEMINI_API_KEY or
 * else GOOGLE_API_KEY (gemini); ollama needs none (OLLAMA_API_KEY is sent as a bearer token
 * when set). Base URLs default to the providers' public endpoints; OPENAI_BASE_URL,
 * ANTHROPIC_BASE_URL, GEMINI_BASE_URL and OLLAMA_HOST override the defaults, --base-url
 * overrides both.
 *
 * A model opened here is safe to use from many threads at once. Each complete() builds the
 * provider's request, answers from --replay or the cache when it can, else POSTs it (with
 * retries, see net/http.h), records the exchange with --record, stores successful answers in
 * the cache, and returns the normalized response with "cost_usd", "latency_ms" and "cached".
 *
 * Streamed answers (--stream, or "stream": true in a request): the request asks for the
 * provider's stream, the events are assembled into the answer the provider would have sent
 * whole (so the normalized response is the same), and the response gains "timing":
 * {"ttfb_ms", "first_token_ms", "first_tool_call_ms", "last_byte_ms"} (ms from the request;
 * null when there was no token or no call). A stream cut short, or silent past the idle limit,
 * is retried like a connection error. The cache and cassettes hold the assembled answer under
 * the key of the request without streaming, so streamed and whole runs share them; a replayed
 * or cached answer asked for as a stream is streamed again through the dialect's own event
 * sequence and read back (its timing is then all zeros). */
#ifndef FORGE_MODEL_PROVIDER_H
#define FORGE_MODEL_PROVIDER_H
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "model/model.h"

#define FORGE_PROVIDER_MAX_HEADERS 32

struct forge_provider_opts {
    const char *model;        /* --model SPEC (borrowed); forge_provider_open takes the spec too */
    const char *base_url;     /* --base-url URL */
    const char *headers[FORGE_PROVIDER_MAX_HEADERS]; /* --header 'Name: value' (repeatable) */
    int nheaders;
    long timeout_ms;          /* --timeout-ms N: one HTTP attempt (default 120000) */
    int retries;              /* --retries N: after the first attempt (default 4; -1 = default) */
    long deadline_ms;         /* --deadline-ms N: no model request starts or retries after this
                                 many ms from forge_provider_open (default 0 = none) */
    long backoff_ms;          /* first retry wait in ms (default 500; set by programs, no flag) */
    int no_cache;             /* --no-cache */
    const char *cache_dir;    /* --cache-dir DIR (default: forge_cache_default_dir()) */
    const char *record_path;  /* --record FILE */
    const char *replay_path;  /* --replay FILE */
    const char *prices_path;  /* --prices FILE (prices.h) */
    size_t max_response_bytes; /* --max-response-bytes N (default 32 MiB) */
    int stream;               /* --stream: ask for streamed answers (also per request: "stream": true) */
    long idle_timeout_ms;     /* --idle-timeout-ms N: a stream silent this long is retried
                                 (default 30000) */
};

/* Sets the defaults. */
void forge_provider_opts_init(struct forge_provider_opts *o);

/* Consumes the provider option at argv[*i] (and its value) into <o>: --model, --base-url,
 * --header, --timeout-ms, --retries, --deadline-ms, --no-cache, --cache-dir, --record, --replay,
 * --prices, --max-response-bytes; both "--flag value" and "--flag=value" forms. Returns 1 and
 * advances *i past what it consumed, 0 when argv[*i] is not a provider option, or
 * FORGE_EINVAL naming the flag (missing or bad value, too many headers, --record with
 * --replay). Values are borrowed from argv. */
int forge_provider_opts_arg(struct forge_provider_opts *o, int argc, char **argv, int *i,
                            struct forge_err *err);

/* The usage text of the options above, for a subcommand's help (also as a literal, for
 * composing usage strings). */
#define FORGE_PROVIDER_OPTS_USAGE \
    "model options:\n" \
    "  --model PROVIDER:MODEL    openai, openai-responses, anthropic, gemini or ollama, e.g.\n" \
    "                            openai:gpt-4o-mini (any OpenAI-compatible server: openai + --base-url)\n" \
    "  --base-url URL            API root as the provider's SDK takes it (OpenAI's includes /v1)\n" \
    "  --header 'NAME: VALUE'    extra request header (repeatable)\n" \
    "  --timeout-ms N            time limit of one HTTP attempt (default 120000)\n" \
    "  --retries N               retries on 429, 5xx and connection errors (default 4)\n" \
    "  --deadline-ms N           no model request starts or retries after N ms (default none)\n" \
    "  --no-cache                neither read nor write the response cache\n" \
    "  --cache-dir DIR           cache folder (default $XDG_CACHE_HOME/forge/models)\n" \
    "  --record FILE             write every exchange to FILE (JSONL, no secrets)\n" \
    "  --replay FILE             answer from FILE only; a request it lacks fails\n" \
    "  --prices FILE             token prices override (JSON, USD per million tokens)\n" \
    "  --max-response-bytes N    cap on one response body (default 33554432)\n" \
    "  --stream                  ask for streamed answers (the same normalized response, with\n" \
    "                            time to first byte, token and tool call)\n" \
    "  --idle-timeout-ms N       a stream that sends nothing for N ms is retried (default 30000)\n"
extern const char forge_provider_opts_usage[];

/* Opens the model for <spec> ("provider:model"). Fails before any request with FORGE_EINVAL
 * for an unknown provider, an empty model, a malformed header or base URL, or a missing API
 * key (the message names the environment variable), and with the errors of the --prices,
 * --record and --replay files. With --replay no key is needed. Returns a new model (free with
 * forge_model_free). */
struct forge_model *forge_provider_open(const char *spec, const struct forge_provider_opts *o,
                                        struct forge_err *err);

/* The wire body model <m> (opened here) would send for <req> (streamed when <req> says
 * "stream": true or the model was opened with --stream): a new tree in *body. FORGE_EINVAL when
 * the request cannot be expressed in the dialect (the message says why) or <m> is not a
 * provider model. */
int forge_provider_wire(struct forge_model *m, const cJSON *req, cJSON **body, struct forge_err *err);

/* Progress callback for forge_provider_run_batch: called after each completion (serialized),
 * with how many are done, how many succeeded, and the total. */
typedef void (*forge_batch_progress_fn)(void *ctx, size_t done, size_t ok, size_t total);

/* Runs <n> completions of <reqs> (borrowed) on <m> with up to <jobs> in flight (worker
 * threads). resps[i] receives a new response or NULL, errs[i] its error (code 0 on success).
 * <progress> may be NULL. Returns 0, or FORGE_ENOMEM / FORGE_EINTERNAL when the workers could
 * not be started (then nothing ran). */
int forge_provider_run_batch(struct forge_model *m, const cJSON *const *reqs, size_t n, int jobs,
                             cJSON **resps, struct forge_err *errs, forge_batch_progress_fn progress,
                             void *ctx);
#endif
