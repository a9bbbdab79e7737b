-- Compiled schemas live in C for as long as the script keeps them: they count against
-- --lua-memory.
local forge = require "forge"
local props = {}
for i = 1, 200 do props["p" .. i] = { type = "string", pattern = "^[a-z]{1," .. i .. "}$" } end
local kept = {}
for i = 1, 100000 do kept[i] = forge.schema.compile({ type = "object", properties = props }) end
print("kept", #kept)
