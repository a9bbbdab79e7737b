-- Custom assertions attacking their views and limits (forge run --assertions views.lua): each
-- returns true when forge held, or false and what went wrong.
local forge = require "forge"

-- Views kept by the script past their call: every use raises, none reads the freed case.
local kept
forge.assertion("keep", function(run, expected)
  local it, state = pairs(run.tool_calls[1])
  kept = { run = run, calls = run.tool_calls, call = run.tool_calls[1], args = run.tool_calls[1].arguments,
           traj = run.trajectory.turns, expected = expected, it = it, state = state }
  return run.tool_calls == run.tool_calls and #run.tool_calls == 2 and run.tool_calls[1].arguments.city == "Paris"
end)
-- and kept by a call that then fails
forge.assertion("keep_and_fail", function(run, expected)
  kept.failed_run, kept.failed_expected = run, expected
  error("failing on purpose")
end)
-- and kept by the last call of a case, when the next call's expected value is not a table
forge.assertion("keep_last", function(run, expected)
  kept.last_run, kept.last_expected = run, expected
  return expected.k == 3
end)
forge.assertion("kept_views_die", function(run)
  local dead = { "run", "calls", "call", "args", "traj", "expected", "failed_run", "failed_expected",
                 "last_run", "last_expected" }
  for _, k in ipairs(dead) do
    local ok, err = pcall(function() return kept[k][1] or kept[k].x end)
    if ok or not err:find("valid only during the call", 1, true) then return false, k .. ": " .. tostring(err) end
    local ok2, err2 = pcall(forge.json.encode, kept[k])
    if ok2 or not err2:find("a read-only view used after the call", 1, true) then return false, k .. ": " .. tostring(err2) end
    local ok3 = pcall(function() return #kept[k] end)
    local ok4 = pcall(function() for _ in pairs(kept[k]) do end end)
    if ok3 or ok4 then return false, k .. ": # or pairs worked" end
  end
  local ok, err = pcall(kept.it, kept.state, nil)
  if ok or not err:find("valid only during the call", 1, true) then return false, "iterator: " .. tostring(err) end
  -- the views of this call are new ones, and work
  return run.response == "It is 18°C in Oslo." and rawequal(next(run), nil) and rawget(run, "response") == nil
end)

-- Read-only: writes raise, the metatable is hidden and cannot be replaced.
forge.assertion("read_only", function(run, expected)
  local ok1, e1 = pcall(function() run.response = "x" end)
  local ok2, e2 = pcall(function() expected.n = 2 end)
  local ok3, e3 = pcall(setmetatable, run, {})
  local ok4 = pcall(function() run.tool_calls[1].arguments.city = "x" end)
  return not ok1 and e1:find("read-only", 1, true) ~= nil and not ok2 and e2:find("read-only", 1, true) ~= nil
    and not ok3 and e3:find("protected metatable", 1, true) ~= nil and not ok4
    and getmetatable(run) == false and getmetatable(expected) == false and expected.n == 1
end)

-- The instruction limit holds for each call: a call that runs most of it passes every time.
forge.assertion("busy", function()
  local n = 0
  for i = 1, 150000 do n = n + i end
  return n > 0
end)
-- A call that loops is stopped with the limit's message; the next call runs normally.
forge.assertion("loop", function(run)
  if run.response:find("Oslo", 1, true) then while true do end end
  return true
end)
-- Memory: a call may use most of the cap and drop it; one that keeps growing is stopped.
forge.assertion("hog", function()
  local t = {}
  for i = 1, 10 * 1024 do t[i] = string.rep("x", 1000) .. i end
  return #t == 10240
end)
local hoard = {}
forge.assertion("hoard", function()
  for i = 1, 9 * 1024 do hoard[#hoard + 1] = string.rep("y", 1000) .. #hoard end
  return true
end)
-- What a call returns is read while its views live: a view returned is converted.
forge.assertion("returns_view", function(run, expected)
  return expected
end)
