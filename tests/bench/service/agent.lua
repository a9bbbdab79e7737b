-- The agent of tests/bench/service: one tool call, then the answer (two model rounds per turn).
local forge = require "forge"
return forge.agent {
  id = "bench",
  model = forge.scripted {
    { match = "weather in (\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },
      reply = "It is {{result.temp_c}}°C in $1." },
    { reply = "Hello." },
  },
  tools = {
    forge.tool { name = "get_weather", description = "Current weather for a city.",
      schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
      mock = { temp_c = 18, condition = "cloudy" } },
  },
  policy = { approval = { level = "autonomous" } },
}
