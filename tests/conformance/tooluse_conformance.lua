-- agent-eval-harness tool-use conformance vectors, driven through forge.check (the Lua API).
-- usage: forge script --allow-read DIR tooluse_conformance.lua DIR
-- DIR holds cases.jsonl and fixtures.json (../shared/testdata/tool-use-conformance). Each case's
-- output, reduced to the fields its `expect` lists, must equal `expect` exactly: scores are
-- compared with ==, so 0.30000000000000004 must come out bit for bit.
local forge = require "forge"
local json, check = forge.json, forge.check

local dir = assert(forge.args[1], "usage: tooluse_conformance.lua DIR")
local fixtures = json.decode(assert(forge.read_file(dir .. "/fixtures.json")))
local text = assert(forge.read_file(dir .. "/cases.jsonl"))

local function fixture(name)
  if name == nil or name == json.null then return nil end
  return assert(fixtures[name], "unknown fixture " .. tostring(name))
end

local function schema_map(names)
  local m = setmetatable({}, getmetatable(json.decode("{}")))
  for _, n in ipairs(names or {}) do m[n] = fixture(n) end
  return m
end

local function pairs_of(issues, with_path)
  local out = {}
  for i, is in ipairs(issues) do
    out[i] = with_path and { is.type, is.severity, is.path } or { is.type, is.severity }
  end
  return out
end

local function reduce_validation(r, expect)
  local o = { valid = r.valid, score = r.score, issues = pairs_of(r.issues) }
  if expect.suggestions ~= nil then o.suggestions = r.suggestions end
  return o
end

local function run(c)
  local opts = c.options ~= json.null and c.options or nil
  local e = c.expect
  if c.fn == "validateToolCall" then
    return reduce_validation(check.validate_tool_call(c.toolCall, fixture(c.schema), opts), e)
  elseif c.fn == "validateTurn" then
    return reduce_validation(check.validate_turn(c.turn, schema_map(c.schemas), opts), e)
  elseif c.fn == "validateTrajectory" then
    local out = {}
    for i, r in ipairs(check.validate_trajectory(c.trajectory, schema_map(c.schemas), opts)) do
      out[i] = reduce_validation(r, e[i] or {})
    end
    return out
  elseif c.fn == "validateSchema" then
    local r = check.validate_schema(c.toolCall, fixture(c.schema))
    return { valid = r.valid, score = r.score, issues = pairs_of(r.issues, true) }
  elseif c.fn == "verifyResult" then
    local traj, turn = c.trajectory, nil
    if traj ~= nil and traj ~= json.null then
      turn = traj.turns[(c.turnIndex or 0) + 1]
    else
      traj = nil
      turn = { turn_id = 1, role = "agent", content = c.turnContent,
               timestamp = "2026-04-17T12:00:00Z", tool_calls = { c.toolCall } }
    end
    local r = check.verify_result(c.toolCall, turn, traj, opts)
    local o = { valid = r.valid, score = r.score, hallucinated = r.hallucinated,
                integrated = r.integrated, issues = pairs_of(r.issues) }
    if e.hallucinationScore ~= nil then
      for _, is in ipairs(r.issues) do
        if is.type == "hallucinated_content" then o.hallucinationScore = is.details.hallucinationScore end
      end
    end
    return o
  elseif c.fn == "summarizeResultVerification" then
    local r = check.summarize_result_verification(c.trajectory, opts)
    r.issues = pairs_of(r.issues)
    return r
  end
  error("unknown fn " .. tostring(c.fn))
end

-- Exact structural equality; numbers with == (no tolerance).
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local passed, failed, n = 0, 0, 0
for line in text:gmatch("[^\n]+") do
  n = n + 1
  local c = json.decode(line)
  local ok, got = pcall(run, c)
  if ok and same(got, c.expect) then
    passed = passed + 1
  else
    failed = failed + 1
    forge.log.error(string.format("FAIL %s\n  got:      %s\n  expected: %s", c.id,
      ok and json.encode(got, { sort_keys = true }) or tostring(got),
      json.encode(c.expect, { sort_keys = true })))
  end
end
print(string.format("tool-use conformance (Lua API): %d passed, %d failed, %d cases", passed, failed, n))
if failed > 0 or n == 0 then error(string.format("%d of %d conformance cases failed", failed, n)) end
