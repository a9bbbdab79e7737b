-- Benchmark suite: N generated cases on the scripted model, two Lua tools, a verifier and a
-- custom assertion. N = forge.args[1] (default 10000).
local forge = require "forge"
local n = tonumber(forge.args[1]) or 10000

local get_weather = forge.tool {
  name = "get_weather",
  schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
  run = function(args) return { city = args.city, temp_c = #args.city + 10, condition = "clear" } end,
}
local get_forecast = forge.tool {
  name = "get_forecast",
  schema = { type = "object", properties = { city = { type = "string" }, days = { type = "integer" } } },
  run = function(args)
    local d = {}
    for i = 1, args.days do d[i] = { day = i, high_c = 15 + i } end
    return { city = args.city, days = d }
  end,
}
forge.verifier { name = "plausible", tools = "*", order = "R-0001",
  verify = function(call) return "pass" end }
forge.assertion("has_number", function(run) return run.response:find("%d") ~= nil end)

local cases = {}
for i = 1, n do
  cases[i] = { id = "case-" .. i, input = { message = "weather and forecast in City" .. i },
               expect = { toolsCalled = { "get_weather", "get_forecast" },
                          toolParams = { { tool = "get_weather", paramName = "city", assertion = "equals", value = "City" .. i } },
                          responseContains = { "City" .. i }, custom = { has_number = true } } }
end

return forge.suite {
  name = "bench",
  model = forge.scripted {
    { match = "in (\\w+)",
      calls = { { name = "get_weather", arguments = { city = "$1" } },
                { name = "get_forecast", arguments = { city = "$1", days = 2 } } },
      reply = "$1: {{results.1.result.temp_c}}°C" },
  },
  tools = { get_weather, get_forecast },
  cases = cases,
}
