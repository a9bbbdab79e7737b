-- A file larger than the memory limit: read_file fails before it holds the file in C.
local forge = require "forge"
print(forge.read_file(forge.args[1]))
