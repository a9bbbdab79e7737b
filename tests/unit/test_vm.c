/* Unit tests for lua/vm: protected calls, error mapping, limits, confinement. */
#include "test.h"
#include "lua/vm.h"
#include "lua/bind.h"
#include "base/alloc.h"
#include "eval/registry.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

static struct forge_vm *make(uint64_t instructions, size_t memory)
{
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
    o.script_dir = FORGE_TESTS_DIR "/lua";
    if (instructions)
        o.limits.instructions = instructions;
    if (memory)
        o.limits.memory = memory;
    struct forge_err err = {0};
    return forge_vm_new(&o, &err);
}

static int run(struct forge_vm *vm, const char *src, struct forge_err *err)
{
    int rc = forge_vm_load_string(vm, src, strlen(src), "=spec", err);
    if (rc)
        return rc;
    return forge_vm_call(vm, 0, 1, err);
}

TEST(call_returns_values_and_keeps_the_stack)
{
    struct forge_vm *vm = make(0, 0);
    lua_State *L = forge_vm_state(vm);
    struct forge_err err = {0};
    int top = lua_gettop(L);
    CHECK_INT(run(vm, "return 40 + 2", &err), 0);
    CHECK_INT(lua_tointeger(L, -1), 42);
    lua_pop(L, 1);
    CHECK_INT(lua_gettop(L), top);
    CHECK_INT(run(vm, "local function f() error('boom') end f()", &err), FORGE_ELUA);
    CHECK_STR(err.msg, "spec:1: boom");
    CHECK(strstr(err.trace, "stack traceback:") != NULL);
    CHECK_INT(lua_gettop(L), top);
    CHECK_INT(run(vm, "error({})", &err), FORGE_ELUA);
    CHECK_STR(err.msg, "(error object is a table value)");
    CHECK_INT(forge_vm_load_string(vm, "x = = 1", 7, "=bad", &err), FORGE_ELUA);
    CHECK_STR(err.msg, "bad:1: unexpected symbol near '='");
    forge_vm_free(vm);
}

/* The caller pushes the handler once, below the function: results (or nothing, on failure) land
 * above it, with the same messages, traceback and limits as forge_vm_call. */
TEST(call_handled_leaves_the_handler_below_the_results)
{
    struct forge_vm *vm = make(50000000, 0);
    lua_State *L = forge_vm_state(vm);
    struct forge_err err = {0};
    int top = lua_gettop(L);
    forge_vm_push_handler(vm);
    CHECK_INT(forge_vm_load_string(vm, "return 40 + 2, 'x'", 18, "=spec", &err), 0);
    CHECK_INT(forge_vm_call_handled(vm, 0, 2, &err), 0);
    CHECK_INT(lua_gettop(L), top + 3);
    CHECK_INT(lua_type(L, top + 1), LUA_TFUNCTION);
    CHECK_INT(lua_tointeger(L, top + 2), 42);
    CHECK_STR(lua_tostring(L, top + 3), "x");
    lua_settop(L, top);
    forge_vm_push_handler(vm);
    const char *bad = "local function f(a) error('boom ' .. a) end f(...)";
    CHECK_INT(forge_vm_load_string(vm, bad, strlen(bad), "=spec", &err), 0);
    lua_pushliteral(L, "arg");
    CHECK_INT(forge_vm_call_handled(vm, 1, 0, &err), FORGE_ELUA);
    CHECK_STR(err.msg, "spec:1: boom arg");
    CHECK(strstr(err.trace, "in local 'f'") != NULL);
    CHECK_INT(lua_gettop(L), top + 1);
    lua_settop(L, top);
    forge_vm_push_handler(vm);
    CHECK_INT(forge_vm_load_string(vm, "while true do end", 17, "=spec", &err), 0);
    CHECK_INT(forge_vm_call_handled(vm, 0, 0, &err), FORGE_ELIMIT);
    CHECK(strstr(err.msg, "instruction limit exceeded") != NULL);
    CHECK_INT(lua_gettop(L), top + 1);
    lua_settop(L, top);
    forge_vm_free(vm);
}

