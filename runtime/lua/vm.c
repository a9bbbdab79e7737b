/* The sandboxed Lua VM: allow-listed libraries, limits, protected calls, confined loading. */
#include "lua/vm.h"
#include "lua/embedded.h"
#include "lua/modules.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/file.h"

#include <lauxlib.h>
#include <lualib.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

/* How often the count hook runs, in VM instructions. */
#define HOOK_INTERVAL 1000
/* How long past its deadline an entry may run inside C code before the watchdog stops forge. */
#define WATCHDOG_GRACE_MS 2000

enum kill_reason { KILL_NONE = 0, KILL_INSTRUCTIONS, KILL_TIME, KILL_MEMORY };

/* The state's small blocks (tables, strings, closures: most of what an entry makes and drops)
 * are kept on free lists by 16-byte class and reused, instead of a round trip through malloc
 * for each; the lists hold at most POOL_MAX bytes, the rest goes back to malloc. */
#define POOL_GRAIN 16
#define POOL_CLASSES 16 /* blocks up to 256 bytes */
#define POOL_MAX ((size_t)1 << 20)

struct forge_vm {
    lua_State *L;
    struct forge_vm_limits limits;
    size_t mem_used;
    int mem_refused;       /* the allocator refused this request because of the cap: */
    void *refused_ptr;
    size_t refused_osize, refused_nsize;
    uint64_t count;        /* instructions run in the current entry */
    uint64_t deadline_ns;  /* monotonic deadline of the current entry; 0 = none */
    int depth;             /* nesting of forge_vm_call */
    enum kill_reason killed;
    char kill_msg[512];
    char *script_dir;      /* real path */
    char **roots;          /* readable trees (real paths) */
    int nroots;
    bool allow_net, allow_exec;
    struct { void (*fn)(void *); void *ctx; } at_free[8];
    int nat_free;
    int verbose;
    _Atomic uint64_t watch_deadline_ns; /* read by the watchdog thread */
    pthread_mutex_t lock;      /* recursive; see forge_vm_lock */
    struct forge_vm *watch_next;
    /* Freed small blocks of the state, by size class (see vm_alloc) */
    void *pool[POOL_CLASSES];
    size_t pooled;             /* bytes held in the pool */
};

/* ---- watchdog: stops forge when an entry outlives its deadline inside C code ---- */

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct forge_vm *watch_list;
static int watch_started;

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        uint64_t now = forge_clock_ns();
        pthread_mutex_lock(&watch_lock);
        for (struct forge_vm *vm = watch_list; vm; vm = vm->watch_next) {
            uint64_t d = atomic_load(&vm->watch_deadline_ns);
            if (d && now > d + (uint64_t)WATCHDOG_GRACE_MS * 1000000u) {
                char msg[512];
                int n = snprintf(msg, sizeof msg,
                                 "forge: a Lua call ran %d ms past its deadline of %llu ms inside "
                                 "a C function that cannot be interrupted (such as a Lua pattern "
                                 "match on a huge string); stopping. Raise the deadline with "
                                 "--lua-timeout MS.\n",
                                 WATCHDOG_GRACE_MS, (unsigned long long)vm->limits.timeout_ms);
                if (n > 0 && write(2, msg, (size_t)n) < 0)
                    n = 0;
                _exit(2);
            }
        }
        pthread_mutex_unlock(&watch_lock);
    }
    return NULL;
}

static void watch_add(struct forge_vm *vm)
{
    pthread_mutex_lock(&watch_lock);
    if (!watch_started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, watchdog, NULL) == 0)
            watch_started = 1;
        pthread_attr_destroy(&attr);
    }
    vm->watch_next = watch_list;
    watch_list = vm;
    pthread_mutex_unlock(&watch_lock);
}

static void watch_remove(struct forge_vm *vm)
{
    pthread_mutex_lock(&watch_lock);
    for (struct forge_vm **p = &watch_list; *p; p = &(*p)->watch_next) {
        if (*p == vm) {
            *p = vm->watch_next;
            break;
        }
    }
    pthread_mutex_unlock(&watch_lock);
}

/* ---- memory ---- */

static void kill_vm(struct forge_vm *vm, enum kill_reason why);

/* The allocator behind the state, counting every byte against the cap. A refused request stays
 * refused: Lua retries the very same request once after an emergency collection, and only that
 * retry may still succeed; any other allocation after a refusal means the script went on past
 * it (Lua raised "not enough memory" and something caught it), so the limit is broken for the
 * rest of the entry and nothing - pcall, __close, an error handler - can clear it. */
static size_t pool_class(size_t n)
{
    return (n + POOL_GRAIN - 1) / POOL_GRAIN - 1;
}

static void pool_put(struct forge_vm *vm, void *p, size_t size)
{
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer sees every block, so a use after free stays visible */
    (void)size;
    free(p);
    return;
#endif
    if (size == 0 || size > POOL_GRAIN * POOL_CLASSES || vm->pooled >= POOL_MAX) {
        free(p);
        return;
    }
    size_t c = pool_class(size);
    *(void **)p = vm->pool[c];
    vm->pool[c] = p;
    vm->pooled += (c + 1) * POOL_GRAIN;
}

