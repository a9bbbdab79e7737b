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
return forge.suite {
  name = "returned-metatables",
  model = forge.scripted { { calls = { { name = "t" } }, reply = "done" } },
  tools = { forge.tool { name = "t", run = function()
    return setmetatable({ a = 1, list = setmetatable({ 1, 2 }, mt) }, mt)
  end } },
  cases = { { id = "c1", input = { message = "go" },
              expect = { noToolErrors = true, custom = { result_is_raw = true } } } },
}
