/* JSON -> Lua -> JSON through a sandboxed VM (runtime/lua/bind.h, vm.h): the parsed input is
 * pushed (ordered and unordered), converted back, and also passed through the scripts'
 * forge.json.encode / forge.json.decode. Properties: the value comes back equal (numbers
 * that JSON cannot hold and repeated keys excepted), the ordered push keeps key order, and
 * nothing raises out of a protected call or leaks. */
#include <lua.h>
#include <lauxlib.h>
#include <cjson/cJSON.h>
#include "base/alloc.h"
#include "data/json.h"
#include "lua/bind.h"
#include "lua/vm.h"
#include "fuzz.h"

static struct forge_vm *vm;

/* Whether Lua tables can hold <v> exactly: finite numbers and no key twice in an object. */
static bool finite_only(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return v->valuedouble - v->valuedouble == 0;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (!finite_only(c))
            return false;
        if (cJSON_IsObject(v))
            for (const cJSON *d = c->next; d; d = d->next)
                if (strcmp(c->string, d->string) == 0)
                    return false;
    }
    return true;
}

static const char script[] =
    "local forge = require \"forge\"\n"
    "local v = ...\n"
    "local text = forge.json.encode(v)\n"
    "local back = forge.json.decode(text)\n"
    "local sorted = forge.json.encode(back, {sort_keys = true, pretty = true})\n"
    "return back, text, sorted\n";

static void setup(void)
{
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
    o.limits.memory = (size_t)64 << 20;
    o.limits.timeout_ms = 2000;
    o.script_dir = ".";
    o.verbose = -1;
    struct forge_err err = {0};
    vm = forge_vm_new(&o, &err);
    FUZZ_CHECK(vm, "VM: %s", err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    if (!vm)
        setup();
    struct forge_err err = {0};
    cJSON *v = forge_json_parse((const char *)data, size, "<fuzz>", &err);
    if (!v)
        return 0;
    lua_State *L = forge_vm_state(vm);
    int top = lua_gettop(L);
    bool finite = finite_only(v);

    forge_lua_push_json(L, v);
    cJSON *back = forge_lua_to_json(L, -1, &err);
    if (finite) {
        FUZZ_CHECK(back, "to_json failed: %s", err.msg);
        FUZZ_CHECK(forge_json_equal(v, back), "ordered round trip changed the value");
        char *a = forge_json_print(v, 0), *b = forge_json_print(back, 0);
        FUZZ_CHECK(a && b && strcmp(a, b) == 0, "key order or form changed:\n%s\n%s", a, b);
        forge_free(a);
        forge_free(b);
    }
    cJSON_Delete(back);
    lua_settop(L, top);

    forge_lua_push_json_unordered(L, v);
    back = forge_lua_to_json(L, -1, &err);
    if (finite) {
        FUZZ_CHECK(back, "to_json (unordered) failed: %s", err.msg);
        FUZZ_CHECK(forge_json_equal(v, back), "unordered round trip changed the value");
    }
    cJSON_Delete(back);
    lua_settop(L, top);

    FUZZ_CHECK(forge_vm_load_string(vm, script, sizeof script - 1, "=fuzz", &err) == 0, "load: %s",
               err.msg);
    forge_lua_push_json(L, v);
    int rc = forge_vm_call(vm, 1, 3, &err);
    if (finite)
        FUZZ_CHECK(rc == 0, "script failed: %s", err.msg);
    if (rc == 0 && finite) {
        back = forge_lua_to_json(L, top + 1, &err);
        FUZZ_CHECK(back, "to_json of the decoded value failed: %s", err.msg);
        FUZZ_CHECK(forge_json_equal(v, back), "encode/decode changed the value");
        cJSON_Delete(back);
        size_t n = 0;
        const char *text = lua_tolstring(L, top + 2, &n);
        char *mine = forge_json_print(v, 0);
        FUZZ_CHECK(text && mine && strcmp(text, mine) == 0, "forge.json.encode differs:\n%s\n%s",
                   text, mine);
        forge_free(mine);
    }
    lua_settop(L, top);
    lua_gc(L, LUA_GCCOLLECT);
    cJSON_Delete(v);
    return 0;
}
