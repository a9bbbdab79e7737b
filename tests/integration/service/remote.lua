-- An agent for tests/integration/service_test.py's "provider" group: its model is the one
-- --model gives (tests/support/fake_provider.py through --base-url).
local forge = require "forge"

return {
  forge.agent {
    id = "remote",
    description = "a provider model",
    tools = { forge.tool { name = "noop", description = "Does nothing.", schema = { type = "object" },
                           run = function() return {} end } },
    policy = { approval = { level = "autonomous" } },
  },
}
