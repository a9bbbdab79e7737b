/* The sandboxed Lua VM: state creation with the allow-listed libraries, the instruction /
 * memory / wall-clock limits, text-only loading, confined file access, `require` of embedded and
 * script-local modules, and forge_vm_call, the one protected-call function through which every
 * C -> Lua entry goes. See docs/internals.md "Sandbox". */
#ifndef FORGE_LUA_VM_H
#define FORGE_LUA_VM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include "base/err.h"

struct forge_vm_limits {
    uint64_t instructions; /* per entry into Lua; 0 = no budget */
    size_t memory;         /* bytes the state may hold; 0 = no cap */
    uint64_t timeout_ms;   /* wall-clock deadline per entry; 0 = none */
};

/* Defaults: 1e9 instructions, 256 MiB, 5000 ms (DESIGN.md: a runaway stops within 5 s). */
#define FORGE_VM_DEFAULT_INSTRUCTIONS 1000000000ull
#define FORGE_VM_DEFAULT_MEMORY ((size_t)256 << 20)
#define FORGE_VM_DEFAULT_TIMEOUT_MS 5000ull

struct forge_vm_opts {
    struct forge_vm_limits limits;
    const char *script_dir;       /* folder of the main script: require and relative paths */
    const char *const *allow_read; /* extra readable trees (--allow-read), may be NULL */
    int nallow_read;
    bool allow_net;
    bool allow_exec;              /* --allow-exec: forge.mcp may start server commands */
    const char *const *args;      /* forge.args */
    int nargs;
    int verbose;                  /* forge.log.debug shown when > 0; -1 = quiet */
};

struct forge_vm;

/* Fills <o> with the default limits and nothing else. */
void forge_vm_opts_init(struct forge_vm_opts *o);

/* Creates a sandboxed state (setup itself runs protected). Returns a new VM (free with
 * forge_vm_free) or NULL with <err>. */
struct forge_vm *forge_vm_new(const struct forge_vm_opts *opts, struct forge_err *err);
void forge_vm_free(struct forge_vm *vm);

/* The VM's main state (borrowed). */
lua_State *forge_vm_state(struct forge_vm *vm);
/* The VM a state (or coroutine of it) belongs to. */
struct forge_vm *forge_vm_of(lua_State *L);

/* Calls the function below <nargs> arguments on the stack in protected mode, with the limits
 * armed (unless already inside an entry, whose budget it shares) and a traceback handler.
 * Leaves <nres> results on success (LUA_MULTRET allowed). On failure leaves nothing, fills
 * <err> (message "file:line: message", traceback in err->trace) and returns FORGE_ELUA, or
 * FORGE_ELIMIT when a limit was broken (the message names the limit and the flag that raises
 * it). Never raises. */
int forge_vm_call(struct forge_vm *vm, int nargs, int nres, struct forge_err *err);
/* The same for a caller that calls often: it pushes the message handler first
 * (forge_vm_push_handler), then the function and its arguments, and calls
 * forge_vm_call_handled, which leaves the handler below the results (or alone, on failure). */
void forge_vm_push_handler(struct forge_vm *vm);
int forge_vm_call_handled(struct forge_vm *vm, int nargs, int nres, struct forge_err *err);

/* forge_vm_call with <limits> instead of the VM's own for this entry (when it is the outermost
 * one). */
int forge_vm_call_limited(struct forge_vm *vm, int nargs, int nres,
                          const struct forge_vm_limits *limits, struct forge_err *err);

/* Milliseconds left before the current entry's deadline (0 when it has passed; -1 when there is
 * no deadline or no entry is running). Bindings that block (HTTP) stay within it. */
long forge_vm_remaining_ms(struct forge_vm *vm);

/* The VM's limits. */
struct forge_vm_limits forge_vm_get_limits(struct forge_vm *vm);

/* A VM is used by one thread at a time: callers that may share one across threads (the agent
 * loop's workers calling Lua tools) hold this lock around their use. Recursive. */
void forge_vm_lock(struct forge_vm *vm);
void forge_vm_unlock(struct forge_vm *vm);

/* Loads the file at <path> as a text chunk in the user environment and pushes it as a function.
 * The file's folder must be readable under the sandbox rules. */
int forge_vm_load_file(struct forge_vm *vm, const char *path, struct forge_err *err);

