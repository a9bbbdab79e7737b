-- "[1,1,1,...]": each 2-byte element becomes a C tree node of ~64 bytes before Lua sees it.
local forge = require "forge"
local s = "[" .. string.rep("1,", 2000000) .. "1]"
pcall(forge.json.decode, s)
print("escaped")
