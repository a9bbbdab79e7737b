while true do pcall(string.rep, "x", 1 << 30) end
