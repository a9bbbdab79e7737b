local t = {}
local ok = pcall(function() for i = 1, 1e10 do t[i] = i end end)
print("caught", ok) -- never reached: the limit is sticky
