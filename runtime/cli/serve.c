/* forge serve: model endpoints for agents written in any language. */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/file.h"
#include "data/json.h"
#include "eval/evalfile.h"
#include "lua/l_suite.h"
#include "model/provider.h"
#include "serve/serve.h"
#include "server/server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char forge_usage_serve[] =
    "usage: forge serve [--listen HOST:PORT] --model [NAME=]SPEC... [OPTIONS]\n"
    "       forge serve --replay CASSETTE [OPTIONS]\n"
    "       forge serve --agent AGENT.lua... (--jwt-secret-env VAR | --jwt-public-key FILE |\n"
    "                   --auth trust|none) [--store LOCATION] [OPTIONS]\n"
    "\n"
    "Serves model endpoints in each provider's own wire format, so an agent written with any SDK\n"
    "can be pointed at forge (its base URL) and tested black-box: OpenAI POST /v1/chat/completions\n"
    "and /v1/responses, Anthropic POST /v1/messages, Gemini POST\n"
    "/v1beta/models/MODEL:generateContent and :streamGenerateContent?alt=sse, Ollama POST /api/chat,\n"
    "GET /v1/models (also /v1beta/models, /api/tags) and GET /health. Streamed and whole answers.\n"
    "Each conversation becomes a trajectory (docs/serve.md): recognised by the X-Forge-Case header\n"
    "(X-Forge-Session tells concurrent runs of one case apart) or by its first user message matched\n"
    "to a case of --evals, written to --save-transcripts as it completes, and scored with the eval\n"
    "engine when the server stops (SIGINT, SIGTERM or --max-sessions), exactly as\n"
    "`forge run EVALS --transcripts FILE` would score it.\n"
    "\n"
    "models:\n"
    "  --model [NAME=]SPEC       scripted:RULES.lua or provider:model (repeatable). With NAME= the\n"
    "                            model answers requests naming NAME only; one model without a name\n"
    "                            answers whatever model a request names\n"
    "  --replay CASSETTE         answer from a recorded cassette; alone, its provider and model come\n"
    "                            from its first exchange. A request it lacks gets a 400 error\n"
    "  --record CASSETTE         with a provider model: record every exchange (a recording proxy)\n"
    "\n"
    "serving:\n"
    "  --listen HOST:PORT        address (default 127.0.0.1:8080; port 0 picks a free port)\n"
    "  --port-file FILE          write the port listened on to FILE once serving\n"
    "  --token-env VAR           clients must send the token in $VAR (Authorization: Bearer,\n"
    "                            x-api-key or x-goog-api-key); refused with 401 otherwise\n"
    "  --max-body-mb MIB         largest request body (default 32); larger ones get 413\n"
    "  --threads N               worker threads (default 8)\n"
    "  --max-connections N       open connections at once (default 4096)\n"
    "  --idle-timeout S          close a connection idle for S seconds (default 60)\n"
    "  --max-sessions N          stop after N conversations are complete\n"
    "\n"
    "trajectories and scoring:\n"
    "  --evals FILE.json         eval cases (repeatable): recognise conversations, and score them\n"
    "                            when the server stops\n"
    "  --save-transcripts FILE   write each completed trajectory as one JSON line\n"
    "  --report FORMAT=PATH, --baseline FILE, --min-pass-rate X, --max-cost USD,\n"
    "  --max-p95-ms MS, --seed FILE, --snapshot FILE, -q/--quiet\n"
    "                            as on forge run, for the scoring at the end\n"
    "\n"
    "Exit codes: 0 served (and, with --evals, every case passed), 1 a case or gate failed, 2 bad\n"
    "usage or input, 3 the address cannot be served.\n"
    "\n"
    "agent service (docs/service.md):\n"
    "  --agent FILE.lua          serve the agents FILE returns (forge.agent{...}, repeatable) over\n"
    "                            agent-tool-forge's sidecar API: POST /agent-api/chat (SSE),\n"
    "                            /agent-api/chat-sync, /agent-api/chat/resume; GET /agent-api/tools,\n"
    "                            conversations, preferences, /health; /forge-admin/audit and agents\n"
    "  --store LOCATION          SQLite file (default forge-service.db), sqlite:PATH, or\n"
    "                            postgres://... shared by replicas\n"
    "  --auth jwt|trust|none     how users are known (required unless a JWT key is given): verified\n"
    "                            JWT, JWT decoded without verifying (a gateway verified it), or none\n"
    "  --jwt-secret-env VAR      HS256 secret (32 bytes or more) in $VAR\n"
    "  --jwt-public-key FILE     RS256 public key (PEM)\n"
    "  --user-claim PATH         the claim holding the user id (default sub; dotted path)\n"
    "  --jwt-leeway S            clock leeway for exp and nbf (default 30)\n"
    "  --admin-token-env VAR     the admin API's bearer token (16 bytes or more); without it the\n"
    "                            admin API answers 503\n"
    "  --rate-limit N[/S]        chat and API requests per user per S seconds (default window 60)\n"
    "  --history-limit N         messages a conversation keeps (default 200)\n"
    "  --request-timeout-ms MS   deadline of one chat request (default 120000)\n"
    "  --hitl-ttl S              resume tokens expire after S seconds (default 300)\n"
    "  --allow-user-hitl         the user's hitlLevel preference (autonomous, cautious, standard,\n"
    "                            paranoid) sets the approval level of every agent's turns (an\n"
    "                            agent may allow it alone: allow_user_hitl = true)\n"
    "  --max-message-kb KB       longest user message (default 32); with --agent, --max-body-mb\n"
    "                            defaults to 1\n"
    "\n" FORGE_PROVIDER_OPTS_USAGE;

