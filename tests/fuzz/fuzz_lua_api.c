/* The Lua API as a hostile script drives it: the input is a small program for a fixed Lua driver
 * (below) that calls every function of the forge module and its submodules, the metamethods and
 * iterators forge hands out, with values built from the input: tables carrying metatables whose
 * metamethods raise, loop, yield or re-enter forge.json.encode, keys and strings with NUL bytes,
 * deep nesting, cycles, coroutines, wrong types and arities, huge numbers and NaN. Each input
 * runs in a fresh sandboxed VM under small limits. (forge.log is left out: it only writes its
 * arguments, tostring'd, to stderr, which would drown the fuzzer's own output.) Properties: the call ends with a result or a
 * clean error (FORGE_ELUA or FORGE_ELIMIT, never a crash, a hang or a C stack overflow), within
 * its deadline (plus slack) and its memory cap (plus slack), and the VM closes without leaks. */
#include <lua.h>
#include <lauxlib.h>
#include "base/clock.h"
#include "lua/vm.h"
#include "fuzz.h"

#define MEMORY ((size_t)16 << 20)
#define TIMEOUT_MS 1000
#define INSTRUCTIONS 2000000

/* The driver reads the program <p> byte by byte: each step picks an operation and its operands
 * from the next bytes, keeping every value it makes in a pool that later steps draw from. */
