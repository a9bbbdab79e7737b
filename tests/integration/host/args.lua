local forge = require "forge"
print(#forge.args, table.concat(forge.args, ","))