#define MAX_EVALS 64
#define MAX_PASS 64

struct opts {
    struct forge_server_opts server;
    struct forge_provider_opts prov;
    struct forge_vm_opts vm;
    const char *specs[FORGE_SERVE_MAX_MODELS];
    int nspecs;
    const char *evals[MAX_EVALS];
    int nevals;
    const char *pass[MAX_PASS]; /* options handed to the scoring run */
    int npass;
    const char *token_env, *save, *port_file;
    long max_sessions;
};

static int parse(int argc, char **argv, struct opts *o)
{
    static const char *const passed[] = {"--report", "--baseline", "--min-pass-rate", "--max-cost", "--max-p95-ms",
                                         "--seed", "--snapshot", NULL};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        size_t flen = a[0] == '-' && a[1] == '-' && eq ? (size_t)(eq - a) : strlen(a);
        char flag[64];
        snprintf(flag, sizeof flag, "%.*s", (int)(flen < sizeof flag ? flen : sizeof flag - 1), a);
        const char *val = NULL;
        int takes = 0;
        static const char *const valued[] = {"--listen", "--model", "--evals", "--save-transcripts", "--token-env",
                                             "--max-body-mb", "--threads", "--max-connections", "--idle-timeout",
                                             "--max-sessions", "--port-file", NULL};
        for (const char *const *v = valued; *v; v++)
            takes |= !strcmp(flag, *v);
        for (const char *const *v = passed; *v; v++)
            takes |= !strcmp(flag, *v) ? 2 : 0;
        if (takes) {
            if (a[flen] == '=')
                val = a + flen + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                forge_cli_error("serve: %s needs a value", flag);
                return -1;
            }
        }
        int r;
        if (takes & 2) {
            if (o->npass + 2 > MAX_PASS) {
                forge_cli_error("serve: too many scoring options");
                return -1;
            }
            o->pass[o->npass++] = argv[i - (a[flen] == '=' ? 0 : 1)];
            if (a[flen] != '=')
                o->pass[o->npass++] = val;
        } else if ((r = forge_cli_server_opt("serve", flag, val, &o->server, &o->port_file)) != 0) {
            if (r < 0)
                return -1;
        } else if (!strcmp(flag, "--model")) {
            if (o->nspecs == FORGE_SERVE_MAX_MODELS) {
                forge_cli_error("serve: at most %d --model", FORGE_SERVE_MAX_MODELS);
                return -1;
            }
            o->specs[o->nspecs++] = val;
        } else if (!strcmp(flag, "--evals")) {
            if (o->nevals == MAX_EVALS) {
                forge_cli_error("serve: at most %d --evals", MAX_EVALS);
                return -1;
            }
            o->evals[o->nevals++] = val;
        } else if (!strcmp(flag, "--save-transcripts")) {
            o->save = val;
        } else if (!strcmp(flag, "--token-env")) {
            o->token_env = val;
        } else if (!strcmp(flag, "--max-sessions")) {
            if (forge_cli_whole("serve", flag, val, 1, 1000000000, &o->max_sessions))
                return -1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->pass[o->npass++] = a;
        } else {
            r = forge_cli_serve_common_opt(&o->prov, &o->vm, argc, argv, &i);
            if (r < 0)
                return -1;
            if (r == 0) {
                forge_cli_error("serve: unknown option '%s' (see forge help serve)", a);
                return -1;
            }
        }
    }
    return 0;
}

