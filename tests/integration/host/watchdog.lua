-- A Lua pattern match runs inside C, where the instruction hook cannot stop it.
local s = string.rep("a", 200000)
print(s:find(".-.-.-.-b"))
