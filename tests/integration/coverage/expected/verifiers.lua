-- Verifier stubs for the tools `forge coverage` found without a verifier (forge gen
-- verifiers). Each stub passes every result until you edit it: return "warn" or
-- "block" and a message for results that must not reach the model as they are.
-- Load the file from a tools file or suite with require; it returns its verifiers.
local forge = require "forge"

local verifiers = {}

-- a tool of no known output group
verifiers[#verifiers + 1] = forge.verifier {
  name = "search_web_verifier",
  tools = { "search_web" },
  order = "U-0001",
  verify = function(call)
    -- call.name, call.arguments and call.result (the tool's result) are here.
    -- For example:
    -- if type(call.result) ~= "table" then return "warn", "the result is not an object" end
    return "pass"
  end,
}

-- a tool of no known output group
verifiers[#verifiers + 1] = forge.verifier {
  name = "search_news_verifier",
  tools = { "search_news" },
  order = "U-0002",
  verify = function(call)
    -- call.name, call.arguments and call.result (the tool's result) are here.
    -- For example:
    -- if type(call.result) ~= "table" then return "warn", "the result is not an object" end
    return "pass"
  end,
}

-- output group: weather
verifiers[#verifiers + 1] = forge.verifier {
  name = "weather_verifier",
  tools = { "get_weather" },
  order = "U-0003",
  verify = function(call)
    -- call.name, call.arguments and call.result (the tool's result) are here.
    -- For example:
    -- if type(call.result) ~= "table" then return "warn", "the result is not an object" end
    return "pass"
  end,
}

return verifiers
