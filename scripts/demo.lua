-- The demo: a weather agent's eval suite, run offline on the scripted model.
--   forge script scripts/demo.lua            (from the repository's root)
-- Two tools (canned responses and a Lua function), a verifier that blocks implausible readings,
-- a custom assertion that catches answers contradicting the tools, golden and labeled cases.
-- One case fails on purpose (gs-weather-004): the scripted "model" invents a temperature.
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

local model = forge.scripted {
  { match = "umbrella in (\\w+)",
    calls = { { name = "get_forecast", arguments = { city = "$1", days = 3 } } },
    reply = function(ctx)
      for _, d in ipairs(ctx.result.days) do
        if d.rain then return ("Rain is likely on day %d in %s: take an umbrella."):format(d.day, ctx.match[1]) end
      end
      return "No rain expected."
    end },
  { match = "joke", reply = "Why did the cloud break up with the fog? It needed more space." },
  { match = "compare the weather in (\\w+) and (\\w+)",
    steps = {
      { calls = { { name = "get_weather", arguments = { city = "$1" } } } },
      { calls = { { name = "get_weather", arguments = { city = "$2" } } } },
      { reply = "{{history.1.result.city}} is at {{history.1.result.temp_c}}°C, "
             .. "{{history.2.result.city}} at {{history.2.result.temp_c}}°C." },
    } },
  { match = "now and the forecast for tomorrow in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } },
              { name = "get_forecast", arguments = { city = "$1", days = 1 } } },
    reply = "$1: {{results.1.result.temp_c}}°C and {{results.1.result.condition}} now; "
         .. "tomorrow up to {{results.2.result.days.1.high_c}}°C." },
  { match = "hot in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = "Yes, it is 30°C in $1." }, -- wrong on purpose: the tool said 21°C
  { match = "how warm is it in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1", units = "celsius" } } },
    reply = "$1 is at {{result.temp_c}}°C and {{result.condition}}." },
  { match = "weather (?:in|on) (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = function(ctx)
      local r = ctx.results[1]
      if r.error then return "I could not get a reliable reading for " .. ctx.match[1] .. "." end
      return ("It is %d°C and %s in %s."):format(r.result.temp_c, r.result.condition, ctx.match[1])
    end },
  { reply = "I can only help with the weather." },
}

return forge.suite {
  name = "weather",
  model = model,
  tools = { get_weather, get_forecast },
  cases = forge.evals("../evals/demo/weather.golden.json", "../evals/demo/weather.labeled.json"),
  gates = { pass_rate = 0.8 },
}
