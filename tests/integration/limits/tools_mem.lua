-- A tools file (forge run --tools) whose top level allocates without end.
local t = {}
for i = 1, math.maxinteger do t[i] = string.rep("x", 4096) .. i end
