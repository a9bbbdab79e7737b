-- The built-in tool-calling probes of `forge probe` (docs/probe.md). A probe is a table:
--   name, description
--   prompt        the user's message            system  an optional system prompt
--   tools         tool definitions ({name, description, parameters})
--   tool_choice   "auto" | "none" | "required" | {name = ...}     (default "auto")
--   parallel_tool_calls, params                 passed on as in any request
--   stream        true: ask for a streamed answer
--   roundtrip     {result = <JSON value>}: after a first answer that passes, the calls are
--                 answered with this result and the model asked again (round 2)
--   preflight(body, dialect)  sees the wire body forge will send; a string fails the probe
--                 without a request (the request does not say what the probe needs)
--   check(response, info)     the normalized response; info = {round, dialect, first (the round
--                 1 response on round 2), timing}; returns true, or false and why
-- The first three are big-AGI's tool probes with their pass criteria; the others are forge's.

local forge = require "forge"

local weather = {
  name = "get_current_weather",
  description = "Look up the current weather for a given city. Returns temperature, condition and wind.",
  parameters = {
    type = "object",
    properties = {
      location = { type = "string", description = "City and country, e.g. Tokyo, Japan" },
      unit = { type = "string", enum = { "celsius", "fahrenheit" } },
    },
    required = { "location" },
  },
}

local time_tool = {
  name = "get_current_time",
  description = "The current local time in a given city.",
  parameters = { type = "object", properties = { location = { type = "string" } }, required = { "location" } },
}

local prompt = "What is the current weather in Tokyo? Use the provided tool to find out."

local function calls(resp)
  return resp.message.tool_calls or {}
end

-- big-AGI's check of the first call: the expected function, arguments that parse, a location.
local function weather_call(resp)
  local c = calls(resp)[1]
  if not c then return false, "no function call emitted" end
  if c.name ~= "get_current_weather" then return false, "the first call is " .. c.name .. ", not get_current_weather" end
  if c.arguments_error then return false, "unparseable function args: " .. c.arguments_error end
  local loc = c.arguments.location
  if type(loc) ~= "string" or loc == "" then return false, "no location argument" end
  return true
end

local function text_only(resp)
  if #calls(resp) > 0 then return false, "called " .. calls(resp)[1].name .. " where no call should be made" end
  if type(resp.message.content) ~= "string" or resp.message.content == "" then return false, "no text answer" end
  return true
end

-- The wire body really forces a tool call, in each dialect's words.
local function forced(body, dialect, name)
  local tc = body.tool_choice
  if dialect == "openai" then
    if name then return type(tc) == "table" and tc["function"] and tc["function"].name == name end
    return tc == "required"
  elseif dialect == "openai-responses" then
    if name then return type(tc) == "table" and tc.name == name end
    return tc == "required"
  elseif dialect == "anthropic" then
    if name then return type(tc) == "table" and tc.type == "tool" and tc.name == name end
    return type(tc) == "table" and tc.type == "any"
  elseif dialect == "gemini" then
    local cfg = body.toolConfig and body.toolConfig.functionCallingConfig
    if not cfg or cfg.mode ~= "ANY" then return false end
    if name then return cfg.allowedFunctionNames and #cfg.allowedFunctionNames == 1 and cfg.allowedFunctionNames[1] == name end
    return true
  end
  return false
end

local function preflight_forced(name)
  return function(body, dialect)
    if not forced(body, dialect, name) then
      return "coerced on wire: the request does not force " .. (name or "a tool call") .. " in " .. dialect .. "'s terms"
    end
  end
end

local strict_schema = {
  type = "object",
  properties = {
    city = { type = "string" },
    unit = { type = "string", enum = { "celsius", "fahrenheit" } },
    days = { type = "integer", minimum = 1, maximum = 7 },
  },
  required = { "city", "unit", "days" },
  additionalProperties = false,
}
local strict_validator = forge.schema.compile(strict_schema)

local list_schema = {
  type = "object",
  properties = {
    items = {
      type = "array", minItems = 2,
      items = {
        type = "object",
        properties = { name = { type = "string", minLength = 1 }, quantity = { type = "integer", minimum = 1 } },
        required = { "name", "quantity" },
      },
    },
  },
  required = { "items" },
}
local list_validator = forge.schema.compile(list_schema)