/* A block of at least <size> bytes: from the pool for small sizes, else malloc. */
static void *pool_get(struct forge_vm *vm, size_t size)
{
#if defined(__SANITIZE_ADDRESS__)
    return malloc(size); /* exact sizes: an overflow into the rounding is caught too */
#endif
    if (size > POOL_GRAIN * POOL_CLASSES)
        return malloc(size);
    size_t c = pool_class(size);
    void *p = vm->pool[c];
    if (p) {
        vm->pool[c] = *(void **)p;
        vm->pooled -= (c + 1) * POOL_GRAIN;
        return p;
    }
    return malloc((c + 1) * POOL_GRAIN);
}

static void pool_free_all(struct forge_vm *vm)
{
    for (int c = 0; c < POOL_CLASSES; c++) {
        while (vm->pool[c]) {
            void *p = vm->pool[c];
            vm->pool[c] = *(void **)p;
            free(p);
        }
    }
    vm->pooled = 0;
}

/* realloc over the pool: a block keeps its place while its size stays in its class. */
static void *pool_realloc(struct forge_vm *vm, void *ptr, size_t osize, size_t nsize)
{
#if defined(__SANITIZE_ADDRESS__)
    (void)vm;
    (void)osize;
    return realloc(ptr, nsize); /* no pool: see pool_put */
#endif
    size_t small = POOL_GRAIN * POOL_CLASSES;
    if (ptr && osize > small && nsize > small)
        return realloc(ptr, nsize);
    if (ptr && osize <= small && nsize <= small && pool_class(osize) == pool_class(nsize))
        return ptr;
    void *p = pool_get(vm, nsize);
    if (!p)
        return NULL;
    if (ptr) {
        memcpy(p, ptr, osize < nsize ? osize : nsize);
        pool_put(vm, ptr, osize);
    }
    return p;
}

static void *vm_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct forge_vm *vm = ud;
    if (!ptr)
        osize = 0;
    if (nsize == 0) {
        if (ptr)
            pool_put(vm, ptr, osize);
        vm->mem_used -= osize;
        return NULL;
    }
    int grows = nsize > osize;
    int retry = vm->mem_refused && ptr == vm->refused_ptr && osize == vm->refused_osize &&
                nsize == vm->refused_nsize;
    if (grows && vm->mem_refused && !retry && vm->depth > 0 && !vm->killed)
        kill_vm(vm, KILL_MEMORY);
    if (grows && vm->limits.memory && vm->mem_used + (nsize - osize) > vm->limits.memory) {
        if (retry && vm->depth > 0 && !vm->killed)
            kill_vm(vm, KILL_MEMORY);
        vm->mem_refused = 1;
        vm->refused_ptr = ptr;
        vm->refused_osize = osize;
        vm->refused_nsize = nsize;
        return NULL;
    }
    void *p = pool_realloc(vm, ptr, osize, nsize);
    if (!p)
        return nsize <= osize ? ptr : NULL; /* a shrink never fails */
    vm->mem_used = vm->mem_used - osize + nsize;
    if (grows)
        vm->mem_refused = 0;
    return p;
}

/* Outside allocations that live as long as a script's objects (compiled regexes and their match
 * heap) come from here: they count in mem_used like the state's own. A size header in front
 * keeps the count exact on free. */
#define XHDR 16

void *forge_vm_xalloc(struct forge_vm *vm, size_t n)
{
    size_t cap = vm->limits.memory;
    if (n > SIZE_MAX - XHDR || (cap && (n + XHDR > cap || vm->mem_used > cap - (n + XHDR)))) {
        forge_vm_break(vm, FORGE_VM_LIMIT_MEMORY);
        return NULL;
    }
    unsigned char *p = malloc(n + XHDR);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    vm->mem_used += n + XHDR;
    return p + XHDR;
}

int forge_vm_hold(struct forge_vm *vm, size_t n)
{
    size_t cap = vm->limits.memory;
    if (cap && (n > cap || vm->mem_used > cap - n))
        return forge_vm_break(vm, FORGE_VM_LIMIT_MEMORY);
    vm->mem_used += n;
    return 0;
}

void forge_vm_work_begin(struct forge_vm *vm, size_t held)
{
    size_t cap = vm->limits.memory;
    size_t room = !cap ? SIZE_MAX : vm->mem_used < cap ? cap - vm->mem_used : 0;
    /* (the collector runs on: a finalizer a step runs frees outside the measure, see
     * forge_alloc_measure_pause) */
    forge_alloc_measure_start(room > SIZE_MAX - held ? SIZE_MAX : room + held);
}

int forge_vm_work_end(struct forge_vm *vm, size_t *kept)
{
    size_t k = forge_alloc_measure_stop();
    if (kept)
        *kept = k;
    return forge_alloc_measure_refused() ? forge_vm_break(vm, FORGE_VM_LIMIT_MEMORY) : 0;
}

void forge_vm_release(struct forge_vm *vm, size_t n)
{
    vm->mem_used -= n;
}

void forge_vm_xfree(struct forge_vm *vm, void *ptr)
{
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - XHDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    vm->mem_used -= n + XHDR;
    free(p);
}