TEST(limits_are_reported_and_reset_per_entry)
{
    struct forge_vm *vm = make(50000000, 16u << 20);
    struct forge_err err = {0};
    CHECK_INT(run(vm, "while true do end", &err), FORGE_ELIMIT);
    CHECK(strstr(err.msg, "instruction limit exceeded") != NULL);
    /* the next entry starts with a fresh budget */
    CHECK_INT(run(vm, "local n = 0 for i = 1, 1000 do n = n + i end return n", &err), 0);
    lua_pop(forge_vm_state(vm), 1);
    CHECK_INT(run(vm, "local t = {} for i = 1, 1e8 do t[i] = i end", &err), FORGE_ELIMIT);
    CHECK(strstr(err.msg, "memory limit exceeded: the script needed more than 16 MiB") != NULL);
    CHECK_INT(run(vm, "return 1", &err), 0);
    lua_pop(forge_vm_state(vm), 1);
    forge_vm_free(vm);
}

TEST(json_round_trip_through_lua)
{
    struct forge_vm *vm = make(0, 0);
    lua_State *L = forge_vm_state(vm);
    struct forge_err err = {0};
    cJSON *in = cJSON_Parse("{\"b\":[],\"a\":{},\"n\":null,\"x\":[1,2.5,\"s\",true]}");
    forge_lua_push_json(L, in);
    cJSON *out = forge_lua_to_json(L, -1, &err);
    lua_pop(L, 1);
    char *s = cJSON_PrintUnformatted(out);
    CHECK_STR(s, "{\"b\":[],\"a\":{},\"n\":null,\"x\":[1,2.5,\"s\",true]}");
    free(s);
    cJSON_Delete(in);
    cJSON_Delete(out);
    CHECK_INT(run(vm, "return { f = print }", &err), 0);
    CHECK(forge_lua_to_json(L, -1, &err) == NULL);
    CHECK_STR(err.msg, ".f: a function value JSON cannot hold");
    lua_pop(L, 1);
    forge_vm_free(vm);
}

TEST(confinement)
{
    struct forge_vm *vm = make(0, 0);
    struct forge_err err = {0};
    char *real = NULL;
    CHECK_INT(forge_vm_resolve_read(vm, "fixtures/hello.txt", &real, &err), 0);
    CHECK(real && strstr(real, "/tests/lua/fixtures/hello.txt") != NULL);
    forge_free(real);
    CHECK_INT(forge_vm_resolve_read(vm, "/etc/passwd", &real, &err), FORGE_EINVAL);
    CHECK_INT(forge_vm_resolve_read(vm, "fixtures/outside_link", &real, &err), FORGE_EINVAL);
    CHECK_INT(forge_vm_resolve_read(vm, "fixtures/nope", &real, &err), FORGE_EIO);
    forge_vm_free(vm);
}

TEST(state_creation_survives_allocation_failures)
{
    /* Fail each allocation in turn while creating a VM: every attempt fails cleanly or works. */
    for (long n = 1; n < 40; n++) {
        struct forge_vm_opts o;
        forge_vm_opts_init(&o);
        o.script_dir = FORGE_TESTS_DIR;
        struct forge_err err = {0};
        forge_alloc_fail_at(n);
        struct forge_vm *vm = forge_vm_new(&o, &err);
        forge_alloc_fail_at(0);
        CHECK(vm != NULL || err.code == FORGE_ENOMEM || err.code == FORGE_EIO);
        forge_vm_free(vm);
    }
}

static int no_call(void *ctx, const cJSON *args, cJSON **out, struct forge_err *err)
{
    (void)ctx, (void)args, (void)out, (void)err;
    return 0;
}

