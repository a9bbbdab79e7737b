-- The scripted model's rules, answered by its C engine (rules that are plain data) and by the
-- Lua engine (forge.args[1] == "lua" puts a rule with `when` first, which sends every request
-- to Lua): check.py compares the two runs' transcripts, which must be the same. With
-- forge.args[2] == "data" only the cases data rules answer are run.
local forge = require "forge"
local json = forge.json
local lua_only = forge.args[1] == "lua"

local rules = {
  { case = "weather", match = "in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } },
              { name = "get_forecast", arguments = { city = "$1", days = 2 } } },
    reply = "$1: {{results.1.result.temp_c}}°C {{result.condition}}, day 2 "
         .. "{{results[2].result.days[2].high_c}} (round {{round}}, turn {{turn}}, case {{case_id}}, "
         .. "call {{calls.2.id}} {{calls.2.arguments.days}} {{calls.2.name}}, said '{{ message }}', "
         .. "{{{match.1}}}, $0$$1 {{nothing.here}}|{{results.9.name}}|{{history.1.name}}|{{round.x}}|"
         .. "{{results.1.arguments.city}}|{{messages.1.content}}|{{tool_choice}})" },
  { case = "groups", match = "(alpha)|(beta)", reply = "[$1][$2][{{match.1}}][{{match.2}}][{{match.3}}]" },
  { case = "numbers", steps = { { calls = { { name = "numbers" } } },
    { reply = "{{result.x}} {{result.y}} {{result.z}} {{result.w}} {{result.i}} {{result.big}} "
           .. "{{result.t}} {{result.n}} {{result.s}} {{result.neg}}" } } },
  { case = "errors", steps = { { calls = { { name = "fail" }, { name = "text" }, { name = "flag" } } },
    { reply = "{{result}}|{{results.1.error}}|{{results.2.result}}|{{results.3.result}}|"
           .. "{{results.1.result}}|{{results.2.name}}|{{results.2.error}}" } } },
  { case = "numcase", match = 5, reply = "five" },
  { case = "holes", steps = { [1] = { calls = { { name = "text" } } }, [3] = { reply = "three" } } },
  { case = "meta", match = "meta (\\w+)",
    calls = { { name = "echo", arguments = setmetatable({ a = "$1" }, { __index = function() return "x" end }) } },
    reply = "{{results.1.result.a}}" },
  { case = "flag", steps = { { calls = { { name = "flag" } } }, { reply = "[{{result}}]" } } },
  { case = "table", steps = { { calls = { { name = "get_weather", arguments = { city = "Oslo" } } } },
    { reply = "{{result}}" } } },
  { case = "function", steps = { { calls = { { name = "get_weather", arguments = { city = "Rome" } } } },
    function(ctx) return { reply = "fn " .. ctx.result.city } end } },
  { case = "when", when = function(ctx) return ctx.message:find("yes") ~= nil end, reply = "when said yes" },
  { case = "empty", steps = { { calls = {} } } },
  { case = "false", reply = false },
  { case = "number", reply = 42 },
  { case = "nested", match = "nested (\\w+)",
    calls = { { name = "echo", arguments = { a = { b = { "$1", 2, json.null, { c = "{{message}}" } } },
                                              e = 1.25, f = true, g = {}, h = json.array {} } } },
    reply = "{{results.1.result.a.b[1]}} {{results.1.result.a.b[4].c}} {{calls.1.arguments.e}} "
         .. "{{results.1.result.a.b.3}}" },
  { case = "mutate", steps = { { calls = { { name = "mutate" } } }, { reply = "not changed" } } },
  { case = { "multi-b", "zz", "multi-a", 7 }, match = "ÉTÉ (\\w+)", reply = "multi $1" },
  { case = "both", steps = { { calls = { { name = "text" } }, reply = "calling {{round}}" },
                             { reply = "after {{result}}" } } },
  { reply = "fallback {{message}} {{result}} {{results.1.name}}" },
}
if lua_only then table.insert(rules, 1, { when = function() return false end, reply = "never" }) end

local tools = {
  forge.tool { name = "get_weather", schema = { type = "object", properties = { city = { type = "string" } } },
    run = function(args) return { city = args.city, temp_c = #args.city + 10, condition = "clear" } end },
  forge.tool { name = "get_forecast", schema = { type = "object" },
    run = function(args)
      local d = {}
      for i = 1, args.days do d[i] = { day = i, high_c = 15 + i } end
      return { city = args.city, days = d }
    end },
  forge.tool { name = "numbers", schema = { type = "object" },
    run = function() return { x = 1.5, y = 1e20, z = 2 ^ 53 + 2, w = -0.0, i = 7, big = math.maxinteger,
                              t = true, n = json.null, s = "str", neg = -12 } end },
  forge.tool { name = "fail", schema = { type = "object" }, run = function() error("boom", 0) end },
  forge.tool { name = "text", schema = { type = "object" }, run = function() return "plain text" end },
  forge.tool { name = "flag", schema = { type = "object" }, run = function() return false end },
  forge.tool { name = "echo", schema = { type = "object" }, run = function(args) return args end },
  forge.tool { name = "mutate", schema = { type = "object" },
    run = function()
      rules[#rules] = nil
      for _, r in ipairs(rules) do
        if r.case == "mutate" then r.steps[2] = { reply = "changed" } end
      end
      return "ok"
    end },
}

local cases = {}
for _, c in ipairs {
  { "weather", "weather in Paris", true }, { "groups", "beta", true }, { "numbers", "n", true }, { "errors", "e", true },
  { "flag", "f", true }, { "numcase", "has 5" }, { "holes", "h", true }, { "meta", "meta M" }, { "table", "t" }, { "function", "f" }, { "when", "yes please" }, { "empty", "x" }, { "false", "x" },
  { "number", "x" }, { "nested", "nested Oslo", true }, { "mutate", "m" }, { "multi-a", "été Lyon", true },
  { "multi-b", "no match here", true }, { "both", "b", true }, { "other", "hello", true }, { "when-no", "no" },
} do
  if forge.args[2] ~= "data" or c[3] then cases[#cases + 1] = { id = c[1], input = { message = c[2] } } end
end

return forge.suite {
  name = "rules",
  model = forge.scripted(rules),
  tools = tools,
  cases = cases,
}
