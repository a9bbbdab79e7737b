local forge = require "forge"
return forge.suite {
  name = "bad",
  model = forge.scripted { { mach = "x", reply = "y" } },
  cases = { { id = "c1", input = { message = "hi" } } },
}
