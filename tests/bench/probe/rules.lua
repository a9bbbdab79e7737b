-- A long text answer and a two-call answer, for measuring what reading a stream costs.
local forge = require "forge"
local text = ("The weather in Paris is mild with a light breeze from the west. "):rep(40)
return forge.scripted {
  { match = "calls", calls = { { name = "get_weather", arguments = { city = "Paris", unit = "celsius", days = 5 } },
                               { name = "get_weather", arguments = { city = "London", unit = "celsius", days = 5 } } } },
  { reply = text },
}
