-- A value a tool returns is converted to JSON after its call has ended, outside every limit:
-- the conversion reads the tables raw, so none of these metamethods ever runs.
local forge = require "forge"
local spin = function() while true do end end
local mt = { __index = spin, __pairs = spin, __len = spin, __tostring = spin, __eq = spin,
             __lt = spin, __le = spin, __call = spin, __concat = spin, __close = spin }
forge.assertion("result_is_raw", function(run)
  local r = run.tool_calls[1].result
  return r.a == 1 and #r.list == 2 and r.list[2] == 2 and r.list.x == nil
end)
-- The run record is a read-only view of forge's own data, valid during its call only: it cannot
-- be written, its metatable is hidden, and a view kept for later raises instead of reading
-- freed memory.
local kept
forge.assertion("views_are_read_only", function(run)
  local ok, err = pcall(function() run.response = "x" end)
  kept = run.tool_calls
  return not ok and err:find("read-only", 1, true) ~= nil and getmetatable(run) == false
end)
forge.assertion("kept_views_die", function(run)
  if not kept then return true end
  local ok, err = pcall(function() return kept[1] end)
  local ok2, err2 = pcall(forge.json.encode, kept)
  return not ok and err:find("valid only during the call", 1, true) ~= nil
    and not ok2 and err2:find("a read-only view used after the call it was given to", 1, true) ~= nil
end)
return forge.suite {
  name = "returned-metatables",
  model = forge.scripted { { calls = { { name = "t" } }, reply = "done" } },
  tools = { forge.tool { name = "t", run = function()
    return setmetatable({ a = 1, list = setmetatable({ 1, 2 }, mt) }, mt)
  end } },
  cases = { { id = "c1", input = { message = "go" },
              expect = { noToolErrors = true, custom = { result_is_raw = true, views_are_read_only = true, kept_views_die = true } } },
            { id = "c2", input = { message = "go" }, expect = { custom = { kept_views_die = true } } } },
}
