-- Custom assertions that break limits during a run: each fails that assertion only, and the
-- next one runs with fresh limits.
local forge = require "forge"
forge.assertion("dag", function()
  -- converted to JSON after the call returns, in C: charged against --lua-memory all the same
  local t = { 1 }
  for _ = 1, 40 do t = { t, t } end
  return { pass = true, score = 1, reason = t }
end)
forge.assertion("rep", function()
  pcall(string.rep, "x", 1 << 30)
  return true
end)
forge.assertion("fine", function(run) return #run.response > 0 end)
