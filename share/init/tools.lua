-- The agent's tools: one written in Lua, one answered by a fixed mock.
local forge = require "forge"

return {
  forge.tool {
    name = "get_time",
    description = "The current time in a city",
    schema = {
      type = "object",
      properties = { city = { type = "string" } },
      required = { "city" },
    },
    run = function(args)
      return { city = args.city, time = "09:30" }
    end,
  },
  forge.tool {
    name = "get_holidays",
    description = "The public holidays of a country this year",
    schema = {
      type = "object",
      properties = { country = { type = "string" } },
      required = { "country" },
    },
    mock = { holidays = { "01-01", "05-01", "12-25" } },
  },
}
