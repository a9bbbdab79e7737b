-- A forge.scripted model whose `respond` the script replaced: its function answers every
-- request (the rules, though plain data, are not answered in C behind its back).
local forge = require "forge"
local model = forge.scripted { { match = "in (\\w+)", reply = "reply $1" } }
local inner, n = model.respond, 0
model.respond = function(req)
  n = n + 1
  local r = inner(req)
  r.message.content = r.message.content .. " #" .. n
  return r
end
return forge.suite {
  name = "wrap",
  model = model,
  cases = { { id = "a", input = { message = "in A" } }, { id = "b", input = { message = "in B" } } },
}
