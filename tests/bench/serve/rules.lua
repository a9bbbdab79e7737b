local forge = require "forge"
return forge.scripted {
  { match = "weather in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = "It is {{result.temp_c}}°C and {{result.condition}} in $1." },
}
