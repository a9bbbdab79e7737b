-- Scores logged trajectories with forge.check and lists the calls that need a look.
--   forge script scripts/check_trajectories.lua -- ../evals/trajectories/support.jsonl ../evals/trajectories/tools.json
-- (forge resolves a script's paths against the script's folder; add --allow-read DIR for files
-- outside the script's and the current directory's trees)
local forge = require "forge"
local check, json = forge.check, forge.json

local file, tools_file = forge.args[1], forge.args[2]
if not file then error("usage: check_trajectories.lua -- TRAJECTORIES.jsonl [TOOLS.json]", 0) end
local tools = tools_file and assert(check.tools(json.decode(assert(forge.read_file(tools_file))))) or nil

local n, worst = 0, {}
for line in assert(forge.read_file(file)):gmatch("[^\n]+") do
  n = n + 1
  local traj, err = check.import(json.decode(line))
  if not traj then error(file .. ":" .. n .. ": " .. err, 0) end
  -- upstream's verdicts plus forge's deep detectors
  local r = check.check(traj, tools, { deep = true })
  for _, res in ipairs(r.results) do
    if res.score < 0.5 then
      worst[#worst + 1] = { id = traj.trajectory_id or (file .. ":" .. n), tool = res.tool,
                            score = res.score, issues = res.issues }
    end
  end
end

table.sort(worst, function(a, b) return a.score < b.score end)
print(string.format("%d trajectories, %d calls scoring under 0.5", n, #worst))
for _, w in ipairs(worst) do
  local types = {}
  for _, is in ipairs(w.issues) do types[#types + 1] = is.type end
  print(string.format("  %-22s %-14s %.2f  %s", w.id, w.tool, w.score, table.concat(types, ", ")))
end
