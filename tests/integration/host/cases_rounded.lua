-- A suite's cases are kept as cJSON prints them: 0.1 + 0.2 (0.30000000000000004) is printed
-- "0.3", so the case expects the 0.3 the model passes. One tool, one call.
local forge = require "forge"
local t = forge.tool { name = "t", schema = { type = "object" }, run = function(args) return { got = args.x } end }
return forge.suite {
  name = "rounded",
  model = forge.scripted { { calls = { { name = "t", arguments = { x = 0.3 } } } }, { reply = "done" } },
  tools = { t },
  cases = {
    { id = "r", input = { message = "go" },
      expect = { toolParams = { { tool = "t", paramName = "x", assertion = "equals", value = 0.1 + 0.2 } } } },
    { id = "s", input = { message = "go \t\1 \"q\" caf\195\169 \240\159\152\128" },
      expect = { toolsCalled = { "t" }, toolParams = { { tool = "t", paramName = "x", assertion = "equals", value = 0.3 } } } },
  },
}