/* The bytes the state holds beyond its Lua heap (what C keeps for it, held against the cap),
 * after a full collection. */
static size_t held_in_c(struct forge_vm *vm)
{
    lua_State *L = forge_vm_state(vm);
    lua_gc(L, LUA_GCCOLLECT);
    size_t heap = (size_t)lua_gc(L, LUA_GCCOUNT) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB);
    return forge_vm_memory(vm) - heap;
}

/* forge.assertion holds what the registry keeps for each entry, as measured: the bytes the same
 * registrations keep when made in C (an entry's record, a pointer, an int and a pointer; the
 * registry's copy of the name; its share of the entries' array and of the names' table). */
TEST(assertions_hold_what_the_registry_keeps)
{
    struct forge_vm *vm = make(0, 0);
    struct forge_err err = {0};
    CHECK_INT(run(vm, "forge = require 'forge' forge.assertion('first', function() end)", &err), 0);
    size_t before = held_in_c(vm);
    CHECK_INT(run(vm, "for i = 1, 1000 do forge.assertion('a' .. i, function() end) end", &err), 0);
    size_t held = held_in_c(vm) - before;
    /* the same in C, measured */
    struct forge_assertions *r = forge_assertions_new();
    struct forge_callable fn = {no_call, NULL, NULL, false};
    CHECK_INT(forge_assertions_add(r, "first", &fn, NULL, &err), 0);
    struct rec {
        void *vm;
        int ref;
        void *slots;
    } *recs[1000];
    forge_alloc_measure_start(SIZE_MAX);
    for (int i = 0; i < 1000; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i + 1);
        recs[i] = forge_malloc(sizeof *recs[i]);
        CHECK_INT(forge_assertions_add(r, name, &fn, NULL, &err), 0);
    }
    size_t kept = forge_alloc_measure_stop();
    CHECK(kept > 1000 * (sizeof *recs[0] + 3));
    /* (a block's usable size depends on where malloc places it, by a few granules: both are
     * measured, in two different heaps) */
    if (held + 64 < kept || held > kept + 64)
        fprintf(stderr, "held %zu, kept %zu\n", held, kept);
    CHECK(held + 64 >= kept && held <= kept + 64);
    for (int i = 0; i < 1000; i++)
        forge_free(recs[i]);
    forge_assertions_free(r);
    forge_vm_free(vm);
}

/* What a measured piece of work that keeps a 100,000-byte block reports, when it makes garbage
 * enough for several collections. */
static size_t kept_by_work(struct forge_vm *vm)
{
    lua_State *L = forge_vm_state(vm);
    forge_vm_work_begin(vm, 0);
    void *block = forge_malloc(100000);
    for (int i = 0; i < 200000; i++) {
        lua_createtable(L, 0, 4);
        lua_pop(L, 1);
    }
    size_t kept;
    CHECK_INT(forge_vm_work_end(vm, &kept), 0);
    forge_free(block);
    if (kept < 100000 || kept > 100000 + 64)
        fprintf(stderr, "kept %zu\n", kept);
    return kept;
}

/* While C work for the script is measured (forge_vm_work_begin), the collector runs on, and a
 * finalizer a step runs frees outside the measure: what it frees was kept before the work and is
 * not taken off what the work keeps. Here a dropped forge.schema validator's (its compiled
 * schema) and a dropped box's (C memory a binding held while it could raise). */
TEST(measured_work_excludes_finalizers)
{
    struct forge_vm *vm = make(0, 0);
    lua_State *L = forge_vm_state(vm);
    struct forge_err err = {0};
    CHECK_INT(run(vm, "local forge = require 'forge' local p = {} "
                      "for i = 1, 2000 do p['p' .. i] = {type = 'string', pattern = '^a' .. i .. '$'} end "
                      "local v = forge.schema.compile({properties = p}) v = nil", &err), 0);
    size_t kept = kept_by_work(vm);
    CHECK(kept >= 100000 && kept <= 100000 + 64);
    forge_lua_box(L, forge_malloc(300000), forge_free);
    lua_pop(L, 1);
    kept = kept_by_work(vm);
    CHECK(kept >= 100000 && kept <= 100000 + 64);
    CHECK(lua_gc(L, LUA_GCISRUNNING)); /* (running) */
    forge_vm_free(vm);
}

