-- coroutine.close catches errors raised by pending __close metamethods; a memory bomb there
-- must still end the call.
local co = coroutine.create(function()
  local _ <close> = setmetatable({}, { __close = function() local _ = string.rep("x", 1 << 30) end })
  coroutine.yield()
end)
coroutine.resume(co)
print(coroutine.close(co))
print("escaped")
