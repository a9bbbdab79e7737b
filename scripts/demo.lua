-- The demo: forge's Lua API on a recorded tool call, offline.
local forge = require "forge"

local call = forge.json.decode [[
  {"name": "get_weather", "arguments": {"city": "Paris"},
   "result": {"temp_c": 18, "condition": "cloudy"}}
]]
local answer = "It is 18°C and cloudy in Paris."

local temp = forge.re.match(answer, "(-?\\d+)\\s*°C")
print(("tool %s(%s) -> %s"):format(call.name, forge.json.encode(call.arguments),
  forge.json.encode(call.result)))
print(("the answer quotes %s°C; the tool said %d°C: %s"):format(temp, call.result.temp_c,
  tonumber(temp) == call.result.temp_c and "consistent" or "CONTRADICTION"))