/* "provider:model" of a cassette's first exchange, into <out>. */
static int cassette_spec(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        forge_cli_error("serve: --replay %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f);
    fclose(f);
    struct forge_err err = {0};
    cJSON *x = len > 0 ? forge_json_parse(line, (size_t)len, path, &err) : NULL;
    free(line);
    const char *p = forge_json_str(x, "provider"), *m = forge_json_str(x, "model");
    int rc = 0;
    if (!p || !m) {
        forge_cli_error("serve: --replay %s:1: expected a recorded exchange with \"provider\" and \"model\"%s%s", path,
                        x ? "" : ": ", x ? "" : (len > 0 ? err.msg : "the file is empty"));
        rc = -1;
    } else {
        snprintf(out, n, "%s:%s", p, m);
    }
    cJSON_Delete(x);
    return rc;
}

static struct forge_model *open_model(struct opts *o, const char *spec, struct forge_vm **vm, char **dir)
{
    struct forge_err err = {0};
    struct forge_model *m = NULL;
    if (!strncmp(spec, "scripted:", 9)) {
        if (!*vm) {
            *dir = forge_path_dir(spec + 9);
            o->vm.script_dir = *dir;
            if (!*dir || !(*vm = forge_vm_new(&o->vm, &err))) {
                forge_cli_error("serve: %s", *dir ? err.msg : "out of memory");
                return NULL;
            }
        }
        if (forge_lua_scripted_load(*vm, spec + 9, &m, &err))
            forge_cli_error("%s", err.msg);
        return m;
    }
    if (!strcmp(spec, "scripted")) {
        forge_cli_error("serve: the scripted model needs rules: --model scripted:RULES.lua");
        return NULL;
    }
    if (!(m = forge_provider_open(spec, &o->prov, &err)))
        forge_cli_error("serve: --model %s: %s", spec, err.msg);
    return m;
}

static int load_evals(const struct opts *o, cJSON **cases)
{
    *cases = NULL;
    if (!o->nevals)
        return 0;
    cJSON *all = cJSON_CreateArray();
    for (int i = 0; all && i < o->nevals; i++) {
        cJSON *c = NULL;
        struct forge_err err = {0};
        if (forge_evalfile_load(o->evals[i], &c, &err)) {
            forge_cli_error("%s", err.msg);
            cJSON_Delete(all);
            return forge_cli_exit_code(err.code);
        }
        while (cJSON_GetArraySize(c) > 0)
            cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(c, 0));
        cJSON_Delete(c);
    }
    if (!all) {
        forge_cli_error("out of memory");
        return FORGE_EXIT_INFRA;
    }
    *cases = all;
    return 0;
}

/* Waits for SIGINT or SIGTERM (blocked in every thread) or for the last session. */
static void wait_for_stop(struct forge_serve *srv)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct timespec tick = {0, 50 * 1000 * 1000};
    for (;;) {
        int sig = sigtimedwait(&set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM || forge_serve_finished(srv))
            return;
    }
}

/* Scores the trajectories with `forge run EVALS --transcripts TMP` and the scoring options. */
static int score(const struct opts *o, struct forge_serve *srv)
{
    cJSON *trajs = forge_serve_trajectories(srv);
    char path[] = "/tmp/forge-serve-XXXXXX";
    int fd = trajs ? mkstemp(path) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int ok = f != NULL;
    const cJSON *t;
    cJSON_ArrayForEach(t, trajs) {
        char *line = ok ? cJSON_PrintUnformatted(t) : NULL;
        ok = line && fprintf(f, "%s\n", line) > 0;
        cJSON_free(line);
    }
    cJSON_Delete(trajs);
    if (f && fclose(f))
        ok = 0;
    if (!ok) {
        forge_cli_error("serve: cannot write the trajectories for scoring: %s", strerror(errno));
        if (fd >= 0)
            unlink(path);
        return FORGE_EXIT_INFRA;
    }
    char *argv[MAX_EVALS + MAX_PASS + 4];
    int argc = 0;
    for (int i = 0; i < o->nevals; i++)
        argv[argc++] = (char *)o->evals[i];
    argv[argc++] = "--transcripts";
    argv[argc++] = path;
    for (int i = 0; i < o->npass; i++)
        argv[argc++] = (char *)o->pass[i];
    argv[argc] = NULL;
    fflush(stderr);
    int code = forge_cmd_run(argc, argv);
    unlink(path);
    return code;
}

