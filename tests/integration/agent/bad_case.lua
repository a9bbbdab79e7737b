local forge = require "forge"
return forge.suite {
  name = "bad",
  model = forge.scripted { { reply = "x" } },
  cases = { { id = "c1", input = { message = "hi" }, expect = { toolsCaled = { "t" } } } },
}
