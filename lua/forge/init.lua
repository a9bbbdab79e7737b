-- forge: the Lua half of the API. The C bindings are in the preloaded module "forge.core".
local core = require "forge.core"
local forge = {}
for k, v in pairs(core) do forge[k] = v end
return forge
