-- forge.re.gsub on a huge subject runs millions of matches in C, where the instruction hook never
-- fires: it must fail with the time limit, not run until the watchdog stops forge.
local forge = require "forge"
local s = string.rep("a", 30000000)
pcall(forge.re.gsub, s, "", "")
print("escaped")