/* ---- limits ---- */

static struct forge_vm *vm_of(lua_State *L)
{
    return *(struct forge_vm **)lua_getextraspace(L);
}

struct forge_vm *forge_vm_of(lua_State *L)
{
    return vm_of(L);
}

static void kill_vm(struct forge_vm *vm, enum kill_reason why)
{
    vm->killed = why;
    switch (why) {
    case KILL_INSTRUCTIONS:
        snprintf(vm->kill_msg, sizeof vm->kill_msg,
                 "instruction limit exceeded: the script ran more than %llu Lua instructions in "
                 "one call; raise it with --lua-instructions N",
                 (unsigned long long)vm->limits.instructions);
        break;
    case KILL_TIME:
        snprintf(vm->kill_msg, sizeof vm->kill_msg,
                 "time limit exceeded: the script ran longer than %llu ms in one call; raise it "
                 "with --lua-timeout MS",
                 (unsigned long long)vm->limits.timeout_ms);
        break;
    case KILL_MEMORY:
        snprintf(vm->kill_msg, sizeof vm->kill_msg,
                 "memory limit exceeded: the script needed more than %zu MiB; raise it with "
                 "--lua-memory MIB",
                 vm->limits.memory >> 20);
        break;
    default:
        break;
    }
}

static void hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct forge_vm *vm = vm_of(L);
    if (!vm->killed && vm->depth > 0) {
        vm->count += HOOK_INTERVAL;
        if (vm->limits.instructions && vm->count > vm->limits.instructions)
            kill_vm(vm, KILL_INSTRUCTIONS);
        else if (vm->deadline_ns && forge_clock_ns() > vm->deadline_ns)
            kill_vm(vm, KILL_TIME);
    }
    if (vm->killed) {
        /* Fire on every instruction from now on, so no handler gets to run long. */
        lua_sethook(L, hook, LUA_MASKCOUNT, 1);
        lua_Debug where;
        if (lua_getstack(L, 0, &where) && lua_getinfo(L, "Sl", &where) && where.currentline > 0)
            luaL_error(L, "%s:%d: %s", where.short_src, where.currentline, vm->kill_msg);
        luaL_error(L, "%s", vm->kill_msg);
    }
}

/* Outside allocations (cJSON trees, output buffers) do not go through vm_alloc, so the bindings
 * that build them charge their size here first: otherwise one shared table referenced a million
 * times would turn into gigabytes of C memory behind the cap's back. */
int forge_vm_charge(struct forge_vm *vm, size_t bytes)
{
    size_t cap = vm->limits.memory;
    if (cap && (bytes > cap || vm->mem_used > cap - bytes))
        return forge_vm_break(vm, FORGE_VM_LIMIT_MEMORY);
    if (vm->depth > 0 && vm->deadline_ns && forge_clock_ns() > vm->deadline_ns)
        return forge_vm_break(vm, FORGE_VM_LIMIT_TIME);
    return 0;
}

int forge_vm_break(struct forge_vm *vm, int which)
{
    kill_vm(vm, which == FORGE_VM_LIMIT_TIME ? KILL_TIME : KILL_MEMORY);
    /* Outside an entry there is nothing to stop; keep only the message. */
    if (vm->depth == 0)
        vm->killed = KILL_NONE;
    return FORGE_ELIMIT;
}

int forge_vm_pcall_error(struct forge_vm *vm, int status, const char *prefix,
                         struct forge_err *err)
{
    int rc;
    if (status == LUA_ERRMEM && vm->mem_refused && vm->limits.memory) {
        kill_vm(vm, KILL_MEMORY);
        if (vm->depth == 0)
            vm->killed = KILL_NONE;
        rc = forge_err_set(err, FORGE_ELIMIT, "%s: %s", prefix, vm->kill_msg);
    } else {
        const char *m = lua_tostring(vm->L, -1);
        rc = forge_err_set(err, status == LUA_ERRMEM ? FORGE_ENOMEM : FORGE_ELUA, "%s: %s",
                           prefix, m ? m : "error");
    }
    lua_pop(vm->L, 1);
    return rc;
}

const char *forge_vm_limit_message(struct forge_vm *vm)
{
    return vm->kill_msg;
}

void forge_vm_check_killed(lua_State *L)
{
    struct forge_vm *vm = vm_of(L);
    if (!vm->killed && vm->depth > 0 && vm->deadline_ns && forge_clock_ns() > vm->deadline_ns)
        kill_vm(vm, KILL_TIME);
    if (vm->killed)
        luaL_error(L, "%s", vm->kill_msg);
}

/* pcall and xpcall as in lbaselib.c, except that a broken limit is re-raised. */
static int finish_pcall(lua_State *L, int status, lua_KContext extra)
{
    struct forge_vm *vm = vm_of(L);
    if (status != LUA_OK && status != LUA_YIELD && vm->mem_refused && !vm->killed)
        kill_vm(vm, KILL_MEMORY);
    if (vm->killed)
        return luaL_error(L, "%s", vm->kill_msg);
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int l_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_pcall);
    return finish_pcall(L, status, 0);
}