local function valid_call(resp, tool, validator)
  local c = calls(resp)[1]
  if not c then return false, "no function call emitted" end
  if c.name ~= tool then return false, "the first call is " .. c.name .. ", not " .. tool end
  if c.arguments_error then return false, "unparseable function args: " .. c.arguments_error end
  local ok, errors = validator:validate(c.arguments)
  if not ok then
    return false, "arguments break the schema: " .. errors[1].error .. " at '" .. errors[1].instanceLocation .. "'"
  end
  return true
end

return {
  { name = "auto", description = "calls the tool when told to, tool_choice auto (big-AGI)",
    prompt = prompt, tools = { weather }, tool_choice = "auto", check = weather_call },

  { name = "required", description = "calls the tool when the request forces it (big-AGI, with its wire-fidelity preflight)",
    prompt = "What is the current weather in Tokyo? You must call the available tool.",
    tools = { weather }, tool_choice = "required", preflight = preflight_forced(nil), check = weather_call },

  { name = "roundtrip", description = "reads a tool result back: no second call, the result's facts in the text (big-AGI)",
    prompt = prompt, tools = { weather }, tool_choice = "auto",
    roundtrip = { result = { temperature_c = 18, condition = "cloudy", wind_kph = 12 } },
    check = function(resp, info)
      if info.round == 1 then return weather_call(resp) end
      if #calls(resp) > 0 then return false, "loop: another function call after the result" end
      local text = resp.message.content
      if type(text) ~= "string" or text == "" then return false, "no text after the result" end
      local low = text:lower()
      if not (low:find("cloudy", 1, true) or low:find("18", 1, true)) then
        return false, "the answer quotes nothing of the result (signal tokens: cloudy, 18)"
      end
      return true
    end },

  { name = "parallel", description = "two independent calls in one response",
    prompt = "What is the current weather in Tokyo and in Paris? Look both up with the tool, at the same time.",
    tools = { weather }, tool_choice = "auto", parallel_tool_calls = true,
    check = function(resp)
      local cs = calls(resp)
      if #cs < 2 then return false, ("%d call(s) in the first response, not 2"):format(#cs) end
      local seen = {}
      for _, c in ipairs(cs) do
        if c.name ~= "get_current_weather" then return false, "called " .. c.name end
        if c.arguments_error or type(c.arguments.location) ~= "string" then return false, "a call without a location" end
        seen[c.arguments.location:lower()] = true
      end
      local n = 0
      for _ in pairs(seen) do n = n + 1 end
      if n < 2 then return false, "both calls ask for the same place" end
      return true
    end },

  { name = "named", description = "calls the one tool the request names, among two",
    prompt = "What is the weather in Tokyo right now, and what time is it there?",
    tools = { weather, time_tool }, tool_choice = { name = "get_current_time" },
    preflight = preflight_forced("get_current_time"),
    check = function(resp)
      local c = calls(resp)[1]
      if not c then return false, "no function call emitted" end
      if c.name ~= "get_current_time" then return false, "called " .. c.name .. ", not the named get_current_time" end
      return true
    end },

  { name = "none", description = "makes no call when tool_choice is none, and answers in text",
    prompt = prompt, tools = { weather }, tool_choice = "none", check = text_only },

  { name = "irrelevance", description = "answers in text when no tool fits the question",
    prompt = "Write a two-line poem about autumn leaves.", tools = { weather, time_tool }, tool_choice = "auto",
    check = text_only },

  { name = "strict", description = "honours a strict schema: required fields, enums, bounds, no extra keys",
    prompt = "Get me the 3-day forecast for Oslo in celsius.",
    tools = { { name = "get_forecast", description = "The weather forecast for a city for 1 to 7 days.",
                parameters = strict_schema } },
    tool_choice = "auto",
    check = function(resp) return valid_call(resp, "get_forecast", strict_validator) end },

  { name = "nested", description = "fills an argument that is an array of objects",
    prompt = "Make a shopping list with 3 apples and 2 loaves of bread.",
    tools = { { name = "create_shopping_list", description = "Creates a shopping list from items with quantities.",
                parameters = list_schema } },
    tool_choice = "auto",
    check = function(resp) return valid_call(resp, "create_shopping_list", list_validator) end },

  { name = "stream", description = "the auto probe streamed: same criteria, and the stream shows when the call began",
    prompt = prompt, tools = { weather }, tool_choice = "auto", stream = true,
    check = function(resp, info)
      local ok, why = weather_call(resp)
      if not ok then return ok, why end
      if not info.timing or info.timing.first_tool_call_ms == forge.json.null then
        return false, "the streamed answer has no time of its first tool call"
      end
      return true
    end },
}
