-- Tools of every executor kind, with verifiers, served by forge mcp serve in the MCP tests.
local forge = require "forge"

forge.verifier { name = "no_secrets", tools = { "lookup" }, order = "R-0001",
  verify = function(call)
    if call.result.secret then return "block", "the result holds a secret" end
    if call.result.stale then return "warn", "the data is stale" end
    return "pass"
  end }

return {
  forge.tool { name = "add", description = "Adds two numbers.", category = "analysis",
    schema = { type = "object", properties = { a = { type = "number" }, b = { type = "number" } }, required = { "a", "b" } },
    run = function(args) return { sum = args.a + args.b } end },
  forge.tool { name = "lookup", description = "Looks a key up.", category = "read",
    schema = { type = "object", properties = { key = { type = "string" } }, required = { "key" } },
    responses = { { when = { key = "plain" }, result = { value = 1 } },
                  { when = { key = "secret" }, result = { value = 2, secret = "hunter2" } },
                  { when = { key = "stale" }, result = { value = 3, stale = true } } },
    fallback = { value = 0 } },
  forge.tool { name = "greet", description = "Greets someone.", template = "Hello, {{args.name}}!",
    schema = { type = "object", properties = { name = { type = "string" } } } },
  forge.tool { name = "delete_account", description = "Deletes an account.", category = "write",
    consequenceLevel = "high", requiresConfirmation = true, mock = { deleted = true },
    schema = { type = "object", properties = { id = { type = "string" } }, required = { "id" } } },
  forge.tool { name = "explode", description = "Always fails.", run = function() error("kaboom") end },
  forge.tool { name = "typed", description = "Promises an integer n.",
    output_schema = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
    run = function(args) if args.bad then return { n = "seven" } end return { n = 7 } end },
  forge.tool { name = "spin", description = "Never returns (stopped by the sandbox).", run = function() while true do end end },
}
