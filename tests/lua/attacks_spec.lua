-- Attacks a hostile script author might try that end in an ordinary, catchable error: each must
-- fail with the expected message and leave forge healthy. (Attacks that break a limit end the
-- whole call, so they are CLI cases in tests/integration/host/cases.json.)
local t = require "forge.testing"
local forge = require "forge"

t.case("require does not follow a symbolic link out of the script folder", function()
  -- fixtures/outside_mod.lua -> /etc/passwd: its first line would leak through the syntax error.
  local ok, err = pcall(require, "fixtures.outside_mod")
  t.eq(ok, false)
  t.ok(err:find("outside the folders this script may read", 1, true), err)
  t.ok(not err:find("root", 1, true), err)
end)

t.case("NUL bytes in paths and module names are refused", function()
  t.raises(function() forge.read_file("fixtures/hello.txt\0/../../../etc/passwd") end,
           "the path contains a NUL byte")
  t.raises(function() require "fixtures.mod\0x" end, "contains a NUL byte")
end)

t.case("read_file refuses folders and devices", function()
  local none, err = forge.read_file("fixtures")
  t.eq(none, nil)
  t.ok(err:find("not a regular file", 1, true), err)
end)

t.case("yielding across a forge callback is an error, not a crash", function()
  local co = coroutine.wrap(function()
    return forge.re.gsub("abc", ".", function(c) coroutine.yield(c) return c end)
  end)
  t.raises(co, "attempt to yield across a C-call boundary")
  local co2 = coroutine.create(function()
    table.sort({ 3, 2, 1 }, function(a, b) coroutine.yield() return a < b end)
  end)
  local ok, err = coroutine.resume(co2)
  t.eq(ok, false)
  t.ok(err:find("yield across", 1, true), err)
end)

t.case("recursive metamethods overflow the C stack with an error", function()
  local mt = {}
  mt.__tostring = function(x) return tostring(x) end
  t.raises(function() return tostring(setmetatable({}, mt)) end, "stack overflow")
  local e = {}
  setmetatable(e, { __index = function(s, k) return s[k] end })
  t.raises(function() return e.x end, "stack overflow")
  local c = setmetatable({}, {})
  getmetatable(c).__concat = function(a, b) return a .. b end
  t.raises(function() return c .. "x" end, "stack overflow")
end)

t.case("__tostring recursion through forge.log and string.format", function()
  local mt = {}
  mt.__tostring = function(x) return string.format("%s", x) end
  t.raises(function() forge.log.info(setmetatable({}, mt)) end, "stack overflow")
end)

t.case("format widths and utf8.char are bounded", function()
  t.raises(function() return string.format("%999999999d", 1) end, "invalid conversion")
  t.raises(function() return utf8.char(0x80000000) end, "value out of range")
end)

t.case("json: deep and self-referencing values", function()
  local a = {}
  a[1] = a
  t.raises(function() forge.json.encode(a) end, "nested deeper than 1000 levels")
  t.raises(function() forge.json.decode(string.rep("[", 5000) .. string.rep("]", 5000)) end,
           "forge.json.decode")
  local o = setmetatable({}, { __index = function() error("must not run") end })
  o.x = 1
  t.eq(forge.json.encode(o), '{"x":1}')
end)

t.case("load with a custom environment reaches nothing of the host", function()
  local f = load("return getmetatable, require, _G", "x", "t", {})
  local a, b, c = f()
  t.eq(a, nil); t.eq(b, nil); t.eq(c, nil)
  local g = load("return load('return io')()", "x", "t", { load = load })
  t.eq(g(), nil)
  local pieces = { "return ", "1 + ", "41" }
  local i = 0
  t.eq(load(function() i = i + 1 return pieces[i] end)(), 42)
end)

t.case("the json tag metatables cannot be hidden or broken for forge", function()
  local mt = getmetatable(forge.json.array {})
  t.eq(mt.__jsontype, "array")
  t.eq(forge.json.encode(forge.json.array {}), "[]")
  t.eq(getmetatable(forge.json.null), false)
  t.eq(getmetatable(forge.schema.compile { type = "string" }), false)
end)

