-- A hand-made tool set with known gaps (tests/integration/coverage_test.py).
local forge = require "forge"

local web = forge.tool {
  name = "search_web",
  description = "Search the web for pages about a topic.",
  triggerPhrases = { "search the web for", "look up online" },
  schema = { type = "object", properties = { query = { type = "string" }, limit = { type = "integer" } },
             required = { "query" } },
  mock = { results = {} },
}

local news = forge.tool {
  name = "search_news",
  description = "Search the web for news pages about a topic.",
  triggerPhrases = { "search the news for", "latest news about" },
  schema = { type = "object", properties = { query = { type = "string" } }, required = { "query" } },
  mock = { articles = {} },
}

local email = forge.tool {
  name = "send_email",
  description = "Send an email message to a recipient.",
  category = "write",
  schema = { type = "object",
             properties = { to = { type = "string" }, subject = { type = "string" },
                            priority = { type = "string", enum = { "low", "normal", "high" } } },
             required = { "to" } },
  mock = { status = "sent" },
}

local weather = forge.tool {
  name = "get_weather",
  description = "Current weather conditions for a city.",
  schema = { type = "object",
             properties = { city = { type = "string" }, units = { enum = { "celsius", "fahrenheit" } } },
             required = { "city" } },
  mock = { temp_c = 18 },
}

forge.verifier { name = "email_sent", tools = { "send_email" }, verify = function() return "pass" end }

return { web, news, email, weather }
