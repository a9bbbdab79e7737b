-- forge.scripted: the offline scripted model's rules engine.
--
--   local model = forge.scripted {
--     { match = "weather in (%a+)",                        -- regex on the user's message (caseless)
--       calls = { { name = "get_weather", arguments = { city = "$1" } } },   -- step 1
--       reply = "It is {{result.temp_c}}°C in $1." },                        -- step 2
--     { case = "gs-forecast-002", steps = { ... } },        -- rules for one case
--     { reply = "I can only help with the weather." },      -- fallback
--   }
--
-- For each model call the first rule whose conditions all hold answers:
--   match = regex      the user's message matches (PCRE2, caseless); captures become $1..$9
--   case  = id | {ids} the eval case's id is one of these
--   when  = function(ctx) -> boolean
-- The rule's steps play in order, one per model call of the case: `steps = {step, ...}`, or the
-- shorthand `calls` (step 1) then `reply` (step 2), or `reply` alone. A step is
--   { calls = { {name =, arguments =}, ... } }   tool calls, all in one response (parallel)
--   { reply = "text" }                           the final answer
--   function(ctx) -> step                        decided at run time
-- Strings in arguments and replies may use $1..$9 (captures of `match`) and {{path}} over ctx
-- (result = the first result of the previous round, results, calls, message, round, case_id,
-- tool_choice: the request's, for rules that follow it; tool_names: the tools offered).
-- After the last step the model answers with an empty text. ctx.results holds the previous
-- round's tool results: {name, arguments, result (decoded JSON when it is JSON), error};
-- ctx.history every result of the case so far, in order.
local json = require "forge.json"
local re = require "forge.re"

local M = {}

local function substitute(s, captures)
  return (s:gsub("%$(%d)", function(d)
    local c = captures[tonumber(d)]
    if c == nil or c == false then return "" end
    return tostring(c)
  end))
end

local function lookup(ctx, path)
  local v = ctx
  for part in path:gmatch("[^%.%[%]]+") do
    if type(v) ~= "table" then return nil end
    local n = tonumber(part)
    if n then v = v[n] else v = v[part] end
  end
  return v
end

local function render(s, ctx)
  s = substitute(s, ctx.match or {})
  return (s:gsub("{{%s*([%w_%.%[%]]+)%s*}}", function(path)
    local v = lookup(ctx, path)
    if v == nil or v == json.null then return "" end
    if type(v) == "table" then return json.encode(v) end
    return tostring(v)
  end))
end

local function render_value(v, ctx)
  if type(v) == "string" then return render(v, ctx) end
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = render_value(x, ctx) end
  return setmetatable(out, getmetatable(v))
end

local function steps_of(rule)
  if rule.steps then return rule.steps end
  local steps = {}
  if rule.calls then steps[#steps + 1] = { calls = rule.calls } end
  if rule.reply ~= nil then steps[#steps + 1] = { reply = rule.reply } end
  return steps
end

local function check_rule(rule, i)
  if type(rule) ~= "table" then error(("scripted rule %d is a %s, not a table"):format(i, type(rule)), 3) end
  for k in pairs(rule) do
    if not ({ match = 1, case = 1, when = 1, steps = 1, calls = 1, reply = 1, name = 1 })[k] then
      error(("scripted rule %d: unknown key '%s' (match, case, when, steps, calls, reply, name)"):format(i, tostring(k)), 3)
    end
  end
  if not (rule.steps or rule.calls or rule.reply ~= nil) then
    error(("scripted rule %d has nothing to answer with (steps, calls or reply)"):format(i), 3)
  end
end

-- Builds ctx from the normalized request.
local function context(req)
  local msgs = req.messages or {}
  local ctx = { messages = msgs, case_id = req.case_id, calls = {}, results = {}, history = {}, round = 1,
                tool_choice = req.tool_choice, tool_names = req.tool_names or {} }
  local by_id = {}
  local last_user
  ctx.turn = 0
  for _, m in ipairs(msgs) do
    if m.role == "user" then
      -- a conversation's later message starts its turn over: round 1, no results yet
      last_user = m.content
      ctx.turn = ctx.turn + 1
      ctx.round = 1
      ctx.results = {}
    elseif m.role == "assistant" then
      ctx.round = ctx.round + 1
      ctx.results = {}
      for _, c in ipairs(m.tool_calls or {}) do
        local call = { id = c.id, name = c.name, arguments = c.arguments }
        ctx.calls[#ctx.calls + 1] = call
        by_id[c.id] = call
      end
    elseif m.role == "tool" then
      local call = by_id[m.tool_call_id] or { name = m.name }
      local r = { name = call.name or m.name, arguments = call.arguments }
      if m.is_error then
        r.error = m.content
      else
        local ok, v = pcall(json.decode, m.content or "")
        r.result = ok and v or m.content
      end
      ctx.results[#ctx.results + 1] = r
      ctx.history[#ctx.history + 1] = r
    end
  end
  ctx.message = last_user or ""
  ctx.result = ctx.results[1] and (ctx.results[1].result or ctx.results[1].error)
  return ctx
end

local function matches(rule, ctx)
  if rule.case ~= nil then
    local ids = type(rule.case) == "table" and rule.case or { rule.case }
    local found = false
    for _, id in ipairs(ids) do if id == ctx.case_id then found = true end end
    if not found then return false end
  end
  ctx.match = {}
  if rule.match then
    -- one search: re.find gives the position, then the groups (none when the pattern has none)
    local found = table.pack(re.find(ctx.message, rule.match, "i"))
    if found[1] == nil then return false end
    if found.n > 2 then ctx.match = { table.unpack(found, 3, found.n) } end
  end
  if rule.when and not rule.when(ctx) then return false end
  return true
end

local function response(step, ctx)
  if type(step) == "function" then step = step(ctx) end
  if step == nil then
    return { message = { role = "assistant", content = "" }, finish_reason = "stop" }
  end
  if type(step) ~= "table" then error("a scripted step must be a table or a function returning one", 0) end
  if step.calls then
    local calls = {}
    for i, c in ipairs(step.calls) do
      if type(c.name) ~= "string" then error("a scripted call needs a tool name", 0) end
      calls[i] = {
        id = ctx.turn > 1 and ("call_%d_%d_%d"):format(ctx.turn, ctx.round, i) or ("call_%d_%d"):format(ctx.round, i),
        name = c.name,
        arguments = json.object(render_value(c.arguments or {}, ctx)),
      }
    end
    local content = step.reply and render(step.reply, ctx) or json.null
    return { message = { role = "assistant", content = content, tool_calls = calls },
             finish_reason = "tool_calls" }
  end
  local reply = step.reply
  if type(reply) == "function" then reply = reply(ctx) end
  return { message = { role = "assistant", content = render(tostring(reply or ""), ctx) },
           finish_reason = "stop" }
end

-- Answers one normalized request with the first matching rule.
function M.respond(rules, req)
  local ctx = context(req)
  for _, rule in ipairs(rules) do
    if matches(rule, ctx) then
      local steps = steps_of(rule)
      return response(steps[ctx.round], ctx)
    end
  end
  return { message = { role = "assistant", content = "" }, finish_reason = "stop" }
end

-- A copy of the rules' own tables (plain or forge.json-tagged); functions, other values and
-- tables with any other metatable are kept as they are.
local function copy(v, seen)
  if type(v) ~= "table" then return v end
  if seen[v] then return seen[v] end
  local mt = getmetatable(v)
  local tag = mt ~= nil and (mt == getmetatable(json.array()) and json.array
                             or mt == getmetatable(json.object()) and json.object)
  if mt ~= nil and not tag then return v end
  local out = {}
  seen[v] = out
  for k, x in next, v do out[k] = copy(x, seen) end
  return tag and tag(out) or out
end

-- forge.scripted(rules): a model value for forge.suite{model = ...}. When the suite is loaded,
-- the rules are read once (__forge_rules, called by C): from then on the model answers from
-- that copy, so rules that are plain data can be answered without Lua (unless the script put
-- another function in the model's `respond`, which then answers every request).
function M.new(rules)
  if type(rules) ~= "table" then error("forge.scripted: expected a list of rules", 2) end
  for i, rule in ipairs(rules) do check_rule(rule, i) end
  local live = rules
  local function respond(req) return M.respond(live, req) end
  return setmetatable({ respond = respond },
                      { __name = "forge.scripted", __forge_kind = "model",
                        __forge_rules = function() live = copy(rules, {}); return live, respond end })
end

return M
