local function inner() local t = nil; return t.field end
local function outer() local v = inner(); return v end
outer()
