-- The metatable forge.json gives arrays is reachable through getmetatable; a __gc added to it
-- must not turn the next tables forge tags into finalizable objects (finalizers run with hooks
-- off, so this loop could never be stopped and forge would hang when it closes the state).
local forge = require "forge"
local mt = getmetatable(forge.json.array {})
mt.__gc = function() while true do end end
for _ = 1, 10 do forge.json.array {} end
local omt = getmetatable(forge.json.decode('{"a":1,"b":2}'))
omt.__gc = function() while true do end end
for _ = 1, 10 do forge.json.decode('[{"a":1,"b":2},{"c":1}]') end
print("done")
