-- One 1 MiB string referenced 3000 times: 3 GiB of JSON text built in C.
local forge = require "forge"
local s = string.rep("x", 1 << 20)
local t = {}
for i = 1, 3000 do t[i] = s end
pcall(forge.json.encode, t)
print("escaped")
