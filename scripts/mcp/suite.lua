-- A suite whose tools come from an MCP server: forge's own weather tools, served over stdio by
-- `forge mcp serve` (docs/mcp.md). Any MCP server works the same way:
--   forge.mcp { name = "fs", command = { "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp" } }
--   forge.mcp { name = "remote", url = "https://example.com/mcp", token_env = "REMOTE_TOKEN" }
-- Starting a server needs --allow-exec:  forge script scripts/mcp/suite.lua --allow-exec
local forge = require "forge"

local tools = forge.mcp {
  name = "weather",
  command = { forge.executable(), "mcp", "serve", forge.script_dir() .. "/../weather/tools.lua" },
}

return forge.suite {
  name = "mcp-weather",
  tools = tools,
  model = forge.scripted {
    { match = "weather in (\\w+)",
      calls = { { name = "get_weather", arguments = { city = "$1" } } },
      reply = "It is {{result.structuredContent.temp_c}}°C and {{result.structuredContent.condition}} in $1." },
  },
  cases = {
    { id = "mcp-paris", input = { message = "What's the weather in Paris?" },
      expect = { toolsCalled = { "get_weather" }, responseContains = { "18°C", "cloudy" }, noToolErrors = true } },
    { id = "mcp-venus", description = "the server's verifier blocks an implausible result: the call is an error",
      input = { message = "What's the weather in Venus?" },
      expect = { toolsCalled = { "get_weather" }, responseNotContains = { "464" } } },
    { id = "mcp-pinned", description = "a stub pins what the server would answer",
      input = { message = "What's the weather in Oslo?" },
      stubs = { get_weather = { structuredContent = { temp_c = -3, condition = "snowy" } } },
      expect = { responseContains = { "-3°C", "snowy" } } },
  },
}