t.case("forge.re start positions at the integer extremes", function()
  -- math.mininteger cannot be negated as a signed integer (UBSan caught it).
  t.eq(forge.re.match("abc", "c", "", math.mininteger), "c")
  t.eq(forge.re.find("abc", "b", "", math.maxinteger), nil)
  t.eq(forge.re.match("abc", "c", "", -1), "c")
  local r, n = forge.re.gsub("aaa", "a", "b", "", math.mininteger)
  t.eq(r, "bbb"); t.eq(n, 3)
end)

t.case("C recursion through require and forge callbacks ends in an error", function()
  t.raises(function() require "fixtures.selfreq" end, "stack overflow")
  local function deep(n)
    return forge.re.gsub("a", "a", function() return deep(n + 1) end)
  end
  t.raises(function() deep(1) end, "stack overflow")
  local function sorter()
    table.sort({ 2, 1 }, function(a, b) sorter() return a < b end)
  end
  t.raises(sorter, "stack overflow")
  t.eq(forge.re.gsub("abc", "b", "x"), "axc")
end)

t.case("pathological schemas end in errors", function()
  local loops = {
    { ["$ref"] = "#" },
    { ["$defs"] = { a = { ["$ref"] = "#/$defs/b" }, b = { ["$ref"] = "#/$defs/a" } }, ["$ref"] = "#/$defs/a" },
    { allOf = { { ["$ref"] = "#" } } },
  }
  for _, schema in ipairs(loops) do
    local s = forge.schema.compile(schema)
    t.raises(function() s:validate(1) end, "nested deeper than 512 schemas")
  end
  local deep = 1
  for _ = 1, 900 do deep = { deep } end
  local items = forge.schema.compile { items = { ["$ref"] = "#" } }
  t.raises(function() items:validate(deep) end, "nested deeper than 512 schemas")
  t.raises(function() forge.schema.compile { ["$ref"] = "file:///etc/passwd" } end, "cannot resolve")
  t.raises(function() forge.schema.compile({ ["$ref"] = "https://x/../../../../../etc/passwd" },
                                           { ref_dirs = { ["https://x/"] = "fixtures" } }) end,
           "No such file")
  t.raises(function() forge.schema.compile({ ["$ref"] = "https://x/a" },
                                           { ref_dirs = { ["https://x/"] = "/etc" } }) end,
           "outside the folders this script may read")
end)

t.case("C stack exhaustion while handling errors and closing coroutines", function()
  -- a message handler that overflows while the function overflows
  local function loop() assert(pcall(loop)) end
  local ok, msg = xpcall(loop, loop)
  t.eq(ok, false)
  t.eq(msg, "error in error handling")
  -- coroutine.close nested a thousand deep through __close
  local coro = false
  for _ = 1, 1000 do
    local previous = coro
    coro = coroutine.create(function()
      local _ <close> = setmetatable({}, { __close = function()
        if previous then assert(coroutine.close(previous)) end
      end })
      coroutine.yield()
    end)
    assert(coroutine.resume(coro))
  end
  t.eq(coroutine.close(coro), true)
  -- coroutine.wrap nested a hundred thousand deep
  local function nest(n)
    if n == 0 then return 1 end
    return coroutine.wrap(function() return nest(n - 1) end)()
  end
  local ok2, err = pcall(nest, 100000)
  t.eq(ok2, false)
  t.ok(err:find("stack overflow", 1, true) or err:find("C stack", 1, true), err:sub(-200))
end)

t.case("schema references do not follow a symbolic link out of their folder", function()
  local forge = require "forge"
  local err = t.raises(function()
    forge.schema.compile({ ["$ref"] = "https://x/outside_link" }, { ref_dirs = { ["https://x/"] = "fixtures" } })
  end, "is outside the --ref-dir folder")
  t.ok(not err:find("root:", 1, true), err)
end)

t.case("string.dump is unreachable, through the string metatable too", function()
  t.eq(string.dump, nil)
  t.eq(("").dump, nil)
  t.eq(getmetatable(""), false)
end)

