-- A tool's own timeout may tighten --lua-timeout but never lift it.
local forge = require "forge"
return forge.suite {
  name = "tool-timeout",
  model = forge.scripted { { calls = { { name = "spin" } }, reply = "done" } },
  tools = { forge.tool { name = "spin", timeout = 600000, run = function() while true do end end } },
  cases = { { id = "c1", input = { message = "go" }, expect = { noToolErrors = true } } },
}
