-- Custom assertions for the weather evals:
--   forge run evals/get_weather.golden.json ... --assertions evals/weather_assertions.lua
local forge = require "forge"

-- The answer states a temperature in degrees.
forge.assertion("mentions_temperature", function(run, expected)
  local found = run.response:find("%-?%d+%s*°[CF]") ~= nil
  return found == expected, "the answer gives no temperature"
end)

-- The answer repeats the temperature the tool returned (no invented numbers).
forge.assertion("temperature_from_tool", function(run, expected)
  for _, call in ipairs(run.tool_calls) do
    if call.name == "get_weather" and type(call.result) == "table" and call.result.temp_c then
      local t = tostring(math.tointeger(call.result.temp_c) or call.result.temp_c)
      if run.response:find(t, 1, true) then return true end
      return { pass = false, score = 0, reason = "the tool said " .. t .. "°C, the answer does not" }
    end
  end
  return { pass = false, reason = "get_weather returned no temperature" }
end)