/* The user's message handler, skipped once a limit is broken: a limit is raised from the hook,
 * and Lua runs message handlers for hook errors with hooks off, so a looping handler could not
 * be stopped. */
static int xpcall_handler(lua_State *L)
{
    if (vm_of(L)->killed)
        return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int l_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_pcall);
    return finish_pcall(L, status, 2);
}

/* coroutine.resume catches errors like pcall: re-raise a broken limit. */
static int l_resume(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    struct forge_vm *vm = vm_of(L);
    if (!vm->killed && vm->mem_refused && lua_toboolean(L, 1) == 0)
        kill_vm(vm, KILL_MEMORY);
    if (vm->killed)
        return luaL_error(L, "%s", vm->kill_msg);
    return lua_gettop(L);
}

/* coroutine.close catches errors raised by pending __close metamethods: re-raise a broken
 * limit. */
static int l_close(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    struct forge_vm *vm = vm_of(L);
    if (!vm->killed && vm->mem_refused && lua_toboolean(L, 1) == 0)
        kill_vm(vm, KILL_MEMORY);
    if (vm->killed)
        return luaL_error(L, "%s", vm->kill_msg);
    return lua_gettop(L);
}

/* setmetatable without __gc: finalizers run with hooks off, so a looping one could not be
 * stopped. */
static int l_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        int has = lua_rawget(L, 2) != LUA_TNIL; /* raw, as Lua itself looks for a finalizer */
        lua_pop(L, 1);
        if (has)
            return luaL_error(L, "setmetatable: __gc metamethods are not allowed in forge scripts");
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* load: text chunks only, in the user environment unless one is given. */
static int l_load(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checkany(L, 1);
    const char *name = luaL_optstring(L, 2, NULL);
    const char *mode = luaL_optstring(L, 3, "t");
    if (strcmp(mode, "t") != 0)
        return luaL_error(L, "load: only text chunks are allowed (mode \"t\"), not \"%s\"", mode);
    lua_getglobal(L, "load"); /* the original, kept in the host's own _G */
    lua_pushvalue(L, 1);
    if (name)
        lua_pushstring(L, name);
    else
        lua_pushnil(L);
    lua_pushliteral(L, "t");
    if (n >= 4)
        lua_pushvalue(L, 4);
    else
        lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 4, 2);
    /* load catches errors raised by a reader function, a broken limit among them: re-raise. */
    struct forge_vm *vm = vm_of(L);
    if (!vm->killed && vm->mem_refused && lua_isnil(L, -2))
        kill_vm(vm, KILL_MEMORY);
    if (vm->killed)
        return luaL_error(L, "%s", vm->kill_msg);
    return 2;
}

static int l_print(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    fwrite(s, 1, len, stdout);
    fflush(stdout);
    return 0;
}

/* ---- environments ---- */

static const char *const base_allowed[] = {
    "assert", "error", "getmetatable", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen",
    "rawset", "select", "tonumber", "tostring", "type", "_VERSION", "warn", NULL,
};

static const char *const libs_allowed[] = {"string", "table", "math", "utf8", "coroutine", NULL};

/* Pushes a copy of the table at <idx> (shallow). */
static void copy_table(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
}

/* Pushes a new environment: allow-listed globals, copies of the allowed libraries, the wrapped
 * pcall/xpcall/load/setmetatable, require. */
