-- A memory error caught by pcall ends the call even when memory is free again afterwards: the
-- failing function's own data is collected, a to-be-closed variable allocates as much again.
local ok = pcall(function()
  local keep = {}
  local guard <close> = setmetatable({}, { __close = function()
    keep = nil
    local again = string.rep("y", 8 << 20)
    return #again
  end })
  for i = 1, 64 do keep[i] = string.rep("x", 1 << 20) .. i end
end)
print("survived", ok)
