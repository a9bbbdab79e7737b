-- The sandbox: every escape attempt fails with the expected error and forge stays healthy.
local t = require "forge.testing"
local forge = require "forge"

t.case("removed globals are absent", function()
  for _, name in ipairs { "io", "os", "debug", "package", "dofile", "loadfile", "collectgarbage",
                          "loadstring", "module", "setfenv", "getfenv", "newproxy" } do
    t.eq(_G[name], nil, name)
  end
  t.eq(string.dump, nil, "string.dump")
end)

t.case("allowed libraries are present", function()
  for _, name in ipairs { "string", "table", "math", "utf8", "coroutine", "pcall", "xpcall",
                          "load", "require", "setmetatable", "print", "select", "pairs" } do
    t.ok(_G[name] ~= nil, name)
  end
end)

t.case("binary chunks are refused", function()
  local f = load("return 1")
  t.eq(f(), 1)
  local chunk, err = load("\27Lua\84\0\25\147\13\10\26\10")
  t.eq(chunk, nil)
  t.ok(err:find("binary chunk", 1, true), err)
  t.raises(function() load("return 1", "x", "b") end, "only text chunks are allowed")
  t.raises(function() load("return 1", "x", "bt") end, "only text chunks are allowed")
end)

t.case("load uses the sandbox environment", function()
  local f = load("return io, os, string.upper ~= nil")
  local a, b, c = f()
  t.eq(a, nil); t.eq(b, nil); t.eq(c, true)
  local env = { x = 5 }
  t.eq(load("return x", "chunk", "t", env)(), 5)
end)

t.case("the string metatable is locked", function()
  t.eq(getmetatable(""), false)
  t.raises(function() getmetatable("").__index.upper = nil end, "attempt to index a boolean value")
  t.raises(function() setmetatable("", {}) end, "bad argument #1 to 'setmetatable'")
end)

t.case("changing the string table does not change string methods", function()
  local saved = string.upper
  string.upper = function() return "pwned" end
  t.eq(("abc"):upper(), "ABC")
  string.upper = saved
end)

t.case("__gc metamethods are refused", function()
  t.raises(function() setmetatable({}, { __gc = function() end }) end, "__gc metamethods are not allowed")
  t.eq(getmetatable(setmetatable({}, { __index = {} })).__gc, nil)
end)

t.case("require: C modules and files outside the folder are refused", function()
  t.raises(function() require "io" end, "module 'io' not found")
  t.raises(function() require "socket.core" end, "module 'socket.core' not found")
  t.raises(function() require "../x" end, "invalid module name")
  t.raises(function() require "/etc/passwd" end, "invalid module name")
end)

t.case("argument errors name forge's functions called without a name", function()
  -- lauxlib names a function with no name at its call site by the loaded module that holds it
  local ok, err = pcall(forge.json.decode, {})
  t.eq(ok, false)
  t.eq(err, "bad argument #1 to 'forge.json.decode' (string expected, got table)")
  ok, err = pcall(forge.schema.compile)
  t.eq(err, "bad argument #1 to 'forge.schema.compile' (value expected)")
  ok, err = pcall(forge.re.test, "a")
  t.eq(err, "bad argument #2 to 'forge.re.test' (string expected, got no value)")
  -- one name on every run for a function under two (forge.assertion is forge.eval's): the shorter
  ok, err = pcall(forge.assertion, {})
  t.eq(err, "bad argument #1 to 'forge.assertion' (string expected, got table)")
  -- the standard libraries' own tables stay out of reach
  t.raises(function() require "string" end, "module 'string' not found")
  t.raises(function() require "_G" end, "module '_G' not found")
end)

t.case("require: modules under the script folder", function()
  t.eq(require("fixtures.mod").answer, 42)
  t.ok(require("fixtures.mod") == require("fixtures.mod"), "cached")
  t.eq(type(require "forge.json"), "table")
end)

t.case("reading files is confined", function()
  t.eq(forge.read_file("fixtures/hello.txt"), "hello\n")
  t.raises(function() forge.read_file("/etc/passwd") end, "outside the folders this script may read")
  t.raises(function() forge.read_file("../../../../../../etc/passwd") end, "outside the folders")
  t.raises(function() forge.read_file("fixtures/outside_link") end, "outside the folders")
  local none, err = forge.read_file("fixtures/absent.txt")
  t.eq(none, nil)
  t.ok(err:find("no such file", 1, true), err)
end)

t.case("errors with table values and metamethods are ordinary errors", function()
  local ok, e = pcall(error, setmetatable({}, { __tostring = function() return "custom" end }))
  t.eq(ok, false)
  t.eq(tostring(e), "custom")
end)

t.case("regex backtracking is bounded", function()
  t.raises(function() forge.re.test(string.rep("a", 40) .. "!", "^(a|a)+$") end, "hit the PCRE2")
  t.eq(forge.re.test("aaa", "^(a|a)+$"), true)
end)

t.case("forge stays healthy after errors", function()
  for _ = 1, 100 do pcall(error, "x") end
  t.eq(forge.json.encode({ 1, 2 }), "[1,2]")
end)

t.done()
