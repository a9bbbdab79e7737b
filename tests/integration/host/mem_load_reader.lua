-- load catches errors raised by its reader function; a memory bomb there must still end the call.
print(load(function() return string.rep("x", 1 << 30) end))
print("escaped")