int forge_cmd_serve(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--agent") || !strncmp(argv[i], "--agent=", 8))
            return forge_cmd_serve_agent(argc, argv);
    }
    struct opts o;
    memset(&o, 0, sizeof o);
    forge_server_opts_init(&o.server);
    o.server.listen = "127.0.0.1:8080";
    forge_provider_opts_init(&o.prov);
    forge_vm_opts_init(&o.vm);
    int code = FORGE_EXIT_USAGE;
    struct forge_vm *vm = NULL;
    char *dir = NULL;
    cJSON *cases = NULL;
    FILE *tf = NULL;
    struct forge_serve *srv = NULL;
    struct forge_server *http = NULL;
    struct forge_serve_opts so;
    memset(&so, 0, sizeof so);
    char replay_spec[256];
    if (parse(argc, argv, &o))
        goto out;
    if (!o.nspecs && o.prov.replay_path) {
        if (cassette_spec(o.prov.replay_path, replay_spec, sizeof replay_spec))
            goto out;
        o.specs[o.nspecs++] = replay_spec;
    }
    if (!o.nspecs) {
        forge_cli_error("serve: no model: give --model scripted:RULES.lua, --model provider:model or --replay "
                        "CASSETTE (see forge help serve)");
        goto out;
    }
    if (o.token_env) {
        const char *t = getenv(o.token_env);
        if (!t || !*t) {
            /* fail closed: a token asked for but not set would leave the server open */
            forge_cli_error("serve: --token-env %s: the variable is not set or empty", o.token_env);
            goto out;
        }
        so.token = t;
    }
    if ((code = load_evals(&o, &cases)))
        goto out;
    code = FORGE_EXIT_USAGE;
    for (int i = 0; i < o.nspecs; i++) {
        const char *spec = o.specs[i], *eq = strchr(spec, '='), *colon = strchr(spec, ':');
        static char names[FORGE_SERVE_MAX_MODELS][128];
        if (eq && (!colon || eq < colon)) {
            snprintf(names[i], sizeof names[i], "%.*s", (int)(eq - spec), spec);
            so.names[i] = names[i];
            spec = eq + 1;
        } else if (o.nspecs > 1) {
            forge_cli_error("serve: with several models each needs a name: --model NAME=%s", spec);
            goto out;
        }
        if (!(so.models[i] = open_model(&o, spec, &vm, &dir)))
            goto out;
        so.nmodels = i + 1;
    }
    if (o.save && !(tf = fopen(o.save, "w"))) {
        forge_cli_error("serve: --save-transcripts %s: %s", o.save, strerror(errno));
        goto out;
    }
    so.cases = cases;
    so.transcripts = tf;
    so.max_sessions = o.max_sessions;
    so.max_body = o.server.max_body;
    so.replay = o.prov.replay_path != NULL;
    struct forge_err err = {0};
    if (!(srv = forge_serve_new(&so, &err))) {
        forge_cli_error("%s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    /* the signals are taken by wait_for_stop */
    if ((code = forge_cli_listen("serve", &o.server, forge_serve_handle, srv, o.port_file, &http)) != 0)
        goto out;
    int port = forge_server_port(http);
    fprintf(stderr, "forge serve: listening on port %d (%d model%s%s)\n", port, so.nmodels, so.nmodels == 1 ? "" : "s",
            so.token ? ", token required" : "");
    wait_for_stop(srv);
    forge_server_stop(http);
    http = NULL;
    long sessions, answered, refused;
    forge_serve_counts(srv, &sessions, &answered, &refused);
    fprintf(stderr, "forge serve: stopped: %ld conversation%s complete, %ld answer%s, %ld refused\n", sessions,
            sessions == 1 ? "" : "s", answered, answered == 1 ? "" : "s", refused);
    if (tf) {
        int bad = fclose(tf) != 0;
        tf = NULL;
        if (bad) {
            forge_cli_error("serve: --save-transcripts %s: %s", o.save, strerror(errno));
            code = FORGE_EXIT_INFRA;
            goto out;
        }
    }
    code = o.nevals ? score(&o, srv) : FORGE_EXIT_OK;
out:
    forge_server_stop(http);
    forge_serve_free(srv);
    for (int i = 0; i < so.nmodels; i++)
        forge_model_free(so.models[i]);
    if (tf)
        fclose(tf);
    cJSON_Delete(cases);
    forge_vm_free(vm);
    forge_free(dir);
    forge_luaopts_free(&o.vm);
    return code;
}
