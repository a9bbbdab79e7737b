-- The message handler loops too: still stopped.
while true do
  xpcall(function() error("x") end, function() while true do end end)
end
