local function f(n) return 1 + f(n + 1) end
print(pcall(f, 1))
local function g() return g() + 1 end
g()