static const char driver[] =
    "local p = ...\n"
    "local forge = require 'forge'\n"
    "local pos = 0\n"
    "local function byte() pos = pos + 1; return p:byte(pos) or 0 end\n"
    "local fns = {}\n"
    "local function add(name, f) if type(f) == 'function' then fns[#fns + 1] = f end end\n"
    "local top = {}\n"
    "for k in pairs(forge) do top[#top + 1] = k end\n"
    "table.sort(top)\n"
    "for _, k in ipairs(top) do if k ~= 'log' then add(k, forge[k]) end end\n"
    "local mods = {}\n"
    "for _, m in ipairs({'json', 're', 'check', 'schema', 'eval', 'http'}) do\n"
    "  local ok, mod = pcall(function() return forge[m] end)\n"
    "  if ok and type(mod) == 'table' then mods[#mods + 1] = m end\n"
    "end\n"
    "for _, m in ipairs(mods) do\n"
    "  local names = {}\n"
    "  for k in pairs(forge[m]) do names[#names + 1] = k end\n"
    "  table.sort(names)\n"
    "  for _, k in ipairs(names) do add(m .. '.' .. k, forge[m][k]) end\n"
    "end\n"
    "local obj = forge.json.decode('{\"a\":[1,{\"b\":null}],\"c\":\"d\"}')\n"
    "for _, mt in ipairs({getmetatable(obj), getmetatable(obj.a)}) do\n"
    "  if type(mt) == 'table' then for _, v in pairs(mt) do add('mm', v) end end\n"
    "end\n"
    "add('next', (pairs(obj)))\n"
    "local ok_s, schema = pcall(forge.schema.compile, {type = 'object', properties = {a = {type = 'array'}}})\n"
    "if ok_s then\n"
    "  add('validate', function(...) return schema:validate(...) end)\n"
    "  add('validate_raw', function(...) return schema.validate(...) end)\n"
    "end\n"
    "local mmnames = {'__index', '__newindex', '__pairs', '__len', '__tostring', '__eq', '__lt',\n"
    "                 '__le', '__call', '__concat', '__close', '__unm', '__add', '__name'}\n"
    "local function hostile(kind, which)\n"
    "  local mt = {}\n"
    "  for i, n in ipairs(mmnames) do\n"
    "    if which == 0 or which % #mmnames + 1 == i then\n"
    "      if kind == 0 then mt[n] = function() error('boom') end\n"
    "      elseif kind == 1 then mt[n] = function() error(setmetatable({}, {__tostring = function() error('again') end})) end\n"
    "      elseif kind == 2 then mt[n] = function(...) return forge.json.encode(...) end\n"
    "      elseif kind == 3 then mt[n] = function() coroutine.yield(1) return 1 end\n"
    "      elseif kind == 4 then mt[n] = 'x\\0y'\n"
    "      elseif kind == 5 then mt[n] = function(t, k) return rawget(t, k) end\n"
    "      else mt[n] = function() local s = ''; for _ = 1, 64 do s = s .. 'xxxxxxxx' end return s end end\n"
    "    end\n"
    "  end\n"
    "  return mt\n"
    "end\n"
    "local cyc = {}; cyc[1] = cyc; cyc.self = cyc\n"
    "local deep = {}; do local d = deep; for _ = 1, 1100 do d[1] = {}; d = d[1] end end\n"
    "local shared = {}; do local t = {1}; for _ = 1, 30 do t = {t, t} end; shared = t end\n"
    "local pool = {n = 0}\n"
    "local function put(v) pool.n = pool.n + 1; pool[pool.n] = v end\n"
    "for _, v in ipairs({true, false, 0, -1, 1.5, 2^53, math.maxinteger, math.mininteger, 0/0,\n"
    "  1/0, -1/0, '', 'a', 'a\\0b', 'x\\0', string.rep('z', 300), '^(a+)+$', '{\"k\":1}', '[1,2',\n"
    "  '\\255\\254', {}, {1, 2, 3}, {a = 1, b = {c = 'd'}}, {[1] = 1, [3] = 3}, {1, a = 2},\n"
    "  {['k\\0x'] = 1}, cyc, deep, shared, forge.json.null, obj, obj.a, tostring, coroutine.create(tostring),\n"
    "  {type = 'string', pattern = '(a|a)*b'}, {name = 't', run = tostring}, {id = 'c', input = {}}}) do\n"
    "  put(v)\n"
    "end\n"
    "put(nil)\n"
    "local function pick() local i = byte(); if i == 0 then return nil end return pool[i % pool.n + 1] end\n"
    "local steps = 0\n"
    "while pos < #p and steps < 200 do\n"
    "  steps = steps + 1\n"
    "  local op = byte() % 8\n"
    "  if op <= 2 then\n"
    "    local f = fns[byte() % #fns + 1]\n"
    "    local args, n = {}, byte() % 5\n"
    "    for i = 1, n do args[i] = pick() end\n"
    "    local r = table.pack(pcall(f, table.unpack(args, 1, n)))\n"
    "    for i = 2, math.min(r.n, 4) do put(r[i]) end\n"
    "  elseif op == 3 then\n"
    "    local t = {}\n"
    "    for _ = 1, byte() % 6 do local k = pick(); if k ~= nil and k == k then t[k] = pick() end end\n"
    "    for i = 1, byte() % 4 do t[i] = pick() end\n"
    "    put(t)\n"
    "  elseif op == 4 then\n"
    "    local t = pick()\n"
    "    if type(t) == 'table' then pcall(setmetatable, t, hostile(byte() % 7, byte())) end\n"
    "  elseif op == 5 then\n"
    "    local n = byte() % 24\n"
    "    put(p:sub(pos + 1, pos + n)); pos = pos + n\n"
    "  elseif op == 6 then\n"
    "    local f = fns[byte() % #fns + 1]\n"
    "    local a, b = pick(), pick()\n"
    "    local co = coroutine.create(function() return f(a, b) end)\n"
    "    local ok, v = coroutine.resume(co)\n"
    "    if ok and coroutine.status(co) == 'suspended' then coroutine.resume(co); coroutine.close(co) end\n"
    "    put(v)\n"
    "  else\n"
    "    local v = pick()\n"
    "    for _ = 1, byte() % 8 do v = {v, v} end\n"
    "    put(v)\n"
    "  end\n"
    "end\n"
    "return pool.n\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    struct forge_vm_opts o;
    forge_vm_opts_init(&o);
    o.limits.memory = MEMORY;
    o.limits.timeout_ms = TIMEOUT_MS;
    o.limits.instructions = INSTRUCTIONS;
    o.script_dir = ".";
    o.verbose = -1;
    struct forge_err err = {0};
    struct forge_vm *vm = forge_vm_new(&o, &err);
    FUZZ_CHECK(vm, "VM: %s", err.msg);
    lua_State *L = forge_vm_state(vm);
    int rc = forge_vm_load_string(vm, driver, sizeof driver - 1, "=driver", &err);
    FUZZ_CHECK(rc == 0, "driver: %s", err.msg);
    lua_pushlstring(L, (const char *)data, size);
    uint64_t start = forge_clock_ns();
    rc = forge_vm_call(vm, 1, 0, &err);
    uint64_t ms = (forge_clock_ns() - start) / 1000000u;
    FUZZ_CHECK(rc == 0 || rc == FORGE_ELUA || rc == FORGE_ELIMIT, "rc %d: %s", rc, err.msg);
    /* The driver catches every error it can: one that escapes must be a broken limit (the
     * driver itself has no bug to raise). */
    FUZZ_CHECK(rc != FORGE_ELUA, "an error escaped the driver: %s", err.msg);
    FUZZ_CHECK(ms < TIMEOUT_MS + 1500, "the call took %llu ms, past its %d ms deadline",
               (unsigned long long)ms, TIMEOUT_MS);
    FUZZ_CHECK(forge_vm_memory(vm) <= MEMORY + ((size_t)1 << 20),
               "the state holds %zu bytes, over its %zu-byte cap", forge_vm_memory(vm), MEMORY);
    FUZZ_CHECK(lua_gettop(L) == 0, "the stack holds %d values after the call", lua_gettop(L));
    forge_vm_free(vm);
    return 0;
}
