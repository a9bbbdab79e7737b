-- Lua tools that fail in every way, an HTTP tool, a Lua approval function, a policy.
local forge = require "forge"
local port = forge.args[1] or "1"

local tools = {
  forge.tool { name = "loops", run = function() while true do end end, timeout = 200 },
  forge.tool { name = "raises", run = function() error("database unavailable") end },
  forge.tool { name = "hogs", run = function() local t = {} for i = 1, 1e9 do t[i] = i end end },
  forge.tool { name = "echo", run = function(args, call)
      return { got = args, tool = call.tool, index = call.index, round = call.round }
    end },
  -- a function declared with one parameter is not given the call (nothing is converted for
  -- it); two parameters or "..." get it, with the conversation so far
  forge.tool { name = "one_param", run = function(args, ...) return { args = args, extra = select("#", ...) } end },
  forge.tool { name = "history", run = function(args, call)
      return { n = #call.messages, first = call.messages[1].content, last_role = call.messages[#call.messages].role,
               calls = #call.messages[2].tool_calls, id = call.id }
    end },
  forge.tool { name = "variadic", run = function(...)
      local args, call = ...
      return { nargs = select("#", ...), x = args.x, n = #call.messages, index = call.index }
    end },
  forge.tool { name = "weather_api",
    schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
    http = { url = "http://127.0.0.1:" .. port .. "/weather/{city}", method = "GET",
             headers_from_env = { "X-Api-Key=FORGE_TEST_KEY" }, redact = { "token" }, timeout_ms = 2000 } },
  forge.tool { name = "missing_api", http = { url = "http://127.0.0.1:" .. port .. "/nope", method = "POST" } },
  forge.tool { name = "slow_api", http = { url = "http://127.0.0.1:" .. port .. "/slow", timeout_ms = 300 } },
  forge.tool { name = "transfer", category = "write", requiresConfirmation = true, mock = { done = true } },
}

local model = forge.scripted {
  { case = "failing-tools",
    calls = { { name = "loops" }, { name = "raises" }, { name = "hogs" }, { name = "echo", arguments = { x = 1 } } },
    reply = "recovered" },
  { case = "call-arg",
    calls = { { name = "one_param", arguments = { a = 1 } }, { name = "history" }, { name = "variadic", arguments = { x = 2 } } },
    reply = "{{results.1.result.extra}} {{results.2.result.n}} {{results.2.result.first}} {{results.3.result.nargs}} {{results.3.result.n}}" },
  { case = "http",
    steps = {
      { calls = { { name = "weather_api", arguments = { city = "São Paulo" } } } },
      { calls = { { name = "missing_api", arguments = { q = 1 } }, { name = "slow_api" } } },
      { reply = "{{history.1.result.temp_c}} degrees" },
    } },
  { case = "approval",
    calls = { { name = "transfer", arguments = { amount = 10 } }, { name = "transfer", arguments = { amount = 5000 } } },
    reply = "done" },
}

return forge.suite {
  name = "tools",
  model = model,
  tools = tools,
  policy = { approval = { level = "cautious" } },
  approve = function(call)
    if call.arguments.amount > 1000 then return false, "over the limit" end
    return true
  end,
  cases = {
    { id = "failing-tools", input = { message = "break everything" },
      expect = { toolsCalled = { "loops", "raises", "hogs", "echo" }, responseContains = { "recovered" } } },
    { id = "call-arg", input = { message = "what was said" },
      expect = { responseContains = { "1 3 what was said 2 4" } } },
    { id = "http", input = { message = "weather" },
      expect = { toolsCalled = { "weather_api", "missing_api", "slow_api" }, responseContains = { "31 degrees" } } },
    { id = "approval", input = { message = "pay" },
      expect = { toolsCalled = { "transfer" }, minToolCalls = 2, maxToolCalls = 2 } },
  },
}
