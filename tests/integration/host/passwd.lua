local forge = require "forge"
print((forge.read_file("/etc/passwd"):match("^root")))
