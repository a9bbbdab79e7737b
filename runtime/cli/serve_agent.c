/* forge serve --agent: the agent runtime as a service (docs/service.md). */
#include "cli/cli.h"
#include "cli/luaopts.h"
#include "base/alloc.h"
#include "base/file.h"
#include "base/log.h"
#include "data/json.h"
#include "lua/l_suite.h"
#include "model/provider.h"
#include "server/jwt.h"
#include "server/server.h"
#include "service/service.h"
#include "store/store.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_AGENT_FILES 16

struct aopts {
    struct forge_server_opts server;
    struct forge_service_opts svc;
    struct forge_provider_opts prov;
    struct forge_vm_opts vm;
    const char *files[MAX_AGENT_FILES];
    int nfiles;
    const char *store, *auth, *secret_env, *pubkey, *admin_env, *port_file, *model;
};

static int parse(int argc, char **argv, struct aopts *o)
{
    static const char *const valued[] = {"--agent", "--store", "--auth", "--jwt-secret-env", "--jwt-public-key",
                                         "--user-claim", "--jwt-leeway", "--admin-token-env", "--rate-limit",
                                         "--history-limit", "--request-timeout-ms", "--hitl-ttl", "--max-message-kb",
                                         "--listen", "--port-file", "--max-body-mb", "--max-connections",
                                         "--idle-timeout", "--model", NULL};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        size_t flen = a[0] == '-' && a[1] == '-' && eq ? (size_t)(eq - a) : strlen(a);
        char flag[64];
        snprintf(flag, sizeof flag, "%.*s", (int)(flen < sizeof flag ? flen : sizeof flag - 1), a);
        if (!strcmp(a, "--allow-user-hitl")) {
            o->svc.allow_user_hitl = 1;
            continue;
        }
        int takes = 0;
        for (const char *const *v = valued; *v; v++)
            takes |= !strcmp(flag, *v);
        if (!takes) {
            int r = forge_cli_serve_common_opt(&o->prov, &o->vm, argc, argv, &i);
            if (r < 0)
                return -1;
            if (r == 0) {
                forge_cli_error("serve: unknown option '%s' with --agent (see forge help serve)", a);
                return -1;
            }
            continue;
        }
        const char *val;
        if (a[flen] == '=')
            val = a + flen + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else {
            forge_cli_error("serve: %s needs a value", flag);
            return -1;
        }
        long n;
        int r;
        if (!strcmp(flag, "--agent")) {
            if (o->nfiles == MAX_AGENT_FILES) {
                forge_cli_error("serve: at most %d --agent files", MAX_AGENT_FILES);
                return -1;
            }
            o->files[o->nfiles++] = val;
        } else if (!strcmp(flag, "--store")) {
            o->store = val;
        } else if (!strcmp(flag, "--auth")) {
            if (strcmp(val, "jwt") && strcmp(val, "trust") && strcmp(val, "none")) {
                forge_cli_error("serve: --auth: expected jwt, trust or none, got '%s'", val);
                return -1;
            }
            o->auth = val;
        } else if (!strcmp(flag, "--jwt-secret-env")) {
            o->secret_env = val;
        } else if (!strcmp(flag, "--jwt-public-key")) {
            o->pubkey = val;
        } else if (!strcmp(flag, "--user-claim")) {
            if (!*val || strlen(val) > 120) {
                forge_cli_error("serve: --user-claim: expected a claim name or dotted path");
                return -1;
            }
            o->svc.user_claim = val;
        } else if (!strcmp(flag, "--jwt-leeway")) {
            if (forge_cli_number("serve", flag, val, 0, 300, &o->svc.jwt_leeway_s))
                return -1;
        } else if (!strcmp(flag, "--admin-token-env")) {
            o->admin_env = val;
        } else if (!strcmp(flag, "--rate-limit")) {
            /* N or N/SECONDS */
            char buf[64];
            snprintf(buf, sizeof buf, "%s", val);
            char *slash = strchr(buf, '/');
            if (slash)
                *slash = '\0';
            if (forge_cli_whole("serve", flag, buf, 1, 1000000000, &n))
                return -1;
            o->svc.rate_limit = (int)n;
            if (slash && forge_cli_number("serve", flag, slash + 1, 1, 86400, &o->svc.rate_window_s))
                return -1;
        } else if (!strcmp(flag, "--history-limit")) {
            if (forge_cli_whole("serve", flag, val, 2, 100000, &n))
                return -1;
            o->svc.history_limit = (int)n;
        } else if (!strcmp(flag, "--request-timeout-ms")) {
            if (forge_cli_whole("serve", flag, val, 1, 86400000, &n))
                return -1;
            o->svc.deadline_ms = (long)n;
        } else if (!strcmp(flag, "--hitl-ttl")) {
            if (forge_cli_number("serve", flag, val, 1, 30 * 86400, &o->svc.hitl_ttl_s))
                return -1;
        } else if (!strcmp(flag, "--max-message-kb")) {
            if (forge_cli_whole("serve", flag, val, 1, 1 << 20, &n))
                return -1;
            o->svc.max_message = (size_t)n << 10;
        } else if ((r = forge_cli_server_opt("serve", flag, val, &o->server, &o->port_file)) != 0) {
            if (r < 0)
                return -1;
        } else if (!strcmp(flag, "--model")) {
            o->model = val;
        }
    }
    return 0;
}

