-- The offline scripted model: which tools it calls, and what it answers, for each message.
local forge = require "forge"

return forge.scripted {
  { match = "time in (\\w+)", calls = { { name = "get_time", arguments = { city = "$1" } } },
    reply = function(ctx) return ("It is %s in %s."):format(ctx.results[1].result.time, ctx.match[1]) end },
  { match = "holidays in (\\w+)", calls = { { name = "get_holidays", arguments = { country = "$1" } } },
    reply = "There are 3 public holidays this year." },
  { reply = "I can tell the time and list holidays." },
}
