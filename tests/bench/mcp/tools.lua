-- forge's side of the benchmark: the same trivial tool, a template (no Lua runs per call).
local forge = require "forge"
return { forge.tool { name = "echo", description = "Echoes the text back.",
                      schema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
                      template = "{{args.text}}" } }
