/* What the serving commands (forge serve, forge serve --agent, forge mcp serve --listen) share:
 * starting the embedded server and waiting for the signal that stops it. */
#include "cli/cli.h"
#include "base/file.h"
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