static void push_env(lua_State *L)
{
    lua_newtable(L);
    int env = lua_gettop(L);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    for (const char *const *p = base_allowed; *p; p++) {
        lua_getfield(L, g, *p);
        lua_setfield(L, env, *p);
    }
    for (const char *const *p = libs_allowed; *p; p++) {
        lua_getfield(L, g, *p);
        copy_table(L, -1);
        lua_remove(L, -2);
        if (strcmp(*p, "string") == 0) {
            lua_pushnil(L);
            lua_setfield(L, -2, "dump");
        } else if (strcmp(*p, "coroutine") == 0) {
            lua_getfield(L, -1, "resume");
            lua_pushcclosure(L, l_resume, 1);
            lua_setfield(L, -2, "resume");
            lua_getfield(L, -1, "close");
            lua_pushcclosure(L, l_close, 1);
            lua_setfield(L, -2, "close");
        }
        lua_setfield(L, env, *p);
    }
    lua_pushcfunction(L, l_pcall);
    lua_setfield(L, env, "pcall");
    lua_pushcfunction(L, l_xpcall);
    lua_setfield(L, env, "xpcall");
    lua_getfield(L, g, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setfield(L, env, "setmetatable");
    lua_pushvalue(L, env);
    lua_pushcclosure(L, l_load, 1);
    lua_setfield(L, env, "load");
    lua_pushcfunction(L, l_print);
    lua_setfield(L, env, "print");
    lua_getfield(L, LUA_REGISTRYINDEX, "forge.require");
    lua_setfield(L, env, "require");
    lua_pushvalue(L, env);
    lua_setfield(L, env, "_G");
    lua_pop(L, 1); /* global table */
}

/* ---- require ---- */

static const struct forge_embedded *find_embedded(const char *name)
{
    for (const struct forge_embedded *e = forge_embedded_lua; e->module; e++)
        if (strcmp(e->module, name) == 0)
            return e;
    return NULL;
}

/* Whether the name <a> (of <la> bytes) is to be preferred to <b>: the shorter, then the first in
 * byte order. */
static bool name_before(const char *a, size_t la, const char *b, size_t lb)
{
    return la != lb ? la < lb : memcmp(a, b, la) < 0;
}

/* Names the functions of forge's module <name> (its table at <mod>) for lauxlib, which names a
 * function that has no name at its call site (pcall(forge.json.decode, t)) by finding it in a
 * table of the registry's loaded modules: one table there, "forge", which scripts cannot
 * reach, maps "json.decode" (or "tool", for the forge table's own) to each function. A
 * function reachable under two names (forge.assertion is forge.eval's) keeps one, the same on
 * every run whatever order the modules load in: the shorter, then the first in byte order (a
 * table's own order changes from run to run). Raw reads alone: no script code runs. */
static void name_functions(lua_State *L, int mod, const char *name)
{
    if (!lua_istable(L, mod))
        return;
    const char *prefix = !strcmp(name, "forge") ? "" : !strncmp(name, "forge.", 6) ? name + 6 : name;
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    luaL_getsubtable(L, -1, "forge"); /* names -> functions */
    int names = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, "forge.fnames"); /* functions -> names */
    int rev = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, mod)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_isfunction(L, -1)) {
            if (*prefix)
                lua_pushfstring(L, "%s.%s", prefix, lua_tostring(L, -2));
            else
                lua_pushvalue(L, -2);
            size_t lk, lo;
            const char *k = lua_tolstring(L, -1, &lk);
            lua_pushvalue(L, -2);
            lua_rawget(L, rev); /* its name so far, or nil */
            const char *old = lua_tolstring(L, -1, &lo);
            if (!old || name_before(k, lk, old, lo)) {
                if (old) {
                    lua_pushnil(L);
                    lua_rawset(L, names); /* (pops the old name and the nil) */
                } else {
                    lua_pop(L, 1);
                }
                lua_pushvalue(L, -1); /* the name */
                lua_pushvalue(L, -3); /* the function */
                lua_rawset(L, names);
                lua_pushvalue(L, -2); /* the function */
                lua_pushvalue(L, -2); /* the name */
                lua_rawset(L, rev);
                lua_pop(L, 1); /* the name */
            } else {
                lua_pop(L, 2);
            }
        }
        lua_pop(L, 1); /* the value */
    }
    lua_pop(L, 3);
}

/* require(name): C modules of forge, embedded lua/ modules (each in its own environment), or
 * NAME.lua under the script's folder (in the user environment). */
static int l_require(lua_State *L)
{
    size_t nlen;
    const char *name = luaL_checklstring(L, 1, &nlen);
    if (strlen(name) != nlen) /* C would see only the part before the NUL */
        return luaL_error(L, "require: invalid module name (it contains a NUL byte)");
    lua_getfield(L, LUA_REGISTRYINDEX, "forge.loaded");
    int loaded = lua_gettop(L);
    if (lua_getfield(L, loaded, name) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    const struct forge_module *cm = forge_lua_find_module(name);
    const struct forge_embedded *em = cm ? NULL : find_embedded(name);
    if (cm) {
        lua_pushcfunction(L, cm->open);
        lua_call(L, 0, 1);
    } else if (em) {
        if (luaL_loadbufferx(L, em->text, em->len, em->chunkname, "t") != LUA_OK)
            return lua_error(L);
        push_env(L);
        lua_setupvalue(L, -2, 1);
        lua_pushstring(L, name);
        lua_call(L, 1, 1);
    } else {
        struct forge_vm *vm = vm_of(L);
        if (strstr(name, "..") || name[0] == '/' || name[0] == '.')
            return luaL_error(L, "require: invalid module name '%s'", name);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addstring(&b, vm->script_dir);
        luaL_addchar(&b, '/');
        for (const char *p = name; *p; p++)
            luaL_addchar(&b, *p == '.' ? '/' : *p);
        luaL_addstring(&b, ".lua");
        luaL_pushresult(&b);
        const char *path = lua_tostring(L, -1);
        if (access(path, R_OK) != 0)
            return luaL_error(L, "module '%s' not found: not a forge module and no file %s "
                              "(modules load from the script's folder)", name, path);
        /* The file may be a symbolic link: it must resolve inside the readable trees, as for
         * forge.read_file, or its first line would leak through the syntax error. */
        struct forge_err err = {0};
        char *real = NULL;
        if (forge_vm_resolve_read(vm, path, &real, &err))
            return luaL_error(L, "require '%s': %s", name, err.msg);
        struct stat st;
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) { /* a FIFO would block */
            lua_pushfstring(L, "require '%s': %s is not a regular file", name, real);
            forge_free(real);
            return lua_error(L);
        }
        int rc = forge_vm_load_file(vm, real, &err);
        forge_free(real);
        if (rc)
            return luaL_error(L, "%s", err.msg);
        lua_pushstring(L, name);
        lua_call(L, 1, 1);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, loaded, name);
    if (cm || em)
        name_functions(L, lua_gettop(L), name);
    return 1;
}

