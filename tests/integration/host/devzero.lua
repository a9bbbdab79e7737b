-- /dev/zero never ends and a FIFO blocks on open: only regular files are read.
local forge = require "forge"
print(forge.read_file("/dev/zero"))
print(forge.read_file("/dev/null"))
