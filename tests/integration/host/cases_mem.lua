-- Cases outlive the Lua tables they are built from: one shared 4 KiB string in 50,000 cases is
-- 200 MB once converted; they are written out to a temporary file, which the input limit
-- (--max-file-mb) bounds.
local forge = require "forge"
local text = string.rep("x", 4096)
local cases = {}
for i = 1, 50000 do cases[i] = { id = "c" .. i, input = { message = text } } end
return forge.suite {
  name = "many-cases",
  model = forge.scripted { { reply = "done" } },
  cases = cases,
}