/* ---- setup ---- */

static int setup(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},          {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},    {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},    {LUA_COLIBNAME, luaopen_coroutine},
        {NULL, NULL},
    };
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    /* Reproducible runs: a fixed seed (scripts may reseed). */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, 0);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
    /* string.dump is removed from the shared library itself, not only from the scripts' copies:
     * the string metatable's __index is that library, so ("").dump would reach it. */
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    /* Lock the string metatable: scripts cannot reach or change the shared string library. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "forge.loaded");
    lua_pushcfunction(L, l_require);
    lua_setfield(L, LUA_REGISTRYINDEX, "forge.require");
    push_env(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "forge.env");
    return 0;
}

void forge_vm_opts_init(struct forge_vm_opts *o)
{
    memset(o, 0, sizeof *o);
    o->limits.instructions = FORGE_VM_DEFAULT_INSTRUCTIONS;
    o->limits.memory = FORGE_VM_DEFAULT_MEMORY;
    o->limits.timeout_ms = FORGE_VM_DEFAULT_TIMEOUT_MS;
}

static char *real_or_copy(const char *p)
{
    char buf[PATH_MAX];
    if (realpath(p, buf))
        return forge_strdup(buf);
    return NULL;
}

void forge_vm_free(struct forge_vm *vm)
{
    if (!vm)
        return;
    /* lua_close runs pending finalizers, with hooks off: keep the watchdog on them, so one
     * that never ends (none should exist: see l_setmetatable) stops forge instead of hanging. */
    if (vm->L && vm->limits.timeout_ms)
        atomic_store(&vm->watch_deadline_ns,
                     forge_clock_ns() + vm->limits.timeout_ms * 1000000u);
    if (vm->L)
        lua_close(vm->L);
    pool_free_all(vm);
    while (vm->nat_free > 0) {
        vm->nat_free--;
        vm->at_free[vm->nat_free].fn(vm->at_free[vm->nat_free].ctx);
    }
    watch_remove(vm);
    pthread_mutex_destroy(&vm->lock);
    forge_free(vm->script_dir);
    for (int i = 0; i < vm->nroots; i++)
        forge_free(vm->roots[i]);
    forge_free(vm->roots);
    forge_free(vm);
}

static int push_args(lua_State *L)
{
    const struct forge_vm_opts *o = lua_touserdata(L, 1);
    lua_createtable(L, o->nargs, 0);
    for (int i = 0; i < o->nargs; i++) {
        lua_pushstring(L, o->args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "forge.args");
    lua_pushinteger(L, o->verbose);
    lua_setfield(L, LUA_REGISTRYINDEX, "forge.verbose");
    return 0;
}

struct forge_vm *forge_vm_new(const struct forge_vm_opts *opts, struct forge_err *err)
{
    struct forge_vm *vm = forge_calloc(1, sizeof *vm);
    if (!vm) {
        forge_err_set(err, FORGE_ENOMEM, "out of memory creating a Lua state");
        return NULL;
    }
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&vm->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    vm->limits = opts->limits;
    vm->allow_net = opts->allow_net;
    vm->allow_exec = opts->allow_exec;
    vm->verbose = opts->verbose;
    vm->script_dir = real_or_copy(opts->script_dir ? opts->script_dir : ".");
    if (!vm->script_dir) {
        forge_err_set(err, FORGE_EIO, "%s: cannot resolve the script folder",
                      opts->script_dir ? opts->script_dir : ".");
        goto fail;
    }
    vm->roots = forge_calloc((size_t)opts->nallow_read + 2, sizeof *vm->roots);
    if (!vm->roots)
        goto nomem;
    vm->roots[vm->nroots++] = forge_strdup(vm->script_dir);
    char *cwd = real_or_copy(".");
    if (cwd)
        vm->roots[vm->nroots++] = cwd;
    for (int i = 0; i < opts->nallow_read; i++) {
        char *r = real_or_copy(opts->allow_read[i]);
        if (!r) {
            forge_err_set(err, FORGE_EINVAL, "--allow-read %s: no such file or folder",
                          opts->allow_read[i]);
            goto fail;
        }
        vm->roots[vm->nroots++] = r;
    }
    vm->L = lua_newstate(vm_alloc, vm);
    if (!vm->L)
        goto nomem;
    *(struct forge_vm **)lua_getextraspace(vm->L) = vm;
    /* Entries make short-lived tables (converted arguments, results, contexts) by the
     * thousand: the generational collector frees them young instead of traversing the whole
     * heap again and again. */
    lua_gc(vm->L, LUA_GCGEN, 0, 0);
    lua_sethook(vm->L, hook, LUA_MASKCOUNT, HOOK_INTERVAL);
    lua_pushcfunction(vm->L, setup);
    if (lua_pcall(vm->L, 0, 0, 0) != LUA_OK)
        goto nomem;
    lua_pushcfunction(vm->L, push_args);
    lua_pushlightuserdata(vm->L, (void *)opts);
    if (lua_pcall(vm->L, 1, 0, 0) != LUA_OK)
        goto nomem;
    watch_add(vm);
    return vm;
nomem:
    forge_err_set(err, FORGE_ENOMEM, "out of memory creating a Lua state (limit %zu MiB; raise "
                  "it with --lua-memory MIB)", vm->limits.memory >> 20);
fail:
    forge_vm_free(vm);
    return NULL;
}

lua_State *forge_vm_state(struct forge_vm *vm)
{
    return vm->L;
}

const char *forge_vm_script_dir(struct forge_vm *vm)
{
    return vm->script_dir;
}

bool forge_vm_allow_exec(struct forge_vm *vm)
{
    return vm->allow_exec;
}

int forge_vm_at_free(struct forge_vm *vm, void (*fn)(void *ctx), void *ctx)
{
    if (vm->nat_free == (int)(sizeof vm->at_free / sizeof vm->at_free[0]))
        return FORGE_ENOMEM;
    vm->at_free[vm->nat_free].fn = fn;
    vm->at_free[vm->nat_free++].ctx = ctx;
    return 0;
}

bool forge_vm_allow_net(struct forge_vm *vm)
{
    return vm->allow_net;
}

size_t forge_vm_memory(struct forge_vm *vm)
{
    return vm->mem_used;
}

/* ---- protected calls ---- */

/* Message handler: turns the error into a string message and keeps a traceback beside it in
 * the registry, where forge_vm_call picks it up. */
static int msgh(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, NULL, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "forge.lasttrace");
    lua_pushstring(L, msg);
    return 1;
}

