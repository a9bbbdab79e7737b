-- A forge suite: run it with `forge script suite.lua` (docs: forge help script, man forge-script).
-- Tools live in tools.lua, the offline scripted model's answers in rules.lua, a custom assertion
-- in assertions.lua, and the cases in evals/ (agent-tool-forge's golden and labeled formats).
local forge = require "forge"

require "assertions"

return forge.suite {
  name = "my-agent",
  model = require "rules",            -- or a real model: "openai:gpt-4o-mini", "anthropic:..."
  tools = require "tools",
  cases = forge.evals("evals/golden.json", "evals/labeled.json"),
  gates = { pass_rate = 1.0 },
}
