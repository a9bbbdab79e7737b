-- A scripted model that behaves well under every built-in probe (served by forge serve in
-- tests/integration/probe_test.py, so the probes cross each dialect's real wire).
local forge = require "forge"

local function forced_name(ctx)
  return type(ctx.tool_choice) == "table" and ctx.tool_choice.name
end

return forge.scripted {
  -- none: tools given, no call allowed
  { when = function(ctx) return ctx.tool_choice == "none" or #ctx.tool_names == 0 end,
    reply = "I would look it up, but I may not use tools." },
  { match = "weather in Tokyo and in Paris",
    calls = { { name = "get_current_weather", arguments = { location = "Tokyo, Japan" } },
              { name = "get_current_weather", arguments = { location = "Paris, France" } } },
    reply = "Tokyo and Paris both looked up." },
  { when = function(ctx) return forced_name(ctx) == "get_current_time" end,
    calls = { { name = "get_current_time", arguments = { location = "Tokyo" } } }, reply = "It is noon." },
  { match = "current weather in Tokyo",
    calls = { { name = "get_current_weather", arguments = { location = "Tokyo, Japan", unit = "celsius" } } },
    reply = "It is {{result.temperature_c}}°C and {{result.condition}} in Tokyo." },
  { match = "3-day forecast for Oslo",
    calls = { { name = "get_forecast", arguments = { city = "Oslo", unit = "celsius", days = 3 } } }, reply = "Done." },
  { match = "shopping list",
    calls = { { name = "create_shopping_list",
                arguments = { items = { { name = "apples", quantity = 3 }, { name = "bread", quantity = 2 } } } } },
    reply = "Listed." },
  { match = "poem", reply = "Leaves of amber fall,\nautumn whispers to us all." },
}
