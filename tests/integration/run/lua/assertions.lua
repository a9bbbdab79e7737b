local forge = require "forge"
forge.assertion("mentions_number", function(run, expected)
  return run.response:find("%d") ~= nil, "the answer has no number"
end)
forge.assertion("calls_at_least", function(run, expected)
  return { pass = #run.tool_calls >= expected, score = math.min(1, #run.tool_calls / expected), reason = "only " .. #run.tool_calls .. " calls" }
end)
forge.assertion("traj", function(run, expected)
  return run.trajectory.trajectory_id == expected
end)
forge.assertion("boom", function(run) error("kaput") end)
forge.assertion("loop", function(run) while true do end end)
