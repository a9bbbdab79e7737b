-- Compiled patterns are C memory kept for the script: they count against --lua-memory.
local forge = require "forge"
local kept = 0
for i = 1, 100000 do
  local p = string.rep("(a|b" .. i .. ")", 2000)
  forge.re.test("x", p)
  kept = kept + 1
end
print("compiled", kept)