/* Chooses the auth tier from the flags; fails closed when nothing was chosen. */
static int setup_auth(struct aopts *o, struct forge_jwt_key **key)
{
    struct forge_err err = {0};
    int has_key = o->secret_env || o->pubkey;
    if (o->secret_env && o->pubkey) {
        forge_cli_error("serve: give one of --jwt-secret-env (HS256) and --jwt-public-key (RS256), not both");
        return -1;
    }
    if (o->auth && strcmp(o->auth, "jwt") && has_key) {
        forge_cli_error("serve: --auth %s takes no JWT key", o->auth);
        return -1;
    }
    if (!o->auth && !has_key) {
        forge_cli_error("serve --agent: choose how users are authenticated: --jwt-secret-env VAR (HS256), "
                        "--jwt-public-key FILE (RS256), --auth trust (a gateway in front verified the JWT) or "
                        "--auth none (no user identity)");
        return -1;
    }
    if (o->auth && !strcmp(o->auth, "none")) {
        o->svc.auth = FORGE_AUTH_NONE;
        return 0;
    }
    if (o->auth && !strcmp(o->auth, "trust")) {
        o->svc.auth = FORGE_AUTH_TRUST;
        return 0;
    }
    if (!has_key) {
        forge_cli_error("serve: --auth jwt needs --jwt-secret-env VAR or --jwt-public-key FILE");
        return -1;
    }
    o->svc.auth = FORGE_AUTH_JWT;
    if (o->secret_env) {
        const char *sec = getenv(o->secret_env);
        if (!sec || !*sec) {
            forge_cli_error("serve: --jwt-secret-env %s: the variable is not set or empty", o->secret_env);
            return -1;
        }
        if (forge_jwt_key_hs256(sec, strlen(sec), key, &err)) {
            forge_cli_error("serve: --jwt-secret-env %s: %s", o->secret_env, err.msg);
            return -1;
        }
        return 0;
    }
    char *pem = NULL;
    size_t len = 0;
    if (forge_file_read(o->pubkey, 1 << 20, &pem, &len, &err)) {
        forge_cli_error("serve: --jwt-public-key: %s", err.msg);
        return -1;
    }
    int rc = forge_jwt_key_rs256(pem, len, o->pubkey, key, &err);
    forge_free(pem);
    if (rc) {
        forge_cli_error("serve: --jwt-public-key %s", err.msg);
        return -1;
    }
    return 0;
}