/* An entry stopped at the memory cap leaves its garbage collected: the next charge C makes (a
 * conversion's, before any allocation in Lua could collect) finds the room the entry had. */
TEST(memory_kill_leaves_no_garbage_behind)
{
    struct forge_vm *vm = make(0, (size_t)16 << 20);
    struct forge_err err = {0};
    size_t before = forge_vm_memory(vm);
    CHECK_INT(run(vm, "local t = {} for i = 1, math.maxinteger do t[i] = string.rep('x', 4096) .. i end",
                  &err), FORGE_ELIMIT);
    CHECK(strstr(err.msg, "memory limit exceeded") != NULL);
    CHECK(forge_vm_memory(vm) < before + ((size_t)1 << 20));
    CHECK_INT(forge_vm_charge(vm, (size_t)8 << 20), 0);
    forge_vm_free(vm);
}

/* Measured C work leaves the collector's schedule alone: after a load that held much memory
 * (the cases of a large suite) and built its tools and model in measured windows, a run's
 * short-lived tables are collected as they go, and memory stays near what is live. (Stopping
 * and restarting the collector around each window reset its debt; after such a load it then
 * waited for the heap to grow by what the load had held before collecting again, and the agent
 * loop's memory grew with every case until then: here 3.5 MiB over a base of 0.3.) */
TEST(measured_work_keeps_the_collection_schedule)
{
    struct forge_vm *vm = make(0, 0);
    lua_State *L = forge_vm_state(vm);
    struct forge_err err = {0};
    /* a suite script: its case tables (and its garbage) */
    CHECK_INT(run(vm, "cases = {} for i = 1, 10000 do cases[i] = {id = 'case-' .. i, input = "
                      "{message = 'weather in City' .. i}, expect = {toolsCalled = {'a', 'b'}, "
                      "responseContains = {'City' .. i}}} end", &err), 0);
    for (int i = 0; i < 6; i++) { /* its tools and model built, measured */
        forge_vm_work_begin(vm, 0);
        CHECK_INT(forge_vm_work_end(vm, NULL), 0);
        lua_createtable(L, 0, 4);
        lua_pop(L, 1);
    }
    CHECK_INT(run(vm, "cases = nil", &err), 0);
    lua_gc(L, LUA_GCCOLLECT);
    int base = lua_gc(L, LUA_GCCOUNT), peak = base;
    for (int k = 0; k < 200; k++) { /* a run: short-lived tables, case after case */
        CHECK_INT(run(vm, "for i = 1, 100 do local t = {i, {i}} end", &err), 0);
        int now = lua_gc(L, LUA_GCCOUNT);
        if (now > peak)
            peak = now;
    }
    if (peak > base + 2048)
        fprintf(stderr, "base %d KiB, peak %d KiB\n", base, peak);
    CHECK(peak <= base + 2048);
    forge_vm_free(vm);
}

int main(void)
{
    RUN(call_returns_values_and_keeps_the_stack);
    RUN(call_handled_leaves_the_handler_below_the_results);
    RUN(limits_are_reported_and_reset_per_entry);
    RUN(json_round_trip_through_lua);
    RUN(confinement);
    RUN(state_creation_survives_allocation_failures);
    RUN(assertions_hold_what_the_registry_keeps);
    RUN(measured_work_excludes_finalizers);
    RUN(measured_work_keeps_the_collection_schedule);
    RUN(memory_kill_leaves_no_garbage_behind);
    return TEST_DONE();
}
