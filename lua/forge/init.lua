-- forge: the module scripts get from `require "forge"`.
-- Host functions come from forge.core; every other forge.<name> module (json, re, schema, ...)
-- loads on first use, so `forge.json.encode(...)` works without a separate require.
local core = require "forge.core"

local forge = {}
for k, v in pairs(core) do forge[k] = v end

return setmetatable(forge, {
  __index = function(t, name)
    if type(name) ~= "string" then return nil end
    local ok, mod = pcall(require, "forge." .. name)
    if not ok then
      if tostring(mod):find("not found", 1, true) then return nil end
      error(mod, 2)
    end
    rawset(t, name, mod)
    return mod
  end,
})
