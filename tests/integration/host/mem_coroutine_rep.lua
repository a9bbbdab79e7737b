-- string.rep inside a coroutine, the failure caught by coroutine.resume: it ends the call.
local co = coroutine.create(function() return string.rep("x", 1 << 30) end)
print(coroutine.resume(co))
print("escaped")
