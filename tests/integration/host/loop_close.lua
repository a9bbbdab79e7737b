-- A __close metamethod that loops, run by coroutine.close.
local co = coroutine.create(function()
  local _ <close> = setmetatable({}, { __close = function() while true do end end })
  coroutine.yield()
end)
coroutine.resume(co)
print(coroutine.close(co))
print("escaped")
