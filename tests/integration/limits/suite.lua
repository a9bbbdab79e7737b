-- Every entry point into Lua under each limit: `forge script suite.lua -- ENTRY KIND` makes the
-- code of ENTRY break limit KIND (instr: an endless loop under --lua-instructions; time: the
-- same loop under --lua-timeout; mem: an endless allocation under --lua-memory).
local forge = require "forge"
local entry, kind = forge.args[1], forge.args[2]

local function hostile()
  if kind == "mem" then
    local t = {}
    for i = 1, math.maxinteger do t[i] = string.rep("x", 4096) .. i end
  else
    while true do end
  end
end
local function at(name, f) if entry == name then return hostile else return f end end

if entry == "top" then hostile() end
if entry == "tools" or entry == "verifiers" then
  -- a suite's tools and verifiers (their compiled schemas and patterns) are held against the cap
  -- for what building them kept: 3,000 of either pass 16 MiB
  local tools, verifiers = { forge.tool { name = "t", run = function() return {} end } }, {}
  for i = 1, 3000 do
    local schema = { type = "object", properties = {
      a = { type = "string", pattern = "^[a-c][d-f][g-i][j-l]{1,20}[m-o]x" .. i .. "$" } } }
    if entry == "tools" then
      tools[i + 1] = forge.tool { name = "t" .. i, run = function() return {} end, parameters = schema }
    else
      verifiers[i] = forge.verifier { name = "v" .. i, tools = { "t" }, schema = schema }
    end
  end
  return forge.suite { name = entry, model = forge.scripted { { reply = "done" } }, tools = tools,
                       verifiers = verifiers,
                       cases = { { id = "c1", input = { message = "go" }, expect = { responseNonEmpty = true } } } }
end
if entry == "schemas" then
  -- compiled schemas are held against the cap for what compiling them kept (a pattern's
  -- automaton and code take many times its text): 3,000 of these pass 16 MiB
  local keep = {}
  for i = 1, 3000 do
    keep[i] = forge.schema.compile({ type = "string", pattern = "^[a-c][d-f][g-i][j-l]{1,20}[m-o]x" .. i .. "$" })
  end
  return
end
if entry == "schema" or entry == "tool1" then
  -- one schema that compiles to far more than the cap (6,000 patterns, about 36 MB): the
  -- compile stops when it reaches what the cap leaves, not after it has taken it all
  local props = {}
  for i = 1, 6000 do
    props["p" .. i] = { type = "string", pattern = "^[a-c][d-f][g-i][j-l]{1,20}[m-o]x" .. i .. "$" }
  end
  local schema = { type = "object", properties = props }
  if entry == "schema" then forge.schema.compile(schema) return end
  return forge.suite { name = entry, model = forge.scripted { { reply = "done" } },
                       tools = { forge.tool { name = "t", run = function() return {} end, parameters = schema } },
                       cases = { { id = "c1", input = { message = "go" }, expect = { responseNonEmpty = true } } } }
end
if entry == "errors" then
  -- the errors of one validation are made within what the cap leaves: 60,000 items failing
  -- 20 subschemas each make 1,200,000 errors (about 600 MB in C)
  local all = {}
  for i = 1, 20 do all[i] = { type = "string", description = "s" .. i } end
  local v = forge.schema.compile({ type = "array", items = { allOf = all } }, { all_errors = true })
  local t = {}
  for i = 1, 60000 do t[i] = 1 end
  v:validate(t)
  return
end
if entry == "check" then
  -- a check's result is made within what the cap leaves: 20,000 wrongly typed arguments
  local check = require "forge.check"
  local props, args = {}, {}
  for i = 1, 20000 do props["p" .. i] = { type = "string" }; args["p" .. i] = i end
  check.validate_schema({ name = "t", arguments = args }, { parameters = { type = "object", properties = props } })
  return
end
if entry == "encode" then
  -- pretty text is made within what the cap leaves: 990 levels of indentation on 100,000 values
  local leaf = {} for i = 1, 100000 do leaf[i] = 1 end
  local t = leaf; for i = 1, 990 do t = { t } end
  forge.json.encode(t, { pretty = true })
  return
