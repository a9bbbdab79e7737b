-- The scripted model forge serve answers with in this example (docs/serve.md): the agent under
-- test asks for the weather, forge answers with a tool call, the agent runs its own tool and
-- sends the result back, forge answers with a sentence quoting it.
local forge = require "forge"

return forge.scripted {
  { match = "weather in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = "It is {{result.temp_c}}°C and {{result.condition}} in $1." },
  { match = "umbrella in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } },
              { name = "get_forecast", arguments = { city = "$1", days = 2 } } },
    reply = "Now {{results.1.result.condition}}; tomorrow {{results.2.result.days.2.condition}} in $1." },
}
