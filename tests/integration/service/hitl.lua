-- Agents for tests/integration/service_test.py's "hitl" group: "chooser" lets the user's
-- hitlLevel preference set its approval level, "fixed" keeps its own (unless --allow-user-hitl).
local forge = require "forge"

local get_weather = forge.tool {
  name = "get_weather",
  description = "Current weather for a city.",
  schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
  run = function(args) return { city = args.city, temp_c = 18 } end,
}

local sent = 0
local send_email = forge.tool {
  name = "send_email",
  description = "Sends an e-mail.",
  schema = { type = "object", properties = { to = { type = "string" } }, required = { "to" } },
  requiresConfirmation = true,
  run = function(args) sent = sent + 1; return { sent = true, to = args.to, count = sent } end,
}

local function rules()
  return forge.scripted {
    { match = "weather in (\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },
      reply = "It is {{result.temp_c}}°C in $1." },
    { match = "email (\\S+)", calls = { { name = "send_email", arguments = { to = "$1" } } },
      reply = "Sent to {{result.to}} (#{{result.count}})." },
    { reply = "Hello." },
  }
end

return {
  forge.agent { id = "chooser", model = rules(), tools = { get_weather, send_email },
                policy = { approval = { level = "cautious" } }, allow_user_hitl = true },
  forge.agent { id = "fixed", model = rules(), tools = { get_weather, send_email },
                policy = { approval = { level = "cautious" } } },
}