end
if entry == "yaml" or entry == "yaml_cases" then
  -- an alias copies its anchor's strings: 1,001 copies of 1 MB
  local p = { "a: &s " .. string.rep("x", 1e6), "b: [" }
  for i = 1, 1000 do p[#p + 1] = "*s," end
  p[#p + 1] = "*s]"
  if entry == "yaml" then forge.yaml.decode(table.concat(p, "\n")) return end
  p = { "- id: a", "  input: {message: &s " .. string.rep("x", 1e6) .. "}", "  expect: {responseNonEmpty: true}" }
  for i = 1, 200 do
    p[#p + 1] = "- id: c" .. i; p[#p + 1] = "  input: {message: *s}"; p[#p + 1] = "  expect: {responseNonEmpty: true}"
  end
  forge.eval.cases(table.concat(p, "\n"), "x.yaml")
  return
end
if entry == "coerce" then
  -- coercing parses strings into trees: six arrays of 500,001 items
  local s = "[" .. string.rep("1,", 500000) .. "1]"
  local items = {}
  for i = 1, 6 do items[i] = s end
  forge.schema.coerce({ p = items }, { type = "object", properties = { p = { type = "array", items = { type = "array" } } } })
  return
end
if entry == "mcp" then
  -- a list refused for a NUL byte is refused before C copies it (it used to be kept)
  local big, cmd = string.rep("x", 1e6), {}
  for i = 1, 100 do cmd[i] = big end
  cmd[101] = "a\0b"
  for i = 1, 20 do assert(not pcall(forge.mcp, { name = "m", command = cmd })) end
  print("refused")
  return
end
if entry == "assertions" then
  -- the registry's copies of the names are held: 200 names of 4 MB
  local big = string.rep("x", 4e6)
  for i = 1, 200 do forge.assertion(i .. big, function() return true end) end
  return
end
if entry == "plan" then
  -- the scripted model's rules are held for the run: 1,000 steps of 4 MB
  local big, steps = string.rep("x", 4e6), {}
  for i = 1, 1000 do steps[i] = { reply = big } end
  return forge.suite { name = "p", model = forge.scripted { { steps = steps } },
                       cases = { { id = "c1", input = { message = "go" }, expect = { responseNonEmpty = true } } } }
end
if entry == "suites" then
  -- each suite's own text is held for the run: 200 suites with a 5 MB system prompt
  local big, l = string.rep("x", 5e6), {}
  for i = 1, 200 do
    l[i] = forge.suite { name = "s" .. i, system = big, model = forge.scripted { { reply = "ok" } },
                         cases = { { id = "c" .. i, input = { message = "go" }, expect = { responseNonEmpty = true } } } }
  end
  return l
end
if entry == "spill" then
  -- a suite's largest case is not kept in buffers once written and read: 200 suites of 4 MB cases pass
  local big, l = string.rep("x", 4e6), {}
  for i = 1, 200 do
    l[i] = forge.suite { name = "s" .. i, model = forge.scripted { { reply = "ok" } },
                         cases = { { id = "c" .. i, input = { message = big }, expect = { responseNonEmpty = true } } } }
  end
  return l
end
if entry == "results" or entry == "template_text" then
  -- a case's tool results are an input of the run: 200 results of 4 MB, or a template of
  -- 50,000 copies of the conversation
  local calls = {}
  for i = 1, 200 do calls[i] = { name = "t", arguments = { i = i } } end
  local tool = entry == "results" and forge.tool { name = "t", mock = string.rep("x", 4e6) }
               or forge.tool { name = "t", template = string.rep("{{messages}}", 50000) }
  return forge.suite { name = entry, tools = { tool }, model = forge.scripted { { calls = calls, reply = "done" } },
                       cases = { { id = "c1", input = { message = string.rep("m", 10000) }, expect = { responseNonEmpty = true } } } }
end
if entry == "template_json" then
  -- a template function's text is parsed into the result: 2,000,001 numbers (4 MB of text, a
  -- tree of some 130 MB) are refused before the tree is built
  local text = "[" .. string.rep("0,", 2000000) .. "0]"
  local tool = forge.tool { name = "t", template = function() return text end }
  return forge.suite { name = entry, tools = { tool }, model = forge.scripted { { calls = { { name = "t" } }, reply = "done" } },
                       cases = { { id = "c1", input = { message = "go" }, expect = { responseNonEmpty = true } } } }
end
if entry == "regex" then
  -- a pattern that costs PCRE2's match limit's worth at each start position (\w*\d on 40 KB
  -- of letters: some 15 s) ends at the time limit of one match, wherever C matches it
  local long = string.rep("a", 40000) .. "!"
  if kind == "lua" then forge.re.test(long, "\\w*\\d") return end
  local rule, expect, verifiers, params = { reply = long }, { responseNonEmpty = true }, {}, nil
  if kind == "rule" then rule = { match = "\\w*\\d", reply = "matched" } end
  if kind == "assertion" then expect = { regexPattern = "\\w*\\d" } end
  if kind == "verifier" or kind == "schema" then
    rule = { calls = { { name = "t", arguments = { a = long } } }, reply = "done" }
  end
  if kind == "verifier" then -- a verifier that fails blocks a write tool's result
    verifiers = { forge.verifier { name = "v", tools = { "t" }, pattern = { reject = "\\w*\\d" } } }
    expect = { noVerifierBlocks = true }
  end
  if kind == "schema" then -- a lookahead: PCRE2 matches it, at every position
    params = { type = "object", properties = { a = { type = "string", pattern = "(?=\\w*\\d)" } } }
  end
  local tool = forge.tool { name = "t", category = "write", parameters = params,
                            run = function(args) return { echo = args.a } end }
  return forge.suite { name = "r", model = forge.scripted { rule }, tools = { tool }, verifiers = verifiers,
                       cases = { { id = "c1", input = { message = long }, expect = expect } } }
end
if entry == "kept" then
  -- the arguments forge.check converts are held against the cap together while it works, and
  -- given back when it returns: 300 calls with one trajectory of 12,000 turns pass, one call
  -- with three copies of it does not fit in 16 MiB
  local turns = {}
  for i = 1, 12000 do turns[i] = { turn_id = i, role = "user", content = "x" } end
  local t = { turns = turns }
  for _ = 1, 300 do forge.check.validate_turn(t) end
  print("one at a time")
  forge.check.validate_turn(t, t, nil, t)
  return
end
if entry == "require" then require "module" end

forge.assertion("ok", at("assertion", function() return true end))

local tools = {
  forge.tool { name = "lookup", schema = { type = "object", properties = {} }, category = "write",
               run = at("tool", function() return { ok = true } end) },
  forge.tool { name = "render", schema = { type = "object", properties = {} },
               template = at("template", function() return "rendered" end) },
  forge.tool { name = "pay", schema = { type = "object", properties = {} },
               requiresConfirmation = true, run = function() return { paid = true } end },
}
if entry == "result" then
  -- A value that is small in Lua and huge as JSON (kind mem), or slow to convert (kind time).
  tools[1] = forge.tool { name = "lookup", run = function()
    local t = { string.rep("y", 1024) }
    for _ = 1, 40 do t = { t, t } end
    return t
  end }
end

return forge.suite {
  name = "limits",
  model = forge.scripted {
    { when = at("rule", function() return true end),
      calls = { { name = "lookup" }, { name = "render" }, { name = "pay" } }, reply = "done" },
  },
  tools = tools,
  verifiers = { forge.verifier { name = "check", tools = { "lookup" },
                                 verify = at("verifier", function() return "pass" end) } },
  approve = at("approve", function() return true end),
  cases = { { id = "c1", input = { message = "go" },
              expect = { noToolErrors = true, noVerifierBlocks = true, custom = { ok = true } } } },
}
