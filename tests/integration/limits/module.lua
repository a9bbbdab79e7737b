-- A module whose top level breaks the limit named by the suite's arguments.
local forge = require "forge"
if forge.args[2] == "mem" then
  local t = {}
  for i = 1, math.maxinteger do t[i] = string.rep("x", 4096) .. i end
end
while true do end
