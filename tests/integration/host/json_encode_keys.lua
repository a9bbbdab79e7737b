-- Long keys in a shared object: the keys are copied for every reference.
local forge = require "forge"
local o = { [string.rep("k", 1 << 20)] = 1 }
local t = {}
for i = 1, 3000 do t[i] = o end
pcall(forge.json.encode, t)
print("escaped")