/* Loads <len> bytes of <src> named <chunkname> as a text chunk in the user environment. */
int forge_vm_load_string(struct forge_vm *vm, const char *src, size_t len, const char *chunkname,
                         struct forge_err *err);

/* Resolves <path> (relative to the script folder) and checks it against the readable trees.
 * Returns a new absolute real path in *resolved (free with forge_free), or FORGE_EINVAL naming
 * the path and the flag that allows it, or FORGE_EIO when it does not exist. */
int forge_vm_resolve_read(struct forge_vm *vm, const char *path, char **resolved,
                          struct forge_err *err);

/* The script folder given at creation (borrowed). */
const char *forge_vm_script_dir(struct forge_vm *vm);
bool forge_vm_allow_net(struct forge_vm *vm);
bool forge_vm_allow_exec(struct forge_vm *vm);

/* Runs fn(ctx) when the VM is freed, after the state is closed (in the reverse order of
 * registration): for what a binding opened outside Lua (MCP servers). 0 or FORGE_ENOMEM. */
int forge_vm_at_free(struct forge_vm *vm, void (*fn)(void *ctx), void *ctx);

/* Memory the state holds now, in bytes. */
size_t forge_vm_memory(struct forge_vm *vm);

enum { FORGE_VM_LIMIT_MEMORY = 1, FORGE_VM_LIMIT_TIME = 2 };

/* Charges <bytes> that a binding is about to allocate outside the Lua allocator (cJSON trees,
 * C buffers) against the memory cap, and checks the deadline. Returns 0 when both hold;
 * otherwise breaks that limit for the current entry (pcall cannot catch it; the next Lua
 * instruction raises) and returns FORGE_ELIMIT: the caller frees what it holds and raises
 * forge_vm_limit_message(vm). Never raises itself. */
int forge_vm_charge(struct forge_vm *vm, size_t bytes);

/* Allocates <n> bytes counted against the memory cap for as long as they live (for C objects a
 * script owns, such as compiled regexes). Returns NULL when the cap would be exceeded (the
 * memory limit is then broken for the current entry) or malloc fails. Free with forge_vm_xfree.
 * Only while the VM is held by the calling thread. */
void *forge_vm_xalloc(struct forge_vm *vm, size_t n);

/* Counts <n> bytes that C holds for a script outside any allocator forge controls (a compiled
 * schema) against the memory cap until forge_vm_release gives them back. Returns 0, or
 * FORGE_ELIMIT with the memory limit broken (nothing held). */
int forge_vm_hold(struct forge_vm *vm, size_t n);
/* C work done for the script (compiling its schemas, building its tools, the errors and results
 * it asks for) runs within what the memory cap leaves, plus <held> bytes already held for it:
 * forge_vm_work_begin measures the thread's allocations (forge_alloc_measure_start), and one
 * that would pass that ceiling fails as out of memory. forge_vm_work_end stops the measure and
 * sets *<kept> (may be NULL) to the bytes the work kept; it returns 0, or FORGE_ELIMIT with the
 * memory limit broken when the ceiling refused part of the work (the caller gives the work up
 * and raises forge_vm_limit_message). Nothing may raise between the two. */
void forge_vm_work_begin(struct forge_vm *vm, size_t held);
int forge_vm_work_end(struct forge_vm *vm, size_t *kept);
void forge_vm_release(struct forge_vm *vm, size_t n);
void forge_vm_xfree(struct forge_vm *vm, void *p);

/* Breaks limit <which> (FORGE_VM_LIMIT_*) for the current entry, as the hook does. Returns
 * FORGE_ELIMIT. */
int forge_vm_break(struct forge_vm *vm, int which);

/* After a failed lua_pcall outside any entry (C building a call's arguments, reading a suite):
 * leaves nothing of it on the stack and fills <err> ("<prefix>: message") with the memory limit's
 * message when the cap refused an allocation, else with Lua's message. Returns the error code
 * (FORGE_ELIMIT, FORGE_ENOMEM or FORGE_ELUA). */
int forge_vm_pcall_error(struct forge_vm *vm, int status, const char *prefix,
                         struct forge_err *err);

/* The message of the last broken limit, naming the limit and its flag (borrowed). */
const char *forge_vm_limit_message(struct forge_vm *vm);

/* Raises a Lua error if the VM has been killed by a limit (for C bindings that ran long). */
void forge_vm_check_killed(lua_State *L);
#endif
