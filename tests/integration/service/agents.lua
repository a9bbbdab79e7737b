-- Agents for tests/integration/service_test.py.
local forge = require "forge"

local get_weather = forge.tool {
  name = "get_weather",
  description = "Current weather for a city.",
  schema = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
  run = function(args)
    if args.city == "Venus" then return { city = args.city, temp_c = 464 } end
    if args.city == "Mars" then return { city = args.city, temp_c = -60 } end
    return { city = args.city, temp_c = 18, condition = "cloudy" }
  end,
}

local sent = 0
local send_email = forge.tool {
  name = "send_email",
  description = "Sends an e-mail.",
  schema = { type = "object", properties = { to = { type = "string" }, body = { type = "string" } },
             required = { "to", "body" } },
  requiresConfirmation = true,
  run = function(args) sent = sent + 1; return { sent = true, to = args.to, count = sent } end,
}

local slow = forge.tool {
  name = "slow",
  description = "Takes about a second.",
  schema = { type = "object", properties = { n = { type = "integer" } } },
  run = function(args)
    local t = forge.clock()
    while forge.clock() - t < 0.8 do end
    return { n = args.n }
  end,
}

local weather = forge.agent {
  id = "weather",
  description = "weather and e-mail",
  model = forge.scripted {
    { match = "weather in (\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },
      reply = "It is {{result.temp_c}}°C in $1." },
    { match = "email (\\S+) (.+)", calls = { { name = "send_email", arguments = { to = "$1", body = "$2" } } },
      reply = function(ctx)
        if ctx.result and ctx.result.sent then return "Sent to " .. ctx.result.to .. " (#" .. ctx.result.count .. ")." end
        return "Not sent: " .. tostring(ctx.result)
      end },
    { match = "both (\\S+)", calls = { { name = "get_weather", arguments = { city = "Paris" } },
                                       { name = "send_email", arguments = { to = "$1", body = "hi" } },
                                       { name = "get_weather", arguments = { city = "Rome" } } },
      reply = function(ctx)
        local parts = {}
        for _, r in ipairs(ctx.results) do parts[#parts + 1] = r.name .. "=" .. (r.error and "error" or "ok") end
        return table.concat(parts, ",")
      end },
    { match = "^many$", steps = (function()
        local st = {}
        for i = 1, 7 do st[i] = { calls = { { name = "get_weather", arguments = { city = "C" .. i } } } } end
        st[8] = { reply = "seven" }
        return st
      end)() },
    { match = "crash", reply = function() error("the rules broke") end },
    { match = "what did I say", reply = function(ctx)
        local n = 0
        for _, m in ipairs(ctx.messages) do if m.role == "user" then n = n + 1 end end
        return "turn " .. ctx.turn .. " of " .. n .. " user messages" end },
    { reply = "Hello." },
  },
  tools = { get_weather, send_email },
  verifiers = {
    forge.verifier { name = "cold", tools = { "get_weather" }, order = "R-0001",
      verify = function(call)
        if call.result.temp_c < -50 then return "warn", "very cold" end
        if call.result.temp_c > 60 then return "block", "implausible temperature" end
        return "pass"
      end },
  },
  policy = { approval = { level = "cautious" } },
}

local slowpoke = forge.agent {
  id = "slow",
  model = forge.scripted {
    { match = "slow", steps = {
        { calls = { { name = "slow", arguments = { n = 1 } } } },
        { calls = { { name = "slow", arguments = { n = 2 } } } },
        { calls = { { name = "slow", arguments = { n = 3 } } } },
        { calls = { { name = "slow", arguments = { n = 4 } } } },
        { reply = "done" } } },
    { reply = "fast" },
  },
  tools = { slow },
  policy = { approval = { level = "autonomous" } },
}

-- hooks: on_request refuses or rewrites, on_tool_call refuses calls, on_done keeps a count that a
-- tool reads back (state in Lua survives between requests; every hook runs under the sandbox limits)
local done = {}
local hooked = forge.agent {
  id = "hooked",
  model = forge.scripted {
    { match = "weather in (\\w+)", calls = { { name = "get_weather", arguments = { city = "$1" } } },
      reply = function(ctx)
        local r = ctx.results[1]
        return r.error and ("no: " .. r.error) or ("ok " .. r.result.city)
      end },
    { match = "stats", calls = { { name = "stats", arguments = {} } },
      reply = function(ctx) return forge.json.encode(ctx.result) end },
    { reply = function(ctx) return "echo: " .. ctx.message end },
  },
  tools = { get_weather, forge.tool { name = "stats", description = "on_done counts",
    schema = { type = "object" }, run = function() return { turns = #done, last = done[#done] } end } },
  policy = { approval = { level = "autonomous" } },
  on_request = function(req)
    if req.message and req.message:find("forbidden") then return false, "no forbidden words" end
    if req.message and req.message:find("^shout ") then return { message = req.message:sub(7):upper() } end
    if req.message == "loop" then while true do end end
    if req.message == "boom" then error("hook exploded") end
  end,
  on_tool_call = function(call)
    if call.arguments.city == "Atlantis" then return { deny = "no such place" } end
    if call.arguments.city == "Error" then error("tool hook exploded") end
  end,
  on_done = function(row)
    done[#done + 1] = { status = row.status, user = row.user, toolCount = row.toolCount, message = row.message }
  end,
}

return { weather, slowpoke, hooked }
