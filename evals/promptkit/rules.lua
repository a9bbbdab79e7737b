-- The scripted model of the PromptKit example (evals/promptkit/weather.tools.yaml).
local forge = require "forge"

return forge.scripted {
  { match = "umbrella in (\\w+)",
    calls = { { name = "get_forecast", arguments = { city = "$1", days = 2 } } },
    reply = function(ctx)
      for _, d in ipairs(ctx.result.days) do
        if d.rain then return ("Take an umbrella: rain on day %d in %s."):format(d.day, ctx.match[1]) end
      end
      return "No rain expected."
    end },
  { match = "weather in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = "It is {{result.temp_c}}°C and {{result.condition}} in {{result.city}}." },
  { reply = "I can only help with the weather." },
}
