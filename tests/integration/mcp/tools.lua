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
  forge.tool { name = "chatty", description = "Logs at each level and reports progress.",
    schema = { type = "object", properties = { bad = { type = "string" } } },
    run = function(args)
      if args.bad == "nan" then forge.progress(0 / 0) end
      if args.bad == "negative" then forge.progress(-1) end
      if args.bad == "total" then forge.progress(1, 0) end
      if args.bad == "nul" then forge.progress(1, 2, "a\0b") end
      if args.bad == "type" then forge.progress("half") end
      if args.bad == "flood" then for i = 1, 5000 do forge.log.info(i) end end
      if args.bad == "long" then forge.log.info(string.rep("é", 10000)) end
      forge.log.debug("d")
      forge.log.info("i")
      forge.log.warn("w")
      forge.log.error("e")
      forge.progress(1, 2, "half way")
      forge.progress(2, 2)
      return "done"
    end },
  forge.tool { name = "spin", description = "Never returns (stopped by the sandbox).", run = function() while true do end end },
}
