/* Tools: definitions, the registry, and the executors that produce a tool call's result.
 *
 * A tool is defined by JSON (forge's tool JSON, an OpenAI `tools` entry, an MCP tool) or by Lua
 * (forge.tool{...}, which adds functions as callables). Executors, tried in this order:
 *   - run:       a user function (callable) run(args, call) -> result
 *   - responses: canned results chosen by arguments: the first entry whose `when` is a subset of
 *                the arguments (numbers by value); `fallback` otherwise
 *   - template:  a template string rendered with the call ({{args.city}}, {{tool}}, {{index}},
 *                {{id}}, {{round}}) and parsed as JSON (non-JSON text becomes {"result": text}),
 *                or a user function template(args, call) -> result
 *   - mock:      a static result
 *   - http:      an HTTP endpoint (see tool_http.c)
 * A call's result is any JSON value, or an error message (the model sees it as the tool's
 * error result; the run goes on). */
#ifndef FORGE_TOOLS_TOOL_H
#define FORGE_TOOLS_TOOL_H
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "base/strtab.h"
#include "data/callable.h"

struct forge_schema;

enum forge_tool_kind {
    FORGE_TOOL_NONE = 0, /* defined without an executor: only stubs can answer it */
    FORGE_TOOL_RUN,
    FORGE_TOOL_RESPONSES,
    FORGE_TOOL_TEMPLATE,
    FORGE_TOOL_MOCK,
    FORGE_TOOL_HTTP,
};

struct forge_tool {
    char *name;                   /* owned */
    cJSON *def;                   /* owned: name, description, parameters (JSON Schema) and the
                                     agent-tool-forge fields (category, consequenceLevel,
                                     requiresConfirmation, triggerPhrases, timeout, tags) */
    struct forge_schema *schema;  /* compiled parameters; NULL when the tool declares none */
    struct forge_schema *out_schema; /* compiled output_schema (outputSchema): every result is
                                        validated against it; NULL when none is declared */
    enum forge_tool_kind kind;
    struct forge_callable fn;     /* RUN, or TEMPLATE given as a function */
    bool has_fn;
    cJSON *data;                  /* MOCK: the result; RESPONSES: the entries; HTTP: the http
                                     table; TEMPLATE: the template string (owned) */
    cJSON *fallback;              /* RESPONSES: result when nothing matches (owned, may be NULL) */
    long timeout_ms;              /* 0: the policy's default */
    bool coerce;                  /* coerce arguments to the schema before validating */
    bool net_allowed;             /* HTTP executor may connect (tools from scripts need
                                     --allow-net; tools from JSON files given on the command
                                     line are trusted) */
    void (*free_fn)(void *ctx);   /* frees fn.ctx, may be NULL */
};

/* What a user function or template sees of the call. */
struct forge_tool_call {
    const char *id;
    int index;              /* 1-based, over the whole case */
    int round;
    const cJSON *arguments; /* borrowed */
    const cJSON *messages;  /* the conversation so far (normalized chat messages), borrowed */
};

/* Builds a tool from its JSON definition (borrowed). Accepts forge's own fields (`name`,
 * `description`, `parameters` | `schema` | `input_schema` | `inputSchema`, `mock`, `responses`
 * with `fallback`, `template`, `http`, `timeout`/`timeout_ms`, `coerce`, ...), an OpenAI
 * `{"type": "function", "function": {...}}` entry and an MCP tool. An agent-tool-forge flat
 * schema ({"city": {"type": "string", "optional": true}}) becomes a JSON Schema object.
 * <where> names the definition in messages (file or "tool 'x'"). Returns a new tool (free with
 * forge_tool_free) or NULL with FORGE_EINVAL naming the key. */
struct forge_tool *forge_tool_from_json(const cJSON *def, const char *where, struct forge_err *err);

/* Gives the tool a function executor (takes <fn>; <free_fn> frees fn.ctx). <template> says the
 * function is a mock template rather than `run`. */
void forge_tool_set_function(struct forge_tool *t, struct forge_callable fn, bool is_template,
                             void (*free_fn)(void *ctx));

void forge_tool_free(struct forge_tool *t);

/* Runs the tool's executor for <call>. On success sets *result (new tree) and returns 0; when
 * the tool itself fails (raises, times out, HTTP error, ...) sets *error (new string, free with
 * forge_free) and returns 0 as well: a tool failure is data. A result that does not match the
 * tool's output_schema is such a failure too ("result of tool 'x' does not match its
 * output_schema: <error> at <location>"). Returns a negative code only when forge itself cannot
 * go on (out of memory). */
int forge_tool_execute(const struct forge_tool *t, const struct forge_tool_call *call,
                       cJSON **result, char **error, struct forge_err *err);

/* Where a running tool's progress and log messages go. `forge mcp serve` sets one on its thread
 * around each call it serves; elsewhere there is none, and they go nowhere. The callbacks copy
 * what they keep: the strings are borrowed for the call. */
struct forge_tool_notifier {
    /* <total> is NAN when not known; <message> may be NULL */
    void (*progress)(void *ctx, double progress, double total, const char *message);
    /* <level>: debug, info, warning or error; <text> of <len> bytes (no NUL inside) */
    void (*log)(void *ctx, const char *level, const char *text, size_t len);
    void *ctx;
};
/* Sets the calling thread's notifier (borrowed until it is cleared with NULL). */
void forge_tool_notifier_set(const struct forge_tool_notifier *n);
/* The calling thread's notifier, or NULL. */
const struct forge_tool_notifier *forge_tool_notifier(void);

/* Renders a template string against <scope> ({"args": ..., "tool": ..., "index": ..., ...}):
 * {{path}} inserts the value at <path> (strings JSON-escaped without quotes, other values as
 * JSON); a missing path inserts nothing. Sets *<out> to a new string of at most <max> bytes;
 * returns 0, FORGE_ELIMIT when the text would pass <max>, or FORGE_ENOMEM. */
int forge_tool_render(const char *tmpl, const cJSON *scope, size_t max, char **out);

/* The definition sent to models: {"name", "description", "parameters"}. A new object whose
 * members are references to the tool's own name, description and schema (not copied): free it
 * with cJSON_Delete before the tool, and do not change it. */
cJSON *forge_tool_model_def(const struct forge_tool *t);

/* The registry: tools by name, in definition order. */
struct forge_toolset {
    struct forge_tool **v;
    int n, cap;
    struct forge_strtab names; /* the tools' names -> their index: a suite may define
                                  thousands, and every call looks its tool up */
};

/* Adds <t> (taken). A second tool of the same name is FORGE_EINVAL (t is freed). */
int forge_toolset_add(struct forge_toolset *s, struct forge_tool *t, struct forge_err *err);
/* Borrows the tool named <name>, or NULL. */
const struct forge_tool *forge_toolset_find(const struct forge_toolset *s, const char *name);
void forge_toolset_free(struct forge_toolset *s);

/* Loads tools from a JSON file (YAML when the name ends in .yaml or .yml): one definition, an
 * array of them (forge's or OpenAI `tools`), or an MCP tools/list result ({"tools": [...]}); a
 * definition may also be a PromptKit tool descriptor (tools/promptkit.h). A YAML file may hold
 * several documents (---), each one of these. Errors in YAML files name file:line:col. */
int forge_toolset_load_file(struct forge_toolset *s, const char *path, struct forge_err *err);
#endif
