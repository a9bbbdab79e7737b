-- The demo's scripted "model" (forge run ... --model scripted:scripts/weather/rules.lua).
local forge = require "forge"

return forge.scripted {
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

