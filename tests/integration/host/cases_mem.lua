-- Cases outlive the Lua tables they are built from: one shared 4 KiB string in 50,000 cases is
-- 200 MB once converted, and that counts against --lua-memory.
local forge = require "forge"
local text = string.rep("x", 4096)
local cases = {}
for i = 1, 50000 do cases[i] = { id = "c" .. i, input = { message = text } } end
return forge.suite {
  name = "many-cases",
  model = forge.scripted { { reply = "done" } },
  cases = cases,
}
