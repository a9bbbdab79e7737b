-- A custom assertion: the answer quotes the time the tool returned.
local forge = require "forge"

forge.assertion("quotes_the_time", function(run)
  for _, call in ipairs(run.tool_calls) do
    if call.name == "get_time" and type(call.result) == "table" then
      return run.response:find(call.result.time, 1, true) ~= nil, "the answer does not quote the tool's time"
    end
  end
  return false, "get_time was not called"
end)
