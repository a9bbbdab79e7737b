/* Suites defined in Lua (forge.suite{...}) turned into what the runner needs: tools with their
 * Lua functions as callables, verifiers, policy with its approval function, the scripted model,
 * validated cases and gates. */
#ifndef FORGE_LUA_L_SUITE_H
#define FORGE_LUA_L_SUITE_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "eval/suite.h"
#include "lua/vm.h"
#include "model/model.h"
#include "tools/policy.h"
#include "tools/tool.h"
#include "tools/verify.h"

struct forge_lua_spill;

struct forge_lua_suite {
    char *name;
    struct forge_toolset tools;
    struct forge_verifiers verifiers;
    struct forge_policy policy;
    struct forge_model *model; /* the suite's scripted model, or NULL */
    char *model_spec;          /* "provider:model" when the suite names one, else NULL */
    cJSON *cases;              /* validated cases, or NULL: the cases come from a source */
    /* read lazily (forge run's eval files): see forge_run_spec.next_case; not owned */
    int (*next_case)(void *ctx, cJSON **kase, struct forge_err *err);
    void *case_ctx;
    long ncases;               /* the source's number of cases */
    struct forge_lua_spill *spill; /* forge.suite's cases, written out as they were read: the
                                      source of next_case then (owned) */
    char *system;
    cJSON *params;
    int stream;                /* stream = true: ask for streamed answers */
    struct forge_gates gates;
};

/* True when the value at <idx> is a table made by forge.<kind> ("suite", "tool", ...). */
bool forge_lua_is_kind(lua_State *L, int idx, const char *kind);

/* Builds <out> from the forge.suite table at <idx> of <vm>'s stack. Errors (FORGE_EINVAL) name
 * the suite and the key ("suite 'weather': tools[2]: ..."). On failure <out> holds nothing to
 * free. */
int forge_lua_suite_load(struct forge_vm *vm, int idx, struct forge_lua_suite *out,
                         struct forge_err *err);

/* Loads a tools script (--tools FILE.lua): runs it and takes the forge.tool values it returns
 * (a list of tools, or a table of them) into <tools>. */
int forge_lua_tools_load(struct forge_vm *vm, const char *path, struct forge_toolset *tools,
                         struct forge_err *err);

/* Loads scripted rules (--model scripted:RULES.lua): runs the file, which returns a
 * forge.scripted{...} value or a plain list of rules, and makes the model. */
int forge_lua_scripted_load(struct forge_vm *vm, const char *path, struct forge_model **model,
                            struct forge_err *err);

/* Adds every verifier the scripts run in <vm> defined with forge.verifier to <out>. */
int forge_lua_registered_verifiers(struct forge_vm *vm, const char *where,
                                   struct forge_verifiers *out, struct forge_err *err);

void forge_lua_suite_free(struct forge_lua_suite *s);

/* An agent of the service (forge.agent{...}): s.name is its id; no cases. The hooks are
 * on_request, on_tool_call, on_done (callables when has_hook[i]). */
struct forge_lua_agent {
    struct forge_lua_suite s;
    char *description;
    struct forge_callable hook[3];
    int has_hook[3];
    int allow_user_hitl; /* allow_user_hitl = true: the user's hitlLevel preference applies */
};

/* Runs the agent file <path>, which returns forge.agent{...} or a list of them, and builds
 * them: *out is a new array of <n> agents (free each with forge_lua_agent_free, then the array
 * with forge_free). FORGE_EINVAL names the agent and the key. */
int forge_lua_agents_load(struct forge_vm *vm, const char *path, struct forge_lua_agent ***out, int *n,
                          struct forge_err *err);
void forge_lua_agent_free(struct forge_lua_agent *a);

struct forge_mcp_client;
/* The MCP server forge.mcp{name = <name>} opened in <vm>, or NULL. */
struct forge_mcp_client *forge_lua_mcp_client(struct forge_vm *vm, const char *name);

struct forge_probe;
/* Loads the probes of `forge probe`: the built-in ones (lua/forge/probes.lua) when <path> is
 * NULL, else the list the file <path> returns (docs/probe.md). On success *out holds <n> probes
 * (free each with forge_probe_free, then the array with forge_free). FORGE_EINVAL names the
 * probe and the key. */
int forge_lua_probes_load(struct forge_vm *vm, const char *path, struct forge_probe **out, int *n,
                          struct forge_err *err);
#endif
