local forge = require "forge"
return forge.suite {
  name = "bad",
  model = forge.scripted { { reply = "x" } },
  tools = { forge.tool { name = "t", mock = 1 } },
  casez = {},
}