void forge_vm_lock(struct forge_vm *vm)
{
    pthread_mutex_lock(&vm->lock);
}

void forge_vm_unlock(struct forge_vm *vm)
{
    pthread_mutex_unlock(&vm->lock);
}

long forge_vm_remaining_ms(struct forge_vm *vm)
{
    if (!vm->depth || !vm->deadline_ns)
        return -1;
    uint64_t now = forge_clock_ns();
    return now >= vm->deadline_ns ? 0 : (long)((vm->deadline_ns - now) / 1000000u);
}

struct forge_vm_limits forge_vm_get_limits(struct forge_vm *vm)
{
    return vm->limits;
}

int forge_vm_call_limited(struct forge_vm *vm, int nargs, int nres,
                          const struct forge_vm_limits *limits, struct forge_err *err)
{
    if (vm->depth > 0 || !limits)
        return forge_vm_call(vm, nargs, nres, err);
    struct forge_vm_limits saved = vm->limits;
    vm->limits = *limits;
    int rc = forge_vm_call(vm, nargs, nres, err);
    vm->limits = saved;
    return rc;
}

/* The protected call of forge_vm_call, with the message handler at <base> - 1, below the
 * function at <base>; leaves the handler there. */
static int call_handled(struct forge_vm *vm, int base, int nargs, int nres, struct forge_err *err)
{
    lua_State *L = vm->L;
    int outer = vm->depth == 0;
    if (outer) {
        vm->count = 0;
        vm->killed = KILL_NONE;
        vm->mem_refused = 0;
        vm->deadline_ns = vm->limits.timeout_ms
                              ? forge_clock_ns() + vm->limits.timeout_ms * 1000000u : 0;
        atomic_store(&vm->watch_deadline_ns, vm->deadline_ns);
        lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_INTERVAL);
    }
    vm->depth++;
    int status = lua_pcall(L, nargs, nres, base - 1);
    vm->depth--;
    int rc = 0;
    if (status != LUA_OK) {
        if (vm->mem_refused && !vm->killed)
            kill_vm(vm, KILL_MEMORY);
        if (vm->killed) {
            rc = forge_err_set(err, FORGE_ELIMIT, "%s", vm->kill_msg);
            const char *m = lua_tostring(L, -1);
            /* Keep the position the limit hit at, when the message carries one. */
            if (m && strstr(m, vm->kill_msg) && strncmp(m, vm->kill_msg, 20) != 0)
                forge_err_set(err, FORGE_ELIMIT, "%s", m);
        } else if (status == LUA_ERRMEM) {
            rc = forge_err_set(err, FORGE_ENOMEM, "out of memory in Lua");
        } else if (status == LUA_ERRERR) {
            rc = forge_err_set(err, FORGE_ELUA, "error in error handling (an error object's "
                               "__tostring failed)");
        } else {
            const char *m = lua_tostring(L, -1);
            rc = forge_err_set(err, FORGE_ELUA, "%s", m ? m : "(error object is not a string)");
        }
        if (err && status == LUA_ERRRUN) {
            lua_getfield(L, LUA_REGISTRYINDEX, "forge.lasttrace");
            const char *t = lua_tostring(L, -1);
            snprintf(err->trace, sizeof err->trace, "%s", t ? t : "");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, "forge.lasttrace");
    }
    if (outer) {
        atomic_store(&vm->watch_deadline_ns, 0);
        vm->deadline_ns = 0;
        /* an entry stopped at the memory cap leaves what it filled the cap with as garbage: it is
         * collected now, not when some later allocation in Lua asks for room (a charge C makes
         * first, such as a conversion's, would find the cap still full); not while C work is
         * measured (a finalizer would take what it frees off the measure) */
        if (vm->killed == KILL_MEMORY && !forge_alloc_measuring)
            lua_gc(L, LUA_GCCOLLECT);
        if (vm->killed) {
            vm->killed = KILL_NONE;
            lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_INTERVAL);
        }
        vm->mem_refused = 0;
    }
    return rc;
}

