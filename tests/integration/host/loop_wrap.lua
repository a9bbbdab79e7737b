local f = coroutine.wrap(function() while true do end end)
while true do pcall(f) end