t.case("the iterator behind a decoded object's pairs checks its arguments", function()
  local obj = forge.json.decode('{"a": 1, "b": 2}')
  local pairs_mm = getmetatable(obj).__pairs
  t.raises(function() pairs_mm(5) end, "table expected, got number")
  local next_fn = pairs_mm(obj)
  t.raises(function() next_fn(5, nil) end, "table expected, got number")
  t.raises(function() next_fn("x", nil) end, "table expected, got string")
  t.raises(function() next_fn(obj, "no such key") end, "invalid key to 'next'")
  local keys = {}
  for k in pairs(obj) do keys[#keys + 1] = k end
  t.eq(keys, { "a", "b" })
end)

t.case("converting to JSON runs no metamethod of the script's", function()
  local trap = function() error("metamethod ran") end
  local mt = { __index = trap, __newindex = trap, __pairs = trap, __len = trap,
               __tostring = trap, __eq = trap, __lt = trap, __le = trap, __concat = trap }
  local inner = setmetatable({ 1, 2, 3 }, mt)
  local v = setmetatable({ a = inner, b = "x" }, mt)
  t.eq(forge.json.encode(v), '{"a":[1,2,3],"b":"x"}')
  t.eq(forge.json.encode(v, setmetatable({}, { __index = function() return true end })),
       '{"a":[1,2,3],"b":"x"}')
  -- the shared metatable of decoded objects, changed by the script, does not run either
  local obj = forge.json.decode('{"k": [1]}')
  local omt = getmetatable(obj)
  omt.__index = trap
  local ok, text = pcall(forge.json.encode, obj)
  omt.__index = nil
  t.eq(ok, true, text)
  t.eq(text, '{"k":[1]}')
end)

t.case("NUL bytes in keys and strings are refused, never cut", function()
  t.raises(function() forge.json.encode({ ["x\0y"] = 1 }) end, "a table key with a NUL byte")
  t.raises(function() forge.json.encode({ x = "a\0b" }) end, ".x: a string with a NUL byte")
  t.raises(function() forge.json.decode('{"x\\u0000y": 1}') end,
           "<input>:1:4: a string holds \\u0000 (a NUL character)")
  t.raises(function() forge.re.test("a", "a", "i\0x") end, "bad argument #3 to 'test' (contains a NUL byte)")
  t.raises(function() forge.assertion("name\0tail", function() return true end) end,
           "bad argument #1 to 'assertion' (contains a NUL byte)")
end)

t.case("forge.re keeps patterns per state and compiles past its cache", function()
  for i = 1, 1100 do t.eq(forge.re.test("a" .. i, "^a" .. i .. "$"), true) end
  t.eq(forge.re.test("a7", "^a7$"), true)
  t.eq(forge.re.test("", ""), true)
  t.eq(forge.re.test("b", "", "bxsm"), true)
  local n = 0
  for w in forge.re.gmatch("one two three", "\\w+") do n = n + #w end
  t.eq(n, 11)
  t.eq(select(1, forge.re.gsub("a1b22", "\\d+", function(d) return "<" .. d .. ">" end)), "a<1>b<22>")
end)

t.case("JSON Schema evaluation has a step budget", function()
  local defs = {}
  for i = 0, 39 do
    local nxt = { ["$ref"] = "#/$defs/d" .. (i + 1) }
    defs["d" .. i] = { anyOf = { nxt, nxt } }
  end
  defs.d40 = { type = "string" }
  local s = forge.schema.compile({ ["$ref"] = "#/$defs/d0", ["$defs"] = defs })
  t.eq(s:validate("fine"), true)
  t.eq((s:validate(5)), false) -- memoised: linear
  defs.any = true
  local dyn = forge.schema.compile({ ["$ref"] = "#/$defs/d0", ["$defs"] = defs,
                                    allOf = { { ["$dynamicRef"] = "#/$defs/any" } } })
  t.raises(function() return dyn:validate(5) end,
           "schema evaluation limit exceeded: more than 10000000 steps validating one instance; raise it with --schema-steps N")
end)

t.case("forge.schema reads its options raw and refuses NUL bytes in them", function()
  t.raises(function() forge.schema.compile({}, { draft = "7\0x" }) end, "opts.draft must be")
  t.raises(function() forge.schema.compile({}, { ref_dirs = { ["https://x/"] = "fixtures\0/../.." } }) end,
           "without NUL bytes")
  local opts = setmetatable({}, { __index = function() error("metamethod ran") end })
  t.ok(forge.schema.compile({ type = "string" }, opts))
  t.raises(function() forge.schema.compile({}, 5) end, "table expected, got number")
  local s = forge.schema.compile({ type = "string" })
  t.raises(function() return s.validate(5, "x") end, "forge.Schema expected")
end)

t.done()
