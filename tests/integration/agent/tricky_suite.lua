-- Metatables on the suite's tables never run while forge reads them; a replaced
-- forge.verifiers runs as user code under the limits.
local forge = require "forge"
local trap = { __index = function() error("metamethod ran") end }
local t = setmetatable({ name = "t", mock = { ok = true } }, { __forge_kind = "tool", __index = trap.__index })
local case = setmetatable({ id = "c1", input = { message = "go" }, expect = { toolsCalled = { "t" } } }, trap)
if forge.args[1] == "replace" then forge.verifiers = function() error("verifiers replaced") end end
return forge.suite {
  name = "tricky",
  model = forge.scripted { { calls = { { name = "t" } }, reply = "done" } },
  tools = { t },
  cases = { case },
}
