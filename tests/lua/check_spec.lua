-- forge.check: the Lua API beyond the conformance vectors (import, tools, check, deep, errors).
local t = require "forge.testing"
local forge = require "forge"
local check, json = forge.check, forge.json

t.case("import converts a chat transcript and pairs results by id", function()
  local traj = check.import({
    { role = "user", content = "Weather in Paris?" },
    { role = "assistant", content = json.null, tool_calls = {
      { id = "c1", type = "function", ["function"] = { name = "get_weather", arguments = '{"city":"Paris"}' } } } },
    { role = "tool", tool_call_id = "c1", content = '{"condition":"cloudy"}' },
    { role = "assistant", content = "Cloudy in Paris." },
  })
  t.eq(#traj.turns, 2)
  local call = traj.turns[2].tool_calls[1]
  t.eq(call.name, "get_weather")
  t.eq(call.arguments.city, "Paris")
  t.eq(call.result.condition, "cloudy")
  t.eq(traj.turns[2].content, "Cloudy in Paris.")
  local bad, msg = check.import({ { role = "tool", tool_call_id = "zz", content = "x" } })
  t.eq(bad, nil)
  t.eq(msg, "openai: messages[0]: tool result for unknown call id 'zz'")
end)

t.case("tools reads any definition format", function()
  local tools = check.tools({ { name = "w", input_schema = { type = "object", properties = {} } } })
  t.eq(tools.w.name, "w")
  t.eq(tools.w.parameters.type, "object")
  local none, msg = check.tools(3)
  t.eq(none, nil)
  t.eq(msg, "tool definitions must be an object or an array of objects")
end)

t.case("check returns validation, results and summary", function()
  local traj = { turns = {
    { turn_id = 1, role = "user", content = "hi" },
    { turn_id = 1, role = "agent", content = "Sorry, it failed.", tool_calls = {
      { name = "send", arguments = {}, result = { status = "sent" } } } } } }
  local r = check.check(traj, nil, { allowUnknownTools = true })
  t.eq(#r.validation, 1)
  t.eq(r.validation[1].score, 1)
  t.eq(r.results[1].tool, "send")
  t.eq(r.summary.totalTools, 1)
  t.ok(r.summary.averageScore == 1 - (0.3 + 0.6), "averageScore is upstream's double")
  t.eq(r.summary.issues[2].type, "contradicts_response")
end)

t.case("deep adds schema_violation with the full JSON Schema", function()
  local schemas = { w = { name = "w", parameters = { type = "object",
    properties = { c = { type = "string", minLength = 2 } } } } }
  local turn = { turn_id = 1, role = "agent", content = "ok",
                 tool_calls = { { name = "w", arguments = { c = "x" }, result = { ok = "yes" } } } }
  t.eq(#check.validate_turn(turn, schemas).issues, 0)
  local r = check.validate_turn(turn, schemas, { deep = true })
  t.eq(r.issues[1].type, "schema_violation")
  t.eq(r.issues[1].details.errors[1].instanceLocation, "/c")
  t.ok(r.score == 1 - 0.7)
end)

t.case("options follow JavaScript truthiness; bad values raise", function()
  local call = { name = "x", arguments = {}, result = { a = 1 } }
  t.eq(check.validate_tool_call(call, nil, { allowUnknownTools = json.null }).issues[1].type, "unknown_tool")
  t.eq(#check.validate_tool_call(call, nil, { allowUnknownTools = "yes" }).issues, 0)
  t.raises(function() check.validate_tool_call({ name = "x", arguments = { f = print } }) end, "call")
end)

t.done()
