-- A hostile rules table: call arguments holding one table twice at each of 60 levels (2^60
-- paths, a few kilobytes of memory). Planning the rules in C must give up on it, and the Lua
-- engine that then answers must stop at the script's time limit.
local forge = require "forge"
local x = "leaf"
for _ = 1, 60 do x = { a = x, b = x } end
return forge.suite {
  name = "dag",
  model = forge.scripted {
    { match = "hi", calls = { { name = "echo", arguments = { v = x } } }, reply = "done" },
    { reply = "fallback" },
  },
  tools = { forge.tool { name = "echo", description = "Echoes.", schema = { type = "object" },
                        run = function() return "ok" end } },
  cases = { { id = "c1", input = { message = "hi" } } },
}
