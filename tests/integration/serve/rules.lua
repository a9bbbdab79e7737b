-- The scripted model behind forge serve in the SDK tests.
local forge = require "forge"

return forge.scripted {
  { match = "now and the forecast for tomorrow in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } },
              { name = "get_forecast", arguments = { city = "$1", days = 1 } } },
    reply = "$1: {{results.1.result.temp_c}}°C now; tomorrow up to {{results.2.result.days.1.high_c}}°C." },
  { match = "weather in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = "It is {{result.temp_c}}°C and {{result.condition}} in $1." },
  { match = "joke", reply = "Why did the cloud break up with the fog? It needed more space. ☁️" },
}
