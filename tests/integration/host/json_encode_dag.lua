-- A shared table referenced twice per level: 2^40 nodes once converted to JSON, from a few
-- hundred bytes of Lua. The conversion must break the memory cap (or the deadline), and pcall
-- must not catch it.
local forge = require "forge"
local t = { 1 }
for _ = 1, 40 do t = { t, t } end
pcall(forge.json.encode, t)
print("escaped")
