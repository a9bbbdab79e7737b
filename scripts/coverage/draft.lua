-- An offline stand-in for the model of `forge gen evals` (docs/coverage.md): it answers each
-- request with a case that holds exactly the expect fragment the request asks for. A real model
-- writes the user's message and the description; this one shows the loop without a network:
--
--   forge coverage scripts/weather/tools.lua evals/demo/*.json
--   forge gen evals --tools scripts/weather/tools.lua --model scripted:scripts/coverage/draft.lua \
--       --out /tmp/drafts evals/demo/*.json
--   forge gen verifiers --tools scripts/weather/tools.lua
local forge = require "forge"

local function answer(ctx)
  local task = ctx.messages[1].content
  local fragment = task:match("Its expect must contain (.*)%.$"):gsub("%] and \"", '], "')
  local tool = task:match('"([^"]+)"')
  return { reply = ('{"description": "drafted for %s", "input": {"message": "A request for %s"}, '
                    .. '"expect": {%s, "responseNonEmpty": true}}'):format(tool, tool, fragment) }
end

return forge.scripted { { steps = { answer, answer, answer } } }
