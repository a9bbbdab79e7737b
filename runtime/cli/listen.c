/* What the serving commands (forge serve, forge serve --agent, forge mcp serve --listen) share:
 * starting the embedded server and waiting for the signal that stops it. */
#include "cli/cli.h"
#include "base/file.h"
#include "cli/luaopts.h"
#include "model/provider.h"
#include "server/server.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int forge_cli_listen(const char *who, const struct forge_server_opts *o, forge_server_handler h, void *ctx,
                     const char *port_file, struct forge_server **http)
{
    /* blocked before the server's threads start, so only the waiting thread takes them */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct forge_err err = {0};
    if (forge_server_start(o, h, ctx, http, &err)) {
        forge_cli_error("%s: %s", who, err.msg);
        return err.code == FORGE_EINVAL ? FORGE_EXIT_USAGE : FORGE_EXIT_INFRA;
    }
    if (port_file) {
        char text[16];
        snprintf(text, sizeof text, "%d\n", forge_server_port(*http));
        if (forge_file_write_atomic(port_file, text, strlen(text), &err)) {
            forge_cli_error("%s: --port-file: %s", who, err.msg);
            return FORGE_EXIT_USAGE;
        }
    }
    return FORGE_EXIT_OK;
}

void forge_cli_wait_signal(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
        ;
}

int forge_cli_serve_common_opt(struct forge_provider_opts *prov, struct forge_vm_opts *vm, int argc, char **argv,
                               int *i)
{
    struct forge_err err = {0};
    int r = forge_provider_opts_arg(prov, argc, argv, i, &err);
    if (r < 0) {
        forge_cli_error("serve: %s", err.msg);
        return -1;
    }
    if (r == 1) {
        (*i)--; /* forge_provider_opts_arg leaves *i past the option; the caller's loop steps on */
        return 1;
    }
    return forge_luaopts_parse(argc, argv, i, vm);
}

int forge_cli_server_opt(const char *cmd, const char *flag, const char *v, struct forge_server_opts *o,
                         const char **port_file)
{
    long n;
    if (!strcmp(flag, "--listen")) {
        o->listen = v;
    } else if (!strcmp(flag, "--port-file")) {
        *port_file = v;
    } else if (!strcmp(flag, "--max-body-mb")) {
        if (forge_cli_whole(cmd, flag, v, 1, 4096, &n))
            return -1;
        o->max_body = (size_t)n << 20;
    } else if (!strcmp(flag, "--threads")) {
        if (forge_cli_whole(cmd, flag, v, 1, 1024, &n))
            return -1;
        o->threads = (unsigned)n;
    } else if (!strcmp(flag, "--max-connections")) {
        if (forge_cli_whole(cmd, flag, v, 1, 1000000, &n))
            return -1;
        o->max_connections = (unsigned)n;
    } else if (!strcmp(flag, "--idle-timeout")) {
        if (forge_cli_whole(cmd, flag, v, 1, 86400, &n))
            return -1;
        o->idle_timeout_s = (unsigned)n;
    } else {
        return 0;
    }
    return 1;
}
