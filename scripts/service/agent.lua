-- An agent for `forge serve --agent scripts/service/agent.lua --auth none` (docs/service.md):
-- a weather assistant that looks things up freely and asks a person before it sends e-mail.
local forge = require "forge"

local get_weather = forge.tool {
  name = "get_weather",
  description = "Current weather for a city. Use when the user asks about current conditions.",
  schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
  category = "read",
  run = function(args) return { city = args.city, temp_c = 18, condition = "cloudy" } end,
}

local send_email = forge.tool {
  name = "send_email",
  description = "Sends an e-mail. Use only when the user asks to send one.",
  schema = { type = "object", properties = { to = { type = "string" }, body = { type = "string" } },
             required = { "to", "body" } },
  category = "write",
  requiresConfirmation = true,
  run = function(args) return { sent = true, to = args.to } end,
}

-- The offline model: swap for model = "openai:gpt-4o-mini" (or --model) in production.
local model = forge.scripted {
  { match = "weather in (\\w+)",
    calls = { { name = "get_weather", arguments = { city = "$1" } } },
    reply = "It is {{result.temp_c}}°C and {{result.condition}} in $1." },
  { match = "email (\\S+) (.+)",
    calls = { { name = "send_email", arguments = { to = "$1", body = "$2" } } },
    reply = function(ctx)
      if ctx.result and ctx.result.sent then return "Sent to " .. ctx.result.to .. "." end
      return "I did not send it: " .. tostring(ctx.result)
    end },
  { reply = "I can tell you the weather, or send an e-mail." },
}

return forge.agent {
  id = "weather",
  description = "Weather look-ups; e-mail with a person's approval",
  model = model,
  system = "You are a helpful weather assistant.",
  tools = { get_weather, send_email },
  verifiers = {
    forge.verifier { name = "plausible_temp", tools = { "get_weather" }, order = "R-0001",
      verify = function(call)
        if call.result.temp_c > 60 then return "block", "implausible temperature" end
        return "pass"
      end },
  },
  policy = { approval = { level = "cautious" }, max_rounds = 6 },
  -- to let each user choose how often to be asked (PUT /agent-api/user/preferences
  -- {"hitlLevel": "paranoid"}; "autonomous" would skip the approval of e-mails):
  -- allow_user_hitl = true,
}
