-- string.rep inside coroutine.wrap, under pcall: it ends the call.
print(pcall(coroutine.wrap(function() return string.rep("x", 1 << 30) end)))
print("escaped")
