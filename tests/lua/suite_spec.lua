-- The suite API: values made by forge.tool / verifier / suite / scripted, tools from JSON.
local t = require "forge.testing"
local forge = require "forge"

t.case("constructors tag their values", function()
  t.eq(forge.kind_of(forge.tool { name = "a", mock = 1 }), "tool")
  t.eq(forge.kind_of(forge.suite { name = "s" }), "suite")
  t.eq(forge.kind_of(forge.scripted { { reply = "x" } }), "model")
  t.eq(forge.kind_of({}), nil)
  t.raises(function() forge.tool { description = "no name" } end, "forge.tool: needs a non-empty string name")
end)

t.case("verifiers register once", function()
  forge.verifier { name = "v1", verify = function() return "pass" end }
  t.raises(function() forge.verifier { name = "v1" } end, "forge.verifier: 'v1' is already defined")
  t.eq(#forge.verifiers(), 1)
end)

t.case("tools from JSON: MCP and OpenAI shapes", function()
  local tools = forge.load_tools("fixtures/tools.json")
  t.eq(#tools, 2)
  t.eq(tools[1].name, "lookup")
  t.eq(tools[2]["function"].name, "define")
  t.eq(forge.kind_of(tools[2]), "tool")
end)

t.case("scripted rules answer requests", function()
  local m = forge.scripted {
    { match = "weather in (\\w+)", calls = { { name = "w", arguments = { city = "$1" } } }, reply = "{{result.t}} in $1" },
    { reply = "fallback" },
  }
  local r1 = m.respond { messages = { { role = "user", content = "Weather in Oslo?" } } }
  t.eq(r1.finish_reason, "tool_calls")
  t.eq(r1.message.tool_calls[1].name, "w")
  t.eq(r1.message.tool_calls[1].arguments.city, "Oslo")
  t.eq(r1.message.tool_calls[1].id, "call_1_1")
  local r2 = m.respond { messages = {
    { role = "user", content = "Weather in Oslo?" },
    { role = "assistant", tool_calls = { { id = "call_1_1", name = "w", arguments = { city = "Oslo" } } } },
    { role = "tool", tool_call_id = "call_1_1", name = "w", content = '{"t": 3}' } } }
  t.eq(r2.message.content, "3 in Oslo")
  t.eq(r2.finish_reason, "stop")
  t.eq(m.respond { messages = { { role = "user", content = "hi" } } }.message.content, "fallback")
  t.raises(function() forge.scripted { { reply = "x", mach = 1 } } end, "unknown key 'mach'")
  t.raises(function() forge.scripted { { match = "x" } } end, "has nothing to answer with")
end)

t.done()
