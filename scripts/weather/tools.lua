-- The weather tools and their verifier (used by scripts/demo.lua and by
--   forge run evals/demo/*.json --tools scripts/weather/tools.lua ...).
local forge = require "forge"

local get_weather = forge.tool {
  name = "get_weather",
  description = "Current weather for a city. Use when the user asks about current conditions.",
  category = "read", consequenceLevel = "low", requiresConfirmation = false,
  triggerPhrases = { "weather in", "how warm", "is it raining" },
  schema = {
    type = "object",
    properties = {
      city = { type = "string" },
      units = { type = "string", enum = { "celsius", "fahrenheit" } },
    },
    required = { "city" }, additionalProperties = false,
  },
  responses = {
    { when = { city = "Paris" }, result = { city = "Paris", temp_c = 18, condition = "cloudy" } },
    { when = { city = "Tokyo" }, result = { city = "Tokyo", temp_c = 24, condition = "sunny" } },
    { when = { city = "Berlin" }, result = { city = "Berlin", temp_c = 12, condition = "windy" } },
    { when = { city = "Madrid" }, result = { city = "Madrid", temp_c = 21, condition = "clear" } },
    { when = { city = "Rome" }, result = { city = "Rome", temp_c = 22, condition = "sunny" } },
    { when = { city = "Milan" }, result = { city = "Milan", temp_c = 17, condition = "foggy" } },
    { when = { city = "Venus" }, result = { city = "Venus", temp_c = 464, condition = "acid clouds" } },
  },
  fallback = { temp_c = 20, condition = "clear" },
}

local get_forecast = forge.tool {
  name = "get_forecast",
  description = "Forecast for the next days in a city. Use for questions about later days, not now.",
  category = "read", consequenceLevel = "low",
  schema = {
    type = "object",
    properties = { city = { type = "string" }, days = { type = "integer", minimum = 1, maximum = 7 } },
    required = { "city", "days" },
  },
  run = function(args)
    local days = {}
    for i = 1, args.days do
      days[i] = { day = i, high_c = 14 + i, rain = (i % 2 == 0) }
    end
    return { city = args.city, days = days }
  end,
}

forge.verifier {
  name = "plausible_temperature", tools = { "get_weather" }, order = "R-0001",
  verify = function(call)
    local t = call.result.temp_c
    if type(t) == "number" and (t > 60 or t < -90) then
      return "block", ("implausible temperature %d°C"):format(t)
    end
    return "pass"
  end,
}

return { get_weather, get_forecast }
