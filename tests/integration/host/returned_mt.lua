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
-- The lazy loader behind run.tool_calls is reachable as getmetatable(run).__index: it checks
-- what it is given.
forge.assertion("run_index_checks", function(run)
  local index = getmetatable(run).__index
  local ok, err = pcall(index, 5, "tool_calls")
  local ok2 = pcall(index, setmetatable({}, { __newindex = function() error("ran") end }), "tool_calls")
  return not ok and err:find("table expected, got number", 1, true) ~= nil and ok2
end)
return forge.suite {
  name = "returned-metatables",
  model = forge.scripted { { calls = { { name = "t" } }, reply = "done" } },
  tools = { forge.tool { name = "t", run = function()
    return setmetatable({ a = 1, list = setmetatable({ 1, 2 }, mt) }, mt)
  end } },
  cases = { { id = "c1", input = { message = "go" },
              expect = { noToolErrors = true, custom = { result_is_raw = true, run_index_checks = true } } } },
}
