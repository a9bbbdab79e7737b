-- A case string that is not UTF-8 is refused when the case is read back for its run, as parsing
-- its JSON text refuses it (the cases before it have run).
local forge = require "forge"
return forge.suite { name = "utf8", model = forge.scripted { { reply = "hi" } },
  cases = { { id = "a", input = { message = "ok" } }, { id = "b", input = { message = "x\255y" } }, { id = "c", input = { message = "ok" } } } }
