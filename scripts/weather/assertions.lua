-- The demo's custom assertion (forge run ... --assertions scripts/weather/assertions.lua).
local forge = require "forge"

-- Every "N°C" in the answer must be a temperature some tool returned.
forge.assertion("quotes_tool_temperature", function(run)
  local known = {}
  for _, call in ipairs(run.tool_calls) do
    local r = call.result
    if type(r) == "table" then
      if r.temp_c then known[r.temp_c] = true end
      for _, d in ipairs(r.days or {}) do known[d.high_c] = true end
    end
  end
  for n in run.response:gmatch("(-?%d+)%s*°C") do
    if not known[tonumber(n)] then
      return { pass = false, score = 0, reason = ("the answer says %s°C, which no tool returned"):format(n) }
    end
  end
  return true
end)

