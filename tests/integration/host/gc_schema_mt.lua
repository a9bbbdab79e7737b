-- A compiled schema's metatable carries a C __gc; replacing it with a Lua loop would hang forge
-- when the schema is collected.
local forge = require "forge"
local s = forge.schema.compile { type = "string" }
local mt = getmetatable(s)
if mt then mt.__gc = function() while true do end end end
s = nil
print(type(mt))
