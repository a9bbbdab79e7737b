-- A scripted model that fails every built-in probe, each in its own way.
local forge = require "forge"

return forge.scripted {
  { match = "weather in Tokyo and in Paris",                       -- parallel: one call only
    calls = { { name = "get_current_weather", arguments = { location = "Tokyo" } } }, reply = "Done." },
  { match = "what time is it there",                               -- named: calls the other tool
    calls = { { name = "get_current_weather", arguments = { location = "Tokyo" } } }, reply = "Done." },
  { when = function(ctx) return ctx.tool_choice == "none" end,     -- none: calls anyway
    calls = { { name = "get_current_weather", arguments = { location = "Tokyo" } } }, reply = "Done." },
  { match = "You must call",                                       -- required: answers in text
    reply = "I know it is sunny." },
  { match = "current weather in Tokyo",                            -- auto, stream: no location;
    calls = { { name = "get_current_weather", arguments = { unit = "celsius" } } },   -- roundtrip fails at round 1
    reply = "Done." },
  { match = "3-day forecast",                                      -- strict: an enum broken
    calls = { { name = "get_forecast", arguments = { city = "Oslo", unit = "kelvin", days = 3 } } }, reply = "Done." },
  { match = "shopping list",                                       -- nested: one item only
    calls = { { name = "create_shopping_list", arguments = { items = { { name = "apples", quantity = 3 } } } } },
    reply = "Done." },
  { match = "poem",                                                -- irrelevance: calls a tool
    calls = { { name = "get_current_time", arguments = { location = "here" } } }, reply = "Done." },
}