int forge_cmd_serve_agent(int argc, char **argv)
{
    struct aopts o;
    memset(&o, 0, sizeof o);
    forge_server_opts_init(&o.server);
    o.server.listen = "127.0.0.1:8080";
    o.server.max_connections = 1024;
    o.server.max_body = 1u << 20; /* chat requests are small: a large body is only a cost */
    o.server.thread_per_connection = 1;
    forge_service_opts_init(&o.svc);
    forge_provider_opts_init(&o.prov);
    forge_vm_opts_init(&o.vm);
    int code = FORGE_EXIT_USAGE;
    struct forge_vm *vm = NULL;
    struct forge_jwt_key *key = NULL;
    struct forge_store *store = NULL;
    struct forge_service *svc = NULL;
    struct forge_server *http = NULL;
    struct forge_lua_agent **agents = NULL;
    int nagents = 0;
    struct forge_service_agent *sa = NULL;
    struct forge_model **owned = NULL; /* models opened from specs */
    char *dir = NULL;
    struct forge_err err = {0};
    if (parse(argc, argv, &o) || setup_auth(&o, &key))
        goto out;
    if (o.admin_env) {
        const char *t = getenv(o.admin_env);
        if (!t || strlen(t) < 16) {
            forge_cli_error("serve: --admin-token-env %s: the variable is not set or shorter than 16 bytes",
                            o.admin_env);
            goto out;
        }
        o.svc.admin_token = t;
    }
    dir = forge_path_dir(o.files[0]);
    o.vm.script_dir = dir;
    if (!dir || !(vm = forge_vm_new(&o.vm, &err))) {
        forge_cli_error("serve: %s", dir ? err.msg : "out of memory");
        goto out;
    }
    for (int f = 0; f < o.nfiles; f++) {
        struct forge_lua_agent **more = NULL;
        int nmore = 0;
        if (forge_lua_agents_load(vm, o.files[f], &more, &nmore, &err)) {
            forge_cli_error("%s", err.msg);
            code = forge_cli_exit_code(err.code);
            goto out;
        }
        struct forge_lua_agent **all = forge_realloc(agents, sizeof *all * (size_t)(nagents + nmore));
        if (!all) {
            for (int i = 0; i < nmore; i++)
                forge_lua_agent_free(more[i]);
            forge_free(more);
            forge_cli_error("out of memory");
            goto out;
        }
        agents = all;
        for (int i = 0; i < nmore; i++) {
            for (int j = 0; j < nagents; j++)
                if (!strcmp(agents[j]->s.name, more[i]->s.name)) {
                    forge_cli_error("serve: two agents have the id '%s'", more[i]->s.name);
                    for (int k = i; k < nmore; k++)
                        forge_lua_agent_free(more[k]);
                    forge_free(more);
                    goto out;
                }
            agents[nagents++] = more[i];
        }
        forge_free(more);
    }
    sa = forge_calloc((size_t)nagents, sizeof *sa);
    owned = forge_calloc((size_t)nagents, sizeof *owned);
    if (!sa || !owned) {
        forge_cli_error("out of memory");
        goto out;
    }
    for (int i = 0; i < nagents; i++) {
        struct forge_lua_agent *a = agents[i];
        struct forge_model *m = a->s.model;
        const char *spec = a->s.model_spec ? a->s.model_spec : o.model;
        if (!m && !spec) {
            forge_cli_error("serve: agent '%s' has no model (model = forge.scripted{...} or \"provider:model\"; "
                            "or --model)", a->s.name);
            goto out;
        }
        if (!m && !strncmp(spec, "scripted:", 9)) {
            if (forge_lua_scripted_load(vm, spec + 9, &owned[i], &err)) {
                forge_cli_error("%s", err.msg);
                goto out;
            }
            m = owned[i];
        } else if (!m) {
            if (!(owned[i] = forge_provider_open(spec, &o.prov, &err))) {
                forge_cli_error("serve: agent '%s': model %s: %s", a->s.name, spec, err.msg);
                goto out;
            }
            m = owned[i];
        }
        sa[i].id = a->s.name;
        sa[i].description = a->description;
        sa[i].agent.model = m;
        sa[i].agent.tools = &a->s.tools;
        sa[i].agent.verifiers = &a->s.verifiers;
        sa[i].agent.policy = &a->s.policy;
        sa[i].agent.system = a->s.system;
        sa[i].agent.params = a->s.params;
        for (int h = 0; h < 3; h++)
            sa[i].hook[h] = a->has_hook[h] ? &a->hook[h] : NULL;
        sa[i].allow_user_hitl = a->allow_user_hitl;
    }
    const char *loc = o.store ? o.store : "forge-service.db";
    if (forge_store_open(loc, &store, &err)) {
        forge_cli_error("serve: --store: %s", err.msg);
        code = err.code == FORGE_EINVAL ? FORGE_EXIT_USAGE : FORGE_EXIT_INFRA;
        goto out;
    }
    o.svc.agents = sa;
    o.svc.nagents = nagents;
    o.svc.store = store;
    o.svc.jwt_key = key;
    o.svc.max_body = o.server.max_body;
    if (!(svc = forge_service_new(&o.svc, &err))) {
        forge_cli_error("%s", err.msg);
        code = FORGE_EXIT_INFRA;
        goto out;
    }
    if ((code = forge_cli_listen("serve", &o.server, forge_service_handle, svc, o.port_file, &http)) != 0)
        goto out;
    int port = forge_server_port(http);
    static const char *const modes[] = {"?", "jwt", "trust", "none"};
    fprintf(stderr, "forge serve: agent service on port %d (%d agent%s, auth %s, store %s)\n", port, nagents,
            nagents == 1 ? "" : "s", modes[o.svc.auth], store->where);
    forge_cli_wait_signal();
    forge_server_stop(http);
    http = NULL;
    long answered, refused;
    forge_service_counts(svc, &answered, &refused);
    fprintf(stderr, "forge serve: stopped: %ld chat turn%s answered, %ld refused\n", answered,
            answered == 1 ? "" : "s", refused);
    code = FORGE_EXIT_OK;
out:
    forge_server_stop(http);
    forge_service_free(svc);
    forge_store_close(store);
    for (int i = 0; i < nagents; i++) {
        forge_model_free(owned ? owned[i] : NULL);
        forge_lua_agent_free(agents[i]);
    }
    forge_free(owned);
    forge_free(agents);
    forge_free(sa);
    forge_jwt_key_free(key);
    forge_vm_free(vm);
    forge_free(dir);
    forge_luaopts_free(&o.vm);
    return code;
}
