-- The demo: a weather agent's eval suite, run offline on the scripted model.
--   forge script scripts/demo.lua            (from the repository's root)
-- Two tools (canned responses and a Lua function) with a verifier that blocks implausible
-- readings (weather/tools.lua), a custom assertion that catches answers contradicting the tools
-- (weather/assertions.lua), scripted answers (weather/rules.lua), golden and labeled cases.
-- One case fails on purpose (gs-weather-004): the scripted "model" invents a temperature.
-- Its offline HTML report (docs/reports.md), to open in a browser:
--   forge script scripts/demo.lua --report html=report.html
-- The same suite from the command line:
--   forge run evals/demo/*.json --tools scripts/weather/tools.lua \
--     --assertions scripts/weather/assertions.lua --model scripted:scripts/weather/rules.lua
local forge = require "forge"

require "weather.assertions"

return forge.suite {
  name = "weather",
  model = require "weather.rules",
  tools = require "weather.tools",
  cases = forge.evals("../evals/demo/weather.golden.json", "../evals/demo/weather.labeled.json"),
  gates = { pass_rate = 0.8 },
}