int forge_vm_call(struct forge_vm *vm, int nargs, int nres, struct forge_err *err)
{
    lua_State *L = vm->L;
    int base = lua_gettop(L) - nargs; /* the function's index */
    lua_pushcfunction(L, msgh);
    lua_insert(L, base);
    int rc = call_handled(vm, base + 1, nargs, nres, err);
    lua_remove(L, base); /* the handler */
    return rc;
}

void forge_vm_push_handler(struct forge_vm *vm)
{
    lua_pushcfunction(vm->L, msgh);
}

int forge_vm_call_handled(struct forge_vm *vm, int nargs, int nres, struct forge_err *err)
{
    return call_handled(vm, lua_gettop(vm->L) - nargs, nargs, nres, err);
}

/* ---- loading and confinement ---- */

static int under(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0)
        return 1;
    return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int forge_vm_resolve_read(struct forge_vm *vm, const char *path, char **resolved,
                          struct forge_err *err)
{
    *resolved = NULL;
    char *joined = forge_path_join(vm->script_dir, path);
    if (!joined)
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    char buf[PATH_MAX];
    if (!realpath(joined, buf)) {
        forge_free(joined);
        return forge_err_set(err, FORGE_EIO, "%s: no such file", path);
    }
    forge_free(joined);
    for (int i = 0; i < vm->nroots; i++) {
        if (under(buf, vm->roots[i])) {
            *resolved = forge_strdup(buf);
            return *resolved ? 0 : forge_err_set(err, FORGE_ENOMEM, "out of memory");
        }
    }
    return forge_err_set(err, FORGE_EINVAL,
                         "%s: outside the folders this script may read (its own folder and the "
                         "current folder); allow it with --allow-read PATH", path);
}

/* The line on which brackets in <src> first nest deeper than <limit> (strings and comments
 * skipped roughly), or the last line: where a parser's "C stack overflow" most likely comes
 * from, since Lua's own message carries no position. */
static int deep_line(const char *src, size_t len, int limit)
{
    int line = 1, depth = 0;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '\n') {
            line++;
        } else if (c == '"' || c == '\'') {
            for (i++; i < len && src[i] != c && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
        } else if (c == '-' && i + 1 < len && src[i + 1] == '-') {
            while (i + 1 < len && src[i + 1] != '\n')
                i++;
        } else if (c == '(' || c == '{' || c == '[') {
            if (++depth > limit)
                return line;
        } else if ((c == ')' || c == '}' || c == ']') && depth > 0) {
            depth--;
        }
    }
    return line;
}

int forge_vm_load_string(struct forge_vm *vm, const char *src, size_t len, const char *chunkname,
                         struct forge_err *err)
{
    lua_State *L = vm->L;
    int status = luaL_loadbufferx(L, src, len, chunkname, "t");
    if (status != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        if (m && strcmp(m, "C stack overflow") == 0 && chunkname) {
            int rc = forge_err_set(err, FORGE_ELUA, "%s:%d: the code nests too deeply for "
                                   "Lua's parser (C stack overflow, at about 200 levels)",
                                   chunkname + (chunkname[0] == '@' || chunkname[0] == '='),
                                   deep_line(src, len, 150));
            lua_pop(L, 1);
            return rc;
        }
        int rc = forge_err_set(err, status == LUA_ERRMEM ? FORGE_ENOMEM : FORGE_ELUA, "%s",
                               m ? m : "cannot load chunk");
        lua_pop(L, 1);
        return rc;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "forge.env");
    lua_setupvalue(L, -2, 1);
    return 0;
}

int forge_vm_load_file(struct forge_vm *vm, const char *path, struct forge_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = forge_file_read(path, vm->limits.memory ? vm->limits.memory : FORGE_FILE_LIMIT,
                             &text, &len, err);
    if (rc == FORGE_ELIMIT && vm->limits.memory) /* a script is read whole under the cap */
        return forge_err_set(err, FORGE_ELIMIT, "%s: larger than the memory limit of %zu MiB; "
                             "raise it with --lua-memory MIB", path, vm->limits.memory >> 20);
    if (rc)
        return rc;
    /* A UTF-8 byte order mark, then a shebang line, are allowed, as lua.c allows them. */
    char *src = text;
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        src += 3;
        len -= 3;
    }
    if (len > 1 && src[0] == '#') {
        src[0] = '-';
        src[1] = '-';
    }
    size_t n = strlen(path) + 2;
    char *chunk = forge_malloc(n);
    if (!chunk) {
        forge_free(text);
        return forge_err_set(err, FORGE_ENOMEM, "out of memory");
    }
    snprintf(chunk, n, "@%s", path);
    rc = forge_vm_load_string(vm, src, len, chunk, err);
    forge_free(chunk);
    forge_free(text);
    return rc;
}
